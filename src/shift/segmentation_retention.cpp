// The nDSC retention curve of one subject (Shifts' ndsc_aac_metric / ndsc_retention_curve).
//
// At fraction x the pos = floor(N x) most certain voxels keep the prediction and the others take
// the truth, so only voxels where prediction or truth is 1 ("lesion-related", a small minority)
// change the counts. The N uncertainty keys are not sorted: for each cut, the key K of the last
// retained voxel, the next key, and how many keys are below K come from KeyRanks (the keys at
// ~400 ranks by histograms, core/order_statistics.hpp), which is what a stable sort of all N
// would give; the lesion-related voxels, sorted by key and counted cumulatively, then give the
// retained TP / FP / FN directly. Only when cuts split runs of equal uncertainties that hold
// lesion-related voxels does one more scan (for all such runs) find their ranks within their
// run (ties keep memory order: a stable sort).
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/order_statistics.hpp"
#include "assay/core/radix_sort.hpp"
#include "assay/shift/segmentation.hpp"
#include "shift/segmentation_detail.hpp"

namespace assay::shift {

namespace detail {

namespace {
thread_local ScoringScratch* lent_scratch = nullptr;
}  // namespace

LendScoringScratch::LendScoringScratch(ScoringScratch& scratch) : previous_(lent_scratch) {
  lent_scratch = &scratch;
}

LendScoringScratch::~LendScoringScratch() {
  lent_scratch = previous_;
}

ScoringScratch* lent_scoring_scratch() {
  return lent_scratch;
}

}  // namespace detail

namespace {

struct LesionVoxel {
  std::uint64_t key;      // ascending_key(uncertainty)
  std::uint32_t ordinal;  // position among the considered voxels, in memory order
  std::uint8_t prediction, truth;
};

// Each cut: the lesion-related voxels retained, or, when the cut splits a run of equal keys
// holding some, that run [lo, hi) and how many of the run's voxels are retained.
struct Cut {
  double fraction = 0;
  std::size_t retained = 0, lo = 0, hi = 0, equal_retained = 0;
  bool split = false;
};

bool less_key(const LesionVoxel& a, std::uint64_t k) {
  return a.key < k;
}

// Sizes and parameters; the uncertainties' values too unless the caller checked them.
void check_retention_input(std::span<const std::uint8_t> prediction,
                           std::span<const std::uint8_t> truth, std::span<const double> uncertainty,
                           std::span<const std::uint8_t> brain_mask, Grid3 grid, double r,
                           std::size_t points, bool values_checked) {
  detail::check_size(prediction.size(), grid, "prediction");
  detail::check_size(truth.size(), grid, "truth");
  detail::check_size(uncertainty.size(), grid, "uncertainty");
  if (!brain_mask.empty()) detail::check_size(brain_mask.size(), grid, "brain mask");
  if (!(r > 0 && r < 1)) fail("r: expected a value in (0, 1), found {}", r);
  if (points < 2) fail("retention points: expected at least 2, found {}", points);
  if (points > kMaxRetentionPoints) {
    // Each point is a cut of the sorted voxels with tables of its own, sized before any check.
    fail("retention points: expected at most {} (Shifts uses 200), found {}", kMaxRetentionPoints,
         points);
  }
  if (values_checked || detail::none_nan(uncertainty.data(), uncertainty.size())) return;
  for (std::size_t v = 0; v < uncertainty.size(); ++v) {
    if (std::isnan(uncertainty[v])) {
      fail("uncertainty: expected a number at voxel {}, found nan", voxel_name(grid, v));
    }
  }
}

// Writes the considered voxels' keys into keys[0, n) in memory order, with KeyRanks' histogram
// of their top bits, and returns the lesion-related voxels sorted by key (stable: ties in
// memory order); counts the true voxels and, with kSum, adds up the uncertainties (in locals:
// through memory, the sum's chain would wait on a store and a load every voxel).
template <bool kSum>
std::vector<LesionVoxel> lesion_voxels(std::span<const std::uint8_t> prediction,
                                       std::span<const std::uint8_t> truth,
                                       std::span<const double> uncertainty,
                                       std::span<const std::uint8_t> brain_mask,
                                       std::span<std::uint64_t> keys,
                                       std::vector<std::size_t>& top_counts,
                                       std::uint64_t& true_voxels, detail::UncertaintySum& sum) {
  const bool all = brain_mask.empty();
  const std::size_t total = uncertainty.size();
  std::vector<LesionVoxel> lesion;
  true_voxels = 0;
  std::size_t ordinal = 0;
  CompensatedSum compensated = sum.compensated;
  double plain = sum.plain;
  // Neighbouring voxels' keys often share a bucket: four interleaved histograms keep their
  // increments from waiting on each other (a store-to-load chain); only touched lines are cached.
  constexpr std::size_t kTop = assay::detail::KeyRanks::kTopBuckets;
  std::vector<std::size_t> counts(4 * kTop, 0);
  for (std::size_t block = 0; block < total; block += detail::kSparseBlock) {
    const std::size_t end = std::min(total, block + detail::kSparseBlock);
    if (!all && !detail::any_nonzero(brain_mask.data() + block, end - block)) continue;
    for (std::size_t v = block; v < end; ++v) {
      if (!all && !brain_mask[v]) continue;
      const std::uint64_t key = assay::detail::ascending_key(uncertainty[v]);
      keys[ordinal] = key;
      ++counts[(ordinal & 3) * kTop + assay::detail::KeyRanks::top_bucket(key)];
      if constexpr (kSum) {
        compensated.add(uncertainty[v]);
        plain += uncertainty[v];
      }
      const std::uint8_t p = prediction[v] != 0, g = truth[v] != 0;
      if (p | g) lesion.push_back({key, static_cast<std::uint32_t>(ordinal), p, g});
      true_voxels += g;
      ++ordinal;
    }
  }
  sum = {compensated, plain};
  for (std::size_t b = 0; b < kTop; ++b) {
    top_counts[b] = counts[b] + counts[kTop + b] + counts[2 * kTop + b] + counts[3 * kTop + b];
  }
  std::stable_sort(lesion.begin(), lesion.end(),
                   [](const LesionVoxel& a, const LesionVoxel& b) { return a.key < b.key; });
  return lesion;
}

// The cuts at fractions log(i) / log(points), i = 1..points; collects the keys of the runs they
// split.
std::vector<Cut> retention_cuts(std::span<const std::uint64_t> keys,
                                std::vector<std::size_t> top_counts,
                                const std::vector<LesionVoxel>& lesion, std::size_t points,
                                std::vector<std::uint64_t>& split_keys) {
  const std::size_t n = keys.size();
  std::vector<Cut> cuts(points);
  std::vector<std::size_t> pos(points), ranks;
  const double log_points = std::log(static_cast<double>(points));
  for (std::size_t i = 1; i <= points; ++i) {
    cuts[i - 1].fraction = std::log(static_cast<double>(i)) / log_points;
    pos[i - 1] = static_cast<std::size_t>(static_cast<double>(n) * cuts[i - 1].fraction);
    if (pos[i - 1] > 0 && pos[i - 1] < n) {
      ranks.push_back(pos[i - 1] - 1);
      ranks.push_back(pos[i - 1]);
    }
  }
  const assay::detail::KeyRanks sorted(keys, std::move(ranks), std::move(top_counts));
  const auto key_greater = [](std::uint64_t k, const LesionVoxel& a) { return k < a.key; };
  for (std::size_t i = 0; i < points; ++i) {
    Cut& cut = cuts[i];
    if (pos[i] >= n) {
      cut.retained = lesion.size();
    } else if (pos[i] > 0) {
      const std::uint64_t key = sorted.key_at(pos[i] - 1);
      cut.lo = static_cast<std::size_t>(
          std::lower_bound(lesion.begin(), lesion.end(), key, less_key) - lesion.begin());
      cut.hi = static_cast<std::size_t>(
          std::upper_bound(lesion.begin() + cut.lo, lesion.end(), key, key_greater) -
          lesion.begin());
      cut.retained = cut.hi;
      cut.split = sorted.key_at(pos[i]) == key && cut.hi > cut.lo;
      cut.equal_retained = pos[i] - sorted.count_less(key);
      if (cut.split) split_keys.push_back(key);
    }
  }
  return cuts;
}

// Ranks of the lesion-related voxels of the split runs within their run (memory order): one
// scan of the considered voxels for all split runs together.
std::vector<std::uint64_t> tie_ranks(const std::vector<LesionVoxel>& lesion,
                                     std::vector<std::uint64_t>& split_keys,
                                     std::span<const double> uncertainty,
                                     std::span<const std::uint8_t> brain_mask) {
  std::vector<std::uint64_t> tie_rank(lesion.size(), 0);
  if (split_keys.empty()) return tie_rank;
  const bool all = brain_mask.empty();
  const std::size_t total = uncertainty.size();
  std::sort(split_keys.begin(), split_keys.end());
  split_keys.erase(std::unique(split_keys.begin(), split_keys.end()), split_keys.end());
  std::vector<std::uint64_t> run_count(split_keys.size(), 0);
  std::vector<std::size_t> next(split_keys.size());  // next lesion voxel of each run
  for (std::size_t q = 0; q < split_keys.size(); ++q) {
    next[q] = static_cast<std::size_t>(
        std::lower_bound(lesion.begin(), lesion.end(), split_keys[q], less_key) - lesion.begin());
  }
  const std::uint64_t min_key = split_keys.front(), max_key = split_keys.back();
  std::size_t ordinal = 0;
  for (std::size_t v = 0; v < total; ++v) {
    if (!all && !brain_mask[v]) continue;
    const std::uint64_t key = assay::detail::ascending_key(uncertainty[v]);
    if (key >= min_key && key <= max_key) {
      const auto it = std::lower_bound(split_keys.begin(), split_keys.end(), key);
      if (*it == key) {
        const auto q = static_cast<std::size_t>(it - split_keys.begin());
        std::size_t& t = next[q];
        if (t < lesion.size() && lesion[t].ordinal == ordinal) tie_rank[t++] = run_count[q];
        ++run_count[q];
      }
    }
    ++ordinal;
  }
  return tie_rank;
}

// The nDSC at each cut and 1 - the area under the curve.
NdscRetention retention_curve(const std::vector<LesionVoxel>& lesion, const std::vector<Cut>& cuts,
                              const std::vector<std::uint64_t>& tie_rank, std::size_t n,
                              std::uint64_t true_voxels, double r) {
  // Cumulative retained counts over the sorted lesion-related voxels: [m] = first m of them.
  std::vector<std::uint64_t> cum_tp(lesion.size() + 1, 0), cum_fp(lesion.size() + 1, 0),
      cum_fn(lesion.size() + 1, 0);
  for (std::size_t m = 0; m < lesion.size(); ++m) {
    cum_tp[m + 1] = cum_tp[m] + (lesion[m].prediction & lesion[m].truth);
    cum_fp[m + 1] = cum_fp[m] + (lesion[m].prediction & (lesion[m].truth ^ 1));
    cum_fn[m + 1] = cum_fn[m] + ((lesion[m].prediction ^ 1) & lesion[m].truth);
  }
  const std::size_t points = cuts.size();
  NdscRetention out;
  out.n_voxels = n;
  out.fraction.resize(points);
  out.ndsc.resize(points);
  for (std::size_t i = 0; i < points; ++i) {
    const Cut& cut = cuts[i];
    std::size_t retained = cut.retained;  // lesion-related voxels among the pos most certain
    if (cut.split) {
      // Ranks increase along the run: the retained ones are a prefix.
      retained = static_cast<std::size_t>(
          std::partition_point(tie_rank.begin() + static_cast<std::ptrdiff_t>(cut.lo),
                               tie_rank.begin() + static_cast<std::ptrdiff_t>(cut.hi),
                               [&](std::uint64_t rank) { return rank < cut.equal_retained; }) -
          tie_rank.begin());
    }
    const std::uint64_t tp = cum_tp[retained], fp = cum_fp[retained], fn = cum_fn[retained];
    // Retained part: prediction; the rest: truth (its lesion voxels count as TP).
    const VoxelCounts counts{n, tp + (true_voxels - tp - fn), fp, fn};
    out.fraction[i] = cut.fraction;
    out.ndsc[i] = normalised_dice(counts, r);
  }
  // 1 - trapezoid area (sklearn.metrics.auc = numpy.trapz).
  double area = 0;
  for (std::size_t i = 0; i + 1 < points; ++i) {
    area += (out.fraction[i + 1] - out.fraction[i]) * (out.ndsc[i + 1] + out.ndsc[i]) / 2.0;
  }
  out.area = 1.0 - area;
  return out;
}

}  // namespace

namespace {

NdscRetention retention(std::span<const std::uint8_t> prediction,
                        std::span<const std::uint8_t> truth, std::span<const double> uncertainty,
                        std::span<const std::uint8_t> brain_mask, Grid3 grid, double r,
                        std::size_t points, detail::UncertaintySum* sum, bool values_checked) {
  check_retention_input(prediction, truth, uncertainty, brain_mask, grid, r, points,
                        values_checked);
  const std::size_t total = grid.size();
  std::size_t n = 0;
  if (brain_mask.empty()) {
    n = total;
  } else {
    for (std::size_t v = 0; v < total; ++v) n += brain_mask[v] != 0;
  }
  std::optional<assay::detail::KeyArray> own_keys;
  assay::detail::KeyArray& keys =
      detail::lent_scratch != nullptr ? detail::lent_scratch->keys(n) : own_keys.emplace(n);
  std::uint64_t true_voxels = 0;
  const std::span<std::uint64_t> key_span(keys.get(), n);
  std::vector<std::size_t> top_counts(assay::detail::KeyRanks::kTopBuckets, 0);
  detail::UncertaintySum unused;
  const auto lesion = sum != nullptr
                          ? lesion_voxels<true>(prediction, truth, uncertainty, brain_mask,
                                                key_span, top_counts, true_voxels, *sum)
                          : lesion_voxels<false>(prediction, truth, uncertainty, brain_mask,
                                                 key_span, top_counts, true_voxels, unused);
  std::vector<std::uint64_t> split_keys;
  const auto cuts = retention_cuts(key_span, std::move(top_counts), lesion, points, split_keys);
  const auto tie_rank = tie_ranks(lesion, split_keys, uncertainty, brain_mask);
  return retention_curve(lesion, cuts, tie_rank, n, true_voxels, r);
}

}  // namespace

NdscRetention ndsc_retention(std::span<const std::uint8_t> prediction,
                             std::span<const std::uint8_t> truth,
                             std::span<const double> uncertainty,
                             std::span<const std::uint8_t> brain_mask, Grid3 grid, double r,
                             std::size_t points) {
  return retention(prediction, truth, uncertainty, brain_mask, grid, r, points, nullptr, false);
}

namespace detail {

NdscRetention ndsc_retention_summing(std::span<const std::uint8_t> prediction,
                                     std::span<const std::uint8_t> truth,
                                     std::span<const double> uncertainty,
                                     std::span<const std::uint8_t> brain_mask, Grid3 grid, double r,
                                     std::size_t points, UncertaintySum& sum, bool values_checked) {
  return retention(prediction, truth, uncertainty, brain_mask, grid, r, points, &sum,
                   values_checked);
}

}  // namespace detail

}  // namespace assay::shift
