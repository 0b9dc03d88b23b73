#include "assay/report/shift.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "report_util.hpp"

namespace assay::report {
namespace {

std::string fixed(double v) {
  if (std::isnan(v)) return std::string(kMissingText);
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  const double a = std::abs(v);
  if (a != 0 && (a >= 1e6 || a < 1e-3)) return fmt::format("{:.4g}", v);
  return fmt::format("{:.4f}", v);
}

bool has_interval(const shift::ShiftEvaluation& ev) {
  return ev.params.bootstrap.n_resamples > 0;
}

// One column of estimates, with "[low, high]" when bootstrapped, in one number format.
std::vector<std::string> interval_column(const shift::ShiftEvaluation& ev,
                                         metrics::BootstrapResult shift::PartitionRow::*field) {
  std::vector<double> value, low, high;
  for (const auto& r : ev.rows) {
    const auto& b = r.*field;
    value.push_back(b.estimate);
    low.push_back(has_interval(ev) ? b.low : NAN);
    high.push_back(has_interval(ev) ? b.high : NAN);
  }
  return format_intervals(value, low, high);
}

std::vector<std::string> number_column(const shift::ShiftEvaluation& ev,
                                       double shift::PartitionRow::*field) {
  std::vector<double> values;
  for (const auto& r : ev.rows) values.push_back(r.*field);
  return format_column(values);
}

std::vector<std::string> header(const shift::ShiftEvaluation& ev) {
  std::vector<std::string> h{"set",  "model", "n",     "shifted", "RMSE", "MAE",
                             "MAPE", "R2",    "R-AUC", "PRR",     "AURC", "AUGRC"};
  if (ev.params.acceptable) {
    h.push_back("F1-AUC");
    h.push_back("F1@95");
  }
  h.push_back("OOD AUROC");
  return h;
}

// The table's cells, built column by column so that each column has one number format.
std::vector<std::vector<std::string>> rows(const shift::ShiftEvaluation& ev) {
  using Row = shift::PartitionRow;
  std::vector<std::vector<std::string>> columns;
  std::vector<std::string> set, model, n, shifted;
  for (const auto& r : ev.rows) {
    set.push_back(r.set);
    model.push_back(r.model);
    n.push_back(std::to_string(r.n));
    shifted.push_back(std::to_string(r.n_shifted));
  }
  columns = {set, model, n, shifted};
  for (auto field : {&Row::rmse, &Row::mae, &Row::mape, &Row::r2})
    columns.push_back(interval_column(ev, field));
  std::vector<double Row::*> plain{&Row::r_auc, &Row::prr, &Row::aurc, &Row::augrc};
  if (ev.params.acceptable) {
    plain.push_back(&Row::f1_auc);
    plain.push_back(&Row::f1_at_95);
  }
  plain.push_back(&Row::ood_auroc);
  for (auto field : plain) columns.push_back(number_column(ev, field));
  std::vector<std::vector<std::string>> out(ev.rows.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (const auto& c : columns) out[i].push_back(c[i]);
  }
  return out;
}

std::string describe(const shift::ShiftEvaluation& ev) {
  std::string out = fmt::format(
      "{} samples, {} model(s), {} set(s); error: {}; retention "
      "convention: {}",
      ev.n_samples, ev.models.size(), ev.sets.size(), shift::to_string(ev.params.error),
      shift::to_string(ev.params.convention));
  if (ev.params.acceptable) {
    out += fmt::format("; acceptable: error <= {:g} (F-beta, beta = {:g})", *ev.params.acceptable,
                       ev.params.beta);
  }
  if (has_interval(ev)) {
    const auto& b = ev.params.bootstrap;
    out += fmt::format("; intervals: {:g}% percentile bootstrap, {} resamples, seed {}",
                       100 * b.confidence, b.n_resamples, b.seed);
  }
  return out;
}

Json interval_json(const metrics::BootstrapResult& b) {
  return {{"value", b.estimate}, {"low", b.low}, {"high", b.high}};
}

}  // namespace

std::string shift_text(const shift::ShiftEvaluation& ev) {
  std::string out = describe(ev) + "\n\n" + detail::text_table(header(ev), rows(ev), 2);
  for (const auto& note : ev.notes) out += "\nnote: " + note;
  if (!ev.notes.empty()) out += "\n";
  return out;
}

Json shift_json(const shift::ShiftEvaluation& ev, bool with_curves) {
  Json j;
  j["n_samples"] = ev.n_samples;
  j["models"] = ev.models;
  j["sets"] = ev.sets;
  const auto& p = ev.params;
  j["params"] = {{"convention", std::string(shift::to_string(p.convention))},
                 {"error", std::string(shift::to_string(p.error))},
                 {"acceptable", p.acceptable ? Json(*p.acceptable) : Json(nullptr)},
                 {"beta", p.beta},
                 {"bootstrap", p.bootstrap.n_resamples},
                 {"confidence", p.bootstrap.confidence},
                 {"seed", p.bootstrap.seed}};
  Json rows_json = Json::array();
  for (const auto& r : ev.rows) {
    rows_json.push_back({{"set", r.set},
                         {"kind", r.kind},
                         {"model", r.model},
                         {"n", r.n},
                         {"n_shifted", r.n_shifted},
                         {"rmse", interval_json(r.rmse)},
                         {"mae", interval_json(r.mae)},
                         {"mape", interval_json(r.mape)},
                         {"r2", interval_json(r.r2)},
                         {"mean_error", r.mean_error},
                         {"r_auc", r.r_auc},
                         {"prr", r.prr},
                         {"aurc", r.aurc},
                         {"augrc", r.augrc},
                         {"f1_auc", r.f1_auc},
                         {"f1_at_95", r.f1_at_95},
                         {"ood_auroc", r.ood_auroc}});
  }
  j["rows"] = rows_json;
  if (with_curves) {
    Json curves = Json::array();
    for (const auto& c : ev.curves) {
      curves.push_back({{"model", c.model},
                        {"x", c.x},
                        {"retention", c.retention},
                        {"oracle", c.oracle},
                        {"random", c.random},
                        {"f1", c.f1},
                        {"f1_oracle", c.f1_oracle},
                        {"f1_random", c.f1_random},
                        {"r_auc", c.r_auc},
                        {"f1_auc", c.f1_auc}});
    }
    j["curves"] = curves;
  }
  j["notes"] = ev.notes;
  return j;
}

Json shift_retention_chart(const shift::ShiftEvaluation& ev, bool f1) {
  if (ev.curves.empty()) fail("shift evaluation has no curves to chart");
  if (f1 && !ev.params.acceptable) fail("F1-retention chart needs an acceptable threshold");
  Json values = Json::array();
  std::vector<std::string> labels;
  for (const auto& c : ev.curves) {
    const std::string label = fmt::format("{} ({} = {})", c.model, f1 ? "F1-AUC" : "R-AUC",
                                          fixed(f1 ? c.f1_auc : c.r_auc));
    labels.push_back(label);
    const auto& model = f1 ? c.f1 : c.retention;
    const auto& oracle = f1 ? c.f1_oracle : c.oracle;
    const auto& random = f1 ? c.f1_random : c.random;
    for (const auto& [kind, ys] :
         {std::pair{"model", &model}, std::pair{"oracle", &oracle}, std::pair{"random", &random}}) {
      for (std::size_t i = 0; i < c.x.size(); ++i) {
        values.push_back({{"series", label},
                          {"kind", kind},
                          {"x", c.x[i]},
                          {"y", detail::json_number((*ys)[i])},
                          {"order", i}});
      }
    }
  }
  const char* y_title = f1 ? "F1 of acceptable predictions" : "Error (sum over retained / n)";
  ChartParams chart;
  chart.title = f1 ? "F1-retention curve" : "Error-retention curve";
  Json spec = detail::base_spec(
      chart, chart.title,
      f1 ? "F1 of acceptable (error <= threshold) predictions among the retained, against the "
           "retained fraction; solid: model, dashed: oracle, dotted: random."
         : "Error with the most uncertain predictions replaced by ground truth, against the "
           "retained fraction; solid: model, dashed: oracle, dotted: random.");
  spec["data"] = {{"values", std::move(values)}};
  spec["transform"] = {{{"filter", detail::finite("y")}}};
  spec["mark"] = {{"type", "line"}, {"strokeWidth", 2}};
  spec["encoding"] = {
      {"x",
       {{"field", "x"},
        {"type", "quantitative"},
        {"title", "Retained fraction"},
        {"scale", {{"domain", {0, 1}}, {"nice", false}}}}},
      {"y", {{"field", "y"}, {"type", "quantitative"}, {"title", y_title}}},
      {"color",
       {{"field", "series"},
        {"type", "nominal"},
        {"title", "Model"},
        {"scale", {{"domain", labels}, {"range", detail::string_array(series_palette())}}}}},
      {"strokeDash",
       {{"field", "kind"},
        {"type", "nominal"},
        {"title", "Ordering"},
        {"scale",
         {{"domain", {"model", "oracle", "random"}}, {"range", {{1, 0}, {6, 3}, {2, 2}}}}}}},
      {"detail", {{"field", "kind"}, {"type", "nominal"}}},
      {"order", {{"field", "order"}, {"type", "quantitative"}}},
      {"tooltip",
       {{{"field", "series"}, {"type", "nominal"}, {"title", "Model"}},
        {{"field", "kind"}, {"type", "nominal"}, {"title", "Ordering"}},
        {{"field", "x"}, {"type", "quantitative"}, {"format", ".3f"}, {"title", "Retained"}},
        {{"field", "y"}, {"type", "quantitative"}, {"format", ".4g"}, {"title", "Value"}}}}};
  detail::note_repeated_colours(spec, labels.size());
  return spec;
}

HtmlReport shift_html(const shift::ShiftEvaluation& ev, const std::string& title) {
  HtmlReport page(title);
  page.add_paragraph(describe(ev));
  page.add_heading("Metrics per set and model");
  page.add_table(header(ev), rows(ev));
  page.add_chart("Error retention on all samples (lower is better)",
                 shift_retention_chart(ev, false));
  if (ev.params.acceptable) {
    page.add_chart("F1 retention on all samples (higher is better)",
                   shift_retention_chart(ev, true));
  }
  for (const auto& note : ev.notes) page.add_paragraph("Note: " + note);
  page.add_json("All numbers (JSON)", shift_json(ev, false));
  return page;
}

}  // namespace assay::report
