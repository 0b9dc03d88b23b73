// The approximate counter: exact answers below the threshold (checked by brute force), estimates
// within (1 + eps) of known counts for most fixed seeds, determinism across thread counts, the
// projection, the time limit, enumeration, and the parameter errors.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/count/approx_counter.hpp"
#include "test_util.hpp"

namespace {

using assay::count::ApproxCountParams;
using assay::count::ApproxCountResult;
using assay::count::Cnf;
using assay::count::count_approx;
using assay::count::enumerate_projected;
using assay::count::ProjectedEnumeration;
using assay::count::Var;

// ---- formulas and brute force

/// Random k-CNF over n variables (distinct variables per clause, random signs).
Cnf random_kcnf(int n, int m, int k, std::uint64_t seed) {
  assay::Rng rng(seed);
  Cnf f;
  f.n_vars = n;
  for (int c = 0; c < m; ++c) {
    std::vector<Var> clause;
    while (static_cast<int>(clause.size()) < k) {
      const Var v = static_cast<Var>(rng.below(n)) + 1;
      bool repeat = false;
      for (const Var l : clause) repeat |= std::abs(l) == v;
      if (!repeat) clause.push_back(rng.below(2) ? v : -v);
    }
    f.add_clause(clause);
  }
  return f;
}

/// Projected model count by enumeration of every assignment (n_vars <= 30).
std::uint64_t brute_force_count(const Cnf& f) {
  struct Masks {
    std::uint64_t pos = 0, neg = 0;
  };
  std::vector<Masks> clauses;
  for (std::size_t i = 0; i < f.n_clauses(); ++i) {
    Masks m;
    for (const Var l : f.clause(i))
      (l > 0 ? m.pos : m.neg) |= std::uint64_t{1} << (std::abs(l) - 1);
    clauses.push_back(m);
  }
  std::vector<std::pair<std::uint64_t, bool>> xors;
  for (const auto& x : f.xors) {
    std::uint64_t mask = 0;
    for (const Var v : x.vars) mask |= std::uint64_t{1} << (v - 1);
    xors.emplace_back(mask, x.rhs);
  }
  std::uint64_t projected_mask = 0;
  for (const Var v : f.projected()) projected_mask |= std::uint64_t{1} << (v - 1);
  std::set<std::uint64_t> seen;
  for (std::uint64_t a = 0; a < (std::uint64_t{1} << f.n_vars); ++a) {
    bool ok = true;
    for (const Masks& c : clauses)
      if (!((a & c.pos) | (~a & c.neg))) {
        ok = false;
        break;
      }
    for (const auto& [mask, rhs] : xors) ok = ok && ((std::popcount(a & mask) & 1) == rhs);
    if (ok) seen.insert(a & projected_mask);
  }
  return seen.size();
}

/// `k` free projected variables and `blocks` independent "at most one of 3" blocks over
/// projected variables (4 models each), plus `aux` unprojected variables, each in a clause
/// (aux_i or p) with a projected p, so that it has 2 extensions where p holds and 1 elsewhere:
/// count = 2^k * 4^blocks (k + blocks >= 1 when aux > 0).
Cnf free_and_blocks(int k, int blocks, int aux) {
  Cnf f;
  std::vector<Var> projected;
  for (int i = 0; i < k; ++i) projected.push_back(f.new_var());
  for (int b = 0; b < blocks; ++b) {
    const Var x = f.new_var(), y = f.new_var(), z = f.new_var();
    f.add_clause({-x, -y});
    f.add_clause({-x, -z});
    f.add_clause({-y, -z});
    projected.insert(projected.end(), {x, y, z});
  }
  for (int i = 0; i < aux; ++i) {
    const Var a = f.new_var();
    f.add_clause({a, projected[static_cast<std::size_t>(i) % projected.size()]});
  }
  f.set_projection(projected);
  return f;
}

/// A random XOR system: `rows` XORs over n projected variables, each variable in with
/// probability 1/2; the count is 2^(n - rank) when consistent (computed by elimination).
std::pair<Cnf, std::uint32_t> random_xor_system(int n, int rows, std::uint64_t seed) {
  assay::Rng rng(seed);
  Cnf f;
  f.n_vars = n;
  std::vector<std::vector<std::uint64_t>> basis;  // rows in echelon form over GF(2), + rhs bit
  for (int r = 0; r < rows; ++r) {
    assay::count::XorConstraint x;
    std::vector<std::uint64_t> row((n + 64) / 64, 0);
    for (Var v = 1; v <= n; ++v)
      if (rng.below(2)) {
        x.vars.push_back(v);
        row[(v - 1) / 64] |= std::uint64_t{1} << ((v - 1) % 64);
      }
    x.rhs = rng.below(2);
    if (x.rhs) row[n / 64] |= std::uint64_t{1} << (n % 64);
    for (const auto& b : basis) {  // reduce by the basis (pivot = lowest set bit below n)
      int pivot = -1;
      for (int v = 0; v < n && pivot < 0; ++v)
        if ((b[v / 64] >> (v % 64)) & 1) pivot = v;
      if ((row[pivot / 64] >> (pivot % 64)) & 1)
        for (std::size_t w = 0; w < row.size(); ++w) row[w] ^= b[w];
    }
    bool zero = true;
    for (int v = 0; v < n; ++v) zero &= !((row[v / 64] >> (v % 64)) & 1);
    if (zero && ((row[n / 64] >> (n % 64)) & 1)) continue;  // inconsistent row: drop it
    if (!zero) basis.push_back(row);
    f.xors.push_back(x);
  }
  return {f, static_cast<std::uint32_t>(n - static_cast<int>(basis.size()))};
}

bool within_factor(const mpz_class& estimate, double count, double epsilon) {
  const double e = estimate.get_d();
  return e >= count / (1 + epsilon) && e <= count * (1 + epsilon);
}

ApproxCountParams seeded(std::uint64_t seed) {
  ApproxCountParams p;
  p.seed = seed;
  p.progress_task = "";
  return p;
}

/// How many of seeds 1..n give an estimate within (1 + eps) of `count`.
int hits_over_seeds(const Cnf& f, double count, int n) {
  int hits = 0;
  for (int s = 1; s <= n; ++s) {
    const ApproxCountResult r = count_approx(f, seeded(s));
    EXPECT_TRUE(r.complete);
    EXPECT_FALSE(r.exact);
    hits += within_factor(r.estimate, count, r.epsilon);
  }
  return hits;
}

// ---- exact answers

TEST(ApproxCounter, SmallFormulasAreCountedExactly) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Cnf f = random_kcnf(10, 42 + static_cast<int>(seed), 3, seed);
    if (seed % 2 == 0) f.set_projection({1, 2, 3, 5, 8});
    const std::uint64_t truth = brute_force_count(f);
    ASSERT_LE(truth, 72u) << "seed " << seed;
    const ApproxCountResult r = count_approx(f, seeded(seed));
    EXPECT_TRUE(r.complete);
    EXPECT_TRUE(r.exact) << "seed " << seed;
    EXPECT_EQ(r.estimate, static_cast<unsigned long>(truth)) << "seed " << seed;
    EXPECT_EQ(r.threshold, 72u);
    EXPECT_TRUE(r.measured.empty());
  }
}

