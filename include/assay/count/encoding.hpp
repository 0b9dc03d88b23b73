// A counting query as a CNF formula, and what to encode: the parameters of one query
// (EncodeParams), how each scalar input of the domain is laid out in bits (InputBits), and the
// encoded formula with what its models mean (Encoding). encode.hpp builds an Encoding from a
// model and a spec; the CNF counting methods count it.
//
// Data layout: an int[lo, hi] or real grid input with S points is its grid index k in
// ceil(log2 S) bits, least significant first, with k <= S-1 enforced; a boolean is one bit. The
// projection of `cnf` is exactly the input bits (sorted), so every grid point is one projected
// model. Variable 1 is the constant true.
//
// Example:
//   Encoding e;
//   e.cnf.n_vars = 3;                         // variable 1: the constant true
//   e.cnf.set_projection({2, 3});
//   e.inputs.push_back({"x[0]", {2, 3}, 4});  // grid index of x[0]: bit 0 = var 2, bit 1 = var 3
//   e.n_input_bits = 2;
//   std::vector<std::uint64_t> k = decode_inputs(e, {true, false});  // {1}: var 2 true, 3 false
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "assay/count/cnf.hpp"

namespace assay::count {

struct EncodeParams {
  /// Which check: "" = the spec's only truth/safety property/region (an error when there are
  /// several), else a predicate (label 1 = it, label 0 = its negation), safety property or region.
  std::string property;
  /// The query: for truths "tp", "fp", "tn", "fn", "truth" (psi_L), "predicted" (phi_L); for safety
  /// properties "satisfied" (pre and post), "violated" (pre and not post), "pre"; for regions
  /// "robust" (inside and predicted as the region's label), "not-robust", "region".
  /// "" = "tp", "violated" or "robust".
  std::string query;
  /// The label index of tp/fp/tn/fn/truth/predicted (-1 = label 1 for two labels, else 0).
  std::int32_t label = -1;
  /// Fixed point of ensemble sums: fractional bits (0 = the fewest that make every leaf value
  /// exact, up to 24, else 10 + log2(trees + 1)).
  int fraction_bits = 0;
  /// Networks: significant bits of each layer's quantised weights.
  int weight_bits = 12;
  /// Networks: fractional bits kept of each hidden activation.
  int activation_bits = 12;
};

/// How a scalar input is laid out in the CNF.
struct InputBits {
  std::string name;        ///< "x[3]"
  std::vector<Var> bits;   ///< grid index k, least significant bit first
  std::uint64_t size = 0;  ///< grid points: k ranges over 0 .. size-1
};

struct Encoding {
  Cnf cnf;                        ///< projection = every input bit
  std::string query;              ///< what the models of cnf are, in words
  std::string arithmetic;         ///< "exact", or the fixed point used and its error bound
  bool exact = true;              ///< false: `ambiguous` may hold on some inputs
  Var ambiguous = 0;              ///< literal of the inputs where the fixed-point label may
                                  ///< differ from the model's (0 when exact)
  std::vector<InputBits> inputs;  ///< per scalar input of the spec
  std::size_t n_input_bits = 0;
};

/// The grid indices of an input given as the values of the projected variables, in projection
/// order (as enumerate_projected reports them).
std::vector<std::uint64_t> decode_inputs(const Encoding& e, const std::vector<bool>& projected);

}  // namespace assay::count
