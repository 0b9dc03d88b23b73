// count()'s method "split" on a .spec domain (a grid): every truth, safety property and region
// of a Checks counted by domain splitting with network bounds (domain_split.hpp), exact when
// every piece is decided, certified bounds otherwise.
#pragma once

#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"
#include "checks.hpp"
#include "stage_counts.hpp"

namespace assay::count {
struct SplitParams;  // domain_split.hpp
}

namespace assay::count::detail {

/// The counts of `c` by splitting, within params' time_limit, max_boxes, max_memory and threads;
/// pieces of at most params.enumerate_limit points are enumerated. boxes = the pieces bounded.
StageCounts split_counts(const Model& m, const Spec& spec, const Checks& c,
                         const SplitParams& params);

}  // namespace assay::count::detail
