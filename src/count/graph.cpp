// Graph networks: construction helpers, checks, and the plain forward and backward passes (the
// reference every bound and attack is checked against).
#include "assay/count/graph.hpp"

#include <algorithm>
#include <cmath>

#include "assay/core/error.hpp"

namespace assay::count {

SparseMatrix sparse_from_dense(std::size_t rows, std::size_t cols, const std::vector<double>& a) {
  if (a.size() != rows * cols) {
    fail("sparse_from_dense: {} values for a {}x{} matrix", a.size(), rows, cols);
  }
  SparseMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.row_start.reserve(rows + 1);
  m.row_start.push_back(0);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = a[r * cols + c];
      if (v == 0.0) continue;
      m.column.push_back(static_cast<std::uint32_t>(c));
      m.value.push_back(v);
    }
    m.row_start.push_back(m.value.size());
  }
  return m;
}

void sparse_multiply(const SparseMatrix& m, std::span<const double> x, std::vector<double>& y) {
  y.assign(m.rows, 0.0);
  for (std::size_t r = 0; r < m.rows; ++r) {
    double s = 0.0;
    for (std::size_t e = m.row_start[r]; e < m.row_start[r + 1]; ++e)
      s += m.value[e] * x[m.column[e]];
    y[r] = s;
  }
}

void sparse_multiply_transposed_add(const SparseMatrix& m, std::span<const double> x,
                                    std::span<double> y) {
  for (std::size_t r = 0; r < m.rows; ++r) {
    const double xr = x[r];
    if (xr == 0.0) continue;
    for (std::size_t e = m.row_start[r]; e < m.row_start[r + 1]; ++e)
      y[m.column[e]] += m.value[e] * xr;
  }
}

GraphNode graph_input(std::size_t n) {
  GraphNode node;
  node.op = GraphOp::input;
  node.size = n;
  node.name = "input";
  return node;
}

GraphNode graph_linear(std::size_t source, SparseMatrix matrix, std::vector<double> bias) {
  GraphNode node;
  node.op = GraphOp::linear;
  node.size = matrix.rows;
  node.terms.push_back({source, std::move(matrix)});
  node.bias = std::move(bias);
  return node;
}

GraphNode graph_activation(GraphOp op, std::size_t source, std::size_t size) {
  GraphNode node;
  node.op = op;
  node.source = source;
  node.size = size;
  return node;
}

namespace {

std::string node_label(const GraphNetwork& g, std::size_t k) {
  const auto& name = g.nodes[k].name;
  return name.empty() ? fmt::format("graph node {}", k)
                      : fmt::format("graph node {} ({})", k, name);
}

void check_matrix(const GraphNetwork& g, std::size_t k, const SparseMatrix& m, std::size_t rows,
                  std::size_t cols, const char* what) {
  const std::string at = node_label(g, k);
  if (m.rows != rows || m.cols != cols) {
    fail("{}: {} is {}x{}, expected {}x{}", at, what, m.rows, m.cols, rows, cols);
  }
  if (m.row_start.size() != rows + 1 || m.row_start.front() != 0 ||
      m.row_start.back() != m.value.size() || m.column.size() != m.value.size()) {
    fail("{}: {} has an inconsistent row index", at, what);
  }
  for (std::size_t r = 0; r < rows; ++r) {
    if (m.row_start[r + 1] < m.row_start[r])
      fail("{}: {} row {} ends before it starts", at, what, r);
    for (std::size_t e = m.row_start[r]; e < m.row_start[r + 1]; ++e) {
      if (m.column[e] >= cols)
        fail("{}: {} row {} reads column {} of {}", at, what, r, m.column[e], cols);
      if (!std::isfinite(m.value[e]))
        fail("{}: {} holds {} (weights must be finite)", at, what, m.value[e]);
    }
  }
}

}  // namespace

void validate(const GraphNetwork& g) {
  if (g.nodes.size() < 2) fail("a graph network needs an input and at least one more node");
  if (g.nodes[0].op != GraphOp::input) fail("graph node 0 must be the input");
  for (std::size_t k = 1; k < g.nodes.size(); ++k) {
    const GraphNode& n = g.nodes[k];
    const std::string at = node_label(g, k);
    if (n.op == GraphOp::input) fail("{}: a second input", at);
    if (n.op == GraphOp::linear) {
      if (n.terms.empty()) fail("{}: a linear node without terms", at);
      if (n.bias.size() != n.size) fail("{}: {} biases for {} elements", at, n.bias.size(), n.size);
      for (const double b : n.bias) {
        if (!std::isfinite(b)) fail("{}: bias {} (biases must be finite)", at, b);
      }
      for (const auto& t : n.terms) {
        if (t.source >= k) fail("{}: reads node {}, which is not earlier", at, t.source);
        check_matrix(g, k, t.matrix, n.size, g.nodes[t.source].size, "the matrix");
      }
      continue;
    }
    if (n.source >= k) fail("{}: reads node {}, which is not earlier", at, n.source);
    const std::size_t in = g.nodes[n.source].size;
    if (n.op == GraphOp::max_pool) {
      check_matrix(g, k, n.pool, n.size, in, "the pooling window");
      for (std::size_t r = 0; r < n.size; ++r) {
        if (n.pool.row_start[r + 1] == n.pool.row_start[r]) fail("{}: window {} is empty", at, r);
      }
    } else if (n.size != in) {
      fail("{}: {} elements from a source of {}", at, n.size, in);
    }
  }
}

