// The circuit route (see circuit.hpp): gate recognition on the clauses, the choice of acyclic
// definitions, the layout of the evaluation, and the bit-parallel count.
#include "count/exact/circuit.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <numeric>
#include <unordered_map>

#include "assay/core/interrupt.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/thread_pool.hpp"
#include "count/exact/literals.hpp"

namespace assay::count::exact {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
// Positions 0..5 vary inside a word; a gate or clause that depends on none above has this level.
constexpr std::uint32_t kNever = 64;
// Words per chunk: the unit of the time check, the progress line and the thread split.
constexpr std::uint64_t kChunkWords = 2048;

// A candidate definition: out <=> kind(inputs), from the clauses `clauses`.
struct Candidate {
  GateKind kind = GateKind::constant;
  Lit out = kNoLit;
  std::uint32_t first_input = 0, n_inputs = 0;    // in Recogniser::cand_inputs_
  std::uint32_t first_clause = 0, n_clauses = 0;  // in Recogniser::cand_clauses_
};

struct TripleHash {
  std::size_t operator()(const std::array<Lit, 3>& t) const {
    std::uint64_t h = t[0] * 0x9E3779B97F4A7C15ULL;
    h = (h ^ t[1]) * 0xC2B2AE3D27D4EB4FULL;
    h = (h ^ t[2]) * 0x165667B19E3779F9ULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

std::uint64_t pair_key(Lit a, Lit b) {
  if (a > b) std::swap(a, b);
  return (std::uint64_t{a} << 32) | b;
}

std::array<Lit, 3> triple(Lit a, Lit b, Lit c) {
  std::array<Lit, 3> t{a, b, c};
  std::sort(t.begin(), t.end());
  return t;
}

// Finds candidate definitions among normalised clauses and accepts an acyclic set of them.
class Recogniser {
 public:
  Recogniser(const Cnf& cnf, const std::vector<std::uint8_t>& projected)
      : n_vars_(static_cast<std::uint32_t>(cnf.n_vars)), projected_(projected) {
    load(cnf);
  }

  std::optional<Circuit> run(std::uint32_t max_inputs);

 private:
  void load(const Cnf& cnf);
  void index();
  std::uint32_t binary(Lit a, Lit b) const;
  std::uint32_t ternary(Lit a, Lit b, Lit c) const;
  std::span<const std::uint32_t> pair_clauses(Lit a, Lit b) const;
  std::span<const Lit> clause(std::uint32_t c) const {
    return {lits_.data() + starts_[c], starts_[c + 1] - starts_[c]};
  }
  void find_candidates(std::uint32_t var);
  void find_and(Lit out);
  void find_xor(std::uint32_t var);
  void find_ite(Lit out);
  void find_maj(Lit out);
  void add_candidate(GateKind kind, Lit out, std::initializer_list<Lit> inputs,
                     std::initializer_list<std::uint32_t> clauses);
  bool accept_definitions();
  bool try_accept(std::uint32_t cand);
  struct Layout {
    std::vector<std::uint32_t> input_index;  // per variable: its input number, or kNone
    std::uint32_t n_inputs = 0, free_inputs = 0;
    std::vector<std::uint64_t> masks;        // support: gates in order_, then constraints
    std::vector<std::uint32_t> constraints;  // clause ids
    std::vector<std::uint32_t> position;     // per input number
  };
  Layout layout() const;
  Circuit build() const;

  std::uint32_t n_vars_;
  const std::vector<std::uint8_t>& projected_;  // by DIMACS variable
  std::vector<Lit> lits_;                       // normalised clauses, variables 0-based
  std::vector<std::uint32_t> starts_{0};
  std::vector<std::uint8_t> occurs_;                 // per variable
  std::vector<std::vector<std::uint32_t>> lit_occ_;  // literal -> clauses of size >= 1
  std::unordered_map<std::uint64_t, std::uint32_t> binaries_;
  std::unordered_map<std::array<Lit, 3>, std::uint32_t, TripleHash> ternaries_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> pairs_;  // sorted: literal pair -> ternary
  std::vector<std::uint32_t> pair_ids_;
  std::vector<Candidate> cands_;
  std::vector<Lit> cand_inputs_;
  std::vector<std::uint32_t> cand_clauses_;
  // acceptance
  std::vector<std::uint32_t> definition_;  // per variable: the accepted candidate, or kNone
  std::vector<std::uint32_t> order_;       // accepted candidates, topologically
  std::vector<std::uint8_t> consumed_;     // per clause
};

// Clauses as sorted literal sets without repeats; tautologies dropped (always true).
void Recogniser::load(const Cnf& cnf) {
  occurs_.assign(n_vars_, 0);
  std::vector<Lit> c;
  for (std::size_t i = 0; i < cnf.n_clauses(); ++i) {
    c.clear();
    for (const Var l : cnf.clause(i)) {
      c.push_back(make_lit(static_cast<std::uint32_t>((l > 0 ? l : -l) - 1), l < 0));
    }
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    bool tautology = false;
    for (std::size_t j = 1; j < c.size(); ++j) tautology |= c[j] == lit_not(c[j - 1]);
    if (tautology) continue;
    for (const Lit l : c) occurs_[lit_var(l)] = 1;
    lits_.insert(lits_.end(), c.begin(), c.end());
    starts_.push_back(static_cast<std::uint32_t>(lits_.size()));
  }
}

void Recogniser::index() {
  lit_occ_.assign(2 * std::size_t{n_vars_}, {});
  const auto n = static_cast<std::uint32_t>(starts_.size() - 1);
  for (std::uint32_t c = 0; c < n; ++c) {
    const auto cl = clause(c);
    for (const Lit l : cl) lit_occ_[l].push_back(c);
    if (cl.size() == 2) binaries_.emplace(pair_key(cl[0], cl[1]), c);
    if (cl.size() != 3) continue;
    ternaries_.emplace(triple(cl[0], cl[1], cl[2]), c);
    pairs_.emplace_back(pair_key(cl[0], cl[1]), c);
    pairs_.emplace_back(pair_key(cl[0], cl[2]), c);
    pairs_.emplace_back(pair_key(cl[1], cl[2]), c);
  }
  std::sort(pairs_.begin(), pairs_.end());
  pair_ids_.reserve(pairs_.size());
  for (const auto& p : pairs_) pair_ids_.push_back(p.second);
}

std::uint32_t Recogniser::binary(Lit a, Lit b) const {
  const auto it = binaries_.find(pair_key(a, b));
  return it == binaries_.end() ? kNone : it->second;
}

std::uint32_t Recogniser::ternary(Lit a, Lit b, Lit c) const {
  const auto it = ternaries_.find(triple(a, b, c));
  return it == ternaries_.end() ? kNone : it->second;
}

// The ternary clauses that hold both a and b.
std::span<const std::uint32_t> Recogniser::pair_clauses(Lit a, Lit b) const {
  const std::uint64_t key = pair_key(a, b);
  const auto lo = std::lower_bound(pairs_.begin(), pairs_.end(), std::make_pair(key, 0u));
  auto hi = lo;
  while (hi != pairs_.end() && hi->first == key) ++hi;
  const auto first = static_cast<std::size_t>(lo - pairs_.begin());
  return {pair_ids_.data() + first, static_cast<std::size_t>(hi - lo)};
}

void Recogniser::add_candidate(GateKind kind, Lit out, std::initializer_list<Lit> inputs,
                               std::initializer_list<std::uint32_t> clauses) {
  Candidate c;
  c.kind = kind;
  c.out = out;
  c.first_input = static_cast<std::uint32_t>(cand_inputs_.size());
  c.n_inputs = static_cast<std::uint32_t>(inputs.size());
  cand_inputs_.insert(cand_inputs_.end(), inputs);
  c.first_clause = static_cast<std::uint32_t>(cand_clauses_.size());
  for (const std::uint32_t id : clauses) {
    if (id != kNone) cand_clauses_.push_back(id);  // kNone: an optional clause that is absent
  }
  c.n_clauses = static_cast<std::uint32_t>(cand_clauses_.size()) - c.first_clause;
  cands_.push_back(c);
}

// out <=> AND(-x for x in C - out) from a clause C = (out | x1 | .. | xk) and the binaries
// (-out | -xi): k = 1 is an equivalence, and an OR is the AND of the negations with -out.
void Recogniser::find_and(Lit out) {
  for (const std::uint32_t c : lit_occ_[out]) {
    const auto cl = clause(c);
    if (cl.size() < 2) continue;
    std::vector<std::uint32_t> ids{c};
    for (const Lit x : cl) {
      if (x == out) continue;
      const std::uint32_t b = binary(lit_not(out), lit_not(x));
      if (b == kNone) break;
      ids.push_back(b);
    }
    if (ids.size() != cl.size()) continue;
    Candidate cand;
    cand.kind = GateKind::and_n;
    cand.out = out;
    cand.first_input = static_cast<std::uint32_t>(cand_inputs_.size());
    for (const Lit x : cl) {
      if (x != out) cand_inputs_.push_back(lit_not(x));
    }
    cand.n_inputs = static_cast<std::uint32_t>(cl.size() - 1);
    cand.first_clause = static_cast<std::uint32_t>(cand_clauses_.size());
    cand_clauses_.insert(cand_clauses_.end(), ids.begin(), ids.end());
    cand.n_clauses = static_cast<std::uint32_t>(ids.size());
    cands_.push_back(cand);
  }
}

// var <=> a ^ b (^ 1): the four ternary clauses over var, a, b whose numbers of negated literals
// have one parity q forbid every assignment of parity q, so var ^ a ^ b = 1 - q.
void Recogniser::find_xor(std::uint32_t var) {
  for (const Lit own : {make_lit(var, false), make_lit(var, true)}) {
    for (const std::uint32_t c : lit_occ_[own]) {
      const auto cl = clause(c);
      if (cl.size() != 3) continue;
      std::array<std::uint32_t, 2> others{};
      std::size_t k = 0;
      for (const Lit l : cl) {
        if (lit_var(l) != var) others[k++] = lit_var(l);
      }
      const unsigned q = (lit_negated(cl[0]) + lit_negated(cl[1]) + lit_negated(cl[2])) & 1u;
      std::array<std::uint32_t, 4> ids{};
      bool all = true;
      for (unsigned m = 0; m < 4 && all; ++m) {  // signs of a, b; var's sign fixes the parity
        const bool na = (m & 1u) != 0, nb = (m & 2u) != 0;
        const bool nv = ((q + na + nb) & 1u) != 0;
        ids[m] = ternary(make_lit(var, nv), make_lit(others[0], na), make_lit(others[1], nb));
        all = ids[m] != kNone;
      }
      if (!all) continue;
      const bool flip = q == 0;  // var ^ a ^ b = 1
      add_candidate(GateKind::xor2, make_lit(var, flip),
                    {make_lit(others[0], false), make_lit(others[1], false)},
                    {ids[0], ids[1], ids[2], ids[3]});
      return;  // one XOR candidate per variable suffices: every match defines the same function
    }
  }
}

// out <=> (s ? t : e) from (-out | -s | t), (-out | s | e), (out | -s | -t), (out | s | -e), and
// the implied (-out | t | e), (out | -t | -e) when present (CnfBuilder adds them).
void Recogniser::find_ite(Lit out) {
  const Lit nout = lit_not(out);
  for (const std::uint32_t c1 : lit_occ_[nout]) {
    const auto cl1 = clause(c1);
    if (cl1.size() != 3) continue;
    for (const Lit not_s : cl1) {
      if (not_s == nout) continue;
      const Lit s = lit_not(not_s);
      Lit t = kNoLit;
      for (const Lit l : cl1) {
        if (l != nout && l != not_s) t = l;
      }
      for (const std::uint32_t c2 : pair_clauses(nout, s)) {
        Lit e = kNoLit;
        for (const Lit l : clause(c2)) {
          if (l != nout && l != s) e = l;
        }
        if (e == lit_not(t)) continue;  // an XOR's clauses: find_xor takes them
        const std::uint32_t c3 = ternary(out, not_s, lit_not(t));
        const std::uint32_t c4 = ternary(out, s, lit_not(e));
        if (c3 == kNone || c4 == kNone) continue;
        const bool distinct = lit_var(t) != lit_var(e);
        add_candidate(GateKind::ite, out, {s, t, e},
                      {c1, c2, c3, c4, distinct ? ternary(nout, t, e) : kNone,
                       distinct ? ternary(out, lit_not(t), lit_not(e)) : kNone});
      }
    }
  }
}

// out <=> MAJ(a, b, c) from the six clauses (out | -x | -y) and (-out | x | y), {x, y} ⊂ {a, b, c}.
void Recogniser::find_maj(Lit out) {
  const Lit nout = lit_not(out);
  for (const std::uint32_t c1 : lit_occ_[out]) {
    const auto cl1 = clause(c1);
    if (cl1.size() != 3) continue;
    std::array<Lit, 2> ab{};  // a and b (the clause holds their negations)
    std::size_t k = 0;
    for (const Lit l : cl1) {
      if (l != out) ab[k++] = lit_not(l);
    }
    for (const std::uint32_t c2 : pair_clauses(out, lit_not(ab[0]))) {
      Lit c = kNoLit;
      for (const Lit l : clause(c2)) {
        if (l != out && l != lit_not(ab[0])) c = lit_not(l);
      }
      if (c == ab[1]) continue;
      const std::array<std::uint32_t, 4> rest{ternary(out, lit_not(ab[1]), lit_not(c)),
                                              ternary(nout, ab[0], ab[1]), ternary(nout, ab[0], c),
                                              ternary(nout, ab[1], c)};
      if (std::find(rest.begin(), rest.end(), kNone) != rest.end()) continue;
      add_candidate(GateKind::maj3, out, {ab[0], ab[1], c},
                    {c1, c2, rest[0], rest[1], rest[2], rest[3]});
      return;
    }
  }
}

void Recogniser::find_candidates(std::uint32_t var) {
  for (const bool negated : {false, true}) {
    const Lit out = make_lit(var, negated);
    find_and(out);
    find_ite(out);
    find_maj(out);
  }
  find_xor(var);
  for (const bool negated : {false, true}) {  // constants: used only when nothing else defines
    for (const std::uint32_t c : lit_occ_[make_lit(var, negated)]) {
      if (starts_[c + 1] - starts_[c] == 1)
        add_candidate(GateKind::constant, clause(c)[0], {}, {c});
    }
  }
}

std::optional<Circuit> Recogniser::run(std::uint32_t max_inputs) {
  std::uint32_t n_inputs = 0;
  for (std::uint32_t v = 0; v < n_vars_; ++v) n_inputs += occurs_[v] & projected_[v + 1];
  if (n_inputs > max_inputs) return std::nullopt;
  index();
  for (std::uint32_t v = 0; v < n_vars_; ++v) {
    if (occurs_[v] && !projected_[v + 1]) find_candidates(v);
  }
  if (!accept_definitions()) return std::nullopt;
  // Clauses alone (no gate; constants aside) are no circuit: the search decomposes them and is
  // faster (a decision tree's paths as clauses on 25 inputs: 0.015 s searched, 0.15 s evaluated).
  const bool gates = std::any_of(order_.begin(), order_.end(), [&](std::uint32_t i) {
    return cands_[i].kind != GateKind::constant;
  });
  if (!gates) return std::nullopt;
  return build();
}

// Accepts candidates in topological order from the projected variables: a candidate whose
// inputs are all known (projected or defined) defines its variable if the variable has no
// definition yet and none of its clauses is consumed. Constants are taken only when nothing
// else progresses, so that a unit on a gate (an asserted output) stays a constraint.
bool Recogniser::accept_definitions() {
  definition_.assign(n_vars_, kNone);
  consumed_.assign(starts_.size() - 1, 0);
  std::vector<std::uint32_t> missing(cands_.size(), 0);
  std::vector<std::vector<std::uint32_t>> waiting(n_vars_);
  std::vector<std::uint32_t> ready, queue;
  for (std::uint32_t i = 0; i < cands_.size(); ++i) {
    const Candidate& c = cands_[i];
    for (std::uint32_t j = 0; j < c.n_inputs; ++j) {
      const std::uint32_t v = lit_var(cand_inputs_[c.first_input + j]);
      if (projected_[v + 1]) continue;
      ++missing[i];
      waiting[v].push_back(i);
    }
    if (missing[i] == 0 && c.kind != GateKind::constant) ready.push_back(i);
  }
  std::size_t next_constant = 0;
  for (;;) {
    while (!ready.empty()) {
      const std::uint32_t i = ready.back();
      ready.pop_back();
      if (!try_accept(i)) continue;
      for (const std::uint32_t w : waiting[lit_var(cands_[i].out)]) {
        if (--missing[w] == 0 && cands_[w].kind != GateKind::constant) ready.push_back(w);
      }
    }
    while (next_constant < cands_.size() &&
           (cands_[next_constant].kind != GateKind::constant || !try_accept(next_constant))) {
      ++next_constant;
    }
    if (next_constant == cands_.size()) break;
    for (const std::uint32_t w : waiting[lit_var(cands_[next_constant].out)]) {
      if (--missing[w] == 0 && cands_[w].kind != GateKind::constant) ready.push_back(w);
    }
  }
  for (std::uint32_t v = 0; v < n_vars_; ++v) {
    if (occurs_[v] && !projected_[v + 1] && definition_[v] == kNone) return false;
  }
  return true;
}

bool Recogniser::try_accept(std::uint32_t cand) {
  const Candidate& c = cands_[cand];
  const std::uint32_t var = lit_var(c.out);
  if (definition_[var] != kNone) return false;
  const auto ids = std::span(cand_clauses_).subspan(c.first_clause, c.n_clauses);
  for (const std::uint32_t id : ids) {
    if (consumed_[id]) return false;
  }
  for (const std::uint32_t id : ids) consumed_[id] = 1;
  definition_[var] = cand;
  order_.push_back(cand);
  return true;
}

// ------------------------------------------------------------------ layout

// Input positions: the 6 inputs with the largest cones (gates and clauses that depend on them)
// vary inside a word, where changing costs nothing; the others follow smallest cone first, since
// a gate is re-evaluated whenever its lowest position above 5 changes, and position 6 changes
// every word, position 7 every second word, and so on.
std::vector<std::uint32_t> input_positions(const std::vector<std::uint64_t>& masks,
                                           std::uint32_t n_inputs) {
  std::vector<std::uint64_t> cone(n_inputs, 0);
  for (const std::uint64_t m : masks) {
    for (std::uint64_t b = m; b != 0; b &= b - 1)
      ++cone[static_cast<std::size_t>(std::countr_zero(b))];
  }
  std::vector<std::uint32_t> by_cone(n_inputs);
  std::iota(by_cone.begin(), by_cone.end(), 0u);
  std::stable_sort(by_cone.begin(), by_cone.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return cone[a] > cone[b]; });
  const std::size_t in_word = std::min<std::size_t>(6, n_inputs);
  std::stable_sort(by_cone.begin() + static_cast<std::ptrdiff_t>(in_word), by_cone.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return cone[a] < cone[b]; });
  std::vector<std::uint32_t> position(n_inputs);
  for (std::uint32_t p = 0; p < n_inputs; ++p) position[by_cone[p]] = p;
  return position;
}

std::uint64_t remap(std::uint64_t mask, const std::vector<std::uint32_t>& position) {
  std::uint64_t out = 0;
  for (std::uint64_t b = mask; b != 0; b &= b - 1) {
    out |= std::uint64_t{1} << position[static_cast<std::size_t>(std::countr_zero(b))];
  }
  return out;
}

std::uint32_t level_of(std::uint64_t position_mask) {
  const std::uint64_t above = position_mask & ~std::uint64_t{63};
  return above == 0 ? kNever : static_cast<std::uint32_t>(std::countr_zero(above));
}

// Indices 0..n-1 by level, highest first (stable: the given order within a level).
std::vector<std::uint32_t> by_level(const std::vector<std::uint32_t>& level) {
  std::vector<std::uint32_t> order(level.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return level[a] > level[b]; });
  return order;
}

