#include "count/projected_solver.hpp"

#include <bit>
#include <chrono>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"

namespace assay::count::detail {

using CMSat::lbool;
using CMSat::Lit;

bool parity(const ProjectedBits& mask, const ProjectedBits& model) {
  std::uint64_t acc = 0;
  for (std::size_t w = 0; w < mask.size(); ++w) acc ^= mask[w] & model[w];
  return std::popcount(acc) & 1;
}

namespace {

void check_var(Var v, std::int32_t n_vars, const char* where, std::size_t index) {
  if (v == 0 || v > n_vars || v < -n_vars)
    fail("Cnf: expected variables in 1..{} in {} {}, found {}", n_vars, where, index + 1, v);
}

}  // namespace

void check_well_formed(const Cnf& cnf) {
  if (cnf.n_vars < 0) fail("Cnf: expected n_vars >= 0, found {}", cnf.n_vars);
  if (cnf.starts.empty() || cnf.starts.front() != 0 || cnf.starts.back() != cnf.literals.size())
    fail("Cnf: clause starts do not cover the {} literals", cnf.literals.size());
  for (std::size_t i = 0; i < cnf.n_clauses(); ++i)
    for (const Var l : cnf.clause(i)) check_var(l, cnf.n_vars, "clause", i);
  for (std::size_t i = 0; i < cnf.xors.size(); ++i)
    for (const Var v : cnf.xors[i].vars) {
      if (v < 0) fail("Cnf: expected positive variables in XOR {}, found {}", i + 1, v);
      check_var(v, cnf.n_vars, "XOR", i);
    }
  if (!cnf.has_projection) return;
  for (std::size_t i = 0; i < cnf.projection.size(); ++i) {
    const Var v = cnf.projection[i];
    if (v <= 0 || v > cnf.n_vars)
      fail("Cnf: expected projected variables in 1..{}, found {}", cnf.n_vars, v);
    if (i > 0 && v <= cnf.projection[i - 1])
      fail("Cnf: expected a sorted projection without repeats, found {} after {}", v,
           cnf.projection[i - 1]);
  }
}

// ---- SolverDeadline

SolverDeadline::SolverDeadline(double seconds) {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (seconds > 0) {
    deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(seconds));
  }
  watcher_ = std::thread([this, deadline] { watch(deadline); });
}

SolverDeadline::~SolverDeadline() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

void SolverDeadline::watch(std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::unique_lock lock(mutex_);
  // Wakes every 20 ms to see whether Ctrl-C asked for a stop, or at once for stop().
  for (;;) {
    if (wake_.wait_for(lock, std::chrono::milliseconds(20),
                       [this] { return stopping_ || !reason_.empty(); })) {
      if (stopping_) return;
      break;  // stop(reason)
    }
    if (interrupt_requested()) {
      reason_ = "an interrupt (Ctrl-C)";
      break;
    }
    if (deadline && std::chrono::steady_clock::now() >= *deadline) {
      reason_ = "the time limit";
      break;
    }
  }
  expired_ = true;
  // A solve() that starts after this point clears its flag; raise them again until the end.
  do {
    for (std::atomic<bool>& flag : flags_) flag = true;
  } while (!wake_.wait_for(lock, std::chrono::milliseconds(5), [this] { return stopping_; }));
}

void SolverDeadline::stop(const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    if (reason_.empty()) reason_ = reason;
  }
  wake_.notify_all();
  while (!expired_.load()) std::this_thread::yield();  // the watcher takes it up at once
}

std::string SolverDeadline::reason() const {
  std::lock_guard lock(mutex_);
  return reason_;
}

std::atomic<bool>* SolverDeadline::new_flag() {
  std::lock_guard lock(mutex_);
  return &flags_.emplace_back(expired_.load());
}

// ---- ProjectedSolver

ProjectedSolver::ProjectedSolver(const Cnf& cnf, std::uint32_t solver_seed,
                                 SolverDeadline* deadline)
    : solver_(
          std::make_unique<CMSat::SATSolver>(nullptr, deadline ? deadline->new_flag() : nullptr)),
      deadline_(deadline) {
  // Gaussian elimination on the XORs during the search, as ApproxMC does. ApproxMC also applies
  // CryptoMiniSat's "scalmc" tuning (set_up_for_scalmc); with CryptoMiniSat 5.11 that made our
  // bounded counts 2-2.5x slower on XOR-heavy formulas, with the same counts, so it is left out.
  solver_->set_allow_otf_gauss();
  solver_->set_seed(solver_seed);
  // With phase saving, the search for the next model of a bounded enumeration retraces the last
  // one, and every step moves a watch of its blocking clause (one literal per projected
  // variable) by a scan from the clause's start: time quadratic in the projection, inside
  // CryptoMiniSat's propagation, where the time limit is not checked (10^5 projected variables:
  // 10 s per SAT call; 10^6: about 20 min). Random polarities leave the blocked model at once.
  // Small projections keep the default (the measured (epsilon, delta) behaviour is with it).
  if (cnf.projected().size() > kRandomPolarityAbove) {
    solver_->set_polarity_mode(CMSat::PolarityMode::polarmode_rnd);
  }
  for (const Var v : cnf.projected()) projection_.push_back(static_cast<std::uint32_t>(v - 1));
  // Before any variable exists: the simplifier sizes its per-variable data by it.
  solver_->set_sampling_vars(&projection_);
  load(cnf);
}

