// Graph-network bounds (src/count/graph_bounds*.cpp) checked against plain evaluation: every
// objective and every node value at thousands of random points and box corners lies inside the
// bounds, for interval and linear bounds, with and without ReLU splits (points filtered to the
// split phases), reused intermediate bounds, point boxes, and infeasible splits.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/rng.hpp"
#include "count/graph_bounds.hpp"
#include "count/random_graph.hpp"

namespace assay::count {
namespace {

using detail::GraphBoundParams;
using detail::GraphBoundResult;
using detail::GraphBounds;
using detail::GraphObjective;
using detail::ReluSplit;

const RandomGraphKind kKinds[] = {RandomGraphKind::relu_max_pool,
                                  RandomGraphKind::relu_avg_pool_residual, RandomGraphKind::sigmoid,
                                  RandomGraphKind::tanh};

// Margins z_j - z_0 and one objective with input weights and a constant.
std::vector<GraphObjective> test_objectives(const GraphNetwork& g, Rng& rng) {
  std::vector<GraphObjective> objs;
  for (std::size_t j = 1; j < g.n_outputs(); ++j) {
    GraphObjective o;
    o.w.assign(g.n_outputs(), 0.0);
    o.w[j] = 1.0;
    o.w[0] = -1.0;
    objs.push_back(o);
  }
  GraphObjective o;
  o.w = random_vector(g.n_outputs(), rng, 1.0);
  o.v = random_vector(g.n_inputs(), rng, 0.3);
  o.c = 0.7;
  objs.push_back(o);
  GraphObjective inputs_only;  // no output weights
  inputs_only.v = random_vector(g.n_inputs(), rng, 1.0);
  objs.push_back(inputs_only);
  return objs;
}

double objective_value(const GraphObjective& o, std::span<const double> x,
                       const std::vector<double>& z) {
  double v = o.c;
  for (std::size_t j = 0; j < o.w.size(); ++j) v += o.w[j] * z[j];
  for (std::size_t i = 0; i < o.v.size(); ++i) v += o.v[i] * x[i];
  return v;
}

struct Box {
  std::vector<double> lo, hi;
};

Box random_box(std::size_t n, double eps, Rng& rng) {
  Box b;
  for (std::size_t i = 0; i < n; ++i) {
    const double c = rng.uniform();
    b.lo.push_back(c - eps);
    b.hi.push_back(c + eps);
  }
  return b;
}

// Random points of the box, every third one a corner.
std::vector<std::vector<double>> box_points(const Box& b, std::size_t count, Rng& rng) {
  std::vector<std::vector<double>> pts(count);
  for (std::size_t p = 0; p < count; ++p) {
    for (std::size_t i = 0; i < b.lo.size(); ++i) {
      const double u = rng.uniform();
      pts[p].push_back(p % 3 == 0 ? (u < 0.5 ? b.lo[i] : b.hi[i])
                                  : b.lo[i] + u * (b.hi[i] - b.lo[i]));
    }
  }
  return pts;
}

bool phases_hold(const GraphNetwork& g, const std::vector<std::vector<double>>& values,
                 std::span<const ReluSplit> splits) {
  for (const auto& s : splits) {
    const double z = values[g.nodes[s.node].source][s.index];
    if (s.active ? z < 0 : z > 0) return false;
  }
  return true;
}

// Checks the result at the points where the splits' phases hold; returns how many did.
std::size_t check_sound(const GraphNetwork& g, const Box& b,
                        const std::vector<GraphObjective>& objs, std::span<const ReluSplit> splits,
                        const GraphBoundResult& r, std::size_t count, Rng& rng) {
  std::vector<std::vector<double>> values;
  std::size_t used = 0;
  for (const auto& x : box_points(b, count, rng)) {
    graph_forward_all(g, x, values);
    if (!phases_hold(g, values, splits)) continue;
    ++used;
    EXPECT_FALSE(r.infeasible);
    for (std::size_t q = 0; q < objs.size(); ++q) {
      const double v = objective_value(objs[q], x, values.back());
      EXPECT_LE(r.lower[q], v);
      EXPECT_GE(r.upper[q], v);
    }
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      for (std::size_t j = 0; j < g.nodes[k].size; ++j) {
        EXPECT_LE(r.node_lower[k][j], values[k][j]) << "node " << k << " element " << j;
        EXPECT_GE(r.node_upper[k][j], values[k][j]) << "node " << k << " element " << j;
      }
    }
  }
  return used;
}

GraphBoundParams params_of(BoundMethod method, int alpha = 0) {
  GraphBoundParams p;
  p.method = method;
  p.alpha_iterations = alpha;
  return p;
}

TEST(GraphBounds, SoundAtRandomPointsAndCornersForEveryKindAndMethod) {
  for (const auto kind : kKinds) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const GraphNetwork g = random_graph(kind, seed);
      GraphBounds gb(g);
      Rng rng(seed * 11);
      const auto objs = test_objectives(g, rng);
      const Box b = random_box(g.n_inputs(), 0.15, rng);
      for (const auto& params : {params_of(BoundMethod::interval), params_of(BoundMethod::linear),
                                 params_of(BoundMethod::linear, 10)}) {
        GraphBoundResult r;
        gb.bound(b.lo, b.hi, objs, {}, params, r);
        ASSERT_FALSE(r.infeasible);
        EXPECT_EQ(check_sound(g, b, objs, {}, r, 1500, rng), 1500u);
        ASSERT_EQ(r.input_coef.size(), objs.size() * g.n_inputs());
        ASSERT_EQ(r.relu_score.size(), g.nodes.size());
      }
    }
  }
}

