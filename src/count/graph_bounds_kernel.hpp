// The work of one GraphBounds::bound call (graph_bounds.cpp: node bounds in topological order;
// graph_bounds_crown.cpp: back-substitution, its adjoint and the alpha optimisation).
//
// Back-substitution is batched: B linear functions at once, the coefficients of node k stored as
// lam[k][element * B + column], so every sparse entry updates B contiguous numbers.
//
// Rounding (every bound holds in exact arithmetic for the stored weights): the coefficient of
// element j of node s is a floating sum of at most summands[s] products (its consumers'
// transposed matrix entries times their coefficients, relaxation slopes times coefficients), so
// it differs from the exact sum by at most gamma(summands[s]) times the sum of |products|; over
// the region that moves the bound by at most that times max |value_j| (mag[s][j]), accumulated
// per column in err as the products are made. The constant (beta) is a floating sum of
// beta_terms products, bounded the same way. The input's coefficients are finally bounded over
// the box by box_min with its own rounding.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "count/graph_bounds.hpp"
#include "count/graph_bounds_relax.hpp"

namespace assay::count::detail {

/// Relaxation of one nonlinear node, from its source's bounds.
struct NodeRelax {
  /// relu, sigmoid, tanh: per element, value >= ls z + lt and value <= us z + ut.
  std::vector<double> ls, lt, us, ut;
  /// relu: 1 where the neuron is unstable (and unsplit): its lower slope is free in [0, 1].
  std::vector<std::uint8_t> free_slope;
  /// max_pool: per output, the source element with the largest lower bound, and whether its
  /// lower bound reaches every other element's upper bound (then the output equals it).
  std::vector<std::uint32_t> arg;
  std::vector<std::uint8_t> exact;
};

struct GraphKernel {
  const GraphNetwork& g;
  std::span<const std::size_t> summands;  // per node (GraphBounds::summands_)
  std::span<const double> lo, hi;
  std::vector<std::vector<double>> L, U, mag;
  std::vector<std::vector<std::vector<double>>> row_mag;  // [node][term][row]
  std::vector<NodeRelax> relax;

  // Back-substitution state (one batch of B columns).
  std::size_t B = 0;
  std::vector<std::vector<double>> lam;
  std::vector<char> touched;
  std::vector<double> beta, beta_abs, err;
  std::size_t beta_terms = 0;
  // Per relu node, per element and column: lower slopes (alpha); empty = the default slopes.
  std::vector<std::vector<double>> alpha;
  std::vector<std::vector<double>> adjoint;  // forward adjoint values, like lam
  /// Free ReLU lower slopes equal to the upper line's, u / (u - l) (DeepPoly's forward choice),
  /// instead of CROWN's 0 or 1 (refine tries both: neither is always tighter).
  bool parallel_slopes = false;
  /// Past this, refine() leaves the remaining elements at their interval bounds (sound, looser).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();

  GraphKernel(const GraphNetwork& graph, std::span<const std::size_t> summands_,
              std::span<const double> lo_, std::span<const double> hi_);

  // Node bounds (graph_bounds.cpp).
  void set_mag(std::size_t k);
  void compute_row_mag(std::size_t k);
  void interval_node(std::size_t k);
  void relax_node(std::size_t k);

  // Back-substitution (graph_bounds_crown.cpp).
  /// Sets up a batch of `columns` functions reading node `top`: lam[top] zeroed (the caller
  /// fills it), beta = c, err = 0.
  void start(std::size_t top, std::size_t columns, std::span<const double> c);
  /// Pushes the coefficients from `top` down to the input; v (n_inputs x B, or empty) adds to
  /// the input's coefficients. out[b] = lower bound of column b over the box.
  void back_substitute(std::size_t top, std::span<const double> v, std::vector<double>& out);
  /// Bounds of the elements `which` of linear node k, lower (sign +1) or upper (-1): back-
  /// substituted in batches and intersected with L[k] / U[k]; no new batch past `deadline`.
  void refine(std::size_t k, std::span<const std::uint32_t> which, double sign);
  /// Lower bounds of the objectives' rows (2 per objective: f and -f), alpha-optimised when
  /// iterations > 0; the best bound per row in out, the input coefficients of the lower rows in
  /// input_coef, objective 0's relu scores (when `scores`). Options: stop_when_positive, a batch
  /// stops optimising once all its f rows are > 0; lower_only, the -f rows are not computed
  /// (left at -inf in out).
  struct RowOptions {
    bool stop_when_positive = false;
    bool lower_only = false;
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  };
  void objective_rows(std::span<const GraphObjective> objectives, int iterations,
                      RowOptions options, std::vector<double>& out, std::vector<double>& input_coef,
                      std::vector<std::vector<double>>* scores);

 private:
  double* lam_of(std::size_t k);
  double lower_slope(const NodeRelax& r, std::size_t j) const;
  void through_linear(std::size_t k);
  void through_activation(std::size_t k);
  void through_max_pool(std::size_t k);
  void forward_adjoint(std::size_t top);
  void alpha_gradient_step(int step, std::vector<std::vector<double>>& m1,
                           std::vector<std::vector<double>>& m2);
  void objective_batch(std::span<const GraphObjective> objectives, std::size_t first,
                       std::size_t count, int iterations, RowOptions options,
                       std::vector<double>& out, std::vector<double>& input_coef,
                       std::vector<std::vector<double>>* scores);
  void relu_scores(std::size_t column, std::vector<std::vector<double>>& scores) const;
};

}  // namespace assay::count::detail
