// Operating points: parsing `METRIC@RULE` and choosing a threshold among tie-block candidates.
#include "assay/compare/operating_point.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "assay/core/error.hpp"

namespace assay::compare {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct MetricName {
  std::string_view name;
  PointMetric metric;
};
constexpr std::array kMetricNames{
    MetricName{"threshold", PointMetric::threshold},
    MetricName{"precision", PointMetric::precision},
    MetricName{"recall", PointMetric::recall},
    MetricName{"tpr", PointMetric::recall},
    MetricName{"sensitivity", PointMetric::recall},
    MetricName{"specificity", PointMetric::specificity},
    MetricName{"tnr", PointMetric::specificity},
    MetricName{"fpr", PointMetric::fpr},
    MetricName{"fnr", PointMetric::fnr},
    MetricName{"f1", PointMetric::f1},
    MetricName{"accuracy", PointMetric::accuracy},
    MetricName{"balanced_accuracy", PointMetric::balanced_accuracy},
    MetricName{"mcc", PointMetric::mcc},
    MetricName{"youden", PointMetric::youden},
    MetricName{"cost", PointMetric::cost},
};
constexpr std::string_view kMetricList =
    "threshold, precision, recall, specificity, fpr, fnr, f1, accuracy, balanced_accuracy, mcc, "
    "youden or cost";
constexpr std::string_view kConstrainedList =
    "precision, recall, specificity, fpr, fnr, f1, accuracy, balanced_accuracy, mcc or youden";
constexpr std::string_view kRuleExamples =
    "a rule such as \"precision>=0.9\", \"fpr<=0.01\", \"max_f1\" or \"cost(fp=1,fn=5)\"";

std::string_view canonical_name(PointMetric metric) {
  for (const auto& m : kMetricNames) {
    if (m.metric == metric) return m.name;  // canonical names come before their aliases
  }
  return "?";
}

std::optional<PointMetric> lookup(std::string_view name) {
  for (const auto& m : kMetricNames) {
    if (m.name == name) return m.metric;
  }
  return std::nullopt;
}

/// Lower case without white space: "Recall @ Precision >= 90 %" -> "recall@precision>=90%".
std::string squeezed(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string canonical_rule(const PointRule& rule) {
  const std::string_view metric = canonical_name(rule.metric);
  switch (rule.kind) {
    case PointRule::Kind::maximize:
      return fmt::format("{}_{}", higher_is_better(rule.metric) ? "max" : "min", metric);
    case PointRule::Kind::at_least:
      return fmt::format("{}>={}", metric, rule.bound);
    case PointRule::Kind::at_most:
      return fmt::format("{}<={}", metric, rule.bound);
    case PointRule::Kind::cost:
      break;
  }
  return fmt::format("cost(fp={},fn={})", rule.cost_fp, rule.cost_fn);
}

/// The parser of one `METRIC@RULE`: `name` is the caller's spelling, quoted in every message.
class SpecParser {
 public:
  explicit SpecParser(std::string_view name) : name_(name), text_(squeezed(name)) {}

  PointMetricSpec parse() {
    const std::size_t at = text_.find('@');
    if (at == std::string::npos) {
      refuse("METRIC@RULE such as \"recall@precision>=0.9\"", text_);
    }
    PointMetricSpec spec;
    spec.metric = metric_before_at(std::string_view(text_).substr(0, at));
    spec.rule = rule(std::string_view(text_).substr(at + 1));
    if (spec.metric == PointMetric::cost && spec.rule.kind != PointRule::Kind::cost) {
      refuse("a cost rule such as \"cost(fp=1,fn=5)\" for the metric cost", rule_text_);
    }
    spec.text = std::string(canonical_name(spec.metric)) + "@" + canonical_rule(spec.rule);
    return spec;
  }

 private:
  [[noreturn]] void refuse(std::string_view expected, std::string_view found) const {
    fail("metric {}: expected {}, found {}", quote_found(name_), expected, quote_found(found));
  }

  PointMetric metric_before_at(std::string_view word) const {
    if (auto m = lookup(word)) return *m;
    refuse(fmt::format("one of {} before \"@\"", kMetricList), word);
  }

  PointRule rule(std::string_view text) {
    rule_text_ = text;
    if (text.starts_with("max_") || text.starts_with("min_")) return optimum(text);
    if (text.starts_with("cost(")) return cost(text);
    const std::size_t op = text.find_first_of("<>=!");
    if (op == std::string_view::npos) refuse(kRuleExamples, text);
    return constraint(text.substr(0, op), text.substr(op));
  }

  PointRule optimum(std::string_view text) const {
    const bool maximise = text.starts_with("max_");
    const auto metric = lookup(text.substr(4));
    if (!metric || *metric == PointMetric::threshold) refuse(kRuleExamples, text);
    if (*metric == PointMetric::cost) {
      if (maximise) refuse("min_cost or \"cost(fp=A,fn=B)\"", text);
      return PointRule{.kind = PointRule::Kind::cost, .metric = PointMetric::cost};
    }
    if (higher_is_better(*metric) != maximise) {
      // Maximising a rate that is better low (or the reverse) picks a useless extreme.
      const auto better = fmt::format("{}_{}", maximise ? "min" : "max", canonical_name(*metric));
      refuse(fmt::format("\"{}\" ({} is better {})", better, canonical_name(*metric),
                         maximise ? "low" : "high"),
             text);
    }
    return PointRule{.kind = PointRule::Kind::maximize, .metric = *metric};
  }

  PointRule cost(std::string_view text) const {
    constexpr std::string_view kShape =
        "a cost rule \"cost(fp=A,fn=B)\" such as \"cost(fp=1,fn=5)\"";
    if (!text.ends_with(")")) refuse(kShape, text);
    const std::string_view inner = text.substr(5, text.size() - 6);
    const std::size_t comma = inner.find(',');
    if (comma == std::string_view::npos) refuse(kShape, text);
    std::optional<double> fp, fn;
    for (std::string_view part : {inner.substr(0, comma), inner.substr(comma + 1)}) {
      std::optional<double>* slot = part.starts_with("fp=")   ? &fp
                                    : part.starts_with("fn=") ? &fn
                                                              : nullptr;
      if (slot == nullptr || slot->has_value()) refuse(kShape, text);
      *slot = number(part.substr(3), fmt::format("a cost after \"{}\"", part.substr(0, 3)));
      if (**slot < 0) refuse("costs >= 0", part);
    }
    if (*fp == 0 && *fn == 0) refuse("at least one positive cost", text);
    return PointRule{
        .kind = PointRule::Kind::cost, .metric = PointMetric::cost, .cost_fp = *fp, .cost_fn = *fn};
  }

  PointRule constraint(std::string_view word, std::string_view rest) const {
    const std::size_t op_end = rest.find_first_not_of("<>=!");
    const std::string_view op = rest.substr(0, op_end);
    if (op == ">" || op == "<") {
      refuse(fmt::format("\">=\" or \"<=\" after \"{}\" (a constraint includes its bound)", word),
             op);
    }
    if (op != ">=" && op != "<=") refuse(kRuleExamples, rule_text_);
    const auto metric = lookup(word);
    if (!metric || *metric == PointMetric::threshold || *metric == PointMetric::cost) {
      refuse(fmt::format("one of {} before \"{}\"", kConstrainedList, op), word);
    }
    const std::string_view bound_text = rest.substr(op.size());
    // + 0.0 turns -0 into 0 for the canonical text.
    const double bound = percent_number(bound_text, fmt::format("a number after \"{}\"", op)) + 0.0;
    const bool correlation = *metric == PointMetric::mcc || *metric == PointMetric::youden;
    const double lowest = correlation ? -1.0 : 0.0;
    if (bound < lowest || bound > 1) {
      refuse(fmt::format("a bound in [{}, 1] for {}", lowest, canonical_name(*metric)), bound_text);
    }
    return PointRule{.kind = op == ">=" ? PointRule::Kind::at_least : PointRule::Kind::at_most,
                     .metric = *metric,
                     .bound = bound};
  }

  /// A finite number, or with a trailing "%" one hundredth of it, read as "<digits>e-2" so that
  /// "1.1%" is the double nearest 0.011 (1.1 / 100 is not).
  double percent_number(std::string_view text, std::string_view expected) const {
    if (!text.ends_with("%")) return number(text, expected);
    const std::string_view digits = text.substr(0, text.size() - 1);
    if (digits.find('e') != std::string_view::npos) return number(digits, expected) / 100;
    number(digits, expected);  // refuses "%", "x%" before the exponent is appended
    return number(std::string(digits) + "e-2", expected);
  }

  double number(std::string_view text, std::string_view expected) const {
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(value)) {
      refuse(expected, text);
    }
    return value;
  }

  std::string_view name_;
  std::string text_;
  std::string_view rule_text_;
};

/// The quantity compared among feasible candidates (header: "natural objective").
PointMetric objective_of(const PointMetricSpec& spec) {
  switch (spec.rule.kind) {
    case PointRule::Kind::maximize:
      return spec.rule.metric;
    case PointRule::Kind::cost:
      return PointMetric::cost;
    case PointRule::Kind::at_least:
    case PointRule::Kind::at_most:
      break;
  }
  if (spec.metric != PointMetric::threshold) return spec.metric;
  const bool on_recall =
      spec.rule.metric == PointMetric::recall || spec.rule.metric == PointMetric::fnr;
  return on_recall ? PointMetric::precision : PointMetric::recall;
}

/// NaN never satisfies a constraint (the comparisons are false).
bool satisfies(const ChosenPoint& point, const PointRule& rule) {
  switch (rule.kind) {
    case PointRule::Kind::at_least:
      return point_value(point, rule.metric, rule) >= rule.bound;
    case PointRule::Kind::at_most:
      return point_value(point, rule.metric, rule) <= rule.bound;
    case PointRule::Kind::maximize:
    case PointRule::Kind::cost:
      break;
  }
  return true;
}

double mcc(double tp, double fp, double fn, double tn) {
  const double a = (tp + fp) * (tp + fn);
  const double b = (tn + fp) * (tn + fn);
  if (a == 0 || b == 0) return 0;  // scikit-learn's matthews_corrcoef
  return (tp * tn - fp * fn) / (std::sqrt(a) * std::sqrt(b));
}

/// Mean recall of the classes present, as scikit-learn's balanced_accuracy_score; one fraction
/// when both are present so that equal values compare equal (ties go to the larger threshold).
double balanced_accuracy(double tp, double fp, double fn, double tn) {
  const double pos = tp + fn, neg = tn + fp;
  if (pos == 0) return tn / neg;
  if (neg == 0) return tp / pos;
  return (tp * neg + tn * pos) / (2 * pos * neg);
}

}  // namespace

