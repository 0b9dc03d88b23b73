// Back-substitution and alpha optimisation (src/count/graph_bounds_crown.cpp): alpha-CROWN is
// never below CROWN and stays sound; on dense networks the graph bounds match NetworkBounds
// (bounds.cpp); a resnet-sized random graph (resnet_2b's layer sizes) is bounded soundly.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <vector>

#include "assay/core/rng.hpp"
#include "assay/count/onnx.hpp"
#include "count/graph_bounds.hpp"
#include "count/random_graph.hpp"
#include "count/random_net.hpp"
#include "count/random_resnet.hpp"

namespace assay::count {
namespace {

using detail::GraphBoundParams;
using detail::GraphBoundResult;
using detail::GraphBounds;
using detail::GraphObjective;

std::vector<GraphObjective> margins(std::size_t n_outputs, std::size_t label) {
  std::vector<GraphObjective> objs;
  for (std::size_t j = 0; j < n_outputs; ++j) {
    if (j == label) continue;
    GraphObjective o;
    o.w.assign(n_outputs, 0.0);
    o.w[label] = 1.0;
    o.w[j] = -1.0;
    objs.push_back(o);
  }
  return objs;
}

GraphBoundParams linear(int alpha = 0) {
  GraphBoundParams p;
  p.alpha_iterations = alpha;
  return p;
}

TEST(GraphBoundsCrown, AlphaIsNeverBelowCrownAndUsuallyAbove) {
  std::size_t improved = 0, total = 0;
  for (const auto kind : {RandomGraphKind::relu_max_pool, RandomGraphKind::relu_avg_pool_residual,
                          RandomGraphKind::tanh}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const GraphNetwork g = random_graph(kind, seed);
      GraphBounds gb(g);
      Rng rng(seed);
      std::vector<double> lo, hi;
      for (std::size_t i = 0; i < g.n_inputs(); ++i) {
        const double c = rng.uniform();
        lo.push_back(c - 0.2);
        hi.push_back(c + 0.2);
      }
      const auto objs = margins(g.n_outputs(), 0);
      GraphBoundResult crown, alpha;
      gb.bound(lo, hi, objs, {}, linear(), crown);
      gb.bound(lo, hi, objs, {}, linear(20), alpha);
      for (std::size_t q = 0; q < objs.size(); ++q) {
        EXPECT_GE(alpha.lower[q], crown.lower[q]);
        EXPECT_LE(alpha.upper[q], crown.upper[q]);
        improved += alpha.lower[q] > crown.lower[q] + 1e-9;
        ++total;
      }
      // Same seed, same result.
      GraphBoundResult again;
      gb.bound(lo, hi, objs, {}, linear(20), again);
      EXPECT_EQ(again.lower, alpha.lower);
    }
  }
  EXPECT_GT(improved, total / 3) << improved << " of " << total;
}

// On a dense network the graph bounds and NetworkBounds bound the same function; the graph's
// CROWN intermediate bounds are at least as tight as NetworkBounds' forward ones in most cases.
TEST(GraphBoundsCrown, DenseNetworksMatchNetworkBounds) {
  std::size_t looser = 0, total = 0;
  double sum_graph = 0, sum_dense = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Model m = random_net({4, 16, 16, 12, 3}, seed);
    const GraphNetwork g = graph_from_network(m);
    GraphBounds gb(g);
    NetworkBounds nb(m);
    Rng rng(seed);
    std::vector<double> lo, hi;
    for (int i = 0; i < 4; ++i) {
      const double c = rng.normal();
      lo.push_back(c - 0.3);
      hi.push_back(c + 0.3);
    }
    const auto objs = margins(3, seed % 3);
    std::vector<LinearObjective> dense_objs;
    for (const auto& o : objs) dense_objs.push_back({o.w, o.v, o.c});
    GraphBoundResult r;
    gb.bound(lo, hi, objs, {}, linear(), r);
    BoundResult d;
    nb.bound(lo, hi, dense_objs, BoundMethod::linear, d);
    for (std::size_t q = 0; q < objs.size(); ++q) {
      const double margin = 1e-9 * (1 + std::abs(d.lower[q]));
      looser += r.lower[q] < d.lower[q] - margin;
      looser += r.upper[q] > d.upper[q] + margin;
      total += 2;
      sum_graph += r.upper[q] - r.lower[q];
      sum_dense += d.upper[q] - d.lower[q];
    }
    // Every box corner (4 inputs: all 16) inside both.
    for (int c = 0; c < 16; ++c) {
      std::vector<double> x(4);
      for (int i = 0; i < 4; ++i) x[i] = (c >> i) & 1 ? hi[i] : lo[i];
      const auto z = graph_forward(g, x);
      for (std::size_t q = 0; q < objs.size(); ++q) {
        double v = 0;
        for (std::size_t j = 0; j < 3; ++j) v += objs[q].w[j] * z[j];
        EXPECT_LE(r.lower[q], v);
        EXPECT_GE(r.upper[q], v);
      }
    }
  }
  std::printf(
      "dense networks: graph bounds looser than NetworkBounds in %zu of %zu; total width "
      "%.6g (graph) vs %.6g (NetworkBounds)\n",
      looser, total, sum_graph, sum_dense);
  EXPECT_LE(sum_graph, sum_dense * (1 + 1e-9));
  EXPECT_LE(looser, total / 10) << looser << " of " << total;
}

