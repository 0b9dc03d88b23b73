// Structural counting of tree models: the domain box is split along the trees' thresholds until
// every tree reaches one leaf (the model's output is constant there), and inside each such box
// the predicates are counted by three-valued evaluation and bisection. Exact; the cost grows
// with the number of decided boxes, not with the domain's size.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <gmpxx.h>

#include "assay/core/progress.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/count/model.hpp"
#include "box.hpp"
#include "checks.hpp"
#include "stage_counts.hpp"
#include "three_valued.hpp"

namespace assay::count::detail {

// Box splitting along the trees' thresholds and inside predicates. N is the count type:
// std::uint64_t when the domain is small enough, mpz_class otherwise.
template <typename N>
class Structural {
 public:
  using OnBox = std::function<void(Box&, const N&, const Outputs&)>;

  Structural(const Model& m, const Domain& d) : m_(m), d_(d) {
    // For each internal node: the number of grid indices of its feature that go left. The test
    // is monotone in the value (float32 rounding is monotone too), so "left" is a prefix.
    split_at_.resize(m.trees.size());
    for (std::size_t t = 0; t < m.trees.size(); ++t) {
      const Tree& tree = m.trees[t];
      split_at_[t].assign(tree.size(), 0);
      for (std::size_t i = 0; i < tree.size(); ++i) {
        if (tree.is_leaf(i)) continue;
        split_at_[t][i] = first_right_index(m, d.vars[tree.feature[i]], tree.threshold[i]);
      }
    }
    leaves_.resize(m.trees.size());
    prepare_bounds();
  }

  /// Ensembles: stop descending once the remaining trees cannot change the label (their
  /// contributions are bounded per output). Then the box's Outputs carry the label but no scores,
  /// so this is only allowed when no formula reads score[k] or argmax.
  void set_early_stop(bool on) { early_ = on && can_stop_early_; }

  /// Calls on_box for every box (a partition of `box`) on which the model's output is constant.
  void for_each_model_box(Box& box, const N& size, const OnBox& on_box) {
    run(box, {Step::visit, 0, 0, size}, on_box);
  }

  /// A box on which the first tree reaches one leaf: independent units of work.
  struct Seed {
    Box box;
    N size;
    std::size_t leaf;
  };

  /// Partitions `box` by the first tree's leaves.
  std::vector<Seed> seeds(Box& box, const N& size) {
    std::vector<Seed> out;
    collecting_ = &out;
    run(box, {Step::visit, 0, 0, size}, OnBox{});
    collecting_ = nullptr;
    return out;
  }

  /// for_each_model_box restricted to one seed.
  void from_seed(Seed& seed, const OnBox& on_box) {
    run(seed.box, {Step::leaf, 0, seed.leaf, seed.size}, on_box);
  }

  /// A conjunct of a formula: the root, or one operand of a top-level "and".
  struct Conjunct {
    const Formula* formula;
    std::uint32_t node;
  };

  /// The grid range of one input, set on a box before a sub-box is searched (var < 0: none).
  struct Range {
    std::int64_t var = -1;
    std::uint64_t lo = 0, hi = 0;

    void apply(Box& box) const {
      if (var < 0) return;
      box.lo[var] = lo;
      box.hi[var] = hi;
    }
  };
  struct Halves {
    Range first, second, restore;
  };
  /// The two halves of input `var`'s range in `box`, and the range to restore afterwards.
  static Halves bisect(const Box& box, std::int64_t var) {
    const std::uint64_t lo = box.lo[var], hi = box.hi[var];
    const std::uint64_t mid = lo + (hi - lo) / 2;
    return {{var, lo, mid}, {var, mid + 1, hi}, {var, lo, hi}};
  }

  static std::vector<Conjunct> conjuncts(const std::vector<const Formula*>& formulas) {
    std::vector<Conjunct> out;
    for (const Formula* f : formulas) {
      const auto& root = f->nodes[f->root];
      if (root.op == Op::and_) {
        for (std::uint32_t i = 0; i < root.n_kids; ++i)
          out.push_back({f, f->kids[root.first_kid + i]});
      } else {
        out.push_back({f, f->root});
      }
    }
    return out;
  }

  /// Adds to `acc` the number of points of `box` where every formula holds.
  void count_all(Box& box, const N& size, const std::vector<const Formula*>& formulas,
                 const Outputs& out, N& acc) {
    count_pending(box, size, conjuncts(formulas), out, acc);
  }

