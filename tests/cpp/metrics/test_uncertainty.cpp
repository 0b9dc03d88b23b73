#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/uncertainty.hpp"
#include "test_util.hpp"

namespace assay::metrics {
namespace {

// Mean of a 0/1 outcome under per-sample weights.
WeightedMetric weighted_mean(const std::vector<double>& x) {
  return [&x](std::span<const double> w) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < x.size(); ++i) num += w[i] * x[i], den += w[i];
    return num / den;
  };
}

TEST(Bootstrap, SameResultAtAnyThreadCount) {
  std::vector<double> x(500);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = (i * 7919 % 10) < 8 ? 1.0 : 0.0;
  BootstrapParams p;
  p.n_resamples = 400;
  p.seed = 11;
  p.threads = 1;
  const auto one = bootstrap(x.size(), weighted_mean(x), {}, p);
  p.threads = 4;
  const auto four = bootstrap(x.size(), weighted_mean(x), {}, p);
  EXPECT_EQ(one.replicates, four.replicates);
  EXPECT_EQ(one.low, four.low);
  EXPECT_DOUBLE_EQ(one.estimate, 0.8);
  EXPECT_LT(one.low, 0.8);
  EXPECT_GT(one.high, 0.8);
  // SE of a proportion: sqrt(.8 * .2 / 500) = 0.0179.
  EXPECT_NEAR(one.standard_error, 0.0179, 0.002);
}

TEST(Bootstrap, QuantileMatchesNumpyLinear) {
  const std::vector<double> v{3, 1, NAN, 4, 1, 5};
  // np.quantile([1,1,3,4,5], q)
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(quantile(v, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 5.0);
  EXPECT_TRUE(std::isnan(quantile(std::vector<double>{NAN}, 0.5)));
}

TEST(Bootstrap, BadParameters) {
  std::vector<double> x{1, 0, 1};
  BootstrapParams p;
  p.n_resamples = 0;
  EXPECT_THROW_MSG(bootstrap(3, weighted_mean(x), {}, p), Error,
                   "n_resamples must be at least 1, found 0");
  p.n_resamples = 10;
  p.confidence = 0;
  EXPECT_THROW_MSG(bootstrap(3, weighted_mean(x), {}, p), Error,
                   "confidence: expected a number in (0, 1), found 0");
  p.confidence = 0.9;
  EXPECT_THROW_MSG(bootstrap(0, weighted_mean(x), {}, p), Error,
                   "bootstrap needs at least one sample, found 0");
  const std::vector<double> w{1, 1};
  EXPECT_THROW_MSG(bootstrap(3, weighted_mean(x), w, p), Error,
                   "y_true and sample_weight differ in length (3 vs 2)");
}

TEST(SummarizeRuns, MeanSdMinMax) {
  const std::vector<double> v{0.80, 0.82, 0.79, 0.85};
  const auto s = summarize_runs(v);
  EXPECT_DOUBLE_EQ(s.mean, 0.815);
  EXPECT_NEAR(s.sd, 0.026457513110645908, 1e-15);  // np.std(v, ddof=1)
  EXPECT_EQ(s.min, 0.79);
  EXPECT_EQ(s.max, 0.85);
  EXPECT_EQ(s.n, 4u);
  const std::vector<double> by{2, 1, 2, 1};
  const auto g = summarize_runs_by(v, by);
  ASSERT_EQ(g.by, (std::vector<double>{1, 2}));
  EXPECT_DOUBLE_EQ(g.summaries[0].mean, 0.835);
  EXPECT_DOUBLE_EQ(g.summaries[1].mean, 0.795);
}

TEST(SummarizeRuns, ValuesNearTheLargestDoubleDoNotOverflow) {
  // Exact: mean = 1e308/3, SD = 2/sqrt(3) * 1e308 (Python fractions/decimal at 60 digits); the
  // plain sum overflows to inf (mean inf, SD NaN) although both are finite.
  const std::vector<double> v{1e308, 1e308, -1e308};
  std::vector<std::string> warnings;
  const ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  const auto s = summarize_runs(v);
  EXPECT_NEAR(s.mean, 3.333333333333333e+307, 1e-15 * 3.4e307);
  EXPECT_NEAR(s.sd, 1.1547005383792515e+308, 1e-15 * 1.2e308);
  EXPECT_TRUE(warnings.empty());
  // Scaling by a power of two changes nothing for ordinary values (bit-identical).
  const std::vector<double> w{0.80, 0.82, 0.79, 0.85};
  EXPECT_EQ(summarize_runs(w).mean, (0.80 + 0.82 + 0.79 + 0.85) / 4);
  // An SD beyond the largest double is inf, and says so.
  const auto big = summarize_runs(std::vector<double>{1.7e308, -1.7e308});
  EXPECT_EQ(big.mean, 0.0);
  EXPECT_TRUE(std::isinf(big.sd));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "summarize_runs: the standard deviation exceeds the largest double "
            "(1.7976931348623157e+308); reported as inf");
}

TEST(Bootstrap, OneResampleWarnsThatTheIntervalIsDegenerate) {
  std::vector<double> x{1, 0, 1, 1};
  BootstrapParams p;
  p.n_resamples = 1;
  std::vector<std::string> warnings;
  const ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  const auto r = bootstrap(x.size(), weighted_mean(x), {}, p);
  EXPECT_EQ(r.low, r.high);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "bootstrap: 1 resample gives a zero-width interval (low = high = that resample's "
            "value), not a confidence interval; use 1000 or more resamples (0 = no intervals)");
}

TEST(Bootstrap, ResampleCountsBeyondTheLimitAreRefusedBeforeAnyTable) {
  // Issue 38: --bootstrap 100000000 on 4 rows was a bad_alloc after gigabytes.
  std::vector<double> x{1, 0, 1, 1};
  BootstrapParams p;
  p.n_resamples = 100000000;
  EXPECT_THROW_MSG(bootstrap(x.size(), weighted_mean(x), {}, p), Error,
                   "n_resamples: expected at most 1000000 resamples, found 100000000 (percentile "
                   "intervals settle long before: 1000 to 100000 are usual; every resample keeps "
                   "a value per metric and costs a pass over the data)");
  EXPECT_THROW_MSG(check_resample_count(kMaxResamples + 1, 1, ""), Error,
                   "expected at most 1000000 resamples, found 1000001 (percentile intervals "
                   "settle long before: 1000 to 100000 are usual; every resample keeps a value "
                   "per metric and costs a pass over the data)");
  check_resample_count(kMaxResamples, 16, "--bootstrap");  // 136 MB: accepted
}

TEST(Bootstrap, HugeBaseWeightsAreRescaledNotOverflowed) {
  // Sums of draw counts times weights of 2^1022 (4.5e307) overflowed; rescaled by 2^-1022
  // they are the counts themselves.
  std::vector<double> x{1, 0, 1, 1, 0, 1};
  BootstrapParams p;
  p.n_resamples = 200;
  p.seed = 5;
  const auto plain = bootstrap(x.size(), weighted_mean(x), {}, p);
  const auto huge =
      bootstrap(x.size(), weighted_mean(x), std::vector<double>(6, std::ldexp(1.0, 1022)), p);
  EXPECT_EQ(huge.replicates, plain.replicates);
  EXPECT_EQ(huge.low, plain.low);
  EXPECT_EQ(huge.high, plain.high);
}

}  // namespace
}  // namespace assay::metrics
