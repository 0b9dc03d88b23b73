// Error-retention curves and the scores derived from them (Shifts 2.0 paper; docs/shift.md):
// R-AUC and PRR as in the Shifts repository, AURC / e-AURC / AUGRC / e-AUGRC as in fd-shifts,
// and F1-retention curves (F1-AUC, F1@95) as in Shifts' vessel-power code.
//
// Data layout (stated once for the whole header):
// - errors[i]: any per-sample error of sample i (squared error, 0-1 loss, 1 - nDSC, ...), finite.
//   Lower is better. Negative values are allowed (the formulas do not need a sign).
// - uncertainty[i]: higher = less certain; NaN is an assay::Error naming the index, +-inf is
//   allowed (sorted as the extremes). A confidence score c becomes uncertainty -c.
// - Both have the same length n >= 1 (else assay::Error "errors and uncertainty differ in length
//   (120 vs 119)" / "errors is empty").
//
// Order: samples are ordered by uncertainty ascending (most certain first), stably (ties keep
// input order; -0.0 equals +0.0). O(n) time and memory (how: docs/performance.md).
//
// Example:
//   std::vector<double> err = {0.1, 0.5, 0.2, 0.9}, unc = {0.2, 0.6, 0.1, 0.8};
//   RetentionResult r = retention_curve(err, unc);   // curve {0.425, 0.2, 0.075, 0.05, 0}
//   r.r_auc;                                          // 0.15 (mean of the 5 points)
//   prr(err, unc).prr;   // 0.92593 = (0.15 - 0.2125) / (0.145 - 0.2125): random, oracle areas
//   f1_retention(err, unc, {.threshold = 0.3}).curve;  // {0, 0.66667, 1.00000, 0.8, 0.66667}
//   f1_retention(err, unc, {.threshold = 0.3}).f1_auc;  // 0.56
//
// Error-retention curve: with j of n samples rejected (replaced by ground truth, error 0),
// R[j] = (sum of the errors of the n - j most certain samples) / n, j = 0..n, R[n] = 0. The
// divisor is always n. Conventions:
// - shifts (Shifts' weather / SDC / translation code, group_by_uncertainty=True): every error
//   is replaced by the mean error of its uncertainty tie group; R-AUC = mean of the n + 1 points
//   (constant uncertainty, one tie group: exactly R[0] / 2, the random area, without rounding).
// - shifts_vpower (Shifts' vessel-power code, group_by_uncertainty=False): no grouping;
//   R-AUC = trapezoid area over x = j/n (numpy.linspace(0, 1, n + 1)). Shifts sorts with numpy's
//   default (unstable) quicksort; assay's stable sort gives the same curve whenever uncertainties
//   are distinct (and for n <= 16, where numpy's sort is an insertion sort).
// Oracle curve = the curve with uncertainty := error; random curve = the expected curve of a
// random order, R[0] (n - j) / n (area R[0] / 2 under both conventions).
// PRR = (AUC_unc - AUC_random) / (AUC_oracle - AUC_random) as a fraction (Shifts' calc_aucs
// multiplies by 100); AUC_oracle == AUC_random (e.g. all errors equal) gives NaN + warning.
//
// Risk-coverage (fd-shifts RiskCoverageStats, confids = -uncertainty): one point per tie group
// of uncertainty. Coverage c = retained / n (1 down to the most certain tie group), selective
// risk = (error sum of the retained) / retained, generalised risk = (error sum of the retained)
// / n; then a last point at coverage 0 with the previous selective risk, or generalised risk 0.
// AURC and AUGRC are trapezoid areas over coverage (fd-shifts' default "linear" interpolation),
// as fractions: fd-shifts multiplies them by AUC_DISPLAY_SCALE = 1000. e-AURC = AURC - optimal
// AURC, e-AUGRC likewise: for binary errors (all 0 or 1) the optimal values are fd-shifts'
// closed forms r + (1 - r) ln(1 - r + 2^-52) and r^2 / 2 (r = mean error), otherwise the areas
// of the curves of the same errors sorted ascending with distinct confidences.
//
// F1 retention (Shifts' f_beta_metrics): acceptable = error <= threshold (inclusive). Retain
// the k most certain, k = 0..n; among equal uncertainties the higher input index is retained
// first (Shifts sorts -uncertainty stably and reverses). P_k = TP_k / k, R_k = TP_k / TP_n,
// F_k = (1 + b^2) P_k R_k / (b^2 P_k + R_k + 1e-10), F_0 = 0. F_k sits at x = k / (n + 1):
// F1-AUC = (1 / (n + 1)) (sum_{k=0..n} F_k - F_n / 2); F1@95 = F_{floor(0.95 (n + 1))}. No
// acceptable sample: R_k = 0/0, so the curve (k >= 1), F1-AUC and F1@95 are NaN + warning (the
// same NaN Shifts' code returns, there with a numpy warning).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace assay::shift {

/// Retention-curve conventions (see the header comment).
enum class RetentionConvention {
  shifts,         ///< tie groups averaged; R-AUC = mean of the n + 1 points
  shifts_vpower,  ///< no grouping; R-AUC = trapezoid over x = linspace(0, 1, n + 1)
};

