#include "assay/compare/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/ranking.hpp"

namespace {

using assay::compare::Correction;

const double kNaN = std::nan("");

/// Warnings raised while the object lives.
struct CapturedWarnings {
  std::vector<std::string> seen;
  assay::ScopedWarningHandler handler{[this](const std::string& m) { seen.push_back(m); }};
};

std::vector<double> zero_to_hundred() {
  std::vector<double> v;
  for (int i = 0; i <= 100; ++i) v.push_back(i);
  return v;
}

TEST(McNemar, SmallTablesByHand) {
  // n = 15: P(X <= 3) = (1 + 15 + 105 + 455) / 2^15, P(X = 3) = 455 / 2^15.
  auto r = assay::compare::mcnemar_exact(3, 12);
  EXPECT_DOUBLE_EQ(r.p_value, 1152.0 / 32768);
  EXPECT_DOUBLE_EQ(r.mid_p, (1152.0 - 455) / 32768);
  r = assay::compare::mcnemar_exact(5, 0);
  EXPECT_DOUBLE_EQ(r.p_value, 2.0 / 32);
  EXPECT_DOUBLE_EQ(r.mid_p, 1.0 / 32);
  // n = 3: 2 P(X <= 1) = 1; mid-p = 1 - P(X = 1) = 5/8.
  r = assay::compare::mcnemar_exact(1, 2);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  EXPECT_DOUBLE_EQ(r.mid_p, 5.0 / 8);
}

TEST(McNemar, EqualCountsGiveOne) {
  for (double k : {0.0, 1.0, 7.0, 5000.0}) {
    const auto r = assay::compare::mcnemar_exact(k, k);
    EXPECT_EQ(r.p_value, 1.0) << k;
    EXPECT_EQ(r.mid_p, 1.0) << k;
  }
}

TEST(McNemar, LargeCountsStayInRange) {
  const auto r = assay::compare::mcnemar_exact(5000, 5100);
  EXPECT_GT(r.p_value, 0.3);
  EXPECT_LT(r.p_value, 0.35);
  EXPECT_LT(r.mid_p, r.p_value);
  EXPECT_DOUBLE_EQ(assay::compare::mcnemar_exact(0, 1000).p_value, std::ldexp(1.0, -999));
}

TEST(McNemar, RefusesNonWholeCounts) {
  EXPECT_THROW(assay::compare::mcnemar_exact(1.5, 2), assay::Error);
  EXPECT_THROW(assay::compare::mcnemar_exact(-1, 2), assay::Error);
  EXPECT_THROW(assay::compare::mcnemar_exact(kNaN, 2), assay::Error);
}

TEST(AdjustPValues, HolmBonferroniBhOnASmallVector) {
  const std::vector<double> p = {0.01, 0.04, 0.03};
  const auto holm = assay::compare::adjust_p_values(p, Correction::holm);
  EXPECT_DOUBLE_EQ(holm[0], 0.03);
  EXPECT_DOUBLE_EQ(holm[1], 0.06);  // 0.04 * 1 raised to 0.03 * 2 (monotone)
  EXPECT_DOUBLE_EQ(holm[2], 0.06);
  const auto bonferroni = assay::compare::adjust_p_values(p, Correction::bonferroni);
  EXPECT_DOUBLE_EQ(bonferroni[0], 0.03);
  EXPECT_DOUBLE_EQ(bonferroni[1], 0.12);
  EXPECT_DOUBLE_EQ(bonferroni[2], 0.09);
  // BH: 0.01 * 3/1, 0.03 * 3/2 = 0.045 lowered to 0.04 * 3/3.
  const auto bh = assay::compare::adjust_p_values(p, Correction::fdr_bh);
  EXPECT_DOUBLE_EQ(bh[0], 0.03);
  EXPECT_DOUBLE_EQ(bh[1], 0.04);
  EXPECT_DOUBLE_EQ(bh[2], 0.04);
  EXPECT_EQ(assay::compare::adjust_p_values(p, Correction::none), p);
}

TEST(AdjustPValues, ClipsAtOneAndPassesNaNThrough) {
  const std::vector<double> p = {0.5, kNaN, 0.6};
  const auto holm = assay::compare::adjust_p_values(p, Correction::holm);  // 2 tests, not 3
  EXPECT_DOUBLE_EQ(holm[0], 1.0);
  EXPECT_TRUE(std::isnan(holm[1]));
  EXPECT_DOUBLE_EQ(holm[2], 1.0);
  const std::vector<double> q = {0.01, kNaN, 0.02};
  const auto bonferroni = assay::compare::adjust_p_values(q, Correction::bonferroni);
  EXPECT_DOUBLE_EQ(bonferroni[0], 0.02);
  EXPECT_DOUBLE_EQ(bonferroni[2], 0.04);
  EXPECT_TRUE(assay::compare::adjust_p_values({}, Correction::holm).empty());
  EXPECT_THROW(assay::compare::adjust_p_values(std::vector<double>{1.5}, Correction::holm),
               assay::Error);
}

TEST(PercentileInterval, KnownData) {
  auto values = zero_to_hundred();
  auto ci = assay::compare::percentile_interval(values, 50, 0.9);
  EXPECT_EQ(ci.value, 50);
  EXPECT_DOUBLE_EQ(ci.low, 5);
  EXPECT_DOUBLE_EQ(ci.high, 95);
  values.push_back(kNaN);  // undefined resamples are left out
  ci = assay::compare::percentile_interval(values, 50, 0.9);
  EXPECT_DOUBLE_EQ(ci.low, 5);
  EXPECT_DOUBLE_EQ(ci.high, 95);
  ci = assay::compare::percentile_interval(std::vector<double>{kNaN}, 1, 0.9);
  EXPECT_TRUE(std::isnan(ci.low) && std::isnan(ci.high));
  EXPECT_THROW(assay::compare::percentile_interval(values, 50, 1.0), assay::Error);
}

TEST(BcaInterval, NoBiasNoAccelerationIsThePercentileInterval) {
  // Estimate at the median (z0 = 0), symmetric jackknife (a = 0).
  const auto values = zero_to_hundred();
  const std::vector<double> jackknife = {1, 2, 3};
  const auto bca = assay::compare::bca_interval(values, 50, jackknife, 0.9);
  EXPECT_NEAR(bca.low, 5, 1e-9);
  EXPECT_NEAR(bca.high, 95, 1e-9);
}

TEST(BcaInterval, SkewMovesTheInterval) {
  // Estimate above most replicates: z0 > 0 moves both bounds up.
  const auto values = zero_to_hundred();
  const std::vector<double> jackknife = {1, 2, 3};
  const auto bca = assay::compare::bca_interval(values, 70, jackknife, 0.9);
  EXPECT_GT(bca.low, 5);
  EXPECT_GT(bca.high, 95);
}

TEST(BcaInterval, DegenerateCasesGiveNaNWithAWarning) {
  const auto values = zero_to_hundred();
  const std::vector<double> jackknife = {1, 2, 3};
  const std::vector<double> constant = {2, 2, 2};
  for (auto [estimate, jk] : {std::pair{-1.0, jackknife},   // every replicate above
                              std::pair{101.0, jackknife},  // every replicate below
                              std::pair{50.0, constant},    // no acceleration
                              std::pair{kNaN, jackknife}}) {
    CapturedWarnings warnings;
    const auto bca = assay::compare::bca_interval(values, estimate, jk, 0.95, "AUC of a - b");
    EXPECT_TRUE(std::isnan(bca.low) && std::isnan(bca.high)) << estimate;
    ASSERT_EQ(warnings.seen.size(), 1u) << estimate;
    EXPECT_NE(warnings.seen[0].find("AUC of a - b"), std::string::npos) << warnings.seen[0];
  }
}

TEST(BootstrapPValue, EdgeCases) {
  std::vector<double> positive(99, 0.5);
  EXPECT_DOUBLE_EQ(assay::compare::bootstrap_p_value(positive), 2.0 / 100);
  positive.push_back(kNaN);  // left out: still B = 99
  EXPECT_DOUBLE_EQ(assay::compare::bootstrap_p_value(positive), 2.0 / 100);
  EXPECT_DOUBLE_EQ(assay::compare::bootstrap_p_value(std::vector<double>{-1, 1, 2, 3}),
                   2.0 * 2 / 5);
  EXPECT_EQ(assay::compare::bootstrap_p_value(std::vector<double>{0, 0}), 1.0);  // capped
  EXPECT_TRUE(std::isnan(assay::compare::bootstrap_p_value({})));
  EXPECT_TRUE(std::isnan(assay::compare::bootstrap_p_value(std::vector<double>{kNaN})));
}

TEST(PermutationPValue, CountsWithScipysTolerance) {
  const std::vector<double> null = {1, 2, 3, 4};
  // >= 4: 1 (+1) of 5; <= 4: 4 (+1) of 5.
  EXPECT_DOUBLE_EQ(assay::compare::permutation_p_value(null, 4), 2 * 2.0 / 5);
  EXPECT_DOUBLE_EQ(assay::compare::permutation_p_value(null, 4 + 1e-14), 2 * 2.0 / 5);
  EXPECT_DOUBLE_EQ(assay::compare::permutation_p_value(null, 5), 2 * 1.0 / 5);
  EXPECT_DOUBLE_EQ(assay::compare::permutation_p_value(null, 2.5), 1.0);
  EXPECT_TRUE(std::isnan(assay::compare::permutation_p_value({}, 1)));
  EXPECT_TRUE(std::isnan(assay::compare::permutation_p_value(null, kNaN)));
}

struct Scored {
  std::vector<std::uint8_t> y;
  std::vector<double> a;
  std::vector<double> b;
};

/// Random labels and two correlated scorers, rounded to `decimals` (ties when small).
Scored random_scored(std::size_t n, int decimals, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Scored s;
  const double scale = std::pow(10.0, decimals);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t y = i % 3 == 0;
    const double shared = normal(rng);
    s.y.push_back(y);
    s.a.push_back(std::round((y + shared + 0.5 * normal(rng)) * scale) / scale);
    s.b.push_back(std::round((0.6 * y + shared + 0.8 * normal(rng)) * scale) / scale);
  }
  return s;
}

