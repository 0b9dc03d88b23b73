// `assay cv DATA.csv... --label y [--learners ...] --out DIR`: plain K-fold comparison of learners
// (source 001 §4.1, Figure 2): results.csv, summary.csv, results.json and report.html in DIR, and
// a table of mean ± SD test error and train time per learner on stdout.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/learners/learner.hpp"
#include "assay/report/cv.hpp"
#include "assay/soak/cv.hpp"
#include "assay/soak/tables.hpp"
#include "commands.hpp"
#include "learning_options.hpp"

namespace assay::cli {

Action add_cv_command(CLI::App& app, const GlobalOptions& /*global*/) {
  struct Options : LearningOptions {
    std::string group, fold, out;
    int folds = 10, threads = 0;
    std::uint64_t seed = 1;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "cv",
      "Plain K-fold cross-validation comparing learners on one or more data sets (source 001\n"
      "Figure 2): test error and training time per learner. Writes results.csv, summary.csv,\n"
      "results.json and report.html to --out.");
  o->learners = soak::CvParams{}.learners;
  o->add_data_options(cmd);
  o->add_learner_options(cmd);
  cmd->add_option("--folds", o->folds, "number of folds K")->capture_default_str();
  cmd->add_option("--group", o->group, "group column: rows of a group share a fold");
  cmd->add_option("--fold", o->fold, "given fold column (then --folds is ignored)");
  o->add_column_options(cmd);
  cmd->add_option("--seed", o->seed, "seed for the folds and the learners")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "worker threads (0 = all cores)")
      ->check(non_negative_integer())
      ->capture_default_str();
  cmd->add_option("--out", o->out, "output directory (created if missing)")->required();
  cmd->add_flag("--json", o->json, "print the summary as JSON instead of the table");

  return [cmd, o] {
    if (!cmd->parsed()) return;
    soak::CvParams params;
    params.data = o->columns();
    params.group = o->group;
    params.fold = o->fold;
    params.task = o->task_kind();
    params.folds = o->folds;
    params.learners = o->learners;
    params.learner_params = soak::learner_params_from_assignments(o->learner_params);
    params.seed = o->seed;
    params.threads = o->threads;
    // Unknown learner names fail before any file is read.
    for (const auto& name : params.learners) {
      const auto known = learners::learner_names();
      if (std::find(known.begin(), known.end(), name) == known.end()) learners::make_learner(name);
    }

    const auto tables = o->read_tables();
    const auto outcome = soak::cv_experiment(tables, params);

    const auto dir = output_folder(o->out);
    write_csv(soak::cv_results_table(outcome.results), (dir / "results.csv").string());
    write_csv(soak::cv_summary_table(outcome), (dir / "summary.csv").string());
    const Json json = soak::cv_json(outcome);
    write_text_file(dir / "results.json", json.dump(1) + "\n");
    std::string title = "assay cv:";
    for (const auto& f : o->files) title += " " + f;
    const std::string description = soak::describe_cv(outcome, params);
    report::cv_html(outcome, title, description).write((dir / "report.html").string());

    if (o->json) {
      Json summary = json;
      summary.erase("results");
      std::cout << summary.dump(2) << "\n";
    } else {
      std::cout << description << "\n\n" << report::cv_text(outcome);
    }
    std::fprintf(stderr, "assay: wrote %s/{results.csv,summary.csv,results.json,report.html}\n",
                 o->out.c_str());
  };
}

}  // namespace assay::cli
