// Ranking metrics: the sort (radix sort vs std::stable_sort), the shared scan, AP/AUC rules and
// error messages. scikit-learn comparisons live in tests/python/test_ranking.py.
#include "assay/metrics/ranking.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "test_util.hpp"

namespace {

using assay::metrics::ApMethod;
using assay::metrics::ApParams;
using assay::metrics::RankedScores;
using assay::metrics::TieMode;

std::vector<std::uint32_t> reference_order(const std::vector<double>& s) {
  std::vector<std::uint32_t> idx(s.size());
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return s[a] > s[b]; });
  return idx;
}

std::vector<double> random_scores(std::mt19937_64& g, std::size_t n, int kind) {
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> s(n);
  for (auto& x : s) {
    switch (kind) {
      case 0:
        x = u(g);
        break;  // [0, 1)
      case 1:
        x = z(g) * 1e3;
        break;  // negatives
      case 2:
        x = std::round(u(g) * 100) / 100;
        break;  // heavy ties
      case 3:
        x = (g() % 3 == 0) ? -0.0 : (g() % 2 ? 0.0 : z(g));
        break;  // -0.0 and +0.0
      case 4:
        x = std::ldexp(z(g), int(g() % 2000) - 1000);
        break;  // all magnitudes
      case 5:
        x = (g() % 2 ? 1 : -1) * std::numeric_limits<double>::denorm_min() * double(g() % 5);
        break;
      default:
        x = std::numeric_limits<double>::max() * (g() % 2 ? 1 : -1);
    }
  }
  return s;
}

TEST(RadixSort, OrderEqualsStableSortOnRandomKeys) {
  std::mt19937_64 g(7);
  for (std::size_t n : {1u, 2u, 3u, 47u, 49u, 1000u, 70000u}) {
    for (int kind = 0; kind <= 6; ++kind) {
      const auto s = random_scores(g, n, kind);
      std::vector<std::uint8_t> y(n);
      for (auto& v : y) v = g() & 1;
      const RankedScores ranked(y, s);
      const auto order = ranked.order();
      const auto expected = reference_order(s);
      ASSERT_TRUE(std::equal(order.begin(), order.end(), expected.begin(), expected.end()))
          << "n=" << n << " kind=" << kind;
    }
  }
}

/// Brute force P(s+ > s-) + P(s+ = s-)/2.
double brute_auc(const std::vector<std::uint8_t>& y, const std::vector<double>& s) {
  double num = 0;
  double pairs = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!y[i]) continue;
    for (std::size_t j = 0; j < y.size(); ++j) {
      if (y[j]) continue;
      num += s[i] > s[j] ? 1.0 : (s[i] == s[j] ? 0.5 : 0.0);
      pairs += 1;
    }
  }
  return num / pairs;
}

TEST(RocAuc, FastScanEqualsBruteForceAndWeightedPath) {
  std::mt19937_64 g(11);
  for (int kind = 0; kind <= 5; ++kind) {
    for (std::size_t n : {2u, 10u, 300u, 3000u}) {
      auto s = random_scores(g, n, kind);
      std::vector<std::uint8_t> y(n);
      for (auto& v : y) v = g() & 1;
      y[0] = 1;
      y[1] = 0;
      const double fast = assay::metrics::roc_auc(y, s);
      EXPECT_NEAR(fast, brute_auc(y, s), 1e-12) << "kind=" << kind << " n=" << n;
      const std::vector<double> ones(n, 1.0);
      EXPECT_NEAR(fast, assay::metrics::roc_auc(y, s, ones), 1e-12);
      EXPECT_NEAR(fast, RankedScores(y, s).roc_auc(), 1e-12);
    }
  }
}