TEST(DelongDifference, UnweightedEqualsTheMetricsTest) {
  for (int decimals : {1, 6}) {
    const auto s = random_scored(200, decimals, 3);
    const auto d = assay::compare::delong_difference(s.y, s.a, s.b, {}, 0.95);
    const auto ref = assay::metrics::delong_roc_test(s.y, s.a, s.b);
    EXPECT_NEAR(d.auc_model, ref.auc_a, 1e-14);
    EXPECT_NEAR(d.auc_baseline, ref.auc_b, 1e-14);
    EXPECT_NEAR(d.difference, ref.auc_a - ref.auc_b, 1e-14);
    EXPECT_NEAR(d.z, ref.z, 1e-10);
    EXPECT_NEAR(d.p_value, ref.p_value, 1e-12);
    const double se =
        std::sqrt(ref.covariance[0][0] + ref.covariance[1][1] - 2 * ref.covariance[0][1]);
    EXPECT_NEAR(d.standard_error, se, 1e-14);
    EXPECT_NEAR(d.low, d.difference - 1.959963984540054 * se, 1e-12);
    EXPECT_NEAR(d.high, d.difference + 1.959963984540054 * se, 1e-12);
  }
}

TEST(DelongDifference, WeightsAllTwoAreUnweighted) {
  const auto s = random_scored(90, 1, 5);
  const auto plain = assay::compare::delong_difference(s.y, s.a, s.b, {}, 0.9);
  const auto twice =
      assay::compare::delong_difference(s.y, s.a, s.b, std::vector<double>(90, 2.0), 0.9);
  EXPECT_NEAR(twice.auc_model, plain.auc_model, 1e-15);
  EXPECT_NEAR(twice.auc_baseline, plain.auc_baseline, 1e-15);
  EXPECT_NEAR(twice.standard_error, plain.standard_error, 1e-15);
  EXPECT_NEAR(twice.z, plain.z, 1e-12);
  EXPECT_NEAR(twice.p_value, plain.p_value, 1e-14);
  EXPECT_NEAR(twice.low, plain.low, 1e-14);
  EXPECT_NEAR(twice.high, plain.high, 1e-14);
}