/// "shifts" | "shifts-vpower" (also "shifts_vpower"); anything else is an assay::Error.
RetentionConvention parse_retention_convention(std::string_view name);
/// "shifts" or "shifts-vpower".
std::string_view to_string(RetentionConvention convention);

struct RetentionParams {
  /// Curve convention; default shifts (tie groups averaged, mean of the points).
  RetentionConvention convention = RetentionConvention::shifts;
};

/// An error-retention curve: curve[j] = R[j], error with j samples rejected, j = 0..n.
struct RetentionResult {
  std::vector<double> curve;
  /// Area under the curve under the convention (R-AUC; lower is better).
  double r_auc = 0;
  RetentionConvention convention = RetentionConvention::shifts;
};

/// The error-retention curve of `errors` rejected in order of decreasing uncertainty.
RetentionResult retention_curve(std::span<const double> errors, std::span<const double> uncertainty,
                                const RetentionParams& params = {});

/// The oracle curve: retention_curve(errors, errors, params).
RetentionResult oracle_retention_curve(std::span<const double> errors,
                                       const RetentionParams& params = {});

/// The expected curve of a random rejection order: R[j] = R[0] (n - j) / n, area R[0] / 2.
RetentionResult random_retention_curve(std::span<const double> errors,
                                       const RetentionParams& params = {});

/// Prediction rejection ratio and the three areas it is made of.
struct PrrResult {
  double prr = 0;         ///< (r_auc - random_auc) / (oracle_auc - random_auc)
  double r_auc = 0;       ///< area of the uncertainty-ordered curve
  double random_auc = 0;  ///< R[0] / 2
  double oracle_auc = 0;  ///< area of the error-ordered curve
};
PrrResult prr(std::span<const double> errors, std::span<const double> uncertainty,
              const RetentionParams& params = {});

/// fd-shifts risk-coverage points (descending coverage) and areas (fractions, not x1000).
struct RiskCoverageResult {
  std::vector<double> coverage;          ///< 1, ..., c_1, 0
  std::vector<double> selective_risk;    ///< per point; last repeats the one before
  std::vector<double> generalized_risk;  ///< per point; last is 0
  double aurc = 0;                       ///< trapezoid area under selective risk
  double augrc = 0;                      ///< trapezoid area under generalised risk
  double e_aurc = 0;                     ///< aurc - optimal AURC
  double e_augrc = 0;                    ///< augrc - optimal AUGRC
};
RiskCoverageResult risk_coverage(std::span<const double> errors,
                                 std::span<const double> uncertainty);

struct F1RetentionParams {
  /// Acceptable = error <= threshold (required; e.g. 500^2 for vessel power in kW^2).
  double threshold = 0;
  /// F-beta's beta (> 0); default 1.
  double beta = 1;
};

/// F-beta retention curve: curve[k] = F_k with the k most certain retained, k = 0..n.
struct F1RetentionResult {
  std::vector<double> curve;
  double f1_auc = 0;    ///< area over x = k / (n + 1) (higher is better)
  double f1_at_95 = 0;  ///< F at k = floor(0.95 (n + 1))
  std::size_t n_acceptable = 0;
};
F1RetentionResult f1_retention(std::span<const double> errors, std::span<const double> uncertainty,
                               const F1RetentionParams& params);

/// The oracle F1 curve (uncertainty := error, Shifts' rank_type="optimal").
F1RetentionResult oracle_f1_retention(std::span<const double> errors,
                                      const F1RetentionParams& params);

/// The random F1 curve from expected counts: TP_k = k p with p = TP_n / n, i.e.
/// F_k = (1 + b^2) p (k/n) / (b^2 p + k/n + 1e-10) (an approximation of the expected F of a
/// random order, which has no closed form; Shifts draws one random permutation instead).
F1RetentionResult random_f1_retention(std::span<const double> errors,
                                      const F1RetentionParams& params);

/// The model, oracle and random curves, error-retention and (when `threshold` is set) F-beta,
/// from one sort by uncertainty and one by error: the chart curves of the partition table. Each
/// equals the result of the separate function.
struct RetentionCurves {
  RetentionResult model, oracle, random;
  bool has_f1 = false;
  F1RetentionResult f1, f1_oracle, f1_random;  ///< empty curves unless has_f1
};
RetentionCurves retention_curves(std::span<const double> errors,
                                 std::span<const double> uncertainty, const RetentionParams& params,
                                 const double* threshold, double beta = 1);

/// Everything the partition table needs from one sort: R-AUC (with PRR), F1 retention (when
/// `threshold` is set) and the risk-coverage areas.
struct RetentionSummary {
  PrrResult prr;
  RiskCoverageResult risk_coverage;  ///< areas only (coverage/risk vectors left empty)
  bool has_f1 = false;
  double f1_auc = 0;
  double f1_at_95 = 0;
  std::size_t n_acceptable = 0;
};
RetentionSummary retention_summary(std::span<const double> errors,
                                   std::span<const double> uncertainty,
                                   const RetentionParams& params, const double* threshold,
                                   double beta = 1);

}  // namespace assay::shift
