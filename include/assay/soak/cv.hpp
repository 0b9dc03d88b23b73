// Plain K-fold cross-validation comparing learners on one or more data sets (SOAK paper §4.1
// and Figure 2): the single entry point behind `assay cv` and `assay.learners.cv`.
//
// Example:
//   CvParams params;  params.data.label = "y";  params.learners = {"featureless", "glmnet"};
//   CvOutcome out = cv_experiment({{"vowel", read_csv("vowel.csv")}}, params);
//   // out.results: one row per (data set, learner, fold); out.summaries: one per (data, learner)
//
// It is a SOAK experiment with one subset (soak/splits.hpp: only "same" train sets), run by
// run_soak, so it shares everything with `assay soak`: folds random within strata of the label
// (a permutation of 1..K,1..K,… per class, as mlr3's ResamplingCV), groups never split, or a
// given fold column; per-unit seeds derived from `seed` (identical results at any thread
// count); error_percent / auc / mse / mae as in soak/experiment.hpp; a learner that cannot fit a
// fold (LearnerFailure) gives an NA row with the reason and the run goes on.
//
// Results keep run_soak's rows; every row has test.subset "full" and train.subsets "same".
// Summaries, per (data set, learner) in data-set then learner order: mean and SD (ddof 1) over
// the folds with a result of the measure (error_percent for classification, mse for
// regression), of the AUC (two classes only) and of the train and predict seconds; folds with NA
// are left out and counted in n_failed (with the first reason).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/core/table.hpp"
#include "assay/learners/dataset.hpp"
#include "assay/soak/experiment.hpp"

namespace assay::soak {

struct CvParams {
  /// Label, features/drop and weight columns (`reserved` is filled in from group and fold).
  learners::DatasetColumns data;
  /// Optional group column: rows of a group always share a fold.
  std::string group;
  /// Optional given fold column (any values, relabelled 1..K); then `folds` is ignored.
  std::string fold;
  /// Classification (default) or regression.
  learners::TaskKind task = learners::TaskKind::classification;
  /// Number of folds K (>= 2); default 10 as in the SOAK paper.
  int folds = 10;
  /// Learners to compare; default the five of the SOAK paper, §4.1.
  std::vector<std::string> learners = {"featureless", "glmnet", "cart", "knn", "xgboost"};
  /// Parameters per learner name ({"glmnet": {"alpha": 0.5}}); a learner without an entry gets
  /// its defaults; a name that is not in `learners` is an error.
  Json learner_params = Json::object();
  /// Seed of the fold assignment and of every learner (internal CV folds).
  std::uint64_t seed = 1;
  /// Worker threads (0 = all cores); results do not depend on it.
  int threads = 0;
};

/// Mean and SD over folds for one (data set, learner). NaN where undefined (SD of one value,
/// AUC of a multi-class or regression task, no fold with a result).
struct CvSummary {
  std::string data, learner;
  /// Folds with a result, and folds with NA.
  std::size_t n = 0;
  std::size_t n_failed = 0;
  /// The measure (CvOutcome::measure) over folds.
  double mean = std::numeric_limits<double>::quiet_NaN();
  double sd = std::numeric_limits<double>::quiet_NaN();
  double auc_mean = std::numeric_limits<double>::quiet_NaN();
  double auc_sd = std::numeric_limits<double>::quiet_NaN();
  double train_seconds_mean = std::numeric_limits<double>::quiet_NaN();
  double train_seconds_sd = std::numeric_limits<double>::quiet_NaN();
  double predict_seconds_mean = std::numeric_limits<double>::quiet_NaN();
  /// Reason of the first NA fold ("" when none failed).
  std::string first_failure;
};

struct CvOutcome {
  std::vector<SoakTask> tasks;
  /// One row per (data set, learner, fold), in that order.
  SoakResults results;
  /// "error_percent" (classification) or "mse" (regression).
  std::string measure;
  std::vector<CvSummary> summaries;
};

/// One data set with its K-fold splits. `group` (rows of a group share a fold) and `fold` (given
/// folds) are optional: empty or one entry per row. Classification folds are stratified by the
/// label. Throws assay::Error for what SoakSplits rejects (folds < 2, fewer rows or groups than
/// folds, a given fold not constant within a group, lengths that differ).
SoakTask cv_task(learners::Dataset data, const CvParams& params,
                 std::vector<std::int32_t> group = {}, std::vector<std::int64_t> fold = {});

/// One data set from a table, columns as in params (errors name the table's file, as
/// soak_task_from_table).
SoakTask cv_task_from_table(const Table& table, const CvParams& params, std::string name);

/// Runs every learner on every fold of every task and summarises. Throws assay::Error as
/// run_soak (unknown learner, bad parameters, no learners).
CvOutcome run_cv(std::vector<SoakTask> tasks, const CvParams& params);

/// Builds a task per table (names must be unique and there must be one table at least) and runs
/// run_cv.
CvOutcome cv_experiment(const std::vector<std::pair<std::string, Table>>& tables,
                        const CvParams& params);

/// The summaries of results (see above), measure "error_percent", "mse", "mae" or "auc".
std::vector<CvSummary> cv_summaries(const SoakResults& results, const std::string& measure);

/// results.csv of `assay cv`: data, learner, test.fold, n_train, n_test, error_percent, auc,
/// mse, mae, train_seconds, predict_seconds, hyperparameters, failure (NA as NaN / "").
Table cv_results_table(const SoakResults& results);

/// summary.csv: data, learner, measure, mean, sd, n, n_failed, auc_mean, auc_sd,
/// train_seconds_mean, train_seconds_sd, predict_seconds_mean, first_failure.
Table cv_summary_table(const CvOutcome& outcome);

/// {"measure": ..., "summaries": [{column: value}...], "results": {"columns", "rows"}}; NaN is
/// null.
Json cv_json(const CvOutcome& outcome);

/// A one-paragraph description for reports (data sets with rows, features, classes and folds;
/// learners; seed).
std::string describe_cv(const CvOutcome& outcome, const CvParams& params);

}  // namespace assay::soak
