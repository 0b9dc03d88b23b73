// Rendering a RegressionEvaluation (metrics/regression_evaluation.hpp) three ways: a plain-text
// table for the terminal, JSON for scripts (the document Python's
// assay.metrics.evaluate(..., task="regression") returns) and an HTML page with the metrics
// table (models side by side, bootstrap intervals) and the predicted-vs-actual, residual and
// residual-distribution charts (regression_charts.hpp).
//
// Numbers: every value is shown with 4 decimals (NaN as "NaN"), intervals as [low, high]; JSON
// keeps full precision with NaN written as null.
//
// Example:
//   metrics::RegressionEvaluation ev = metrics::evaluate_regression(std::move(in), {});
//   std::cout << regression_text(ev);
//   Json j = regression_json(ev);   // j["models"]["ridge"]["summary"]["mae"]["value"] == 0.5
//   regression_html(ev, "assay metrics: predictions.csv").write("regression.html");
//   RegressionRanking r = rank_regressors(ev, "mae");   // the lowest MAE, and its rivals
//   std::string sentence = regression_claims(ev).front().text;   // "Regression: ..."
#pragma once

#include <string>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/metrics/regression_evaluation.hpp"
#include "assay/report/claim.hpp"
#include "assay/report/html.hpp"

namespace assay::report {

/// The terminal text: one line about the data, then a table with one row per metric and one
/// column per model ("value [low, high]" with bootstrap), then the notes.
std::string regression_text(const metrics::RegressionEvaluation& evaluation);

/// {"task": "regression", "target", "n_samples", "total_weight", "weighted",
///  "models": {name: {"summary": {id: {"label", "value", "low", "high"}}}},
///  "params": {"n_bootstrap", "confidence", "seed"}, "notes": [...]}.
Json regression_json(const metrics::RegressionEvaluation& evaluation);

/// The HTML page: the summary sentence of `assay report`'s [regression] section (which model
/// has the lowest MAE), the data, the metrics table, the charts, the notes and the JSON.
HtmlReport regression_html(const metrics::RegressionEvaluation& evaluation,
                           const std::string& title);
/// The same blocks added to an existing page (the [regression] section of `assay report`).
/// `csv_name`: stem of the metrics table's CSV download.
void add_regression_blocks(HtmlReport& page, const metrics::RegressionEvaluation& evaluation,
                           const std::string& csv_name);

/// The models ordered by one metric, best first, as the tables print it (4 decimals): `best` is
/// the first; `tied` when another model prints the same value; `overlaps[k]` whether the best
/// model's interval and model k's (as printed) overlap (false without intervals).
struct RegressionRanking {
  std::string metric;
  std::vector<std::size_t> order;  ///< model indices, best first
  bool tied = false;
  std::vector<bool> overlaps;  ///< indexed by model
};
RegressionRanking rank_regressors(const metrics::RegressionEvaluation& evaluation,
                                  const std::string& metric);

/// The summary sentence about the evaluation as a claim (claim.hpp), section "regression": with
/// one model, its MAE and R² ("regression.model"); with several, which has the lowest MAE as
/// printed and whether its interval overlaps the others' ("regression.lowest_error",
/// rank_regressors). regression_html's first paragraph and `assay report`'s [regression] summary.
std::vector<Claim> regression_claims(const metrics::RegressionEvaluation& evaluation);
/// The sentence of a "regression.*" claim, from its subjects and facts only (its `text` is
/// ignored); throws assay::Error for another kind.
std::string regression_claim_text(const Claim& claim);

}  // namespace assay::report
