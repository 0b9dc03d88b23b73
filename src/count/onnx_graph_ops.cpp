// The graph importer's operators (onnx_graph.hpp): each linear operator as a sparse matrix
// composed into the pending map of its input (Conv, AveragePool, Pad, Transpose, Gemm, MatMul,
// BatchNormalization, Concat, element-wise constants, residual Add/Sub), MaxPool as a node of
// windows, and shape-only operators.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "onnx_graph.hpp"

namespace assay::count::onnx_import {

namespace {

// Entries a single operator's matrix may have (a convolution over a large image is refused
// before it is built).
constexpr double kMaxEntries = 200'000'000;

// v <- diag(k) v (or v / k), every term and the bias.
void scale_value(GraphValue& v, const std::vector<double>& k, bool divide) {
  for (auto& t : v.terms) {
    for (std::size_t r = 0; r < t.matrix.rows; ++r) {
      for (std::size_t e = t.matrix.row_start[r]; e < t.matrix.row_start[r + 1]; ++e) {
        t.matrix.value[e] = divide ? t.matrix.value[e] / k[r] : t.matrix.value[e] * k[r];
      }
    }
  }
  for (std::size_t r = 0; r < v.bias.size(); ++r)
    v.bias[r] = divide ? v.bias[r] / k[r] : v.bias[r] * k[r];
}

}  // namespace

std::vector<std::int64_t> GraphImporter::ints_attribute(const Node& n, const char* name,
                                                        std::size_t count,
                                                        std::int64_t fallback) const {
  const auto* a = n.attribute(name);
  if (!a) return std::vector<std::int64_t>(count, fallback);
  if (a->ints.size() != count) {
    bad(n, fmt::format("attribute {} has {} values, expected {} (a 2-D window)", name,
                       a->ints.size(), count));
  }
  return a->ints;
}

Window GraphImporter::window(const Node& n, const std::vector<std::int64_t>& shape,
                             const std::int64_t kernel[2]) const {
  Window w;
  const auto strides = ints_attribute(n, "strides", 2, 1);
  const auto dilations = ints_attribute(n, "dilations", 2, 1);
  auto pads = ints_attribute(n, "pads", 4, 0);
  const auto* auto_pad = n.attribute("auto_pad");
  const std::string mode = auto_pad ? auto_pad->s : "NOTSET";
  if (mode != "NOTSET" && mode != "VALID" && mode != "SAME_UPPER" && mode != "SAME_LOWER") {
    bad(n, fmt::format("auto_pad {} is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER",
                       quote_found(mode)));
  }
  for (int i = 0; i < 2; ++i) w.kernel[i] = kernel[i];
  for (int i = 0; i < 2; ++i) {
    w.stride[i] = strides[i];
    w.dilation[i] = dilations[i];
    w.in[i] = shape[2 + i];
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1) {
      bad(n, fmt::format("kernel {}, strides {} and dilations {} must be positive",
                         fmt::join(std::vector<std::int64_t>{kernel[0], kernel[1]}, "x"),
                         fmt::join(strides, "x"), fmt::join(dilations, "x")));
    }
    const std::int64_t extent = w.dilation[i] * (w.kernel[i] - 1) + 1;
    if (mode == "VALID") {
      pads[i] = pads[i + 2] = 0;
    } else if (mode != "NOTSET") {
      const std::int64_t out = (w.in[i] + w.stride[i] - 1) / w.stride[i];
      const std::int64_t total =
          std::max<std::int64_t>(0, (out - 1) * w.stride[i] + extent - w.in[i]);
      pads[i] = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[i + 2] = total - pads[i];
    }
    if (pads[i] < 0 || pads[i + 2] < 0)
      bad(n, fmt::format("pads {} are negative", fmt::join(pads, ", ")));
    w.pad_begin[i] = pads[i];
    w.pad_end[i] = pads[i + 2];
    const std::int64_t padded = w.in[i] + w.pad_begin[i] + w.pad_end[i];
    if (padded < extent) {
      bad(n, fmt::format("the kernel {}x{} (dilations {}x{}) is larger than the padded input "
                         "{}x{} (input shape {}, pads {})",
                         w.kernel[0], w.kernel[1], w.dilation[0], w.dilation[1],
                         shape[2] + pads[0] + pads[2], shape[3] + pads[1] + pads[3],
                         shape_text(shape), fmt::join(pads, ", ")));
    }
    w.out[i] = (padded - extent) / w.stride[i] + 1;
  }
  return w;
}

