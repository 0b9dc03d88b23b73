// Model representation: prediction rules (<= vs <, float32 inputs, aggregation, links), the JSON
// format round trip, xgboost documents, info, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "assay/core/error.hpp"
#include "assay/count/model.hpp"
#include "test_util.hpp"

namespace assay::count {
namespace {

// x0 <= 0.5 ? (x1 <= 1.5 ? A : B) : C, classes a/b/c.
Model small_tree() {
  Model m;
  m.kind = ModelKind::tree;
  m.n_features = 2;
  m.n_outputs = 3;
  m.classes = {"a", "b", "c"};
  Tree t;
  t.feature = {0, 1, 0, 0, 0};
  t.threshold = {0.5, 1.5, 0, 0, 0};
  t.left = {1, 3, -1, -1, -1};
  t.right = {2, 4, -1, -1, -1};
  t.value = {{0, 0, 0}, {0, 0, 0}, {0, 1, 3}, {5, 1, 0}, {1, 4, 0}};
  m.trees.push_back(t);
  return m;
}

std::int32_t label(const Model& m, std::vector<double> x) {
  return predict_label(m, x);
}

TEST(Model, TreeSplitRulesAndFloat32Inputs) {
  Model m = small_tree();
  EXPECT_EQ(label(m, {0.5, 1.5}), 0);  // on both thresholds: <= goes left
  EXPECT_EQ(label(m, {0.5, 1.6}), 1);
  EXPECT_EQ(label(m, {0.6, 0.0}), 2);
  // float32(0.5 + 1e-12) == 0.5: still left, as in scikit-learn.
  EXPECT_EQ(label(m, {0.5 + 1e-12, 0.0}), 0);
  m.input_float32 = false;
  EXPECT_EQ(label(m, {0.5 + 1e-12, 0.0}), 2);
  m.split_rule = SplitRule::less;  // xgboost: x < t goes left
  EXPECT_EQ(label(m, {0.5, 0.0}), 2);
  EXPECT_EQ(label(m, {0.4, 1.5}), 1);
  const auto s = predict_scores(small_tree(), std::vector<double>{0, 0});
  EXPECT_EQ(s, (std::vector<double>{5.0 / 6, 1.0 / 6, 0.0}));
}

TEST(Model, TreeLabelIsTheArgmaxOfRawLeafValues) {
  Model m = small_tree();
  // a < b, yet a/s == b/s once rounded: scikit-learn's predict takes the argmax of the raw
  // values, so the label is b although the normalised scores tie.
  m.trees[0].value[3] = {60.95921536336763, 60.95921536336764, 49.80609710506208};
  const std::vector<double> x{0, 0};
  const auto s = predict_scores(m, x);
  EXPECT_EQ(s[0], s[1]);
  EXPECT_EQ(predict_label(m, x), 1);
}

TEST(Model, ForestAveragesNormalisedLeavesAndVotes) {
  Model m = small_tree();
  m.kind = ModelKind::forest;
  Tree t2 = m.trees[0];
  t2.value[3] = {0, 1, 1};  // at (0, 0): tree 1 says a (5/6), tree 2 says b/c (1/2 each)
  m.trees.push_back(t2);
  const std::vector<double> x{0, 0};
  const auto s = predict_scores(m, x);
  EXPECT_DOUBLE_EQ(s[0], (5.0 / 6) / 2);
  EXPECT_DOUBLE_EQ(s[1], (1.0 / 6 + 0.5) / 2);
  EXPECT_EQ(predict_label(m, x), 0);
  m.aggregation = Aggregation::vote;  // one vote for a, one for b (first maximum): a
  EXPECT_EQ(predict_scores(m, x), (std::vector<double>{0.5, 0.5, 0.0}));
  EXPECT_EQ(predict_label(m, x), 0);
}

TEST(Model, BoostedMarginsAndLinks) {
  Model m;
  m.kind = ModelKind::boosted;
  m.n_features = 1;
  m.n_outputs = 1;
  m.classes = {"0", "1"};
  m.link = Link::logistic;
  m.base = {-0.25};
  Tree t;
  t.feature = {0, 0, 0};
  t.threshold = {2.0, 0, 0};
  t.left = {1, -1, -1};
  t.right = {2, -1, -1};
  t.value = {{0}, {-1.0}, {1.0}};
  t.scale = 0.1;
  m.trees = {t, t};
  EXPECT_DOUBLE_EQ(predict_scores(m, std::vector<double>{3})[0], -0.25 + 0.2);
  EXPECT_EQ(predict_label(m, std::vector<double>{3}), 0);  // margin -0.05
  m.base = {-0.15};
  EXPECT_EQ(predict_label(m, std::vector<double>{3}), 1);  // margin 0.05
  EXPECT_EQ(predict_label(m, std::vector<double>{1}), 0);
}

TEST(Model, NetworkForward) {
  Model m;
  m.kind = ModelKind::network;
  m.n_features = 2;
  m.n_outputs = 1;
  m.classes = {"no", "yes"};
  m.layers.push_back({2, 2, {1, -1, -1, 1}, {0, 0}, Activation::relu});
  m.layers.push_back({2, 1, {1, 1}, {-0.5}, Activation::logistic});
  // |x0 - x1| - 0.5 > 0  <=>  yes.
  EXPECT_EQ(predict_label(m, std::vector<double>{1, 0}), 1);
  EXPECT_EQ(predict_label(m, std::vector<double>{0.2, 0}), 0);
  EXPECT_DOUBLE_EQ(predict_scores(m, std::vector<double>{1, 0})[0], 1 / (1 + std::exp(-0.5)));
  const ModelInfo info = model_info(m);
  EXPECT_EQ(info.n_parameters, 9u);
  EXPECT_EQ(info.layer_sizes, (std::vector<std::size_t>{2, 2, 1}));
}

TEST(Model, JsonRoundTripAndInfo) {
  const Model m = small_tree();
  const Json j = model_to_json(m);
  EXPECT_EQ(j["format"], "assay-model");
  EXPECT_EQ(j["version"], 1);
  const Model back = model_from_json(j);
  EXPECT_EQ(model_to_json(back), j);
  const ModelInfo info = model_info(m);
  EXPECT_EQ(info.n_nodes, 5u);
  EXPECT_EQ(info.n_leaves, 3u);
  EXPECT_EQ(info.max_depth, 2u);
  EXPECT_EQ(info.n_parameters, 2u * 2 + 3 * 3);
  const auto path = std::filesystem::temp_directory_path() / "assay_count_model.json";
  save_model(m, path.string());
  EXPECT_EQ(model_to_json(load_model(path.string())), j);
  std::filesystem::remove(path);
}

TEST(Model, XgboostDocument) {
  // Two stumps as xgboost 1.7 writes them; leaves hold their value in split_conditions.
  const Json doc = Json::parse(R"({
    "learner": {
      "learner_model_param": {"base_score": "5E-1", "num_class": "0", "num_feature": "2",
                              "num_target": "1"},
      "objective": {"name": "binary:logistic"},
      "gradient_booster": {"name": "gbtree", "model": {
        "tree_info": [0, 0],
        "trees": [
          {"left_children": [1, -1, -1], "right_children": [2, -1, -1],
           "split_indices": [0, 0, 0], "split_conditions": [3.0, -0.4, 0.6],
           "split_type": [0, 0, 0]},
          {"left_children": [1, -1, -1], "right_children": [2, -1, -1],
           "split_indices": [1, 0, 0], "split_conditions": [1.0, 0.1, -0.3],
           "split_type": [0, 0, 0]}]}}},
    "version": [1, 7, 4]})");
  const Model m = model_from_json(doc, "x.json");
  EXPECT_EQ(m.kind, ModelKind::boosted);
  EXPECT_EQ(m.split_rule, SplitRule::less);
  // x0 = 3 is not < 3: right (0.6); x1 = 0 < 1: left (0.1); margin 0 + 0.7.
  EXPECT_NEAR(predict_scores(m, std::vector<double>{3, 0})[0], 0.7, 1e-7);
  EXPECT_EQ(predict_label(m, std::vector<double>{3, 0}), 1);
  EXPECT_EQ(predict_label(m, std::vector<double>{2.9, 5}), 0);  // -0.4 - 0.3
}

TEST(Model, Errors) {
  Json j = model_to_json(small_tree());
  j["trees"][0]["left"][1] = 1;
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: tree 0 node 1: child 1 out of range (1, 5)");
  j = model_to_json(small_tree());
  j["trees"][0]["feature"][0] = 7;
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: tree 0 node 0: feature 7 out of range [0, 2)");
  j = model_to_json(small_tree());
  j["trees"][0]["threshold"][0] = "half";
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: trees[0].threshold[0]: expected a number, found \"half\"");
  j = model_to_json(small_tree());
  j.erase("n_features");
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error, "m.json: missing field \"n_features\"");
  j = model_to_json(small_tree());
  j["classes"] = {"a", "b"};
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: the model has 2 classes, expected 3 for 3 outputs");
  EXPECT_THROW_MSG(model_from_json(Json::array(), "m.json"), Error,
                   "m.json: expected a JSON object, found array");
  EXPECT_THROW_MSG(parse_model("{\"format\": \"assay-model\",\n \"version\": 1,,}", "m.json"),
                   Error,
                   "m.json:2:15: invalid JSON: syntax error while parsing object key - unexpected "
                   "','; expected string literal");
  EXPECT_THROW_MSG(load_model("/nonexistent/m.json"), Error,
                   "cannot open model file \"/nonexistent/m.json\"");
  EXPECT_THROW_MSG(predict_label(small_tree(), std::vector<double>{1, 2, 3}), Error,
                   "the model expects 2 features, found 3");
}

