// count/onnx: importing ONNX networks (affine chains, activations, batch normalization,
// reshapes), refusing what cannot be imported, hostile files, and the ACAS Xu networks.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "assay/core/error.hpp"
#include "assay/count/onnx.hpp"
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

// Issue 38: what exporters write around the layers. x [1,2,3] scaled, transposed to [1,3,2]
// (the elements move: the first layer's columns must follow), reshaped by a shape PyTorch
// computes in the graph (Shape -> Gather -> Unsqueeze -> Concat), through inference Dropout and
// a Cast to float, into a Gemm with float16 weights.
TEST(Onnx, TransposesAndShapeComputationsOfExporters) {
  std::string half_w;  // float16 bits of 1, 2, ..., 6 (exact): 0x3C00 = 1, 0x4000 = 2, ...
  for (const std::uint16_t bits : {0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600}) {
    half_w += static_cast<char>(bits & 0xff);
    half_w += static_cast<char>(bits >> 8);
  }
  const std::vector<testing::Pb> nodes = {
      node("Mul", {"x", "scale"}, "s"),
      node("Transpose", {"s"}, "t", "t", {{"perm", false, 0, 0, {0, 2, 1}}}),
      node("Shape", {"t"}, "shape"),
      node("Gather", {"shape", "zero"}, "batch", "gather", {{"axis", false, 0}}),
      node("Unsqueeze", {"batch", "axes"}, "batch1"),
      node("Concat", {"batch1", "minus_one"}, "target", "concat", {{"axis", false, 0}}),
      node("Reshape", {"t", "target"}, "flat"),
      node("Dropout", {"flat", "ratio", "no"}, "d"),
      node("Cast", {"d"}, "c", "cast", {{"to", false, 1}}),
      node("Cast", {"W16"}, "W", "cast_w", {{"to", false, 1}}),
      node("Gemm", {"c", "W", "b"}, "y", "gemm", {{"transB", false, 1}})};
  const std::vector<testing::Pb> inits = {tensor("scale", {1, 2, 3}, {1, 2, 3, 4, 5, 6}),
                                          testing::raw_tensor("zero", {}, 7, std::string(8, '\0')),
                                          int_tensor("axes", {0}),
                                          int_tensor("minus_one", {-1}),
                                          tensor("ratio", {}, {0.5f}),
                                          testing::raw_tensor("no", {}, 9, std::string(1, '\0')),
                                          testing::raw_tensor("W16", {1, 6}, 10, half_w),
                                          tensor("b", {1}, {0.25f})};
  const Model m = parse_onnx(
      testing::model(nodes, inits, value_info("x", {-1, 2, 3}), value_info("y", {-1, 1})),
      "tf.onnx");
  ASSERT_EQ(m.n_features, 6u);
  const double x[6] = {1, -2, 3, 0.5, 7, -1};  // x[0][i][j] at i * 3 + j
  // s[i][j] = x[i][j] * scale[i][j]; t[j][i] = s[i][j]; flat[k] = t at k = j * 2 + i.
  double expect = 0.25;
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 2; ++i) expect += (j * 2 + i + 1) * x[i * 3 + j] * (i * 3 + j + 1);
  }
  EXPECT_DOUBLE_EQ(predict_scores(m, std::span<const double>(x, 6))[0], expect);
}

TEST(Onnx, RefusesPatternsThatChangeValues) {
  auto error_for = [](const testing::Pb& n, const std::vector<testing::Pb>& inits) {
    return error_of([&] {
      parse_onnx(testing::model({n}, inits, value_info("x", {1, 2}), value_info("y", {1, 2})),
                 "p.onnx");
    });
  };
  EXPECT_EQ(error_for(node("Dropout", {"x", "", "yes"}, "y", "drop"),
                      {testing::raw_tensor("yes", {}, 9, std::string(1, '\1'))}),
            "p.onnx: node \"drop\" (Dropout): runs in training mode (drops values at random); "
            "export the network in inference mode (PyTorch: model.eval())");
  EXPECT_EQ(error_for(node("Cast", {"x"}, "y", "c", {{"to", false, 7}}), {}),
            "p.onnx: node \"c\" (Cast): casts the running tensor to int64, which changes its "
            "values; assay imports networks computing on float or double");
  EXPECT_EQ(error_for(node("Transpose", {"x"}, "y", "t", {{"perm", false, 0, 0, {1, 1}}}), {}),
            "p.onnx: node \"t\" (Transpose): perm [1x1] is not a permutation of the 2 axes");
  // Shape computations on constants that go wrong are named too.
  const std::vector<testing::Pb> nodes = {
      node("Gather", {"dims", "nine"}, "g", "gather", {{"axis", false, 0}}),
      node("Reshape", {"x", "g"}, "y")};
  EXPECT_EQ(error_of([&] {
              parse_onnx(
                  testing::model(nodes, {int_tensor("dims", {1, 2}), int_tensor("nine", {9})},
                                 value_info("x", {1, 2}), value_info("y", {1, 2})),
                  "g.onnx");
            }),
            "g.onnx: node \"gather\" (Gather): index 9 out of range for size 2");
  const std::vector<testing::Pb> matmul = {node("MatMul", {"A", "B"}, "AB", "ab"),
                                           node("MatMul", {"x", "AB"}, "y")};
  EXPECT_NE(error_of([&] {
              parse_onnx(testing::model(
                             matmul,
                             {tensor("A", {2, 2}, {1, 0, 0, 1}), tensor("B", {2, 2}, {1, 0, 0, 1})},
                             value_info("x", {1, 2}), value_info("y", {1, 2})),
                         "c.onnx");
            })
                .find("c.onnx: node \"ab\" (MatMul): computes on constants with an operator assay "
                      "does not evaluate"),
            std::string::npos);
}