namespace {

// Calls f(in_index) for each input element of output (oy, ox)'s window that is not padding.
template <class F>
void for_window(const Window& w, std::int64_t oy, std::int64_t ox, F f) {
  for (std::int64_t ky = 0; ky < w.kernel[0]; ++ky) {
    const std::int64_t iy = oy * w.stride[0] - w.pad_begin[0] + ky * w.dilation[0];
    if (iy < 0 || iy >= w.in[0]) continue;
    for (std::int64_t kx = 0; kx < w.kernel[1]; ++kx) {
      const std::int64_t ix = ox * w.stride[1] - w.pad_begin[1] + kx * w.dilation[1];
      if (ix < 0 || ix >= w.in[1]) continue;
      f(ky, kx, static_cast<std::size_t>(iy * w.in[1] + ix));
    }
  }
}

}  // namespace

void GraphImporter::conv(const Node& n) {
  const GraphValue& x = value_of(n, 0);
  const Tensor* w = constant_of(n, 1);
  if (!w) bad(n, "expects constant weights W");
  if (w->dims.size() != 4 || x.shape.size() != 4) {
    bad(n, fmt::format("assay imports 2-D convolutions of [N, C, H, W] tensors; found input "
                       "shape {} and weight shape {}",
                       shape_text(x.shape), shape_text(w->dims)));
  }
  if (x.shape[0] != 1)
    bad(n, fmt::format("input shape {}: expected batch size 1", shape_text(x.shape)));
  const auto* g = n.attribute("group");
  const std::int64_t group = g ? g->i : 1;
  const std::int64_t m_out = w->dims[0], cg = w->dims[1], c_in = x.shape[1];
  if (group < 1 || m_out % group != 0) {
    bad(n, fmt::format("group {} does not divide the {} output channels", group, m_out));
  }
  if (cg * group != c_in) {
    bad(n, fmt::format("weight of shape {} (group {}) expects {} input channels; the input "
                       "has shape {} ({} channels)",
                       shape_text(w->dims), group, cg * group, shape_text(x.shape), c_in));
  }
  const std::int64_t kernel[2] = {w->dims[2], w->dims[3]};
  if (const auto* k = n.attribute("kernel_shape");
      k && (k->ints.size() != 2 || k->ints[0] != kernel[0] || k->ints[1] != kernel[1])) {
    bad(n, fmt::format("kernel_shape [{}] differs from the weight's shape {}",
                       fmt::join(k->ints, "x"), shape_text(w->dims)));
  }
  const Tensor* b = constant_of(n, 2);
  if (n.inputs.size() > 2 && !n.inputs[2].empty() && !b) bad(n, "expects a constant bias B");
  if (b && b->values.size() != static_cast<std::size_t>(m_out)) {
    bad(n, fmt::format("bias has {} values for {} output channels", b->values.size(), m_out));
  }
  const Window win = window(n, x.shape, kernel);
  const double rows = static_cast<double>(m_out * win.out[0] * win.out[1]);
  if (rows * static_cast<double>(cg * kernel[0] * kernel[1]) > kMaxEntries) {
    bad(n, fmt::format("its matrix would have up to {:.0f} entries; assay imports at most {:.0f}",
                       rows * static_cast<double>(cg * kernel[0] * kernel[1]), kMaxEntries));
  }
  const auto plane = static_cast<std::size_t>(win.in[0] * win.in[1]);
  SparseBuilder mat(x.size());
  std::vector<double> offset;
  for (std::int64_t m = 0; m < m_out; ++m) {
    const std::int64_t first_channel = (m / (m_out / group)) * cg;
    for (std::int64_t oy = 0; oy < win.out[0]; ++oy) {
      for (std::int64_t ox = 0; ox < win.out[1]; ++ox) {
        for (std::int64_t c = 0; c < cg; ++c) {
          const auto base = static_cast<std::size_t>(first_channel + c) * plane;
          const double* wk = w->values.data() + ((m * cg + c) * kernel[0] * kernel[1]);
          for_window(win, oy, ox, [&](std::int64_t ky, std::int64_t kx, std::size_t in) {
            mat.add(base + in, wk[ky * kernel[1] + kx]);
          });
        }
        mat.end_row();
        offset.push_back(b ? b->values[static_cast<std::size_t>(m)] : 0.0);
      }
    }
  }
  set(n, apply(n, x, mat.m, offset, {1, m_out, win.out[0], win.out[1]}));
}

