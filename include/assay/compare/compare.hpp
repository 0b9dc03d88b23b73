// Comparing models scored on the same examples: which is better, by how much, with what
// certainty, on which slices — the single entry point behind `assay compare` (CLI),
// `assay.compare.compare` (Python) and the report's [compare] section.
//
// Data layout: n examples in the caller's order. y_true is class codes 0..K-1 into `classes`
// (classification) or the targets (regression: `targets`). Each model has its scores: binary,
// one column (the positive class's score, higher = more positive); multi-class, K columns
// row-major n x K (per-class scores, argmax = the prediction) or one column of predicted class
// codes (`predictions`); regression, one column of predictions. weights: empty = all 1. Slices:
// one code per example per slicing column (`slices[c].codes[i]` into `slices[c].values`).
//
// What is computed (docs/compare.md tells how to read each number):
// - every requested metric of every model, with a paired bootstrap interval: resample r draws
//   the same multinomial counts for every model, every metric and every slice (it depends only
//   on the seed and r, so the output is the same at any thread count);
// - for each pair (every model against the baseline, or every pair): the difference
//   (model - baseline), its percentile and BCa intervals, a two-sided p-value from the test
//   `CompareParams::test` names (DeLong for ROC AUC and exact McNemar for accuracy by default,
//   else the paired bootstrap or the paired permutation test), Holm-adjusted over every test of
//   the run (`correction`);
// - per slice: the same values restricted to the slice, its support, the worst slice of each
//   model and metric and its gap to the whole (the same resamples, so the gap has an interval);
// - operating-point metrics ("recall@precision>=0.9") choose each model's threshold on the data
//   and again inside every resample (the honest interval);
// - gates (gates.hpp) evaluated on the result.
//
// Example:
//   CompareInput in;
//   in.task = Task::binary;  in.classes = {"0", "1"};  in.y_true = {0, 0, 1, 1, 0, 1};
//   in.models = {{.name = "a", .scores = {.1, .4, .35, .8, .2, .7}, .n_columns = 1},
//                {.name = "b", .scores = {.2, .3, .6, .9, .1, .8}, .n_columns = 1}};
//   CompareParams p;  p.metrics = {"roc_auc", "f1"};  p.bootstrap.n_resamples = 200;
//   CompareResult r = compare(std::move(in), p);
//   // r.models[1].metrics[0].value == 1 (b's ROC AUC), r.differences[0].difference == 1 - 8/9.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assay/core/table.hpp"
#include "assay/metrics/ranking.hpp"
#include "assay/metrics/uncertainty.hpp"

