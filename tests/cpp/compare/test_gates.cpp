// compare/gates: the gate grammar (value, "of MODEL", drop/gain "vs MODEL", percentages,
// operating-point metric names), its error messages, evaluation on the point estimate and on
// interval bounds (drops and gains of higher- and lower-is-better metrics, reversed pairs, NaN)
// and the JUnit XML.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "assay/compare/gates.hpp"
#include "assay/core/error.hpp"
#include "test_util.hpp"

namespace ac = assay::compare;
using Strings = std::vector<std::string>;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ac::MetricValue value(const std::string& metric, double v, double low, double high) {
  return {.metric = metric, .value = v, .low = low, .high = high};
}

ac::Difference difference(const std::string& model, const std::string& baseline,
                          const std::string& metric, double d, double low, double high) {
  ac::Difference out;
  out.model = model;
  out.baseline = baseline;
  out.metric = metric;
  out.higher_is_better = metric != "brier";
  out.difference = d;
  out.percentile = {d, low, high};
  return out;
}

// Binary task, baseline a; b is better than a on roc_auc and brier, worse on f1; c the reverse
// on f1 and brier. Differences are each model minus a.
ac::CompareResult sample_result() {
  ac::CompareResult r;
  r.task = ac::Task::binary;
  r.metrics = {"roc_auc", "f1", "brier"};
  r.baseline = "a";
  r.models = {{"a",
               {value("roc_auc", 0.80, 0.78, 0.82), value("f1", 0.70, 0.68, 0.72),
                value("brier", 0.20, 0.19, 0.21)}},
              {"b",
               {value("roc_auc", 0.871, 0.859, 0.884), value("f1", 0.688, 0.67, 0.705),
                value("brier", 0.15, 0.14, 0.16)}},
              {"c",
               {value("roc_auc", 0.84, 0.82, 0.86), value("f1", 0.72, 0.70, 0.74),
                value("brier", 0.22, 0.21, 0.23)}}};
  r.differences = {difference("b", "a", "roc_auc", 0.071, 0.05, 0.09),
                   difference("b", "a", "f1", -0.012, -0.02, -0.004),
                   difference("b", "a", "brier", -0.05, -0.06, -0.04),
                   difference("c", "a", "roc_auc", 0.04, 0.02, 0.06),
                   difference("c", "a", "f1", 0.02, 0.005, 0.035),
                   difference("c", "a", "brier", 0.02, 0.01, 0.03)};
  return r;
}

// As sample_result, with every pair (c - b added), as --pairs all gives.
ac::CompareResult all_pairs_result() {
  auto r = sample_result();
  r.params.all_pairs = true;
  r.differences.push_back(difference("c", "b", "f1", 0.032, 0.01, 0.05));
  r.differences.push_back(difference("c", "b", "brier", 0.07, 0.05, 0.09));
  return r;
}

ac::Gate parse_one(const std::string& text, const ac::CompareResult& r = sample_result()) {
  return ac::parse_gates({text}, r).at(0);
}

std::vector<ac::GateOutcome> evaluate(const Strings& texts, ac::GateOn on,
                                      const ac::CompareResult& r = sample_result()) {
  return ac::evaluate_gates(ac::parse_gates(texts, r), r, on);
}

Strings messages(const std::vector<ac::GateOutcome>& outcomes) {
  Strings out;
  for (const auto& o : outcomes) out.push_back(o.message);
  return out;
}

