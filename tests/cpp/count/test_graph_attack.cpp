// count/graph_attack: the projected-gradient attack finds unsafe points that uniform sampling
// misses, returns only points the forward pass confirms, none where nothing is unsafe, and the
// same point at any thread count. The attack is private (count_unsafe's relu branch and bound
// route calls it), hence the private header.
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "../../../src/count/graph_attack.hpp"
#include "assay/core/rng.hpp"
#include "assay/count/graph.hpp"
#include "random_graph.hpp"

namespace assay::count {
namespace {

// A graph whose output 0 exceeds output 1 only near the corner x = (1, ..., 1) of [0, 1]^20:
// z0 - z1 = relu(s - 19.9) - 0.01 relu(19.9 - s) - 0.05, s = sum x (volume of the set ~1e-25).
Model corner_model() {
  auto g = std::make_shared<GraphNetwork>();
  g->nodes.push_back(graph_input(20));
  std::vector<double> w(40, 1.0);
  for (int i = 20; i < 40; ++i) w[i] = -1.0;
  g->nodes.push_back(graph_linear(0, sparse_from_dense(2, 20, w), {-19.9, 19.9}));
  g->nodes.push_back(graph_activation(GraphOp::relu, 1, 2));
  g->nodes.push_back(graph_linear(2, sparse_from_dense(2, 2, {1.0, -0.01, 0.0, 0.0}), {0.0, 0.05}));
  Model m;
  m.kind = ModelKind::graph;
  m.graph = g;
  m.n_features = 20;
  m.n_outputs = 2;
  m.classes = {"0", "1"};
  return m;
}

VnnRegion corner_region(double constant) {
  VnnRegion r;
  r.lo.assign(20, 0.0);
  r.hi.assign(20, 1.0);
  LinearAtom a;  // Y_1 - Y_0 + constant <= 0
  a.y = {-1.0, 1.0};
  a.x.assign(20, 0.0);
  a.constant = constant;
  r.unsafe.push_back({a});
  return r;
}

TEST(GraphAttack, FindsAPointSamplingMisses) {
  const Model m = corner_model();
  const VnnRegion r = corner_region(0.0);
  Rng rng(1);
  std::vector<double> x(20);
  for (int s = 0; s < 20000; ++s) {
    for (double& v : x) v = rng.uniform();
    const auto y = predict_scores(m, x);
    ASSERT_FALSE(unsafe_at(r, x.data(), y.data()));
  }
  detail::AttackParams ap;
  ap.threads = 1;
  const auto hit = detail::pgd_attack(m, *m.graph, r, {}, ap);
  ASSERT_TRUE(hit.has_value());
  double sum = 0;
  for (const double v : hit->x) sum += v;
  EXPECT_GT(sum, 19.95);
  EXPECT_EQ(hit->y, predict_scores(m, hit->x));
  EXPECT_TRUE(unsafe_at(r, hit->x.data(), hit->y.data()));
  ap.threads = 2;
  const auto again = detail::pgd_attack(m, *m.graph, r, {}, ap);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->x, hit->x);
}

TEST(GraphAttack, NothingWhereNothingIsUnsafe) {
  const Model m = corner_model();
  // With constant 1 the atom Y_1 - Y_0 + 1 <= 0 needs z0 - z1 >= 1, above its largest value on
  // the box (0.05).
  EXPECT_FALSE(detail::pgd_attack(m, *m.graph, corner_region(1.0), {}, {}).has_value());
}

TEST(GraphAttack, StartsFromGivenCornersInsideTheBox) {
  const Model m = corner_model();
  detail::AttackParams ap;
  ap.random_starts = 0;
  ap.steps = 0;  // no steps: only the starts themselves are tried
  EXPECT_FALSE(detail::pgd_attack(m, *m.graph, corner_region(0.0), {}, ap).has_value());
  // A corner outside the box is projected into it.
  const auto hit =
      detail::pgd_attack(m, *m.graph, corner_region(0.0), {std::vector<double>(20, 5.0)}, ap);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->x, std::vector<double>(20, 1.0));
}

TEST(GraphAttack, ConvolutionalNetworksAgreeWithSampling) {
  // Wherever a dense sample finds an unsafe point in a large box, the attack finds one too.
  int found_by_sampling = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    auto g =
        std::make_shared<GraphNetwork>(random_graph(RandomGraphKind::relu_avg_pool_residual, seed));
    Model m;
    m.kind = ModelKind::graph;
    m.graph = g;
    m.n_features = 36;
    m.n_outputs = 3;
    m.classes = {"0", "1", "2"};
    VnnRegion r;
    r.lo.assign(36, 0.0);
    r.hi.assign(36, 1.0);
    for (int j = 1; j < 3; ++j) {  // Y_j >= Y_0
      LinearAtom a;
      a.y = {1.0, 0.0, 0.0};
      a.y[j] = -1.0;
      a.x.assign(36, 0.0);
      r.unsafe.push_back({a});
    }
    Rng rng(seed);
    bool sampled = false;
    std::vector<double> x(36);
    for (int s = 0; s < 2000 && !sampled; ++s) {
      for (double& v : x) v = rng.uniform();
      const auto y = predict_scores(m, x);
      sampled = unsafe_at(r, x.data(), y.data());
    }
    detail::AttackParams ap;
    ap.seed = seed;
    const auto hit = detail::pgd_attack(m, *g, r, {}, ap);
    if (sampled) {
      ++found_by_sampling;
      EXPECT_TRUE(hit.has_value()) << "seed " << seed;
    }
    if (hit) {
      const auto y = predict_scores(m, hit->x);
      EXPECT_TRUE(unsafe_at(r, hit->x.data(), y.data()));
    }
  }
  EXPECT_GE(found_by_sampling, 2);
}

}  // namespace
}  // namespace assay::count
