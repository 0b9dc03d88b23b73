// Sound bounds of a ReLU network over an input box: interval propagation, and linear relaxations
// (forward symbolic bounds for the hidden neurons, then CROWN-style back-substitution for each
// objective), with floating-point rounding accounted for so that the bounds hold for the network
// evaluated in exact real arithmetic with its stored weights.
//
// Objectives are linear functions of the network's last pre-activation z (the logits; for an
// identity output layer these are the outputs Y) and of the inputs x:
//
//   f(x) = c + sum_j w[j] z_j(x) + sum_i v[i] x_i
//
// Example:
//   NetworkBounds nb(model);                       // relu / identity hidden layers
//   LinearObjective o; o.w = {-1, 1, 0, 0, 0};     // z_1 - z_0
//   BoundResult r; nb.bound(lo, hi, {&o, 1}, BoundMethod::linear, r);
//   // r.lower[0] <= z_1(x) - z_0(x) <= r.upper[0] for every x with lo <= x <= hi
//
// Soundness: the linear method pushes linear relaxations forward and back-substitutes each
// objective (CROWN's per-neuron choice of relaxation); every floating-point sum's rounding error
// is bounded and added outward, so the bounds hold in exact real arithmetic (details: the comment
// at NetworkBounds::bound in src/count/bounds.cpp).
//
// Influence (for choosing where to split a box): per objective and input i, |coefficient of x_i|
// * width_i in the back-substituted lower and upper bounds.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "assay/count/model.hpp"

namespace assay::count {

/// c + sum_j w[j] z_j + sum_i v[i] x_i; w has n_outputs entries (or is empty), v has n_features
/// entries (or is empty).
struct LinearObjective {
  std::vector<double> w;
  std::vector<double> v;
  double c = 0.0;
};

enum class BoundMethod { interval, linear };

/// "linear" or "interval"; anything else throws assay::Error "<name> must be linear or interval,
/// found "x"" (`name`: the option as its caller spells it, e.g. "--bounds" or "method").
BoundMethod parse_bound_method(std::string_view text, std::string_view name);

struct BoundResult {
  std::vector<double> lower, upper;  ///< one per objective
  /// Row-major [objective][input]: |coefficient| * width in the lower and upper bounds (linear
  /// method; the widths for the interval method).
  std::vector<double> influence;
  /// Row-major [objective][input]: the coefficients of x in the lower bound's linear function
  /// (linear method; zero for the interval method): the box corner where the objective is
  /// likely smallest is lo_i where the coefficient is positive, else hi_i.
  std::vector<double> descent;
};

class NetworkBounds {
 public:
  /// Requires a network whose hidden layers are relu or identity (throws assay::Error naming the
  /// first other layer). The output layer's activation is not applied: objectives read z.
  explicit NetworkBounds(const Model& m);

  std::size_t n_inputs() const { return n_inputs_; }
  std::size_t n_outputs() const { return layers_.back().n_out; }
  /// The activation of the output layer (identity, logistic or softmax).
  Activation output_activation() const { return output_activation_; }

  /// Bounds of each objective over the box lo <= x <= hi (lo[i] <= hi[i], finite). Thread-safe.
  void bound(std::span<const double> lo, std::span<const double> hi,
             std::span<const LinearObjective> objectives, BoundMethod method,
             BoundResult& out) const;

  /// Bounds of each output after the output activation (identity, logistic or softmax), from
  /// bounds of each z_j (objective j = output j); outward by a relative 1e-12 for exp's
  /// rounding. influence and descent are those of the z_j.
  void output_bounds(std::span<const double> lo, std::span<const double> hi, BoundMethod method,
                     BoundResult& out) const;

 private:
  struct Dense {
    std::size_t n_in = 0, n_out = 0;
    std::vector<double> w;      // row-major [out][in]
    std::vector<double> w_abs;  // |w|
    std::vector<double> b;
    bool relu = false;  // activation after this layer (hidden layers)
  };
  std::size_t n_inputs_ = 0;
  std::vector<Dense> layers_;  // the last one is the output layer
  Activation output_activation_ = Activation::identity;

  friend struct BoundsKernel;
};

/// Outward rounding helpers (exposed for tests): the next double below / above v.
double round_down(double v);
double round_up(double v);

}  // namespace assay::count