void expect_parse_error(const Strings& texts, const std::string& message,
                        const ac::CompareResult& r = sample_result()) {
  EXPECT_THROW_MSG(ac::parse_gates(texts, r), assay::Error, message);
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// ---- parsing ----

TEST(GateOn, ParsesEveryModeAndRefusesOthers) {
  EXPECT_EQ(ac::parse_gate_on("point"), ac::GateOn::point);
  EXPECT_EQ(ac::parse_gate_on("lower"), ac::GateOn::lower);
  EXPECT_EQ(ac::parse_gate_on("upper"), ac::GateOn::upper);
  EXPECT_EQ(ac::parse_gate_on("interval"), ac::GateOn::interval);
  EXPECT_THROW_MSG(ac::parse_gate_on("bound"), assay::Error,
                   "gate-on: expected point, lower, upper or interval, found \"bound\"");
}

TEST(ParseGates, ValueGateOnEveryCandidate) {
  const auto g = parse_one("roc_auc >= 0.85");
  EXPECT_EQ(g.text, "roc_auc >= 0.85");
  EXPECT_EQ(g.metric, "roc_auc");
  EXPECT_EQ(g.kind, ac::Gate::Kind::value);
  EXPECT_EQ(g.model, "");
  EXPECT_EQ(g.op, ">=");
  EXPECT_DOUBLE_EQ(g.bound, 0.85);
}

TEST(ParseGates, EveryOperatorAliasesPercentAndExtraSpaces) {
  EXPECT_EQ(parse_one("f1 > 0.5").op, ">");
  EXPECT_EQ(parse_one("brier <= 0.2").op, "<=");
  EXPECT_EQ(parse_one("brier < 0.2").op, "<");
  const auto g = parse_one("  AUC \t>=   85%  ");
  EXPECT_EQ(g.metric, "roc_auc");
  EXPECT_EQ(g.op, ">=");
  EXPECT_DOUBLE_EQ(g.bound, 0.85);
  EXPECT_EQ(parse_one("brier_score < 2e-1").metric, "brier");
  EXPECT_DOUBLE_EQ(parse_one("f1 > -0.5").bound, -0.5);
  EXPECT_EQ(parse_one("f1 > 1e-999").bound, 0);  // underflows to 0, still finite
}

TEST(ParseGates, OneModelsValue) {
  const auto g = parse_one("brier of b <= 0.2");
  EXPECT_EQ(g.kind, ac::Gate::Kind::value);
  EXPECT_EQ(g.metric, "brier");
  EXPECT_EQ(g.model, "b");
  EXPECT_EQ(g.op, "<=");
  EXPECT_DOUBLE_EQ(g.bound, 0.2);
}

TEST(ParseGates, ModelNamesKeepTheirSpellingAndMayContainOf) {
  auto r = sample_result();
  r.models[2].name = "best of  breed";
  r.differences[3].model = r.differences[4].model = r.differences[5].model = "best of  breed";
  EXPECT_EQ(parse_one("f1 of best of  breed > 0.5", r).model, "best of  breed");
  const auto out = evaluate({"f1 of best of  breed > 0.5"}, ac::GateOn::point, r);
  EXPECT_EQ(out.at(0).message,
            "best of  breed: f1 0.72 > 0.5 (point estimate; 95% interval 0.7 to 0.74)");
}

TEST(ParseGates, DropAndGainAgainstAModel) {
  const auto drop = parse_one("f1 drop <= 0.01 vs a");
  EXPECT_EQ(drop.kind, ac::Gate::Kind::drop);
  EXPECT_EQ(drop.metric, "f1");
  EXPECT_EQ(drop.model, "a");
  EXPECT_EQ(drop.op, "<=");
  EXPECT_DOUBLE_EQ(drop.bound, 0.01);
  const auto gain = parse_one("brier_score gain > 1% vs a");
  EXPECT_EQ(gain.kind, ac::Gate::Kind::gain);
  EXPECT_EQ(gain.metric, "brier");
  EXPECT_EQ(gain.model, "a");
  EXPECT_EQ(gain.op, ">");
  EXPECT_DOUBLE_EQ(gain.bound, 0.01);
}

TEST(ParseGates, ReferenceMayBeAnyModelWhenItsPairsWereComputed) {
  // Only b - a exists for a, read reversed; c - b exists with every pair.
  EXPECT_EQ(parse_one("f1 gain >= 0 vs b", all_pairs_result()).model, "b");
}

TEST(ParseGates, TheGatesOperatorIsTheLastStandaloneOne) {
  // Operating-point metrics hold operators too; the metric's own need no spaces around them.
  auto r = sample_result();
  r.metrics.push_back("recall@precision>=0.9");
  for (auto& m : r.models) m.metrics.push_back(value("recall@precision>=0.9", 0.7, 0.6, 0.8));
  const auto g = parse_one("recall@precision>=0.9 >= 0.7", r);
  EXPECT_EQ(g.metric, "recall@precision>=0.9");
  EXPECT_EQ(g.op, ">=");
  EXPECT_DOUBLE_EQ(g.bound, 0.7);
  const auto spaced = parse_one("recall @ precision >= 90% of b < 75%", r);
  EXPECT_EQ(spaced.metric, "recall@precision>=0.9");
  EXPECT_EQ(spaced.model, "b");
  EXPECT_EQ(spaced.op, "<");
  EXPECT_DOUBLE_EQ(spaced.bound, 0.75);
}

TEST(ParseGates, EmptyListGivesNoGates) {
  EXPECT_TRUE(ac::parse_gates({}, sample_result()).empty());
}

// ---- parse errors ----

TEST(ParseGates, RefusesTextThatIsNotAComparison) {
  expect_parse_error({"roc_auc >= 0.85", "roc_auc => 0.85"},
                     "gate 2: expected a comparison such as \"roc_auc >= 0.85\", found "
                     "\"roc_auc => 0.85\"");
  for (const std::string text :
       {"roc_auc>=0.85", ">= 0.85", "roc_auc >=", "roc_auc >= abc", "roc_auc >= 0.85 0.9",
        "roc_auc >= 0.85 vs", "roc_auc >= 0.85 versus a", "roc_auc of >= 0.85", "roc_auc >= %",
        "roc_auc >= 0.85%%", "", "   "}) {
    expect_parse_error({text}, "gate 1: expected a comparison such as \"roc_auc >= 0.85\", found " +
                                   assay::quote_found(text));
  }
}

TEST(ParseGates, RefusesANumberThatIsNotFinite) {
  expect_parse_error({"roc_auc >= inf"}, "gate 1: expected a finite number, found \"inf\"");
  expect_parse_error({"f1 > nan%"}, "gate 1: expected a finite number, found \"nan%\"");
  expect_parse_error({"f1 > 1e999"}, "gate 1: expected a finite number, found \"1e999\"");
}

TEST(ParseGates, RefusesUnknownMetricsListingTheComparedOnes) {
  expect_parse_error({"auc_roc >= 0.8"},
                     "gate 1: unknown metric \"auc_roc\" (compared: roc_auc, f1, brier)");
  // Known to assay, but not compared in this run.
  expect_parse_error({"f1 > 0.5", "accuracy >= 0.8"},
                     "gate 2: unknown metric \"accuracy\" (compared: roc_auc, f1, brier)");
  expect_parse_error({"mae drop <= 0.1 vs a"},
                     "gate 1: unknown metric \"mae\" (compared: roc_auc, f1, brier)");
}

TEST(ParseGates, RefusesUnknownModelsListingTheModels) {
  expect_parse_error({"f1 > 0.5", "f1 > 0.5", "brier of prod <= 0.2"},
                     "gate 3: unknown model \"prod\" (models: a, b, c)");
  expect_parse_error({"f1 drop <= 0.01 vs prod"},
                     "gate 1: unknown model \"prod\" (models: a, b, c)");
}

TEST(ParseGates, DropAndGainNeedVsAndOnlyThey) {
  expect_parse_error({"f1 drop <= 0.01"},
                     "gate 1: a drop or gain needs \"vs MODEL\", such as \"f1 drop <= 0.01 vs "
                     "a\", found \"f1 drop <= 0.01\"");
  expect_parse_error({"f1 <= 0.01 vs a"},
                     "gate 1: \"vs MODEL\" needs a drop or gain, such as \"f1 drop <= 0.01 vs "
                     "a\", found \"f1 <= 0.01 vs a\"");
}

TEST(ParseGates, RefusesVsTheOnlyModel) {
  auto r = sample_result();
  r.models.resize(1);
  r.differences.clear();
  expect_parse_error({"f1 drop <= 0.01 vs a"},
                     "gate 1: \"vs a\" needs another model to compare with, and a is the only "
                     "model",
                     r);
}

TEST(ParseGates, RefusesAPairThatWasNotComputed) {
  // Against the baseline only: a - b is b - a reversed, but c - b was not computed.
  expect_parse_error({"f1 gain >= 0 vs b"},
                     "gate 1: the difference between c and b on f1 was not computed (each "
                     "model is compared with the baseline a: pass --baseline b or --pairs all)");
}

// ---- evaluation ----

TEST(EvaluateGates, ValueGateOnThePointEstimateOfEveryCandidate) {
  const auto out = evaluate({"roc_auc >= 0.85"}, ac::GateOn::point);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].gate, "roc_auc >= 0.85");
  EXPECT_EQ(out[0].model, "b");
  EXPECT_TRUE(out[0].passed);
  EXPECT_DOUBLE_EQ(out[0].value, 0.871);
  EXPECT_DOUBLE_EQ(out[0].estimate, 0.871);
  EXPECT_DOUBLE_EQ(out[0].low, 0.859);
  EXPECT_DOUBLE_EQ(out[0].high, 0.884);
  EXPECT_EQ(out[1].model, "c");
  EXPECT_FALSE(out[1].passed);
  EXPECT_EQ(messages(out),
            (Strings{"b: roc_auc 0.871 >= 0.85 (point estimate; 95% interval 0.859 to 0.884)",
                     "c: roc_auc 0.84 < 0.85: fails (point estimate; 95% interval 0.82 to 0.86)"}));
  EXPECT_FALSE(ac::all_passed(out));
}