/// AUC from midranks after std::sort (Mann-Whitney), for inputs too large for brute force.
double rank_sum_auc(const std::vector<std::uint8_t>& y, const std::vector<double>& s) {
  std::vector<std::size_t> idx(s.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::sort(idx.begin(), idx.end(), [&](auto a, auto b) { return s[a] < s[b]; });
  double rank_sum = 0;
  double n_pos = 0;
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j < idx.size() && s[idx[j]] == s[idx[i]]) ++j;
    const double mid = (double(i + 1) + double(j)) / 2;
    for (std::size_t t = i; t < j; ++t) {
      if (y[idx[t]]) {
        rank_sum += mid;
        n_pos += 1;
      }
    }
    i = j;
  }
  const double n_neg = double(s.size()) - n_pos;
  return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg);
}

TEST(RocAuc, LargeInputsExerciseMsdRecursion) {
  // > 64k keys per class: the MSD pass and its recursion run (smaller inputs go straight to LSD).
  std::mt19937_64 g(23);
  for (int kind = 0; kind <= 6; ++kind) {
    auto s = random_scores(g, 300000, kind);
    std::vector<std::uint8_t> y(s.size());
    for (auto& v : y) v = (g() % 4) != 0;
    y[0] = 0;
    y[1] = 1;
    const double expected = rank_sum_auc(y, s);
    EXPECT_NEAR(assay::metrics::roc_auc(y, s), expected, 1e-12) << "kind=" << kind;
    EXPECT_NEAR(RankedScores(y, s).roc_auc(), expected, 1e-12) << "kind=" << kind;
  }
}

TEST(RadixSort, ClusteredLowBitsEqualStableSort) {
  // Cache-sized buckets whose keys mostly share their top bits and differ only in the lowest
  // ones: the in-cache sort's groups are then large and must be finished by recursion.
  std::mt19937_64 g(31);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t n : {5000u, 70000u, 200000u}) {
    for (int spread : {3, 5000, 1 << 20}) {
      std::vector<double> s(n);
      for (auto& x : s) {
        x = g() % 4 ? std::nextafter(1.0, 2.0) + std::ldexp(double(g() % spread), -52) : u(g) * 1e6;
      }
      std::vector<std::uint8_t> y(n);
      for (auto& v : y) v = g() & 1;
      const RankedScores ranked(y, s);
      const auto order = ranked.order();
      const auto expected = reference_order(s);
      ASSERT_TRUE(std::equal(order.begin(), order.end(), expected.begin(), expected.end()))
          << "n=" << n << " spread=" << spread;
    }
  }
}

