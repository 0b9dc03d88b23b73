#include "assay/report/cv.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "report_util.hpp"

namespace assay::report {
namespace {

using soak::CvOutcome;
using soak::SoakResultRow;

std::string measure_title(const std::string& measure) {
  if (measure == "error_percent") return "test error (%)";
  if (measure == "mse") return "test MSE";
  return measure;
}

double measure_of(const SoakResultRow& r, const std::string& measure) {
  return measure == "mse" ? r.mse : r.error_percent;
}

std::string mean_sd(double mean, double sd, const char* format = "{:.2f}") {
  if (std::isnan(mean)) return std::string(kMissingText);
  const std::string m = fmt::format(fmt::runtime(format), mean);
  if (std::isnan(sd)) return m;
  return m + "\u00b1" + fmt::format(fmt::runtime(format), sd);
}

// Train seconds "mean±sd" of every summary, in one number format for the column (seconds range
// from microseconds to minutes).
std::vector<std::string> train_seconds_column(const CvOutcome& o) {
  std::vector<double> all;
  for (const auto& s : o.summaries) {
    all.push_back(s.train_seconds_mean);
    all.push_back(s.train_seconds_sd);
  }
  const NumberFormat format = column_format(all);
  std::vector<std::string> out;
  for (const auto& s : o.summaries) {
    std::string cell = format_number(s.train_seconds_mean, format);
    if (!std::isnan(s.train_seconds_mean) && !std::isnan(s.train_seconds_sd))
      cell += "\u00b1" + format_number(s.train_seconds_sd, format);
    out.push_back(std::move(cell));
  }
  return out;
}

// Seconds with 3 significant digits (featureless takes microseconds, xgboost seconds).
std::string seconds(double s) {
  if (std::isnan(s)) return std::string(kMissingText);
  return fmt::format("{:.3g}", s);
}

// A learner's description (JSON) for a table cell: "key=value" pairs joined by ", " (the cell can
// wrap there), numbers with 3 significant digits, strings unquoted, lists of more than four
// items shortened to their first three and a count. Text that is not JSON is shown as it is.
std::string compact_value(const Json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number()) return fmt::format("{:.3g}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::vector<std::string> items;
    for (std::size_t i = 0; i < v.size() && i < (v.size() > 4 ? 3 : 4); ++i)
      items.push_back(compact_value(v[i]));
    if (v.size() > 4) items.push_back(fmt::format("\u2026 {} items", v.size()));
    return "[" + fmt::format("{}", fmt::join(items, ", ")) + "]";
  }
  if (v.is_object()) {
    std::vector<std::string> pairs;
    for (const auto& [key, value] : v.items()) pairs.push_back(key + "=" + compact_value(value));
    return fmt::format("{}", fmt::join(pairs, ", "));
  }
  return v.dump();
}

std::string compact_hyperparameters(const std::string& text) {
  if (text.empty()) return text;
  try {
    return compact_value(Json::parse(text));
  } catch (const std::exception&) {
    return text;
  }
}

std::vector<std::string> names_in_order(const CvOutcome& o, bool data) {
  std::vector<std::string> out;
  for (const auto& s : o.summaries) {
    const std::string& name = data ? s.data : s.learner;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

// Facet over data sets, learners on the y axis (the paper's Figure 2 layout).
Json faceted(Json spec, const CvOutcome& o, Json values, Json layers, const ChartParams& params,
             bool independent_x) {
  const auto data_sets = names_in_order(o, true);
  const auto learners = names_in_order(o, false);
  const int columns = static_cast<int>(std::min<std::size_t>(data_sets.size(), 4));
  spec.erase("width");
  spec.erase("height");
  spec["data"] = {{"values", std::move(values)}};
  spec["facet"] = {{"field", "data"},
                   {"type", "nominal"},
                   {"title", "data set"},
                   {"sort", detail::string_array(data_sets)}};
  spec["columns"] = columns;
  // 40 px per learner row (at least 160 px): fold points and the mean ± SD segment stay apart.
  spec["spec"] = {{"width", std::max(220, params.width / std::max(1, columns))},
                  {"height", std::max(160, 40 * static_cast<int>(learners.size()))},
                  {"layer", std::move(layers)}};
  if (independent_x) spec["resolve"] = {{"scale", {{"x", "independent"}}}};
  return spec;
}

Json learner_axis(const CvOutcome& o) {
  const auto learners = names_in_order(o, false);
  return {{"field", "learner"},
          {"type", "nominal"},
          {"title", "learner"},
          {"sort", detail::string_array(learners)},
          {"scale", {{"domain", detail::string_array(learners)}}}};
}

Json kind_filter(const char* kind) {
  return {{"filter", fmt::format("datum.kind == '{}'", kind)}};
}

}  // namespace

Json cv_error_chart(const CvOutcome& o, const ChartParams& params) {
  Json values = Json::array();
  for (const auto& r : o.results.rows) {
    const double v = measure_of(r, o.measure);
    if (!r.failure.empty() || !std::isfinite(v)) continue;
    values.push_back({{"kind", "fold"},
                      {"data", r.data},
                      {"learner", r.learner},
                      {"fold", r.test_fold},
                      {"value", v}});
  }
  if (values.empty()) fail("no fold has a defined {}: nothing to chart", o.measure);
  for (const auto& s : o.summaries) {
    values.push_back({{"kind", "stat"},
                      {"data", s.data},
                      {"learner", s.learner},
                      {"mean", detail::json_number(s.mean)},
                      {"low", detail::json_number(s.mean - s.sd)},
                      {"high", detail::json_number(s.mean + s.sd)},
                      {"n", s.n},
                      {"label", mean_sd(s.mean, s.sd)}});
  }
  const std::string x_title = measure_title(o.measure);
  const Json y = learner_axis(o);
  Json layers = Json::array();
  layers.push_back(
      {{"transform", {kind_filter("fold")}},
       {"mark", {{"type", "point"}, {"filled", true}, {"size", 18}, {"color", detail::kGuideGrey}}},
       {"encoding",
        {{"x",
          {{"field", "value"},
           {"type", "quantitative"},
           {"title", x_title},
           {"scale", {{"zero", false}}},
           {"axis", {{"format", ".4~g"}}}}},
         {"y", y},
         {"tooltip",
          {detail::tooltip("learner", "learner"), detail::tooltip("fold", "fold", "d"),
           detail::tooltip("value", x_title.c_str(), ".3f")}}}}});
  layers.push_back({{"transform",
                     {kind_filter("stat"),
                      {{"filter", detail::finite("low") + " && " + detail::finite("high")}}}},
                    {"mark", {{"type", "rule"}, {"strokeWidth", 2}, {"color", "#1f77b4"}}},
                    {"encoding",
                     {{"x", {{"field", "low"}, {"type", "quantitative"}}},
                      {"x2", {{"field", "high"}}},
                      {"y", y}}}});
  layers.push_back(
      {{"transform", {kind_filter("stat"), {{"filter", detail::finite("mean")}}}},
       {"mark", {{"type", "point"}, {"filled", false}, {"size", 70}, {"color", "#1f77b4"}}},
       {"encoding",
        {{"x", {{"field", "mean"}, {"type", "quantitative"}}},
         {"y", y},
         {"tooltip",
          {detail::tooltip("learner", "learner"), detail::tooltip("label", "mean\u00b1SD"),
           detail::tooltip("n", "folds", "d")}}}}});
  Json spec = detail::base_spec(
      params, x_title + " per learner",
      "SOAK paper, Figure 2 (top): test error of each fold (grey points), mean over folds (circle) "
      "and mean \u00b1 SD (segment), per learner and data set.");
  return faceted(std::move(spec), o, std::move(values), std::move(layers), params, true);
}

Json cv_time_chart(const CvOutcome& o, const ChartParams& params) {
  Json values = Json::array();
  for (const auto& r : o.results.rows) {
    if (!r.failure.empty() || !(r.train_seconds > 0)) continue;
    values.push_back({{"kind", "fold"},
                      {"data", r.data},
                      {"learner", r.learner},
                      {"fold", r.test_fold},
                      {"seconds", r.train_seconds}});
  }
  if (values.empty()) fail("no fold has a positive train time: nothing to chart");
  for (const auto& s : o.summaries) {
    if (!(s.train_seconds_mean > 0)) continue;
    values.push_back({{"kind", "stat"},
                      {"data", s.data},
                      {"learner", s.learner},
                      {"seconds", s.train_seconds_mean},
                      {"label", mean_sd(s.train_seconds_mean, s.train_seconds_sd, "{:.3g}")}});
  }
  const Json y = learner_axis(o);
  // Ticks at the powers of ten that span the times, written 1e-6 below 0.001 (0.0000010.00001
  // ran together) and plainly above: Vega's own log ticks crowd a span of a few decades.
  double fastest = std::numeric_limits<double>::infinity(), slowest = 0;
  for (const auto& v : values) {
    fastest = std::min(fastest, v["seconds"].get<double>());
    slowest = std::max(slowest, v["seconds"].get<double>());
  }
  Json ticks = Json::array();
  for (int e = static_cast<int>(std::floor(std::log10(fastest)));
       e <= static_cast<int>(std::ceil(std::log10(slowest))); ++e)
    ticks.push_back(std::pow(10.0, e));
  if (ticks.size() < 2) ticks.push_back(10 * ticks.back().get<double>());  // one power of ten
  Json x = {{"field", "seconds"},
            {"type", "quantitative"},
            {"title", "train seconds (log scale)"},
            {"scale", {{"type", "log"}, {"domain", {ticks.front(), ticks.back()}}}},
            {"axis",
             {{"values", ticks},
              {"labelExpr",
               "datum.value >= 0.001 ? format(datum.value, '~g') : format(datum.value, '.0e')"},
              {"labelOverlap", "greedy"}}}};
  Json layers = Json::array();
  layers.push_back(
      {{"transform", {kind_filter("fold")}},
       {"mark", {{"type", "point"}, {"filled", true}, {"size", 18}, {"color", detail::kGuideGrey}}},
       {"encoding",
        {{"x", x},
         {"y", y},
         {"tooltip",
          {detail::tooltip("learner", "learner"), detail::tooltip("fold", "fold", "d"),
           detail::tooltip("seconds", "train seconds", ".3g")}}}}});
  layers.push_back(
      {{"transform", {kind_filter("stat")}},
       {"mark", {{"type", "point"}, {"filled", false}, {"size", 70}, {"color", "#1f77b4"}}},
       {"encoding",
        {{"x", x},
         {"y", y},
         {"tooltip",
          {detail::tooltip("learner", "learner"),
           detail::tooltip("label", "mean\u00b1SD seconds")}}}}});
  Json spec = detail::base_spec(
      params, "training time per learner",
      "SOAK paper, Figure 2 (bottom): training seconds of each fold (grey points) and their mean "
      "(circle), per learner and data set, on a log axis.");
  return faceted(std::move(spec), o, std::move(values), std::move(layers), params, false);
}

std::string cv_text(const CvOutcome& o) {
  const bool any_auc = std::any_of(o.summaries.begin(), o.summaries.end(),
                                   [](const auto& s) { return !std::isnan(s.auc_mean); });
  std::vector<std::vector<std::string>> rows;
  std::string notes;
  const auto train_seconds = train_seconds_column(o);
  for (const auto& s : o.summaries) {
    std::vector<std::string> row = {
        s.data, s.learner,
        s.n_failed == 0 ? fmt::format("{}", s.n) : fmt::format("{} ({} NA)", s.n, s.n_failed),
        mean_sd(s.mean, s.sd)};
    if (any_auc) row.push_back(mean_sd(s.auc_mean, s.auc_sd, "{:.4f}"));
    row.push_back(train_seconds[rows.size()]);
    rows.push_back(std::move(row));
    if (s.n_failed > 0) {
      notes += fmt::format("{} / {}: {} fold{} NA: {}\n", s.data, s.learner, s.n_failed,
                           s.n_failed == 1 ? "" : "s", s.first_failure);
    }
  }
  std::vector<std::string> header = {"data", "learner", "folds", o.measure + " mean\u00b1sd"};
  if (any_auc) header.push_back("auc mean\u00b1sd");
  header.push_back("train s mean\u00b1sd");
  std::string out = detail::text_table(header, rows, 2);
  if (!notes.empty()) out += "\n" + notes;
  return out;
}

HtmlReport cv_html(const CvOutcome& o, const std::string& title, const std::string& description) {
  HtmlReport page(title);
  if (!description.empty()) page.add_paragraph(description);
  std::size_t failed = 0;
  for (const auto& r : o.results.rows) failed += !r.failure.empty();
  page.add_paragraph(fmt::format(
      "{} (data set, learner, fold) fits ({} with NA results). Measure: {}; mean \u00b1 SD over "
      "folds (SD with ddof 1). Train seconds are wall-clock per fold, including the learner's "
      "internal cross-validation.",
      o.results.rows.size(), failed, measure_title(o.measure)));

  page.add_heading("Summary");
  std::vector<std::vector<std::string>> rows;
  const auto train_seconds = train_seconds_column(o);
  for (const auto& s : o.summaries) {
    rows.push_back({s.data, s.learner, fmt::format("{}", s.n), fmt::format("{}", s.n_failed),
                    mean_sd(s.mean, s.sd), mean_sd(s.auc_mean, s.auc_sd, "{:.4f}"),
                    train_seconds[rows.size()], seconds(s.predict_seconds_mean), s.first_failure});
  }
  page.add_table(
      {"data", "learner", "folds", "NA folds", measure_title(o.measure) + " mean\u00b1SD",
       "AUC mean\u00b1SD", "train s mean\u00b1SD", "predict s mean", "first NA reason"},
      rows);

  const bool any_value = std::any_of(o.results.rows.begin(), o.results.rows.end(), [&](auto& r) {
    return r.failure.empty() && std::isfinite(measure_of(r, o.measure));
  });
  const bool any_time = std::any_of(o.results.rows.begin(), o.results.rows.end(), [](auto& r) {
    return r.failure.empty() && r.train_seconds > 0;
  });
  if (any_value) {
    page.add_chart("Test error per learner and data set (SOAK paper, Figure 2, top)",
                   cv_error_chart(o));
  } else {
    page.add_paragraph("No fold has a defined measure: no error chart.");
  }
  if (any_time) {
    page.add_chart("Training time per learner and data set (SOAK paper, Figure 2, bottom)",
                   cv_time_chart(o));
  } else {
    page.add_paragraph("No fold has a positive train time: no time chart.");
  }

  page.add_heading("Per fold");
  std::vector<std::vector<std::string>> fold_rows;
  for (const auto& r : o.results.rows) {
    fold_rows.push_back({r.data, r.learner, fmt::format("{}", r.test_fold),
                         fmt::format("{}", r.n_train), fmt::format("{}", r.n_test),
                         detail::fixed4(measure_of(r, o.measure)), detail::fixed4(r.auc),
                         seconds(r.train_seconds), compact_hyperparameters(r.hyperparameters),
                         r.failure});
  }
  page.add_table({"data", "learner", "fold", "n train", "n test", o.measure, "auc", "train s",
                  "hyperparameters", "failure"},
                 fold_rows);
  Json summary = soak::cv_json(o);
  summary.erase("results");
  page.add_json("Summary (JSON)", summary);
  return page;
}

}  // namespace assay::report
