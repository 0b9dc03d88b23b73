#include "count/exact/preprocess.hpp"

#include <algorithm>
#include <numeric>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"

namespace assay::count::exact {
namespace {

// Sorts a clause and removes duplicate literals; false when it holds v and -v (a tautology).
bool normalise(std::vector<Lit>& clause) {
  std::sort(clause.begin(), clause.end());
  clause.erase(std::unique(clause.begin(), clause.end()), clause.end());
  for (std::size_t i = 1; i < clause.size(); ++i) {
    if (clause[i] == lit_not(clause[i - 1])) return false;
  }
  return true;
}

class Preprocessor {
 public:
  // Variables that occur in some clause get dense ids (in their order); the others are free.
  Preprocessor(const Cnf& cnf, const std::vector<std::uint8_t>& projected) {
    std::vector<std::uint32_t> dense(static_cast<std::size_t>(cnf.n_vars) + 1, 0);
    for (const Var l : cnf.literals) dense[static_cast<std::size_t>(l > 0 ? l : -l)] = 1;
    for (std::size_t v = 1; v < dense.size(); ++v) {
      if (dense[v]) {
        dense[v] = n_++;
        projected_.push_back(projected[v]);
      } else {
        unused_projected_ += projected[v];
      }
    }
    value_.assign(n_, 0);
    eliminated_.assign(n_, 0);
    occ_.resize(2 * std::size_t{n_});
    load(cnf, dense);
  }

  void simplify(std::optional<std::chrono::steady_clock::time_point> deadline) {
    auto go_on = [&] {
      return !unsat_ && !((deadline && std::chrono::steady_clock::now() >= *deadline) ||
                          interrupt_requested());
    };
    for (int round = 0; round < 32 && go_on(); ++round) {
      bool changed = units();
      if (go_on()) changed |= equivalences();
      if (go_on()) changed |= units();
      if (go_on()) changed |= subsume();
      if (go_on()) changed |= units();
      if (go_on()) changed |= pure_literals();
      if (!changed) break;
    }
  }

  Formula output() const;

  PreprocessStats stats;

 private:
  void load(const Cnf& cnf, const std::vector<std::uint32_t>& dense);
  void build_occurrences();
  bool units();
  bool equivalences();
  void substitute(const std::vector<Lit>& replacement);
  bool subsume();
  bool check_subsumption(std::uint32_t c, std::uint32_t d);
  bool pure_literals();

  int lit_value(Lit l) const {
    const int v = value_[lit_var(l)];
    return lit_negated(l) ? -v : v;
  }
  void set_true(Lit l) { value_[lit_var(l)] = lit_negated(l) ? -1 : 1; }

