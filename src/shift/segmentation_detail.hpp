// Private to the segmentation code: checks shared by its source files and the in-place removal
// of small components that score_subject and remove_small_lesions share.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "assay/core/radix_sort.hpp"
#include "assay/shift/segmentation.hpp"

namespace assay::shift::detail {

// Tests of a voxel's value through its bit pattern. GCC keeps floating-point compares in the
// volume scans scalar (under the default -ftrapping-math it does not if-convert them); integer
// compares of the bits vectorise and decide exactly the same (with `|`, not `||`: no branches).
inline std::uint64_t bits_of(double x) {
  return std::bit_cast<std::uint64_t>(x);
}
constexpr std::uint64_t kOneBits = 0x3ff0000000000000, kSignBit = 0x8000000000000000;
/// x == 1.
inline bool is_one(double x) {
  return bits_of(x) == kOneBits;
}
/// x == 0 or x == 1 (0 of either sign).
inline bool is_zero_or_one(double x) {
  return ((bits_of(x) << 1) == 0) | (bits_of(x) == kOneBits);
}
/// 0 <= x <= 1 (-0 included, NaN not): non-negative doubles order as their bit patterns.
inline bool in_unit_interval(double x) {
  return (bits_of(x) <= kOneBits) | (bits_of(x) == kSignBit);
}

// Scans of n voxels with those tests (AVX2 and AVX-512 clones: SSE2 has no 64-bit integer
// compare). Each returns false when a value is outside its domain; the caller then finds and
// names it.
/// Every value 0 or 1; out[v] = (in[v] == 1).
bool binary_to_mask(const double* in, std::size_t n, std::uint8_t* out);
/// Every value 0 or 1.
bool all_binary(const double* in, std::size_t n);
/// Every value in [0, 1]; out[v] = (in[v] >= threshold) for threshold_bits = the bits of a
/// positive threshold, or 0 for a threshold <= 0.
bool probability_to_mask(const double* in, std::size_t n, std::uint64_t threshold_bits,
                         std::uint8_t* out);
/// Every value in [0, 1].
bool all_probability(const double* in, std::size_t n);

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
