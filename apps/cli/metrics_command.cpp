// `assay metrics FILE --label COL (--score COL[,COL...] | --pred COL) ...`
// `assay metrics FILE --task regression --label COL (--pred COL | --models A=COL,B=COL) ...`
#include <cstdio>
#include <iostream>

#include "assay/compare/compare.hpp"
#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/regression_evaluation.hpp"
#include "assay/report/compare.hpp"
#include "assay/report/evaluation.hpp"
#include "assay/report/regression.hpp"
#include "commands.hpp"
#include "compare_options.hpp"

namespace assay::cli {
namespace {

struct MetricsOptions {
  std::string file;
  metrics::EvaluateColumns columns;
  metrics::EvaluateParams params;
  std::string ap_method = "step";
  std::string ap_grid = "exact";
  std::string calibration_strategy = "uniform";
  std::vector<std::string> models;
  std::string task = "auto";
  ReportOutputs out;
  CsvDialectOptions csv_dialect;
};

// --task regression: every model's metrics side by side, from --pred COL or --models.
void evaluate_regressors(const MetricsOptions& o) {
  if (!o.columns.pred.empty() && !o.models.empty()) fail("give --pred or --models, not both");
  metrics::RegressionColumns columns{o.columns.label, {}, o.columns.weight};
  if (o.models.empty()) {
    columns.models.push_back({o.columns.pred, o.columns.pred});
  } else {
    for (const auto& [name, cols] : compare_columns(o.columns.label, o.models, {}, {}).models) {
      if (cols.size() != 1)
        fail("--models: a regressor has one prediction column, {} has {}", quote_found(name),
             cols.size());
      columns.models.push_back({name, cols.front()});
    }
  }
  CsvParams csv;
  csv.numeric = {o.columns.label};
  for (const auto& model : columns.models) csv.numeric.push_back(model.second);
  if (!o.columns.weight.empty()) csv.numeric.push_back(o.columns.weight);
  const Table table = read_csv(o.file, csv);
  metrics::RegressionParams params;
  params.bootstrap = o.params.bootstrap;
  const auto evaluation =
      metrics::evaluate_regression(metrics::regression_input(table, columns), params);
  o.out.write(
      report::regression_json(evaluation), [&] { return report::regression_text(evaluation); },
      [&] { return report::regression_html(evaluation, "assay metrics: " + o.file); });
}

// `--models a,b`: the headline comparison of `assay compare` with this command's options.
void compare_models(const MetricsOptions& o, bool bootstrap_given) {
  compare::CompareParams params;
  params.threshold = o.params.threshold;
  params.pos_label = o.params.pos_label;
  params.ap = o.params.ap;
  params.bootstrap = o.params.bootstrap;
  if (!bootstrap_given) params.bootstrap.n_resamples = 1000;
  const Table table = read_csv(o.file, o.csv_dialect.applied_to({}));
  auto input = compare::compare_input(
      table, compare_columns(o.columns.label, o.models, {}, o.columns.weight),
      compare::Task::automatic);
  const auto result = compare::compare(std::move(input), params);
  o.out.write(
      report::compare_json(result, {}), [&] { return report::compare_text(result, {}); },
      [&] { return report::compare_html(result, {}, "assay metrics: " + o.file); });
}

}  // namespace

Action add_metrics_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto options = std::make_shared<MetricsOptions>();
  auto* cmd = app.add_subcommand(
      "metrics",
      "Classification metrics of predictions in a CSV file: confusion matrix, P/R/F, ROC AUC, AP,\n"
      "calibration, curves; bootstrap intervals; table, JSON or an HTML page with charts.\n"
      "--task regression: MAE, RMSE, R², ... of one or several regressors side by side, with\n"
      "predicted-vs-actual and residual charts.");
  cmd->add_option("file", options->file, "CSV file with a header row")->required();
  cmd->add_option("--label", options->columns.label, "column of true labels")->required();
  cmd->add_option("--score", options->columns.scores,
                  "score column(s): one (binary: score of the positive class, higher = more "
                  "positive) or one per class in sorted class order (two on binary labels must "
                  "be probabilities summing to 1; evaluate two models one at a time)")
      ->delimiter(',');
  cmd->add_option("--pred", options->columns.pred, "column of predicted labels");
  cmd->add_option("--models", options->models,
                  "two or more models' score columns (COLUMN or NAME=COLUMN): their headline "
                  "comparison as `assay compare` gives it (1000 resamples unless --bootstrap); "
                  "--task regression: one or more prediction columns, evaluated side by side")
      ->delimiter(',');
  cmd->add_option("--task", options->task,
                  "classification, regression, or auto: classification, refusing a numeric "
                  "label with more than 50 distinct whole values and under 10 rows per value "
                  "(a regression target; labels that are not whole numbers are always refused "
                  "as classes)")
      ->capture_default_str();
  cmd->add_option("--weight", options->columns.weight, "column of sample weights (>= 0)");
  cmd->add_option("--threshold", options->params.threshold,
                  "binary: positive when score >= threshold")
      ->capture_default_str()
      ->check(finite_number());
  cmd->add_option("--pos-label", options->params.pos_label,
                  "binary: the positive class (default: the greater label)")
      ->check(class_label());
  cmd->add_option("--ap-method", options->ap_method,
                  "average precision: step (scikit-learn), voc07, voc_allpoint, coco101, trapezoid")
      ->capture_default_str();
  cmd->add_option("--ap-grid", options->ap_grid, "recall grid for voc07/coco101: exact or numpy")
      ->capture_default_str();
  cmd->add_option("--bins", options->params.calibration.bins, "calibration bins")
      ->capture_default_str();
  cmd->add_option("--max-classes", options->params.max_classes,
                  "refuse labels with more classes than this (their per-class tables and "
                  "confusion matrix grow as classes^2; 0 = no limit)")
      ->capture_default_str()
      ->check(non_negative_integer());
  cmd->add_option("--bin-strategy", options->calibration_strategy, "uniform or quantile")
      ->capture_default_str();
  add_bootstrap_options(cmd, options->params.bootstrap, "every headline metric");
  add_threads_option(cmd, options->params.bootstrap.threads,
                     "worker threads (0 = all cores; results do not depend on it)");
  options->out.add_options(cmd);
  options->csv_dialect.add_to(cmd);

