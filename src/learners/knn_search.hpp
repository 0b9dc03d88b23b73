// The two numeric pieces of knn: StandardScaler-equivalent standardising and the exact blockwise
// nearest-neighbour search. Matrices are row-major, rows x n_features, as in Dataset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "assay/learners/dataset.hpp"

namespace assay::learners::detail {

/// Per-feature centre and divisor: z = (x - mean) / scale.
struct Standardizer {
  std::vector<double> mean;
  /// Population SD; 1 for features StandardScaler calls constant.
  std::vector<double> scale;
};

/// StandardScaler.fit on data rows `rows` with scikit-learn's arithmetic: column sums in row order
/// (pairwise when there is one feature, as NumPy), the corrected two-pass variance, and its
/// constant-feature test (var <= n·eps·var + (n·mean·eps)²). With weights (one per entry of
/// `rows`, empty = unweighted): weighted mean and variance over the total weight.
Standardizer fit_standardizer(const Dataset& data, std::span<const std::uint32_t> rows,
                              std::span<const double> weights);

/// Writes the standardised data rows `rows` to `out` (rows.size() x n_features).
void standardize(const Dataset& data, std::span<const std::uint32_t> rows,
                 const Standardizer& scaler, std::span<double> out);

/// For each of the n_query rows of `query`, the `k` nearest of the n_ref rows of `ref`
/// (row-major, n_features columns each), nearest first: out[q * k + i] = reference position.
/// Order: by Σ(q_j − t_j)² computed directly, ties → the lower reference position. Screening uses
/// BLAS products ‖t‖² − 2q·t with a rounding margin, so the result equals a direct search.
/// Requires 1 <= k <= n_ref. Parallel over query blocks; the result does not depend on threads.
void nearest_neighbours(std::span<const double> ref, std::size_t n_ref,
                        std::span<const double> query, std::size_t n_query, std::size_t n_features,
                        std::size_t k, int threads, std::span<std::uint32_t> out);

/// NumPy's float64 sum of a contiguous array (pairwise with 8 accumulators), so means and fold
/// averages round exactly as scikit-learn's.
double numpy_sum(std::span<const double> values);

}  // namespace assay::learners::detail