  /// Same for a conjunction of conjuncts; only those still undecided are evaluated again on the
  /// sub-boxes (a decided conjunct stays decided on every sub-box). Depth-first over bisections
  /// with an explicit stack: a path can bisect up to 64 times per input, deeper than the call
  /// stack holds when there are many inputs.
  void count_pending(Box& box, const N& size, const std::vector<Conjunct>& pending,
                     const Outputs& out, N& acc) {
    struct Task {
      std::shared_ptr<const std::vector<Conjunct>> pending;  // null: only restore the range
      N size;
      Range range;
    };
    std::vector<Task> stack;
    stack.push_back({std::make_shared<const std::vector<Conjunct>>(pending), size, Range{}});
    while (!stack.empty()) {
      const Task t = std::move(stack.back());
      stack.pop_back();
      t.range.apply(box);
      if (!t.pending) continue;
      std::int64_t split = -1;
      auto next = std::make_shared<std::vector<Conjunct>>();
      bool is_false = false;
      for (const Conjunct& c : *t.pending) {
        ThreeValued ev(*c.formula, d_, box, out);
        const std::uint8_t v = ev.run(c.node);
        if (v == kFalse) {
          is_false = true;
          break;
        }
        if (v == kUnknown) {
          next->push_back(c);
          if (split < 0) split = ev.split_var;
        }
      }
      if (is_false || next->empty()) {
        ++decided_;
        if (!is_false) acc += t.size;
        continue;
      }
      ASSAY_ASSERT(split >= 0);
      const auto [first, second, restore] = bisect(box, split);
      const N base = t.size / N(restore.hi - restore.lo + 1);
      stack.push_back({nullptr, N(0), restore});
      stack.push_back({next, base * N(second.hi - second.lo + 1), second});
      stack.push_back({std::move(next), base * N(first.hi - first.lo + 1), first});
    }
  }

  /// Safety `pre => post` in one search: adds #{pre} to `pre_count` and #{pre and post} to
  /// `satisfied`. Once one side is decided on a box, only the other is searched further.
  /// Iterative like count_pending.
  void count_safety(Box& box, const N& size, const Formula& pre, const Formula& post,
                    const Outputs& out, N& satisfied, N& pre_count) {
    struct Task {
      bool evaluate;  // false: only restore the range
      N size;
      Range range;
    };
    std::vector<Task> stack;
    stack.push_back({true, size, Range{}});
    while (!stack.empty()) {
      const Task t = std::move(stack.back());
      stack.pop_back();
      t.range.apply(box);
      if (!t.evaluate) continue;
      ThreeValued a(pre, d_, box, out);
      const std::uint8_t p = a.run(pre.root);
      if (p == kFalse) {
        ++decided_;
        continue;
      }
      ThreeValued b(post, d_, box, out);
      const std::uint8_t q = b.run(post.root);
      if (p == kTrue) {
        pre_count += t.size;
        if (q == kUnknown) {
          count_pending(box, t.size, conjuncts({&post}), out, satisfied);
        } else {
          ++decided_;
          if (q == kTrue) satisfied += t.size;
        }
        continue;
      }
      if (q != kUnknown) {
        N n = N(0);
        count_pending(box, t.size, conjuncts({&pre}), out, n);
        pre_count += n;
        if (q == kTrue) satisfied += n;
        continue;
      }
      ASSAY_ASSERT(a.split_var >= 0);
      const auto [first, second, restore] = bisect(box, a.split_var);
      const N base = t.size / N(restore.hi - restore.lo + 1);
      stack.push_back({false, N(0), restore});
      stack.push_back({true, base * N(second.hi - second.lo + 1), second});
      stack.push_back({true, base * N(first.hi - first.lo + 1), first});
    }
  }

  std::uint64_t decided() const { return decided_; }

 private:
  // One unit of the depth-first search over the trees' splits: walk tree t from `node`, or go on
  // from the leaf `node` of tree t, or only set the range. Before either, input `input` (if any)
  // gets the range [lo, hi] on the box: a sub-box's range is set, and its parent's restored, in
  // stack order.
  static constexpr std::size_t kNoInput = static_cast<std::size_t>(-1);
  struct Step {
    enum Kind { visit, leaf, restore } kind;
    std::size_t t = 0, node = 0;
    N size = N(0);
    std::size_t input = kNoInput;
    std::uint64_t lo = 0, hi = 0;
  };