// Support masks over the inputs (in variable order): the accepted gates' (in order_), then the
// constraint clauses'; and the input positions they lead to.
Recogniser::Layout Recogniser::layout() const {
  Layout l;
  l.input_index.assign(n_vars_, kNone);
  for (std::uint32_t v = 0; v < n_vars_; ++v) {
    if (!projected_[v + 1]) continue;
    if (occurs_[v]) {
      l.input_index[v] = l.n_inputs++;
    } else {
      ++l.free_inputs;
    }
  }
  std::vector<std::uint64_t> var_mask(n_vars_, 0);
  for (std::uint32_t v = 0; v < n_vars_; ++v) {
    if (l.input_index[v] != kNone) var_mask[v] = std::uint64_t{1} << l.input_index[v];
  }
  for (const std::uint32_t i : order_) {
    const Candidate& c = cands_[i];
    std::uint64_t m = 0;
    for (std::uint32_t j = 0; j < c.n_inputs; ++j)
      m |= var_mask[lit_var(cand_inputs_[c.first_input + j])];
    var_mask[lit_var(c.out)] = m;
    l.masks.push_back(m);
  }
  for (std::uint32_t c = 0; c + 1 < starts_.size(); ++c) {
    if (consumed_[c]) continue;
    std::uint64_t m = 0;
    for (const Lit x : clause(c)) m |= var_mask[lit_var(x)];
    l.masks.push_back(m);
    l.constraints.push_back(c);
  }
  l.position = input_positions(l.masks, l.n_inputs);
  return l;
}

