// count/vnnlib: VNN-LIB properties as disjoint input boxes with unsafe output conditions,
// integer inputs, and located errors.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "assay/core/error.hpp"
#include "assay/count/vnnlib.hpp"

namespace assay::count {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
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

// Comparisons of constants are decided when read; a false one that leaves no input box is
// named (it used to be reported as an empty box of X_0, with a bound printed as -0).
TEST(Vnnlib, ConstantComparisons) {
  auto err = [](const std::string& text) {
    return error_of([&] { parse_vnnlib(text, "p.vnnlib"); });
  };
  const std::string head =
      "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (>= X_0 0))\n"
      "(assert (<= X_0 1))\n";
  EXPECT_EQ(err(head + "(assert (>= 0 1))"),
            "p.vnnlib:5:9: (>= 0 1) compares constants and is false, so the asserts admit no "
            "input box");
  EXPECT_EQ(err(head + "(assert (not (<= (+ 1 1) 2)))"),
            "p.vnnlib:5:14: (<= (+ 1 1) 2) compares constants and is false, so the asserts "
            "admit no input box");
  // True constant comparisons drop out; a false one in an `or` leaves the other side.
  const VnnProperty p = parse_vnnlib(
      head + "(assert (<= 1 2))(assert (or (> 0 1) (<= Y_0 X_0)))(assert (= X_0 X_0))", "p");
  ASSERT_EQ(p.regions.size(), 1u);
  ASSERT_EQ(p.regions[0].unsafe.size(), 1u);
  EXPECT_EQ(p.regions[0].unsafe[0].size(), 1u);
  EXPECT_EQ(err("(declare-const X_0 Real)(declare-const Y_0 Real)"
                "(assert (>= X_0 1))(assert (<= X_0 0))"),
            "p.vnnlib: the input box is empty: X_0 >= 1 and X_0 <= 0");
}

// An image classifier's property: every input bounded by two asserts, then "some other class
// scores at least as high" (the shape of VNN-COMP's mnistfc and cifar10_resnet files). Copying
// dense atoms across asserts made this quadratic in the inputs (about 1.7 s for 784 inputs);
// it now takes milliseconds, so 1 s is a loose bound even on a loaded machine.
TEST(Vnnlib, ImageClassifierPropertyReadsFast) {
  const std::size_t inputs = 3072, classes = 10, label = 3;
  std::string text;
  for (std::size_t i = 0; i < inputs; ++i) text += fmt::format("(declare-const X_{} Real)\n", i);
  for (std::size_t j = 0; j < classes; ++j) text += fmt::format("(declare-const Y_{} Real)\n", j);
  for (std::size_t i = 0; i < inputs; ++i) {
    const double v = static_cast<double>(i % 256) / 255;
    text += fmt::format("(assert (<= X_{} {}))\n(assert (>= X_{} {}))\n", i, v + 0.004, i, v);
  }
  text += "(assert (or";
  for (std::size_t j = 0; j < classes; ++j) {
    if (j != label) text += fmt::format(" (and (>= Y_{} Y_{}))", j, label);
  }
  text += "))\n";
  const auto start = std::chrono::steady_clock::now();
  const VnnProperty p = parse_vnnlib(text, "big.vnnlib");
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took.count(), 1.0);
  ASSERT_EQ(p.regions.size(), 1u);
  EXPECT_EQ(p.regions[0].lo.size(), inputs);
  EXPECT_EQ(p.regions[0].lo[257], 1.0 / 255);
  EXPECT_EQ(p.regions[0].hi[257], 1.0 / 255 + 0.004);
  ASSERT_EQ(p.regions[0].unsafe.size(), classes - 1);
  const LinearAtom& a = p.regions[0].unsafe[8][0];  // -(Y_9 - Y_3) <= 0
  EXPECT_EQ(a.y, (std::vector<double>{0, 0, 0, 1, 0, 0, 0, 0, 0, -1}));
  EXPECT_EQ(a.x.size(), inputs);
  EXPECT_EQ(a.constant, 0);
}

// Atoms are stored sparsely, yet come out exactly as dense arithmetic gives them, down to the
// sign of zero: -(Y_0 - Y_1) has X coefficient -0.
TEST(Vnnlib, CoefficientsAsDenseArithmeticGivesThem) {
  const VnnProperty p = parse_vnnlib(
      "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)"
      "(declare-const Y_1 Real)(assert (<= X_0 1))(assert (>= X_0 0))(assert (<= X_1 1))"
      "(assert (>= X_1 0))(assert (>= Y_0 (+ Y_1 (* 2 X_1) (- X_1) (- X_1))))",
      "p.vnnlib");
  const LinearAtom& a = p.regions[0].unsafe[0][0];
  EXPECT_EQ(a.y, (std::vector<double>{-1, 1}));
  ASSERT_EQ(a.x.size(), 2u);
  EXPECT_EQ(a.x[0], 0);
  EXPECT_TRUE(std::signbit(a.x[0]));
  EXPECT_EQ(a.x[1], 0);  // 2 - 1 - 1, negated
  EXPECT_TRUE(std::signbit(a.x[1]));
}

// The disjunctive normal form can grow exponentially; past its limits the property is refused
// at the `and` or `assert` that would cross them.
TEST(Vnnlib, DnfSizeIsBounded) {
  auto err = [](const std::string& text) {
    return error_of([&] { parse_vnnlib(text, "p.vnnlib"); });
  };
  const std::string head =
      "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (>= X_0 0))\n";
  std::string within_and = head + "(assert (and";  // 2^17 = 131072 disjuncts
  for (int i = 0; i < 17; ++i) within_and += " (or (<= Y_0 0) (>= Y_0 1))";
  EXPECT_EQ(err(within_and + "))"),
            "p.vnnlib:4:9: the property expands to more than 100000 disjuncts");
  std::string across_asserts = head;
  for (int i = 0; i < 17; ++i) across_asserts += "(assert (or (<= Y_0 0) (>= Y_0 1)))\n";
  EXPECT_EQ(err(across_asserts),
            "p.vnnlib:20:1: the property expands to more than 100000 disjuncts");
  // Few disjuncts of many comparisons: 20001 comparisons copied into 1001 disjuncts.
  std::string long_conj = head + "(assert (and";
  for (int i = 0; i < 20000; ++i) long_conj += " (<= X_0 1)";
  long_conj += "))\n(assert (or";
  for (int i = 0; i < 1001; ++i) long_conj += " (<= Y_0 0)";
  EXPECT_EQ(err(long_conj + "))"),
            "p.vnnlib:5:1: the property expands to more than 20000000 comparisons over all "
            "disjuncts");
}

}  // namespace
}  // namespace assay::count
