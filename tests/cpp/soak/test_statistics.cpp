// soak/statistics: paired and Welch t-tests by hand, and the SOAK statistics (grouping by
// train set and size, pairs by fold and seed, the measure, results read back from a CSV).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "assay/soak/statistics.hpp"
#include "test_util.hpp"

namespace assay::soak {
namespace {

TEST(PairedTTest, ByHand) {
  // d = x - y = {2, 1, 0, 3}: mean 1.5, variance (0.25 + 0.25 + 2.25 + 2.25) / 3 = 5/3,
  // t = 1.5 / sqrt(5/12); p from scipy.stats.ttest_rel (0.10272807885839903).
  const std::vector<double> x{10, 12, 9, 11}, y{8, 11, 9, 8};
  const TTest t = paired_t_test(x, y);
  EXPECT_DOUBLE_EQ(t.mean_difference, 1.5);
  EXPECT_DOUBLE_EQ(t.sd, std::sqrt(5.0 / 3));
  EXPECT_DOUBLE_EQ(t.t, 1.5 / std::sqrt(5.0 / 12));
  EXPECT_EQ(t.df, 3);
  EXPECT_NEAR(t.p_value, 0.10272807885839903, 1e-15);
  EXPECT_EQ(t.n, 4u);
  EXPECT_EQ(t.undefined_reason, "");
}

TEST(PairedTTest, TwoPairsHasOneDegreeOfFreedom) {
  // d = {2, 1}: t = 1.5 / sqrt(0.5 / 2) = 3 with 1 df (Cauchy): p = 1 - 2 atan(3) / pi.
  const std::vector<double> x{3, 1}, y{1, 0};
  const TTest t = paired_t_test(x, y);
  EXPECT_DOUBLE_EQ(t.t, 3.0);
  EXPECT_EQ(t.df, 1);
  EXPECT_NEAR(t.p_value, 1 - 2 * std::atan(3.0) / std::numbers::pi, 1e-15);
}

TEST(PairedTTest, TinyPValueKeepsItsDigits) {
  // scipy.stats.ttest_rel gives t = 11298.088724637633, p = 1.0310480863198181e-19.
  const std::vector<double> x{10.0, 10.1, 10.2, 10.1, 10.0, 10.05};
  std::vector<double> y = x;
  const double noise[] = {0, 0.001, -0.001, 0.002, 0, -0.0005};
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = x[i] - 5 + noise[i];
  const TTest t = paired_t_test(x, y);
  EXPECT_NEAR(t.t, 11298.088724637633, 1e-7);
  EXPECT_NEAR(t.p_value / 1.0310480863198181e-19, 1.0, 1e-9);
}

TEST(PairedTTest, NaNPairsAreDroppedAndUndefinedCasesGiveReasons) {
  const double nan = std::nan("");
  const std::vector<double> x{10, nan, 12, 9, 11}, y{8, 1, 11, 9, 8};
  EXPECT_DOUBLE_EQ(
      paired_t_test(x, y).p_value,
      paired_t_test(std::vector<double>{10, 12, 9, 11}, std::vector<double>{8, 11, 9, 8}).p_value);
  EXPECT_EQ(paired_t_test(x, y).n, 4u);

  const TTest equal = paired_t_test(std::vector<double>{3, 4, 5}, std::vector<double>{1, 2, 3});
  EXPECT_EQ(equal.undefined_reason, "all differences equal");
  EXPECT_DOUBLE_EQ(equal.mean_difference, 2);
  EXPECT_EQ(equal.sd, 0);
  EXPECT_TRUE(std::isnan(equal.t));
  EXPECT_TRUE(std::isnan(equal.p_value));
  EXPECT_TRUE(std::isnan(equal.df));

  const TTest one = paired_t_test(std::vector<double>{3, nan}, std::vector<double>{1, 2});
  EXPECT_EQ(one.undefined_reason, "fewer than two pairs (1)");
  EXPECT_EQ(one.n, 1u);
  EXPECT_DOUBLE_EQ(one.mean_difference, 2);
  EXPECT_TRUE(std::isnan(one.p_value));
  const TTest none = paired_t_test(std::vector<double>{}, std::vector<double>{});
  EXPECT_EQ(none.undefined_reason, "fewer than two pairs (0)");
  EXPECT_TRUE(std::isnan(none.mean_difference));

  EXPECT_THROW_MSG(paired_t_test(std::vector<double>{1, 2}, std::vector<double>{1}), Error,
                   "x and y differ in length (2 vs 1); a paired test needs one y per x");
}

TEST(WelchTTest, ByHand) {
  // x: mean 2.5, var 5/3 (n 4); y: mean 4, var 4 (n 3). se^2 = 5/12 + 4/3 = 1.75,
  // df = 1.75^2 / ((5/12)^2/3 + (4/3)^2/2); p from scipy.stats.ttest_ind(equal_var=False).
  const std::vector<double> x{1, 2, 3, 4}, y{2, 4, 6, std::nan("")};
  const TTest t = welch_t_test(x, y);
  EXPECT_DOUBLE_EQ(t.mean_difference, -1.5);
  EXPECT_DOUBLE_EQ(t.sd, std::sqrt(1.75));
  EXPECT_DOUBLE_EQ(t.t, -1.1338934190276817);
  EXPECT_DOUBLE_EQ(t.df, 3.234718826405868);
  EXPECT_NEAR(t.p_value, 0.3338237000775014, 1e-15);
  EXPECT_EQ(t.n, 7u);
}

TEST(WelchTTest, UndefinedCases) {
  const TTest flat = welch_t_test(std::vector<double>{2, 2}, std::vector<double>{3, 3, 3});
  EXPECT_EQ(flat.undefined_reason, "both sides have zero variance");
  EXPECT_DOUBLE_EQ(flat.mean_difference, -1);
  EXPECT_TRUE(std::isnan(flat.p_value));
  const TTest small = welch_t_test(std::vector<double>{2}, std::vector<double>{3, 4, 3});
  EXPECT_EQ(small.undefined_reason, "fewer than two values on one side (1 vs 3)");
  EXPECT_TRUE(std::isnan(small.t));
}

// Results of one data set, learner "f", test subset "A", folds 1..4: values per train set.
SoakResults hand_results() {
  SoakResults r;
  SoakResultRow base;
  base.data = "d";
  base.learner = "f";
  base.test_subset = "A";
  base.auc = base.mse = base.mae = std::nan("");
  auto add = [&](TrainSubsets which, std::int32_t fold, double error, std::int64_t groups,
                 std::int64_t n_train_groups) {
    SoakResultRow row = base;
    row.train_subsets = which;
    row.test_fold = fold;
    row.groups = groups;
    row.n_train_groups = n_train_groups;
    row.error_percent = error;
    r.rows.push_back(std::move(row));
  };
  const double same[] = {8, 11, 9, 8}, other[] = {10, 12, 9, 11}, all[] = {9, 10, 12, 7};
  for (std::int32_t k = 1; k <= 4; ++k) {
    add(TrainSubsets::all, k, all[k - 1], 30, 30);
    add(TrainSubsets::other, k, other[k - 1], 20, 20);
    add(TrainSubsets::same, k, same[k - 1], 10, 10);
    // Down-sampled to 10 groups: other only (same is at its full size 10).
    add(TrainSubsets::other, k, other[k - 1] + k, 20, 10);
  }
  // Test subset "B": the all train set fails on fold 2, so only 3 pairs remain.
  SoakResultRow base_b = base;
  base_b.test_subset = std::string("B");
  const std::string failure = "one class in the train set";
  for (std::int32_t k = 1; k <= 4; ++k) {
    SoakResultRow row = base_b;
    row.test_fold = k;
    row.train_subsets = TrainSubsets::same;
    row.groups = row.n_train_groups = 0;
    row.error_percent = k;
    r.rows.push_back(row);
    row.train_subsets = TrainSubsets::all;
    row.error_percent = k == 2 ? std::nan("") : 2 * k * k;
    if (k == 2) row.failure = failure;
    r.rows.push_back(row);
  }
  return r;
}

TEST(SoakStatistics, GroupsPairsAndSizes) {
  std::vector<std::string> warnings;
  ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  const SoakStatistics s = soak_statistics(hand_results());
  EXPECT_EQ(s.measure, "error_percent");
  EXPECT_TRUE(warnings.empty());
  // Subset A: full size (other-same, all-same), size 10 (other-same); subset B: all-same.
  ASSERT_EQ(s.comparisons.size(), 4u);
  const Comparison& os = s.comparisons[0];
  EXPECT_EQ(os.test_subset, "A");
  EXPECT_EQ(os.compared, TrainSubsets::other);
  EXPECT_EQ(os.n_train_groups, 0);
  // Same as PairedTTest.ByHand: other = {10,12,9,11} vs same = {8,11,9,8}.
  EXPECT_DOUBLE_EQ(os.paired.mean_difference, 1.5);
  EXPECT_NEAR(os.paired.p_value, 0.10272807885839903, 1e-15);
  EXPECT_DOUBLE_EQ(os.same_mean, 9);
  EXPECT_DOUBLE_EQ(os.compared_mean, 10.5);
  EXPECT_DOUBLE_EQ(os.welch.mean_difference, 1.5);
  const Comparison& as = s.comparisons[1];
  EXPECT_EQ(as.compared, TrainSubsets::all);
  EXPECT_EQ(as.n_train_groups, 0);
  const std::vector<double> all{9, 10, 12, 7}, same{8, 11, 9, 8};
  EXPECT_EQ(as.paired.p_value, paired_t_test(all, same).p_value);
  EXPECT_EQ(as.welch.p_value, welch_t_test(all, same).p_value);
  const Comparison& small = s.comparisons[2];
  EXPECT_EQ(small.compared, TrainSubsets::other);
  EXPECT_EQ(small.n_train_groups, 10);
  // other + k vs same: differences {3, 3, 3, 7}.
  EXPECT_DOUBLE_EQ(small.paired.mean_difference, 4);
  EXPECT_DOUBLE_EQ(small.paired.sd, 2);
  EXPECT_DOUBLE_EQ(small.paired.t, 4);
  const Comparison& b = s.comparisons[3];
  EXPECT_EQ(b.test_subset, "B");
  EXPECT_EQ(b.compared, TrainSubsets::all);
  // Pairs of folds 1, 3, 4: all = {2, 18, 32}, same = {1, 3, 4}.
  EXPECT_EQ(b.paired.n, 3u);
  EXPECT_EQ(b.paired.p_value,
            paired_t_test(std::vector<double>{2, 18, 32}, std::vector<double>{1, 3, 4}).p_value);
  EXPECT_EQ(b.welch.n, 7u);

  // Summaries: A full (same, other, all), A at 10 (same, other), B full (same, all).
  ASSERT_EQ(s.summaries.size(), 7u);
  EXPECT_EQ(s.summaries[0].train_subsets, TrainSubsets::same);
  EXPECT_DOUBLE_EQ(s.summaries[0].mean, 9);
  EXPECT_DOUBLE_EQ(s.summaries[0].sd, std::sqrt(2.0));
  EXPECT_EQ(s.summaries[0].n, 4u);
  EXPECT_EQ(s.summaries[3].n_train_groups, 10);
  EXPECT_EQ(s.summaries[3].train_subsets, TrainSubsets::same);
  EXPECT_EQ(s.summaries[4].train_subsets, TrainSubsets::other);
  EXPECT_DOUBLE_EQ(s.summaries[4].mean, 13);
  EXPECT_EQ(s.summaries[6].test_subset, "B");
  EXPECT_EQ(s.summaries[6].train_subsets, TrainSubsets::all);
  EXPECT_EQ(s.summaries[6].n, 3u);  // the failed fold is left out

  const Table p = pvalues_table(s);
  EXPECT_EQ(p.names(),
            (std::vector<std::string>{"data", "learner", "test.subset", "comparison",
                                      "n.train.groups", "same_mean", "compared_mean", "mean_diff",
                                      "sd_diff", "t", "df", "p_paired", "welch_diff", "welch_t",
                                      "welch_df", "p_welch", "n_pairs", "reason"}));
  EXPECT_EQ(p.n_rows(), 4u);
  EXPECT_EQ(p.column("comparison").label(1), "all-same");
  EXPECT_EQ(p.numeric("n.train.groups")[2], 10);
  EXPECT_EQ(p.numeric("p_paired")[0], os.paired.p_value);
  const Table sm = summaries_table(s);
  EXPECT_EQ(sm.names(), (std::vector<std::string>{"data", "learner", "test.subset", "train.subsets",
                                                  "n.train.groups", "mean", "sd", "n"}));
  EXPECT_EQ(sm.n_rows(), 7u);
  const Json j = statistics_json(s);
  EXPECT_EQ(j["measure"], "error_percent");
  EXPECT_EQ(j["comparisons"][0]["comparison"], "other-same");
  EXPECT_EQ(j["comparisons"][0]["paired"]["n"], 4);
}

TEST(SoakStatistics, ZeroVarianceGivesNaNReasonAndOneWarning) {
  SoakResults r = hand_results();
  for (auto& row : r.rows) {
    if (row.test_subset == "A" && row.train_subsets == TrainSubsets::all) {
      row.error_percent = 1 + (row.test_fold == 1   ? 8
                               : row.test_fold == 2 ? 11
                               : row.test_fold == 3 ? 9
                                                    : 8);
    }
  }
  std::vector<std::string> warnings;
  ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  const SoakStatistics s = soak_statistics(r);
  EXPECT_EQ(s.comparisons[1].paired.undefined_reason, "all differences equal");
  EXPECT_DOUBLE_EQ(s.comparisons[1].paired.mean_difference, 1);
  EXPECT_TRUE(std::isnan(s.comparisons[1].paired.p_value));
  EXPECT_EQ(pvalues_table(s).column("reason").label(1), "all differences equal");
  EXPECT_TRUE(std::isnan(pvalues_table(s).numeric("p_paired")[1]));
  EXPECT_TRUE(statistics_json(s)["comparisons"][1]["paired"]["p_value"].is_null());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "1 of 4 paired t-tests are undefined (NaN); first: d, f, test subset A, all-same: all "
            "differences equal");
}

TEST(SoakStatistics, PairsAreFoldAndSeed) {
  // Two seeds x 3 folds: 6 pairs, matched on (seed, fold) whatever the row order.
  SoakResults r;
  const double same[2][3] = {{1, 2, 3}, {2, 2, 5}}, all[2][3] = {{2, 4, 3}, {3, 3, 9}};
  for (TrainSubsets which : {TrainSubsets::all, TrainSubsets::same}) {
    for (std::int32_t seed : {2, 1}) {
      for (std::int32_t fold = 1; fold <= 3; ++fold) {
        SoakResultRow row;
        row.data = "d";
        row.train_subsets = which;
        row.seed = seed;
        row.test_fold = fold;
        row.groups = 10;  // down-sampled: the train set depends on the seed
        row.n_train_groups = 5;
        row.error_percent = (which == TrainSubsets::all ? all : same)[seed - 1][fold - 1];
        r.rows.push_back(row);
      }
    }
  }
  const SoakStatistics s = soak_statistics(r);
  ASSERT_EQ(s.comparisons.size(), 1u);
  EXPECT_EQ(s.comparisons[0].n_train_groups, 5);
  // all - same by (seed, fold): {1, 2, 0, 1, 1, 4}.
  const TTest expected =
      paired_t_test(std::vector<double>{2, 4, 3, 3, 3, 9}, std::vector<double>{1, 2, 3, 2, 2, 5});
  EXPECT_EQ(s.comparisons[0].paired.n, 6u);
  EXPECT_EQ(s.comparisons[0].paired.df, 5);
  EXPECT_DOUBLE_EQ(s.comparisons[0].paired.mean_difference, 1.5);
  EXPECT_EQ(s.comparisons[0].paired.p_value, expected.p_value);
}

TEST(SoakStatistics, FullSizeRowsRepeatedPerSeedCountOnce) {
  // At full size the train set does not depend on the seed: seed 2 repeats seed 1's splits.
  SoakResults r;
  const double same[3] = {1, 2, 3}, all[3] = {2, 4, 3};
  for (std::int32_t seed : {1, 2}) {
    for (TrainSubsets which : {TrainSubsets::all, TrainSubsets::same}) {
      for (std::int32_t fold = 1; fold <= 3; ++fold) {
        SoakResultRow row;
        row.data = "d";
        row.train_subsets = which;
        row.seed = seed;
        row.test_fold = fold;
        row.groups = row.n_train_groups = 10;
        row.error_percent = (which == TrainSubsets::all ? all : same)[fold - 1];
        r.rows.push_back(row);
      }
    }
  }
  const SoakStatistics s = soak_statistics(r);
  ASSERT_EQ(s.comparisons.size(), 1u);
  EXPECT_EQ(s.comparisons[0].paired.n, 3u);
  EXPECT_EQ(s.comparisons[0].paired.df, 2);
  EXPECT_EQ(s.summaries[0].n, 3u);
}

TEST(SoakStatistics, MeasureChoice) {
  SoakResults r = hand_results();
  for (auto& row : r.rows) {
    row.mse = row.error_percent * 2;
    row.error_percent = std::nan("");
  }
  const SoakStatistics s = soak_statistics(r);
  EXPECT_EQ(s.measure, "mse");
  EXPECT_DOUBLE_EQ(s.comparisons[0].paired.mean_difference, 3);
  EXPECT_EQ(soak_statistics(r, {.measure = "mae"}).measure, "mae");
  EXPECT_THROW_MSG(soak_statistics(r, {.measure = "rmse"}), Error,
                   "unknown measure \"rmse\"; expected error_percent, auc, mse or mae");
}

TEST(SoakStatistics, ResultsReadBackFromACsv) {
  // The columns the statistics need; groups/n.train.groups/seed are optional (full size, seed 1).
  const Table t = parse_csv(
      "data,learner,test.subset,train.subsets,test.fold,error_percent,failure\n"
      "d,f,2019,same,1,8,\nd,f,2019,same,2,11,\nd,f,2019,same,3,9,\nd,f,2019,same,4,8,\n"
      "d,f,2019,other,1,10,\nd,f,2019,other,2,12,\nd,f,2019,other,3,9,\nd,f,2019,other,4,11,\n"
      "d,f,2019,other,5,NA,failed\n",
      "r.csv", {.allow_missing = true});  // unquoted empty failure cells: no failure
  const SoakResults r = results_from_table(t);
  ASSERT_EQ(r.rows.size(), 9u);
  EXPECT_EQ(r.rows[0].test_subset, "2019");
  EXPECT_EQ(r.rows[8].failure, "failed");
  EXPECT_TRUE(std::isnan(r.rows[8].error_percent));
  EXPECT_TRUE(std::isnan(r.rows[0].auc));
  const SoakStatistics s = soak_statistics(r);
  ASSERT_EQ(s.comparisons.size(), 1u);
  EXPECT_NEAR(s.comparisons[0].paired.p_value, 0.10272807885839903, 1e-15);

  EXPECT_THROW_MSG(
      results_from_table(parse_csv("test.subset,train.subsets,auc\nA,same,1\n", "x.csv")), Error,
      "x.csv: results have no column \"test.fold\"; columns are: test.subset, "
      "train.subsets, auc");
  EXPECT_THROW_MSG(
      results_from_table(parse_csv("test.subset,train.subsets,test.fold\nA,same,1\n", "x.csv")),
      Error,
      "x.csv: results have no measure column (error_percent, auc, mse or mae); columns are: "
      "test.subset, train.subsets, test.fold");
  EXPECT_THROW_MSG(
      results_from_table(
          parse_csv("test.subset,train.subsets,test.fold,auc\nA,same,1,1\nA,some,1,1\n", "x.csv")),
      Error,
      "x.csv: column \"train.subsets\", data row 2: expected all, other or same, found \"some\"");
  EXPECT_THROW_MSG(results_from_table(parse_csv(
                       "test.subset,train.subsets,test.fold,auc\nA,same,1.5,1\n", "x.csv")),
                   Error,
                   "x.csv: column \"test.fold\", data row 1: expected an integer, found 1.5");
  EXPECT_THROW_MSG(results_from_table(parse_csv(
                       "test.subset,train.subsets,test.fold,auc\nA,same,1,high\n", "x.csv")),
                   Error, "x.csv: column \"auc\", data row 1: expected a number, found \"high\"");
}

}  // namespace
}  // namespace assay::soak
