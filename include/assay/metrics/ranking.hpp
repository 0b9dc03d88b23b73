// Ranking metrics: everything that sorts scores — PR and ROC curves, average precision under
// every convention (scikit-learn step, PASCAL VOC 11-point and all-point, COCO 101-point,
// trapezoid), ROC AUC (binary, partial/McClish, multilabel, multiclass OvR and OvO), mean AP,
// the DeLong paired test and PR-curve dominance.
//
// Data layout (stated once for the whole header):
// - y_true for a binary problem: one byte per sample, 1 = positive, 0 = negative.
// - Matrices (multilabel indicators, score matrices) are row-major n x k: sample i, column j is
//   `data[i * k + j]`.
// - Multiclass labels are codes 0..k-1 (column j of the score matrix belongs to class j).
// - sample_weight: empty span = every weight 1. Zero-weight samples are dropped; a negative
//   weight is an assay::Error.
// - Scores: higher = more positive; NaN or +-inf is an assay::Error naming the index.
//
// Shared scan, pluggable rule (like xgboost src/metric/auc.cc): scores are sorted once,
// descending, with a stable sort; every run of equal scores is one tie block = one operating
// point (rule: positive if score >= threshold) carrying cumulative tp and fp. Every curve, AP
// convention and AUC below is a rule applied to that one scan. Counts are exact int64 when
// unweighted and Neumaier-compensated double sums when weighted.
//
// Time and memory: O(n) (a radix sort); how the sort works and the bytes per sample it needs
// are in docs/performance.md ("How", "Ranking metrics").
//
// Example:
//   std::vector<std::uint8_t> y = {0, 0, 1, 1};
//   std::vector<double> s = {0.1, 0.4, 0.35, 0.8};
//   roc_auc(y, s);                                        // 0.75
//   average_precision(y, s);                              // 0.83333 (scikit-learn's step AP)
//   average_precision(y, s, {}, {.method = ApMethod::voc07});   // 0.84848 (11-point)
//   RocCurve roc = roc_curve(y, s);   // fpr {0, 0, .5, .5, 1}, tpr {0, .5, .5, 1, 1},
//                                     // thresholds {inf, 0.8, 0.4, 0.35, 0.1}
//
// Degenerate statistics give NaN plus assay::warn (docs/architecture.md): ROC AUC with one class
// present (scikit-learn raises), ROC fpr/tpr without negatives/positives. Average precision
// with no positives follows scikit-learn 1.2.1: recall is set to 1, AP is 0, with a warning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace assay::metrics {

/// Average-precision conventions (docs/metrics_ranking.md "Average precision conventions").
enum class ApMethod {
  step,          ///< scikit-learn: sum over tie blocks of (R_n - R_{n-1}) P_n
  voc07,         ///< PASCAL VOC 2007 11-point: mean over t in {0,.1,..,1} of max{P(r): r >= t}
  voc_allpoint,  ///< VOC 2010+: exact area under the interpolated curve max_{r' >= r} P(r')
  coco101,       ///< COCO: mean over t in {0,.01,..,1} of interpolated P at first recall >= t
  trapezoid,     ///< trapezoid area under the raw curve incl. (R=0, P=1) (optimistic)
};

/// Recall grid used by voc07 / coco101.
enum class ApGrid {
  exact,  ///< k/10 and k/100 (correctly rounded doubles)
  numpy,  ///< numpy's float grids: np.arange(0, 1.1, 0.1) and np.linspace(0, 1, 101)
};

/// How tied scores become operating points.
enum class TieMode {
  group,       ///< one point per run of equal scores (scikit-learn)
  sequential,  ///< one point per sample in stable descending order (VOC/COCO detection style)
};

/// Averaging of a binary score over the columns of an indicator matrix (scikit-learn names).
enum class ScoreAverage { none, micro, macro, weighted, samples };

/// Multiclass ROC AUC scheme.
enum class MultiClass { raise, ovr, ovo };

