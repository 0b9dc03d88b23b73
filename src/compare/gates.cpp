// Gates: parsing against a result, evaluation on point estimates or interval bounds, JUnit XML.
#include "assay/compare/gates.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/error.hpp"

namespace assay::compare {
namespace {

constexpr std::string_view kExample = "\"roc_auc >= 0.85\"";
constexpr std::string_view kPairExample = "\"f1 drop <= 0.01 vs a\"";

// A whitespace-separated word and where it sits in the gate's text (so multi-word parts, such
// as model names with spaces, keep their spelling).
struct Token {
  std::string_view text;
  std::size_t begin = 0;
  std::size_t end = 0;
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::vector<Token> tokens_of(std::string_view text) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t begin = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > begin) out.push_back({text.substr(begin, i - begin), begin, i});
  }
  return out;
}

// The text from token `first` to token `last` (exclusive), as written; "" when empty.
std::string span_text(std::string_view text, const std::vector<Token>& tokens, std::size_t first,
                      std::size_t last) {
  if (first >= last) return "";
  return std::string(text.substr(tokens[first].begin, tokens[last - 1].end - tokens[first].begin));
}

bool is_operator(std::string_view word) {
  return word == ">=" || word == ">" || word == "<=" || word == "<";
}

std::string joined(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

std::vector<std::string> model_names(const CompareResult& result) {
  std::vector<std::string> names;
  for (const auto& m : result.models) names.push_back(m.name);
  return names;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A number, or a percentage ("85%" = 0.85); nullopt when the word is not one. Infinite and NaN
// values are returned as such so that the caller can name them.
std::optional<double> parse_number(std::string_view word) {
  const bool percent = !word.empty() && word.back() == '%';
  if (percent) word.remove_suffix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (word.empty() || end != word.data() + word.size()) return std::nullopt;
  if (error == std::errc::result_out_of_range) {  // 1e999 overflows to inf, 1e-999 to 0
    return std::strtod(std::string(word).c_str(), nullptr);
  }
  if (error != std::errc()) return std::nullopt;
  return percent ? value / 100 : value;
}

[[noreturn]] void fail_grammar(std::size_t number, const std::string& text) {
  fail("gate {}: expected a comparison such as {}, found {}", number, kExample, quote_found(text));
}

std::string checked_metric(std::size_t number, const std::string& name,
                           const CompareResult& result) {
  std::string canonical;
  try {
    canonical = canonical_metric(name, result.task);
  } catch (const Error&) {
    canonical.clear();  // reported below, against the metrics that were compared
  }
  if (canonical.empty() || !contains(result.metrics, canonical)) {
    fail("gate {}: unknown metric {} (compared: {})", number, quote_found(name),
         joined(result.metrics));
  }
  return canonical;
}

void check_model(std::size_t number, const std::string& name, const CompareResult& result) {
  if (!contains(model_names(result), name)) {
    fail("gate {}: unknown model {} (models: {})", number, quote_found(name),
         joined(model_names(result)));
  }
}

const Difference* find_difference(const CompareResult& result, const std::string& model,
                                  const std::string& baseline, const std::string& metric) {
  for (const auto& d : result.differences) {
    if (d.model == model && d.baseline == baseline && d.metric == metric) return &d;
  }
  return nullptr;
}

// A drop or gain needs each other model's difference with the reference, in either order.
void check_pairs(std::size_t number, const Gate& gate, const CompareResult& result) {
  if (result.models.size() < 2) {
    fail("gate {}: \"vs {}\" needs another model to compare with, and {} is the only model", number,
         gate.model, gate.model);
  }
  for (const auto& m : result.models) {
    if (m.name == gate.model || find_difference(result, m.name, gate.model, gate.metric) ||
        find_difference(result, gate.model, m.name, gate.metric)) {
      continue;
    }
    fail(
        "gate {}: the difference between {} and {} on {} was not computed (each model is "
        "compared with the baseline {}: pass --baseline {} or --pairs all)",
        number, m.name, gate.model, gate.metric, result.baseline, gate.model);
  }
}

// Splits "METRIC", "METRIC of MODEL" or "METRIC drop|gain" (tokens [0, end)) into the gate.
void parse_left(std::size_t number, const std::string& text, const std::vector<Token>& tokens,
                std::size_t end, Gate& gate) {
  std::size_t metric_end = end;
  const auto last = tokens[end - 1].text;
  if (last == "drop" || last == "gain") {
    gate.kind = last == "drop" ? Gate::Kind::drop : Gate::Kind::gain;
    metric_end = end - 1;
  } else {
    // The first "of": metric names never contain the word, model names may.
    for (std::size_t i = 0; i < end; ++i) {
      if (tokens[i].text != "of") continue;
      gate.model = span_text(text, tokens, i + 1, end);
      if (gate.model.empty()) fail_grammar(number, text);
      metric_end = i;
      break;
    }
  }
  gate.metric = span_text(text, tokens, 0, metric_end);
  if (gate.metric.empty()) fail_grammar(number, text);
}

// Parses "NUMBER" or "NUMBER vs MODEL" (tokens [first, end)) into the gate.
void parse_right(std::size_t number, const std::string& text, const std::vector<Token>& tokens,
                 std::size_t first, Gate& gate) {
  const auto value = first < tokens.size() ? parse_number(tokens[first].text) : std::nullopt;
  if (!value) fail_grammar(number, text);
  if (!std::isfinite(*value)) {
    fail("gate {}: expected a finite number, found {}", number, quote_found(tokens[first].text));
  }
  gate.bound = *value;
  const bool pair = gate.kind != Gate::Kind::value;
  const bool has_vs = first + 1 < tokens.size();
  if (has_vs && (tokens[first + 1].text != "vs" || first + 2 >= tokens.size())) {
    fail_grammar(number, text);
  }
  if (has_vs && !pair) {
    fail("gate {}: \"vs MODEL\" needs a drop or gain, such as {}, found {}", number, kPairExample,
         quote_found(text));
  }
  if (pair && !has_vs) {
    fail("gate {}: a drop or gain needs \"vs MODEL\", such as {}, found {}", number, kPairExample,
         quote_found(text));
  }
  if (pair) gate.model = span_text(text, tokens, first + 2, tokens.size());
}

// The gate's operator is the last word that is exactly >=, >, <= or <: operating-point metrics
// contain operators too ("recall@precision >= 0.9 >= 0.7"), but only inside the metric, which
// comes first. Hence the gate's operator must stand alone, between spaces.
Gate parse_gate(std::size_t number, const std::string& text, const CompareResult& result) {
  const auto tokens = tokens_of(text);
  std::size_t op = tokens.size();
  for (std::size_t i = tokens.size(); i-- > 0;) {
    if (is_operator(tokens[i].text)) {
      op = i;
      break;
    }
  }
  if (op == tokens.size() || op == 0) fail_grammar(number, text);
  Gate gate;
  gate.text = text;
  gate.op = std::string(tokens[op].text);
  parse_left(number, text, tokens, op, gate);
  parse_right(number, text, tokens, op + 1, gate);
  gate.metric = checked_metric(number, gate.metric, result);
  if (!gate.model.empty()) check_model(number, gate.model, result);
  if (gate.kind != Gate::Kind::value) check_pairs(number, gate, result);
  return gate;
}

// ---- evaluation ----

struct Quantity {
  std::string name;  // "roc_auc", "f1 drop vs a"
  double estimate = 0;
  double low = 0;
  double high = 0;
};

bool holds(double value, const std::string& op, double bound) {
  if (op == ">=") return value >= bound;
  if (op == ">") return value > bound;
  if (op == "<=") return value <= bound;
  return value < bound;
}

// The relation that holds when `op` does not: what a failure message states.
std::string negation(const std::string& op) {
  if (op == ">=") return "<";
  if (op == ">") return "<=";
  if (op == "<=") return ">";
  return ">=";
}

bool uses_lower(GateOn on, const std::string& op) {
  if (on == GateOn::interval) return op == ">=" || op == ">";
  return on == GateOn::lower;
}

std::string number_text(double x) {
  return fmt::format("{:.4g}", x);
}

const MetricValue& metric_value(const ModelSummary& model, const std::string& metric) {
  for (const auto& v : model.metrics) {
    if (v.metric == metric) return v;
  }
  fail("model {} has no value of {} in the comparison", quote_found(model.name), metric);
}

Quantity value_quantity(const ModelSummary& model, const std::string& metric) {
  const auto& v = metric_value(model, metric);
  return {metric, v.value, v.low, v.high};
}

Quantity negated(Quantity q) {
  return {std::move(q.name), -q.estimate, -q.high, -q.low};
}

// How much worse (drop) or better (gain) `model` is than the gate's reference: model - reference
// is the gain of a higher-is-better metric and the drop of a loss. A pair stored the other way
// round (reference - model) is negated first.
Quantity pair_quantity(const Gate& gate, const std::string& model, const CompareResult& result) {
  const auto* forward = find_difference(result, model, gate.model, gate.metric);
  const auto* stored = forward ? forward : find_difference(result, gate.model, model, gate.metric);
  if (!stored) fail("no difference between {} and {} on {}", model, gate.model, gate.metric);
  const bool gain = gate.kind == Gate::Kind::gain;
  Quantity q{fmt::format("{} {} vs {}", gate.metric, gain ? "gain" : "drop", gate.model),
             stored->difference, stored->percentile.low, stored->percentile.high};
  if (!forward) q = negated(std::move(q));
  return gain == stored->higher_is_better ? q : negated(std::move(q));
}

// What an outcome is evaluated on ("lower bound of the 95% interval"), and the other numbers
// worth stating next to it.
struct Basis {
  std::string name;
  std::string detail;
};

Basis basis_of(const Quantity& q, GateOn on, bool lower, const CompareResult& result) {
  const std::string level = number_text(result.params.bootstrap.confidence * 100) + "%";
  if (on != GateOn::point) {
    return {fmt::format("{} bound of the {} interval", lower ? "lower" : "upper", level),
            "; point estimate " + number_text(q.estimate)};
  }
  if (std::isnan(q.low) || std::isnan(q.high)) return {"point estimate", ""};
  return {"point estimate",
          fmt::format("; {} interval {} to {}", level, number_text(q.low), number_text(q.high))};
}

GateOutcome outcome(const Gate& gate, const std::string& model, const Quantity& q, GateOn on,
                    const CompareResult& result) {
  const bool lower = uses_lower(on, gate.op);
  const double value = on == GateOn::point ? q.estimate : lower ? q.low : q.high;
  GateOutcome out{gate.text, model, value, q.estimate, q.low, q.high, false, ""};
  const Basis basis = basis_of(q, on, lower, result);
  if (std::isnan(value)) {
    const bool no_resamples = on != GateOn::point && result.params.bootstrap.n_resamples == 0;
    out.message = fmt::format("{}: {} is undefined: fails ({} is NaN{})", model, q.name, basis.name,
                              no_resamples ? ": no resamples, so no interval" : "");
    return out;
  }
  out.passed = holds(value, gate.op, gate.bound);
  // A failure states the relation that does hold: "0.012 > 0.01: fails" for "<= 0.01".
  out.message = fmt::format("{}: {} {} {} {}{} ({}{})", model, q.name, number_text(value),
                            out.passed ? gate.op : negation(gate.op), number_text(gate.bound),
                            out.passed ? "" : ": fails", basis.name, basis.detail);
  return out;
}

// Value gates apply to the named model, else to every candidate; drops and gains to every model
// but the reference.
bool applies(const Gate& gate, const std::string& model, const CompareResult& result) {
  if (gate.kind != Gate::Kind::value) return model != gate.model;
  return gate.model.empty() ? model != result.baseline : model == gate.model;
}

// ---- JUnit XML ----

bool allowed_in_xml(unsigned char c) {
  return c >= 0x20 || c == '\t' || c == '\n' || c == '\r';
}

// Valid UTF-8 with bytes that are not (a file name, a model name from a CSV header) replaced by
// U+FFFD, since a single bad byte makes the document unreadable.
std::string valid_utf8(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    const std::size_t bad = invalid_utf8_at(text);
    if (bad == std::string_view::npos) {
      out += text;
      break;
    }
    out += text.substr(0, bad);
    out += "\xEF\xBF\xBD";
    text.remove_prefix(bad + 1);
  }
  return out;
}

// Escapes for element text or (attribute) for an attribute value, where a raw tab or newline
// would be read back as a space. Drops the characters XML 1.0 forbids: controls other than tab,
// newline and carriage return, and U+FFFE, U+FFFF.
std::string xml_escaped(std::string_view raw, bool attribute) {
  const std::string text = valid_utf8(raw);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!allowed_in_xml(static_cast<unsigned char>(c))) continue;
    if (text.compare(i, 2, "\xEF\xBF") == 0 && i + 2 < text.size() &&
        (text[i + 2] == '\xBE' || text[i + 2] == '\xBF')) {
      i += 2;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\r':
        out += "&#13;";
        break;  // a raw CR would be read back as a newline
      default:
        out += c;
    }
  }
  return out;
}

