// Approximate projected model counting with an (epsilon, delta) guarantee: the ApproxMC
// algorithm (Chakraborty, Meel, Vardi; Soos and Meel), reimplemented on Debian's CryptoMiniSat.
//
// Example:
//   Cnf f = read_dimacs_file("net_unsafe.cnf");
//   ApproxCountParams p;                     // epsilon 0.8, delta 0.2 (ApproxMC's defaults)
//   p.seed = 1;
//   ApproxCountResult r = count_approx(f, p);
//   // r.exact: the formula has at most `threshold` models, counted exactly;
//   // otherwise Pr[count/(1+eps) <= r.estimate <= count*(1+eps)] >= 1 - delta.
//
// The algorithm is ApproxMC6 (Yang and Meel, CAV 2023): a formula with at most `threshold` models
// (72 for eps = 0.8) is counted exactly; otherwise the median of t hashed measurements (3 for
// eps = 0.8, delta = 0.2) is the estimate. The steps: the comment at count_approx in
// src/count/approx_counter.cpp.
// Every random choice comes from Rng(seed).split(measurement); a measurement's m depends only on
// its hashes (cells shrink as m grows), so the same seed gives the same result with any number
// of threads. Measurement 0 runs first; the others run in parallel, one CryptoMiniSat solver
// each (single-threaded, its seed derived from the same stream).
// Native XORs of the Cnf go to CryptoMiniSat as XORs (Gaussian elimination during the search).
// Requires: nothing; a Cnf with a variable out of range or an unsorted projection, epsilon <= 0
//   (or so small that a cell would hold over 2^24 models), delta outside (0, 1), threads < 0 or
//   time_limit < 0 is an assay::Error naming the value.
// Ensures: complete => (exact and estimate == the count) or the (eps, delta) guarantee above;
//   !complete => estimate == 0 (the time limit or Ctrl-C stopped it; no estimate is claimed);
//   always: lower <= the count (lower counts distinct models that were found).
// Cost: each cell enumerates up to threshold + 1 models (about 9.84 / eps^2 for a small eps),
//   one SAT call and one blocking clause over the projection each. The memory of the blocking
//   clauses is checked before the run (an assay::Error naming epsilon and threads when it does
//   not fit); the run stops at time_limit or on Ctrl-C (interrupt_requested()), and progress is
//   reported in units of those SAT calls, over an estimate of the cells the run will count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gmpxx.h>

#include "assay/count/cnf.hpp"

namespace assay::count {

struct ApproxCountParams {
  /// Tolerance: the estimate is within a factor (1 + epsilon) of the count...
  double epsilon = 0.8;
  /// ...with probability at least 1 - delta.
  double delta = 0.2;
  /// Seed of the hashes.
  std::uint64_t seed = 0;
  /// Measurements in parallel (0 = all cores); the result does not depend on it.
  int threads = 1;
  /// Wall-clock limit in seconds (0 = none); on expiry complete = false.
  double time_limit = 0.0;
  /// Progress task name on the installed sink ("" = none).
  std::string progress_task = "count: approximate";
};

struct ApproxCountResult {
  bool complete = false;  ///< false: stopped by the time limit or Ctrl-C (estimate 0)
  bool exact = false;     ///< the count is exact (at most `threshold` models)
  mpz_class estimate;     ///< the count (exact) or the rounded median estimate
  /// Certified lower bound of the count, also when !complete: the most distinct projected
  /// models one enumeration (the exact check, or one cell) found.
  mpz_class lower;
  std::string stopped_by;  ///< why !complete: "the time limit" or "an interrupt (Ctrl-C)"
  double epsilon = 0.8;
  double delta = 0.2;
  std::uint64_t seed = 0;
  std::uint32_t threshold = 0;
  std::uint32_t measurements = 0;     ///< t (also when exact, where none is run)
  std::vector<mpz_class> measured;    ///< cell * 2^m per measurement, in order, unrounded
  std::vector<std::uint32_t> hashes;  ///< m per measurement (both cut at the first unfinished)
  std::int32_t n_projected = 0;
  std::uint64_t sat_calls = 0;  ///< CryptoMiniSat solve() calls, all solvers together
  double seconds = 0.0;
};

/// Counts the projected models of `cnf` within (1 + epsilon) with probability 1 - delta.
ApproxCountResult count_approx(const Cnf& cnf, const ApproxCountParams& params = {});

/// What the result claims, for outputs: "exact", "approximate (epsilon 0.8, delta 0.2)" or
/// "none: stopped by the time limit (at least 73 models found)".
std::string guarantee(const ApproxCountResult& result);

/// How far an enumeration of projected models got.
struct ProjectedEnumeration {
  std::uint64_t found = 0;   ///< distinct projected models visited (== limit: at least limit)
  bool interrupted = false;  ///< the time limit stopped it first (found is a lower bound)
};

/// Enumerates distinct projected models (assignments of the projection, as a vector of
/// n_projected booleans in projection order) until `limit` are found, none is left or
/// `time_limit` seconds have passed (0 = none); calls `visit` (may be empty) for each. The order
/// is the solver's (the same on every run). A malformed Cnf is an assay::Error.
ProjectedEnumeration enumerate_projected(const Cnf& cnf, std::uint64_t limit,
                                         const std::function<void(const std::vector<bool>&)>& visit,
                                         double time_limit = 0.0);

}  // namespace assay::count
