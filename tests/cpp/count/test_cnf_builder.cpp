// count/cnf_builder: every Tseitin gate's clauses define exactly its truth table (checked over
// every assignment of every variable), constant folding and structural hashing, and the
// bit-vector arithmetic against integers on every input. CnfBuilder is private to the count
// layer (src/count/cnf_builder.hpp), so this test includes its header directly.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <vector>

#include "../../../src/count/cnf_builder.hpp"
#include "assay/count/cnf.hpp"

namespace {

using assay::count::Cnf;
using assay::count::Var;
using assay::count::detail::BitVec;
using assay::count::detail::CnfBuilder;
using assay::count::detail::Int;
using assay::count::detail::kFalse;
using assay::count::detail::kTrue;
using assay::count::detail::signed_width;

// ------------------------------------------------------------------ gate truth tables

using Truth = std::function<bool(const std::vector<bool>& in)>;

bool holds(Var lit, const std::vector<bool>& value) {
  return lit > 0 ? value[static_cast<std::size_t>(lit)] : !value[static_cast<std::size_t>(-lit)];
}

// Checks that `f` defines `g` as `truth` of the inputs: over every assignment of all of f's
// variables, each assignment of the inputs extends to exactly one model of f, and g holds in it
// exactly when truth(inputs) does.
void expect_defines(const Cnf& f, const std::vector<Var>& inputs, Var g, const Truth& truth) {
  const std::size_t n = static_cast<std::size_t>(f.n_vars);
  ASSERT_LE(n, 16u);
  std::vector<int> models(std::size_t{1} << inputs.size(), 0);
  std::vector<bool> value(n + 1);
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    for (std::size_t v = 1; v <= n; ++v) value[v] = (mask >> (v - 1)) & 1;
    bool model = true;
    for (std::size_t c = 0; c < f.n_clauses() && model; ++c) {
      bool sat = false;
      for (const Var lit : f.clause(c)) sat = sat || holds(lit, value);
      model = sat;
    }
    if (!model) continue;
    std::vector<bool> in(inputs.size());
    std::size_t key = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      in[i] = value[static_cast<std::size_t>(inputs[i])];
      key |= static_cast<std::size_t>(in[i]) << i;
    }
    ++models[key];
    EXPECT_EQ(holds(g, value), truth(in)) << "inputs " << key;
  }
  for (std::size_t key = 0; key < models.size(); ++key) {
    EXPECT_EQ(models[key], 1) << "inputs " << key << " extend to " << models[key] << " models";
  }
}

// A fresh builder with `k` inputs; `make` builds the gate from them.
void expect_gate(std::size_t k,
                 const std::function<Var(CnfBuilder&, const std::vector<Var>&)>& make,
                 const Truth& truth) {
  CnfBuilder b;
  std::vector<Var> x;
  for (std::size_t i = 0; i < k; ++i) x.push_back(b.input());
  const Var g = make(b, x);
  expect_defines(b.cnf(), x, g, truth);
}

TEST(CnfBuilder, ConstantTrueIsVariableOneFixedByAUnitClause) {
  CnfBuilder b;
  EXPECT_EQ(b.n_vars(), 1u);
  ASSERT_EQ(b.cnf().n_clauses(), 1u);
  EXPECT_EQ(b.cnf().clause(0).size(), 1u);
  EXPECT_EQ(b.cnf().clause(0)[0], kTrue);
  const Var x = b.input();
  EXPECT_EQ(x, 2);
  expect_defines(b.cnf(), {x}, kTrue, [](const auto&) { return true; });
  expect_defines(b.cnf(), {x}, kFalse, [](const auto&) { return false; });
}

TEST(CnfBuilder, And2TruthTable) {
  for (const int sa : {1, -1}) {
    for (const int sb : {1, -1}) {
      expect_gate(
          2, [&](CnfBuilder& b, const auto& x) { return b.and2(sa * x[0], sb * x[1]); },
          [&](const auto& in) { return (in[0] == (sa > 0)) && (in[1] == (sb > 0)); });
    }
  }
}