TEST(ApproxCounter, SeventyTwoModelsAreExactSeventyThreeAreNot) {
  // 72 = 8 * 9 models: 3 free variables times "x in 0..8" on a 4-bit number (x <= 8).
  Cnf f;
  for (int i = 0; i < 7; ++i) f.new_var();
  f.add_clause({-4, -5});  // bits 4..7 = x (bit 4 = 8): x >= 8 forces the rest 0
  f.add_clause({-4, -6});
  f.add_clause({-4, -7});
  EXPECT_EQ(brute_force_count(f), 72u);
  ApproxCountResult r = count_approx(f, seeded(1));
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.estimate, 72);
  f.new_var();  // 144 models: above the threshold, so estimated
  r = count_approx(f, seeded(1));
  EXPECT_TRUE(r.complete);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.measurements, 3u);
  EXPECT_EQ(r.measured.size(), 3u);
  EXPECT_TRUE(within_factor(r.estimate, 144, 0.8)) << r.estimate;
}

TEST(ApproxCounter, GuaranteeNamesWhatTheResultClaims) {
  ApproxCountResult r;
  EXPECT_EQ(assay::count::guarantee(r),
            "none: stopped by the time limit (at least 0 models found)");
  r.stopped_by = "an interrupt (Ctrl-C)";
  r.lower = 73;
  EXPECT_EQ(assay::count::guarantee(r),
            "none: stopped by an interrupt (Ctrl-C) (at least 73 models found)");
  r.complete = true;
  EXPECT_EQ(assay::count::guarantee(r), "approximate (epsilon 0.8, delta 0.2)");
  r.exact = true;
  EXPECT_EQ(assay::count::guarantee(r), "exact");
}

