// `assay shift FILE --target COL --pred COL[,...] [--uncertainty COL[,...] | --members COLS...]
//  [--partition COL] [--shifted COL] [--acceptable T] [--convention C] [--json] [--html OUT]`
#include <cstdio>
#include <iostream>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/report/shift.hpp"
#include "assay/shift/partition.hpp"
#include "commands.hpp"

namespace assay::cli {
namespace {

struct ShiftOptions {
  std::string file;
  shift::ShiftColumns columns;
  shift::PartitionParams params;
  std::string convention = "shifts";
  std::string error = "squared";
  double acceptable = 0;
  ReportOutputs out;
  CsvDialectOptions csv_dialect;
};

}  // namespace

Action add_shift_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto options = std::make_shared<ShiftOptions>();
  auto* cmd = app.add_subcommand(
      "shift",
      "Robustness and uncertainty under distribution shift (Shifts 2.0): RMSE/MAE/MAPE/R2,\n"
      "R-AUC, PRR, AURC, F1-AUC and OOD AUROC per partition and joint in+shifted set, several\n"
      "models side by side; error- and F1-retention charts.");
  cmd->add_option("file", options->file, "CSV file with a header row")->required();
  cmd->add_option("--target", options->columns.target, "column of true values")->required();
  cmd->add_option("--pred", options->columns.pred,
                  "prediction column(s), one model each (named after the column)")
      ->delimiter(',');
  cmd->add_option("--uncertainty", options->columns.uncertainty,
                  "uncertainty column(s), one per --pred column (higher = less certain)")
      ->delimiter(',');
  cmd->add_option("--members", options->columns.members,
                  "prediction columns of the members of one ensemble (model \"ensemble\": mean "
                  "prediction, uncertainty = total variance)")
      ->delimiter(',');
  cmd->add_option("--member-vars", options->columns.member_vars,
                  "predicted variance columns of the members (one per --members column)")
      ->delimiter(',');
  cmd->add_option("--partition", options->columns.partition,
                  "partition column (train, dev_in, dev_out, eval_in, eval_out, ...)");
  cmd->add_option("--shifted", options->columns.shifted,
                  "0/1 column: 1 = shifted sample (default: partitions whose names end in "
                  "\"out\" or contain \"shift\")");
  auto* acceptable = cmd->add_option(
      "--acceptable", options->acceptable,
      "F1 retention: a prediction is acceptable when its error <= T (e.g. 250000 = 500^2)");
  acceptable->check(finite_number());
  cmd->add_option("--beta", options->params.beta, "F-beta's beta")
      ->capture_default_str()
      ->check(finite_number());
  cmd->add_option("--convention", options->convention,
                  "retention convention: shifts (tie groups averaged, mean of points) or "
                  "shifts-vpower (no grouping, trapezoid)")
      ->capture_default_str();
  cmd->add_option("--error", options->error, "per-sample error: squared, absolute or zero-one")
      ->capture_default_str();
  add_bootstrap_options(cmd, options->params.bootstrap, "RMSE/MAE/MAPE/R2");
  options->out.add_options(cmd);
  options->csv_dialect.add_to(cmd);

  return [cmd, options, acceptable] {
    if (!cmd->parsed()) return;
    auto& o = *options;
    o.out.check({{o.file, "the data"}});
    o.params.convention = shift::parse_retention_convention(o.convention);
    o.params.error = shift::parse_error_kind(o.error);
    if (acceptable->count() > 0) o.params.acceptable = o.acceptable;

    CsvParams csv = o.csv_dialect.applied_to({});
    csv.numeric = {o.columns.target};
    for (const auto* list :
         {&o.columns.pred, &o.columns.uncertainty, &o.columns.members, &o.columns.member_vars}) {
      csv.numeric.insert(csv.numeric.end(), list->begin(), list->end());
    }
    if (!o.columns.shifted.empty()) csv.numeric.push_back(o.columns.shifted);
    if (!o.columns.partition.empty()) csv.categorical.push_back(o.columns.partition);
    const Table table = read_csv(o.file, csv);
    const auto evaluation = shift::evaluate_table(table, o.columns, o.params);

    o.out.write(
        report::shift_json(evaluation), [&] { return report::shift_text(evaluation); },
        [&] { return report::shift_html(evaluation, "assay shift: " + o.file); });
  };
}

}  // namespace assay::cli
