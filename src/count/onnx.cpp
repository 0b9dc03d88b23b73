// ONNX graph -> dense layers. The graph is walked in order; the running tensor is kept as a
// pending affine map of the last activation (diagonal while only element-wise operators have
// been met, dense after the first matrix), and each activation operator closes it into a layer.
#include "assay/count/onnx.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "input_file.hpp"
#include "onnx_wire.hpp"

namespace assay::count {

namespace {

using onnx::Node;
using onnx::Tensor;

// Inputs of an imported network (its input tensor's elements); larger ones are refused before
// anything is allocated for them.
constexpr std::size_t kMaxInputs = 10'000'000;

constexpr const char* kSupported =
    "Gemm, MatMul, Add, Sub, Mul, Div, Neg, Relu, Sigmoid, Softmax, Flatten, Reshape, Identity, "
    "Squeeze, Unsqueeze, Transpose, Dropout (inference), Cast (to float or double), Pad (of "
    "nothing), Constant, BatchNormalization, and Shape, Gather, Concat, Slice, ConstantOfShape "
    "on constants";

// Operators evaluated at import time when every input is a constant (shape computations).
constexpr const char* kFolded =
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
std::int64_t to_index(double v) {
  constexpr double kLimit = 4.0e18;
  if (std::isnan(v)) return 0;
  return static_cast<std::int64_t>(std::clamp(v, -kLimit, kLimit));
}

// The number of elements of dimensions known to be >= 0 and small enough to multiply.
std::int64_t element_count(const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (const auto d : dims) n *= d;
  return n;
}

// For a Transpose by `perm` of a tensor of shape `dims`: the new shape and, for each element of
// the result (C order), the element of the input it takes.
std::pair<std::vector<std::int64_t>, std::vector<std::size_t>> transposed(
    const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& perm) {
  const std::size_t r = dims.size();
  std::vector<std::int64_t> to(r);
  std::vector<std::size_t> in_stride(r, 1);
  for (std::size_t i = r; i-- > 1;)
    in_stride[i - 1] = in_stride[i] * static_cast<std::size_t>(dims[i]);
  for (std::size_t k = 0; k < r; ++k) to[k] = dims[static_cast<std::size_t>(perm[k])];
  const auto total = static_cast<std::size_t>(element_count(dims));
  std::vector<std::size_t> from(total);
  std::vector<std::size_t> index(r, 0);  // multi-index into `to`, last fastest
  for (std::size_t f = 0; f < total; ++f) {
    std::size_t source = 0;
    for (std::size_t k = 0; k < r; ++k)
      source += index[k] * in_stride[static_cast<std::size_t>(perm[k])];
    from[f] = source;
    for (std::size_t k = r; k-- > 0;) {
      if (++index[k] < static_cast<std::size_t>(to[k])) break;
      index[k] = 0;
    }
  }
  return {to, from};
}

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

 private:
  [[noreturn]] void bad(const Node& n, const std::string& what) const {
    // A node is named by its name, else by its first output; it may have neither (found by
    // fuzz_onnx: outputs.front() of an empty list).
    if (n.name.empty() && n.outputs.empty()) {
      fail("{}: a node without name or outputs ({}): {}", where_, n.op_type, what);
    }
    fail("{}: node {} ({}): {}", where_, quote_found(n.name.empty() ? n.outputs.front() : n.name),
         n.op_type, what);
  }

  void add_constant(const Tensor& t) {
    if (t.external) {
      fail("{}: tensor {} keeps its data in an external file, which assay does not read", where_,
           quote_found(t.name));
    }
    // The element count in floating point: dims from a damaged file can overflow a size_t.
    double elements = 1.0;
    for (const auto d : t.dims) {
      if (d < 0) {
        fail("{}: tensor {} has shape {}; expected dimensions >= 0", where_, quote_found(t.name),
             shape_text(t.dims));
      }
      elements *= static_cast<double>(d);
    }
    if (static_cast<double>(t.values.size()) != elements) {
      fail("{}: tensor {} has {} values for shape {} ({:.0f} elements)", where_,
           quote_found(t.name), t.values.size(), shape_text(t.dims), elements);
    }
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      if (!std::isfinite(t.values[i])) {
        fail("{}: tensor {} holds {} at index {} (weights must be finite)", where_,
             quote_found(t.name), t.values[i], i);
      }
    }
    constants_[t.name] = t;
  }

  static std::string shape_text(const std::vector<std::int64_t>& dims) {
    return fmt::format("[{}]", fmt::join(dims, "x"));
  }

  void find_input() {
    const onnx::ValueInfo* input = nullptr;
    for (const auto& v : proto_.graph.inputs) {
      if (constants_.count(v.name)) continue;
      if (input) {
        fail("{}: the graph has two inputs, {} and {}; assay imports one-input networks", where_,
             quote_found(input->name), quote_found(v.name));
      }
      input = &v;
    }
    if (!input) fail("{}: the graph has no input", where_);
    if (input->elem_type != onnx::kFloat && input->elem_type != onnx::kDouble) {
      fail("{}: input {} has element type {}, expected float or double", where_,
           quote_found(input->name), input->elem_type);
    }
    if (!input->has_shape || input->dims.empty()) {
      fail("{}: input {} has no shape; assay needs a fixed input size", where_,
           quote_found(input->name));
    }
    shape_ = input->dims;
    for (std::size_t i = 0; i < shape_.size(); ++i) {
      if (shape_[i] >= 0) continue;
      if (i == 0 && shape_.size() > 1) {
        shape_[0] = 1;  // a symbolic batch size: one input at a time
        continue;
      }
      fail("{}: input {} has a dynamic dimension {} ({} of shape {}); assay needs fixed sizes",
           where_, quote_found(input->name), quote_found(input->dim_params[i]), i,
           shape_text(input->dims));
    }
    double elements = 1.0;
    for (const auto d : shape_) elements *= static_cast<double>(d);
    if (elements == 0) fail("{}: input {} has no elements", where_, quote_found(input->name));
    // Checked before anything is sized by it.
    if (elements > static_cast<double>(kMaxInputs)) {
      fail("{}: input {} has shape {} ({:.0f} elements); expected at most {} inputs", where_,
           quote_found(input->name), shape_text(input->dims), elements, kMaxInputs);
    }
    const auto n = static_cast<std::size_t>(elements);
    running_ = input->name;
    shapes_[running_] = shape_;
    pending_.reset(n);
    model_.n_features = n;
  }