void GraphImporter::pool(const Node& n, bool max) {
  const GraphValue& x = value_of(n, 0);
  if (x.shape.size() != 4 || x.shape[0] != 1) {
    bad(n, fmt::format("assay imports 2-D pooling of [1, C, H, W] tensors; found shape {}",
                       shape_text(x.shape)));
  }
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) bad(n, "its Indices output is not supported");
  const auto* k = n.attribute("kernel_shape");
  if (!k || k->ints.size() != 2) bad(n, "expects a 2-D kernel_shape attribute");
  if (const auto* c = n.attribute("ceil_mode"); c && c->i != 0) {
    bad(n,
        "ceil_mode = 1 is not supported; export with ceil_mode = 0 (PyTorch: "
        "ceil_mode=False)");
  }
  const Window win = window(n, x.shape, k->ints.data());
  const auto* cip = n.attribute("count_include_pad");
  const bool include_pad = cip && cip->i != 0;
  const auto plane = static_cast<std::size_t>(win.in[0] * win.in[1]);
  SparseBuilder mat(x.size());
  for (std::int64_t c = 0; c < x.shape[1]; ++c) {
    for (std::int64_t oy = 0; oy < win.out[0]; ++oy) {
      for (std::int64_t ox = 0; ox < win.out[1]; ++ox) {
        std::vector<std::size_t> cells;
        for_window(win, oy, ox, [&](std::int64_t, std::int64_t, std::size_t in) {
          cells.push_back(static_cast<std::size_t>(c) * plane + in);
        });
        if (cells.empty()) bad(n, fmt::format("window ({}, {}) covers only padding", oy, ox));
        const double divisor =
            include_pad ? static_cast<double>(win.kernel[0] * win.kernel[1]) : cells.size();
        for (const auto in : cells) mat.add(in, max ? 1.0 : 1.0 / divisor);
        mat.end_row();
      }
    }
  }
  std::vector<std::int64_t> shape = {1, x.shape[1], win.out[0], win.out[1]};
  if (!max) return set(n, apply(n, x, mat.m, {}, shape));
  GraphValue& in = values_.find(n.inputs[0])->second;
  const std::size_t source = materialize(n, in);
  GraphNode node;
  node.op = GraphOp::max_pool;
  node.size = mat.m.rows;
  node.source = source;
  node.pool = std::move(mat.m);
  node.name = n.name.empty() ? n.outputs.front() : n.name;
  net_.nodes.push_back(std::move(node));
  set(n, node_value(net_.nodes.size() - 1, shape));
}

