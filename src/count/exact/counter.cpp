// The search loop of the exact counter: levels, branches, the cache rule, bounds and progress.
#include "count/exact/counter.hpp"

#include <algorithm>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"

namespace assay::count::exact {

Counter::Counter(const Formula& formula, const SearchLimits& limits) : limits_(limits) {
  load(formula);
  cache_ = std::make_unique<ComponentCache>(limits_.cache_bytes, n_vars_,
                                            static_cast<std::uint32_t>(long_offset_.size()));
}

Counter::~Counter() = default;

void Counter::load(const Formula& f) {
  n_vars_ = f.n_vars;
  projected_ = f.projected;
  const std::size_t n_lits = 2 * std::size_t{n_vars_};
  occ_.resize(n_vars_);
  bin_orig_.resize(n_lits);
  bin_learned_.resize(n_lits);
  watches_.resize(n_lits);
  val_.assign(n_lits, 0);
  level_of_.assign(n_vars_, 0);
  reason_.assign(n_vars_, kDecision);
  phase_.assign(n_vars_, 1);
  activity_.assign(n_vars_, 0.0);
  seen_.assign(n_vars_, 0);
  var_stamp_.assign(n_vars_, 0);
  var_comp_.assign(n_vars_, 0);
  occ_score_.assign(n_vars_, 0);
  polarity_.assign(n_vars_, 0);
  for (std::size_t i = 0; i < f.n_clauses(); ++i) {
    const Lit* lits = f.literals.data() + f.starts[i];
    const std::uint32_t size = f.starts[i + 1] - f.starts[i];
    for (std::uint32_t k = 0; k < size; ++k) activity_[lit_var(lits[k])] += 1.0;
    if (size == 1) {
      root_units_.push_back(lits[0]);
    } else if (size == 2) {
      bin_orig_[lits[0]].push_back(lits[1]);
      bin_orig_[lits[1]].push_back(lits[0]);
    } else {
      const auto offset = static_cast<std::uint32_t>(arena_.size());
      const auto id = static_cast<std::uint32_t>(long_offset_.size());
      long_offset_.push_back(offset);
      arena_.push_back(size);
      arena_.push_back(id);
      arena_.push_back(2);
      arena_.insert(arena_.end(), lits, lits + size);
      for (std::uint32_t k = 0; k < size; ++k) occ_[lit_var(lits[k])].push_back(id);
      attach_long(offset);
    }
  }
  original_end_ = static_cast<std::uint32_t>(arena_.size());
  clause_stamp_.assign(long_offset_.size(), 0);
  clause_comp_.assign(long_offset_.size(), 0);
  learned_limit_ = std::max<std::uint64_t>(20000, long_offset_.size() / 2);
}

void Counter::attach_long(std::uint32_t offset) {
  const Lit* lits = &arena_[offset + kHeader];
  watches_[lits[0]].push_back({offset, lits[1]});
  watches_[lits[1]].push_back({offset, lits[0]});
}

void Counter::run() {
  if (!limits_.progress_task.empty()) {
    progress_ = std::make_unique<Progress>(limits_.progress_task, 1000);
  }
  // The root: one component holding every variable and long clause.
  Comp root;
  root.n_vars = n_vars_;
  root.n_clauses = static_cast<std::uint32_t>(long_offset_.size());
  for (std::uint32_t v = 0; v < n_vars_; ++v) {
    comp_data_.push_back(v);
    root.n_projected += projected_[v];
  }
  for (std::uint32_t c = 0; c < root.n_clauses; ++c) comp_data_.push_back(c);
  comps_.push_back(root);
  levels_.emplace_back();
  Level& top = levels_[0];
  top.data_mark = static_cast<std::uint32_t>(comp_data_.size());
  top.product = 1;
  top.cache_mark = cache_->log_position();
  depth_ = 0;
  bool ok = true;
  for (const Lit u : root_units_) {
    if (value(u) < 0) ok = false;
    if (value(u) == 0) assign(u, kDecision);
  }
  if (!ok || !propagate()) {
    lower_ = upper_ = 0;
    complete_ = true;
  } else {
    split(0, top);
    while (step()) {
    }
  }
  if (progress_) progress_->finish();
  stats_.cache_entries = cache_->size();
}

// One move of the search; false when it is over (finished or out of time).
bool Counter::step() {
  // The clock is read every 1024 steps, and sooner after large splits: on a formula of 10^6
  // clauses one step can take a second, and 1024 of them ran 10 minutes past a 3 s limit.
  if (((++steps_ & 1023) == 0 || split_work_ > kSplitWorkPerCheck) && time_is_up()) return false;
  if (timed_out_ || stack_is_full()) return false;
  if (n_learned_long_ > learned_limit_) reduce_learned();
  Level& level = levels_[depth_];
  if (level.descend) {
    level.descend = false;
    open_level(level.comp, level.descend_decision, level.descend_open, false, true, true);
    return !timed_out_;
  }
  if (!level.zero && level.next_child < level.child_end) {
    const Comp c = comps_[level.next_child++];
    open_component(c);
    return !timed_out_;
  }
  finish_branch();
  return !complete_;
}

// Counts component c (the parent level's next child): from the cache, by the SAT oracle, or by
// branching on it at a new level.
void Counter::open_component(const Comp& c) {
  Level& parent = levels_[depth_];
  // Branching on one clause would go as deep as the clause is long, each level copying the
  // shrinking component: quadratic (a clause of 10^6 literals asked for terabytes).
  if (c.n_clauses == 1 && c.n_binary == 0) {
    ++stats_.components;
    parent.product *= single_clause_count(c);
    return;
  }
  const std::uint64_t hash = cache_key(c);
  if (const mpz_class* hit = cache_->find(key_, hash)) {
    ++stats_.cache_hits;
    parent.product *= *hit;
    return;
  }
  const bool exists = c.n_projected == 0;
  if (exists && limits_.sat_oracle_clauses > 0 &&
      c.n_clauses + c.n_binary >= limits_.sat_oracle_clauses) {
    ++stats_.sat_checks;
    const int sat = sat_oracle(c);
    if (sat < 0) {  // out of time: the component stays pending
      --parent.next_child;
      timed_out_ = true;
      compute_bounds();
      return;
    }
    if (sat == 0) {
      parent.zero = true;
    } else {
      cache_->insert(key_, hash, mpz_class(1));
    }
    return;
  }
  ++stats_.components;
  if (exists) ++stats_.sat_checks;
  // Circuits (inputs projected, gates determined by them) leave one large component whose
  // residuals rarely repeat or split: there decomposing costs more than it finds.
  const bool enumerate = !exists && c.n_projected <= limits_.enumerate_projected &&
                         c.n_clauses + c.n_binary >=
                             std::uint64_t{limits_.enumerate_clauses_per_projected} * c.n_projected;
  std::uint32_t n_open = c.n_projected;
  const Lit decision = enumerate ? choose_enumerated(c, n_open) : choose_decision(c, exists);
  open_level(parent.next_child - 1, decision, n_open, exists, enumerate, false);
}

// Opens level depth_ + 1 on component comps_[comp] and starts its first branch.
void Counter::open_level(std::uint32_t comp, Lit decision, std::uint32_t open_projected,
                         bool exists, bool enumerate, bool nested) {
  ++depth_;
  if (levels_.size() <= depth_) levels_.emplace_back();
  Level& level = levels_[depth_];
  level.comp = comp;
  level.exists = exists;
  level.enumerate = enumerate;
  level.nested = nested;
  level.descend = false;
  level.open_projected = open_projected;
  level.branch = 0;
  level.total = 0;
  level.trail_begin = static_cast<std::uint32_t>(trail_.size());
  level.data_mark = static_cast<std::uint32_t>(comp_data_.size());
  level.decision = decision;
  ++stats_.decisions;
  start_branch(level, level.decision);
}

// Assigns `decision` at the current level, propagates, and splits what is left.
void Counter::start_branch(Level& level, Lit decision) {
  level.zero = false;
  level.product = 1;
  level.cache_mark = cache_->log_position();
  level.child_begin = level.child_end = level.next_child =
      static_cast<std::uint32_t>(comps_.size());
  assign(decision, kDecision);
  // Learned units hold in every model: they get level 0 wherever they land on the trail.
  for (const Lit u : learned_units_) {
    if (value(u) == 0) {
      assign(u, kDecision);
      level_of_[lit_var(u)] = 0;
    }
  }
  assert_if_unit();
  if (!propagate()) {
    learn_from_conflict();
    level.zero = true;
    return;
  }
  if (level.enumerate) {
    const Comp& c = comps_[level.comp];
    level.descend_decision = choose_enumerated(c, level.descend_open);
    if (level.descend_decision != kNoLit) {
      level.descend = true;
      return;
    }
    if (all_assigned(c)) return;  // typical of circuits: the inputs determine the rest
  }
  split(level.comp, level);
}

// Ends the current branch of the top level: adds its count, flips to the second branch or
// closes the level (caching its count and multiplying it into the parent's branch).
void Counter::finish_branch() {
  Level& level = levels_[depth_];
  if (level.zero) {
    // Learned clauses may have cut models of components counted in this branch (they are
    // implied by the whole formula, which has no model here): forget what the branch cached.
    level.product = 0;
    cache_->drop_since(level.cache_mark);
  }
  level.total += level.product;
  comps_.resize(level.child_begin);
  comp_data_.resize(level.data_mark);
  undo_to(level.trail_begin);
  if (depth_ == 0) {
    lower_ = upper_ = level.total;
    complete_ = true;
    return;
  }
  if (level.branch == 0 && !(level.exists && level.total > 0)) {
    level.branch = 1;
    start_branch(level, lit_not(level.decision));
    return;
  }
  if (level.exists && level.total > 1) level.total = 1;
  const Comp& c = comps_[level.comp];
  if (level.total > 0 && !level.nested) {
    const std::uint64_t hash = cache_key(c);
    cache_->insert(key_, hash, level.total);
  }
  --depth_;
  Level& parent = levels_[depth_];
  if (level.total == 0) {
    parent.zero = true;
  } else {
    parent.product *= level.total;
  }
}

// Projected variables first (any variable in a component without one), by occurrences in the
// component's open clauses plus ten times the decayed conflict activity; ties to the lowest id.
Lit Counter::choose_decision(const Comp& c, bool exists) {
  std::uint32_t best = 0xFFFFFFFFu;
  double best_score = -1.0;
  const double scale = 10.0 / activity_inc_;
  for (std::uint32_t i = 0; i < c.n_vars; ++i) {
    const std::uint32_t v = comp_data_[c.data + i];
    if (!exists && !projected_[v]) continue;
    const double score = occ_score_[v] + scale * activity_[v];
    if (score > best_score) {
      best_score = score;
      best = v;
    }
  }
  ASSAY_ASSERT(best != 0xFFFFFFFFu);
  if (stats_.decisions % 128 == 0) {  // halve every activity (by doubling the increment)
    activity_inc_ *= 2.0;
    if (activity_inc_ > 1e100) {
      for (double& a : activity_) a *= 1e-100;
      activity_inc_ *= 1e-100;
    }
  }
  return make_lit(best, phase_[best] != 0);
}

// The next projected variable of an enumerated component, by the same scores; kNoLit when
// every one is set. n_open: how many are open.
Lit Counter::choose_enumerated(const Comp& c, std::uint32_t& n_open) {
  std::uint32_t best = 0xFFFFFFFFu;
  double best_score = -1.0;
  const double scale = 10.0 / activity_inc_;
  n_open = 0;
  for (std::uint32_t i = 0; i < c.n_vars; ++i) {
    const std::uint32_t v = comp_data_[c.data + i];
    if (!projected_[v] || val_[make_lit(v, false)] != 0) continue;
    ++n_open;
    const double score = occ_score_[v] + scale * activity_[v];
    if (score > best_score) {
      best_score = score;
      best = v;
    }
  }
  return best == 0xFFFFFFFFu ? kNoLit : make_lit(best, phase_[best] != 0);
}

bool Counter::all_assigned(const Comp& c) const {
  for (std::uint32_t i = 0; i < c.n_vars; ++i) {
    if (val_[make_lit(comp_data_[c.data + i], false)] == 0) return false;
  }
  return true;
}

bool Counter::time_is_up() {
  split_work_ = 0;
  if (progress_) {
    const auto target = static_cast<std::uint64_t>(progress_fraction() * 1000.0);
    if (target > progress_reported_) {
      progress_->advance(target - progress_reported_);
      progress_reported_ = target;
    }
  }
  if ((limits_.deadline && Clock::now() >= *limits_.deadline) || interrupt_requested()) {
    timed_out_ = true;
    compute_bounds();
  }
  return timed_out_;
}

// A component of one open clause whose unassigned literals are its k projected and u unprojected
// variables: every projected assignment but the one that falsifies them all extends to a model,
// and that one too when an unprojected literal can be set (u > 0); without projected variables
// the count is 1 (the clause is satisfiable).
mpz_class Counter::single_clause_count(const Comp& c) const {
  if (c.n_projected == 0) return 1;
  mpz_class n;
  mpz_ui_pow_ui(n.get_mpz_t(), 2, c.n_projected);
  if (c.n_vars == c.n_projected) n -= 1;
  return n;
}

// The component stack holds every open level's components: it stops the search, with bounds,
// before it outgrows its share of memory (or 32-bit offsets).
bool Counter::stack_is_full() {
  if (comp_data_.size() <= limits_.stack_entries) return false;
  out_of_memory_ = timed_out_ = true;
  compute_bounds();
  return true;
}

// Bounds when the time ran out, from the top level down: a finished component counts what it
// counted, a pending one at most 2^(its projected variables) (1 without any), an unstarted
// second branch at most half of its component's assignments. Lower bounds never exceed the
// true count; upper bounds are sound wherever the enclosing branch has models at all (where it
// has none, its true count is 0 and any bound holds).
void Counter::compute_bounds() {
  mpz_class lo, hi, pending;
  bool child = false;
  for (std::uint32_t d = depth_ + 1; d-- > 0;) {
    const Level& level = levels_[d];
    mpz_class branch_lo = 0, branch_hi = 0;
    if (!level.zero) {
      branch_lo = level.product;
      branch_hi = level.product;
      if (child) {
        branch_lo *= lo;
        branch_hi *= hi;
      }
      if (level.descend) {  // the nested enumeration level has not begun
        branch_lo = 0;
        mpz_mul_2exp(branch_hi.get_mpz_t(), branch_hi.get_mpz_t(), level.descend_open);
      }
      for (std::uint32_t i = level.next_child; i < level.child_end; ++i) {
        branch_lo = 0;
        mpz_mul_2exp(branch_hi.get_mpz_t(), branch_hi.get_mpz_t(), comps_[i].n_projected);
      }
    }
    if (d == 0) {
      lo = branch_lo;
      hi = branch_hi;
      break;
    }
    lo = level.total + branch_lo;
    hi = level.total + branch_hi;
    if (level.branch == 0) {
      mpz_ui_pow_ui(pending.get_mpz_t(), 2, level.exists ? 0 : level.open_projected - 1);
      hi += pending;
    }
    if (level.exists) {
      if (lo > 1) lo = 1;
      if (hi > 1) hi = 1;
    }
    child = true;
  }
  lower_ = lo;
  upper_ = hi;
}

// The share of the search space finished, from the root down (each branch is half of its
// level, each component of a branch an equal share).
double Counter::progress_fraction() const {
  double fraction = 0.0;
  bool child = false;
  for (std::uint32_t d = depth_ + 1; d-- > 0;) {
    const Level& level = levels_[d];
    const std::uint32_t n = level.child_end - level.child_begin;
    double branch = 1.0;
    if (!level.zero && n > 0) {
      const std::uint32_t done = level.next_child - level.child_begin - (child ? 1 : 0);
      branch = (done + (child ? fraction : 0.0)) / n;
    } else if (!level.zero && child) {  // an enumeration level above its nested one
      branch = fraction;
    }
    if (d == 0) return branch;
    fraction = level.branch == 0 ? 0.5 * branch : 0.5 + 0.5 * branch;
    child = true;
  }
  return fraction;
}

void Counter::add_stats(ExactCountStats& stats) const {
  stats.decisions += stats_.decisions;
  stats.conflicts += stats_.conflicts;
  stats.learned_clauses += stats_.learned_clauses;
  stats.components += stats_.components;
  stats.cache_hits += stats_.cache_hits;
  stats.cache_entries += stats_.cache_entries;
  stats.sat_checks += stats_.sat_checks;
  stats.cache_evictions += cache_->evictions();
  stats.pure_literals += stats_.pure_literals;
}

}  // namespace assay::count::exact
