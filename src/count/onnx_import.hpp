// The ONNX importer, in three files: onnx.cpp walks the graph (inputs, constants, the chain of
// nodes, the output), onnx_operators.cpp turns each operator on the running tensor into the
// pending affine map or a closed layer, onnx_fold.cpp evaluates operators on constants (shape
// computations). The running tensor is kept as a pending affine map of the last activation
// (diagonal while only element-wise operators have been met, dense after the first matrix).
// Where the chain importer meets what only a graph network can hold (a convolution, pooling,
// real padding, Tanh, a tensor read twice or a skip connection), it throws NeedsGraph and
// parse_onnx starts over with the graph importer (onnx_graph.hpp), which reuses this class's
// constants, folding and shape rules.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "assay/count/model.hpp"
#include "onnx_wire.hpp"

namespace assay::count::onnx_import {

using onnx::Node;
using onnx::Tensor;

// Inputs of an imported network (its input tensor's elements); larger ones are refused before
// anything is allocated for them.
inline constexpr std::size_t kMaxInputs = 10'000'000;

inline constexpr const char* kSupported =
    "Gemm, MatMul, Conv (2-D), MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, Pad "
    "(constant), Add, Sub, Mul, Div, Neg, Relu, Sigmoid, Tanh, Softmax (last), Flatten, Reshape, "
    "Identity, Squeeze, Unsqueeze, Transpose, Concat, Slice, Dropout (inference), Cast (to "
    "float or double), Constant, BatchNormalization, and Shape, Gather, ConstantOfShape on "
    "constants";

// Operators evaluated at import time when every input is a constant (shape computations).
inline constexpr const char* kFolded =
    "Identity, Cast, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Gather, Slice, "
    "Add, Sub, Mul, Div, Neg, ConstantOfShape";

// The running tensor as an affine map of the last activation h: value = A h + c.
struct Pending {
  std::size_t n_h = 0;            // width of h
  std::size_t m = 0;              // width of the value
  bool diagonal = true;           // A[r][perm[r]] = s[r], else 0: a scaled permutation (m == n_h)
  std::vector<double> s;          // diagonal
  std::vector<std::size_t> perm;  // the element of h each row reads (a Transpose moves them)
  std::vector<double> a;          // dense, row-major [m][n_h]
  std::vector<double> c;          // offset
  bool identity() const {
    if (!diagonal) return false;
    for (std::size_t i = 0; i < m; ++i) {
      if (s[i] != 1.0 || c[i] != 0.0 || perm[i] != i) return false;
    }
    return true;
  }
  void reset(std::size_t width) {
    n_h = m = width;
    diagonal = true;
    s.assign(width, 1.0);
    perm.resize(width);
    for (std::size_t i = 0; i < width; ++i) perm[i] = i;
    a.clear();
    c.assign(width, 0.0);
  }
  // value'[r] = value[from[r]]: the rows reordered (a Transpose of the running tensor).
  void permute_rows(const std::vector<std::size_t>& from) {
    std::vector<double> c2(m), s2, a2;
    std::vector<std::size_t> perm2;
    if (diagonal) {
      s2.resize(m);
      perm2.resize(m);
    } else {
      a2.resize(a.size());
    }
    for (std::size_t r = 0; r < m; ++r) {
      c2[r] = c[from[r]];
      if (diagonal) {
        s2[r] = s[from[r]];
        perm2[r] = perm[from[r]];
      } else {
        std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(from[r] * n_h), n_h,
                    a2.begin() + static_cast<std::ptrdiff_t>(r * n_h));
      }
    }
    c = std::move(c2);
    if (diagonal) {
      s = std::move(s2);
      perm = std::move(perm2);
    } else {
      a = std::move(a2);
    }
  }
};

// An index or size stored as a double (ONNX int64 tensors are widened): clamped into a range
// where converting and adding are defined (Slice writes INT64_MAX for "to the end").
inline std::int64_t to_index(double v) {
  constexpr double kLimit = 4.0e18;
  if (std::isnan(v)) return 0;
  return static_cast<std::int64_t>(std::clamp(v, -kLimit, kLimit));
}

// The number of elements of dimensions known to be >= 0 and small enough to multiply.
inline std::int64_t element_count(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (const auto d : dims) n *= d;
  return n;
}