void GraphImporter::global_pool(const Node& n, bool max) {
  const GraphValue& x = value_of(n, 0);
  if (x.shape.size() < 3 || x.shape[0] != 1) {
    bad(n, fmt::format("expects a [1, C, ...] tensor; found shape {}", shape_text(x.shape)));
  }
  const auto channels = static_cast<std::size_t>(x.shape[1]);
  const std::size_t plane = x.size() / channels;
  SparseBuilder mat(x.size());
  for (std::size_t c = 0; c < channels; ++c) {
    for (std::size_t i = 0; i < plane; ++i) mat.add(c * plane + i, max ? 1.0 : 1.0 / plane);
    mat.end_row();
  }
  std::vector<std::int64_t> shape(x.shape.size(), 1);
  shape[1] = x.shape[1];
  if (!max) return set(n, apply(n, x, mat.m, {}, shape));
  GraphValue& in = values_.find(n.inputs[0])->second;
  const std::size_t source = materialize(n, in);
  GraphNode node;
  node.op = GraphOp::max_pool;
  node.size = channels;
  node.source = source;
  node.pool = std::move(mat.m);
  node.name = n.name.empty() ? n.outputs.front() : n.name;
  net_.nodes.push_back(std::move(node));
  set(n, node_value(net_.nodes.size() - 1, shape));
}

void GraphImporter::graph_pad(const Node& n) {
  const GraphValue& x = value_of(n, 0);
  const auto* mode = n.attribute("mode");
  if (mode && mode->s != "constant") {
    bad(n, fmt::format("mode {} is not supported; assay imports constant padding",
                       quote_found(mode->s)));
  }
  std::vector<std::int64_t> pads;
  if (const auto* a = n.attribute("pads")) pads = a->ints;
  double value = 0.0;
  if (const auto* a = n.attribute("value")) value = static_cast<double>(a->f);
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const Tensor* p = constant_of(n, 1);
    if (!p) bad(n, "expects constant pads");
    pads.clear();
    for (const double d : p->values) pads.push_back(to_index(d));
  }
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor* c = constant_of(n, 2);
    if (!c || c->values.size() != 1) bad(n, "expects a constant scalar constant_value");
    value = c->values[0];
  }
  if (n.inputs.size() > 3 && !n.inputs[3].empty()) bad(n, "the axes input is not supported");
  const std::size_t r = x.shape.size();
  if (pads.size() != 2 * r) {
    bad(n, fmt::format("has {} pads for a tensor of rank {}; expected {}", pads.size(), r, 2 * r));
  }
  std::vector<std::int64_t> to(r);
  for (std::size_t i = 0; i < r; ++i) {
    to[i] = x.shape[i] + pads[i] + pads[i + r];
    if (to[i] < 1) bad(n, fmt::format("pads {} leave axis {} empty", fmt::join(pads, ", "), i));
  }
  const auto total = static_cast<std::size_t>(element_count(to));
  SparseBuilder mat(x.size());
  std::vector<double> offset(total, 0.0);
  std::vector<std::int64_t> index(r, 0);
  for (std::size_t f = 0; f < total; ++f) {
    std::int64_t source = 0;
    bool inside = true;
    for (std::size_t i = 0; i < r; ++i) {
      const std::int64_t at = index[i] - pads[i];
      inside = inside && at >= 0 && at < x.shape[i];
      source = source * x.shape[i] + at;
    }
    if (inside) {
      mat.add(static_cast<std::size_t>(source), 1.0);
    } else {
      offset[f] = value;
    }
    mat.end_row();
    for (std::size_t i = r; i-- > 0;) {
      if (++index[i] < to[i]) break;
      index[i] = 0;
    }
  }
  set(n, apply(n, x, mat.m, offset, to));
}

void GraphImporter::graph_transpose(const Node& n) {
  const GraphValue& x = value_of(n, 0);
  auto [to, from] = transposed(x.shape, transpose_perm(n, x.shape.size()));
  SparseBuilder mat(x.size());
  for (const auto f : from) {
    mat.add(f, 1.0);
    mat.end_row();
  }
  set(n, apply(n, x, mat.m, {}, to));
}

void GraphImporter::graph_reshape(const Node& n) {
  GraphValue v = value_of(n, 0);
  const std::string& op = n.op_type;
  if (op == "Flatten") {
    shape_ = v.shape;
    flatten(n);
    v.shape = shape_;
  } else if (op == "Reshape") {
    const Tensor* spec = constant_of(n, 1);
    if (!spec) bad(n, "expects a constant shape");
    v.shape = reshaped(n, v.shape, spec->values);
  } else {
    v.shape = squeezed(n, v.shape, constant_of(n, 1));
  }
  set(n, std::move(v));
}

