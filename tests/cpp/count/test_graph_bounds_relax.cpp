// The relaxations of src/count/graph_bounds_relax.cpp under stress: sigmoid and tanh lines over
// adversarial intervals (tiny widths, around 0, far tails up to +-1e6, straddling 0), checked at
// many points in long double (64-bit mantissa, far below the lines' 1e-14 margins), and the ReLU
// upper line.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "assay/core/rng.hpp"
#include "count/graph_bounds_relax.hpp"

namespace assay::count::detail {
namespace {

long double exact(SCurve f, long double z) {
  return f == SCurve::sigmoid ? 1.0L / (1.0L + std::exp(-z)) : std::tanh(z);
}

// Intervals that stress the relaxations.
std::vector<std::pair<double, double>> hard_intervals(Rng& rng) {
  std::vector<std::pair<double, double>> out;
  const double centers[] = {0.0,  1e-300, -1e-300, 1e-12, -1e-8, 0.3,    -0.7, 2.0,
                            -5.0, 17.0,   -30.0,   40.0,  300.0, -800.0, 1e6,  -1e6};
  const double widths[] = {0.0, 1e-300, 1e-15, 1e-12, 1e-9,  1e-6, 1e-3,
                           0.1, 1.0,    3.0,   10.0,  100.0, 1e4,  2e6};
  for (const double c : centers) {
    for (const double w : widths) {
      out.emplace_back(c - w / 2, c + w / 2);
      out.emplace_back(c - w, c);
      out.emplace_back(c, c + w);
    }
  }
  for (int i = 0; i < 2000; ++i) {
    const double a = std::ldexp(rng.normal(), static_cast<int>(rng.below(30)) - 15);
    const double b = a + std::ldexp(rng.uniform(), static_cast<int>(rng.below(40)) - 30);
    out.emplace_back(a, b);
  }
  return out;
}

void check_lines(SCurve f, double l, double u, const Line& lower, const Line& upper) {
  ASSERT_TRUE(std::isfinite(lower.s) && std::isfinite(lower.t)) << l << " " << u;
  ASSERT_TRUE(std::isfinite(upper.s) && std::isfinite(upper.t)) << l << " " << u;
  std::vector<long double> zs = {l, u};
  for (int i = 1; i < 200; ++i) zs.push_back(l + (static_cast<long double>(u) - l) * i / 200.0L);
  for (const long double z : zs) {
    const long double v = exact(f, z);
    EXPECT_LE(lower.s * z + lower.t, v)
        << "lower at " << double(z) << " of [" << l << ", " << u << "]";
    EXPECT_GE(upper.s * z + upper.t, v)
        << "upper at " << double(z) << " of [" << l << ", " << u << "]";
  }
}

TEST(GraphBoundsRelax, SCurveLinesHoldOnHardIntervals) {
  Rng rng(43);
  const auto intervals = hard_intervals(rng);
  for (const SCurve f : {SCurve::sigmoid, SCurve::tanh}) {
    for (const auto& [l, u] : intervals) {
      Line lower, upper;
      s_curve_lines(f, l, u, lower, upper);
      check_lines(f, l, u, lower, upper);
    }
  }
}

TEST(GraphBoundsRelax, AnySlopeGivesASoundIntercept) {
  Rng rng(7);
  for (const SCurve f : {SCurve::sigmoid, SCurve::tanh}) {
    for (int i = 0; i < 3000; ++i) {
      const double l = 6 * rng.normal(), u = l + 4 * rng.uniform();
      const double s = rng.uniform() * (f == SCurve::sigmoid ? 0.3 : 1.2);
      const Line lower{s, s_curve_lower_intercept(f, s, l, u)};
      const Line upper{s, s_curve_upper_intercept(f, s, l, u)};
      check_lines(f, l, u, lower, upper);
    }
  }
}

TEST(GraphBoundsRelax, LinesAreTightOnNarrowIntervals) {
  for (const SCurve f : {SCurve::sigmoid, SCurve::tanh}) {
    for (const double c : {-4.0, -0.5, 0.0, 0.5, 3.0}) {
      const double l = c - 1e-4, u = c + 1e-4;
      Line lower, upper;
      s_curve_lines(f, l, u, lower, upper);
      // The gap between the lines is second order in the width (plus the 1e-14 margins).
      for (const double z : {l, c, u}) {
        EXPECT_LT((upper.s * z + upper.t) - (lower.s * z + lower.t), 1e-8) << c;
      }
    }
  }
  // A straddling interval: the lines improve on the constants at the ends.
  Line lower, upper;
  s_curve_lines(SCurve::tanh, -1.0, 2.0, lower, upper);
  EXPECT_GT(lower.s, 0.0);
  EXPECT_GT(upper.s, 0.0);
  EXPECT_LT(upper.s * -1.0 + upper.t, std::tanh(2.0));
  EXPECT_GT(lower.s * 2.0 + lower.t, std::tanh(-1.0));
}

TEST(GraphBoundsRelax, PointIntervalsGiveConstants) {
  for (const SCurve f : {SCurve::sigmoid, SCurve::tanh}) {
    for (const double z : {-1e6, -3.0, 0.0, 1e-300, 0.25, 1e6}) {
      Line lower, upper;
      s_curve_lines(f, z, z, lower, upper);
      EXPECT_EQ(lower.s, 0.0);
      EXPECT_EQ(upper.s, 0.0);
      EXPECT_LE(lower.t, exact(f, z));
      EXPECT_GE(upper.t, exact(f, z));
      EXPECT_NEAR(lower.t, exact(f, z), 1e-13);
      EXPECT_NEAR(upper.t, exact(f, z), 1e-13);
    }
  }
}

TEST(GraphBoundsRelax, ReluUpperLineHolds) {
  Rng rng(3);
  for (int i = 0; i < 20000; ++i) {
    const double l = -std::ldexp(rng.uniform() + 1e-3, static_cast<int>(rng.below(60)) - 30);
    const double u = std::ldexp(rng.uniform() + 1e-3, static_cast<int>(rng.below(60)) - 30);
    const Line up = relu_upper_line(l, u);
    EXPECT_GE(up.s * static_cast<long double>(l) + up.t, 0.0L);
    EXPECT_GE(up.s * static_cast<long double>(u) + up.t, static_cast<long double>(u));
  }
}

}  // namespace
}  // namespace assay::count::detail
