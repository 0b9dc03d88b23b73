// Per-subject segmentation measures (Shifts MS conventions; see the header and
// docs/segmentation.md): input checks, voxel and lesion counts, DSC / nDSC, post-processing and
// score_subject. The retention curve is in segmentation_retention.cpp, the ensemble maps in
// segmentation_ensemble.cpp, components in segmentation_components.cpp.
#include "assay/shift/segmentation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "assay/core/compensated_sum.hpp"
#include "assay/core/error.hpp"
#include "assay/core/vector_clones.hpp"
#include "shift/segmentation_detail.hpp"

namespace assay::shift {

std::string voxel_name(Grid3 grid, std::size_t v) {
  const std::size_t i = v % grid.nx;
  const std::size_t j = (v / grid.nx) % grid.ny;
  const std::size_t k = v / (grid.nx * grid.ny);
  return grid.c_order_names ? fmt::format("({}, {}, {})", k, j, i)
                            : fmt::format("({}, {}, {})", i, j, k);
}

namespace detail {

ASSAY_VECTOR_CLONES bool binary_to_mask(const double* in, std::size_t n, std::uint8_t* out) {
  unsigned bad = 0;
  for (std::size_t v = 0; v < n; ++v) {
    bad |= !is_zero_or_one(in[v]);
    out[v] = is_one(in[v]);
  }
  return bad == 0;
}

ASSAY_VECTOR_CLONES bool probability_to_mask(const double* in, std::size_t n,
                                             std::uint64_t threshold_bits, std::uint8_t* out) {
  unsigned bad = 0;
  for (std::size_t v = 0; v < n; ++v) {
    bad |= !in_unit_interval(in[v]);  // NaN fails
    // p >= threshold for p in [-0, 1]: its magnitude's bits against the threshold's.
    out[v] = (bits_of(in[v]) & ~kSignBit) >= threshold_bits;
  }
  return bad == 0;
}

ASSAY_VECTOR_CLONES bool all_probability(const double* in, std::size_t n) {
  unsigned bad = 0;
  for (std::size_t v = 0; v < n; ++v) bad |= !in_unit_interval(in[v]);
  return bad == 0;
}

ASSAY_VECTOR_CLONES bool none_nan(const double* in, std::size_t n) {
  constexpr std::uint64_t kInfinityBits = 0x7ff0000000000000;
  unsigned bad = 0;
  for (std::size_t v = 0; v < n; ++v) bad |= (bits_of(in[v]) & ~kSignBit) > kInfinityBits;
  return bad == 0;
}

}  // namespace detail

std::vector<std::uint8_t> binary_mask(std::span<const double> values, Grid3 grid,
                                      std::string_view what) {
  detail::check_size(values.size(), grid, what);
  std::vector<std::uint8_t> mask(values.size());
  // Vectorised blocks; a block holding a bad value is searched afterwards.
  constexpr std::size_t kBlock = 4096;
  for (std::size_t begin = 0; begin < values.size(); begin += kBlock) {
    const std::size_t end = std::min(values.size(), begin + kBlock);
    if (detail::binary_to_mask(values.data() + begin, end - begin, mask.data() + begin)) continue;
    for (std::size_t v = begin; v < end; ++v) {
      if (values[v] != 0.0 && values[v] != 1.0) {
        fail("{}: expected 0 or 1 at voxel {}, found {}", what, voxel_name(grid, v), values[v]);
      }
    }
  }
  return mask;
}

void detail::threshold_probability_into(std::span<const double> probability, Grid3 grid,
                                        double threshold, std::vector<std::uint8_t>& mask) {
  check_size(probability.size(), grid, "probability");
  if (!std::isfinite(threshold)) fail("threshold: expected a finite number, found {}", threshold);
  mask.resize(probability.size());
  const std::uint64_t bits = threshold_bits(threshold);
  constexpr std::size_t kBlock = 4096;
  for (std::size_t begin = 0; begin < probability.size(); begin += kBlock) {
    const std::size_t end = std::min(probability.size(), begin + kBlock);
    if (probability_to_mask(probability.data() + begin, end - begin, bits, mask.data() + begin)) {
      continue;
    }
    for (std::size_t v = begin; v < end; ++v) {
      const double p = probability[v];
      if (!(p >= 0.0 && p <= 1.0)) {
        fail("probability: expected a value in [0, 1] at voxel {}, found {}", voxel_name(grid, v),
             p);
      }
    }
  }
}

std::vector<std::uint8_t> threshold_probability(std::span<const double> probability, Grid3 grid,
                                                double threshold) {
  std::vector<std::uint8_t> mask;
  detail::threshold_probability_into(probability, grid, threshold, mask);
  return mask;
}

VoxelCounts voxel_counts(std::span<const std::uint8_t> prediction,
                         std::span<const std::uint8_t> truth) {
  if (prediction.size() != truth.size()) {
    fail("truth: expected {} voxels like the prediction, found {}", prediction.size(),
         truth.size());
  }
  // Counts of p, g and p & g: branch-free (vectorised) within the blocks that hold a lesion voxel.
  std::uint64_t predicted = 0, actual = 0, both = 0;
  const std::size_t n = prediction.size();
  for (std::size_t block = 0; block < n; block += detail::kSparseBlock) {
    const std::size_t end = std::min(n, block + detail::kSparseBlock);
    if (!detail::any_nonzero(prediction.data() + block, end - block) &&
        !detail::any_nonzero(truth.data() + block, end - block)) {
      continue;
    }
    for (std::size_t v = block; v < end; ++v) {
      const std::uint64_t p = prediction[v] != 0, g = truth[v] != 0;
      predicted += p;
      actual += g;
      both += p & g;
    }
  }
  return {prediction.size(), both, predicted - both, actual - both};
}

double dice(const VoxelCounts& c) {
  const double intersection = static_cast<double>(c.tp);
  const double sum = static_cast<double>(c.predicted() + c.truth());
  if (sum == 0) return 1.0;
  return 2.0 * intersection / sum;
}

double normalised_dice(const VoxelCounts& c, double r) {
  if (!(r > 0 && r < 1)) fail("r: expected a value in (0, 1), found {}", r);
  const double g = static_cast<double>(c.truth());
  if (c.predicted() + c.truth() == 0) return 1.0;
  const double k = c.truth() == 0 ? 1.0 : (1 - r) * g / (r * (static_cast<double>(c.n) - g));
  // k is infinite when every voxel is lesion; then FP = 0 and k FP is 0 (Shifts: NaN).
  const double fp_scaled = c.fp == 0 ? 0.0 : k * static_cast<double>(c.fp);
  const double tp = static_cast<double>(c.tp);
  return 2.0 * tp / (fp_scaled + 2.0 * tp + static_cast<double>(c.fn));
}

LesionCounts lesion_counts(const Components& prediction, const Components& truth,
                           double iou_threshold) {
  return detail::lesion_counts_with_mask(prediction, truth, iou_threshold, {});
}

LesionCounts detail::lesion_counts_with_mask(const Components& prediction, const Components& truth,
                                             double iou_threshold,
                                             std::span<const std::uint8_t> predicted_mask) {
  if (!(iou_threshold >= 0 && iou_threshold <= 1)) {
    fail("iou_threshold: expected a value in [0, 1], found {}", iou_threshold);
  }
  if (prediction.labels.size() != truth.labels.size()) {
    fail("truth: expected {} voxels like the prediction, found {}", prediction.labels.size(),
         truth.labels.size());
  }
  // Overlap of each (predicted, true) pair that meets: runs of equal pairs collapse as the scan
  // goes, then one sort merges the rest.
  struct Overlap {
    std::uint64_t pair;  // predicted label << 32 | true label
    std::uint64_t voxels;
  };
  std::vector<Overlap> overlaps;
  const auto& pl = prediction.labels;
  const auto& tl = truth.labels;
  ASSAY_ASSERT(predicted_mask.empty() || predicted_mask.size() == pl.size());
  for (std::size_t block = 0; block < pl.size(); block += detail::kSparseBlock) {
    const std::size_t end = std::min(pl.size(), block + detail::kSparseBlock);
    const bool empty = predicted_mask.empty()
                           ? !detail::any_nonzero(pl.data() + block, end - block)
                           : !detail::any_nonzero(predicted_mask.data() + block, end - block);
    if (empty) continue;
    for (std::size_t v = block; v < end; ++v) {
      if (pl[v] == 0 || tl[v] == 0) continue;
      const std::uint64_t pair = (std::uint64_t{pl[v]} << 32) | tl[v];
      if (!overlaps.empty() && overlaps.back().pair == pair) {
        ++overlaps.back().voxels;
      } else {
        overlaps.push_back({pair, 1});
      }
    }
  }
  std::sort(overlaps.begin(), overlaps.end(),
            [](const Overlap& a, const Overlap& b) { return a.pair < b.pair; });
  std::vector<double> best_predicted(std::size_t{prediction.count} + 1, 0.0);
  std::vector<double> best_true(std::size_t{truth.count} + 1, 0.0);
  for (std::size_t i = 0; i < overlaps.size();) {
    const std::uint64_t pair = overlaps[i].pair;
    std::uint64_t intersection = 0;
    for (; i < overlaps.size() && overlaps[i].pair == pair; ++i) intersection += overlaps[i].voxels;
    const auto p = static_cast<std::uint32_t>(pair >> 32);
    const auto t = static_cast<std::uint32_t>(pair & 0xffffffffu);
    const std::uint64_t uni = prediction.sizes[p - 1] + truth.sizes[t - 1] - intersection;
    const double iou = static_cast<double>(intersection) / static_cast<double>(uni);
    best_predicted[p] = std::max(best_predicted[p], iou);
    best_true[t] = std::max(best_true[t], iou);
  }
  LesionCounts out;
  out.predicted_lesions = prediction.count;
  out.true_lesions = truth.count;
  for (std::uint32_t p = 1; p <= prediction.count; ++p)
    out.tp += best_predicted[p] >= iou_threshold;
  out.fp = out.predicted_lesions - out.tp;
  for (std::uint32_t t = 1; t <= truth.count; ++t) out.fn += best_true[t] < iou_threshold;
  const double tp = static_cast<double>(out.tp);
  const double denominator = tp + 0.5 * static_cast<double>(out.fp + out.fn);
  out.f1 = denominator == 0 ? 1.0 : tp / denominator;
  return out;
}

LesionCounts lesion_counts(std::span<const std::uint8_t> prediction,
                           std::span<const std::uint8_t> truth, Grid3 grid, int connectivity,
                           double iou_threshold) {
  detail::check_size(truth.size(), grid, "truth");
  return lesion_counts(label_components(prediction, grid, connectivity),
                       label_components(truth, grid, connectivity), iou_threshold);
}

void check_params(const SegmentationParams& params) {
  if (!std::isfinite(params.threshold)) {
    fail("threshold: expected a finite number, found {}", params.threshold);
  }
  detail::check_connectivity(params.connectivity);
  if (!(params.iou_threshold >= 0 && params.iou_threshold <= 1)) {
    fail("iou_threshold: expected a value in [0, 1], found {}", params.iou_threshold);
  }
  if (!(params.ndsc_r > 0 && params.ndsc_r < 1)) {
    fail("r: expected a value in (0, 1), found {}", params.ndsc_r);
  }
  if (params.retention_points < 2) {
    fail("retention points: expected at least 2, found {}", params.retention_points);
  }
  if (params.retention_points > kMaxRetentionPoints) {
    fail("retention points: expected at most {} (Shifts uses 200), found {}", kMaxRetentionPoints,
         params.retention_points);
  }
}

std::vector<std::uint8_t> postprocess(std::span<const double> probability, Grid3 grid,
                                      const SegmentationParams& params) {
  check_params(params);
  auto mask = threshold_probability(probability, grid, params.threshold);
  remove_small_lesions(mask, grid, params.connectivity, params.min_lesion_size);
  return mask;
}

SubjectScores score_subject(std::span<const double> probability, std::span<const double> truth,
                            std::span<const double> uncertainty, std::span<const double> brain_mask,
                            Grid3 grid, const SegmentationParams& params) {
  check_params(params);
  detail::check_size(probability.size(), grid, "probability");
  detail::check_size(truth.size(), grid, "truth");
  if (!brain_mask.empty()) detail::check_size(brain_mask.size(), grid, "brain mask");
  const auto truth_mask = binary_mask(truth, grid, "truth");
  std::vector<std::uint8_t> brain;
  if (!brain_mask.empty()) brain = binary_mask(brain_mask, grid, "brain mask");
  return score_subject_masks(probability, truth_mask, uncertainty, brain, grid, params);
}

namespace {

void check_mask_bytes(std::span<const std::uint8_t> mask, Grid3 grid, std::string_view what) {
  detail::check_size(mask.size(), grid, what);
  const std::size_t bad = detail::first_non_binary(mask.data(), mask.size());
  if (bad == mask.size()) return;
  fail("{}: expected 0 or 1 at voxel {}, found {}", what, voxel_name(grid, bad), int{mask[bad]});
}

// Sizes and parameters always; the masks' values unless the caller checked them.
void check_inputs(std::span<const double> probability, std::span<const std::uint8_t> truth_mask,
                  std::span<const double> uncertainty, std::span<const std::uint8_t> brain,
                  Grid3 grid, const SegmentationParams& params, bool values_checked) {
  check_params(params);
  detail::check_size(probability.size(), grid, "probability");
  detail::check_size(truth_mask.size(), grid, "truth");
  if (!uncertainty.empty()) detail::check_size(uncertainty.size(), grid, "uncertainty");
  if (!brain.empty()) detail::check_size(brain.size(), grid, "brain mask");
  if (!values_checked) {
    check_mask_bytes(truth_mask, grid, "truth");
    if (!brain.empty()) check_mask_bytes(brain, grid, "brain mask");
  }
}

// Post-processing, voxel counts, DSC / nDSC and lesion counts, in the scratch's arrays;
// scratch.predicted_mask holds the thresholded prediction and is post-processed in place.
void score_lesions(std::span<const std::uint8_t> truth_mask, Grid3 grid,
                   const SegmentationParams& params, detail::ScoringScratch& scratch,
                   SubjectScores& s) {
  std::vector<std::uint8_t>& predicted = scratch.predicted_mask;
  s.n_voxels = grid.size();
  detail::label_components_into(predicted, grid, params.connectivity, scratch.predicted);
  Components& predicted_lesions = scratch.predicted.components;
  s.removed_lesions =
      detail::drop_small_components(predicted_lesions, predicted, params.min_lesion_size);
  detail::label_components_into(truth_mask, grid, params.connectivity, scratch.truth);

  const auto voxels = voxel_counts(predicted, truth_mask);
  s.voxel_tp = voxels.tp;
  s.voxel_fp = voxels.fp;
  s.voxel_fn = voxels.fn;
  s.dsc = dice(voxels);
  s.ndsc = normalised_dice(voxels, params.ndsc_r);

  const auto lesions = detail::lesion_counts_with_mask(predicted_lesions, scratch.truth.components,
                                                       params.iou_threshold, predicted);
  s.true_lesions = lesions.true_lesions;
  s.predicted_lesions = lesions.predicted_lesions;
  s.lesion_tp = lesions.tp;
  s.lesion_fp = lesions.fp;
  s.lesion_fn = lesions.fn;
  s.lesion_f1 = lesions.f1;
}

// The nDSC retention curve and the mean uncertainty over the brain voxels (NaN without an
// uncertainty map or brain voxels).
void score_uncertainty(std::span<const std::uint8_t> predicted,
                       std::span<const std::uint8_t> truth_mask,
                       std::span<const double> uncertainty, std::span<const std::uint8_t> brain,
                       Grid3 grid, const SegmentationParams& params, bool values_checked,
                       SubjectScores& s) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (uncertainty.empty()) {
    s.ndsc_retention_auc = nan;
    s.mean_uncertainty = nan;
    return;
  }
  detail::UncertaintySum sum;  // of the brain voxels, for the mean: added up by the curve's scan
  auto retention =
      detail::ndsc_retention_summing(predicted, truth_mask, uncertainty, brain, grid, params.ndsc_r,
                                     params.retention_points, sum, values_checked);
  s.ndsc_retention_auc = retention.area;
  s.retention_fraction = std::move(retention.fraction);
  s.retention_ndsc = std::move(retention.ndsc);
  const double total = std::isfinite(sum.plain) ? sum.compensated.value() : sum.plain;
  s.mean_uncertainty = s.brain_voxels == 0 ? nan : total / static_cast<double>(s.brain_voxels);
}

// score_subject_masks; `values_checked`: the caller checked the masks and the uncertainty;
// `thresholded`: the lent scratch's predicted_mask already holds the thresholded probability.
SubjectScores score_masks(std::span<const double> probability,
                          std::span<const std::uint8_t> truth_mask,
                          std::span<const double> uncertainty, std::span<const std::uint8_t> brain,
                          Grid3 grid, const SegmentationParams& params, bool values_checked,
                          bool thresholded) {
  check_inputs(probability, truth_mask, uncertainty, brain, grid, params, values_checked);
  // In the lent scratch's arrays when there is one (assay segment's workers), else in our own.
  detail::ScoringScratch own;
  detail::ScoringScratch* lent = detail::lent_scoring_scratch();
  detail::ScoringScratch& scratch = lent != nullptr ? *lent : own;
  if (!thresholded || lent == nullptr || scratch.predicted_mask.size() != grid.size()) {
    detail::threshold_probability_into(probability, grid, params.threshold, scratch.predicted_mask);
  }
  SubjectScores s;
  score_lesions(truth_mask, grid, params, scratch, s);
  s.brain_voxels =
      brain.empty()
          ? grid.size()
          : static_cast<std::uint64_t>(std::count(brain.begin(), brain.end(), std::uint8_t{1}));
  score_uncertainty(scratch.predicted_mask, truth_mask, uncertainty, brain, grid, params,
                    values_checked, s);
  return s;
}

}  // namespace

SubjectScores score_subject_masks(std::span<const double> probability,
                                  std::span<const std::uint8_t> truth_mask,
                                  std::span<const double> uncertainty,
                                  std::span<const std::uint8_t> brain, Grid3 grid,
                                  const SegmentationParams& params) {
  return score_masks(probability, truth_mask, uncertainty, brain, grid, params, false, false);
}

SubjectScores detail::score_checked_subject(std::span<const double> probability,
                                            std::span<const std::uint8_t> truth_mask,
                                            std::span<const double> uncertainty,
                                            std::span<const std::uint8_t> brain, Grid3 grid,
                                            const SegmentationParams& params, bool thresholded) {
  return score_masks(probability, truth_mask, uncertainty, brain, grid, params, true, thresholded);
}

}  // namespace assay::shift
