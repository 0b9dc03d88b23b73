#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "assay/core/error.hpp"
#include "assay/count/onnx.hpp"
#include "assay/count/vnnlib.hpp"
#include "count/onnx_writer.hpp"

namespace assay::count {
namespace {

using testing::Attr;
using testing::int_tensor;
using testing::node;
using testing::tensor;
using testing::value_info;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// x [1,3] -> Sub(mean) -> Div(range) -> Gemm(W1 3x4, transB) -> Relu -> MatMul(W2 4x2) -> Add.
std::string small_net(const std::string& extra_op = "") {
  std::vector<testing::Pb> nodes = {
      node("Sub", {"x", "mean"}, "s"),
      node("Div", {"s", "range"}, "d"),
      node("Gemm", {"d", "W1", "b1"}, "g", "gemm1", {{"transB", false, 1}}),
      node("Relu", {"g"}, "r"),
      node("MatMul", {"r", "W2"}, "m"),
      node("Add", {"m", "b2"}, extra_op.empty() ? "y" : "a")};
  if (!extra_op.empty()) nodes.push_back(node(extra_op, {"a"}, "y", "last"));
  const std::vector<testing::Pb> inits = {
      tensor("mean", {3}, {1, 2, 3}),
      tensor("range", {1, 3}, {2, 4, 8}),
      tensor("W1", {4, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f, -1, 2, 0, 0, 0, 1}),
      tensor("b1", {4}, {0.1f, -0.2f, 0.3f, 0}),
      tensor("W2", {4, 2}, {1, -1, 2, 0, 0, 1, -1, 1}),
      tensor("b2", {2}, {0.5f, -0.5f})};
  return testing::model(nodes, inits, value_info("x", {-1, 3}), value_info("y", {-1, 2}));
}

std::vector<double> reference(const double* x) {
  const double mean[3] = {1, 2, 3}, range[3] = {2, 4, 8};
  const double w1[4][3] = {{1, 0, -1}, {0.5, 0.5, 0.5}, {-1, 2, 0}, {0, 0, 1}};
  const double b1[4] = {0.1, -0.2, 0.3, 0};
  const double w2[4][2] = {{1, -1}, {2, 0}, {0, 1}, {-1, 1}};
  double d[3], h[4];
  for (int i = 0; i < 3; ++i) d[i] = (x[i] - mean[i]) / range[i];
  for (int j = 0; j < 4; ++j) {
    double s = static_cast<double>(static_cast<float>(b1[j]));
    for (int i = 0; i < 3; ++i) s += static_cast<double>(static_cast<float>(w1[j][i])) * d[i];
    h[j] = std::max(s, 0.0);
  }
  std::vector<double> y = {0.5, -0.5};
  for (int k = 0; k < 2; ++k) {
    for (int j = 0; j < 4; ++j) y[k] += w2[j][k] * h[j];
  }
  return y;
}

TEST(Onnx, ImportsAChainOfAffineMapsAndActivations) {
  const Model m = parse_onnx(small_net(), "net.onnx");
  EXPECT_EQ(m.kind, ModelKind::network);
  EXPECT_EQ(m.n_features, 3u);
  EXPECT_EQ(m.n_outputs, 2u);
  ASSERT_EQ(m.layers.size(), 2u);  // Sub, Div and Gemm fold into the first layer
  EXPECT_EQ(m.layers[0].activation, Activation::relu);
  EXPECT_EQ(m.layers[1].activation, Activation::identity);
  EXPECT_EQ(m.classes, (std::vector<std::string>{"0", "1"}));
  for (const auto& x : std::vector<std::vector<double>>{{0, 0, 0}, {1, 2, 3}, {5, -3, 7}}) {
    const auto y = predict_scores(m, x);
    const auto r = reference(x.data());
    EXPECT_NEAR(y[0], r[0], 1e-12);
    EXPECT_NEAR(y[1], r[1], 1e-12);
  }
}

TEST(Onnx, SoftmaxAndSigmoidOutputs) {
  const Model s = parse_onnx(small_net("Softmax"), "net.onnx");
  EXPECT_EQ(s.layers.back().activation, Activation::softmax);
  const double x[3] = {2, 1, 0};
  const auto y = predict_scores(s, std::span<const double>(x, 3));
  EXPECT_NEAR(y[0] + y[1], 1.0, 1e-15);
  const Model g = parse_onnx(small_net("Sigmoid"), "net.onnx");
  EXPECT_EQ(g.layers.back().activation, Activation::logistic);
}

TEST(Onnx, FoldsBatchNormalizationAndReshapes) {
  std::vector<testing::Pb> nodes = {node("Reshape", {"x", "shape"}, "r1"),
                                    node("BatchNormalization", {"r1", "sc", "bb", "mu", "var"},
                                         "bn", "bn", {{"epsilon", true, 0, 0.5f}}),
                                    node("Flatten", {"bn"}, "f"), node("Identity", {"f"}, "i"),
                                    node("Gemm", {"i", "W", "c"}, "y")};
  const std::vector<testing::Pb> inits = {
      int_tensor("shape", {1, 2}),  tensor("sc", {2}, {2, 3}),        tensor("bb", {2}, {1, -1}),
      tensor("mu", {2}, {0.5f, 1}), tensor("var", {2}, {1.5f, 3.5f}), tensor("W", {2, 1}, {1, 1}),
      tensor("c", {1}, {0})};
  const Model m = parse_onnx(
      testing::model(nodes, inits, value_info("x", {2}), value_info("y", {1, 1})), "bn.onnx");
  EXPECT_FALSE(m.classification);  // one identity output: a regressor
  const double x[2] = {1, 2};
  const double expect = (1 - 0.5) * 2 / std::sqrt(2.0) + 1 + (2 - 1) * 3 / std::sqrt(4.0) - 1;
  EXPECT_NEAR(predict_scores(m, std::span<const double>(x, 2))[0], expect, 1e-6);
}

TEST(Onnx, RefusesWhatItCannotImport) {
  // An unsupported operator is named with its node.
  std::vector<testing::Pb> nodes = {node("Conv", {"x", "W"}, "y", "conv_1")};
  const std::string conv = testing::model(nodes, {tensor("W", {1, 1, 1, 1}, {1})},
                                          value_info("x", {1, 1, 1, 1}), value_info("y", {1}));
  EXPECT_NE(error_of([&] {
              parse_onnx(conv, "c.onnx");
            }).find("c.onnx: node \"conv_1\" (Conv): unsupported operator; assay imports Gemm"),
            std::string::npos);
  // A node with neither name nor outputs (found by fuzz_onnx: naming it read past an empty list).
  testing::Pb nameless;
  nameless.string_field(1, "x").string_field(4, "Relu");
  const std::string no_output =
      testing::model({nameless}, {}, value_info("x", {1, 1}), value_info("y", {1, 1}));
  EXPECT_NE(error_of([&] {
              parse_onnx(no_output, "o.onnx");
            }).find("o.onnx: a node without name or outputs (Relu): has no output"),
            std::string::npos);
  // NaN weights.
  nodes = {node("MatMul", {"x", "W"}, "y")};
  const float nan = std::nanf("");
  const std::string bad = testing::model(nodes, {tensor("W", {2, 1}, {1, nan})},
                                         value_info("x", {1, 2}), value_info("y", {1, 1}));
  EXPECT_NE(error_of([&] {
              parse_onnx(bad, "n.onnx");
            }).find("n.onnx: tensor \"W\" holds nan at index 1 (weights must be finite)"),
            std::string::npos);
  // A symbolic dimension other than the batch.
  const std::string dyn = testing::model(nodes, {tensor("W", {2, 1}, {1, 2})},
                                         value_info("x", {1, -1}), value_info("y", {1, 1}));
  EXPECT_NE(error_of([&] { parse_onnx(dyn, "d.onnx"); }).find("dynamic dimension \"N\""),
            std::string::npos);
  // Mismatched shapes.
  const std::string mis = testing::model(nodes, {tensor("W", {3, 1}, {1, 2, 3})},
                                         value_info("x", {1, 2}), value_info("y", {1, 1}));
  EXPECT_NE(error_of([&] {
              parse_onnx(mis, "m.onnx");
            }).find("node \"y\" (MatMul): multiplies shape [1x2] by a 3x1 matrix"),
            std::string::npos);
  // A skip connection.
  nodes = {node("Relu", {"x"}, "r"), node("Add", {"r", "x"}, "y")};
  const std::string skip =
      testing::model(nodes, {}, value_info("x", {1, 2}), value_info("y", {1, 2}));
  EXPECT_NE(error_of([&] { parse_onnx(skip, "s.onnx"); }).find("no skip connections"),
            std::string::npos);
  // Bytes that are not ONNX, or cut short.
  EXPECT_NE(error_of([&] { parse_onnx(small_net().substr(0, 40), "t.onnx"); }).find("t.onnx: byte"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_onnx("", "e.onnx"); }).find("e.onnx: empty file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_onnx("/nonexistent/x.onnx"); }).find("cannot open ONNX file"),
            std::string::npos);
}

TEST(Onnx, HostileSizesAndFileKinds) {
  std::vector<testing::Pb> nodes = {node("MatMul", {"x", "W"}, "y")};
  // An input of 10^12 elements is refused before anything is allocated for it.
  const std::string huge =
      testing::model(nodes, {tensor("W", {2, 1}, {1, 2})}, value_info("x", {1000000, 1000000}),
                     value_info("y", {1, 1}));
  EXPECT_EQ(error_of([&] { parse_onnx(huge, "h.onnx"); }),
            "h.onnx: input \"x\" has shape [1000000x1000000] (1000000000000 elements); expected "
            "at most 10000000 inputs");
  // Dimensions whose product overflows, or negative ones, do not pass for an empty tensor.
  const std::string wrap = testing::model(nodes, {tensor("W", {4294967296, 4294967296}, {})},
                                          value_info("x", {1, 2}), value_info("y", {1, 1}));
  EXPECT_EQ(error_of([&] { parse_onnx(wrap, "w.onnx"); }),
            "w.onnx: tensor \"W\" has 0 values for shape [4294967296x4294967296] "
            "(18446744073709551616 elements)");
  const std::string negative = testing::model(nodes, {tensor("W", {-1, 1}, {})},
                                              value_info("x", {1, 2}), value_info("y", {1, 1}));
  EXPECT_EQ(error_of([&] { parse_onnx(negative, "n.onnx"); }),
            "n.onnx: tensor \"W\" has shape [-1x1]; expected dimensions >= 0");
  // Files are recognised by content: ONNX bytes named .json, assay JSON named .onnx.
  const auto tmp = std::filesystem::temp_directory_path();
  const auto as_json = tmp / "assay_onnx_named.json";
  std::ofstream(as_json, std::ios::binary) << small_net();
  EXPECT_EQ(load_any_model(as_json.string()).n_features, 3u);
  const auto as_onnx = tmp / "assay_json_named.onnx";
  std::ofstream(as_onnx, std::ios::binary)
      << model_to_json(load_any_model(as_json.string())).dump();
  EXPECT_EQ(load_any_model(as_onnx.string()).n_features, 3u);
  std::filesystem::remove(as_json);
  std::filesystem::remove(as_onnx);
  const auto dir = tmp / "assay_model_folder.onnx";
  std::filesystem::create_directories(dir);
  EXPECT_EQ(error_of([&] { load_any_model(dir.string()); }),
            dir.string() + ": is a folder, expected a model file");
  EXPECT_EQ(error_of([&] { load_onnx(dir.string()); }),
            dir.string() + ": is a folder, expected an ONNX file");
  std::filesystem::remove(dir);
}

std::filesystem::path acasxu_dir() {
  if (const char* env = std::getenv("ASSAY_ACASXU_DATA")) return env;
  return std::filesystem::path(ASSAY_SOURCE_DIR) / ".." / "shared" / "data" / "acasxu";
}

TEST(Onnx, LoadsEveryAcasXuNetwork) {
  const auto dir = acasxu_dir();
  if (!std::filesystem::exists(dir / "ACASXU_run2a_1_1_batch_2000.onnx")) {
    GTEST_SKIP() << "ACAS Xu networks not found at " << dir << " (set ASSAY_ACASXU_DATA)";
  }
  for (int i = 1; i <= 5; ++i) {
    for (int j = 1; j <= 9; ++j) {
      const auto file = dir / ("ACASXU_run2a_" + std::to_string(i) + "_" + std::to_string(j) +
                               "_batch_2000.onnx");
      const Model m = load_onnx(file.string());
      EXPECT_EQ(m.n_features, 5u);
      EXPECT_EQ(m.n_outputs, 5u);
      ASSERT_EQ(m.layers.size(), 7u);
      std::size_t relus = 0;
      for (const auto& l : m.layers) relus += l.activation == Activation::relu ? l.n_out : 0;
      EXPECT_EQ(relus, 300u);
    }
  }
}

const char* kProp = R"(; a property
(declare-const X_0 Real)
(declare-const X_1 Real)
(declare-const Y_0 Real)
(declare-const Y_1 Real)
(assert (<= X_0 1))
(assert (>= X_0 -1))
(assert (or (and (<= X_1 0.5) (>= X_1 0))
            (and (<= X_1 -0.25) (>= X_1 -1))))
(assert (or (and (<= Y_1 Y_0) (>= Y_0 2.5))
            (and (> (+ Y_0 (* 2 Y_1)) (- X_0 1)))))
)";

TEST(Vnnlib, BoxesAndUnsafeConditions) {
  const VnnProperty p = parse_vnnlib(kProp, "p.vnnlib");
  EXPECT_EQ(p.n_inputs, 2u);
  EXPECT_EQ(p.n_outputs, 2u);
  EXPECT_FALSE(p.integer_inputs);
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(p.regions[0].lo, (std::vector<double>{-1, 0}));
  EXPECT_EQ(p.regions[0].hi, (std::vector<double>{1, 0.5}));
  EXPECT_EQ(p.regions[1].lo, (std::vector<double>{-1, -1}));
  EXPECT_EQ(p.regions[1].hi, (std::vector<double>{1, -0.25}));
  ASSERT_EQ(p.regions[0].unsafe.size(), 2u);
  const auto& c0 = p.regions[0].unsafe[0];
  ASSERT_EQ(c0.size(), 2u);
  EXPECT_EQ(c0[0].y, (std::vector<double>{-1, 1}));  // Y_1 - Y_0 <= 0
  EXPECT_EQ(c0[1].y, (std::vector<double>{-1, 0}));  // -(Y_0 - 2.5) <= 0
  EXPECT_EQ(c0[1].constant, 2.5);
  const auto& c1 = p.regions[0].unsafe[1][0];  // x0 - 1 - y0 - 2 y1 < 0
  EXPECT_TRUE(c1.strict);
  EXPECT_EQ(c1.y, (std::vector<double>{-1, -2}));
  EXPECT_EQ(c1.x, (std::vector<double>{1, 0}));
  EXPECT_EQ(c1.constant, -1);
  const double x[2] = {0, 0}, y_safe[2] = {0, -1}, y_bad[2] = {3, 1};
  EXPECT_FALSE(unsafe_at(p.regions[0], x, y_safe));
  EXPECT_TRUE(unsafe_at(p.regions[0], x, y_bad));
}

TEST(Vnnlib, IntegerInputs) {
  const VnnProperty p = parse_vnnlib(
      "(declare-const X_0 Int)(declare-const Y_0 Real)(assert (< X_0 3.5))(assert (> X_0 -2))"
      "(assert (>= Y_0 0))",
      "i.vnnlib");
  EXPECT_TRUE(p.integer_inputs);
  EXPECT_EQ(p.regions[0].lo, (std::vector<double>{-1}));
  EXPECT_EQ(p.regions[0].hi, (std::vector<double>{3}));
}

TEST(Vnnlib, ErrorsAreLocated) {
  auto err = [](const std::string& text) {
    return error_of([&] { parse_vnnlib(text, "p.vnnlib"); });
  };
  const std::string head = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n";
  EXPECT_EQ(err(head + "(assert (<= X_0 1)"),
            "p.vnnlib:3:19: expected ')' to close the '(' at 3:1, found end of file");
  EXPECT_EQ(err(head + "(assert (<= X_0 1))\n(assert (>= Z_0 0))"),
            "p.vnnlib:4:13: expected a number or a variable X_i / Y_j, found \"Z_0\"");
  EXPECT_EQ(err(head + "(assert (<= X_0 1))(assert (>= Y_0 0))"),
            "p.vnnlib:1:1: X_0 has no lower bound; the input region must be a bounded box");
  EXPECT_EQ(err(head + "(assert (<= X_0 1))(assert (>= X_0 2))"),
            "p.vnnlib: the input box is empty: X_0 >= 2 and X_0 <= 1");
  EXPECT_EQ(err(head + "(assert (<= X_0 1))(assert (>= X_0 0))(assert (<= (* X_0 Y_0) 1))"),
            "p.vnnlib:3:51: expected a linear term, found a product of two variables");
  EXPECT_EQ(err(head + "(assert (<= X_0 1 2))"),
            "p.vnnlib:3:9: expected (<= a b) with two operands, found 3");
  EXPECT_EQ(err("(declare-const X_0 Real)(declare-const X_2 Real)(declare-const Y_0 Real)"
                "(assert true)"),
            "p.vnnlib:1:25: X_2 is declared but X_1 is not");
  EXPECT_EQ(err("(declare-const X_0 Float)"),
            "p.vnnlib:1:20: expected sort Real or Int, found \"Float\"");
  EXPECT_EQ(err(head + "(assert (or (and (<= X_0 1) (>= X_0 0)) (and (<= X_0 2) (>= X_0 0.5))))"),
            "p.vnnlib: input boxes 1 and 2 overlap; assay counts over disjoint boxes");
  EXPECT_EQ(err(head + "(define-fun f () Real 1)"),
            "p.vnnlib:3:1: expected (declare-const ...) or (assert ...), found (define-fun ...)");
  EXPECT_NE(error_of([] { load_vnnlib("/nonexistent.vnnlib"); }).find("cannot open VNN-LIB file"),
            std::string::npos);
  // Hostile nesting is refused where it gets too deep, not by a stack overflow.
  std::string deep = head + "(assert (<= X_0 1))(assert (>= X_0 0))\n(assert ";
  for (int i = 0; i < 100000; ++i) deep += "(and ";
  EXPECT_EQ(err(deep),
            "p.vnnlib:4:5004: expected lists nested at most 1000 levels deep, found "
            "deeper nesting");
  EXPECT_EQ(err("\xEF\xBB\xBF(declare-const X_0 Float)"),
            "p.vnnlib:1:20: expected sort Real or Int, found \"Float\"");
  const auto dir = std::filesystem::temp_directory_path() / "assay_vnnlib_folder.vnnlib";
  std::filesystem::create_directories(dir);
  EXPECT_EQ(error_of([&] { load_vnnlib(dir.string()); }),
            dir.string() + ": is a folder, expected a VNN-LIB file");
  std::filesystem::remove(dir);
}

}  // namespace
}  // namespace assay::count
