// Input validation shared by every layer: lengths, emptiness, finiteness and sample weights, each
// with one wording, so that the same mistake reads the same in metrics, ranking, shift and
// learners, from the CLI and from Python.
//
// Example:
//   std::vector<double> y_true = {0, 1, 1}, y_score = {0.2, std::nan("")};
//   check_same_length(y_true.size(), y_score.size(), "y_true", "y_score");
//       // throws: y_true and y_score differ in length (3 vs 2)
//   check_not_empty(0, "y_true");       // throws: y_true is empty: need at least one sample
//   check_finite(y_score, "y_score");   // throws: y_score contains NaN at index 1
//   std::vector<double> sample_weight = {1, -1, 2};
//   check_weights(sample_weight, y_true.size());
//       // throws: sample_weight must be >= 0, found -1 at index 1
//       // (empty means all 1, else one finite weight >= 0 per sample; the other messages:
//       // "y_true and sample_weight differ in length (3 vs 2)",
//       // "sample_weight contains inf at index 0")
//
// Values are spelled as numpy prints them ("NaN", "inf", "-inf"). Every check throws
// assay::Error (no location: callers that read files report file:line:col themselves).
// kNaN is the value of a statistic that is undefined (docs/architecture.md: the NaN policy).
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <string_view>

namespace assay {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// "NaN", "inf" or "-inf" for a non-finite x (as numpy prints them).
const char* non_finite_name(double x);

/// Throws "<what> contains NaN|inf|-inf at index <i>".
[[noreturn]] void fail_non_finite(std::string_view what, double x, std::size_t i);

/// Throws "<name1> and <name2> differ in length (<n1> vs <n2>)" unless n1 == n2.
void check_same_length(std::size_t n1, std::size_t n2, std::string_view name1,
                       std::string_view name2);

/// Throws "<what> is empty: need at least one sample" when n == 0.
void check_not_empty(std::size_t n, std::string_view what);

/// Throws fail_non_finite's message at the first NaN or infinity of `values`.
void check_finite(std::span<const double> values, std::string_view what);

/// Sample weights: empty (= all 1) or n values, each finite and >= 0; otherwise throws (length
/// message names `name` and `weights_name`, value messages name `weights_name`).
void check_weights(std::span<const double> weights, std::size_t n, std::string_view name = "y_true",
                   std::string_view weights_name = "sample_weight");

}  // namespace assay