TEST(GraphBoundsCrown, ResnetSizedGraphIsBoundedSoundly) {
  const GraphNetwork g = resnet_like(1);
  GraphBounds gb(g);
  Rng rng(1);
  std::vector<double> x0(g.n_inputs()), lo, hi;
  for (double& v : x0) v = rng.uniform();
  for (const double v : x0) {
    lo.push_back(v - 2.0 / 255);
    hi.push_back(v + 2.0 / 255);
  }
  const auto label = [&] {
    const auto z = graph_forward(g, x0);
    return static_cast<std::size_t>(std::max_element(z.begin(), z.end()) - z.begin());
  }();
  const auto objs = margins(10, label);
  GraphBoundResult r, ri, ra;
  const auto t0 = std::chrono::steady_clock::now();
  gb.bound(lo, hi, objs, {}, linear(), r);
  const auto t1 = std::chrono::steady_clock::now();
  std::printf("resnet-sized graph: one linear bound of 9 margins in %.3f s\n",
              std::chrono::duration<double>(t1 - t0).count());
  GraphBoundParams interval;
  interval.method = BoundMethod::interval;
  gb.bound(lo, hi, objs, {}, interval, ri);
  gb.bound(lo, hi, objs, {}, linear(5), ra);
  std::vector<std::vector<double>> values;
  for (int p = 0; p < 200; ++p) {
    std::vector<double> x(g.n_inputs());
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] =
          p % 2 ? lo[i] + rng.uniform() * (hi[i] - lo[i]) : (rng.uniform() < 0.5 ? lo[i] : hi[i]);
    graph_forward_all(g, x, values);
    for (std::size_t q = 0; q < objs.size(); ++q) {
      const double v = values.back()[label] - values.back()[q < label ? q : q + 1];
      for (const auto* res : {&r, &ri, &ra}) {
        EXPECT_LE(res->lower[q], v);
        EXPECT_GE(res->upper[q], v);
      }
    }
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      for (std::size_t j = 0; j < g.nodes[k].size; ++j) {
        ASSERT_LE(r.node_lower[k][j], values[k][j]);
        ASSERT_GE(r.node_upper[k][j], values[k][j]);
      }
    }
  }
  for (std::size_t q = 0; q < objs.size(); ++q) {
    EXPECT_GE(r.lower[q], ri.lower[q]);
    EXPECT_GE(ra.lower[q], r.lower[q]);
  }
}

TEST(GraphBoundsCrown, MnistNetworkFromVnnComp) {
  const auto path = std::filesystem::path(ASSAY_SOURCE_DIR) / ".." / "shared" / "data" /
                    "vnncomp2021" / "mnistfc" / "mnist-net_256x2.onnx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "VNN-COMP 2021 data not found at " << path;
  const Model m = load_onnx(path.string());
  const GraphNetwork g = graph_from_network(m);
  GraphBounds gb(g);
  NetworkBounds nb(m);
  Rng rng(4);
  std::vector<double> x0(g.n_inputs()), lo, hi;
  for (double& v : x0) v = rng.uniform() < 0.8 ? 0.0 : rng.uniform();
  for (const double v : x0) {
    lo.push_back(std::max(0.0, v - 0.02));
    hi.push_back(std::min(1.0, v + 0.02));
  }
  const auto objs = margins(10, 0);
  GraphBoundResult r, ra;
  gb.bound(lo, hi, objs, {}, linear(), r);
  gb.bound(lo, hi, objs, {}, linear(20), ra);
  std::vector<LinearObjective> dense_objs;
  for (const auto& o : objs) dense_objs.push_back({o.w, o.v, o.c});
  BoundResult d;
  nb.bound(lo, hi, dense_objs, BoundMethod::linear, d);
  double width_graph = 0, width_dense = 0;
  for (std::size_t q = 0; q < objs.size(); ++q) {
    width_graph += r.upper[q] - r.lower[q];
    width_dense += d.upper[q] - d.lower[q];
    EXPECT_GE(ra.lower[q], r.lower[q]);
  }
  EXPECT_LE(width_graph, width_dense * (1 + 1e-9));
  for (int p = 0; p < 300; ++p) {
    std::vector<double> x(g.n_inputs());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = lo[i] + rng.uniform() * (hi[i] - lo[i]);
    const auto z = graph_forward(g, x);
    for (std::size_t q = 0; q < objs.size(); ++q) {
      const double v = z[0] - z[q + 1];
      EXPECT_LE(ra.lower[q], v);
      EXPECT_GE(ra.upper[q], v);
    }
  }
}

}  // namespace
}  // namespace assay::count
