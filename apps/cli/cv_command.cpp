// `assay cv DATA.csv... --label y [--learners ...] --out DIR`: plain K-fold comparison of learners
// (SOAK paper §4.1, Figure 2): results.csv, summary.csv, results.json and report.html in DIR, and
// a table of mean ± SD test error and train time per learner on stdout.
#include <algorithm>

#include "assay/batch/experiment.hpp"
#include "assay/learners/learner.hpp"
#include "assay/soak/cv.hpp"
#include "assay/soak/tables.hpp"
#include "commands.hpp"
#include "learning_options.hpp"
#include "run_experiment.hpp"

namespace assay::cli {

Action add_cv_command(CLI::App& app, const GlobalOptions& global) {
  struct Options : LearningOptions {
    std::string group, fold;
    int folds = 10;
    std::uint64_t seed = 1;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "cv",
      "Plain K-fold cross-validation comparing learners on one or more data sets (SOAK paper\n"
      "Figure 2): test error and training time per learner. Writes results.csv, summary.csv,\n"
      "results.json and report.html to --out.");
  o->learners = soak::CvParams{}.learners;
  o->add_data_options(cmd);
  o->add_learner_options(cmd);
  cmd->add_option("--folds", o->folds, "number of folds K")->capture_default_str();
  cmd->add_option("--group", o->group, "group column: rows of a group share a fold");
  cmd->add_option("--fold", o->fold, "given fold column (then --folds is ignored)");
  o->add_column_options(cmd);
  add_seed_option(cmd, o->seed, "seed for the folds and the learners");
  o->add_run_options(cmd);
  cmd->add_flag("--json", o->json, "print the summary as JSON instead of the table");

  return [cmd, o, &global] {
    if (!cmd->parsed()) return;
    batch::ExperimentDefinition def;
    def.kind = batch::ExperimentKind::cv;
    def.files = o->files;
    def.delimiter = o->csv_dialect.delimiter;
    def.decimal = o->csv_dialect.decimal;
    def.spec.data = o->columns();
    def.spec.design.group = o->group;
    def.spec.design.fold = o->fold;
    def.spec.task = o->task_kind();
    def.params.splits = {.folds = o->folds, .subsets = "S", .seed = o->seed};
    def.params.run = {.learners = o->learners,
                      .learner_params = soak::learner_params_from_assignments(o->learner_params),
                      .threads = o->threads,
                      .seed = o->seed};
    def.title = "assay cv:";
    for (const auto& f : o->files) def.title += " " + f;
    // Unknown learner names fail before any file is read.
    for (const auto& name : def.params.run.learners) {
      const auto known = learners::learner_names();
      if (std::find(known.begin(), known.end(), name) == known.end()) learners::make_learner(name);
    }
    run_experiment_command(def, *o, global);
  };
}

}  // namespace assay::cli
