// The exact projected model counter against brute force (random k-CNFs with and without
// projections, Tseitin circuits, formulas made to pollute the component cache), known counts of
// graph properties, edge cases, the time limit's bounds, progress and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <numeric>
#include <thread>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/count/approx_counter.hpp"
#include "assay/count/cnf.hpp"
#include "assay/count/exact_counter.hpp"
#include "count/cnf_builder.hpp"
#include "count/exact/circuit.hpp"
#include "test_util.hpp"

namespace assay::count {
namespace {

// ------------------------------------------------------------------ brute force

// The projected model count by enumeration, 64 assignments at a time: the unprojected
// variables take the low bits, so a model's projected part is its index shifted right.
std::uint64_t brute_force(Cnf f) {
  expand_xors(f);
  const std::vector<Var> projected = f.projected();
  std::vector<std::uint8_t> is_projected(static_cast<std::size_t>(f.n_vars) + 1, 0);
  for (const Var v : projected) is_projected[static_cast<std::size_t>(v)] = 1;
  std::vector<int> bit(static_cast<std::size_t>(f.n_vars) + 1, 0);
  int next = 0;
  for (Var v = 1; v <= f.n_vars; ++v) {
    if (!is_projected[static_cast<std::size_t>(v)]) bit[static_cast<std::size_t>(v)] = next++;
  }
  const int n_free = next;
  for (const Var v : projected) bit[static_cast<std::size_t>(v)] = next++;
  EXPECT_LE(f.n_vars, 30);
  const std::uint64_t patterns[6] = {0xAAAAAAAAAAAAAAAAULL, 0xCCCCCCCCCCCCCCCCULL,
                                     0xF0F0F0F0F0F0F0F0ULL, 0xFF00FF00FF00FF00ULL,
                                     0xFFFF0000FFFF0000ULL, 0xFFFFFFFF00000000ULL};
  const std::uint64_t n_assignments = std::uint64_t{1} << f.n_vars;
  std::vector<std::uint8_t> found(std::size_t{1} << projected.size(), 0);
  std::vector<std::uint64_t> mask(static_cast<std::size_t>(f.n_vars) + 1);
  for (std::uint64_t base = 0; base < n_assignments; base += 64) {
    for (Var v = 1; v <= f.n_vars; ++v) {
      const int b = bit[static_cast<std::size_t>(v)];
      mask[static_cast<std::size_t>(v)] =
          b < 6 ? patterns[b] : (((base >> b) & 1) ? ~std::uint64_t{0} : 0);
    }
    std::uint64_t models =
        n_assignments < 64 ? (std::uint64_t{1} << n_assignments) - 1 : ~std::uint64_t{0};
    for (std::size_t c = 0; c < f.n_clauses() && models; ++c) {
      std::uint64_t sat = 0;
      for (const Var l : f.clause(c)) {
        const std::uint64_t m = mask[static_cast<std::size_t>(l > 0 ? l : -l)];
        sat |= l > 0 ? m : ~m;
      }
      models &= sat;
    }
    while (models) {
      const int i = std::countr_zero(models);
      models &= models - 1;
      found[(base + static_cast<std::uint64_t>(i)) >> n_free] = 1;
    }
  }
  return static_cast<std::uint64_t>(std::count(found.begin(), found.end(), 1));
}

// ------------------------------------------------------------------ generators

Cnf random_kcnf(Rng& rng, int n_vars, int n_clauses, int k) {
  Cnf f;
  f.n_vars = n_vars;
  std::vector<Var> clause;
  for (int c = 0; c < n_clauses; ++c) {
    clause.clear();
    while (static_cast<int>(clause.size()) < k) {
      const auto v = static_cast<Var>(rng.below(static_cast<std::uint64_t>(n_vars)) + 1);
      if (std::find(clause.begin(), clause.end(), v) != clause.end() ||
          std::find(clause.begin(), clause.end(), -v) != clause.end()) {
        continue;
      }
      clause.push_back(rng.below(2) ? v : -v);
    }
    f.add_clause(clause);
  }
  return f;
}

void random_projection(Rng& rng, Cnf& f, int n_projected) {
  std::vector<Var> vars(static_cast<std::size_t>(f.n_vars));
  std::iota(vars.begin(), vars.end(), 1);
  for (std::size_t i = vars.size(); i > 1; --i) std::swap(vars[i - 1], vars[rng.below(i)]);
  vars.resize(static_cast<std::size_t>(n_projected));
  f.set_projection(vars);
}

// A random circuit of AND / OR / XOR gates over `n_inputs` inputs, Tseitin-encoded (each gate
// output a fresh variable equivalent to its gate), with some gate outputs asserted. The
// projection is the first `n_projected` inputs. The count is found by evaluating the circuit.
struct Circuit {
  Cnf cnf;
  std::uint64_t count = 0;
};

Circuit random_circuit(Rng& rng, int n_inputs, int n_gates, int n_asserted, int n_projected) {
  struct Gate {
    int op;
    Var a, b;  // signals (variables), negative = negated
  };
  Circuit out;
  Cnf& f = out.cnf;
  f.n_vars = n_inputs;
  std::vector<Gate> gates;
  for (int g = 0; g < n_gates; ++g) {
    const auto pick = [&] {
      const Var v = static_cast<Var>(rng.below(static_cast<std::uint64_t>(f.n_vars)) + 1);
      return rng.below(2) ? v : -v;
    };
    Gate gate{static_cast<int>(rng.below(3)), pick(), pick()};
    while (std::abs(gate.b) == std::abs(gate.a)) gate.b = pick();
    const Var o = f.new_var();
    const Var a = gate.a, b = gate.b;
    if (gate.op == 0) {  // o <=> a & b
      f.add_clause({-o, a});
      f.add_clause({-o, b});
      f.add_clause({o, -a, -b});
    } else if (gate.op == 1) {  // o <=> a | b
      f.add_clause({o, -a});
      f.add_clause({o, -b});
      f.add_clause({-o, a, b});
    } else {  // o <=> a ^ b
      f.add_clause({-o, a, b});
      f.add_clause({-o, -a, -b});
      f.add_clause({o, -a, b});
      f.add_clause({o, a, -b});
    }
    gates.push_back(gate);
  }
  std::vector<Var> asserted;
  for (int i = 0; i < n_asserted; ++i) {
    const Var o = static_cast<Var>(
        n_inputs + 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(n_gates))));
    asserted.push_back(rng.below(2) ? o : -o);
  }
  for (const Var o : asserted) f.add_clause({o});
  std::vector<Var> projection(static_cast<std::size_t>(n_projected));
  std::iota(projection.begin(), projection.end(), 1);
  f.set_projection(projection);
  // Evaluate: projected inputs take the high bits of the enumeration index.
  const int n_hidden = n_inputs - n_projected;
  std::vector<std::uint8_t> found(std::size_t{1} << n_projected, 0);
  std::vector<std::uint64_t> value(static_cast<std::size_t>(f.n_vars) + 1);
  const std::uint64_t patterns[6] = {0xAAAAAAAAAAAAAAAAULL, 0xCCCCCCCCCCCCCCCCULL,
                                     0xF0F0F0F0F0F0F0F0ULL, 0xFF00FF00FF00FF00ULL,
                                     0xFFFF0000FFFF0000ULL, 0xFFFFFFFF00000000ULL};
  const auto signal = [&](Var s) {
    const std::uint64_t m = value[static_cast<std::size_t>(std::abs(s))];
    return s > 0 ? m : ~m;
  };
  const std::uint64_t total = std::uint64_t{1} << n_inputs;
  for (std::uint64_t base = 0; base < total; base += 64) {
    for (int i = 0; i < n_inputs; ++i) {
      // input i+1 is projected for i < n_projected: bit n_hidden + i; hidden ones below
      const int b = i < n_projected ? n_hidden + i : i - n_projected;
      value[static_cast<std::size_t>(i) + 1] =
          b < 6 ? patterns[b] : (((base >> b) & 1) ? ~std::uint64_t{0} : 0);
    }
    for (int g = 0; g < n_gates; ++g) {
      const Gate& gate = gates[static_cast<std::size_t>(g)];
      const std::uint64_t a = signal(gate.a), b = signal(gate.b);
      value[static_cast<std::size_t>(n_inputs + 1 + g)] = gate.op == 0   ? (a & b)
                                                          : gate.op == 1 ? (a | b)
                                                                         : (a ^ b);
    }
    std::uint64_t ok = total < 64 ? (std::uint64_t{1} << total) - 1 : ~std::uint64_t{0};
    for (const Var o : asserted) ok &= signal(o);
    while (ok) {
      const int i = std::countr_zero(ok);
      ok &= ok - 1;
      found[(base + static_cast<std::uint64_t>(i)) >> n_hidden] = 1;
    }
  }
  out.count = static_cast<std::uint64_t>(std::count(found.begin(), found.end(), 1));
  return out;
}

