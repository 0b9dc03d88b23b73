// Times graph-network bounds (src/count/graph_bounds*.cpp): one linear bound of the 9 margins
// (CROWN, then alpha-CROWN with 20 iterations) on mnist-net_256x6 (VNN-COMP 2021, when the
// shared data is there) and on a random graph of resnet_2b's size.
// Usage: bench_graph_bounds [path/to/mnist-net_256x6.onnx]
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <vector>

#include "assay/core/rng.hpp"
#include "assay/count/onnx.hpp"
#include "assay/count/vnnlib.hpp"
#include "count/graph_bounds.hpp"
#include "count/random_resnet.hpp"

using namespace assay;
using namespace assay::count;

namespace {

double seconds_of(const detail::GraphBounds& gb, const std::vector<double>& lo,
                  const std::vector<double>& hi, int alpha, int repeats) {
  const auto& g = gb.graph();
  std::vector<detail::GraphObjective> objs;
  for (std::size_t j = 1; j < g.n_outputs(); ++j) {
    detail::GraphObjective o;
    o.w.assign(g.n_outputs(), 0.0);
    o.w[0] = 1.0;
    o.w[j] = -1.0;
    objs.push_back(o);
  }
  detail::GraphBoundParams p;
  p.alpha_iterations = alpha;
  detail::GraphBoundResult r;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  for (int i = 0; i < repeats; ++i) gb.bound(lo, hi, objs, {}, p, r);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  double unstable = 0;
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    if (g.nodes[k].op != GraphOp::relu) continue;
    for (std::size_t j = 0; j < g.nodes[k].size; ++j) {
      const auto src = g.nodes[k].source;
      unstable += r.node_lower[src][j] < 0 && r.node_upper[src][j] > 0;
    }
  }
  std::printf(
      "  alpha %2d: %.4f s per bound (%.4f s CPU), lower bound of margin 1: %.5g, %g "
      "unstable\n",
      alpha, s / repeats, cpu / repeats, r.lower[0], unstable);
  // Branch and bound's call: the root's node bounds reused, only the objectives back-substituted.
  const detail::GraphBoundResult root = r;
  p.reuse_lower = &root.node_lower;
  p.reuse_upper = &root.node_upper;
  const auto t1 = std::chrono::steady_clock::now();
  const std::clock_t c1 = std::clock();
  for (int i = 0; i < repeats; ++i) gb.bound(lo, hi, objs, {}, p, r);
  const double s2 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  const double cpu2 = static_cast<double>(std::clock() - c1) / CLOCKS_PER_SEC;
  std::printf("            %.4f s per bound (%.4f s CPU) reusing the node bounds\n", s2 / repeats,
              cpu2 / repeats);
  return s / repeats;
}

void run(const char* name, const GraphNetwork& g, double eps, std::vector<double> lo,
         std::vector<double> hi) {
  detail::GraphBounds gb(g);
  if (lo.empty()) {
    Rng rng(1);
    for (std::size_t i = 0; i < g.n_inputs(); ++i) {
      const double v = rng.uniform();
      lo.push_back(v - eps);
      hi.push_back(v + eps);
    }
  }
  std::printf("%s (%zu nodes, %zu neurons, eps %g):\n", name, g.nodes.size(), graph_neurons(g),
              eps);
  seconds_of(gb, lo, hi, 0, 3);
  seconds_of(gb, lo, hi, 20, 1);
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path mnist =
      argc > 1 ? argv[1] : "../shared/data/vnncomp2021/mnistfc/mnist-net_256x6.onnx";
  if (std::filesystem::exists(mnist)) {
    const Model m = load_onnx(mnist.string());
    const GraphNetwork g = graph_from_network(m);
    for (const char* prop : {"prop_0_0.03.vnnlib", "prop_0_0.05.vnnlib"}) {
      const VnnProperty p = load_vnnlib((mnist.parent_path() / prop).string());
      const auto& box = p.regions.front();
      run(prop, g, 0, box.lo, box.hi);
      // The dense path (bounds.cpp) on the same box, for comparison.
      LinearObjective o;
      o.w.assign(m.n_outputs, 0.0);
      o.w[0] = 1.0;
      o.w[1] = -1.0;
      BoundResult d;
      const auto t0 = std::chrono::steady_clock::now();
      NetworkBounds(m).bound(box.lo, box.hi, {&o, 1}, BoundMethod::linear, d);
      std::printf("  NetworkBounds: margin 1 in [%.5g, %.5g], %.4f s\n", d.lower[0], d.upper[0],
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  } else {
    std::printf("%s not found: mnist skipped\n", mnist.c_str());
  }
  run("resnet_2b-sized random graph", resnet_like(1), 2.0 / 255, {}, {});
  run("resnet_2b-sized random graph", resnet_like(1), 8.0 / 255, {}, {});
  return 0;
}