// Gates by level, highest first (stable, so topological within a level: a gate's inputs depend
// on a subset of its own inputs, so their level is at least its own), then the constraints.
Circuit Recogniser::build() const {
  const Layout l = layout();
  std::vector<std::uint32_t> level(l.masks.size());
  for (std::size_t k = 0; k < l.masks.size(); ++k)
    level[k] = level_of(remap(l.masks[k], l.position));
  const std::vector<std::uint32_t> gate_order =
      by_level(std::vector<std::uint32_t>(level.begin(), level.begin() + order_.size()));
  const std::vector<std::uint32_t> clause_order =
      by_level(std::vector<std::uint32_t>(level.begin() + order_.size(), level.end()));
  std::vector<std::uint32_t> slot(n_vars_, kNone);
  for (std::uint32_t v = 0; v < n_vars_; ++v) {
    if (l.input_index[v] != kNone) slot[v] = l.position[l.input_index[v]];
  }
  for (std::uint32_t k = 0; k < gate_order.size(); ++k) {
    slot[lit_var(cands_[order_[gate_order[k]]].out)] = l.n_inputs + k;
  }
  const auto signal = [&](Lit x) { return 2 * slot[lit_var(x)] + (lit_negated(x) ? 1u : 0u); };

  Circuit out;
  out.n_inputs = l.n_inputs;
  out.free_inputs = l.free_inputs;
  for (std::uint32_t v = 0; v < n_vars_; ++v) {
    if (!projected_[v + 1]) continue;
    out.projected_position.push_back(l.input_index[v] == kNone ? kFreeInput
                                                               : l.position[l.input_index[v]]);
  }
  for (const std::uint32_t g : gate_order) {
    const Candidate& c = cands_[order_[g]];
    CircuitGate gate;
    gate.kind = c.kind;
    gate.negate = lit_negated(c.out);
    gate.first = static_cast<std::uint32_t>(out.inputs.size());
    gate.n = c.n_inputs;
    gate.level = level[g];
    for (std::uint32_t j = 0; j < c.n_inputs; ++j)
      out.inputs.push_back(signal(cand_inputs_[c.first_input + j]));
    out.gates.push_back(gate);
    out.n_and += c.kind == GateKind::and_n;
    out.n_xor += c.kind == GateKind::xor2;
    out.n_ite += c.kind == GateKind::ite;
    out.n_maj += c.kind == GateKind::maj3;
    out.n_constant += c.kind == GateKind::constant;
  }
  for (const std::uint32_t k : clause_order) {
    for (const Lit x : clause(l.constraints[k])) out.literals.push_back(signal(x));
    out.starts.push_back(static_cast<std::uint32_t>(out.literals.size()));
    out.clause_level.push_back(level[order_.size() + k]);
  }
  return out;
}

