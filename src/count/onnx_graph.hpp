// The ONNX importer for graph networks (graph.hpp): convolutions, pooling, padding, skip
// connections, tensors read twice. parse_onnx tries the chain importer first (dense layers, as
// before) and comes here when it throws NeedsGraph.
//
// Every computed tensor is held as a pending sparse affine map of graph nodes already built,
// value = sum_k terms[k].matrix * node(terms[k].source) + bias, so that linear operators that
// follow each other (Conv, BatchNormalization, Add of a constant, Pad, Transpose, AveragePool,
// Gemm) compose into one sparse matrix; the map becomes a linear node of the graph when a
// nonlinear operator (Relu, Sigmoid, Tanh, MaxPool) reads it, when composing would make it
// much denser than its factors, and at the output. Files: onnx_graph.cpp walks the graph and
// holds the sparse algebra, onnx_graph_ops.cpp builds each operator's matrix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "assay/count/graph.hpp"
#include "onnx_import.hpp"

namespace assay::count::onnx_import {

// A computed tensor: its shape and its affine map of earlier graph nodes.
struct GraphValue {
  std::vector<std::int64_t> shape;
  std::vector<LinearTerm> terms;
  std::vector<double> bias;
  std::string origin;  // the ONNX node that computed it (names its graph node)
  std::size_t size() const { return bias.size(); }
};

// Sparse algebra on the pending maps (onnx_graph.cpp).
SparseMatrix sparse_identity(std::size_t n);
bool is_identity(const SparseMatrix& m);
SparseMatrix sparse_product(const SparseMatrix& a, const SparseMatrix& b);
SparseMatrix sparse_sum(const SparseMatrix& a, const SparseMatrix& b);
// Builds a CSR matrix row by row: add(column, value) in ascending columns, then end_row().
struct SparseBuilder {
  SparseMatrix m;
  explicit SparseBuilder(std::size_t cols) {
    m.cols = cols;
    m.row_start.push_back(0);
  }
  void add(std::size_t column, double value) {
    if (value == 0.0) return;
    m.column.push_back(static_cast<std::uint32_t>(column));
    m.value.push_back(value);
  }
  void end_row() {
    m.row_start.push_back(m.value.size());
    ++m.rows;
  }
};

// A 2-D sliding window (Conv, MaxPool, AveragePool) over an [N, C, H, W] tensor: per axis
// (height, width) the kernel, stride, dilation, padding, and the input and output sizes.
struct Window {
  std::int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, dilation[2] = {1, 1};
  std::int64_t pad_begin[2] = {0, 0}, pad_end[2] = {0, 0}, in[2] = {0, 0}, out[2] = {0, 0};
};

class GraphImporter : public Importer {
 public:
  GraphImporter(const onnx::ModelProto& proto, std::string where)
      : Importer(proto, std::move(where)) {}
  Model run_graph();

 private:
  // --- the walk (onnx_graph.cpp) ------------------------------------------------------------
  void count_uses();
  void graph_step(const Node& n);
  void graph_dispatch(const Node& n);
  const GraphValue& value_of(const Node& n, std::size_t i) const;
  const Tensor* constant_of(const Node& n, std::size_t i) const;
  void set(const Node& n, GraphValue v);
  std::size_t materialize(const Node& n, GraphValue& v);
  GraphValue node_value(std::size_t node, std::vector<std::int64_t> shape) const;
  // The value after the linear map `op` (rows = new size) and `offset` (empty: none).
  GraphValue apply(const Node& n, GraphValue v, const SparseMatrix& op,
                   const std::vector<double>& offset, std::vector<std::int64_t> shape);
  GraphValue add_values(GraphValue a, const GraphValue& b, double sign) const;
  void activation(const Node& n, GraphOp op);
  bool defer_output_activation(const Node& n, Activation act);
  void finish_graph();

  // --- operators (onnx_graph_ops.cpp) -------------------------------------------------------
  std::vector<std::int64_t> ints_attribute(const Node& n, const char* name, std::size_t count,
                                           std::int64_t fallback) const;
  Window window(const Node& n, const std::vector<std::int64_t>& shape,
                const std::int64_t kernel[2]) const;
  void conv(const Node& n);
  void pool(const Node& n, bool max);
  void global_pool(const Node& n, bool max);
  void graph_pad(const Node& n);
  void graph_transpose(const Node& n);
  void graph_reshape(const Node& n);
  void constant_operand(const Node& n);
  void binary(const Node& n);
  void graph_batch_norm(const Node& n);
  void graph_gemm(const Node& n);
  void graph_matmul(const Node& n);
  void concat(const Node& n);
  void graph_slice(const Node& n);

  GraphNetwork net_;
  std::map<std::string, GraphValue> values_;
  std::map<std::string, int> uses_;  // how many node inputs and graph outputs read each tensor
  Activation output_activation_ = Activation::identity;
  std::string after_output_activation_;  // the tensor a deferred Sigmoid/Softmax made
};

}  // namespace assay::count::onnx_import
