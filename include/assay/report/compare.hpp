// Rendering a model comparison (compare/compare.hpp) and its gates (compare/gates.hpp): a
// plain-text report for the terminal, JSON for scripts (the document Python's
// assay.compare.compare reads), and an HTML page with a forest plot of the differences, a
// slice chart and the gate table.
//
// Numbers: text shows 4 significant digits, intervals as [low, high]; JSON keeps full precision,
// NaN written as null.
//
// Example:
//   compare::CompareResult r = compare::compare(std::move(input), params);
//   std::cout << compare_text(r, {});          // models, differences, slices, conclusions
//   Json j = compare_json(r, outcomes);        // j["differences"][0]["difference"], ...
//   compare_html(r, outcomes, "predictions.csv").write("compare.html");
//   HtmlReport page("All analyses");
//   add_compare_blocks(page, r, outcomes, 3);  // the same blocks inside another page
#pragma once

#include <string>
#include <vector>

#include "assay/compare/compare.hpp"
#include "assay/compare/gates.hpp"
#include "assay/core/json.hpp"
#include "assay/report/html.hpp"

namespace assay::report {

/// The terminal report: per-model metrics with intervals, the differences with their tests,
/// slices (when asked), the worst slices, gates, and the conclusions.
std::string compare_text(const compare::CompareResult& result,
                         const std::vector<compare::GateOutcome>& gates);

/// {"task", "classes", "positive_class", "n_examples", "total_weight", "weighted", "metrics",
/// "baseline", "models": [{"name", "metrics": [{"metric", "value", "low", "high", "threshold",
/// "n_undefined"}]}], "differences": [{"model", "baseline", "metric", "higher_is_better",
/// "difference", "percentile": {"low", "high"}, "bca": {"low", "high"}, "p_value", "test",
/// "p_adjusted", "delong": {...} | null, "mcnemar": {...} | null}], "slices": [{"column",
/// "value", "support", "n_examples", "positives", "negatives", "too_small", "models",
/// "differences"}], "worst_slices": [...], "gates": [{"gate", "model", "value", "estimate",
/// "low", "high", "passed", "message"}], "passed": bool | null, "conclusions", "notes",
/// "params": {...}}.
Json compare_json(const compare::CompareResult& result,
                  const std::vector<compare::GateOutcome>& gates);

/// The page: conclusions, the forest plot of differences, per-model metrics, slices, gates.
HtmlReport compare_html(const compare::CompareResult& result,
                        const std::vector<compare::GateOutcome>& gates, const std::string& title);

/// Examples, task, baseline, resamples, test and correction in one paragraph (the page's first).
std::string compare_description(const compare::CompareResult& result);

/// The page's blocks after its conclusions (forest plot, gates, models, differences, slices,
/// notes) added to an existing page, their sub-headings at `heading_level` (2 on compare_html's
/// page, 3 in the [compare] section of `assay report`); CSV downloads are named "compare-*".
void add_compare_blocks(HtmlReport& page, const compare::CompareResult& result,
                        const std::vector<compare::GateOutcome>& gates, int heading_level);

}  // namespace assay::report
