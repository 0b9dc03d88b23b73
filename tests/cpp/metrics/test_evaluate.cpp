#include <gtest/gtest.h>

#include <cmath>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
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
  EXPECT_THROW_MSG(evaluate(input, params), Error, "confidence must be in (0, 1), found 7");
}

}  // namespace
}  // namespace assay::metrics
