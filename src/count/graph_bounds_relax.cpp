// Sound linear relaxations of ReLU, sigmoid and tanh (see graph_bounds_relax.hpp).
//
// Sigmoid and tanh are convex for z <= 0 and concave for z >= 0. For a slope s, g(z) = f(z) - s z
// has the same shape, so over a convex piece its maximum is at an end point and its minimum is
// bounded below by a tangent of g at any point d of the piece (g(z) >= g(d) + g'(d)(z - d)); over
// a concave piece the other way round. Choosing d where f'(d) = s makes g'(d) ~ 0, so the
// tangent term is only the rounding of f'. Values of f are moved outward by a relative 1e-14
// (exp and tanh are accurate to a few ulps) plus kTiny for underflow; f' by a relative 1e-13.
#include "count/graph_bounds_relax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "assay/count/bounds.hpp"

namespace assay::count::detail {

namespace {

constexpr double kValueRel = 1e-14;
constexpr double kSlopeRel = 1e-13;

double floor_of(SCurve f) {
  return f == SCurve::sigmoid ? 0.0 : -1.0;
}

// f'(z), computed without cancellation: sigmoid' = s(z) s(-z), tanh' = 1 / cosh(z)^2.
double s_curve_slope(SCurve f, double z) {
  if (f == SCurve::sigmoid) return s_curve(f, z) * s_curve(f, -z);
  const double c = std::cosh(z);
  return 1.0 / (c * c);
}

double slope_down(SCurve f, double z) {
  const double d = s_curve_slope(f, z);
  return std::max(0.0, round_down(d - (d * kSlopeRel + kTiny)));
}
double slope_up(SCurve f, double z) {
  const double d = s_curve_slope(f, z);
  return round_up(d + (d * kSlopeRel + kTiny));
}

// The point d >= 0 where f'(d) = s (0 when s >= f'(0), +inf when s <= 0); approximate: only
// tightness depends on it.
double critical_point(SCurve f, double s) {
  const double top = f == SCurve::sigmoid ? 0.25 : 1.0;
  if (!(s < top)) return 0.0;
  if (!(s > 0)) return std::numeric_limits<double>::infinity();
  if (f == SCurve::sigmoid) {
    const double r = std::sqrt(1.0 - 4.0 * s);  // s(d) = (1 + r) / 2, 1 - s(d) = 2s / (1 + r)
    return std::log((1.0 + r) * (1.0 + r) / (4.0 * s));
  }
  const double r = std::sqrt(1.0 - s);  // tanh(d) = r, 1 - r = s / (1 + r)
  return 0.5 * std::log((1.0 + r) * (1.0 + r) / s);
}

// Bounds of c * p over c in [c_lo, c_hi], p in [p_lo, p_hi], each product rounded outward.
double product_max(double c_lo, double c_hi, double p_lo, double p_hi) {
  return std::max({round_up(c_lo * p_lo), round_up(c_lo * p_hi), round_up(c_hi * p_lo),
                   round_up(c_hi * p_hi), 0.0});
}
double product_min(double c_lo, double c_hi, double p_lo, double p_hi) {
  return std::min({round_down(c_lo * p_lo), round_down(c_lo * p_hi), round_down(c_hi * p_lo),
                   round_down(c_hi * p_hi), 0.0});
}

// Upper bound of g(z) = f(z) - s z over [a, b] by g's tangent at d (g concave there).
double tangent_max(SCurve f, double s, double d, double a, double b) {
  const double c_lo = round_down(slope_down(f, d) - s), c_hi = round_up(slope_up(f, d) - s);
  const double term = product_max(c_lo, c_hi, round_down(a - d), round_up(b - d));
  return round_up(round_up(s_curve_up(f, d) - round_down(s * d)) + term);
}

// Lower bound of g over [a, b] by g's tangent at d (g convex there).
double tangent_min(SCurve f, double s, double d, double a, double b) {
  const double c_lo = round_down(slope_down(f, d) - s), c_hi = round_up(slope_up(f, d) - s);
  const double term = product_min(c_lo, c_hi, round_down(a - d), round_up(b - d));
  return round_down(round_down(s_curve_down(f, d) - round_up(s * d)) + term);
}

double end_max(SCurve f, double s, double e) {
  return round_up(s_curve_up(f, e) - round_down(s * e));
}
double end_min(SCurve f, double s, double e) {
  return round_down(s_curve_down(f, e) - round_up(s * e));
}

double chord_slope(SCurve f, double l, double u) {
  return (s_curve(f, u) - s_curve(f, l)) / (u - l);
}

// CROWN's upper line when l < 0 < u: the tangent at the smallest d in [0, u] whose line passes
// above (l, f(l)); the chord when even the tangent at u passes below it.
double straddle_upper_slope(SCurve f, double l, double u) {
  const double fl = s_curve(f, l);
  auto above = [&](double d) { return s_curve(f, d) + s_curve_slope(f, d) * (l - d) >= fl; };
  if (!above(u)) return chord_slope(f, l, u);
  double lo = 0.0, hi = u;
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (above(mid) ? hi : lo) = mid;
  }
  return s_curve_slope(f, hi);
}

// Mirror image: the tangent at the largest d in [l, 0] whose line passes below (u, f(u)).
double straddle_lower_slope(SCurve f, double l, double u) {
  const double fu = s_curve(f, u);
  auto below = [&](double d) { return s_curve(f, d) + s_curve_slope(f, d) * (u - d) <= fu; };
  if (!below(l)) return chord_slope(f, l, u);
  double lo = l, hi = 0.0;
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (below(mid) ? lo : hi) = mid;
  }
  return s_curve_slope(f, lo);
}

