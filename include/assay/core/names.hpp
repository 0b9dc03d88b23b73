// Closeness of names, for the "did you mean ...?" hints of unknown keys, metrics and options.
//
// Example:
//   edit_distance("treshold", "threshold");   // 1
#pragma once

#include <cstddef>
#include <string_view>

namespace assay {

/// Levenshtein distance: the fewest insertions, deletions and substitutions of bytes that turn
/// `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace assay