std::optional<PointMetric> point_metric_named(std::string_view name) {
  return lookup(name);
}

std::string_view to_string(PointMetric metric) {
  return canonical_name(metric);
}

bool is_point_metric(std::string_view name) {
  return name.find('@') != std::string_view::npos;
}

PointMetricSpec parse_point_metric(std::string_view name) {
  return SpecParser(name).parse();
}

bool higher_is_better(PointMetric metric) {
  return metric != PointMetric::fpr && metric != PointMetric::fnr && metric != PointMetric::cost;
}

ChosenPoint choose_point(const metrics::OperatingPoints& points, const PointMetricSpec& spec) {
  const PointMetric objective = objective_of(spec);
  const double sign = higher_is_better(objective) ? 1.0 : -1.0;
  ChosenPoint best;
  double best_score = 0;
  auto consider = [&](double threshold, double tp, double fp) {
    const ChosenPoint candidate{
        true, threshold, tp, fp, points.total_pos - tp, points.total_neg - fp};
    if (!satisfies(candidate, spec.rule)) return;
    const double score = sign * point_value(candidate, objective, spec.rule);
    // Strictly better only: candidates come in descending threshold, so ties keep the larger.
    if (std::isnan(score) || (best.feasible && !(score > best_score))) return;
    best = candidate;
    best_score = score;
  };
  consider(kInf, 0, 0);
  for (std::size_t k = 0; k < points.threshold.size(); ++k) {
    consider(points.threshold[k], points.tp[k], points.fp[k]);
  }
  return best;
}

