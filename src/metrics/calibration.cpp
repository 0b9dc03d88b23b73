#include "assay/metrics/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "assay/metrics/labels.hpp"
#include "assay/metrics/scaled_weights.hpp"

namespace assay::metrics {
namespace {

void check_probabilities(std::span<const double> p, std::size_t cols, const char* name) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double v = p[i];
    if (std::isnan(v) || v < 0 || v > 1) {
      const std::string where = cols <= 1 ? fmt::format("index {}", i)
                                          : fmt::format("row {}, column {}", i / cols, i % cols);
      if (std::isnan(v)) fail("{} contains NaN at {}", name, where);
      fail("{} must be in [0, 1], found {} at {}", name, v, where);
    }
  }
}

// Edge j of the quantile strategy, computed as scikit-learn's calibration_curve does:
// numpy.percentile(sorted, linspace(0, 1, bins + 1)[j] * 100) with numpy 1.24's default linear
// method, operation for operation, so that edges landing on data points agree bit for bit.
double quantile_edge(const std::vector<double>& s, std::size_t j, std::size_t bins) {
  const double step = 1.0 / static_cast<double>(bins);
  const double q = ((j == bins ? 1.0 : static_cast<double>(j) * step) * 100.0) / 100.0;
  const double n = static_cast<double>(s.size());
  const double virtual_index = n * q + (1.0 + q * -1.0) - 1.0;
  const double previous = std::floor(virtual_index);
  const double t = virtual_index - previous;
  const double last = n - 1;
  const auto lo = static_cast<std::size_t>(std::clamp(previous, 0.0, last));
  const auto hi = static_cast<std::size_t>(std::clamp(previous + 1, 0.0, last));
  const double a = s[lo];
  const double b = s[hi];
  const double d = b - a;
  return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}

}  // namespace

BinStrategy parse_bin_strategy(const std::string& name) {
  if (name == "uniform") return BinStrategy::uniform;
  if (name == "quantile") return BinStrategy::quantile;
  fail("strategy must be 'uniform' or 'quantile', found {}", quote_found(name));
}

CalibrationNorm parse_calibration_norm(const std::string& name) {
  if (name == "l1") return CalibrationNorm::l1;
  if (name == "l2") return CalibrationNorm::l2;
  if (name == "max") return CalibrationNorm::max;
  fail("norm must be 'l1', 'l2' or 'max', found {}", quote_found(name));
}

CalibrationResult calibration_error(std::span<const double> confidence,
                                    std::span<const double> outcome,
                                    const CalibrationParams& params,
                                    std::span<const double> weights) {
  check_same_length(confidence.size(), outcome.size(), "confidence", "outcome");
  check_not_empty(confidence.size(), "y_prob");
  check_weights(weights, confidence.size(), "y_prob");
  check_probabilities(confidence, 1, "y_prob");
  if (params.bins < 1) fail("bins must be >= 1, found {}", params.bins);
  if (params.bins > kMaxBins) {
    // Eight doubles per bin in the tables here, more in the outputs (JSON, chart).
    fail("bins must be at most {}, found {} (its tables alone would need {:.1f} GB)", kMaxBins,
         params.bins, 64.0 * params.bins / 1e9);
  }
  const auto nb = static_cast<std::size_t>(params.bins);
  std::vector<double> edges(nb + 1);
  if (params.strategy == BinStrategy::uniform) {
    for (std::size_t j = 0; j <= nb; ++j) edges[j] = static_cast<double>(j) / params.bins;
  } else {
    std::vector<double> sorted(confidence.begin(), confidence.end());
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t j = 0; j <= nb; ++j) {
      edges[j] = quantile_edge(sorted, j, nb);
    }
  }
  CalibrationResult r;
  auto& b = r.bins;
  b.lower.assign(edges.begin(), edges.end() - 1);
  b.upper.assign(edges.begin() + 1, edges.end());
  b.count.assign(nb, 0.0);
  std::vector<double> sum_outcome(nb, 0.0);
  std::vector<double> sum_conf(nb, 0.0);
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  double total = 0;
  for (std::size_t i = 0; i < confidence.size(); ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    // Number of interior edges strictly below v (numpy.searchsorted(edges[1:-1], v)).
    const auto bin = static_cast<std::size_t>(
        std::lower_bound(edges.begin() + 1, edges.end() - 1, confidence[i]) - (edges.begin() + 1));
    b.count[bin] += w;
    sum_outcome[bin] += w * outcome[i];
    sum_conf[bin] += w * confidence[i];
    total += w;
  }
  if (total == 0) fail("sample_weight sums to zero");
  b.accuracy.assign(nb, kNaN);
  b.confidence.assign(nb, kNaN);
  double l1 = 0, l2 = 0, mx = 0;
  for (std::size_t j = 0; j < nb; ++j) {
    if (b.count[j] == 0) continue;
    b.accuracy[j] = sum_outcome[j] / b.count[j];
    b.confidence[j] = sum_conf[j] / b.count[j];
    const double gap = std::fabs(b.accuracy[j] - b.confidence[j]);
    l1 += b.count[j] / total * gap;
    l2 += b.count[j] / total * gap * gap;
    mx = std::max(mx, gap);
  }
  switch (params.norm) {
    case CalibrationNorm::l1:
      r.error = l1;
      break;
    case CalibrationNorm::l2:
      r.error = std::sqrt(l2);
      break;
    case CalibrationNorm::max:
      r.error = mx;
      break;
  }
  scaled.unscale(b.count);
  return r;
}

