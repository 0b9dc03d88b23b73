// Label-based classification metrics: P/R/F, accuracy, balanced accuracy, MCC, binary rates,
// threshold rules. scikit-learn 1.2.1 semantics unless a comment says otherwise.
//
// Layout: labels are codes 0..K-1 (labels.hpp); a code outside [0, K) is "not listed" and is
// dropped where scikit-learn drops it. Multilabel indicators are row-major n x L bytes (0/1):
// y[i*L + l]. Scores are row-major n x K doubles. Weights: empty = all 1, else finite >= 0.
// Counts are sums of weights (doubles; exact integers when unweighted).
// Zero division: a ratio x/0 takes the `zero_division` value (warn = 0 plus an assay::warn with
// scikit-learn's text; nan = NaN, excluded from averages). F-beta uses the scikit-learn >= 1.4
// rule F = (1+b^2) tp / ((1+b^2) tp + b^2 fn + fp), zero_division only when tp + fp + fn = 0.
// Degenerate statistics (MCC with one class, adjusted balanced accuracy with one class) are NaN
// plus a warning.
//
// Example:
//   std::vector<std::int32_t> t = {0, 0, 1, 1, 2, 2}, p = {0, 1, 1, 1, 2, 0};
//   LabelCounts c = label_counts(t, p, 3);   // tp {1, 2, 1}, pred {2, 3, 1}, truth {2, 2, 2}
//   PrfResult f = precision_recall_fscore(c, {});   // per class: precision {0.5, 2/3, 1},
//                                                   // recall {0.5, 1, 0.5}, F1 {0.5, 0.8, 2/3}
//   precision_recall_fscore(c, {.average = Average::macro}).fscore[0];   // 0.65556
//   accuracy_score(t, p, 3);      // 4 / 6 = 0.66667
//   matthews_corrcoef(t, p, 3);   // 0.52223 (scikit-learn's value)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace assay::metrics {

enum class Average { none, binary, micro, macro, weighted, samples };
enum class ZeroDivision { warn, zero, one, nan };

/// Parses "none"/"binary"/"micro"/"macro"/"weighted"/"samples".
Average parse_average(const std::string& name);
/// Parses "warn"/"0"/"1"/"nan".
ZeroDivision parse_zero_division(const std::string& name);

/// Per-label (or, for average=samples, per-sample) sufficient statistics, weighted counts.
/// Weights near 1e308 or 1e-310 are summed rescaled by 2^scale_exponent (exactly), so that the
/// counts stay finite and keep their digits; the ratios are those of the true counts, and
/// `unscaled(x)` gives a count in the weights' own units (inf where the true sum overflows).
struct LabelCounts {
  std::vector<double> tp;     ///< true positives
  std::vector<double> pred;   ///< predicted positives (tp + fp)
  std::vector<double> truth;  ///< actual positives (tp + fn) = support
  int scale_exponent = 0;     ///< the counts are the true sums times 2^scale_exponent
  double unscaled(double count) const;
};

/// Per-class counts of multi-class codes (one pass). Codes outside [0, K) count nowhere.
LabelCounts label_counts(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                         std::int32_t n_classes, std::span<const double> weights = {});

/// Per-class counts from a K x K confusion matrix (confusion.hpp): tp = diagonal, pred = column
/// sums, truth = row sums.
LabelCounts label_counts_from_confusion(std::span<const double> matrix, std::size_t n_classes);

/// Counts of multilabel indicators (n x L). samplewise: one entry per sample instead of per label.
LabelCounts multilabel_counts(std::span<const std::uint8_t> y_true,
                              std::span<const std::uint8_t> y_pred, std::size_t n_labels,
                              std::span<const double> weights = {}, bool samplewise = false);

/// Keeps the entries `index` (in that order) of every count vector.
LabelCounts select_counts(const LabelCounts& counts, std::span<const std::int32_t> index);

struct PrfParams {
  /// Weight of recall in F-beta (>= 0; +inf gives recall). Default 1 (F1).
  double beta = 1.0;
  /// none = per label; micro sums counts first; macro/weighted/samples average the ratios
  /// (weighted by support / by sample weight). binary = the single label given.
  Average average = Average::none;
  /// Value of x/0. Default warn (= 0 plus a warning).
  ZeroDivision zero_division = ZeroDivision::warn;
  /// Which ill-defined ratios warn (scikit-learn's warn_for). Default all three.
  bool warn_precision = true;
  bool warn_recall = true;
  bool warn_fscore = true;
};

