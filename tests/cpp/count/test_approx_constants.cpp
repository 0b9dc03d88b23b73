// count/approx_constants: ApproxMC6's constants — the cell threshold for several epsilons, the
// number of measurements t (smallest odd t whose binomial majority-error bound is <= delta, for
// each epsilon regime; checked against an independent computation with exact binomial sums), and
// the rounded cell count of each regime. Private to the count layer: the header is included
// directly.
#include <gtest/gtest.h>

#include <cmath>

#include "../../../src/count/approx_constants.hpp"

namespace assay::count::detail {
namespace {

TEST(ApproxConstants, ThresholdIsTheTruncatedBound) {
  EXPECT_DOUBLE_EQ(approx_threshold_real(0.8), 72.955);
  EXPECT_EQ(approx_threshold(0.8), 72u);
  EXPECT_EQ(approx_threshold(0.1), 1299u);
  EXPECT_EQ(approx_threshold(0.5), 119u);
  EXPECT_EQ(approx_threshold(1.0), 60u);
  EXPECT_EQ(approx_threshold(2.0), 37u);
  EXPECT_EQ(approx_threshold(4.0), 28u);
  EXPECT_EQ(approx_threshold(8.0), 24u);
  EXPECT_LT(approx_threshold(0.1), kMaxThreshold);
}

TEST(ApproxConstants, MeasurementsPerEpsilonRegimeAndDelta) {
  EXPECT_EQ(approx_measurements(0.8, 0.2), 3u);
  EXPECT_EQ(approx_measurements(0.8, 0.05), 7u);
  EXPECT_EQ(approx_measurements(0.3, 0.2), 5u);   // epsilon < sqrt(2) - 1
  EXPECT_EQ(approx_measurements(2.0, 0.1), 3u);   // 1 <= epsilon < 3
  EXPECT_EQ(approx_measurements(5.0, 0.01), 3u);  // epsilon >= 4 sqrt(2) - 1
  EXPECT_EQ(approx_measurements(0.1, 0.001), 37u);
  // Always odd, and more confidence never needs fewer measurements.
  std::uint32_t previous = 1;
  for (const double delta : {0.5, 0.2, 0.1, 0.05, 0.01, 0.001}) {
    const std::uint32_t t = approx_measurements(0.8, delta);
    EXPECT_EQ(t % 2, 1u) << delta;
    EXPECT_GE(t, previous) << delta;
    previous = t;
  }
}

TEST(ApproxConstants, RoundedCellOfEachRegime) {
  const auto pivot = [](double eps) { return 9.84 * (1 + 1 / eps) * (1 + 1 / eps); };
  // epsilon < sqrt(2) - 1: at least sqrt(1 + 2 eps) / 2 * pivot.
  EXPECT_DOUBLE_EQ(rounded_cell(10, 0.3), std::sqrt(1.6) / 2 * pivot(0.3));
  EXPECT_EQ(rounded_cell(500, 0.3), 500);
  // sqrt(2) - 1 <= epsilon < 1: at least pivot / sqrt(2) (the header's 35.22...).
  EXPECT_DOUBLE_EQ(rounded_cell(20, 0.8), pivot(0.8) / std::sqrt(2.0));
  EXPECT_NEAR(rounded_cell(20, 0.8), 35.2246, 1e-4);
  EXPECT_EQ(rounded_cell(50, 0.8), 50);
  // 1 <= epsilon < 3: at least pivot.
  EXPECT_DOUBLE_EQ(rounded_cell(1, 2.0), pivot(2.0));
  EXPECT_EQ(rounded_cell(30, 2.0), 30);
  // 3 <= epsilon < 4 sqrt(2) - 1: pivot whatever the cell; beyond: sqrt(2) pivot.
  EXPECT_DOUBLE_EQ(rounded_cell(1000, 4.0), pivot(4.0));
  EXPECT_DOUBLE_EQ(rounded_cell(0, 5.0), std::sqrt(2.0) * pivot(5.0));
}

}  // namespace
}  // namespace assay::count::detail
