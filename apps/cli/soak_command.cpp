// `assay soak DATA.csv... --label y --subset COL ... --out DIR`: Same/Other/All K-fold
// cross-validation (SOAK paper): results.csv, pvalues.csv, summaries.csv, results.json and
// report.html in DIR, and a short summary on stdout.
#include "assay/batch/experiment.hpp"
#include "assay/soak/tables.hpp"
#include "commands.hpp"
#include "learning_options.hpp"
#include "run_experiment.hpp"

namespace assay::cli {

Action add_soak_command(CLI::App& app, const GlobalOptions& global) {
  struct Options : LearningOptions {
    std::vector<std::string> strata;
    std::string subset, group, fold, subsets = "SOA", measure;
    int folds = 10, seeds = 1, sizes = -1;
    double ratio = 0.5;
    std::uint64_t seed = 1;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "soak",
      "Same/Other/All K-fold cross-validation (SOAK paper): can a model trained on some data\n"
      "subsets predict another subset, and does combining subsets help? Writes results.csv,\n"
      "pvalues.csv, summaries.csv, results.json and report.html to --out.");
  o->learners = {"featureless"};
  o->add_data_options(cmd);
  cmd->add_option("--subset", o->subset,
                  "subset column (never a feature); omit for plain K-fold CV");
  cmd->add_option("--group", o->group, "group column: rows of a group are never split");
  cmd->add_option("--fold", o->fold, "given fold column (constant within each group)");
  cmd->add_option("--strata", o->strata,
                  "strata columns (crossed with the subset); default: the label")
      ->delimiter(',');
  cmd->add_option("--folds", o->folds, "number of folds K")->capture_default_str();
  cmd->add_option("--subsets", o->subsets, "train sets: S, O, A or a combination")
      ->capture_default_str();
  cmd->add_option("--seeds", o->seeds, "repetitions of the down-sampling")->capture_default_str();
  cmd->add_option("--sizes", o->sizes,
                  "down-sampled train sizes: -1 full only, 0 also smaller full sizes, j also "
                  "min(groups)*ratio^1..j")
      ->capture_default_str();
  cmd->add_option("--ratio", o->ratio, "ratio between down-sampled sizes")->capture_default_str();
  o->add_learner_options(cmd);
  o->add_column_options(cmd);
  cmd->add_option("--measure", o->measure,
                  "measure for the tests: error_percent, auc, mse, mae (default: error_percent "
                  "or mse)");
  add_seed_option(cmd, o->seed, "seed for folds, down-sampling and learners");
  o->add_run_options(cmd);
  cmd->add_flag("--json", o->json, "print the statistics as JSON instead of the summary");

  return [cmd, o, &global] {
    if (!cmd->parsed()) return;
    batch::ExperimentDefinition def;
    def.kind = batch::ExperimentKind::soak;
    def.files = o->files;
    def.delimiter = o->csv_dialect.delimiter;
    def.decimal = o->csv_dialect.decimal;
    def.spec.data = o->columns();
    def.spec.design = {o->subset, o->group, o->fold, o->strata};
    def.spec.task = o->task_kind();
    def.params.splits = {.folds = o->folds,
                         .subsets = o->subsets,
                         .sizes = o->sizes,
                         .ratio = o->ratio,
                         .seeds = o->seeds,
                         .seed = o->seed};
    def.params.run = {.learners = o->learners,
                      .learner_params = soak::learner_params_from_assignments(o->learner_params),
                      .threads = o->threads,
                      .seed = o->seed};
    def.params.statistics.measure = o->measure;
    def.title = "assay soak:";
    for (const auto& f : o->files) def.title += " " + f;
    run_experiment_command(def, *o, global);
  };
}

}  // namespace assay::cli
