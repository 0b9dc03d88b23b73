// `assay soak DATA.csv... --label y --subset COL ... --out DIR`: Same/Other/All K-fold
// cross-validation (source 001): results.csv, pvalues.csv, summaries.csv, results.json and
// report.html in DIR, and a short summary on stdout.
#include <cstdio>
#include <iostream>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/report/soak.hpp"
#include "assay/soak/tables.hpp"
#include "commands.hpp"
#include "learning_options.hpp"

namespace assay::cli {

Action add_soak_command(CLI::App& app, const GlobalOptions& /*global*/) {
  struct Options : LearningOptions {
    std::vector<std::string> strata;
    std::string subset, group, fold, out, subsets = "SOA", measure;
    int folds = 10, seeds = 1, sizes = -1, threads = 0;
    double ratio = 0.5;
    std::uint64_t seed = 1;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "soak",
      "Same/Other/All K-fold cross-validation (source 001): can a model trained on some data\n"
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
  cmd->add_option("--seed", o->seed, "seed for folds, down-sampling and learners")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "worker threads (0 = all cores)")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--out", o->out, "output directory (created if missing)")->required();
  cmd->add_flag("--json", o->json, "print the statistics as JSON instead of the summary");

  return [cmd, o] {
    if (!cmd->parsed()) return;
    soak::SoakTableSpec spec;
    spec.data = o->columns();
    spec.design = {o->subset, o->group, o->fold, o->strata};
    spec.task = o->task_kind();
    soak::SoakExperimentParams params;
    params.splits = {.folds = o->folds,
                     .subsets = o->subsets,
                     .sizes = o->sizes,
                     .ratio = o->ratio,
                     .seeds = o->seeds,
                     .seed = o->seed};
    params.run = {.learners = o->learners,
                  .learner_params = soak::learner_params_from_assignments(o->learner_params),
                  .threads = o->threads,
                  .seed = o->seed};
    params.statistics.measure = o->measure;

    const auto tables = o->read_tables();
    const auto outcome = soak::soak_experiment(tables, spec, params);

    const auto dir = output_folder(o->out);
    write_csv(soak::results_table(outcome.results), (dir / "results.csv").string());
    write_csv(soak::pvalues_table(outcome.statistics), (dir / "pvalues.csv").string());
    write_csv(soak::summaries_table(outcome.statistics), (dir / "summaries.csv").string());
    write_text_file(dir / "results.json", soak::results_json(outcome.results).dump(1) + "\n");
    std::string title = "assay soak:";
    for (const auto& f : o->files) title += " " + f;
    report::soak_html(outcome.statistics, outcome.results, title,
                      soak::describe_experiment(outcome, params))
        .write((dir / "report.html").string());

    if (o->json) {
      std::cout << soak::statistics_json(outcome.statistics).dump(2) << "\n";
    } else {
      std::cout << soak::describe_experiment(outcome, params) << "\n\n"
                << report::soak_text(outcome.statistics);
    }
    std::fprintf(
        stderr,
        "assay: wrote %s/{results.csv,pvalues.csv,summaries.csv,results.json,report.html}\n",
        o->out.c_str());
  };
}

}  // namespace assay::cli