namespace assay::compare {

enum class Task { automatic, binary, multiclass, regression };
/// "auto" | "binary" | "multiclass" | "regression". Each parse_* here refuses another word with
/// one message, "WHAT: expected ..., found "NAME"", whose WHAT each entry point spells its way
/// (--test, test, [compare] test); an empty `what` leaves "WHAT: " out.
Task parse_task(const std::string& name, std::string_view what = "task");
std::string to_string(Task task);

/// Which p-value a difference gets.
enum class TestKind {
  automatic,    ///< DeLong for roc_auc, exact McNemar for accuracy (whole-number weights), else
                ///< the paired bootstrap
  bootstrap,    ///< paired bootstrap: the percentile interval's inversion (docs/compare.md)
  permutation,  ///< paired permutation: each example's two scores swapped with probability 1/2
};
/// "auto" | "bootstrap" | "permutation"
TestKind parse_test(const std::string& name, std::string_view what = "test");

/// "baseline" (each model against the baseline: false) or "all" (every pair: true).
bool parse_pairs(const std::string& name, std::string_view what = "pairs");

/// Multiple-comparison correction over every p-value of a run.
enum class Correction { holm, bonferroni, fdr_bh, none };
/// "holm", "bonferroni", "fdr_bh", "none"
Correction parse_correction(const std::string& name, std::string_view what = "correction");
std::string to_string(Correction correction);

/// One model's predictions (see the layout above).
struct ModelScores {
  std::string name;
  /// Row-major n x n_columns scores or predictions.
  std::vector<double> scores;
  std::size_t n_columns = 1;
  /// Multi-class: the column holds predicted class codes (not scores).
  bool predictions = false;
};

/// One slicing column: a code per example into `values` (the slice names, e.g. "region=S", or
/// "age in [30, 45)" for a bin).
struct SliceColumn {
  std::string name;
  std::vector<std::string> values;
  std::vector<std::int32_t> codes;
};

struct CompareInput {
  Task task = Task::automatic;
  std::vector<std::string> classes;  ///< classification: class names, index = code
  std::vector<std::int32_t> y_true;  ///< classification: class codes
  std::vector<double> targets;       ///< regression: the true values
  std::vector<ModelScores> models;   ///< two or more, same length
  std::vector<double> weights;       ///< empty = all 1
  std::vector<SliceColumn> slices;   ///< empty = no slices
};

struct CompareParams {
  /// Metric names (docs/compare.md "Metrics"; metric_names() lists them). Empty = the task's
  /// default set: binary roc_auc, average_precision, f1, accuracy, brier (when the scores are
  /// probabilities); multi-class accuracy, f1_macro, roc_auc (with scores); regression mae,
  /// rmse, r2.
  std::vector<std::string> metrics;
  /// The model every other is compared with. Default "" = the first model.
  std::string baseline;
  /// Every pair of models instead of each against the baseline. Default false.
  bool all_pairs = false;
  /// Binary: positive class name; default "" = the greater label.
  std::string pos_label;
  /// Binary: positive when score >= threshold, for metrics not at an operating point.
  double threshold = 0.5;
  /// Average-precision convention. Default scikit-learn's step rule.
  metrics::ApParams ap;
  /// Resamples (default 1000; 0 = no intervals and no bootstrap p-values), confidence, seed,
  /// threads.
  metrics::BootstrapParams bootstrap;
  TestKind test = TestKind::automatic;
  /// Permutations of the permutation test (when it is used). Default 1000.
  std::size_t n_permutations = 1000;
  Correction correction = Correction::holm;
  /// A slice with fewer examples than this, or (binary) fewer than min_slice_class examples of
  /// either class, gets a warning that its interval means little. Defaults 30 and 10.
  std::size_t min_slice_size = 30;
  std::size_t min_slice_class = 10;
  /// Jackknife of BCa: exact (leave-one-out) up to this many examples, else this many groups of
  /// a seeded random partition (delete-a-group jackknife). Default 200: each group costs a pass
  /// over the data, as a resample does.
  std::size_t jackknife_groups = 200;
  std::size_t max_classes = 1000;
};

/// A value with its bootstrap interval (NaN bounds without resamples).
struct Interval {
  double value = 0;
  double low = 0;
  double high = 0;
};

/// One metric of one model (on the whole data or one slice).
struct MetricValue {
  std::string metric;
  double value = 0;
  double low = 0;
  double high = 0;
  /// Operating-point metrics: the threshold chosen on the data (NaN otherwise or infeasible).
  double threshold = 0;
  /// Resamples where the metric was undefined (left out of the interval).
  std::size_t n_undefined = 0;
  /// Operating-point metrics: the rates at the chosen threshold (precision, recall, f1, fpr,
  /// specificity, accuracy; point estimates on the data).
  std::vector<std::pair<std::string, double>> at_point = {};
};

struct ModelSummary {
  std::string name;
  std::vector<MetricValue> metrics;  ///< in CompareParams::metrics order
};

struct DelongDetail {
  double auc_model = 0;
  double auc_baseline = 0;
  double difference = 0;
  double standard_error = 0;
  double low = 0;  ///< difference -/+ z * standard_error at the run's confidence
  double high = 0;
  double z = 0;
  double p_value = 0;
};

struct McNemarDetail {
  /// Weighted count of examples only the model gets right, and only the baseline.
  double model_only = 0;
  double baseline_only = 0;
  double p_value = 0;  ///< exact two-sided binomial
  double mid_p = 0;
};

/// model - baseline on one metric (on the whole data, or one slice).
struct Difference {
  std::string model;
  std::string baseline;
  std::string metric;
  /// Whether a larger value is better (false for losses: brier, log_loss, mae, ...).
  bool higher_is_better = true;
  double difference = 0;
  Interval percentile;  ///< value = difference
  Interval bca;
  double p_value = 0;
  /// "DeLong", "McNemar exact", "paired bootstrap" or "paired permutation".
  std::string test;
  double p_adjusted = 0;  ///< by CompareParams::correction over every test of the run
  std::optional<DelongDetail> delong;
  std::optional<McNemarDetail> mcnemar;
};

struct SliceResult {
  std::string column;
  std::string value;
  double support = 0;  ///< (weighted) examples in the slice
  std::size_t n_examples = 0;
  /// Binary: weighted positives and negatives of the slice (NaN otherwise).
  double positives = 0;
  double negatives = 0;
  bool too_small = false;
  std::vector<ModelSummary> models;
  std::vector<Difference> differences;
};

/// The worst slice of a model on a metric, and its gap to the whole (slice - whole).
struct WorstSlice {
  std::string model;
  std::string metric;
  std::string column;
  std::string value;
  Interval slice;
  Interval gap;
};

struct CompareResult {
  Task task = Task::binary;
  std::vector<std::string> classes;
  std::string positive_class;
  std::size_t n_examples = 0;
  double total_weight = 0;
  bool weighted = false;
  std::vector<std::string> metrics;
  std::string baseline;
  std::vector<ModelSummary> models;
  std::vector<Difference> differences;
  std::vector<SliceResult> slices;
  std::vector<WorstSlice> worst_slices;
  CompareParams params;
  /// One plain sentence per conclusion ("b beats a on AP by 0.021 [0.008, 0.034], Holm-adjusted
  /// p = 0.004"), each stating only what the numbers above show.
  std::vector<std::string> conclusions;
  std::vector<std::string> notes;
};

/// The metric names a task accepts (operating-point forms are documented, not listed).
std::vector<std::string> metric_names(Task task);

/// The canonical name of a metric, alias ("auc", "ap", "brier_score") or operating-point metric
/// ("recall @ precision >= 90%" -> "recall@precision>=0.9") for the task. Throws assay::Error
/// for an unknown name: `unknown metric "auc_roc" for binary labels (did you mean "roc_auc"?
/// known: ...)`. Task::automatic accepts the names of every task.
std::string canonical_metric(const std::string& name, Task task);

/// Whether a larger value of the (canonical) metric is better: false for losses and errors
/// (brier, log_loss, mae, mse, rmse, mape, fpr, fnr, cost, ...).
bool metric_higher_is_better(const std::string& canonical_name);

/// Runs the comparison. Throws assay::Error for inconsistent input (fewer than two models,
/// lengths, an unknown metric or baseline, NaN scores); NaN + warning where a statistic is
/// undefined.
CompareResult compare(CompareInput input, const CompareParams& params);

/// Which columns of a table play which role (the CLI's --label, --models, --by, --weight).
struct CompareColumns {
  std::string label;
  /// Each model: its name and its column(s) (multi-class scores: K columns in class order).
  std::vector<std::pair<std::string, std::vector<std::string>>> models;
  /// Slicing columns; a numeric column with a bin count ("age:4") is cut at its quantiles.
  std::vector<std::string> by;
  std::string weight;
};

/// Builds the input from a table, naming the file and column in every error.
CompareInput compare_input(const Table& table, const CompareColumns& columns, Task task);

}  // namespace assay::compare