std::string attribute(std::string_view text) {
  return xml_escaped(text, true);
}
std::string element_text(std::string_view text) {
  return xml_escaped(text, false);
}

std::string testcase_xml(const GateOutcome& o) {
  std::string out = fmt::format("    <testcase classname=\"assay.compare.gates\" name=\"{}\">\n",
                                attribute(o.gate + " [" + o.model + "]"));
  if (o.passed) {
    out += fmt::format("      <system-out>{}</system-out>\n", element_text(o.message));
  } else {
    out += fmt::format("      <failure message=\"{}\">{}</failure>\n", attribute(o.message),
                       element_text(o.message));
  }
  return out + "    </testcase>\n";
}

}  // namespace

GateOn parse_gate_on(const std::string& name, std::string_view what) {
  if (name == "point") return GateOn::point;
  if (name == "lower") return GateOn::lower;
  if (name == "upper") return GateOn::upper;
  if (name == "interval") return GateOn::interval;
  fail("{}{}expected point, lower, upper or interval, found {}", what, what.empty() ? "" : ": ",
       quote_found(name));
}

std::vector<Gate> parse_gates(const std::vector<std::string>& texts, const CompareResult& result) {
  std::vector<Gate> gates;
  for (std::size_t i = 0; i < texts.size(); ++i)
    gates.push_back(parse_gate(i + 1, texts[i], result));
  return gates;
}

