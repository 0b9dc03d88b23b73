// Exact rescaling of weighted counts by a power of two (see assay/metrics/scaled_weights.hpp for
// the weights themselves): products of counts near 1e300 neither overflow nor underflow.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "assay/metrics/scaled_weights.hpp"

namespace assay::metrics {

/// 2^-e with 2^e <= max |v| < 2^(e+1), clamped to the doubles' range (a subnormal maximum gets
/// the largest finite power of two, which may leave it below 1); 1 for an empty, all-zero or
/// non-finite v.
inline double power_of_two_scale(std::span<const double> v) {
  double top = 0;
  for (double x : v) top = std::max(top, std::abs(x));
  if (!(top > 0) || !std::isfinite(top)) return 1.0;
  return std::ldexp(1.0, std::min(-std::ilogb(top), 1023));
}

}  // namespace assay::metrics