TEST(CnfBuilder, Or2TruthTable) {
  for (const int sa : {1, -1}) {
    for (const int sb : {1, -1}) {
      expect_gate(
          2, [&](CnfBuilder& b, const auto& x) { return b.or2(sa * x[0], sb * x[1]); },
          [&](const auto& in) { return (in[0] == (sa > 0)) || (in[1] == (sb > 0)); });
    }
  }
}

TEST(CnfBuilder, Xor2TruthTable) {
  for (const int sa : {1, -1}) {
    for (const int sb : {1, -1}) {
      expect_gate(
          2, [&](CnfBuilder& b, const auto& x) { return b.xor2(sa * x[0], sb * x[1]); },
          [&](const auto& in) { return (in[0] == (sa > 0)) != (in[1] == (sb > 0)); });
    }
  }
}

TEST(CnfBuilder, IteTruthTable) {
  for (const int sc : {1, -1}) {
    for (const int sa : {1, -1}) {
      for (const int sb : {1, -1}) {
        expect_gate(
            3, [&](CnfBuilder& b, const auto& x) { return b.ite(sc * x[0], sa * x[1], sb * x[2]); },
            [&](const auto& in) {
              return in[0] == (sc > 0) ? in[1] == (sa > 0) : in[2] == (sb > 0);
            });
      }
    }
  }
}

TEST(CnfBuilder, IteFoldedCasesKeepTheirTruthTable) {
  // Shared or complementary inputs and constants take the folding paths.
  using Make = std::function<Var(CnfBuilder&, const std::vector<Var>&)>;
  const std::vector<std::pair<Make, Truth>> cases = {
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], x[1], -x[1]); },
       [](const auto& in) { return in[0] ? in[1] : !in[1]; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], x[0], x[1]); },
       [](const auto& in) { return in[0] || in[1]; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], -x[0], x[1]); },
       [](const auto& in) { return !in[0] && in[1]; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], x[1], x[0]); },
       [](const auto& in) { return in[0] && in[1]; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], x[1], -x[0]); },
       [](const auto& in) { return in[0] ? in[1] : true; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], kTrue, x[1]); },
       [](const auto& in) { return in[0] || in[1]; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], kFalse, x[1]); },
       [](const auto& in) { return !in[0] && in[1]; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], x[1], kTrue); },
       [](const auto& in) { return !in[0] || in[1]; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], x[1], kFalse); },
       [](const auto& in) { return in[0] && in[1]; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(x[0], kFalse, kTrue); },
       [](const auto& in) { return !in[0]; }},
      {[](CnfBuilder& b, const auto& x) { return b.ite(kFalse, x[0], x[1]); },
       [](const auto& in) { return in[1]; }},
  };
  for (const auto& [make, truth] : cases) expect_gate(2, make, truth);
}

TEST(CnfBuilder, Maj3AndXor3TruthTables) {
  for (const int sa : {1, -1}) {
    expect_gate(
        3, [&](CnfBuilder& b, const auto& x) { return b.maj3(sa * x[0], x[1], -x[2]); },
        [&](const auto& in) {
          return ((in[0] == (sa > 0)) + static_cast<int>(in[1]) + static_cast<int>(!in[2])) >= 2;
        });
    expect_gate(
        3, [&](CnfBuilder& b, const auto& x) { return b.xor3(sa * x[0], x[1], -x[2]); },
        [&](const auto& in) { return ((in[0] == (sa > 0)) ^ in[1] ^ !in[2]) != 0; });
  }
  // Folded: a constant, a repeated or a complementary input.
  expect_gate(
      2, [](CnfBuilder& b, const auto& x) { return b.maj3(kTrue, x[0], x[1]); },
      [](const auto& in) { return in[0] || in[1]; });
  expect_gate(
      2, [](CnfBuilder& b, const auto& x) { return b.maj3(x[0], kFalse, x[1]); },
      [](const auto& in) { return in[0] && in[1]; });
  expect_gate(
      2, [](CnfBuilder& b, const auto& x) { return b.maj3(x[0], x[1], -x[0]); },
      [](const auto& in) { return static_cast<bool>(in[1]); });
  expect_gate(
      2, [](CnfBuilder& b, const auto& x) { return b.maj3(x[0], x[1], x[1]); },
      [](const auto& in) { return static_cast<bool>(in[1]); });
}