TEST(GraphBounds, LinearIsTighterThanIntervalOnAverage) {
  for (const auto kind : kKinds) {
    double width_interval = 0, width_linear = 0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const GraphNetwork g = random_graph(kind, seed);
      GraphBounds gb(g);
      Rng rng(seed);
      const auto objs = test_objectives(g, rng);
      const Box b = random_box(g.n_inputs(), 0.1, rng);
      GraphBoundResult ri, rl;
      gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::interval), ri);
      gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::linear), rl);
      for (std::size_t q = 0; q < objs.size(); ++q) {
        // The linear bounds are intersected with the interval ones.
        EXPECT_GE(rl.lower[q], ri.lower[q]);
        EXPECT_LE(rl.upper[q], ri.upper[q]);
        width_interval += ri.upper[q] - ri.lower[q];
        width_linear += rl.upper[q] - rl.lower[q];
      }
    }
    EXPECT_LT(width_linear, 0.9 * width_interval) << static_cast<int>(kind);
  }
}

// Unstable ReLU neurons (source bounds straddling 0) of a result, as (node, index).
std::vector<ReluSplit> unstable_neurons(const GraphNetwork& g, const GraphBoundResult& r) {
  std::vector<ReluSplit> out;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    if (g.nodes[k].op != GraphOp::relu) continue;
    const std::size_t s = g.nodes[k].source;
    for (std::size_t j = 0; j < g.nodes[k].size; ++j) {
      if (r.node_lower[s][j] < 0 && r.node_upper[s][j] > 0)
        out.push_back({static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(j), false});
    }
  }
  return out;
}

TEST(GraphBounds, SoundUnderSplitsAtPointsOfTheSplitPhases) {
  std::size_t checked = 0;
  for (const auto kind : {RandomGraphKind::relu_max_pool, RandomGraphKind::relu_avg_pool_residual,
                          RandomGraphKind::sigmoid}) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const GraphNetwork g = random_graph(kind, seed);
      GraphBounds gb(g);
      Rng rng(seed + 100);
      const auto objs = test_objectives(g, rng);
      const Box b = random_box(g.n_inputs(), 0.2, rng);
      GraphBoundResult root;
      gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::linear), root);
      auto unstable = unstable_neurons(g, root);
      ASSERT_GE(unstable.size(), 2u);
      for (int trial = 0; trial < 4; ++trial) {
        std::vector<ReluSplit> splits = {unstable[rng.below(unstable.size())],
                                         unstable[rng.below(unstable.size())]};
        splits[0].active = trial % 2 == 0;
        splits[1].active = trial / 2 == 0;
        if (splits[0].node == splits[1].node && splits[0].index == splits[1].index) {
          splits.pop_back();
        }
        for (const auto& params : {params_of(BoundMethod::interval), params_of(BoundMethod::linear),
                                   params_of(BoundMethod::linear, 5)}) {
          GraphBoundResult r;
          gb.bound(b.lo, b.hi, objs, splits, params, r);
          if (r.infeasible) continue;  // then no point of the box may satisfy the phases
          checked += check_sound(g, b, objs, splits, r, 1200, rng);
          // Split neurons are no longer scored.
          for (const auto& s : splits) EXPECT_EQ(r.relu_score[s.node][s.index], 0.0);
        }
        // Reusing the root's node bounds: sound too.
        GraphBoundParams reuse = params_of(BoundMethod::linear, 3);
        reuse.reuse_lower = &root.node_lower;
        reuse.reuse_upper = &root.node_upper;
        GraphBoundResult r;
        gb.bound(b.lo, b.hi, objs, splits, reuse, r);
        if (!r.infeasible) checked += check_sound(g, b, objs, splits, r, 1200, rng);
      }
    }
  }
  EXPECT_GT(checked, 20000u);
}