// x[i*n+j] is the edge i -> j of a directed graph on n nodes.
Cnf graph_property(int n, const std::string& property) {
  Cnf f;
  f.n_vars = n * n;
  const auto x = [n](int i, int j) { return static_cast<Var>(i * n + j + 1); };
  const bool reflexive = property == "reflexive" || property == "preorder" ||
                         property == "partialorder" || property == "equivalence" ||
                         property == "totalorder";
  const bool irreflexive = property == "irreflexive" || property == "strictorder";
  const bool transitive =
      property != "reflexive" && property != "irreflexive" && property != "antisymmetric";
  const bool antisymmetric =
      property == "antisymmetric" || property == "partialorder" || property == "totalorder";
  for (int i = 0; i < n; ++i) {
    if (reflexive) f.add_clause({x(i, i)});
    if (irreflexive) f.add_clause({-x(i, i)});
    for (int j = 0; j < n; ++j) {
      if (transitive) {
        for (int k = 0; k < n; ++k) f.add_clause({-x(i, j), -x(j, k), x(i, k)});
      }
      if (j <= i) continue;
      if (antisymmetric) f.add_clause({-x(i, j), -x(j, i)});
      if (property == "equivalence") {
        f.add_clause({-x(i, j), x(j, i)});
        f.add_clause({x(i, j), -x(j, i)});
      }
      if (property == "totalorder") f.add_clause({x(i, j), x(j, i)});
    }
  }
  return f;
}

// The search (the circuit route off: these tests are about the search; the circuit route has
// its own tests below, which compare it with this).
ExactCountResult count(const Cnf& f, bool preprocess = true, std::size_t oracle = 2000) {
  ExactCountParams p;
  p.preprocess = preprocess;
  p.sat_oracle_clauses = oracle;
  p.progress_task = "";
  p.circuit_projected = 0;
  return count_exact(f, p);
}

std::uint64_t count_u64(const Cnf& f, bool preprocess = true, std::size_t oracle = 2000) {
  const ExactCountResult r = count(f, preprocess, oracle);
  EXPECT_FALSE(r.stats.circuit);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.lower, r.upper);
  EXPECT_EQ(r.count, r.lower);
  return r.count.get_ui();
}

// Counts with enumeration (no decomposition below components with at most `projected`
// projected variables) forced on, whatever the component's size.
ExactCountResult count_enumerating(const Cnf& f, std::uint32_t projected, bool preprocess = true,
                                   double time_limit = 0.0) {
  ExactCountParams p;
  p.preprocess = preprocess;
  p.enumerate_projected = projected;
  p.enumerate_clauses_per_projected = 0;
  p.time_limit = time_limit;
  p.progress_task = "";
  p.circuit_projected = 0;
  return count_exact(f, p);
}

// ------------------------------------------------------------------ random formulas

TEST(ExactCounter, RandomKCnfEqualsBruteForce) {
  // ratios below and around each k's satisfiability threshold
  const double ratios[6][3] = {
      {}, {}, {0.5, 0.9, 1.2}, {2.0, 3.5, 4.3}, {4.0, 7.0, 9.9}, {8.0, 14.0, 21.0}};
  int checked = 0;
  for (std::uint64_t seed = 0; seed < 240; ++seed) {
    Rng rng(seed);
    const int k = 2 + static_cast<int>(seed % 4);
    const int n = 8 + static_cast<int>(rng.below(11));  // 8..18
    const double ratio = ratios[k][rng.below(3)];
    Cnf f = random_kcnf(rng, n, static_cast<int>(ratio * n), k);
    const int mode = static_cast<int>(seed / 4 % 3);  // none, half, a few projected
    if (mode == 1) random_projection(rng, f, n / 2);
    if (mode == 2) random_projection(rng, f, 1 + static_cast<int>(rng.below(4)));
    const std::uint64_t expected = brute_force(f);
    const bool preprocess = (seed / 12) % 2 == 0;
    EXPECT_EQ(count_u64(f, preprocess), expected)
        << "seed " << seed << " k " << k << " n " << n << " preprocess " << preprocess;
    ++checked;
  }
  EXPECT_EQ(checked, 240);
}

TEST(ExactCounter, LargerProjectionsEqualBruteForce) {
  // up to 24 projected variables among up to 26
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    Rng rng(1000 + seed);
    const int k = 3 + static_cast<int>(seed % 2);
    const int n = 20 + static_cast<int>(rng.below(7));
    Cnf f = random_kcnf(rng, n, static_cast<int>((k == 3 ? 3.0 : 6.0) * n), k);
    if (seed % 3 != 0) random_projection(rng, f, std::min(24, n - 2));
    EXPECT_EQ(count_u64(f, seed % 2 == 0), brute_force(f)) << "seed " << seed;
  }
}

