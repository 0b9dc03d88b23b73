// count/box: boxes of grid indices — the full domain, exact sizes beyond 2^64, L-infinity balls
// clipped to the domain, the first index a split sends right (both split rules, float32
// rounding), and uniform points inside a box. Private to the count layer: the header is included
// directly.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../../../src/count/box.hpp"
#include "assay/core/error.hpp"
#include "assay/core/rng.hpp"
#include "test_util.hpp"

namespace assay::count::detail {
namespace {

using U = std::vector<std::uint64_t>;

VarDomain var(std::string name, double lo, double step, std::uint64_t size) {
  VarDomain v;
  v.name = std::move(name);
  v.type = VarDomain::Type::real;
  v.lo = lo;
  v.step = step;
  v.size = size;
  return v;
}

Domain domain() {
  Domain d;
  d.vars = {var("a", 0, 1, 2), var("b", 0, 1, 4), var("d", 0, 0.25, 9)};
  return d;
}

TEST(Box, FullBoxSpansEveryGridIndex) {
  const Box b = full_box(domain());
  EXPECT_EQ(b.lo, (U{0, 0, 0}));
  EXPECT_EQ(b.hi, (U{1, 3, 8}));
  EXPECT_EQ(box_size(b), 72);
  EXPECT_EQ(initial_size<std::uint64_t>(b), 72u);
  EXPECT_EQ(initial_size<mpz_class>(b), 72);
}

TEST(Box, SizeIsExactBeyondTwoToThe64) {
  Box b;
  for (int v = 0; v < 10; ++v) {
    b.lo.push_back(5);
    b.hi.push_back(5 + (std::uint64_t{1} << 20) - 1);  // width 2^20 each
  }
  EXPECT_EQ(box_size(b), mpz_class(mpz_class(1) << 200));
  Box one;
  one.lo = {3};
  one.hi = {3};
  EXPECT_EQ(box_size(one), 1);
  EXPECT_EQ(box_size(Box{}), 1);  // no inputs: one point
  EXPECT_EQ(to_mpz(std::uint64_t{18446744073709551615ULL}), mpz_class("18446744073709551615"));
}

TEST(Box, RegionIsTheBallClippedToTheDomain) {
  const Domain d = domain();
  const std::vector<double> center{1, 2, 1.0};
  Box r = region_box(d, center, 1);
  EXPECT_EQ(r.lo, (U{0, 1, 0}));  // d: [0, 2] -> indices 0..8
  EXPECT_EQ(r.hi, (U{1, 3, 8}));
  r = region_box(d, center, 0.3);
  EXPECT_EQ(r.lo, (U{1, 2, 3}));  // d: [0.7, 1.3] -> 0.75..1.25 -> indices 3..5
  EXPECT_EQ(r.hi, (U{1, 2, 5}));
  r = region_box(d, center, 0.25);  // a ball edge exactly on a grid point is inside
  EXPECT_EQ(r.lo[2], 3u);
  EXPECT_EQ(r.hi[2], 5u);
  EXPECT_EQ(box_size(region_box(d, center, 0)), 1);
}

TEST(Box, RegionCenterOutsideOrBetweenGridPointsIsNamed) {
  const Domain d = domain();
  EXPECT_THROW_MSG(region_box(d, std::vector<double>{1, 4, 1}, 1), Error,
                   "the center's b = 4 lies outside the domain [0, 3]");
  EXPECT_THROW_MSG(region_box(d, std::vector<double>{1, 2, 1.1}, 0.05), Error,
                   "the region around d = 1.1 with radius 0.05 holds no grid point");
}

TEST(Box, FirstRightIndexFollowsTheSplitRule) {
  Model m;
  const VarDomain v = var("x", 0, 0.5, 7);  // 0, 0.5, ..., 3
  m.split_rule = SplitRule::less_equal;
  EXPECT_EQ(first_right_index(m, v, 1.0), 3u);  // 0, 0.5, 1 go left
  EXPECT_EQ(first_right_index(m, v, 1.2), 3u);
  EXPECT_EQ(first_right_index(m, v, -1), 0u);   // everything goes right
  EXPECT_EQ(first_right_index(m, v, 3.0), 7u);  // nothing goes right
  m.split_rule = SplitRule::less;
  EXPECT_EQ(first_right_index(m, v, 1.0), 2u);  // 1 itself goes right
  EXPECT_EQ(first_right_index(m, v, 0.0), 0u);
}

TEST(Box, FirstRightIndexRoundsToFloat32First) {
  // 0.1 is not a float32: rounded, it is 0.100000001490116..., above the double threshold 0.1.
  Model m;
  m.split_rule = SplitRule::less_equal;
  const VarDomain v = var("x", 0, 0.1, 3);  // 0, 0.1, 0.2
  m.input_float32 = true;
  EXPECT_EQ(first_right_index(m, v, 0.1), 1u);
  m.input_float32 = false;
  EXPECT_EQ(first_right_index(m, v, 0.1), 2u);
}

TEST(Box, RandomPointsAreGridPointsOfTheBox) {
  const Domain d = domain();
  Box b;
  b.lo = {1, 0, 2};
  b.hi = {1, 3, 4};
  Rng rng(3);
  std::vector<int> seen_b(4, 0);
  for (int i = 0; i < 400; ++i) {
    const std::vector<double> x = random_point(d, b, rng);
    ASSERT_EQ(x.size(), 3u);
    EXPECT_EQ(x[0], 1.0);
    ASSERT_GE(x[1], 0.0);
    ASSERT_LE(x[1], 3.0);
    EXPECT_EQ(x[1], std::floor(x[1]));
    ++seen_b[static_cast<std::size_t>(x[1])];
    EXPECT_TRUE(x[2] == 0.5 || x[2] == 0.75 || x[2] == 1.0) << x[2];
  }
  for (const int s : seen_b) EXPECT_GT(s, 50);
  // The same seed draws the same points.
  Rng r1(9), r2(9);
  EXPECT_EQ(random_point(d, b, r1), random_point(d, b, r2));
}

}  // namespace
}  // namespace assay::count::detail