TEST(GraphBounds, InfeasibleSplitsAreDetected) {
  const GraphNetwork g = random_graph(RandomGraphKind::relu_max_pool, 5);
  GraphBounds gb(g);
  Rng rng(5);
  const auto objs = test_objectives(g, rng);
  const Box b = random_box(g.n_inputs(), 0.05, rng);
  // A neuron that is inactive over the whole box (by the same method), split active, and the
  // other way round.
  std::size_t found = 0;
  for (const auto method : {BoundMethod::interval, BoundMethod::linear}) {
    GraphBoundResult root;
    gb.bound(b.lo, b.hi, objs, {}, params_of(method), root);
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      if (g.nodes[k].op != GraphOp::relu) continue;
      const std::size_t s = g.nodes[k].source;
      for (std::size_t j = 0; j < g.nodes[k].size; ++j) {
        const bool inactive = root.node_upper[s][j]<0, active = root.node_lower[s][j]> 0;
        if (!inactive && !active) continue;
        const ReluSplit split{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(j),
                              inactive};
        GraphBoundResult r;
        gb.bound(b.lo, b.hi, objs, {&split, 1}, params_of(method), r);
        EXPECT_TRUE(r.infeasible);
        EXPECT_EQ(r.lower[0], INFINITY);
        EXPECT_EQ(r.upper[0], -INFINITY);
        ++found;
      }
    }
  }
  EXPECT_GT(found, 20u);
}

TEST(GraphBounds, PointBoxesGiveTheValue) {
  for (const auto kind : kKinds) {
    const GraphNetwork g = random_graph(kind, 9);
    GraphBounds gb(g);
    Rng rng(9);
    const auto objs = test_objectives(g, rng);
    for (int p = 0; p < 20; ++p) {
      std::vector<double> x(g.n_inputs());
      for (double& v : x) v = rng.uniform();
      const auto z = graph_forward(g, x);
      GraphBoundResult r;
      gb.bound(x, x, objs, {}, params_of(BoundMethod::linear), r);
      for (std::size_t q = 0; q < objs.size(); ++q) {
        const double v = objective_value(objs[q], x, z);
        EXPECT_NEAR(r.lower[q], v, 1e-9);
        EXPECT_NEAR(r.upper[q], v, 1e-9);
        EXPECT_LE(r.lower[q], v);
        EXPECT_GE(r.upper[q], v);
      }
    }
  }
}

TEST(GraphBounds, ReusingItsOwnNodeBoundsChangesNothing) {
  const GraphNetwork g = random_graph(RandomGraphKind::relu_avg_pool_residual, 2);
  GraphBounds gb(g);
  Rng rng(2);
  const auto objs = test_objectives(g, rng);
  const Box b = random_box(g.n_inputs(), 0.1, rng);
  GraphBoundResult r1, r2;
  gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::linear), r1);
  GraphBoundParams p = params_of(BoundMethod::linear);
  p.reuse_lower = &r1.node_lower;
  p.reuse_upper = &r1.node_upper;
  gb.bound(b.lo, b.hi, objs, {}, p, r2);
  EXPECT_EQ(r1.lower, r2.lower);
  EXPECT_EQ(r1.upper, r2.upper);
  EXPECT_EQ(r1.node_lower, r2.node_lower);
}

