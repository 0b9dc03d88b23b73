// Models that assay can count over: decision trees, tree ensembles and dense feed-forward
// networks, in one in-memory representation with a versioned JSON format (docs/count.md).
//
// Layout and conventions:
// - An input is a vector of n_features doubles, feature j at x[j].
// - Trees are stored as parallel node arrays (scikit-learn's layout): node i is a leaf when
//   left[i] == -1; otherwise it tests feature[i] against threshold[i] and goes to left[i] when
//   the test holds, else right[i]. The test is `x <= t` (SplitRule::less_equal, scikit-learn) or
//   `x < t` (SplitRule::less, xgboost). With `input_float32` the feature value is first rounded to
//   float32, as scikit-learn and xgboost both do, so that counts match their predictions exactly
//   on every input, including inputs on a threshold.
// - value[i] holds the leaf's outputs: class counts or fractions (classifier trees), one value
//   (regression trees, boosting stages).
// - Outputs ("scores") are n_outputs doubles; the predicted label is an index 0..n_classes-1
//   into `classes` (the original labels, as text).
//
// Model kinds and how they predict:
//   tree      scores = value[leaf] (classification: normalised to sum 1); label = argmax of
//             the raw value[leaf] (scikit-learn's predict).
//   forest    aggregation average: scores = mean over trees of the normalised leaf values
//             (scikit-learn's RandomForestClassifier); vote: scores = vote counts / n_trees.
//             label = argmax (first maximum).
//   boosted   margin[k] = base[k] + sum over trees t of output k of scale[t] * value[leaf][0];
//             link logistic (binary): label = 1 iff sigmoid(margin) > 1 - sigmoid(margin)
//             (scikit-learn) or > 0.5 (xgboost); softmax / identity: label = argmax(margin).
//             With `sum_float32` the sum is accumulated in float32 (xgboost).
//   network   dense layers, y = act(W x + b) with W stored row-major [out][in]; activations
//             relu / identity in hidden layers, identity / logistic / softmax at the output.
//             Binary logistic output (one unit): label = 1 iff sigmoid(z) > 0.5 (scikit-learn).
//   graph     an image classifier from ONNX (convolutions, pooling, skip connections) as a
//             GraphNetwork (graph.hpp); scores = graph_output_activation(output node);
//             label = argmax. Read from ONNX only: it has no assay JSON form.
//
// Example:
//   // Python: clf = DecisionTreeClassifier(max_depth=1).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
//   //         assay.models.save(assay.models.from_sklearn(clf), "tree.json")
//   Model m = load_model("tree.json");     // kind tree, one split: x[0] <= 1.5 goes left
//   std::vector<double> x = {2.5};
//   predict_scores(m, x);                  // {0, 1}
//   predict_label(m, x);                   // 1 (m.classes[1] == "1")
//   predict_label(m, std::vector<double>{1.5});   // 0: a value on the threshold goes left
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "assay/core/json.hpp"

namespace assay::count {

struct GraphNetwork;

enum class ModelKind { tree, forest, boosted, network, graph };
enum class SplitRule { less_equal, less };
enum class Aggregation { average, vote };
enum class Link { identity, logistic, softmax };
enum class Activation { identity, relu, logistic, softmax };

struct Tree {
  std::vector<std::int32_t> feature;
  std::vector<double> threshold;
  std::vector<std::int32_t> left;   ///< -1 at leaves
  std::vector<std::int32_t> right;  ///< -1 at leaves
  std::vector<std::vector<double>> value;
  /// Boosting: which margin this tree adds to, and its multiplier (learning rate).
  std::int32_t output = 0;
  double scale = 1.0;

  std::size_t size() const { return feature.size(); }
  bool is_leaf(std::size_t node) const { return left[node] < 0; }
};

struct Layer {
  std::size_t n_in = 0;
  std::size_t n_out = 0;
  std::vector<double> weights;  ///< row-major [out][in]
  std::vector<double> bias;
  Activation activation = Activation::relu;
};

struct Model {
  ModelKind kind = ModelKind::tree;
  bool classification = true;
  std::size_t n_features = 0;
  std::size_t n_outputs = 0;
  std::vector<std::string> classes;  ///< empty for regression
  std::string source;                ///< e.g. "sklearn.tree.DecisionTreeClassifier"

  // Trees.
  SplitRule split_rule = SplitRule::less_equal;
  bool input_float32 = true;
  std::vector<Tree> trees;
  Aggregation aggregation = Aggregation::average;  ///< forest
  Link link = Link::identity;                      ///< boosted
  std::vector<double> base;                        ///< boosted: initial margin per output
  bool sum_float32 = false;                        ///< boosted: xgboost accumulates in float32
  bool logistic_half = false;  ///< boosted logistic: label 1 iff p > 0.5 (xgboost), else p > 1-p

  // Networks.
  std::vector<Layer> layers;

  // Graph networks (kind graph): shared, read-only once built.
  std::shared_ptr<const GraphNetwork> graph;
  Activation graph_output_activation = Activation::identity;

  std::size_t n_classes() const { return classes.size(); }
};

/// Checks every index, size and value; throws assay::Error naming the first problem
/// ("tree 3 node 7: left child 99 out of range [0, 15)").
void validate(const Model& model);

/// The model's outputs at x (x.size() == n_features).
std::vector<double> predict_scores(const Model& model, std::span<const double> x);

/// The predicted label index at x: argmax of the scores, or the model's link rule.
std::int32_t predict_label(const Model& model, std::span<const double> x);

/// The leaf index reached in `tree` at x.
std::size_t tree_leaf(const Model& model, const Tree& tree, std::span<const double> x);

/// True when the split test of `model` sends value v (of a feature) to the left child.
bool goes_left(const Model& model, double v, double threshold);

/// Label (or argmax of the scores) from given leaf indices, one per tree (tree models only).
std::int32_t label_from_leaves(const Model& model, std::span<const std::size_t> leaves,
                               std::vector<double>* scores = nullptr);

/// The versioned JSON document ({"format": "assay-model", "version": 1, ...}).
Json model_to_json(const Model& model);
/// Reads an assay model document, or an xgboost JSON model (Booster.save_model("m.json")).
/// `where` names the source in error messages.
Model model_from_json(const Json& json, const std::string& where = "model");
/// Parses JSON text (either format); a syntax error reads "where:line:col: invalid JSON: ...".
Model parse_model(const std::string& text, const std::string& where = "model");
/// Reads a file (assay format or xgboost JSON); errors name the file (and line:col for bad JSON).
Model load_model(const std::string& path);
void save_model(const Model& model, const std::string& path);

/// Summary for `assay model info`.
struct ModelInfo {
  std::string kind;  ///< "tree", "forest", "boosted", "network", "graph"
  std::string task;  ///< "classification" or "regression"
  std::string source;
  std::size_t n_features = 0;
  std::size_t n_outputs = 0;
  std::vector<std::string> classes;
  std::size_t n_trees = 0;
  std::size_t n_nodes = 0;  ///< trees: nodes; graph: graph nodes
  std::size_t n_leaves = 0;
  std::size_t max_depth = 0;
  std::vector<std::size_t> layer_sizes;  ///< network: n_features, hidden..., n_outputs
  std::size_t n_neurons = 0;             ///< graph: nonlinear units (relu, sigmoid, tanh, pool)
  /// Trees: 2 per internal node (feature, threshold) + the values of every leaf; networks:
  /// weights + biases.
  std::size_t n_parameters = 0;
};
ModelInfo model_info(const Model& model);
Json model_info_json(const ModelInfo& info);

std::string to_string(ModelKind kind);

}  // namespace assay::count