ApMethod parse_ap_method(std::string_view name);          ///< "step", "voc07", ... else Error
ApGrid parse_ap_grid(std::string_view name);              ///< "exact" | "numpy"
TieMode parse_tie_mode(std::string_view name);            ///< "group" | "sequential"
ScoreAverage parse_score_average(std::string_view name);  ///< "none"|"micro"|"macro"|...
MultiClass parse_multi_class(std::string_view name);      ///< "raise" | "ovr" | "ovo"
std::string_view to_string(ApMethod method);

/// Options of average precision.
struct ApParams {
  ApMethod method = ApMethod::step;   ///< AP convention; default scikit-learn's step sum
  ApGrid grid = ApGrid::exact;        ///< grid for voc07 / coco101; default exact k/10, k/100
  TieMode tie_mode = TieMode::group;  ///< default: one point per tie block
  std::optional<double> n_pos;        ///< recall denominator; default: (weighted) positives
};

/// Operating points in descending-threshold order (point k: predict positive iff
/// score >= threshold[k]); tp/fp are cumulative (weighted) counts.
struct OperatingPoints {
  std::vector<double> threshold;
  std::vector<double> tp;
  std::vector<double> fp;
  double total_pos = 0;  ///< tp of the last point
  double total_neg = 0;  ///< fp of the last point
  /// Weights near 1e308 or 1e-310 are summed rescaled (assay/metrics/scaled_weights.hpp): tp,
  /// fp and the totals are the true sums times 2^scale_exponent (their ratios are unchanged).
  int scale_exponent = 0;
};

/// scikit-learn's precision_recall_curve output (increasing thresholds, then P=1, R=0).
struct PrCurve {
  std::vector<double> precision;
  std::vector<double> recall;
  std::vector<double> thresholds;  ///< one shorter than precision/recall
};

/// roc_curve output; thresholds[0] = +inf (scikit-learn >= 1.3; 1.2.1 uses max(score) + 1).
struct RocCurve {
  std::vector<double> fpr;
  std::vector<double> tpr;
  std::vector<double> thresholds;
};

// ---------------------------------------------------------------------------------------------
// RankedScores: the sorted structure, built once, re-weighted many times (bootstrap).
//
//   RankedScores ranked(y_true, y_score);           // sorts once: O(n) radix sort
//   double auc = ranked.roc_auc();                  // all weights 1
//   std::vector<double> counts(n);                  // a bootstrap resample as counts per sample,
//   for (...) counts[rng.below(n)] += 1;            // in ORIGINAL sample order
//   double auc_b = ranked.roc_auc(counts);          // O(n) rescan, no re-sort
//   double ap_b = ranked.average_precision(counts, {.method = ApMethod::voc07});
//
// Requires: y_true.size() == y_score.size() > 0, y_true[i] in {0, 1}, finite scores
//   (else assay::Error). Weights passed to methods: empty (= all 1) or size() non-negative
//   values in original sample order (else assay::Error).
// Ensures: results equal the free functions below called with the same weights (to rounding,
//   ~1e-15 relative); the object is immutable after construction, so methods may be called
//   concurrently. Each call is O(n) (a gather of the weights in sorted order plus one scan).
// ---------------------------------------------------------------------------------------------
class RankedScores {
 public:
  RankedScores(std::span<const std::uint8_t> y_true, std::span<const double> y_score);

  std::size_t size() const { return order_.size(); }
  /// order()[k] = original index of the k-th highest score (stable: ties keep input order).
  std::span<const std::uint32_t> order() const { return order_; }

  /// Operating points under the given weights (empty = 1) and tie mode.
  /// Ensures: one point per tie block with positive total weight (or per positive-weight
  /// sample for sequential), thresholds strictly decreasing in group mode.
  OperatingPoints operating_points(std::span<const double> weights = {},
                                   TieMode tie_mode = TieMode::group) const;
  /// ROC AUC (NaN + warning when one class has zero weight); max_fpr in (0, 1] or nullopt.
  double roc_auc(std::span<const double> weights = {},
                 std::optional<double> max_fpr = std::nullopt) const;
  /// Average precision under `params`.
  double average_precision(std::span<const double> weights = {}, const ApParams& params = {}) const;

