// Test and bench helper: a seeded random graph network of resnet_2b's layer sizes (VNN-COMP
// 2021 cifar10_resnet), for timing and checking graph bounds without the ONNX file.
#pragma once

#include <cstdint>

#include "count/random_graph.hpp"

namespace assay::count {

// A random graph of resnet_2b's size: 3x32x32 input, conv 8@16x16 stride 2, ReLU, conv 16@8x8
// stride 2, ReLU, conv 16@8x8 plus a 1x1 stride-2 shortcut from the first ReLU, ReLU, dense 100,
// ReLU, dense 10.
inline GraphNetwork resnet_like(std::uint64_t seed) {
  Rng rng(seed);
  GraphNetwork g;
  g.input_shape = {1, 3, 32, 32};
  g.nodes.push_back(graph_input(3 * 32 * 32));
  std::size_t h = 0, w = 0, h2 = 0, w2 = 0;
  auto add_linear = [&](std::size_t src, SparseMatrix m) {
    const std::size_t n = m.rows;
    g.nodes.push_back(graph_linear(src, std::move(m), random_vector(n, rng, 0.1)));
    return g.nodes.size() - 1;
  };
  auto add_relu = [&](std::size_t src) {
    g.nodes.push_back(graph_activation(GraphOp::relu, src, g.nodes[src].size));
    return g.nodes.size() - 1;
  };
  const std::size_t r1 = add_relu(add_linear(0, random_conv(3, 32, 32, 8, 3, 2, 1, rng, h, w)));
  const std::size_t r2 = add_relu(add_linear(r1, random_conv(8, 16, 16, 16, 3, 2, 1, rng, h, w)));
  const std::size_t c3 = add_linear(r2, random_conv(16, 8, 8, 16, 3, 1, 1, rng, h2, w2));
  g.nodes[c3].terms.push_back({r1, random_conv(8, 16, 16, 16, 1, 2, 0, rng, h2, w2)});
  const std::size_t r3 = add_relu(c3);
  const std::size_t r4 = add_relu(add_linear(r3, random_dense(100, 16 * 8 * 8, rng)));
  add_linear(r4, random_dense(10, 100, rng));
  validate(g);
  return g;
}

}  // namespace assay::count