TEST(OperatingPoints, LargeInputsUseLabelledKeys) {
  // >= 2^22 samples take the labelled-key sort + linear scan, same or mixed signs (buckets per
  // sign class, placed by a strided sample of the scores and clamped): it must equal the weighted
  // (general) path exactly, including scores the sample misses.
  std::mt19937_64 g(41);
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::size_t n = (std::size_t{1} << 22) + 3;
  std::vector<double> s(n);
  std::vector<std::uint8_t> y(n);
  const std::vector<double> ones(n, 1.0);
  for (int kind = 0; kind < 6; ++kind) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t r = g();  // one draw: x from the top 53 bits, the rest from the low ones
      const double x = double(r >> 11) * 0x1p-53;
      const std::uint64_t low = (r >> 2) & 511;
      if (kind == 0) {
        s[i] = x;  // [0, 1), few ties
      } else if (kind == 1) {
        s[i] = std::round(x * 100) / 100;  // heavy ties, incl. 0 and 1 (+-0.0: one sign class)
        if (s[i] == 0 && low % 2) s[i] = -0.0;
      } else if (kind == 2) {
        s[i] = -std::round(x * 1000) / 1000 - 1;  // all negative
      } else if (kind == 3) {
        // Mixed signs: +-0.0 (either may come first), ties across zero, subnormals of both signs,
        // huge scores.
        const std::uint64_t c = low % 8;
        const double t = std::round((x - 0.5) * 20) / 10;  // -1.0 .. 1.0, -0.0 and +0.0
        s[i] = c == 0   ? -0.0
               : c == 1 ? 0.0
               : c == 2 ? (x - 0.5) * 1e300
               : c == 3 ? (x < 0.5 ? -tiny : tiny) * double(low / 8 % 5)
                        : t;
      } else if (kind == 4) {
        s[i] = (x - 0.5) * std::ldexp(1.0, int(low % 40) - 20);  // mixed signs, many exponents
      } else {
        s[i] = x + 1;  // [1, 2) and, off the sample's stride, outliers and a few negatives
        if (i % 1024 == 7) s[i] = (i % 3 == 0 ? -1 : 1) * std::ldexp(x, int(low * 4) - 1030);
        if (i % 1024 == 9) s[i] = 1 + x * 1e-9;
      }
      y[i] = (r & 3) != 0;
    }
    const auto fast = assay::metrics::operating_points(y, s);
    const auto general = assay::metrics::operating_points(y, s, ones);
    EXPECT_EQ(fast.threshold, general.threshold) << "kind=" << kind;
    EXPECT_EQ(fast.tp, general.tp) << "kind=" << kind;
    EXPECT_EQ(fast.fp, general.fp) << "kind=" << kind;
    if (kind == 1 || kind == 3) {  // +0.0 and -0.0 form one tie block
      const auto zero = std::find(fast.threshold.begin(), fast.threshold.end(), 0.0);
      ASSERT_NE(zero, fast.threshold.end());
      EXPECT_FALSE(std::signbit(*zero));
      EXPECT_EQ(std::count(fast.threshold.begin(), fast.threshold.end(), 0.0), 1);
    }
    if (kind == 0 || kind == 4) {  // same-sign and mixed-sign inputs report the first NaN / inf
      auto bad = s;
      bad[n - 2] = std::numeric_limits<double>::quiet_NaN();
      EXPECT_THROW_MSG(assay::metrics::roc_auc(y, bad), assay::Error,
                       "y_score contains NaN at index 4194305");
      bad[n - 5] = -std::numeric_limits<double>::infinity();
      bad[3] = std::numeric_limits<double>::infinity();
      EXPECT_THROW_MSG(assay::metrics::average_precision(y, bad), assay::Error,
                       "y_score contains inf at index 3");
      bad[3] = s[3];
      EXPECT_THROW_MSG(assay::metrics::roc_auc(y, bad), assay::Error,
                       "y_score contains -inf at index 4194302");
      auto bad_y = y;
      bad_y[n - 1] = 2;  // labels are checked before scores
      EXPECT_THROW_MSG(assay::metrics::roc_auc(bad_y, bad), assay::Error,
                       "y_true must be 0 or 1, found 2 at index 4194306");
    }
    if (kind == 4) {  // the metrics share the scan; one kind suffices
      EXPECT_EQ(assay::metrics::roc_auc(y, s), assay::metrics::roc_auc(y, s, ones));
      EXPECT_NEAR(assay::metrics::average_precision(y, s),
                  assay::metrics::average_precision(y, s, ones), 1e-12);
    }
  }
}

TEST(AveragePrecision, FastScanEqualsGeneralPath) {
  std::mt19937_64 g(5);
  for (int kind = 0; kind <= 3; ++kind) {
    const auto s = random_scores(g, 5000, kind);
    std::vector<std::uint8_t> y(s.size());
    for (auto& v : y) v = (g() % 3) == 0;
    const std::vector<double> ones(s.size(), 1.0);
    EXPECT_NEAR(assay::metrics::average_precision(y, s),
                assay::metrics::average_precision(y, s, ones), 1e-12);
  }
}

