// Exact projected model counting of a CNF formula (own code; counts with GMP).
//
// Example:
//   Cnf f = read_dimacs_file("tree_tp.cnf");
//   ExactCountParams p;
//   p.time_limit = 60;                     // seconds; 0 = no limit
//   ExactCountResult r = count_exact(f, p);
//   if (r.complete) use(r.count);          // exact
//   else use(r.lower, r.upper);            // the time ran out: certified bounds
//
// A DPLL search with component caching in the style of sharpSAT / GANAK, or, on circuits with
// few inputs (every unprojected variable a gate over the projected ones), an evaluation of the
// gates on every input assignment, 64 at a time (how both work: the comment at count_exact in
// src/count/exact_counter.cpp). Time limit: checked every 1024 search steps and after large
// splits (every 2048 words of the circuit route), between preprocessing steps and before the
// search is loaded; when it stops, the bounds count what was finished and every assignment of
// the rest. Ctrl-C (interrupt_requested()) and a full component stack (stack_bytes) stop it the
// same way. A component of one clause is counted in closed form. Native XOR constraints are
// expanded into clauses first. The memory of the working copies is checked before they are made
// (an assay::Error naming the formula's size).
// Requires: a well-formed Cnf (variables in 1..n_vars, projection sorted and distinct).
// Ensures: complete => lower == count == upper, the projected model count; otherwise
//   0 <= lower <= true count <= upper <= 2^n_projected. Deterministic: the same formula gives
//   the same search.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gmpxx.h>

#include "assay/count/cnf.hpp"

namespace assay::count {

struct ExactCountParams {
  /// Wall-clock limit in seconds (0 = none). On expiry the result has complete = false.
  double time_limit = 0.0;
  /// Memory for the component cache in MiB; the oldest entries are evicted beyond it.
  std::size_t cache_mib = 2048;
  /// Memory for the search's stack of open components in bytes (0 = a quarter of what the
  /// process can allocate when the count starts, at most 4 GiB). Beyond it the search stops
  /// with certified bounds, as at the time limit (stopped_by names the memory).
  std::size_t stack_bytes = 0;
  /// Components with at least this many open clauses and no projected variable go to CaDiCaL
  /// for their satisfiability check; smaller ones are searched in place (0 = always in place).
  std::size_t sat_oracle_clauses = 2000;
  /// Components with at most this many projected variables and at least
  /// enumerate_clauses_per_projected open clauses per projected variable (typically circuits:
  /// inputs projected, gates determined) are counted by branching on their projected variables
  /// without decomposing or caching below them (0 = never).
  std::uint32_t enumerate_projected = 12;
  /// See enumerate_projected.
  std::uint32_t enumerate_clauses_per_projected = 64;
  /// Progress task name on the installed sink ("" = none).
  std::string progress_task = "count: exact";
  /// Run the preprocessing pass (false: only normalise clauses; for tests of the search).
  bool preprocess = true;
  /// The circuit route: when every unprojected variable that occurs in a clause is a
  /// recognised gate over the projected ones (at least one gate: clauses alone are searched)
  /// and at most this many projected variables occur in clauses (at most 62), the count
  /// evaluates the gates on every projected assignment, 64 per machine word, instead of
  /// searching (0 = never).
  std::uint32_t circuit_projected = 30;
  /// Worker threads of the circuit route (0 = all cores); the count does not depend on it.
  int threads = 0;
};

struct ExactCountStats {
  std::uint64_t decisions = 0;
  std::uint64_t conflicts = 0;
  std::uint64_t learned_clauses = 0;
  std::uint64_t components = 0;  ///< components counted (not from the cache)
  std::uint64_t cache_hits = 0;
  std::uint64_t cache_entries = 0;    ///< at the end
  std::uint64_t cache_evictions = 0;  ///< entries evicted to stay within cache_mib
  std::uint64_t sat_checks = 0;       ///< components without projected variables
  std::uint64_t pure_literals = 0;    ///< unprojected variables set by the pure-literal rule
  std::int32_t vars_after_preprocessing = 0;
  std::uint64_t clauses_after_preprocessing = 0;
  bool circuit = false;                   ///< the circuit route counted (no search ran)
  std::uint64_t circuit_gates = 0;        ///< gate definitions it recognised
  std::uint64_t circuit_constraints = 0;  ///< clauses left as constraints
  std::uint64_t circuit_words = 0;        ///< words of 64 assignments it evaluated
};

struct ExactCountResult {
  bool complete = false;  ///< false: the time limit (or Ctrl-C) stopped the search
  mpz_class count;        ///< the projected model count (when complete; else = lower)
  mpz_class lower;        ///< models counted so far
  /// lower + every assignment of the unexplored branches, at most 2^n_projected
  mpz_class upper;
  /// why !complete: "the time limit", "an interrupt (Ctrl-C)" or "the memory limit (...)"
  std::string stopped_by;
  std::int32_t n_projected = 0;
  double seconds = 0.0;
  ExactCountStats stats;
};

/// Counts the projected models of `cnf` exactly (see the header comment).
ExactCountResult count_exact(const Cnf& cnf, const ExactCountParams& params = {});

/// How far enumerate_circuit_models got.
struct CircuitModels {
  bool circuit = false;      ///< the circuit route applies (otherwise nothing was visited)
  std::uint64_t found = 0;   ///< projected models visited (== limit: at least limit)
  bool interrupted = false;  ///< the time limit stopped it first
};

/// When the circuit route applies to `cnf` (see ExactCountParams::circuit_projected), visits its
/// projected models (n_projected booleans in projection order, as enumerate_projected gives
/// them) until `limit` are found, none is left or params.time_limit passes, by evaluating the
/// circuit (one thread); otherwise returns circuit = false at once. For settling ambiguous
/// inputs, where a SAT solver with blocking clauses takes ~30 ms per model of a network circuit.
CircuitModels enumerate_circuit_models(const Cnf& cnf, std::uint64_t limit,
                                       const std::function<void(const std::vector<bool>&)>& visit,
                                       const ExactCountParams& params = {});

}  // namespace assay::count