TEST(EvaluateGates, OfModelGatesThatModelOnlyEvenTheBaseline) {
  const auto out = evaluate({"brier of a < 20%", "brier of b < 0.2"}, ac::GateOn::point);
  EXPECT_EQ(messages(out), (Strings{"a: brier 0.2 >= 0.2: fails (point estimate; 95% interval "
                                    "0.19 to 0.21)",
                                    "b: brier 0.15 < 0.2 (point estimate; 95% interval 0.14 to "
                                    "0.16)"}));
}

TEST(EvaluateGates, LowerAndUpperBounds) {
  const auto lower = evaluate({"roc_auc > 0.85"}, ac::GateOn::lower);
  EXPECT_DOUBLE_EQ(lower[0].value, 0.859);
  EXPECT_DOUBLE_EQ(lower[0].estimate, 0.871);
  EXPECT_EQ(messages(lower),
            (Strings{"b: roc_auc 0.859 > 0.85 (lower bound of the 95% interval; point estimate "
                     "0.871)",
                     "c: roc_auc 0.82 <= 0.85: fails (lower bound of the 95% interval; point "
                     "estimate 0.84)"}));
  const auto upper = evaluate({"roc_auc > 0.85"}, ac::GateOn::upper);
  EXPECT_DOUBLE_EQ(upper[1].value, 0.86);
  EXPECT_TRUE(ac::all_passed(upper));
}

