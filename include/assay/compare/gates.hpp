// Gates for CI pipelines: conditions a comparison must meet before a model may ship, evaluated
// on a CompareResult; `assay compare --gate ...` exits 1 when one fails and writes JUnit XML.
//
// Grammar (one gate per string; metric names as in compare.hpp, aliases allowed):
//   METRIC OP NUMBER                 every candidate's metric (candidates = every model but the
//                                    baseline), e.g. "roc_auc >= 0.85"
//   METRIC of MODEL OP NUMBER        one model's metric, e.g. "brier of b <= 0.2"
//   METRIC drop OP NUMBER vs MODEL   how much worse each other model is than MODEL (MODEL's
//                                    value minus the candidate's for higher-is-better metrics,
//                                    the reverse for losses), e.g. "f1 drop <= 0.01 vs production"
//   METRIC gain OP NUMBER vs MODEL   how much better (minus the drop)
// OP is one of >=, >, <=, <, standing alone between spaces: the gate's operator is the last such
// word, so an operating-point metric keeps its own ("recall@precision>=0.9 >= 0.7", or spaced
// "recall @ precision >= 90% >= 0.7"), and "roc_auc>=0.85" is refused. NUMBER is finite and may
// end in % (divided by 100). MODEL is the rest of the text, spaces included. A drop or gain needs
// each other model's difference with MODEL (either order), so unless every pair was compared,
// MODEL is the baseline (or one of only two models).
//
// Evaluated on the point estimate, or on an interval bound (GateOn): `lower`/`upper` use that
// bound of the gated quantity's bootstrap interval; `interval` uses the bound least favourable to
// passing (lower for >= and >, upper for <= and <).
//
// Example:
//   auto gates = parse_gates({"roc_auc >= 0.85", "f1 drop <= 0.01 vs a"}, result);
//   auto outcomes = evaluate_gates(gates, result, GateOn::point);
//   bool ok = all_passed(outcomes);
//   std::string xml = gates_junit_xml(outcomes, "assay compare");
#pragma once

#include <string>
#include <vector>

#include "assay/compare/compare.hpp"

namespace assay::compare {

enum class GateOn { point, lower, upper, interval };
/// "point" | "lower" | "upper" | "interval" ("WHAT: expected ..." otherwise, as compare.hpp's).
GateOn parse_gate_on(const std::string& name, std::string_view what = "gate-on");

struct Gate {
  std::string text;  ///< as written
  std::string metric;
  enum class Kind { value, drop, gain };
  Kind kind = Kind::value;
  std::string model;  ///< value: "" = every candidate; drop/gain: the reference ("vs MODEL")
  std::string op;     ///< ">=", ">", "<=", "<"
  double bound = 0;
};

/// Parses each gate and checks its metric (canonical_metric, then among result.metrics), model and
/// pairs against the result. Errors name the gate by its 1-based position: `gate 2: expected a
/// comparison such as "roc_auc >= 0.85", found "roc_auc => 0.85"`; `gate 1: unknown metric
/// "auc_roc" (compared: roc_auc, f1)`; `gate 3: unknown model "prod" (models: a, b)`; `gate 1:
/// expected a finite number, found "inf"`; `gate 1: the difference between c and b on f1 was not
/// computed (each model is compared with the baseline a: pass --baseline b or --pairs all)`.
std::vector<Gate> parse_gates(const std::vector<std::string>& texts, const CompareResult& result);

/// The same checks as parse_gates, against what compare(input, params) will compute (its
/// metrics, models and pairs), before any work: a malformed gate fails in milliseconds, not
/// after the bootstrap. Without params.metrics every metric of the task is accepted here (the
/// run's own parse_gates then holds the gate to the default set).
void check_gates_before_work(const std::vector<std::string>& texts, const CompareInput& input,
                             const CompareParams& params);

struct GateOutcome {
  std::string gate;   ///< the gate's text
  std::string model;  ///< the model it was evaluated on
  double value = 0;   ///< the gated quantity as evaluated (point or bound); NaN = undefined
  double estimate = 0;
  double low = 0;
  double high = 0;
  bool passed = false;
  /// Why, in one sentence (numbers to 4 significant digits), stating the relation that holds:
  /// "b: roc_auc 0.859 >= 0.85 (lower bound of the 95% interval; point estimate 0.871)",
  /// "b: f1 drop vs a 0.012 > 0.01: fails (point estimate; 95% interval 0.004 to 0.02)".
  std::string message;
};

/// One outcome per gate and model it applies to, in gate order, then model order. A NaN
/// quantity (an undefined metric, or a bound without resamples) fails.
std::vector<GateOutcome> evaluate_gates(const std::vector<Gate>& gates, const CompareResult& result,
                                        GateOn on);

bool all_passed(const std::vector<GateOutcome>& outcomes);

/// JUnit XML: one <testsuite name=suite> with one <testcase name="GATE [model]"> per outcome, a
/// <failure> for each failed one and <system-out> for each passed one (the message), as Jenkins,
/// GitLab and GitHub test reporters read. Text is escaped, characters XML 1.0 forbids are
/// dropped and bytes that are not UTF-8 become U+FFFD, so the document is always well-formed.
std::string gates_junit_xml(const std::vector<GateOutcome>& outcomes, const std::string& suite);

}  // namespace assay::compare
