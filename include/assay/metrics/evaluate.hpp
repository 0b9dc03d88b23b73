// One evaluation of a classifier's predictions: the single entry point behind `assay metrics`
// (CLI) and `assay.metrics.evaluate` (Python); the report layer renders its result as a table,
// JSON or an HTML page.
//
// Input layout: n samples; y_true[i] is a class code 0..K-1 into `classes` (sorted as
// scikit-learn sorts labels); scores are row-major n x S with S = 0 (hard predictions only),
// S = 1 (binary: the score of the positive class, higher = more positive) or S = K (column k is
// the score of class k); y_pred (codes) is optional when scores are given; weights empty = 1.
//
// What is computed (NaN + warning where undefined; see docs/metrics.md; equation numbers are
// those of the textbook section "Evaluation Metrics", docs/sources.md):
// - binary (K = 2): predictions score >= threshold (eq. 170) unless y_pred is given; confusion
//   matrix, binary rates, P/R/F1, MCC, balanced accuracy, ROC AUC, AP (params.ap), Brier score,
//   log loss and ECE when the scores are probabilities in [0, 1]; PR (raw and interpolated) and
//   ROC curves; the reliability table. Two score columns must be per-class probabilities (rows
//   summing to 1): two models' scores of the positive class are refused, not guessed at.
// - multi-class: predictions argmax (first maximum) or one_vs_all is not a single label, so
//   argmax is used for the confusion matrix; micro/macro/weighted accuracy (eqs. 162-164),
//   per-class and macro/weighted P/R/F1, MCC; with scores: one-vs-rest ROC AUC and AP per
//   class, macro ROC AUC, mAP, top-label ECE and log loss when rows are probabilities.
// - bootstrap (params.bootstrap.n_resamples > 0): percentile intervals for every headline value,
//   all from the same resamples (resample i depends only on the seed and i).
// - scores ranking a class below chance beyond doubt (auc_below_chance) give a warning, a note
//   and Evaluation::inverted_classes: the scores may be negated or the classes swapped.
//
// Example:
//   // predictions.csv: y,p with y = 0, 0, 1, 1 and p = 0.1, 0.4, 0.35, 0.8
//   Table t = read_csv("predictions.csv");
//   EvaluationInput in = evaluation_input(t, {.label = "y", .scores = {"p"}});
//   Evaluation ev = evaluate(std::move(in), EvaluateParams{});
//   // ev.positive_class "1", ev.prediction_rule "score >= 0.5", ev.confusion {2, 0, 1, 1};
//   // ev.summary holds accuracy 0.75, ROC AUC 0.75, AP 0.83333, ... (report/evaluation.hpp
//   // renders it as text, JSON or HTML)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assay/core/table.hpp"
#include "assay/metrics/calibration.hpp"
#include "assay/metrics/ranking.hpp"
#include "assay/metrics/uncertainty.hpp"

