#include "learning_options.hpp"

#include <fstream>

#include <cstdio>
#include <iostream>
#include <optional>

#include "assay/batch/distributed.hpp"
#include "assay/batch/registry.hpp"
#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"

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

void run_experiment_command(const batch::ExperimentDefinition& def, const LearningOptions& o,
                            const GlobalOptions& global) {
  if (o.out.empty() && o.plan.empty()) {
    fail("--out DIR is required (or --plan DIR to write a batch registry)");
  }
  for (const auto& file : o.files) note_input(file, "the data");
  // An unwritable --out fails now, before every learner is trained. Planning only names the
  // folder that `assay job collect` writes later, so it creates nothing.
  if (!o.out.empty() && !o.plan.empty() && !global.launched_by_mpi) {
    prepare_output_folder(o.out, /*create=*/false);
  } else if (!o.out.empty()) {
    check_writable((output_folder(o.out) / "results.json").string());
  }
  if (!o.out.empty()) check_derived_outputs(o.out, batch::output_files(def.kind), "--out " + o.out);
  std::optional<batch::ExperimentOutcome> outcome;
  std::string out = o.out;
  if (global.launched_by_mpi) {
    if (global.distributor == nullptr) {
      fail(
          "assay was started by mpirun but built without MPI support; rebuild it with an MPI "
          "library installed (Debian: libopenmpi-dev), or run it without mpirun");
    }
    outcome = batch::run_distributed(
        def, *global.distributor,
        batch::DistributedParams{.threads = o.threads, .registry = o.plan, .out = o.out});
    if (!outcome) return;  // not rank 0
    if (out.empty()) out = batch::Registry::open(o.plan).out();
    if (out.empty()) fail("--out DIR is required to write the outputs of an MPI run");
  } else if (!o.plan.empty()) {
    const auto registry = batch::Registry::plan(o.plan, def, o.out);
    std::cout << batch::plan_text(registry);
    return;
  } else {
    outcome = batch::run_experiment(def, o.threads);
  }
  batch::write_outputs(def, *outcome, out);
  std::cout << batch::outcome_text(def, *outcome, o.json);
  flush_stdout();
  std::fprintf(stderr, "assay: wrote %s/%s\n", out.c_str(), batch::output_names(def.kind).c_str());
}

std::filesystem::path output_folder(const std::string& out) {
  prepare_output_folder(out, /*create=*/true);
  return out;
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  write_file_atomic(path.string(), text);
}

}  // namespace assay::cli