// Issue 38: /dev/zero given as a model ended only when memory ran out.
TEST(Onnx, DevZeroIsRefusedAtItsFirstByte) {
  EXPECT_EQ(error_of([] { load_onnx("/dev/zero"); }),
            "/dev/zero: expected an ONNX file, found a NUL byte at byte 0 (binary zeros, as "
            "/dev/zero gives)");
  EXPECT_EQ(error_of([] { load_any_model("/dev/zero"); }),
            "/dev/zero: expected a model file, found a NUL byte at byte 0 (binary zeros, as "
            "/dev/zero gives)");
}

TEST(Onnx, RefusesWhatItCannotImport) {
  // An unsupported operator is named with its node.
  std::vector<testing::Pb> nodes = {node("Erf", {"x"}, "y", "erf_1")};
  const std::string erf =
      testing::model(nodes, {}, value_info("x", {1, 1, 1, 1}), value_info("y", {1}));
  EXPECT_NE(error_of([&] {
              parse_onnx(erf, "c.onnx");
            }).find("c.onnx: node \"erf_1\" (Erf): unsupported operator; assay imports Gemm"),
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
  // A MatMul with one operand read past its operand list (found by fuzz_onnx); an Add whose
  // second operand is omitted ("") dereferenced no tensor.
  for (const auto& [op, inputs, message] :
       {std::tuple<const char*, std::vector<std::string>, const char*>{
            "MatMul", {"x"}, "m.onnx: node \"m\" (MatMul): expects two operands, found 1"},
        {"Add", {"x", ""}, "m.onnx: node \"m\" (Add): expects a constant second operand"}}) {
    const std::string one = testing::model({node(op, inputs, "y", "m")}, {},
                                           value_info("x", {1, 2}), value_info("y", {1, 2}));
    EXPECT_NE(error_of([&] { parse_onnx(one, "m.onnx"); }).find(message), std::string::npos) << op;
  }
  // NaN weights.
  nodes = {node("MatMul", {"x", "W"}, "y")};
  const float nan = std::nanf("");
  const std::string bad = testing::model(nodes, {tensor("W", {2, 1}, {1, nan})},
                                         value_info("x", {1, 2}), value_info("y", {1, 1}));
  EXPECT_NE(error_of([&] {
              parse_onnx(bad, "n.onnx");
            }).find("n.onnx: tensor \"W\" holds nan at index 1 (weights must be finite)"),
            std::string::npos);
  // A NaN or infinite Gemm alpha / beta is named with the file and the node (it used to surface
  // as "layer 0: weights[0] is nan" once folded into a layer).
  for (const char* attr : {"alpha", "beta"}) {
    const std::vector<testing::Pb> gemm = {
        node("Gemm", {"x", "W", "c"}, "y", "g1", {{attr, true, 0, nan}})};
    const std::string text =
        testing::model(gemm, {tensor("W", {2, 1}, {1, 2}), tensor("c", {1}, {0})},
                       value_info("x", {1, 2}), value_info("y", {1, 1}));
    EXPECT_EQ(error_of([&] { parse_onnx(text, "g.onnx"); }),
              std::string("g.onnx: node \"g1\" (Gemm): attribute ") + attr +
                  " is nan, expected a finite number");
  }
  // Finite factors whose composition overflows: the folded layer's problem names the file.
  const float big = 3e38f;
  nodes = {node("MatMul", {"x", "W"}, "m0")};
  // fmt, not "m" + std::to_string: GCC 12 warns falsely (-Wrestrict) on that concatenation.
  for (int i = 1; i <= 9; ++i) {  // (3e38)^10 overflows a double
    nodes.push_back(node("MatMul", {fmt::format("m{}", i - 1), "V"},
                         i == 9 ? std::string("y") : fmt::format("m{}", i)));
  }
  const std::string overflow =
      testing::model(nodes, {tensor("W", {2, 1}, {big, 1}), tensor("V", {1, 1}, {big})},
                     value_info("x", {1, 2}), value_info("y", {1, 1}));
  EXPECT_EQ(error_of([&] { parse_onnx(overflow, "o.onnx"); }),
            "o.onnx: layer 0: weights[0] is inf, expected a finite number (in the dense layers "
            "folded from the graph)");
  nodes = {node("MatMul", {"x", "W"}, "y")};
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
  // A skip connection makes a graph network (test_onnx_graph.cpp); a tensor never computed is
  // named.
  nodes = {node("Relu", {"x"}, "r"), node("Add", {"r", "nowhere"}, "y")};
  const std::string skip =
      testing::model(nodes, {}, value_info("x", {1, 2}), value_info("y", {1, 2}));
  EXPECT_NE(error_of([&] {
              parse_onnx(skip, "s.onnx");
            }).find("input \"nowhere\" is neither a constant nor the running tensor"),
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

}  // namespace
}  // namespace assay::count