TEST(EvaluateGates, IntervalUsesTheBoundLeastFavourableToPassing) {
  const auto out =
      evaluate({"roc_auc >= 0.85", "brier < 0.155", "brier <= 0.25"}, ac::GateOn::interval);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_DOUBLE_EQ(out[0].value, 0.859);  // >=: lower
  EXPECT_DOUBLE_EQ(out[1].value, 0.82);
  EXPECT_DOUBLE_EQ(out[2].value, 0.16);  // <: upper
  EXPECT_EQ(out[2].message,
            "b: brier 0.16 >= 0.155: fails (upper bound of the 95% interval; point estimate 0.15)");
  EXPECT_DOUBLE_EQ(out[5].value, 0.23);  // <=: upper
  EXPECT_TRUE(out[5].passed);
}

TEST(EvaluateGates, ConfidenceLevelComesFromTheResult) {
  auto r = sample_result();
  r.params.bootstrap.confidence = 0.9;
  EXPECT_EQ(evaluate({"roc_auc of b >= 0.85"}, ac::GateOn::upper, r)[0].message,
            "b: roc_auc 0.884 >= 0.85 (upper bound of the 90% interval; point estimate 0.871)");
}

TEST(EvaluateGates, DropOfAHigherIsBetterMetric) {
  // b - a = -0.012 [-0.02, -0.004]: a drop of 0.012 [0.004, 0.02]; c gains 0.02.
  const auto out = evaluate({"f1 drop <= 0.01 vs a"}, ac::GateOn::point);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(out[0].estimate, 0.012);
  EXPECT_DOUBLE_EQ(out[0].low, 0.004);
  EXPECT_DOUBLE_EQ(out[0].high, 0.02);
  EXPECT_DOUBLE_EQ(out[1].estimate, -0.02);
  EXPECT_EQ(messages(out),
            (Strings{"b: f1 drop vs a 0.012 > 0.01: fails (point estimate; 95% interval 0.004 "
                     "to 0.02)",
                     "c: f1 drop vs a -0.02 <= 0.01 (point estimate; 95% interval -0.035 to "
                     "-0.005)"}));
  EXPECT_EQ(evaluate({"f1 drop <= 0.01 vs a"}, ac::GateOn::interval)[0].message,
            "b: f1 drop vs a 0.02 > 0.01: fails (upper bound of the 95% interval; point "
            "estimate 0.012)");
  const auto lower = evaluate({"f1 drop <= 0.01 vs a"}, ac::GateOn::lower);
  EXPECT_DOUBLE_EQ(lower[0].value, 0.004);
  EXPECT_TRUE(lower[0].passed);
}