namespace assay::metrics {

struct EvaluateParams {
  /// Binary decision threshold: positive when score >= threshold (textbook eq. 170). Default 0.5.
  double threshold = 0.5;
  /// Binary: name of the positive class. Default "" = the greater of the two sorted labels
  /// (scikit-learn's convention for {0, 1} and {-1, 1}).
  std::string pos_label;
  /// Average-precision convention for AP and mAP. Default scikit-learn's step rule.
  ApParams ap;
  /// Reliability diagram / ECE binning. Default 15 uniform bins, l1 (ECE).
  CalibrationParams calibration;
  /// Bootstrap intervals; n_resamples = 0 (the default) computes none. Its confidence must be
  /// in (0, 1) even then.
  BootstrapParams bootstrap{.n_resamples = 0};
  /// Most classes evaluated (their confusion matrix and per-class tables grow as classes^2):
  /// more are refused with the memory they would need. Default 1000; 0 = no limit.
  std::size_t max_classes = 1000;
};

struct EvaluationInput {
  /// Class names, index = code.
  std::vector<std::string> classes;
  /// True class codes, one per sample.
  std::vector<std::int32_t> y_true;
  /// Row-major n x n_score_columns scores (see the layout above).
  std::vector<double> scores;
  std::size_t n_score_columns = 0;
  /// Predicted class codes; empty = derived from the scores.
  std::vector<std::int32_t> y_pred;
  /// Per-sample weights; empty = all 1.
  std::vector<double> weights;
  /// Names of the score columns, for messages (may be empty).
  std::vector<std::string> score_names;
};

/// Which columns of a table play which role (the CLI's --label/--score/--pred/--weight).
struct EvaluateColumns {
  std::string label;
  std::vector<std::string> scores;
  std::string pred;
  std::string weight;
};

/// Builds the input from a table: the classes are the sorted union of the label (and prediction)
/// values — numerically when both columns are numeric, else as strings. Throws assay::Error
/// naming the file for a missing column, a categorical score column, a prediction not among the
/// labels' classes, a score column count that is neither 1 nor the number of classes, or numeric
/// labels or predictions that are not whole numbers (scikit-learn's "continuous" targets: a
/// regression target is not read as one class per distinct value).
EvaluationInput evaluation_input(const Table& table, const EvaluateColumns& columns);

/// A headline value with its bootstrap interval (NaN bounds when no bootstrap was asked for).
struct Estimate {
  std::string name;
  double value = 0;
  double low = 0;
  double high = 0;
};

struct ClassSummary {
  std::string name;
  double precision = 0;
  double recall = 0;
  double f1 = 0;
  double support = 0;
  /// One-vs-rest ROC AUC and AP of this class's score column (NaN without scores).
  double roc_auc = 0;
  double average_precision = 0;
};

/// A curve to draw: PR (x = recall, y = precision, y_interpolated = textbook eq. 172) or ROC (x =
/// fpr, y = tpr). `area` is AP (params.ap) or ROC AUC.
struct CurveSeries {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
  std::vector<double> y_interpolated;
  double area = 0;
};

struct Evaluation {
  std::size_t n_samples = 0;
  double total_weight = 0;
  bool weighted = false;
  std::vector<std::string> classes;
  bool binary = false;
  /// Binary: the positive class.
  std::string positive_class;
  /// How the predicted labels were obtained, e.g. "score >= 0.5", "argmax of scores", "column".
  std::string prediction_rule;
  /// K x K confusion matrix, row = true class, column = predicted class.
  std::vector<double> confusion;
  std::vector<ClassSummary> per_class;
  /// Headline values in display order.
  std::vector<Estimate> summary;
  std::vector<CurveSeries> pr_curves;
  std::vector<CurveSeries> roc_curves;
  /// Reliability table (binary: positive-class probability; multi-class: top label).
  std::optional<CalibrationResult> calibration;
  EvaluateParams params;
  /// Things the reader should know (e.g. "scores are not probabilities: no calibration").
  std::vector<std::string> notes;
  /// Classes whose scores rank them below chance beyond doubt (auc_below_chance): binary, the
  /// positive class; multi-class, each class whose one-vs-rest AUC is. Each also gives a note
  /// and a warning that the scores may be inverted.
  std::vector<std::string> inverted_classes;
};

/// The rule behind the "scores may be inverted" warning: a ROC AUC whose two-sided 95% DeLong
/// interval lies below 0.5, i.e. auc + z * sqrt(variance) < 0.5 with z = 1.959964 (a one-sided
/// test of AUC >= 0.5 at the 2.5% level; RankedScores::roc_auc_variance, weights included).
/// Chance-level scores (AUC near 0.5) and small samples do not trigger it; AUC = 0 on two
/// samples per class does.
inline constexpr double kInvertedAucZ = 1.959963984540054;
bool auc_below_chance(double auc, double variance);

/// Evaluates the predictions (the input is taken by value: move it in to avoid a copy). Throws
/// assay::Error on inconsistent input (lengths, codes out of range, NaN scores, negative weights,
/// fewer than 2 classes in `classes`).
Evaluation evaluate(EvaluationInput input, const EvaluateParams& params);

/// The positive class given as an option (--pos-label, pos_label = "..."): any text but the
/// empty one, which names no class: assay::Error "NAME: expected a class label, found an empty
/// string" (the one wording of the CLI, the Python functions and the report configuration; no
/// "NAME: " when `name` is empty).
void check_pos_label(std::string_view name, std::string_view label);

}  // namespace assay::metrics