// Damaged or hostile model documents: each is refused naming the field and the value.
TEST(ModelLimits, SizesAndValuesAreValidated) {
  Json j = model_to_json(small_tree());
  j["n_features"] = -1;
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: n_features: expected an integer in [0, 2147483647], found -1");
  j = model_to_json(small_tree());
  j["n_outputs"] = 1e12;
  EXPECT_THROW_MSG(
      model_from_json(j, "m.json"), Error,
      "m.json: n_outputs: expected an integer in [0, 2147483647], found 1000000000000");
  j = model_to_json(small_tree());
  j["classes"] = {"a", "b", "a"};
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: classes: \"a\" is listed twice (classes[0] and classes[2])");
  j = model_to_json(small_tree());
  j["trees"][0]["value"][3] = {5, -7, 0};
  EXPECT_THROW_MSG(
      model_from_json(j, "m.json"), Error,
      "m.json: tree 0 node 3: value[1] is -7, expected a class count or fraction >= 0");
  j = model_to_json(small_tree());
  j["trees"][0]["left"][0] = 4294967297.0;
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: trees[0].left[0]: expected an integer in [-2147483648, 2147483647], "
                   "found 4294967297");
}

TEST(ModelLimits, NumberOverflowIsLocated) {
  EXPECT_THROW_MSG(parse_model("{\"format\": \"assay-model\",\n \"version\": 1e400}", "m.json"),
                   Error,
                   "m.json:2:13: expected a number within the range of a double (about 1.8e308), "
                   "found 1e400");
}

