#include "learning_options.hpp"

#include "assay/batch/experiment.hpp"
#include "assay/core/csv.hpp"

namespace assay::cli {

void LearningOptions::add_data_options(CLI::App* cmd) {
  cmd->add_option("files", files, "CSV data set(s); every file gets the same column roles")
      ->required();
  cmd->add_option("--label", label, "label (target) column")->required();
  csv_dialect.add_to(cmd);
}

void LearningOptions::add_learner_options(CLI::App* cmd) {
  cmd->add_option("--learners", learners, "learners, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--learner-param", learner_params,
                  "a learner parameter, LEARNER.KEY=VALUE (repeatable; VALUE as JSON if it "
                  "parses, else text), e.g. glmnet.alpha=0.5");
}

void LearningOptions::add_column_options(CLI::App* cmd) {
  auto* only =
      cmd->add_option("--features", features, "use only these feature columns (comma-separated)")
          ->delimiter(',');
  cmd->add_option("--drop", drop, "columns that are not features (comma-separated)")
      ->delimiter(',')
      ->excludes(only);
  cmd->add_option("--weight", weight, "row-weight column");
  cmd->add_option("--task", task, "classification or regression")->capture_default_str();
  cmd->add_option("--max-levels", max_levels,
                  "refuse a text feature with more distinct values than this (one-hot encoding "
                  "makes a dense feature of each; 0 = no limit)")
      ->capture_default_str()
      ->check(non_negative_integer());
}

learners::TaskKind LearningOptions::task_kind() const {
  return parse_task_kind(task, "--task");
}

learners::DatasetColumns LearningOptions::columns() const {
  learners::DatasetColumns c;
  c.label = label;
  c.features = features;
  c.drop = drop;
  c.weight = weight;
  c.max_levels = max_levels;
  return c;
}

std::vector<std::pair<std::string, Table>> LearningOptions::read_tables() const {
  return batch::read_experiment_tables(files, label, task_kind(), csv_dialect.delimiter,
                                       csv_dialect.decimal);
}

void LearningOptions::add_run_options(CLI::App* cmd) {
  add_threads_option(cmd, threads, "worker threads (0 = all cores; per rank under mpirun)");
  cmd->add_option("--out", out, "output directory (created if missing)")->check(output_file_name());
  cmd->add_option("--plan", plan,
                  "write a batch registry to this folder instead of running (jobs then run with "
                  "`assay job run|submit`, see docs/cluster.md); under mpirun, run through it");
}

}  // namespace assay::cli
