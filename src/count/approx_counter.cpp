// The ApproxMC algorithm (see approx_counter.hpp): an exact check with at most `threshold`
// models, then t measurements, each a search for the number of hashes m at which a random cell
// first holds at most `threshold` projected models, and ApproxMC6's rounded median.
#include "assay/count/approx_counter.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"
#include "count/approx_constants.hpp"
#include "count/projected_solver.hpp"

namespace assay::count {

using detail::BoundedCount;
using detail::ProjectedBits;
using detail::ProjectedSolver;
using detail::SolverDeadline;

namespace {

/// Hashes allowed beyond the number n of projected variables: n + 64 random XORs over n
/// variables have rank n (so every cell holds at most one model) except with probability
/// below 2^n * 2^-(n+64) = 2^-64, so the search practically never reaches the cap.
constexpr std::uint32_t kExtraHashes = 64;

void check_params(const ApproxCountParams& p) {
  if (!(p.epsilon > 0) || !std::isfinite(p.epsilon))
    fail("approximate count: expected epsilon > 0, found {}", p.epsilon);
  if (!(p.delta > 0 && p.delta < 1))
    fail("approximate count: expected delta in (0, 1), found {}", p.delta);
  if (p.threads < 0) fail("approximate count: expected threads >= 0, found {}", p.threads);
  if (!(p.time_limit >= 0) || !std::isfinite(p.time_limit))
    fail("approximate count: expected time_limit >= 0 seconds (0 = none), found {}", p.time_limit);
  const double threshold = detail::approx_threshold_real(p.epsilon);
  if (threshold > detail::kMaxThreshold)
    fail(
        "approximate count: expected an epsilon whose cells hold at most {} models, found "
        "epsilon {} (cells of {:.3g} models)",
        detail::kMaxThreshold, p.epsilon, threshold);
}

/// Cells the run is expected to count: the exact check, measurement 0's galloping and binary
/// search from one hash (about 2 log2 n), and a few cells for each other measurement (they
/// start next to measurement 0's m). Sizes the progress bar.
std::uint64_t expected_cells(std::size_t n_projected, std::uint32_t measurements) {
  const auto log_n = static_cast<std::uint64_t>(std::ceil(std::log2(n_projected + 2.0)));
  return 1 + 2 * log_n + 4 * std::uint64_t{measurements - 1};
}

/// Refuses, before any solver starts, a run whose solvers cannot fit: each holds the formula
/// (about 32 bytes per literal and 200 per variable in CryptoMiniSat, measured), a cell blocks
/// up to threshold + 1 models, each with a clause over the projection (two cells' worth
/// counted: CryptoMiniSat frees switched-off clauses only at its next clean-up), and a
/// measurement keeps the models of its cells (up to 2 log2 n cells). Measurement 0 runs alone,
/// then up to `threads` others at once, each on its own solver.
void check_approx_memory(const Cnf& cnf, const ApproxCountParams& p, std::size_t n_projected,
                         std::uint32_t threshold, std::uint32_t measurements) {
  std::size_t literals = cnf.literals.size();
  for (const auto& x : cnf.xors) literals += x.vars.size();
  const double formula = 32.0 * static_cast<double>(literals) + 200.0 * cnf.n_vars;
  const double models = static_cast<double>(threshold) + 1;
  const double n = static_cast<double>(n_projected);
  const double clause_bytes = (n + 1) * 4 + 64;
  const double model_bytes = std::ceil(n / 64) * 8 + 40;
  const double kept_cells = 2 * std::ceil(std::log2(n + 2));
  const std::size_t others = measurements - 1;
  const std::size_t solvers = 1 + (others > 0 ? resolve_threads(p.threads, others) : 0);
  const double cells = models * (2 * clause_bytes + kept_cells * model_bytes);
  const double bytes = (formula + cells) * static_cast<double>(solvers);
  const std::size_t available = allocatable_bytes();
  if (bytes <= static_cast<double>(available)) return;
  std::string advice = cells >= formula ? "raise epsilon" : "";
  if (solvers > 1) advice += advice.empty() ? "lower threads" : " or lower threads";
  fail(
      "approximate count: cells of up to {} models (epsilon {}) over {} projected variables "
      "need about {:.1f} GB (the formula, blocking clauses and kept models, {} solver(s) at "
      "once), more than the {:.1f} GB this process can allocate{}{}",
      threshold + 1, p.epsilon, n_projected, bytes / 1e9, solvers,
      static_cast<double>(available) / 1e9, advice.empty() ? "" : "; ", advice);
}

/// Progress in units of SAT calls: each cell counts as threshold + 1 (its most models); a cell
/// that ends early adds what it did not use. Thread-safe (Progress is).
class WorkMeter {
 public:
  WorkMeter(const std::string& task, std::uint32_t threshold, std::uint64_t cells)
      : per_cell_(std::uint64_t{threshold} + 1) {
    if (!task.empty()) progress_.emplace(task, per_cell_ * cells);
  }
  void model() {
    if (progress_) progress_->advance();
  }
  void cell_done(std::uint64_t models_reported) {
    if (progress_) progress_->advance(per_cell_ - std::min(per_cell_, models_reported));
  }
  void finish() {
    if (progress_) progress_->finish();
  }

