#include "assay/count/model.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "assay/core/error.hpp"
#include "assay/core/task.hpp"
#include "assay/count/graph.hpp"
#include "input_file.hpp"

namespace assay::count {

namespace {

TaskKind task_of(const Model& m) {
  return m.classification ? TaskKind::classification : TaskKind::regression;
}

constexpr int kFormatVersion = 1;
// Largest feature, output or class count read from a file (sizes above it are damage, and would
// size allocations).
constexpr std::int64_t kMaxWidth = INT32_MAX;
// Largest class count of an xgboost model: its classes are named, and its margins sized, from
// num_class alone (a damaged 1e9 would allocate gigabytes before any tree is read).
constexpr std::int64_t kMaxClasses = 1'000'000;

const char* split_rule_name(SplitRule r) {
  return r == SplitRule::less_equal ? "<=" : "<";
}
const char* aggregation_name(Aggregation a) {
  return a == Aggregation::average ? "average" : "vote";
}
const char* link_name(Link l) {
  switch (l) {
    case Link::identity:
      return "identity";
    case Link::logistic:
      return "logistic";
    case Link::softmax:
      return "softmax";
  }
  return "?";
}
const char* activation_name(Activation a) {
  switch (a) {
    case Activation::identity:
      return "identity";
    case Activation::relu:
      return "relu";
    case Activation::logistic:
      return "logistic";
    case Activation::softmax:
      return "softmax";
  }
  return "?";
}

std::size_t argmax(std::span<const double> v) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < v.size(); ++k) {
    if (v[k] > v[best]) best = k;
  }
  return best;
}

double sigmoid(double z) {
  return 1.0 / (1.0 + std::exp(-z));
}

// Normalised leaf values the way scikit-learn's predict_proba does (a zero sum divides by 1).
void add_normalised(const std::vector<double>& value, std::vector<double>& acc) {
  double sum = 0.0;
  for (double v : value) sum += v;
  if (sum == 0.0) sum = 1.0;
  for (std::size_t k = 0; k < value.size(); ++k) acc[k] += value[k] / sum;
}

// --- JSON reading helpers: every error names the path inside the document. ---

struct Reader {
  std::string where;

  [[noreturn]] void bad(const std::string& path, const std::string& what) const {
    if (path.empty()) fail("{}: {}", where, what);
    fail("{}: {}: {}", where, path, what);
  }
  const Json& at(const Json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) bad(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) bad(path, fmt::format("missing field \"{}\"", key));
    return *it;
  }
  std::string str(const Json& j, const std::string& path) const {
    if (!j.is_string()) bad(path, fmt::format("expected a string, found {}", j.type_name()));
    return j.get<std::string>();
  }
  double num(const Json& j, const std::string& path) const {
    if (j.is_string()) {  // xgboost writes some numbers as strings
      const std::string s = j.get<std::string>();
      try {
        std::size_t used = 0;
        const double v = std::stod(s, &used);
        if (used == s.size()) return v;
      } catch (const std::exception&) {
      }
      bad(path, fmt::format("expected a number, found {}", quote_found(s)));
    }
    if (!j.is_number()) bad(path, fmt::format("expected a number, found {}", j.type_name()));
    return j.get<double>();
  }
  std::int64_t integer(const Json& j, const std::string& path) const {
    const double v = num(j, path);
    if (v != std::floor(v) || std::abs(v) > 9e15) {
      bad(path, fmt::format("expected an integer, found {}", v));
    }
    return static_cast<std::int64_t>(v);
  }
  // A count or size: refused when negative or absurd, before anything is sized by it.
  std::size_t size(const Json& j, const std::string& path, std::int64_t max) const {
    const std::int64_t v = integer(j, path);
    if (v < 0 || v > max) {
      bad(path, fmt::format("expected an integer in [0, {}], found {}", max, v));
    }
    return static_cast<std::size_t>(v);
  }
  bool boolean(const Json& j, const std::string& path) const {
    if (!j.is_boolean()) bad(path, fmt::format("expected true or false, found {}", j.type_name()));
    return j.get<bool>();
  }
  const Json& array(const Json& j, const std::string& path) const {
    if (!j.is_array()) bad(path, fmt::format("expected an array, found {}", j.type_name()));
    return j;
  }
  std::vector<double> nums(const Json& j, const std::string& path) const {
    std::vector<double> out;
    for (std::size_t i = 0; i < array(j, path).size(); ++i) {
      out.push_back(num(j[i], fmt::format("{}[{}]", path, i)));
    }
    return out;
  }
  std::vector<std::int32_t> ints(const Json& j, const std::string& path) const {
    std::vector<std::int32_t> out;
    for (std::size_t i = 0; i < array(j, path).size(); ++i) {
      const std::string at = fmt::format("{}[{}]", path, i);
      const std::int64_t v = integer(j[i], at);
      if (v < INT32_MIN || v > INT32_MAX) {
        bad(at, fmt::format("expected an integer in [{}, {}], found {}", INT32_MIN, INT32_MAX, v));
      }
      out.push_back(static_cast<std::int32_t>(v));
    }
    return out;
  }
};