TEST(ApproxCounter, UnsatisfiableIsExactZero) {
  Cnf f = random_kcnf(6, 2, 1, 1);
  f.add_clause({1});
  f.add_clause({-1});
  const ApproxCountResult r = count_approx(f, seeded(1));
  EXPECT_TRUE(r.complete);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.estimate, 0);
}

TEST(ApproxCounter, EmptyProjectionCountsOneIfSatisfiable) {
  Cnf f = random_kcnf(8, 10, 3, 3);
  f.set_projection({});
  EXPECT_EQ(count_approx(f, seeded(1)).estimate, 1);
  f.add_clause({2});
  f.add_clause({-2});
  const ApproxCountResult r = count_approx(f, seeded(1));
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.estimate, 0);
  EXPECT_EQ(r.n_projected, 0);
}

TEST(ApproxCounter, NoVariablesAtAll) {
  Cnf f;
  EXPECT_EQ(count_approx(f, seeded(1)).estimate, 1);  // the empty assignment
  f.add_clause(std::vector<Var>{});
  EXPECT_EQ(count_approx(f, seeded(1)).estimate, 0);
}

// ---- estimates of known counts

TEST(ApproxCounter, FreeVariablesTimesBlocksWithinFactor) {
  const Cnf f = free_and_blocks(40, 3, 0);  // 2^40 * 64 = 2^46
  const int hits = hits_over_seeds(f, std::ldexp(1.0, 46), 5);
  EXPECT_GE(hits, 4);  // 1 - delta = 0.8 of 5 seeds; these seeds give 5 of 5
}

TEST(ApproxCounter, XorSystemsWithinFactor) {
  int hits = 0, runs = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const auto [f, free_dims] = random_xor_system(40, 25, seed);
    const ApproxCountResult r = count_approx(f, seeded(seed));
    ASSERT_TRUE(r.complete);
    ASSERT_FALSE(r.exact);
    hits += within_factor(r.estimate, std::ldexp(1.0, free_dims), 0.8);
    ++runs;
  }
  EXPECT_GE(hits, 5) << "of " << runs;  // at least 0.8 of 6; these seeds give 6 of 6
}

TEST(ApproxCounter, Random3CnfMatchesBruteForce) {
  // 20 projected variables and 3 unprojected ones: the count is of projected assignments only.
  int hits = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    Cnf f = random_kcnf(23, 40, 3, 100 + seed);
    std::vector<Var> projection;
    for (Var v = 1; v <= 20; ++v) projection.push_back(v);
    f.set_projection(projection);
    const double truth = static_cast<double>(brute_force_count(f));
    ASSERT_GT(truth, 1000.0);
    const ApproxCountResult r = count_approx(f, seeded(seed));
    ASSERT_TRUE(r.complete);
    hits += within_factor(r.estimate, truth, 0.8);
  }
  EXPECT_GE(hits, 3);  // these seeds give 4 of 4
}

TEST(ApproxCounter, Random3CnfWith22ProjectedVariables) {
  Cnf f = random_kcnf(22, 60, 3, 7);
  const double truth = static_cast<double>(brute_force_count(f));
  const ApproxCountResult r = count_approx(f, seeded(7));
  ASSERT_TRUE(r.complete);
  EXPECT_TRUE(within_factor(r.estimate, truth, 0.8)) << r.estimate << " vs " << truth;
}

// ---- projection, determinism, parameters

TEST(ApproxCounter, UnprojectedExtensionsAreNotMultipliedIn) {
  Cnf small = free_and_blocks(3, 2, 6);  // 2^3 * 16 = 128 > 72, each with 2^6 extensions
  EXPECT_EQ(brute_force_count(small), 128u);
  const Cnf exact = free_and_blocks(2, 1, 8);  // 16 models, 2^8 extensions each
  ApproxCountResult r = count_approx(exact, seeded(1));
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.estimate, 16);
  r = count_approx(small, seeded(1));
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(within_factor(r.estimate, 128, 0.8)) << r.estimate;
  const Cnf big = free_and_blocks(30, 0, 20);  // 2^30, not 2^50
  r = count_approx(big, seeded(2));
  EXPECT_TRUE(within_factor(r.estimate, std::ldexp(1.0, 30), 0.8)) << r.estimate;
}