 private:
  std::uint64_t per_cell_;
  std::optional<Progress> progress_;
};

/// Memory the hash constraints may still take, shared by the measurements. CryptoMiniSat keeps
/// about kBytesPerXorLiteral per variable of a hash (the XOR, its cut into short XORs through
/// fresh variables, their clauses and watches: measured, 16 M XOR literals took 6.2 GB), and a
/// formula with many models over many projected variables needs about as many hashes as
/// projected variables: 20,000 of them, 2 * 10^8 XOR literals.
class HashBudget {
 public:
  static constexpr double kBytesPerXorLiteral = 400;
  /// Keeps a third of what the process could allocate at the start for the solvers' search.
  HashBudget() : reserve_(static_cast<double>(allocatable_bytes()) / 3) {}
  /// Takes the memory of `literals` more XOR literals; false (nothing taken) when they would
  /// not fit in what the process can allocate beyond the reserve.
  bool take(std::uint64_t literals) {
    const double bytes = static_cast<double>(literals) * kBytesPerXorLiteral;
    std::lock_guard lock(mutex_);
    if (bytes > left_) left_ = std::max(0.0, static_cast<double>(allocatable_bytes()) - reserve_);
    if (bytes > left_) return false;
    left_ -= bytes;
    return true;
  }

 private:
  std::mutex mutex_;
  double reserve_;
  double left_ = 0;
};

struct Measurement {
  std::uint32_t hashes = 0;  ///< m
  std::uint64_t cell = 0;    ///< models in the cell at m hashes (<= threshold)
};

/// A model found during one measurement, with the number of hashes in force when it was found
/// (it satisfies hashes 0..found_at-1).
struct SavedModel {
  ProjectedBits bits;
  std::uint32_t found_at = 0;
};

/// One measurement: its own random hashes h_0, h_1, ... (hash k from rng.split(k)), switched on
/// in prefixes by assumptions, and a galloping + binary search for the smallest m whose cell
/// has at most `threshold` models. Cells shrink as m grows (h_0..h_m includes h_0..h_{m-1}), so
/// the answer depends on the hashes only, never on where the search starts.
class MeasurementSearch {
 public:
  MeasurementSearch(ProjectedSolver& solver, Rng rng, std::uint32_t threshold,
                    const std::vector<SavedModel>& models_without_hashes, WorkMeter& meter,
                    SolverDeadline& deadline, HashBudget& budget)
      : solver_(solver),
        rng_(rng),
        threshold_(threshold),
        cap_(static_cast<std::uint32_t>(solver.n_projected()) + kExtraHashes),
        saved_(models_without_hashes),
        meter_(meter),
        deadline_(deadline),
        budget_(budget) {}

  /// The measurement, searching from `start` hashes; nullopt if the deadline interrupted it.
  std::optional<Measurement> run(std::uint32_t start);
  /// The most distinct models one cell held (a lower bound of the count, also when stopped).
  std::uint64_t most_found() const { return most_found_; }

 private:
  /// Whether the cell at m hashes holds at most `threshold` models; nullopt: interrupted.
  std::optional<bool> is_small(std::uint32_t m);
  /// False when the deadline passed or the hashes would not fit in memory (then it stops the
  /// deadline, for every measurement).
  bool add_hashes_up_to(std::uint32_t m);
  bool in_cell(const SavedModel& model, std::uint32_t m) const;