TEST(ExactCounter, TseitinCircuitsEqualEvaluation) {
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    Rng rng(2000 + seed);
    const int inputs = 8 + static_cast<int>(rng.below(10));
    const int projected = seed % 3 == 0 ? inputs : inputs - 1 - static_cast<int>(rng.below(4));
    const Circuit c = random_circuit(rng, inputs, inputs + static_cast<int>(rng.below(30)),
                                     1 + static_cast<int>(rng.below(4)), projected);
    EXPECT_EQ(count_u64(c.cnf, seed % 2 == 0), c.count) << "seed " << seed;
  }
}

TEST(ExactCounter, TseitinCircuitOn24ProjectedInputs) {
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    Rng rng(3000 + seed);
    const Circuit c = random_circuit(rng, 24, 60, 3, 24);
    EXPECT_EQ(count_u64(c.cnf), c.count) << "seed " << seed;
    const ExactCountResult r = count_exact(c.cnf);  // the circuit route
    EXPECT_TRUE(r.complete && r.stats.circuit) << "seed " << seed;
    EXPECT_EQ(r.count, c.count) << "seed " << seed;
  }
}

TEST(ExactCounter, EnumerationEqualsBruteForce) {
  // everything enumerated (64), or only components with few projected variables left (4)
  for (std::uint64_t seed = 0; seed < 120; ++seed) {
    Rng rng(7000 + seed);
    const std::uint32_t threshold = seed % 2 == 0 ? 64 : 4;
    const bool preprocess = seed % 4 < 2;
    if (seed % 3 == 0) {
      const int inputs = 8 + static_cast<int>(rng.below(10));
      const int projected = seed % 2 == 0 ? inputs : inputs - 1 - static_cast<int>(rng.below(4));
      const Circuit c = random_circuit(rng, inputs, inputs + static_cast<int>(rng.below(30)),
                                       1 + static_cast<int>(rng.below(4)), projected);
      const ExactCountResult r = count_enumerating(c.cnf, threshold, preprocess);
      EXPECT_TRUE(r.complete);
      EXPECT_EQ(r.count, c.count) << "seed " << seed;
      continue;
    }
    const int k = 2 + static_cast<int>(seed % 3);
    const int n = 10 + static_cast<int>(rng.below(9));
    Cnf f = random_kcnf(rng, n, static_cast<int>((k == 2 ? 0.9 : k == 3 ? 3.0 : 6.0) * n), k);
    if (seed % 3 == 1) random_projection(rng, f, n / 2);
    const ExactCountResult r = count_enumerating(f, threshold, preprocess);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.count, brute_force(f)) << "seed " << seed;
  }
}

TEST(ExactCounter, EnumerationTimeLimitGivesCertifiedBounds) {
  Rng rng(7500);
  const Circuit c = random_circuit(rng, 24, 60, 3, 24);
  for (const double limit : {0.0005, 0.002, 0.01}) {
    const ExactCountResult r = count_enumerating(c.cnf, 64, true, limit);
    EXPECT_LE(r.lower, c.count) << limit;
    EXPECT_GE(r.upper, c.count) << limit;
    EXPECT_LE(r.upper, mpz_class(1) << 24);
  }
}

// Formulas on which learned clauses prune a component's models next to an unsatisfiable
// sibling. With a1 = 0, two paths (x and z) switch on, when w = 0, an unsatisfiable core over b3
// and b4; conflicts there teach (a1 | w | b3) and (a1 | w | -b3). Under w = 0, y = 1, the
// components A = {a1, a2, ...} and B = {b3, b4, b5, ...} split, B has no model, and while A is
// counted those two clauses refute a1 = 0 through B's b3: A's count comes out short. Cached,
// it would be reused under w = 1, where B has models. Padding clauses over fresh variables
// raise the occurrence counts of w, y, b3 and a1 so that the branching heuristic takes them in
// that order often enough (without the counter's rule, about 1 in 20 of these miscount).
Cnf polluting_pattern(Rng& rng) {
  const int n = 21;
  std::vector<Var> perm(n);
  std::iota(perm.begin(), perm.end(), 1);
  for (int i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);
  std::vector<int> flip(n + 1);
  for (int& s : flip) s = rng.below(2) ? 1 : -1;
  const auto lit = [&](int l) {
    const int v = std::abs(l);
    return static_cast<Var>(perm[v - 1] * flip[v] * (l > 0 ? 1 : -1));
  };
  Cnf f;
  f.n_vars = n;
  const auto add = [&](std::initializer_list<int> clause) {
    std::vector<Var> c;
    for (const int l : clause) c.push_back(lit(l));
    f.add_clause(c);
  };
  const int w = 1, y = 2, b3 = 3, a1 = 4, a2 = 5, b4 = 6, b5 = 7, x = 8, z = 9;
  add({x, a1});
  add({z, a1});
  add({a1, a2});
  for (const int s : {1, -1}) {
    add({-x, w, s * b3, b4});
    add({-z, w, s * b3, -b4});
  }
  add({b4, b5});
  add({-y, x});
  add({-y, z});
  add({y, a2, b5});
  const int hubs[4] = {w, y, b3, a1};
  const int pads[4] = {8, 6, 4, 3};
  for (int h = 0; h < 4; ++h) {
    const int p = 10 + 3 * h;  // three fresh variables per hub
    std::vector<int> signs(8);
    std::iota(signs.begin(), signs.end(), 0);
    for (int i = 7; i > 0; --i) std::swap(signs[i], signs[rng.below(i + 1)]);
    for (int k = 0; k < pads[h]; ++k) {
      const int m = signs[k];
      add({rng.below(2) ? hubs[h] : -hubs[h], (m & 1) ? p : -p, (m & 2) ? p + 1 : -(p + 1),
           (m & 4) ? p + 2 : -(p + 2)});
    }
  }
  return f;
}

TEST(ExactCounter, CachePollutionByLearnedClausesIsUndone) {
  for (std::uint64_t seed = 0; seed < 160; ++seed) {
    Rng rng(seed);
    Cnf f = polluting_pattern(rng);
    if (rng.below(3) == 0) {
      std::vector<Var> projection;
      for (Var v = 1; v <= f.n_vars; ++v) {
        if (rng.below(4) != 0) projection.push_back(v);
      }
      f.set_projection(projection);
    }
    const std::uint64_t expected = brute_force(f);
    EXPECT_EQ(count_u64(f, false), expected) << "seed " << seed;
    // enumerating small components: their counts are cached next to split siblings too
    EXPECT_EQ(count_enumerating(f, 6, false).count, expected) << "seed " << seed;
  }
  // the smallest such formula (whether it pollutes depends on the branching order)
  const Cnf small = parse_dimacs(
      "p cnf 9 11\n8 4 0\n9 4 0\n4 5 0\n-8 1 3 6 0\n-9 1 3 -6 0\n-8 1 -3 6 0\n"
      "-9 1 -3 -6 0\n6 7 0\n-2 8 0\n-2 9 0\n2 5 7 0\n");
  EXPECT_EQ(count_u64(small, false), 84u);
  EXPECT_EQ(brute_force(small), 84u);
}

