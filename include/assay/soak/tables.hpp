// A SOAK experiment on tables (CSV files): the single entry point behind `assay soak`.
//
// Example:
//   SoakTableSpec spec;  spec.data.label = "y";  spec.design.subset = "region3";
//   spec.design.group = "polygon";  spec.data.drop = {"xcoord", "ycoord"};
//   SoakExperimentParams params;  params.splits.folds = 10;
//   SoakOutcome out = soak_experiment({{"aztrees3", read_csv("aztrees.csv")}}, spec, params);
//   // out.results (one row per data set x learner x split), out.statistics (t-tests)
//
// Every table gets the same column roles. The subset, group, fold and strata columns are never
// features (nor is the label or the weight). Default strata: subset x label for classification,
// the subset for regression.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/core/table.hpp"
#include "assay/learners/dataset.hpp"
#include "assay/soak/experiment.hpp"
#include "assay/soak/splits.hpp"
#include "assay/soak/statistics.hpp"

namespace assay::soak {

struct SoakTableSpec {
  /// Label, features/drop, weight (DatasetColumns::reserved is filled in from `design`).
  learners::DatasetColumns data;
  /// Subset, group, fold, strata columns.
  SoakColumns design;
  /// Classification (default) or regression.
  learners::TaskKind task = learners::TaskKind::classification;
};

struct SoakExperimentParams {
  SoakSplitParams splits;
  SoakParams run;
  StatisticsParams statistics;
};

struct SoakOutcome {
  std::vector<SoakTask> tasks;
  SoakResults results;
  SoakStatistics statistics;
};

/// One data set and its splits from a table. Throws assay::Error naming the table's file for a
/// missing or misused column (see dataset_from_table and soak_design).
SoakTask soak_task_from_table(const Table& table, const SoakTableSpec& spec,
                              const SoakSplitParams& params, std::string name);

/// Builds every task, runs the experiment and its statistics. Data set names must be unique.
SoakOutcome soak_experiment(const std::vector<std::pair<std::string, Table>>& tables,
                            const SoakTableSpec& spec, const SoakExperimentParams& params);

/// Learner parameters from the CLI's repeated `--learner-param LEARNER.KEY=VALUE` (the first '.'
/// ends the learner name, the first '=' the key): {"glmnet": {"alpha": 0.5}, ...}, the shape of
/// SoakParams::learner_params. VALUE is JSON when it parses as JSON (0.5, 3, true, [0.1,1],
/// "text"), else the text itself (lambda.min). Throws assay::Error for an assignment without
/// '=' or '.', an empty learner name, key or value, or a key given twice. Whether the learner and
/// key exist is checked by run_soak / make_learner.
Json learner_params_from_assignments(const std::vector<std::string>& assignments);

/// A one-paragraph description of the run for reports (data sets with rows/subsets/folds,
/// learners, sizes, seeds).
std::string describe_experiment(const SoakOutcome& outcome, const SoakExperimentParams& params);

}  // namespace assay::soak