  ProjectedSolver& solver_;
  Rng rng_;
  std::uint32_t threshold_;
  std::uint32_t cap_;
  std::vector<ProjectedBits> masks_;
  std::vector<bool> rhs_;
  std::vector<std::uint32_t> activations_;
  std::vector<SavedModel> saved_;
  std::map<std::uint32_t, std::uint64_t> cells_;  ///< m -> models found (capped)
  WorkMeter& meter_;
  SolverDeadline& deadline_;
  HashBudget& budget_;
  std::uint64_t most_found_ = 0;
};

bool MeasurementSearch::add_hashes_up_to(std::uint32_t m) {
  const std::size_t n = solver_.n_projected();
  while (masks_.size() < m) {
    if (deadline_.expired()) return false;  // adding a long XOR takes time too
    // Each projected variable is in the XOR with probability 1/2; the parity is random too.
    Rng hash_rng = rng_.split(masks_.size());
    ProjectedBits mask(solver_.n_words());
    for (std::uint64_t& word : mask) word = hash_rng.next();
    if (n % 64 != 0) mask.back() &= (std::uint64_t{1} << (n % 64)) - 1;
    std::uint64_t literals = 0;
    for (const std::uint64_t word : mask)
      literals += static_cast<std::uint64_t>(std::popcount(word));
    if (!budget_.take(literals)) {
      deadline_.stop(fmt::format(
          "the memory limit (hash {} over {} projected variables would not fit: about {:.0f} "
          "bytes per XOR literal, and a third of the memory is kept for the search)",
          masks_.size() + 1, n, HashBudget::kBytesPerXorLiteral));
      return false;
    }
    const bool rhs = hash_rng.next() & 1;
    activations_.push_back(solver_.add_switchable_xor(mask, rhs));
    masks_.push_back(std::move(mask));
    rhs_.push_back(rhs);
  }
  return true;
}

bool MeasurementSearch::in_cell(const SavedModel& model, std::uint32_t m) const {
  for (std::uint32_t k = model.found_at; k < m; ++k)
    if (detail::parity(masks_[k], model.bits) != rhs_[k]) return false;
  return true;
}

std::optional<bool> MeasurementSearch::is_small(std::uint32_t m) {
  if (const auto it = cells_.find(m); it != cells_.end()) return it->second <= threshold_;
  if (!add_hashes_up_to(m)) return std::nullopt;
  std::vector<CMSat::Lit> assumptions;
  for (std::uint32_t k = 0; k < m; ++k)
    assumptions.push_back(ProjectedSolver::switch_on(activations_[k]));
  // Models found earlier in this measurement that lie in this cell need no SAT call.
  std::vector<const ProjectedBits*> known;
  for (const SavedModel& model : saved_)
    if (in_cell(model, m)) known.push_back(&model.bits);
  std::vector<SavedModel> found;
  const BoundedCount count = solver_.count_up_to(assumptions, std::uint64_t{threshold_} + 1, known,
                                                 [&](const ProjectedBits& bits) {
                                                   found.push_back({bits, m});
                                                   meter_.model();
                                                 });
  most_found_ = std::max(most_found_, count.found);
  if (count.interrupted) return std::nullopt;
  meter_.cell_done(found.size());
  for (SavedModel& model : found) saved_.push_back(std::move(model));
  cells_[m] = count.found;
  return count.found <= threshold_;
}

std::optional<Measurement> MeasurementSearch::run(std::uint32_t start) {
  std::uint32_t lo = 0;         // largest m known to hold more than `threshold` models
  std::uint32_t hi = cap_ + 1;  // smallest m known to hold at most `threshold` (cap_+1: none)
  start = std::clamp<std::uint32_t>(start, 1, cap_);
  const std::optional<bool> small_at_start = is_small(start);
  if (!small_at_start) return std::nullopt;
  if (*small_at_start) {  // gallop down: start-1, start-3, start-7, ...
    hi = start;
    for (std::uint32_t step = 1; hi > lo + step; step *= 2) {
      const std::optional<bool> small = is_small(hi - step);
      if (!small) return std::nullopt;
      if (!*small) {
        lo = hi - step;
        break;
      }
      hi -= step;
    }
  } else {  // gallop up: start+1, start+3, start+7, ...
    lo = start;
    for (std::uint32_t step = 1; lo < cap_; step *= 2) {
      const std::uint32_t m = std::min(lo + step, cap_);
      const std::optional<bool> small = is_small(m);
      if (!small) return std::nullopt;
      if (*small) {
        hi = m;
        break;
      }
      lo = m;
    }
  }
  while (hi - lo > 1) {  // binary search between a big cell (lo) and a small one (hi)
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const std::optional<bool> small = is_small(mid);
    if (!small) return std::nullopt;
    (*small ? hi : lo) = mid;
  }
  if (hi > cap_) return Measurement{cap_, std::uint64_t{threshold_} + 1};  // see kExtraHashes
  return Measurement{hi, cells_.at(hi)};
}

/// Everything one count_approx call shares between its measurements.
struct Run {
  const Cnf& cnf;
  const ApproxCountParams& params;
  std::uint32_t threshold = 0;
  SolverDeadline deadline;
  std::vector<SavedModel> models_without_hashes;  ///< from the exact check
  WorkMeter meter;
  HashBudget hash_budget;

