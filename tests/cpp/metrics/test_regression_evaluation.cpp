#include <gtest/gtest.h>

#include <cmath>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/metrics/regression_evaluation.hpp"
#include "assay/report/regression.hpp"
#include "assay/report/regression_charts.hpp"
#include "test_util.hpp"

namespace assay::metrics {
namespace {

// The header's example: y = 3, -0.5, 2, 7 and ridge = 2.5, 0, 2, 8 (scikit-learn's docstring
// data): MAE 0.5, MSE 0.375, R² 0.948608137 (scikit-learn 1.2.1's r2_score).
TEST(RegressionEvaluation, HeaderExample) {
  const Table t = parse_csv("y,ridge\n3,2.5\n-0.5,0\n2,2\n7,8\n", "p.csv");
  auto ev = evaluate_regression(regression_input(t, {.label = "y", .models = {{"ridge", "ridge"}}}),
                                RegressionParams{});
  const auto& m = ev.models.at(0);
  EXPECT_DOUBLE_EQ(m.find("mae")->value, 0.5);
  EXPECT_DOUBLE_EQ(m.find("mse")->value, 0.375);
  EXPECT_NEAR(m.find("r2")->value, 0.9486081370449679, 1e-15);
  EXPECT_TRUE(std::isnan(m.find("mae")->low));
  // A negative target: no MSLE, no deviances, each said in a note.
  EXPECT_EQ(m.find("msle"), nullptr);
  EXPECT_EQ(ev.notes.size(), 3u);
}

TEST(RegressionEvaluation, IntervalsDoNotDependOnThreads) {
  RegressionInput in;
  for (int i = 0; i < 200; ++i) {
    in.y_true.push_back(std::sin(i) * 10 + i * 0.1);
    in.weights.push_back(1 + (i % 3));
  }
  in.models = {{"a", {}}, {"b", {}}};
  for (int i = 0; i < 200; ++i) {
    in.models[0].y_pred.push_back(in.y_true[i] + std::cos(3 * i));
    in.models[1].y_pred.push_back(in.y_true[i] * 0.9);
  }
  RegressionParams p;
  p.bootstrap.n_resamples = 100;
  p.bootstrap.seed = 3;
  p.bootstrap.threads = 1;
  const auto one = evaluate_regression(in, p);
  p.bootstrap.threads = 2;
  const auto two = evaluate_regression(in, p);
  for (std::size_t m = 0; m < 2; ++m) {
    for (std::size_t k = 0; k < one.models[m].summary.size(); ++k) {
      EXPECT_EQ(one.models[m].summary[k].low, two.models[m].summary[k].low);
      EXPECT_EQ(one.models[m].summary[k].high, two.models[m].summary[k].high);
      EXPECT_LE(one.models[m].summary[k].low, one.models[m].summary[k].high);
    }
  }
}

TEST(RegressionEvaluation, BadInputIsRefused) {
  EXPECT_THROW_MSG(parse_metrics_task("regresion"), Error,
                   "--task: expected auto, classification or regression, found \"regresion\"");
  const Table t = parse_csv("y,p,w\n1,2,1\n3,4,-1\n", "b.csv");
  EXPECT_THROW_MSG(regression_input(t, {"y", {{"p", "p"}}, "w"}), Error,
                   "b.csv:3: column \"w\": expected a finite weight >= 0, found -1");
  EXPECT_THROW_MSG(regression_input(t, {"y", {{"p", "p"}, {"p", "y"}}, ""}), Error,
                   "b.csv: model \"p\" is given twice");
}

TEST(RegressionEvaluation, AutoDetectionRule) {
  // 51 distinct whole numbers in 51 rows: a regression target; 51 in 510 rows: classes.
  std::string few = "y\n", many = "y\n";
  for (int i = 0; i < 51; ++i) few += std::to_string(i) + "\n";
  for (int i = 0; i < 510; ++i) many += std::to_string(i % 51) + "\n";
  const Table a = parse_csv(few, "a.csv"), b = parse_csv(many, "b.csv");
  EXPECT_TRUE(looks_like_regression_target(a.column("y")));
  EXPECT_FALSE(looks_like_regression_target(b.column("y")));
  EXPECT_THROW_MSG(classification_target_check(a, "y"), Error,
                   "a.csv: column \"y\" holds 51 distinct numbers in 51 rows (1.0 rows each): a "
                   "regression target, not classes; give --task regression (Python: "
                   "task=\"regression\") for regression metrics, or --task classification to "
                   "evaluate its values as 51 classes");
  classification_target_check(b, "y");
  EXPECT_TRUE(looks_like_regression_target(parse_csv("y\n1\n1.5\n", "c.csv").column("y")));
}

TEST(RegressionCharts, ManyPointsAreSubsampledTheSameForEveryModel) {
  EXPECT_EQ(report::scatter_rows(5).size(), 5u);
  const auto rows = report::scatter_rows(100000);
  ASSERT_EQ(rows.size(), report::kMaxScatterPoints);
  EXPECT_EQ(rows.front(), 0u);
  EXPECT_EQ(rows.back(), 99999u);
  std::vector<double> y(5000, 1.0), p(5000, 2.0);
  const Json spec = report::predicted_vs_actual_chart({{"a", y, p}, {"b", y, y}}, "y");
  EXPECT_EQ(spec["layer"][1]["data"]["values"].size(), 2 * report::kMaxScatterPoints);
  EXPECT_EQ(spec["width"], spec["height"]);
  EXPECT_THROW_MSG(report::residual_chart({{"a", y, {1.0}}}, "y"), Error,
                   "series \"a\": actual and predicted differ in length (5000 vs 1)");
}

}  // namespace
}  // namespace assay::metrics