double point_value(const ChosenPoint& point, PointMetric metric, const PointRule& rule) {
  const double tp = point.tp, fp = point.fp, fn = point.fn, tn = point.tn;
  const double total = tp + fp + fn + tn;
  if (total == 0 && metric != PointMetric::threshold) return kNaN;
  switch (metric) {
    case PointMetric::threshold:
      return point.threshold;
    case PointMetric::precision:
      return tp / (tp + fp);
    case PointMetric::recall:
      return tp / (tp + fn);
    case PointMetric::specificity:
      return tn / (tn + fp);
    case PointMetric::fpr:
      return fp / (tn + fp);
    case PointMetric::fnr:
      return fn / (tp + fn);
    // One fraction each (not 2PR/(P+R), tpr - fpr): equal values compare equal.
    case PointMetric::f1:
      return 2 * tp / (2 * tp + fp + fn);
    case PointMetric::accuracy:
      return (tp + tn) / total;
    case PointMetric::balanced_accuracy:
      return balanced_accuracy(tp, fp, fn, tn);
    case PointMetric::mcc:
      return mcc(tp, fp, fn, tn);
    case PointMetric::youden:
      return (tp * (tn + fp) - fp * (tp + fn)) / ((tp + fn) * (tn + fp));
    case PointMetric::cost:
      return (rule.cost_fp * fp + rule.cost_fn * fn) / total;
  }
  return kNaN;
}

}  // namespace assay::compare
