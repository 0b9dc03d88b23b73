// The exact counter's search over a preprocessed Formula (see exact_counter.hpp for the method).
//
// State, all in flat arrays reused through the search:
// - clauses: long (>= 3 literals) clauses in one arena [size|flags, activity/id, position,
// literals]
//   (the original ones first, learned ones after), binary clauses as per-literal lists of the
//   other literal (original and learned apart: components follow original clauses only);
// - the trail of assigned literals with a decision level and a reason per variable;
// - components: comps_ (a stack of records) over comp_data_ (their sorted variable ids, then
//   their sorted long-clause ids), pushed when a branch splits and popped when it is finished;
// - levels_: one per open branching; level 0 is the root (no decision).
// Level d branches on a variable of its component; each branch multiplies the counts of the
// components its propagation leaves, and the level's count is the sum over both branches (at
// most 1 for a component without projected variables: there one model suffices).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include <gmpxx.h>

#include "assay/core/progress.hpp"
#include "assay/count/exact_counter.hpp"
#include "count/exact/component_cache.hpp"
#include "count/exact/literals.hpp"

namespace assay::count::exact {

using Clock = std::chrono::steady_clock;

struct SearchLimits {
  std::optional<Clock::time_point> deadline;
  std::size_t cache_bytes = std::size_t{2048} << 20;
  /// Entries of the component stack (4 bytes each) beyond which the search stops with bounds,
  /// as at the deadline (a search as deep as its components are large needs their squares).
  std::size_t stack_entries = std::size_t{1} << 30;
  std::size_t sat_oracle_clauses = 2000;
  std::string progress_task;
  std::uint32_t enumerate_projected = 12;
  std::uint32_t enumerate_clauses_per_projected = 64;
};

class Counter {
 public:
  Counter(const Formula& formula, const SearchLimits& limits);
  ~Counter();
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  /// Runs the search. Afterwards complete() tells whether it finished; lower() and upper()
  /// bound the count of the formula (equal when complete).
  void run();
  bool complete() const { return complete_; }
  /// The component stack outgrew limits.stack_entries (the reason the search stopped).
  bool out_of_memory() const { return out_of_memory_; }
  const mpz_class& lower() const { return lower_; }
  const mpz_class& upper() const { return upper_; }
  /// Adds the search's figures to `stats`.
  void add_stats(ExactCountStats& stats) const;

 private:
  // A component: its variables are comp_data_[data, data+n_vars), its open long clauses follow.
  struct Comp {
    std::uint32_t data = 0;
    std::uint32_t n_vars = 0;
    std::uint32_t n_clauses = 0;    // open long clauses
    std::uint32_t n_binary = 0;     // open binary clauses
    std::uint32_t n_projected = 0;  // projected variables
  };
  // One branching on a component (level 0: the root, without a decision).
  struct Level {
    std::uint32_t comp = 0;         // index in comps_ of the component branched on
    std::uint32_t child_begin = 0;  // the current branch's components: comps_[begin, end)
    std::uint32_t child_end = 0;
    std::uint32_t next_child = 0;   // next one to count
    std::uint32_t data_mark = 0;    // comp_data_ size before the children
    std::uint32_t trail_begin = 0;  // trail size before the decision
    Lit decision = kNoLit;
    std::uint8_t branch = 0;  // 0: first branch, 1: the flipped one
    bool exists = false;      // no projected variable: the count is 0 or 1
    bool zero = false;        // the current branch's count is 0
    // Enumeration (see open_component): the branches do not split; they continue at a nested
    // level on the next projected variable of the same component (descend), and only once
    // all of them are set is the rest split into components (without projected variables).
    bool enumerate = false;
    bool nested = false;   // an enumeration level below the first: its count is not cached
    bool descend = false;  // the current branch continues at a nested level, deciding:
    Lit descend_decision = kNoLit;
    std::uint32_t descend_open = 0;    // the open projected variables there
    std::uint32_t open_projected = 0;  // open projected variables of comp at the decision
    std::uint64_t cache_mark = 0;      // cache log position when the branch began
    mpz_class total;                   // sum over the finished branches
    mpz_class product;                 // the current branch: product of its finished components
  };
  // Why a variable has its value: kDecision, kPure (an unprojected variable that occurs in one
  // polarity only in its component's open clauses), a binary clause (kBinaryTag | other
  // literal) or an arena offset of a long clause.
  static constexpr std::uint32_t kDecision = 0xFFFFFFFFu;
  static constexpr std::uint32_t kPure = 0xFFFFFFFEu;
  static constexpr std::uint32_t kBinaryTag = 0x80000000u;
  // A long clause in the arena: [size | learned flag, id (original) or activity (learned),
  // where the last search for a new watch stopped, literals...].
  static constexpr std::uint32_t kHeader = 3;
  struct Watch {
    std::uint32_t clause;  // arena offset
    Lit blocker;           // a literal of the clause; when true, the clause is satisfied
  };