template <typename E, std::size_t N>
E parse_enum(const Reader& r, const Json& j, const std::string& path,
             const std::pair<const char*, E> (&names)[N]) {
  const std::string s = r.str(j, path);
  std::string allowed;
  for (const auto& [name, value] : names) {
    if (s == name) return value;
    allowed += (allowed.empty() ? "" : ", ") + std::string(name);
  }
  r.bad(path, fmt::format("expected one of {}, found {}", allowed, quote_found(s)));
}

Model from_assay_json(const Json& j, const Reader& r) {
  Model m;
  const auto version = r.integer(r.at(j, "", "version"), "version");
  if (version != kFormatVersion) {
    r.bad("version", fmt::format("unsupported format version {} (this assay reads version {})",
                                 version, kFormatVersion));
  }
  static const std::pair<const char*, ModelKind> kinds[] = {{"tree", ModelKind::tree},
                                                            {"forest", ModelKind::forest},
                                                            {"boosted", ModelKind::boosted},
                                                            {"network", ModelKind::network}};
  m.kind = parse_enum(r, r.at(j, "", "kind"), "kind", kinds);
  const std::string task = r.str(r.at(j, "", "task"), "task");
  const auto kind = find_task_kind(task);
  if (!kind) {
    r.bad("task",
          fmt::format("expected classification or regression, found {}", quote_found(task)));
  }
  m.classification = *kind == TaskKind::classification;
  m.n_features = r.size(r.at(j, "", "n_features"), "n_features", kMaxWidth);
  m.n_outputs = r.size(r.at(j, "", "n_outputs"), "n_outputs", kMaxWidth);
  if (j.contains("source")) m.source = r.str(j["source"], "source");
  if (j.contains("classes")) {
    const Json& c = r.array(j["classes"], "classes");
    for (std::size_t i = 0; i < c.size(); ++i) {
      m.classes.push_back(c[i].is_string() ? c[i].get<std::string>() : c[i].dump());
    }
  }
  if (m.kind == ModelKind::network) {
    const Json& layers = r.array(r.at(j, "", "layers"), "layers");
    static const std::pair<const char*, Activation> acts[] = {{"identity", Activation::identity},
                                                              {"relu", Activation::relu},
                                                              {"logistic", Activation::logistic},
                                                              {"softmax", Activation::softmax}};
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const std::string p = fmt::format("layers[{}]", l);
      Layer layer;
      const Json& w = r.array(r.at(layers[l], p, "weights"), p + ".weights");
      layer.n_out = w.size();
      for (std::size_t o = 0; o < w.size(); ++o) {
        auto row = r.nums(w[o], fmt::format("{}.weights[{}]", p, o));
        if (o == 0) layer.n_in = row.size();
        if (row.size() != layer.n_in) {
          r.bad(fmt::format("{}.weights[{}]", p, o),
                fmt::format("expected {} weights, found {}", layer.n_in, row.size()));
        }
        layer.weights.insert(layer.weights.end(), row.begin(), row.end());
      }
      layer.bias = r.nums(r.at(layers[l], p, "bias"), p + ".bias");
      layer.activation = parse_enum(r, r.at(layers[l], p, "activation"), p + ".activation", acts);
      m.layers.push_back(std::move(layer));
    }
    return m;
  }
  static const std::pair<const char*, SplitRule> rules[] = {{"<=", SplitRule::less_equal},
                                                            {"<", SplitRule::less}};
  m.split_rule = parse_enum(r, r.at(j, "", "split_rule"), "split_rule", rules);
  m.input_float32 = r.boolean(r.at(j, "", "input_float32"), "input_float32");
  if (m.kind == ModelKind::forest) {
    static const std::pair<const char*, Aggregation> aggs[] = {{"average", Aggregation::average},
                                                               {"vote", Aggregation::vote}};
    m.aggregation = parse_enum(r, r.at(j, "", "aggregation"), "aggregation", aggs);
  }
  if (m.kind == ModelKind::boosted) {
    static const std::pair<const char*, Link> links[] = {
        {"identity", Link::identity}, {"logistic", Link::logistic}, {"softmax", Link::softmax}};
    m.link = parse_enum(r, r.at(j, "", "link"), "link", links);
    m.base = r.nums(r.at(j, "", "base"), "base");
    if (j.contains("sum_float32")) m.sum_float32 = r.boolean(j["sum_float32"], "sum_float32");
    if (j.contains("logistic_rule")) {
      const std::string rule = r.str(j["logistic_rule"], "logistic_rule");
      if (rule != "p>0.5" && rule != "p>1-p") {
        r.bad("logistic_rule", fmt::format("expected p>0.5 or p>1-p, found {}", quote_found(rule)));
      }
      m.logistic_half = rule == "p>0.5";
    }
  }
  const Json& trees = r.array(r.at(j, "", "trees"), "trees");
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const std::string p = fmt::format("trees[{}]", t);
    Tree tree;
    tree.feature = r.ints(r.at(trees[t], p, "feature"), p + ".feature");
    tree.threshold = r.nums(r.at(trees[t], p, "threshold"), p + ".threshold");
    tree.left = r.ints(r.at(trees[t], p, "left"), p + ".left");
    tree.right = r.ints(r.at(trees[t], p, "right"), p + ".right");
    const Json& values = r.array(r.at(trees[t], p, "value"), p + ".value");
    for (std::size_t i = 0; i < values.size(); ++i) {
      tree.value.push_back(r.nums(values[i], fmt::format("{}.value[{}]", p, i)));
    }
    if (trees[t].contains("output")) {
      tree.output = static_cast<std::int32_t>(r.size(trees[t]["output"], p + ".output", kMaxWidth));
    }
    if (trees[t].contains("scale")) tree.scale = r.num(trees[t]["scale"], p + ".scale");
    m.trees.push_back(std::move(tree));
  }
  return m;
}