TEST(CnfBuilder, AndNAndOrNTruthTables) {
  for (const std::size_t k : {3u, 4u}) {
    for (std::uint32_t signs = 0; signs < (1u << k); ++signs) {
      auto lit = [&](const std::vector<Var>& x, std::size_t i) {
        return (signs >> i) & 1 ? -x[i] : x[i];
      };
      auto is_true = [&](const std::vector<bool>& in, std::size_t i) {
        return in[i] != (((signs >> i) & 1) != 0);
      };
      expect_gate(
          k,
          [&](CnfBuilder& b, const auto& x) {
            std::vector<Var> lits;
            for (std::size_t i = 0; i < k; ++i) lits.push_back(lit(x, i));
            return b.and_n(lits);
          },
          [&](const auto& in) {
            bool all = true;
            for (std::size_t i = 0; i < k; ++i) all = all && is_true(in, i);
            return all;
          });
      expect_gate(
          k,
          [&](CnfBuilder& b, const auto& x) {
            std::vector<Var> lits;
            for (std::size_t i = 0; i < k; ++i) lits.push_back(lit(x, i));
            return b.or_n(lits);
          },
          [&](const auto& in) {
            bool any = false;
            for (std::size_t i = 0; i < k; ++i) any = any || is_true(in, i);
            return any;
          });
    }
  }
}

TEST(CnfBuilder, AndNFoldsDuplicatesConstantsAndComplements) {
  CnfBuilder b;
  const Var x = b.input(), y = b.input(), z = b.input();
  EXPECT_EQ(b.and_n({}), kTrue);
  EXPECT_EQ(b.or_n({}), kFalse);
  EXPECT_EQ(b.and_n({x, kTrue, x}), x);
  EXPECT_EQ(b.and_n({x, y, kFalse}), kFalse);
  EXPECT_EQ(b.and_n({x, y, -x}), kFalse);
  EXPECT_EQ(b.or_n({x, y, -x}), kTrue);
  EXPECT_EQ(b.and_n({y, x, kTrue}), b.and2(x, y));  // two left: an and2 gate, hashed
  const std::size_t before = b.n_vars();
  const Var g = b.and_n({x, y, z});
  EXPECT_EQ(b.n_vars(), before + 1);
  expect_defines(b.cnf(), {x, y, z}, g, [](const auto& in) { return in[0] && in[1] && in[2]; });
}

TEST(CnfBuilder, GateBuiltTwiceAddsNothing) {
  CnfBuilder b;
  const Var x = b.input(), y = b.input(), z = b.input();
  const Var a = b.and2(x, -y), o = b.xor2(x, y), i = b.ite(x, y, z), m = b.maj3(x, y, z);
  const std::size_t vars = b.n_vars(), clauses = b.cnf().n_clauses();
  EXPECT_EQ(b.and2(-y, x), a);
  EXPECT_EQ(b.xor2(y, x), o);
  EXPECT_EQ(b.xor2(-y, -x), o);
  EXPECT_EQ(b.ite(-x, z, y), i);  // c ? a : b == !c ? b : a
  EXPECT_EQ(b.maj3(z, x, y), m);
  EXPECT_EQ(b.n_vars(), vars);
  EXPECT_EQ(b.cnf().n_clauses(), clauses);
}

TEST(CnfBuilder, AssertTrueAndTake) {
  CnfBuilder b;
  const Var x = b.input(), y = b.input();
  const Var g = b.and2(x, y);
  b.assert_true(kTrue);  // nothing to add
  const std::size_t clauses = b.cnf().n_clauses();
  EXPECT_EQ(b.cnf().n_clauses(), clauses);
  b.assert_true(g);
  EXPECT_EQ(b.cnf().n_clauses(), clauses + 1);
  const Cnf f = b.take();
  EXPECT_TRUE(f.has_projection);
  EXPECT_EQ(f.projection, (std::vector<Var>{x, y}));  // the inputs, never the constant or gates
  CnfBuilder unsat;
  unsat.assert_true(kFalse);
  const Cnf u = unsat.take();
  ASSERT_EQ(u.n_clauses(), 2u);
  EXPECT_EQ(u.clause(1).size(), 0u);  // the empty clause
}