/// Per label: vectors of length L; averaged: length 1 each and `support` empty.
struct PrfResult {
  std::vector<double> precision;
  std::vector<double> recall;
  std::vector<double> fscore;
  std::vector<double> support;
};

/// P/R/F from counts. For average=samples the counts are per sample and `sample_weight` weights
/// them. average=weighted with zero total support follows scikit-learn 1.2.1: (zd, zd, zd) when
/// nothing is predicted either, else (0, zd, 0), zd = the zero_division value.
PrfResult precision_recall_fscore(const LabelCounts& counts, const PrfParams& params,
                                  std::span<const double> sample_weight = {});

enum class AccuracyAverage { micro, macro, weighted };

struct AccuracyParams {
  /// micro = fraction correct (textbook eq. 162); macro = mean per-class recall over classes
  /// present in y_true (textbook eq. 163); weighted = (1/W) sum w_i [correct] with w_i = sample
  /// weight x class_weight[y_true_i] (textbook eq. 164). Default micro.
  AccuracyAverage average = AccuracyAverage::micro;
  /// false: the (weighted) number correct instead of the fraction (micro/weighted only).
  bool normalize = true;
};

/// Accuracy of multi-class codes. class_weight: empty or one weight per class (>= 0).
double accuracy_score(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                      std::int32_t n_classes, const AccuracyParams& params = {},
                      std::span<const double> weights = {},
                      std::span<const double> class_weight = {});

/// Weighted count of samples whose raw labels are equal, and the total weight, in one pass over
/// two label arrays (no encoding): accuracy = matched / total, Hamming loss = 1 - that.
/// Instantiated for std::int64_t and double (NaN never matches).
struct LabelAgreement {
  double matched = 0;
  double total = 0;
  /// matched / total and (total - matched) / total, computed from rescaled weights (so finite
  /// for weights near 1e308 whose sums overflow); NaN when total is 0.
  double fraction = 0;
  double mismatch_fraction = 0;
};
template <typename T>
LabelAgreement label_agreement(std::span<const T> y_true, std::span<const T> y_pred,
                               std::span<const double> weights = {});

/// Subset accuracy of multilabel indicators (a row is correct when all L entries match).
double multilabel_accuracy(std::span<const std::uint8_t> y_true,
                           std::span<const std::uint8_t> y_pred, std::size_t n_labels,
                           bool normalize = true, std::span<const double> weights = {});

/// Mean recall over classes present in y_true; classes only predicted warn and are excluded.
/// adjusted: (score - 1/K) / (1 - 1/K), NaN + warning when K = 1.
double balanced_accuracy_score(std::span<const std::int32_t> y_true,
                               std::span<const std::int32_t> y_pred, std::int32_t n_classes,
                               std::span<const double> weights = {}, bool adjusted = false);

/// Multi-class MCC (Gorodkin); NaN + warning where scikit-learn returns 0 (one class in y_true
/// or in y_pred).
double matthews_corrcoef(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                         std::int32_t n_classes, std::span<const double> weights = {});

/// Per-label 2x2 confusion matrices from counts (scikit-learn's multilabel_confusion_matrix):
/// out[4j..4j+3] = tn, fp, fn, tp of label j, where total[j] is the weight of all samples for
/// that label (one value for all labels, or one per label).
std::vector<double> multilabel_confusion_matrix(const LabelCounts& counts,
                                                std::span<const double> total);

/// Sample-wise 2x2 matrices of multilabel indicators (n x L): per sample i the counts over its
/// labels, each times the sample weight; tn = w_i L - tp - fp - fn (scikit-learn's samplewise).
std::vector<double> samplewise_confusion_matrix(std::span<const std::uint8_t> y_true,
                                                std::span<const std::uint8_t> y_pred,
                                                std::size_t n_labels,
                                                std::span<const double> weights = {});