// Add, Sub, Mul, Div of a computed tensor and a constant (broadcast), and Neg.
void GraphImporter::constant_operand(const Node& n) {
  const std::string& op = n.op_type;
  const std::size_t at = n.inputs.size() > 1 && values_.count(n.inputs[1]) ? 1 : 0;
  GraphValue v = value_of(n, at);
  if (op == "Neg") {
    scale_value(v, std::vector<double>(v.size(), -1.0), false);
    return set(n, std::move(v));
  }
  if (n.inputs.size() != 2) bad(n, "expects two operands");
  const Tensor* t = constant_of(n, 1 - at);
  if (!t) bad(n, fmt::format("expects a constant operand {}", quote_found(n.inputs[1 - at])));
  shape_ = v.shape;
  const auto k = broadcast(n, *t);
  if (op == "Add" || (op == "Sub" && at == 0)) {
    const double sign = op == "Add" ? 1.0 : -1.0;
    for (std::size_t r = 0; r < k.size(); ++r) v.bias[r] += sign * k[r];
  } else if (op == "Sub") {  // k - x
    scale_value(v, std::vector<double>(v.size(), -1.0), false);
    for (std::size_t r = 0; r < k.size(); ++r) v.bias[r] += k[r];
  } else if (op == "Mul") {
    scale_value(v, k, false);
  } else {
    if (at != 0) bad(n, "divides a constant by a computed tensor (not affine)");
    for (std::size_t r = 0; r < k.size(); ++r) {
      if (k[r] == 0.0) bad(n, fmt::format("divides by zero (element {})", r));
    }
    scale_value(v, k, true);
  }
  set(n, std::move(v));
}

// Add or Sub of two computed tensors of one shape (a residual connection).
void GraphImporter::binary(const Node& n) {
  const GraphValue& a = value_of(n, 0);
  const GraphValue& b = value_of(n, 1);
  if (n.op_type == "Mul" || n.op_type == "Div") {
    bad(n,
        "multiplies or divides two computed tensors, which is not an affine map; assay "
        "imports Add and Sub of computed tensors");
  }
  if (a.shape != b.shape) {
    bad(n, fmt::format("adds tensors of shapes {} and {}; assay imports Add and Sub of computed "
                       "tensors of one shape",
                       shape_text(a.shape), shape_text(b.shape)));
  }
  set(n, add_values(a, b, n.op_type == "Sub" ? -1.0 : 1.0));
}

void GraphImporter::graph_batch_norm(const Node& n) {
  GraphValue v = value_of(n, 0);
  if (n.inputs.size() < 5) bad(n, "expects the input, scale, B, mean and var");
  std::vector<const Tensor*> c(5, nullptr);
  for (std::size_t i = 1; i < 5; ++i) {
    c[i] = constant_of(n, i);
    if (!c[i]) bad(n, "scale, B, mean and var must be constants");
  }
  if (v.shape.size() < 2) bad(n, "needs an input of rank >= 2 (batch, channels, ...)");
  const auto* e = n.attribute("epsilon");
  const double eps = e ? static_cast<double>(e->f) : 1e-5;
  const auto channels = static_cast<std::size_t>(v.shape[1]);
  for (std::size_t i = 1; i < 5; ++i) {
    if (c[i]->values.size() != channels) {
      bad(n, fmt::format("{} has {} values for {} channels", quote_found(n.inputs[i]),
                         c[i]->values.size(), channels));
    }
  }
  const std::size_t inner = v.size() / std::max<std::size_t>(channels, 1);
  std::vector<double> mul(v.size()), add(v.size());
  for (std::size_t f = 0; f < v.size(); ++f) {
    const std::size_t ch = f / inner;
    const double var = c[4]->values[ch] + eps;
    if (!(var > 0)) bad(n, fmt::format("variance + epsilon <= 0 in channel {}", ch));
    mul[f] = c[1]->values[ch] / std::sqrt(var);
    add[f] = c[2]->values[ch] - c[3]->values[ch] * mul[f];
  }
  scale_value(v, mul, false);
  for (std::size_t f = 0; f < v.size(); ++f) v.bias[f] += add[f];
  set(n, std::move(v));
}

