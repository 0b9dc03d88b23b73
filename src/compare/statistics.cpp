// Paired-comparison statistics: bootstrap intervals and p-values, permutation p-value, exact
// McNemar, multiple-comparison corrections, weighted DeLong.
#include "assay/compare/statistics.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numeric>

#include "assay/core/compensated_sum.hpp"
#include "assay/core/error.hpp"
#include "assay/core/options.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/scaled_weights.hpp"

namespace assay::compare {
namespace {

std::vector<double> defined_values(std::span<const double> values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) {
    if (!std::isnan(v)) out.push_back(v);
  }
  return out;
}

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

/// scipy's ndtri: -inf at 0, +inf at 1 (boost would throw there).
double normal_quantile(double p) {
  if (std::isnan(p)) return kNaN;
  if (p <= 0) return -INFINITY;
  if (p >= 1) return INFINITY;
  return boost::math::quantile(boost::math::normal_distribution<double>(), p);
}

/// scipy's _percentile_of_score: the share of replicates below the estimate, ties half.
double share_below(std::span<const double> sorted, double estimate) {
  const auto below = std::lower_bound(sorted.begin(), sorted.end(), estimate) - sorted.begin();
  const auto at_or_below =
      std::upper_bound(sorted.begin(), sorted.end(), estimate) - sorted.begin();
  return double(below + at_or_below) / (2.0 * double(sorted.size()));
}

/// Efron's acceleration from jackknife values: sum d^3 / (6 (sum d^2)^1.5), d = mean - value
/// (scipy's (n-1)/n factors cancel).
double acceleration(std::span<const double> jackknife) {
  CompensatedSum sum;
  for (double v : jackknife) sum.add(v);
  const double mean = sum.value() / double(jackknife.size());
  CompensatedSum squares, cubes;
  for (double v : jackknife) {
    const double d = mean - v;
    squares.add(d * d);
    cubes.add(d * d * d);
  }
  return cubes.value() / (6.0 * std::pow(squares.value(), 1.5));
}

/// Adjusted tail level of the BCa interval (scipy's alpha_1 / alpha_2).
double bca_level(double z0, double a, double z_alpha) {
  const double num = z0 + z_alpha;
  return normal_cdf(z0 + num / (1 - a * num));
}

void check_confidence(double confidence) {
  check_probability("confidence", confidence);
}

void check_count(double x, const char* name) {
  if (!(x >= 0) || !std::isfinite(x) || x != std::floor(x)) {
    fail("McNemar's exact test needs whole discordant counts, found {} = {}", name, x);
  }
}

// --- weighted DeLong --------------------------------------------------------------------------

/// Per-example structural components of one model's AUC (V10 for a positive: the weighted share
/// of negatives below it; V01 for a negative: the share of positives above it; ties half).
struct Placements {
  std::vector<double> v;  // original order
  double auc = 0;
};

struct ClassTotals {
  double weight[2] = {0, 0};
  double squares[2] = {0, 0};
  std::size_t positive_weight_count[2] = {0, 0};
};

Placements placements(std::span<const std::uint8_t> y, std::span<const double> score,
                      std::span<const double> w, const ClassTotals& totals) {
  const std::size_t n = y.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return score[a] > score[b]; });
  const double* W = totals.weight;
  Placements out;
  out.v.resize(n);
  double above[2] = {0, 0};
  CompensatedSum weighted_v10;
  for (std::size_t begin = 0, end = 0; begin < n; begin = end) {
    double block[2] = {0, 0};
    for (end = begin; end < n && score[order[end]] == score[order[begin]]; ++end) {
      block[y[order[end]]] += w[order[end]];
    }
    const double v10 = (W[0] - above[0] - block[0] / 2) / W[0];
    const double v01 = (above[1] + block[1] / 2) / W[1];
    for (std::size_t k = begin; k < end; ++k) out.v[order[k]] = y[order[k]] ? v10 : v01;
    weighted_v10.add(block[1] * v10);
    above[0] += block[0];
    above[1] += block[1];
  }
  out.auc = weighted_v10.value() / W[1];
  return out;
}