  std::uint32_t n_ = 0;
  std::uint64_t unused_projected_ = 0;   // projected variables in no clause of the input
  std::vector<std::uint8_t> projected_;  // by dense id
  std::vector<std::vector<Lit>> clauses_;
  std::vector<std::uint8_t> dead_;  // per clause: satisfied, subsumed or a tautology
  std::vector<std::int8_t> value_;  // per variable: 0 open, 1 true, -1 false
  std::vector<std::uint8_t> eliminated_;
  std::vector<std::vector<std::uint32_t>> occ_;  // per literal: live clauses holding it
  std::vector<std::uint32_t> mark_;              // per literal: stamp of the subsuming clause
  std::uint32_t stamp_ = 0;
  std::int64_t subsumption_budget_ = 40'000'000;  // literal visits over all rounds
  bool unsat_ = false;
};

void Preprocessor::load(const Cnf& cnf, const std::vector<std::uint32_t>& dense) {
  clauses_.reserve(cnf.n_clauses());
  std::vector<Lit> clause;
  for (std::size_t i = 0; i < cnf.n_clauses(); ++i) {
    clause.clear();
    for (const Var v : cnf.clause(i)) {
      clause.push_back(make_lit(dense[static_cast<std::size_t>(v > 0 ? v : -v)], v < 0));
    }
    if (!normalise(clause)) continue;
    if (clause.empty()) unsat_ = true;
    clauses_.push_back(clause);
  }
  dead_.assign(clauses_.size(), 0);
}

void Preprocessor::build_occurrences() {
  for (auto& list : occ_) list.clear();
  for (std::uint32_t c = 0; c < clauses_.size(); ++c) {
    if (dead_[c]) continue;
    for (const Lit l : clauses_[c]) occ_[l].push_back(c);
  }
}

// Unit propagation over occurrence lists; true when it fixed a variable.
bool Preprocessor::units() {
  build_occurrences();
  std::vector<Lit> queue;
  for (std::uint32_t c = 0; c < clauses_.size(); ++c) {
    if (!dead_[c] && clauses_[c].size() == 1) queue.push_back(clauses_[c][0]);
  }
  bool changed = false;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const Lit l = queue[head];
    if (lit_value(l) > 0) continue;
    if (lit_value(l) < 0) {
      unsat_ = true;
      return true;
    }
    set_true(l);
    ++stats.units;
    changed = true;
    for (const std::uint32_t c : occ_[l]) dead_[c] = 1;
    for (const std::uint32_t c : occ_[lit_not(l)]) {
      if (dead_[c]) continue;
      auto& clause = clauses_[c];
      const auto it = std::find(clause.begin(), clause.end(), lit_not(l));
      if (it == clause.end()) continue;
      clause.erase(it);
      if (clause.empty()) {
        unsat_ = true;
        return true;
      }
      if (clause.size() == 1) queue.push_back(clause[0]);
    }
  }
  return changed;
}

// Strongly connected components of the binary implication graph (iterative Tarjan).
bool Preprocessor::equivalences() {
  const std::size_t n_lits = 2 * std::size_t{n_};
  std::vector<std::uint32_t> begin(n_lits + 1, 0);
  for (std::uint32_t c = 0; c < clauses_.size(); ++c) {
    if (dead_[c] || clauses_[c].size() != 2) continue;
    ++begin[lit_not(clauses_[c][0]) + 1];
    ++begin[lit_not(clauses_[c][1]) + 1];
  }
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  if (begin[n_lits] == 0) return false;
  std::vector<Lit> edges(begin[n_lits]);
  std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
  for (std::uint32_t c = 0; c < clauses_.size(); ++c) {
    if (dead_[c] || clauses_[c].size() != 2) continue;
    const Lit a = clauses_[c][0], b = clauses_[c][1];
    edges[fill[lit_not(a)]++] = b;  // -a => b
    edges[fill[lit_not(b)]++] = a;  // -b => a
  }
  constexpr std::uint32_t kUnset = 0xFFFFFFFFu;
  std::vector<std::uint32_t> index(n_lits, kUnset), low(n_lits, 0), component(n_lits, kUnset);
  std::vector<std::uint8_t> on_stack(n_lits, 0);
  std::vector<Lit> stack;
  std::vector<std::pair<Lit, std::uint32_t>> frames;  // (node, next edge)
  std::uint32_t next_index = 0, n_components = 0;
  const auto visit = [&](Lit v) {
    index[v] = low[v] = next_index++;
    stack.push_back(v);
    on_stack[v] = 1;
    frames.emplace_back(v, begin[v]);
  };
  for (Lit root = 0; root < n_lits; ++root) {
    if (index[root] != kUnset || begin[root] == begin[root + 1]) continue;
    visit(root);
    while (!frames.empty()) {
      const Lit v = frames.back().first;
      if (frames.back().second < begin[v + 1]) {
        const Lit w = edges[frames.back().second++];
        if (index[w] == kUnset) {
          visit(w);
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[v]);
      if (low[v] != index[v]) continue;
      Lit w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = 0;
        component[w] = n_components;
      } while (w != v);
      ++n_components;
    }
  }
  // Members of each component; the representative is its smallest projected variable, else
  // its smallest variable. A component and its mirror (the negated literals) share that
  // variable, so each pair is handled once: from the side where it appears positive.
  std::vector<std::vector<Lit>> members(n_components);
  for (Lit l = 0; l < n_lits; ++l) {
    if (component[l] != kUnset) members[component[l]].push_back(l);
  }
  std::vector<Lit> replacement(n_);
  for (std::uint32_t v = 0; v < n_; ++v) replacement[v] = make_lit(v, false);
  bool changed = false;
  for (const auto& group : members) {
    if (group.size() < 2) continue;
    Lit rep = kNoLit;
    for (const Lit l : group) {
      if (component[lit_not(l)] == component[l]) {
        unsat_ = true;
        return true;
      }
      const bool better =
          rep == kNoLit || projected_[lit_var(l)] > projected_[lit_var(rep)] ||
          (projected_[lit_var(l)] == projected_[lit_var(rep)] && lit_var(l) < lit_var(rep));
      if (better) rep = l;
    }
    if (lit_negated(rep)) continue;
    for (const Lit l : group) {
      if (l == rep) continue;
      replacement[lit_var(l)] = lit_negated(l) ? lit_not(rep) : rep;
      eliminated_[lit_var(l)] = 1;
      ++stats.equivalences;
      changed = true;
    }
  }
  if (changed) substitute(replacement);
  return changed;
}

void Preprocessor::substitute(const std::vector<Lit>& replacement) {
  for (std::uint32_t c = 0; c < clauses_.size(); ++c) {
    if (dead_[c]) continue;
    for (Lit& l : clauses_[c]) {
      const Lit r = replacement[lit_var(l)];
      l = lit_negated(l) ? lit_not(r) : r;
    }
    if (!normalise(clauses_[c])) dead_[c] = 1;
  }
}

// Backward subsumption and self-subsuming resolution, smallest clauses first.
bool Preprocessor::subsume() {
  build_occurrences();
  mark_.assign(2 * std::size_t{n_}, 0);
  std::vector<std::uint32_t> work;
  for (std::uint32_t c = 0; c < clauses_.size(); ++c) {
    if (!dead_[c]) work.push_back(c);
  }
  std::stable_sort(work.begin(), work.end(), [&](std::uint32_t a, std::uint32_t b) {
    return clauses_[a].size() < clauses_[b].size();
  });
  bool changed = false;
  for (std::size_t i = 0; i < work.size() && subsumption_budget_ > 0 && !unsat_; ++i) {
    const std::uint32_t c = work[i];
    if (dead_[c]) continue;
    ++stamp_;
    Lit pivot = clauses_[c][0];
    for (const Lit l : clauses_[c]) {
      mark_[l] = stamp_;
      if (occ_[l].size() + occ_[lit_not(l)].size() <
          occ_[pivot].size() + occ_[lit_not(pivot)].size()) {
        pivot = l;
      }
    }
    for (const Lit side : {pivot, lit_not(pivot)}) {
      for (const std::uint32_t d : occ_[side]) {
        if (d == c || dead_[d] || clauses_[d].size() < clauses_[c].size()) continue;
        if (check_subsumption(c, d)) {
          changed = true;
          if (!dead_[d]) work.push_back(d);  // strengthened: it may subsume others now
        }
      }
    }
  }
  return changed;
}

// Clause c (its literals marked with stamp_) against d: removes d when c subsumes it, or the
// one literal of d whose negation is in c when c minus that literal is in d. True on a change.
bool Preprocessor::check_subsumption(std::uint32_t c, std::uint32_t d) {
  auto& other = clauses_[d];
  subsumption_budget_ -= static_cast<std::int64_t>(other.size());
  std::size_t found = 0;
  Lit flipped = kNoLit;
  for (const Lit l : other) {
    if (mark_[l] == stamp_) {
      ++found;
    } else if (mark_[lit_not(l)] == stamp_) {
      if (flipped != kNoLit) return false;
      flipped = l;
    }
  }
  const std::size_t size = clauses_[c].size();
  if (flipped == kNoLit && found == size) {
    dead_[d] = 1;
    ++stats.subsumed;
    return true;
  }
  if (flipped == kNoLit || found + 1 != size) return false;
  other.erase(std::find(other.begin(), other.end(), flipped));
  ++stats.strengthened;
  if (other.empty()) unsat_ = true;
  return true;
}

// Pure literals of unprojected variables, to a fixpoint.
bool Preprocessor::pure_literals() {
  build_occurrences();
  std::vector<std::uint32_t> count(2 * std::size_t{n_}, 0);
  for (Lit l = 0; l < count.size(); ++l) count[l] = static_cast<std::uint32_t>(occ_[l].size());
  const auto pure_side = [&](std::uint32_t v) -> Lit {
    if (projected_[v] || value_[v] != 0 || eliminated_[v]) return kNoLit;
    const Lit pos = make_lit(v, false), neg = make_lit(v, true);
    if (count[pos] > 0 && count[neg] == 0) return pos;
    if (count[neg] > 0 && count[pos] == 0) return neg;
    return kNoLit;
  };
  std::vector<std::uint32_t> work;
  for (std::uint32_t v = 0; v < n_; ++v) {
    if (pure_side(v) != kNoLit) work.push_back(v);
  }
  bool changed = false;
  while (!work.empty()) {
    const std::uint32_t v = work.back();
    work.pop_back();
    const Lit l = pure_side(v);
    if (l == kNoLit) continue;
    set_true(l);
    ++stats.pure;
    changed = true;
    for (const std::uint32_t c : occ_[l]) {
      if (dead_[c]) continue;
      dead_[c] = 1;
      for (const Lit x : clauses_[c]) {
        if (--count[x] == 0 && pure_side(lit_var(x)) != kNoLit) work.push_back(lit_var(x));
      }
    }
  }
  return changed;
}

Formula Preprocessor::output() const {
  Formula f;
  if (unsat_) {
    f.unsat = true;
    return f;
  }
  f.free_projected = unused_projected_;
  std::vector<std::uint8_t> occurs(n_, 0);
  for (std::uint32_t c = 0; c < clauses_.size(); ++c) {
    if (dead_[c]) continue;
    for (const Lit l : clauses_[c]) occurs[lit_var(l)] = 1;
  }
  std::vector<std::uint32_t> new_id(n_, 0);
  for (std::uint32_t v = 0; v < n_; ++v) {
    if (occurs[v]) {
      new_id[v] = f.n_vars++;
      f.projected.push_back(projected_[v]);
    } else if (projected_[v] && value_[v] == 0 && !eliminated_[v]) {
      ++f.free_projected;
    }
  }
  for (std::uint32_t c = 0; c < clauses_.size(); ++c) {
    if (dead_[c]) continue;
    for (const Lit l : clauses_[c])
      f.literals.push_back(make_lit(new_id[lit_var(l)], lit_negated(l)));
    f.starts.push_back(static_cast<std::uint32_t>(f.literals.size()));
  }
  return f;
}

}  // namespace

Formula preprocess(const Cnf& cnf, const std::vector<std::uint8_t>& projected, bool simplify,
                   PreprocessStats* stats,
                   std::optional<std::chrono::steady_clock::time_point> deadline) {
  ASSAY_ASSERT(projected.size() == static_cast<std::size_t>(cnf.n_vars) + 1);
  Preprocessor p(cnf, projected);
  if (simplify) p.simplify(deadline);
  if (stats) *stats = p.stats;
  return p.output();
}

}  // namespace assay::count::exact
