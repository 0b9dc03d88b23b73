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
#include "core/vector_clones.hpp"
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

ASSAY_VECTOR_CLONES bool all_binary(const double* in, std::size_t n) {
  unsigned bad = 0;
  for (std::size_t v = 0; v < n; ++v) bad |= !is_zero_or_one(in[v]);
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

std::vector<std::uint8_t> threshold_probability(std::span<const double> probability, Grid3 grid,
                                                double threshold) {
  detail::check_size(probability.size(), grid, "probability");
  if (!std::isfinite(threshold)) fail("threshold: expected a finite number, found {}", threshold);
  std::vector<std::uint8_t> mask(probability.size());
  const std::uint64_t threshold_bits = threshold > 0 ? detail::bits_of(threshold) : 0;
  constexpr std::size_t kBlock = 4096;
  for (std::size_t begin = 0; begin < probability.size(); begin += kBlock) {
    const std::size_t end = std::min(probability.size(), begin + kBlock);
    if (detail::probability_to_mask(probability.data() + begin, end - begin, threshold_bits,
                                    mask.data() + begin)) {
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
  return mask;
}

VoxelCounts voxel_counts(std::span<const std::uint8_t> prediction,
                         std::span<const std::uint8_t> truth) {
  if (prediction.size() != truth.size()) {
    fail("truth: expected {} voxels like the prediction, found {}", prediction.size(),
         truth.size());
  }
  // Counts of p, g and p & g; branch-free so that it vectorises.
  std::uint64_t predicted = 0, actual = 0, both = 0;
  for (std::size_t v = 0; v < prediction.size(); ++v) {
    const std::uint64_t p = prediction[v] != 0, g = truth[v] != 0;
    predicted += p;
    actual += g;
    both += p & g;
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
  for (std::size_t v = 0; v < pl.size(); ++v) {
    if (pl[v] == 0 || tl[v] == 0) continue;
    const std::uint64_t pair = (std::uint64_t{pl[v]} << 32) | tl[v];
    if (!overlaps.empty() && overlaps.back().pair == pair) {
      ++overlaps.back().voxels;
    } else {
      overlaps.push_back({pair, 1});
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
  if (!uncertainty.empty()) detail::check_size(uncertainty.size(), grid, "uncertainty");
  if (!brain_mask.empty()) detail::check_size(brain_mask.size(), grid, "brain mask");

  auto predicted = threshold_probability(probability, grid, params.threshold);
  const auto truth_mask = binary_mask(truth, grid, "truth");
  std::vector<std::uint8_t> brain;
  if (!brain_mask.empty()) brain = binary_mask(brain_mask, grid, "brain mask");

  SubjectScores s;
  s.n_voxels = grid.size();
  auto predicted_lesions = label_components(predicted, grid, params.connectivity);
  s.removed_lesions =
      detail::drop_small_components(predicted_lesions, predicted, params.min_lesion_size);
  const auto true_lesions = label_components(truth_mask, grid, params.connectivity);

  const auto voxels = voxel_counts(predicted, truth_mask);
  s.voxel_tp = voxels.tp;
  s.voxel_fp = voxels.fp;
  s.voxel_fn = voxels.fn;
  s.dsc = dice(voxels);
  s.ndsc = normalised_dice(voxels, params.ndsc_r);

  const auto lesions = lesion_counts(predicted_lesions, true_lesions, params.iou_threshold);
  s.true_lesions = lesions.true_lesions;
  s.predicted_lesions = lesions.predicted_lesions;
  s.lesion_tp = lesions.tp;
  s.lesion_fp = lesions.fp;
  s.lesion_fn = lesions.fn;
  s.lesion_f1 = lesions.f1;

  s.brain_voxels =
      brain.empty()
          ? grid.size()
          : static_cast<std::uint64_t>(std::count(brain.begin(), brain.end(), std::uint8_t{1}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (uncertainty.empty()) {
    s.ndsc_retention_auc = nan;
    s.mean_uncertainty = nan;
    return s;
  }
  auto retention = ndsc_retention(predicted, truth_mask, uncertainty, brain, grid, params.ndsc_r,
                                  params.retention_points);
  s.ndsc_retention_auc = retention.area;
  s.retention_fraction = std::move(retention.fraction);
  s.retention_ndsc = std::move(retention.ndsc);
  CompensatedSum sum;
  double plain = 0;  // the compensated sum's correction is inf - inf = NaN once a value is inf
  for (std::size_t v = 0; v < uncertainty.size(); ++v) {
    if (brain.empty() || brain[v]) {
      sum.add(uncertainty[v]);
      plain += uncertainty[v];
    }
  }
  const double total = std::isfinite(plain) ? sum.value() : plain;
  s.mean_uncertainty = s.brain_voxels == 0 ? nan : total / static_cast<double>(s.brain_voxels);
  return s;
}

}  // namespace assay::shift