// ------------------------------------------------------------------ evaluation

// Evaluates the circuit on a range of words. Between consecutive words w-1 and w the inputs at
// positions 6 .. 6 + ctz(w) flip, so only the gates and clause groups of those levels (a suffix
// of each, by the ordering) are evaluated again.
class Evaluator {
 public:
  explicit Evaluator(const Circuit& c) : c_(c) {
    values_.assign(c.n_inputs + c.gates.size(), 0);
    // clause groups: runs of equal level
    for (std::uint32_t k = 0; k < c.clause_level.size(); ++k) {
      if (k == 0 || c.clause_level[k] != c.clause_level[k - 1]) group_start_.push_back(k);
    }
    group_start_.push_back(static_cast<std::uint32_t>(c.clause_level.size()));
    group_value_.assign(group_start_.size() - 1, ~std::uint64_t{0});
    for (std::uint32_t r = 0; r < 64; ++r) {
      const std::uint32_t limit = 6 + r;
      gate_from_[r] = static_cast<std::uint32_t>(
          std::partition_point(c.gates.begin(), c.gates.end(),
                               [&](const CircuitGate& g) { return g.level > limit; }) -
          c.gates.begin());
      std::uint32_t gr = 0;
      while (gr + 1 < group_start_.size() && c.clause_level[group_start_[gr]] > limit) ++gr;
      group_from_[r] = gr;
    }
    for (std::uint32_t p = 0; p < std::min<std::uint32_t>(6, c.n_inputs); ++p)
      values_[p] = kPatterns[p];
    valid_ = c.n_inputs >= 6 ? ~std::uint64_t{0} : (std::uint64_t{1} << (1u << c.n_inputs)) - 1;
  }

