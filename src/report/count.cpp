#include "assay/report/count.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report_util.hpp"

namespace assay::report {

namespace {

using count::CountResult;
using count::Proportion;

Json proportion_json(const Proportion& p) {
  return {
      {"k", p.k},
      {"n", p.n},
      {"value", detail::json_number(p.value)},
      {"wilson", {detail::json_number(p.wilson_low), detail::json_number(p.wilson_high)}},
      {"clopper_pearson", {detail::json_number(p.exact_low), detail::json_number(p.exact_high)}}};
}

std::string view_name(const count::SampleView& v) {
  const std::string of = v.stopped_by.empty() ? "" : fmt::format(" of {}", v.requested);
  return v.source == "uniform" ? fmt::format("uniform n={}{}", v.n, of)
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
  if (std::isnan(v)) return std::string(kMissingText);
  return fmt::format("{:+.4f}", v);
}

std::string header_line(const CountResult& r) {
  const bool approx = r.method == "approx";
  std::string s =
      fmt::format("{} counting ({}) over {} points ({} inputs)", approx ? "approximate" : "exact",
                  r.method, short_count(r.domain_size), r.n_inputs);
  if (!r.property.empty()) s += ", property " + r.property;
  if (r.method == "structural" || r.method == "enumerate") {
    s += fmt::format(": {:.3f} s, {} {}", r.seconds, r.boxes,
                     r.method == "structural" ? "decided boxes" : "points");
  } else {
    s += fmt::format(": {:.3f} s, {} CNF formulas counted", r.seconds, r.cnf_counts);
    if (r.ambiguous > 0) s += fmt::format(", {} ambiguous inputs settled", r.ambiguous);
  }
  return s;
}

// A count as the tables show it: exact, "~estimate" (approx) or "[lower, upper]" (bounded).
std::string show_count(const mpz_class& v, const count::CountBounds& b, const count::Guarantee& g) {
  if (g.bounded) return "[" + short_count(b.lower) + ", " + short_count(b.upper) + "]";
  if (!g.exact) return "~" + short_count(v);
  return short_count(v);
}

std::string decimal_count(const mpz_class& v, const count::CountBounds& b,
                          const count::Guarantee& g) {
  if (g.bounded) return "[" + count::to_decimal(b.lower) + ", " + count::to_decimal(b.upper) + "]";
  if (!g.exact) return "~" + count::to_decimal(v);
  return count::to_decimal(v);
}

Json guarantee_json(const count::Guarantee& g) {
  Json j = {{"method", g.method}, {"exact", g.exact}, {"bounded", g.bounded}};
  if (!g.exact && !g.bounded) {
    j["epsilon"] = g.epsilon;
    j["delta"] = g.delta;
    j["seed"] = g.seed;
  }
  if (!g.note.empty()) j["note"] = g.note;
  return j;
}

Json bounds_json(const count::CountBounds& b) {
  return Json::array({count::to_decimal(b.lower), count::to_decimal(b.upper)});
}

// One line per check whose counts are not exact, saying what they guarantee.
std::string guarantee_lines(const CountResult& r) {
  std::string out;
  auto line = [&](const std::string& what, const count::Guarantee& g) {
    if (g.exact && g.note.empty()) return;
    std::string s = what + ": ";
    if (g.bounded) {
      s += "certified bounds [lower, upper] (the count did not finish)";
    } else if (!g.exact) {
      s += fmt::format(
          "approximate: each count within a factor {:g} of the true count with "
          "probability >= {:g} (seed {})",
          1 + g.epsilon, 1 - g.delta, g.seed);
    } else {
      s += "exact";
    }
    if (!g.note.empty()) s += "; " + g.note;
    out += s + "\n";
  };
  for (const auto& l : r.labels) line("label " + l.label, l.guarantee);
  for (const auto& x : r.safety) line("safety " + x.name, x.guarantee);
  for (const auto& x : r.regions) line("region " + x.name, x.guarantee);
  return out;
}

}  // namespace

std::string short_count(const mpz_class& value) {
  const std::string s = count::to_decimal(value);
  return s.size() <= 12 ? s : count::to_scientific(value, 3);
}

Json count_json(const CountResult& r) {
  Json j;
  j["method"] = r.method;
  j["property"] = r.property;
  j["domain_size"] = count::to_decimal(r.domain_size);
  j["n_inputs"] = r.n_inputs;
  j["seconds"] = r.seconds;
  j["boxes"] = r.boxes;
  if (r.method != "structural" && r.method != "enumerate") {
    j["cnf_counts"] = r.cnf_counts;
    j["ambiguous"] = r.ambiguous;
  }
  j["correct"] = count::to_decimal(r.correct);
  j["accuracy"] = detail::json_number(r.accuracy);
  Json labels = Json::array();
  for (const auto& l : r.labels) {
    Json lj = {{"index", l.index},
               {"label", l.label},
               {"tp", count::to_decimal(l.tp)},
               {"fp", count::to_decimal(l.fp)},
               {"tn", count::to_decimal(l.tn)},
               {"fn", count::to_decimal(l.fn)},
               {"accuracy", detail::json_number(l.accuracy)},
               {"precision", detail::json_number(l.precision)},
               {"recall", detail::json_number(l.recall)},
               {"f1", detail::json_number(l.f1)},
               {"guarantee", guarantee_json(l.guarantee)}};
    if (l.guarantee.bounded) {
      lj["bounds"] = {{"tp", bounds_json(l.tp_bounds)},
                      {"fp", bounds_json(l.fp_bounds)},
                      {"tn", bounds_json(l.tn_bounds)},
                      {"fn", bounds_json(l.fn_bounds)}};
    }
    labels.push_back(std::move(lj));
  }
  j["labels"] = std::move(labels);
  Json safety = Json::array();
  for (const auto& s : r.safety) {
    Json sj = {{"name", s.name},
               {"satisfied", count::to_decimal(s.satisfied)},
               {"violated", count::to_decimal(s.violated)},
               {"accuracy", detail::json_number(s.accuracy)},
               {"guarantee", guarantee_json(s.guarantee)}};
    if (s.guarantee.bounded) {
      sj["bounds"] = {{"satisfied", bounds_json(s.satisfied_bounds)},
                      {"violated", bounds_json(s.violated_bounds)}};
    }
    safety.push_back(std::move(sj));
  }
  j["safety"] = std::move(safety);
  Json regions = Json::array();
  for (const auto& g : r.regions) {
    Json gj = {{"name", g.name},
               {"label", g.label},
               {"total", count::to_decimal(g.total)},
               {"count", count::to_decimal(g.count)},
               {"robustness", detail::json_number(g.robustness)},
               {"guarantee", guarantee_json(g.guarantee)}};
    if (g.guarantee.bounded) gj["bounds"] = {{"count", bounds_json(g.count_bounds)}};
    regions.push_back(std::move(gj));
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
    Json view = {{"source", v.source},
                 {"n", v.n},
                 {"accuracy", proportion_json(v.accuracy)},
                 {"labels", std::move(sl)},
                 {"safety", std::move(ss)},
                 {"regions", std::move(sr)}};
    if (!v.stopped_by.empty()) {  // fewer points than asked: the time limit or an interrupt
      view["requested"] = v.requested;
      view["stopped_by"] = v.stopped_by;
    }
    samples.push_back(std::move(view));
  }
  j["samples"] = std::move(samples);
  return j;
}

std::string count_text(const CountResult& r) {
  std::string out = header_line(r) + "\n";
  if (!r.labels.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& l : r.labels) {
      const auto& g = l.guarantee;
      rows.push_back({l.label, show_count(l.tp, l.tp_bounds, g), show_count(l.fp, l.fp_bounds, g),
                      show_count(l.tn, l.tn_bounds, g), show_count(l.fn, l.fn_bounds, g),
                      detail::fixed4(l.accuracy), detail::fixed4(l.precision),
                      detail::fixed4(l.recall), detail::fixed4(l.f1)});
    }
    out += '\n';  // separate appends: GCC 12 warns falsely (-Wrestrict) on "\n" + string&&
    out += detail::text_table(
        {"label", "TP", "FP", "TN", "FN", "accuracy", "precision", "recall", "F1"}, rows);
    out += fmt::format("overall accuracy {} ({} of {} points)\n", detail::fixed4(r.accuracy),
                       short_count(r.correct), short_count(r.domain_size));
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
      std::vector<std::string> row{s.name, show_count(s.satisfied, s.satisfied_bounds, s.guarantee),
                                   show_count(s.violated, s.violated_bounds, s.guarantee),
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
      std::vector<std::string> row{g.name, std::to_string(g.label), short_count(g.total),
                                   show_count(g.count, g.count_bounds, g.guarantee),
                                   detail::fixed4(g.robustness)};
      for (const auto& v : r.samples) {
        if (v.source == "uniform") row.push_back(detail::fixed4(v.regions[i].value));
      }
      rows.push_back(std::move(row));
    }
    out += '\n';
    out += detail::text_table(header, rows);
  }
  const std::string guarantees = guarantee_lines(r);
  if (!guarantees.empty()) out += "\n" + guarantees;
  return out;
}