// Random groups of variables joined by switch variables: components split off after a few
// decisions, some of them unsatisfiable.
Cnf switched_groups(Rng& rng, int n_groups, int group_size, int n_switches) {
  Cnf f;
  f.n_vars = n_switches + n_groups * group_size;
  std::vector<Var> clause;
  for (int g = 0; g < n_groups; ++g) {
    const Var first = n_switches + g * group_size + 1;
    const int n_clauses = static_cast<int>(group_size * (3.0 + 2.0 * rng.uniform()));
    for (int c = 0; c < n_clauses; ++c) {
      clause.clear();
      while (clause.size() < 3) {
        const Var v = first + static_cast<Var>(rng.below(static_cast<std::uint64_t>(group_size)));
        if (std::find(clause.begin(), clause.end(), v) != clause.end() ||
            std::find(clause.begin(), clause.end(), -v) != clause.end()) {
          continue;
        }
        clause.push_back(rng.below(2) ? v : -v);
      }
      if (rng.below(3) == 0) {
        const Var s = static_cast<Var>(1 + rng.below(static_cast<std::uint64_t>(n_switches)));
        clause.push_back(rng.below(2) ? s : -s);
        if (rng.below(4) == 0) {
          const int other = static_cast<int>(rng.below(static_cast<std::uint64_t>(n_groups)));
          const Var w = n_switches + other * group_size + 1 +
                        static_cast<Var>(rng.below(static_cast<std::uint64_t>(group_size)));
          if (std::find(clause.begin(), clause.end(), w) == clause.end() &&
              std::find(clause.begin(), clause.end(), -w) == clause.end()) {
            clause.push_back(rng.below(2) ? w : -w);
          }
        }
      }
      f.add_clause(clause);
    }
  }
  return f;
}

TEST(ExactCounter, SwitchedGroupsEqualBruteForce) {
  int checked = 0;
  for (std::uint64_t seed = 0; seed < 120; ++seed) {
    Rng rng(4000 + seed);
    const int groups = 2 + static_cast<int>(rng.below(3));
    const int size = 4 + static_cast<int>(rng.below(3));
    const int switches = 1 + static_cast<int>(rng.below(3));
    Cnf f = switched_groups(rng, groups, size, switches);
    if (f.n_vars > 22) continue;
    if (seed % 2 == 1) random_projection(rng, f, f.n_vars / 2 + 1);
    EXPECT_EQ(count_u64(f, false), brute_force(f)) << "seed " << seed;
    ++checked;
  }
  EXPECT_GT(checked, 80);
}

// The same formula with its variables renamed (and the projection with them).
Cnf renamed(const Cnf& f, Rng& rng) {
  std::vector<Var> to(static_cast<std::size_t>(f.n_vars) + 1);
  std::iota(to.begin(), to.end(), 0);
  for (std::size_t i = to.size() - 1; i > 1; --i) std::swap(to[i], to[1 + rng.below(i)]);
  Cnf g;
  g.n_vars = f.n_vars;
  for (std::size_t c = 0; c < f.n_clauses(); ++c) {
    std::vector<Var> clause;
    for (const Var l : f.clause(c)) clause.push_back(l > 0 ? to[l] : -to[-l]);
    g.add_clause(clause);
  }
  std::vector<Var> projection;
  for (const Var v : f.projected()) projection.push_back(to[static_cast<std::size_t>(v)]);
  g.set_projection(projection);
  return g;
}

TEST(ExactCounter, LargerProjectedFormulasAgreeUnderRenaming) {
  // beyond brute force: 70 variables, 35 projected, many learned clauses over unprojected
  // variables next to pure-literal choices (conflict analysis must step over those)
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    Rng rng(6000 + seed);
    Cnf f = random_kcnf(rng, 70, 210, 3);
    std::vector<Var> half(35);
    std::iota(half.begin(), half.end(), 1);
    f.set_projection(half);
    const ExactCountResult a = count(f);
    const ExactCountResult b = count(renamed(f, rng));
    EXPECT_TRUE(a.complete && b.complete);
    EXPECT_EQ(a.count, b.count) << "seed " << seed;
    EXPECT_GT(a.stats.conflicts, 0u);
    EXPECT_GT(a.stats.pure_literals, 0u);
  }
}

TEST(ExactCounter, SatOracleAndInPlaceSearchAgree) {
  // every component without projected variables goes to CaDiCaL (threshold 1) or is searched
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    Rng rng(5000 + seed);
    Cnf f = random_kcnf(rng, 16, 50, 3);
    random_projection(rng, f, 5);
    const std::uint64_t expected = brute_force(f);
    EXPECT_EQ(count_u64(f, true, 1), expected) << "seed " << seed;
    EXPECT_EQ(count_u64(f, false, 0), expected) << "seed " << seed;
  }
}

// ------------------------------------------------------------------ known counts

TEST(ExactCounter, GraphPropertiesHaveTheirKnownCounts) {
  struct Case {
    const char* property;
    int n;
    std::uint64_t count;
  };
  const Case cases[] = {
      {"reflexive", 4, 1u << 12},       {"reflexive", 5, 1u << 20}, {"antisymmetric", 4, 16 * 729},
      {"antisymmetric", 5, 32 * 59049}, {"transitive", 4, 3994},    {"transitive", 5, 154303},
      {"transitive", 6, 9415189},       {"preorder", 4, 355},       {"preorder", 5, 6942},
      {"preorder", 6, 209527},          {"strictorder", 4, 219},    {"strictorder", 5, 4231},
      {"strictorder", 6, 130023},       {"partialorder", 4, 219},   {"partialorder", 5, 4231},
      {"partialorder", 6, 130023},      {"equivalence", 4, 15},     {"equivalence", 5, 52},
      {"equivalence", 6, 203},          {"totalorder", 4, 24},      {"totalorder", 5, 120},
      {"totalorder", 6, 720},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(count_u64(graph_property(c.n, c.property)), c.count) << c.property << " " << c.n;
  }
  // not transitive: a violated triple exists, each triple a one-way definition t => (i->j,
  // j->k, not i->k) of an unprojected variable, and one clause over them (the pure-literal rule
  // of the search sets a t as soon as its triple is violated)
  for (const int n : {4, 5}) {
    Cnf f = graph_property(n, "reflexive");
    f.literals.clear();
    f.starts = {0};
    const auto x = [n](int i, int j) { return static_cast<Var>(i * n + j + 1); };
    std::vector<Var> any;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        for (int k = 0; k < n; ++k) {
          if (i == j || j == k) continue;
          const Var t = f.new_var();
          f.add_clause({-t, x(i, j)});
          f.add_clause({-t, x(j, k)});
          f.add_clause({-t, -x(i, k)});
          any.push_back(t);
        }
      }
    }
    f.add_clause(any);
    std::vector<Var> edges(static_cast<std::size_t>(n * n));
    std::iota(edges.begin(), edges.end(), 1);
    f.set_projection(edges);
    const std::uint64_t all = std::uint64_t{1} << (n * n);
    EXPECT_EQ(count_u64(f), all - (n == 4 ? 3994u : 154303u)) << n;
  }
  // the search alone (no preprocessing) on the 5-node ones
  EXPECT_EQ(count_u64(graph_property(5, "transitive"), false), 154303u);
  EXPECT_EQ(count_u64(graph_property(5, "preorder"), false), 6942u);
}

