// The statistical view beside the exact counts: what a test set or a uniform sample of n points
// would have said, with Wilson and Clopper-Pearson intervals (QuantifyML's "Stat" columns).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "assay/count/count_result.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"
#include "box.hpp"
#include "checks.hpp"

namespace assay::count::detail {

/// What the statistical view draws: one uniform sample per size, from `seed`, with intervals at
/// `confidence`; each sample stops early after time_limit seconds (0 = none) or on an interrupt,
/// with a warning, and then counts the points drawn.
struct SampleParams {
  std::vector<std::size_t> sizes;
  std::uint64_t seed = 0;
  double confidence = 0.95;
  double time_limit = 0.0;
};

/// A test set: row-major n x n_features values and one true label index per row (empty: none).
struct TestSet {
  std::span<const double> x;
  std::span<const std::int32_t> y;
};

/// The test set view (when there is one) and one uniform view per sample size. Uniform sample
/// j draws from Rng(seed).split(j); region i's sample j from Rng(seed).split(1000003 (i+1) + j).
std::vector<SampleView> sample_views(const Model& m, const Spec& spec, const Checks& c,
                                     const TestSet& test, const SampleParams& params);

/// For each size n: n points drawn uniformly from `box` (stream Rng(seed).split(j) for the j-th
/// size), the share predicted as `label`.
std::vector<Proportion> region_samples(const Model& m, const Domain& d, const Box& box,
                                       std::int32_t label, const SampleParams& params);

}  // namespace assay::count::detail