Json cnf_count_json(const count::CnfCountResult& r, const std::string& file) {
  Json j = {{"file", file},
            {"count", count::to_decimal(r.count)},
            {"guarantee", guarantee_json(r.guarantee)}};
  if (r.guarantee.bounded) j["bounds"] = bounds_json(r.bounds);
  j["variables"] = r.n_vars;
  j["clauses"] = r.n_clauses;
  j["xors"] = r.n_xors;
  j["projected"] = r.n_projected;
  j["seconds"] = r.seconds;
  return j;
}

std::string cnf_count_text(const count::CnfCountResult& r, const std::string& file) {
  const auto& g = r.guarantee;
  std::string out = fmt::format("{}: {} variables ({} projected), {} clauses, {} XORs\n", file,
                                r.n_vars, r.n_projected, r.n_clauses, r.n_xors);
  if (g.bounded) {
    out +=
        fmt::format("count in [{}, {}] (certified bounds; {})\n", count::to_decimal(r.bounds.lower),
                    count::to_decimal(r.bounds.upper), g.note);
  } else if (!g.exact) {
    out += fmt::format(
        "count ~ {} (approximate: within a factor {:g} with probability >= {:g}, seed {})\n",
        count::to_decimal(r.count), 1 + g.epsilon, 1 - g.delta, g.seed);
  } else {
    out += fmt::format("count = {} (exact, {})\n", count::to_decimal(r.count), g.method);
  }
  if (!g.bounded && !g.note.empty()) out += g.note + "\n";
  out += fmt::format("{:.3f} s\n", r.seconds);
  return out;
}

