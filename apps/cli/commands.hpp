// Each subcommand registers itself on the CLI11 app and returns the action to run after parsing.
// A subcommand only fills a Params struct, calls one library entry point and prints the result.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "assay/batch/distributed.hpp"
#include "assay/core/input_files.hpp"
#include "assay/core/json.hpp"
#include "assay/metrics/uncertainty.hpp"
#include "assay/report/html.hpp"
#include "options.hpp"

namespace assay::cli {

struct GlobalOptions {
  bool quiet = false;
  /// Started by an MPI launcher (mpirun), and the ranks' distributor when MPI support is built
  /// in (nullptr otherwise).
  bool launched_by_mpi = false;
  batch::JobDistributor* distributor = nullptr;
};

/// Thrown by an action to end the program with this exit status after its output (e.g. 3 when
/// `assay job run` recorded failed jobs).
struct ExitCode {
  int code = 0;
};

using Action = std::function<void()>;

/// Flushes stdout (before messages on stderr, which is unbuffered); the first failure's reason is
/// kept for the end of main, where lost output makes the exit status 2.
void flush_stdout();

/// --bootstrap N (described by `what`), --confidence and --seed, filling `params`. --confidence
/// is checked even when no interval is computed.
void add_bootstrap_options(CLI::App* cmd, metrics::BootstrapParams& params,
                           const std::string& what);

/// The outputs every reporting subcommand offers: --json (JSON instead of the text table on
/// stdout), --json-out FILE and --html FILE.
struct ReportOutputs {
  bool json = false;
  std::string json_out;
  std::string html;
  /// Another output file of the command (e.g. segment's --csv-out), checked with the others.
  std::string extra;
  std::string extra_name;

  /// Registers the three options on `cmd`; `json_help` describes --json. An empty file name
  /// (--json-out '') is refused when parsing.
  void add_options(CLI::App* cmd, const std::string& json_help = "print JSON instead of the table");
  /// Before any work: notes `inputs` (the files the command names; core/input_files.hpp), then
  /// refuses two outputs naming the same file, an output that is an input or not a regular file,
  /// and outputs that cannot be written (missing or read-only folder).
  void check(const std::vector<NamedInput>& inputs = {}) const;
  /// Prints `json` or `text()`; writes --json-out and the page (built only when --html was given)
  /// and `extra_bytes` to `extra` all-or-nothing (OutputBatch).
  void write(const Json& json, const std::function<std::string()>& text,
             const std::function<report::HtmlReport()>& page,
             const std::string& extra_bytes = "") const;
};

/// `assay metrics FILE ...`
Action add_metrics_command(CLI::App& app, const GlobalOptions& global);

/// `assay compare FILE --label COL --models A,B ...`
Action add_compare_command(CLI::App& app, const GlobalOptions& global);

/// `assay runs FILE --value COL [--by COL] ...`
Action add_runs_command(CLI::App& app, const GlobalOptions& global);

/// `assay soak DATA.csv --label y --subset COL ... --out DIR`
Action add_soak_command(CLI::App& app, const GlobalOptions& global);

/// `assay count --model M.json --spec S.spec ...`
Action add_count_command(CLI::App& app, const GlobalOptions& global);

/// `assay encode --model M.json --spec S.spec --out F.cnf ...`
Action add_encode_command(CLI::App& app, const GlobalOptions& global);

/// `assay model info M.json`
Action add_model_command(CLI::App& app, const GlobalOptions& global);

/// `assay shift FILE --target COL --pred COL[,...] ...`
Action add_shift_command(CLI::App& app, const GlobalOptions& global);

/// `assay cv DATA.csv --label y [--learners ...] --out DIR` (plain K-fold comparison of learners)
Action add_cv_command(CLI::App& app, const GlobalOptions& global);

/// `assay job run|status|collect|submit DIR` (batch registries, Slurm)
Action add_job_command(CLI::App& app, const GlobalOptions& global);

/// `assay segment --pred DIR_OR_GLOB --truth DIR_OR_GLOB ...`
Action add_segment_command(CLI::App& app, const GlobalOptions& global);

/// `assay report CONFIG.toml [--out PAGE.html]` (every analysis on one page)
Action add_report_command(CLI::App& app, const GlobalOptions& global);

}  // namespace assay::cli