/// Weighted DeLong covariance of two AUCs: sum w^2 (Va - auc_a)(Vb - auc_b) / (W^2 - sum w^2)
/// per class, summed over the classes (DeLong's S/m + S/n with unit weights).
double delong_covariance(std::span<const std::uint8_t> y, std::span<const double> w,
                         const ClassTotals& totals, const Placements& a, const Placements& b) {
  CompensatedSum spread[2];
  for (std::size_t i = 0; i < y.size(); ++i) {
    spread[y[i]].add(w[i] * w[i] * (a.v[i] - a.auc) * (b.v[i] - b.auc));
  }
  double out = 0;
  for (int c = 0; c < 2; ++c) {
    out += spread[c].value() / (totals.weight[c] * totals.weight[c] - totals.squares[c]);
  }
  return out;
}

ClassTotals class_totals(std::span<const std::uint8_t> y, std::span<const double> w) {
  ClassTotals t;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (y[i] > 1) fail("y_true must hold 0 or 1, found {} at index {}", int(y[i]), i);
    t.weight[y[i]] += w[i];
    t.squares[y[i]] += w[i] * w[i];
    t.positive_weight_count[y[i]] += w[i] > 0;
  }
  return t;
}

DelongDetail undefined_delong() {
  return {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
}

}  // namespace

Interval percentile_interval(std::span<const double> replicates, double estimate,
                             double confidence) {
  check_confidence(confidence);
  const double alpha = (1 - confidence) / 2;
  return {estimate, metrics::quantile(replicates, alpha), metrics::quantile(replicates, 1 - alpha)};
}

Interval bca_interval(std::span<const double> replicates, double estimate,
                      std::span<const double> jackknife, double confidence,
                      const std::string& what) {
  check_confidence(confidence);
  std::vector<double> sorted = defined_values(replicates);
  std::sort(sorted.begin(), sorted.end());
  const std::vector<double> jk = defined_values(jackknife);
  const Interval undefined{estimate, kNaN, kNaN};
  if (sorted.empty() || std::isnan(estimate) || jk.size() < 2) {
    warn(fmt::format("BCa interval of {}: no defined replicate, estimate or jackknife; NaN", what));
    return undefined;
  }
  const double z0 = normal_quantile(share_below(sorted, estimate));
  const double a = acceleration(jk);
  const double z_alpha = normal_quantile((1 - confidence) / 2);
  const double low = bca_level(z0, a, z_alpha);
  const double high = bca_level(z0, a, -z_alpha);
  if (!std::isfinite(z0) || !std::isfinite(a) || std::isnan(low) || std::isnan(high)) {
    warn(fmt::format(
        "BCa interval of {} is undefined (every replicate on one side of the estimate, or a "
        "constant jackknife); its bounds are NaN",
        what));
    return undefined;
  }
  // scipy passes 100 * level to np.percentile, which divides it back: the same rounding.
  return {estimate, metrics::quantile(sorted, low * 100 / 100),
          metrics::quantile(sorted, high * 100 / 100)};
}

double bootstrap_p_value(std::span<const double> replicates) {
  std::size_t defined = 0, at_most_zero = 0, at_least_zero = 0;
  for (double d : replicates) {
    if (std::isnan(d)) continue;
    ++defined;
    at_most_zero += d <= 0;
    at_least_zero += d >= 0;
  }
  if (defined == 0) return kNaN;
  const double tail = double(std::min(at_most_zero, at_least_zero) + 1);
  return std::min(1.0, 2 * tail / double(defined + 1));
}

double permutation_p_value(std::span<const double> null_statistics, double observed) {
  if (std::isnan(observed)) return kNaN;
  // scipy's tolerance for null statistics equal to the observed one up to rounding.
  const double gamma = std::max(1e-14, std::abs(1e-14 * observed));
  std::size_t defined = 0, less = 0, greater = 0;
  for (double t : null_statistics) {
    if (std::isnan(t)) continue;
    ++defined;
    less += t <= observed + gamma;
    greater += t >= observed - gamma;
  }
  if (defined == 0) return kNaN;
  const double b = double(defined) + 1;
  const double p_less = (double(less) + 1) / b, p_greater = (double(greater) + 1) / b;
  return std::min(1.0, std::min(p_less, p_greater) * 2);
}