TEST(EvaluateGates, GainOfAHigherIsBetterMetric) {
  const auto out = evaluate({"roc_auc gain > 0.05 vs a"}, ac::GateOn::interval);
  EXPECT_DOUBLE_EQ(out[0].value, 0.05);  // b - a: 0.071 [0.05, 0.09]; lower bound, not > 0.05
  EXPECT_FALSE(out[0].passed);
  EXPECT_DOUBLE_EQ(out[1].estimate, 0.04);
  EXPECT_DOUBLE_EQ(out[1].value, 0.02);
  EXPECT_EQ(out[0].message,
            "b: roc_auc gain vs a 0.05 <= 0.05: fails (lower bound of the 95% interval; point "
            "estimate 0.071)");
}

TEST(EvaluateGates, DropAndGainOfALowerIsBetterMetric) {
  // brier b - a = -0.05 [-0.06, -0.04]: b is better, a drop of -0.05, a gain of 0.05.
  const auto gain = evaluate({"brier gain >= 0.03 vs a"}, ac::GateOn::interval);
  EXPECT_DOUBLE_EQ(gain[0].estimate, 0.05);
  EXPECT_DOUBLE_EQ(gain[0].low, 0.04);
  EXPECT_DOUBLE_EQ(gain[0].high, 0.06);
  EXPECT_DOUBLE_EQ(gain[0].value, 0.04);
  EXPECT_TRUE(gain[0].passed);
  EXPECT_DOUBLE_EQ(gain[1].estimate, -0.02);  // c - a = 0.02 [0.01, 0.03]: worse
  EXPECT_DOUBLE_EQ(gain[1].value, -0.03);
  EXPECT_FALSE(gain[1].passed);
  const auto drop = evaluate({"brier drop < 0.01 vs a"}, ac::GateOn::upper);
  EXPECT_DOUBLE_EQ(drop[0].estimate, -0.05);
  EXPECT_DOUBLE_EQ(drop[0].value, -0.04);
  EXPECT_TRUE(drop[0].passed);
  EXPECT_DOUBLE_EQ(drop[1].value, 0.03);
  EXPECT_EQ(drop[1].message,
            "c: brier drop vs a 0.03 >= 0.01: fails (upper bound of the 95% interval; point "
            "estimate 0.02)");
}