// ------------------------------------------------------------------ edge cases

TEST(ExactCounter, EmptyFormulaCountsEveryAssignment) {
  Cnf f;
  f.n_vars = 70;
  const ExactCountResult r = count(f);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.count, mpz_class(1) << 70);
  EXPECT_EQ(r.n_projected, 70);
  Cnf none;
  EXPECT_EQ(count(none).count, 1);
}

TEST(ExactCounter, ManyUnusedVariablesAreFree) {
  Cnf f;
  f.n_vars = 3'000'000;
  f.add_clause({1, -2});
  f.add_clause({2, 3000000});
  const ExactCountResult r = count(f);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.count, mpz_class(4) << (3'000'000 - 3));  // 4 of the 8 values of 1, 2, 3000000
  EXPECT_LT(r.seconds, 5.0);
}

TEST(ExactCounter, UnsatisfiableCountsZero) {
  Cnf f;
  f.n_vars = 2;
  f.add_clause({1, 2});
  f.add_clause({-1, 2});
  f.add_clause({1, -2});
  f.add_clause({-1, -2});
  for (const bool pre : {true, false}) {
    const ExactCountResult r = count(f, pre);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.count, 0);
    EXPECT_EQ(r.upper, 0);
  }
  Cnf empty_clause;
  empty_clause.n_vars = 3;
  empty_clause.add_clause(std::vector<Var>{});
  EXPECT_EQ(count(empty_clause).count, 0);
}

TEST(ExactCounter, EmptyProjectionCountsSatisfiability) {
  Rng rng(7);
  Cnf sat = random_kcnf(rng, 20, 40, 3);
  sat.set_projection({});
  EXPECT_EQ(count_u64(sat), 1u);
  EXPECT_EQ(count_u64(sat, false), 1u);
  Cnf unsat = sat;
  unsat.add_clause({1});
  unsat.add_clause({-1});
  EXPECT_EQ(count_u64(unsat), 0u);
}

TEST(ExactCounter, UnitOnlyAndFreeVariables) {
  Cnf f;
  f.n_vars = 6;
  f.add_clause({1});
  f.add_clause({-2});
  f.add_clause({3});
  f.set_projection({1, 2, 4, 5});  // 4 and 5 are free: factor 4; 3 and 6 are not counted
  for (const bool pre : {true, false}) EXPECT_EQ(count_u64(f, pre), 4u);
  f.has_projection = false;  // now 4, 5, 6 are free
  for (const bool pre : {true, false}) EXPECT_EQ(count_u64(f, pre), 8u);
}

TEST(ExactCounter, UnprojectedExtensionsCountOnce) {
  // x1 or x2 (projected); each model of it extends in several ways over y3..y6
  Cnf f;
  f.n_vars = 6;
  f.add_clause({1, 2, 3});
  f.add_clause({1, 2, -3});
  f.add_clause({-3, 4, 5});
  f.add_clause({-4, -5, 6});
  f.set_projection({1, 2});
  for (const bool pre : {true, false}) EXPECT_EQ(count_u64(f, pre), 3u);
  f.has_projection = false;
  EXPECT_EQ(count_u64(f), brute_force(f));
}

TEST(ExactCounter, EquivalentProjectedVariablesCountOnce) {
  Cnf f;
  f.n_vars = 4;
  f.add_clause({-1, 2});  // 1 <=> 2
  f.add_clause({1, -2});
  f.add_clause({-2, -3});  // 2 <=> -3
  f.add_clause({2, 3});
  f.add_clause({3, 4});
  f.set_projection({1, 3, 4});
  EXPECT_EQ(count_u64(f), brute_force(f));
  f.set_projection({4});
  EXPECT_EQ(count_u64(f), brute_force(f));
}

TEST(ExactCounter, XorConstraintsAreExpanded) {
  Cnf f;
  f.n_vars = 10;
  f.xors.push_back({{1, 2, 3, 4, 5}, true});
  f.xors.push_back({{4, 5, 6, 7}, false});
  f.add_clause({1, 6, 9});
  const ExactCountResult r = count(f);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.count, brute_force(f));
  EXPECT_EQ(r.n_projected, 10);
  Cnf contradiction;
  contradiction.n_vars = 3;
  contradiction.xors.push_back({{1, 2, 3}, true});
  contradiction.xors.push_back({{1, 2, 3}, false});
  EXPECT_EQ(count(contradiction).count, 0);
}

// ------------------------------------------------------------------ limits and progress

TEST(ExactCounter, TimeLimitGivesCertifiedBounds) {
  const Cnf f = graph_property(7, "transitive");
  const mpz_class exact("878222530");  // transitive relations on 7 nodes (OEIS A006905)
  for (const double limit : {0.002, 0.02, 0.1}) {
    ExactCountParams p;
    p.time_limit = limit;
    const ExactCountResult r = count_exact(f, p);
    if (r.complete) {
      EXPECT_EQ(r.count, exact);
      continue;
    }
    EXPECT_LE(r.lower, exact) << limit;
    EXPECT_GE(r.upper, exact) << limit;
    EXPECT_EQ(r.count, r.lower);
    EXPECT_LE(r.upper, mpz_class(1) << 49);
  }
  // random 3-CNF, projected: bounds hold there too
  Rng rng(11);
  Cnf g = random_kcnf(rng, 200, 500, 3);
  random_projection(rng, g, 120);
  ExactCountParams p;
  p.time_limit = 0.05;
  const ExactCountResult r = count_exact(g, p);
  EXPECT_FALSE(r.complete);
  EXPECT_LE(r.lower, r.upper);
  EXPECT_LE(r.upper, mpz_class(1) << 120);
}

