// One evaluation of one or several regressors' predictions of the same target: the single entry
// point behind `assay metrics --task regression` (CLI), `assay.metrics.evaluate(...,
// task="regression")` (Python) and the [regression] section of `assay report`; the report layer
// (report/regression.hpp) renders its result as a table, JSON or an HTML page with charts.
//
// Input layout: n samples; y_true[i] the target of sample i; models[m].y_pred[i] model m's
// prediction of it (every model predicts the same n samples); weights empty = all 1, else n
// finite values >= 0. Everything must be finite.
//
// What is computed per model (scikit-learn 1.2.1's definitions, metrics/regression.hpp): MAE,
// MSE, RMSE, R², explained variance, MAPE, median absolute error, max error, D² absolute error;
// MSLE and RMSLE when every target and prediction is >= 0 (of every model, so that the models'
// tables have the same rows); mean Poisson deviance when the targets are >= 0 and every
// prediction > 0, mean Gamma deviance when both are > 0. Metrics left out are named in a note.
// Bootstrap (params.bootstrap.n_resamples > 0): percentile intervals for every value, all
// models and metrics from the same resamples (resample i depends only on the seed and i, as in
// metrics::evaluate, so results do not depend on the thread count); each replicate is the
// metric of the resample as scikit-learn computes it on the drawn rows (unweighted: the rows
// repeated by their draw counts; weighted: the drawn rows with weight x count).
//
// Task detection (`--task auto`, the default): see classification_target_check below.
//
// Example:
//   // predictions.csv: y,ridge with y = 3, -0.5, 2, 7 and ridge = 2.5, 0, 2, 8
//   Table t = read_csv("predictions.csv");
//   RegressionInput in = regression_input(t, {.label = "y", .models = {{"ridge", "ridge"}}});
//   RegressionEvaluation ev = evaluate_regression(std::move(in), RegressionParams{});
//   // ev.models[0].summary: mae 0.5, mse 0.375, rmse 0.6124, r2 0.9486, ... (ids in
//   // regression_metric_ids(); report/regression.hpp renders it)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "assay/core/table.hpp"
#include "assay/metrics/uncertainty.hpp"

namespace assay::metrics {

/// What `assay metrics` evaluates (`--task`, Python's `task`).
enum class MetricsTask { automatic, classification, regression };
/// "auto" | "classification" | "regression"; anything else throws assay::Error "<what>: expected
/// auto, classification or regression, found "<name>"".
MetricsTask parse_metrics_task(std::string_view name, std::string_view what = "--task");

/// The auto-detection rule: a numeric label column whose values are all whole numbers but take
/// more than kMaxAutoClasses distinct values, with fewer than kMinSamplesPerClass samples per
/// distinct value on average, is a regression target (a class per distinct value would leave
/// each class a handful of samples). Non-whole labels are refused by evaluation_input in any
/// case. Text labels are always classes.
inline constexpr std::size_t kMaxAutoClasses = 50;
inline constexpr std::size_t kMinSamplesPerClass = 10;

/// Whether `label` is a regression target by the rule above (also true when a value is not a
/// whole number). `assay compare --task auto` reads such a label as a regression target.
bool looks_like_regression_target(const Column& label);

/// `--task auto` before a classification: throws assay::Error (at the file) when the label column
/// `label` looks like a regression target by the rule above, naming `--task regression` (and
/// `--task classification` to evaluate the values as classes anyway).
void classification_target_check(const Table& table, const std::string& label);

struct RegressionParams {
  /// Bootstrap intervals; n_resamples = 0 (the default) computes none. Its confidence must be in
  /// (0, 1) even then.
  BootstrapParams bootstrap{.n_resamples = 0};
};

/// One model's predictions.
struct RegressionModelInput {
  std::string name;
  std::vector<double> y_pred;
};

struct RegressionInput {
  /// Name of the target (the label column), for titles and axes.
  std::string target = "y";
  std::vector<double> y_true;
  std::vector<RegressionModelInput> models;
  /// Per-sample weights; empty = all 1.
  std::vector<double> weights;
};

/// Which columns of a table play which role (the CLI's --label, --pred/--models, --weight).
struct RegressionColumns {
  std::string label;
  /// (model name, prediction column), in display order; names must be unique.
  std::vector<std::pair<std::string, std::string>> models;
  std::string weight;
};

/// Builds the input from a table. Throws assay::Error naming the file (and the cell, for values)
/// for a missing or text column, a NaN or infinite target, prediction or weight, a negative
/// weight, no rows, no model or a model name given twice.
RegressionInput regression_input(const Table& table, const RegressionColumns& columns);

/// The stable ids of the metrics, in display order (the JSON keys; a model's summary holds those
/// that apply to the data).
const std::vector<std::string>& regression_metric_ids();
/// The display label of a metric id ("mae" -> "MAE", "r2" -> "R²").
std::string regression_metric_label(std::string_view id);
/// Whether lower values of the metric are better (errors, deviances) or higher (R², explained
/// variance, D²).
bool regression_lower_is_better(std::string_view id);

/// A value with its bootstrap interval (NaN bounds when no bootstrap was asked for).
struct RegressionEstimate {
  std::string id;
  double value = 0;
  double low = 0;
  double high = 0;
};

struct RegressionModelResult {
  std::string name;
  /// The metrics in regression_metric_ids() order.
  std::vector<RegressionEstimate> summary;
  /// The predictions (for the charts).
  std::vector<double> y_pred;
  /// The estimate of `id`, or nullptr when it was not computed.
  const RegressionEstimate* find(std::string_view id) const;
};

struct RegressionEvaluation {
  std::string target;
  std::size_t n_samples = 0;
  double total_weight = 0;
  bool weighted = false;
  std::vector<double> y_true;
  std::vector<double> weights;
  std::vector<RegressionModelResult> models;
  RegressionParams params;
  /// Things the reader should know (e.g. which metrics were left out and why).
  std::vector<std::string> notes;
};

/// Evaluates the predictions (the input is taken by value: move it in). Throws assay::Error on
/// inconsistent input (no samples, no model, lengths, non-finite values, negative weights, bad
/// bootstrap options).
RegressionEvaluation evaluate_regression(RegressionInput input, const RegressionParams& params);

}  // namespace assay::metrics
