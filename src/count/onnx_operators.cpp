// The ONNX importer's operators on the running tensor (onnx_import.hpp): shape-only operators,
// affine operators folded into the pending map, activations that close it into a layer, and
// operators that change no value.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "onnx_import.hpp"

namespace assay::count::onnx_import {

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

void Importer::flatten(const Node& n) {
  const auto* a = n.attribute("axis");
  std::int64_t axis = a ? a->i : 1;
  const auto r = static_cast<std::int64_t>(shape_.size());
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) bad(n, fmt::format("axis {} out of range for rank {}", axis, r));
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t i = 0; i < r; ++i) (i < axis ? outer : inner) *= shape_[i];
  shape_ = {outer, inner};
}

void Importer::reshape(const Node& n, const Operands& o) {
  if (o.running != 0 || n.inputs.size() < 2 || !o.constant[1]) {
    bad(n, "expects the running tensor and a constant shape");
  }
  shape_ = reshaped(n, shape_, o.constant[1]->values);
}

// `from` reshaped by ONNX Reshape's rules: 0 copies a dimension (unless allowzero), one -1 is
// inferred.
std::vector<std::int64_t> Importer::reshaped(const Node& n, const std::vector<std::int64_t>& from,
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

void Importer::squeeze(const Node& n, const Operands& o) {
  shape_ = squeezed(n, shape_, o.constant.size() > 1 ? o.constant[1] : nullptr);
}

// `from` with the axes (attribute, or the constant input of opset 13) removed by Squeeze or
// inserted by Unsqueeze.
std::vector<std::int64_t> Importer::squeezed(const Node& n, std::vector<std::int64_t> from,
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
    const bool listed =
        std::any_of(axes.begin(), axes.end(), [&](std::int64_t a) { return a == i || a + r == i; });
    if ((axes.empty() && from[i] == 1) || listed) {
      if (from[i] != 1) bad(n, fmt::format("squeezes axis {} of size {}", i, from[i]));
      continue;
    }
    out.push_back(from[i]);
  }
  return out;
}

// value <- W value, W row-major [k_out][k_in] (k_in == current width).
void Importer::apply_matrix(const std::vector<double>& w, std::size_t k_out) {
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
std::size_t Importer::vector_width(const Node& n) const {
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

void Importer::matmul(const Node& n, const Operands& o) {
  check_open(n);
  if (n.inputs.size() != 2) bad(n, fmt::format("expects two operands, found {}", n.inputs.size()));
  const Tensor* w = o.constant[o.running == 0 ? 1 : 0];
  if (!w || w->dims.size() != 2) bad(n, "expects a constant 2-D matrix operand");
  const std::size_t width = vector_width(n);
  const auto rows = static_cast<std::size_t>(w->dims[0]);
  const auto cols = static_cast<std::size_t>(w->dims[1]);
  std::vector<double> t;
  if (o.running == 0) {  // x [.., k_in] times W [k_in, k_out]
    if (shape_.back() != static_cast<std::int64_t>(rows) || rows != width) {
      bad(n, fmt::format("multiplies shape {} by a {}x{} matrix", shape_text(shape_), rows, cols));
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
      bad(n, fmt::format("multiplies a {}x{} matrix by shape {}", rows, cols, shape_text(shape_)));
    }
    apply_matrix(w->values, rows);
    if (shape_.size() == 1) {
      shape_ = {static_cast<std::int64_t>(rows)};
    } else {
      shape_[shape_.size() - 2] = static_cast<std::int64_t>(rows);
    }
  }
}

void Importer::gemm(const Node& n, const Operands& o) {
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
std::vector<double> Importer::broadcast(const Node& n, const Tensor& t) const {
  const std::size_t r = shape_.size(), tr = t.dims.size();
  if (tr > r) {
    bad(n, fmt::format("constant of shape {} would grow the running tensor of shape {}",
                       shape_text(t.dims), shape_text(shape_)));
  }
  for (std::size_t i = 0; i < tr; ++i) {
    const auto d = t.dims[tr - 1 - i], s = shape_[r - 1 - i];
    if (d != 1 && d != s) {
      bad(n, fmt::format("constant of shape {} does not broadcast to shape {}", shape_text(t.dims),
                         shape_text(shape_)));
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

void Importer::negate() {
  Pending& p = pending_;
  for (auto& v : p.c) v = -v;
  for (auto& v : p.diagonal ? p.s : p.a) v = -v;
}

void Importer::scale(const std::vector<double>& k) {
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

void Importer::elementwise(const Node& n, const Operands& o) {
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

void Importer::batch_norm(const Node& n, const Operands& o) {
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

void Importer::close(const Node& n, Activation act) {
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

void Importer::softmax(const Node& n) {
  std::size_t big = 0;
  for (const auto d : shape_) big += d != 1;
  if (big > 1) bad(n, fmt::format("applies to shape {}; expected one vector", shape_text(shape_)));
  close(n, Activation::softmax);
  closed_softmax_ = true;
}

void Importer::constant_node(const Node& n) {
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

// Dropout at inference passes its input through; in training mode it drops values at random.
void Importer::dropout(const Node& n, const Operands& o) {
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

std::string Importer::type_name(std::int64_t t) {
  static const char* const kNames[] = {"undefined",  "float",   "uint8",  "int8",   "uint16",
                                       "int16",      "int32",   "int64",  "string", "bool",
                                       "float16",    "double",  "uint32", "uint64", "complex64",
                                       "complex128", "bfloat16"};
  return t >= 0 && t < 17 ? kNames[t] : fmt::format("type {}", t);
}

// A Cast to float or double changes nothing here (values are computed in double).
void Importer::cast(const Node& n) {
  const auto* to = n.attribute("to");
  const std::int64_t type = to ? to->i : 0;
  if (type != onnx::kFloat && type != onnx::kDouble) {
    bad(n, fmt::format("casts the running tensor to {}, which changes its values; assay imports "
                       "networks computing on float or double",
                       type_name(type)));
  }
}

// The running tensor's elements reordered: the pending map's rows follow them.
void Importer::transpose(const Node& n) {
  const std::vector<std::int64_t> perm = transpose_perm(n, shape_.size());
  auto [to, from] = transposed(shape_, perm);
  pending_.permute_rows(from);
  shape_ = std::move(to);
}

std::vector<std::int64_t> Importer::transpose_perm(const Node& n, std::size_t rank) const {
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

// Pad that adds nothing (all pads 0) changes nothing; real padding makes a graph network.
void Importer::pad(const Node& n, const Operands& o) {
  std::vector<double> pads;
  if (const auto* a = n.attribute("pads")) pads.assign(a->ints.begin(), a->ints.end());
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    if (!o.constant[1]) bad(n, "expects constant pads");
    pads = o.constant[1]->values;
  }
  if (std::any_of(pads.begin(), pads.end(), [](double v) { return v != 0.0; })) {
    throw NeedsGraph{"Pad"};  // a graph network holds the padding as a sparse matrix
  }
}

}  // namespace assay::count::onnx_import
