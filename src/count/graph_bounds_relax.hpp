// The building blocks of graph_bounds (rounding bounds: outward_rounding.hpp): sound
// linear relaxations of ReLU, sigmoid and tanh over an interval. "Sound" means in exact real
// arithmetic: a line returned as a lower bound lies below the exact function at every real z of
// [l, u], whatever the rounding of exp, tanh and the line's own arithmetic.
#pragma once

#include <cstddef>

#include "outward_rounding.hpp"

namespace assay::count::detail {

/// A line s z + t.
struct Line {
  double s = 0.0, t = 0.0;
};

/// The ReLU's upper line over [l, u] with l < 0 < u: relu(z) <= s z + t (s = u / (u - l)).
Line relu_upper_line(double l, double u);

enum class SCurve { sigmoid, tanh };

/// The function as computed (no margin), and bounds of the exact function's value at z.
double s_curve(SCurve f, double z);
double s_curve_down(SCurve f, double z);
double s_curve_up(SCurve f, double z);

/// For a given slope s >= 0: t with f(z) - s z <= t (upper) or >= t (lower) for every z in
/// [l, u]. Uses only the shape of f (convex for z <= 0, concave for z >= 0), so any slope gives
/// a sound line; the slope only decides how tight it is.
double s_curve_upper_intercept(SCurve f, double s, double l, double u);
double s_curve_lower_intercept(SCurve f, double s, double l, double u);

/// Lines lower.s z + lower.t <= f(z) <= upper.s z + upper.t over [l, u] (l <= u): the chord on
/// the side where f bends away from it, a tangent on the other, CROWN's tangents through an end
/// point when [l, u] straddles 0; a point interval gets constant lines.
void s_curve_lines(SCurve f, double l, double u, Line& lower, Line& upper);

}  // namespace assay::count::detail
