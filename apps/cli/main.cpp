// assay — command line. Exit codes: 0 ok, 2 bad input or usage, 1 internal error.
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "assay/core/error.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/version.hpp"
#include "assay/core/warning.hpp"
#include "commands.hpp"
#ifdef ASSAY_WITH_MPI
#include "assay/mpi/distributor.hpp"
#endif

namespace assay::cli {

const CLI::Validator& non_negative_integer() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return "expected a non-negative integer, found \"" + text + "\"";
        }
        return {};
      },
      "INTEGER >= 0");
  return validator;
}

void add_bootstrap_options(CLI::App* cmd, metrics::BootstrapParams& params,
                           const std::string& what) {
  cmd->add_option("--bootstrap", params.n_resamples,
                  "bootstrap resamples for percentile intervals of " + what + " (0 = none)")
      ->capture_default_str()
      ->check(non_negative_integer());
  cmd->add_option("--confidence", params.confidence, "confidence level of the intervals")
      ->capture_default_str();
  cmd->add_option("--seed", params.seed, "seed of the bootstrap")
      ->capture_default_str()
      ->check(non_negative_integer());
}

void ReportOutputs::add_options(CLI::App* cmd, const std::string& json_help) {
  cmd->add_flag("--json", json, json_help);
  cmd->add_option("--json-out", json_out, "also write the JSON to this file");
  cmd->add_option("--html", html, "also write an HTML page with charts to this file");
}

void ReportOutputs::write(const Json& document, const std::function<std::string()>& text,
                          const std::function<report::HtmlReport()>& page) const {
  if (json) {
    std::cout << dump_json(document, 2) << '\n';
  } else {
    std::cout << text();
  }
  std::cout << std::flush;
  if (!json_out.empty()) write_json_file(json_out, document);
  if (!html.empty()) {
    page().write(html);
    std::fprintf(stderr, "assay: wrote %s\n", html.c_str());
  }
}

}  // namespace assay::cli

int main(int argc, char** argv) {
  assay::cli::GlobalOptions global;
  // Under mpirun every rank runs this program; MPI starts before any thread does.
  global.launched_by_mpi = assay::batch::launched_by_mpi();
#ifdef ASSAY_WITH_MPI
  std::optional<assay::mpi::Session> mpi_session;
  std::unique_ptr<assay::batch::JobDistributor> distributor;
  if (global.launched_by_mpi) {
    try {
      mpi_session.emplace(argc, argv);
    } catch (const assay::Error& e) {
      std::fprintf(stderr, "assay: %s\n", e.what());
      return 2;
    }
    distributor = assay::mpi::world_distributor();
    global.distributor = distributor.get();
  }
#endif
  CLI::App app{"assay: how good is my model, really?"};
  app.set_version_flag("--version", "assay " + std::string(assay::version()));
  app.require_subcommand(1);
  app.add_flag("-q,--quiet", global.quiet, "no progress bar on stderr");

  app.fallthrough();  // global flags such as --quiet work after the subcommand too
  const std::vector<assay::cli::Action> actions{
      assay::cli::add_metrics_command(app, global), assay::cli::add_runs_command(app, global),
      assay::cli::add_soak_command(app, global),    assay::cli::add_shift_command(app, global),
      assay::cli::add_count_command(app, global),   assay::cli::add_encode_command(app, global),
      assay::cli::add_model_command(app, global),
      assay::cli::add_cv_command(app, global),      assay::cli::add_segment_command(app, global),
      assay::cli::add_job_command(app, global),
      assay::cli::add_report_command(app, global),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "assay: %s (see assay --help)\n", e.what());
    return 2;
  }

  assay::set_warning_handler([](const std::string& message) {
    std::fprintf(stderr, "assay: warning: %s\n", message.c_str());
  });
  assay::set_progress_sink(assay::make_terminal_progress_sink(global.quiet));
  try {
    for (const auto& action : actions) action();  // only the parsed subcommand does anything
  } catch (const assay::cli::ExitCode& e) {
    return e.code;
  } catch (const assay::batch::QuietFailure&) {
    return 2;  // another MPI rank printed the reason
  } catch (const assay::Error& e) {
    std::fprintf(stderr, "assay: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "assay: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}
