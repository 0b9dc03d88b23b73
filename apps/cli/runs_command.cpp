// `assay runs FILE --value COL [--by COL] ...`: mean ± SD of a metric across runs (seeds),
// optionally per value of a meta-parameter, with a trend chart (the textbook section "Evaluation
// Metrics").
#include <cstdio>
#include <iostream>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"
#include "assay/metrics/uncertainty.hpp"
#include "assay/report/evaluation.hpp"
#include "commands.hpp"
#include "stdout_batch.hpp"

namespace assay::cli {

Action add_runs_command(CLI::App& app, const GlobalOptions& /*global*/) {
  struct Options {
    std::string file, value, by, html;
    bool json = false, log_x = false;
    CsvDialectOptions csv_dialect;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "runs",
      "Mean, SD, min and max of a metric across runs (seeds), optionally per value of a\n"
      "meta-parameter, with a mean ± SD trend chart.");
  cmd->add_option("file", o->file, "CSV file, one row per run")->required();
  cmd->add_option("--value", o->value, "column of the metric's values")->required();
  cmd->add_option("--by", o->by, "column of the meta-parameter (numeric)");
  cmd->add_flag("--log-x", o->log_x, "logarithmic meta-parameter axis");
  cmd->add_flag("--json", o->json, "print JSON instead of the table");
  cmd->add_option("--html", o->html, "also write an HTML page with the trend chart")
      ->check(output_file_name());
  o->csv_dialect.add_to(cmd);
  return [cmd, o] {
    if (!cmd->parsed()) return;
    note_input(o->file, "the data");
    if (!o->html.empty()) check_writable(o->html, "--html");
    CsvParams csv = o->csv_dialect.applied_to({});
    csv.numeric = {o->value};
    if (!o->by.empty()) csv.numeric.push_back(o->by);
    const auto runs = metrics::summarize_runs_in_table(read_csv(o->file, csv), o->value, o->by);
    OutputBatch files;  // the page appears only when stdout took every byte (stdout_batch.hpp)
    if (!o->html.empty())
      files.stage(o->html, report::runs_html(runs, o->by.empty() ? "runs" : o->by, o->value,
                                             o->log_x, "assay runs: " + o->file)
                               .render());
    std::cout << (o->json ? report::runs_json(runs).dump(2) + "\n"
                          : report::runs_text(runs, o->by));
    require_stdout_written();
    files.commit();
    if (!o->html.empty()) std::fprintf(stderr, "assay: wrote %s\n", o->html.c_str());
  };
}

}  // namespace assay::cli
