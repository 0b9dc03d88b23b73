// The graph importer's walk (onnx_graph.hpp): computed tensors as pending sparse affine maps of
// graph nodes, nonlinear operators as nodes, the graph's output, and the sparse algebra the
// pending maps need.
#include "onnx_graph.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "assay/core/error.hpp"

namespace assay::count::onnx_import {

SparseMatrix sparse_identity(std::size_t n) {
  SparseBuilder b(n);
  for (std::size_t r = 0; r < n; ++r) {
    b.add(r, 1.0);
    b.end_row();
  }
  return std::move(b.m);
}

bool is_identity(const SparseMatrix& m) {
  if (m.rows != m.cols || m.nonzeros() != m.rows) return false;
  for (std::size_t r = 0; r < m.rows; ++r) {
    if (m.row_start[r] != r || m.column[r] != r || m.value[r] != 1.0) return false;
  }
  return true;
}

// a (r x k) times b (k x c), row by row with a dense accumulator over the columns of b.
SparseMatrix sparse_product(const SparseMatrix& a, const SparseMatrix& b) {
  SparseBuilder out(b.cols);
  std::vector<double> sum(b.cols, 0.0);
  std::vector<char> seen(b.cols, 0);
  std::vector<std::uint32_t> cols;
  for (std::size_t r = 0; r < a.rows; ++r) {
    cols.clear();
    for (std::size_t e = a.row_start[r]; e < a.row_start[r + 1]; ++e) {
      const std::size_t j = a.column[e];
      for (std::size_t f = b.row_start[j]; f < b.row_start[j + 1]; ++f) {
        const std::uint32_t c = b.column[f];
        if (!seen[c]) {
          seen[c] = 1;
          cols.push_back(c);
        }
        sum[c] += a.value[e] * b.value[f];
      }
    }
    std::sort(cols.begin(), cols.end());
    for (const auto c : cols) {
      out.add(c, sum[c]);
      sum[c] = 0.0;
      seen[c] = 0;
    }
    out.end_row();
  }
  return std::move(out.m);
}

SparseMatrix sparse_sum(const SparseMatrix& a, const SparseMatrix& b) {
  SparseBuilder out(a.cols);
  for (std::size_t r = 0; r < a.rows; ++r) {
    std::size_t e = a.row_start[r], f = b.row_start[r];
    const std::size_t e_end = a.row_start[r + 1], f_end = b.row_start[r + 1];
    while (e < e_end || f < f_end) {
      if (f == f_end || (e < e_end && a.column[e] < b.column[f])) {
        out.add(a.column[e], a.value[e]);
        ++e;
      } else if (e == e_end || b.column[f] < a.column[e]) {
        out.add(b.column[f], b.value[f]);
        ++f;
      } else {
        out.add(a.column[e], a.value[e] + b.value[f]);
        ++e;
        ++f;
      }
    }
    out.end_row();
  }
  return std::move(out.m);
}

namespace {

// Multiply-adds of the product a * b: an upper bound on its entries.
std::size_t product_work(const SparseMatrix& a, const SparseMatrix& b) {
  std::size_t work = 0;
  for (std::size_t e = 0; e < a.nonzeros(); ++e) {
    const std::size_t j = a.column[e];
    work += b.row_start[j + 1] - b.row_start[j];
  }
  return work;
}

std::string label(const Node& n) {
  return n.name.empty() && !n.outputs.empty() ? n.outputs.front() : n.name;
}

}  // namespace

Model GraphImporter::run_graph() {
  for (const auto& t : proto_.graph.initializers) add_constant(t);
  find_input();
  net_.nodes.push_back(graph_input(model_.n_features));
  net_.input_shape = shape_;
  values_[running_] = node_value(0, shape_);
  count_uses();
  for (const auto& node : proto_.graph.nodes) graph_step(node);
  finish_graph();
  return std::move(model_);
}

void GraphImporter::count_uses() {
  for (const auto& node : proto_.graph.nodes) {
    for (const auto& in : node.inputs) {
      if (!in.empty()) ++uses_[in];
    }
  }
  for (const auto& out : proto_.graph.outputs) ++uses_[out.name];
}

void GraphImporter::graph_step(const Node& n) {
  if (!n.domain.empty() && n.domain != "ai.onnx") {
    bad(n, fmt::format("operator domain {} is not supported", quote_found(n.domain)));
  }
  if (n.outputs.empty()) bad(n, "has no output");
  for (const auto& in : n.inputs) {
    if (!in.empty() && in == after_output_activation_) {
      bad(n, fmt::format("reads {}, the output of the last Softmax or Sigmoid; assay imports "
                         "those only at the end of the network",
                         quote_found(in)));
    }
  }
  if (n.op_type == "Constant") return constant_node(n);
  if (fold(n)) return;
  graph_dispatch(n);
}

void GraphImporter::graph_dispatch(const Node& n) {
  const std::string& op = n.op_type;
  if (op == "Relu") return activation(n, GraphOp::relu);
  if (op == "Sigmoid") {
    if (defer_output_activation(n, Activation::logistic)) return;
    return activation(n, GraphOp::sigmoid);
  }
  if (op == "Tanh") return activation(n, GraphOp::tanh);
  if (op == "Softmax") {
    std::size_t big = 0;
    for (const auto d : value_of(n, 0).shape) big += d != 1;
    if (big > 1) bad(n, "applies to a tensor with more than one axis; expected one vector");
    if (defer_output_activation(n, Activation::softmax)) return;
    bad(n, "Softmax is imported only as the last operator, on the graph's output");
  }
  if (op == "Identity") return set(n, value_of(n, 0));
  if (op == "Dropout" || op == "Cast") {
    const GraphValue& v = value_of(n, 0);
    Operands o;
    o.running = 0;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) o.constant.push_back(constant_of(n, i));
    op == "Dropout" ? dropout(n, o) : cast(n);
    return set(n, v);
  }
  if (op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze") {
    return graph_reshape(n);
  }
  if (op == "Transpose") return graph_transpose(n);
  if (op == "Pad") return graph_pad(n);
  if (op == "Conv") return conv(n);
  if (op == "MaxPool" || op == "AveragePool") return pool(n, op == "MaxPool");
  if (op == "GlobalMaxPool" || op == "GlobalAveragePool")
    return global_pool(n, op == "GlobalMaxPool");
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    const bool both =
        n.inputs.size() == 2 && values_.count(n.inputs[0]) && values_.count(n.inputs[1]);
    return both ? binary(n) : constant_operand(n);
  }
  if (op == "Neg") return constant_operand(n);
  if (op == "BatchNormalization") return graph_batch_norm(n);
  if (op == "Gemm") return graph_gemm(n);
  if (op == "MatMul") return graph_matmul(n);
  if (op == "Concat") return concat(n);
  if (op == "Slice") return graph_slice(n);
  bad(n, fmt::format("unsupported operator; assay imports {}", kSupported));
}

