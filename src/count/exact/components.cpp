// Component decomposition, cache keys and the SAT oracle of the exact counter.
#include <cadical.hpp>

#include <algorithm>

#include "assay/core/interrupt.hpp"
#include "count/exact/counter.hpp"

namespace assay::count::exact {
namespace {

constexpr std::uint32_t kFree = 0xFFFFFFFFu;       // var_comp_: an open variable in no open clause
constexpr std::uint32_t kSatisfied = 0xFFFFFFFFu;  // clause_comp_: a satisfied clause

// Stops CaDiCaL at the deadline or on Ctrl-C.
class DeadlineTerminator : public CaDiCaL::Terminator {
 public:
  explicit DeadlineTerminator(std::optional<Clock::time_point> deadline) : deadline_(deadline) {}
  bool terminate() override {
    return (deadline_ && Clock::now() >= *deadline_) || interrupt_requested();
  }

 private:
  std::optional<Clock::time_point> deadline_;
};

int dimacs(Lit l) {
  const int v = static_cast<int>(lit_var(l)) + 1;
  return lit_negated(l) ? -v : v;
}

}  // namespace

// Splits the open part of component `super` (under the current assignment) into connected
// components over the original clauses; they become the level's children, smallest first,
// each with its variables and clause ids sorted. Open variables in no open clause are free:
// the level's product gets a factor 2 for each projected one. Unprojected variables that occur
// in one polarity only are set that way first (it satisfies clauses and keeps every projected
// model), which may split the component further.
void Counter::split(std::uint32_t super, Level& level) {
  std::uint32_t free_projected = 0;
  while (true) {
    free_projected = find_components(comps_[super], level);
    if (pure_.empty()) break;
    comps_.resize(level.child_begin);
    for (const Lit l : pure_) assign(l, kPure);
    stats_.pure_literals += pure_.size();
    if (!propagate()) {  // learned clauses found the branch empty
      learn_from_conflict();
      level.zero = true;
      level.child_end = level.next_child = level.child_begin;
      return;
    }
  }
  level.child_end = static_cast<std::uint32_t>(comps_.size());
  level.next_child = level.child_begin;
  if (free_projected > 0) {
    mpz_mul_2exp(level.product.get_mpz_t(), level.product.get_mpz_t(), free_projected);
  }
  const std::uint32_t n_children = level.child_end - level.child_begin;
  if (n_children == 0) return;
  // Lay out the children's data: variables then clauses, in the super component's order.
  const Comp sc = comps_[super];
  auto base = static_cast<std::uint32_t>(comp_data_.size());
  fill_.resize(2 * std::size_t{n_children});
  for (std::uint32_t k = 0; k < n_children; ++k) {
    Comp& c = comps_[level.child_begin + k];
    c.data = base;
    fill_[2 * k] = base;
    fill_[2 * k + 1] = base + c.n_vars;
    base += c.n_vars + c.n_clauses;
  }
  comp_data_.resize(base);
  for (std::uint32_t i = 0; i < sc.n_vars; ++i) {
    const std::uint32_t v = comp_data_[sc.data + i];
    if (val_[make_lit(v, false)] != 0 || var_comp_[v] == kFree) continue;
    comp_data_[fill_[2 * var_comp_[v]]++] = v;
  }
  for (std::uint32_t i = 0; i < sc.n_clauses; ++i) {
    const std::uint32_t cl = comp_data_[sc.data + sc.n_vars + i];
    if (clause_stamp_[cl] != stamp_ + 1 || clause_comp_[cl] == kSatisfied) continue;
    comp_data_[fill_[2 * clause_comp_[cl] + 1]++] = cl;
  }
  std::stable_sort(comps_.begin() + level.child_begin, comps_.end(),
                   [](const Comp& a, const Comp& b) { return a.n_vars < b.n_vars; });
}

// One pass of split: pushes the component records (without their data), collects pure_ and
// returns the number of free projected variables.
std::uint32_t Counter::find_components(const Comp& super, Level& level) {
  // Clause stamps: stamp_ marks the super component's open clauses (the only ones that can be
  // open now: the others were satisfied above), stamp_ + 1 those met by this pass.
  stamp_ += 2;
  if (stamp_ >= 0xFFFFFFF0u) {  // the stamps wrap around: clear them
    std::fill(var_stamp_.begin(), var_stamp_.end(), 0);
    std::fill(clause_stamp_.begin(), clause_stamp_.end(), 0);
    stamp_ = 2;
  }
  const Comp sc = super;
  split_work_ += std::uint64_t{sc.n_vars} + sc.n_clauses;
  for (std::uint32_t i = 0; i < sc.n_clauses; ++i)
    clause_stamp_[comp_data_[sc.data + sc.n_vars + i]] = stamp_;
  level.child_begin = static_cast<std::uint32_t>(comps_.size());
  pure_.clear();
  std::uint32_t free_projected = 0;
  for (std::uint32_t i = 0; i < sc.n_vars; ++i) {
    const std::uint32_t v = comp_data_[sc.data + i];
    if (val_[make_lit(v, false)] != 0 || var_stamp_[v] == stamp_) continue;
    Comp c;
    bfs_component(v, static_cast<std::uint32_t>(comps_.size()) - level.child_begin, c);
    if (c.n_vars == 1 && c.n_clauses == 0 && c.n_binary == 0) {
      var_comp_[v] = kFree;
      free_projected += projected_[v];
      continue;
    }
    comps_.push_back(c);
  }
  return free_projected;
}

// Collects the component of open variable `start` (numbered `id` among the siblings), counting
// its variables, projected variables and open clauses, and each variable's occurrences in them.
void Counter::bfs_component(std::uint32_t start, std::uint32_t id, Comp& c) {
  const auto visit = [&](std::uint32_t w) {
    var_stamp_[w] = stamp_;
    var_comp_[w] = id;
    occ_score_[w] = 0;
    polarity_[w] = 0;
    queue_.push_back(w);
  };
  queue_.clear();
  visit(start);
  for (std::size_t head = 0; head < queue_.size(); ++head) {
    const std::uint32_t v = queue_[head];
    ++c.n_vars;
    c.n_projected += projected_[v];
    for (const Lit l : {make_lit(v, false), make_lit(v, true)}) {
      for (const Lit other : bin_orig_[l]) {
        if (val_[other] != 0) continue;  // true: satisfied (false cannot be: v would be set)
        ++occ_score_[v];
        polarity_[v] |= lit_negated(l) ? 2 : 1;
        ++c.n_binary;
        if (var_stamp_[lit_var(other)] != stamp_) visit(lit_var(other));
      }
    }
    for (const std::uint32_t cl : occ_[v]) {
      if (clause_stamp_[cl] != stamp_) continue;  // met already, or satisfied above
      clause_stamp_[cl] = stamp_ + 1;
      const std::uint32_t offset = long_offset_[cl];
      const std::uint32_t size = arena_[offset];
      const Lit* lits = &arena_[offset + kHeader];
      bool satisfied = false;
      for (std::uint32_t k = 0; k < size && !satisfied; ++k) satisfied = val_[lits[k]] > 0;
      if (satisfied) {
        clause_comp_[cl] = kSatisfied;
        continue;
      }
      clause_comp_[cl] = id;
      ++c.n_clauses;
      for (std::uint32_t k = 0; k < size; ++k) {
        if (val_[lits[k]] != 0) continue;
        const std::uint32_t w = lit_var(lits[k]);
        if (var_stamp_[w] != stamp_) visit(w);
        ++occ_score_[w];
        polarity_[w] |= lit_negated(lits[k]) ? 2 : 1;
      }
    }
  }
  c.n_binary /= 2;  // each binary clause was met from both ends
  for (const std::uint32_t v : queue_) {
    if (!projected_[v] && (polarity_[v] == 1 || polarity_[v] == 2)) {
      pure_.push_back(make_lit(v, polarity_[v] == 2));
    }
  }
}

std::uint64_t Counter::cache_key(const Comp& c) {
  const std::uint32_t* data = comp_data_.data() + c.data;
  return cache_->pack({data, c.n_vars}, {data + c.n_vars, c.n_clauses}, key_);
}

// Satisfiability of component c (no projected variable) by CaDiCaL on its residual clauses:
// 1 satisfiable, 0 not, -1 stopped by the deadline.
int Counter::sat_oracle(const Comp& c) {
  CaDiCaL::Solver solver;
  DeadlineTerminator terminator(limits_.deadline);
  solver.connect_terminator(&terminator);
  for (std::uint32_t i = 0; i < c.n_vars; ++i) {
    const std::uint32_t v = comp_data_[c.data + i];
    for (const Lit l : {make_lit(v, false), make_lit(v, true)}) {
      for (const Lit other : bin_orig_[l]) {
        if (val_[other] != 0 || lit_var(other) < v) continue;
        solver.add(dimacs(l));
        solver.add(dimacs(other));
        solver.add(0);
      }
    }
  }
  for (std::uint32_t i = 0; i < c.n_clauses; ++i) {
    const std::uint32_t offset = long_offset_[comp_data_[c.data + c.n_vars + i]];
    const std::uint32_t size = arena_[offset];
    for (std::uint32_t k = 0; k < size; ++k) {
      const Lit l = arena_[offset + kHeader + k];
      if (val_[l] == 0) solver.add(dimacs(l));
    }
    solver.add(0);
  }
  const int result = solver.solve();
  solver.disconnect_terminator();
  return result == 10 ? 1 : result == 20 ? 0 : -1;
}

}  // namespace assay::count::exact
