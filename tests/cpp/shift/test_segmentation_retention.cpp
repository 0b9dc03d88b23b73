// shift/segmentation_retention: the nDSC retention curve (Shifts' ndsc_retention_curve) against a
// direct transcription with long runs of tied uncertainties, a hand-computed curve, the brain
// mask restricting the voxels considered, and the input checks.
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

TEST(SegmentationRetention, RetentionMatchesBruteForceWithTies) {
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

TEST(SegmentationRetention, HandComputedCurveOfFourVoxels) {
  // Uncertainty order: v2 (0.1), v0 (0.2), v3 (0.3), v1 (0.4). Prediction wrong at v1 and v3.
  const Grid3 g{4, 1, 1};
  const Mask p = {1, 1, 0, 0}, t = {1, 0, 0, 1};
  const std::vector<double> u = {0.2, 0.4, 0.1, 0.3};
  const auto r = ndsc_retention(p, t, u, {}, g, 0.001, 3);
  // fraction ln(i)/ln(3): 0, 0.63, 1; retained = floor(4 x fraction) = 0, 2, 4 voxels.
  ASSERT_EQ(r.fraction.size(), 3u);
  EXPECT_EQ(r.fraction[0], 0.0);
  EXPECT_DOUBLE_EQ(r.fraction[1], std::log(2.0) / std::log(3.0));
  EXPECT_EQ(r.fraction[2], 1.0);
  // 0 retained: every voxel replaced by the truth -> perfect.
  EXPECT_EQ(r.ndsc[0], 1.0);
  // 2 retained (v2, v0: both right), v3 and v1 replaced -> still perfect.
  EXPECT_EQ(r.ndsc[1], 1.0);
  // All retained: TP 1, FP 1, FN 1, |G| = 2 of N = 4.
  const double k = 0.999 * 2 / (0.001 * 2);
  EXPECT_DOUBLE_EQ(r.ndsc[2], 2.0 / (k * 1 + 2 + 1));
  EXPECT_DOUBLE_EQ(r.ndsc[2], normalised_dice({4, 1, 1, 1}, 0.001));
}

TEST(SegmentationRetention, BrainMaskLimitsTheVoxelsConsidered) {
  // Voxels outside the brain mask take no part, as if they were not in the volume.
  const Grid3 g{6, 1, 1};
  const Mask p = {1, 1, 0, 0, 1, 0}, t = {1, 0, 0, 1, 0, 0};
  const std::vector<double> u = {0.2, 0.4, 0.1, 0.3, 0.9, 0.5};
  const Mask brain = {1, 1, 1, 1, 0, 0};
  const auto masked = ndsc_retention(p, t, u, brain, g, 0.001, 5);
  const Mask p4(p.begin(), p.begin() + 4), t4(t.begin(), t.begin() + 4);
  const std::vector<double> u4(u.begin(), u.begin() + 4);
  const auto inside = ndsc_retention(p4, t4, u4, {}, Grid3{4, 1, 1}, 0.001, 5);
  EXPECT_EQ(masked.fraction, inside.fraction);
  EXPECT_EQ(masked.ndsc, inside.ndsc);
}

TEST(SegmentationRetention, InputChecks) {
  const Grid3 g{2, 1, 1};
  const Mask p = {1, 0}, t = {1, 0};
  const std::vector<double> u = {0.1, 0.2};
  EXPECT_THROW_MSG(ndsc_retention(Mask{1}, t, u, {}, g), Error,
                   "prediction: expected 2 values (2 x 1 x 1 voxels), found 1");
  EXPECT_THROW_MSG(ndsc_retention(p, t, std::vector<double>{0.1}, {}, g), Error,
                   "uncertainty: expected 2 values (2 x 1 x 1 voxels), found 1");
  EXPECT_THROW_MSG(ndsc_retention(p, t, u, Mask{1, 1, 1}, g), Error,
                   "brain mask: expected 2 values (2 x 1 x 1 voxels), found 3");
  EXPECT_THROW_MSG(ndsc_retention(p, t, u, {}, g, 0.0), Error,
                   "r: expected a value in (0, 1), found 0");
  EXPECT_THROW_MSG(ndsc_retention(p, t, u, {}, g, 0.001, 1), Error,
                   "retention points: expected at least 2, found 1");
  EXPECT_THROW_MSG(ndsc_retention(p, t, std::vector<double>{0.1, std::nan("")}, {}, g), Error,
                   "uncertainty: expected a number at voxel (1, 0, 0), found nan");
}

}  // namespace
}  // namespace assay::shift