// xgboost's own JSON model (1.x): learner.gradient_booster.model.trees, one tree per array set.
Model from_xgboost_json(const Json& j, const Reader& r) {
  Model m;
  m.kind = ModelKind::boosted;
  m.source = "xgboost";
  m.split_rule = SplitRule::less;
  m.input_float32 = true;
  m.sum_float32 = true;
  m.logistic_half = true;
  const Json& learner = r.at(j, "", "learner");
  const Json& param = r.at(learner, "learner", "learner_model_param");
  const std::string lp = "learner.learner_model_param";
  // xgboost 1.x writes base_score as "5E-1"; 2.x as a one-element vector "[5E-1]".
  Json base_json = r.at(param, lp, "base_score");
  if (base_json.is_string()) {
    const std::string text = base_json.get<std::string>();
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
      const std::string inner = text.substr(1, text.size() - 2);
      if (inner.find(',') != std::string::npos) {
        r.bad(lp + ".base_score",
              fmt::format("expected one base score, found {} (a base score per output is not "
                          "supported)",
                          quote_found(text)));
      }
      base_json = inner;
    }
  }
  const float base_score = static_cast<float>(r.num(base_json, lp + ".base_score"));
  const auto num_class = static_cast<std::int64_t>(
      r.size(r.at(param, lp, "num_class"), lp + ".num_class", kMaxClasses));
  m.n_features = r.size(r.at(param, lp, "num_feature"), lp + ".num_feature", kMaxWidth);
  const std::string objective =
      r.str(r.at(r.at(learner, "learner", "objective"), "learner.objective", "name"),
            "learner.objective.name");
  const Json& booster = r.at(learner, "learner", "gradient_booster");
  const std::string booster_name =
      r.str(r.at(booster, "learner.gradient_booster", "name"), "learner.gradient_booster.name");
  if (booster_name != "gbtree") {
    r.bad("learner.gradient_booster.name",
          fmt::format("unsupported booster {} (only gbtree)", quote_found(booster_name)));
  }
  if (objective == "binary:logistic" || objective == "binary:logitraw") {
    m.classification = true;
    m.link = objective == "binary:logistic" ? Link::logistic : Link::identity;
    m.n_outputs = 1;
    m.classes = {"0", "1"};
    // xgboost turns a probability base_score into a margin, in float.
    const float margin =
        objective == "binary:logistic" ? -std::log(1.0f / base_score - 1.0f) : base_score;
    m.base = {margin};
  } else if (objective == "multi:softprob" || objective == "multi:softmax") {
    m.classification = true;
    m.link = Link::softmax;
    m.n_outputs = static_cast<std::size_t>(num_class);
    for (std::int64_t k = 0; k < num_class; ++k) m.classes.push_back(std::to_string(k));
    m.base.assign(m.n_outputs, base_score);
  } else if (objective == "reg:squarederror" || objective == "reg:linear" ||
             objective == "reg:absoluteerror") {
    m.classification = false;
    m.link = Link::identity;
    m.n_outputs = 1;
    m.base = {base_score};
  } else {
    r.bad("learner.objective.name",
          fmt::format("unsupported xgboost objective {} (supported: binary:logistic, "
                      "binary:logitraw, multi:softprob, multi:softmax, reg:squarederror)",
                      quote_found(objective)));
  }
  const std::string mp = "learner.gradient_booster.model";
  const Json& model = r.at(booster, "learner.gradient_booster", "model");
  const Json& trees = r.array(r.at(model, mp, "trees"), mp + ".trees");
  const auto info = r.ints(r.at(model, mp, "tree_info"), mp + ".tree_info");
  if (info.size() != trees.size()) {
    r.bad(mp + ".tree_info",
          fmt::format("expected {} entries (one per tree), found {}", trees.size(), info.size()));
  }
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const std::string p = fmt::format("{}.trees[{}]", mp, t);
    Tree tree;
    tree.left = r.ints(r.at(trees[t], p, "left_children"), p + ".left_children");
    tree.right = r.ints(r.at(trees[t], p, "right_children"), p + ".right_children");
    tree.feature = r.ints(r.at(trees[t], p, "split_indices"), p + ".split_indices");
    const auto cond = r.nums(r.at(trees[t], p, "split_conditions"), p + ".split_conditions");
    if (trees[t].contains("split_type")) {
      const auto types = r.ints(trees[t]["split_type"], p + ".split_type");
      for (auto v : types) {
        if (v != 0) r.bad(p + ".split_type", "categorical splits are not supported");
      }
    }
    const std::size_t n = tree.left.size();
    if (tree.right.size() != n || tree.feature.size() != n || cond.size() != n) {
      r.bad(p, fmt::format("node arrays differ in length ({}, {}, {}, {})", n, tree.right.size(),
                           tree.feature.size(), cond.size()));
    }
    tree.threshold.resize(n);
    tree.value.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      // Split conditions and leaf values are float32 in xgboost; the JSON text round-trips them.
      const float c = static_cast<float>(cond[i]);
      if (tree.left[i] == -1) {  // a leaf; validate() checks that its right child is -1 too
        tree.value[i] = {c};
        tree.feature[i] = 0;
      } else {
        tree.threshold[i] = c;
      }
    }
    tree.output = info[t];
    m.trees.push_back(std::move(tree));
  }
  return m;
}