TEST(EvaluateGates, ReversedPairFlipsTheSignAndSwapsTheBounds) {
  // Against b: a's pair is stored as b - a (f1 -0.012 [-0.02, -0.004]), so a - b = 0.012
  // [0.004, 0.02]; c - b is stored as such.
  const auto r = all_pairs_result();
  const auto gain = evaluate({"f1 gain >= 0.01 vs b"}, ac::GateOn::point, r);
  ASSERT_EQ(gain.size(), 2u);
  EXPECT_EQ(gain[0].model, "a");
  EXPECT_DOUBLE_EQ(gain[0].estimate, 0.012);
  EXPECT_DOUBLE_EQ(gain[0].low, 0.004);
  EXPECT_DOUBLE_EQ(gain[0].high, 0.02);
  EXPECT_EQ(gain[1].model, "c");
  EXPECT_DOUBLE_EQ(gain[1].estimate, 0.032);
  EXPECT_TRUE(ac::all_passed(gain));
  // brier a - b = 0.05 [0.04, 0.06]: a is worse than b, a drop of 0.05.
  const auto drop = evaluate({"brier drop <= 0.01 vs b"}, ac::GateOn::lower, r);
  EXPECT_DOUBLE_EQ(drop[0].estimate, 0.05);
  EXPECT_DOUBLE_EQ(drop[0].low, 0.04);
  EXPECT_DOUBLE_EQ(drop[0].high, 0.06);
  EXPECT_EQ(drop[0].message,
            "a: brier drop vs b 0.04 > 0.01: fails (lower bound of the 95% interval; point "
            "estimate 0.05)");
  EXPECT_DOUBLE_EQ(drop[1].estimate, 0.07);
}

TEST(EvaluateGates, OutcomesInGateOrderThenModelOrder) {
  const auto out = evaluate({"f1 > 0", "brier of c < 1", "f1 gain > -1 vs a"}, ac::GateOn::point);
  ASSERT_EQ(out.size(), 5u);
  const Strings order{out[0].gate + " " + out[0].model, out[1].gate + " " + out[1].model,
                      out[2].gate + " " + out[2].model, out[3].gate + " " + out[3].model,
                      out[4].gate + " " + out[4].model};
  EXPECT_EQ(order, (Strings{"f1 > 0 b", "f1 > 0 c", "brier of c < 1 c", "f1 gain > -1 vs a b",
                            "f1 gain > -1 vs a c"}));
  EXPECT_TRUE(ac::all_passed(out));
  EXPECT_TRUE(ac::all_passed({}));
}

TEST(EvaluateGates, NaNIsUndefinedAndFails) {
  auto r = sample_result();
  r.models[2].metrics[0].value = kNaN;
  const auto out = evaluate({"roc_auc >= 0"}, ac::GateOn::point, r);
  EXPECT_TRUE(out[0].passed);
  EXPECT_FALSE(out[1].passed);
  EXPECT_TRUE(std::isnan(out[1].value));
  EXPECT_EQ(out[1].message, "c: roc_auc is undefined: fails (point estimate is NaN)");
  // A NaN difference fails a drop gate whichever way it is compared.
  r.differences[4].difference = kNaN;
  EXPECT_EQ(evaluate({"f1 drop < 1 vs a"}, ac::GateOn::point, r)[1].message,
            "c: f1 drop vs a is undefined: fails (point estimate is NaN)");
  EXPECT_FALSE(evaluate({"f1 drop >= -1 vs a"}, ac::GateOn::point, r)[1].passed);
}

TEST(EvaluateGates, WithoutResamplesOnlyThePointEstimateIsDefined) {
  auto r = sample_result();
  r.params.bootstrap.n_resamples = 0;
  for (auto& m : r.models) {
    for (auto& v : m.metrics) v.low = v.high = kNaN;
  }
  EXPECT_EQ(evaluate({"roc_auc of b >= 0.85"}, ac::GateOn::point, r)[0].message,
            "b: roc_auc 0.871 >= 0.85 (point estimate)");
  const auto lower = evaluate({"roc_auc of b >= 0.85"}, ac::GateOn::interval, r);
  EXPECT_FALSE(lower[0].passed);
  EXPECT_EQ(lower[0].message,
            "b: roc_auc is undefined: fails (lower bound of the 95% interval is NaN: no "
            "resamples, so no interval)");
}

