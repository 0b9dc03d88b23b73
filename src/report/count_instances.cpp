#include "assay/report/count_instances.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/core/table.hpp"
#include "report_util.hpp"

namespace assay::report {

namespace {

using count::InstanceOutcome;
using count::InstancesResult;

constexpr const char* kResults[] = {"sat", "unsat", "timeout", "unknown", "error", "not run"};

std::map<std::string, std::size_t> counts(const InstancesResult& r) {
  std::map<std::string, std::size_t> n;
  for (const char* k : kResults) n[k] = 0;
  for (const auto& row : r.rows) ++n[row.result];
  return n;
}

Json numbers(const std::vector<double>& v) {
  Json a = Json::array();
  for (const double x : v) a.push_back(detail::json_number(x));
  return a;
}

Json nullable(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

// The statistical estimate beside the certified interval (null when no sample was drawn).
Json sample_json(const InstanceOutcome& o) {
  if (o.sample.n == 0) return nullptr;
  return {{"k", o.sample.k},
          {"n", o.sample.n},
          {"value", detail::json_number(o.sample.value)},
          {"clopper_pearson",
           {detail::json_number(o.sample.exact_low), detail::json_number(o.sample.exact_high)}},
          {"confidence", o.confidence}};
}

Json row_json(const InstanceOutcome& o) {
  Json j = {{"line", o.row.line},
            {"network", o.row.network},
            {"property", o.row.property},
            {"timeout", o.row.timeout},
            {"time_limit", o.time_limit},
            {"result", o.result},
            {"seconds", o.seconds},
            {"unsafe", {{"lower", o.unsafe_lower}, {"upper", o.unsafe_upper}}},
            {"sample", sample_json(o)},
            {"route", nullable(o.route)},
            {"boxes", o.boxes},
            {"stopped_by", o.stopped_by},
            {"message", o.message},
            {"result_file", nullable(o.result_file)},
            {"counterexample", nullptr}};
  if (o.result == "sat") {
    j["counterexample"] = {{"x", numbers(o.counterexample)},
                           {"y", numbers(o.counterexample_outputs)}};
  }
  return j;
}

// An interval of shares as the split report prints them (percent), "" when nothing ran.
std::string share(const InstanceOutcome& o) {
  if (o.result == "not run" || o.result == "error") return "";
  return fmt::format("[{:.4f}%, {:.4f}%]", 100 * o.unsafe_lower, 100 * o.unsafe_upper);
}

// The sample's estimate and Clopper-Pearson interval, "" when none was drawn.
std::string sampled_share(const InstanceOutcome& o) {
  if (o.sample.n == 0) return "";
  return fmt::format("{:.2f}% [{:.2f}%, {:.2f}%]", 100 * o.sample.value, 100 * o.sample.exact_low,
                     100 * o.sample.exact_high);
}

}  // namespace

Json instances_json(const InstancesResult& r) {
  Json rows = Json::array();
  for (const auto& o : r.rows) rows.push_back(row_json(o));
  Json c = Json::object();
  const auto n = counts(r);
  for (const char* k : kResults) c[k] = n.at(k);
  c["decided"] = n.at("sat") + n.at("unsat");
  return {{"method", "instances"},
          {"instances", r.file},
          {"results", nullable(r.results)},
          {"time_limit", r.time_limit},
          {"seconds", r.seconds},
          {"interrupted", r.interrupted},
          {"counts", c},
          {"rows", rows}};
}

std::string instances_text(const InstancesResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& o : r.rows) {
    rows.push_back({o.row.network, o.row.property, o.result,
                    o.result == "not run" ? "" : fmt::format("{:.2f}", o.seconds), share(o),
                    sampled_share(o)});
  }
  std::string s;
  if (!rows.empty()) {
    s = detail::text_table(
        {"network", "property", "result", "seconds", "unsafe share", "sampled (statistical)"}, rows,
        3);
  }
  const auto n = counts(r);
  s += fmt::format(
      "{} instances of {}: {} decided ({} sat, {} unsat), {} timeout, {} unknown, {} "
      "error",
      r.rows.size(), r.file, n.at("sat") + n.at("unsat"), n.at("sat"), n.at("unsat"),
      n.at("timeout"), n.at("unknown"), n.at("error"));
  if (n.at("not run") > 0) s += fmt::format(", {} not run (interrupted)", n.at("not run"));
  s += fmt::format("; {:.2f} s", r.seconds);
  if (r.time_limit > 0) s += fmt::format(" (time limits capped at {:g} s)", r.time_limit);
  s += '\n';
  if (!r.results.empty()) s += fmt::format("result files in {}\n", r.results);
  for (const auto& o : r.rows) {
    if (!o.message.empty()) {
      s += fmt::format("{}:{}: {}: {}\n", r.file, o.row.line, o.result, o.message);
    }
  }
  return s;
}

std::string instances_csv(const InstancesResult& r) {
  std::vector<double> line, seconds, limit, lower, upper, sampled, sampled_low, sampled_high, boxes;
  std::vector<std::string> network, property, result, stopped, file, message;
  for (const auto& o : r.rows) {
    line.push_back(static_cast<double>(o.row.line));
    network.push_back(o.row.network);
    property.push_back(o.row.property);
    result.push_back(o.result);
    seconds.push_back(o.seconds);
    limit.push_back(o.time_limit);
    lower.push_back(o.unsafe_lower);
    upper.push_back(o.unsafe_upper);
    const bool drawn = o.sample.n > 0;
    sampled.push_back(drawn ? o.sample.value : std::nan(""));
    sampled_low.push_back(drawn ? o.sample.exact_low : std::nan(""));
    sampled_high.push_back(drawn ? o.sample.exact_high : std::nan(""));
    boxes.push_back(static_cast<double>(o.boxes));
    stopped.push_back(o.stopped_by);
    file.push_back(o.result_file);
    message.push_back(o.message);
  }
  Table t(r.file);
  t.add_column(Column::numeric("line", line));
  t.add_column(Column::categorical("network", network));
  t.add_column(Column::categorical("property", property));
  t.add_column(Column::categorical("result", result));
  t.add_column(Column::numeric("seconds", seconds));
  t.add_column(Column::numeric("time_limit", limit));
  t.add_column(Column::numeric("unsafe_lower", lower));
  t.add_column(Column::numeric("unsafe_upper", upper));
  t.add_column(Column::numeric("sampled_unsafe", sampled));
  t.add_column(Column::numeric("sampled_low", sampled_low));
  t.add_column(Column::numeric("sampled_high", sampled_high));
  t.add_column(Column::numeric("boxes", boxes));
  t.add_column(Column::categorical("stopped_by", stopped));
  t.add_column(Column::categorical("result_file", file));
  t.add_column(Column::categorical("message", message));
  return format_csv(t);
}

}  // namespace assay::report