TEST(OperatingPoints, TieBlocksAndSequential) {
  const std::vector<std::uint8_t> y = {1, 1, 0, 1};
  const std::vector<double> s = {0.9, 0.5, 0.5, 0.2};
  const auto pts = assay::metrics::operating_points(y, s);
  EXPECT_EQ(pts.threshold, (std::vector<double>{0.9, 0.5, 0.2}));
  EXPECT_EQ(pts.tp, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(pts.fp, (std::vector<double>{0, 1, 1}));
  const auto seq = assay::metrics::operating_points(y, s, {}, TieMode::sequential);
  EXPECT_EQ(seq.tp, (std::vector<double>{1, 2, 2, 3}));
  EXPECT_EQ(seq.fp, (std::vector<double>{0, 0, 1, 1}));
  // Zero weights drop samples (and the 0.2 point with them).
  const std::vector<double> w = {1, 2, 1, 0};
  const auto wp = assay::metrics::operating_points(y, s, w);
  EXPECT_EQ(wp.tp, (std::vector<double>{1, 3}));
  EXPECT_EQ(wp.fp, (std::vector<double>{0, 1}));
}

TEST(AveragePrecision, Voc07NumpyGridHandComputed) {
  // 10 positives ranked 1 1 1 0 0 0 0 0 0 1 1 1 1 0 1 1 1 (see tests/python/test_ranking.py).
  const std::vector<std::uint8_t> y = {1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1};
  std::vector<double> s(y.size());
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = double(s.size() - i);
  ApParams p;
  p.method = ApMethod::voc07;
  EXPECT_NEAR(assay::metrics::average_precision(y, s, {}, p), 138.0 / 187.0, 1e-15);
  p.grid = assay::metrics::ApGrid::numpy;
  EXPECT_NEAR(assay::metrics::average_precision(y, s, {}, p), 131.0 / 187.0, 1e-15);
  p.method = ApMethod::voc_allpoint;
  EXPECT_NEAR(assay::metrics::average_precision(y, s, {}, p), 121.0 / 170.0, 1e-15);
  p.method = ApMethod::coco101;
  p.grid = assay::metrics::ApGrid::exact;
  EXPECT_NEAR(assay::metrics::average_precision(y, s, {}, p), 1227.0 / 1717.0, 1e-15);
}

TEST(InterpolatedPrecision, BackwardMax) {
  const std::vector<double> p = {0.5, 0.66, 0.5, 1.0, 1.0};
  const std::vector<double> r = {1.0, 1.0, 0.5, 0.5, 0.0};
  EXPECT_EQ(assay::metrics::interpolated_precision(p, r),
            (std::vector<double>{0.66, 0.66, 1.0, 1.0, 1.0}));
}

TEST(Delong, MatchesHandComputedCase) {
  // Model a separates perfectly; b is random-ish: a's AUC = 1.
  const std::vector<std::uint8_t> y = {1, 1, 1, 0, 0, 0};
  const std::vector<double> a = {6, 5, 4, 3, 2, 1};
  const std::vector<double> b = {1, 5, 3, 4, 2, 6};
  const auto r = assay::metrics::delong_roc_test(y, a, b);
  EXPECT_DOUBLE_EQ(r.auc_a, 1.0);
  EXPECT_DOUBLE_EQ(r.auc_b, 3.0 / 9.0);  // pairs won: 0 + 2 + 1 of 9
  EXPECT_DOUBLE_EQ(r.covariance[0][0], 0.0);
  EXPECT_GT(r.covariance[1][1], 0.0);
  EXPECT_GT(r.z, 0.0);
  EXPECT_NEAR(r.p_value, std::erfc(r.z / std::sqrt(2.0)), 1e-15);
}

TEST(Warnings, SingleClassGivesNaN) {
  std::vector<std::string> seen;
  auto previous = assay::set_warning_handler([&](const std::string& m) { seen.push_back(m); });
  const std::vector<std::uint8_t> y = {1, 1};
  const std::vector<double> s = {0.2, 0.4};
  EXPECT_TRUE(std::isnan(assay::metrics::roc_auc(y, s)));
  assay::set_warning_handler(previous);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], "Only one class present in y_true: ROC AUC is not defined, returning NaN");
}

