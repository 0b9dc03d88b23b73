// The two halves of compare(): prepare() checks the input and decides the task, metrics, pairs
// and groups; run() computes every number of the result.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "assay/compare/compare.hpp"
#include "compare/model_metrics.hpp"

namespace assay::compare::detail {

/// The whole data (column "" and no index) or one slice (its examples, ascending).
struct Group {
  std::string column;
  std::string value;
  std::vector<std::uint32_t> index;
};

struct Problem {
  ProblemShape shape;
  std::size_t n = 0;
  std::vector<bool> probabilities;  ///< per model
  std::vector<std::string> metrics;
  std::vector<bool> higher_is_better;
  std::size_t baseline = 0;
  /// (model, baseline) index pairs: the difference is model - baseline.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::vector<Group> groups;  ///< groups[0] is the whole data
};

Problem prepare(CompareInput& input, const CompareParams& params);
CompareResult run(const Problem& problem, const CompareInput& input, const CompareParams& params);

}  // namespace assay::compare::detail
