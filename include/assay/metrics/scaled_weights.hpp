// Exact rescaling of sample weights: a power of two that brings the largest weight near 1, so
// sums and products of weighted counts (ROC areas, kappa's expected matrix, MCC's covariances, a
// mean's denominator) neither overflow (weights near 1e308) nor lose digits as subnormals
// (weights near 1e-310). Ratios of weighted sums do not change; being a power of two, the
// rescaling changes no rounding of weights in the normal range. Every metric that takes weights
// sums them through this class, so denormal and huge weights give the values of the rescaled
// weights; weighted counts that are returned (confusion matrices, supports, normalize=false) are
// unscaled back and may be inf, as the true sums are.
//
// Example:
//   const ScaledWeights scaled(weights);       // {1e308, 1e308} -> {1.11..., 1.11...}
//   double total = scaled.span()[0] + scaled.span()[1];   // 2.22..., finite
//   double true_total = scaled.unscale(total); // inf, as the unscaled sum is
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace assay::metrics {

/// Sample weights as metrics sum them: a view of the caller's weights, or, when the largest lies
/// outside [2^-64, 2^64] (where n of them could overflow, or subnormal products lose digits), a
/// copy with every weight multiplied by 2^-e (exactly) so the largest lies in [1, 2). Empty and
/// all-zero weights stay as they are. Ratios (precision, AUC, means) computed from span() equal
/// the unscaled ones; sums are factor() times the true sums.
class ScaledWeights {
 public:
  explicit ScaledWeights(std::span<const double> weights) : view_(weights) {
    double top = 0;
    for (double w : weights) top = std::max(top, w);
    if (!(top > 0) || !std::isfinite(top)) return;
    const int e = std::ilogb(top);
    if (e >= -64 && e <= 64) return;
    exponent_ = -e;
    copy_.reserve(weights.size());
    for (double w : weights) copy_.push_back(std::ldexp(w, exponent_));
    view_ = copy_;
  }
  ScaledWeights(const ScaledWeights&) = delete;
  ScaledWeights& operator=(const ScaledWeights&) = delete;

  /// The weights to sum (empty when the caller's were empty).
  std::span<const double> span() const { return view_; }
  /// Whether the weights were rescaled.
  bool rescaled() const { return exponent_ != 0; }
  /// A weighted sum over span() in the caller's units: inf or subnormal where the true sum is.
  double unscale(double sum) const { return std::ldexp(sum, -exponent_); }
  /// In place, for every value of a table of weighted sums.
  void unscale(std::vector<double>& sums) const {
    if (exponent_ == 0) return;
    for (double& s : sums) s = unscale(s);
  }
  /// log2 of the factor applied: span()[i] = weights[i] * 2^exponent().
  int exponent() const { return exponent_; }

 private:
  std::span<const double> view_;
  std::vector<double> copy_;
  int exponent_ = 0;
};

}  // namespace assay::metrics
