// Counting a CNF formula that a user brings (a DIMACS file from QuantifyML, CBMC, or `assay
// encode`): `assay count --cnf F.cnf` and Python's assay.count.count_cnf.
//
// Example:
//   Cnf f = read_dimacs_file("tp.cnf");
//   CnfCountParams p;                  // auto: exact within 60 s, then approximate
//   CnfCountResult r = count_cnf(f, p);
//   r.guarantee.exact;                 // true here; r.guarantee says exact, bounded [lower,
//                                      // upper], or approximate (epsilon, delta, seed)
#pragma once

#include <cstdint>
#include <string>

#include <gmpxx.h>

#include "assay/count/cnf.hpp"
#include "assay/count/counting.hpp"

namespace assay::count {

struct CnfCountParams {
  /// "auto" (exact within time_limit, default 60 s, then approximate within time_limit again),
  /// "exact-cnf" or "approx".
  std::string method = "auto";
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

/// Counts the projected models of `f` (every variable when it has no projection).
CnfCountResult count_cnf(const Cnf& f, const CnfCountParams& params = {});

}  // namespace assay::count
