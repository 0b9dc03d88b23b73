// Building CNF formulas from circuits: Tseitin gates with constant folding and structural
// hashing, and two's complement bit-vectors with exact ranges for integer arithmetic.
//
//   CnfBuilder b;
//   const Var x = b.input(), y = b.input();          // projected variables
//   const Var g = b.and2(x, -y);                     // g <=> (x and not y)
//   BitVec k = b.input_vector(4);                    // 0..15, projected
//   const Var small = b.less_than(k, b.constant(9)); // k < 9
//   b.assert_true(b.or2(g, small));
//   Cnf f = b.take();                                // projection = the inputs
//
// Every gate is defined by an equivalence (g <=> f(inputs)), so gate variables are functionally
// determined by the inputs: adding an unused gate never changes a projected count. Literals are
// DIMACS literals; variable 1 is the constant true (kTrue = 1, kFalse = -1), fixed by a unit
// clause and never projected. Gates on constants fold to constants or to one of their inputs,
// and a gate built twice on the same inputs is built once.
//
// A BitVec is little-endian two's complement: value = -b[w-1] 2^(w-1) + sum_{j<w-1} b[j] 2^j.
// It carries the exact range [lo, hi] of the values it can take, from which every operation
// sizes its result, so sums and products never overflow.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "assay/count/cnf.hpp"

namespace assay::count::detail {

using Int = __int128;

constexpr Var kTrue = 1;
constexpr Var kFalse = -1;

struct BitVec {
  std::vector<Var> bits;  ///< little endian; bits.back() is the sign bit
  Int lo = 0;             ///< smallest value it can take
  Int hi = 0;             ///< largest value it can take
  std::size_t width() const { return bits.size(); }
};

/// Bits needed to hold every value of [lo, hi] in two's complement.
std::size_t signed_width(Int lo, Int hi);

class CnfBuilder {
 public:
  CnfBuilder();

  /// A fresh projected variable.
  Var input();
  /// A projected unsigned integer of `n_bits` bits (0 .. 2^n_bits - 1), as a BitVec.
  BitVec input_vector(std::size_t n_bits);
  /// A fresh unprojected variable (for callers that define it by clauses themselves).
  Var fresh() { return cnf_.new_var(); }
  void clause(std::initializer_list<Var> lits);
  void clause(const std::vector<Var>& lits);
  /// Adds the unit clause [a] (a constant false makes the formula unsatisfiable).
  void assert_true(Var a);

  // Gates: g <=> f(inputs), folded and hashed.
  Var and2(Var a, Var b);
  Var or2(Var a, Var b) { return -and2(-a, -b); }
  Var xor2(Var a, Var b);
  Var ite(Var c, Var a, Var b);
  Var and_n(std::vector<Var> lits);
  Var or_n(std::vector<Var> lits);
  Var maj3(Var a, Var b, Var c);
  Var xor3(Var a, Var b, Var c) { return xor2(xor2(a, b), c); }
  /// g <=> at most k of `lits` hold: a sequential counter of gates (c_j <=> at least j of the
  /// literals so far), (k + 1) n gates; beyond 2^22 of them, a sum of the literals compared with
  /// k (adders: n log n gates).
  Var at_most(const std::vector<Var>& lits, std::uint64_t k);

  // Bit-vectors.
  BitVec constant(Int value) const;
  BitVec from_bit(Var b) const;  ///< 0 or 1
  BitVec extend(const BitVec& a, std::size_t width) const;
  BitVec add(const BitVec& a, const BitVec& b);
  BitVec sub(const BitVec& a, const BitVec& b);
  BitVec neg(const BitVec& a);
  BitVec mul_const(const BitVec& a, Int c);
  BitVec mul(const BitVec& a, const BitVec& b);
  BitVec shift_left(const BitVec& a, unsigned k) const;
  /// Floor division by 2^k (arithmetic shift right).
  BitVec shift_right(const BitVec& a, unsigned k) const;
  BitVec relu(const BitVec& a);
  BitVec mux(Var c, const BitVec& a, const BitVec& b);  ///< c ? a : b
  /// Sum of many vectors as a balanced tree of additions.
  BitVec sum(std::vector<BitVec> terms);
  Var less_than(const BitVec& a, const BitVec& b);
  Var less_equal(const BitVec& a, const BitVec& b) { return -less_than(b, a); }
  Var equal(const BitVec& a, const BitVec& b);
  Var sign(const BitVec& a) const { return a.bits.back(); }

  std::size_t n_vars() const { return static_cast<std::size_t>(cnf_.n_vars); }
  const Cnf& cnf() const { return cnf_; }
  /// The formula, its projection set to the inputs.
  Cnf take();

 private:
  Var gate(std::uint8_t op, Var a, Var b, Var c);

  Cnf cnf_;
  std::vector<Var> inputs_;
  struct KeyHash {
    std::size_t operator()(const std::array<Var, 4>& k) const;
  };
  std::unordered_map<std::array<Var, 4>, Var, KeyHash> gates_;
};

}  // namespace assay::count::detail
