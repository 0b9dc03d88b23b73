// Rounding-error bounds shared by the dense and the graph bound engines (bounds.cpp,
// graph_bounds*.cpp): with them a bound computed in floating point holds in exact arithmetic.
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>

#include "assay/count/bounds.hpp"

namespace assay::count::detail {

inline constexpr double kUnit = 0x1p-53;
/// Products and sums that underflow lose up to this much each; added per bound, generously.
inline constexpr double kTiny = 1e-290;

/// gamma_n = n u / (1 - n u), made a little larger to cover its own rounding: a floating sum of
/// n products differs from the exact one by at most gamma_n times the sum of |products|.
inline double gamma_n(std::size_t n) {
  const double nu = static_cast<double>(n + 2) * kUnit;
  return nu / (1.0 - nu) * 1.0001;
}

/// c . x + d at the corner of the box lo <= x <= hi that minimises it (`upper`: maximises it),
/// and the bound of that evaluation's rounding (mag[k] >= max |x_k|).
inline std::pair<double, double> box_corner(const double* c, double d, const double* lo,
                                            const double* hi, const double* mag, std::size_t n,
                                            bool upper) {
  double v = d, a = std::abs(d);
  for (std::size_t k = 0; k < n; ++k) {
    v += (c[k] >= 0) == upper ? c[k] * hi[k] : c[k] * lo[k];
    a += std::abs(c[k]) * mag[k];
  }
  return {v, gamma_n(n + 1) * a + kTiny};
}

/// Lower bound of c . x + d over the box, with the rounding of the evaluation subtracted.
inline double box_min(const double* c, double d, const double* lo, const double* hi,
                      const double* mag, std::size_t n) {
  const auto [v, e] = box_corner(c, d, lo, hi, mag, n, false);
  return round_down(v - e);
}

/// Upper bound of c . x + d over the box, with the rounding of the evaluation added.
inline double box_max(const double* c, double d, const double* lo, const double* hi,
                      const double* mag, std::size_t n) {
  const auto [v, e] = box_corner(c, d, lo, hi, mag, n, true);
  return round_up(v + e);
}

}  // namespace assay::count::detail
