// The rules for the numeric options that every entry point shares — the CLI's subcommands and
// the Python functions alike — so that a value means the same everywhere and a bad one is refused
// with the same message:
//
//   seeds          integers 0..2^64-1 (a negative seed or 2^64 is refused, never wrapped/clamped)
//   counts         integers 0..2^64-1 (--samples -5 is refused, not read as 2^64-5)
//   threads        0 = all cores; negative refused; more than the machine's cores are capped to
//                  them (with a warning) unless forced (--threads-force, ASSAY_THREADS_FORCE=1)
//   probabilities  confidence levels and the like: in the open interval (0, 1)
//
// Each rule has one wording per mistake, whatever the entry point: the CLI passes the option's
// text, the `assay report` configuration and the batch definitions pass their value's text or
// number, the Python functions pass the argument, and each names the option its own way
// ("--seed", "seed", "[metrics] seed").
//
// Example:
//   const std::uint64_t seed = parse_unsigned("--seed", "18446744073709551615");
//   const int threads = checked_threads(128, "--threads");   // 2 on a 2-core machine, warns
//   check_probability("--confidence", 0.95);
#pragma once

#include <cstdint>
#include <string_view>

namespace assay {

/// Reads a non-negative decimal integer (digits only, at most `max`) given as `name`; throws
/// assay::Error saying "NAME: expected an integer in 0..MAX, found ..." otherwise (without
/// "NAME: " when `name` is empty).
std::uint64_t parse_unsigned(std::string_view name, std::string_view text,
                             std::uint64_t max = UINT64_MAX);

/// The thread count to use for a request of `requested` given as `name`: 0 stays 0 (all cores);
/// negative throws assay::Error; above the machine's cores it is capped to them with a warning,
/// unless `force` or the environment variable ASSAY_THREADS_FORCE is set to 1.
int checked_threads(std::int64_t requested, std::string_view name = "threads", bool force = false);

/// Reads a thread count given as text (the CLI's --threads): an integer, else assay::Error
/// "NAME: expected 0 (all cores) or a positive number of threads, found "TEXT""; then the range
/// of checked_threads (no cap: the caller caps once the warning handler is installed).
std::int64_t parse_threads(std::string_view name, std::string_view text);

/// Throws assay::Error unless 0 < value < 1 ("NAME: expected a number in (0, 1), found V").
void check_probability(std::string_view name, double value);

/// Reads a number in (0, 1) given as text (the CLI's --confidence, --delta); throws assay::Error
/// saying "NAME: expected a number in (0, 1), found "TEXT"" for text that is no number and
/// check_probability's message for a number outside (0, 1) (no "NAME: " when `name` is empty).
double parse_probability(std::string_view name, std::string_view text);

}  // namespace assay
