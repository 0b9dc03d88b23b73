// Confusion matrices over encoded labels (see labels.hpp).
//
// Layout: codes are 0..K-1 (labels.hpp); a code outside [0, K) (e.g. -1 = "not listed") drops
// the sample. The K x K matrix is row-major: C[i*K + j] = sum of weights of samples with true
// class i and predicted class j. Weights: empty = all 1; otherwise finite and >= 0.
// Grouped matrices map true classes to row groups and predicted classes to column groups
// (rectangular: R x G); a class mapped to -1 is ignored (its samples are dropped).
//
// Example:
//   std::vector<std::int32_t> t = {0, 0, 1, 1, 2, 2}, p = {0, 1, 1, 1, 2, 0};
//   confusion_matrix(t, p, 3);   // {1, 1, 0,  0, 2, 0,  1, 0, 1}: row = true class
//   confusion_matrix(t, p, 3, {}, Normalize::true_rows);   // {.5, .5, 0,  0, 1, 0,  .5, 0, .5}
//   std::vector<std::int32_t> rows = {0, 1, 1}, cols = {0, 0, 1};   // class -> group
//   grouped_confusion_matrix(t, p, rows, cols, 2, 2);   // {2, 0,  3, 1} (2 x 2)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace assay::metrics {

/// How to normalise a confusion matrix; 0/0 gives 0 (scikit-learn).
enum class Normalize { none, true_rows, pred_cols, all };

/// Parses "none"/"true"/"pred"/"all"; throws naming the value otherwise.
Normalize parse_normalize(const std::string& name);

/// K x K confusion matrix (row-major). Runs in parallel over fixed chunks (same result with any
/// thread count). Throws if lengths differ or weights are invalid.
std::vector<double> confusion_matrix(std::span<const std::int32_t> y_true,
                                     std::span<const std::int32_t> y_pred, std::int32_t n_classes,
                                     std::span<const double> weights = {},
                                     Normalize normalize = Normalize::none);

/// Exact K x K confusion matrix for integer sample weights (>= 0): int64 sums; a sum beyond
/// int64's range is an assay::Error naming the cell (counts never wrap around).
std::vector<std::int64_t> confusion_matrix_integer(std::span<const std::int32_t> y_true,
                                                   std::span<const std::int32_t> y_pred,
                                                   std::int32_t n_classes,
                                                   std::span<const std::int64_t> weights);

/// Fast path for raw integer labels (no label list): when max - min < 256 over both arrays, counts
/// straight from the values in one parallel pass without materialising codes (memory-bandwidth
/// bound). Fills `classes` (sorted values present in either array, zero-weight samples included)
/// and the K x K `matrix`; returns false, touching nothing, when the range is too wide.
bool confusion_matrix_direct(std::span<const std::int64_t> y_true,
                             std::span<const std::int64_t> y_pred, std::span<const double> weights,
                             Normalize normalize, std::vector<std::int64_t>& classes,
                             std::vector<double>& matrix);

/// Normalises a rows x cols matrix in place (0/0 -> 0).
void normalize_matrix(std::vector<double>& matrix, std::size_t rows, std::size_t cols,
                      Normalize normalize);

/// Rectangular matrix: M[r*n_cols + c] = sum of weights with row_of_class[true] = r and
/// col_of_class[pred] = c. row_of_class/col_of_class have one entry per class (K), each in
/// [-1, n_rows) / [-1, n_cols); -1 = ignore.
std::vector<double> grouped_confusion_matrix(std::span<const std::int32_t> y_true,
                                             std::span<const std::int32_t> y_pred,
                                             std::span<const std::int32_t> row_of_class,
                                             std::span<const std::int32_t> col_of_class,
                                             std::int32_t n_rows, std::int32_t n_cols,
                                             std::span<const double> weights = {});

}  // namespace assay::metrics