/// Jaccard index tp / (tp + fp + fn) per label; x/0 takes zero_division (warn = 0 plus
/// scikit-learn's "Jaccard is ill-defined" warning). average as precision_recall_fscore, except
/// that weighted averaging with zero total support is the plain mean (scikit-learn 1.2.1).
/// Returns one value per label (Average::none) or one value.
std::vector<double> jaccard_score(const LabelCounts& counts, Average average,
                                  ZeroDivision zero_division,
                                  std::span<const double> sample_weight = {});

/// Hamming loss of multilabel indicators: weighted fraction of wrong (sample, label) entries.
double hamming_loss(std::span<const std::uint8_t> y_true, std::span<const std::uint8_t> y_pred,
                    std::size_t n_labels, std::span<const double> weights = {});

/// Weighted fraction of samples whose codes differ (Hamming loss of multi-class labels).
double mismatch_rate(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                     std::span<const double> weights = {});

enum class KappaWeights { none, linear, quadratic };
/// Parses "none" / "linear" / "quadratic" (else scikit-learn's "Unknown kappa weighting type.").
KappaWeights parse_kappa_weights(const std::string& name);

/// Cohen's kappa of a K x K confusion matrix (row-major): 1 - sum(W C) / sum(W E), with E the
/// outer product of the marginals over the total and W the disagreement weights.
double cohen_kappa(std::span<const double> confusion, std::size_t n_classes,
                   KappaWeights weights = KappaWeights::none);

/// Positive and negative likelihood ratios of a binary confusion matrix (2x2 row-major, class 1
/// positive; a 1x1 matrix = one class seen): LR+ = (tp / (tp + fn)) / (fp / (fp + tn)),
/// LR- = (fn / (tp + fn)) / (tn / (fp + tn)). Undefined ratios are NaN with scikit-learn's
/// warnings (when `warn_undefined`).
struct LikelihoodRatios {
  double positive = 0;
  double negative = 0;
};
LikelihoodRatios class_likelihood_ratios(std::span<const double> confusion,
                                         bool warn_undefined = true);

/// Binary hinge loss: mean of max(0, 1 - y f) with y = +1 for `positive` codes, -1 otherwise.
double hinge_loss_binary(std::span<const std::int32_t> y_true, std::int32_t positive,
                         std::span<const double> decision, std::span<const double> weights = {});
/// Crammer-Singer multi-class hinge loss: mean of max(0, 1 - f_y + max_{k != y} f_k) over an
/// n x K decision matrix; codes index its columns.
double hinge_loss_multiclass(std::span<const std::int32_t> y_true, std::span<const double> decision,
                             std::size_t n_classes, std::span<const double> weights = {});

/// Top-k accuracy over an n x K score matrix: a sample is a hit when its class is among the k
/// columns ranked first by score descending, ties broken towards the higher column index
/// (scikit-learn's reversed stable argsort). normalize=false gives the weighted hit count.
double top_k_accuracy(std::span<const std::int32_t> y_true, std::span<const double> scores,
                      std::size_t n_classes, std::size_t k, bool normalize = true,
                      std::span<const double> weights = {});
/// Binary top-1 accuracy from one score column: predicted class 1 when score > threshold.
double top_1_accuracy_binary(std::span<const std::int32_t> y_true, std::span<const double> scores,
                             double threshold, bool normalize = true,
                             std::span<const double> weights = {});

/// Binary operating point for the class `positive` (a code) against all others.
struct BinaryRates {
  double tp = 0, fp = 0, tn = 0, fn = 0;
  double recall, precision, specificity, fpr, fnr, fdr, npv, accuracy, f1, mcc;
};

/// Undefined ratios (x/0) are NaN with one warning naming them.
BinaryRates binary_rates(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                         std::int32_t positive, std::span<const double> weights = {});

/// Binary threshold rule (textbook eq. 170): out[i] = score[i] >= threshold. NaN scores throw.
std::vector<std::uint8_t> threshold_scores(std::span<const double> scores, double threshold);

/// Argmax rule: index of the first maximum of each row of an n x K score matrix.
std::vector<std::int32_t> argmax_rows(std::span<const double> scores, std::size_t n_classes);

/// One-vs-all rule (textbook eq. 171): n x K indicator, out[i*K+k] = scores[i*K+k] >= threshold.
std::vector<std::uint8_t> one_vs_all(std::span<const double> scores, std::size_t n_classes,
                                     double threshold);

}  // namespace assay::metrics
