// What count() is asked to do: the counting method (CountMethod, parsed from its option text in
// one place for the CLI, Python and report configs) and the parameters of a count (CountParams),
// with their documented defaults. counting.hpp counts with them; count_cnf.hpp and
// domain_split.hpp translate them for counting a CNF file and for domain splitting.
//
// Data layout: plain values; CountParams::test_x is row-major n x n_features (test_y one label
// index per row). Methods are spelled in text exactly as in results (to_string).
//
// Example:
//   CountParams p;
//   p.method = parse_count_method("exact-cnf");  // CountMethod::exact_cnf
//   p.time_limit = 30;                            // seconds per count
//   p.samples = {100, 1000};                      // two uniform samples beside the exact counts
//   std::string_view name = to_string(p.method);  // "exact-cnf"
//   CountMethod m = parse_count_method("approx", kCnfCountMethods, "for a CNF file");
//   // parse_count_method("enumerate", kCnfCountMethods, "for a CNF file") throws assay::Error
//   // "method must be auto, exact-cnf or approx for a CNF file, found "enumerate""
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace assay::count {

/// A counting method, spelled in results exactly as its option (to_string): a result never names
/// its method differently from the option that asks for it.
enum class CountMethod { automatic, structural, enumerate, exact_cnf, approx, split };

/// Every method, in the order messages list them.
inline constexpr CountMethod kCountMethods[] = {CountMethod::automatic, CountMethod::structural,
                                                CountMethod::enumerate, CountMethod::exact_cnf,
                                                CountMethod::approx,    CountMethod::split};
/// The methods that count a CNF file (count_cnf.hpp).
inline constexpr CountMethod kCnfCountMethods[] = {CountMethod::automatic, CountMethod::exact_cnf,
                                                   CountMethod::approx};
/// The methods of robustness() (no CNF, no splitting).
inline constexpr CountMethod kRobustnessMethods[] = {
    CountMethod::automatic, CountMethod::structural, CountMethod::enumerate};

/// The method spelled `name` ("auto", "structural", "enumerate", "exact-cnf", "approx" or
/// "split") when it is one of `allowed`; otherwise throws assay::Error "method must be auto,
/// structural, enumerate, exact-cnf, approx or split, found "x"" (the allowed ones, then
/// `context` when given: "... or approx for a CNF file, found ...").
CountMethod parse_count_method(std::string_view name,
                               std::span<const CountMethod> allowed = kCountMethods,
                               std::string_view context = {});
/// Throws parse_count_method's message unless `method` is one of `allowed`.
void check_count_method(CountMethod method, std::span<const CountMethod> allowed,
                        std::string_view context = {});
std::string_view to_string(CountMethod method);

/// Largest time limit in seconds (about 31.7 years). Limits become deadlines on a clock counting
/// nanoseconds in 64 bits; 1e10 s would overflow it into a deadline in the past.
inline constexpr double kMaxTimeLimit = 1e9;
/// Throws assay::Error unless 0 <= seconds <= kMaxTimeLimit: "time_limit: expected seconds in
/// [0, 1000000000] (0 = no limit; larger values overflow the clock), found 10000000000". With
/// `as_written` (the CLI's text) the message quotes it instead: found "1e10".
void check_time_limit(std::string_view name, double seconds, std::string_view as_written = {});

struct CountParams {
  /// "" = every truth, safety property and region of the spec; otherwise one name: a predicate
  /// (then label 1 = it, label 0 = its negation; binary models only), a safety property or a
  /// region.
  std::string property;
  /// How to count (counting.hpp describes each method); from text: parse_count_method.
  CountMethod method = CountMethod::automatic;
  /// exact-cnf / approx: wall-clock limit per count in seconds (0 = none; auto gives the exact
  /// counter this, or 60 when 0, then its approximate fallback this again, or 60 when 0).
  double time_limit = 0.0;
  /// approx: tolerance and confidence of each count (ApproxMC's defaults).
  double epsilon = 0.8;
  double delta = 0.2;
  /// exact-cnf / approx: inputs where a fixed-point circuit may disagree with the model are
  /// settled one by one when there are at most this many; beyond, the counts are bounds.
  std::uint64_t ambiguity_limit = 100000;
  /// exact-cnf / approx: fixed point of the encoding (encode.hpp's EncodeParams).
  int fraction_bits = 0;
  int weight_bits = 12;
  int activation_bits = 12;
  /// Sizes of uniform samples for the statistical view (default: none). Each sample (and each
  /// region's) stops early, with the points drawn so far, after time_limit seconds (when set) or
  /// on an interrupt (core/interrupt.hpp).
  std::vector<std::size_t> samples;
  /// Seed of the samples and of approx's hashes (the same seed gives the same results at any
  /// thread count).
  std::uint64_t seed = 0;
  /// Confidence level of the intervals.
  double confidence = 0.95;
  /// Worker threads for enumeration, structural counting and approx's measurements (0 = all
  /// cores; results do not depend on it).
  int threads = 0;
  /// Largest domain (or region) enumerated, in points (default 2^32).
  std::uint64_t enumeration_limit = std::uint64_t{1} << 32;
  /// split: largest number of pieces bounded per count (0 = none; time_limit applies too).
  std::uint64_t max_boxes = 0;
  /// split: bytes the open pieces may take (0 = half the memory available when a count starts,
  /// allocatable_bytes() / 2); a count that reaches it stops with certified bounds.
  std::uint64_t max_memory = 0;
  /// Optional test set: row-major n x n_features values and true label indices.
  std::vector<double> test_x;
  std::vector<std::int32_t> test_y;
};

}  // namespace assay::count
