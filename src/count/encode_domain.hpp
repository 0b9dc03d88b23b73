// The spec's inputs as bits (grid indices with range constraints) and the spec's ground formulas
// as literals: the parts of the CNF encoding that do not depend on the model.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "assay/count/encoding.hpp"
#include "assay/count/spec.hpp"
#include "box.hpp"
#include "cnf_builder.hpp"

namespace assay::count::detail {

/// An exact number as a bit-vector: value = v * 2^exp.
struct Num {
  BitVec v;
  int exp = 0;
};

/// x = m * 2^e exactly, with m odd (or 0). Throws for infinities and NaN.
std::pair<Int, int> dyadic(double x);

class DomainBits {
 public:
  /// Creates the input bits (projected) and the range constraints k_v <= size_v - 1.
  DomainBits(CnfBuilder& b, const Domain& d);

  const Domain& domain() const { return d_; }
  /// The grid index of input v, an unsigned BitVec.
  const BitVec& index(std::size_t v) const { return index_[v]; }
  /// k_v < t (t a grid index; folds to a constant outside 0 < t < size).
  Var index_below(std::size_t v, std::uint64_t t);
  /// The exact value lo + k step of input v.
  Num value(std::size_t v);
  /// Restricts the inputs to a box of grid indices.
  void restrict_to(const Box& box);
  /// Layout, for Encoding::inputs.
  std::vector<InputBits> layout() const;

 private:
  CnfBuilder& b_;
  const Domain& d_;
  std::vector<BitVec> index_;
};

/// Literals of ground formulas over the inputs and the model's label.
class FormulaBits {
 public:
  /// `label` and `argmax`: one-hot literals of the model's label and of the argmax of its scores
  /// (empty when no model is involved; a formula reading them is then an error).
  FormulaBits(CnfBuilder& b, DomainBits& d, std::vector<Var> label, std::vector<Var> argmax)
      : b_(b), d_(d), label_(std::move(label)), argmax_(std::move(argmax)) {}

  /// The literal that holds exactly where `f` (a boolean formula) holds.
  Var encode(const Formula& f);

 private:
  struct Value {
    Var lit = 0;  // boolean nodes
    Num num;      // numeric nodes
  };
  void node(const Formula& f, std::uint32_t id, std::vector<Value>& values);
  Var comparison(const Formula& f, const Formula::Node& n, std::vector<Value>& values);
  bool input_vs_constant(const Formula& f, const Formula::Node& n, Var& out);
  Num numeric(const Formula& f, std::uint32_t id, std::vector<Value>& values);
  Num one_hot_value(const std::vector<Var>& one_hot, const char* what);

  CnfBuilder& b_;
  DomainBits& d_;
  std::vector<Var> label_, argmax_;
};

/// a and b brought to the same exponent (the smaller), for additions and comparisons.
std::pair<BitVec, BitVec> align(CnfBuilder& b, const Num& x, const Num& y, int& exp);

}  // namespace assay::count::detail