  /// The number of models among the assignments of words [begin, end).
  std::uint64_t count(std::uint64_t begin, std::uint64_t end) {
    std::uint64_t models = 0;
    for (std::uint64_t w = begin; w < end; ++w) {
      models += static_cast<std::uint64_t>(std::popcount(models_at(w, w == begin)));
    }
    return models;
  }

  /// The models among word w's assignments, as bits; `first`: w is the first word evaluated
  /// (else w - 1 was the previous one).
  std::uint64_t models_at(std::uint64_t w, bool first) {
    const std::uint32_t r = first ? 63 : static_cast<std::uint32_t>(std::countr_zero(w));
    for (std::uint32_t p = 6; p < c_.n_inputs && (first || p <= 6 + r); ++p) {
      values_[p] = ((w >> (p - 6)) & 1u) != 0 ? ~std::uint64_t{0} : 0;
    }
    evaluate_gates(first ? 0 : gate_from_[r]);
    std::uint64_t ok = valid_;
    const std::uint32_t from = first ? 0 : group_from_[r];
    for (std::uint32_t g = 0; g + 1 < group_start_.size(); ++g) {
      if (g >= from) group_value_[g] = evaluate_clauses(group_start_[g], group_start_[g + 1]);
      ok &= group_value_[g];
    }
    return ok;
  }