TEST(ModelLimits, XgboostSizes) {
  const Json doc = Json::parse(R"({"learner": {
    "learner_model_param": {"base_score": "5E-1", "num_class": "-3", "num_feature": "2"},
    "objective": {"name": "multi:softprob"},
    "gradient_booster": {"name": "gbtree", "model": {"trees": [], "tree_info": []}}}})");
  EXPECT_THROW_MSG(model_from_json(doc, "x.json"), Error,
                   "x.json: learner.learner_model_param.num_class: expected an integer in [0, "
                   "1000000], found -3");
  Json d = doc;
  d["learner"]["learner_model_param"]["num_class"] = "0";
  d["learner"]["learner_model_param"]["num_feature"] = "-1";
  EXPECT_THROW_MSG(model_from_json(d, "x.json"), Error,
                   "x.json: learner.learner_model_param.num_feature: expected an integer in [0, "
                   "2147483647], found -1");
  d["learner"]["learner_model_param"]["num_feature"] = "2";
  d["learner"]["objective"]["name"] = "binary:logistic";
  d["learner"]["gradient_booster"]["model"]["trees"] = Json::parse(
      R"([{"left_children": [-1], "right_children": [-1], "split_indices": [0],
           "split_conditions": ["nan"]}])");
  d["learner"]["gradient_booster"]["model"]["tree_info"] = {0};
  EXPECT_THROW_MSG(model_from_json(d, "x.json"), Error,
                   "x.json: tree 0 node 0: value[0] is nan, expected a finite number");
}

