// The ONNX importer's constant folding (onnx_import.hpp): operators whose inputs are all
// constants, and Shape of a tensor whose shape is known, evaluated at import time.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "onnx_import.hpp"

namespace assay::count::onnx_import {

// Exporters compute shapes inside the graph: PyTorch's x.view(x.size(0), -1) becomes Shape ->
// Gather -> Unsqueeze -> Concat -> Reshape, and tf2onnx casts and reshapes constants. A node
// whose inputs are all constants, and Shape of a tensor whose shape is known, is evaluated
// here into a new constant; false for a node that computes on the running tensor.
bool Importer::fold(const Node& n) {
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

void Importer::shape_node(const Node& n) {
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
Tensor Importer::evaluate(const Node& n, const std::vector<const Tensor*>& in) const {
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
void Importer::check_folded_size(const Node& n, double elements) const {
  if (elements > static_cast<double>(kMaxInputs)) {
    bad(n,
        fmt::format("computes a constant of {:.0f} elements, more than {}", elements, kMaxInputs));
  }
}

bool Importer::is_integer_type(std::int32_t type) {
  return type == 2 || type == 3 || type == 4 || type == 5 || type == 6 || type == 7 || type == 12 ||
         type == 13;
}

Tensor Importer::cast_constant(const Node& n, const Tensor& x) const {
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

Tensor Importer::concat_constants(const Node& n, const std::vector<const Tensor*>& in) const {
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

Tensor Importer::gather_constant(const Node& n, const Tensor& x, const Tensor* indices) const {
  if (!indices) bad(n, "expects constant indices");
  const auto* a = n.attribute("axis");
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  const std::int64_t axis = a ? (a->i < 0 ? a->i + rank : a->i) : 0;
  if (axis < 0 || axis >= rank) bad(n, fmt::format("axis {} out of range for rank {}", axis, rank));
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
Tensor Importer::slice_constant(const Node& n, const std::vector<const Tensor*>& in) const {
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
    const std::int64_t e = s > 0 ? clamp_index(ends[i], 0, dim) : clamp_index(ends[i], -1, dim - 1);
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
Tensor Importer::binary_constants(const Node& n, const Tensor& a, const Tensor& b) const {
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
      bad(n,
          fmt::format("shapes {} and {} do not broadcast", shape_text(a.dims), shape_text(b.dims)));
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

}  // namespace assay::count::onnx_import