  std::size_t elements() const {
    std::size_t n = 1;
    for (const auto d : shape_) n *= static_cast<std::size_t>(d);
    return n;
  }

  // The node's inputs split into the running tensor (exactly one) and constants.
  struct Operands {
    int running = -1;                     // index of the running tensor among the inputs
    std::vector<const Tensor*> constant;  // per input; nullptr for the running one or absent
  };
  Operands operands(const Node& n) const {
    Operands o;
    o.constant.assign(n.inputs.size(), nullptr);
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& name = n.inputs[i];
      if (name.empty()) continue;  // an omitted optional input
      if (name == running_) {
        if (o.running >= 0) bad(n, "reads the running tensor twice");
        o.running = static_cast<int>(i);
        continue;
      }
      const auto it = constants_.find(name);
      if (it == constants_.end()) {
        bad(n, fmt::format("input {} is neither a constant nor the running tensor {}; assay "
                           "imports chains of operators (no skip connections or branches)",
                           quote_found(name), quote_found(running_)));
      }
      o.constant[i] = &it->second;
    }
    return o;
  }

  void step(const Node& n) {
    if (!n.domain.empty() && n.domain != "ai.onnx") {
      bad(n, fmt::format("operator domain {} is not supported", quote_found(n.domain)));
    }
    if (n.outputs.empty()) bad(n, "has no output");
    if (n.op_type == "Constant") {
      constant_node(n);
      return;
    }
    if (fold(n)) return;
    const Operands o = operands(n);
    if (o.running < 0) {
      bad(n, fmt::format("does not read the running tensor {}; assay imports chains of "
                         "supported operators ({})",
                         quote_found(running_), kSupported));
    }
    dispatch(n, o);
    running_ = n.outputs.front();
    shapes_[running_] = shape_;
  }

  void dispatch(const Node& n, const Operands& o) {
    const std::string& op = n.op_type;
    if (op == "Relu") return close(n, Activation::relu);
    if (op == "Sigmoid") return close(n, Activation::logistic);
    if (op == "Softmax") return softmax(n);
    if (op == "Identity") return;
    if (op == "Dropout") return dropout(n, o);
    if (op == "Cast") return cast(n);
    if (op == "Transpose") return transpose(n);
    if (op == "Pad") return pad(n, o);
    if (op == "Neg") {
      check_open(n);
      return negate();
    }
    if (op == "Flatten") return flatten(n);
    if (op == "Reshape") return reshape(n, o);
    if (op == "Squeeze" || op == "Unsqueeze") return squeeze(n, o);
    if (op == "MatMul") return matmul(n, o);
    if (op == "Gemm") return gemm(n, o);
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") return elementwise(n, o);
    if (op == "BatchNormalization") return batch_norm(n, o);
    bad(n, fmt::format("unsupported operator; assay imports {}", kSupported));
  }

  void check_open(const Node& n) {
    if (closed_softmax_) bad(n, "follows Softmax, which must be the last operator");
  }

  // --- shape-only operators --------------------------------------------------------------
  void flatten(const Node& n) {
    const auto* a = n.attribute("axis");
    std::int64_t axis = a ? a->i : 1;
    const auto r = static_cast<std::int64_t>(shape_.size());
    if (axis < 0) axis += r;
    if (axis < 0 || axis > r) bad(n, fmt::format("axis {} out of range for rank {}", axis, r));
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t i = 0; i < r; ++i) (i < axis ? outer : inner) *= shape_[i];
    shape_ = {outer, inner};
  }

  void reshape(const Node& n, const Operands& o) {
    if (o.running != 0 || n.inputs.size() < 2 || !o.constant[1]) {
      bad(n, "expects the running tensor and a constant shape");
    }
    shape_ = reshaped(n, shape_, o.constant[1]->values);
  }

  // `from` reshaped by ONNX Reshape's rules: 0 copies a dimension (unless allowzero), one -1 is
  // inferred.
  std::vector<std::int64_t> reshaped(const Node& n, const std::vector<std::int64_t>& from,
                                     const std::vector<double>& spec) const {
    const auto* allow = n.attribute("allowzero");
    const bool allow_zero = allow && allow->i != 0;
    std::vector<std::int64_t> to;
    std::int64_t known = 1;
    int infer = -1;
    for (std::size_t i = 0; i < spec.size(); ++i) {
      auto d = to_index(spec[i]);
      if (d == 0 && !allow_zero) {
        if (i >= from.size()) bad(n, "shape copies a dimension the input does not have");
        d = from[i];
      }
      if (d == -1) {
        if (infer >= 0) bad(n, "shape has two -1 entries");
        infer = static_cast<int>(i);
        to.push_back(1);
        continue;
      }
      if (d < 0) bad(n, fmt::format("shape entry {} is negative", d));
      if (__builtin_mul_overflow(known, d, &known)) bad(n, "shape has more than 2^63 elements");
      to.push_back(d);
    }
    const std::int64_t total = element_count(from);
    if (infer >= 0) {
      if (known == 0 || total % known != 0) bad(n, "cannot infer the -1 dimension");
      to[infer] = total / known;
      known = total;
    }
    if (known != total) {
      bad(n, fmt::format("reshapes {} elements into shape {} ({} elements)", total, shape_text(to),
                         known));
    }
    return to;
  }

  void squeeze(const Node& n, const Operands& o) {
    shape_ = squeezed(n, shape_, o.constant.size() > 1 ? o.constant[1] : nullptr);
  }

  // `from` with the axes (attribute, or the constant input of opset 13) removed by Squeeze or
  // inserted by Unsqueeze.
  std::vector<std::int64_t> squeezed(const Node& n, std::vector<std::int64_t> from,
                                     const Tensor* axes_input) const {
    std::vector<std::int64_t> axes;
    if (const auto* a = n.attribute("axes")) axes = a->ints;
    if (axes_input) {
      for (const double d : axes_input->values) axes.push_back(to_index(d));
    }
    if (n.op_type == "Unsqueeze") {
      const auto r = static_cast<std::int64_t>(from.size() + axes.size());
      std::vector<std::int64_t> norm;
      for (auto a : axes) norm.push_back(a < 0 ? a + r : a);
      std::sort(norm.begin(), norm.end());
      for (const auto a : norm) {
        if (a < 0 || a > static_cast<std::int64_t>(from.size())) bad(n, "axis out of range");
        from.insert(from.begin() + a, 1);
      }
      return from;
    }
    std::vector<std::int64_t> out;
    const auto r = static_cast<std::int64_t>(from.size());
    for (std::int64_t i = 0; i < r; ++i) {
      const bool listed = std::any_of(axes.begin(), axes.end(),
                                      [&](std::int64_t a) { return a == i || a + r == i; });
      if ((axes.empty() && from[i] == 1) || listed) {
        if (from[i] != 1) bad(n, fmt::format("squeezes axis {} of size {}", i, from[i]));
        continue;
      }
      out.push_back(from[i]);
    }
    return out;
  }

  // --- affine operators -------------------------------------------------------------------
  // value <- W value, W row-major [k_out][k_in] (k_in == current width).
  void apply_matrix(const std::vector<double>& w, std::size_t k_out) {
    Pending& p = pending_;
    const std::size_t k_in = p.m;
    std::vector<double> a(k_out * p.n_h, 0.0), c(k_out, 0.0);
    for (std::size_t r = 0; r < k_out; ++r) {
      const double* wr = w.data() + r * k_in;
      double* ar = a.data() + r * p.n_h;
      double cr = 0.0;
      for (std::size_t j = 0; j < k_in; ++j) {
        const double wj = wr[j];
        if (wj == 0.0) continue;
        cr += wj * p.c[j];
        if (p.diagonal) {
          ar[p.perm[j]] += wj * p.s[j];
        } else {
          const double* aj = p.a.data() + j * p.n_h;
          for (std::size_t i = 0; i < p.n_h; ++i) ar[i] += wj * aj[i];
        }
      }
      c[r] = cr;
    }
    p.a = std::move(a);
    p.c = std::move(c);
    p.s.clear();
    p.diagonal = false;
    p.m = k_out;
  }

  // The running tensor as a vector: every dimension but one is 1 (the batch of one).
  std::size_t vector_width(const Node& n) const {
    std::size_t big = 0;
    for (const auto d : shape_) {
      if (d != 1) ++big;
    }
    if (big > 1) {
      bad(n, fmt::format("multiplies a tensor of shape {}; assay imports networks on one input "
                         "vector (batch size 1)",
                         shape_text(shape_)));
    }
    return elements();
  }

  void matmul(const Node& n, const Operands& o) {
    check_open(n);
    if (n.inputs.size() != 2)
      bad(n, fmt::format("expects two operands, found {}", n.inputs.size()));
    const Tensor* w = o.constant[o.running == 0 ? 1 : 0];
    if (!w || w->dims.size() != 2) bad(n, "expects a constant 2-D matrix operand");
    const std::size_t width = vector_width(n);
    const auto rows = static_cast<std::size_t>(w->dims[0]);
    const auto cols = static_cast<std::size_t>(w->dims[1]);
    std::vector<double> t;
    if (o.running == 0) {  // x [.., k_in] times W [k_in, k_out]
      if (shape_.back() != static_cast<std::int64_t>(rows) || rows != width) {
        bad(n,
            fmt::format("multiplies shape {} by a {}x{} matrix", shape_text(shape_), rows, cols));
      }
      t.resize(rows * cols);
      for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = 0; j < cols; ++j) t[j * rows + i] = w->values[i * cols + j];
      }
      apply_matrix(t, cols);
      shape_.back() = static_cast<std::int64_t>(cols);
    } else {  // W [k_out, k_in] times x [k_in, 1] or [k_in]
      if (cols != width || shape_.empty() || (shape_.size() >= 2 && shape_.back() != 1) ||
          (shape_.size() == 1 && shape_[0] != static_cast<std::int64_t>(cols))) {
        bad(n,
            fmt::format("multiplies a {}x{} matrix by shape {}", rows, cols, shape_text(shape_)));
      }
      apply_matrix(w->values, rows);
      if (shape_.size() == 1) {
        shape_ = {static_cast<std::int64_t>(rows)};
      } else {
        shape_[shape_.size() - 2] = static_cast<std::int64_t>(rows);
      }
    }
  }

  void gemm(const Node& n, const Operands& o) {
    check_open(n);
    if (o.running != 0) bad(n, "expects the running tensor as its first operand A");
    if (n.inputs.size() < 2 || !o.constant[1] || o.constant[1]->dims.size() != 2) {
      bad(n, "expects a constant 2-D matrix B");
    }
    auto attr_i = [&](const char* name, std::int64_t def) {
      const auto* a = n.attribute(name);
      return a ? a->i : def;
    };
    auto attr_f = [&](const char* name, double def) {
      const auto* a = n.attribute(name);
      return a ? static_cast<double>(a->f) : def;
    };
    if (attr_i("transA", 0) != 0) bad(n, "transA = 1 is not supported");
    const bool trans_b = attr_i("transB", 0) != 0;
    const double alpha = attr_f("alpha", 1.0), beta = attr_f("beta", 1.0);
    for (const auto& [name, v] : {std::pair{"alpha", alpha}, std::pair{"beta", beta}}) {
      if (!std::isfinite(v))
        bad(n, fmt::format("attribute {} is {}, expected a finite number", name, v));
    }
    const Tensor& b = *o.constant[1];
    const auto d0 = static_cast<std::size_t>(b.dims[0]), d1 = static_cast<std::size_t>(b.dims[1]);
    const std::size_t k_in = trans_b ? d1 : d0, k_out = trans_b ? d0 : d1;
    const std::size_t width = vector_width(n);
    if (shape_.size() != 2 || shape_[0] != 1 || width != k_in) {
      bad(n, fmt::format("multiplies shape {} by B of shape {} (transB = {})", shape_text(shape_),
                         shape_text(b.dims), trans_b ? 1 : 0));
    }
    std::vector<double> t(k_out * k_in);
    for (std::size_t r = 0; r < k_out; ++r) {
      for (std::size_t j = 0; j < k_in; ++j) {
        t[r * k_in + j] = alpha * (trans_b ? b.values[r * d1 + j] : b.values[j * d1 + r]);
      }
    }
    apply_matrix(t, k_out);
    shape_ = {1, static_cast<std::int64_t>(k_out)};
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      const Tensor* c = o.constant[2];
      if (!c) bad(n, "expects a constant C");
      const auto add = broadcast(n, *c);
      for (std::size_t r = 0; r < k_out; ++r) pending_.c[r] += beta * add[r];
    }
  }

  // A constant broadcast (numpy rules) to the running tensor's shape; it must not grow it.
  std::vector<double> broadcast(const Node& n, const Tensor& t) const {
    const std::size_t r = shape_.size(), tr = t.dims.size();
    if (tr > r) {
      bad(n, fmt::format("constant of shape {} would grow the running tensor of shape {}",
                         shape_text(t.dims), shape_text(shape_)));
    }
    for (std::size_t i = 0; i < tr; ++i) {
      const auto d = t.dims[tr - 1 - i], s = shape_[r - 1 - i];
      if (d != 1 && d != s) {
        bad(n, fmt::format("constant of shape {} does not broadcast to shape {}",
                           shape_text(t.dims), shape_text(shape_)));
      }
    }
    const std::size_t total = elements();
    std::vector<double> out(total);
    for (std::size_t flat = 0; flat < total; ++flat) {
      std::size_t rest = flat, index = 0, stride = 1;
      for (std::size_t i = 0; i < r; ++i) {
        const std::size_t s = static_cast<std::size_t>(shape_[r - 1 - i]);
        const std::size_t coord = rest % s;
        rest /= s;
        if (i < tr) {
          const auto d = static_cast<std::size_t>(t.dims[tr - 1 - i]);
          if (d != 1) index += coord * stride;
          stride *= d;
        }
      }
      out[flat] = t.values[index];
    }
    return out;
  }

  void negate() {
    Pending& p = pending_;
    for (auto& v : p.c) v = -v;
    for (auto& v : p.diagonal ? p.s : p.a) v = -v;
  }

  void scale(const std::vector<double>& k) {
    Pending& p = pending_;
    for (std::size_t r = 0; r < p.m; ++r) {
      p.c[r] *= k[r];
      if (p.diagonal) {
        p.s[r] *= k[r];
      } else {
        for (std::size_t i = 0; i < p.n_h; ++i) p.a[r * p.n_h + i] *= k[r];
      }
    }
  }

  void elementwise(const Node& n, const Operands& o) {
    check_open(n);
    if (n.inputs.size() != 2) bad(n, "expects two operands");
    const Tensor* t = o.constant[o.running == 0 ? 1 : 0];
    if (!t) bad(n, "expects a constant second operand");  // an omitted ("") input
    const auto k = broadcast(n, *t);
    const std::string& op = n.op_type;
    const bool running_first = o.running == 0;
    if (op == "Add") {
      for (std::size_t r = 0; r < k.size(); ++r) pending_.c[r] += k[r];
    } else if (op == "Sub") {
      if (running_first) {
        for (std::size_t r = 0; r < k.size(); ++r) pending_.c[r] -= k[r];
      } else {  // k - x
        negate();
        for (std::size_t r = 0; r < k.size(); ++r) pending_.c[r] += k[r];
      }
    } else if (op == "Mul") {
      scale(k);
    } else {
      if (!running_first) bad(n, "divides a constant by the running tensor (not affine)");
      for (std::size_t r = 0; r < k.size(); ++r) {
        if (k[r] == 0.0) bad(n, fmt::format("divides by zero (element {})", r));
      }
      // Divide rather than multiply by the reciprocal, so values match x / k exactly.
      Pending& p = pending_;
      for (std::size_t r = 0; r < p.m; ++r) {
        p.c[r] /= k[r];
        if (p.diagonal) {
          p.s[r] /= k[r];
        } else {
          for (std::size_t i = 0; i < p.n_h; ++i) p.a[r * p.n_h + i] /= k[r];
        }
      }
    }
  }

  void batch_norm(const Node& n, const Operands& o) {
    check_open(n);
    if (o.running != 0 || n.inputs.size() < 5) {
      bad(n, "expects the running tensor, scale, B, mean and var");
    }
    for (int i = 1; i < 5; ++i) {
      if (!o.constant[i]) bad(n, "scale, B, mean and var must be constants");
    }
    if (shape_.size() < 2) bad(n, "needs an input of rank >= 2 (batch, channels, ...)");
    const auto* e = n.attribute("epsilon");
    const double eps = e ? static_cast<double>(e->f) : 1e-5;
    if (!std::isfinite(eps))
      bad(n, fmt::format("attribute epsilon is {}, expected a finite number", eps));
    const auto channels = static_cast<std::size_t>(shape_[1]);
    std::size_t inner = 1;
    for (std::size_t i = 2; i < shape_.size(); ++i) inner *= static_cast<std::size_t>(shape_[i]);
    for (int i = 1; i < 5; ++i) {
      if (o.constant[i]->values.size() != channels) {
        bad(n, fmt::format("{} has {} values for {} channels", quote_found(n.inputs[i]),
                           o.constant[i]->values.size(), channels));
      }
    }
    const auto& sc = o.constant[1]->values;
    const auto& bias = o.constant[2]->values;
    const auto& mean = o.constant[3]->values;
    const auto& var = o.constant[4]->values;
    const std::size_t total = elements();
    std::vector<double> mul(total), add(total);
    for (std::size_t f = 0; f < total; ++f) {
      const std::size_t ch = (f / inner) % channels;
      if (!(var[ch] + eps > 0)) bad(n, fmt::format("variance + epsilon <= 0 in channel {}", ch));
      mul[f] = sc[ch] / std::sqrt(var[ch] + eps);
      add[f] = bias[ch] - mean[ch] * mul[f];
    }
    scale(mul);
    for (std::size_t r = 0; r < total; ++r) pending_.c[r] += add[r];
  }

  // --- activations ------------------------------------------------------------------------
  void close(const Node& n, Activation act) {
    check_open(n);
    Pending& p = pending_;
    Layer layer;
    layer.n_in = p.n_h;
    layer.n_out = p.m;
    layer.bias = p.c;
    layer.activation = act;
    if (p.diagonal) {
      layer.weights.assign(p.m * p.n_h, 0.0);
      for (std::size_t i = 0; i < p.m; ++i) layer.weights[i * p.n_h + p.perm[i]] = p.s[i];
    } else {
      layer.weights = p.a;
    }
    model_.layers.push_back(std::move(layer));
    p.reset(p.m);
  }

  void softmax(const Node& n) {
    std::size_t big = 0;
    for (const auto d : shape_) big += d != 1;
    if (big > 1)
      bad(n, fmt::format("applies to shape {}; expected one vector", shape_text(shape_)));
    close(n, Activation::softmax);
    closed_softmax_ = true;
  }

  void constant_node(const Node& n) {
    Tensor t;
    bool found = false;
    for (const auto& a : n.attributes) {
      if (a.name == "value" && a.has_t) {
        t = a.t;
        found = true;
      } else if (a.name == "value_float") {
        t.values = {static_cast<double>(a.f)};
        found = true;
      } else if (a.name == "value_floats") {
        t.values.assign(a.floats.begin(), a.floats.end());
        t.dims = {static_cast<std::int64_t>(a.floats.size())};
        found = true;
      } else if (a.name == "value_int") {
        t.values = {static_cast<double>(a.i)};
        found = true;
      } else if (a.name == "value_ints") {
        for (const auto v : a.ints) t.values.push_back(static_cast<double>(v));
        t.dims = {static_cast<std::int64_t>(a.ints.size())};
        found = true;
      }
    }
    if (!found) bad(n, "has no value attribute assay reads (value, value_float(s), value_int(s))");
    t.name = n.outputs.front();
    add_constant(t);
  }

  // --- operators on the running tensor that change no value -----------------------------
  // Dropout at inference passes its input through; in training mode it drops values at random.
  void dropout(const Node& n, const Operands& o) {
    if (o.running != 0) bad(n, "expects the running tensor as its data input");
    const auto* is_test = n.attribute("is_test");  // opset <= 6
    bool training = is_test && is_test->i == 0;
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      const Tensor* mode = o.constant[2];
      if (!mode) bad(n, "expects a constant training_mode");
      training = !mode->values.empty() && mode->values[0] != 0.0;
    }
    if (training) {
      bad(n,
          "runs in training mode (drops values at random); export the network in inference "
          "mode (PyTorch: model.eval())");
    }
  }

  static std::string type_name(std::int64_t t) {
    static const char* const kNames[] = {"undefined",  "float",   "uint8",  "int8",   "uint16",
                                         "int16",      "int32",   "int64",  "string", "bool",
                                         "float16",    "double",  "uint32", "uint64", "complex64",
                                         "complex128", "bfloat16"};
    return t >= 0 && t < 17 ? kNames[t] : fmt::format("type {}", t);
  }

  // A Cast to float or double changes nothing here (values are computed in double).
  void cast(const Node& n) {
    const auto* to = n.attribute("to");
    const std::int64_t type = to ? to->i : 0;
    if (type != onnx::kFloat && type != onnx::kDouble) {
      bad(n, fmt::format("casts the running tensor to {}, which changes its values; assay imports "
                         "networks computing on float or double",
                         type_name(type)));
    }
  }

  // The running tensor's elements reordered: the pending map's rows follow them.
  void transpose(const Node& n) {
    const std::vector<std::int64_t> perm = transpose_perm(n, shape_.size());
    auto [to, from] = transposed(shape_, perm);
    pending_.permute_rows(from);
    shape_ = std::move(to);
  }

  std::vector<std::int64_t> transpose_perm(const Node& n, std::size_t rank) const {
    std::vector<std::int64_t> perm;
    if (const auto* a = n.attribute("perm")) perm = a->ints;
    if (perm.empty()) {
      for (std::size_t k = rank; k-- > 0;) perm.push_back(static_cast<std::int64_t>(k));
    }
    std::vector<char> seen(rank, 0);
    for (const auto k : perm) {
      if (perm.size() != rank || k < 0 || k >= static_cast<std::int64_t>(rank) || seen[k]++) {
        bad(n, fmt::format("perm {} is not a permutation of the {} axes", shape_text(perm), rank));
      }
    }
    return perm;
  }

  // Pad that adds nothing (all pads 0) changes nothing; real padding is refused.
  void pad(const Node& n, const Operands& o) {
    std::vector<double> pads;
    if (const auto* a = n.attribute("pads")) pads.assign(a->ints.begin(), a->ints.end());
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
      if (!o.constant[1]) bad(n, "expects constant pads");
      pads = o.constant[1]->values;
    }
    if (std::any_of(pads.begin(), pads.end(), [](double v) { return v != 0.0; })) {
      bad(n, "pads the tensor; assay imports Pad only when it adds nothing");
    }
  }

  // --- constant folding ------------------------------------------------------------------
  // Exporters compute shapes inside the graph: PyTorch's x.view(x.size(0), -1) becomes Shape ->
  // Gather -> Unsqueeze -> Concat -> Reshape, and tf2onnx casts and reshapes constants. A node
  // whose inputs are all constants, and Shape of a tensor whose shape is known, is evaluated
  // here into a new constant; false for a node that computes on the running tensor.
  bool fold(const Node& n) {
    if (n.op_type == "Shape") {
      shape_node(n);
      return true;
    }
    std::vector<const Tensor*> in;
    for (const auto& name : n.inputs) {
      if (name.empty()) {
        in.push_back(nullptr);
        continue;
      }
      const auto it = constants_.find(name);
      if (it == constants_.end()) return false;
      in.push_back(&it->second);
    }
    if (in.empty() || !in[0]) return false;
    Tensor t = evaluate(n, in);
    t.name = n.outputs.front();
    add_constant(t);
    return true;
  }

  void shape_node(const Node& n) {
    if (n.inputs.empty()) bad(n, "has no input");
    const std::string& of = n.inputs[0];
    std::vector<std::int64_t> dims;
    if (const auto it = shapes_.find(of); it != shapes_.end()) {
      dims = it->second;
    } else if (const auto c = constants_.find(of); c != constants_.end()) {
      dims = c->second.dims;
    } else {
      bad(n, fmt::format("takes the shape of {}, which is neither a constant nor a tensor of the "
                         "chain",
                         quote_found(of)));
    }
    const auto r = static_cast<std::int64_t>(dims.size());
    auto bound = [&](const char* name, std::int64_t fallback) {
      const auto* a = n.attribute(name);
      std::int64_t v = a ? a->i : fallback;
      if (v < 0) v += r;
      return std::clamp<std::int64_t>(v, 0, r);
    };
    const std::int64_t start = bound("start", 0), end = bound("end", r);
    Tensor t;
    t.data_type = onnx::kInt64;
    for (std::int64_t i = start; i < end; ++i) t.values.push_back(static_cast<double>(dims[i]));
    t.dims = {static_cast<std::int64_t>(t.values.size())};
    t.name = n.outputs.front();
    add_constant(t);
  }

  // The value of an operator on constant inputs (in[0] is present).
  Tensor evaluate(const Node& n, const std::vector<const Tensor*>& in) const {
    const std::string& op = n.op_type;
    const Tensor& x = *in[0];
    auto input = [&](std::size_t i) { return i < in.size() ? in[i] : nullptr; };
    Tensor t = x;
    if (op == "Identity" || op == "Dropout") return t;
    if (op == "Cast") return cast_constant(n, x);
    if (op == "Reshape") {
      if (!input(1)) bad(n, "expects a constant shape");
      t.dims = reshaped(n, x.dims, input(1)->values);
      return t;
    }
    if (op == "Flatten") {
      const auto* a = n.attribute("axis");
      const auto r = static_cast<std::int64_t>(x.dims.size());
      std::int64_t axis = a ? a->i : 1;
      if (axis < 0) axis += r;
      if (axis < 0 || axis > r) bad(n, fmt::format("axis {} out of range for rank {}", axis, r));
      std::int64_t outer = 1;
      for (std::int64_t i = 0; i < axis; ++i) outer *= x.dims[i];
      t.dims = {outer, outer == 0 ? 0 : element_count(x.dims) / outer};
      return t;
    }
    if (op == "Squeeze" || op == "Unsqueeze") {
      t.dims = squeezed(n, x.dims, input(1));
      return t;
    }
    if (op == "Transpose") {
      auto [to, from] = transposed(x.dims, transpose_perm(n, x.dims.size()));
      t.dims = to;
      for (std::size_t i = 0; i < from.size(); ++i) t.values[i] = x.values[from[i]];
      return t;
    }
    if (op == "Neg") {
      for (auto& v : t.values) v = -v;
      return t;
    }
    if (op == "Concat") return concat_constants(n, in);
    if (op == "Gather") return gather_constant(n, x, input(1));
    if (op == "Slice") return slice_constant(n, in);
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
      if (!input(1)) bad(n, "expects two operands");
      return binary_constants(n, x, *input(1));
    }
    if (op == "ConstantOfShape") {
      t = Tensor();
      t.data_type = onnx::kFloat;
      double value = 0.0;
      if (const auto* a = n.attribute("value"); a && a->has_t && !a->t.values.empty()) {
        value = a->t.values[0];
        t.data_type = a->t.data_type;
      }
      for (const double d : x.values) {
        const std::int64_t size = to_index(d);
        if (size < 0 || size > static_cast<std::int64_t>(kMaxInputs)) {
          bad(n, fmt::format("shape entry {} is out of range", size));
        }
        t.dims.push_back(size);
      }
      const std::int64_t count = element_count(t.dims);
      if (count > static_cast<std::int64_t>(kMaxInputs)) {
        bad(n, fmt::format("makes {} elements, more than {}", count, kMaxInputs));
      }
      t.values.assign(static_cast<std::size_t>(count), value);
      return t;
    }
    bad(n, fmt::format("computes on constants with an operator assay does not evaluate; it "
                       "evaluates {} on constants",
                       kFolded));
  }

  // Constants computed at import time are shapes and small tables: a hostile graph could make
  // one of billions of elements from small inputs.
  void check_folded_size(const Node& n, double elements) const {
    if (elements > static_cast<double>(kMaxInputs)) {
      bad(n, fmt::format("computes a constant of {:.0f} elements, more than {}", elements,
                         kMaxInputs));
    }
  }

  static bool is_integer_type(std::int32_t type) {
    return type == 2 || type == 3 || type == 4 || type == 5 || type == 6 || type == 7 ||
           type == 12 || type == 13;
  }

  Tensor cast_constant(const Node& n, const Tensor& x) const {
    const auto* to = n.attribute("to");
    if (!to) bad(n, "has no 'to' attribute");
    Tensor t = x;
    t.data_type = static_cast<std::int32_t>(to->i);
    for (auto& v : t.values) {
      if (is_integer_type(t.data_type)) {
        v = std::trunc(v);
      } else if (t.data_type == 9) {  // bool
        v = v != 0.0 ? 1.0 : 0.0;
      } else if (t.data_type == onnx::kFloat) {
        v = static_cast<float>(v);
      } else if (t.data_type != onnx::kDouble) {
        bad(n, fmt::format("casts a constant to {}", type_name(t.data_type)));
      }
    }
    return t;
  }

  Tensor concat_constants(const Node& n, const std::vector<const Tensor*>& in) const {
    const auto* a = n.attribute("axis");
    if (!a) bad(n, "has no 'axis' attribute");
    const auto rank = static_cast<std::int64_t>(in[0]->dims.size());
    const std::int64_t axis = a->i < 0 ? a->i + rank : a->i;
    if (rank == 0 || axis < 0 || axis >= rank) {
      bad(n, fmt::format("axis {} out of range for rank {}", a->i, rank));
    }
    Tensor t = *in[0];
    t.dims[axis] = 0;
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t i = 0; i < rank; ++i) {
      if (i < axis) outer *= t.dims[i];
      if (i > axis) inner *= t.dims[i];
    }
    for (const Tensor* x : in) {
      if (!x) bad(n, "has an omitted input");
      bool same = x->dims.size() == t.dims.size();
      for (std::int64_t i = 0; same && i < rank; ++i) same = i == axis || x->dims[i] == t.dims[i];
      if (!same) {
        bad(n, fmt::format("joins shapes {} and {}", shape_text(in[0]->dims), shape_text(x->dims)));
      }
      t.dims[axis] += x->dims[axis];
    }
    t.values.clear();
    for (std::int64_t o = 0; o < outer; ++o) {
      for (const Tensor* x : in) {
        const std::int64_t run = x->dims[axis] * inner;
        const auto first = x->values.begin() + o * run;
        t.values.insert(t.values.end(), first, first + run);
      }
    }
    return t;
  }

  Tensor gather_constant(const Node& n, const Tensor& x, const Tensor* indices) const {
    if (!indices) bad(n, "expects constant indices");
    const auto* a = n.attribute("axis");
    const auto rank = static_cast<std::int64_t>(x.dims.size());
    const std::int64_t axis = a ? (a->i < 0 ? a->i + rank : a->i) : 0;
    if (axis < 0 || axis >= rank)
      bad(n, fmt::format("axis {} out of range for rank {}", axis, rank));
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t i = 0; i < rank; ++i) {
      if (i < axis) outer *= x.dims[i];
      if (i > axis) inner *= x.dims[i];
    }
    const std::int64_t size = x.dims[axis];
    Tensor t;
    t.data_type = x.data_type;
    t.dims.assign(x.dims.begin(), x.dims.begin() + axis);
    t.dims.insert(t.dims.end(), indices->dims.begin(), indices->dims.end());
    t.dims.insert(t.dims.end(), x.dims.begin() + axis + 1, x.dims.end());
    check_folded_size(n, static_cast<double>(outer) * static_cast<double>(inner) *
                             static_cast<double>(indices->values.size()));
    for (std::int64_t o = 0; o < outer; ++o) {
      for (const double v : indices->values) {
        std::int64_t k = to_index(v);
        if (k < 0) k += size;
        if (k < 0 || k >= size) bad(n, fmt::format("index {} out of range for size {}", v, size));
        const auto first = x.values.begin() + (o * size + k) * inner;
        t.values.insert(t.values.end(), first, first + inner);
      }
    }
    return t;
  }

  // Slice by starts, ends, axes and steps (inputs since opset 10, attributes before).
  Tensor slice_constant(const Node& n, const std::vector<const Tensor*>& in) const {
    const Tensor& x = *in[0];
    auto list = [&](std::size_t input, const char* attribute) {
      std::vector<std::int64_t> out;
      if (input < in.size() && in[input]) {
        for (const double v : in[input]->values) out.push_back(to_index(v));
      } else if (const auto* a = n.attribute(attribute)) {
        out = a->ints;
      }
      return out;
    };
    const auto starts = list(1, "starts"), ends = list(2, "ends");
    auto axes = list(3, "axes"), steps = list(4, "steps");
    const auto rank = static_cast<std::int64_t>(x.dims.size());
    if (axes.empty()) {
      for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size()) {
      bad(n, "starts, ends, axes and steps differ in length");
    }
    std::vector<std::int64_t> first(rank, 0), step(rank, 1), count(x.dims);
    for (std::size_t i = 0; i < starts.size(); ++i) {
      const std::int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (axis < 0 || axis >= rank) bad(n, fmt::format("axis {} out of range", axes[i]));
      const std::int64_t dim = x.dims[axis], s = steps[i];
      if (s == 0) bad(n, "has a step of 0");
      auto clamp_index = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) {
        return std::clamp(v < 0 ? v + dim : v, lo, hi);
      };
      const std::int64_t b =
          s > 0 ? clamp_index(starts[i], 0, dim) : clamp_index(starts[i], 0, dim - 1);
      const std::int64_t e =
          s > 0 ? clamp_index(ends[i], 0, dim) : clamp_index(ends[i], -1, dim - 1);
      first[axis] = b;
      step[axis] = s;
      count[axis] = s > 0 ? std::max<std::int64_t>(0, (e - b + s - 1) / s)
                          : std::max<std::int64_t>(0, (b - e - s - 1) / -s);
    }
    Tensor t;
    t.data_type = x.data_type;
    t.dims = count;
    const std::int64_t total = element_count(count);
    std::vector<std::int64_t> stride(rank, 1), index(rank, 0);
    for (std::int64_t i = rank - 1; i > 0; --i) stride[i - 1] = stride[i] * x.dims[i];
    for (std::int64_t f = 0; f < total; ++f) {
      std::int64_t source = 0;
      for (std::int64_t k = 0; k < rank; ++k) source += (first[k] + index[k] * step[k]) * stride[k];
      t.values.push_back(x.values[source]);
      for (std::int64_t k = rank; k-- > 0;) {
        if (++index[k] < count[k]) break;
        index[k] = 0;
      }
    }
    return t;
  }

  // a op b with numpy broadcasting; integer division truncates, as ONNX's does.
  Tensor binary_constants(const Node& n, const Tensor& a, const Tensor& b) const {
    const std::size_t r = std::max(a.dims.size(), b.dims.size());
    auto dim = [&](const Tensor& t, std::size_t i) {  // i-th of r dims, right-aligned
      const std::size_t pad = r - t.dims.size();
      return i < pad ? std::int64_t{1} : t.dims[i - pad];
    };
    Tensor t;
    t.data_type = a.data_type;
    for (std::size_t i = 0; i < r; ++i) {
      const std::int64_t da = dim(a, i), db = dim(b, i);
      if (da != db && da != 1 && db != 1) {
        bad(n, fmt::format("shapes {} and {} do not broadcast", shape_text(a.dims),
                           shape_text(b.dims)));
      }
      t.dims.push_back(da == 1 ? db : da);
    }
    check_folded_size(n, static_cast<double>(element_count(t.dims)));
    const std::int64_t total = element_count(t.dims);
    std::vector<std::int64_t> index(r, 0);
    const bool integer = is_integer_type(a.data_type);
    for (std::int64_t f = 0; f < total; ++f) {
      std::int64_t ia = 0, ib = 0;
      for (std::size_t i = 0; i < r; ++i) {
        ia = ia * dim(a, i) + (dim(a, i) == 1 ? 0 : index[i]);
        ib = ib * dim(b, i) + (dim(b, i) == 1 ? 0 : index[i]);
      }
      const double x = a.values[ia], y = b.values[ib];
      double v = 0;
      if (n.op_type == "Add") v = x + y;
      if (n.op_type == "Sub") v = x - y;
      if (n.op_type == "Mul") v = x * y;
      if (n.op_type == "Div") {
        if (integer && y == 0) bad(n, "divides an integer by zero");
        v = integer ? std::trunc(x / y) : x / y;
      }
      t.values.push_back(v);
      for (std::size_t k = r; k-- > 0;) {
        if (++index[k] < t.dims[k]) break;
        index[k] = 0;
      }
    }
    return t;
  }

  void finish() {
    const auto& outs = proto_.graph.outputs;
    if (outs.size() != 1) {
      fail("{}: the graph has {} outputs; assay imports one-output networks", where_, outs.size());
    }
    if (outs[0].name != running_) {
      fail("{}: the graph output {} is not the last computed tensor {}", where_,
           quote_found(outs[0].name), quote_found(running_));
    }
    if (model_.layers.empty() || !pending_.identity()) {
      Node end;
      end.name = "(graph output)";
      end.op_type = "Identity";
      end.outputs = {running_};
      close(end, Activation::identity);
    }
    check_output_shape(outs[0]);
    model_.kind = ModelKind::network;
    model_.n_outputs = model_.layers.back().n_out;
    model_.source =
        proto_.producer.empty() ? std::string("onnx") : fmt::format("onnx:{}", proto_.producer);
    const Activation last = model_.layers.back().activation;
    if (model_.n_outputs >= 2) {
      model_.classification = true;
      for (std::size_t k = 0; k < model_.n_outputs; ++k)
        model_.classes.push_back(std::to_string(k));
    } else if (last == Activation::logistic) {
      model_.classification = true;
      model_.classes = {"0", "1"};
    } else {
      model_.classification = false;
    }
    try {
      validate(model_);
    } catch (const Error& e) {  // e.g. weights that overflow when affine operators are composed
      fail("{}: {} (in the dense layers folded from the graph)", where_, e.message());
    }
  }

  void check_output_shape(const onnx::ValueInfo& out) const {
    if (!out.has_shape) return;
    std::size_t n = 1;
    for (std::size_t i = 0; i < out.dims.size(); ++i) {
      if (out.dims[i] < 0) continue;  // symbolic (batch)
      n *= static_cast<std::size_t>(out.dims[i]);
    }
    if (n != pending_.m) {
      fail("{}: the graph output {} declares {} elements, the graph computes {}", where_,
           quote_found(out.name), n, pending_.m);
    }
  }

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

std::string read_bytes(const std::string& path) {
  return detail::read_input_file(path, "an ONNX file",
                                 fmt::format("cannot open ONNX file {}", quote_found(path)));
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Model parse_onnx(std::string_view bytes, const std::string& where) {
  const onnx::ModelProto proto = onnx::decode_model(bytes, where);
  return Importer(proto, where).run();
}

Model load_onnx(const std::string& path) {
  return parse_onnx(read_bytes(path), path);
}

// By content: ONNX's protobuf and JSON text cannot be mistaken for each other, so a network
// saved as "net.json" or a JSON model named ".onnx" still loads.
Model load_any_model(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  const std::string bytes = detail::read_input_file(
      path, "a model file", fmt::format("cannot open model file \"{}\"", path));
  const std::size_t text = bytes.find_first_not_of(" \t\r\n");
  const bool json = text != std::string::npos && (bytes[text] == '{' || bytes[text] == '[');
  if (!json && (detail::looks_like_onnx(bytes) || ends_with(lower, ".onnx")))
    return parse_onnx(bytes, path);
  return parse_model(bytes, path);
}

}  // namespace assay::count