std::pair<std::int64_t, std::int64_t> line_col(const std::string& text, std::size_t byte) {
  std::int64_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// Leaf values are finite; a classifier tree's leaves hold class counts or fractions, so a
// negative one (it would flip the argmax) is damage.
void check_leaf(const Model& m, const std::vector<double>& value, std::size_t t, std::size_t i) {
  const bool counts =
      m.classification && (m.kind == ModelKind::tree || m.kind == ModelKind::forest);
  for (std::size_t k = 0; k < value.size(); ++k) {
    if (!std::isfinite(value[k])) {
      fail("tree {} node {}: value[{}] is {}, expected a finite number", t, i, k, value[k]);
    }
    if (counts && value[k] < 0) {
      fail("tree {} node {}: value[{}] is {}, expected a class count or fraction >= 0", t, i, k,
           value[k]);
    }
  }
}

void check_classes(const Model& m) {
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t k = 0; k < m.classes.size(); ++k) {
    const auto [it, added] = seen.emplace(m.classes[k], k);
    if (!added) {
      fail("classes: {} is listed twice (classes[{}] and classes[{}])", quote_found(m.classes[k]),
           it->second, k);
    }
  }
}

void check_finite(const std::vector<double>& values, const std::string& what) {
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (!std::isfinite(values[k])) {
      fail("{}[{}] is {}, expected a finite number", what, k, values[k]);
    }
  }
}

// Byte offset of `number` as a whole JSON number token in `text` (0 when not found).
std::size_t find_number(const std::string& text, const std::string& number) {
  if (number.empty()) return 0;
  auto part_of_number = [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
           c == '+' || c == '-';
  };
  for (std::size_t at = text.find(number); at != std::string::npos;
       at = text.find(number, at + 1)) {
    const std::size_t end = at + number.size();
    if ((at == 0 || !part_of_number(text[at - 1])) &&
        (end == text.size() || !part_of_number(text[end]))) {
      return at;
    }
  }
  return 0;
}

