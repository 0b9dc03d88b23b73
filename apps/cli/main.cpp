// assay — command line. Exit codes: 0 ok, 2 bad input or usage, 1 internal error.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/version.hpp"
#include "assay/core/warning.hpp"
#include "assay/learners/blas_threads.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "stdout_batch.hpp"
#ifdef ASSAY_WITH_MPI
#include "assay/mpi/distributor.hpp"
#endif

namespace assay::cli {

void add_bootstrap_options(CLI::App* cmd, metrics::BootstrapParams& params,
                           const std::string& what) {
  cmd->add_option("--bootstrap", params.n_resamples,
                  "bootstrap resamples for percentile intervals of " + what +
                      " (0 = no intervals; 1 gives a zero-width interval, with a warning; use "
                      "1000 or more; at most 1000000)")
      ->capture_default_str()
      ->check(resample_count());
  cmd->add_option("--confidence", params.confidence, "confidence level of the intervals")
      ->capture_default_str()
      ->check(open_probability());
  add_seed_option(cmd, params.seed, "seed of the bootstrap");
}

void ReportOutputs::add_options(CLI::App* cmd, const std::string& json_help) {
  cmd->add_flag("--json", json, json_help);
  cmd->add_option("--json-out", json_out, "also write the JSON to this file")
      ->check(output_file_name());
  cmd->add_option("--html", html, "also write an HTML page with charts to this file")
      ->check(output_file_name());
}

namespace {
int stdout_error = 0;  // errno of the first failed flush of stdout (0: none, or unknown)
}  // namespace

void flush_stdout() {
  errno = 0;
  std::cout.flush();
  if ((std::fflush(stdout) != 0 || std::ferror(stdout) != 0) && stdout_error == 0) {
    stdout_error = errno;
  }
}

void ReportOutputs::check(const std::vector<NamedInput>& inputs) const {
  note_inputs(inputs);
  check_distinct_outputs({json_out, html, extra}, {"--json-out", "--html", extra_name});
  if (!json_out.empty()) check_writable(json_out, "--json-out");
  if (!html.empty()) check_writable(html, "--html");
  if (!extra.empty()) check_writable(extra, extra_name);
}

void ReportOutputs::write(const Json& document, const std::function<std::string()>& text,
                          const std::function<report::HtmlReport()>& page,
                          const std::string& extra_bytes) const {
  // All or nothing, stdout included: files are staged, stdout printed and checked, then the
  // files committed (a failed stdout leaves no page behind).
  OutputBatch files;
  if (!extra.empty()) files.stage(extra, extra_bytes);
  if (!json_out.empty()) files.stage(json_out, dump_json(document, 2) + "\n");
  if (!html.empty()) files.stage(html, page().render());
  if (json) {
    std::cout << dump_json(document, 2) << '\n';
  } else {
    std::cout << text();
  }
  require_stdout_written();
  files.commit();
  if (!html.empty()) std::fprintf(stderr, "assay: wrote %s\n", html.c_str());
}

namespace {

// Output lost on stdout (disk full, closed pipe, file size limit) is an error, not exit 0.
int check_standard_streams(int code) {
  flush_stdout();
  if (std::ferror(stdout) != 0 || !std::cout) {
    const int reason = stdout_error;
    std::fprintf(stderr, "assay: cannot write to standard output%s%s\n", reason ? ": " : "",
                 reason ? std::strerror(reason) : "");
    code = 2;
  }
  if (std::fflush(stderr) != 0 || std::ferror(stderr) != 0) code = 2;
  return code;
}

// Runs the parsed subcommand's action; returns the exit status.
int run_action(const std::vector<Action>& actions, bool threads_force) {
  try {
    cap_thread_options(threads_force);
    for (const auto& action : actions) action();  // only the parsed subcommand does anything
  } catch (const ExitCode& e) {
    return e.code;
  } catch (const batch::QuietFailure&) {
    return 2;  // another MPI rank printed the reason
  } catch (const Error& e) {
    std::fprintf(stderr, "assay: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "assay: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace assay::cli

int main(int argc, char** argv) {
  // OpenBLAS's idle workers spin ~0.1 s of CPU in every command (5-6 % of a 1.5 s segment run).
  assay::learners::stop_blas_threads();
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
  bool threads_force = false;
  app.add_flag("--threads-force", threads_force,
               "use --threads N even above the machine's cores (default: capped, with a warning)");

  app.fallthrough();  // global flags such as --quiet work after the subcommand too
  const std::vector<assay::cli::Action> actions{
      assay::cli::add_metrics_command(app, global), assay::cli::add_runs_command(app, global),
      assay::cli::add_compare_command(app, global),
      assay::cli::add_soak_command(app, global),    assay::cli::add_shift_command(app, global),
      assay::cli::add_count_command(app, global),   assay::cli::add_encode_command(app, global),
      assay::cli::add_model_command(app, global),   assay::cli::add_cv_command(app, global),
      assay::cli::add_segment_command(app, global), assay::cli::add_job_command(app, global),
      assay::cli::add_report_command(app, global),
  };

  assay::cli::refuse_empty_numbers(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      return assay::cli::check_standard_streams(app.exit(e));  // --help, --version
    }
    std::fprintf(stderr, "assay: %s (see assay --help)\n", e.what());
    return 2;
  }

  assay::set_warning_handler([](const std::string& message) {
    const bool note = assay::current_warning_kind() == assay::WarningKind::note;
    std::fprintf(stderr, "assay: %s: %s\n", note ? "note" : "warning", message.c_str());
  });
  assay::set_progress_sink(assay::make_terminal_progress_sink(global.quiet));
  const assay::InputFilesScope inputs;  // no output of the command may replace one of them
  return assay::cli::check_standard_streams(assay::cli::run_action(actions, threads_force));
}