  Run(const Cnf& f, const ApproxCountParams& p, std::uint32_t measurements)
      : cnf(f),
        params(p),
        threshold(detail::approx_threshold(p.epsilon)),
        deadline(p.time_limit),
        meter(p.progress_task, threshold, expected_cells(f.projected().size(), measurements)) {}

  Rng measurement_rng(std::size_t i) const { return Rng(params.seed).split(i); }
  std::uint32_t solver_seed(std::size_t i) const {
    return static_cast<std::uint32_t>(measurement_rng(i).split(~std::uint64_t{0}).next());
  }
};

/// Runs measurement i on `solver`, starting the search at `start` hashes; `most_found` gets
/// the most models one of its cells held.
std::optional<Measurement> measure(Run& run, ProjectedSolver& solver, std::size_t i,
                                   std::uint32_t start, std::uint64_t& most_found) {
  MeasurementSearch search(solver, run.measurement_rng(i), run.threshold, run.models_without_hashes,
                           run.meter, run.deadline, run.hash_budget);
  std::optional<Measurement> m;
  try {
    m = search.run(start);
  } catch (const std::bad_alloc&) {  // CryptoMiniSat's own data (learned clauses, matrices)
    run.deadline.stop("the memory limit (CryptoMiniSat could not allocate more)");
  }
  most_found = search.most_found();
  return m;
}

/// ApproxMC6's estimate: each cell count raised to the rounding floor of the epsilon regime,
/// times 2^m; the median; rounded to an integer at the smallest m.
mpz_class rounded_median(const std::vector<Measurement>& ms, double epsilon) {
  const std::uint32_t min_m = std::min_element(ms.begin(), ms.end(), [](auto& a, auto& b) {
                                return a.hashes < b.hashes;
                              })->hashes;
  std::vector<mpf_class> values;
  for (const Measurement& m : ms) {
    mpf_class v(detail::rounded_cell(static_cast<double>(m.cell), epsilon), 256);
    mpf_mul_2exp(v.get_mpf_t(), v.get_mpf_t(), m.hashes - min_m);
    values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  mpf_class median = values[values.size() / 2];
  median += 0.5;
  mpz_class estimate(floor(median));
  mpz_mul_2exp(estimate.get_mpz_t(), estimate.get_mpz_t(), min_m);
  return estimate;
}

/// Measurement 0 on the solver of the exact check (searching from 1 hash), then the others in
/// parallel, each on its own solver, searching from measurement 0's m.
bool run_measurements(Run& run, ProjectedSolver& first_solver, ApproxCountResult& result) {
  const std::size_t t = result.measurements;
  std::vector<std::optional<Measurement>> ms(t);
  std::vector<std::uint64_t> sat_calls(t, 0);
  std::vector<std::uint64_t> most_found(t, 0);
  ms[0] = measure(run, first_solver, 0, 1, most_found[0]);
  if (ms[0]) {
    const std::uint32_t start = ms[0]->hashes;
    parallel_for(
        t - 1,
        [&](std::size_t j) {
          const std::size_t i = j + 1;
          if (run.deadline.expired()) return;
          ProjectedSolver solver(run.cnf, run.solver_seed(i), &run.deadline);
          ms[i] = measure(run, solver, i, start, most_found[i]);
          sat_calls[i] = solver.sat_calls();
        },
        resolve_threads(run.params.threads, t - 1));
  }
  for (const std::uint64_t calls : sat_calls) result.sat_calls += calls;
  for (const std::uint64_t most : most_found) {
    if (result.lower < static_cast<unsigned long>(most))
      result.lower = static_cast<unsigned long>(most);
  }
  std::vector<Measurement> done;
  for (const auto& m : ms) {
    if (!m) break;
    done.push_back(*m);
    mpz_class value(static_cast<unsigned long>(m->cell));
    mpz_mul_2exp(value.get_mpz_t(), value.get_mpz_t(), m->hashes);
    result.measured.push_back(value);
    result.hashes.push_back(m->hashes);
  }
  if (done.size() < t) return false;
  result.estimate = rounded_median(done, run.params.epsilon);
  return true;
}

}  // namespace

// How count_approx counts (moved here from the public header):
// The algorithm (ApproxMC6: Yang and Meel, CAV 2023):
// - threshold = 1 + 9.84 (1 + eps/(1+eps)) (1 + 1/eps)^2, truncated (72 for eps = 0.8);
// - if the formula has at most `threshold` projected models (bounded enumeration with blocking
//   clauses over the projection), that number is returned and marked exact;
// - otherwise t measurements, t the smallest odd number whose error bound is <= delta with
//   ApproxMC6's per-measurement bounds (3 for eps = 0.8, delta = 0.2; 5 for 0.1, 7 for 0.05).
//   Each has its own random hash h_1, h_2, ...: XOR constraints over the projection (each
//   variable in with probability 1/2, random parity), switched on in prefixes h_1..h_m by
//   assumption literals. Its m is the smallest number of hashes whose cell holds at most
//   `threshold` models, found by galloping then binary search (measurement 0 starts at m = 1,
//   the others next to measurement 0's m); models found earlier in the measurement that lie in
//   the cell are counted without a SAT call. Blocking clauses are guarded by a fresh literal
//   per bounded count, switched off afterwards;
// - the estimate is the median over the measurements of cell * 2^m, after ApproxMC6's rounding
//   (for 0.414 <= eps < 1, a cell below pivot/sqrt(2) counts as pivot/sqrt(2), pivot =
//   9.84 (1 + 1/eps)^2), rounded to an integer at the smallest m.
ApproxCountResult count_approx(const Cnf& cnf, const ApproxCountParams& params) {
  check_params(params);
  detail::check_well_formed(cnf);
  const auto started = std::chrono::steady_clock::now();
  ApproxCountResult result;
  result.epsilon = params.epsilon;
  result.delta = params.delta;
  result.seed = params.seed;
  result.threshold = detail::approx_threshold(params.epsilon);
  result.measurements = detail::approx_measurements(params.epsilon, params.delta);
  check_approx_memory(cnf, params, cnf.projected().size(), result.threshold, result.measurements);
  Run run(cnf, params, result.measurements);

  ProjectedSolver first_solver(cnf, run.solver_seed(0), &run.deadline);
  result.n_projected = static_cast<std::int32_t>(first_solver.n_projected());
  // The exact check: does the whole formula have at most `threshold` projected models?
  const BoundedCount all = first_solver.count_up_to(
      {}, std::uint64_t{run.threshold} + 1, {}, [&](const ProjectedBits& bits) {
        run.models_without_hashes.push_back({bits, 0});
        run.meter.model();
      });
  result.lower = static_cast<unsigned long>(all.found);
  if (!all.interrupted && all.found <= run.threshold) {
    result.complete = result.exact = true;
    result.estimate = static_cast<unsigned long>(all.found);
  } else if (!all.interrupted) {
    run.meter.cell_done(all.found);
    result.complete = run_measurements(run, first_solver, result);
  }
  result.sat_calls += first_solver.sat_calls();
  if (!result.complete) {
    result.estimate = 0;
    result.stopped_by = run.deadline.reason();
  }
  run.meter.finish();
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

std::string guarantee(const ApproxCountResult& result) {
  if (!result.complete) {
    return fmt::format("none: stopped by {} (at least {} models found)",
                       result.stopped_by.empty() ? "the time limit" : result.stopped_by,
                       result.lower.get_str());
  }
  if (result.exact) return "exact";
  return fmt::format("approximate (epsilon {}, delta {})", result.epsilon, result.delta);
}

ProjectedEnumeration enumerate_projected(const Cnf& cnf, std::uint64_t limit,
                                         const std::function<void(const std::vector<bool>&)>& visit,
                                         double time_limit) {
  detail::check_well_formed(cnf);
  if (time_limit < 0) fail("enumerate_projected: expected time_limit >= 0, found {}", time_limit);
  if (limit == 0) return {};
  SolverDeadline deadline(time_limit);
  ProjectedSolver solver(cnf, /*solver_seed=*/0, &deadline);
  std::vector<bool> assignment(solver.n_projected());
  const BoundedCount count = solver.count_up_to({}, limit, {}, [&](const ProjectedBits& bits) {
    for (std::size_t i = 0; i < assignment.size(); ++i) assignment[i] = detail::bit_of(bits, i);
    if (visit) visit(assignment);
  });
  return {count.found, count.interrupted};
}

}  // namespace assay::count