// Only -1 marks a leaf, on both sides: any other negative index, or a leaf with a right child,
// is damage that reading it as a leaf would hide (its subtree silently dropped).
void check_children(const Tree& tree, std::size_t t, std::size_t i) {
  const std::int32_t left = tree.left[i], right = tree.right[i];
  if (left == -1 && right != -1) {
    fail("tree {} node {}: a leaf (left child -1) with right child {}, expected -1", t, i, right);
  }
  if (left < -1) {
    fail("tree {} node {}: left child {} out of range: expected -1 (a leaf) or a node in ({}, {})",
         t, i, left, i, tree.left.size());
  }
}

void check_tree(const Model& m, const Tree& tree, std::size_t t) {
  const std::size_t n = tree.left.size();
  if (n == 0) fail("tree {}: no nodes", t);
  if (tree.feature.size() != n || tree.threshold.size() != n || tree.right.size() != n ||
      tree.value.size() != n) {
    fail(
        "tree {}: node arrays differ in length (feature {}, threshold {}, left {}, right {}, "
        "value {})",
        t, tree.feature.size(), tree.threshold.size(), n, tree.right.size(), tree.value.size());
  }
  std::size_t width = 0;
  for (std::size_t i = 0; i < n; ++i) {
    check_children(tree, t, i);
    if (tree.left[i] == -1) {
      if (tree.value[i].empty()) fail("tree {} node {}: leaf without a value", t, i);
      check_leaf(m, tree.value[i], t, i);
      if (width == 0) width = tree.value[i].size();
      if (tree.value[i].size() != width) {
        fail("tree {} node {}: leaf has {} values, expected {}", t, i, tree.value[i].size(), width);
      }
      continue;
    }
    for (auto child : {tree.left[i], tree.right[i]}) {
      if (child <= static_cast<std::int64_t>(i) || child >= static_cast<std::int64_t>(n)) {
        fail("tree {} node {}: child {} out of range ({}, {})", t, i, child, i, n);
      }
    }
    if (tree.feature[i] < 0 || static_cast<std::size_t>(tree.feature[i]) >= m.n_features) {
      fail("tree {} node {}: feature {} out of range [0, {})", t, i, tree.feature[i], m.n_features);
    }
    if (!std::isfinite(tree.threshold[i])) {
      fail("tree {} node {}: threshold is not finite", t, i);
    }
  }
  if (m.kind == ModelKind::boosted) {
    if (width != 1) fail("tree {}: boosting leaves must hold one value, found {}", t, width);
    if (tree.output < 0 || static_cast<std::size_t>(tree.output) >= m.n_outputs) {
      fail("tree {}: output {} out of range [0, {})", t, tree.output, m.n_outputs);
    }
  } else if (width != m.n_outputs) {
    fail("tree {}: leaves hold {} values but the model has {} outputs", t, width, m.n_outputs);
  }
}

}  // namespace

std::string to_string(ModelKind kind) {
  switch (kind) {
    case ModelKind::tree:
      return "tree";
    case ModelKind::forest:
      return "forest";
    case ModelKind::boosted:
      return "boosted";
    case ModelKind::network:
      return "network";
    case ModelKind::graph:
      return "graph";
  }
  return "?";
}

void validate(const Model& m) {
  if (m.n_features == 0) fail("the model has no input features");
  if (m.n_outputs == 0) fail("the model has no outputs");
  if (m.classification) {
    const std::size_t need =
        (m.n_outputs == 1 && (m.kind == ModelKind::boosted || m.kind == ModelKind::network ||
                              m.kind == ModelKind::graph))
            ? 2
            : m.n_outputs;
    if (m.classes.size() != need) {
      fail("the model has {} classes, expected {} for {} outputs", m.classes.size(), need,
           m.n_outputs);
    }
    check_classes(m);
  }
  if (m.kind == ModelKind::graph) {
    if (!m.graph) fail("the graph model has no graph");
    validate(*m.graph);
    if (m.graph->n_inputs() != m.n_features || m.graph->n_outputs() != m.n_outputs) {
      fail("the graph has {} inputs and {} outputs, the model declares {} and {}",
           m.graph->n_inputs(), m.graph->n_outputs(), m.n_features, m.n_outputs);
    }
    return;
  }
  if (m.kind == ModelKind::network) {
    if (m.layers.empty()) fail("the network has no layers");
    std::size_t width = m.n_features;
    for (std::size_t l = 0; l < m.layers.size(); ++l) {
      const Layer& layer = m.layers[l];
      if (layer.n_in != width) {
        fail("layer {}: expects {} inputs, the previous layer gives {}", l, layer.n_in, width);
      }
      if (layer.weights.size() != layer.n_in * layer.n_out || layer.bias.size() != layer.n_out) {
        fail("layer {}: {} weights and {} biases for {} x {}", l, layer.weights.size(),
             layer.bias.size(), layer.n_out, layer.n_in);
      }
      check_finite(layer.weights, fmt::format("layer {}: weights", l));
      check_finite(layer.bias, fmt::format("layer {}: bias", l));
      width = layer.n_out;
    }
    if (width != m.n_outputs) {
      fail("the last layer has {} outputs, the model declares {}", width, m.n_outputs);
    }
    return;
  }
  if (m.trees.empty()) fail("the model has no trees");
  if (m.kind == ModelKind::tree && m.trees.size() != 1) {
    fail("a tree model holds one tree, found {}", m.trees.size());
  }
  if (m.kind == ModelKind::boosted && m.base.size() != m.n_outputs) {
    fail("base has {} values, expected one per output ({})", m.base.size(), m.n_outputs);
  }
  check_finite(m.base, "base");
  for (std::size_t t = 0; t < m.trees.size(); ++t) {
    if (!std::isfinite(m.trees[t].scale)) {
      fail("tree {}: scale is {}, expected a finite number", t, m.trees[t].scale);
    }
  }
  for (std::size_t t = 0; t < m.trees.size(); ++t) check_tree(m, m.trees[t], t);
}