// One clause of 10^6 literals: branching on it went as deep as the clause is long, each level
// copying the shrinking component (quadratic: bad_alloc). A component of one clause is counted
// in closed form: 2^k - 1 for k projected variables, 2^k when an unprojected one can satisfy it.
TEST(ExactCounter, OneClauseOfAMillionLiteralsIsCountedInClosedForm) {
  Cnf f;
  f.n_vars = 1000000;
  std::vector<Var> clause(static_cast<std::size_t>(f.n_vars));
  std::iota(clause.begin(), clause.end(), 1);
  f.add_clause(clause);
  const ExactCountResult r = count_exact(f);
  mpz_class want;
  mpz_ui_pow_ui(want.get_mpz_t(), 2, 1000000);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.count, want - 1);
  EXPECT_LT(r.seconds, 20.0);
  // Part of the clause unprojected: every projected assignment extends.
  Cnf g;
  g.n_vars = 10;
  g.add_clause({1, -2, 3, -4, 5, 6, 7, 8, 9, 10});
  g.set_projection({1, 2, 3, 4});
  EXPECT_EQ(count_exact(g).count, 16);
  EXPECT_EQ(brute_force(g), 16u);
  g.set_projection({});
  EXPECT_EQ(count_exact(g).count, 1);
  // Beside other components and after decisions: the brute-force tests above, and these.
  Rng rng(3);
  for (int trial = 0; trial < 30; ++trial) {
    Cnf h = random_kcnf(rng, 14, 6, 2);
    std::vector<Var> wide;
    for (Var v = 1; v <= 14; ++v) {
      if (rng.below(2)) wide.push_back(rng.below(2) ? v : -v);
    }
    if (wide.size() >= 3) h.add_clause(wide);
    random_projection(rng, h, 9);
    EXPECT_EQ(count_exact(h).count, brute_force(h)) << trial;
  }
}

// The search's stack of open components is bounded: beyond it the count stops with certified
// bounds, as at the time limit, and says why.
TEST(ExactCounter, StackLimitStopsWithCertifiedBounds) {
  Rng rng(8);
  Cnf f = random_kcnf(rng, 24, 80, 3);
  random_projection(rng, f, 16);
  const std::uint64_t exact = brute_force(f);
  ExactCountParams p;
  p.stack_bytes = 64;
  p.preprocess = false;
  const ExactCountResult r = count_exact(f, p);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(
      r.stopped_by.rfind("the memory limit (the search's stack of open components outgrew ", 0), 0u)
      << r.stopped_by;
  EXPECT_LE(r.lower, exact);
  EXPECT_GE(r.upper, exact);
  EXPECT_LE(r.upper, mpz_class(1) << 16);
}

// Large formulas: the clock is read after large splits, preprocessing stops between its steps,
// and a search is not loaded once the limit has passed (10^6 clauses: 10 minutes past a 3 s
// limit before).
TEST(ExactCounter, TimeLimitHoldsOnLargeFormulas) {
  Rng rng(12);
  const Cnf f = random_kcnf(rng, 100000, 420000, 3);
  ExactCountParams p;
  p.time_limit = 0.3;
  p.progress_task = "";
  const ExactCountResult r = count_exact(f, p);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.stopped_by, "the time limit");
  EXPECT_LT(r.seconds, 3.0);
  mpz_class all;
  mpz_ui_pow_ui(all.get_mpz_t(), 2, 100000);
  EXPECT_LE(r.upper, all);
  EXPECT_GE(r.lower, 0);
}

TEST(ExactCounter, StopsOnInterruptWithCertifiedBounds) {
  const Cnf f = graph_property(8, "transitive");  // minutes to count
  InterruptScope scope;
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    request_interrupt();
  });
  const ExactCountResult r = count_exact(f);
  ctrl_c.join();
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.stopped_by, "an interrupt (Ctrl-C)");
  EXPECT_LE(r.lower, r.upper);
  EXPECT_LE(r.upper, mpz_class(1) << 64);
  EXPECT_LT(r.seconds, 5.0);
  // A front end that polls from the calling thread (Python's signal check) stops it too.
  const auto started = std::chrono::steady_clock::now();
  InterruptScope polled(
      [&] { return std::chrono::steady_clock::now() - started > std::chrono::milliseconds(200); });
  const ExactCountResult q = count_exact(f);
  EXPECT_FALSE(q.complete);
  EXPECT_EQ(q.stopped_by, "an interrupt (Ctrl-C)");
  EXPECT_LT(q.seconds, 5.0);
}

TEST(ExactCounter, TimeLimitInsideTheSatOracle) {
  // no projection left: the root component goes to CaDiCaL, which the deadline stops
  Rng rng(5);
  Cnf f = random_kcnf(rng, 700, 2982, 3);  // at the satisfiability threshold: hard for its size
  f.set_projection({});
  ExactCountParams p;
  p.time_limit = 0.02;
  p.sat_oracle_clauses = 1;
  p.progress_task = "";
  const ExactCountResult r = count_exact(f, p);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.lower, 0);
  EXPECT_EQ(r.upper, 1);
  EXPECT_LT(r.seconds, 5.0);
}

class RecordingSink : public ProgressSink {
 public:
  void update(const std::string& task, std::uint64_t done, std::uint64_t total) override {
    EXPECT_EQ(task, "count: exact");
    EXPECT_EQ(total, 1000u);
    EXPECT_GE(done, last);
    last = done;
  }
  void finish(const std::string&) override { finished = true; }
  std::uint64_t last = 0;
  bool finished = false;
};

TEST(ExactCounter, ReportsProgress) {
  auto sink = std::make_shared<RecordingSink>();
  const auto previous = set_progress_sink(sink);
  const ExactCountResult r = count_exact(graph_property(6, "transitive"));
  set_progress_sink(previous);
  EXPECT_EQ(r.count, 9415189);
  EXPECT_TRUE(sink->finished);
  EXPECT_LE(sink->last, 1000u);
}

TEST(ExactCounter, TinyCacheStillCountsExactly) {
  ExactCountParams p;
  p.cache_mib = 0;  // every entry is evicted at once
  p.circuit_projected = 0;
  EXPECT_EQ(count_exact(graph_property(5, "transitive"), p).count, 154303);
  Rng rng(3);
  Cnf f = random_kcnf(rng, 18, 50, 3);
  random_projection(rng, f, 10);
  EXPECT_EQ(count_exact(f, p).count, brute_force(f));
}

// ------------------------------------------------------------------ the circuit route

ExactCountResult count_with(const Cnf& f, std::uint32_t circuit_projected, int threads = 1,
                            double time_limit = 0.0) {
  ExactCountParams p;
  p.circuit_projected = circuit_projected;
  p.threads = threads;
  p.time_limit = time_limit;
  p.progress_task = "";
  return count_exact(f, p);
}

std::optional<exact::Circuit> recognise(const Cnf& f) {
  std::vector<std::uint8_t> projected(static_cast<std::size_t>(f.n_vars) + 1, 0);
  for (const Var v : f.projected()) projected[static_cast<std::size_t>(v)] = 1;
  return exact::recognise_circuit(f, projected, 30);
}

