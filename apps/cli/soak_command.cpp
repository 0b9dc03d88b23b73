// `assay soak DATA.csv... --label y --subset COL ... --out DIR`: Same/Other/All K-fold
// cross-validation (source 001): results.csv, pvalues.csv, summaries.csv, results.json and
// report.html in DIR, and a short summary on stdout.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/report/soak.hpp"
#include "assay/soak/tables.hpp"
#include "commands.hpp"

namespace assay::cli {
namespace {

learners::TaskKind parse_task(const std::string& task) {
  if (task == "classification") return learners::TaskKind::classification;
  if (task == "regression") return learners::TaskKind::regression;
  fail("--task must be classification or regression, found {}", quote_found(task));
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) fail("{}: cannot write", path.string());
}

}  // namespace

Action add_soak_command(CLI::App& app, const GlobalOptions& /*global*/) {
  struct Options {
    std::vector<std::string> files, strata, learners{"featureless"}, learner_params, features, drop;
    std::string label, subset, group, fold, weight, out, task = "classification", subsets = "SOA",
                                                         measure;
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
  cmd->add_option("files", o->files, "CSV data set(s); every file gets the same column roles")
      ->required();
  cmd->add_option("--label", o->label, "label (target) column")->required();
  cmd->add_option("--subset", o->subset,
                  "subset column (never a feature); omit for plain K-fold CV");
  cmd->add_option("--group", o->group, "group column: rows of a group are never split");
  cmd->add_option("--fold", o->fold, "given fold column (constant within each group)");
  cmd->add_option("--strata", o->strata,
                  "strata columns (crossed with the subset); default: the label")
      ->delimiter(',');
  cmd->add_option("--weight", o->weight, "row-weight column");
  cmd->add_option("--folds", o->folds, "number of folds K")->capture_default_str();
  cmd->add_option("--subsets", o->subsets, "train sets: S, O, A or a combination")
      ->capture_default_str();
  cmd->add_option("--seeds", o->seeds, "repetitions of the down-sampling")->capture_default_str();
  cmd->add_option("--sizes", o->sizes,
                  "down-sampled train sizes: -1 full only, 0 also smaller full sizes, j also "
                  "min(groups)*ratio^1..j")
      ->capture_default_str();
  cmd->add_option("--ratio", o->ratio, "ratio between down-sampled sizes")->capture_default_str();
  cmd->add_option("--learners", o->learners, "learners, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--learner-param", o->learner_params,
                  "a learner parameter, LEARNER.KEY=VALUE (repeatable; VALUE as JSON if it "
                  "parses, else text), e.g. glmnet.alpha=0.5");
  auto* features =
      cmd->add_option("--features", o->features, "use only these feature columns (comma-separated)")
          ->delimiter(',');
  cmd->add_option("--drop", o->drop, "columns that are not features (comma-separated)")
      ->delimiter(',')
      ->excludes(features);
  cmd->add_option("--task", o->task, "classification or regression")->capture_default_str();
  cmd->add_option("--measure", o->measure,
                  "measure for the tests: error_percent, auc, mse, mae (default: error_percent "
                  "or mse)");
  cmd->add_option("--seed", o->seed, "seed for folds, down-sampling and learners")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "worker threads (0 = all cores)")->capture_default_str();
  cmd->add_option("--out", o->out, "output directory (created if missing)")->required();
  cmd->add_flag("--json", o->json, "print the statistics as JSON instead of the summary");

  return [cmd, o] {
    if (!cmd->parsed()) return;
    soak::SoakTableSpec spec;
    spec.data.label = o->label;
    spec.data.features = o->features;
    spec.data.drop = o->drop;
    spec.data.weight = o->weight;
    spec.design = {o->subset, o->group, o->fold, o->strata};
    spec.task = parse_task(o->task);
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

    // Labels stay categorical so that "1".."11" are class names, not numbers to average.
    CsvParams csv;
    if (spec.task == learners::TaskKind::classification) csv.categorical = {o->label};
    std::vector<std::pair<std::string, Table>> tables;
    for (const auto& file : o->files) {
      tables.emplace_back(std::filesystem::path(file).stem().string(), read_csv(file, csv));
    }
    const auto outcome = soak::soak_experiment(tables, spec, params);

    const std::filesystem::path dir(o->out);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) fail("{}: cannot create directory: {}", o->out, ec.message());
    write_csv(soak::results_table(outcome.results), (dir / "results.csv").string());
    write_csv(soak::pvalues_table(outcome.statistics), (dir / "pvalues.csv").string());
    write_csv(soak::summaries_table(outcome.statistics), (dir / "summaries.csv").string());
    write_text(dir / "results.json", soak::results_json(outcome.results).dump(1) + "\n");
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