void GraphImporter::graph_gemm(const Node& n) {
  const GraphValue& x = value_of(n, 0);
  const Tensor* b = constant_of(n, 1);
  if (!b || b->dims.size() != 2) bad(n, "expects a constant 2-D matrix B");
  const auto* ta = n.attribute("transA");
  if (ta && ta->i != 0) bad(n, "transA = 1 is not supported");
  const auto* tb = n.attribute("transB");
  const bool trans_b = tb && tb->i != 0;
  const auto* al = n.attribute("alpha");
  const auto* be = n.attribute("beta");
  const double alpha = al ? static_cast<double>(al->f) : 1.0;
  const double beta = be ? static_cast<double>(be->f) : 1.0;
  const auto d0 = static_cast<std::size_t>(b->dims[0]), d1 = static_cast<std::size_t>(b->dims[1]);
  const std::size_t k_in = trans_b ? d1 : d0, k_out = trans_b ? d0 : d1;
  if (x.shape.size() != 2 || x.shape[0] != 1 || x.size() != k_in) {
    bad(n, fmt::format("multiplies shape {} by B of shape {} (transB = {})", shape_text(x.shape),
                       shape_text(b->dims), trans_b ? 1 : 0));
  }
  SparseBuilder mat(k_in);
  for (std::size_t r = 0; r < k_out; ++r) {
    for (std::size_t j = 0; j < k_in; ++j) {
      mat.add(j, alpha * (trans_b ? b->values[r * d1 + j] : b->values[j * d1 + r]));
    }
    mat.end_row();
  }
  std::vector<double> offset(k_out, 0.0);
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor* c = constant_of(n, 2);
    if (!c) bad(n, "expects a constant C");
    shape_ = {1, static_cast<std::int64_t>(k_out)};
    const auto add = broadcast(n, *c);
    for (std::size_t r = 0; r < k_out; ++r) offset[r] = beta * add[r];
  }
  set(n, apply(n, x, mat.m, offset, {1, static_cast<std::int64_t>(k_out)}));
}

// x [.., k] times W [k, m] (x a vector: every other dimension 1), or W [m, k] times x [k(, 1)].
void GraphImporter::graph_matmul(const Node& n) {
  if (n.inputs.size() != 2) bad(n, fmt::format("expects two operands, found {}", n.inputs.size()));
  const bool x_first = values_.count(n.inputs[0]) > 0;
  const GraphValue& x = value_of(n, x_first ? 0 : 1);
  const Tensor* w = constant_of(n, x_first ? 1 : 0);
  if (!w || w->dims.size() != 2) bad(n, "expects a constant 2-D matrix operand");
  std::size_t big = 0;
  for (const auto d : x.shape) big += d != 1;
  const auto rows = static_cast<std::size_t>(w->dims[0]),
             cols = static_cast<std::size_t>(w->dims[1]);
  std::vector<std::int64_t> shape = x.shape;
  SparseBuilder mat(x.size());
  if (x_first) {
    if (big > 1 || shape.empty() || shape.back() != static_cast<std::int64_t>(rows)) {
      bad(n, fmt::format("multiplies shape {} by a {}x{} matrix", shape_text(x.shape), rows, cols));
    }
    for (std::size_t j = 0; j < cols; ++j) {
      for (std::size_t i = 0; i < rows; ++i) mat.add(i, w->values[i * cols + j]);
      mat.end_row();
    }
    shape.back() = static_cast<std::int64_t>(cols);
  } else {
    const bool column = shape.size() >= 2 && shape.back() == 1 &&
                        shape[shape.size() - 2] == static_cast<std::int64_t>(cols);
    const bool vector = shape.size() == 1 && shape[0] == static_cast<std::int64_t>(cols);
    if (big > 1 || !(column || vector)) {
      bad(n, fmt::format("multiplies a {}x{} matrix by shape {}", rows, cols, shape_text(x.shape)));
    }
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < cols; ++j) mat.add(j, w->values[i * cols + j]);
      mat.end_row();
    }
    shape[vector ? 0 : shape.size() - 2] = static_cast<std::int64_t>(rows);
  }
  set(n, apply(n, x, mat.m, {}, shape));
}