// A random graph of `kind`, its test objectives and a box of half-width eps, all from `seed`.
struct Setup {
  GraphNetwork g;
  Rng rng;
  std::vector<GraphObjective> objs;
  Box b;
};
Setup setup(RandomGraphKind kind, std::uint64_t seed, double eps) {
  Setup s{random_graph(kind, seed), Rng(seed), {}, {}};
  s.objs = test_objectives(s.g, s.rng);
  s.b = random_box(s.g.n_inputs(), eps, s.rng);
  return s;
}

// Branch and bound only asks whether every lower bound is > 0: the slope optimisation stops
// as soon as that is shown, and otherwise runs exactly as without the flag.
TEST(GraphBounds, StopWhenPositiveStopsOnlyOnceEveryLowerBoundIsPositive) {
  for (const auto kind : kKinds) {
    auto [g, rng, objs, b] = setup(kind, 3, 0.1);
    GraphBounds gb(g);
    GraphBoundResult crown, full, stopped;
    gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::linear), crown);
    // Every objective shifted so that CROWN alone proves it > 0: iteration 0 decides.
    auto shifted = objs;
    for (std::size_t q = 0; q < objs.size(); ++q) shifted[q].c += 1 - crown.lower[q];
    GraphBoundParams stop = params_of(BoundMethod::linear, 10);
    stop.stop_when_positive = true;
    GraphBoundResult crown_shifted;
    gb.bound(b.lo, b.hi, shifted, {}, params_of(BoundMethod::linear), crown_shifted);
    gb.bound(b.lo, b.hi, shifted, {}, stop, stopped);
    gb.bound(b.lo, b.hi, shifted, {}, params_of(BoundMethod::linear, 10), full);
    for (std::size_t q = 0; q < objs.size(); ++q) {
      EXPECT_GT(stopped.lower[q], 0);
      EXPECT_EQ(stopped.lower[q], crown_shifted.lower[q]);  // no slope step taken
      EXPECT_GE(full.lower[q], stopped.lower[q]);
    }
    EXPECT_EQ(check_sound(g, b, shifted, {}, stopped, 600, rng), 600u);
    // Objective 0 below 0 even with optimised slopes: the run never stops early.
    gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::linear, 10), full);
    objs[0].c -= full.lower[0] + 1;
    gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::linear, 10), full);
    gb.bound(b.lo, b.hi, objs, {}, stop, stopped);
    EXPECT_EQ(full.lower, stopped.lower);
    EXPECT_EQ(full.upper, stopped.upper);
  }
}

// Lower bounds only: each row has its own slopes, so the lower bounds are those of the full run,
// and the upper bounds fall back to interval propagation (still sound).
TEST(GraphBounds, LowerOnlyKeepsTheLowerBounds) {
  for (const auto kind : kKinds) {
    auto [g, rng, objs, b] = setup(kind, 4, 0.1);
    GraphBounds gb(g);
    for (const int alpha : {0, 10}) {
      GraphBoundResult full, lower, interval;
      GraphBoundParams p = params_of(BoundMethod::linear, alpha);
      gb.bound(b.lo, b.hi, objs, {}, p, full);
      p.lower_only = true;
      gb.bound(b.lo, b.hi, objs, {}, p, lower);
      gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::interval), interval);
      EXPECT_EQ(full.lower, lower.lower);
      EXPECT_EQ(full.input_coef, lower.input_coef);
      EXPECT_EQ(full.relu_score, lower.relu_score);
      for (std::size_t q = 0; q < objs.size(); ++q) {
        EXPECT_GE(lower.upper[q], full.upper[q]);
        EXPECT_LE(lower.upper[q], interval.upper[q]);
      }
      EXPECT_EQ(check_sound(g, b, objs, {}, lower, 600, rng), 600u);
    }
  }
}

