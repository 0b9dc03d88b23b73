// Private to the metrics layer: shape checks shared by the multilabel-indicator metrics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace assay::metrics::detail {

/// Rows n of a pair of n x n_labels indicator matrices; checks the shapes and the weights (n of
/// them, or none). allow_empty: n = 0 is fine, else an assay::Error.
std::size_t indicator_rows(std::span<const std::uint8_t> y_true,
                           std::span<const std::uint8_t> y_pred, std::size_t n_labels,
                           std::span<const double> weights, bool allow_empty = false);

}  // namespace assay::metrics::detail
