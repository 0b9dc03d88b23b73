// PLACEHOLDER on branch issue-13 only: brute-force stand-ins (CaDiCaL enumeration) for the exact
// and approximate counters until their real implementations merge. Do not modify; the lead drops
// this file when merging.
#include <cadical.hpp>

#include <chrono>

#include "assay/core/error.hpp"
#include "assay/count/approx_counter.hpp"
#include "assay/count/exact_counter.hpp"

namespace assay::count {

namespace {
std::unique_ptr<CaDiCaL::Solver> load(const Cnf& in) {
  Cnf f = in;
  expand_xors(f);
  auto s = std::make_unique<CaDiCaL::Solver>();
  for (std::size_t i = 0; i < f.n_clauses(); ++i) {
    for (Var l : f.clause(i)) s->add(l);
    s->add(0);
  }
  return s;
}
}  // namespace

std::uint64_t enumerate_projected(const Cnf& f, std::uint64_t limit,
                                  const std::function<void(const std::vector<bool>&)>& visit) {
  auto s = load(f);
  const auto proj = f.projected();
  std::uint64_t n = 0;
  while (n < limit && s->solve() == 10) {
    std::vector<bool> a;
    for (Var v : proj) a.push_back(s->val(v) > 0);
    visit(a);
    ++n;
    for (std::size_t i = 0; i < proj.size(); ++i) s->add(a[i] ? -proj[i] : proj[i]);
    s->add(0);
  }
  return n;
}

ExactCountResult count_exact(const Cnf& f, const ExactCountParams&) {
  ExactCountResult r;
  std::uint64_t n = enumerate_projected(f, ~0ULL, [](const std::vector<bool>&) {});
  r.count = r.lower = r.upper = mpz_class(static_cast<unsigned long>(n));
  r.complete = true;
  return r;
}

ApproxCountResult count_approx(const Cnf& f, const ApproxCountParams& p) {
  ApproxCountResult r;
  std::uint64_t n = enumerate_projected(f, ~0ULL, [](const std::vector<bool>&) {});
  r.estimate = mpz_class(static_cast<unsigned long>(n));
  r.exact = true;
  r.complete = true;
  r.epsilon = p.epsilon;
  r.delta = p.delta;
  return r;
}

}  // namespace assay::count
