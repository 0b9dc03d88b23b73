#include "assay/report/regression.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/report/regression_charts.hpp"
#include "report_util.hpp"

namespace assay::report {
namespace {

using metrics::RegressionEvaluation;

constexpr int kDecimals = 4;

// One format for every number of the tables: 4 decimals, "NaN" where undefined.
std::string shown_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}f}", v, kDecimals);
}

std::string value_cell(const metrics::RegressionEstimate& e) {
  std::string out = shown_number(e.value);
  if (!std::isnan(e.low) || !std::isnan(e.high))
    out += fmt::format(" [{}, {}]", shown_number(e.low), shown_number(e.high));
  return out;
}

bool has_intervals(const RegressionEvaluation& ev) {
  return ev.params.bootstrap.n_resamples > 0;
}

std::string data_sentence(const RegressionEvaluation& ev) {
  std::string out =
      fmt::format("{} samples{}, target {}, {} model{}", ev.n_samples,
                  ev.weighted ? fmt::format(" (total weight {:.6g})", ev.total_weight) : "",
                  ev.target, ev.models.size(), ev.models.size() == 1 ? "" : "s");
  if (has_intervals(ev)) {
    out += fmt::format("; {:.6g}% percentile bootstrap intervals from {} resamples (seed {})",
                       100 * ev.params.bootstrap.confidence, ev.params.bootstrap.n_resamples,
                       ev.params.bootstrap.seed);
  } else {
    out += "; no bootstrap intervals (--bootstrap N for them)";
  }
  return out;
}

// Header and rows of the side-by-side table: one row per metric, one column per model.
std::vector<std::string> table_header(const RegressionEvaluation& ev) {
  std::vector<std::string> header{"metric"};
  for (const auto& m : ev.models) header.push_back(m.name);
  return header;
}

std::vector<std::vector<std::string>> table_rows(const RegressionEvaluation& ev) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : ev.models.front().summary) {
    std::vector<std::string> row{metrics::regression_metric_label(e.id)};
    for (const auto& m : ev.models) row.push_back(value_cell(*m.find(e.id)));
    rows.push_back(std::move(row));
  }
  return rows;
}

// The side-by-side table as data: per model its value and interval columns ("NAME",
// "NAME low", "NAME high"), shown joined as "value [low, high]" and downloadable as CSV.
Table side_by_side_table(const RegressionEvaluation& ev) {
  std::vector<std::string> labels;
  for (const auto& e : ev.models.front().summary)
    labels.push_back(metrics::regression_metric_label(e.id));
  Table t;
  t.add_column(Column::categorical("metric", labels));
  for (const auto& m : ev.models) {
    std::vector<double> value, low, high;
    for (const auto& e : ev.models.front().summary) {
      const auto& own = *m.find(e.id);
      value.push_back(own.value);
      low.push_back(own.low);
      high.push_back(own.high);
    }
    t.add_column(Column::numeric(m.name, value));
    t.add_column(Column::numeric(m.name + " low", low));
    t.add_column(Column::numeric(m.name + " high", high));
  }
  return t;
}

// The long table (metric, model, value, low, high) offered as CSV.
Table long_table(const RegressionEvaluation& ev) {
  std::vector<std::string> metric, model;
  std::vector<double> value, low, high;
  for (const auto& m : ev.models) {
    for (const auto& e : m.summary) {
      metric.push_back(e.id);
      model.push_back(m.name);
      value.push_back(e.value);
      low.push_back(e.low);
      high.push_back(e.high);
    }
  }
  Table t;
  t.add_column(Column::categorical("metric", metric));
  t.add_column(Column::categorical("model", model));
  t.add_column(Column::numeric("value", value));
  t.add_column(Column::numeric("low", low));
  t.add_column(Column::numeric("high", high));
  return t;
}

std::vector<RegressionSeries> chart_series(const RegressionEvaluation& ev) {
  std::vector<RegressionSeries> out;
  for (const auto& m : ev.models) out.push_back({m.name, ev.y_true, m.y_pred});
  return out;
}

// The claims' facts and wording: MAE decides, intervals as printed (kDecimals).
constexpr const char* kClaimMetric = "mae";

Json interval_facts(const metrics::RegressionEstimate& e) {
  return {{"value", e.value}, {"low", e.low}, {"high", e.high}};
}

std::string interval_text(const Json& f) {
  using wording::fact;
  return wording::with_interval(fact(f, "value"), fact(f, "low"), fact(f, "high"), kDecimals);
}

// A claim of the [regression] section of `assay report` (its anchor), with its text.
Claim regression_claim(std::string kind, std::vector<std::string> subjects, Json facts) {
  Claim c{std::move(kind), "regression", std::move(subjects), std::move(facts), ""};
  c.text = regression_claim_text(c);
  return c;
}

}  // namespace

std::string regression_text(const RegressionEvaluation& ev) {
  std::string out = data_sentence(ev) + "\n\n";
  out += detail::text_table(table_header(ev), table_rows(ev));
  for (const auto& note : ev.notes) out += "\nnote: " + note;
  if (!ev.notes.empty()) out += "\n";
  return out;
}

Json regression_json(const RegressionEvaluation& ev) {
  Json models = Json::object();
  for (const auto& m : ev.models) {
    Json summary = Json::object();
    for (const auto& e : m.summary) {
      summary[e.id] = {{"label", metrics::regression_metric_label(e.id)},
                       {"value", e.value},
                       {"low", e.low},
                       {"high", e.high}};
    }
    models[m.name] = {{"summary", std::move(summary)}};
  }
  return {{"task", "regression"},
          {"target", ev.target},
          {"n_samples", ev.n_samples},
          {"total_weight", ev.total_weight},
          {"weighted", ev.weighted},
          {"models", std::move(models)},
          {"params",
           {{"n_bootstrap", ev.params.bootstrap.n_resamples},
            {"confidence", ev.params.bootstrap.confidence},
            {"seed", ev.params.bootstrap.seed}}},
          {"notes", ev.notes}};
}

