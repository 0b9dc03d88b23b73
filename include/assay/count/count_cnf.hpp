// Counting a CNF formula that a user brings (a DIMACS file from QuantifyML, CBMC, or `assay
// encode`): `assay count --cnf F.cnf` and Python's assay.count.count_cnf.
//
// Example:
//   Cnf f;                                 // or read_dimacs_file("tp.cnf")
//   const Var a = f.new_var(), b = f.new_var();
//   f.add_clause({a, b});                  // a or b
//   CnfCountParams p;                      // auto: exact within 60 s, then approximate
//   p.method = parse_count_method("exact-cnf", kCnfCountMethods, "for a CNF file");
//   CnfCountResult r = count_cnf(f, p);    // r.count == 3; r.guarantee.exact
//   // r.guarantee says exact, bounded [lower, upper] or approximate (epsilon, delta, seed)
#pragma once

#include <cstdint>
#include <string>

#include <gmpxx.h>

#include "assay/count/cnf.hpp"
#include "assay/count/count_params.hpp"
#include "assay/count/count_result.hpp"

namespace assay::count {

struct CnfCountParams {
  /// auto (exact within time_limit, default 60 s, then approximate within time_limit again),
  /// exact_cnf or approx (kCnfCountMethods).
  CountMethod method = CountMethod::automatic;
  /// Wall-clock limit in seconds for each counter run (0 = none; auto's exact counter: 60).
  double time_limit = 0.0;
  /// approx: within a factor (1 + epsilon) with probability at least 1 - delta.
  double epsilon = 0.8;
  double delta = 0.2;
  /// approx: seed of the hashes.
  std::uint64_t seed = 0;
  /// approx: measurements in parallel (0 = all cores); the result does not depend on it.
  int threads = 0;
};

struct CnfCountResult {
  mpz_class count;      ///< exact count, estimate (approx) or lower bound (bounded)
  CountBounds bounds;   ///< when guarantee.bounded
  Guarantee guarantee;  ///< method "exact-cnf" or "approx", and what the count guarantees
  std::int32_t n_vars = 0;
  std::size_t n_clauses = 0;
  std::size_t n_xors = 0;
  std::size_t n_projected = 0;
  double seconds = 0.0;
};

/// The options of `params` that counting a CNF file shares with count(): method, time_limit,
/// epsilon, delta, seed and threads (the CLI's and Python's --cnf counts read them from there).
CnfCountParams cnf_count_params(const CountParams& params);

/// Counts the projected models of `f` (every variable when it has no projection).
CnfCountResult count_cnf(const Cnf& f, const CnfCountParams& params = {});

}  // namespace assay::count
