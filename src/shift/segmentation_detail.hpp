// Private to the segmentation code: checks shared by its source files and the in-place removal
// of small components that score_subject and remove_small_lesions share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "assay/shift/segmentation.hpp"

namespace assay::shift::detail {

/// Throws unless connectivity is 6, 18 or 26.
void check_connectivity(int connectivity);

/// Throws "<what>: expected N values (nx x ny x nz voxels), found M" on a size mismatch; also
/// rejects grids too large for 32-bit labels.
void check_size(std::size_t found, Grid3 grid, std::string_view what);

/// Zeroes, in `mask` and `components`, every component with fewer than min_size voxels and
/// renumbers the rest 1..count in their previous order (which stays first-voxel order).
/// Returns the number removed.
std::size_t drop_small_components(Components& components, std::span<std::uint8_t> mask,
                                  std::size_t min_size);

}  // namespace assay::shift::detail