std::vector<GateOutcome> evaluate_gates(const std::vector<Gate>& gates, const CompareResult& result,
                                        GateOn on) {
  std::vector<GateOutcome> outcomes;
  for (const auto& gate : gates) {
    for (const auto& m : result.models) {
      if (!applies(gate, m.name, result)) continue;
      const Quantity q = gate.kind == Gate::Kind::value ? value_quantity(m, gate.metric)
                                                        : pair_quantity(gate, m.name, result);
      outcomes.push_back(outcome(gate, m.name, q, on, result));
    }
  }
  return outcomes;
}

bool all_passed(const std::vector<GateOutcome>& outcomes) {
  return std::all_of(outcomes.begin(), outcomes.end(), [](const auto& o) { return o.passed; });
}

std::string gates_junit_xml(const std::vector<GateOutcome>& outcomes, const std::string& suite) {
  const auto failures =
      std::count_if(outcomes.begin(), outcomes.end(), [](const auto& o) { return !o.passed; });
  const std::string counts =
      fmt::format("tests=\"{}\" failures=\"{}\" errors=\"0\"", outcomes.size(), failures);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{}\" {}>\n", attribute(suite), counts);
  out += fmt::format("  <testsuite name=\"{}\" {}>\n", attribute(suite), counts);
  for (const auto& o : outcomes) out += testcase_xml(o);
  return out + "  </testsuite>\n</testsuites>\n";
}

}  // namespace assay::compare
