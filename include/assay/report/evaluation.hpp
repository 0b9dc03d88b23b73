// Rendering an Evaluation (metrics/evaluate.hpp) three ways: a plain-text table for the
// terminal, JSON for scripts (the same document Python's assay.metrics.evaluate returns), and an
// HTML page with PR (raw and interpolated), ROC, confusion-matrix and reliability charts.
//
// Numbers: text shows 4 decimals (intervals as [low, high]); JSON keeps full precision with
// NaN written as null. Curves in JSON are the thinned curves drawn in the charts.
//
// Example:
//   // predictions.csv: y = 0, 0, 1, 1 and p = 0.1, 0.4, 0.35, 0.8 (metrics/evaluate.hpp)
//   metrics::Evaluation ev = metrics::evaluate(std::move(input), metrics::EvaluateParams{});
//   std::cout << evaluation_text(ev);   // 4 samples, 2 classes, positive class "1"; ...
//   Json j = evaluation_json(ev);       // j["summary"]["ROC AUC"]["value"] == 0.75; "low" and
//                                       // "high" are NaN (null in dump_json) without bootstrap;
//                                       // "id" is its stable key ("roc_auc"), the same for
//                                       // binary and multi-class labels
//   evaluation_html(ev, "assay metrics: predictions.csv", "p").write("report.html");
//   // runs_*: mean ± SD of a metric over runs (metrics/uncertainty.hpp summarize_runs_by)
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/report/html.hpp"

namespace assay::report {

/// The terminal table: headline values (with intervals), per-class table, confusion matrix.
std::string evaluation_text(const metrics::Evaluation& evaluation);

/// The JSON document: {"n_samples", "total_weight", "classes", "positive_class",
/// "prediction_rule", "summary": {name: {"value", "low", "high"}}, "per_class": [...],
/// "confusion_matrix": [[...]], "calibration": {...} | null, "curves": {"pr": [...], "roc": [...]},
/// "params": {...}, "notes": [...]}.
Json evaluation_json(const metrics::Evaluation& evaluation, bool with_curves = true);

/// The HTML page (title: `title`, e.g. "assay metrics: data.csv"). `model` names the model
/// (e.g. its score column): the page says so and binary curves carry its name instead of the
/// positive class's; "" = unnamed (curves named by class).
HtmlReport evaluation_html(const metrics::Evaluation& evaluation, const std::string& title,
                           const std::string& model = "");

}  // namespace assay::report

namespace assay::report {

/// A page with the mean ± SD trend of a metric against a meta-parameter (the textbook) and its
/// table. `log_x` for meta-parameters spread over decades (every value must be > 0).
HtmlReport runs_html(const metrics::GroupedRunSummary& runs, const std::string& x_title,
                     const std::string& y_title, bool log_x, const std::string& title);

/// The terminal table: one row per value of the meta-parameter `by_name` (or "all runs" when
/// it is empty) with mean, sd, min, max, n.
std::string runs_text(const metrics::GroupedRunSummary& runs, const std::string& by_name);

/// The same summary as JSON: {"by": [...], "mean": [...], "sd": [...], "min", "max", "n"}.
Json runs_json(const metrics::GroupedRunSummary& runs);

}  // namespace assay::report