bool goes_left(const Model& m, double v, double threshold) {
  if (m.input_float32) v = static_cast<double>(static_cast<float>(v));
  return m.split_rule == SplitRule::less_equal ? v <= threshold : v < threshold;
}

std::size_t tree_leaf(const Model& m, const Tree& tree, std::span<const double> x) {
  std::size_t node = 0;
  while (!tree.is_leaf(node)) {
    node = static_cast<std::size_t>(goes_left(m, x[tree.feature[node]], tree.threshold[node])
                                        ? tree.left[node]
                                        : tree.right[node]);
  }
  return node;
}

namespace {

std::int32_t boosted_label(const Model& m, const std::vector<double>& margin) {
  if (m.link == Link::logistic && margin.size() == 1) {
    if (m.logistic_half) {
      const float p = 1.0f / (1.0f + std::exp(-static_cast<float>(margin[0])));
      return p > 0.5f ? 1 : 0;
    }
    const double p = sigmoid(margin[0]);
    return p > 1.0 - p ? 1 : 0;
  }
  if (margin.size() == 1 && m.classification) return margin[0] > 0.0 ? 1 : 0;
  return static_cast<std::int32_t>(argmax(margin));
}

}  // namespace

std::int32_t label_from_leaves(const Model& m, std::span<const std::size_t> leaves,
                               std::vector<double>* scores_out) {
  // Write into the caller's buffer: counting calls this once per point or box and reuses it.
  std::vector<double> local;
  std::vector<double>& scores = scores_out ? *scores_out : local;
  std::int32_t label = 0;
  if (m.kind == ModelKind::tree) {
    const auto& value = m.trees[0].value[leaves[0]];
    scores.assign(value.size(), 0.0);
    if (m.classification) {
      add_normalised(value, scores);
    } else {
      scores = value;
    }
    // scikit-learn's DecisionTreeClassifier.predict takes the argmax of the raw leaf values;
    // dividing by their sum can round two different values to one and move the first maximum.
    label = static_cast<std::int32_t>(argmax(value));
  } else if (m.kind == ModelKind::forest) {
    scores.assign(m.n_outputs, 0.0);
    for (std::size_t t = 0; t < m.trees.size(); ++t) {
      const auto& value = m.trees[t].value[leaves[t]];
      if (!m.classification) {
        for (std::size_t k = 0; k < value.size(); ++k) scores[k] += value[k];
      } else if (m.aggregation == Aggregation::average) {
        add_normalised(value, scores);
      } else {
        scores[argmax(value)] += 1.0;
      }
    }
    for (double& s : scores) s /= static_cast<double>(m.trees.size());
    label = static_cast<std::int32_t>(argmax(scores));
  } else {
    ASSAY_ASSERT(m.kind == ModelKind::boosted);
    if (m.sum_float32) {
      std::vector<float> acc(m.base.begin(), m.base.end());
      for (std::size_t t = 0; t < m.trees.size(); ++t) {
        const Tree& tree = m.trees[t];
        acc[tree.output] += static_cast<float>(tree.scale * tree.value[leaves[t]][0]);
      }
      scores.assign(acc.begin(), acc.end());
    } else {
      scores = m.base;
      for (std::size_t t = 0; t < m.trees.size(); ++t) {
        const Tree& tree = m.trees[t];
        scores[tree.output] += tree.scale * tree.value[leaves[t]][0];
      }
    }
    label = boosted_label(m, scores);
  }
  return label;
}

