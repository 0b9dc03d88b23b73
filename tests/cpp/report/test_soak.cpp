// report/soak: rendering a SOAK experiment — verdicts in words (direction by measure), the
// terminal summary and its conclusions, Figure 3 (train sets and p-value segments), Figures 4
// and 5 (differences across data sets) and the HTML page.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/report/soak.hpp"
#include "assay/soak/statistics.hpp"
#include "test_util.hpp"

namespace assay::soak {
namespace {

TrainSetSummary summary(std::string subset, TrainSubsets train, double mean, double sd) {
  TrainSetSummary t;
  t.data = "d";
  t.learner = "l";
  t.test_subset = std::move(subset);
  t.train_subsets = train;
  t.mean = mean;
  t.sd = sd;
  t.n = 4;
  return t;
}

Comparison comparison(std::string subset, TrainSubsets compared, double same, double other,
                      double p) {
  Comparison c;
  c.data = "d";
  c.learner = "l";
  c.test_subset = std::move(subset);
  c.compared = compared;
  c.same_mean = same;
  c.compared_mean = other;
  c.paired.mean_difference = other - same;
  c.paired.p_value = p;
  return c;
}

// Test subset A has Same, Other and All with both comparisons; B has Same only.
SoakStatistics hand_statistics() {
  SoakStatistics s;
  s.measure = "error_percent";
  s.summaries = {summary("A", TrainSubsets::same, 9, std::sqrt(2.0)),
                 summary("A", TrainSubsets::other, 10.5, 1.29),
                 summary("A", TrainSubsets::all, 9.5, 2.08),
                 summary("B", TrainSubsets::same, 2.5, 1.29)};
  s.comparisons = {comparison("A", TrainSubsets::other, 9, 10.5, 0.10277),
                   comparison("A", TrainSubsets::all, 9, 9.5, 0.00001)};
  return s;
}

TEST(SoakReport, TextTableAndConclusion) {
  EXPECT_EQ(report::soak_text(hand_statistics()),
            "data  learner  test subset  same error_percent  other error_percent  all "
            "error_percent  other-same       p  all-same        p\n"
            "d           l            A           9.00\u00b11.41           10.50\u00b11.29"
            "          9.50\u00b12.08       +1.50  0.1028     +0.50  1.0e-05\n"
            "d           l            B           2.50\u00b11.29                    -"
            "                  -           -       -         -        -\n"
            "\n"
            "d / l: subsets similar: on every test subset, training on the other subsets is not "
            "significantly worse than training on the same subset (paired t-test at level "
            "0.05).\n");
}

TEST(SoakReport, ConclusionNamesTheSubsetsThatDiffer) {
  SoakStatistics s = hand_statistics();
  s.comparisons[0].paired.p_value = 0.01;
  const std::string text = report::soak_text(s);
  EXPECT_NE(text.find("d / l: subsets differ: training on the other subsets is significantly "
                      "worse (p < 0.05) when predicting on: A.\n"),
            std::string::npos);
  SoakStatistics one = hand_statistics();
  one.comparisons.clear();
  EXPECT_NE(report::soak_text(one).find("d / l: one subset only (plain K-fold CV).\n"),
            std::string::npos);
}

TEST(SoakReport, VerdictsForOtherAndAll) {
  Comparison c = comparison("A", TrainSubsets::other, 10, 9, 0.2);
  EXPECT_EQ(report::soak_verdict(c), "other subsets predict as well");
  c.paired.p_value = 0.001;  // lower error on other subsets: better
  EXPECT_EQ(report::soak_verdict(c), "other subsets predict better");
  EXPECT_EQ(report::soak_verdict(c, "auc"), "other subsets predict worse");
  c.paired.p_value = std::nan("");
  EXPECT_EQ(report::soak_verdict(c), "undefined (no test)");
  c.paired.p_value = 0.05;  // not below the level
  EXPECT_EQ(report::soak_verdict(c), "other subsets predict as well");
}

TEST(SoakReport, Figure3HasTrainSetsAndPValueSegments) {
  const Json chart = report::soak_error_chart(hand_statistics(), "d", "l");
  const Json& values = chart["data"]["values"];
  ASSERT_EQ(values.size(), 6u);  // A: all, same, other, all-same, other-same; B: same
  EXPECT_EQ(values[0]["train"], "all");
  EXPECT_EQ(values[0]["label"], "9.50\u00b12.08");
  EXPECT_EQ(values[3]["kind"], "p");
  EXPECT_EQ(values[3]["train"], "all-same");
  EXPECT_EQ(values[3]["label"], "P<0.0001");
  EXPECT_EQ(values[3]["low"], 9.0);
  EXPECT_EQ(values[3]["high"], 9.5);
  EXPECT_EQ(values[3]["mean"], 9.25);
  EXPECT_EQ(values[4]["train"], "other-same");
  EXPECT_EQ(values[4]["label"], "P=0.1028");
  EXPECT_EQ(values[4]["diff"], 1.5);
  EXPECT_EQ(values[5]["test_subset"], "B");
  EXPECT_THROW_MSG(report::soak_error_chart(hand_statistics(), "d", "knn"), Error,
                   "no SOAK results for data set \"d\" and learner \"knn\"");
}

TEST(SoakReport, DifferenceChartsNeedAFullSizeComparison) {
  const Json all = report::soak_difference_chart(hand_statistics(), TrainSubsets::all);
  EXPECT_EQ(all["hconcat"].size(), 2u);
  SoakStatistics none = hand_statistics();
  none.comparisons.clear();
  EXPECT_THROW_MSG(report::soak_difference_chart(none, TrainSubsets::other), Error,
                   "no full-size other-same comparison in the SOAK statistics (one subset "
                   "only?)");
  // A down-sampled comparison alone is not drawn either.
  SoakStatistics small = hand_statistics();
  for (auto& c : small.comparisons) c.n_train_groups = 10;
  EXPECT_THROW_MSG(report::soak_difference_chart(small, TrainSubsets::all), Error,
                   "no full-size all-same comparison in the SOAK statistics (one subset only?)");
}

TEST(SoakReport, PageHasFigure3AndBothDifferenceFigures) {
  SoakResults results;
  results.rows.resize(5);
  results.rows[2].failure = "one class";
  const report::HtmlReport page =
      report::soak_html(hand_statistics(), results, "soak", "Two subsets.");
  EXPECT_EQ(page.chart_count(), 3u);
  const std::string html = page.render();
  EXPECT_NE(html.find("Two subsets."), std::string::npos);
  EXPECT_NE(html.find("5 train/test splits run (1 with NA results)."), std::string::npos);
}

TEST(SoakVerdict, DirectionFollowsTheMeasure) {
  // Other - Same = +5 with p = 0.01: worse for an error measure, better for AUC.
  Comparison c;
  c.compared = TrainSubsets::other;
  c.paired.mean_difference = 5;
  c.paired.p_value = 0.01;
  EXPECT_EQ(report::soak_verdict(c), "other subsets predict worse");
  EXPECT_EQ(report::soak_verdict(c, "mse"), "other subsets predict worse");
  EXPECT_EQ(report::soak_verdict(c, "auc"), "other subsets predict better");
  c.compared = TrainSubsets::all;
  EXPECT_EQ(report::soak_verdict(c, "error_percent"), "combining subsets hurts");
  EXPECT_EQ(report::soak_verdict(c, "auc"), "combining subsets helps");
  c.paired.p_value = 0.2;
  EXPECT_EQ(report::soak_verdict(c, "auc"), "combining subsets makes no significant difference");
  c.paired.p_value = std::nan("");
  c.paired.undefined_reason = "all differences equal";
  EXPECT_EQ(report::soak_verdict(c, "auc"), "undefined (all differences equal)");
}

TEST(SoakText, AucHigherOtherIsNotADifference) {
  // Higher AUC when training on other subsets, significantly: the subsets are "similar" (other
  // is not worse); the same numbers as error_percent make them differ.
  SoakStatistics s;
  s.measure = "auc";
  Comparison c;
  c.data = "d";
  c.learner = "l";
  c.test_subset = "A";
  c.compared = TrainSubsets::other;
  c.paired.mean_difference = 0.1;
  c.paired.p_value = 0.001;
  s.comparisons.push_back(c);
  s.summaries.push_back(TrainSetSummary{.data = "d",
                                        .learner = "l",
                                        .test_subset = "A",
                                        .train_subsets = TrainSubsets::same,
                                        .n_train_groups = 0,
                                        .mean = 0.8,
                                        .sd = 0.01,
                                        .n = 5});
  EXPECT_NE(report::soak_text(s).find("d / l: subsets similar"), std::string::npos);
  s.measure = "error_percent";
  EXPECT_NE(report::soak_text(s).find("d / l: subsets differ"), std::string::npos);
}

}  // namespace
}  // namespace assay::soak
