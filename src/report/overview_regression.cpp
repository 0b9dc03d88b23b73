// The [regression] section of the overview report: regressors' metrics side by side with their
// bootstrap intervals and charts (report/regression.hpp), and the summary's sentence about which
// model errs least.
#include <cmath>

#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/report/regression.hpp"
#include "overview_detail.hpp"

namespace assay::report::detail {
namespace {

constexpr int kDecimals = 4;  // as report/regression.cpp prints every value
constexpr const char* kMetric = "mae";

Json interval_facts(const metrics::RegressionEstimate& e) {
  return {{"value", e.value}, {"low", e.low}, {"high", e.high}};
}

std::string interval_text(const Json& f) {
  return with_interval(fact(f, "value"), fact(f, "low"), fact(f, "high"), kDecimals);
}

}  // namespace

metrics::RegressionInput prepare_regression(const RegressionSection& s) {
  CsvParams csv = s.csv;
  csv.numeric = {s.columns.label};
  for (const auto& model : s.columns.models) csv.numeric.push_back(model.second);
  if (!s.columns.weight.empty()) csv.numeric.push_back(s.columns.weight);
  return metrics::regression_input(read_csv(s.file, csv), s.columns);
}

// One model: its MAE and R². Several: the lowest MAE (as printed), the others' MAE, and whether
// the printed intervals of the best and of each other model overlap (rank_regressors).
std::vector<Claim> summarize_regression(const metrics::RegressionEvaluation& ev) {
  const bool intervals = ev.params.bootstrap.n_resamples > 0;
  const Json common = {{"metric", kMetric},
                       {"confidence", intervals ? Json(ev.params.bootstrap.confidence) : Json()},
                       {"n_samples", ev.n_samples}};
  if (ev.models.size() == 1) {
    const auto& m = ev.models.front();
    Json facts = common;
    facts["mae"] = interval_facts(*m.find("mae"));
    facts["r2"] = interval_facts(*m.find("r2"));
    return {make_claim("regression.model", kRegressionAnchor, {m.name}, facts)};
  }
  const RegressionRanking ranking = rank_regressors(ev, kMetric);
  std::vector<std::string> subjects;
  Json models = Json::array();
  for (std::size_t k : ranking.order) {
    subjects.push_back(ev.models[k].name);
    Json one = interval_facts(*ev.models[k].find(kMetric));
    one["overlaps_best"] = ranking.overlaps[k];
    models.push_back(one);
  }
  Json facts = common;
  facts["tied"] = ranking.tied;
  facts["models"] = models;  // in the subjects' order, best first
  return {make_claim("regression.lowest_error", kRegressionAnchor, subjects, facts)};
}

std::string render_regression_claim(const Claim& c) {
  const Json& f = c.facts;
  const bool intervals = f.at("confidence").is_number();
  const std::string level =
      intervals ? fmt::format("{:g}% bootstrap intervals", 100 * fact(f, "confidence"))
                : std::string("no bootstrap intervals");
  if (c.kind == "regression.model") {
    return fmt::format("Regression: {}: MAE {}, R² {} on {} samples ({}).", c.subjects[0],
                       interval_text(f.at("mae")), interval_text(f.at("r2")),
                       f.at("n_samples").get<std::size_t>(), level);
  }
  if (c.kind == "regression.lowest_error") {
    const Json& models = f.at("models");
    std::string others;
    for (std::size_t k = 1; k < models.size(); ++k) {
      others += fmt::format("{}{}'s {}", k == 1 ? "" : (k + 1 == models.size() ? " and " : ", "),
                            c.subjects[k], interval_text(models[k]));
    }
    if (f.at("tied").get<bool>()) {
      return fmt::format("Regression: {} and {} have the same MAE as printed, {}.", c.subjects[0],
                         c.subjects[1], fixed_or_undefined(fact(models[0], "value"), kDecimals));
    }
    std::string text = fmt::format("Regression: {} has the lowest MAE, {}, against {} ({}",
                                   c.subjects[0], interval_text(models[0]), others, level);
    if (!intervals) return text + ").";
    std::size_t overlapping = 0;
    for (std::size_t k = 1; k < models.size(); ++k)
      overlapping += models[k].at("overlaps_best").get<bool>() ? 1 : 0;
    if (overlapping == 0) return text + "); its interval overlaps no other model's.";
    if (overlapping + 1 == models.size())
      return text + "); the intervals overlap, so these intervals alone do not single it out.";
    return text + fmt::format("); its interval overlaps {} of the {} others'.", overlapping,
                              models.size() - 1);
  }
  fail("unknown kind of claim {}", quote_found(c.kind));
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
