// shift/segmentation: voxel Dice and nDSC, lesion-level counts by best IoU, score_subject (the
// whole per-subject evaluation) and its input checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/shift/segmentation.hpp"
#include "test_util.hpp"

namespace assay::shift {
namespace {

using Mask = std::vector<std::uint8_t>;

std::size_t at(Grid3 g, std::size_t i, std::size_t j, std::size_t k) {
  return i + g.nx * (j + g.ny * k);
}

TEST(Segmentation, DiceAndNormalisedDice) {
  // N = 1000, |G| = 10, TP = 6, FP = 4, FN = 4.
  const VoxelCounts c{1000, 6, 4, 4};
  EXPECT_DOUBLE_EQ(dice(c), 12.0 / 20.0);
  const double k = 0.999 * 10 / (0.001 * 990);
  EXPECT_DOUBLE_EQ(normalised_dice(c, 0.001), 12.0 / (k * 4 + 12 + 4));
  EXPECT_EQ(dice({5, 0, 0, 0}), 1.0);
  EXPECT_EQ(normalised_dice({5, 0, 0, 0}, 0.001), 1.0);
  EXPECT_EQ(normalised_dice({5, 0, 2, 0}, 0.001), 0.0);  // |G| = 0: k = 1
  EXPECT_THROW_MSG(normalised_dice(c, 1.0), Error, "r: expected a value in (0, 1), found 1");
  const Mask p = {1, 1, 0, 0}, t = {1, 0, 1, 0};
  const auto v = voxel_counts(p, t);
  EXPECT_EQ(v.n, 4u);
  EXPECT_EQ(v.tp, 1u);
  EXPECT_EQ(v.fp, 1u);
  EXPECT_EQ(v.fn, 1u);
}

TEST(Segmentation, LesionCountsUseBestIou) {
  // One true lesion of 4 voxels; a predicted lesion covering 2 of them (IoU 0.5) and a stray one.
  const Grid3 g{8, 1, 1};
  const Mask t = {1, 1, 1, 1, 0, 0, 0, 0};
  const Mask p = {0, 0, 1, 1, 0, 0, 1, 0};
  auto c = lesion_counts(p, t, g, 6, 0.5);
  EXPECT_EQ(c.true_lesions, 1u);
  EXPECT_EQ(c.predicted_lesions, 2u);
  EXPECT_EQ(c.tp, 1u);
  EXPECT_EQ(c.fp, 1u);
  EXPECT_EQ(c.fn, 0u);
  EXPECT_DOUBLE_EQ(c.f1, 1.0 / 1.5);
  c = lesion_counts(p, t, g, 6, 0.51);
  EXPECT_EQ(c.tp, 0u);
  EXPECT_EQ(c.fn, 1u);
  EXPECT_EQ(lesion_counts(Mask(8, 0), Mask(8, 0), g, 6, 0.25).f1, 1.0);
}

TEST(Segmentation, ScoreSubjectTiesItTogether) {
  const Grid3 g{10, 1, 1};
  const std::vector<double> prob = {0.9, 0.35, 0.2, 0, 0, 0.5, 0, 0, 0, 0};
  const std::vector<double> truth = {1, 1, 1, 0, 0, 0, 0, 0, 0, 1};
  const std::vector<double> unc = {0.1, 0.3, 0.5, 0, 0, 0.9, 0, 0, 0, 0.2};
  SegmentationParams params;
  params.min_lesion_size = 2;  // drops the single voxel at 5
  const auto s = score_subject(prob, truth, unc, {}, g, params);
  EXPECT_EQ(s.n_voxels, 10u);
  EXPECT_EQ(s.brain_voxels, 10u);
  EXPECT_EQ(s.removed_lesions, 1u);
  EXPECT_EQ(s.voxel_tp, 2u);
  EXPECT_EQ(s.voxel_fp, 0u);
  EXPECT_EQ(s.voxel_fn, 2u);
  EXPECT_DOUBLE_EQ(s.dsc, 4.0 / 6.0);
  EXPECT_EQ(s.true_lesions, 2u);
  EXPECT_EQ(s.predicted_lesions, 1u);
  EXPECT_EQ(s.lesion_tp, 1u);  // IoU 2/3
  EXPECT_EQ(s.lesion_fn, 1u);
  EXPECT_DOUBLE_EQ(s.lesion_f1, 1.0 / 1.5);
  EXPECT_EQ(s.retention_ndsc.size(), 200u);
  EXPECT_EQ(s.retention_ndsc.front(), 1.0);
  EXPECT_DOUBLE_EQ(s.mean_uncertainty, 2.0 / 10.0);
  const auto plain = score_subject(prob, truth, {}, {}, g, params);
  EXPECT_TRUE(std::isnan(plain.ndsc_retention_auc));
  EXPECT_TRUE(plain.retention_ndsc.empty());
}

TEST(Segmentation, BadInput) {
  const Grid3 g{2, 2, 2};
  const std::vector<double> p(8, 0.5), t(8, 0);
  const SegmentationParams ok;
  EXPECT_THROW_MSG(score_subject(p, std::vector<double>(7, 0), {}, {}, g, ok), Error,
                   "truth: expected 8 values (2 x 2 x 2 voxels), found 7");
  auto bad = p;
  bad[at(g, 1, 0, 1)] = std::nan("");
  EXPECT_THROW_MSG(score_subject(bad, t, {}, {}, g, ok), Error,
                   "probability: expected a value in [0, 1] at voxel (1, 0, 1), found nan");
  auto bt = t;
  bt[at(g, 0, 1, 1)] = 2;
  EXPECT_THROW_MSG(score_subject(p, bt, {}, {}, g, ok), Error,
                   "truth: expected 0 or 1 at voxel (0, 1, 1), found 2");
  EXPECT_THROW_MSG(score_subject(p, t, {}, bt, g, ok), Error,
                   "brain mask: expected 0 or 1 at voxel (0, 1, 1), found 2");
  Grid3 c = g;
  c.c_order_names = true;
  bt = t;
  bt[at(g, 1, 0, 0)] = 0.5;
  EXPECT_THROW_MSG(score_subject(p, bt, {}, {}, c, ok), Error,
                   "truth: expected 0 or 1 at voxel (0, 0, 1), found 0.5");
  EXPECT_THROW_MSG(score_subject(p, t, bad, {}, g, ok), Error,
                   "uncertainty: expected a number at voxel (1, 0, 1), found nan");
  auto params = ok;
  params.iou_threshold = -0.1;
  EXPECT_THROW_MSG(score_subject(p, t, {}, {}, g, params), Error,
                   "iou_threshold: expected a value in [0, 1], found -0.1");
  params = ok;
  params.retention_points = 1;
  EXPECT_THROW_MSG(score_subject(p, t, {}, {}, g, params), Error,
                   "retention points: expected at least 2, found 1");
  params = ok;
  params.threshold = INFINITY;
  EXPECT_THROW_MSG(score_subject(p, t, {}, {}, g, params), Error,
                   "threshold: expected a finite number, found inf");
}

// The mask scans compare bit patterns (they vectorise); they must decide what the plain
// comparisons decide at every edge: signed zeros, subnormals, neighbours of 0, 1 and the
// threshold, thresholds at or below 0 and above 1, on volumes long enough for the vector loops
// and their tails.
TEST(Segmentation, MaskScansDecideAsComparisons) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<double> valid = {0.0,
                                     -0.0,
                                     tiny,
                                     std::numeric_limits<double>::min(),
                                     0.35,
                                     std::nextafter(0.35, 0.0),
                                     std::nextafter(0.35, 1.0),
                                     std::nextafter(1.0, 0.0),
                                     1.0,
                                     0.5};
  const Grid3 g{valid.size(), 7, 1};
  std::vector<double> p(g.size());
  for (std::size_t v = 0; v < p.size(); ++v) p[v] = valid[(v * 7 + v / 3) % valid.size()];
  for (const double threshold : {0.35, 1.0, tiny, 0.0, -0.0, -0.5, 1.5, 1e-300}) {
    const Mask mask = threshold_probability(p, g, threshold);
    for (std::size_t v = 0; v < p.size(); ++v) {
      ASSERT_EQ(mask[v], p[v] >= threshold) << p[v] << " vs " << threshold;
    }
  }
  std::vector<double> binary(g.size());
  for (std::size_t v = 0; v < binary.size(); ++v)
    binary[v] = v % 3 == 0 ? 1.0 : v % 3 == 1 ? 0.0 : -0.0;
  const Mask ones = binary_mask(binary, g, "truth");
  for (std::size_t v = 0; v < binary.size(); ++v) ASSERT_EQ(ones[v], binary[v] == 1.0);

  for (const double bad : {-tiny, std::nextafter(1.0, 2.0), -1.0, std::nan(""),
                           std::numeric_limits<double>::infinity()}) {
    auto q = p;
    q[at(g, 3, 5, 0)] = bad;
    EXPECT_THROW(threshold_probability(q, g, 0.35), Error) << bad;
  }
  for (const double bad :
       {tiny, std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0), -1.0, std::nan(""), 2.0}) {
    auto b = binary;
    b[at(g, 9, 6, 0)] = bad;
    EXPECT_THROW(binary_mask(b, g, "truth"), Error) << bad;
  }
}

}  // namespace
}  // namespace assay::shift
