// Graph networks: image classifiers (convolutions, pooling, skip connections) as a directed
// acyclic graph of sparse affine maps and element-wise or pooling nonlinearities, the form assay
// bounds, attacks and splits (graph_bounds, branch and bound) and what load_onnx builds for a
// network that is not a chain of dense layers.
//
// Layout:
// - nodes[0] is the input (op input, size = n_inputs); every other node reads only earlier nodes
//   (the vector is in topological order); the last node is the output (the logits; the model's
//   output activation, if any, is applied after it by predict_scores).
// - A linear node computes value = sum_k terms[k].matrix * value(terms[k].source) + bias, each
//   matrix sparse in compressed rows (CSR): row r has the entries row_start[r] ..
//   row_start[r+1]-1 of column / value. Conv, Gemm, MatMul, AveragePool, Pad, BatchNormalization,
//   Transpose, Reshape and Add of a constant fold into one matrix; Add of two computed tensors (a
//   residual connection) is a linear node with two terms.
// - relu, sigmoid and tanh nodes apply their function to each element of node `source`.
// - A max_pool node's row r (of `pool`, CSR, values unused) lists the source elements whose
//   maximum is output r (MaxPool; padding elements are simply absent).
// - Tensors are flattened in C order of the ONNX shape (NCHW for images); input_shape keeps the
//   input's shape for messages.
//
// Example:
//   GraphNetwork g;                                 // y = relu(x0 - x1) + x1
//   g.nodes.push_back(graph_input(2));
//   g.nodes.push_back(graph_linear(0, sparse_from_dense(1, 2, {1, -1}), {0}));
//   g.nodes.push_back(graph_activation(GraphOp::relu, 1, 1));
//   g.nodes.push_back(graph_linear(2, sparse_from_dense(1, 1, {1}), {0}));
//   g.nodes.back().terms.push_back({0, sparse_from_dense(1, 2, {0, 1})});
//   validate(g);
//   graph_forward(g, std::vector<double>{3, 1});    // {3}: relu(2) + 1
//   graph_forward(g, std::vector<double>{0, 2});    // {2}: relu(-2) + 2
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "assay/count/model.hpp"

namespace assay::count {

/// A sparse matrix in compressed rows (CSR).
struct SparseMatrix {
  std::size_t rows = 0, cols = 0;
  std::vector<std::size_t> row_start;  ///< rows + 1 entries; row_start[0] == 0
  std::vector<std::uint32_t> column;   ///< per entry, ascending within a row
  std::vector<double> value;           ///< per entry
  std::size_t nonzeros() const { return value.size(); }
};

/// A dense row-major [rows][cols] matrix as CSR (zeros dropped).
SparseMatrix sparse_from_dense(std::size_t rows, std::size_t cols, const std::vector<double>& a);
/// y = M x (y resized to M.rows).
void sparse_multiply(const SparseMatrix& m, std::span<const double> x, std::vector<double>& y);
/// y += M^T x (y has M.cols entries).
void sparse_multiply_transposed_add(const SparseMatrix& m, std::span<const double> x,
                                    std::span<double> y);

enum class GraphOp : std::uint8_t { input, linear, relu, sigmoid, tanh, max_pool };

struct LinearTerm {
  std::size_t source = 0;
  SparseMatrix matrix;  ///< size x size(source)
};

struct GraphNode {
  GraphOp op = GraphOp::input;
  std::size_t size = 0;
  std::string name;               ///< the ONNX node it came from (messages); may be empty
  std::vector<LinearTerm> terms;  ///< linear
  std::vector<double> bias;       ///< linear: one per element
  std::size_t source = 0;         ///< relu, sigmoid, tanh, max_pool
  SparseMatrix pool;              ///< max_pool: size x size(source), row r = the window of r
};

struct GraphNetwork {
  std::vector<GraphNode> nodes;
  std::vector<std::int64_t> input_shape;
  std::size_t n_inputs() const { return nodes.empty() ? 0 : nodes.front().size; }
  std::size_t n_outputs() const { return nodes.empty() ? 0 : nodes.back().size; }
};

GraphNode graph_input(std::size_t n);
GraphNode graph_linear(std::size_t source, SparseMatrix matrix, std::vector<double> bias);
GraphNode graph_activation(GraphOp op, std::size_t source, std::size_t size);

/// Checks sizes, sources (earlier nodes only), CSR structure and finiteness; throws
/// assay::Error naming the node ("graph node 3 (conv_1): ...").
void validate(const GraphNetwork& g);

/// The output node's values at x (x.size() == n_inputs()).
std::vector<double> graph_forward(const GraphNetwork& g, std::span<const double> x);
/// Every node's values at x (values[k] for node k).
void graph_forward_all(const GraphNetwork& g, std::span<const double> x,
                       std::vector<std::vector<double>>& values);
/// The gradient of sum_j w[j] * output_j with respect to the input, at the point whose node
/// values graph_forward_all gave (ReLU' = 1 where the input is > 0; max pool: the first maximum).
std::vector<double> graph_gradient(const GraphNetwork& g,
                                   const std::vector<std::vector<double>>& values,
                                   std::span<const double> w);

/// A dense network (ModelKind::network) as a graph: one linear node per layer, an activation
/// node after each hidden layer (relu, sigmoid; identity adds none); the output layer's
/// activation is left to the caller, as NetworkBounds leaves it.
GraphNetwork graph_from_network(const Model& m);

/// Parameters: matrix entries + biases.
std::size_t graph_parameters(const GraphNetwork& g);
/// Neurons of the nonlinear nodes (relu, sigmoid, tanh, max_pool).
std::size_t graph_neurons(const GraphNetwork& g);

}  // namespace assay::count