// A child of branch and bound (same box, one more split) reusing its parent's node bounds:
// skipping interval propagation above the split changes nothing.
TEST(GraphBounds, ReuseSameBoxGivesTheSameBounds) {
  for (const auto kind : kKinds) {
    auto [g, rng, objs, b] = setup(kind, 5, 0.15);
    GraphBounds gb(g);
    GraphBoundResult parent;
    gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::linear), parent);
    const auto unstable = unstable_neurons(g, parent);
    for (std::size_t u = 0; u < unstable.size() && u < 6; ++u) {
      for (const bool active : {false, true}) {
        ReluSplit split = unstable[u];
        split.active = active;
        const std::vector<ReluSplit> splits = {split};
        GraphBoundParams p = params_of(BoundMethod::linear, 5);
        p.reuse_lower = &parent.node_lower;
        p.reuse_upper = &parent.node_upper;
        GraphBoundResult plain, same;
        gb.bound(b.lo, b.hi, objs, splits, p, plain);
        p.reuse_same_box = true;
        gb.bound(b.lo, b.hi, objs, splits, p, same);
        EXPECT_EQ(plain.infeasible, same.infeasible);
        EXPECT_EQ(plain.lower, same.lower);
        EXPECT_EQ(plain.upper, same.upper);
        EXPECT_EQ(plain.node_lower, same.node_lower);
        EXPECT_EQ(plain.node_upper, same.node_upper);
      }
    }
  }
}

// A time limit that has passed: no back-substitution starts, so every bound is the interval
// method's (sound, looser).
TEST(GraphBounds, APassedDeadlineGivesSoundLooserBounds) {
  for (const auto kind : kKinds) {
    auto [g, rng, objs, b] = setup(kind, 6, 0.1);
    GraphBounds gb(g);
    GraphBoundParams late = params_of(BoundMethod::linear, 10);
    late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    GraphBoundResult r, interval;
    gb.bound(b.lo, b.hi, objs, {}, late, r);
    gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::interval), interval);
    EXPECT_EQ(r.node_lower, interval.node_lower);
    EXPECT_EQ(r.node_upper, interval.node_upper);
    EXPECT_EQ(r.lower, interval.lower);
    EXPECT_EQ(r.upper, interval.upper);
    EXPECT_EQ(check_sound(g, b, objs, {}, r, 600, rng), 600u);
  }
}

TEST(GraphBounds, ScoresAndInputCoefficients) {
  const GraphNetwork g = random_graph(RandomGraphKind::relu_avg_pool_residual, 4);
  GraphBounds gb(g);
  Rng rng(4);
  const auto objs = test_objectives(g, rng);
  const Box b = random_box(g.n_inputs(), 0.2, rng);
  for (const auto method : {BoundMethod::interval, BoundMethod::linear}) {
    GraphBoundResult r;
    gb.bound(b.lo, b.hi, objs, {}, params_of(method), r);
    std::size_t positive = 0;
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      if (g.nodes[k].op != GraphOp::relu) {
        EXPECT_TRUE(r.relu_score[k].empty());
        continue;
      }
      ASSERT_EQ(r.relu_score[k].size(), g.nodes[k].size);
      const std::size_t s = g.nodes[k].source;
      for (std::size_t j = 0; j < g.nodes[k].size; ++j) {
        const bool unstable = r.node_lower[s][j] < 0 && r.node_upper[s][j] > 0;
        EXPECT_GE(r.relu_score[k][j], 0.0);
        if (!unstable) EXPECT_EQ(r.relu_score[k][j], 0.0);
        positive += r.relu_score[k][j] > 0;
      }
    }
    EXPECT_GT(positive, 0u);
  }
  // The input-only objective's coefficients are its v (nothing else reaches the input).
  GraphBoundResult r;
  gb.bound(b.lo, b.hi, objs, {}, params_of(BoundMethod::linear), r);
  const std::size_t q = objs.size() - 1, n = g.n_inputs();
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(r.input_coef[q * n + i], objs[q].v[i]);
}

TEST(GraphBounds, BadArgumentsAreRefused) {
  const GraphNetwork g = random_graph(RandomGraphKind::relu_max_pool, 1);
  GraphBounds gb(g);
  std::vector<double> lo(g.n_inputs(), 0.0), hi(g.n_inputs(), 1.0);
  GraphBoundResult r;
  const ReluSplit not_relu{1, 0, true};
  EXPECT_THROW(gb.bound(lo, hi, {}, {&not_relu, 1}, {}, r), Error);
  std::vector<double> short_box(3, 0.0);
  EXPECT_THROW(gb.bound(short_box, short_box, {}, {}, {}, r), Error);
  hi[0] = -1.0;
  EXPECT_THROW(gb.bound(lo, hi, {}, {}, {}, r), Error);
}

}  // namespace
}  // namespace assay::count