namespace {

// An activation applied in place (relu too: a hidden layer's, or a graph output's if any).
void activate(Activation activation, std::vector<double>& z) {
  switch (activation) {
    case Activation::identity:
      break;
    case Activation::relu:
      for (double& v : z) v = std::max(v, 0.0);
      break;
    case Activation::logistic:
      for (double& v : z) v = sigmoid(v);
      break;
    case Activation::softmax: {
      const double mx = *std::max_element(z.begin(), z.end());
      double sum = 0.0;
      for (double& v : z) {
        v = std::exp(v - mx);
        sum += v;
      }
      for (double& v : z) v /= sum;
      break;
    }
  }
}

std::vector<double> network_forward(const Model& m, std::span<const double> x) {
  std::vector<double> a(x.begin(), x.end()), z;
  for (const Layer& layer : m.layers) {
    z.assign(layer.n_out, 0.0);
    for (std::size_t o = 0; o < layer.n_out; ++o) {
      double s = 0.0;
      const double* w = layer.weights.data() + o * layer.n_in;
      for (std::size_t i = 0; i < layer.n_in; ++i) s += a[i] * w[i];
      z[o] = s + layer.bias[o];
    }
    activate(layer.activation, z);
    a.swap(z);
  }
  return a;
}

// A graph model's scores: its output activation applied to the output node's values.
std::vector<double> graph_model_forward(const Model& m, std::span<const double> x) {
  std::vector<double> z = graph_forward(*m.graph, x);
  activate(m.graph_output_activation, z);
  return z;
}

}  // namespace

std::vector<double> predict_scores(const Model& m, std::span<const double> x) {
  if (x.size() != m.n_features) {
    fail("the model expects {} features, found {}", m.n_features, x.size());
  }
  if (m.kind == ModelKind::network) return network_forward(m, x);
  if (m.kind == ModelKind::graph) return graph_model_forward(m, x);
  std::vector<std::size_t> leaves(m.trees.size());
  for (std::size_t t = 0; t < m.trees.size(); ++t) leaves[t] = tree_leaf(m, m.trees[t], x);
  std::vector<double> scores;
  label_from_leaves(m, leaves, &scores);
  return scores;
}

std::int32_t predict_label(const Model& m, std::span<const double> x) {
  if (x.size() != m.n_features) {
    fail("the model expects {} features, found {}", m.n_features, x.size());
  }
  if (m.kind == ModelKind::network || m.kind == ModelKind::graph) {
    const auto out = m.kind == ModelKind::graph ? graph_model_forward(m, x) : network_forward(m, x);
    if (out.size() == 1 && m.classification) return out[0] > 0.5 ? 1 : 0;
    return static_cast<std::int32_t>(argmax(out));
  }
  std::size_t stack[64];
  std::vector<std::size_t> heap;
  std::span<std::size_t> leaves;
  if (m.trees.size() <= 64) {
    leaves = std::span<std::size_t>(stack, m.trees.size());
  } else {
    heap.resize(m.trees.size());
    leaves = heap;
  }
  for (std::size_t t = 0; t < m.trees.size(); ++t) leaves[t] = tree_leaf(m, m.trees[t], x);
  return label_from_leaves(m, leaves);
}

Json model_to_json(const Model& m) {
  Json j;
  if (m.kind == ModelKind::graph) {
    fail(
        "a graph network (convolutions, pooling, skip connections) is read from its ONNX file; "
        "it has no assay JSON form");
  }
  j["format"] = "assay-model";
  j["version"] = kFormatVersion;
  j["kind"] = to_string(m.kind);
  j["task"] = to_string(task_of(m));
  j["source"] = m.source;
  j["n_features"] = m.n_features;
  j["n_outputs"] = m.n_outputs;
  j["classes"] = m.classes;
  if (m.kind == ModelKind::network) {
    Json layers = Json::array();
    for (const Layer& layer : m.layers) {
      Json w = Json::array();
      for (std::size_t o = 0; o < layer.n_out; ++o) {
        w.push_back(std::vector<double>(layer.weights.begin() + o * layer.n_in,
                                        layer.weights.begin() + (o + 1) * layer.n_in));
      }
      layers.push_back({{"weights", w},
                        {"bias", layer.bias},
                        {"activation", activation_name(layer.activation)}});
    }
    j["layers"] = layers;
    return j;
  }
  j["split_rule"] = split_rule_name(m.split_rule);
  j["input_float32"] = m.input_float32;
  if (m.kind == ModelKind::forest) j["aggregation"] = aggregation_name(m.aggregation);
  if (m.kind == ModelKind::boosted) {
    j["link"] = link_name(m.link);
    j["base"] = m.base;
    j["sum_float32"] = m.sum_float32;
    j["logistic_rule"] = m.logistic_half ? "p>0.5" : "p>1-p";
  }
  Json trees = Json::array();
  for (const Tree& t : m.trees) {
    Json jt{{"feature", t.feature},
            {"threshold", t.threshold},
            {"left", t.left},
            {"right", t.right},
            {"value", t.value}};
    if (m.kind == ModelKind::boosted) {
      jt["output"] = t.output;
      jt["scale"] = t.scale;
    }
    trees.push_back(std::move(jt));
  }
  j["trees"] = std::move(trees);
  return j;
}

