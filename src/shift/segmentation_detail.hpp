// Private to the segmentation code: checks shared by its source files and the in-place removal
// of small components that score_subject and remove_small_lesions share.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "assay/core/compensated_sum.hpp"
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
/// Every value in [0, 1]; out[v] = (in[v] >= threshold) for threshold_bits = the bits of a
/// positive threshold, or 0 for a threshold <= 0.
bool probability_to_mask(const double* in, std::size_t n, std::uint64_t threshold_bits,
                         std::uint8_t* out);
/// Every value in [0, 1].
bool all_probability(const double* in, std::size_t n);
/// probability_to_mask's threshold_bits for a finite threshold.
inline std::uint64_t threshold_bits(double threshold) {
  return threshold > 0 ? bits_of(threshold) : 0;
}
/// No value is NaN.
bool none_nan(const double* in, std::size_t n);

/// The index of the first byte of mask[0, n) other than 0 or 1, or n: one OR over all of them
/// (vectorised), then a search only when one is there.
inline std::size_t first_non_binary(const std::uint8_t* mask, std::size_t n) {
  std::uint8_t any = 0;
  for (std::size_t i = 0; i < n; ++i) any |= mask[i];
  if (any <= 1) return n;  // no bit above the lowest is set anywhere
  std::size_t i = 0;
  while (mask[i] <= 1) ++i;
  return i;
}

/// Block length of the scans that skip empty blocks of sparse masks and label arrays.
constexpr std::size_t kSparseBlock = 64;

/// Whether any of values[0, n) is non-zero: an OR over them (vectorised), so that scans of
/// sparse masks and label arrays (lesions are a few thousandths of a volume) skip empty blocks
/// at memory speed.
template <typename T>
bool any_nonzero(const T* values, std::size_t n) {
  T any = 0;
  for (std::size_t i = 0; i < n; ++i) any |= values[i];
  return any != 0;
}

/// Throws unless connectivity is 6, 18 or 26.
void check_connectivity(int connectivity);

/// Throws "<what>: expected N values (nx x ny x nz voxels), found M" on a size mismatch; also
/// rejects grids too large for 32-bit labels.
void check_size(std::size_t found, Grid3 grid, std::string_view what);

/// Zeroes, in `mask` and `components`, every component with fewer than min_size voxels and
/// renumbers the rest 1..count in their previous order (which stays first-voxel order).
/// Returns the number removed. `mask` must be the mask the components were labelled from.
std::size_t drop_small_components(Components& components, std::span<std::uint8_t> mask,
                                  std::size_t min_size);

/// The sums of the considered voxels' uncertainties (memory order) that score_subject's mean
/// uncertainty takes: `plain` is kept because the compensated sum's correction is inf - inf =
/// NaN once a value is inf.
struct UncertaintySum {
  CompensatedSum compensated;
  double plain = 0;
};

/// ndsc_retention, also adding each considered voxel's uncertainty to `sum` in its own scan of
/// them: one read of the uncertainties instead of two. `values_checked`: the caller has made
/// sure that no uncertainty is NaN, so the scan that checks it is skipped.
NdscRetention ndsc_retention_summing(std::span<const std::uint8_t> prediction,
                                     std::span<const std::uint8_t> truth,
                                     std::span<const double> uncertainty,
                                     std::span<const std::uint8_t> brain_mask, Grid3 grid, double r,
                                     std::size_t points, UncertaintySum& sum, bool values_checked);

/// score_subject_masks for inputs whose values the caller has checked (masks 0 or 1, no NaN
/// uncertainty), as assay segment's reader does while it decodes the files: the scans that
/// would check them again are skipped. Sizes and parameters are still checked. With
/// `thresholded`, the lent scratch's predicted_mask already holds probability >= threshold
/// (the reader made it block by block).
SubjectScores score_checked_subject(std::span<const double> probability,
                                    std::span<const std::uint8_t> truth,
                                    std::span<const double> uncertainty,
                                    std::span<const std::uint8_t> brain_mask, Grid3 grid,
                                    const SegmentationParams& params, bool thresholded);

/// lesion_counts of two labellings, with the 0/1 mask the prediction was labelled from (after
/// drop_small_components, if any): empty stretches are skipped by reading its bytes instead of
/// the labels' four bytes a voxel.
LesionCounts lesion_counts_with_mask(const Components& prediction, const Components& truth,
                                     double iou_threshold,
                                     std::span<const std::uint8_t> predicted_mask);

/// A labelling kept for the next subject: `rows` lists the starts of the rows where its labels
/// may be non-zero, so that reuse clears those rows instead of the whole array.
struct KeptLabels {
  Components components;
  std::vector<std::size_t> rows;
  std::size_t row_length = 0;  // nx of the grid the rows are of
};

/// label_components into `kept`, reusing its memory (only the rows it had labelled are cleared
/// first; a grid of another size gets a fresh array).
void label_components_into(std::span<const std::uint8_t> mask, Grid3 grid, int connectivity,
                           KeptLabels& kept);

/// The arrays score_subject_masks and ndsc_retention work in, kept by a caller that scores many
/// subjects on one thread (assay segment's workers): fresh arrays of millions of voxels cost the
/// kernel's zeroing of their pages and a memset on every subject.
class ScoringScratch {
 public:
  /// An array of at least n keys, reallocated only to grow.
  assay::detail::KeyArray& keys(std::size_t n) {
    if (!keys_ || keys_size_ < n) {
      keys_.reset();  // free the old one first: peak memory is one array, not two
      keys_ = std::make_unique<assay::detail::KeyArray>(n);
      keys_size_ = n;
    }
    return *keys_;
  }
  /// The thresholded prediction and the two labellings.
  std::vector<std::uint8_t> predicted_mask;
  KeptLabels predicted, truth;

 private:
  std::unique_ptr<assay::detail::KeyArray> keys_;
  std::size_t keys_size_ = 0;
};

/// Lends `scratch` to the score_subject_masks and ndsc_retention calls of this thread while it
/// lives (nested lending restores the previous one). Without a lender they allocate their own.
class LendScoringScratch {
 public:
  explicit LendScoringScratch(ScoringScratch& scratch);
  ~LendScoringScratch();
  LendScoringScratch(const LendScoringScratch&) = delete;
  LendScoringScratch& operator=(const LendScoringScratch&) = delete;

 private:
  ScoringScratch* previous_;
};

/// The scratch lent to this thread, or null.
ScoringScratch* lent_scoring_scratch();

/// threshold_probability into `mask` (resized to the grid, its memory reused).
void threshold_probability_into(std::span<const double> probability, Grid3 grid, double threshold,
                                std::vector<std::uint8_t>& mask);

}  // namespace assay::shift::detail
