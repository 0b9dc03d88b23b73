// Statistics of a SOAK experiment (SOAK paper §3.1, mlr3resampling's pvalue()): for each
// (data set, learner, test subset), the mean and SD of the test error of each train set, and
// two-sided t-tests comparing Other and All with Same.
//
// Full-size train sets do not depend on the down-sampling seed: with seeds > 1 their repeated
// rows are counted once (the first seed), so the full-size tests keep K - 1 degrees of freedom.
// Pairing: the Same and Other (or All) errors of one test fold (and seed, at the same
// n.train.groups) form a pair; the paired test uses the pairs where both values are defined
// (K − 1 degrees of freedom for K complete folds), as R's t.test(x, same, paired = TRUE) and
// scipy.stats.ttest_rel. Welch's unpaired test uses every defined value of each side, as
// t.test(x, same) / scipy.stats.ttest_ind(equal_var = False). Undefined cases give NaN and a
// reason, never an exception: fewer than two pairs, zero variance of the differences ("all
// differences equal"), a missing train set.
//
// Which measure: error_percent for classification (the paper's choice), mse for regression (the
// results have no defined error_percent but some mse); `measure` overrides ("error_percent",
// "auc", "mse", "mae").
//
// Sizes: a row is at full size when n.train.groups >= groups (or n.train.groups <= 0, results
// without sizes). Every n.train.groups value of a down-sampled row (0 < n.train.groups < groups)
// of a panel is a size: summaries and comparisons at that size use the rows with exactly that
// n.train.groups, full-size rows included (mlr3resampling's pvalue_downsample).
// Order: panels in order of first appearance in the results; within a panel, sizes ascending
// (0 = full first); summaries same, other, all; comparisons other-same, then all-same.
// Undefined paired tests give one warning for the whole call (count and the first reason).
//
// Example:
//   std::vector<double> other = {30, 25, 40}, same = {20, 25, 30};   // error % of folds 1..3
//   TTest t = paired_t_test(other, same);
//   // t.mean_difference 6.6667, t.sd 5.7735, t.t 2, t.df 2, t.p_value 0.18350, t.n 3
//   welch_t_test(other, same);   // t 1.2649, df 3.4483, p_value 0.28463 (scipy's ttest_ind)
//   SoakStatistics s = soak_statistics(results);   // results of run_soak (experiment.hpp)
//   Table p = pvalues_table(s);                    // pvalues.csv: one row per comparison
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/core/table.hpp"
#include "assay/soak/experiment.hpp"

namespace assay::soak {

struct TTest {
  /// Mean of x − y (paired) or mean(x) − mean(y) (Welch).
  double mean_difference = 0;
  /// SD of the differences (paired) or the standard error of the difference (Welch).
  double sd = 0;
  double t = 0;
  double df = 0;
  /// Two-sided p-value from Student's t distribution (Boost.Math).
  double p_value = 0;
  /// Number of pairs (paired) or n_x + n_y (Welch).
  std::size_t n = 0;
  /// Empty when defined; else why the values are NaN.
  std::string undefined_reason;
};

/// Paired t-test of x − y. Requires x.size() == y.size() (else assay::Error). NaN pairs are
/// dropped first.
TTest paired_t_test(std::span<const double> x, std::span<const double> y);

/// Welch's unequal-variance t-test of mean(x) − mean(y); NaN values are dropped first. In a
/// Comparison, x is the compared train set and y is Same (so the sign matches the paired test).
TTest welch_t_test(std::span<const double> x, std::span<const double> y);

struct StatisticsParams {
  /// "" = error_percent for classification results, mse for regression.
  std::string measure;
};

/// Mean ± SD of one train set for one (data, learner, test subset, n.train.groups).
/// n_train_groups = 0 stands for the full size (whatever `groups` is for that train set).
struct TrainSetSummary {
  std::string data, learner, test_subset;
  TrainSubsets train_subsets = TrainSubsets::same;
  std::int64_t n_train_groups = 0;
  double mean = 0;
  double sd = 0;
  /// Defined values (folds x seeds).
  std::size_t n = 0;
};

/// One comparison ("other-same" or "all-same") for one (data, learner, test subset, size).
struct Comparison {
  std::string data, learner, test_subset;
  TrainSubsets compared = TrainSubsets::other;  ///< other or all, against same
  std::int64_t n_train_groups = 0;
  double same_mean = 0;
  double compared_mean = 0;
  TTest paired;
  TTest welch;
};

struct SoakStatistics {
  std::string measure;
  std::vector<TrainSetSummary> summaries;
  std::vector<Comparison> comparisons;
};

/// Groups the results and runs the tests. Rows with a failure are NA and are left out (n and
/// n_pairs count only defined values, so failures show as a smaller n). Comparisons are made at
/// full size (n_train_groups = 0: every train set at its own full size, the paper's test) and, with
/// down-sampling, at every n.train.groups that both Same and the compared train set have (equal
/// train sizes; mlr3resampling's pvalue_downsample).
SoakStatistics soak_statistics(const SoakResults& results, const StatisticsParams& params = {});

/// pvalues.csv: one row per comparison (data, learner, test.subset, comparison, n.train.groups,
/// same_mean, compared_mean, mean_diff, sd_diff, t, df, p_paired, welch_diff, welch_t, welch_df,
/// p_welch, n_pairs, reason).
Table pvalues_table(const SoakStatistics& statistics);

/// The summaries as a table (data, learner, test.subset, train.subsets, n.train.groups, mean,
/// sd, n).
Table summaries_table(const SoakStatistics& statistics);

Json statistics_json(const SoakStatistics& statistics);

}  // namespace assay::soak