const GraphValue& GraphImporter::value_of(const Node& n, std::size_t i) const {
  if (i >= n.inputs.size() || n.inputs[i].empty()) bad(n, fmt::format("has no input {}", i + 1));
  const auto it = values_.find(n.inputs[i]);
  if (it != values_.end()) return it->second;
  if (constants_.count(n.inputs[i])) {
    bad(n, fmt::format("input {} is a constant; expected a tensor computed from the network's "
                       "input",
                       quote_found(n.inputs[i])));
  }
  bad(n, fmt::format("input {} is not computed before this node", quote_found(n.inputs[i])));
}

const Tensor* GraphImporter::constant_of(const Node& n, std::size_t i) const {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
  const auto it = constants_.find(n.inputs[i]);
  return it == constants_.end() ? nullptr : &it->second;
}

void GraphImporter::set(const Node& n, GraphValue v) {
  const std::string& out = n.outputs.front();
  v.origin = label(n);
  shapes_[out] = v.shape;
  values_[out] = std::move(v);
}

GraphValue GraphImporter::node_value(std::size_t node, std::vector<std::int64_t> shape) const {
  GraphValue v;
  v.shape = std::move(shape);
  const std::size_t size = net_.nodes[node].size;
  v.terms.push_back({node, sparse_identity(size)});
  v.bias.assign(size, 0.0);
  return v;
}

// The graph node holding v (a new linear node unless v is one node's value unchanged); v becomes
// that node's value.
std::size_t GraphImporter::materialize(const Node& n, GraphValue& v) {
  const bool plain = v.terms.size() == 1 && is_identity(v.terms[0].matrix) &&
                     std::all_of(v.bias.begin(), v.bias.end(), [](double b) { return b == 0.0; });
  if (plain) return v.terms[0].source;
  GraphNode node;
  node.op = GraphOp::linear;
  node.size = v.size();
  node.name = v.origin.empty() ? label(n) : v.origin;
  node.terms = std::move(v.terms);
  node.bias = std::move(v.bias);
  net_.nodes.push_back(std::move(node));
  const std::size_t k = net_.nodes.size() - 1;
  v = node_value(k, v.shape);
  return k;
}

