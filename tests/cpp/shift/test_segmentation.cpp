#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
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

TEST(Segmentation, ConnectivityDecidesWhatTouches) {
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

TEST(Segmentation, ComponentsAreNumberedByFirstVoxel) {
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

TEST(Segmentation, RemoveSmallLesionsKeepsAtLeastMinSize) {
  const Grid3 g{6, 1, 1};
  Mask m = {1, 1, 0, 1, 0, 1};
  EXPECT_EQ(remove_small_lesions(m, g, 6, 2), 2u);
  EXPECT_EQ(m, (Mask{1, 1, 0, 0, 0, 0}));
  Mask keep = {1, 0, 1};
  EXPECT_EQ(remove_small_lesions(keep, {3, 1, 1}, 6, 1), 0u);
  EXPECT_EQ(keep, (Mask{1, 0, 1}));
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

// Direct transcription of Shifts' ndsc_retention_curve with a stable argsort.
std::vector<double> brute_retention(const Mask& p, const Mask& t, const std::vector<double>& u,
                                    std::size_t points) {
  std::vector<std::size_t> order(u.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return u[a] < u[b]; });
  const std::size_t n = u.size();
  std::vector<double> out;
  for (std::size_t i = 1; i <= points; ++i) {
    const double x = std::log(double(i)) / std::log(double(points));
    const auto pos = static_cast<std::size_t>(double(n) * x);
    VoxelCounts c{n, 0, 0, 0};
    for (std::size_t r = 0; r < n; ++r) {
      const auto v = order[r];
      const int pred = r < pos ? p[v] : t[v];
      c.tp += pred && t[v];
      c.fp += pred && !t[v];
      c.fn += !pred && t[v];
    }
    out.push_back(normalised_dice(c, 0.001));
  }
  return out;
}

TEST(Segmentation, RetentionMatchesBruteForceWithTies) {
  std::mt19937_64 gen(5);
  const Grid3 g{7, 6, 5};
  for (int rep = 0; rep < 40; ++rep) {
    Mask p(g.size()), t(g.size());
    std::vector<double> u(g.size());
    const int levels = 1 + rep % 5;  // few distinct uncertainties: long tied runs
    for (std::size_t v = 0; v < g.size(); ++v) {
      t[v] = gen() % 4 == 0;
      p[v] = gen() % 3 == 0;
      u[v] = double(gen() % levels) - (rep % 2 ? 0.0 : 1.5);
    }
    for (std::size_t points : {2u, 9u, 200u}) {
      const auto r = ndsc_retention(p, t, u, {}, g, 0.001, points);
      const auto want = brute_retention(p, t, u, points);
      ASSERT_EQ(r.ndsc.size(), points);
      for (std::size_t i = 0; i < points; ++i) EXPECT_DOUBLE_EQ(r.ndsc[i], want[i]) << i;
      EXPECT_EQ(r.fraction.front(), 0.0);
      EXPECT_EQ(r.fraction.back(), 1.0);
    }
  }
}

TEST(Segmentation, EnsembleMapsOfAgreeingAndOpposedMembers) {
  const Grid3 g{2, 1, 1};
  // Voxel 0: both members 0.3 (no knowledge uncertainty); voxel 1: members 0 and 1.
  const std::vector<double> members = {0.3, 0.0, 0.3, 1.0};
  const auto e = ensemble_maps(members, 2, g);
  const double h = -(0.3 * std::log(0.3 + 1e-10) + 0.7 * std::log(0.7 + 1e-10));
  EXPECT_NEAR(e.mean[0], 0.3, 1e-15);
  EXPECT_NEAR(e.entropy_of_expected[0], h, 1e-14);
  EXPECT_NEAR(e.mutual_information[0], 0, 1e-14);
  EXPECT_NEAR(e.reverse_mutual_information[0], 0, 1e-14);
  EXPECT_NEAR(e.mean[1], 0.5, 1e-15);
  EXPECT_NEAR(e.entropy_of_expected[1], std::log(2.0), 1e-9);
  EXPECT_NEAR(e.expected_entropy[1], 0, 1e-9);
  EXPECT_NEAR(e.epkl[1], -0.5 * std::log(1e-10), 1e-6);
  EnsembleMapSelection only;
  only = {.mean = true,
          .entropy_of_expected = false,
          .expected_entropy = false,
          .mutual_information = false,
          .epkl = false,
          .reverse_mutual_information = true};
  const auto some = ensemble_maps(members, 2, g, 1e-10, only);
  EXPECT_EQ(some.mean, e.mean);
  EXPECT_EQ(some.reverse_mutual_information, e.reverse_mutual_information);
  EXPECT_TRUE(some.epkl.empty() && some.entropy_of_expected.empty());
  EXPECT_THROW_MSG(ensemble_maps(std::vector<double>{0.1, 2.0}, 1, g), Error,
                   "members: expected a probability in [0, 1] for member 0 at voxel (1, 0, 0), "
                   "found 2");
  EXPECT_THROW_MSG(ensemble_maps(std::vector<double>{0.1, 0.2, 0.3}, 2, g), Error,
                   "members: expected 2 members x 2 voxels (2 x 1 x 1) = 4 values, found 3");
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
  EXPECT_THROW_MSG(label_components(Mask(8, 0), g, 10), Error,
                   "connectivity: expected 6, 18 or 26, found 10");
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

}  // namespace
}  // namespace assay::shift