// Slice of a computed tensor: constant folding's Slice applied to the tensor of element indices
// gives, for each element of the result, the element it takes.
void GraphImporter::graph_slice(const Node& n) {
  const GraphValue& x = value_of(n, 0);
  Tensor index;
  index.dims = x.shape;
  index.data_type = onnx::kInt64;
  for (std::size_t i = 0; i < x.size(); ++i) index.values.push_back(static_cast<double>(i));
  std::vector<const Tensor*> in = {&index};
  for (std::size_t i = 1; i < n.inputs.size(); ++i) {
    in.push_back(constant_of(n, i));
    if (!n.inputs[i].empty() && !in.back()) bad(n, "expects constant starts, ends, axes and steps");
  }
  const Tensor taken = slice_constant(n, in);
  if (taken.values.empty()) bad(n, "selects no element");
  SparseBuilder mat(x.size());
  for (const double v : taken.values) {
    mat.add(static_cast<std::size_t>(v), 1.0);
    mat.end_row();
  }
  set(n, apply(n, x, mat.m, {}, taken.dims));
}

// Concat of computed tensors and constants along one axis: each input placed by a selection
// matrix, constants in the offset.
void GraphImporter::concat(const Node& n) {
  const auto* a = n.attribute("axis");
  if (!a) bad(n, "expects an axis attribute");
  std::vector<std::vector<std::int64_t>> shapes;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    const Tensor* t = constant_of(n, i);
    shapes.push_back(t ? t->dims : value_of(n, i).shape);
  }
  if (shapes.empty()) bad(n, "has no inputs");
  const auto rank = static_cast<std::int64_t>(shapes[0].size());
  const std::int64_t axis = a->i < 0 ? a->i + rank : a->i;
  if (axis < 0 || axis >= rank) bad(n, fmt::format("axis {} out of range for rank {}", a->i, rank));
  std::vector<std::int64_t> to = shapes[0];
  to[axis] = 0;
  for (const auto& s : shapes) {
    for (std::int64_t d = 0; d < rank; ++d) {
      if (static_cast<std::int64_t>(s.size()) != rank || (d != axis && s[d] != to[d])) {
        bad(n, fmt::format("concatenates shapes {} and {} along axis {}", shape_text(shapes[0]),
                           shape_text(s), axis));
      }
    }
    to[axis] += s[axis];
  }
  std::int64_t inner = 1;
  for (std::int64_t d = axis + 1; d < rank; ++d) inner *= to[d];
  const auto total = static_cast<std::size_t>(element_count(to));
  GraphValue sum;
  sum.shape = to;
  sum.bias.assign(total, 0.0);
  std::int64_t first = 0;  // where input i starts along the axis
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const std::int64_t d = shapes[i][axis];
    const Tensor* t = constant_of(n, i);
    SparseBuilder mat(static_cast<std::size_t>(element_count(shapes[i])));
    for (std::size_t f = 0; f < total; ++f) {
      const auto o = static_cast<std::int64_t>(f) / (to[axis] * inner);
      const auto along = static_cast<std::int64_t>(f) / inner % to[axis];
      const auto in = static_cast<std::int64_t>(f) % inner;
      if (along >= first && along < first + d) {
        const auto source = static_cast<std::size_t>((o * d + along - first) * inner + in);
        if (t) {
          sum.bias[f] += t->values[source];
        } else {
          mat.add(source, 1.0);
        }
      }
      mat.end_row();
    }
    if (!t) sum = add_values(std::move(sum), apply(n, value_of(n, i), mat.m, {}, to), 1.0);
    first += d;
  }
  set(n, std::move(sum));
}

}  // namespace assay::count::onnx_import
