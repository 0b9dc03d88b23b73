// The .spec language: domains, expansion of predicates, and every error with its location.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/count/spec.hpp"
#include "test_util.hpp"

namespace assay::count {
namespace {

double eval_at(const Formula& f, const std::vector<double>& x, std::int32_t label = 0) {
  return evaluate(f, x.data(), label, nullptr, 0);
}

const Formula& predicate(const Spec& s, const std::string& name) {
  for (const auto& p : s.predicates) {
    if (p.name == name) return p.formula;
  }
  throw std::logic_error("no predicate " + name);
}

TEST(Spec, GraphExampleDeclaresSixteenBooleansAndTwelveProperties) {
  const Spec s = load_spec(std::string(ASSAY_SOURCE_DIR) + "/examples/count/graph4.spec");
  ASSERT_EQ(s.domain.vars.size(), 16u);
  EXPECT_EQ(s.domain.vars[5].name, "x[5]");
  EXPECT_EQ(s.domain.size(), mpz_class(65536));
  ASSERT_EQ(s.predicates.size(), 12u);
  // The identity relation is reflexive, symmetric, transitive: an equivalence, not a strict order.
  std::vector<double> id(16, 0.0);
  for (int i = 0; i < 4; ++i) id[i * 4 + i] = 1;
  EXPECT_EQ(eval_at(predicate(s, "Equivalence"), id), 1);
  EXPECT_EQ(eval_at(predicate(s, "PartialOrder"), id), 1);
  EXPECT_EQ(eval_at(predicate(s, "StrictOrder"), id), 0);
  EXPECT_EQ(eval_at(predicate(s, "Connex"), id), 0);
  // 0 -> 1 -> 2 without 0 -> 2 is not transitive.
  std::vector<double> chain(16, 0.0);
  chain[0 * 4 + 1] = chain[1 * 4 + 2] = 1;
  EXPECT_EQ(eval_at(predicate(s, "Transitive"), chain), 0);
  chain[0 * 4 + 2] = 1;
  EXPECT_EQ(eval_at(predicate(s, "Transitive"), chain), 1);
  EXPECT_EQ(eval_at(predicate(s, "StrictOrder"), chain), 1);
}

TEST(Spec, DomainsOfIntAndRealInputs) {
  const Spec s = parse_spec(
      "input a[3] : int[-2, 5];\n"
      "input t : real[0, 1] step 0.25;\n"
      "input b : bool;\n"
      "truth 1 = a[0] + 2 * a[1] - a[2] > t * 4 and not b;\n");
  ASSERT_EQ(s.domain.vars.size(), 5u);
  EXPECT_EQ(s.domain.vars[0].size, 8u);
  EXPECT_EQ(s.domain.vars[0].value(0), -2.0);
  EXPECT_EQ(s.domain.vars[3].size, 5u);
  EXPECT_EQ(s.domain.vars[3].value(3), 0.75);
  EXPECT_EQ(s.domain.size(), mpz_class(8 * 8 * 8 * 5 * 2));
  ASSERT_EQ(s.truths.size(), 1u);
  const Formula& f = s.truths[0].second;
  EXPECT_EQ(eval_at(f, {1, 1, 0, 0.5, 0}), 1);  // 3 > 2
  EXPECT_EQ(eval_at(f, {1, 1, 1, 0.5, 0}), 0);  // 2 > 2 is false
  EXPECT_EQ(eval_at(f, {1, 1, 0, 0.5, 1}), 0);  // b
}

TEST(Spec, QuantifiersSumsConstantsAndModelOutputs) {
  const Spec s = parse_spec(
      "const n = 3; const m = n * n - 1;\n"
      "input x[n] : int[0, 3];\n"
      "pred big(i) = x[i] >= 2;\n"
      "pred two_big = (sum i in 0..n-1 : big(i)) == 2;\n"
      "pred some = exists i in 0..m % 4 : x[i] == 3;\n"  // m % 4 = 0: only x[0]
      "safety S = some => label == 1 and score[1] > 0.5;\n"
      "region R = ball([1, 2, 3], 1) label 1;\n");
  EXPECT_EQ(eval_at(predicate(s, "two_big"), {2, 3, 0}), 1);
  EXPECT_EQ(eval_at(predicate(s, "two_big"), {2, 3, 3}), 0);
  EXPECT_EQ(eval_at(predicate(s, "some"), {3, 0, 0}), 1);
  EXPECT_EQ(eval_at(predicate(s, "some"), {0, 3, 3}), 0);
  ASSERT_EQ(s.safety.size(), 1u);
  const double scores[] = {0.3, 0.7};
  const std::vector<double> x{3, 0, 0};
  EXPECT_EQ(evaluate(s.safety[0].pre, x.data(), 1, scores, 2), 1);
  EXPECT_EQ(evaluate(s.safety[0].post, x.data(), 1, scores, 2), 1);
  EXPECT_EQ(evaluate(s.safety[0].post, x.data(), 0, scores, 2), 0);
  EXPECT_TRUE(s.safety[0].post.uses_model());
  EXPECT_FALSE(s.safety[0].pre.uses_model());
  ASSERT_EQ(s.regions.size(), 1u);
  EXPECT_EQ(s.regions[0].center, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(s.regions[0].epsilon, 1.0);
  EXPECT_EQ(s.regions[0].label, 1);
}

TEST(Spec, ForallExpandsIntoOneFlatConjunction) {
  const Spec s = parse_spec(
      "input x[9] : bool;\n"
      "pred T = forall i in 0..2 : forall j in 0..2 : x[i*3+j] => x[j*3+i];\n");
  const Formula& f = predicate(s, "T");
  EXPECT_EQ(f.nodes[f.root].op, Formula::Op::and_);
  EXPECT_EQ(f.nodes[f.root].n_kids, 9u);  // nested foralls: one level, 3 x 3 clauses
}

TEST(Spec, ErrorsCarryLineAndColumn) {
  EXPECT_THROW_MSG(parse_spec("input x[4] : bool;\ntruth 1 = x[0] and y;\n", "g.spec"), Error,
                   "g.spec:2:20: unknown identifier \"y\"");
  EXPECT_THROW_MSG(parse_spec("input x[4] : bool;\ntruth 1 = x[4];\n", "g.spec"), Error,
                   "g.spec:2:13: index 4 out of range [0, 4) for x");
  EXPECT_THROW_MSG(
      parse_spec("const n = 2;\ninput x[4] : bool;\npred p = forall i in 0..n : x[i*2];\n",
                 "g.spec"),
      Error, "g.spec:3:31: index 4 out of range [0, 4) for x");
  EXPECT_THROW_MSG(parse_spec("input x[4] : bool;\ntruth 1 = x[0] and 3;\n", "g.spec"), Error,
                   "g.spec:2:16: type mismatch: \"and\" needs booleans, found a number");
  EXPECT_THROW_MSG(parse_spec("input a : int[0, 3];\ntruth 1 = a + 1;\n", "g.spec"), Error,
                   "g.spec:2:13: type mismatch: a truth must be a boolean, found a number");
  EXPECT_THROW_MSG(parse_spec("input a : int;\n", "g.spec"), Error,
                   "g.spec:1:14: unbounded domain: int inputs need bounds, e.g. int[0, 255]");
  EXPECT_THROW_MSG(parse_spec("input t : real[0, 1];\n", "g.spec"), Error,
                   "g.spec:1:21: unbounded domain: real inputs need a grid step, e.g. real[0, 1] "
                   "step 0.25");
  EXPECT_THROW_MSG(parse_spec("input x : bool\ntruth 1 = x;\n", "g.spec"), Error,
                   "g.spec:2:1: expected \";\", found \"truth\"");
  EXPECT_THROW_MSG(parse_spec("input x : bool;\ntruth 1 = x @ x;\n", "g.spec"), Error,
                   "g.spec:2:13: unexpected character \"@\"");
  EXPECT_THROW_MSG(
      parse_spec("input x[4] : bool;\npred e(i, j) = x[i*2+j];\ntruth 1 = e(1);\n", "g.spec"),
      Error, "g.spec:3:11: \"e\" takes 2 argument(s), found 1");
  EXPECT_THROW_MSG(parse_spec("input x : bool;\ninput x : bool;\n", "g.spec"), Error,
                   "g.spec:2:7: \"x\" is already defined");
  EXPECT_THROW_MSG(parse_spec("input x[2] : bool;\ntruth 1 = x;\n", "g.spec"), Error,
                   "g.spec:2:11: \"x\" is an array of 2 inputs: index it, e.g. x[0]");
  EXPECT_THROW_MSG(
      parse_spec("input a[2] : int[0, 3];\ntruth 1 = a[0] * a[1] / 2 > 1;\n", "g.spec"), Error,
      "g.spec:2:23: \"/\" needs constant operands (the formula must stay linear)");
  EXPECT_THROW_MSG(parse_spec("input a : int[5, 3];\n", "g.spec"), Error,
                   "g.spec:1:18: empty domain: upper bound 3 is below lower bound 5");
  EXPECT_THROW_MSG(
      parse_spec("input x[2] : bool;\nregion R = ball([0, 1, 1], 1) label 0;\n", "g.spec"), Error,
      "g.spec:2:25: the center has 3 coordinates, the spec declares 2 inputs");
  EXPECT_THROW_MSG(
      parse_spec("input a : int[-9000000000000000, 9000000000000000];\n", "g.spec"), Error,
      "g.spec:1:34: int[-9000000000000000, 9000000000000000] has too many points (at most 9e15)");
  EXPECT_THROW_MSG(parse_spec("# nothing\n", "g.spec"), Error,
                   "g.spec: the spec declares no inputs");
  EXPECT_THROW_MSG(load_spec("/nonexistent/x.spec"), Error,
                   "cannot open spec file \"/nonexistent/x.spec\"");
}

// Hostile specs: deep nesting, long chains, huge literals, domains and expansions. Each is a
// located message (or works), never a stack overflow, bad_alloc or hang.
std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string joined(const std::string& term, const std::string& op, int n) {
  std::string out = term;
  for (int i = 1; i < n; ++i) out += op + term;
  return out;
}

std::size_t depth(const Formula& f, std::uint32_t id) {
  std::size_t d = 0;
  const auto& n = f.nodes[id];
  for (std::uint32_t k = 0; k < n.n_kids; ++k) d = std::max(d, depth(f, f.kids[n.first_kid + k]));
  return d + 1;
}

TEST(SpecLimits, DeepNestingIsRefusedWithItsLocation) {
  const std::string head = "input x[2] : bool;\npred P = ";
  EXPECT_THROW_MSG(
      parse_spec(head + repeat("(", 8000) + "x[0]" + repeat(")", 8000) + ";\n", "g.spec"), Error,
      "g.spec:2:1010: expected expressions nested at most 1000 levels deep, found deeper nesting");
  EXPECT_THROW_MSG(parse_spec(head + repeat("not ", 50000) + "x[0];\n", "g.spec"), Error,
                   "g.spec:2:4006: expected expressions nested at most 1000 levels deep, found "
                   "deeper nesting");
  EXPECT_THROW_MSG(parse_spec(head + repeat("- ", 50000) + "x[0] > 0;\n", "g.spec"), Error,
                   "g.spec:2:2008: expected expressions nested at most 1000 levels deep, found "
                   "deeper nesting");
  // Within the limit, nesting works.
  const Spec s = parse_spec(head + repeat("not ", 997) + "x[0];\n", "g.spec");
  EXPECT_EQ(eval_at(predicate(s, "P"), {1, 0}), 0.0);
  EXPECT_EQ(eval_at(predicate(s, "P"), {0, 0}), 1.0);
}

TEST(SpecLimits, LongChainsAreFlat) {
  const std::string head = "input x[2] : bool;\n";
  const Spec ors = parse_spec(head + "pred P = " + joined("x[0]", " or ", 25000) + ";\n");
  EXPECT_EQ(eval_at(predicate(ors, "P"), {1, 0}), 1.0);
  EXPECT_EQ(eval_at(predicate(ors, "P"), {0, 1}), 0.0);
  const Spec ands = parse_spec(head + "pred P = " + joined("x[1]", " && ", 25000) + ";\n");
  EXPECT_EQ(eval_at(predicate(ands, "P"), {0, 1}), 1.0);
  // A sum of 50,000 terms is a balanced tree, and evaluates exactly.
  const Spec plus = parse_spec(head + "pred P = " + joined("x[0]", " + ", 50000) + " == 50000;\n");
  const Formula& f = predicate(plus, "P");
  EXPECT_LE(depth(f, f.root), 20u);
  EXPECT_EQ(eval_at(f, {1, 0}), 1.0);
  EXPECT_EQ(eval_at(f, {0, 0}), 0.0);
  const Spec q = parse_spec(head + "pred P = (sum i in 0..199999 : x[i % 2]) == 100000;\n");
  EXPECT_LE(depth(predicate(q, "P"), predicate(q, "P").root), 20u);
  EXPECT_EQ(eval_at(predicate(q, "P"), {1, 0}), 1.0);
  EXPECT_EQ(eval_at(predicate(q, "P"), {1, 1}), 0.0);
  // Mixed + and - keep their meaning (left to right), constants folded.
  const Spec mixed = parse_spec(
      "input a[3] : int[0, 9];\npred P = a[0] - a[1] + 3 - a[2] - 1 == 4;\n"
      "pred Q = 10 - a[0] - a[1] == 3;\npred R = a[0] * 2 * a[1] - 6 == 0;\n");
  EXPECT_EQ(eval_at(predicate(mixed, "P"), {5, 1, 2}), 1.0);  // 5 - 1 + 3 - 2 - 1 = 4
  EXPECT_EQ(eval_at(predicate(mixed, "P"), {5, 2, 1}), 1.0);
  EXPECT_EQ(eval_at(predicate(mixed, "P"), {5, 2, 2}), 0.0);
  EXPECT_EQ(eval_at(predicate(mixed, "Q"), {3, 4, 0}), 1.0);
  EXPECT_EQ(eval_at(predicate(mixed, "R"), {3, 1, 0}), 1.0);
  // => is right-associative: a => (b => c), also as a safety property's pre and post.
  const Spec imp = parse_spec(
      "input x[3] : bool;\npred P = x[0] => x[1] => x[2];\nsafety S = x[0] => x[1] => x[2];\n");
  EXPECT_EQ(eval_at(predicate(imp, "P"), {1, 1, 0}), 0.0);
  EXPECT_EQ(eval_at(predicate(imp, "P"), {0, 1, 0}), 1.0);
  EXPECT_EQ(eval_at(predicate(imp, "P"), {1, 0, 0}), 1.0);
  EXPECT_EQ(eval_at(imp.safety[0].pre, {1, 0, 0}), 1.0);
  EXPECT_EQ(eval_at(imp.safety[0].post, {1, 0, 0}), 1.0);
  EXPECT_EQ(eval_at(imp.safety[0].post, {1, 1, 0}), 0.0);
  // Type errors in a chain point at the operator next to the operand.
  EXPECT_THROW_MSG(parse_spec("input x[2] : bool;\ntruth 1 = x[0] and x[1] and 3;\n", "g.spec"),
                   Error, "g.spec:2:25: type mismatch: \"and\" needs booleans, found a number");
}

TEST(SpecLimits, PredicateExpansionIsBounded) {
  // A chain of predicates each calling the previous: too deep once expanded.
  std::string chain = "input x[2] : bool;\npred p0 = x[0];\n";
  for (int k = 1; k < 1200; ++k) chain += fmt::format("pred p{} = p{} and x[1];\n", k, k - 1);
  EXPECT_THROW_MSG(parse_spec(chain, "g.spec"), Error,
                   "g.spec:1001:13: expected expressions nested at most 2000 levels deep once "
                   "predicate calls are expanded, found deeper nesting");
  // Each predicate doubles the formula: stopped at the node limit, not by memory.
  std::string twice = "input x : int[0, 9];\npred p0 = x > 1;\n";
  for (int k = 1; k < 40; ++k)
    twice += fmt::format("pred p{} = p{} and not p{};\n", k, k - 1, k - 1);
  EXPECT_THROW_MSG(parse_spec(twice, "g.spec"), Error,
                   "g.spec:21:12: the ground formula needs more than 2000000 nodes (the limit): "
                   "quantifiers and predicate calls expand into it");
}

TEST(SpecLimits, SizesAreCheckedBeforeAllocating) {
  EXPECT_THROW_MSG(parse_spec("input x[2147483648] : bool;\n", "g.spec"), Error,
                   "g.spec:1:9: expected at most 1000000 scalar inputs in all, found an array of "
                   "2147483648 (0 declared before it)");
  EXPECT_THROW_MSG(parse_spec("input a[999999] : bool;\ninput b[2] : bool;\n", "g.spec"), Error,
                   "g.spec:2:9: expected at most 1000000 scalar inputs in all, found an array of 2 "
                   "(999999 declared before it)");
  EXPECT_THROW_MSG(
      parse_spec(
          "input x[2] : bool;\npred P = forall i in 0..999999 : forall j in 0..999 : x[0];\n",
          "g.spec"),
      Error,
      "g.spec:2:34: expected at most 1000000 instances of a quantifier's body, found 1000000000: "
      "forall j in 0..999 (1000 values inside 1000000 instances of enclosing quantifiers)");
  EXPECT_THROW_MSG(
      parse_spec("input x[2] : bool;\npred P = exists i in 0..99999999999 : x[0];\n", "g.spec"),
      Error,
      "g.spec:2:10: expected at most 1000000 instances of a quantifier's body, found "
      "100000000000: exists i in 0..99999999999");
}

TEST(SpecLimits, NumbersOutOfRangeAreLocated) {
  EXPECT_THROW_MSG(parse_spec("input x[2] : int[0, 1e400];\n", "g.spec"), Error,
                   "g.spec:1:21: expected a number within the range of a double (about 1.8e308), "
                   "found 1e400");
  EXPECT_THROW_MSG(parse_spec("const a = 1e300 * 1e300;\n", "g.spec"), Error,
                   "g.spec:1:17: expected a finite number, found 1e+300 * 1e+300 = inf");
  EXPECT_THROW_MSG(parse_spec("input x[2] : bool;\ntruth 3000000000 = x[0];\n", "g.spec"), Error,
                   "g.spec:2:7: expected a label index in [0, 2147483647], found 3000000000");
  EXPECT_THROW_MSG(parse_spec("input x[2] : bool;\ntruth 1 = score[5000000000] > 0;\n", "g.spec"),
                   Error,
                   "g.spec:2:17: expected an output index of at most 2147483647, found 5000000000");
  EXPECT_THROW_MSG(
      parse_spec("input x[2] : bool;\ntruth 1 = x[4000000000000000 * 4000000000000000];\n",
                 "g.spec"),
      Error,
      "g.spec:2:13: expected an index (a constant integer) of at most 9e15 in magnitude, found "
      "1.6e+31");
  // Underflow is not an error: 1e-400 is 0.
  const Spec s = parse_spec("input x : real[0, 1] step 0.5;\npred P = x > 1e-400;\n");
  EXPECT_EQ(eval_at(predicate(s, "P"), {0.5}), 1.0);
}

TEST(SpecLimits, ByteOrderMarkAndFolders) {
  const Spec s = parse_spec("\xEF\xBB\xBFinput x[2] : bool;\npred P = x[1];\n", "g.spec");
  EXPECT_EQ(s.domain.vars.size(), 2u);
  // Columns still count from the first character after the mark.
  EXPECT_THROW_MSG(parse_spec("\xEF\xBB\xBFinput x : bool", "g.spec"), Error,
                   "g.spec:1:15: expected \";\", found the end of the file");
  const auto dir = std::filesystem::temp_directory_path() / "assay_spec_folder.spec";
  std::filesystem::create_directories(dir);
  EXPECT_THROW_MSG(load_spec(dir.string()), Error,
                   dir.string() + ": is a folder, expected a spec file");
  std::filesystem::remove(dir);
}

}  // namespace
}  // namespace assay::count