  /// ROC AUC with DeLong et al. (1988)'s variance, from the structural components V10 (each
  /// positive's share of negatives scored below it, ties half) and V01 (each negative's share of
  /// positives above it): var = sum w_i^2 (V10_i - auc)^2 / (W+^2 - sum w_i^2) over positives,
  /// plus the same over negatives — DeLong's S10/m + S01/n when every weight is 1, and
  /// unchanged by rescaling the weights. NaN (no warning) unless each class has two samples of
  /// positive weight.
  struct AucVariance {
    double auc = 0;
    double variance = 0;
  };
  AucVariance roc_auc_variance(std::span<const double> weights = {}) const;

 private:
  /// fn(dpos, dneg) per tie block with positive weight, in descending score order.
  template <typename Fn>
  void scan_blocks(std::span<const double> weights, Fn&& fn) const;

  std::vector<double> score_;             // sorted descending
  std::vector<std::uint8_t> label_;       // in sorted order
  std::vector<std::uint32_t> order_;      // sorted position -> original index
  std::vector<std::uint32_t> block_end_;  // end (exclusive) of each tie block, sorted positions
};

// ---------------------------------------------------------------------------------------------
// Binary free functions.
// ---------------------------------------------------------------------------------------------

/// Tie-block operating points (the shared scan).
OperatingPoints operating_points(std::span<const std::uint8_t> y_true,
                                 std::span<const double> y_score,
                                 std::span<const double> sample_weight = {},
                                 TieMode tie_mode = TieMode::group);

/// scikit-learn precision_recall_curve; drop_intermediate keeps the first and last point of
/// each run of equal tp (scikit-learn >= 1.3 rule). No positives: recall = 1 + warning.
PrCurve precision_recall_curve(std::span<const std::uint8_t> y_true,
                               std::span<const double> y_score,
                               std::span<const double> sample_weight = {},
                               bool drop_intermediate = false);

/// scikit-learn roc_curve with thresholds[0] = +inf; drop_intermediate removes points whose
/// second differences of fp and tp are both zero (scikit-learn's collinearity rule).
RocCurve roc_curve(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                   std::span<const double> sample_weight = {}, bool drop_intermediate = true);

/// Binary average precision.
double average_precision(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                         std::span<const double> sample_weight = {}, const ApParams& params = {});

/// AP of given operating points under `params` (the pluggable rule; tie_mode is ignored here).
double average_precision(const OperatingPoints& points, const ApParams& params);

/// Binary ROC AUC = P(s+ > s-) + P(s+ = s-)/2; max_fpr in (0, 1): McClish-standardised
/// partial AUC exactly as scikit-learn. One class present: NaN + warning.
double roc_auc(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
               std::span<const double> sample_weight = {},
               std::optional<double> max_fpr = std::nullopt);

/// scikit-learn's det_curve: false positive and false negative rates in decreasing-fpr order,
/// from the last tie block with the lowest fp to the first with all positives found.
/// Requires both classes with positive weight (else assay::Error).
struct DetCurve {
  std::vector<double> fpr;
  std::vector<double> fnr;
  std::vector<double> thresholds;
};
DetCurve det_curve(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                   std::span<const double> sample_weight = {});

/// Trapezoid area under the points (x[i], y[i]) (scikit-learn's auc), positive when x is
/// non-increasing; nullopt when x is neither non-decreasing nor non-increasing. Needs >= 2
/// points of equal-length x and y (else assay::Error).
std::optional<double> trapezoid_area(std::span<const double> x, std::span<const double> y);

/// Textbook eq. 172: out[i] = max{precision[j] : recall[j] >= recall[i]}; any order.
std::vector<double> interpolated_precision(std::span<const double> precision,
                                           std::span<const double> recall);