// For a Transpose by `perm` of a tensor of shape `dims`: the new shape and, for each element of
// the result (C order), the element of the input it takes.
std::pair<std::vector<std::int64_t>, std::vector<std::size_t>> transposed(
    const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& perm);

// Thrown (not an assay::Error) by the chain importer when the graph needs a graph network.
struct NeedsGraph {
  std::string reason;
};

class Importer {
 public:
  Importer(const onnx::ModelProto& proto, std::string where)
      : proto_(proto), where_(std::move(where)) {}
  Model run() {
    const auto& g = proto_.graph;
    for (const auto& t : g.initializers) add_constant(t);
    find_input();
    for (const auto& node : g.nodes) step(node);
    finish();
    return std::move(model_);
  }

 protected:
  [[noreturn]] void bad(const Node& n, const std::string& what) const;
  void add_constant(const Tensor& t);
  static std::string shape_text(const std::vector<std::int64_t>& dims);
  void find_input();
  std::size_t elements() const;
  // The node's inputs split into the running tensor (exactly one) and constants.
  struct Operands {
    int running = -1;                     // index of the running tensor among the inputs
    std::vector<const Tensor*> constant;  // per input; nullptr for the running one or absent
  };
  Operands operands(const Node& n) const;
  void step(const Node& n);
  void dispatch(const Node& n, const Operands& o);
  void check_open(const Node& n);

  // --- shape-only operators --------------------------------------------------------------
  void flatten(const Node& n);
  void reshape(const Node& n, const Operands& o);
  std::vector<std::int64_t> reshaped(const Node& n, const std::vector<std::int64_t>& from,
                                     const std::vector<double>& spec) const;
  void squeeze(const Node& n, const Operands& o);
  std::vector<std::int64_t> squeezed(const Node& n, std::vector<std::int64_t> from,
                                     const Tensor* axes_input) const;

  // --- affine operators -------------------------------------------------------------------
  void apply_matrix(const std::vector<double>& w, std::size_t k_out);
  std::size_t vector_width(const Node& n) const;
  void matmul(const Node& n, const Operands& o);
  void gemm(const Node& n, const Operands& o);
  std::vector<double> broadcast(const Node& n, const Tensor& t) const;
  void negate();
  void scale(const std::vector<double>& k);
  void elementwise(const Node& n, const Operands& o);
  void batch_norm(const Node& n, const Operands& o);

  // --- activations ------------------------------------------------------------------------
  void close(const Node& n, Activation act);
  void softmax(const Node& n);
  void constant_node(const Node& n);

  // --- operators on the running tensor that change no value -----------------------------
  void dropout(const Node& n, const Operands& o);
  static std::string type_name(std::int64_t t);
  void cast(const Node& n);
  void transpose(const Node& n);
  std::vector<std::int64_t> transpose_perm(const Node& n, std::size_t rank) const;
  void pad(const Node& n, const Operands& o);

  // --- constant folding ------------------------------------------------------------------
  bool fold(const Node& n);
  void shape_node(const Node& n);
  Tensor evaluate(const Node& n, const std::vector<const Tensor*>& in) const;
  void check_folded_size(const Node& n, double elements) const;
  static bool is_integer_type(std::int32_t type);
  Tensor cast_constant(const Node& n, const Tensor& x) const;
  Tensor concat_constants(const Node& n, const std::vector<const Tensor*>& in) const;
  Tensor gather_constant(const Node& n, const Tensor& x, const Tensor* indices) const;
  Tensor slice_constant(const Node& n, const std::vector<const Tensor*>& in) const;
  Tensor binary_constants(const Node& n, const Tensor& a, const Tensor& b) const;

  // --- the graph's output ------------------------------------------------------------------
  void finish();
  void check_output_shape(const onnx::ValueInfo& out) const;

  const onnx::ModelProto& proto_;
  std::string where_;
  std::map<std::string, Tensor> constants_;
  std::map<std::string, std::vector<std::int64_t>> shapes_;  // of each running tensor so far
  std::string running_;
  std::vector<std::int64_t> shape_;
  Pending pending_;
  Model model_;
  bool closed_softmax_ = false;
};

}  // namespace assay::count::onnx_import