 private:
  static constexpr std::uint64_t kPatterns[6] = {0xAAAAAAAAAAAAAAAAULL, 0xCCCCCCCCCCCCCCCCULL,
                                                 0xF0F0F0F0F0F0F0F0ULL, 0xFF00FF00FF00FF00ULL,
                                                 0xFFFF0000FFFF0000ULL, 0xFFFFFFFF00000000ULL};

  std::uint64_t value(Signal s) const { return values_[s >> 1] ^ (std::uint64_t{0} - (s & 1u)); }

  void evaluate_gates(std::uint32_t from) {
    const Signal* in = c_.inputs.data();
    for (std::size_t i = from; i < c_.gates.size(); ++i) {
      const CircuitGate& g = c_.gates[i];
      const Signal* x = in + g.first;
      std::uint64_t v = ~std::uint64_t{0};
      switch (g.kind) {
        case GateKind::constant:
          break;
        case GateKind::and_n:
          for (std::uint32_t j = 0; j < g.n; ++j) v &= value(x[j]);
          break;
        case GateKind::xor2:
          v = value(x[0]) ^ value(x[1]);
          break;
        case GateKind::ite: {
          const std::uint64_t s = value(x[0]);
          v = (s & value(x[1])) | (~s & value(x[2]));
          break;
        }
        case GateKind::maj3: {
          const std::uint64_t a = value(x[0]), b = value(x[1]), c = value(x[2]);
          v = (a & b) | (a & c) | (b & c);
          break;
        }
      }
      values_[c_.n_inputs + i] = g.negate ? ~v : v;
    }
  }