CalibrationResult calibration_error_binary(std::span<const std::int32_t> y_true,
                                           std::int32_t positive, std::span<const double> y_prob,
                                           const CalibrationParams& params,
                                           std::span<const double> weights) {
  check_same_length(y_true.size(), y_prob.size(), "y_true", "y_prob");
  std::vector<double> outcome(y_true.size());
  for (std::size_t i = 0; i < y_true.size(); ++i) outcome[i] = y_true[i] == positive;
  return calibration_error(y_prob, outcome, params, weights);
}

CalibrationResult calibration_error_top_label(std::span<const std::int32_t> y_true,
                                              std::span<const double> y_prob, std::size_t n_classes,
                                              const CalibrationParams& params,
                                              std::span<const double> weights) {
  check_same_length(y_true.size() * n_classes, y_prob.size(), "y_true x classes", "y_prob");
  check_probabilities(y_prob, n_classes, "y_prob");
  std::vector<double> conf(y_true.size());
  std::vector<double> outcome(y_true.size());
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    const double* row = y_prob.data() + i * n_classes;
    std::size_t best = 0;
    for (std::size_t k = 1; k < n_classes; ++k) {
      if (row[k] > row[best]) best = k;
    }
    conf[i] = row[best];
    outcome[i] = static_cast<std::size_t>(y_true[i]) == best && y_true[i] >= 0;
  }
  return calibration_error(conf, outcome, params, weights);
}

std::vector<CalibrationResult> calibration_error_classwise(std::span<const std::int32_t> y_true,
                                                           std::span<const double> y_prob,
                                                           std::size_t n_classes,
                                                           const CalibrationParams& params,
                                                           std::span<const double> weights) {
  check_same_length(y_true.size() * n_classes, y_prob.size(), "y_true x classes", "y_prob");
  check_probabilities(y_prob, n_classes, "y_prob");
  std::vector<CalibrationResult> out;
  std::vector<double> conf(y_true.size());
  std::vector<double> outcome(y_true.size());
  for (std::size_t k = 0; k < n_classes; ++k) {
    for (std::size_t i = 0; i < y_true.size(); ++i) {
      conf[i] = y_prob[i * n_classes + k];
      outcome[i] = y_true[i] == static_cast<std::int32_t>(k);
    }
    out.push_back(calibration_error(conf, outcome, params, weights));
  }
  return out;
}