McNemarResult mcnemar_exact(double b, double c) {
  check_count(b, "b");
  check_count(c, "c");
  if (b == c) return {1.0, 1.0};  // the two tails overlap at the middle: both p-values are 1
  const double n = b + c;
  const boost::math::binomial_distribution<double> x(n, 0.5);
  const double k = std::min(b, c);
  const double cdf = boost::math::cdf(x, k);
  const double p = std::min(1.0, 2 * cdf);
  return {p, std::min(1.0, 2 * cdf - boost::math::pdf(x, k))};
}

std::vector<double> adjust_p_values(std::span<const double> p_values, Correction correction) {
  std::vector<double> out(p_values.begin(), p_values.end());
  for (double p : p_values) {
    if (!std::isnan(p) && !(p >= 0 && p <= 1)) fail("p-values must be in [0, 1], found {}", p);
  }
  if (correction == Correction::none) return out;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isnan(out[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return out[a] < out[b]; });
  const std::size_t m = order.size();
  const double dm = double(m);
  // The expressions are statsmodels' own, so the results agree to the last bit.
  switch (correction) {
    case Correction::bonferroni:
      for (std::size_t i : order) out[i] = out[i] * dm;
      break;
    case Correction::holm: {
      double running = 0;
      for (std::size_t k = 0; k < m; ++k) {
        running = std::max(running, out[order[k]] * double(m - k));
        out[order[k]] = running;
      }
      break;
    }
    case Correction::fdr_bh: {
      double running = INFINITY;
      for (std::size_t k = m; k-- > 0;) {
        running = std::min(running, out[order[k]] / (double(k + 1) / dm));
        out[order[k]] = running;
      }
      break;
    }
    case Correction::none:
      break;
  }
  for (std::size_t i : order) out[i] = std::min(out[i], 1.0);
  return out;
}

DelongDetail delong_difference(std::span<const std::uint8_t> y_true,
                               std::span<const double> score_model,
                               std::span<const double> score_baseline,
                               std::span<const double> weights, double confidence) {
  check_confidence(confidence);
  check_same_length(y_true.size(), score_model.size(), "y_true", "score_model");
  check_same_length(y_true.size(), score_baseline.size(), "y_true", "score_baseline");
  check_finite(score_model, "score_model");
  check_finite(score_baseline, "score_baseline");
  check_weights(weights, y_true.size(), "y_true", "sample_weight");
  const std::vector<double> ones(weights.empty() ? y_true.size() : 0, 1.0);
  const metrics::ScaledWeights scaled(weights.empty() ? std::span<const double>(ones) : weights);
  const std::span<const double> w = scaled.span();
  const ClassTotals totals = class_totals(y_true, w);
  const std::size_t positives = totals.positive_weight_count[1];
  const std::size_t negatives = totals.positive_weight_count[0];
  if (positives < 2 || negatives < 2) {
    warn(fmt::format(
        "DeLong test needs at least 2 positives and 2 negatives of positive weight, found {} and "
        "{}: its values are NaN",
        positives, negatives));
    return undefined_delong();
  }
  const Placements model = placements(y_true, score_model, w, totals);
  const Placements baseline = placements(y_true, score_baseline, w, totals);
  DelongDetail out;
  out.auc_model = model.auc;
  out.auc_baseline = baseline.auc;
  out.difference = model.auc - baseline.auc;
  // var_m + var_b - 2 cov, as the variance of the paired differences of the components (no
  // cancellation: identical models give exactly 0).
  Placements difference{std::vector<double>(y_true.size()), out.difference};
  for (std::size_t i = 0; i < y_true.size(); ++i) difference.v[i] = model.v[i] - baseline.v[i];
  out.standard_error = std::sqrt(delong_covariance(y_true, w, totals, difference, difference));
  if (!(out.standard_error > 0)) {
    warn(
        "DeLong test: the difference of the two AUCs has zero variance; its interval, z and p "
        "are NaN");
    out.low = out.high = out.z = out.p_value = kNaN;
    return out;
  }
  const double z_crit = normal_quantile((1 + confidence) / 2);
  out.low = out.difference - z_crit * out.standard_error;
  out.high = out.difference + z_crit * out.standard_error;
  out.z = out.difference / out.standard_error;
  out.p_value = std::erfc(std::abs(out.z) / std::sqrt(2.0));
  return out;
}

}  // namespace assay::compare
