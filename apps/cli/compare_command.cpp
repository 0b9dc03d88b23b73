// `assay compare FILE --label COL --models A,B[,C] [--by COL[:BINS]] [--metrics ...] [--gate ...]`
#include <iostream>

#include "assay/compare/compare.hpp"
#include "assay/compare/gates.hpp"
#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/report/compare.hpp"
#include "commands.hpp"
#include "compare_options.hpp"

namespace assay::cli {

Action add_compare_command(CLI::App& app, const GlobalOptions& /*global*/) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Compare two or more models scored on the same examples: the paired difference of any\n"
      "metric with bootstrap intervals (percentile, BCa) and p-values (DeLong, McNemar, paired\n"
      "bootstrap or permutation), Holm-corrected; slices; operating points; CI gates (exit 1\n"
      "when one fails).");
  cmd->add_option("file", o->file, "CSV file with a header row")->required();
  cmd->add_option("--label", o->label, "column of true labels (or regression targets)")->required();
  cmd->add_option("--models", o->models,
                  "models: COLUMN, or NAME=COLUMN, or NAME=COL1+COL2+... (multi-class: one score "
                  "column per class, in sorted class order); the first is the baseline")
      ->delimiter(',')
      ->required();
  cmd->add_option("--by", o->by,
                  "slice by this column (repeatable, or comma-separated); COLUMN:BINS cuts a "
                  "numeric column at its quantiles")
      ->delimiter(',');
  cmd->add_option("--weight", o->weight, "column of example weights (>= 0)");
  cmd->add_option("--metrics", o->metrics,
                  "metrics to compare (default: the task's headline set); operating points as "
                  "METRIC@RULE, e.g. recall@precision>=0.9, recall@fpr<=0.01, f1@max_f1, "
                  "recall@cost(fp=1,fn=5)")
      ->delimiter(',');
  add_compare_options(cmd, *o);
  cmd->add_option("--gate", o->gates,
                  "a condition to pass (repeatable): \"roc_auc >= 0.85\", \"brier of b <= 0.2\", "
                  "\"f1 drop <= 0.01 vs production\", \"average_precision gain > 0 vs a\"");
  cmd->add_option("--gate-on", o->gate_on,
                  "evaluate gates on the point estimate, the interval's lower or upper bound, "
                  "or its bound least favourable to passing (interval)")
      ->capture_default_str();
  cmd->add_option("--junit", o->junit, "write the gates as JUnit XML to this file")
      ->check(output_file_name());
  o->out.add_options(cmd);
  o->csv_dialect.add_to(cmd);

  return [cmd, o] {
    if (!cmd->parsed()) return;
    o->out.extra = o->junit;
    o->out.extra_name = "--junit";
    o->out.check({{o->file, "the data"}});
    const auto on = compare::parse_gate_on(o->gate_on, "--gate-on");
    finish_compare_params(*o);
    compare::CompareColumns columns = compare_columns(o->label, o->models, o->by, o->weight);
    const Table table = read_csv(o->file, o->csv_dialect.applied_to({}));
    auto input = compare::compare_input(table, columns, compare::parse_task(o->task, "--task"));
    compare::check_gates_before_work(o->gates, input, o->params);
    const auto result = compare::compare(std::move(input), o->params);
    const auto gates = compare::parse_gates(o->gates, result);
    const auto outcomes = compare::evaluate_gates(gates, result, on);
    const std::string junit =
        o->junit.empty() ? "" : compare::gates_junit_xml(outcomes, "assay compare " + o->file);
    o->out.write(
        report::compare_json(result, outcomes),
        [&] { return report::compare_text(result, outcomes); },
        [&] { return report::compare_html(result, outcomes, "assay compare: " + o->file); }, junit);
    if (!compare::all_passed(outcomes)) throw ExitCode{1};
  };
}

}  // namespace assay::cli
