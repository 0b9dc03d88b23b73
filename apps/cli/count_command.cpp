// `assay count --model M.json --spec S.spec [--property NAME] ...` and `assay model info M.json`.
#include <cstdio>
#include <iostream>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/count/counting.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"
#include "assay/report/count.hpp"
#include "commands.hpp"

namespace assay::cli {
namespace {

struct CountOptions {
  std::string model;
  std::string spec;
  count::CountParams params;
  ReportOutputs out;
  std::string test;
  std::string label;
};

struct ModelOptions {
  std::string file;
  bool json = false;
};

}  // namespace

Action add_count_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto options = std::make_shared<CountOptions>();
  auto* cmd = app.add_subcommand(
      "count",
      "Exact counts over a whole bounded input domain (source 002): TP/FP/TN/FN per label,\n"
      "safety and robustness, beside estimates from uniform samples.");
  cmd->add_option("--model", options->model, "model: assay JSON or xgboost JSON")->required();
  cmd->add_option("--spec", options->spec, "domain and properties (.spec file)")->required();
  cmd->add_option("--property", options->params.property,
                  "count one predicate (as the truth of label 1), safety property or region");
  cmd->add_option("--method", options->params.method, "auto, structural or enumerate")
      ->capture_default_str();
  cmd->add_option("--samples", options->params.samples,
                  "uniform sample sizes for the statistical view, e.g. 100,1000,10000")
      ->delimiter(',');
  cmd->add_option("--test", options->test,
                  "test set (CSV): the statistical view on it; feature columns in model order");
  cmd->add_option("--label", options->label, "column of --test with the true class names");
  cmd->add_option("--seed", options->params.seed, "seed of the samples")->capture_default_str();
  cmd->add_option("--confidence", options->params.confidence, "confidence level of intervals")
      ->capture_default_str();
  cmd->add_option("--threads", options->params.threads,
                  "worker threads for enumeration (0 = all cores; results do not depend on it)")
      ->capture_default_str();
  options->out.add_options(cmd, "print JSON (exact counts as decimal strings)");

  return [cmd, options] {
    if (!cmd->parsed()) return;
    auto& o = *options;
    if (!o.label.empty() && o.test.empty()) fail("--label {} needs --test T.csv", o.label);
    const count::Model model = count::load_model(o.model);
    const count::Spec spec = count::load_spec(o.spec);
    if (!o.test.empty()) {
      if (o.label.empty()) fail("--test needs --label COL (the column of true class names)");
      CsvParams csv;
      csv.categorical = {o.label};
      count::set_test_set(o.params, model, read_csv(o.test, csv), o.label);
    }
    const count::CountResult result = count::count(model, spec, o.params);
    o.out.write(
        report::count_json(result), [&] { return report::count_text(result); },
        [&] { return report::count_html(result, "assay count: " + o.model + " on " + o.spec); });
  };
}

Action add_model_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto options = std::make_shared<ModelOptions>();
  auto* cmd = app.add_subcommand("model", "Inspect models (assay JSON or xgboost JSON)");
  cmd->require_subcommand(1);
  auto* info = cmd->add_subcommand("info", "Kind, inputs, outputs and parameter count of a model");
  info->add_option("file", options->file, "model file")->required();
  info->add_flag("--json", options->json, "print JSON");
  return [info, options] {
    if (!info->parsed()) return;
    const auto model_info = count::model_info(count::load_model(options->file));
    if (options->json) {
      std::cout << count::model_info_json(model_info).dump(2) << '\n';
    } else {
      std::cout << report::model_info_text(model_info);
    }
  };
}

}  // namespace assay::cli
