#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/evaluate.hpp"
#include "test_util.hpp"

namespace assay::metrics {
namespace {

double summary(const Evaluation& ev, const std::string& name) {
  for (const auto& e : ev.summary) {
    if (e.name == name) return e.value;
  }
  ADD_FAILURE() << "no summary value " << name;
  return NAN;
}

TEST(Evaluate, BinaryByHand) {
  // Scores of 3 positives and 3 negatives; one positive below the threshold, one negative above.
  const Table table = parse_csv("y,p\nb,0.9\na,0.1\nb,0.8\na,0.6\nb,0.3\na,0.2\n", "t.csv");
  const auto input = evaluation_input(table, {"y", {"p"}, "", ""});
  ASSERT_EQ(input.classes, (std::vector<std::string>{"a", "b"}));
  const auto ev = evaluate(input, {});
  EXPECT_TRUE(ev.binary);
  EXPECT_EQ(ev.positive_class, "b");
  EXPECT_EQ(ev.prediction_rule, "score >= 0.5");
  EXPECT_EQ(ev.confusion, (std::vector<double>{2, 1, 1, 2}));
  EXPECT_DOUBLE_EQ(summary(ev, "accuracy"), 4.0 / 6);
  EXPECT_DOUBLE_EQ(summary(ev, "precision"), 2.0 / 3);
  // Positive-negative pairs ranked correctly: 8 of 9.
  EXPECT_DOUBLE_EQ(summary(ev, "ROC AUC"), 8.0 / 9);
  // Step AP: recall 1/3 at P=1, 2/3 at P=1, 3/3 at P=3/4.
  EXPECT_DOUBLE_EQ(summary(ev, "average precision (step)"), (1.0 + 1.0 + 0.75) / 3);
  ASSERT_TRUE(ev.calibration.has_value());
  ASSERT_EQ(ev.pr_curves.size(), 1u);
  EXPECT_TRUE(std::isnan(ev.summary.front().low));  // no bootstrap asked for
}

TEST(Evaluate, BootstrapIntervalsAreSeeded) {
  const Table table =
      parse_csv("y,p\n1,0.9\n0,0.1\n1,0.8\n0,0.6\n1,0.3\n0,0.2\n1,0.7\n0,0.4\n", "t.csv");
  const auto input = evaluation_input(table, {"y", {"p"}, "", ""});
  EvaluateParams p;
  p.bootstrap.n_resamples = 50;
  p.bootstrap.seed = 3;
  p.bootstrap.threads = 1;
  const auto a = evaluate(input, p);
  p.bootstrap.threads = 2;
  const auto b = evaluate(input, p);
  for (std::size_t i = 0; i < a.summary.size(); ++i) {
    EXPECT_EQ(a.summary[i].low, b.summary[i].low) << a.summary[i].name;
    EXPECT_FALSE(std::isnan(a.summary[i].high)) << a.summary[i].name;
  }
}

TEST(Evaluate, BadInput) {
  const Table table = parse_csv("y,p,q\n1,0.9,a\n0,0.1,b\n", "t.csv");
  EXPECT_THROW_MSG(evaluation_input(table, {"y", {"q"}, "", ""}), Error,
                   "t.csv: score column \"q\": expected numbers, found text such as \"a\"");
  EXPECT_THROW_MSG(evaluation_input(table, {"y", {"p", "p", "p"}, "", ""}), Error,
                   "t.csv: expected 1 score column (binary) or one per class (2: 0, 1), found 3 "
                   "score columns");
  EvaluationInput input;
  input.classes = {"a", "b"};
  input.y_true = {0, 1};
  input.scores = {0.1, NAN};
  input.n_score_columns = 1;
  EXPECT_THROW_MSG(evaluate(input, {}), Error, "scores contain nan at sample 2");
  input.scores = {0.1, 0.2};
  input.y_true = {0, 2};
  EXPECT_THROW_MSG(evaluate(input, {}), Error, "y_true has code 2 at index 1, expected 0..1");
  input.y_true = {};
  EXPECT_THROW_MSG(evaluate(input, {}), Error, "no samples to evaluate, expected at least one");
}

TEST(Evaluate, TooManyClassesAreRefusedBeforeAnyLargeTable) {
  // 10,000 distinct predicted labels: a 10,000 x 10,000 confusion matrix (0.8 GB) and more.
  EvaluationInput input;
  const std::int32_t k = 10000;
  for (std::int32_t c = 0; c < k; ++c) {
    input.classes.push_back(std::to_string(c));
    input.y_true.push_back(c);
    input.y_pred.push_back((c + 1) % k);
  }
  EvaluateParams params;
  EXPECT_THROW_MSG(evaluate(input, params), Error,
                   "the labels have 10000 classes, more than the limit of 1000: evaluating them "
                   "needs more than 0.8 GB (the 10000 x 10000 confusion matrix alone, then "
                   "per-class tables of 10000 samples); raise the limit (--max-classes 10000, "
                   "Python: max_classes) if that is intended");
}

TEST(Evaluate, ConfidenceIsCheckedEvenWithoutBootstrap) {
  EvaluationInput input;
  input.classes = {"0", "1"};
  input.y_true = {0, 1, 0, 1};
  input.y_pred = {0, 1, 1, 1};
  EvaluateParams params;
  params.bootstrap.confidence = 7;
  EXPECT_THROW_MSG(evaluate(input, params), Error,
                   "confidence: expected a number in (0, 1), found 7");
}

TEST(Evaluate, TwoModelsScoresOnBinaryLabelsAreRefusedNotReadAsPerClassScores) {
  // Two models' scores of the positive class: read as per-class scores, only the second model
  // was evaluated (issue 38).
  const Table table =
      parse_csv("y,logreg,forest\n0,0.2,0.4\n1,0.9,0.7\n0,0.3,0.1\n1,0.6,0.8\n", "m.csv");
  const auto input = evaluation_input(table, {"y", {"logreg", "forest"}, "", ""});
  EXPECT_THROW_MSG(evaluate(input, {}), Error,
                   "2 score columns (\"logreg\", \"forest\") for the 2 classes (0, 1) are "
                   "neither one score of the positive class nor per-class probabilities: row 1 "
                   "holds 0.2 and 0.4 (sum 0.6, not 1). To compare two models, "
                   "evaluate each on its own (\"logreg\" alone, then \"forest\" alone); per-class "
                   "scores must be probabilities summing to 1, in sorted class order");
  // Per-class probabilities (rows summing to 1) are accepted: column 1 is class 1's.
  const Table probs = parse_csv("y,p0,p1\n0,0.8,0.2\n1,0.1,0.9\n0,0.7,0.3\n1,0.4,0.6\n", "p.csv");
  const auto ev = evaluate(evaluation_input(probs, {"y", {"p0", "p1"}, "", ""}), {});
  EXPECT_DOUBLE_EQ(summary(ev, "ROC AUC"), 1.0);
  EXPECT_DOUBLE_EQ(summary(ev, "accuracy"), 1.0);
}

TEST(Evaluate, ContinuousLabelsAreRefusedPointingAtTheRegressionRoute) {
  const Table table = parse_csv("t,pred,p\n1,1.5,0.1\n2.5,2,0.2\n3,3,0.3\n", "r.csv");
  EXPECT_THROW_MSG(
      evaluation_input(table, {"t", {}, "pred", ""}), Error,
      "r.csv:3: column \"t\": expected a class label, found 2.5: the labels are continuous (a "
      "regression target?), not classes; for regression metrics give --task regression "
      "(Python: task=\"regression\")");
  const Table preds = parse_csv("y,p\n0,0.35\n1,1\n", "q.csv");
  EXPECT_THROW_MSG(evaluation_input(preds, {"y", {}, "p", ""}), Error,
                   "q.csv:2: column \"p\": expected a predicted class label, found 0.35: the "
                   "predictions are continuous (scores or regression predictions?), not classes; "
                   "give scores with --score (Python: y_score), or --task regression (Python: "
                   "task=\"regression\") for regression metrics");
  // Whole numbers written as floats are classes.
  const Table whole = parse_csv("y,p\n0.0,1\n1.0,1\n2,0\n", "w.csv");
  EXPECT_EQ(evaluation_input(whole, {"y", {}, "p", ""}).classes,
            (std::vector<std::string>{"0", "1", "2"}));
}

// 20 samples whose scores put every negative above every positive.
EvaluationInput inverted_binary() {
  EvaluationInput input;
  input.classes = {"0", "1"};
  for (int i = 0; i < 20; ++i) {
    input.y_true.push_back(i % 2);
    input.scores.push_back(i % 2 ? 0.1 + 0.01 * i : 0.6 + 0.01 * i);
  }
  input.n_score_columns = 1;
  return input;
}

TEST(Evaluate, InvertedScoresWarnThatTheyMayBeInverted) {
  std::vector<std::string> warnings;
  const ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  const auto ev = evaluate(inverted_binary(), {});
  EXPECT_DOUBLE_EQ(summary(ev, "ROC AUC"), 0.0);
  EXPECT_EQ(ev.inverted_classes, (std::vector<std::string>{"1"}));
  const std::string expected =
      "ROC AUC of class \"1\" is 0.0000 (95% DeLong upper bound 0.0000): below 0.5 beyond "
      "chance, so the scores rank the positive class lower, not higher; they may be inverted: "
      "negate them, or check which class is positive (--pos-label, Python: pos_label)";
  ASSERT_EQ(ev.notes.size(), 1u);
  EXPECT_EQ(ev.notes[0], expected);
  EXPECT_NE(std::find(warnings.begin(), warnings.end(), expected), warnings.end());
}

TEST(Evaluate, TheInvertedRuleNeedsTheUpperBoundBelowOneHalf) {
  // AUC 0.3 is below 0.5 by chance when its 95% interval reaches 0.5, not otherwise.
  EXPECT_FALSE(auc_below_chance(0.3, 0.0105));  // 0.3 + 1.96 * 0.1025 = 0.5008
  EXPECT_TRUE(auc_below_chance(0.3, 0.0103));   // 0.3 + 1.96 * 0.1015 = 0.4989
  EXPECT_FALSE(auc_below_chance(NAN, NAN));
  // A good model, and chance-level scores, do not warn.
  EvaluationInput input = inverted_binary();
  for (double& s : input.scores) s = 1 - s;
  EXPECT_TRUE(evaluate(input, {}).inverted_classes.empty());
  for (std::size_t i = 0; i < input.scores.size(); ++i) input.scores[i] = (i / 2) % 2 ? 0.4 : 0.6;
  const auto chance = evaluate(input, {});
  EXPECT_DOUBLE_EQ(summary(chance, "ROC AUC"), 0.5);
  EXPECT_TRUE(chance.inverted_classes.empty());
}

TEST(Evaluate, ScoreColumnsOutOfClassOrderWarnPerClass) {
  // Three classes; the columns of classes 1 and 2 swapped.
  EvaluationInput input;
  input.classes = {"a", "b", "c"};
  for (int i = 0; i < 90; ++i) {
    const int c = i % 3;
    input.y_true.push_back(c);
    const double hit = 0.6 + 0.001 * i, miss = (1 - hit) / 2;
    double row[3] = {miss, miss, miss};
    row[c == 0 ? 0 : 3 - c] = hit;
    input.scores.insert(input.scores.end(), row, row + 3);
  }
  input.n_score_columns = 3;
  const ScopedWarningHandler quiet(WarningHandler{});
  const auto ev = evaluate(input, {});
  EXPECT_EQ(ev.inverted_classes, (std::vector<std::string>{"b", "c"}));
  ASSERT_EQ(ev.notes.size(), 1u);
  EXPECT_NE(ev.notes[0].find("check that the score columns follow the sorted classes"),
            std::string::npos);
}

TEST(Evaluate, LogLossClipsAtMachineEpsilonLikeTheLibraryAndScikitLearn) {
  // y,p = 0,1.0 / 1,0.0 / 0,0.2 / 1,0.8: scikit-learn's log_loss gives 18.133398470215677;
  // clipping at 1e-15 gave 17.3810.
  const Table table = parse_csv("y,p\n0,1.0\n1,0.0\n0,0.2\n1,0.8\n", "l.csv");
  const ScopedWarningHandler quiet(WarningHandler{});
  const auto ev = evaluate(evaluation_input(table, {"y", {"p"}, "", ""}), {});
  EXPECT_NEAR(summary(ev, "log loss"), 18.133398470215677, 1e-12);
}

TEST(Evaluate, ExtremeWeightsGiveTheValuesOfTheRescaledWeights) {
  // Issue 38: weights 5e-324 gave ROC AUC NaN ("one class"), AP 1.0, MCC NaN, Brier 0.25;
  // weights 1e308 "precision contains NaN at index 0". Equal weights of any size give the
  // unweighted values.
  const Table table = parse_csv("y,p\n0,0.1\n0,0.4\n1,0.35\n1,0.8\n", "e.csv");
  auto input = evaluation_input(table, {"y", {"p"}, "", ""});
  const auto plain = evaluate(input, {});
  for (double w : {5e-324, 1e-310, 1e308, 1.7e308}) {
    input.weights.assign(4, w);
    const ScopedWarningHandler quiet(WarningHandler{});
    const auto ev = evaluate(input, {});
    for (std::size_t m = 0; m < plain.summary.size(); ++m) {
      EXPECT_NEAR(ev.summary[m].value, plain.summary[m].value, 1e-15)
          << plain.summary[m].name << " with weights " << w;
    }
    // Weighted counts stay in the weights' units: 2 x 1.7e308 overflows, as the true sum does.
    EXPECT_EQ(ev.confusion[0], 2 * w) << w;
    EXPECT_EQ(ev.per_class[0].support, 2 * w) << w;
  }
}

TEST(Evaluate, ResampleCountBeyondTheLimitIsRefusedBeforeAnyWork) {
  EvaluationInput input = inverted_binary();
  EvaluateParams params;
  params.bootstrap.n_resamples = 100000000;
  EXPECT_THROW_MSG(evaluate(input, params), Error,
                   "--bootstrap (Python: n_bootstrap): expected at most 1000000 resamples, found "
                   "100000000 (percentile intervals settle long before: 1000 to 100000 are usual; "
                   "every resample keeps a value per metric and costs a pass over the data)");
}

}  // namespace
}  // namespace assay::metrics
