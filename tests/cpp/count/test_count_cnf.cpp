// count/count_cnf: counting a user's CNF — exact counts (all variables, or the projection)
// against brute force, the approximate route on small counts, the formula's sizes in the
// result, stopped counts, the parameter checks; and the bounds of a label's cells (cnf_route).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <set>
#include <string>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/count/cnf.hpp"
#include "assay/count/count_cnf.hpp"
#include "count/cnf_route.hpp"
#include "test_util.hpp"

namespace assay::count {
namespace {

// Projected models of f by enumerating every assignment of its variables.
std::uint64_t brute_force(const Cnf& f) {
  const std::vector<Var> shown = f.projected();
  std::set<std::uint64_t> models;
  for (std::uint64_t a = 0; a < (std::uint64_t{1} << f.n_vars); ++a) {
    bool sat = true;
    for (std::size_t c = 0; c < f.n_clauses() && sat; ++c) {
      bool any = false;
      for (const Var lit : f.clause(c)) {
        const bool v = (a >> (std::abs(lit) - 1)) & 1;
        any = any || (lit > 0 ? v : !v);
      }
      sat = any;
    }
    if (!sat) continue;
    std::uint64_t key = 0;
    for (std::size_t i = 0; i < shown.size(); ++i) key |= ((a >> (shown[i] - 1)) & 1) << i;
    models.insert(key);
  }
  return models.size();
}

CnfCountParams exact() {
  CnfCountParams p;
  p.method = CountMethod::exact_cnf;
  return p;
}

TEST(CountCnf, ExactCountsEveryVariableOrTheProjection) {
  // (x1 or x2) and (not x1 or x3): 4 models; on {x1, x2}: 3.
  const Cnf all = parse_dimacs("p cnf 3 2\n1 2 0\n-1 3 0\n", "f.cnf");
  const CnfCountResult r = count_cnf(all, exact());
  EXPECT_EQ(r.count, 4);
  EXPECT_TRUE(r.guarantee.exact);
  EXPECT_EQ(r.guarantee.method, "exact-cnf");
  EXPECT_EQ(r.n_vars, 3);
  EXPECT_EQ(r.n_clauses, 2u);
  EXPECT_EQ(r.n_xors, 0u);
  EXPECT_EQ(r.n_projected, 3u);
  const Cnf shown = parse_dimacs("p cnf 3 2\n1 2 0\n-1 3 0\nc p show 1 2 0\n", "f.cnf");
  const CnfCountResult s = count_cnf(shown, exact());
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.n_projected, 2u);
  // Unsatisfiable, and no clauses at all.
  EXPECT_EQ(count_cnf(parse_dimacs("p cnf 2 2\n1 0\n-1 0\n", "u.cnf"), exact()).count, 0);
  EXPECT_EQ(count_cnf(parse_dimacs("p cnf 5 0\n", "e.cnf"), exact()).count, 32);
}

TEST(CountCnf, RandomFormulasEqualBruteForce) {
  std::mt19937 rng(12);
  for (int rep = 0; rep < 30; ++rep) {
    const int n = 6 + rep % 5;
    std::string text = "p cnf " + std::to_string(n) + " " + std::to_string(n) + "\n";
    for (int c = 0; c < n; ++c) {
      for (int k = 0; k < 3; ++k) {
        const int v = 1 + static_cast<int>(rng() % n);
        text += std::to_string(rng() % 2 ? v : -v) + " ";
      }
      text += "0\n";
    }
    if (rep % 2) text += "c p show 1 2 3 4 0\n";
    const Cnf f = parse_dimacs(text, "r.cnf");
    EXPECT_EQ(count_cnf(f, exact()).count, brute_force(f)) << text;
  }
}

TEST(CountCnf, AutoAndApproxOnSmallCounts) {
  const Cnf f = parse_dimacs("p cnf 4 1\n1 2 0\n", "f.cnf");  // 12 models
  CnfCountParams p;  // auto: exact well within its time limit
  const CnfCountResult a = count_cnf(f, p);
  EXPECT_EQ(a.count, 12);
  EXPECT_EQ(a.guarantee.method, "exact-cnf");
  p.method = CountMethod::approx;
  p.threads = 1;
  const CnfCountResult b = count_cnf(f, p);
  EXPECT_EQ(b.guarantee.method, "approx");
  EXPECT_EQ(b.count, 12);  // below the cell threshold: counted exactly
}

// A stopped count says what it certifies: the exact counter its bounds, the approximate counter
// the models it found and at most every assignment of the projection (before: an error).
TEST(CountCnf, StoppedCountsGiveCertifiedBounds) {
  const Cnf f = parse_dimacs("p cnf 40 0\n", "f.cnf");  // 2^40 models: far beyond a cell
  CnfCountParams p;
  p.method = CountMethod::approx;
  p.time_limit = 1e-9;
  p.threads = 1;
  const CnfCountResult a = count_cnf(f, p);
  EXPECT_TRUE(a.guarantee.bounded);
  EXPECT_FALSE(a.guarantee.exact);
  EXPECT_EQ(a.guarantee.method, "approx");
  EXPECT_EQ(a.bounds.upper, mpz_class(1) << 40);
  EXPECT_EQ(a.count, a.bounds.lower);
  EXPECT_LE(a.bounds.lower, mpz_class(1) << 40);
  EXPECT_EQ(a.guarantee.note.rfind("the time limit stopped the approximate counter before its "
                                   "estimate; the bounds are certified: ",
                                   0),
            0u)
      << a.guarantee.note;
  // An interrupt (Ctrl-C) during auto's exact count reports its bounds; no fallback follows.
  InterruptScope scope;
  request_interrupt();
  const CnfCountResult b = count_cnf(parse_dimacs("p cnf 30 1\n1 2 3 0\n", "g.cnf"), {});
  EXPECT_TRUE(b.guarantee.bounded);
  EXPECT_EQ(b.guarantee.method, "exact-cnf");
  EXPECT_EQ(b.guarantee.note, "an interrupt (Ctrl-C) stopped the exact counter");
  EXPECT_EQ(b.bounds.upper, mpz_class(1) << 30);
}

// Each cell of a label from bounds of #psi, #phi and #(psi and phi), against brute force on
// random small domains: the derived bounds contain the true cells, lie in [0, |D|] and are
// consistent with a partition of the domain (the lower bounds sum to at most |D|, the upper to at
// least |D|). Before, TP could read [0, 131072] on a domain of 65536 points.
TEST(CountCnf, LabelCellsStayWithinTheDomainAndContainTheTruth) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 40);
    int psi = 0, phi = 0, both = 0;
    for (int x = 0; x < n; ++x) {  // each point: in psi? predicted?
      const bool in_psi = rng() % 2, in_phi = rng() % 3 == 0;
      psi += in_psi;
      phi += in_phi;
      both += in_psi && in_phi;
    }
    // Certified bounds as a stopped counter gives them: around the truth, up to 2^bits.
    auto around = [&](int truth) {
      const int lo = truth - static_cast<int>(rng() % (truth + 1));
      const int hi = truth + static_cast<int>(rng() % (2 * n + 1));
      return detail::Value{lo, hi, false};
    };
    const mpz_class size = n;
    const auto cells = detail::label_cells(around(psi), around(phi), around(both), size);
    const int truth[4] = {both, phi - both, n - psi - phi + both, psi - both};  // tp fp tn fn
    mpz_class lo_sum = 0, hi_sum = 0;
    for (int i = 0; i < 4; ++i) {
      EXPECT_LE(cells[i].lo, truth[i]) << trial << " cell " << i;
      EXPECT_GE(cells[i].hi, truth[i]) << trial << " cell " << i;
      EXPECT_GE(cells[i].lo, 0);
      EXPECT_LE(cells[i].hi, size);
      lo_sum += cells[i].lo;
      hi_sum += cells[i].hi;
    }
    EXPECT_LE(lo_sum, size);
    EXPECT_GE(hi_sum, size);
  }
  // Exact inputs give exact cells; trivial bounds give [0, n] (not [0, 2n] for TN).
  const auto exact = detail::label_cells({5, 5}, {3, 3}, {2, 2}, 10);
  EXPECT_EQ(exact[2].lo, 4);
  EXPECT_EQ(exact[2].hi, 4);
  const auto trivial = detail::label_cells({0, 65536}, {0, 65536}, {0, 65536}, 65536);
  for (const auto& c : trivial) {
    EXPECT_EQ(c.lo, 0);
    EXPECT_EQ(c.hi, 65536);
  }
}