// ------------------------------------------------------------------ bit-vectors

TEST(CnfBuilder, SignedWidthIsTheFewestTwosComplementBits) {
  EXPECT_EQ(signed_width(0, 0), 1u);
  EXPECT_EQ(signed_width(-1, 0), 1u);
  EXPECT_EQ(signed_width(0, 1), 2u);
  EXPECT_EQ(signed_width(-2, 1), 2u);
  EXPECT_EQ(signed_width(-3, 1), 3u);
  EXPECT_EQ(signed_width(0, 127), 8u);
  EXPECT_EQ(signed_width(-128, 127), 8u);
  EXPECT_EQ(signed_width(0, 128), 9u);
  EXPECT_EQ(signed_width(-(Int(1) << 100), Int(1) << 100), 102u);
}

TEST(CnfBuilder, ConstantsAndInputVectors) {
  CnfBuilder b;
  const BitVec five = b.constant(5);
  EXPECT_EQ(five.bits, (std::vector<Var>{kTrue, kFalse, kTrue, kFalse}));
  EXPECT_EQ(five.lo, 5);
  EXPECT_EQ(five.hi, 5);
  const BitVec minus3 = b.constant(-3);  // 101 in three bits
  EXPECT_EQ(minus3.bits, (std::vector<Var>{kTrue, kFalse, kTrue}));
  const BitVec k = b.input_vector(3);
  EXPECT_EQ(k.width(), 4u);  // three input bits and a zero sign bit
  EXPECT_EQ(k.bits.back(), kFalse);
  EXPECT_EQ(k.lo, 0);
  EXPECT_EQ(k.hi, 7);
  const BitVec one = b.from_bit(kTrue);
  EXPECT_EQ(one.lo, 1);
  EXPECT_EQ(one.hi, 1);
  const BitVec bit = b.from_bit(k.bits[0]);
  EXPECT_EQ(bit.lo, 0);
  EXPECT_EQ(bit.hi, 1);
  EXPECT_EQ(b.extend(minus3, 5).bits, (std::vector<Var>{kTrue, kFalse, kTrue, kTrue, kTrue}));
}

// Values of every variable given the projected inputs: the gates are equivalences, so unit
// propagation from the inputs decides every gate. Returns false on a conflict.
bool propagate(const Cnf& f, std::vector<int>& value) {
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < f.n_clauses(); ++i) {
      int open = 0;
      Var last = 0;
      bool sat = false;
      for (const Var lit : f.clause(i)) {
        const int v = value[static_cast<std::size_t>(std::abs(lit))];
        if (v == 0) {
          ++open;
          last = lit;
        } else if ((v > 0) == (lit > 0)) {
          sat = true;
        }
      }
      if (sat) continue;
      if (open == 0) return false;
      if (open == 1) {
        value[static_cast<std::size_t>(std::abs(last))] = last > 0 ? 1 : -1;
        changed = true;
      }
    }
  }
  return true;
}

Int read(const BitVec& v, const std::vector<int>& value) {
  Int x = 0;
  for (std::size_t i = 0; i < v.width(); ++i) {
    const Var lit = v.bits[i];
    const int b = lit == 1 ? 1 : lit == -1 ? -1 : value[std::abs(lit)] * (lit > 0 ? 1 : -1);
    if (b > 0) {
      if (i + 1 == v.width()) {
        x -= Int(1) << i;
      } else {
        x += Int(1) << i;
      }
    }
  }
  return x;
}

