// Enumeration: the model and the predicates at every point of a box, in parallel chunks. The
// oracle the other methods are tested against (domains up to a limit, by default 2^32 points).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gmpxx.h>

#include "assay/count/model.hpp"
#include "box.hpp"
#include "checks.hpp"
#include "stage_counts.hpp"

namespace assay::count::detail {

/// The model at a point: returns the label, fills `scores` (and `leaves` for tree models).
std::int32_t model_at(const Model& m, const double* x, std::vector<std::size_t>& leaves,
                      std::vector<double>& scores);

/// Visits every point of a box; `visit(x, out, counters)` adds to its chunk's counters.
using Visit = std::function<void(const double* x, const Outputs& out, std::uint64_t* counters)>;

/// Runs `visit` at every point of `box` (at most `limit` points, else an error) on `threads`
/// workers and returns the sum of the chunks' `n_counters` counters (independent of threads).
std::vector<std::uint64_t> enumerate_box(const Model& m, const Domain& d, const Box& box,
                                         std::uint64_t limit, int threads, std::size_t n_counters,
                                         const Visit& visit, const std::string& task);

/// Exact TP/FP/TN/FN per truth and S/N per safety property of `c` by enumerating the domain (at
/// most `limit` points) on `threads` workers; boxes = the points.
StageCounts enumeration_counts(const Model& m, const Spec& spec, const Checks& c,
                               std::uint64_t limit, int threads);

/// Points of `region` predicted as `label`, by enumeration; adds the points to `points`.
mpz_class enumerated_region_count(const Model& m, const Domain& d, const Box& region,
                                  std::int32_t label, std::uint64_t limit, int threads,
                                  std::uint64_t& points);

}  // namespace assay::count::detail