  // setup (counter.cpp)
  void load(const Formula& formula);
  void attach_long(std::uint32_t offset);
  // the search loop (counter.cpp)
  bool step();
  void open_component(const Comp& c);
  void open_level(std::uint32_t comp, Lit decision, std::uint32_t open_projected, bool exists,
                  bool enumerate, bool nested);
  Lit choose_enumerated(const Comp& c, std::uint32_t& n_open);
  bool all_assigned(const Comp& c) const;
  void start_branch(Level& level, Lit decision);
  void finish_branch();
  Lit choose_decision(const Comp& c, bool exists);
  bool time_is_up();
  bool stack_is_full();
  mpz_class single_clause_count(const Comp& c) const;
  void compute_bounds();
  double progress_fraction() const;
  // propagation and learning (propagate.cpp)
  void assign(Lit l, std::uint32_t reason);
  void undo_to(std::size_t trail_size);
  bool propagate();
  void learn_from_conflict();
  void add_learned(const std::vector<Lit>& clause);
  void reduce_learned();
  void bump(std::uint32_t var);
  void bump_clause(std::uint32_t reason);
  void assert_if_unit();
  template <typename F>
  void for_each_reason_lit(std::uint32_t reason, Lit implied, F&& f) const;
  // components (components.cpp)
  void split(std::uint32_t super, Level& level);
  std::uint32_t find_components(const Comp& super, Level& level);
  void bfs_component(std::uint32_t start, std::uint32_t id, Comp& c);
  std::uint64_t cache_key(const Comp& c);
  int sat_oracle(const Comp& c);

  std::int8_t value(Lit l) const { return val_[l]; }

  // formula
  std::uint32_t n_vars_ = 0;
  std::vector<std::uint8_t> projected_;
  std::vector<std::uint32_t> arena_;
  std::uint32_t original_end_ = 0;               // arena offsets below are original clauses
  std::vector<std::uint32_t> long_offset_;       // original long clause id -> arena offset
  std::vector<std::vector<std::uint32_t>> occ_;  // variable -> original long clause ids
  std::vector<std::vector<Lit>> bin_orig_;       // literal -> others of its original binaries
  std::vector<std::vector<Lit>> bin_learned_;
  std::vector<std::vector<Watch>> watches_;  // literal -> long clauses watching it
  std::vector<Lit> root_units_;
  std::vector<Lit> learned_units_;
  // assignment
  std::vector<std::int8_t> val_;  // per literal: 1 true, -1 false, 0 open
  std::vector<std::uint32_t> level_of_;
  std::vector<std::uint32_t> reason_;
  std::vector<std::uint8_t> phase_;  // per variable: the last value (1 = negated)
  std::vector<Lit> trail_;
  std::size_t qhead_ = 0;
  std::uint32_t depth_ = 0;  // decision level of new assignments
  // conflicts and learning
  std::uint32_t conflict_ = kDecision;  // reason-style encoding of the violated clause
  Lit conflict_lit_ = kNoLit;           // with a binary conflict: one of its two literals
  std::vector<double> activity_;        // per variable
  double activity_inc_ = 1.0;
  std::vector<std::uint8_t> seen_;
  std::vector<Lit> learned_;                  // the last learned clause
  std::uint32_t learned_reason_ = kDecision;  // its reason encoding (while not reduced)
  float clause_inc_ = 1.0f;
  std::vector<Lit> analyze_stack_;
  std::uint64_t n_learned_long_ = 0;
  std::uint64_t learned_limit_ = 0;
  // components
  std::vector<Comp> comps_;
  std::vector<std::uint32_t> comp_data_;
  std::deque<Level> levels_;  // a deque: references stay valid as it grows
  std::vector<std::uint32_t> var_stamp_, var_comp_, occ_score_;
  std::vector<std::uint8_t> polarity_;  // per variable: 1 positive, 2 negative occurrences seen
  std::vector<Lit> pure_;
  std::vector<std::uint32_t> clause_stamp_, clause_comp_;
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> queue_, fill_;
  std::vector<std::uint64_t> key_;
  std::unique_ptr<ComponentCache> cache_;
  // limits and results
  SearchLimits limits_;
  std::unique_ptr<Progress> progress_;
  std::uint64_t progress_reported_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t split_work_ = 0;  // variables and clauses scanned by splits since the last check
  static constexpr std::uint64_t kSplitWorkPerCheck = 1u << 20;
  bool timed_out_ = false;  // stopped early: the deadline, Ctrl-C or out_of_memory_
  bool out_of_memory_ = false;
  bool complete_ = false;
  mpz_class lower_, upper_;
  ExactCountStats stats_;
};

}  // namespace assay::count::exact
