// Sound bounds of a graph network (graph.hpp) over an input box, with ReLU phases fixed by
// branch and bound: interval propagation, and linear relaxations back-substituted node by node
// through the sparse affine maps (CROWN), with the lower relaxation slopes of unstable ReLUs
// optimised for the final objectives (alpha-CROWN). Floating-point rounding is accounted for as
// in bounds.cpp: every bound holds for the network evaluated in exact real arithmetic with its
// stored weights.
//
// Objectives are linear in the output node's values z and the inputs x:
//   f(x) = c + sum_j w[j] z_j(x) + sum_i v[i] x_i     (w: n_outputs or empty, v: n_inputs or empty)
//
// What bound() guarantees: for every x in the box whose ReLU inputs satisfy every split (>= 0 for
// active, <= 0 for inactive), lower[q] <= f_q(x) <= upper[q], and node_lower[k][j] <= value of
// node k element j <= node_upper[k][j], in exact arithmetic. infeasible = true only when no such
// x exists (some bound crossed). Method interval: node bounds by interval propagation; linear:
// every linear node that feeds a relu / sigmoid / tanh / max_pool and reads more than the input is
// tightened by CROWN back-substitution (a relu's source only for its unstable elements; two
// lower-slope choices, CROWN's 0/1 and u / (u - l), the better kept), then each objective by
// back-substitution (alpha-optimised when alpha_iterations > 0), intersected with the interval
// bound of the objective. Other nodes (e.g. the output) keep interval bounds.
// Implementation: graph_bounds.cpp (node pass), graph_bounds_crown.cpp (back-substitution,
// alpha), graph_bounds_relax.cpp (relaxations); timing: bench/graph_bounds_driver.cpp.
#pragma once

#include <chrono>
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
  /// (alpha-CROWN); 0 = CROWN's fixed choice (slope 1 when u > -l, else 0). Each objective's
  /// lower bound and its upper bound (the lower bound of -f) get their own slopes (Adam, step
  /// 0.1, from CROWN's choice); the best bound seen is kept, so it is never below CROWN's.
  /// Intermediate (node) bounds are not alpha-optimised. Deterministic.
  int alpha_iterations = 0;
  /// Stop the slope optimisation as soon as every objective's lower bound is > 0 (checked from
  /// CROWN's own bound on): for a caller that only needs to know that, as branch and bound
  /// does. The upper bounds are then less optimised. Default false.
  bool stop_when_positive = false;
  /// Back-substitute (and optimise) the objectives' lower bounds only; their upper bounds then
  /// come from interval propagation alone. Half the work, for a caller that reads only `lower`,
  /// as branch and bound does. Default false.
  bool lower_only = false;
  /// Past this point in time no more back-substitution starts: the slope optimisation stops (the
  /// best bounds so far are kept, never below CROWN's), intermediate bounds not yet
  /// back-substituted and, when it has passed before them, the objectives keep their interval
  /// bounds; all stay sound, only looser. A caller's time limit. Default: none.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  /// Reuse these per-node bounds (a parent's result: node_lower / node_upper of a bound() call on
  /// a box containing this one, with a subset of these splits) instead of back-substituting the
  /// intermediate bounds: each node gets the intersection of the reused bounds and interval
  /// propagation from its (tightened) sources, then the splits. Only the objectives are
  /// back-substituted (the fast path of branch and bound). Null: compute every bound. Both or
  /// neither.
  const std::vector<std::vector<double>>* reuse_lower = nullptr;
  const std::vector<std::vector<double>>* reuse_upper = nullptr;
  /// With reuse: the box is the one the reused bounds were computed on (more splits only, as in
  /// branch and bound over ReLU phases). Nodes whose sources kept their reused bounds keep
  /// theirs without interval propagation: the same result, less work. Default false.
  bool reuse_same_box = false;
};

struct GraphBoundResult {
  std::vector<double> lower, upper;  ///< per objective
  /// The splits contradict the box (some fixed neuron cannot take its phase): the sub-problem is
  /// empty, every objective's bounds are +inf / -inf.
  bool infeasible = false;
  /// Per node: bounds of its values over the box under the splits (what reuse_* takes); for a
  /// relu node's source, the split neurons' bounds already clipped at 0. When infeasible, nodes
  /// not reached hold +inf / -inf.
  std::vector<std::vector<double>> node_lower, node_upper;
  /// Row-major [objective][input]: coefficients of x in the lower bound's linear function (the
  /// corner where the objective is likely smallest: lo_i where positive, else hi_i), from the
  /// best alpha iteration; all zero for the interval method and when infeasible.
  std::vector<double> input_coef;
  /// Per node (empty for non-relu nodes), per neuron: how much splitting this unstable neuron
  /// could raise objective 0's lower bound (0 for stable or already split neurons); branch and
  /// bound splits the largest. Linear method: |lambda_j| * u (-l) / (u - l), lambda_j the
  /// coefficient of the relu's output in objective 0's lower-bound back-substitution (BaBSR-like),
  /// u, l the bounds of its input; interval method (or no objectives): u (-l) / (u - l) alone.
  std::vector<std::vector<double>> relu_score;
};

class GraphBounds {
 public:
  /// Validates g (throws assay::Error as validate(g) does); keeps a reference to g.
  explicit GraphBounds(const GraphNetwork& g);
  const GraphNetwork& graph() const { return g_; }

  /// Bounds of each objective over lo <= x <= hi (finite, lo <= hi) with the ReLU phases of
  /// `splits` imposed (each on a neuron of a relu node). Throws
  /// assay::Error on a wrong-sized box or objective, a split of a non-relu node, mismatched
  /// reuse bounds, alpha_iterations < 0. Thread-safe (all work buffers are local).
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
