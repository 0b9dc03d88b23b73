// report/evaluation: an Evaluation as terminal text (description, headline values, per-class
// table, confusion matrix, notes), as JSON (NaN kept for dump_json to write as null, curves
// optional) and as an HTML page; and the runs views (mean ± SD per meta-parameter value).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "assay/core/csv.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/uncertainty.hpp"
#include "assay/report/evaluation.hpp"
#include "test_util.hpp"

namespace assay::metrics {
namespace {

// Three positives ("b") and three negatives: one positive below 0.5, one negative above.
Evaluation binary() {
  const Table table = parse_csv("y,p\nb,0.9\na,0.1\nb,0.8\na,0.6\nb,0.3\na,0.2\n", "t.csv");
  return evaluate(evaluation_input(table, {"y", {"p"}, "", ""}), {});
}

TEST(EvaluationReport, TextDescribesAndEndsWithTheConfusionMatrix) {
  const std::string text = report::evaluation_text(binary());
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "6 samples, 2 classes, positive class \"b\"; predictions: score >= 0.5");
  const std::string matrix =
      "confusion matrix (rows: true class, columns: predicted class)\n"
      "true \\ pred  a  b\n"
      "a            2  1\n"
      "b            1  2\n";
  ASSERT_GE(text.size(), matrix.size());
  EXPECT_EQ(text.substr(text.size() - matrix.size()), matrix);
  EXPECT_NE(text.find("class  precision  recall      F1  support  ROC AUC"), std::string::npos);
  EXPECT_NE(text.find("ROC AUC"), std::string::npos);
  EXPECT_NE(text.find("0.8889"), std::string::npos);    // 8 of 9 pairs ranked correctly
  EXPECT_EQ(text.find("interval"), std::string::npos);  // no bootstrap: no interval column
}

TEST(EvaluationReport, BootstrapAddsAnIntervalColumn) {
  const Table table =
      parse_csv("y,p\n1,0.9\n0,0.1\n1,0.8\n0,0.6\n1,0.3\n0,0.2\n1,0.7\n0,0.4\n", "t.csv");
  EvaluateParams p;
  p.bootstrap.n_resamples = 20;
  p.bootstrap.seed = 3;
  p.bootstrap.threads = 1;
  const Evaluation ev = evaluate(evaluation_input(table, {"y", {"p"}, "", ""}), p);
  const std::string text = report::evaluation_text(ev);
  EXPECT_NE(text.find("; intervals: 95% percentile bootstrap, 20 resamples, seed 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("95% interval"), std::string::npos);
}

TEST(EvaluationReport, JsonHoldsSummaryPerClassAndMatrix) {
  const Evaluation ev = binary();
  const Json j = report::evaluation_json(ev);
  EXPECT_EQ(j["n_samples"], 6);
  EXPECT_EQ(j["classes"], Json::array({"a", "b"}));
  EXPECT_EQ(j["positive_class"], "b");
  EXPECT_EQ(j["prediction_rule"], "score >= 0.5");
  EXPECT_DOUBLE_EQ(j["summary"]["ROC AUC"]["value"].get<double>(), 8.0 / 9);
  EXPECT_TRUE(std::isnan(j["summary"]["ROC AUC"]["low"].get<double>()));
  EXPECT_NE(dump_json(j["summary"]["ROC AUC"], -1).find("\"low\":null"), std::string::npos);
  // Each entry's stable key, as assay compare names the metric.
  EXPECT_EQ(j["summary"]["ROC AUC"]["id"], "roc_auc");
  EXPECT_EQ(j["summary"]["Brier score"]["id"], "brier");
  EXPECT_EQ(j["summary"]["average precision (step)"]["id"], "average_precision");
  ASSERT_EQ(j["per_class"].size(), 2u);
  EXPECT_EQ(j["per_class"][1]["class"], "b");
  EXPECT_EQ(j["per_class"][1]["support"], 3.0);
  EXPECT_EQ(j["confusion_matrix"], Json::parse("[[2, 1], [1, 2]]"));
  EXPECT_FALSE(j["calibration"].is_null());
  EXPECT_TRUE(j.contains("curves"));
  EXPECT_FALSE(report::evaluation_json(ev, false).contains("curves"));
}

TEST(EvaluationReport, MultiClassSummaryHasTheBinaryIds) {
  const Table table = parse_csv(
      "y,p0,p1,p2\n0,0.7,0.2,0.1\n1,0.2,0.6,0.2\n2,0.1,0.3,0.6\n0,0.5,0.3,0.2\n1,0.3,0.4,0.3\n"
      "2,0.2,0.2,0.6\n",
      "t.csv");
  const Evaluation ev = evaluate(evaluation_input(table, {"y", {"p0", "p1", "p2"}, "", ""}), {});
  const Json summary = report::evaluation_json(ev)["summary"];
  EXPECT_EQ(summary["ROC AUC (one-vs-rest, macro)"]["id"], "roc_auc");
  EXPECT_EQ(summary["mAP (step)"]["id"], "average_precision");
  EXPECT_EQ(summary["F1 (macro)"]["id"], "f1_macro");
  EXPECT_EQ(summary["ECE (top label)"]["id"], "ece");
  EXPECT_EQ(summary["log loss"]["id"], "log_loss");
}

TEST(EvaluationReport, PageHasPrRocMatrixAndReliabilityCharts) {
  const report::HtmlReport page = report::evaluation_html(binary(), "t.csv");
  EXPECT_EQ(page.chart_count(), 4u);
  EXPECT_NE(page.render().find("<title>t.csv"), std::string::npos);
}

GroupedRunSummary two_groups() {
  GroupedRunSummary g;
  g.by = {0.1, 1};
  g.summaries = {{2e-4, 1e-4, 1e-4, 3e-4, 2}, {1.5, 0.5, 1, 2, 3}};
  return g;
}

TEST(RunsReport, TextWritesTinyNumbersWithFourSignificantDigits) {
  EXPECT_EQ(report::runs_text(two_groups(), "lr"),
            "lr     mean      sd     min     max  n\n"
            "0.1  0.0002  0.0001  0.0001  0.0003  2\n"
            "1    1.5000  0.5000  1.0000  2.0000  3\n");
  GroupedRunSummary one;
  one.by = {0};
  one.summaries = {{1.234e6, std::numeric_limits<double>::quiet_NaN(), 1.234e6, 1.234e6, 1}};
  EXPECT_EQ(report::runs_text(one, ""),
            "               mean   sd        min        max  n\n"
            "all runs  1.234e+06  NaN  1.234e+06  1.234e+06  1\n");
}

TEST(RunsReport, JsonAndPage) {
  const Json j = report::runs_json(two_groups());
  EXPECT_EQ(j["by"], Json::array({0.1, 1}));
  EXPECT_EQ(j["mean"], Json::array({2e-4, 1.5}));
  EXPECT_EQ(j["n"], Json::array({2, 3}));
  const report::HtmlReport page = report::runs_html(two_groups(), "lr", "loss", true, "runs");
  EXPECT_EQ(page.chart_count(), 1u);
  EXPECT_NE(page.render().find("loss across runs: mean \u00b1 standard deviation (ddof = 1) at "
                               "each value of lr."),
            std::string::npos);
}

}  // namespace
}  // namespace assay::metrics
