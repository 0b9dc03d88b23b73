// Each subcommand registers itself on the CLI11 app and returns the action to run after parsing.
// A subcommand only fills a Params struct, calls one library entry point and prints the result.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace assay::cli {

struct GlobalOptions {
  bool quiet = false;
};

using Action = std::function<void()>;

/// Validator for counts and seeds: digits only. CLI11 would wrap "-3" around to a huge unsigned
/// value; this says what is wrong instead.
const CLI::Validator& non_negative_integer();

/// `assay metrics FILE ...`
Action add_metrics_command(CLI::App& app, const GlobalOptions& global);

/// `assay runs FILE --value COL [--by COL] ...`
Action add_runs_command(CLI::App& app, const GlobalOptions& global);

/// `assay soak DATA.csv --label y --subset COL ... --out DIR`
Action add_soak_command(CLI::App& app, const GlobalOptions& global);

/// `assay count --model M.json --spec S.spec ...`
Action add_count_command(CLI::App& app, const GlobalOptions& global);

/// `assay model info M.json`
Action add_model_command(CLI::App& app, const GlobalOptions& global);

/// `assay shift FILE --target COL --pred COL[,...] ...`
Action add_shift_command(CLI::App& app, const GlobalOptions& global);

}  // namespace assay::cli
