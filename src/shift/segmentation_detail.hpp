// Private to the segmentation code: checks shared by its source files and the in-place removal
// of small components that score_subject and remove_small_lesions share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "assay/core/radix_sort.hpp"
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

/// The two key arrays ndsc_retention sorts with, kept by a caller that scores many subjects on
/// one thread (assay segment's workers): fresh arrays of millions of keys cost the kernel's
/// zeroing of their pages on every subject, about a seventh of `assay segment`'s time.
class RetentionScratch {
 public:
  /// keys(n) / buffer(n): arrays of at least n keys, reallocated only to grow.
  assay::detail::KeyArray& keys(std::size_t n) { return take(keys_, keys_size_, n); }
  assay::detail::KeyArray& buffer(std::size_t n) { return take(buffer_, buffer_size_, n); }

 private:
  static assay::detail::KeyArray& take(std::unique_ptr<assay::detail::KeyArray>& array,
                                       std::size_t& size, std::size_t n) {
    if (!array || size < n) {
      array.reset();  // free the old one first: peak memory is one array, not two
      array = std::make_unique<assay::detail::KeyArray>(n);
      size = n;
    }
    return *array;
  }
  std::unique_ptr<assay::detail::KeyArray> keys_, buffer_;
  std::size_t keys_size_ = 0, buffer_size_ = 0;
};

/// Lends `scratch` to the ndsc_retention calls of this thread while it lives (nested lending
/// restores the previous one). Without a lender, ndsc_retention allocates its own arrays.
class LendRetentionScratch {
 public:
  explicit LendRetentionScratch(RetentionScratch& scratch);
  ~LendRetentionScratch();
  LendRetentionScratch(const LendRetentionScratch&) = delete;
  LendRetentionScratch& operator=(const LendRetentionScratch&) = delete;

 private:
  RetentionScratch* previous_;
};

}  // namespace assay::shift::detail
