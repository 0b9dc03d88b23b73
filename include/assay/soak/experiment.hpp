// A SOAK experiment: learners x data sets x Same/Other/All splits, run in parallel, and the
// per-split results.
//
// Example:
//   SoakTask task{dataset, splits};                      // one per data set
//   SoakParams params;  params.learners = {"featureless"};  params.threads = 0;
//   SoakResults results = run_soak({task}, params);      // one row per (task, learner, split)
//   Json j = results_json(results);
//
// Every (task, learner, split) is one unit and gives one row (a progress bar counts them). Units
// whose splits have the same train rows (SoakSplits::train_twin) share one fit: the model is
// fitted once, seeded from (task, learner name, twin split), and scored on each unit's test
// rows; every such row reports that fit's train_seconds. So results are identical at any thread
// count, and a unit run alone (run_soak_unit, a batch job) fits the same model again.
// Fits run on a shared thread pool; row lists are built inside each fit, so only the fits in
// flight hold them. Threads left over when there are fewer fits than threads go to the learners
// (FitContext).
// A learner that throws learners::LearnerFailure on a split (e.g. one class in its train set)
// gives that row NA values (NaN measures and timings) and `failure` = the reason; the run goes
// on. A split whose train or test set is empty is recorded the same way ("empty train set").
// Warnings, after the run and in unit order: one per (data set, learner) with NA rows (count and
// the first reason), one per (data set, learner) with undefined AUCs.
//
// Error measures of a row: classification: error_percent = 100·Σ w[i]·(pred_i ≠ y_i) / Σ w[i]
// over the test rows (pred = argmax of the predicted probabilities, first maximum), and, when the
// task has two classes, auc = weighted ROC AUC of the probability of the second class (NaN
// unless both classes have positive weight among the test rows); regression:
// mse = Σ w·(ŷ − y)² / Σ w and mae = Σ w·|ŷ − y| / Σ w (error_percent and auc are NaN). Test rows
// of total weight 0 give NaN measures and the failure "the N test rows have total weight 0".
// score_classification and score_regression compute them (assay.soak.run_estimators calls them
// too, for the predictions of the user's estimators).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/core/table.hpp"
#include "assay/learners/dataset.hpp"
#include "assay/soak/splits.hpp"

namespace assay::learners {
class Learner;
}  // namespace assay::learners

namespace assay::soak {

struct SoakParams {
  /// Learner names (see learners::learner_names()).
  std::vector<std::string> learners = {"featureless"};
  /// Parameters per learner name ({"glmnet": {"alpha": 0.5}}); a learner without an entry gets
  /// its defaults. A name here that is not in `learners` is an error.
  Json learner_params = Json::object();
  /// Worker threads for the units of work (0 = all cores).
  int threads = 0;
  /// Seed from which every learner's seed is derived.
  std::uint64_t seed = 1;
};

/// One data set with its splits. The splits' design must have dataset.n_rows rows.
struct SoakTask {
  learners::Dataset dataset;
  SoakSplits splits;
};

/// One row of the results.
struct SoakResultRow {
  std::string data;     ///< data set name
  std::string learner;  ///< learner name
  std::string test_subset;
  TrainSubsets train_subsets = TrainSubsets::same;
  std::int32_t test_fold = 1;
  std::int32_t seed = 1;
  std::int64_t groups = 0;
  std::int64_t n_train_groups = 0;
  std::size_t iteration = 0;
  std::size_t n_train = 0;
  std::size_t n_test = 0;
  /// Classification: percent of test rows misclassified (weighted). NaN on failure/regression.
  double error_percent = std::numeric_limits<double>::quiet_NaN();
  /// Binary classification: ROC AUC on the test rows. NaN otherwise.
  double auc = std::numeric_limits<double>::quiet_NaN();
  /// Regression: mean squared and absolute error. NaN for classification.
  double mse = std::numeric_limits<double>::quiet_NaN();
  double mae = std::numeric_limits<double>::quiet_NaN();
  double train_seconds = 0;
  double predict_seconds = 0;
  /// Hyper-parameters chosen by the learner (Model::description()), as compact JSON text.
  std::string hyperparameters;
  /// Empty when the row succeeded, else why its values are NA.
  std::string failure;
};

struct SoakResults {
  std::vector<SoakResultRow> rows;
};

/// The result of one unit of work: its row, and whether its AUC is undefined because the test
/// set has one class (for the summary warning).
struct SoakUnitResult {
  SoakResultRow row;
  bool auc_one_class = false;
};

/// The error measures of one split's test rows (see the top of this file); the measures that do
/// not apply are NaN.
struct SplitScore {
  double error_percent = std::numeric_limits<double>::quiet_NaN();
  double auc = std::numeric_limits<double>::quiet_NaN();
  double mse = std::numeric_limits<double>::quiet_NaN();
  double mae = std::numeric_limits<double>::quiet_NaN();
  /// "the N test rows have total weight 0" (every measure NaN), else empty.
  std::string failure;
  /// Two classes and scores given, but a class has no positive test weight: auc is NaN.
  bool auc_one_class = false;
};

/// Classification measures of one split: `y` and `predicted` class codes per test row (a code
/// outside 0..n_classes-1 counts as wrong); `positive_score` the score of class 1 per test row,
/// for the AUC when n_classes == 2 (empty: no scores, auc NaN); `weights` per test row (empty:
/// each 1).
///
///   SplitScore s = score_classification(y, predicted, p1, {}, 2);  // s.error_percent, s.auc
SplitScore score_classification(std::span<const std::int32_t> y,
                                std::span<const std::int32_t> predicted,
                                std::span<const double> positive_score,
                                std::span<const double> weights, std::size_t n_classes);

/// Regression measures of one split: `y` and `predicted` values per test row; `weights` as above.
SplitScore score_regression(std::span<const double> y, std::span<const double> predicted,
                            std::span<const double> weights);

/// The units of an experiment: unit u (0-based) is (task, learner, split) in that nesting order,
/// tasks outermost; run_soak's results list the units in this order. Batch runs (one job per
/// unit, batch/registry.hpp) use the same numbering, so a unit's seed and row do not depend on
/// where it runs.
struct SoakUnit {
  std::size_t task = 0, learner = 0, split = 0;
};

class SoakUnits {
 public:
  /// Requires: the tasks outlive this object.
  SoakUnits(const std::vector<SoakTask>& tasks, std::size_t n_learners);
  std::size_t size() const { return first_.back(); }
  /// Unit u; requires u < size().
  SoakUnit at(std::size_t u) const;

