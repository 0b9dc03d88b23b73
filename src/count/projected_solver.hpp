// Private to count: a CryptoMiniSat instance loaded with a Cnf, that enumerates distinct
// assignments of the projection (the approximate counter's bounded solution counting), and a
// wall-clock deadline that interrupts running solvers.
//
//   SolverDeadline deadline(10.0);                       // seconds; 0 = none
//   ProjectedSolver s(cnf, /*solver_seed=*/1, &deadline);
//   const std::uint32_t h = s.add_switchable_xor(mask, /*rhs=*/true);
//   BoundedCount c = s.count_up_to({s.switch_on(h)}, 73, {}, nullptr);
//   // c.found distinct projected models satisfy the formula and the hash (c.found <= 73)
//
// Layout: a projected model is a bit set over the projection, in projection order (bit i of
// word i / 64 is variable projection[i]); XOR masks use the same layout.
// Requires: cnf well-formed (check_well_formed). The solver is single-threaded; one object is
// used by one thread at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <cryptominisat5/cryptominisat.h>

#include "assay/count/cnf.hpp"

namespace assay::count::detail {

/// Projections larger than this get random decision polarities (see the constructor).
constexpr std::size_t kRandomPolarityAbove = 4096;

/// Bits over the projection (see the layout above).
using ProjectedBits = std::vector<std::uint64_t>;

inline bool bit_of(const ProjectedBits& bits, std::size_t i) {
  return (bits[i / 64] >> (i % 64)) & 1u;
}

/// Parity of the projected variables selected by `mask` in `model`.
bool parity(const ProjectedBits& mask, const ProjectedBits& model);

/// Throws assay::Error unless every literal, XOR variable and projected variable is in
/// 1..n_vars and the projection is sorted and distinct.
void check_well_formed(const Cnf& cnf);

/// Interrupts every solver made with a flag from new_flag() once `seconds` of wall-clock time
/// have passed, or once Ctrl-C asked for a stop (interrupt_requested(), polled every 20 ms).
/// Each solver needs its own flag: CryptoMiniSat raises its flag at the end of every solve()
/// and clears it at the start of the next, so after the deadline the flags are raised again
/// every few milliseconds until this object is destroyed.
class SolverDeadline {
 public:
  explicit SolverDeadline(double seconds);  ///< 0 = no deadline
  ~SolverDeadline();
  SolverDeadline(const SolverDeadline&) = delete;
  SolverDeadline& operator=(const SolverDeadline&) = delete;

  /// A flag for one new solver, valid as long as this object.
  std::atomic<bool>* new_flag();
  bool expired() const { return expired_.load(); }
  /// Expires it now (every solver stops), for `reason` (e.g. "the memory limit (...)").
  void stop(const std::string& reason);
  /// Why it expired: "the time limit", "an interrupt (Ctrl-C)" or stop()'s reason ("" while
  /// it has not).
  std::string reason() const;

 private:
  void watch(std::optional<std::chrono::steady_clock::time_point> deadline);

  std::atomic<bool> expired_{false};
  std::string reason_;  // under mutex_
  mutable std::mutex mutex_;
  std::deque<std::atomic<bool>> flags_;  // a deque: growing it moves no element
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread watcher_;
};

struct BoundedCount {
  std::uint64_t found = 0;   ///< distinct projected models found (<= limit)
  bool interrupted = false;  ///< the deadline stopped the enumeration (found is a lower bound)
};

class ProjectedSolver {
 public:
  /// Loads `cnf` (clauses and native XORs); `deadline` (may be nullptr) interrupts it.
  ProjectedSolver(const Cnf& cnf, std::uint32_t solver_seed, SolverDeadline* deadline);
  ~ProjectedSolver();
  ProjectedSolver(const ProjectedSolver&) = delete;
  ProjectedSolver& operator=(const ProjectedSolver&) = delete;

  std::size_t n_projected() const { return projection_.size(); }
  /// Words of a ProjectedBits for this projection.
  std::size_t n_words() const { return (projection_.size() + 63) / 64; }

  /// Adds "XOR of the projected variables in `mask` == rhs" behind a fresh activation variable:
  /// the constraint holds only under the assumption switch_on(returned variable).
  std::uint32_t add_switchable_xor(const ProjectedBits& mask, bool rhs);
  static CMSat::Lit switch_on(std::uint32_t activation) { return CMSat::Lit(activation, true); }

  /// Enumerates distinct projected models under `assumptions` until `limit` are counted. The
  /// models in `known` (which must satisfy the formula and the assumptions, distinct) are
  /// counted and blocked without a SAT call; each new model goes to `found` (if set). Blocking
  /// clauses are guarded by a fresh literal and switched off on return.
  BoundedCount count_up_to(const std::vector<CMSat::Lit>& assumptions, std::uint64_t limit,
                           std::span<const ProjectedBits* const> known,
                           const std::function<void(const ProjectedBits&)>& found);

  std::uint64_t sat_calls() const { return sat_calls_; }

 private:
  void load(const Cnf& cnf);
  void block(std::uint32_t guard, const ProjectedBits& model);
  ProjectedBits projected_model() const;

  std::unique_ptr<CMSat::SATSolver> solver_;
  std::vector<std::uint32_t> projection_;  ///< 0-based solver variables; CMS keeps a pointer
  SolverDeadline* deadline_ = nullptr;
  std::uint64_t sat_calls_ = 0;
};

}  // namespace assay::count::detail