TEST(ApproxCounter, SameSeedSameResultAtAnyThreadCount) {
  const Cnf f = free_and_blocks(25, 2, 4);
  ApproxCountParams p = seeded(11);
  p.delta = 0.05;  // t = 7 measurements, so that threads share them out
  std::vector<ApproxCountResult> results;
  for (const int threads : {1, 2, 4}) {
    p.threads = threads;
    results.push_back(count_approx(f, p));
  }
  EXPECT_EQ(results[0].measurements, 7u);
  for (const ApproxCountResult& r : results) {
    EXPECT_EQ(r.estimate, results[0].estimate);
    EXPECT_EQ(r.measured, results[0].measured);
    EXPECT_EQ(r.hashes, results[0].hashes);
  }
  p.seed = 12;
  const ApproxCountResult other = count_approx(f, p);
  EXPECT_NE(other.measured, results[0].measured);
}

TEST(ApproxCounter, MeasurementCountFollowsDelta) {
  const Cnf f = free_and_blocks(10, 0, 0);
  ApproxCountParams p = seeded(1);
  for (const auto& [delta, t] : std::vector<std::pair<double, std::uint32_t>>{
           {0.2, 3}, {0.1, 5}, {0.05, 7}, {0.01, 11}, {0.5, 1}}) {
    p.delta = delta;
    const ApproxCountResult r = count_approx(f, p);
    EXPECT_EQ(r.measurements, t) << delta;
    EXPECT_EQ(r.measured.size(), t) << delta;
  }
}

TEST(ApproxCounter, EstimateIsTheRoundedMedian) {
  // ApproxMC6 (eps in [sqrt(2)-1, 1)): cells below pivot/sqrt(2) count as pivot/sqrt(2).
  const Cnf f = free_and_blocks(12, 0, 0);
  const ApproxCountResult r = count_approx(f, seeded(3));
  ASSERT_EQ(r.measured.size(), 3u);
  const double pivot_floor = 9.84 * 2.25 * 2.25 / std::sqrt(2.0);
  std::vector<double> values;
  std::uint32_t min_m = *std::min_element(r.hashes.begin(), r.hashes.end());
  for (std::size_t i = 0; i < 3; ++i) {
    const double cell = std::ldexp(r.measured[i].get_d(), -static_cast<int>(r.hashes[i]));
    EXPECT_LE(cell, 72.0);
    values.push_back(std::max(cell, pivot_floor) * std::ldexp(1.0, r.hashes[i] - min_m));
  }
  std::sort(values.begin(), values.end());
  EXPECT_EQ(r.estimate.get_d(), std::ldexp(std::round(values[1]), min_m));
}

TEST(ApproxCounter, TimeLimitStopsAHardFormula) {
  // Pigeonhole 11 -> 10 is unsatisfiable and far beyond a CDCL solver in 0.3 s.
  Cnf f;
  const int pigeons = 11, holes = 10;
  auto var = [&](int p, int h) { return static_cast<Var>(p * holes + h + 1); };
  f.n_vars = pigeons * holes;
  for (int p = 0; p < pigeons; ++p) {
    std::vector<Var> some;
    for (int h = 0; h < holes; ++h) some.push_back(var(p, h));
    f.add_clause(some);
  }
  for (int h = 0; h < holes; ++h)
    for (int p = 0; p < pigeons; ++p)
      for (int q = p + 1; q < pigeons; ++q) f.add_clause({-var(p, h), -var(q, h)});
  ApproxCountParams p = seeded(1);
  p.time_limit = 0.3;
  const auto start = std::chrono::steady_clock::now();
  const ApproxCountResult r = count_approx(f, p);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(r.complete);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.estimate, 0);
  EXPECT_EQ(r.lower, 0);  // no model found: none exists
  EXPECT_EQ(r.stopped_by, "the time limit");
  EXPECT_LT(elapsed, 3.0);
}

TEST(ApproxCounter, TimeLimitDuringMeasurements) {
  const Cnf f = free_and_blocks(400, 0, 0);  // hundreds of hashes: more than 0.2 s
  ApproxCountParams p = seeded(1);
  p.time_limit = 0.2;
  p.threads = 2;
  const ApproxCountResult r = count_approx(f, p);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.estimate, 0);
  EXPECT_GE(r.lower, 73);  // the exact check found more than the threshold: certified
  EXPECT_LT(r.seconds, 3.0);
}

