// Sound bounds of a graph network (graph.hpp) over an input box, with ReLU phases fixed by
// branch and bound: interval propagation, and linear relaxations back-substituted node by node
// through the sparse affine maps (CROWN), with the lower relaxation slopes of unstable ReLUs
// optimised for the final objectives (alpha-CROWN). Floating-point rounding is accounted for as
// in bounds.cpp: every bound holds for the network evaluated in exact real arithmetic with its
// stored weights.
//
// Objectives are linear in the output node's values z and the inputs x:
//   f(x) = c + sum_j w[j] z_j(x) + sum_i v[i] x_i     (w: n_outputs or empty, v: n_inputs or empty)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "assay/count/bounds.hpp"
#include "assay/count/graph.hpp"

namespace assay::count::detail {

struct GraphObjective {
  std::vector<double> w;
  std::vector<double> v;
  double c = 0.0;
};

/// A ReLU phase fixed by branch and bound: neuron `index` of the relu node `node` (its index in
/// GraphNetwork::nodes) has input >= 0 (active) or <= 0 (inactive).
struct ReluSplit {
  std::uint32_t node = 0;
  std::uint32_t index = 0;
  bool active = false;
};

struct GraphBoundParams {
  BoundMethod method = BoundMethod::linear;
  /// Projected-gradient steps on the lower relaxation slopes of unstable ReLUs, per objective
  /// (alpha-CROWN); 0 = CROWN's fixed choice (slope 1 when u > -l, else 0).
  int alpha_iterations = 0;
  /// Reuse these per-node bounds (a parent's result) instead of recomputing the intermediate
  /// bounds; the splits still tighten them. Null: compute every intermediate bound.
  const std::vector<std::vector<double>>* reuse_lower = nullptr;
  const std::vector<std::vector<double>>* reuse_upper = nullptr;
};

struct GraphBoundResult {
  std::vector<double> lower, upper;  ///< per objective
  /// The splits contradict the box (some fixed neuron cannot take its phase): the sub-problem is
  /// empty, every objective's bounds are +inf / -inf.
  bool infeasible = false;
  /// Per node: bounds of its values over the box under the splits (what reuse_* takes).
  std::vector<std::vector<double>> node_lower, node_upper;
  /// Row-major [objective][input]: coefficients of x in the lower bound's linear function (the
  /// corner where the objective is likely smallest: lo_i where positive, else hi_i).
  std::vector<double> input_coef;
  /// Per node (empty for non-relu nodes), per neuron: how much splitting this unstable neuron
  /// could raise objective 0's lower bound (0 for stable or already split neurons); branch and
  /// bound splits the largest.
  std::vector<std::vector<double>> relu_score;
};

class GraphBounds {
 public:
  /// Validates g (throws assay::Error as validate(g) does); keeps a reference to g.
  explicit GraphBounds(const GraphNetwork& g);
  const GraphNetwork& graph() const { return g_; }

  /// Bounds of each objective over lo <= x <= hi (finite, lo <= hi) with the ReLU phases of
  /// `splits` imposed. Thread-safe.
  void bound(std::span<const double> lo, std::span<const double> hi,
             std::span<const GraphObjective> objectives, std::span<const ReluSplit> splits,
             const GraphBoundParams& params, GraphBoundResult& out) const;

 private:
  const GraphNetwork& g_;
  /// Per node: the most terms back-substitution sums into one of its coefficients (+ margin),
  /// for the rounding bound gamma(summands_[k]).
  std::vector<std::size_t> summands_;
};

}  // namespace assay::count::detail
