// count/hamming: Hamming regions of the .spec language — parsing and its located errors, the
// region as a formula (checked at every point against the distance), its exact size, the
// cardinality constraint of the CNF encoding (counted against binomial sums), the uniform
// sampler (each distance drawn in proportion to its points), and count() by every method
// against a brute-force count over all 2^n points. hamming.hpp and cnf_builder.hpp are private
// to the count layer, so this test includes them directly.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "../../../src/count/cnf_builder.hpp"
#include "../../../src/count/hamming.hpp"
#include "assay/core/error.hpp"
#include "assay/count/counting.hpp"
#include "assay/count/exact_counter.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"
#include "test_util.hpp"

namespace assay::count {
namespace {

using detail::hamming_ball_size;

std::string center_text(const std::vector<int>& c) {
  std::string s;
  for (const int v : c) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}

std::string hamming_spec(const std::vector<int>& center, std::uint64_t k, int label = 1) {
  return "input x[" + std::to_string(center.size()) + "] : bool;\nregion R = hamming([" +
         center_text(center) + "], " + std::to_string(k) + ") label " + std::to_string(label) +
         ";\n";
}

std::vector<double> point(std::uint64_t bits, std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>((bits >> i) & 1);
  return x;
}

std::uint64_t distance(std::uint64_t bits, const std::vector<int>& center) {
  std::uint64_t c = 0;
  for (std::size_t i = 0; i < center.size(); ++i) c |= std::uint64_t(center[i]) << i;
  return static_cast<std::uint64_t>(std::popcount(bits ^ c));
}

TEST(Hamming, BallSizesAreBinomialSums) {
  EXPECT_EQ(hamming_ball_size(16, 0), 1);
  EXPECT_EQ(hamming_ball_size(16, 2), 137);
  EXPECT_EQ(hamming_ball_size(16, 16), 65536);
  EXPECT_EQ(hamming_ball_size(16, 99), 65536);
  EXPECT_EQ(hamming_ball_size(200, 200), mpz_class(1) << 200);
}

TEST(Hamming, TheFormulaHoldsExactlyWithinDistanceK) {
  const std::vector<int> center = {1, 0, 1, 1, 0, 0, 1};
  for (std::uint64_t k = 0; k <= center.size(); ++k) {
    const Spec s = parse_spec(hamming_spec(center, k), "h.spec");
    ASSERT_EQ(s.regions.size(), 1u);
    const RegionSpec& r = s.regions[0];
    EXPECT_EQ(r.metric, RegionSpec::Metric::hamming);
    EXPECT_EQ(r.epsilon, static_cast<double>(k));
    EXPECT_EQ(detail::region_size(s.domain, r), hamming_ball_size(center.size(), k));
    for (std::uint64_t bits = 0; bits < (1u << center.size()); ++bits) {
      const auto x = point(bits, center.size());
      EXPECT_EQ(evaluate(r.within, x.data(), 0, nullptr, 0) != 0, distance(bits, center) <= k)
          << "k " << k << " bits " << bits;
    }
  }
}

TEST(Hamming, ZeroOneIntegerInputsAreBitsToo) {
  const Spec s = parse_spec(
      "input a : int[0, 1];\ninput b : real[0, 1] step 1;\ninput c : bool;\n"
      "region R = hamming([1, 0, 1], 1) label 0;\n",
      "h.spec");
  const RegionSpec& r = s.regions[0];
  for (std::uint64_t bits = 0; bits < 8; ++bits) {
    const auto x = point(bits, 3);
    EXPECT_EQ(evaluate(r.within, x.data(), 0, nullptr, 0) != 0, distance(bits, {1, 0, 1}) <= 1);
  }
}

TEST(Hamming, ErrorsAreLocated) {
  EXPECT_THROW_MSG(parse_spec("input x[2] : bool;\ninput t : int[0, 3];\n"
                              "region R = hamming([0, 1, 2], 1) label 1;\n",
                              "h.spec"),
                   Error,
                   "h.spec:3:12: expected inputs with the values 0 and 1 for a Hamming region (it "
                   "counts flipped inputs), found input t of domain int[0, 3]; use ball(...) for "
                   "other inputs");
  EXPECT_THROW_MSG(
      parse_spec("input x[3] : bool;\nregion R = hamming([0, 1, 0.5], 1) label 1;\n", "h.spec"),
      Error, "h.spec:2:27: expected 0 or 1 as the center's x[2], found 0.5");
  EXPECT_THROW_MSG(
      parse_spec("input x[3] : bool;\nregion R = hamming([0, 1, 0], -1) label 1;\n", "h.spec"),
      Error,
      "h.spec:2:31: expected a Hamming radius: a whole number of inputs in [0, 3] (the spec "
      "declares 3 inputs), found -1");
  EXPECT_THROW_MSG(
      parse_spec("input x[3] : bool;\nregion R = hamming([0, 1, 0], 1.5) label 1;\n", "h.spec"),
      Error,
      "h.spec:2:31: expected a Hamming radius: a whole number of inputs in [0, 3] (the spec "
      "declares 3 inputs), found 1.5");
  EXPECT_THROW_MSG(
      parse_spec("input x[3] : bool;\nregion R = hamming([0, 1, 0], 4) label 1;\n", "h.spec"),
      Error,
      "h.spec:2:31: expected a Hamming radius: a whole number of inputs in [0, 3] (the spec "
      "declares 3 inputs), found 4");
  EXPECT_THROW_MSG(
      parse_spec("input x[3] : bool;\nregion R = cube([0, 1, 0], 4) label 1;\n", "h.spec"), Error,
      "h.spec:2:12: expected \"ball\" or \"hamming\", found \"cube\"");
}

TEST(Hamming, AtMostKCountsTheBinomialSum) {
  for (std::uint64_t n = 1; n <= 9; ++n) {
    for (std::uint64_t k = 0; k <= n; ++k) {
      detail::CnfBuilder b;
      std::vector<Var> lits;
      for (std::uint64_t i = 0; i < n; ++i) lits.push_back(i % 3 == 1 ? -b.input() : b.input());
      b.assert_true(b.at_most(lits, k));
      const ExactCountResult r = count_exact(b.take(), ExactCountParams{});
      ASSERT_TRUE(r.complete);
      EXPECT_EQ(r.count, hamming_ball_size(n, k)) << "n " << n << " k " << k;
    }
  }
}

TEST(Hamming, SamplerDrawsEachDistanceInProportion) {
  const std::vector<double> center = {1, 0, 0, 1, 1, 0, 1, 0, 0, 0};
  detail::HammingSampler s(center, 3);
  Rng rng(5);
  std::vector<double> x;
  std::vector<int> at(4, 0);
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    s.draw(rng, x);
    int d = 0;
    for (std::size_t j = 0; j < center.size(); ++j) d += x[j] != center[j];
    ASSERT_LE(d, 3);
    ++at[d];
  }
  const double total = 1 + 10 + 45 + 120;  // C(10, j), j <= 3
  const double expect[] = {1 / total, 10 / total, 45 / total, 120 / total};
  for (int d = 0; d <= 3; ++d) EXPECT_NEAR(at[d] / double(n), expect[d], 0.01) << d;
  Rng again(5);
  std::vector<double> y;
  detail::HammingSampler t(center, 3);
  t.draw(again, y);
  Rng first(5);
  detail::HammingSampler u(center, 3);
  std::vector<double> z;
  u.draw(first, z);
  EXPECT_EQ(y, z);  // the same seed, the same points
}

// A tree on 8 boolean inputs: label 1 iff x0 and (x3 or not x5), else 0.
Model small_tree() {
  Model m;
  m.kind = ModelKind::tree;
  m.classification = true;
  m.n_features = 8;
  m.n_outputs = 2;
  m.classes = {"0", "1"};
  Tree t;
  // node 0: x0 <= 0.5 ? 1 : 2; node 2: x3 <= 0.5 ? 3 : 4; node 3: x5 <= 0.5 ? 5 : 6
  t.feature = {0, 0, 3, 5, 0, 0, 0};
  t.threshold = {0.5, 0, 0.5, 0.5, 0, 0, 0};
  t.left = {1, -1, 3, 5, -1, -1, -1};
  t.right = {2, -1, 4, 6, -1, -1, -1};
  t.value = {{0, 0}, {3, 0}, {0, 0}, {0, 0}, {0, 2}, {0, 1}, {4, 0}};
  m.trees = {t};
  return m;
}

TEST(Hamming, CountEqualsBruteForceByEveryMethod) {
  const Model m = small_tree();
  const std::vector<int> center = {1, 1, 0, 0, 1, 1, 0, 1};
  for (std::uint64_t k = 0; k <= center.size(); ++k) {
    const Spec s = parse_spec(hamming_spec(center, k, 1), "h.spec");
    std::uint64_t want = 0;
    for (std::uint64_t bits = 0; bits < 256; ++bits) {
      if (distance(bits, center) <= k && predict_label(m, point(bits, 8)) == 1) ++want;
    }
    for (const CountMethod method : {CountMethod::structural, CountMethod::enumerate,
                                     CountMethod::exact_cnf, CountMethod::approx}) {
      CountParams p;
      p.method = method;
      p.samples = {500};
      const CountResult r = count(m, s, p);
      ASSERT_EQ(r.regions.size(), 1u);
      EXPECT_EQ(r.regions[0].total, hamming_ball_size(8, k));
      if (method == CountMethod::approx && !r.regions[0].guarantee.exact) {
        // Above ApproxMC's threshold: within the factor 1 + 0.8 (a seeded run).
        EXPECT_LE(r.regions[0].count * 5, mpz_class(want * 9)) << "k " << k;
        EXPECT_GE(r.regions[0].count * 9, mpz_class(want * 5)) << "k " << k;
        continue;
      }
      EXPECT_EQ(r.regions[0].count, want) << "k " << k << " " << to_string(method);
      EXPECT_TRUE(r.regions[0].guarantee.exact);
      ASSERT_EQ(r.samples.size(), 1u);
      EXPECT_EQ(r.samples[0].regions.at(0).n, 500u);
    }
  }
}

}  // namespace
}  // namespace assay::count