GraphValue GraphImporter::apply(const Node& n, GraphValue v, const SparseMatrix& op,
                                const std::vector<double>& offset,
                                std::vector<std::int64_t> shape) {
  // Composing stays worthwhile while the product is not much denser than its factors.
  for (const auto& t : v.terms) {
    if (is_identity(t.matrix)) continue;
    if (product_work(op, t.matrix) > 2 * (op.nonzeros() + t.matrix.nonzeros()) + op.rows) {
      materialize(n, v);
      break;
    }
  }
  GraphValue out;
  out.shape = std::move(shape);
  for (const auto& t : v.terms) {
    out.terms.push_back({t.source, is_identity(t.matrix) ? op : sparse_product(op, t.matrix)});
  }
  sparse_multiply(op, v.bias, out.bias);
  for (std::size_t r = 0; r < offset.size(); ++r) out.bias[r] += offset[r];
  return out;
}

GraphValue GraphImporter::add_values(GraphValue a, const GraphValue& b, double sign) const {
  for (const auto& t : b.terms) {
    SparseMatrix m = t.matrix;
    for (auto& x : m.value) x *= sign;
    const auto same = std::find_if(a.terms.begin(), a.terms.end(),
                                   [&](const LinearTerm& u) { return u.source == t.source; });
    if (same == a.terms.end()) {
      a.terms.push_back({t.source, std::move(m)});
    } else {
      same->matrix = sparse_sum(same->matrix, m);
    }
  }
  for (std::size_t r = 0; r < a.bias.size(); ++r) a.bias[r] += sign * b.bias[r];
  return a;
}

void GraphImporter::activation(const Node& n, GraphOp op) {
  (void)value_of(n, 0);  // names the node when its input is not a computed tensor
  GraphValue& in = values_.find(n.inputs[0])->second;
  const std::size_t source = materialize(n, in);
  net_.nodes.push_back(graph_activation(op, source, in.size()));
  net_.nodes.back().name = label(n);
  set(n, node_value(net_.nodes.size() - 1, in.shape));
}

// A Sigmoid or Softmax whose output is the graph's output and read by nothing else becomes the
// model's output activation, as in a dense network.
bool GraphImporter::defer_output_activation(const Node& n, Activation act) {
  const auto& outs = proto_.graph.outputs;
  const std::string& out = n.outputs.front();
  if (outs.size() != 1 || outs[0].name != out || uses_[out] != 1) return false;
  if (!after_output_activation_.empty()) return false;
  set(n, value_of(n, 0));
  output_activation_ = act;
  after_output_activation_ = out;
  return true;
}

void GraphImporter::finish_graph() {
  const auto& outs = proto_.graph.outputs;
  if (outs.size() != 1) {
    fail("{}: the graph has {} outputs; assay imports one-output networks", where_, outs.size());
  }
  const auto it = values_.find(outs[0].name);
  if (it == values_.end()) {
    fail("{}: the graph output {} is not computed from the input", where_,
         quote_found(outs[0].name));
  }
  Node end;
  end.name = "(graph output)";
  end.op_type = "Identity";
  end.outputs = {outs[0].name};
  GraphValue v = it->second;
  const std::size_t k = materialize(end, v);
  if (k == 0 || k + 1 != net_.nodes.size()) {  // the output must be the last node
    net_.nodes.push_back(graph_linear(k, sparse_identity(v.size()), std::vector<double>(v.size())));
    net_.nodes.back().name = end.name;
  }
  pending_.m = v.size();
  check_output_shape(outs[0]);
  model_.kind = ModelKind::graph;
  model_.n_outputs = v.size();
  model_.source =
      proto_.producer.empty() ? std::string("onnx") : fmt::format("onnx:{}", proto_.producer);
  model_.classification = model_.n_outputs >= 2 || output_activation_ == Activation::logistic;
  if (model_.n_outputs >= 2) {
    for (std::size_t c = 0; c < model_.n_outputs; ++c) model_.classes.push_back(std::to_string(c));
  } else if (model_.classification) {
    model_.classes = {"0", "1"};
  }
  model_.graph_output_activation = output_activation_;
  model_.graph = std::make_shared<const GraphNetwork>(std::move(net_));
  try {
    validate(model_);
  } catch (const Error& e) {  // e.g. weights that overflow when linear operators are composed
    fail("{}: {} (in the graph network built from the ONNX graph)", where_, e.message());
  }
}

}  // namespace assay::count::onnx_import
