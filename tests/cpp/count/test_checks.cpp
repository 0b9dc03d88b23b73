// count/checks: which truths, safety properties and regions one count() call counts
// (select_checks: a single truth's complement, --property selection), score bounds, and
// finish_label's rates and warnings. Private to the count layer: the header is included directly.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../../../src/count/checks.hpp"
#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "test_util.hpp"

namespace assay::count::detail {
namespace {

Model classifier(std::size_t n_classes) {
  Model m;
  m.kind = ModelKind::tree;
  m.classification = true;
  m.n_features = 2;
  m.n_outputs = n_classes;
  for (std::size_t k = 0; k < n_classes; ++k) m.classes.push_back(std::to_string(k));
  return m;
}

const char* kSpec = R"(input a : int[0, 3];
input b : bool;
pred Big = a >= 2;
truth 1 = a > 1;
safety S = b => label == 0;
safety T = a == 0 => label == 1;
region R = ball([1, 0], 1) label 1;
)";

TEST(Checks, OneTruthOfTwoClassesComplementsTheOther) {
  const Spec s = parse_spec(kSpec, "k.spec");
  const Checks c = select_checks(classifier(2), s, "");
  ASSERT_EQ(c.truths.size(), 2u);
  EXPECT_EQ(c.truths[0].label, 0);
  EXPECT_EQ(c.truths[0].formula, nullptr);
  EXPECT_EQ(c.truths[0].complement_of, 1);
  EXPECT_EQ(c.truths[1].label, 1);
  EXPECT_EQ(c.truths[1].formula, &s.truths[0].second);
  EXPECT_EQ(c.truths[1].complement_of, -1);
  ASSERT_EQ(c.safety.size(), 2u);
  EXPECT_EQ(c.safety[0]->name, "S");
  EXPECT_EQ(c.safety[1]->name, "T");
  ASSERT_EQ(c.regions.size(), 1u);
  EXPECT_EQ(c.regions[0]->name, "R");
}

TEST(Checks, TruthOfLabelZeroComplementsLabelOne) {
  const Spec s = parse_spec("input a : int[0, 3];\ntruth 0 = a < 2;\n", "z.spec");
  const Checks c = select_checks(classifier(2), s, "");
  ASSERT_EQ(c.truths.size(), 2u);
  EXPECT_EQ(c.truths[0].formula, &s.truths[0].second);
  EXPECT_EQ(c.truths[1].label, 1);
  EXPECT_EQ(c.truths[1].complement_of, 0);
}

TEST(Checks, EveryLabelNeedsItsTruthBeyondTwoClasses) {
  const Spec s = parse_spec(
      "input a : int[0, 3];\ntruth 0 = a < 1;\ntruth 1 = a == 1;\n"
      "truth 2 = a > 1;\n",
      "three.spec");
  const Checks c = select_checks(classifier(3), s, "");
  ASSERT_EQ(c.truths.size(), 3u);
  for (std::int32_t l = 0; l < 3; ++l) {
    EXPECT_EQ(c.truths[l].label, l);
    EXPECT_EQ(c.truths[l].complement_of, -1);
    EXPECT_EQ(c.truths[l].formula, &s.truths[l].second);
  }
  const Spec gap = parse_spec("input a : int[0, 3];\ntruth 1 = a == 1;\n", "gap.spec");
  EXPECT_THROW_MSG(select_checks(classifier(4), gap, ""), Error,
                   "gap.spec: no truth for label(s) 0, 2, 3 (the model has 4 classes)");
}

TEST(Checks, PropertySelectsOnePredicateSafetyOrRegion) {
  const Spec s = parse_spec(kSpec, "k.spec");
  const Checks p = select_checks(classifier(2), s, "Big");
  ASSERT_EQ(p.truths.size(), 2u);
  EXPECT_EQ(p.truths[0].complement_of, 1);
  EXPECT_EQ(p.truths[1].formula, &s.predicates[0].formula);
  EXPECT_TRUE(p.safety.empty());
  EXPECT_TRUE(p.regions.empty());
  const Checks t = select_checks(classifier(2), s, "T");
  EXPECT_TRUE(t.truths.empty());
  ASSERT_EQ(t.safety.size(), 1u);
  EXPECT_EQ(t.safety[0]->name, "T");
  EXPECT_TRUE(t.regions.empty());
  const Checks r = select_checks(classifier(2), s, "R");
  EXPECT_TRUE(r.safety.empty());
  ASSERT_EQ(r.regions.size(), 1u);
  EXPECT_THROW_MSG(select_checks(classifier(2), s, "Small"), Error,
                   "k.spec defines no predicate, safety property or region named \"Small\" "
                   "(available: Big, S, T, R)");
  EXPECT_THROW_MSG(select_checks(classifier(3), s, "Big"), Error,
                   "--property Big makes a binary ground truth (label 1 = Big), but the model "
                   "has 3 classes");
}

TEST(Checks, NothingToCountAndNoNamesAvailable) {
  const Spec s = parse_spec("input a : int[0, 3];\n", "empty.spec");
  EXPECT_THROW_MSG(select_checks(classifier(2), s, ""), Error,
                   "empty.spec has nothing to count: declare truth, safety or region statements, "
                   "or give a property name");
  EXPECT_THROW_MSG(select_checks(classifier(2), s, "P"), Error,
                   "empty.spec defines no predicate, safety property or region named \"P\" "
                   "(available: none)");
}

TEST(Checks, RegressionModelsHaveNoLabelsForTruthsOrRegions) {
  Model r = classifier(0);
  r.classification = false;
  r.n_outputs = 1;
  const Spec t = parse_spec("input a : int[0, 3];\ntruth 0 = a > 1;\n", "t.spec");
  EXPECT_THROW_MSG(select_checks(r, t, ""), Error,
                   "t.spec: truth of label 0, but the model has 0 classes");
  // A region of a model without classes may keep label 0 only.
  const Spec g = parse_spec("input a : int[0, 3];\nregion R = ball([1], 1) label 1;\n", "g.spec");
  EXPECT_THROW_MSG(select_checks(r, g, ""), Error,
                   "g.spec: region R keeps label 1, but the model has 0 classes");
  const Spec ok = parse_spec("input a : int[0, 3];\nregion R = ball([1], 1) label 0;\n", "o.spec");
  EXPECT_EQ(select_checks(r, ok, "").regions.size(), 1u);
}

TEST(Checks, ScoresBeyondTheOutputsAreNamed) {
  const Spec s =
      parse_spec("input a : int[0, 3];\nsafety S = a > 1 => score[2] > 0.5;\n", "s.spec");
  const Model m = classifier(2);
  EXPECT_THROW_MSG(check_scores(s.safety[0].post, m, "safety property S"), Error,
                   "safety property S reads score[2], but the model has 2 outputs");
  const Spec fine =
      parse_spec("input a : int[0, 3];\nsafety S = a > 1 => score[1] > 0.5;\n", "s.spec");
  EXPECT_NO_THROW(check_scores(fine.safety[0].post, m, "safety property S"));
}

TEST(Checks, FinishLabelComputesRatesFromExactCounts) {
  LabelCounts l;
  l.tp = 30;
  l.fp = 10;
  l.tn = 50;
  l.fn = 10;
  finish_label(l, "1");
  // Exactly the doubles Python computes from the same counts ((30 + 50) / 100 is 0.8).
  EXPECT_EQ(l.accuracy, 0.8);
  EXPECT_EQ(l.precision, 0.75);
  EXPECT_EQ(l.recall, 0.75);
  EXPECT_EQ(l.f1, 0.75);
  // Counts beyond 2^64 keep their exact ratios.
  LabelCounts big;
  big.tp = mpz_class(1) << 100;
  big.fp = mpz_class(1) << 100;
  big.tn = 0;
  big.fn = mpz_class(1) << 101;
  finish_label(big, "yes");
  EXPECT_DOUBLE_EQ(big.accuracy, 0.25);
  EXPECT_DOUBLE_EQ(big.precision, 0.5);
  EXPECT_DOUBLE_EQ(big.recall, 1.0 / 3);
  EXPECT_DOUBLE_EQ(big.f1, 0.4);
}

TEST(Checks, UndefinedRatesWarnAndAreNaN) {
  std::vector<std::string> seen;
  ScopedWarningHandler capture([&](const std::string& m) { seen.push_back(m); });
  LabelCounts l;
  l.tn = 7;
  finish_label(l, "cat");
  EXPECT_EQ(l.accuracy, 1.0);
  EXPECT_TRUE(std::isnan(l.precision));
  EXPECT_TRUE(std::isnan(l.recall));
  EXPECT_TRUE(std::isnan(l.f1));
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "precision of label cat is undefined: no input is predicted cat",
                      "recall of label cat is undefined: no input has label cat"}));
}

}  // namespace
}  // namespace assay::count::detail