  return [cmd, options] {
    if (!cmd->parsed()) return;
    auto& o = *options;
    const auto task = metrics::parse_metrics_task(o.task);
    if (task == metrics::MetricsTask::regression) {
      if (!o.columns.scores.empty())
        fail("--task regression takes --pred or --models, not --score");
      if (o.columns.pred.empty() && o.models.empty()) fail("give --pred COL or --models A,B");
      o.out.check({{o.file, "the data"}});
      return evaluate_regressors(o);
    }
    if (!o.models.empty() && (!o.columns.scores.empty() || !o.columns.pred.empty())) {
      fail("give --models or --score/--pred, not both");
    }
    if (o.columns.scores.empty() && o.columns.pred.empty() && o.models.empty()) {
      fail("give --score COL[,COL...], --pred COL or --models A,B");
    }
    o.out.check({{o.file, "the data"}});
    o.params.ap.method = metrics::parse_ap_method(o.ap_method);
    o.params.ap.grid = metrics::parse_ap_grid(o.ap_grid);
    o.params.calibration.strategy = metrics::parse_bin_strategy(o.calibration_strategy);
    if (!o.models.empty()) return compare_models(o, cmd->count("--bootstrap") > 0);

    CsvParams csv = o.csv_dialect.applied_to({});
    csv.numeric = o.columns.scores;
    if (!o.columns.weight.empty()) csv.numeric.push_back(o.columns.weight);
    const Table table = read_csv(o.file, csv);
    if (task == metrics::MetricsTask::automatic) {
      metrics::classification_target_check(table, o.columns.label);
    }
    auto input = metrics::evaluation_input(table, o.columns);
    const auto evaluation = metrics::evaluate(std::move(input), o.params);

    o.out.write(
        report::evaluation_json(evaluation), [&] { return report::evaluation_text(evaluation); },
        [&] {
          // The model is its score column (one column) or its prediction column.
          const std::string model = o.columns.scores.size() == 1 ? o.columns.scores.front()
                                    : o.columns.scores.empty()   ? o.columns.pred
                                                                 : "";
          return report::evaluation_html(evaluation, "assay metrics: " + o.file, model);
        });
  };
}

}  // namespace assay::cli
