// count/graph: the graph network's checks, forward pass (against the dense network it came from
// and against a hand computation) and gradient (against central differences).
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "assay/core/error.hpp"
#include "assay/core/rng.hpp"
#include "assay/count/graph.hpp"
#include "random_graph.hpp"
#include "random_net.hpp"

namespace assay::count {
namespace {

TEST(Graph, DenseNetworkGivesTheSameLogits) {
  Model m = random_net({5, 7, 6, 3}, 11);
  const GraphNetwork g = graph_from_network(m);
  validate(g);
  EXPECT_EQ(g.nodes.size(), 6u);  // input, 3 linear, 2 relu
  Rng rng(5);
  for (int t = 0; t < 50; ++t) {
    std::vector<double> x(5);
    for (double& v : x) v = rng.normal();
    const auto a = predict_scores(m, x);
    const auto b = graph_forward(g, x);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12);
  }
}

TEST(Graph, ResidualAddAndMaxPoolByHand) {
  GraphNetwork g;  // out = max(relu(x0 - x1), x2) + x1
  g.nodes.push_back(graph_input(3));
  g.nodes.push_back(graph_linear(0, sparse_from_dense(2, 3, {1, -1, 0, 0, 0, 1}), {0, 0}));
  g.nodes.push_back(graph_activation(GraphOp::relu, 1, 2));
  GraphNode pool = graph_activation(GraphOp::max_pool, 2, 1);
  pool.pool = sparse_from_dense(1, 2, {1, 1});
  g.nodes.push_back(std::move(pool));
  g.nodes.push_back(graph_linear(3, sparse_from_dense(1, 1, {1}), {0}));
  g.nodes.back().terms.push_back({0, sparse_from_dense(1, 3, {0, 1, 0})});
  validate(g);
  EXPECT_EQ(graph_forward(g, std::vector<double>{3, 1, 1}), std::vector<double>{3});
  EXPECT_EQ(graph_forward(g, std::vector<double>{0, 1, 4}), std::vector<double>{5});
  EXPECT_EQ(graph_forward(g, std::vector<double>{0, 1, -4}), std::vector<double>{1});
}

TEST(Graph, GradientMatchesCentralDifferences) {
  for (const auto kind : {RandomGraphKind::relu_max_pool, RandomGraphKind::relu_avg_pool_residual,
                          RandomGraphKind::sigmoid, RandomGraphKind::tanh}) {
    const GraphNetwork g = random_graph(kind, 3);
    validate(g);
    Rng rng(9);
    std::vector<double> x(36);
    for (double& v : x) v = rng.uniform();
    const std::vector<double> w = {1.0, -2.0, 0.5};
    std::vector<std::vector<double>> values;
    graph_forward_all(g, x, values);
    const auto grad = graph_gradient(g, values, w);
    auto f = [&](const std::vector<double>& p) {
      const auto y = graph_forward(g, p);
      return w[0] * y[0] + w[1] * y[1] + w[2] * y[2];
    };
    for (std::size_t i = 0; i < x.size(); ++i) {
      auto a = x, b = x;
      a[i] += 1e-6;
      b[i] -= 1e-6;
      EXPECT_NEAR(grad[i], (f(a) - f(b)) / 2e-6, 1e-5) << static_cast<int>(kind) << " input " << i;
    }
  }
}

TEST(Graph, ValidateNamesTheNode) {
  GraphNetwork g;
  g.nodes.push_back(graph_input(2));
  g.nodes.push_back(graph_linear(0, sparse_from_dense(1, 3, {1, 1, 1}), {0}));
  g.nodes.back().name = "conv_1";
  try {
    validate(g);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "graph node 1 (conv_1): the matrix is 1x3, expected 1x2");
  }
  g.nodes[1] = graph_activation(GraphOp::relu, 1, 2);
  EXPECT_THROW(validate(g), Error);
}

TEST(Graph, ModelOfKindGraphPredictsAndRefusesJson) {
  auto g = std::make_shared<GraphNetwork>(random_graph(RandomGraphKind::relu_max_pool, 4));
  Model m;
  m.kind = ModelKind::graph;
  m.n_features = 36;
  m.n_outputs = 3;
  m.classes = {"a", "b", "c"};
  m.graph = g;
  validate(m);
  std::vector<double> x(36, 0.5);
  const auto z = graph_forward(*g, x);
  EXPECT_EQ(predict_scores(m, x), z);
  EXPECT_EQ(predict_label(m, x),
            static_cast<std::int32_t>(std::max_element(z.begin(), z.end()) - z.begin()));
  EXPECT_EQ(model_info(m).kind, "graph");
  EXPECT_EQ(model_info(m).n_neurons, 108u + 27u + 8u);
  EXPECT_THROW(model_to_json(m), Error);
}

}  // namespace
}  // namespace assay::count
