// Label encoding shared by every classification metric.
//
// Layout: a label array of n values is encoded as `codes[i]` in 0..K-1, an index into `classes`,
// the distinct class values sorted ascending (like np.unique). Code -1 means "not one of the
// classes" (only when the classes are given explicitly). Every metric in assay::metrics takes
// codes, never raw labels; the Python layer encodes strings with np.unique and numbers with
// these encoders.
//
// Encoders run in O(n) when the values are integers spanning a small range (at most
// max(2^20, 2n) values), and sort-based (O(n log n)) otherwise. NaN is rejected.
//
// Example:
//   std::vector<std::int64_t> y = {3, 1, 3, 7};
//   auto e = encode_labels<std::int64_t>(y);        // e.classes {1, 3, 7}, e.codes {1, 0, 1, 2}
//   std::vector<std::int64_t> listed = {7, 3};
//   encode_with_classes<std::int64_t>(y, listed);   // {1, -1, 1, 0}: 1 is not listed
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "assay/core/validate.hpp"

namespace assay::metrics {

/// Sorted distinct class values of one or two label arrays plus the codes of each array.
template <typename T>
struct EncodedLabels {
  std::vector<T> classes;            ///< sorted ascending, distinct
  std::vector<std::int32_t> codes;   ///< codes of the first array (0..K-1)
  std::vector<std::int32_t> codes2;  ///< codes of the second array (empty if none given)
};

/// Encodes `values` (and optionally `values2`, sharing the same classes = union of both).
/// `name`/`name2` name the arrays in error messages ("y_pred contains NaN at index 3").
/// Instantiated for std::int64_t and double.
template <typename T>
EncodedLabels<T> encode_labels(std::span<const T> values, std::span<const T> values2 = {},
                               const char* name = "y_true", const char* name2 = "y_pred");

/// Codes of `values` against explicitly given `classes` (any order, distinct): codes[i] is the
/// position of values[i] in `classes`, or -1 when it is not listed.
/// Throws if `classes` has duplicates.
template <typename T>
std::vector<std::int32_t> encode_with_classes(std::span<const T> values, std::span<const T> classes,
                                              const char* name = "y_true");

/// What a float label array holds, in one pass: the first NaN and the first infinity (-1 when
/// none) and whether every value is an integer in int64's range (scikit-learn calls a float
/// target "continuous" otherwise).
struct FloatLabelCheck {
  std::int64_t first_nan = -1;
  std::int64_t first_inf = -1;
  bool integral = true;
};
FloatLabelCheck inspect_float_labels(std::span<const double> values);

}  // namespace assay::metrics