double brier_score_loss(std::span<const std::int32_t> y_true, std::int32_t positive,
                        std::span<const double> y_prob, std::span<const double> weights) {
  check_same_length(y_true.size(), y_prob.size(), "y_true", "y_prob");
  check_not_empty(y_true.size(), "y_true");
  check_weights(weights, y_true.size());
  check_probabilities(y_prob, 1, "y_prob");
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    const double d = (y_true[i] == positive ? 1.0 : 0.0) - y_prob[i];
    num += w * d * d;
    den += w;
  }
  if (den == 0) fail("weights sum to zero, can't be normalized");
  return num / den;
}

double log_loss(std::span<const std::int32_t> y_true, std::int32_t n_classes,
                std::span<const double> y_prob, std::size_t n_cols, double eps, bool normalize,
                std::span<const double> weights) {
  const std::size_t n = y_true.size();
  check_not_empty(n, "y_true");
  check_same_length(n * n_cols, y_prob.size(), "y_true x columns", "y_pred");
  check_weights(weights, n);
  if (!(eps >= 0 && eps < 0.5)) fail("eps must be in [0, 0.5), found {}", eps);
  const std::size_t k = n_cols == 1 ? 2 : n_cols;
  if (static_cast<std::size_t>(n_classes) != k) {
    fail(
        "y_true and y_pred contain different number of classes {}, {}. Please provide the true "
        "labels explicitly through the labels argument.",
        n_classes, k);
  }
  for (std::size_t i = 0; i < y_prob.size(); ++i) {
    if (std::isnan(y_prob[i])) {
      fail("y_pred contains NaN at row {}, column {}", i / n_cols, i % n_cols);
    }
  }
  auto clip = [eps](double p) { return std::clamp(p, eps, 1 - eps); };
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    double loss = 0;
    if (y_true[i] >= 0) {
      double sum = 0;
      double mine = 0;
      if (n_cols == 1) {
        // scikit-learn clips the positive column, then builds the negative one as 1 - p.
        const double p1 = clip(y_prob[i]);
        const double p0 = 1 - p1;
        sum = p0 + p1;
        mine = y_true[i] == 1 ? p1 : p0;
      } else {
        for (std::size_t c = 0; c < n_cols; ++c) sum += clip(y_prob[i * n_cols + c]);
        mine = clip(y_prob[i * n_cols + static_cast<std::size_t>(y_true[i])]);
      }
      loss = -std::log(mine / sum);
    }
    num += w * loss;
    den += w;
  }
  if (!normalize) return scaled.unscale(num);
  if (den == 0) fail("weights sum to zero, can't be normalized");
  return num / den;
}

double log_loss_indicator(std::span<const std::uint8_t> y_true, std::span<const double> y_prob,
                          std::size_t n_cols, double eps, bool normalize,
                          std::span<const double> weights) {
  check_same_length(y_true.size(), y_prob.size(), "y_true", "y_pred");
  if (n_cols == 0 || y_true.size() % n_cols != 0) {
    fail("y_true must have n x {} entries, found {}", n_cols, y_true.size());
  }
  const std::size_t n = y_true.size() / n_cols;
  check_not_empty(n, "y_true");
  check_weights(weights, n);
  if (!(eps >= 0 && eps < 0.5)) fail("eps must be in [0, 0.5), found {}", eps);
  auto clip = [eps](double p) { return std::clamp(p, eps, 1 - eps); };
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double* p = y_prob.data() + i * n_cols;
    const std::uint8_t* y = y_true.data() + i * n_cols;
    double sum = 0;
    for (std::size_t c = 0; c < n_cols; ++c) sum += clip(p[c]);
    double loss = 0;
    for (std::size_t c = 0; c < n_cols; ++c) {
      if (y[c] != 0) loss -= std::log(clip(p[c]) / sum);
    }
    const double w = weights.empty() ? 1.0 : weights[i];
    num += w * loss;
    den += w;
  }
  if (!normalize) return scaled.unscale(num);
  if (den == 0) fail("weights sum to zero, can't be normalized");
  return num / den;
}

}  // namespace assay::metrics