Model model_from_json(const Json& j, const std::string& where) {
  Reader r{where};
  if (!j.is_object()) fail("{}: expected a JSON object, found {}", where, j.type_name());
  Model m;
  if (j.contains("learner")) {
    m = from_xgboost_json(j, r);
  } else {
    auto it = j.find("format");
    if (it == j.end() || !it->is_string() || it->get<std::string>() != "assay-model") {
      fail(
          "{}: not a model: expected \"format\": \"assay-model\" or an xgboost JSON model "
          "(with \"learner\")",
          where);
    }
    m = from_assay_json(j, r);
  }
  try {
    validate(m);
  } catch (const Error& e) {
    fail("{}: {}", where, e.message());
  }
  return m;
}

Model parse_model(const std::string& text, const std::string& where) {
  if (detail::looks_like_onnx(text)) {
    fail(
        "{}: expected a JSON model, found an ONNX model (binary protobuf): read it as ONNX (a file "
        "name ending in .onnx)",
        where);
  }
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::out_of_range& e) {
    // nlohmann's "number overflow parsing '1e400'" has no position: find the number in the text.
    const std::string what = e.what();
    const auto open = what.find('\'');
    const auto close = what.rfind('\'');
    std::string number;
    if (open != std::string::npos && close > open) number = what.substr(open + 1, close - open - 1);
    const auto [line, col] = line_col(text, find_number(text, number));
    fail_at(Location{where, line, col},
            "expected a number within the range of a double (about 1.8e308), found {}",
            number.empty() ? std::string("a larger one") : number);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, col] = line_col(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    // nlohmann's text is "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    const auto colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    fail_at(Location{where, line, col}, "invalid JSON: {}", what);
  }
  return model_from_json(j, where);
}

Model load_model(const std::string& path) {
  return parse_model(detail::read_input_file(path, "a model file",
                                             fmt::format("cannot open model file \"{}\"", path)),
                     path);
}

void save_model(const Model& model, const std::string& path) {
  validate(model);
  write_json_file(path, model_to_json(model));
}

ModelInfo model_info(const Model& m) {
  ModelInfo info;
  info.kind = to_string(m.kind);
  info.task = to_string(task_of(m));
  info.source = m.source;
  info.n_features = m.n_features;
  info.n_outputs = m.n_outputs;
  info.classes = m.classes;
  if (m.kind == ModelKind::network) {
    info.layer_sizes.push_back(m.n_features);
    for (const Layer& l : m.layers) {
      info.layer_sizes.push_back(l.n_out);
      info.n_parameters += l.weights.size() + l.bias.size();
    }
    return info;
  }
  if (m.kind == ModelKind::graph) {
    info.n_nodes = m.graph->nodes.size();
    info.n_neurons = graph_neurons(*m.graph);
    info.n_parameters = graph_parameters(*m.graph);
    return info;
  }
  info.n_trees = m.trees.size();
  for (const Tree& t : m.trees) {
    info.n_nodes += t.size();
    std::vector<std::size_t> depth(t.size(), 0);
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t.is_leaf(i)) {
        ++info.n_leaves;
        info.n_parameters += t.value[i].size();
        info.max_depth = std::max(info.max_depth, depth[i]);
      } else {
        info.n_parameters += 2;
        depth[t.left[i]] = depth[i] + 1;
        depth[t.right[i]] = depth[i] + 1;
      }
    }
  }
  return info;
}

Json model_info_json(const ModelInfo& info) {
  Json j{{"kind", info.kind},
         {"task", info.task},
         {"source", info.source},
         {"n_features", info.n_features},
         {"n_outputs", info.n_outputs},
         {"classes", info.classes},
         {"n_parameters", info.n_parameters}};
  if (info.kind == "network") {
    j["layer_sizes"] = info.layer_sizes;
  } else if (info.kind == "graph") {
    j["n_nodes"] = info.n_nodes;
    j["n_neurons"] = info.n_neurons;
  } else {
    j["n_trees"] = info.n_trees;
    j["n_nodes"] = info.n_nodes;
    j["n_leaves"] = info.n_leaves;
    j["max_depth"] = info.max_depth;
  }
  return j;
}

}  // namespace assay::count
