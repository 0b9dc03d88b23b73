// The statistical view beside the exact counts: what a test set or a uniform sample of n points
// would have said, with Wilson and Clopper-Pearson intervals (QuantifyML's "Stat" columns).
#pragma once

#include <cstdint>
#include <vector>

#include "assay/count/counting.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"
#include "box.hpp"
#include "checks.hpp"

namespace assay::count::detail {

/// The test set view (when params has one) and one uniform view per sample size. Uniform sample
/// j draws from Rng(seed).split(j); region i's sample j from Rng(seed).split(1000003 (i+1) + j).
std::vector<SampleView> sample_views(const Model& m, const Spec& spec, const Checks& c,
                                     const CountParams& params);

/// For each size n: n points drawn uniformly from `box` (stream Rng(seed).split(j) for the j-th
/// size), the share predicted as `label`. Each sample stops early after time_limit seconds (0 =
/// none) or on an interrupt, with a warning; its proportion then counts the points drawn.
std::vector<Proportion> region_samples(const Model& m, const Domain& d, const Box& box,
                                       std::int32_t label, const std::vector<std::size_t>& sizes,
                                       std::uint64_t seed, double confidence, double time_limit);

}  // namespace assay::count::detail
