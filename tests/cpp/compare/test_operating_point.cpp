// Operating points: parsing `METRIC@RULE` (canonical text, aliases, every refusal) and choosing
// thresholds on hand-computed examples. Random data against a scikit-learn brute force lives in
// tests/python/test_compare_operating_point.py.
#include "assay/compare/operating_point.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "test_util.hpp"

namespace {

using assay::compare::choose_point;
using assay::compare::ChosenPoint;
using assay::compare::parse_point_metric;
using assay::compare::point_value;
using assay::compare::PointMetric;
using assay::compare::PointRule;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string canonical(const std::string& name) {
  return parse_point_metric(name).text;
}

void expect_refused(const std::string& name, const std::string& message) {
  EXPECT_THROW_MSG(parse_point_metric(name), assay::Error,
                   "metric \"" + name + "\": expected " + message);
}

// ---------------------------------------------------------------------------------------------
// Parsing.
// ---------------------------------------------------------------------------------------------

TEST(ParsePointMetric, CanonicalText) {
  EXPECT_EQ(canonical("recall@precision>=0.9"), "recall@precision>=0.9");
  EXPECT_EQ(canonical("Recall @ Precision >= 90 %"), "recall@precision>=0.9");
  EXPECT_EQ(canonical("TPR@FPR<=1%"), "recall@fpr<=0.01");
  EXPECT_EQ(canonical("sensitivity@tnr>=0.95"), "recall@specificity>=0.95");
  EXPECT_EQ(canonical("f1@max_f1"), "f1@max_f1");
  EXPECT_EQ(canonical("threshold@MAX_YOUDEN"), "threshold@max_youden");
  EXPECT_EQ(canonical("precision@max_tpr"), "precision@max_recall");
  EXPECT_EQ(canonical("fnr@min_fpr"), "fnr@min_fpr");
  EXPECT_EQ(canonical("recall@cost(fp=1, fn=5)"), "recall@cost(fp=1,fn=5)");
  EXPECT_EQ(canonical("recall@cost(fn=5,fp=1)"), "recall@cost(fp=1,fn=5)");
  EXPECT_EQ(canonical("cost@cost(fp=0.5,fn=0)"), "cost@cost(fp=0.5,fn=0)");
  EXPECT_EQ(canonical("precision@min_cost"), "precision@cost(fp=1,fn=1)");
  EXPECT_EQ(canonical("mcc@youden>=-0.5"), "mcc@youden>=-0.5");
  EXPECT_EQ(canonical("recall@precision>=-0"), "recall@precision>=0");
  EXPECT_EQ(canonical("recall@fpr<=1e-3"), "recall@fpr<=0.001");
}

TEST(ParsePointMetric, PercentIsTheNearestDouble) {
  // 1.1 / 100 is 0.011000000000000001; reading "1.1e-2" gives the double nearest 0.011.
  const auto spec = parse_point_metric("recall@precision>=1.1%");
  EXPECT_EQ(spec.rule.bound, 0.011);
  EXPECT_EQ(spec.text, "recall@precision>=0.011");
  EXPECT_EQ(parse_point_metric("recall@fpr<=1e-1%").rule.bound, 0.001);
}

TEST(ParsePointMetric, Fields) {
  const auto spec = parse_point_metric("precision@recall<=0.5");
  EXPECT_EQ(spec.metric, PointMetric::precision);
  EXPECT_EQ(spec.rule.kind, PointRule::Kind::at_most);
  EXPECT_EQ(spec.rule.metric, PointMetric::recall);
  EXPECT_EQ(spec.rule.bound, 0.5);
  const auto cost = parse_point_metric("cost@cost(fp=2,fn=3)");
  EXPECT_EQ(cost.rule.kind, PointRule::Kind::cost);
  EXPECT_EQ(cost.rule.cost_fp, 2);
  EXPECT_EQ(cost.rule.cost_fn, 3);
  EXPECT_TRUE(assay::compare::is_point_metric("recall@max_f1"));
  EXPECT_FALSE(assay::compare::is_point_metric("recall"));
  EXPECT_TRUE(assay::compare::higher_is_better(PointMetric::recall));
  EXPECT_FALSE(assay::compare::higher_is_better(PointMetric::fpr));
  EXPECT_FALSE(assay::compare::higher_is_better(PointMetric::fnr));
  EXPECT_FALSE(assay::compare::higher_is_better(PointMetric::cost));
}

TEST(ParsePointMetric, RefusesTheMetric) {
  expect_refused("recall", "METRIC@RULE such as \"recall@precision>=0.9\", found \"recall\"");
  const std::string metrics =
      "one of threshold, precision, recall, specificity, fpr, fnr, f1, accuracy, "
      "balanced_accuracy, mcc, youden or cost before \"@\", found ";
  expect_refused("recal@max_f1", metrics + "\"recal\"");
  expect_refused("@max_f1", metrics + "\"\"");
  expect_refused("cost@max_f1",
                 "a cost rule such as \"cost(fp=1,fn=5)\" for the metric cost, found \"max_f1\"");
}

TEST(ParsePointMetric, RefusesTheRule) {
  const std::string rule =
      "a rule such as \"precision>=0.9\", \"fpr<=0.01\", \"max_f1\" or \"cost(fp=1,fn=5)\", "
      "found ";
  expect_refused("recall@precision=>0.9", rule + "\"precision=>0.9\"");  // the header's example
  expect_refused("recall@precision==0.9", rule + "\"precision==0.9\"");
  expect_refused("recall@", rule + "\"\"");
  expect_refused("recall@precision", rule + "\"precision\"");
  expect_refused("recall@max_foo", rule + "\"max_foo\"");
  expect_refused("recall@max_threshold", rule + "\"max_threshold\"");
  expect_refused("recall@precision>0.9",
                 "\">=\" or \"<=\" after \"precision\" (a constraint includes its bound), "
                 "found \">\"");
  expect_refused("recall@fpr<0.1",
                 "\">=\" or \"<=\" after \"fpr\" (a constraint includes its bound), found \"<\"");
  expect_refused("recall@max_fpr", "\"min_fpr\" (fpr is better low), found \"max_fpr\"");
  expect_refused("recall@min_f1", "\"max_f1\" (f1 is better high), found \"min_f1\"");
  expect_refused("recall@max_cost", "min_cost or \"cost(fp=A,fn=B)\", found \"max_cost\"");
}

TEST(ParsePointMetric, RefusesTheConstraint) {
  const std::string constrained =
      "one of precision, recall, specificity, fpr, fnr, f1, accuracy, balanced_accuracy, mcc or "
      "youden before \">=\", found ";
  expect_refused("recall@threshold>=0.5", constrained + "\"threshold\"");
  expect_refused("recall@precison>=0.5", constrained + "\"precison\"");
  expect_refused("recall@>=0.5", constrained + "\"\"");
  expect_refused("recall@precision>=", "a number after \">=\", found \"\"");
  expect_refused("recall@precision>=abc", "a number after \">=\", found \"abc\"");
  expect_refused("recall@precision>=nan", "a number after \">=\", found \"nan\"");
  expect_refused("recall@precision>=%", "a number after \">=\", found \"\"");
  expect_refused("recall@fpr<=0.1.2", "a number after \"<=\", found \"0.1.2\"");
  expect_refused("recall@precision>=1.5", "a bound in [0, 1] for precision, found \"1.5\"");
  expect_refused("recall@precision>=150%", "a bound in [0, 1] for precision, found \"150%\"");
  expect_refused("recall@fpr<=-0.1", "a bound in [0, 1] for fpr, found \"-0.1\"");
  expect_refused("recall@mcc>=-2", "a bound in [-1, 1] for mcc, found \"-2\"");
}

TEST(ParsePointMetric, RefusesTheCosts) {
  const std::string shape = "a cost rule \"cost(fp=A,fn=B)\" such as \"cost(fp=1,fn=5)\", found ";
  expect_refused("recall@cost(fp=1)", shape + "\"cost(fp=1)\"");
  expect_refused("recall@cost(fp=1,fp=2)", shape + "\"cost(fp=1,fp=2)\"");
  expect_refused("recall@cost(fp=1,fn=2", shape + "\"cost(fp=1,fn=2\"");
  expect_refused("recall@cost(tp=1,fn=2)", shape + "\"cost(tp=1,fn=2)\"");
  expect_refused("recall@cost(fp=x,fn=1)", "a cost after \"fp=\", found \"x\"");
  expect_refused("recall@cost(fp=-1,fn=5)", "costs >= 0, found \"fp=-1\"");
  expect_refused("recall@cost(fp=0,fn=0)", "at least one positive cost, found \"cost(fp=0,fn=0)\"");
}

// ---------------------------------------------------------------------------------------------
// Choosing: six samples, P = N = 3, one per score, so the candidates are
//   threshold  +inf  0.9  0.8  0.7  0.6  0.5  0.4
//   tp            0    1    2    2    3    3    3
//   fp            0    0    0    1    1    2    3
// ---------------------------------------------------------------------------------------------

const std::vector<std::uint8_t> kY = {1, 1, 0, 1, 0, 0};
const std::vector<double> kScore = {0.9, 0.8, 0.7, 0.6, 0.5, 0.4};

ChosenPoint choose(const std::string& name, const std::vector<double>& weights = {},
                   const std::vector<std::uint8_t>& y = kY,
                   const std::vector<double>& score = kScore) {
  const assay::metrics::RankedScores ranked(y, score);
  return choose_point(ranked.operating_points(weights), parse_point_metric(name));
}

/// The threshold a rule chooses and the value of the spec's metric there (NaN if infeasible).
struct Outcome {
  double threshold;
  double value;
};
Outcome outcome(const std::string& name, const std::vector<double>& weights = {}) {
  const auto spec = parse_point_metric(name);
  const ChosenPoint p = choose(name, weights);
  if (!p.feasible) return {std::nan(""), std::nan("")};
  return {p.threshold, point_value(p, spec.metric, spec.rule)};
}

void expect_outcome(const std::string& name, double threshold, double value,
                    const std::vector<double>& weights = {}) {
  const Outcome o = outcome(name, weights);
  EXPECT_EQ(o.threshold, threshold) << name;
  EXPECT_DOUBLE_EQ(o.value, value) << name;
}

TEST(ChoosePoint, Constraints) {
  expect_outcome("recall@precision>=0.9", 0.8, 2.0 / 3);
  expect_outcome("precision@recall>=0.8", 0.6, 0.75);
  expect_outcome("recall@fpr<=0.01", 0.8, 2.0 / 3);
  expect_outcome("recall@fpr<=40%", 0.6, 1);
  expect_outcome("specificity@recall>=1", 0.6, 2.0 / 3);
  expect_outcome("fpr@recall>=0.5", 0.8, 0);  // fpr is minimised
  expect_outcome("f1@precision>=0.6", 0.6, 6.0 / 7);
  expect_outcome("mcc@precision>=0.7", 0.8, 6 / std::sqrt(72.0));  // ties with 0.6
}

TEST(ChoosePoint, ThresholdUsesTheNaturalObjective) {
  // Largest recall among precision >= 0.7: 0.6 (precision 3/4), not 0.8 (precision 1).
  expect_outcome("threshold@precision>=0.7", 0.6, 0.6);
  // Largest precision among recall >= 0.5: 0.8 (precision 1), not 0.7 or below.
  expect_outcome("threshold@recall>=0.5", 0.8, 0.8);
  expect_outcome("threshold@specificity>=0.6", 0.6, 0.6);
}

TEST(ChoosePoint, Maximize) {
  expect_outcome("f1@max_f1", 0.6, 6.0 / 7);
  expect_outcome("recall@max_f1", 0.6, 1);
  expect_outcome("threshold@max_mcc", 0.8, 0.8);         // 6 / sqrt(72) at 0.8 and 0.6
  expect_outcome("recall@max_precision", 0.9, 1.0 / 3);  // precision 1 at 0.9 and 0.8
  expect_outcome("threshold@min_fpr", kInf, kInf);       // fp = 0 from +inf down to 0.8
}

TEST(ChoosePoint, TiesGoToTheLargestThreshold) {
  // Accuracy 5/6 at 0.8 and 0.6; Youden 2/3 (= 2/3 - 0 = 1 - 1/3) at both.
  expect_outcome("accuracy@max_accuracy", 0.8, 5.0 / 6);
  expect_outcome("recall@max_youden", 0.8, 2.0 / 3);
  expect_outcome("recall@max_balanced_accuracy", 0.8, 2.0 / 3);
}

TEST(ChoosePoint, Cost) {
  expect_outcome("recall@cost(fp=1,fn=5)", 0.6, 1);
  expect_outcome("cost@cost(fp=1,fn=5)", 0.6, 1.0 / 6);
  expect_outcome("recall@cost(fp=5,fn=1)", 0.8, 2.0 / 3);
  expect_outcome("cost@min_cost", 0.8, 1.0 / 6);  // 0.8 and 0.6 tie
  // Only false positives cost: +inf, 0.9 and 0.8 cost nothing; the largest threshold wins.
  expect_outcome("threshold@cost(fp=1,fn=0)", kInf, kInf);
}

TEST(ChoosePoint, InfeasibleAndTheInfiniteCandidate) {
  EXPECT_FALSE(choose("recall@precision>=0.9", {}, {0, 1, 0, 1}, {0.9, 0.8, 0.7, 0.6}).feasible);
  const ChosenPoint none = choose("recall@fpr<=0", {}, {0, 1, 0, 1}, {0.9, 0.8, 0.7, 0.6});
  ASSERT_TRUE(none.feasible);
  EXPECT_EQ(none.threshold, kInf);
  EXPECT_EQ(none.tp, 0);
  EXPECT_EQ(none.fp, 0);
  EXPECT_EQ(none.fn, 2);
  EXPECT_EQ(none.tn, 2);
  EXPECT_TRUE(std::isnan(point_value(none, PointMetric::precision)));
  EXPECT_EQ(point_value(none, PointMetric::mcc), 0);  // scikit-learn's 0 for a 0 denominator
  EXPECT_EQ(point_value(none, PointMetric::f1), 0);
  // No positives: recall is NaN everywhere, so the objective never wins.
  EXPECT_FALSE(choose("recall@fpr<=0.5", {}, {0, 0, 0}, {0.3, 0.2, 0.1}).feasible);
  // Everything has zero weight: nothing qualifies, not even mcc's 0.
  EXPECT_FALSE(choose("mcc@max_mcc", {0, 0, 0, 0, 0, 0}).feasible);
}

TEST(ChoosePoint, TiedScoresAreOneCandidate) {
  // Candidates: +inf (0, 0), 0.5 (tp 2, fp 1), 0.2 (tp 2, fp 2).
  const ChosenPoint p = choose("recall@max_f1", {}, {1, 0, 1, 0}, {0.5, 0.5, 0.5, 0.2});
  EXPECT_EQ(p.threshold, 0.5);
  EXPECT_EQ(p.tp, 2);
  EXPECT_EQ(p.fp, 1);
  EXPECT_FALSE(choose("recall@precision>=0.7", {}, {1, 0, 1, 0}, {0.5, 0.5, 0.5, 0.2}).feasible);
}

TEST(ChoosePoint, Weights) {
  // Weights {1, 2, 1, 0.5, 3, 1}: P = 3.5, N = 5; tp 1, 3, 3, 3.5, 3.5, 3.5 and fp 0, 0, 1, 1,
  // 4, 5 from 0.9 down.
  const std::vector<double> w = {1, 2, 1, 0.5, 3, 1};
  expect_outcome("recall@precision>=0.9", 0.8, 3 / 3.5, w);
  expect_outcome("cost@cost(fp=1,fn=5)", 0.6, 1 / 8.5, w);
  expect_outcome("precision@recall>=0.95", 0.6, 3.5 / 4.5, w);
  const ChosenPoint p = choose("recall@cost(fp=1,fn=5)", w);
  EXPECT_EQ(p.fn, 0);
  EXPECT_EQ(p.tn, 4);
  // A zero weight removes the sample's candidate (0.7): the fpr <= 0 rule may now reach 0.6.
  expect_outcome("recall@fpr<=0", 0.6, 1, {1, 1, 0, 1, 1, 1});
}

TEST(PointValue, Formulas) {
  const ChosenPoint p{true, 0.25, 3, 1, 2, 4};  // P = 5, N = 5, total 10
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::threshold), 0.25);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::precision), 0.75);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::recall), 0.6);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::specificity), 0.8);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::fpr), 0.2);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::fnr), 0.4);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::f1), 6.0 / 9);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::accuracy), 0.7);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::balanced_accuracy), 0.7);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::youden), 0.4);
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::mcc), 10 / std::sqrt(4.0 * 5 * 5 * 6));
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::cost), 0.3);  // default costs 1 and 1
  EXPECT_DOUBLE_EQ(point_value(p, PointMetric::cost, {.cost_fp = 2, .cost_fn = 1}), 0.4);
  // One class present: balanced accuracy is the recall of that class (scikit-learn).
  EXPECT_DOUBLE_EQ(point_value({true, 1, 0, 2, 0, 6}, PointMetric::balanced_accuracy), 0.75);
  EXPECT_TRUE(std::isnan(point_value({true, 1, 0, 2, 0, 6}, PointMetric::youden)));
}

}  // namespace