// ---- JUnit XML ----

TEST(GatesJunitXml, OneTestcasePerOutcomeWithFailuresAndSystemOut) {
  const auto out = evaluate({"roc_auc >= 0.85"}, ac::GateOn::point);
  const std::string xml = ac::gates_junit_xml(out, "assay compare");
  EXPECT_EQ(xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"assay compare\" tests=\"2\" failures=\"1\" errors=\"0\">\n"
            "  <testsuite name=\"assay compare\" tests=\"2\" failures=\"1\" errors=\"0\">\n"
            "    <testcase classname=\"assay.compare.gates\" name=\"roc_auc &gt;= 0.85 [b]\">\n"
            "      <system-out>b: roc_auc 0.871 &gt;= 0.85 (point estimate; 95% interval 0.859 "
            "to 0.884)</system-out>\n"
            "    </testcase>\n"
            "    <testcase classname=\"assay.compare.gates\" name=\"roc_auc &gt;= 0.85 [c]\">\n"
            "      <failure message=\"c: roc_auc 0.84 &lt; 0.85: fails (point estimate; 95% "
            "interval 0.82 to 0.86)\">c: roc_auc 0.84 &lt; 0.85: fails (point estimate; 95% "
            "interval 0.82 to 0.86)</failure>\n"
            "    </testcase>\n"
            "  </testsuite>\n"
            "</testsuites>\n");
}

TEST(GatesJunitXml, EmptyOutcomesGiveAnEmptySuite) {
  const std::string xml = ac::gates_junit_xml({}, "s");
  EXPECT_NE(xml.find("<testsuite name=\"s\" tests=\"0\" failures=\"0\" errors=\"0\">"),
            std::string::npos);
  EXPECT_EQ(occurrences(xml, "<testcase"), 0u);
}

TEST(GatesJunitXml, EscapesMarkupAndDropsWhatXmlForbids) {
  ac::GateOutcome o;
  o.gate = "f1 of <a & \"b\"> >= 'x'";
  o.model = "m\x01";
  o.passed = false;
  // A control character, a tab and newline, a byte that is not UTF-8, U+FFFF, and é (kept).
  o.message = "bad\x02 \t\nline \xFF end \xEF\xBF\xBF caf\xC3\xA9 & ]]>";
  ac::GateOutcome passed = o;
  passed.passed = true;
  const std::string xml = ac::gates_junit_xml({o, passed}, "suite <&>");
  EXPECT_NE(xml.find("<testsuites name=\"suite &lt;&amp;&gt;\" tests=\"2\" failures=\"1\""),
            std::string::npos);
  EXPECT_NE(xml.find("name=\"f1 of &lt;a &amp; &quot;b&quot;&gt; &gt;= &apos;x&apos; [m]\""),
            std::string::npos);
  EXPECT_NE(xml.find("<failure message=\"bad &#9;&#10;line \xEF\xBF\xBD end  caf\xC3\xA9 &amp; "
                     "]]&gt;\">bad \t\nline \xEF\xBF\xBD end  caf\xC3\xA9 &amp; ]]&gt;</failure>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<system-out>bad \t\nline \xEF\xBF\xBD end  caf\xC3\xA9 &amp; "
                     "]]&gt;</system-out>"),
            std::string::npos)
      << xml;
  for (const char forbidden : {'\x01', '\x02', '\xFF'}) {
    EXPECT_EQ(xml.find(forbidden), std::string::npos) << static_cast<int>(forbidden);
  }
  EXPECT_EQ(xml.find("\xEF\xBF\xBF"), std::string::npos);
  EXPECT_EQ(assay::invalid_utf8_at(xml), std::string::npos);
  EXPECT_EQ(occurrences(xml, "<testcase "), occurrences(xml, "</testcase>"));
  EXPECT_EQ(occurrences(xml, "<failure "), 1u);
  EXPECT_EQ(occurrences(xml, "<system-out>"), 1u);
}

}  // namespace