TEST(DelongDifference, IntegerWeightsAreDuplicatedRowsForTheAucs) {
  const auto s = random_scored(60, 1, 11);
  std::vector<double> weights;
  Scored copies;
  for (std::size_t i = 0; i < s.y.size(); ++i) {
    const int w = int(i % 4);  // 0 drops the row
    weights.push_back(w);
    for (int k = 0; k < w; ++k) {
      copies.y.push_back(s.y[i]);
      copies.a.push_back(s.a[i]);
      copies.b.push_back(s.b[i]);
    }
  }
  const auto weighted = assay::compare::delong_difference(s.y, s.a, s.b, weights, 0.95);
  const auto expanded = assay::compare::delong_difference(copies.y, copies.a, copies.b, {}, 0.95);
  EXPECT_NEAR(weighted.auc_model, expanded.auc_model, 1e-14);
  EXPECT_NEAR(weighted.auc_baseline, expanded.auc_baseline, 1e-14);
  EXPECT_NEAR(weighted.difference, expanded.difference, 1e-14);
  EXPECT_NEAR(weighted.auc_model, assay::metrics::roc_auc(s.y, s.a, weights), 1e-14);
}

TEST(DelongDifference, UndefinedCasesGiveNaNWithAWarning) {
  const std::vector<std::uint8_t> y = {0, 0, 1, 1, 0};
  const std::vector<double> a = {0.1, 0.4, 0.35, 0.8, 0.2};
  const std::vector<double> b = {0.2, 0.3, 0.6, 0.9, 0.1};
  {
    CapturedWarnings warnings;  // one positive of positive weight
    const auto d =
        assay::compare::delong_difference(y, a, b, std::vector<double>{1, 1, 0, 1, 1}, 0.95);
    EXPECT_TRUE(std::isnan(d.p_value) && std::isnan(d.standard_error) && std::isnan(d.low));
    EXPECT_EQ(warnings.seen.size(), 1u);
  }
  {
    CapturedWarnings warnings;  // the same scores: zero variance
    const auto d = assay::compare::delong_difference(y, a, a, {}, 0.95);
    EXPECT_EQ(d.difference, 0.0);
    EXPECT_EQ(d.standard_error, 0.0);
    EXPECT_TRUE(std::isnan(d.z) && std::isnan(d.p_value) && std::isnan(d.low));
    EXPECT_EQ(warnings.seen.size(), 1u);
  }
}

TEST(DelongDifference, RefusesBadInput) {
  const std::vector<std::uint8_t> y = {0, 1, 0, 1};
  const std::vector<double> a = {0.1, 0.4, 0.35, 0.8};
  const std::vector<double> short_b = {0.1, 0.2, 0.3};
  EXPECT_THROW(assay::compare::delong_difference(y, a, short_b, {}, 0.95), assay::Error);
  EXPECT_THROW(assay::compare::delong_difference(y, a, a, std::vector<double>{1, 1, -1, 1}, 0.95),
               assay::Error);
  const std::vector<double> with_nan = {0.1, kNaN, 0.3, 0.4};
  EXPECT_THROW(assay::compare::delong_difference(y, a, with_nan, {}, 0.95), assay::Error);
  const std::vector<std::uint8_t> three = {0, 1, 2, 1};
  EXPECT_THROW(assay::compare::delong_difference(three, a, a, {}, 0.95), assay::Error);
  EXPECT_THROW(assay::compare::delong_difference(y, a, a, {}, 0.0), assay::Error);
}

}  // namespace
