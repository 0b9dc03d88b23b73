// Approximate projected model counting with an (epsilon, delta) guarantee: the ApproxMC
// algorithm (Chakraborty, Meel, Vardi; Soos and Meel), reimplemented on Debian's CryptoMiniSat.
//
//   Cnf f = read_dimacs_file("net_unsafe.cnf");
//   ApproxCountParams p;                     // epsilon 0.8, delta 0.2 (ApproxMC's defaults)
//   p.seed = 1;
//   ApproxCountResult r = count_approx(f, p);
//   // r.exact: the formula has at most `threshold` models, counted exactly;
//   // otherwise Pr[count/(1+eps) <= r.estimate <= count*(1+eps)] >= 1 - delta.
//
// The algorithm:
// - threshold = 1 + 9.84 (1 + eps/(1+eps)) (1 + 1/eps)^2 (72 for eps = 0.8);
// - if the formula has at most `threshold` projected models (bounded enumeration with blocking
//   clauses over the projection), that number is returned and marked exact;
// - otherwise t measurements (t from delta, ApproxMC6's table: 3 for delta = 0.2), each with
//   its own random hash: m XOR constraints over the projection (each variable in with probability
//   1/2, random parity), switched on in prefixes h_1..h_m by assumption literals; the number of
//   hashes m is found by galloping (1, 2, 4, ...) then binary search for the smallest m whose cell
//   has fewer than `threshold` solutions (starting next to the previous measurement's m); the
//   measurement is cell_count * 2^m;
// - the estimate is the median of the t measurements.
// Every random choice comes from Rng(seed).split(measurement): the same seed gives the same
// estimate with any number of threads (measurements run in parallel, one solver each).
// Requires: a well-formed Cnf. Native XORs are given to CryptoMiniSat as XORs.
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
  bool complete = false;  ///< false: stopped by the time limit (estimate meaningless)
  bool exact = false;     ///< the count is exact (at most `threshold` models)
  mpz_class estimate;     ///< the count (exact) or the median estimate
  double epsilon = 0.8;
  double delta = 0.2;
  std::uint64_t seed = 0;
  std::uint32_t threshold = 0;
  std::uint32_t measurements = 0;     ///< t
  std::vector<mpz_class> measured;    ///< each measurement cell_count * 2^m, in order
  std::vector<std::uint32_t> hashes;  ///< m per measurement
  std::int32_t n_projected = 0;
  std::uint64_t sat_calls = 0;
  double seconds = 0.0;
};

/// Counts the projected models of `cnf` within (1 + epsilon) with probability 1 - delta.
ApproxCountResult count_approx(const Cnf& cnf, const ApproxCountParams& params = {});

/// Enumerates distinct projected models (assignments of the projection, as a vector of
/// n_projected booleans in projection order) until `limit` are found or none is left; calls
/// `visit` for each. Returns the number found (== limit means "at least limit").
std::uint64_t enumerate_projected(const Cnf& cnf, std::uint64_t limit,
                                  const std::function<void(const std::vector<bool>&)>& visit);

}  // namespace assay::count
