// count/onnx_graph: ONNX graphs that need a graph network (convolutions, pooling, padding, skip
// connections) imported as ModelKind::graph, checked against plain loops; chains still import
// as dense layers; bad graphs are refused with the node and operator named.
#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "assay/core/error.hpp"
#include "assay/count/graph.hpp"
#include "assay/count/onnx.hpp"
#include "count/onnx_writer.hpp"

namespace assay::count {
namespace {

using testing::Attr;
using testing::int_tensor;
using testing::ints_attr;
using testing::node;
using testing::Pb;
using testing::string_attr;
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

// Deterministic values exactly representable in float32.
std::vector<float> ramp(std::size_t n, int mod = 7, float step = 0.25f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(static_cast<int>((i * 5 + 3) % mod) - mod / 2) * step;
  return v;
}

std::vector<double> input_ramp(std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = std::sin(0.7 * static_cast<double>(i) + 0.3);
  return x;
}

Model import(const std::vector<Pb>& nodes, const std::vector<Pb>& inits,
             const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& out,
             const std::string& where = "g.onnx") {
  return parse_onnx(testing::model(nodes, inits, value_info("x", in), value_info("y", out)), where);
}

// A plain 2-D convolution of x [C][H][W] (zero padding), the test's reference.
struct ConvSpec {
  int c_in, h, w, m, kh, kw, group, sh, sw, dh, dw, pt, pl, pb, pr;
};
std::vector<double> conv_reference(const ConvSpec& s, const std::vector<double>& x,
                                   const std::vector<float>& wt, const std::vector<float>& b) {
  const int ho = (s.h + s.pt + s.pb - s.dh * (s.kh - 1) - 1) / s.sh + 1;
  const int wo = (s.w + s.pl + s.pr - s.dw * (s.kw - 1) - 1) / s.sw + 1;
  const int cg = s.c_in / s.group;
  std::vector<double> y;
  for (int m = 0; m < s.m; ++m) {
    const int g = m / (s.m / s.group);
    for (int oy = 0; oy < ho; ++oy) {
      for (int ox = 0; ox < wo; ++ox) {
        double sum = b.empty() ? 0.0 : b[m];
        for (int c = 0; c < cg; ++c) {
          for (int ky = 0; ky < s.kh; ++ky) {
            for (int kx = 0; kx < s.kw; ++kx) {
              const int iy = oy * s.sh - s.pt + ky * s.dh, ix = ox * s.sw - s.pl + kx * s.dw;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
              sum += wt[((m * cg + c) * s.kh + ky) * s.kw + kx] *
                     x[((g * cg + c) * s.h + iy) * s.w + ix];
            }
          }
        }
        y.push_back(sum);
      }
    }
  }
  return y;
}

TEST(OnnxGraph, ConvolutionWithStridesPadsDilationsAndGroupsEqualsLoops) {
  const ConvSpec s{4, 5, 6, 6, 3, 2, 2, 2, 1, 1, 2, 1, 0, 1, 1};
  const auto w = ramp(6 * 2 * 3 * 2);
  const std::vector<float> b = {0.5f, -1, 0.25f, 0, 2, -0.75f};
  const int ho = (5 + 2 - 3) / 2 + 1, wo = (6 + 1 - 3) / 1 + 1;
  const Model m =
      import({node("Conv", {"x", "W", "B"}, "y", "conv",
                   {ints_attr("strides", {2, 1}), ints_attr("pads", {1, 0, 1, 1}),
                    ints_attr("dilations", {1, 2}), Attr{"group", false, 2},
                    ints_attr("kernel_shape", {3, 2})})},
             {tensor("W", {6, 2, 3, 2}, w), tensor("B", {6}, b)}, {1, 4, 5, 6}, {1, 6, ho, wo});
  ASSERT_EQ(m.kind, ModelKind::graph);
  EXPECT_EQ(m.n_features, 120u);
  EXPECT_EQ(m.n_outputs, static_cast<std::size_t>(6 * ho * wo));
  const auto x = input_ramp(120);
  const auto expect = conv_reference(s, x, w, b);
  const auto got = predict_scores(m, x);
  ASSERT_EQ(got.size(), expect.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expect[i], 1e-12) << i;
  // One linear node: a convolution is one sparse matrix, never dense.
  EXPECT_EQ(m.graph->nodes.size(), 2u);
  EXPECT_LT(m.graph->nodes[1].terms[0].matrix.nonzeros(), 6u * ho * wo * 12u);
}

TEST(OnnxGraph, SameAutoPaddingAndPoolingEqualLoops) {
  // Conv (SAME_UPPER, stride 2) -> Relu -> MaxPool 2x2 pads 1 -> AveragePool 2x2 (padding not
  // counted) on a 1x1x5x5 input.
  const auto w = ramp(9);
  const Model m =
      import({node("Conv", {"x", "W"}, "c", "conv",
                   {string_attr("auto_pad", "SAME_UPPER"), ints_attr("strides", {2, 2})}),
              node("Relu", {"c"}, "r"),
              node("MaxPool", {"r"}, "p", "max",
                   {ints_attr("kernel_shape", {2, 2}), ints_attr("pads", {1, 1, 0, 0})}),
              node("AveragePool", {"p"}, "y", "avg",
                   {ints_attr("kernel_shape", {2, 2}), ints_attr("pads", {0, 0, 1, 1})})},
             {tensor("W", {1, 1, 3, 3}, w)}, {1, 1, 5, 5}, {1, 1, 3, 3});
  ASSERT_EQ(m.kind, ModelKind::graph);
  const auto x = input_ramp(25);
  // SAME_UPPER with stride 2 on 5: output 3, total padding (3-1)*2+3-5 = 2, one each side.
  const auto c = conv_reference({1, 5, 5, 1, 3, 3, 1, 2, 2, 1, 1, 1, 1, 1, 1}, x, w, {});
  ASSERT_EQ(c.size(), 9u);
  std::vector<double> r(9), p(9), y(9);
  for (int i = 0; i < 9; ++i) r[i] = std::max(c[i], 0.0);
  for (int oy = 0; oy < 3; ++oy) {  // max over the window inside the input (pads at the top/left)
    for (int ox = 0; ox < 3; ++ox) {
      double best = -INFINITY;
      for (int iy = oy - 1; iy <= oy; ++iy)
        for (int ix = ox - 1; ix <= ox; ++ix)
          if (iy >= 0 && ix >= 0) best = std::max(best, r[iy * 3 + ix]);
      p[oy * 3 + ox] = best;
    }
  }
  for (int oy = 0; oy < 3; ++oy) {  // mean over the cells inside (pads at the bottom/right)
    for (int ox = 0; ox < 3; ++ox) {
      double sum = 0;
      int count = 0;
      for (int iy = oy; iy <= oy + 1 && iy < 3; ++iy)
        for (int ix = ox; ix <= ox + 1 && ix < 3; ++ix) sum += p[iy * 3 + ix], ++count;
      y[oy * 3 + ox] = sum / count;
    }
  }
  const auto got = predict_scores(m, x);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(got[i], y[i], 1e-12) << i;
}

TEST(OnnxGraph, SkipConnectionsPaddingAndTanhMakeAGraph) {
  // y = tanh(relu(x) + x) - pad-then-crop: a residual Add reads the input twice.
  const Model m =
      import({node("Relu", {"x"}, "r"), node("Add", {"r", "x"}, "a"), node("Tanh", {"a"}, "y")}, {},
             {1, 3}, {1, 3});
  ASSERT_EQ(m.kind, ModelKind::graph);
  const std::vector<double> x = {-1, 0.5, 2};
  const auto got = predict_scores(m, x);
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(got[i], std::tanh(std::max(x[i], 0.0) + x[i]));
  // Pad with a value, then Relu: the padding is a sparse matrix and a bias.
  const Model p =
      import({node("Pad", {"x", "pads", "v"}, "p", "pad"), node("Relu", {"p"}, "y")},
             {int_tensor("pads", {0, 1, 0, 2}), tensor("v", {}, {0.5f})}, {1, 2}, {1, 5});
  ASSERT_EQ(p.kind, ModelKind::graph);
  const auto padded = predict_scores(p, std::vector<double>{-3, 4});
  EXPECT_EQ(padded, (std::vector<double>{0.5, 0, 4, 0.5, 0.5}));
  // Concat of computed tensors and a constant.
  const Model cat = import({node("Relu", {"x"}, "r"),
                            node("Concat", {"r", "seven", "x"}, "y", "cat", {{"axis", false, 1}})},
                           {tensor("seven", {1, 1}, {7})}, {1, 2}, {1, 5});
  ASSERT_EQ(cat.kind, ModelKind::graph);
  EXPECT_EQ(predict_scores(cat, std::vector<double>{-1, 2}), (std::vector<double>{0, 2, 7, -1, 2}));
  // Slice of a computed tensor (every second element from the end): a selection matrix.
  const Model sl = import({node("Relu", {"x"}, "r"),
                           node("Slice", {"r", "starts", "ends", "axes", "steps"}, "y", "slice")},
                          {int_tensor("starts", {-1}), int_tensor("ends", {-9}),
                           int_tensor("axes", {1}), int_tensor("steps", {-2})},
                          {1, 5}, {1, 3});
  ASSERT_EQ(sl.kind, ModelKind::graph);
  EXPECT_EQ(predict_scores(sl, std::vector<double>{1, -2, 3, 4, 5}),
            (std::vector<double>{5, 3, 1}));
}

TEST(OnnxGraph, LinearOperatorsComposeIntoOneSparseMatrix) {
  // NHWC input -> Transpose -> Conv -> BatchNormalization -> Add constant -> Relu -> Flatten ->
  // Gemm: one linear node before the Relu, one after.
  const auto w = ramp(2 * 3 * 2 * 2);
  const Model m = import(
      {node("Transpose", {"x"}, "t", "nhwc", {ints_attr("perm", {0, 3, 1, 2})}),
       node("Conv", {"t", "W"}, "c", "conv"),
       node("BatchNormalization", {"c", "s", "b", "mean", "var"}, "bn", "bn"),
       node("Add", {"bn", "k"}, "a", "add"), node("Relu", {"a"}, "r"), node("Flatten", {"r"}, "f"),
       node("Gemm", {"f", "G"}, "y", "gemm", {{"transB", false, 1}})},
      {tensor("W", {2, 3, 2, 2}, w), tensor("s", {2}, {2, 0.5f}), tensor("b", {2}, {1, -1}),
       tensor("mean", {2}, {0.25f, 0}), tensor("var", {2}, {4, 1}),
       tensor("k", {2, 1, 1}, {0.125f, -0.125f}), tensor("G", {2, 12}, ramp(24))},
      {1, 3, 4, 3}, {1, 2});
  ASSERT_EQ(m.kind, ModelKind::graph);
  ASSERT_EQ(m.graph->nodes.size(), 4u);  // input, linear, relu, linear
  EXPECT_EQ(m.graph->nodes[1].op, GraphOp::linear);
  EXPECT_EQ(m.graph->nodes[2].op, GraphOp::relu);
  const auto x = input_ramp(36);
  std::vector<double> nchw(36);
  for (int h = 0; h < 3; ++h)
    for (int wd = 0; wd < 4; ++wd)
      for (int c = 0; c < 3; ++c) nchw[(c * 3 + h) * 4 + wd] = x[(h * 4 + wd) * 3 + c];
  auto c = conv_reference({3, 3, 4, 2, 2, 2, 1, 1, 1, 1, 1, 0, 0, 0, 0}, nchw, w, {});
  const double scale[2] = {2 / std::sqrt(4 + 1e-5), 0.5 / std::sqrt(1 + 1e-5)};
  const double shift[2] = {1 - 0.25 * scale[0] + 0.125, -1 - 0 * scale[1] - 0.125};
  for (std::size_t i = 0; i < c.size(); ++i)
    c[i] = std::max(c[i] * scale[i / 6] + shift[i / 6], 0.0);
  const auto g = ramp(24);
  const auto got = predict_scores(m, x);
  for (int o = 0; o < 2; ++o) {
    double s = 0;
    for (int j = 0; j < 12; ++j) s += g[o * 12 + j] * c[j];
    EXPECT_NEAR(got[o], s, 1e-9);
  }
}

TEST(OnnxGraph, ChainsStayDenseAndSoftmaxEndsAGraph) {
  const Model chain = import({node("MatMul", {"x", "W"}, "h"), node("Relu", {"h"}, "y")},
                             {tensor("W", {2, 2}, {1, 2, 3, 4})}, {1, 2}, {1, 2});
  EXPECT_EQ(chain.kind, ModelKind::network);
  const Model g = import({node("Conv", {"x", "W"}, "c", "conv"), node("Flatten", {"c"}, "f"),
                          node("Softmax", {"f"}, "y", "sm", {{"axis", false, 1}})},
                         {tensor("W", {2, 1, 1, 1}, {1, -1})}, {1, 1, 1, 1}, {1, 2});
  ASSERT_EQ(g.kind, ModelKind::graph);
  EXPECT_EQ(g.graph_output_activation, Activation::softmax);
  EXPECT_EQ(g.classes, (std::vector<std::string>{"0", "1"}));
  const auto p = predict_scores(g, std::vector<double>{1.0});
  EXPECT_NEAR(p[0], 1 / (1 + std::exp(-2.0)), 1e-15);
  const ModelInfo info = model_info(g);
  EXPECT_EQ(info.kind, "graph");
  EXPECT_EQ(info.n_nodes, 2u);
  EXPECT_EQ(info.n_parameters, 4u);  // 2 weights + 2 biases
}

TEST(OnnxGraph, BadGraphsAreRefusedWithTheNodeNamed) {
  const auto w = tensor("W", {2, 3, 3, 3}, ramp(54));
  auto conv_error = [&](const std::vector<std::int64_t>& in, const std::vector<Attr>& attrs,
                        const Pb& weights) {
    return error_of([&] {
      import({node("Conv", {"x", "W"}, "y", "c1", attrs)}, {weights}, in, {1}, "b.onnx");
    });
  };
  EXPECT_EQ(conv_error({1, 2, 5, 5}, {}, w),
            "b.onnx: node \"c1\" (Conv): weight of shape [2x3x3x3] (group 1) expects 3 input "
            "channels; the input has shape [1x2x5x5] (2 channels)");
  EXPECT_EQ(conv_error({1, 3, 2, 5}, {ints_attr("pads", {0, 0, 0, 0})}, w),
            "b.onnx: node \"c1\" (Conv): the kernel 3x3 (dilations 1x1) is larger than the padded "
            "input 2x5 (input shape [1x3x2x5], pads 0, 0, 0, 0)");
  EXPECT_EQ(conv_error({1, 3, 5}, {}, tensor("W", {2, 3, 3}, ramp(18))),
            "b.onnx: node \"c1\" (Conv): assay imports 2-D convolutions of [N, C, H, W] tensors; "
            "found input shape [1x3x5] and weight shape [2x3x3]");
  EXPECT_EQ(conv_error({1, 3, 5, 5}, {string_attr("auto_pad", "SAME")}, w),
            "b.onnx: node \"c1\" (Conv): auto_pad \"SAME\" is not one of NOTSET, VALID, "
            "SAME_UPPER, SAME_LOWER");
  EXPECT_EQ(conv_error({1, 3, 5, 5}, {ints_attr("strides", {1, 0})}, w),
            "b.onnx: node \"c1\" (Conv): kernel 3x3, strides 1x0 and dilations 1x1 must be "
            "positive");
  EXPECT_EQ(conv_error({1, 3, 5, 5}, {Attr{"group", false, 3}}, w),
            "b.onnx: node \"c1\" (Conv): group 3 does not divide the 2 output channels");
  auto error = [&](const std::vector<Pb>& nodes, const std::vector<Pb>& inits) {
    return error_of([&] { import(nodes, inits, {1, 1, 4, 4}, {1}, "b.onnx"); });
  };
  EXPECT_EQ(error({node("Pad", {"x", "p"}, "y", "pad", {string_attr("mode", "reflect")})},
                  {int_tensor("p", {0, 0, 1, 1, 0, 0, 1, 1})}),
            "b.onnx: node \"pad\" (Pad): mode \"reflect\" is not supported; assay imports "
            "constant padding");
  EXPECT_EQ(error({node("MaxPool", {"x"}, "y", "mp",
                        {ints_attr("kernel_shape", {2, 2}), Attr{"ceil_mode", false, 1}})},
                  {}),
            "b.onnx: node \"mp\" (MaxPool): ceil_mode = 1 is not supported; export with ceil_mode "
            "= 0 (PyTorch: ceil_mode=False)");
  EXPECT_NE(error({node("MaxPool", {"x"}, "m", "mp", {ints_attr("kernel_shape", {2, 2})}),
                   node("Erf", {"m"}, "y", "erf")},
                  {})
                .find("b.onnx: node \"erf\" (Erf): unsupported operator; assay imports Gemm, "
                      "MatMul, Conv (2-D), MaxPool"),
            std::string::npos);
  EXPECT_EQ(error({node("Relu", {"x"}, "r"), node("Mul", {"r", "x"}, "y", "mul")}, {}),
            "b.onnx: node \"mul\" (Mul): multiplies or divides two computed tensors, which is not "
            "an affine map; assay imports Add and Sub of computed tensors");
  EXPECT_EQ(error({node("Relu", {"x"}, "r"), node("Flatten", {"r"}, "f"),
                   node("Add", {"r", "f"}, "y", "add")},
                  {}),
            "b.onnx: node \"add\" (Add): adds tensors of shapes [1x1x4x4] and [1x16]; assay "
            "imports Add and Sub of computed tensors of one shape");
  EXPECT_EQ(error_of([&] {
              import({node("Conv", {"x", "W"}, "c"), node("Softmax", {"c"}, "s", "sm"),
                      node("Relu", {"s"}, "y")},
                     {tensor("W", {1, 1, 1, 1}, {2})}, {1, 1, 1, 4}, {1, 1, 1, 4}, "b.onnx");
            }),
            "b.onnx: node \"sm\" (Softmax): Softmax is imported only as the last operator, on "
            "the graph's output");
}

}  // namespace
}  // namespace assay::count