TEST(ExactCircuitRoute, RecognisesEachGateType) {
  using detail::CnfBuilder;
  CnfBuilder b;  // variable 1 is the constant true, a unit clause
  const Var x1 = b.input(), x2 = b.input(), x3 = b.input(), x4 = b.input();
  const Var g_and = b.and2(x1, -x2), g_or = b.or2(x2, x3), g_xor = b.xor2(x1, x3);
  const Var g_ite = b.ite(x1, x2, -x4), g_maj = b.maj3(x2, -x3, x4);
  const Var g_and_n = b.and_n({x1, x2, -x3}), g_or_n = b.or_n({-x1, x3, x4});
  const Var eq = b.fresh();  // eq <=> -x4, by hand
  b.clause({eq, x4});
  b.clause({-eq, -x4});
  b.assert_true(b.or_n({g_and, g_or, g_xor, g_ite, g_maj, g_and_n, g_or_n, eq}));
  const Cnf f = b.take();
  const auto c = recognise(f);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->n_inputs, 4u);
  EXPECT_EQ(c->n_constant, 1u);  // variable 1
  EXPECT_EQ(c->n_and, 6u);       // and2, or2, and_n, or_n, the equivalence, the final or_n
  EXPECT_EQ(c->n_xor, 1u);
  EXPECT_EQ(c->n_ite, 1u);
  EXPECT_EQ(c->n_maj, 1u);
  EXPECT_EQ(c->n_clauses(), 1u);  // the asserted unit
  const ExactCountResult r = count_with(f, 30);
  EXPECT_TRUE(r.complete && r.stats.circuit);
  EXPECT_EQ(r.stats.circuit_gates, 10u);
  EXPECT_EQ(r.stats.circuit_constraints, 1u);
  EXPECT_EQ(r.stats.circuit_words, 1u);
  EXPECT_EQ(r.count, brute_force(f));
  EXPECT_EQ(count_with(f, 0).count, r.count);

  // each gate alone, with its output asserted (ITE without the two redundant clauses too)
  Cnf ite4;
  ite4.n_vars = 4;  // 4 <=> (1 ? 2 : 3)
  for (const auto& cl :
       std::vector<std::vector<Var>>{{-4, -1, 2}, {-4, 1, 3}, {4, -1, -2}, {4, 1, -3}}) {
    ite4.add_clause(cl);
  }
  ite4.add_clause({4});
  ite4.set_projection({1, 2, 3});
  const auto ci = recognise(ite4);
  ASSERT_TRUE(ci.has_value());
  EXPECT_EQ(ci->n_ite, 1u);
  EXPECT_EQ(count_with(ite4, 30).count, 4);  // c ? a : b true in 4 of 8
  // expand_xors' chain of XOR definitions
  Cnf x;
  x.n_vars = 5;
  x.xors.push_back({{1, 2, 3, 4, 5}, true});
  x.add_clause({1, 2});
  const ExactCountResult rx = count_with(x, 30);
  EXPECT_TRUE(rx.stats.circuit);
  EXPECT_EQ(rx.stats.circuit_gates, 4u);  // one XOR per step; the last one's unit: a constraint
  EXPECT_EQ(rx.stats.circuit_constraints, 2u);
  EXPECT_EQ(rx.count, brute_force(x));
}

// A random circuit from CnfBuilder's gates (and2, or2, xor2, ite, maj3, and_n, or_n) over
// `n_inputs` projected inputs, with random constraint clauses over inputs and gates and a few
// asserted gates.
Cnf random_builder_circuit(Rng& rng, int n_inputs, int n_gates, int n_constraints) {
  detail::CnfBuilder b;
  std::vector<Var> signals;
  for (int i = 0; i < n_inputs; ++i) signals.push_back(b.input());
  const auto pick = [&] {
    const Var s = signals[rng.below(signals.size())];
    return rng.below(2) ? s : -s;
  };
  for (int g = 0; g < n_gates; ++g) {
    Var out = 0;
    switch (rng.below(7)) {
      case 0:
        out = b.and2(pick(), pick());
        break;
      case 1:
        out = b.or2(pick(), pick());
        break;
      case 2:
        out = b.xor2(pick(), pick());
        break;
      case 3:
        out = b.ite(pick(), pick(), pick());
        break;
      case 4:
        out = b.maj3(pick(), pick(), pick());
        break;
      case 5:
        out = b.and_n({pick(), pick(), pick(), pick()});
        break;
      default:
        out = b.or_n({pick(), pick(), pick()});
        break;
    }
    if (out != detail::kTrue && out != detail::kFalse) signals.push_back(out);
  }
  for (int k = 0; k < n_constraints; ++k) {
    if (rng.below(3) == 0) {
      b.assert_true(pick());
    } else {
      b.clause({pick(), pick(), pick()});
    }
  }
  return b.take();
}

TEST(ExactCircuitRoute, EqualsSearchAndBruteForce) {
  int circuits = 0, not_circuits = 0;
  for (std::uint64_t seed = 0; seed < 150; ++seed) {
    Rng rng(9000 + seed);
    const int inputs = 1 + static_cast<int>(rng.below(12));
    Cnf f = random_builder_circuit(rng, inputs, static_cast<int>(rng.below(12)),
                                   static_cast<int>(rng.below(5)));
    const int mode = static_cast<int>(seed % 5);
    const bool has_gate = f.n_vars > inputs + 1;  // variable 1 is the constant, then the inputs
    if (mode == 1) {  // an input left unprojected (and used): no definition, unless a unit
      std::vector<Var> proj = f.projected();
      const auto i = static_cast<std::ptrdiff_t>(rng.below(proj.size()));
      f.add_clause({proj[static_cast<std::size_t>(i)], -detail::kTrue});
      proj.erase(proj.begin() + i);
      f.set_projection(proj);
    } else if (mode == 2) {  // an auxiliary variable without a definition
      const Var t = f.new_var();
      f.add_clause({t, static_cast<Var>(2 + rng.below(static_cast<std::uint64_t>(inputs)))});
    } else if (mode == 3) {  // a cycle: t <=> (u and x), u <=> (t or y)
      const Var t = f.new_var(), u = f.new_var();
      const Var x = 2, y = static_cast<Var>(1 + inputs);
      f.add_clause({-t, u});
      f.add_clause({-t, x});
      f.add_clause({t, -u, -x});
      f.add_clause({u, -t});
      f.add_clause({u, -y});
      f.add_clause({-u, t, y});
    }
    if (f.n_vars > 26) continue;
    const std::uint64_t expected = brute_force(f);
    const ExactCountResult route = count_with(f, 30);
    const ExactCountResult search = count_with(f, 0);
    EXPECT_TRUE(route.complete && search.complete);
    EXPECT_EQ(route.count, expected) << "seed " << seed;
    EXPECT_EQ(search.count, expected) << "seed " << seed;
    EXPECT_FALSE(search.stats.circuit);
    if (mode == 0 || mode == 4) {
      EXPECT_EQ(route.stats.circuit, has_gate) << "seed " << seed;
    } else if (mode != 1) {  // mode 1: a random unit clause may make the input a constant
      EXPECT_FALSE(route.stats.circuit) << "seed " << seed << " mode " << mode;
    }
    (route.stats.circuit ? circuits : not_circuits) += 1;
  }
  EXPECT_GT(circuits, 40);
  EXPECT_GT(not_circuits, 40);
}

