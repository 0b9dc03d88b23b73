// A SOAK experiment on tables (CSV files): the single entry point behind `assay soak`.
//
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

/// A one-paragraph description of the run for reports (data sets with rows/subsets/folds,
/// learners, sizes, seeds).
std::string describe_experiment(const SoakOutcome& outcome, const SoakExperimentParams& params);

}  // namespace assay::soak