  std::uint64_t evaluate_clauses(std::uint32_t begin, std::uint32_t end) const {
    std::uint64_t all = ~std::uint64_t{0};
    for (std::uint32_t k = begin; k < end && all != 0; ++k) {
      std::uint64_t sat = 0;
      for (std::uint32_t j = c_.starts[k]; j < c_.starts[k + 1]; ++j) sat |= value(c_.literals[j]);
      all &= sat;
    }
    return all;
  }

  const Circuit& c_;
  std::vector<std::uint64_t> values_;
  std::vector<std::uint32_t> group_start_;
  std::vector<std::uint64_t> group_value_;
  std::array<std::uint32_t, 64> gate_from_{};
  std::array<std::uint32_t, 64> group_from_{};
  std::uint64_t valid_ = 0;
};

}  // namespace

std::optional<Circuit> recognise_circuit(const Cnf& cnf, const std::vector<std::uint8_t>& projected,
                                         std::uint32_t max_inputs) {
  if (max_inputs == 0) return std::nullopt;
  Recogniser r(cnf, projected);
  return r.run(std::min<std::uint32_t>(max_inputs, 62));
}

// The words split into fixed chunks (the same at any thread count); each chunk checks the
// deadline before it starts, and a chunk not evaluated adds all its assignments to the upper
// bound only.
CircuitCount count_circuit(const Circuit& circuit, const CircuitLimits& limits) {
  const std::uint64_t words = circuit.n_inputs > 6 ? std::uint64_t{1} << (circuit.n_inputs - 6) : 1;
  const std::uint64_t per_word = circuit.n_inputs >= 6 ? 64 : std::uint64_t{1} << circuit.n_inputs;
  const std::uint64_t n_chunks = (words + kChunkWords - 1) / kChunkWords;
  std::vector<std::uint64_t> models(n_chunks, 0);
  std::vector<std::uint8_t> done(n_chunks, 0);
  std::atomic<bool> stop{false};
  std::unique_ptr<Progress> progress;
  if (!limits.progress_task.empty())
    progress = std::make_unique<Progress>(limits.progress_task, n_chunks);
  parallel_for(
      n_chunks,
      [&](std::size_t k) {
        if (stop.load(std::memory_order_relaxed)) return;
        if ((limits.deadline && std::chrono::steady_clock::now() >= *limits.deadline) ||
            interrupt_requested()) {
          stop = true;
          return;
        }
        Evaluator eval(circuit);
        const std::uint64_t begin = k * kChunkWords;
        models[k] = eval.count(begin, std::min(words, begin + kChunkWords));
        done[k] = 1;
        if (progress) progress->advance();
      },
      resolve_threads(limits.threads, n_chunks));
  if (progress) progress->finish();
  CircuitCount out;
  std::uint64_t lower = 0, unevaluated = 0;
  for (std::uint64_t k = 0; k < n_chunks; ++k) {
    const std::uint64_t n = std::min(words, (k + 1) * kChunkWords) - k * kChunkWords;
    if (done[k]) {
      lower += models[k];
      out.words += n;
    } else {
      unevaluated += n * per_word;
    }
  }
  out.complete = unevaluated == 0;
  out.lower = mpz_class(static_cast<unsigned long>(lower));
  out.upper = mpz_class(static_cast<unsigned long>(lower + unevaluated));
  const auto factor = static_cast<mp_bitcnt_t>(circuit.free_inputs);
  mpz_mul_2exp(out.lower.get_mpz_t(), out.lower.get_mpz_t(), factor);
  mpz_mul_2exp(out.upper.get_mpz_t(), out.upper.get_mpz_t(), factor);
  return out;
}

