#include "assay/report/count_networks.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "assay/count/bounds.hpp"
#include "report_util.hpp"

namespace assay::report {

namespace {

// A vector for reading: every value up to 16, else the first 12 and how many there are (an
// image's 784 or 3072 inputs would bury the rest; the JSON output holds every value).
std::string shown_values(const std::vector<double>& values) {
  constexpr std::size_t kAll = 16, kFirst = 12;
  std::string text;
  const std::size_t n = values.size() <= kAll ? values.size() : kFirst;
  for (std::size_t i = 0; i < n; ++i) text += fmt::format("{}{:.9g}", i ? ", " : "", values[i]);
  if (n < values.size()) {
    text += fmt::format(", ... ({} values in all; the JSON output lists every one)", values.size());
  }
  return text;
}

using count::SplitResult;

// 1 - v rounded down / up (the safe share from the unsafe share's bounds).
double one_minus_down(double v) {
  const double r = 1.0 - v;
  return std::max(0.0, v >= 0.5 ? r : count::round_down(r));
}
double one_minus_up(double v) {
  const double r = 1.0 - v;
  return std::min(1.0, v >= 0.5 ? r : count::round_up(r));
}

Json numbers(const std::vector<double>& v) {
  Json a = Json::array();
  for (const double x : v) a.push_back(detail::json_number(x));
  return a;
}

std::string percent(double v) {
  if (std::isnan(v)) return std::string(kMissingText);
  return fmt::format("{:.6f}%", 100 * v);
}

}  // namespace

Json split_json(const SplitResult& r, const std::string& model, const std::string& property) {
  Json j;
  j["method"] = "split";
  j["model"] = model;
  j["property"] = property;
  j["domain"] = r.domain;
  j["route"] = r.route;
  j["inputs"] = r.n_inputs;
  j["outputs"] = r.n_outputs;
  j["regions"] = r.n_regions;
  j["decision"] = r.decision;
  j["finished"] = r.finished;
  j["unsafe"] = {{"lower", r.unsafe_lower}, {"upper", r.unsafe_upper}};
  j["safe"] = {{"lower", one_minus_down(r.unsafe_upper)}, {"upper", one_minus_up(r.unsafe_lower)}};
  if (r.domain == "grid") {
    j["total"] = r.total.get_str();
    j["unsafe_count"] = {r.unsafe_count_lower.get_str(), r.unsafe_count_upper.get_str()};
  } else {
    j["volume"] = r.volume;
  }
  if (r.counterexample) {
    j["counterexample"] = {{"x", numbers(*r.counterexample)},
                           {"y", numbers(r.counterexample_outputs)},
                           {"source", r.counterexample_source}};
  } else {
    j["counterexample"] = nullptr;
  }
  j["boxes"] = {{"bounded", r.boxes},
                {"safe", r.safe_boxes},
                {"unsafe", r.unsafe_boxes},
                {"enumerated", r.enumerated_boxes},
                {"open", r.open_boxes}};
  j["seconds"] = r.seconds;
  j["decision_seconds"] = r.decision_seconds < 0 ? Json(nullptr) : Json(r.decision_seconds);
  j["stopped_by"] = r.stopped_by;
  j["stop_message"] = r.stop_message;
  j["memory_budget"] = r.memory_budget;
  j["sample"] = {
      {"k", r.sample.k},
      {"n", r.sample.n},
      {"value", detail::json_number(r.sample.value)},
      {"clopper_pearson",
       {detail::json_number(r.sample.exact_low), detail::json_number(r.sample.exact_high)}},
      {"confidence", r.confidence}};
  if (!r.sample_stopped_by.empty()) {
    j["sample"]["requested"] = r.sample_requested;
    j["sample"]["stopped_by"] = r.sample_stopped_by;
  }
  Json trace = Json::array();
  for (const auto& t : r.trace) {
    trace.push_back(
        {{"seconds", t.seconds}, {"lower", t.lower}, {"upper", t.upper}, {"boxes", t.boxes}});
  }
  j["trace"] = trace;
  return j;
}

std::string split_text(const SplitResult& r, const std::string& model,
                       const std::string& property) {
  std::string s =
      fmt::format("{} on {}: {} ({} domain, {} inputs, {} region{})\n", property, model, r.decision,
                  r.domain, r.n_inputs, r.n_regions, r.n_regions == 1 ? "" : "s");
  s += fmt::format("unsafe share: [{}, {}]{}\n", percent(r.unsafe_lower), percent(r.unsafe_upper),
                   r.finished ? " (everything decided)" : " (certified interval)");
  if (r.route != "input splitting") {
    s += fmt::format(
        "route: {} (the unsafe share above is certified; the sampled share below is a "
        "statistical estimate)\n",
        r.route);
  }
  if (r.domain == "grid") {
    s += r.unsafe_count_lower == r.unsafe_count_upper
             ? fmt::format("unsafe points: {} of {} (exact)\n", r.unsafe_count_lower.get_str(),
                           r.total.get_str())
             : fmt::format("unsafe points: [{}, {}] of {}\n", r.unsafe_count_lower.get_str(),
                           r.unsafe_count_upper.get_str(), r.total.get_str());
  }
  if (r.sample.n > 0) {
    s += fmt::format("sampled: {} of {} unsafe = {}, {:g}% Clopper-Pearson [{}, {}]{}\n",
                     r.sample.k, r.sample.n, percent(r.sample.value), 100 * r.confidence,
                     percent(r.sample.exact_low), percent(r.sample.exact_high),
                     r.sample_stopped_by.empty()
                         ? ""
                         : fmt::format(" ({} of {} points drawn: {})", r.sample.n,
                                       r.sample_requested, r.sample_stopped_by));
  }
  if (r.counterexample) {
    s += fmt::format("counterexample ({}): x = [{}], y = [{}]\n", r.counterexample_source,
                     shown_values(*r.counterexample), shown_values(r.counterexample_outputs));
  }
  s += fmt::format(
      "{}: {} bounded ({} safe, {} unsafe, {} enumerated, {} open); {:.3f} s, stopped: {}",
      r.route == "input splitting" ? "boxes" : "sub-problems", r.boxes, r.safe_boxes,
      r.unsafe_boxes, r.enumerated_boxes, r.open_boxes, r.seconds, r.stopped_by);
  if (r.decision_seconds >= 0) s += fmt::format("; decided after {:.3f} s", r.decision_seconds);
  s += '\n';
  if (!r.stop_message.empty()) s += r.stop_message + '\n';
  return s;
}

Json split_interval_chart(const SplitResult& r, const ChartParams& params) {
  Json spec = detail::base_spec(
      params, "Certified unsafe share against time",
      fmt::format("The band is the certified interval [lower, upper] of the unsafe share; the "
                  "dashed rule and grey band are the estimate from {} uniform samples and its "
                  "{:g}% Clopper-Pearson interval.",
                  r.sample.n, 100 * r.confidence));
  Json band = Json::array();
  for (const auto& t : r.trace) {
    band.push_back({{"seconds", t.seconds},
                    {"lower", t.lower},
                    {"upper", t.upper},
                    {"width", t.upper - t.lower},
                    {"boxes", t.boxes}});
  }
  const double t_end = r.trace.empty() ? r.seconds : r.trace.back().seconds;
  const Json x = {{"field", "seconds"}, {"type", "quantitative"}, {"title", "seconds"}};
  const Json y = {{"field", "lower"},
                  {"type", "quantitative"},
                  {"title", "unsafe share"},
                  {"scale", {{"domain", {0, 1}}}}};
  Json layers = Json::array();
  if (r.sample.n > 0) {
    Json est = Json::array({{{"seconds", 0.0},
                             {"lo", r.sample.exact_low},
                             {"hi", r.sample.exact_high},
                             {"value", r.sample.value}},
                            {{"seconds", t_end},
                             {"lo", r.sample.exact_low},
                             {"hi", r.sample.exact_high},
                             {"value", r.sample.value}}});
    layers.push_back({{"data", {{"values", est}}},
                      {"mark", {{"type", "area"}, {"color", detail::kGuideGrey}, {"opacity", 0.3}}},
                      {"encoding",
                       {{"x", x},
                        {"y", {{"field", "lo"}, {"type", "quantitative"}}},
                        {"y2", {{"field", "hi"}}}}}});
    layers.push_back(
        {{"data", {{"values", est}}},
         {"mark", {{"type", "line"}, {"strokeDash", {4, 3}}, {"color", detail::kGuideGrey}}},
         {"encoding", {{"x", x}, {"y", {{"field", "value"}, {"type", "quantitative"}}}}}});
  }
  layers.push_back({{"data", {{"values", band}}},
                    {"mark", {{"type", "area"}, {"opacity", 0.5}, {"interpolate", "step-after"}}},
                    {"encoding",
                     {{"x", x},
                      {"y", y},
                      {"y2", {{"field", "upper"}}},
                      {"tooltip", Json::array({detail::tooltip("seconds", "seconds", ".3f"),
                                               detail::tooltip("lower", "lower", ".6f"),
                                               detail::tooltip("upper", "upper", ".6f"),
                                               detail::tooltip("boxes", "boxes", "d")})}}}});
  spec["layer"] = layers;
  return spec;
}

HtmlReport split_html(const SplitResult& r, const std::string& model, const std::string& property) {
  HtmlReport page("assay count: " + property + " on " + model);
  const bool splitting = r.route == "input splitting";
  page.add_paragraph(fmt::format(
      "Decision: {}. The unsafe share of the input domain lies in the certified interval [{}, {}] "
      "(sound bounds of the network {}; {} {} bounded in {:.3f} s, stopped: {}).",
      r.decision, percent(r.unsafe_lower), percent(r.unsafe_upper),
      splitting ? "on every piece of the domain" : "on every sub-problem", r.boxes,
      splitting ? (r.boxes == 1 ? "piece" : "pieces")
                : (r.boxes == 1 ? "sub-problem" : "sub-problems"),
      r.seconds, r.stopped_by));
  if (!splitting) {
    page.add_paragraph(fmt::format(
        "Route: {} (each sub-problem is a set of fixed ReLU phases over the whole box). It "
        "certifies [0, 0] when the property holds and nothing narrower than [0, 1] otherwise; the "
        "sampled interval below is statistical.",
        r.route));
  }
  std::vector<std::vector<std::string>> rows{
      {"unsafe share (certified)", percent(r.unsafe_lower), percent(r.unsafe_upper)}};
  if (r.sample.n > 0) {
    rows.push_back(
        {fmt::format("unsafe share (sample of {}, {:g}% interval)", r.sample.n, 100 * r.confidence),
         percent(r.sample.exact_low), percent(r.sample.exact_high)});
  }
  page.add_table({"", "lower", "upper"}, rows);
  if (r.counterexample) {
    page.add_paragraph(fmt::format("Counterexample ({}): x = [{}]", r.counterexample_source,
                                   shown_values(*r.counterexample)));
  }
  page.add_chart("Certified interval against time", split_interval_chart(r));
  page.add_json("JSON", split_json(r, model, property));
  return page;
}

}  // namespace assay::report