  // Depth-first with an explicit stack: a path splits once per node on it, in every tree, which
  // for a deep tree (a chain of 200,000 thresholds) is deeper than the call stack holds.
  void run(Box& box, Step first, const OnBox& on_box) {
    std::vector<Step> stack;
    stack.push_back(std::move(first));
    while (!stack.empty()) {
      Step s = std::move(stack.back());
      stack.pop_back();
      if (s.input != kNoInput) {
        box.lo[s.input] = s.lo;
        box.hi[s.input] = s.hi;
      }
      if (s.kind == Step::visit) walk(box, s, stack, on_box);
      if (s.kind == Step::leaf) reached_leaf(box, s, stack, on_box);
    }
  }

  // Follows tree s.t down from s.node while the box sends all its points one way; at the first
  // split of the box, queues both halves (left first) and the restoring of the range.
  void walk(Box& box, const Step& s, std::vector<Step>& stack, const OnBox& on_box) {
    const Tree& tree = m_.trees[s.t];
    std::size_t node = s.node;
    while (!tree.is_leaf(node)) {
      const auto f = static_cast<std::size_t>(tree.feature[node]);
      const std::uint64_t k = split_at_[s.t][node];
      if (box.hi[f] < k) {
        node = static_cast<std::size_t>(tree.left[node]);
      } else if (box.lo[f] >= k) {
        node = static_cast<std::size_t>(tree.right[node]);
      } else {
        const std::uint64_t lo = box.lo[f], hi = box.hi[f];
        const N base = s.size / N(hi - lo + 1);
        const auto left = static_cast<std::size_t>(tree.left[node]);
        const auto right = static_cast<std::size_t>(tree.right[node]);
        stack.push_back({Step::restore, 0, 0, N(0), f, lo, hi});
        stack.push_back({Step::visit, s.t, right, base * N(hi - k + 1), f, k, hi});
        stack.push_back({Step::visit, s.t, left, base * N(k - lo), f, lo, k - 1});
        return;
      }
    }
    if (collecting_) {
      collecting_->push_back({box, s.size, node});
      return;
    }
    reached_leaf(box, {Step::leaf, s.t, node, s.size}, stack, on_box);
  }

  // Tree s.t has reached leaf s.node on this box: go on with the next tree, or report the box.
  void reached_leaf(Box& box, const Step& s, std::vector<Step>& stack, const OnBox& on_box) {
    const std::size_t t = s.t;
    leaves_[t] = s.node;
    if (t + 1 < m_.trees.size()) {
      if (early_) {
        for (std::size_t k = 0; k < width_; ++k) {
          partial_[t + 1][k] = partial_[t][k] + contribution_[t][s.node][k];
        }
        const std::int32_t label = decided_label(t + 1);
        if (label >= 0) {
          Outputs out;
          out.label = label;
          on_box(box, s.size, out);
          return;
        }
      }
      stack.push_back({Step::visit, t + 1, 0, s.size});
      return;
    }
    Outputs out;
    out.label = label_from_leaves(m_, leaves_, &scores_);
    out.scores = scores_.data();
    out.n_scores = scores_.size();
    on_box(box, s.size, out);
  }