ProjectedSolver::~ProjectedSolver() = default;

void ProjectedSolver::load(const Cnf& cnf) {
  solver_->new_vars(static_cast<std::size_t>(cnf.n_vars));
  std::vector<Lit> clause;
  for (std::size_t i = 0; i < cnf.n_clauses(); ++i) {
    clause.clear();
    for (const Var l : cnf.clause(i))
      clause.push_back(Lit(static_cast<std::uint32_t>(std::abs(l) - 1), l < 0));
    solver_->add_clause(clause);
  }
  std::vector<unsigned> vars;
  for (const XorConstraint& x : cnf.xors) {
    if (x.vars.empty()) {
      if (x.rhs) solver_->add_clause({});  // 0 == 1: unsatisfiable
      continue;
    }
    vars.clear();
    for (const Var v : x.vars) vars.push_back(static_cast<unsigned>(v - 1));
    solver_->add_xor_clause(vars, x.rhs);
  }
}

std::uint32_t ProjectedSolver::add_switchable_xor(const ProjectedBits& mask, bool rhs) {
  std::vector<unsigned> vars;
  for (std::size_t i = 0; i < projection_.size(); ++i)
    if (bit_of(mask, i)) vars.push_back(projection_[i]);
  solver_->new_var();
  const std::uint32_t activation = solver_->nVars() - 1;
  // XOR(vars) ^ activation == rhs: with activation false the hash is in force; true frees it.
  vars.push_back(activation);
  solver_->add_xor_clause(vars, rhs);
  return activation;
}

ProjectedBits ProjectedSolver::projected_model() const {
  const std::vector<lbool>& model = solver_->get_model();
  ProjectedBits bits(n_words(), 0);
  for (std::size_t i = 0; i < projection_.size(); ++i) {
    const lbool value = model[projection_[i]];
    ASSAY_ASSERT(value != CMSat::l_Undef);
    if (value == CMSat::l_True) bits[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  return bits;
}

void ProjectedSolver::block(std::uint32_t guard, const ProjectedBits& model) {
  std::vector<Lit> clause;
  clause.reserve(projection_.size() + 1);
  clause.push_back(Lit(guard, false));
  for (std::size_t i = 0; i < projection_.size(); ++i)
    clause.push_back(Lit(projection_[i], bit_of(model, i)));
  solver_->add_clause(clause);
}

BoundedCount ProjectedSolver::count_up_to(const std::vector<Lit>& assumptions, std::uint64_t limit,
                                          std::span<const ProjectedBits* const> known,
                                          const std::function<void(const ProjectedBits&)>& found) {
  BoundedCount result;
  solver_->new_var();
  const std::uint32_t guard = solver_->nVars() - 1;
  std::vector<Lit> with_guard = assumptions;
  with_guard.push_back(Lit(guard, true));  // guard false: the blocking clauses are in force
  for (const ProjectedBits* model : known) {
    if (result.found >= limit) break;
    block(guard, *model);
    ++result.found;
  }
  while (result.found < limit) {
    // Polled here too: a front end's poll (Python's signal check) runs on the calling thread.
    if (deadline_ && !deadline_->expired() && interrupt_requested()) {
      deadline_->stop("an interrupt (Ctrl-C)");
    }
    if (deadline_ && deadline_->expired()) {
      result.interrupted = true;
      break;
    }
    ++sat_calls_;
    const lbool answer = solver_->solve(&with_guard, /*only_indep_solution=*/true);
    if (answer == CMSat::l_Undef) {
      result.interrupted = true;
      break;
    }
    if (answer == CMSat::l_False) break;
    const ProjectedBits model = projected_model();
    if (found) found(model);
    block(guard, model);
    ++result.found;
  }
  solver_->add_clause({Lit(guard, false)});  // switches the blocking clauses off for good
  return result;
}

}  // namespace assay::count::detail
