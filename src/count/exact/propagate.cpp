// Unit propagation (binary lists + two watched literals) and first-UIP clause learning.
#include <algorithm>
#include <bit>

#include "count/exact/counter.hpp"

namespace assay::count::exact {
namespace {

constexpr std::uint32_t kLearnedFlag = 0x80000000u;
constexpr std::uint32_t kSizeMask = 0x7FFFFFFFu;

float clause_activity(const std::vector<std::uint32_t>& arena, std::uint32_t offset) {
  return std::bit_cast<float>(arena[offset + 1]);
}

}  // namespace

void Counter::assign(Lit l, std::uint32_t reason) {
  val_[l] = 1;
  val_[lit_not(l)] = -1;
  const std::uint32_t v = lit_var(l);
  level_of_[v] = depth_;
  reason_[v] = reason;
  trail_.push_back(l);
}

void Counter::undo_to(std::size_t trail_size) {
  while (trail_.size() > trail_size) {
    const Lit l = trail_.back();
    trail_.pop_back();
    val_[l] = 0;
    val_[lit_not(l)] = 0;
    phase_[lit_var(l)] = lit_negated(l) ? 1 : 0;
  }
  qhead_ = std::min(qhead_, trail_size);
}

// Propagates the trail from qhead_; false on a conflict (then conflict_ names the clause).
bool Counter::propagate() {
  while (qhead_ < trail_.size()) {
    const Lit falsified = lit_not(trail_[qhead_++]);
    for (const auto* list : {&bin_orig_[falsified], &bin_learned_[falsified]}) {
      for (const Lit other : *list) {
        const std::int8_t v = val_[other];
        if (v > 0) continue;
        if (v < 0) {
          conflict_ = kBinaryTag | falsified;
          conflict_lit_ = other;
          return false;
        }
        assign(other, kBinaryTag | falsified);
      }
    }
    std::vector<Watch>& ws = watches_[falsified];
    std::size_t i = 0, j = 0;
    const std::size_t n = ws.size();
    while (i < n) {
      const Watch w = ws[i++];
      if (val_[w.blocker] > 0) {
        ws[j++] = w;
        continue;
      }
      std::uint32_t* c = &arena_[w.clause + 2];
      const std::uint32_t size = arena_[w.clause] & kSizeMask;
      if (c[0] == falsified) std::swap(c[0], c[1]);
      const Lit first = c[0];
      if (first != w.blocker && val_[first] > 0) {
        ws[j++] = {w.clause, first};
        continue;
      }
      bool moved = false;
      for (std::uint32_t k = 2; k < size; ++k) {
        if (val_[c[k]] >= 0) {
          c[1] = c[k];
          c[k] = falsified;
          watches_[c[1]].push_back({w.clause, first});
          moved = true;
          break;
        }
      }
      if (moved) continue;
      ws[j++] = {w.clause, first};
      if (val_[first] < 0) {
        conflict_ = w.clause;
        while (i < n) ws[j++] = ws[i++];
        ws.resize(j);
        return false;
      }
      assign(first, w.clause);
    }
    ws.resize(j);
  }
  return true;
}

// Calls f on each false literal of the clause behind `reason` other than `implied`.
template <typename F>
void Counter::for_each_reason_lit(std::uint32_t reason, Lit implied, F&& f) const {
  if (reason & kBinaryTag) {
    f(static_cast<Lit>(reason & ~kBinaryTag));
    return;
  }
  const std::uint32_t size = arena_[reason] & kSizeMask;
  const std::uint32_t* c = &arena_[reason + 2];
  for (std::uint32_t k = 0; k < size; ++k) {
    if (c[k] != implied) f(c[k]);
  }
}

// First-UIP learning from conflict_. Learning is optional for soundness (a learned clause is a
// resolvent, implied by the formula), so a conflict that does not involve the current level
// (possible when a learned unit lands late on the trail) is simply not learned from.
void Counter::learn_from_conflict() {
  ++stats_.conflicts;
  learned_.clear();
  learned_.push_back(kNoLit);
  analyze_stack_.clear();
  int path = 0;
  const auto visit = [&](Lit q) {
    const std::uint32_t v = lit_var(q);
    if (seen_[v] || level_of_[v] == 0) return;
    seen_[v] = 1;
    analyze_stack_.push_back(v);
    bump(v);
    if (level_of_[v] >= depth_) {
      ++path;
    } else {
      learned_.push_back(q);
    }
  };
  if (conflict_ & kBinaryTag) {
    visit(static_cast<Lit>(conflict_ & ~kBinaryTag));
    visit(conflict_lit_);
  } else {
    bump_clause(conflict_);
    for_each_reason_lit(conflict_, kNoLit, visit);
  }
  Lit p = kNoLit;
  if (path > 0) {
    std::size_t index = trail_.size();
    while (true) {
      while (!seen_[lit_var(trail_[--index])]) {
      }
      p = trail_[index];
      seen_[lit_var(p)] = 0;
      if (--path == 0) break;
      const std::uint32_t reason = reason_[lit_var(p)];
      bump_clause(reason);
      for_each_reason_lit(reason, p, visit);
    }
  }
  if (p == kNoLit) {
    for (const std::uint32_t v : analyze_stack_) seen_[v] = 0;
    learned_.clear();
    return;
  }
  learned_[0] = lit_not(p);
  // Drop literals implied by others of the clause (local minimisation).
  std::size_t kept = 1;
  for (std::size_t i = 1; i < learned_.size(); ++i) {
    const Lit q = learned_[i];
    const std::uint32_t reason = reason_[lit_var(q)];
    bool redundant = reason != kDecision;
    if (redundant) {
      for_each_reason_lit(reason, lit_not(q), [&](Lit r) {
        if (!seen_[lit_var(r)] && level_of_[lit_var(r)] > 0) redundant = false;
      });
    }
    if (!redundant) learned_[kept++] = q;
  }
  learned_.resize(kept);
  for (const std::uint32_t v : analyze_stack_) seen_[v] = 0;
  // The literal assigned last among the others is watched second.
  std::size_t max_i = 1;
  for (std::size_t i = 2; i < learned_.size(); ++i) {
    if (level_of_[lit_var(learned_[i])] > level_of_[lit_var(learned_[max_i])]) max_i = i;
  }
  if (learned_.size() > 2) std::swap(learned_[1], learned_[max_i]);
  add_learned(learned_);
  clause_inc_ *= 1.001f;
  if (clause_inc_ > 1e20f) {
    for (std::uint32_t o = original_end_; o < arena_.size(); o += 2 + (arena_[o] & kSizeMask)) {
      arena_[o + 1] = std::bit_cast<std::uint32_t>(clause_activity(arena_, o) * 1e-20f);
    }
    clause_inc_ *= 1e-20f;
  }
}

void Counter::add_learned(const std::vector<Lit>& clause) {
  ++stats_.learned_clauses;
  if (clause.size() == 1) {
    learned_units_.push_back(clause[0]);
    learned_reason_ = kDecision;
  } else if (clause.size() == 2) {
    bin_learned_[clause[0]].push_back(clause[1]);
    bin_learned_[clause[1]].push_back(clause[0]);
    learned_reason_ = kBinaryTag | clause[1];
  } else {
    const auto offset = static_cast<std::uint32_t>(arena_.size());
    arena_.push_back(static_cast<std::uint32_t>(clause.size()) | kLearnedFlag);
    arena_.push_back(std::bit_cast<std::uint32_t>(clause_inc_));
    arena_.insert(arena_.end(), clause.begin(), clause.end());
    attach_long(offset);
    ++n_learned_long_;
    learned_reason_ = offset;
  }
}

// After a conflict the search flips the decision chronologically; the learned clause is then
// often unit (its first literal open, the others false): assert that literal.
void Counter::assert_if_unit() {
  if (learned_.size() < 2 || value(learned_[0]) != 0) return;
  for (std::size_t i = 1; i < learned_.size(); ++i) {
    if (value(learned_[i]) >= 0) return;
  }
  assign(learned_[0], learned_reason_);
}

void Counter::bump(std::uint32_t var) {
  activity_[var] += activity_inc_;
  if (activity_[var] > 1e100) {
    for (double& a : activity_) a *= 1e-100;
    activity_inc_ *= 1e-100;
  }
}

void Counter::bump_clause(std::uint32_t reason) {
  if ((reason & kBinaryTag) || reason < original_end_) return;
  arena_[reason + 1] = std::bit_cast<std::uint32_t>(clause_activity(arena_, reason) + clause_inc_);
}

// Deletes the less active half of the learned long clauses that are no reason now, then
// compacts the arena and rebuilds the watch lists.
void Counter::reduce_learned() {
  std::vector<std::uint32_t> candidates;
  for (std::uint32_t o = original_end_; o < arena_.size(); o += 2 + (arena_[o] & kSizeMask)) {
    const Lit first = arena_[o + 2];
    const bool locked = val_[first] > 0 && reason_[lit_var(first)] == o;
    if (!locked) candidates.push_back(o);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](std::uint32_t a, std::uint32_t b) {
    return clause_activity(arena_, a) < clause_activity(arena_, b);
  });
  std::vector<std::uint8_t> drop(arena_.size() - original_end_, 0);
  for (std::size_t i = 0; i < candidates.size() / 2; ++i) drop[candidates[i] - original_end_] = 1;
  // Compact: clauses keep their order; reasons are moved with them.
  std::vector<std::uint32_t> moved(arena_.size() - original_end_, 0);
  std::uint32_t out = original_end_;
  n_learned_long_ = 0;
  for (std::uint32_t o = original_end_; o < arena_.size();) {
    const std::uint32_t len = 2 + (arena_[o] & kSizeMask);
    if (!drop[o - original_end_]) {
      moved[o - original_end_] = out;
      std::copy(arena_.begin() + o, arena_.begin() + o + len, arena_.begin() + out);
      out += len;
      ++n_learned_long_;
    }
    o += len;
  }
  arena_.resize(out);
  for (const Lit l : trail_) {
    std::uint32_t& r = reason_[lit_var(l)];
    if (r != kDecision && !(r & kBinaryTag) && r >= original_end_) r = moved[r - original_end_];
  }
  for (auto& ws : watches_) ws.clear();
  for (std::uint32_t o = 0; o < arena_.size(); o += 2 + (arena_[o] & kSizeMask)) attach_long(o);
  learned_.clear();
  learned_limit_ += learned_limit_ / 10;
}

}  // namespace assay::count::exact
