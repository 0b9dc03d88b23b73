// Rendering a shift evaluation (shift/partition.hpp) three ways: a plain-text table for the
// terminal, JSON for scripts (the document Python's assay.shift.evaluate_partitions returns), and
// an HTML page with the table, error-retention and F1-retention charts (one line per model,
// dashed: its oracle, dotted: random) and all numbers as JSON.
//
// Numbers: text shows 4 significant decimals (intervals as [low, high] when bootstrapped);
// JSON keeps full precision with NaN written as null. Curves in JSON are the thinned chart
// curves (ShiftEvaluation::curves), x = retained fraction.
//
// Example:
//   shift::ShiftEvaluation ev = shift::evaluate_table(table, columns, params);   // partition.hpp
//   std::cout << shift_text(ev);       // one row per (set, model)
//   Json j = shift_json(ev);           // j["rows"][0]["r_auc"], j["curves"][0]["retention"], ...
//   shift_html(ev, "weather.csv").write("shift.html");
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/report/html.hpp"
#include "assay/shift/partition.hpp"

namespace assay::report {

/// The terminal table: one row per set and model.
std::string shift_text(const shift::ShiftEvaluation& evaluation);

/// {"n_samples", "models", "sets", "params": {...}, "rows": [{"set", "kind", "model", "n",
/// "n_shifted", "rmse": {"value", "low", "high"}, "mae", "mape", "r2", "mean_error", "r_auc",
/// "prr", "aurc", "augrc", "f1_auc", "f1_at_95", "ood_auroc"}], "curves": [{"model", "x",
/// "retention", "oracle", "random", "f1", "f1_oracle", "f1_random", "r_auc", "f1_auc"}],
/// "notes": [...]}.
Json shift_json(const shift::ShiftEvaluation& evaluation, bool with_curves = true);

/// Vega-Lite spec of the error-retention chart (f1 = false) or the F1-retention chart.
Json shift_retention_chart(const shift::ShiftEvaluation& evaluation, bool f1);

/// The HTML page (title: `title`, e.g. the input file name).
HtmlReport shift_html(const shift::ShiftEvaluation& evaluation, const std::string& title);

}  // namespace assay::report