void add_regression_blocks(HtmlReport& page, const RegressionEvaluation& ev,
                           const std::string& csv_name) {
  page.add_paragraph(data_sentence(ev) + ".");
  page.add_data_table(side_by_side_table(ev),
                      {.csv_name = csv_name + "-by-model", .join_intervals = true});
  page.add_paragraph(
      "MAE: mean absolute error; MSE / RMSE: mean squared error and its square root; median AE: "
      "median absolute error; MAPE: mean absolute percentage error (a fraction); R²: coefficient "
      "of determination; D² absolute error: the fraction of the absolute error of the target's "
      "median explained; MSLE / RMSLE: the same as MSE / RMSE on log(1 + y). Lower is better "
      "except for R², explained variance and D².");
  page.add_data_table(long_table(ev),
                      {csv_name, "Every value with its interval (full precision in the CSV)",
                       /*folded=*/true});
  const auto series = chart_series(ev);
  const std::string drawn = scatter_note(ev.n_samples);
  ChartParams square;
  square.width = square.height = 320;
  page.add_chart("Predicted against actual values",
                 predicted_vs_actual_chart(series, ev.target, square),
                 drawn + " Dashed: y = x, where a perfect prediction lies.");
  page.add_chart("Residuals against predictions", residual_chart(series, ev.target),
                 drawn +
                     " Residual = actual - predicted: above the dashed 0 line the model "
                     "predicted too low.");
  page.add_chart("Distribution of the residuals", residual_histogram_chart(series, ev.target),
                 fmt::format("Samples per residual bin ({} bins of equal width shared by the "
                             "models), from every sample.",
                             kResidualBins));
  for (const auto& note : ev.notes) page.add_paragraph("Note: " + note);
}

HtmlReport regression_html(const RegressionEvaluation& ev, const std::string& title) {
  HtmlReport page(title);
  // The sentence `assay report` puts in its summary (which model errs least), as its claim.
  for (const auto& claim : regression_claims(ev)) page.add_paragraph(claim.text);
  add_regression_blocks(page, ev, "regression-metrics");
  page.add_json("All numbers (JSON)", regression_json(ev));
  return page;
}

RegressionRanking rank_regressors(const RegressionEvaluation& ev, const std::string& metric) {
  RegressionRanking r;
  r.metric = metric;
  const bool lower = metrics::regression_lower_is_better(metric);
  std::vector<double> shown(ev.models.size());
  for (std::size_t k = 0; k < ev.models.size(); ++k) {
    const auto* e = ev.models[k].find(metric);
    const double v = e ? e->value : NAN;
    shown[k] = std::isfinite(v) ? wording::shown(v, kDecimals) : NAN;
    // Undefined values rank last.
    if (std::isnan(shown[k])) shown[k] = lower ? INFINITY : -INFINITY;
  }
  r.order.resize(ev.models.size());
  std::iota(r.order.begin(), r.order.end(), 0);
  std::stable_sort(r.order.begin(), r.order.end(), [&](std::size_t a, std::size_t b) {
    return lower ? shown[a] < shown[b] : shown[a] > shown[b];
  });
  r.tied = r.order.size() > 1 && shown[r.order[0]] == shown[r.order[1]];
  r.overlaps.assign(ev.models.size(), false);
  const auto* best = ev.models[r.order[0]].find(metric);
  auto printed = [](double v) { return wording::shown(v, kDecimals); };
  for (std::size_t k = 0; k < ev.models.size(); ++k) {
    const auto* e = ev.models[k].find(metric);
    if (!best || !e || !std::isfinite(best->low) || !std::isfinite(best->high) ||
        !std::isfinite(e->low) || !std::isfinite(e->high))
      continue;
    r.overlaps[k] =
        printed(best->low) <= printed(e->high) && printed(e->low) <= printed(best->high);
  }
  return r;
}

// One model: its MAE and R². Several: the lowest MAE (as printed), the others' MAE, and whether
// the printed intervals of the best and of each other model overlap (rank_regressors).
std::vector<Claim> regression_claims(const RegressionEvaluation& ev) {
  const bool intervals = ev.params.bootstrap.n_resamples > 0;
  const Json common = {{"metric", kClaimMetric},
                       {"confidence", intervals ? Json(ev.params.bootstrap.confidence) : Json()},
                       {"n_samples", ev.n_samples}};
  if (ev.models.size() == 1) {
    const auto& m = ev.models.front();
    Json facts = common;
    facts["mae"] = interval_facts(*m.find("mae"));
    facts["r2"] = interval_facts(*m.find("r2"));
    return {regression_claim("regression.model", {m.name}, facts)};
  }
  const RegressionRanking ranking = rank_regressors(ev, kClaimMetric);
  std::vector<std::string> subjects;
  Json models = Json::array();
  for (std::size_t k : ranking.order) {
    subjects.push_back(ev.models[k].name);
    Json one = interval_facts(*ev.models[k].find(kClaimMetric));
    one["overlaps_best"] = ranking.overlaps[k];
    models.push_back(one);
  }
  Json facts = common;
  facts["tied"] = ranking.tied;
  facts["models"] = models;  // in the subjects' order, best first
  return {regression_claim("regression.lowest_error", subjects, facts)};
}

std::string regression_claim_text(const Claim& c) {
  using wording::fact;
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
                         c.subjects[1],
                         wording::fixed_or_undefined(fact(models[0], "value"), kDecimals));
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

}  // namespace assay::report
