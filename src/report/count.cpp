#include "assay/report/count.hpp"

#include <cmath>

#include <fmt/format.h>

#include "report_util.hpp"

namespace assay::report {

namespace {

using count::CountResult;
using count::Proportion;

// Counts up to 12 digits in full, larger ones as 3.32e+270.
std::string show(const mpz_class& v) {
  const std::string s = count::to_decimal(v);
  return s.size() <= 12 ? s : count::to_scientific(v, 3);
}

Json proportion_json(const Proportion& p) {
  return {
      {"k", p.k},
      {"n", p.n},
      {"value", detail::json_number(p.value)},
      {"wilson", {detail::json_number(p.wilson_low), detail::json_number(p.wilson_high)}},
      {"clopper_pearson", {detail::json_number(p.exact_low), detail::json_number(p.exact_high)}}};
}

std::string view_name(const count::SampleView& v) {
  return v.source == "uniform" ? fmt::format("uniform n={}", v.n)
                               : fmt::format("{} n={}", v.source, v.n);
}

// Labels shown in the Stat/Exact table: the positive label (1) of a binary model, else all.
std::vector<std::size_t> focus_labels(const CountResult& r) {
  std::vector<std::size_t> out;
  if (r.labels.size() == 2) {
    for (std::size_t l = 0; l < 2; ++l) {
      if (r.labels[l].index == 1) out.push_back(l);
    }
    return out;
  }
  for (std::size_t l = 0; l < r.labels.size(); ++l) out.push_back(l);
  return out;
}

struct MetricRow {
  std::string label;
  std::string metric;
  double exact;
  std::vector<double> estimate;   // per view
  std::vector<double> low, high;  // Wilson interval per view (NaN where none)
};

std::vector<MetricRow> metric_rows(const CountResult& r) {
  std::vector<MetricRow> rows;
  const double nan = std::nan("");
  for (std::size_t l : focus_labels(r)) {
    const auto& e = r.labels[l];
    const char* names[] = {"accuracy", "precision", "recall", "F1"};
    const double exact[] = {e.accuracy, e.precision, e.recall, e.f1};
    for (int m = 0; m < 4; ++m) {
      MetricRow row{e.label, names[m], exact[m], {}, {}, {}};
      for (const auto& v : r.samples) {
        const auto& s = v.labels[l];
        const Proportion* p = m == 0   ? &s.accuracy
                              : m == 1 ? &s.precision
                              : m == 2 ? &s.recall
                                       : nullptr;
        row.estimate.push_back(p ? p->value : s.f1);
        row.low.push_back(p ? p->wilson_low : nan);
        row.high.push_back(p ? p->wilson_high : nan);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string interval(double lo, double hi) {
  if (std::isnan(lo)) return "";
  return fmt::format("[{}, {}]", detail::fixed4(lo), detail::fixed4(hi));
}

std::string signed4(double v) {
  if (std::isnan(v)) return "nan";
  return fmt::format("{:+.4f}", v);
}

std::string header_line(const CountResult& r) {
  std::string s = fmt::format("exact counting ({}) over {} points ({} inputs)", r.method,
                              show(r.domain_size), r.n_inputs);
  if (!r.property.empty()) s += ", property " + r.property;
  s += fmt::format(": {:.3f} s, {} {}", r.seconds, r.boxes,
                   r.method == "structural" ? "decided boxes" : "points");
  return s;
}

}  // namespace

Json count_json(const CountResult& r) {
  Json j;
  j["method"] = r.method;
  j["property"] = r.property;
  j["domain_size"] = count::to_decimal(r.domain_size);
  j["n_inputs"] = r.n_inputs;
  j["seconds"] = r.seconds;
  j["boxes"] = r.boxes;
  j["correct"] = count::to_decimal(r.correct);
  j["accuracy"] = detail::json_number(r.accuracy);
  Json labels = Json::array();
  for (const auto& l : r.labels) {
    labels.push_back({{"index", l.index},
                      {"label", l.label},
                      {"tp", count::to_decimal(l.tp)},
                      {"fp", count::to_decimal(l.fp)},
                      {"tn", count::to_decimal(l.tn)},
                      {"fn", count::to_decimal(l.fn)},
                      {"accuracy", detail::json_number(l.accuracy)},
                      {"precision", detail::json_number(l.precision)},
                      {"recall", detail::json_number(l.recall)},
                      {"f1", detail::json_number(l.f1)}});
  }
  j["labels"] = std::move(labels);
  Json safety = Json::array();
  for (const auto& s : r.safety) {
    safety.push_back({{"name", s.name},
                      {"satisfied", count::to_decimal(s.satisfied)},
                      {"violated", count::to_decimal(s.violated)},
                      {"accuracy", detail::json_number(s.accuracy)}});
  }
  j["safety"] = std::move(safety);
  Json regions = Json::array();
  for (const auto& g : r.regions) {
    regions.push_back({{"name", g.name},
                       {"label", g.label},
                       {"total", count::to_decimal(g.total)},
                       {"count", count::to_decimal(g.count)},
                       {"robustness", detail::json_number(g.robustness)}});
  }
  j["regions"] = std::move(regions);
  Json samples = Json::array();
  for (const auto& v : r.samples) {
    Json sl = Json::array();
    for (const auto& s : v.labels) {
      sl.push_back({{"index", s.index},
                    {"tp", s.tp},
                    {"fp", s.fp},
                    {"tn", s.tn},
                    {"fn", s.fn},
                    {"accuracy", proportion_json(s.accuracy)},
                    {"precision", proportion_json(s.precision)},
                    {"recall", proportion_json(s.recall)},
                    {"f1", detail::json_number(s.f1)}});
    }
    Json ss = Json::array(), sr = Json::array();
    for (const auto& p : v.safety) ss.push_back(proportion_json(p));
    for (const auto& p : v.regions) sr.push_back(proportion_json(p));
    samples.push_back({{"source", v.source},
                       {"n", v.n},
                       {"accuracy", proportion_json(v.accuracy)},
                       {"labels", std::move(sl)},
                       {"safety", std::move(ss)},
                       {"regions", std::move(sr)}});
  }
  j["samples"] = std::move(samples);
  return j;
}

std::string count_text(const CountResult& r) {
  std::string out = header_line(r) + "\n";
  if (!r.labels.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& l : r.labels) {
      rows.push_back({l.label, show(l.tp), show(l.fp), show(l.tn), show(l.fn),
                      detail::fixed4(l.accuracy), detail::fixed4(l.precision),
                      detail::fixed4(l.recall), detail::fixed4(l.f1)});
    }
    out += '\n';  // separate appends: GCC 12 warns falsely (-Wrestrict) on "\n" + string&&
    out += detail::text_table(
        {"label", "TP", "FP", "TN", "FN", "accuracy", "precision", "recall", "F1"}, rows);
    out += fmt::format("overall accuracy {} ({} of {} points)\n", detail::fixed4(r.accuracy),
                       show(r.correct), show(r.domain_size));
    if (!r.samples.empty()) {
      std::vector<std::string> header{"label", "metric", "exact"};
      for (const auto& v : r.samples) {
        header.push_back(view_name(v));
        header.push_back("diff");
      }
      std::vector<std::vector<std::string>> mrows;
      for (const auto& m : metric_rows(r)) {
        std::vector<std::string> row{m.label, m.metric, detail::fixed4(m.exact)};
        for (std::size_t i = 0; i < m.estimate.size(); ++i) {
          row.push_back(detail::fixed4(m.estimate[i]));
          row.push_back(signed4(m.exact - m.estimate[i]));
        }
        mrows.push_back(std::move(row));
      }
      out += "\nStat / exact (diff = exact - estimate)\n" + detail::text_table(header, mrows);
    }
  }
  if (!r.safety.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < r.safety.size(); ++i) {
      const auto& s = r.safety[i];
      std::vector<std::string> row{s.name, show(s.satisfied), show(s.violated),
                                   detail::fixed4(s.accuracy)};
      std::string est;
      for (const auto& v : r.samples) {
        const auto& p = v.safety[i];
        est += fmt::format("{}{}: {}/{}", est.empty() ? "" : "; ", view_name(v), p.k, p.n);
      }
      row.push_back(est);
      rows.push_back(std::move(row));
    }
    out += '\n';
    out += detail::text_table({"safety", "S", "N", "accuracy", "samples (S/S+N)"}, rows);
  }
  if (!r.regions.empty()) {
    std::vector<std::string> header{"region", "label", "total", "correct", "robustness"};
    for (const auto& v : r.samples) {
      if (v.source == "uniform") header.push_back(fmt::format("n={}", v.n));
    }
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < r.regions.size(); ++i) {
      const auto& g = r.regions[i];
      std::vector<std::string> row{g.name, std::to_string(g.label), show(g.total), show(g.count),
                                   detail::fixed4(g.robustness)};
      for (const auto& v : r.samples) {
        if (v.source == "uniform") row.push_back(detail::fixed4(v.regions[i].value));
      }
      rows.push_back(std::move(row));
    }
    out += '\n';
    out += detail::text_table(header, rows);
  }
  return out;
}

HtmlReport count_html(const CountResult& r, const std::string& title) {
  HtmlReport page(title);
  const std::string level = fmt::format("{:g}%", 100 * r.confidence);
  page.add_paragraph(header_line(r) +
                     fmt::format(". Exact counts cover every point of the bounded input domain; "
                                 "the estimates come from a test set or uniform samples of the "
                                 "domain ({} Wilson intervals).",
                                 level));
  if (!r.labels.empty()) {
    page.add_heading("Exact counts per label");
    std::vector<std::vector<std::string>> rows;
    for (const auto& l : r.labels) {
      rows.push_back({l.label, count::to_decimal(l.tp), count::to_decimal(l.fp),
                      count::to_decimal(l.tn), count::to_decimal(l.fn), detail::fixed4(l.accuracy),
                      detail::fixed4(l.precision), detail::fixed4(l.recall), detail::fixed4(l.f1)});
    }
    page.add_table({"label", "TP", "FP", "TN", "FN", "accuracy", "precision", "recall", "F1"},
                   rows);
    if (!r.samples.empty()) {
      page.add_heading("Estimates beside the exact values");
      std::vector<std::string> header{"label", "metric", "exact"};
      for (const auto& v : r.samples) {
        header.push_back(view_name(v));
        header.push_back("interval");
        header.push_back("diff");
      }
      std::vector<std::vector<std::string>> mrows;
      const auto metrics = metric_rows(r);
      for (const auto& m : metrics) {
        std::vector<std::string> row{m.label, m.metric, detail::fixed4(m.exact)};
        for (std::size_t i = 0; i < m.estimate.size(); ++i) {
          row.push_back(detail::fixed4(m.estimate[i]));
          row.push_back(interval(m.low[i], m.high[i]));
          row.push_back(signed4(m.exact - m.estimate[i]));
        }
        mrows.push_back(std::move(row));
      }
      page.add_table(header, mrows);
      // One chart: each estimate with its interval, the exact value as a tick.
      Json values = Json::array();
      for (const auto& m : metrics) {
        if (m.metric == "F1") continue;
        const std::string row = m.label + " " + m.metric;
        values.push_back({{"row", row},
                          {"what", "exact"},
                          {"value", detail::json_number(m.exact)},
                          {"low", nullptr},
                          {"high", nullptr}});
        for (std::size_t i = 0; i < m.estimate.size(); ++i) {
          values.push_back({{"row", row},
                            {"what", view_name(r.samples[i])},
                            {"value", detail::json_number(m.estimate[i])},
                            {"low", detail::json_number(m.low[i])},
                            {"high", detail::json_number(m.high[i])}});
        }
      }
      ChartParams cp;
      cp.height = 40 * static_cast<int>(metrics.size());
      Json spec = detail::base_spec(cp, "Exact values and estimates",
                                    fmt::format("Estimates from samples with {} Wilson "
                                                "intervals, beside the exact value over the "
                                                "whole domain.",
                                                level));
      spec["data"] = {{"values", values}};
      const Json y = {{"field", "row"}, {"type", "nominal"}, {"title", nullptr}};
      const Json color = {{"field", "what"}, {"type", "nominal"}, {"title", "source"}};
      spec["layer"] =
          Json::array({{{"transform", {{{"filter", detail::finite("low")}}}},
                        {"mark", {{"type", "rule"}}},
                        {"encoding",
                         {{"y", y},
                          {"yOffset", {{"field", "what"}}},
                          {"x", {{"field", "low"}, {"type", "quantitative"}}},
                          {"x2", {{"field", "high"}}},
                          {"color", color}}}},
                       {{"transform", {{{"filter", detail::finite("value")}}}},
                        {"mark", {{"type", "point"}, {"filled", true}, {"size", 60}}},
                        {"encoding",
                         {{"y", y},
                          {"yOffset", {{"field", "what"}}},
                          {"x",
                           {{"field", "value"},
                            {"type", "quantitative"},
                            {"title", "value"},
                            {"scale", {{"domain", {0, 1}}}}}},
                          {"color", color},
                          {"tooltip", Json::array({detail::tooltip("row", "Metric"),
                                                   detail::tooltip("what", "Source"),
                                                   detail::tooltip("value", "Value", ".4f"),
                                                   detail::tooltip("low", "Low", ".4f"),
                                                   detail::tooltip("high", "High", ".4f")})}}}}});
      page.add_chart("Exact values and estimates", spec);
    }
  }
  if (!r.safety.empty()) {
    page.add_heading("Safety properties");
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : r.safety) {
      rows.push_back({s.name, count::to_decimal(s.satisfied), count::to_decimal(s.violated),
                      detail::fixed4(s.accuracy)});
    }
    page.add_table({"property", "S", "N", "accuracy"}, rows);
  }
  if (!r.regions.empty()) {
    page.add_heading("Robustness regions");
    std::vector<std::vector<std::string>> rows;
    for (const auto& g : r.regions) {
      rows.push_back({g.name, std::to_string(g.label), show(g.total), show(g.count),
                      detail::fixed4(g.robustness)});
    }
    page.add_table({"region", "label", "total", "correct", "robustness"}, rows);
  }
  page.add_json("JSON", count_json(r));
  return page;
}

Json robustness_json(const count::RobustnessResult& r) {
  Json samples = Json::array();
  for (const auto& p : r.samples) samples.push_back(proportion_json(p));
  return {{"total", count::to_decimal(r.total)},
          {"count", count::to_decimal(r.count)},
          {"robustness", detail::json_number(r.robustness)},
          {"method", r.method},
          {"seconds", r.seconds},
          {"samples", std::move(samples)}};
}

std::string model_info_text(const count::ModelInfo& info) {
  std::vector<std::vector<std::string>> rows{
      {"kind", info.kind},
      {"task", info.task},
      {"source", info.source.empty() ? "-" : info.source},
      {"inputs", std::to_string(info.n_features)},
      {"outputs", std::to_string(info.n_outputs)},
  };
  if (!info.classes.empty()) {
    std::string c;
    for (const auto& k : info.classes) c += (c.empty() ? "" : ", ") + k;
    rows.push_back({"classes", c});
  }
  if (info.kind == "network") {
    std::string s;
    for (auto n : info.layer_sizes) s += (s.empty() ? "" : " -> ") + std::to_string(n);
    rows.push_back({"layers", s});
  } else {
    rows.push_back({"trees", std::to_string(info.n_trees)});
    rows.push_back({"nodes", std::to_string(info.n_nodes)});
    rows.push_back({"leaves", std::to_string(info.n_leaves)});
    rows.push_back({"max depth", std::to_string(info.max_depth)});
  }
  rows.push_back({"parameters", std::to_string(info.n_parameters)});
  return detail::text_table({"field", "value"}, rows);
}

}  // namespace assay::report