// num_class names and sizes the classes before any tree is read: 1e9 is refused up front
// (reading it used to end in bad_alloc, also in `assay model info`).
TEST(ModelLimits, XgboostClassCount) {
  Json doc = Json::parse(R"({"learner": {
    "learner_model_param": {"base_score": "5E-1", "num_class": "1000000000", "num_feature": "2"},
    "objective": {"name": "multi:softprob"},
    "gradient_booster": {"name": "gbtree", "model": {"trees": [], "tree_info": []}}}})");
  EXPECT_THROW_MSG(model_from_json(doc, "x.json"), Error,
                   "x.json: learner.learner_model_param.num_class: expected an integer in [0, "
                   "1000000], found 1000000000");
  doc["learner"]["learner_model_param"]["num_class"] = "1000001";
  EXPECT_THROW_MSG(model_from_json(doc, "x.json"), Error,
                   "x.json: learner.learner_model_param.num_class: expected an integer in [0, "
                   "1000000], found 1000001");
}

// Only -1 marks a leaf: another negative child, or a leaf with a right child, is damage that
// reading it as a leaf would hide (the subtree dropped). Both readers, and validate().
TEST(ModelLimits, ChildIndicesAreChecked) {
  Json j = model_to_json(small_tree());
  j["trees"][0]["left"][1] = -5;
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: tree 0 node 1: left child -5 out of range: expected -1 (a leaf) or a "
                   "node in (1, 5)");
  j = model_to_json(small_tree());
  j["trees"][0]["right"][2] = 4;
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: tree 0 node 2: a leaf (left child -1) with right child 4, expected -1");
  j = model_to_json(small_tree());
  j["trees"][0]["right"][3] = -2;
  EXPECT_THROW_MSG(model_from_json(j, "m.json"), Error,
                   "m.json: tree 0 node 3: a leaf (left child -1) with right child -2, expected "
                   "-1");
  Model m = small_tree();
  m.trees[0].left[0] = -7;
  EXPECT_THROW_MSG(validate(m), Error,
                   "tree 0 node 0: left child -7 out of range: expected -1 (a leaf) or a node in "
                   "(0, 5)");
  const Json xgb = Json::parse(R"({"learner": {
    "learner_model_param": {"base_score": "5E-1", "num_class": "0", "num_feature": "2"},
    "objective": {"name": "binary:logistic"},
    "gradient_booster": {"name": "gbtree", "model": {"tree_info": [0], "trees": [
      {"left_children": [1, -1, -1], "right_children": [2, 7, -1],
       "split_indices": [0, 0, 0], "split_conditions": [3.0, -0.4, 0.6]}]}}}})");
  EXPECT_THROW_MSG(model_from_json(xgb, "x.json"), Error,
                   "x.json: tree 0 node 1: a leaf (left child -1) with right child 7, expected -1");
  Json xgb2 = xgb;
  auto& tree = xgb2["learner"]["gradient_booster"]["model"]["trees"][0];
  tree["right_children"] = {2, -1, -1};
  tree["left_children"] = {-3, -1, -1};
  EXPECT_THROW_MSG(model_from_json(xgb2, "x.json"), Error,
                   "x.json: tree 0 node 0: left child -3 out of range: expected -1 (a leaf) or a "
                   "node in (0, 3)");
}

TEST(ModelLimits, FoldersAndOnnxFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "assay_model_folder.json";
  std::filesystem::create_directories(dir);
  EXPECT_THROW_MSG(load_model(dir.string()), Error,
                   dir.string() + ": is a folder, expected a model file");
  std::filesystem::remove(dir);
  // An ONNX model's first byte is the tag of its ir_version field.
  EXPECT_THROW_MSG(parse_model(std::string("\x08\x08\x12\x04test", 8), "net.json"), Error,
                   "net.json: expected a JSON model, found an ONNX model (binary protobuf): read "
                   "it as ONNX (a file name ending in .onnx)");
}

}  // namespace
}  // namespace assay::count