// One clause over 200,000 projected variables: with CryptoMiniSat's phase saving every SAT call
// of the bounded enumeration retraced the last model, moving the blocking clause's watch by a
// scan from its start (quadratic, inside the solver, where the time limit is not checked: about
// 40 s per call here, 20 min for 10^6 variables). Random polarities make it honour the limit.
TEST(ApproxCounter, LargeProjectionsHonourTheTimeLimit) {
  Cnf f;
  f.n_vars = 200000;
  std::vector<Var> clause(static_cast<std::size_t>(f.n_vars));
  for (Var v = 1; v <= f.n_vars; ++v) clause[static_cast<std::size_t>(v - 1)] = v;
  f.add_clause(clause);
  ApproxCountParams p = seeded(1);
  p.time_limit = 1.0;
  const ApproxCountResult r = count_approx(f, p);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.stopped_by, "the time limit");
  EXPECT_GE(r.lower, 10);
  EXPECT_LT(r.seconds, 10.0);
}

// Ctrl-C (interrupt_requested) stops every solver; what was found stays certified.
TEST(ApproxCounter, StopsOnInterruptWithWhatItFound) {
  const Cnf f = free_and_blocks(400, 0, 0);
  assay::InterruptScope scope;
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    assay::request_interrupt();
  });
  ApproxCountParams p = seeded(1);
  p.threads = 2;
  const ApproxCountResult r = count_approx(f, p);
  ctrl_c.join();
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.stopped_by, "an interrupt (Ctrl-C)");
  EXPECT_GE(r.lower, 73);
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(
      assay::count::guarantee(r).rfind("none: stopped by an interrupt (Ctrl-C) (at least ", 0), 0u);
  // A front end that polls (Python checks its signals from the calling thread): the poll runs
  // between the SAT calls made on that thread.
  const auto started = std::chrono::steady_clock::now();
  assay::InterruptScope polled(
      [&] { return std::chrono::steady_clock::now() - started > std::chrono::milliseconds(200); });
  p.threads = 1;
  const ApproxCountResult q = count_approx(f, p);
  EXPECT_FALSE(q.complete);
  EXPECT_EQ(q.stopped_by, "an interrupt (Ctrl-C)");
  EXPECT_LT(q.seconds, 5.0);
}

// A tiny epsilon makes cells of millions of models, each blocked by a clause over the
// projection: refused before any solver starts when that cannot fit, naming what to change.
TEST(ApproxCounter, TinyEpsilonThatCannotFitIsRefusedUpFront) {
  ApproxCountParams p = seeded(1);
  p.epsilon = 0.0008;  // cells of 15.4 million models; over 1000 projected variables, ~120 GB
  p.threads = 1;
  const Cnf f = free_and_blocks(1000, 0, 0);
  try {
    count_approx(f, p);
    FAIL() << "expected a refusal";
  } catch (const assay::Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(
        m.rfind("approximate count: cells of up to 15411921 models (epsilon 0.0008) over 1000 "
                "projected variables need about ",
                0),
        0u)
        << m;
    EXPECT_NE(m.find("GB (the formula, blocking clauses and kept models, 2 solver(s) at once), "
                     "more than the "),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("GB this process can allocate; raise epsilon or lower threads"),
              std::string::npos)
        << m;
  }
}

class RecordingSink : public assay::ProgressSink {
 public:
  void update(const std::string& task, std::uint64_t done, std::uint64_t total) override {
    task_ = task;
    done_ = done;
    total_ = total;
  }
  void finish(const std::string&) override { finished_ = true; }
  std::string task_;
  std::uint64_t done_ = 0, total_ = 0;
  bool finished_ = false;
};

// Progress counts SAT calls: threshold + 1 per cell (73 at epsilon 0.8), over the cells a run is
// expected to count (1 + 2 log2(n + 2) + 4 (t - 1): 19 for 20 projected variables, t = 3), so
// a cell of millions of models (a tiny epsilon) moves the bar too.
TEST(ApproxCounter, ReportsSatCallsAsProgress) {
  auto sink = std::make_shared<RecordingSink>();
  auto previous = assay::set_progress_sink(sink);
  ApproxCountParams p = seeded(1);
  p.progress_task = "approx";
  count_approx(free_and_blocks(20, 0, 0), p);
  assay::set_progress_sink(previous);
  EXPECT_TRUE(sink->finished_);
  EXPECT_EQ(sink->task_, "approx");
  EXPECT_EQ(sink->total_, 73u * 19u);
  EXPECT_GT(sink->done_, 0u);
}

