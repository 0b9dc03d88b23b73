// Exact rescaling of weights: a power of two that brings the largest weight near 1, so products
// of weighted counts (ROC areas, kappa's expected matrix, MCC's covariances) neither overflow
// (weights near 1e300) nor underflow (near 1e-300). Scale-invariant metrics multiply by it;
// being a power of two, it changes no rounding of weights in the normal range.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>

namespace assay::metrics {

/// 2^-e with 2^e <= max |v| < 2^(e+1); 1 for an empty, all-zero or non-finite v.
inline double power_of_two_scale(std::span<const double> v) {
  double top = 0;
  for (double x : v) top = std::max(top, std::abs(x));
  if (!(top > 0) || !std::isfinite(top)) return 1.0;
  return std::ldexp(1.0, -std::ilogb(top));
}

}  // namespace assay::metrics
