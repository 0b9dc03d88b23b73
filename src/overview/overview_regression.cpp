// The [regression] section of the overview report: regressors' metrics side by side with their
// bootstrap intervals and charts, and the summary's sentence about which model errs least (both
// from report/regression.hpp).
#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/report/regression.hpp"
#include "overview_detail.hpp"

namespace assay::report::detail {

metrics::RegressionInput prepare_regression(const RegressionSection& s) {
  CsvParams csv = s.csv;
  csv.numeric = {s.columns.label};
  for (const auto& model : s.columns.models) csv.numeric.push_back(model.second);
  if (!s.columns.weight.empty()) csv.numeric.push_back(s.columns.weight);
  return metrics::regression_input(read_csv(s.file, csv), s.columns);
}

void render_regression(HtmlReport& page, const RegressionSection& s,
                       const metrics::RegressionEvaluation& ev, const std::vector<Claim>& claims) {
  page.add_heading("Regression: how far off are the predictions?", 2, kRegressionAnchor);
  page.add_paragraph(fmt::format(
      "The predictions of {} in {} against the target {}, as assay metrics --task regression "
      "computes them.",
      ev.models.size() == 1 ? "one model" : fmt::format("{} models", ev.models.size()), s.file,
      ev.target));
  for (const auto& c : claims) {
    if (c.section == kRegressionAnchor) page.add_paragraph(c.text);
  }
  add_regression_blocks(page, ev, "regression-metrics");
}

}  // namespace assay::report::detail
