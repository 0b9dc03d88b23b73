// What one counting stage (enumerate.hpp, structural.hpp, cnf_route.hpp, split_spec.hpp) returns
// for the checks of a Checks; count() folds it into its CountResult.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "assay/count/count_result.hpp"
#include "checks.hpp"

namespace assay::count::detail {

/// Per truth of Checks (in its order) the label's counts, per safety property its counts, per
/// region (stages that count regions) its counts and size; each with its guarantee, and bounds
/// when bounded. count() names the labels and safety properties and derives every rate.
struct StageCounts {
  std::vector<LabelCounts> labels;
  std::vector<SafetyCounts> safety;
  std::vector<RegionCounts> regions;
  std::uint64_t boxes = 0;       ///< structural: decided boxes; enumerate: points; split: pieces
  std::uint64_t cnf_counts = 0;  ///< the CNF routes: formulas counted
  std::uint64_t ambiguous = 0;   ///< the CNF routes: ambiguous inputs settled
};

/// Counts sized for the truths and safety properties of `c`, each exact and obtained by `method`
/// until the stage says otherwise.
inline StageCounts empty_counts(const Checks& c, std::string_view method) {
  StageCounts s;
  s.labels.resize(c.truths.size());
  s.safety.resize(c.safety.size());
  for (auto& l : s.labels) l.guarantee.method = method;
  for (auto& sc : s.safety) sc.guarantee.method = method;
  return s;
}

}  // namespace assay::count::detail
