#include "assay/report/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace assay::report {
namespace {

using compare::CompareResult;
using compare::Difference;
using compare::GateOutcome;

std::string num(double v) {
  if (std::isnan(v)) return std::string(kMissingText);
  return fmt::format("{:.4g}", v);
}

std::string interval(double low, double high) {
  if (std::isnan(low) && std::isnan(high)) return "";
  return fmt::format("[{}, {}]", num(low), num(high));
}

Json interval_json(const compare::Interval& i) {
  return {{"low", i.low}, {"high", i.high}};
}

Json at_point_json(const std::vector<std::pair<std::string, double>>& rates) {
  if (rates.empty()) return nullptr;
  Json out = Json::object();
  for (const auto& [name, value] : rates) out[name] = value;
  return out;
}

Json models_json(const std::vector<compare::ModelSummary>& models) {
  Json out = Json::array();
  for (const auto& m : models) {
    Json metrics = Json::array();
    for (const auto& v : m.metrics) {
      metrics.push_back({{"metric", v.metric},
                         {"value", v.value},
                         {"low", v.low},
                         {"high", v.high},
                         {"threshold", v.threshold},
                         {"at_point", at_point_json(v.at_point)},
                         {"n_undefined", v.n_undefined}});
    }
    out.push_back({{"name", m.name}, {"metrics", std::move(metrics)}});
  }
  return out;
}

Json difference_json(const Difference& d) {
  Json j = {{"model", d.model},
            {"baseline", d.baseline},
            {"metric", d.metric},
            {"higher_is_better", d.higher_is_better},
            {"difference", d.difference},
            {"percentile", interval_json(d.percentile)},
            {"bca", interval_json(d.bca)},
            {"p_value", d.p_value},
            {"test", d.test},
            {"p_adjusted", d.p_adjusted},
            {"delong", nullptr},
            {"mcnemar", nullptr}};
  if (d.delong) {
    const auto& x = *d.delong;
    j["delong"] = {{"auc_model", x.auc_model},
                   {"auc_baseline", x.auc_baseline},
                   {"difference", x.difference},
                   {"standard_error", x.standard_error},
                   {"low", x.low},
                   {"high", x.high},
                   {"z", x.z},
                   {"p_value", x.p_value}};
  }
  if (d.mcnemar) {
    const auto& x = *d.mcnemar;
    j["mcnemar"] = {{"model_only", x.model_only},
                    {"baseline_only", x.baseline_only},
                    {"p_value", x.p_value},
                    {"mid_p", x.mid_p}};
  }
  return j;
}

Json differences_json(const std::vector<Difference>& diffs) {
  Json out = Json::array();
  for (const auto& d : diffs) out.push_back(difference_json(d));
  return out;
}

Json params_json(const compare::CompareParams& p) {
  return {{"resamples", p.bootstrap.n_resamples},
          {"confidence", p.bootstrap.confidence},
          {"seed", p.bootstrap.seed},
          {"test", p.test == compare::TestKind::permutation ? "permutation"
                   : p.test == compare::TestKind::bootstrap ? "bootstrap"
                                                            : "auto"},
          {"permutations", p.n_permutations},
          {"correction", compare::to_string(p.correction)},
          {"threshold", p.threshold},
          {"pairs", p.all_pairs ? "all" : "baseline"},
          {"min_slice_size", p.min_slice_size},
          {"min_slice_class", p.min_slice_class},
          {"jackknife_groups", p.jackknife_groups}};
}

// Fixed-width columns for the terminal.
std::string rows_text(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows) {
    width.resize(std::max(width.size(), r.size()), 0);
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      line += fmt::format("{:<{}}", r[c], c + 1 < r.size() ? width[c] + 2 : 0);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += "  " + line + "\n";
  }
  return out;
}

std::string differences_text(const std::vector<Difference>& diffs, const std::string& adjusted) {
  std::vector<std::vector<std::string>> rows = {
      {"model", "baseline", "metric", "difference", "percentile", "BCa", "p", "test", adjusted}};
  for (const auto& d : diffs) {
    rows.push_back({d.model, d.baseline, d.metric, num(d.difference),
                    interval(d.percentile.low, d.percentile.high), interval(d.bca.low, d.bca.high),
                    num(d.p_value), d.test, num(d.p_adjusted)});
  }
  return rows_text(rows);
}