TEST(Errors, MessagesNameValues) {
  const std::vector<std::uint8_t> y(120, 1);
  const std::vector<double> s(119, 0.5);
  EXPECT_THROW_MSG(assay::metrics::roc_auc(y, s), assay::Error,
                   "y_true and y_score differ in length (120 vs 119)");
  EXPECT_THROW_MSG(assay::metrics::average_precision(y, s), assay::Error,
                   "y_true and y_score differ in length (120 vs 119)");
  std::vector<double> s2(120, 0.5);
  s2[17] = std::nan("");
  EXPECT_THROW_MSG(assay::metrics::roc_auc(y, s2), assay::Error,
                   "y_score contains NaN at index 17");
  EXPECT_THROW_MSG(RankedScores(y, s2), assay::Error, "y_score contains NaN at index 17");
  s2[17] = -std::numeric_limits<double>::infinity();
  EXPECT_THROW_MSG(assay::metrics::precision_recall_curve(y, s2), assay::Error,
                   "y_score contains -inf at index 17");
  const std::vector<std::uint8_t> empty_y;
  const std::vector<double> empty_s;
  EXPECT_THROW_MSG(assay::metrics::roc_auc(empty_y, empty_s), assay::Error,
                   "y_true is empty: need at least one sample");
  const std::vector<std::uint8_t> y3 = {0, 1, 2};
  const std::vector<double> s3 = {0.1, 0.2, 0.3};
  EXPECT_THROW_MSG(assay::metrics::roc_auc(y3, s3), assay::Error,
                   "y_true must be 0 or 1, found 2 at index 2");
  const std::vector<std::uint8_t> y2 = {0, 1, 1};
  const std::vector<double> w = {1, -0.5, 1};
  EXPECT_THROW_MSG(assay::metrics::roc_auc(y2, s3, w), assay::Error,
                   "sample_weight must be >= 0, found -0.5 at index 1");
  EXPECT_THROW_MSG(assay::metrics::parse_ap_method("voc12"), assay::Error,
                   "method must be one of \"step\", \"voc07\", \"voc_allpoint\", \"coco101\", "
                   "\"trapezoid\", found \"voc12\"");
}

TEST(RocAucVariance, EqualsDeLongsVarianceAndIgnoresTheWeightsScale) {
  const std::vector<std::uint8_t> y = {1, 1, 1, 0, 0, 0, 1, 0};
  const std::vector<double> s = {1, 5, 3, 4, 2, 6, 3, 3};
  const assay::metrics::RankedScores ranked(y, s);
  const auto r = ranked.roc_auc_variance();
  const auto delong = assay::metrics::delong_roc_test(y, s, std::vector<double>(8, 0.0));
  EXPECT_DOUBLE_EQ(r.auc, ranked.roc_auc());
  EXPECT_NEAR(r.variance, delong.covariance[0][0], 1e-15);
  // Integer weights count samples: weight 2 on everything halves the variance's spread terms
  // but not DeLong's n - 1; rescaling every weight by 2^k changes nothing at all.
  for (double w : {5e-324, 1e-300, 1e300, 1.7e308}) {
    const auto scaled = ranked.roc_auc_variance(std::vector<double>(8, w));
    EXPECT_DOUBLE_EQ(scaled.auc, r.auc) << w;
    EXPECT_NEAR(scaled.variance, r.variance, 1e-15) << w;
  }
  // Fewer than two samples of a class: undefined, without a warning.
  const std::vector<double> one_positive = {1, 0, 0, 1, 1, 1, 0, 0};
  const auto one = ranked.roc_auc_variance(one_positive);
  EXPECT_TRUE(std::isnan(one.variance));
}

TEST(RocAuc, SubnormalAndHugeWeightsGiveTheUnweightedValue) {
  // Issue 38: weights 5e-324 gave NaN ("one class") and AP 1.0; 1e308 overflowed.
  const std::vector<std::uint8_t> y = {0, 0, 1, 1};
  const std::vector<double> s = {0.1, 0.4, 0.35, 0.8};
  for (double w : {5e-324, 1e-310, 1e308, 1.7e308}) {
    const std::vector<double> weights(4, w);
    EXPECT_DOUBLE_EQ(assay::metrics::roc_auc(y, s, weights), 0.75) << w;
    EXPECT_DOUBLE_EQ(assay::metrics::average_precision(y, s, weights), 5.0 / 6) << w;
    const auto roc = assay::metrics::roc_curve(y, s, weights);
    EXPECT_EQ(roc.tpr.back(), 1.0) << w;
    const auto pr = assay::metrics::precision_recall_curve(y, s, weights);
    EXPECT_DOUBLE_EQ(pr.precision.front(), 0.5) << w;
  }
}

}  // namespace
