// shift/segmentation_components: connected components of 3-D masks (6-, 18- and 26-connectivity,
// numbering by first voxel, sizes), removal of small lesions, and the size and connectivity
// checks.
#include <gtest/gtest.h>

#include <vector>

#include "assay/core/error.hpp"
#include "assay/shift/segmentation.hpp"
#include "test_util.hpp"

namespace assay::shift {
namespace {

using Mask = std::vector<std::uint8_t>;
using Labels = std::vector<std::uint32_t>;

std::size_t at(Grid3 g, std::size_t i, std::size_t j, std::size_t k) {
  return i + g.nx * (j + g.ny * k);
}

TEST(SegmentationComponents, ConnectivityDecidesWhatTouches) {
  const Grid3 g{3, 3, 3};
  Mask m(g.size(), 0);
  m[at(g, 0, 0, 0)] = 1;
  m[at(g, 1, 0, 0)] = 1;  // face neighbour of (0, 0, 0)
  m[at(g, 2, 1, 0)] = 1;  // edge neighbour of (1, 0, 0)
  m[at(g, 1, 2, 1)] = 1;  // corner neighbour of (2, 1, 0)
  EXPECT_EQ(label_components(m, g, 6).count, 3u);
  EXPECT_EQ(label_components(m, g, 18).count, 2u);
  const auto c26 = label_components(m, g, 26);
  EXPECT_EQ(c26.count, 1u);
  EXPECT_EQ(c26.sizes, std::vector<std::uint64_t>{4});
}

TEST(SegmentationComponents, ComponentsAreNumberedByFirstVoxel) {
  // A U shape whose arms meet late: the first voxel's label must win, and the component that
  // starts second in memory order is number 2.
  const Grid3 g{5, 3, 1};
  // row 0: 1 0 1 0 1 ; row 1: 1 0 1 0 0 ; row 2: 1 1 1 0 0
  const Mask m = {1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0};
  const auto c = label_components(m, g, 6);
  ASSERT_EQ(c.count, 2u);
  const std::vector<std::uint32_t> want = {1, 0, 1, 0, 2, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0};
  EXPECT_EQ(c.labels, want);
  EXPECT_EQ(c.sizes, (std::vector<std::uint64_t>{7, 1}));
}

TEST(SegmentationComponents, RemoveSmallLesionsKeepsAtLeastMinSize) {
  const Grid3 g{6, 1, 1};
  Mask m = {1, 1, 0, 1, 0, 1};
  EXPECT_EQ(remove_small_lesions(m, g, 6, 2), 2u);
  EXPECT_EQ(m, (Mask{1, 1, 0, 0, 0, 0}));
  Mask keep = {1, 0, 1};
  EXPECT_EQ(remove_small_lesions(keep, {3, 1, 1}, 6, 1), 0u);
  EXPECT_EQ(keep, (Mask{1, 0, 1}));
}

TEST(SegmentationComponents, NeighboursDoNotWrapAroundRowsOrSlices) {
  // (3, 0, 0) and (0, 1, 0) are next to each other in memory but not in space.
  const Grid3 g{4, 2, 2};
  Mask m(g.size(), 0);
  m[at(g, 3, 0, 0)] = 1;
  m[at(g, 0, 1, 0)] = 1;
  m[at(g, 3, 1, 0)] = 1;  // face neighbour of (3, 0, 0)
  m[at(g, 0, 0, 1)] = 1;  // one slice up, diagonal to (0, 1, 0): an edge neighbour
  const auto c6 = label_components(m, g, 6);
  EXPECT_EQ(c6.count, 3u);
  EXPECT_EQ(c6.sizes, (std::vector<std::uint64_t>{2, 1, 1}));
  EXPECT_EQ(c6.labels[at(g, 3, 1, 0)], 1u);
  const auto c18 = label_components(m, g, 18);
  EXPECT_EQ(c18.count, 2u);
  EXPECT_EQ(c18.labels[at(g, 0, 0, 1)], c18.labels[at(g, 0, 1, 0)]);
  EXPECT_EQ(label_components(m, g, 26).count, 2u);
}

TEST(SegmentationComponents, EmptyAndFullMasks) {
  const Grid3 g{3, 2, 2};
  const auto none = label_components(Mask(g.size(), 0), g, 26);
  EXPECT_EQ(none.count, 0u);
  EXPECT_TRUE(none.sizes.empty());
  EXPECT_EQ(none.labels, Labels(g.size(), 0));
  const auto all = label_components(Mask(g.size(), 1), g, 6);
  EXPECT_EQ(all.count, 1u);
  EXPECT_EQ(all.sizes, (std::vector<std::uint64_t>{12}));
  EXPECT_EQ(all.labels, Labels(g.size(), 1));
}

TEST(SegmentationComponents, RemovalDependsOnConnectivity) {
  // Two diagonal voxels: one lesion of 2 with 26-connectivity, two of 1 with 6.
  const Grid3 g{2, 2, 1};
  Mask six = {1, 0, 0, 1};
  EXPECT_EQ(remove_small_lesions(six, g, 6, 2), 2u);
  EXPECT_EQ(six, (Mask{0, 0, 0, 0}));
  Mask corner = {1, 0, 0, 1};
  EXPECT_EQ(remove_small_lesions(corner, g, 26, 2), 0u);
  EXPECT_EQ(corner, (Mask{1, 0, 0, 1}));
  Mask zero = {1, 0, 0, 1};
  EXPECT_EQ(remove_small_lesions(zero, g, 6, 0), 0u);  // min size 0 keeps everything
}

TEST(SegmentationComponents, BadConnectivityAndSizes) {
  const Grid3 g{2, 2, 2};
  EXPECT_THROW_MSG(label_components(Mask(8, 0), g, 10), Error,
                   "connectivity: expected 6, 18 or 26, found 10");
  Mask m(8, 0);
  EXPECT_THROW_MSG(remove_small_lesions(m, g, 4, 1), Error,
                   "connectivity: expected 6, 18 or 26, found 4");
}

}  // namespace
}  // namespace assay::shift
