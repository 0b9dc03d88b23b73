// core/rng: xoshiro256** seeded through SplitMix64 — the exact streams (checked against an
// independent implementation of both algorithms), uniform/below/normal, and split streams.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "assay/core/rng.hpp"

namespace assay {
namespace {

TEST(Rng, SeedZeroGivesTheReferenceXoshiroStream) {
  Rng r(0);
  EXPECT_EQ(r.next(), 0x99ec5f36cb75f2b4ULL);
  EXPECT_EQ(r.next(), 0xbf6e1f784956452aULL);
  EXPECT_EQ(r.next(), 0x1a5f849d4933e6e0ULL);
  Rng d;  // the default seed is 0
  EXPECT_EQ(d.next(), 0x99ec5f36cb75f2b4ULL);
}

TEST(Rng, Seed42GivesItsExactStream) {
  Rng r(42);
  EXPECT_EQ(r.next(), 0x15780b2e0c2ec716ULL);
  EXPECT_EQ(r.next(), 0x6104d9866d113a7eULL);
  EXPECT_EQ(r.next(), 0xae17533239e499a1ULL);
}

TEST(Rng, SameSeedSameStream) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
  }
}

TEST(Rng, UniformUsesTheTop53Bits) {
  Rng r(7);
  EXPECT_EQ(r.uniform(), 0.7005764821796896);
  EXPECT_EQ(r.uniform(), 0.2787512294737843);
  Rng raw(7), u(7);
  for (int i = 0; i < 1000; ++i) {
    const double x = u.uniform();
    EXPECT_EQ(x, static_cast<double>(raw.next() >> 11) * 0x1.0p-53);
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
}

TEST(Rng, BelowGivesItsExactDrawsInRange) {
  Rng r(7);
  std::vector<std::uint64_t> got;
  for (int i = 0; i < 10; ++i) got.push_back(r.below(10));
  EXPECT_EQ(got, (std::vector<std::uint64_t>{7, 2, 8, 9, 9, 8, 0, 1, 4, 1}));
  Rng one(3);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(one.below(1), 0u);
  // Every value of a small range appears, none outside it, roughly equally often.
  Rng d(11);
  std::array<int, 6> seen{};
  for (int i = 0; i < 60000; ++i) {
    const auto k = d.below(6);
    ASSERT_LT(k, 6u);
    ++seen[k];
  }
  for (const int s : seen) {
    EXPECT_GT(s, 9500);
    EXPECT_LT(s, 10500);
  }
  // A range that is not a power of two near 2^64 still lands inside it.
  Rng big(5);
  const std::uint64_t n = (std::uint64_t{1} << 63) + 12345;
  for (int i = 0; i < 1000; ++i) EXPECT_LT(big.below(n), n);
}

TEST(Rng, NormalIsBoxMullerOnTwoUniforms) {
  Rng r(1);
  EXPECT_DOUBLE_EQ(r.normal(), -0.8327414344656707);
  // Each draw uses exactly two uniforms (no cached second value).
  Rng a(9), b(9);
  a.normal();
  b.uniform();
  b.uniform();
  EXPECT_EQ(a.next(), b.next());
  // Mean near 0 and variance near 1 over many draws.
  Rng s(2);
  double sum = 0, sum2 = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double z = s.normal();
    sum += z;
    sum2 += z * z;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  EXPECT_NEAR(sum2 / n, 1.0, 0.02);
}

TEST(Rng, SplitDependsOnlyOnSeedAndIndex) {
  EXPECT_EQ(Rng(5).split(3).next(), 0x08386847508d6de0ULL);
  EXPECT_EQ(Rng(5).split(3).next(), Rng(5).split(3).next());
  EXPECT_NE(Rng(5).split(3).next(), Rng(5).split(4).next());
  EXPECT_NE(Rng(5).split(3).next(), Rng(6).split(3).next());
  // Draws made before split() do not change the split stream.
  Rng used(5);
  for (int i = 0; i < 17; ++i) used.next();
  EXPECT_EQ(used.split(3).next(), 0x08386847508d6de0ULL);
}

}  // namespace
}  // namespace assay
