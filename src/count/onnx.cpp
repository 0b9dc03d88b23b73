// ONNX graph -> dense layers. The graph is walked in order; the running tensor is kept as a
// pending affine map of the last activation (diagonal while only element-wise operators have
// been met, dense after the first matrix), and each activation operator closes it into a layer
// (onnx_operators.cpp); operators on constants are evaluated at import time (onnx_fold.cpp).
#include "assay/count/onnx.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "input_file.hpp"
#include "onnx_graph.hpp"
#include "onnx_import.hpp"
#include "onnx_wire.hpp"

namespace assay::count {

namespace onnx_import {

void Importer::bad(const Node& n, const std::string& what) const {
  // A node is named by its name, else by its first output; it may have neither (found by
  // fuzz_onnx: outputs.front() of an empty list).
  if (n.name.empty() && n.outputs.empty()) {
    fail("{}: a node without name or outputs ({}): {}", where_, n.op_type, what);
  }
  fail("{}: node {} ({}): {}", where_, quote_found(n.name.empty() ? n.outputs.front() : n.name),
       n.op_type, what);
}

void Importer::add_constant(const Tensor& t) {
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
    fail("{}: tensor {} has {} values for shape {} ({:.0f} elements)", where_, quote_found(t.name),
         t.values.size(), shape_text(t.dims), elements);
  }
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    if (!std::isfinite(t.values[i])) {
      fail("{}: tensor {} holds {} at index {} (weights must be finite)", where_,
           quote_found(t.name), t.values[i], i);
    }
  }
  constants_[t.name] = t;
}

std::string Importer::shape_text(const std::vector<std::int64_t>& dims) {
  return fmt::format("[{}]", fmt::join(dims, "x"));
}

void Importer::find_input() {
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

std::size_t Importer::elements() const {
  std::size_t n = 1;
  for (const auto d : shape_) n *= static_cast<std::size_t>(d);
  return n;
}

Importer::Operands Importer::operands(const Node& n) const {
  Operands o;
  o.constant.assign(n.inputs.size(), nullptr);
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    const std::string& name = n.inputs[i];
    if (name.empty()) continue;  // an omitted optional input
    if (name == running_) {
      if (o.running >= 0) throw NeedsGraph{"reads a tensor twice"};
      o.running = static_cast<int>(i);
      continue;
    }
    const auto it = constants_.find(name);
    if (it == constants_.end() && shapes_.count(name)) throw NeedsGraph{"a skip connection"};
    if (it == constants_.end()) {
      bad(n, fmt::format("input {} is neither a constant nor the running tensor {}; assay "
                         "imports chains of operators (no skip connections or branches)",
                         quote_found(name), quote_found(running_)));
    }
    o.constant[i] = &it->second;
  }
  return o;
}

void Importer::step(const Node& n) {
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

void Importer::dispatch(const Node& n, const Operands& o) {
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
  if (op == "Conv" || op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
      op == "GlobalMaxPool" || op == "Tanh" || op == "Concat" || op == "Slice") {
    throw NeedsGraph{op};
  }
  bad(n, fmt::format("unsupported operator; assay imports {}", kSupported));
}

void Importer::check_open(const Node& n) {
  if (closed_softmax_) bad(n, "follows Softmax, which must be the last operator");
}

void Importer::finish() {
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
    for (std::size_t k = 0; k < model_.n_outputs; ++k) model_.classes.push_back(std::to_string(k));
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

void Importer::check_output_shape(const onnx::ValueInfo& out) const {
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

}  // namespace onnx_import

namespace {

std::string read_bytes(const std::string& path) {
  return detail::read_input_file(path, "an ONNX file",
                                 fmt::format("cannot open ONNX file {}", quote_found(path)));
}

}  // namespace

Model parse_onnx(std::string_view bytes, const std::string& where) {
  const onnx::ModelProto proto = onnx::decode_model(bytes, where);
  try {
    return onnx_import::Importer(proto, where).run();
  } catch (const onnx_import::NeedsGraph&) {
    return onnx_import::GraphImporter(proto, where).run_graph();
  }
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
  if (!json && (detail::looks_like_onnx(bytes) || lower.ends_with(".onnx")))
    return parse_onnx(bytes, path);
  return parse_model(bytes, path);
}

}  // namespace assay::count