Json encoding_json(const count::Encoding& e, const std::string& file) {
  Json inputs = Json::array();
  for (const auto& in : e.inputs) {
    inputs.push_back({{"name", in.name}, {"size", in.size}, {"bits", in.bits}});
  }
  return {{"query", e.query},
          {"arithmetic", e.arithmetic},
          {"exact", e.exact},
          {"ambiguous", e.ambiguous},
          {"variables", e.cnf.n_vars},
          {"clauses", e.cnf.n_clauses()},
          {"xors", e.cnf.xors.size()},
          {"projected", e.cnf.projection.size()},
          {"inputs", std::move(inputs)},
          {"file", file}};
}

std::string encoding_text(const count::Encoding& e, const std::string& file) {
  std::string out = fmt::format("{}: {}\n", file, e.query);
  out += fmt::format("{} variables ({} projected input bits), {} clauses, {} XORs\n", e.cnf.n_vars,
                     e.cnf.projection.size(), e.cnf.n_clauses(), e.cnf.xors.size());
  out += "arithmetic: " + e.arithmetic + "\n";
  if (!e.exact) {
    out += fmt::format(
        "the count of this file is the fixed-point circuit's; variable {} marks the inputs "
        "where it may differ from the model (assay count --method exact-cnf settles them)\n",
        e.ambiguous);
  }
  return out;
}

HtmlReport count_html(const CountResult& r, const std::string& title, AxisRange axis) {
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
      const auto& g = l.guarantee;
      rows.push_back({l.label, decimal_count(l.tp, l.tp_bounds, g),
                      decimal_count(l.fp, l.fp_bounds, g), decimal_count(l.tn, l.tn_bounds, g),
                      decimal_count(l.fn, l.fn_bounds, g), detail::fixed4(l.accuracy),
                      detail::fixed4(l.precision), detail::fixed4(l.recall), detail::fixed4(l.f1)});
    }
    page.add_table({"label", "TP", "FP", "TN", "FN", "accuracy", "precision", "recall", "F1"},
                   rows);
    const std::string guarantees = guarantee_lines(r);
    if (!guarantees.empty()) page.add_paragraph("How the counts were obtained: " + guarantees);
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
      // One chart: each estimate with its interval beside the exact value (a dot alone).
      std::vector<IntervalPoint> points;
      for (const auto& m : metrics) {
        if (m.metric == "F1") continue;
        const std::string row = m.label + " " + m.metric;
        points.push_back({row, "exact", m.exact});
        for (std::size_t i = 0; i < m.estimate.size(); ++i)
          points.push_back({row, view_name(r.samples[i]), m.estimate[i], m.low[i], m.high[i]});
      }
      const bool any_finite = std::any_of(points.begin(), points.end(),
                                          [](const auto& p) { return std::isfinite(p.value); });
      if (any_finite) {
        IntervalChartParams ip;
        ip.chart.title = "Exact values and estimates";
        ip.chart.axis = axis;
        ip.x_title = "value (fraction)";
        ip.domain = {0, 1};
        ip.series_title = "Source";
        ip.interval_name = level + " Wilson interval";
        page.add_chart(ip.chart.title, interval_chart(points, ip),
                       fmt::format("Estimates from samples with {} Wilson intervals, beside the "
                                   "exact value over the whole domain.",
                                   level));
      }
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
      rows.push_back({g.name, std::to_string(g.label), short_count(g.total), short_count(g.count),
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
  } else if (info.kind == "graph") {
    rows.push_back({"nodes", std::to_string(info.n_nodes)});
    rows.push_back({"neurons", std::to_string(info.n_neurons)});
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
