// Regression metrics with bootstrap intervals, and OOD detection by uncertainty (Shifts 2.0 paper).
//
// Data layout: y_true[i], y_pred[i] for samples i = 0..n-1 (finite, same length n >= 1);
// sample_weight: empty = all 1, else n finite values >= 0 with a positive total.
//
// Definitions (scikit-learn 1.2.1, single output):
//   MSE  = sum w (y - ŷ)^2 / sum w;  RMSE = sqrt(MSE);  MAE = sum w |y - ŷ| / sum w
//   MAPE = sum w |y - ŷ| / max(|y|, 2^-52) / sum w   (a fraction, not a percentage)
//   R^2  = 1 - sum w (y - ŷ)^2 / sum w (y - ȳ_w)^2, with scikit-learn's force_finite rule:
//          a constant y_true gives 1 when the predictions are perfect, else 0.
// Intervals: the percentile bootstrap of metrics/uncertainty.hpp (resample i drawn from
// Rng(seed).split(i), as per-sample counts), all four metrics on the same resamples.
//
// OOD detection: shifted[i] = 1 for a shifted (out-of-domain) sample, 0 for in-domain; the
// uncertainty is the score (higher = more likely shifted). AUROC = metrics::roc_auc;
// AUPR (Shifts' ood_detect mode 'PR') = trapezoid area under scikit-learn's precision-recall
// curve, sklearn.metrics.auc(recall, precision) (metrics ApMethod::trapezoid); average precision
// (scikit-learn's step AP) is given too; FPR@95 = the smallest false-positive rate among the
// ROC operating points (one per tie block) with TPR >= 0.95. One class only: NaN + warning.
//
// Example:
//   std::vector<double> y = {3, -0.5, 2, 7}, p = {2.5, 0.0, 2, 8};
//   mean_squared_error(y, p);    // 0.375
//   mean_absolute_error(y, p);   // 0.5
//   r2_score(y, p);              // 0.94861
//   std::vector<std::uint8_t> shifted = {0, 0, 1, 1};
//   OodResult o = ood_detection(shifted, std::vector<double>{0.1, 0.4, 0.35, 0.8});
//   // o.auroc 0.75, o.aupr 0.79167, o.average_precision 0.83333, o.fpr_at_95 0.5
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "assay/metrics/uncertainty.hpp"

namespace assay::shift {

double mean_squared_error(std::span<const double> y_true, std::span<const double> y_pred,
                          std::span<const double> sample_weight = {});
double root_mean_squared_error(std::span<const double> y_true, std::span<const double> y_pred,
                               std::span<const double> sample_weight = {});
double mean_absolute_error(std::span<const double> y_true, std::span<const double> y_pred,
                           std::span<const double> sample_weight = {});
double mean_absolute_percentage_error(std::span<const double> y_true,
                                      std::span<const double> y_pred,
                                      std::span<const double> sample_weight = {});
double r2_score(std::span<const double> y_true, std::span<const double> y_pred,
                std::span<const double> sample_weight = {});

struct RegressionParams {
  /// Bootstrap of the intervals; n_resamples = 0 means no intervals (low = high = NaN).
  metrics::BootstrapParams bootstrap = {.n_resamples = 0};
};

/// RMSE, MAE, MAPE and R^2, each with its bootstrap interval.
struct RegressionMetrics {
  std::size_t n_samples = 0;
  metrics::BootstrapResult rmse, mae, mape, r2;
};
RegressionMetrics regression_metrics(std::span<const double> y_true, std::span<const double> y_pred,
                                     std::span<const double> sample_weight = {},
                                     const RegressionParams& params = {});

struct OodResult {
  double auroc = 0;
  double aupr = 0;               ///< trapezoid under the PR curve (Shifts' ood_detect)
  double average_precision = 0;  ///< scikit-learn step AP
  double fpr_at_95 = 0;          ///< FPR at the first operating point with TPR >= 0.95
  std::size_t n_in = 0;
  std::size_t n_shifted = 0;
};
OodResult ood_detection(std::span<const std::uint8_t> shifted, std::span<const double> uncertainty);

}  // namespace assay::shift