 private:
  std::vector<std::size_t> first_;  // first unit of each task, then the total
  std::size_t n_learners_;
  const std::vector<SoakTask>* tasks_;
};

/// The learners of params.learners with their parameters (params.learner_params). Throws
/// assay::Error for an unknown learner or parameter, a learner listed twice, or parameters for a
/// learner that is not listed.
std::vector<std::unique_ptr<learners::Learner>> make_soak_learners(const SoakParams& params);

/// Checks that the tasks and learners can run together (see run_soak); throws assay::Error.
void check_soak_inputs(const std::vector<SoakTask>& tasks,
                       const std::vector<const learners::Learner*>& learners);

/// Runs every unit as run_soak does (one fit per distinct train set, on `threads` workers, a
/// progress bar named `progress_label`), without the checks and warnings; result u is unit u's.
std::vector<SoakUnitResult> run_soak_units(const std::vector<SoakTask>& tasks,
                                           const std::vector<const learners::Learner*>& learners,
                                           std::uint64_t seed, int threads,
                                           const std::string& progress_label = "soak");

/// Runs unit u as run_soak does (the same seed from `seed`, hence the same row), fitting its own
/// model even when run_soak would share its twin's; the learner gets `threads` threads (the
/// result does not depend on it). Throws only for bugs:
/// a learner that cannot fit gives an NA row with the reason.
SoakUnitResult run_soak_unit(const std::vector<SoakTask>& tasks,
                             const std::vector<const learners::Learner*>& learners, std::size_t u,
                             std::uint64_t seed, int threads);

/// The warnings run_soak gives after its units, from their results (in unit order): one per
/// (data set, learner) with NA rows, one per (data set, learner) with undefined AUCs.
void warn_soak_units(const std::vector<SoakTask>& tasks,
                     const std::vector<const learners::Learner*>& learners,
                     const std::vector<SoakUnitResult>& units);

/// Runs every learner on every split of every task. Throws assay::Error for an unknown learner,
/// a learner that does not support a task's kind, a data set that fails learners::check_dataset,
/// or a task whose design and data set differ in rows.
SoakResults run_soak(const std::vector<SoakTask>& tasks, const SoakParams& params);

/// Same, with learner objects instead of names (learners outside the registry, tests);
/// params.learners is ignored. The learners must outlive the call.
SoakResults run_soak(const std::vector<SoakTask>& tasks,
                     const std::vector<const learners::Learner*>& learners,
                     const SoakParams& params);

/// Results as a table with the columns of SoakResultRow, in that order (data, learner,
/// test.subset, train.subsets, test.fold, seed, groups, n.train.groups, iteration, n_train,
/// n_test, error_percent, auc, mse, mae, train_seconds, predict_seconds, hyperparameters,
/// failure). NA values are written as NaN / empty strings.
Table results_table(const SoakResults& results);

/// Reads results back from a table with those column names (e.g. results.csv, or the output of
/// assay.soak.run_estimators). Required: test.subset, train.subsets, test.fold and at least one
/// measure column; missing optional columns read as "" (text), NaN (measures), seed 1 and
/// groups = n.train.groups = 0 (full size). Text cells "", "NA", "nan" in number columns read as
/// NaN; numbers in text columns are formatted ("2019"). Throws assay::Error naming the file for
/// a missing required column, a bad train.subsets value or a non-integer fold/seed/size.
SoakResults results_from_table(const Table& table);

/// Results as JSON: {"columns": [...], "rows": [[...], ...]} with NaN written as null.
Json results_json(const SoakResults& results);

}  // namespace assay::soak