TEST(ExactCircuitRoute, LargerCircuitsEqualSearchAtAnyThreadCount) {
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    Rng rng(9500 + seed);
    const Cnf f = random_builder_circuit(rng, 18 + static_cast<int>(seed), 80, 4);
    const ExactCountResult one = count_with(f, 30, 1);
    const ExactCountResult two = count_with(f, 30, 2);
    EXPECT_TRUE(one.complete && one.stats.circuit);
    EXPECT_EQ(one.count, two.count) << "seed " << seed;
    EXPECT_EQ(one.stats.circuit_words, two.stats.circuit_words);
    EXPECT_EQ(one.count, count_with(f, 0).count) << "seed " << seed;
  }
  // a limit below the number of inputs: the search counts
  Rng rng(9600);
  const Cnf f = random_builder_circuit(rng, 20, 40, 3);
  const ExactCountResult r = count_with(f, 10);
  EXPECT_FALSE(r.stats.circuit);
  EXPECT_EQ(r.count, count_with(f, 20).count);
}

TEST(ExactCircuitRoute, TimeLimitGivesCertifiedBounds) {
  Rng rng(9700);
  const Cnf f = random_builder_circuit(rng, 26, 300, 6);
  const ExactCountResult full = count_with(f, 30, 2);
  ASSERT_TRUE(full.complete && full.stats.circuit);
  for (const double limit : {0.0005, 0.005, 0.02}) {
    const ExactCountResult r = count_with(f, 30, 2, limit);
    EXPECT_TRUE(r.stats.circuit);
    EXPECT_LE(r.lower, full.count) << limit;
    EXPECT_GE(r.upper, full.count) << limit;
    EXPECT_EQ(r.count, r.lower);
    EXPECT_LE(r.upper, mpz_class(1) << 26);
    if (!r.complete) {
      EXPECT_LT(r.stats.circuit_words, full.stats.circuit_words);
    }
  }
}

TEST(ExactCircuitRoute, FreeInputsEmptyClausesAndNoProjection) {
  detail::CnfBuilder b;
  const Var x1 = b.input(), x2 = b.input();
  b.input();  // in no clause: a factor 2
  b.assert_true(b.xor2(x1, x2));
  Cnf f = b.take();
  EXPECT_EQ(count_with(f, 30).count, 4);
  EXPECT_TRUE(count_with(f, 30).stats.circuit);
  f.add_clause(std::vector<Var>{});  // unsatisfiable
  EXPECT_EQ(count_with(f, 30).count, 0);
  EXPECT_EQ(count_with(f, 30).upper, 0);
  Rng rng(4);
  const Cnf g = random_kcnf(rng, 12, 30, 3);  // every variable projected: clauses only
  const ExactCountResult r = count_with(g, 30);
  EXPECT_FALSE(r.stats.circuit);  // no gate: the search counts
  EXPECT_EQ(r.count, brute_force(g));
  Cnf h = g;  // one constant (an unprojected variable with a unit clause) is no gate either
  h.n_vars = 13;
  h.add_clause({13});
  h.set_projection(g.projected());
  EXPECT_FALSE(count_with(h, 30).stats.circuit);
  EXPECT_EQ(count_with(h, 30).count, r.count);
  ExactCountParams p;
  p.circuit_projected = 63;
  EXPECT_THROW_MSG(count_exact(g, p), Error,
                   "count_exact: expected circuit_projected in 0..62, found 63");
}

TEST(ExactCircuitRoute, EnumeratesTheModelsCryptoMiniSatFinds) {
  using Models = std::vector<std::vector<bool>>;
  const auto collect = [](Models& out) {
    return [&out](const std::vector<bool>& a) { out.push_back(a); };
  };
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    Rng rng(9800 + seed);
    Cnf f = random_builder_circuit(rng, 3 + static_cast<int>(rng.below(12)), 20, 3);
    if (seed % 3 == 0)
      f.set_projection([&] {  // one input in no clause: free
        std::vector<Var> p = f.projected();
        p.push_back(f.new_var());
        return p;
      }());
    Models mine, theirs;
    const CircuitModels c = enumerate_circuit_models(f, 100000, collect(mine));
    const ProjectedEnumeration e = enumerate_projected(f, 100000, collect(theirs));
    ASSERT_TRUE(c.circuit) << "seed " << seed;
    EXPECT_FALSE(c.interrupted);
    EXPECT_EQ(c.found, e.found) << "seed " << seed;
    EXPECT_EQ(c.found, count_with(f, 0).count.get_ui()) << "seed " << seed;
    std::sort(mine.begin(), mine.end());
    std::sort(theirs.begin(), theirs.end());
    EXPECT_EQ(mine, theirs) << "seed " << seed;
    if (c.found > 3) {  // a limit stops it
      Models some;
      EXPECT_EQ(enumerate_circuit_models(f, 3, collect(some)).found, 3u);
      EXPECT_EQ(some.size(), 3u);
    }
  }
  Rng rng(9900);
  Cnf g = random_kcnf(rng, 12, 30, 3);
  random_projection(rng, g, 6);  // unprojected variables without definitions
  Models none;
  EXPECT_FALSE(enumerate_circuit_models(g, 10, collect(none)).circuit);
  EXPECT_TRUE(none.empty());
}

// ------------------------------------------------------------------ bad input

TEST(ExactCounter, BadInputIsAClearError) {
  Cnf f;
  f.n_vars = 3;
  f.add_clause({1, 4});
  EXPECT_THROW_MSG(count_exact(f), Error,
                   "count_exact: clause 1 holds literal 4, expected a variable in 1..3");
  Cnf g;
  g.n_vars = 3;
  g.projection = {2, 1};
  g.has_projection = true;
  EXPECT_THROW_MSG(count_exact(g), Error,
                   "count_exact: expected a sorted projection without repeats, found 1 after 2");
  g.projection = {5};
  EXPECT_THROW_MSG(count_exact(g), Error,
                   "count_exact: the projection holds variable 5, expected 1..3");
  ExactCountParams p;
  p.time_limit = -1;
  EXPECT_THROW_MSG(count_exact(Cnf{}, p), Error,
                   "count_exact: expected a time limit >= 0 seconds (0 = none), found -1");
}

}  // namespace
}  // namespace assay::count
