// The CLI's option validators, one per kind of value, shared by every subcommand; the rules are
// the library's (assay/core/options.hpp) so the Python functions refuse the same values.
//
//   add_seed_option(cmd, params.seed, "seed of the bootstrap");      // 0..2^64-1
//   add_threads_option(cmd, params.threads, "worker threads");       // 0 = all cores, capped
//   cmd->add_option("--samples", n)->check(non_negative_integer());  // -5 refused, not wrapped
//   cmd->add_option("--confidence", c)->check(open_probability());   // (0, 1), even when unused
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "assay/core/csv.hpp"
#include "assay/report/charts.hpp"

namespace assay::cli {

/// Counts and seeds: digits only, at most 2^64-1. CLI11 would wrap "-5" around to 2^64-5 and
/// clamp 2^64 to 2^64-1; this says what is wrong instead.
const CLI::Validator& non_negative_integer();

/// A number in the open interval (0, 1): confidence levels, probabilities.
const CLI::Validator& open_probability();

/// A finite decimal number (--threshold, --beta): "" (which CLI11 reads as 0), "abc", "nan" and
/// "inf" are refused with "expected a finite number, found ...".
const CLI::Validator& finite_number();

/// A finite number > 0 (--epsilon): "", "0", "nan" refused with "expected a finite number > 0".
const CLI::Validator& positive_number();

/// An integer in [low, high] (bit widths): "expected an integer in 0..60, found \"99\"" where
/// CLI::Range printed "Value 99 not in range 0 to 60" (and "Value  not in range" for "").
CLI::Validator integer_in(int low, int high);

/// Adds to every numeric option of `app` and its subcommands a check that refuses an empty value,
/// which CLI11 reads as 0 (`--folds ""` was "folds must be at least 2, found 0"). Call after
/// every option is added: options with their own rule keep it (it runs first).
void refuse_empty_numbers(CLI::App& app);

/// --bootstrap: a count in 0..1000000 (metrics::kMaxResamples), larger ones refused up front.
const CLI::Validator& resample_count();

/// Text that must not be empty (--baseline "": no model has an empty name).
const CLI::Validator& non_empty_text();

/// A class label (--pos-label): metrics::check_pos_label's rule, "" names no class.
const CLI::Validator& class_label();

/// Output file names: an empty one is refused (--json-out '' would silently write nothing).
const CLI::Validator& output_file_name();

/// --delimiter and --decimal of a command that reads CSV, turned into values by the library's
/// parse_delimiter / parse_decimal (so Python's delimiter= and decimal= accept the same words).
/// Unset: detected from the header (csv.hpp, "Separators").
struct CsvDialectOptions {
  std::optional<char> delimiter, decimal;

  /// Registers --delimiter and --decimal on `cmd`.
  void add_to(CLI::App* cmd);
  /// `params` with the delimiter and decimal given (unset ones left to detection).
  CsvParams applied_to(CsvParams params) const;
};

/// --seed (0..2^64-1) filling `seed`.
CLI::Option* add_seed_option(CLI::App* cmd, std::uint64_t& seed, const std::string& help);

/// --threads filling `threads`: 0 = all cores, a negative count refused; above the machine's
/// cores it is capped by cap_thread_options() (after parsing, with a warning).
CLI::Option* add_threads_option(CLI::App* cmd, int& threads, const std::string& help);

/// --chart-axis fit|full filling `axis` (report::parse_axis_range; a bad value is refused while
/// parsing): how the pages draw value axes that have a natural range such as 0..1.
/// `default_text` names the default in the help ("fit", or where else the value comes from).
CLI::Option* add_chart_axis_option(CLI::App* cmd, report::AxisRange& axis,
                                   const std::string& default_text = "fit");

/// Caps every --threads given on the command line at the machine's cores (with a warning),
/// unless `force` (--threads-force) or ASSAY_THREADS_FORCE=1. Call once after parsing, with the
/// warning handler installed.
void cap_thread_options(bool force);

}  // namespace assay::cli
