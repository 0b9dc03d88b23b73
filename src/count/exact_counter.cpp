#include "assay/count/exact_counter.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "count/exact/circuit.hpp"
#include "count/exact/counter.hpp"
#include "count/exact/preprocess.hpp"

namespace assay::count {
namespace {

void check_input(const Cnf& cnf, const ExactCountParams& params) {
  if (!(params.time_limit >= 0.0) || std::isinf(params.time_limit)) {
    fail("count_exact: expected a time limit >= 0 seconds (0 = none), found {}", params.time_limit);
  }
  if (params.circuit_projected > 62) {
    fail("count_exact: expected circuit_projected in 0..62, found {}", params.circuit_projected);
  }
  if (params.threads < 0) fail("count_exact: expected threads >= 0, found {}", params.threads);
  if (cnf.n_vars < 0) fail("count_exact: expected n_vars >= 0, found {}", cnf.n_vars);
  if (cnf.starts.empty() || cnf.starts.back() != cnf.literals.size()) {
    fail("count_exact: malformed Cnf: clause starts end at {}, expected {} literals",
         cnf.starts.empty() ? 0 : cnf.starts.back(), cnf.literals.size());
  }
  for (std::size_t i = 0; i < cnf.n_clauses(); ++i) {
    for (const Var l : cnf.clause(i)) {
      if (l == 0 || l < -cnf.n_vars || l > cnf.n_vars) {
        fail("count_exact: clause {} holds literal {}, expected a variable in 1..{}", i + 1, l,
             cnf.n_vars);
      }
    }
  }
  for (const auto& x : cnf.xors) {
    for (const Var v : x.vars) {
      if (v < 1 || v > cnf.n_vars) {
        fail("count_exact: an XOR constraint holds variable {}, expected 1..{}", v, cnf.n_vars);
      }
    }
  }
  if (!cnf.has_projection) return;
  for (std::size_t i = 0; i < cnf.projection.size(); ++i) {
    const Var v = cnf.projection[i];
    if (v < 1 || v > cnf.n_vars) {
      fail("count_exact: the projection holds variable {}, expected 1..{}", v, cnf.n_vars);
    }
    if (i > 0 && v <= cnf.projection[i - 1]) {
      fail("count_exact: expected a sorted projection without repeats, found {} after {}", v,
           cnf.projection[i - 1]);
    }
  }
}

// The bounds of a stopped count lie in [0, 2^n_projected]: no count can leave that range, so a
// looser bound says nothing.
void clip_bounds(ExactCountResult& r) {
  mpz_class all;
  mpz_ui_pow_ui(all.get_mpz_t(), 2, static_cast<unsigned long>(r.n_projected));
  if (r.upper > all) r.upper = all;
  if (r.lower < 0) r.lower = 0;
}

void count_by_circuit(const exact::Circuit& circuit, const ExactCountParams& params,
                      std::optional<exact::Clock::time_point> deadline, ExactCountResult& result) {
  exact::CircuitLimits limits;
  limits.deadline = deadline;
  limits.threads = params.threads;
  limits.progress_task = params.progress_task;
  const exact::CircuitCount n = exact::count_circuit(circuit, limits);
  result.complete = n.complete;
  result.lower = n.lower;
  result.upper = n.upper;
  result.stats.circuit = true;
  result.stats.circuit_gates = circuit.gates.size();
  result.stats.circuit_constraints = circuit.n_clauses();
  result.stats.circuit_words = n.words;
}

std::size_t stack_entries(const ExactCountParams& params) {
  constexpr std::size_t kMostEntries = std::size_t{1} << 30;  // 4 GiB; offsets are 32-bit
  const std::size_t bytes = params.stack_bytes > 0 ? params.stack_bytes : allocatable_bytes() / 4;
  return std::min(kMostEntries, bytes / sizeof(std::uint32_t));
}

void count_by_search(const Cnf& input, const std::vector<std::uint8_t>& projected,
                     const ExactCountParams& params,
                     std::optional<exact::Clock::time_point> deadline, ExactCountResult& result) {
  const exact::Formula formula =
      exact::preprocess(input, projected, params.preprocess, nullptr, deadline);
  result.stats.vars_after_preprocessing = static_cast<std::int32_t>(formula.n_vars);
  result.stats.clauses_after_preprocessing = formula.n_clauses();
  if (formula.unsat) {
    result.complete = true;
    return;
  }
  // Loading a formula of 10^6 clauses into the search takes seconds: not after the limit.
  if ((deadline && exact::Clock::now() >= *deadline) || interrupt_requested()) {
    result.lower = 0;
    mpz_ui_pow_ui(result.upper.get_mpz_t(), 2, static_cast<unsigned long>(result.n_projected));
    return;
  }
  exact::SearchLimits limits;
  limits.deadline = deadline;
  limits.cache_bytes = params.cache_mib << 20;
  limits.stack_entries = stack_entries(params);
  limits.sat_oracle_clauses = params.sat_oracle_clauses;
  limits.progress_task = params.progress_task;
  limits.enumerate_projected = params.enumerate_projected;
  limits.enumerate_clauses_per_projected = params.enumerate_clauses_per_projected;
  exact::Counter counter(formula, limits);
  counter.run();
  counter.add_stats(result.stats);
  result.complete = counter.complete();
  if (counter.out_of_memory()) {
    result.stopped_by =
        fmt::format("the memory limit (the search's stack of open components outgrew {:.3g} MB)",
                    static_cast<double>(limits.stack_entries * sizeof(std::uint32_t)) / 1e6);
  }
  const auto free = static_cast<mp_bitcnt_t>(formula.free_projected);
  mpz_mul_2exp(result.lower.get_mpz_t(), counter.lower().get_mpz_t(), free);
  mpz_mul_2exp(result.upper.get_mpz_t(), counter.upper().get_mpz_t(), free);
}

}  // namespace

// How count_exact counts (moved here from the public header, which says what the caller gets):
// First the circuit route (src/count/exact/circuit.hpp), when it applies:
// - gate recognition on the clauses (after XOR expansion, without preprocessing): definitions
//   v <=> AND(l1..lk) (k >= 1, so also v <=> l; OR is AND with negated inputs and output:
//   CnfBuilder's and2, and_n, or_n), v <=> XOR(a, b) (its 4 clauses; also expand_xors' chain),
//   v <=> ITE(c, a, b) (4 clauses, plus the 2 redundant ones CnfBuilder adds) and
//   v <=> MAJ(a, b, c) (6 clauses), and constants from unit clauses; only for unprojected
//   variables, at most one each, accepted in topological order from the projected variables
//   (so acyclic); a unit clause defines a constant only where no gate does;
// - it applies when every unprojected variable that occurs in a clause got a definition, at
//   least one of them is a gate (not a constant: clauses alone decompose, and the search counts
//   them faster) and at most circuit_projected projected variables occur in clauses; otherwise
//   the search below runs unchanged;
// - it is exact: each definition's clauses are equivalent to it, so every projected assignment
//   has exactly one extension to the gates satisfying them, and it is a projected model iff the
//   other clauses (the constraints) hold there; unprojected variables in no clause do not count
//   and projected ones count twice;
// - counting: 64 assignments per word (the 6 inputs with the largest cones vary inside a
//   word), the gates evaluated in topological order, the constraints ANDed, popcount, summed;
//   from one word to the next only the gates and clauses that depend on a flipped input are
//   evaluated again; the words split into fixed chunks of 2048 (threads, time limit and
//   progress per chunk), so the count is the same at any thread count; on expiry the bounds
//   are the models of the evaluated chunks and that plus every assignment of the others.
// Otherwise the counter is a DPLL search in the style of sharpSAT / GANAK:
// - preprocessing: unit propagation, failed literals are left to the search, pure literals of
//   unprojected variables, equivalent literals (a <=> b from binary clauses, substituted; of
//   two projected ones one stays counted), subsumption and self-subsuming resolution; a
//   variable that occurs in no clause is free (factor 2 when projected);
// - unit propagation on two watched literals; conflicts learn a first-UIP clause (implied by the
//   formula, so the models are unchanged) and the search backtracks chronologically; clauses
//   of more than 64 literals are not kept (in circuits they cut one input assignment's gates);
// - the unassigned variables of the not-yet-satisfied original clauses split into connected
//   components, counted separately (the count of a branch is the product of its components'
//   counts times 2^(projected variables that occur in no open clause));
// - a component cache keyed by the component's variables and clause ids (valid only for the
//   formula being counted; entries made under a branch whose count turned out 0 are dropped,
//   since learned clauses may then have pruned models that another context would keep);
// - projection-aware branching: projected variables first (by occurrences in the component and
//   conflict activity); a component with no projected variable left contributes 1 if it is
//   satisfiable and 0 otherwise (a search for one model, or CaDiCaL on large components);
// - enumeration: a component with few projected variables and many clauses per projected
//   variable (a circuit: inputs projected, gates determined by them) rarely splits and its
//   residuals rarely repeat, so its projected variables are branched on without decomposing
//   or caching below it; once they are all set, what is left is split as usual (components
//   without projected variables; usually nothing: propagation has set every gate);
// - during the search, an unprojected variable that occurs in one polarity only in its
//   component's open clauses is set that way (the pure-literal rule: it keeps every projected
//   model, and it splits formulas such as "some auxiliary t holds" as soon as one t is free);
// - the time limit is checked every 1024 steps (and inside CaDiCaL); the bounds then count what
//   the finished components contributed and every assignment of the unfinished ones;
// - native XOR constraints are expanded into clauses first (expand_xors).
namespace {

// The formula the counter works on: XORs expanded into clauses, and the projected flags.
struct Prepared {
  Cnf expanded;
  const Cnf* cnf = nullptr;
  std::vector<std::uint8_t> projected;  // by DIMACS variable
  std::optional<exact::Clock::time_point> deadline;
};

void prepare(const Cnf& cnf, const ExactCountParams& params, exact::Clock::time_point start,
             Prepared& out) {
  check_input(cnf, params);
  out.cnf = &cnf;
  if (!cnf.xors.empty()) {
    out.expanded = cnf;
    expand_xors(out.expanded);
    out.cnf = &out.expanded;
  }
  out.projected.assign(static_cast<std::size_t>(out.cnf->n_vars) + 1, 0);
  if (out.cnf->has_projection) {
    for (const Var v : out.cnf->projection) out.projected[static_cast<std::size_t>(v)] = 1;
  } else {
    std::fill(out.projected.begin() + 1, out.projected.end(), 1);
  }
  if (params.time_limit > 0) {
    out.deadline = start + std::chrono::duration_cast<exact::Clock::duration>(
                               std::chrono::duration<double>(params.time_limit));
  }
}

}  // namespace

// Refuses, before copying it, a formula whose working copies cannot fit: preprocessing, the
// search's clause arena, occurrence and watch lists take about 64 bytes per literal and 320 per
// variable (measured: 10^6 clauses of 3 literals over 2 * 10^5 variables, 0.3 GB).
void check_exact_memory(const Cnf& cnf) {
  std::size_t literals = cnf.literals.size();
  for (const auto& x : cnf.xors) literals += 4 * x.vars.size() * 3;  // expanded: 4 clauses per var
  const std::size_t bytes = 64 * literals + 320 * static_cast<std::size_t>(cnf.n_vars);
  check_memory(bytes, fmt::format("the exact counter's working copies of the formula ({} "
                                  "literals over {} variables)",
                                  literals, cnf.n_vars));
}

ExactCountResult count_exact(const Cnf& cnf, const ExactCountParams& params) {
  const auto start = exact::Clock::now();
  check_exact_memory(cnf);
  Prepared in;
  prepare(cnf, params, start, in);
  ExactCountResult result;
  result.n_projected = in.cnf->has_projection ? static_cast<std::int32_t>(in.cnf->projection.size())
                                              : in.cnf->n_vars;
  if (const auto circuit =
          exact::recognise_circuit(*in.cnf, in.projected, params.circuit_projected)) {
    count_by_circuit(*circuit, params, in.deadline, result);
  } else {
    count_by_search(*in.cnf, in.projected, params, in.deadline, result);
  }
  if (!result.complete) {
    if (result.stopped_by.empty()) {
      result.stopped_by = interrupt_requested() ? "an interrupt (Ctrl-C)" : "the time limit";
    }
    clip_bounds(result);
  }
  result.count = result.lower;
  result.seconds = std::chrono::duration<double>(exact::Clock::now() - start).count();
  return result;
}

CircuitModels enumerate_circuit_models(const Cnf& cnf, std::uint64_t limit,
                                       const std::function<void(const std::vector<bool>&)>& visit,
                                       const ExactCountParams& params) {
  Prepared in;
  prepare(cnf, params, exact::Clock::now(), in);
  CircuitModels out;
  const auto circuit = exact::recognise_circuit(*in.cnf, in.projected, params.circuit_projected);
  if (!circuit) return out;
  exact::CircuitLimits limits;
  limits.deadline = in.deadline;
  const exact::CircuitEnumeration e = exact::enumerate_circuit(*circuit, limit, visit, limits);
  out.circuit = true;
  out.found = e.found;
  out.interrupted = e.interrupted;
  return out;
}

}  // namespace assay::count
