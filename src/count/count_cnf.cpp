#include "assay/count/count_cnf.hpp"

#include <chrono>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/count/approx_counter.hpp"
#include "assay/count/exact_counter.hpp"

namespace assay::count {

namespace {

void check(const CnfCountParams& p) {
  check_count_method(p.method, kCnfCountMethods, "for a CNF file");
  if (!(p.time_limit >= 0)) fail("time_limit must be >= 0, found {}", p.time_limit);
  if (!(p.epsilon > 0)) fail("epsilon must be > 0, found {}", p.epsilon);
  if (!(p.delta > 0 && p.delta < 1)) fail("delta must lie in (0, 1), found {}", p.delta);
}

// What a stopped approximate count certifies: the distinct models it found, and at most every
// assignment of the projection. No estimate: a partial run has no (epsilon, delta) guarantee.
void stopped_approx(const ApproxCountResult& a, CnfCountResult& r) {
  mpz_class all;
  mpz_ui_pow_ui(all.get_mpz_t(), 2, static_cast<unsigned long>(a.n_projected));
  r.count = a.lower;
  r.bounds = {a.lower, all};
  r.guarantee.method = "approx";
  r.guarantee.exact = false;
  r.guarantee.bounded = true;
  r.guarantee.note = fmt::format(
      "{} stopped the approximate counter before its estimate; the bounds are certified: {} "
      "distinct models found, and at most every assignment of the {} projected variables",
      a.stopped_by, a.lower.get_str(), a.n_projected);
}

void approximate(const Cnf& f, const CnfCountParams& p, CnfCountResult& r) {
  ApproxCountParams ap;
  ap.epsilon = p.epsilon;
  ap.delta = p.delta;
  ap.seed = p.seed;
  ap.threads = p.threads;
  // auto's fallback gets the same limit again: a --time-limit bounds each counter it runs
  // (0 leaves the fallback unbounded, as documented), so the whole run stays within twice it.
  ap.time_limit = p.time_limit;
  const ApproxCountResult a = count_approx(f, ap);
  if (!a.complete) return stopped_approx(a, r);
  r.count = a.estimate;
  r.guarantee.method = "approx";
  r.guarantee.exact = a.exact;
  if (!a.exact) {
    r.guarantee.epsilon = p.epsilon;
    r.guarantee.delta = p.delta;
    r.guarantee.seed = p.seed;
  }
}

}  // namespace

CnfCountParams cnf_count_params(const CountParams& params) {
  CnfCountParams p;
  p.method = params.method;
  p.time_limit = params.time_limit;
  p.epsilon = params.epsilon;
  p.delta = params.delta;
  p.seed = params.seed;
  p.threads = params.threads;
  return p;
}

CnfCountResult count_cnf(const Cnf& f, const CnfCountParams& p) {
  check(p);
  const auto start = std::chrono::steady_clock::now();
  CnfCountResult r;
  r.n_vars = f.n_vars;
  r.n_clauses = f.n_clauses();
  r.n_xors = f.xors.size();
  r.n_projected = f.projected().size();
  if (p.method == CountMethod::approx) {
    approximate(f, p, r);
  } else {
    ExactCountParams ep;
    const bool automatic = p.method == CountMethod::automatic;
    ep.time_limit = automatic && p.time_limit == 0 ? 60.0 : p.time_limit;
    ep.threads = p.threads;  // the circuit route's workers
    const ExactCountResult e = count_exact(f, ep);
    if (e.complete) {
      r.count = e.count;
      r.guarantee.method = "exact-cnf";
    } else if (automatic && !interrupt_requested()) {
      approximate(f, p, r);
      r.guarantee.note = r.guarantee.bounded
                             ? "the exact counter ran out of time; then " + r.guarantee.note
                             : "the exact counter ran out of time; counted approximately";
    } else {
      r.count = e.lower;
      r.bounds = {e.lower, e.upper};
      r.guarantee.method = "exact-cnf";
      r.guarantee.exact = false;
      r.guarantee.bounded = true;
      r.guarantee.note = e.stopped_by + " stopped the exact counter";
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace assay::count