  // Per tree and leaf, what it adds to each output (forest: normalised value or a vote; boosting:
  // scale * value on the tree's output); suffix sums of the per-output minimum and maximum.
  void prepare_bounds() {
    const std::size_t n_trees = m_.trees.size();
    can_stop_early_ = m_.classification && n_trees > 1 &&
                      (m_.kind == ModelKind::forest || m_.kind == ModelKind::boosted);
    if (!can_stop_early_) return;
    width_ = m_.n_outputs;
    contribution_.resize(n_trees);
    std::vector<std::vector<double>> lo(n_trees, std::vector<double>(width_, 0.0));
    std::vector<std::vector<double>> hi = lo;
    double magnitude = 0.0;
    for (std::size_t t = 0; t < n_trees; ++t) {
      const Tree& tree = m_.trees[t];
      contribution_[t].assign(tree.size(), std::vector<double>(width_, 0.0));
      bool first = true;
      double biggest = 0.0;
      for (std::size_t i = 0; i < tree.size(); ++i) {
        if (!tree.is_leaf(i)) continue;
        auto& c = contribution_[t][i];
        const auto& v = tree.value[i];
        if (m_.kind == ModelKind::boosted) {
          c[tree.output] = tree.scale * v[0];
        } else if (m_.aggregation == Aggregation::average) {
          double sum = 0.0;
          for (double x : v) sum += x;
          if (sum == 0.0) sum = 1.0;
          for (std::size_t k = 0; k < width_; ++k) c[k] = v[k] / sum;
        } else {
          c[std::max_element(v.begin(), v.end()) - v.begin()] = 1.0;
        }
        for (std::size_t k = 0; k < width_; ++k) {
          lo[t][k] = first ? c[k] : std::min(lo[t][k], c[k]);
          hi[t][k] = first ? c[k] : std::max(hi[t][k], c[k]);
          biggest = std::max(biggest, std::abs(c[k]));
        }
        first = false;
      }
      magnitude += biggest;
    }
    suffix_lo_.assign(n_trees + 1, std::vector<double>(width_, 0.0));
    suffix_hi_ = suffix_lo_;
    for (std::size_t t = n_trees; t-- > 0;) {
      for (std::size_t k = 0; k < width_; ++k) {
        suffix_lo_[t][k] = suffix_lo_[t + 1][k] + lo[t][k];
        suffix_hi_[t][k] = suffix_hi_[t + 1][k] + hi[t][k];
      }
    }
    partial_.assign(n_trees + 1, std::vector<double>(width_, 0.0));
    if (m_.kind == ModelKind::boosted) {
      partial_[0] = m_.base;
      for (double b : m_.base) magnitude += std::abs(b);
    }
    // A margin above rounding error: the final sums, however rounded, keep the order. Summing
    // n terms (each rounded once more in float32) errs by at most about (n + 1) * u * sum|term|,
    // so the margin grows with the number of trees.
    const double unit = m_.sum_float32 ? 0x1p-24 : 0x1p-53;
    const double rounding = 4.0 * static_cast<double>(n_trees + 2) * unit;
    tolerance_ = std::max(m_.sum_float32 ? 1e-5 : 1e-9, rounding) * (1.0 + magnitude);
  }

  // The label when trees t.. cannot change it, else -1.
  std::int32_t decided_label(std::size_t t) const {
    const auto& p = partial_[t];
    if (m_.kind == ModelKind::boosted && width_ == 1) {
      // Binary: label 1 iff the margin is positive (both logistic rules agree away from 0).
      if (p[0] + suffix_lo_[t][0] > tolerance_) return 1;
      if (p[0] + suffix_hi_[t][0] < -tolerance_) return 0;
      return -1;
    }
    std::size_t best = 0;
    for (std::size_t k = 1; k < width_; ++k) {
      if (p[k] + suffix_lo_[t][k] > p[best] + suffix_lo_[t][best]) best = k;
    }
    const double low = p[best] + suffix_lo_[t][best];
    for (std::size_t k = 0; k < width_; ++k) {
      if (k != best && p[k] + suffix_hi_[t][k] + tolerance_ >= low) return -1;
    }
    return static_cast<std::int32_t>(best);
  }

  const Model& m_;
  const Domain& d_;
  bool can_stop_early_ = false;
  bool early_ = false;
  std::vector<Seed>* collecting_ = nullptr;
  std::size_t width_ = 0;
  std::vector<std::vector<std::vector<double>>> contribution_;
  std::vector<std::vector<double>> suffix_lo_, suffix_hi_, partial_;
  double tolerance_ = 0.0;
  std::vector<std::vector<std::uint64_t>> split_at_;
  std::vector<std::size_t> leaves_;
  std::vector<double> scores_;
  std::uint64_t decided_ = 0;
};

/// Exact TP/FP/TN/FN per truth and S/N per safety property of `c` (structural method, on
/// `threads` workers); boxes = the decided boxes.
template <typename N>
StageCounts structural_counts(const Model& m, const Spec& spec, const Checks& c, int threads);
extern template StageCounts structural_counts<std::uint64_t>(const Model&, const Spec&,
                                                             const Checks&, int);
extern template StageCounts structural_counts<mpz_class>(const Model&, const Spec&, const Checks&,
                                                         int);

/// Points of `region` predicted as `label`; adds the decided boxes to `boxes`.
mpz_class structural_region_count(const Model& m, const Domain& d, const Box& region,
                                  std::int32_t label, std::uint64_t& boxes);

}  // namespace assay::count::detail
