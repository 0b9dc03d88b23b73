// Methods exact-cnf and approx of count(): QuantifyML's route, each count a CNF formula.
#pragma once

#include <array>
#include <cstdint>

#include <gmpxx.h>

#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"
#include "checks.hpp"
#include "stage_counts.hpp"

namespace assay::count::detail {

enum class CnfBackend {
  exact,             ///< the exact projected counter; bounds when the time limit stops it
  approx,            ///< ApproxMC
  exact_then_approx  ///< exact within the time limit, ApproxMC for a count that runs out
};

/// A count known exactly (lo == hi), approximately (approx), or within certified bounds.
struct Value {
  mpz_class lo, hi;
  bool approx = false;
  bool exact() const { return !approx && lo == hi; }
};

/// v with both ends moved into [0, size] (a count of points of a set of `size` points).
Value within(Value v, const mpz_class& size);

/// TP, FP, TN, FN of a label over a domain of n points, from certified bounds of #psi (its
/// truth), #phi (the model predicts it) and #(psi and phi): every cell in [0, n], as tight as
/// those bounds allow, and together consistent with a partition of the domain. With an
/// estimate among them, the cells are the differences, kept within [0, n].
std::array<Value, 4> label_cells(const Value& psi, const Value& phi, const Value& tp,
                                 const mpz_class& n);

/// What the CNF route needs of count()'s parameters (count_params.hpp documents each).
struct CnfRouteParams {
  CnfBackend backend = CnfBackend::exact;
  double time_limit = 0.0;  ///< per counter run (0 = none)
  double epsilon = 0.8;     ///< approx
  double delta = 0.2;       ///< approx
  std::uint64_t seed = 0;   ///< approx's hashes
  int threads = 0;
  std::uint64_t ambiguity_limit = 100000;
  int fraction_bits = 0;  ///< the encoding's fixed point (encoding.hpp's EncodeParams)
  int weight_bits = 12;
  int activation_bits = 12;
};

/// The truths', safety properties' and regions' counts (with their guarantees) of CNF
/// encodings counted with `params.backend`; cnf_counts and ambiguous say the work done.
StageCounts cnf_counts(const Model& m, const Spec& spec, const Checks& c,
                       const CnfRouteParams& params);

}  // namespace assay::count::detail
