// The exact counter's preprocessing pass: it turns a Cnf into a smaller Formula with the same
// projected model count (up to the factor 2^free_projected that it records).
//
// Steps, repeated until nothing changes (each preserves the projected count):
// - unit propagation (a variable fixed by the formula counts once);
// - equivalent literals: the strongly connected components of the binary implication graph are
//   merged into one representative, a projected variable when the component holds one (the
//   others are functions of it, so counting it alone gives the same count); l and -l in one
//   component means unsatisfiable;
// - subsumption and self-subsuming resolution (within a work budget);
// - pure literals of unprojected variables (setting them satisfies clauses and never removes a
//   projected assignment's extension; pure projected variables must stay, they count twice).
// Finally every variable in no clause is dropped: a projected one multiplies the count by 2.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "assay/count/cnf.hpp"
#include "count/exact/literals.hpp"

namespace assay::count::exact {

struct PreprocessStats {
  std::uint64_t units = 0;         ///< variables fixed by unit propagation
  std::uint64_t equivalences = 0;  ///< variables replaced by an equivalent literal
  std::uint64_t subsumed = 0;      ///< clauses removed by subsumption
  std::uint64_t strengthened = 0;  ///< literals removed by self-subsuming resolution
  std::uint64_t pure = 0;          ///< unprojected variables set by the pure-literal rule
};

/// Simplifies `cnf` (no XOR constraints; literals in range) counting the variables flagged in
/// `projected` (indexed by DIMACS variable, size n_vars + 1). With `simplify` false only
/// normalises (duplicates, tautologies, variables in no clause). Past `deadline` (or on Ctrl-C)
/// the simplification stops after its current step (each step keeps the count; on 10^6 clauses
/// the rounds take tens of seconds).
Formula preprocess(const Cnf& cnf, const std::vector<std::uint8_t>& projected, bool simplify,
                   PreprocessStats* stats = nullptr,
                   std::optional<std::chrono::steady_clock::time_point> deadline = {});

}  // namespace assay::count::exact
