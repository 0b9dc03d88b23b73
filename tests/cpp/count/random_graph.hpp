// Test helper shared by the graph-network tests: small seeded random image classifiers built
// directly as GraphNetworks (a convolution as a sparse matrix, pooling, a residual add,
// S-shaped activations), so bounds and attacks can be checked against plain evaluation.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "assay/core/rng.hpp"
#include "assay/count/graph.hpp"

namespace assay::count {

// A 2-D convolution of a [c_in][h][w] tensor (C order) with a k x k kernel, stride s, zero
// padding p, as a sparse matrix [c_out][h_out][w_out] x [c_in][h][w]; weights N(0, 1/fan_in).
inline SparseMatrix random_conv(std::size_t c_in, std::size_t h, std::size_t w, std::size_t c_out,
                                std::size_t k, std::size_t s, std::size_t p, Rng& rng,
                                std::size_t& h_out, std::size_t& w_out) {
  h_out = (h + 2 * p - k) / s + 1;
  w_out = (w + 2 * p - k) / s + 1;
  std::vector<double> kernel(c_out * c_in * k * k);
  for (double& v : kernel) v = rng.normal() / std::sqrt(static_cast<double>(c_in * k * k));
  SparseMatrix m;
  m.rows = c_out * h_out * w_out;
  m.cols = c_in * h * w;
  m.row_start.push_back(0);
  for (std::size_t o = 0; o < c_out; ++o) {
    for (std::size_t y = 0; y < h_out; ++y) {
      for (std::size_t x = 0; x < w_out; ++x) {
        for (std::size_t c = 0; c < c_in; ++c) {
          for (std::size_t i = 0; i < k; ++i) {
            for (std::size_t j = 0; j < k; ++j) {
              const auto yy =
                  static_cast<std::ptrdiff_t>(y * s + i) - static_cast<std::ptrdiff_t>(p);
              const auto xx =
                  static_cast<std::ptrdiff_t>(x * s + j) - static_cast<std::ptrdiff_t>(p);
              if (yy < 0 || xx < 0 || yy >= static_cast<std::ptrdiff_t>(h) ||
                  xx >= static_cast<std::ptrdiff_t>(w)) {
                continue;
              }
              m.column.push_back(static_cast<std::uint32_t>(
                  (c * h + static_cast<std::size_t>(yy)) * w + static_cast<std::size_t>(xx)));
              m.value.push_back(kernel[((o * c_in + c) * k + i) * k + j]);
            }
          }
        }
        m.row_start.push_back(m.value.size());
      }
    }
  }
  return m;
}

// Windows of a k x k pooling with stride k over [c][h][w] (h, w multiples of k).
inline SparseMatrix pool_windows(std::size_t c, std::size_t h, std::size_t w, std::size_t k,
                                 double weight) {
  SparseMatrix m;
  m.rows = c * (h / k) * (w / k);
  m.cols = c * h * w;
  m.row_start.push_back(0);
  for (std::size_t ch = 0; ch < c; ++ch) {
    for (std::size_t y = 0; y < h / k; ++y) {
      for (std::size_t x = 0; x < w / k; ++x) {
        for (std::size_t i = 0; i < k; ++i) {
          for (std::size_t j = 0; j < k; ++j) {
            m.column.push_back(static_cast<std::uint32_t>((ch * h + y * k + i) * w + x * k + j));
            m.value.push_back(weight);
          }
        }
        m.row_start.push_back(m.value.size());
      }
    }
  }
  return m;
}

inline std::vector<double> random_vector(std::size_t n, Rng& rng, double scale) {
  std::vector<double> v(n);
  for (double& x : v) x = scale * rng.normal();
  return v;
}

inline SparseMatrix random_dense(std::size_t rows, std::size_t cols, Rng& rng) {
  std::vector<double> a(rows * cols);
  for (double& v : a) v = rng.normal() / std::sqrt(static_cast<double>(cols));
  return sparse_from_dense(rows, cols, a);
}

// What the random graph's hidden activation and pooling are.
enum class RandomGraphKind { relu_max_pool, relu_avg_pool_residual, sigmoid, tanh };

// A 1 x 6 x 6 input, a 3x3 convolution to 3 channels (padding 1: 3 x 6 x 6), the activation,
// then (relu_max_pool) 2x2 max pooling, or (relu_avg_pool_residual) a second convolution added to
// the activation (a skip connection), ReLU and 2x2 average pooling, or (sigmoid / tanh) the
// S-shaped activation alone; then a dense layer of 8, ReLU, and 3 logits.
inline GraphNetwork random_graph(RandomGraphKind kind, std::uint64_t seed) {
  Rng rng(seed);
  GraphNetwork g;
  g.input_shape = {1, 1, 6, 6};
  g.nodes.push_back(graph_input(36));
  std::size_t ho = 0, wo = 0;
  SparseMatrix conv = random_conv(1, 6, 6, 3, 3, 1, 1, rng, ho, wo);
  const std::size_t n1 = conv.rows;
  g.nodes.push_back(graph_linear(0, std::move(conv), random_vector(n1, rng, 0.2)));
  g.nodes.back().name = "conv_1";
  const GraphOp act = kind == RandomGraphKind::sigmoid ? GraphOp::sigmoid
                      : kind == RandomGraphKind::tanh  ? GraphOp::tanh
                                                       : GraphOp::relu;
  g.nodes.push_back(graph_activation(act, 1, n1));
  std::size_t last = 2, width = n1;
  if (kind == RandomGraphKind::relu_max_pool) {
    GraphNode pool = graph_activation(GraphOp::max_pool, last, 3 * 3 * 3);
    pool.pool = pool_windows(3, 6, 6, 2, 1.0);
    g.nodes.push_back(std::move(pool));
    last = 3;
    width = 27;
  } else if (kind == RandomGraphKind::relu_avg_pool_residual) {
    SparseMatrix conv2 = random_conv(3, 6, 6, 3, 3, 1, 1, rng, ho, wo);
    g.nodes.push_back(graph_linear(last, std::move(conv2), random_vector(n1, rng, 0.2)));
    g.nodes.back().terms.push_back({last, sparse_from_dense(n1, n1, [&] {
                                      std::vector<double> id(n1 * n1, 0.0);
                                      for (std::size_t i = 0; i < n1; ++i) id[i * n1 + i] = 1.0;
                                      return id;
                                    }())});
    g.nodes.back().name = "conv_2 + skip";
    g.nodes.push_back(graph_activation(GraphOp::relu, 3, n1));
    g.nodes.push_back(
        graph_linear(4, pool_windows(3, 6, 6, 2, 0.25), std::vector<double>(27, 0.0)));
    g.nodes.back().name = "avg_pool";
    last = 5;
    width = 27;
  }
  g.nodes.push_back(graph_linear(last, random_dense(8, width, rng), random_vector(8, rng, 0.2)));
  g.nodes.push_back(graph_activation(GraphOp::relu, g.nodes.size() - 1, 8));
  g.nodes.push_back(
      graph_linear(g.nodes.size() - 1, random_dense(3, 8, rng), random_vector(3, rng, 0.2)));
  g.nodes.back().name = "logits";
  return g;
}

}  // namespace assay::count