TEST(CountCnf, ParametersAreChecked) {
  const Cnf f = parse_dimacs("p cnf 2 1\n1 0\n", "f.cnf");
  CnfCountParams p;
  p.method = CountMethod::enumerate;
  EXPECT_THROW_MSG(count_cnf(f, p), Error,
                   "method must be auto, exact-cnf or approx for a CNF file, found \"enumerate\"");
  p = {};
  p.time_limit = -1;
  EXPECT_THROW_MSG(count_cnf(f, p), Error, "time_limit must be >= 0, found -1");
  p = {};
  p.epsilon = 0;
  EXPECT_THROW_MSG(count_cnf(f, p), Error, "epsilon must be > 0, found 0");
  p = {};
  p.delta = 1;
  EXPECT_THROW_MSG(count_cnf(f, p), Error, "delta must lie in (0, 1), found 1");
}

TEST(CountCnf, MethodsHaveOneSpellingAndOneMessage) {
  for (const CountMethod m : kCountMethods) EXPECT_EQ(parse_count_method(to_string(m)), m);
  EXPECT_EQ(parse_count_method("exact-cnf"), CountMethod::exact_cnf);
  EXPECT_THROW_MSG(
      parse_count_method("fast"), Error,
      "method must be auto, structural, enumerate, exact-cnf, approx or split, found \"fast\"");
  EXPECT_EQ(parse_count_method("approx", kCnfCountMethods, "for a CNF file"), CountMethod::approx);
  EXPECT_THROW_MSG(parse_count_method("split", kCnfCountMethods, "for a CNF file"), Error,
                   "method must be auto, exact-cnf or approx for a CNF file, found \"split\"");
  EXPECT_THROW_MSG(check_count_method(CountMethod::approx, kRobustnessMethods), Error,
                   "method must be auto, structural or enumerate, found \"approx\"");
}

TEST(CountCnf, OptionsSharedWithCountAreTranslatedInOnePlace) {
  CountParams c;
  c.method = CountMethod::approx;
  c.time_limit = 7;
  c.epsilon = 0.5;
  c.delta = 0.1;
  c.seed = 42;
  c.threads = 3;
  const CnfCountParams p = cnf_count_params(c);
  EXPECT_EQ(p.method, CountMethod::approx);
  EXPECT_EQ(p.time_limit, 7);
  EXPECT_EQ(p.epsilon, 0.5);
  EXPECT_EQ(p.delta, 0.1);
  EXPECT_EQ(p.seed, 42U);
  EXPECT_EQ(p.threads, 3);
}

}  // namespace
}  // namespace assay::count