namespace {

void forward_node(const GraphNetwork& g, std::size_t k, std::vector<std::vector<double>>& values) {
  const GraphNode& n = g.nodes[k];
  auto& out = values[k];
  std::vector<double> part;
  switch (n.op) {
    case GraphOp::input:
      return;
    case GraphOp::linear:
      out = n.bias;
      for (const auto& t : n.terms) {
        sparse_multiply(t.matrix, values[t.source], part);
        for (std::size_t i = 0; i < n.size; ++i) out[i] += part[i];
      }
      return;
    case GraphOp::relu:
      out = values[n.source];
      for (double& v : out) v = std::max(v, 0.0);
      return;
    case GraphOp::sigmoid:
      out = values[n.source];
      for (double& v : out) v = 1.0 / (1.0 + std::exp(-v));
      return;
    case GraphOp::tanh:
      out = values[n.source];
      for (double& v : out) v = std::tanh(v);
      return;
    case GraphOp::max_pool: {
      const auto& in = values[n.source];
      out.assign(n.size, 0.0);
      for (std::size_t r = 0; r < n.size; ++r) {
        double m = -INFINITY;
        for (std::size_t e = n.pool.row_start[r]; e < n.pool.row_start[r + 1]; ++e) {
          m = std::max(m, in[n.pool.column[e]]);
        }
        out[r] = m;
      }
      return;
    }
  }
}

}  // namespace

void graph_forward_all(const GraphNetwork& g, std::span<const double> x,
                       std::vector<std::vector<double>>& values) {
  if (x.size() != g.n_inputs())
    fail("the network expects {} inputs, found {}", g.n_inputs(), x.size());
  values.resize(g.nodes.size());
  values[0].assign(x.begin(), x.end());
  for (std::size_t k = 1; k < g.nodes.size(); ++k) forward_node(g, k, values);
}

std::vector<double> graph_forward(const GraphNetwork& g, std::span<const double> x) {
  std::vector<std::vector<double>> values;
  graph_forward_all(g, x, values);
  return std::move(values.back());
}

std::vector<double> graph_gradient(const GraphNetwork& g,
                                   const std::vector<std::vector<double>>& values,
                                   std::span<const double> w) {
  std::vector<std::vector<double>> adj(g.nodes.size());
  for (std::size_t k = 0; k < g.nodes.size(); ++k) adj[k].assign(g.nodes[k].size, 0.0);
  std::copy(w.begin(), w.end(), adj.back().begin());
  for (std::size_t k = g.nodes.size(); k-- > 1;) {
    const GraphNode& n = g.nodes[k];
    const auto& a = adj[k];
    switch (n.op) {
      case GraphOp::input:
        break;
      case GraphOp::linear:
        for (const auto& t : n.terms) sparse_multiply_transposed_add(t.matrix, a, adj[t.source]);
        break;
      case GraphOp::relu:
        for (std::size_t i = 0; i < n.size; ++i) {
          if (values[n.source][i] > 0) adj[n.source][i] += a[i];
        }
        break;
      case GraphOp::sigmoid:
        for (std::size_t i = 0; i < n.size; ++i) {
          const double s = values[k][i];
          adj[n.source][i] += a[i] * s * (1 - s);
        }
        break;
      case GraphOp::tanh:
        for (std::size_t i = 0; i < n.size; ++i) {
          const double t = values[k][i];
          adj[n.source][i] += a[i] * (1 - t * t);
        }
        break;
      case GraphOp::max_pool:
        for (std::size_t r = 0; r < n.size; ++r) {
          for (std::size_t e = n.pool.row_start[r]; e < n.pool.row_start[r + 1]; ++e) {
            if (values[n.source][n.pool.column[e]] == values[k][r]) {
              adj[n.source][n.pool.column[e]] += a[r];
              break;
            }
          }
        }
        break;
    }
  }
  return std::move(adj[0]);
}

GraphNetwork graph_from_network(const Model& m) {
  if (m.kind != ModelKind::network)
    fail("graph_from_network needs a dense network, found a {}", to_string(m.kind));
  GraphNetwork g;
  g.nodes.push_back(graph_input(m.n_features));
  g.input_shape = {static_cast<std::int64_t>(m.n_features)};
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const Layer& layer = m.layers[l];
    g.nodes.push_back(graph_linear(
        g.nodes.size() - 1, sparse_from_dense(layer.n_out, layer.n_in, layer.weights), layer.bias));
    g.nodes.back().name = fmt::format("layer {}", l);
    if (l + 1 == m.layers.size()) break;
    switch (layer.activation) {
      case Activation::identity:
        break;
      case Activation::relu:
        g.nodes.push_back(graph_activation(GraphOp::relu, g.nodes.size() - 1, layer.n_out));
        break;
      case Activation::logistic:
        g.nodes.push_back(graph_activation(GraphOp::sigmoid, g.nodes.size() - 1, layer.n_out));
        break;
      case Activation::softmax:
        fail("layer {}: a softmax hidden layer has no graph form", l);
    }
  }
  return g;
}

std::size_t graph_parameters(const GraphNetwork& g) {
  std::size_t n = 0;
  for (const auto& node : g.nodes) {
    n += node.bias.size();
    for (const auto& t : node.terms) n += t.matrix.nonzeros();
  }
  return n;
}

std::size_t graph_neurons(const GraphNetwork& g) {
  std::size_t n = 0;
  for (const auto& node : g.nodes) {
    if (node.op != GraphOp::input && node.op != GraphOp::linear) n += node.size;
  }
  return n;
}

}  // namespace assay::count