namespace {

// Visits the projected models of one word's model bits: each model once per assignment of the
// free inputs. False once `limit` models were visited.
class ModelVisitor {
 public:
  ModelVisitor(const Circuit& c, std::uint64_t limit,
               const std::function<void(const std::vector<bool>&)>& visit)
      : c_(c), limit_(limit), visit_(visit), values_(c.projected_position.size()) {
    for (std::size_t i = 0; i < c.projected_position.size(); ++i) {
      if (c.projected_position[i] == kFreeInput) free_.push_back(i);
    }
  }

  bool word(std::uint64_t w, std::uint64_t models) {
    for (; models != 0; models &= models - 1) {
      const auto bit = static_cast<std::uint64_t>(std::countr_zero(models));
      for (std::size_t i = 0; i < c_.projected_position.size(); ++i) {
        const std::uint32_t p = c_.projected_position[i];
        if (p == kFreeInput) continue;
        values_[i] = p < 6 ? ((bit >> p) & 1u) != 0 : ((w >> (p - 6)) & 1u) != 0;
      }
      if (!free_combinations()) return false;
    }
    return true;
  }

  std::uint64_t found() const { return found_; }

 private:
  bool free_combinations() {
    const std::uint64_t n =
        free_.size() >= 63 ? ~std::uint64_t{0} : std::uint64_t{1} << free_.size();
    for (std::uint64_t m = 0; m < n; ++m) {
      if (found_ >= limit_) return false;
      for (std::size_t j = 0; j < free_.size() && j < 64; ++j)
        values_[free_[j]] = ((m >> j) & 1u) != 0;
      if (visit_) visit_(values_);
      ++found_;
    }
    return found_ < limit_;
  }

  const Circuit& c_;
  std::uint64_t limit_;
  const std::function<void(const std::vector<bool>&)>& visit_;
  std::vector<bool> values_;
  std::vector<std::size_t> free_;
  std::uint64_t found_ = 0;
};

}  // namespace

CircuitEnumeration enumerate_circuit(const Circuit& circuit, std::uint64_t limit,
                                     const std::function<void(const std::vector<bool>&)>& visit,
                                     const CircuitLimits& limits) {
  CircuitEnumeration out;
  if (limit == 0) return out;
  const std::uint64_t words = circuit.n_inputs > 6 ? std::uint64_t{1} << (circuit.n_inputs - 6) : 1;
  Evaluator eval(circuit);
  ModelVisitor visitor(circuit, limit, visit);
  for (std::uint64_t w = 0; w < words; ++w) {
    if (w % kChunkWords == 0 && w > 0 && limits.deadline &&
        std::chrono::steady_clock::now() >= *limits.deadline) {
      out.interrupted = true;
      break;
    }
    if (!visitor.word(w, eval.models_at(w, w == 0))) break;
  }
  out.found = visitor.found();
  return out;
}

}  // namespace assay::count::exact
