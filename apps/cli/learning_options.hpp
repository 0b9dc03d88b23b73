// Options shared by `assay soak` and `assay cv`: the data files and their column roles, the
// learners and their parameters, and the output folder.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "assay/core/table.hpp"
#include "assay/learners/dataset.hpp"
#include "commands.hpp"

namespace assay::cli {

struct LearningOptions {
  std::vector<std::string> files, learners, learner_params, features, drop;
  std::string label, weight, task = "classification";
  /// --max-levels: most distinct values of a text feature (0 = no limit).
  std::size_t max_levels = learners::DatasetColumns{}.max_levels;
  /// --out, --plan, --threads and --json (registered by each command, with its own help).
  std::string out, plan;
  int threads = 0;
  /// --delimiter and --decimal of the data files (registered with the data options).
  CsvDialectOptions csv_dialect;
  bool json = false;

  /// The positional files and --label.
  void add_data_options(CLI::App* cmd);
  /// --learners (default: `learners` as set before the call) and --learner-param.
  void add_learner_options(CLI::App* cmd);
  /// --features | --drop, --weight, --task and --max-levels.
  void add_column_options(CLI::App* cmd);
  /// --threads, --out and --plan.
  void add_run_options(CLI::App* cmd);

  /// --task as a TaskKind; throws assay::Error for anything else.
  learners::TaskKind task_kind() const;
  /// Label, features, drop, weight and the levels limit.
  learners::DatasetColumns columns() const;
  /// Every file read as CSV, named by its stem. Classification labels stay categorical so that
  /// "1".."11" are class names, not numbers.
  std::vector<std::pair<std::string, Table>> read_tables() const;
};

}  // namespace assay::cli