double usable_slope(double s) {
  return std::isfinite(s) && s > 0 ? s : 0.0;
}

}  // namespace

Line relu_upper_line(double l, double u) {
  double s = u / (u - l);
  if (!(s >= 0)) s = 0;
  if (s > 1) s = 1;
  const double t1 = -round_down(s * l);               // >= -s l
  const double t2 = round_up(u - round_down(s * u));  // >= u - s u
  return {s, std::max(t1, t2)};
}

double s_curve(SCurve f, double z) {
  return f == SCurve::sigmoid ? 1.0 / (1.0 + std::exp(-z)) : std::tanh(z);
}

double s_curve_down(SCurve f, double z) {
  const double v = s_curve(f, z);
  return std::max(floor_of(f), round_down(v - (std::abs(v) * kValueRel + kTiny)));
}

double s_curve_up(SCurve f, double z) {
  const double v = s_curve(f, z);
  return std::min(1.0, round_up(v + (std::abs(v) * kValueRel + kTiny)));
}

double s_curve_upper_intercept(SCurve f, double s, double l, double u) {
  double t = -std::numeric_limits<double>::infinity();
  if (l <= 0) t = std::max({t, end_max(f, s, l), end_max(f, s, std::min(u, 0.0))});
  if (u >= 0) {
    const double a = std::max(l, 0.0);
    const double d = std::clamp(critical_point(f, s), a, u);
    t = std::max(t, tangent_max(f, s, d, a, u));
  }
  return t;
}

double s_curve_lower_intercept(SCurve f, double s, double l, double u) {
  double t = std::numeric_limits<double>::infinity();
  if (u >= 0) t = std::min({t, end_min(f, s, std::max(l, 0.0)), end_min(f, s, u)});
  if (l <= 0) {
    const double b = std::min(u, 0.0);
    const double d = std::clamp(-critical_point(f, s), l, b);
    t = std::min(t, tangent_min(f, s, d, l, b));
  }
  return t;
}

void s_curve_lines(SCurve f, double l, double u, Line& lower, Line& upper) {
  if (!(u > l)) {
    lower = {0.0, s_curve_down(f, l)};
    upper = {0.0, s_curve_up(f, u)};
    return;
  }
  const double tangent_mid = s_curve_slope(f, 0.5 * l + 0.5 * u);
  double sl, su;
  if (u <= 0) {
    sl = tangent_mid;
    su = chord_slope(f, l, u);
  } else if (l >= 0) {
    sl = chord_slope(f, l, u);
    su = tangent_mid;
  } else {
    sl = straddle_lower_slope(f, l, u);
    su = straddle_upper_slope(f, l, u);
  }
  sl = usable_slope(sl);
  su = usable_slope(su);
  lower = {sl, s_curve_lower_intercept(f, sl, l, u)};
  upper = {su, s_curve_upper_intercept(f, su, l, u)};
  // A constant is sound too and wins where the slope buys nothing (e.g. far in a flat tail).
  const double c_lo = s_curve_down(f, l), c_hi = s_curve_up(f, u);
  if (sl == 0.0 || !(lower.t > -INFINITY)) lower = {0.0, c_lo};
  if (su == 0.0 || !(upper.t < INFINITY)) upper = {0.0, c_hi};
}

}  // namespace assay::count::detail