TEST(ApproxCounter, BadParametersAreErrors) {
  const Cnf f = free_and_blocks(3, 0, 0);
  auto with = [](auto change) {
    ApproxCountParams p;
    change(p);
    return p;
  };
  EXPECT_THROW_MSG(count_approx(f, with([](auto& p) { p.epsilon = 0; })), assay::Error,
                   "approximate count: expected epsilon > 0, found 0");
  EXPECT_THROW_MSG(count_approx(f, with([](auto& p) { p.epsilon = NAN; })), assay::Error,
                   "approximate count: expected epsilon > 0, found nan");
  EXPECT_THROW_MSG(count_approx(f, with([](auto& p) { p.epsilon = 1e-5; })), assay::Error,
                   "approximate count: expected an epsilon whose cells hold at most 16777216 "
                   "models, found epsilon 1e-05 (cells of 9.84e+10 models)");
  EXPECT_THROW_MSG(count_approx(f, with([](auto& p) { p.delta = 0; })), assay::Error,
                   "approximate count: expected delta in (0, 1), found 0");
  EXPECT_THROW_MSG(count_approx(f, with([](auto& p) { p.delta = 1; })), assay::Error,
                   "approximate count: expected delta in (0, 1), found 1");
  EXPECT_THROW_MSG(count_approx(f, with([](auto& p) { p.threads = -1; })), assay::Error,
                   "approximate count: expected threads >= 0, found -1");
  EXPECT_THROW_MSG(count_approx(f, with([](auto& p) { p.time_limit = -2; })), assay::Error,
                   "approximate count: expected time_limit >= 0 seconds (0 = none), found -2");
}

TEST(ApproxCounter, MalformedCnfIsAnError) {
  Cnf f;
  f.n_vars = 3;
  f.add_clause({1, -4});
  EXPECT_THROW_MSG(count_approx(f, seeded(1)), assay::Error,
                   "Cnf: expected variables in 1..3 in clause 1, found -4");
  Cnf g;
  g.n_vars = 3;
  g.projection = {2, 2};
  g.has_projection = true;
  EXPECT_THROW_MSG(enumerate_projected(g, 5, nullptr).found, assay::Error,
                   "Cnf: expected a sorted projection without repeats, found 2 after 2");
}

// ---- enumeration

TEST(EnumerateProjected, FindsEachProjectedModelOnce) {
  Cnf f = random_kcnf(12, 40, 3, 5);
  f.set_projection({1, 3, 4, 6, 7, 9, 12});
  const std::uint64_t truth = brute_force_count(f);
  std::set<std::vector<bool>> seen;
  const std::uint64_t n = enumerate_projected(f, 1000, [&](const std::vector<bool>& a) {
                            EXPECT_EQ(a.size(), 7u);
                            EXPECT_TRUE(seen.insert(a).second);
                          }).found;
  EXPECT_EQ(n, truth);
  EXPECT_EQ(seen.size(), truth);
  // Each assignment extends to a model: fixing it as units keeps the formula satisfiable.
  for (const auto& a : seen) {
    Cnf g = f;
    for (std::size_t i = 0; i < a.size(); ++i)
      g.add_clause({a[i] ? f.projection[i] : -f.projection[i]});
    g.set_projection({});
    EXPECT_EQ(enumerate_projected(g, 2, nullptr).found, 1u);
  }
}

TEST(EnumerateProjected, StopsAtTheLimit) {
  const Cnf f = free_and_blocks(10, 0, 0);
  std::uint64_t visits = 0;
  EXPECT_EQ(enumerate_projected(f, 5, [&](const std::vector<bool>&) { ++visits; }).found, 5u);
  EXPECT_EQ(visits, 5u);
  EXPECT_EQ(enumerate_projected(f, 0, nullptr).found, 0u);
}

TEST(EnumerateProjected, StopsAtTheTimeLimit) {
  // 2^40 projected models: no enumeration finishes; the deadline stops it with a lower bound.
  const Cnf f = free_and_blocks(40, 0, 0);
  const auto start = std::chrono::steady_clock::now();
  const ProjectedEnumeration e = enumerate_projected(f, std::uint64_t{1} << 40, nullptr, 0.2);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(e.interrupted);
  EXPECT_GT(e.found, 0u);
  EXPECT_LT(seconds, 5.0);
  EXPECT_THROW_MSG(enumerate_projected(f, 1, nullptr, -1.0), assay::Error,
                   "enumerate_projected: expected time_limit >= 0, found -1");
}

TEST(EnumerateProjected, HandlesNativeXors) {
  const auto [f, free_dims] = random_xor_system(9, 4, 3);
  EXPECT_EQ(enumerate_projected(f, 1000, nullptr).found, std::uint64_t{1} << free_dims);
  EXPECT_EQ(brute_force_count(f), std::uint64_t{1} << free_dims);
}

}  // namespace
