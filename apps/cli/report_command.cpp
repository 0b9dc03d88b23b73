// `assay report CONFIG.toml [--out PAGE.html] [--check] [--json] [--chart-axis fit|full]`: every
// analysis the configuration names on one offline HTML page, its tables as CSV next to it and all
// numbers as JSON (overview/overview.hpp). The configuration and every input are checked before any
// work.
#include <cstdio>
#include <iostream>

#include "assay/core/output_file.hpp"
#include "assay/overview/config.hpp"
#include "assay/overview/overview.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "stdout_batch.hpp"

namespace assay::cli {

Action add_report_command(CLI::App& app, const GlobalOptions& /*global*/) {
  struct Options {
    std::string config, out;
    bool check = false, json = false;
    report::AxisRange chart_axis = report::AxisRange::fit;
    CLI::Option* chart_axis_option = nullptr;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "report",
      "One self-contained HTML page over every analysis a configuration names (metrics,\n"
      "regression, soak, cv, shift, segment, count, compare: any subset; schema in\n"
      "docs/report-config.md): a summary in plain words, a section per analysis, models side by\n"
      "side. Writes PAGE.html, PAGE_tables/*.csv and PAGE.json.");
  cmd->add_option("config", o->config, "configuration file (TOML)")->required();
  cmd->add_option("--out", o->out, "the page to write (default: the configuration's `out`)");
  cmd->add_flag("--check", o->check,
                "only read the configuration and every input and check them; run nothing");
  cmd->add_flag("--json", o->json, "print every number as JSON instead of the summary");
  // Given, it overrides the configuration's chart_axis.
  o->chart_axis_option =
      add_chart_axis_option(cmd, o->chart_axis, "the configuration's chart_axis (fit)");

  return [cmd, o] {
    if (!cmd->parsed()) return;
    report::ReportConfig config = report::read_report_config(o->config);
    if (!o->out.empty()) config.out = o->out;
    if (o->chart_axis_option->count() > 0) config.chart_axis = o->chart_axis;
    const char* out_option = o->out.empty() ? "out" : "--out";
    check_writable(config.out, out_option);
    const report::PreparedOverview prepared = report::prepare_overview(config);
    report::check_overview_outputs(config.out, out_option);  // inputs are known now
    if (o->check) {
      std::cout << o->config << ": configuration and inputs are fine\n";
      return;
    }
    const report::Overview overview = report::run_overview(prepared);
    // The files appear only when stdout took every byte (stdout_batch.hpp).
    const auto written = report::write_overview(overview, config.out, [&] {
      if (o->json) {
        std::cout << dump_json(overview.document, 2) << '\n';
      } else {
        for (const auto& sentence : overview.summary) std::cout << "- " << sentence << '\n';
        std::cout << "\nreport: " << config.out << '\n';
      }
      require_stdout_written();
    });
    std::fprintf(stderr, "assay: wrote %s (and %zu tables as CSV, all numbers as JSON)\n",
                 config.out.c_str(), written.size() - 2);
  };
}

}  // namespace assay::cli