// ---------------------------------------------------------------------------------------------
// Multilabel / multiclass (scikit-learn _average_binary_score semantics).
// Result: one value per column for ScoreAverage::none, else a single value.
// ---------------------------------------------------------------------------------------------

/// AP per column of an n x k indicator matrix, averaged (micro ravels the matrices).
std::vector<double> average_precision_multilabel(std::span<const std::uint8_t> y_true,
                                                 std::span<const double> y_score,
                                                 std::size_t n_columns,
                                                 std::span<const double> sample_weight,
                                                 ScoreAverage average, const ApParams& params = {});

/// ROC AUC per column of an n x k indicator matrix, averaged.
std::vector<double> roc_auc_multilabel(std::span<const std::uint8_t> y_true,
                                       std::span<const double> y_score, std::size_t n_columns,
                                       std::span<const double> sample_weight, ScoreAverage average,
                                       std::optional<double> max_fpr = std::nullopt);

/// Multiclass ROC AUC: codes 0..k-1, n x k probability matrix (rows must sum to 1 within
/// numpy.allclose tolerance). ovr: macro, weighted, micro, none; ovo (Hand & Till): macro,
/// weighted (by pair prevalence), no sample weights — as scikit-learn 1.2.1.
std::vector<double> roc_auc_multiclass(std::span<const std::int32_t> y_true,
                                       std::span<const double> y_score, std::size_t n_classes,
                                       std::span<const double> sample_weight, ScoreAverage average,
                                       MultiClass multi_class);

/// Mean average precision: one-vs-rest AP of each column of an n x k indicator matrix; columns
/// without positive weight are excluded from the mean and listed in `excluded`.
struct MeanApResult {
  double map = 0;                     ///< mean over included classes (NaN + warning if none)
  std::vector<double> per_class;      ///< size k; NaN for excluded classes
  std::vector<std::size_t> excluded;  ///< column indices with no positives
};
MeanApResult mean_average_precision(std::span<const std::uint8_t> y_true,
                                    std::span<const double> y_score, std::size_t n_classes,
                                    std::span<const double> sample_weight = {},
                                    const ApParams& params = {});

// ---------------------------------------------------------------------------------------------
// Comparing two scorers on the same samples.
// ---------------------------------------------------------------------------------------------

/// DeLong et al. (1988) paired test of two correlated ROC AUCs, fast O(n log n) algorithm of
/// Sun & Xu (2014) with midranks. covariance is the 2x2 covariance of (auc_a, auc_b); z =
/// (auc_a - auc_b) / sqrt(var_a + var_b - 2 cov); p_value two-sided normal. Needs >= 2
/// positives and >= 2 negatives, else NaN + warning; zero variance of the difference gives
/// z = p = NaN + warning.
struct DelongResult {
  double auc_a = 0;
  double auc_b = 0;
  double covariance[2][2] = {{0, 0}, {0, 0}};
  double z = 0;
  double p_value = 0;
};
DelongResult delong_roc_test(std::span<const std::uint8_t> y_true, std::span<const double> score_a,
                             std::span<const double> score_b);

/// PR-curve dominance (textbook Figure 45). Each curve is its interpolated precision
/// f(r) = max{P_k : R_k >= r} (0 if no point reaches r), a left-continuous step function on
/// (0, 1]. Both are compared on every interval (u_{i-1}, u_i] of the union of their recall
/// breakpoints (u_0 = 0, last = 1); values within 1e-12 relative count as equal.
/// dominant: "a" (f_a >= f_b everywhere, > somewhere), "b", "equal", or "" (they cross).
/// crossings: left ends u_{i-1} of the intervals where the strictly better curve switches.
struct PrComparison {
  std::string dominant;
  std::vector<double> crossings;
  double ap_a = 0;
  double ap_b = 0;
};
PrComparison compare_pr_curves(std::span<const std::uint8_t> y_true,
                               std::span<const double> score_a, std::span<const double> score_b,
                               const ApParams& params = {});

}  // namespace assay::metrics
