// Calibration: ECE / RMS-CE / MCE with per-bin reliability tables, Brier score, log loss.
//
// Layout: labels are codes 0..K-1 (labels.hpp); probabilities are doubles in [0, 1], either one
// per sample (binary: probability of the positive class) or row-major n x K (p[i*K + k]).
// Weights: empty = all 1, else finite and >= 0.
// Bins: `bins` intervals over [0, 1]. uniform: edges j/bins; quantile: edges at the
// j/bins quantiles of the confidences (numpy's default linear percentile, unweighted), so
// repeated edges give empty bins. A value v falls in bin b when edge[b] < v <= edge[b+1], and
// the lowest edge's value in bin 0 (scikit-learn's calibration_curve rule). Empty bins are
// reported with count 0 and NaN accuracy/confidence and do not enter the error.
// Error: l1 (ECE) = sum_b (W_b/W) |acc_b - conf_b|; l2 (RMS-CE) = sqrt(sum_b (W_b/W)(acc_b -
// conf_b)^2); max (MCE) = max over non-empty bins of |acc_b - conf_b|.
//
// Example:
//   std::vector<std::int32_t> y = {0, 1, 1, 0};
//   std::vector<double> p = {0.1, 0.8, 0.6, 0.3};        // probability of class 1
//   CalibrationResult r = calibration_error_binary(y, 1, p, {.bins = 2});
//   // bins (0, .5] and (.5, 1]: count {2, 2}, accuracy {0, 1}, confidence {0.2, 0.7}
//   // r.error = 0.5 |0 - 0.2| + 0.5 |1 - 0.7| = 0.25 (ECE)
//   brier_score_loss(y, 1, p);   // (0.01 + 0.04 + 0.16 + 0.09) / 4 = 0.075
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace assay::metrics {

enum class BinStrategy { uniform, quantile };
enum class CalibrationNorm { l1, l2, max };

BinStrategy parse_bin_strategy(const std::string& name);
CalibrationNorm parse_calibration_norm(const std::string& name);

/// The most calibration bins accepted (more give nothing readable and could exhaust memory).
inline constexpr std::int32_t kMaxBins = 100000;

struct CalibrationParams {
  /// Number of bins (1..kMaxBins). Default 15.
  std::int32_t bins = 15;
  /// uniform (equal width) or quantile (equal count). Default uniform.
  BinStrategy strategy = BinStrategy::uniform;
  /// l1 = ECE, l2 = RMS calibration error, max = MCE. Default l1.
  CalibrationNorm norm = CalibrationNorm::l1;
};

/// Reliability table, one entry per bin.
struct CalibrationBins {
  std::vector<double> lower;       ///< bin lower edge
  std::vector<double> upper;       ///< bin upper edge
  std::vector<double> count;       ///< weight in the bin (0 = empty)
  std::vector<double> accuracy;    ///< observed frequency / fraction correct (NaN if empty)
  std::vector<double> confidence;  ///< mean predicted probability (NaN if empty)
};

struct CalibrationResult {
  double error = 0;
  CalibrationBins bins;
};

/// Core: confidence c_i in [0, 1] with outcome o_i in [0, 1] (1 = correct / positive).
CalibrationResult calibration_error(std::span<const double> confidence,
                                    std::span<const double> outcome,
                                    const CalibrationParams& params = {},
                                    std::span<const double> weights = {});

/// Binary: y_prob = probability that the label is `positive` (a code).
CalibrationResult calibration_error_binary(std::span<const std::int32_t> y_true,
                                           std::int32_t positive, std::span<const double> y_prob,
                                           const CalibrationParams& params = {},
                                           std::span<const double> weights = {});

/// Top-label: confidence = max_k p_ik, outcome = [argmax (first max) == y_true].
CalibrationResult calibration_error_top_label(std::span<const std::int32_t> y_true,
                                              std::span<const double> y_prob, std::size_t n_classes,
                                              const CalibrationParams& params = {},
                                              std::span<const double> weights = {});

/// Class-wise: one binary problem per class k (p_ik vs [y_true = k]); the caller averages.
std::vector<CalibrationResult> calibration_error_classwise(std::span<const std::int32_t> y_true,
                                                           std::span<const double> y_prob,
                                                           std::size_t n_classes,
                                                           const CalibrationParams& params = {},
                                                           std::span<const double> weights = {});

/// Brier score: weighted mean of ([y_true = positive] - p)^2 (scikit-learn 1.2.1).
double brier_score_loss(std::span<const std::int32_t> y_true, std::int32_t positive,
                        std::span<const double> y_prob, std::span<const double> weights = {});

/// The clipping of log loss's probabilities: the machine epsilon of double (2.2e-16), as
/// scikit-learn's eps="auto" (the default since 1.2; `eps` is gone from 1.5) and
/// assay.metrics.log_loss, so `assay metrics`, evaluate and log_loss agree.
inline constexpr double kLogLossEps = std::numeric_limits<double>::epsilon();

/// Log loss (scikit-learn 1.2.1): p clipped to [eps, 1-eps], rows renormalised, loss_i =
/// -log p[i, y_i]. y_prob has n x n_cols entries; n_cols = 1 means the positive-class column of
/// a binary problem. A code of -1 (label not listed) contributes 0, as in scikit-learn.
/// normalize: weighted mean, else weighted sum.
double log_loss(std::span<const std::int32_t> y_true, std::int32_t n_classes,
                std::span<const double> y_prob, std::size_t n_cols, double eps,
                bool normalize = true, std::span<const double> weights = {});

/// Log loss of a 0/1 indicator y_true (n x n_cols, multilabel): p clipped to [eps, 1-eps], rows
/// renormalised, loss_i = -sum over the columns c with y[i, c] = 1 of log p[i, c].
double log_loss_indicator(std::span<const std::uint8_t> y_true, std::span<const double> y_prob,
                          std::size_t n_cols, double eps, bool normalize,
                          std::span<const double> weights = {});

}  // namespace assay::metrics