// Runs `check(a, b, values)` for every value of two 3-bit signed inputs built from input bits.
void for_all_pairs(
    const std::function<void(CnfBuilder&, const BitVec&, const BitVec&,
                             std::vector<std::function<void(Int, Int, const std::vector<int>&)>>&)>&
        build) {
  CnfBuilder b;
  BitVec a, c;
  for (int i = 0; i < 3; ++i) a.bits.push_back(b.input());
  for (int i = 0; i < 3; ++i) c.bits.push_back(b.input());
  a.lo = c.lo = -4;
  a.hi = c.hi = 3;
  std::vector<std::function<void(Int, Int, const std::vector<int>&)>> checks;
  build(b, a, c, checks);
  const Cnf f = b.take();
  for (int x = 0; x < 64; ++x) {
    std::vector<int> value(static_cast<std::size_t>(f.n_vars) + 1, 0);
    value[1] = 1;
    for (int i = 0; i < 6; ++i)
      value[static_cast<std::size_t>(f.projection[i])] = (x >> i) & 1 ? 1 : -1;
    ASSERT_TRUE(propagate(f, value));
    const Int av = read(a, value), cv = read(c, value);
    for (const auto& check : checks) check(av, cv, value);
  }
}

TEST(CnfBuilder, ArithmeticEqualsIntegers) {
  for_all_pairs([](CnfBuilder& b, const BitVec& a, const BitVec& c, auto& checks) {
    const BitVec sum = b.add(a, c), diff = b.sub(a, c), prod = b.mul(a, c), neg = b.neg(a);
    const BitVec times = b.mul_const(a, -11), relu = b.relu(a), half = b.shift_right(c, 1);
    const BitVec pick = b.mux(b.less_than(a, c), a, c);
    const Var lt = b.less_than(a, c), le = b.less_equal(a, c), eq = b.equal(a, c);
    checks.push_back([=](Int x, Int y, const std::vector<int>& v) {
      EXPECT_EQ(read(sum, v), x + y);
      EXPECT_EQ(read(diff, v), x - y);
      EXPECT_EQ(read(prod, v), x * y);
      EXPECT_EQ(read(neg, v), -x);
      EXPECT_EQ(read(times, v), -11 * x);
      EXPECT_EQ(read(relu, v), x > 0 ? x : 0);
      EXPECT_EQ(read(half, v), y >= 0 ? y / 2 : (y - 1) / 2);  // floor
      EXPECT_EQ(read(pick, v), x < y ? x : y);
      auto truth = [&](Var lit) {
        return lit == 1 || (lit != -1 && v[std::abs(lit)] * (lit > 0 ? 1 : -1) > 0);
      };
      EXPECT_EQ(truth(lt), x < y);
      EXPECT_EQ(truth(le), x <= y);
      EXPECT_EQ(truth(eq), x == y);
    });
  });
}

TEST(CnfBuilder, GatesFoldConstantsAndShareStructure) {
  CnfBuilder b;
  const Var x = b.input(), y = b.input();
  EXPECT_EQ(b.and2(x, assay::count::detail::kTrue), x);
  EXPECT_EQ(b.and2(x, -x), assay::count::detail::kFalse);
  EXPECT_EQ(b.xor2(x, x), assay::count::detail::kFalse);
  EXPECT_EQ(b.and2(x, y), b.and2(y, x));
  EXPECT_EQ(b.xor2(-x, y), -b.xor2(x, y));
  EXPECT_EQ(b.less_than(b.constant(3), b.constant(5)), assay::count::detail::kTrue);
}

TEST(CnfBuilder, ShiftLeftAndSumEqualIntegers) {
  for_all_pairs([](CnfBuilder& b, const BitVec& a, const BitVec& c, auto& checks) {
    const BitVec twice = b.shift_left(a, 1), eight = b.shift_left(c, 3);
    const BitVec total = b.sum({a, c, b.constant(-5), a});
    EXPECT_EQ(twice.lo, -8);
    EXPECT_EQ(twice.hi, 6);
    EXPECT_EQ(total.lo, -17);
    EXPECT_EQ(total.hi, 4);
    checks.push_back([=](Int x, Int y, const std::vector<int>& v) {
      EXPECT_EQ(read(twice, v), 2 * x);
      EXPECT_EQ(read(eight, v), 8 * y);
      EXPECT_EQ(read(total, v), 2 * x + y - 5);
    });
  });
}

}  // namespace