std::string models_text(const CompareResult& r, const std::vector<compare::ModelSummary>& models) {
  std::vector<std::string> header = {"model"};
  for (const auto& m : r.metrics) header.push_back(m);
  std::vector<std::vector<std::string>> rows = {header};
  for (const auto& m : models) {
    std::vector<std::string> row = {m.name};
    for (const auto& v : m.metrics) {
      std::string cell = num(v.value);
      if (!std::isnan(v.low)) cell += " " + interval(v.low, v.high);
      if (!std::isnan(v.threshold)) cell += fmt::format(" (t={})", num(v.threshold));
      row.push_back(cell);
    }
    rows.push_back(row);
  }
  return rows_text(rows);
}

std::string gates_text(const std::vector<GateOutcome>& gates) {
  std::string out;
  for (const auto& g : gates)
    out += fmt::format("  {} {}\n", g.passed ? "PASS" : "FAIL", g.message);
  return out;
}

}  // namespace

std::string compare_text(const CompareResult& r, const std::vector<GateOutcome>& gates) {
  const std::string adjusted = r.params.correction == compare::Correction::none
                                   ? "p (uncorrected)"
                                   : compare::to_string(r.params.correction) + " p";
  std::string out = fmt::format(
      "{} examples{}, {} task{}, baseline {}\n", r.n_examples,
      r.weighted ? fmt::format(" (total weight {})", num(r.total_weight)) : "",
      compare::to_string(r.task),
      r.positive_class.empty() ? "" : fmt::format(", positive class \"{}\"", r.positive_class),
      r.baseline);
  out += "\nmodels\n" + models_text(r, r.models);
  out += "\ndifferences (model - baseline)\n" + differences_text(r.differences, adjusted);
  for (const auto& s : r.slices) {
    out += fmt::format("\nslice {}={}: {} examples{}{}\n", s.column, s.value, s.n_examples,
                       std::isnan(s.positives) ? ""
                                               : fmt::format(", {} positive, {} negative",
                                                             num(s.positives), num(s.negatives)),
                       s.too_small ? " (too small for its intervals to mean much)" : "");
    out += models_text(r, s.models);
    out += differences_text(s.differences, adjusted);
  }
  if (!r.worst_slices.empty()) {
    std::vector<std::vector<std::string>> rows = {
        {"model", "metric", "worst slice", "value", "gap to whole", "gap interval"}};
    for (const auto& w : r.worst_slices) {
      rows.push_back({w.model, w.metric, w.column + "=" + w.value, num(w.slice.value),
                      num(w.gap.value), interval(w.gap.low, w.gap.high)});
    }
    out += "\nworst slices\n" + rows_text(rows);
  }
  if (!gates.empty()) out += "\ngates\n" + gates_text(gates);
  out += "\nconclusions\n";
  for (const auto& c : r.conclusions) out += "  " + c + "\n";
  for (const auto& n : r.notes) out += "\nnote: " + n + "\n";
  return out;
}

Json compare_json(const CompareResult& r, const std::vector<GateOutcome>& gates) {
  Json slices = Json::array();
  for (const auto& s : r.slices) {
    slices.push_back({{"column", s.column},
                      {"value", s.value},
                      {"support", s.support},
                      {"n_examples", s.n_examples},
                      {"positives", s.positives},
                      {"negatives", s.negatives},
                      {"too_small", s.too_small},
                      {"models", models_json(s.models)},
                      {"differences", differences_json(s.differences)}});
  }
  Json worst = Json::array();
  for (const auto& w : r.worst_slices) {
    worst.push_back(
        {{"model", w.model},
         {"metric", w.metric},
         {"column", w.column},
         {"value", w.value},
         {"slice", {{"value", w.slice.value}, {"low", w.slice.low}, {"high", w.slice.high}}},
         {"gap", {{"value", w.gap.value}, {"low", w.gap.low}, {"high", w.gap.high}}}});
  }
  Json gate_list = Json::array();
  for (const auto& g : gates) {
    gate_list.push_back({{"gate", g.gate},
                         {"model", g.model},
                         {"value", g.value},
                         {"estimate", g.estimate},
                         {"low", g.low},
                         {"high", g.high},
                         {"passed", g.passed},
                         {"message", g.message}});
  }
  Json passed = nullptr;
  if (!gates.empty()) passed = compare::all_passed(gates);
  return {{"task", compare::to_string(r.task)},
          {"classes", r.classes},
          {"positive_class", r.positive_class},
          {"n_examples", r.n_examples},
          {"total_weight", r.total_weight},
          {"weighted", r.weighted},
          {"metrics", r.metrics},
          {"baseline", r.baseline},
          {"models", models_json(r.models)},
          {"differences", differences_json(r.differences)},
          {"slices", std::move(slices)},
          {"worst_slices", std::move(worst)},
          {"gates", std::move(gate_list)},
          {"passed", passed},
          {"conclusions", r.conclusions},
          {"notes", r.notes},
          {"params", params_json(r.params)}};
}

}  // namespace assay::report
