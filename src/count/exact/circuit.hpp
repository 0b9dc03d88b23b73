// The exact counter's circuit route: a CNF whose unprojected variables are all Tseitin gates
// over the projected ones is counted by evaluating the gates on every projected assignment, 64
// assignments per machine word (see count_exact in src/count/exact_counter.cpp for when it runs).
//
//   std::optional<exact::Circuit> c = exact::recognise_circuit(cnf, projected, 30);
//   if (c) {
//     exact::CircuitLimits limits;             // deadline, threads, progress task
//     exact::CircuitCount n = exact::count_circuit(*c, limits);
//   }
//
// Recognition finds definitions v <=> AND(l1..lk) (k >= 1: equivalences v <=> l, and OR as AND
// with negated literals and output), v <=> XOR(a, b), v <=> ITE(c, a, b) (4 clauses, plus the
// two redundant ones CnfBuilder adds) and v <=> MAJ(a, b, c) (6 clauses), and constants from
// unit clauses, for unprojected variables only, one per variable, accepted in topological order
// from the projected variables (so they are acyclic). The clauses of an accepted definition are
// consumed; every other clause is a constraint. Since each accepted definition's clauses are
// equivalent to the definition, every projected assignment extends in exactly one way to the
// defined variables, and it is a projected model iff the constraints hold under that extension.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gmpxx.h>

#include "assay/count/cnf.hpp"

namespace assay::count::exact {

/// A signal of the evaluated circuit: 2 * slot + negated. Slots 0..n_inputs-1 are the
/// projected variables (in evaluation position order), slot n_inputs + i is gate i's output.
using Signal = std::uint32_t;

inline constexpr std::uint32_t kFreeInput = 0xFFFFFFFFu;

enum class GateKind : std::uint8_t { constant, and_n, xor2, ite, maj3 };

struct CircuitGate {
  GateKind kind = GateKind::constant;
  bool negate = false;      ///< the slot holds the negation of the function (OR, XOR's parity)
  std::uint32_t first = 0;  ///< its input signals: Circuit::inputs[first, first + n)
  std::uint32_t n = 0;      ///< and_n: k >= 1; xor2: 2; ite: 3 (c, a, b); maj3: 3; constant: 0
  std::uint32_t level = 0;  ///< see Circuit::clause_level
};

struct Circuit {
  std::uint32_t n_inputs = 0;  ///< projected variables that occur in a clause
  /// Projected variables that occur in no clause (a factor 2 each).
  std::uint32_t free_inputs = 0;
  /// Gates in evaluation order: by level, highest first, then topologically.
  std::vector<CircuitGate> gates;
  std::vector<Signal> inputs;
  /// Constraint clauses (every clause no definition consumed), by level, highest first.
  std::vector<Signal> literals;
  std::vector<std::uint32_t> starts{0};
  std::vector<std::uint32_t> clause_level;
  /// The level of a gate or clause is the lowest input position >= 6 it depends on (positions
  /// 0..5 vary inside a word), or n_inputs when it depends on none: from one word to the next
  /// only those with a level up to 6 + (trailing zeros of the word index) change.
  /// Per projected variable (in increasing variable order): its input position, or kFreeInput
  /// when it occurs in no clause.
  std::vector<std::uint32_t> projected_position;
  // recognised definitions, for the statistics
  std::uint64_t n_and = 0, n_xor = 0, n_ite = 0, n_maj = 0, n_constant = 0;

  std::size_t n_clauses() const { return starts.size() - 1; }
};

/// The circuit of `cnf` (XORs expanded; `projected` indexed by variable, 1-based), or nothing when
/// some unprojected variable that occurs in a clause has no acyclic definition, no gate other
/// than a constant was found (clauses alone), or more than `max_inputs` projected variables
/// occur in clauses.
std::optional<Circuit> recognise_circuit(const Cnf& cnf, const std::vector<std::uint8_t>& projected,
                                         std::uint32_t max_inputs);

struct CircuitLimits {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  int threads = 0;  ///< 0 = all cores; the count does not depend on it
  std::string progress_task;
};

struct CircuitCount {
  bool complete = false;
  mpz_class lower, upper;   ///< equal when complete; include the free inputs' factor
  std::uint64_t words = 0;  ///< words (64 assignments each) evaluated
};

/// Counts the assignments of the circuit's inputs under which every constraint holds.
CircuitCount count_circuit(const Circuit& circuit, const CircuitLimits& limits);

struct CircuitEnumeration {
  std::uint64_t found = 0;   ///< models visited (== limit: at least limit)
  bool interrupted = false;  ///< the deadline stopped it first
};

/// Visits the projected models (values of the projected variables in increasing variable order,
/// free ones included) until `limit` are found, none is left or the deadline passes (checked
/// every 2048 words). One thread; the order is the evaluation's, the same on every run.
CircuitEnumeration enumerate_circuit(const Circuit& circuit, std::uint64_t limit,
                                     const std::function<void(const std::vector<bool>&)>& visit,
                                     const CircuitLimits& limits);

}  // namespace assay::count::exact
