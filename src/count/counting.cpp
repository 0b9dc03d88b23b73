#include "assay/count/counting.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/normal.hpp>

#include "assay/core/error.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/warning.hpp"

namespace assay::count {

// ------------------------------------------------------------------ numbers

std::string to_decimal(const mpz_class& value) {
  return value.get_str(10);
}

std::string to_scientific(const mpz_class& value, int digits) {
  const std::string s = value.get_str(10);
  const bool negative = !s.empty() && s[0] == '-';
  const std::string d = negative ? s.substr(1) : s;
  if (d.size() <= static_cast<std::size_t>(digits) + 3) return s;
  // Round to `digits` significant digits.
  mpz_class scale;
  mpz_ui_pow_ui(scale.get_mpz_t(), 10, d.size() - digits);
  mpz_class mant = abs(value);
  mant = (mant + scale / 2) / scale;
  std::string m = mant.get_str(10);
  std::size_t exponent = d.size() - 1;
  if (m.size() > static_cast<std::size_t>(digits)) {  // 9.995e5 rounds up to 1.00e6
    m = m.substr(0, digits);
    ++exponent;
  }
  std::string out = negative ? "-" : "";
  out += m.substr(0, 1);
  if (m.size() > 1) out += "." + m.substr(1);
  out += "e+" + std::to_string(exponent);
  return out;
}

double ratio(const mpz_class& a, const mpz_class& b) {
  if (b == 0) return std::numeric_limits<double>::quiet_NaN();
  mpq_class q(a, b);
  q.canonicalize();
  return q.get_d();
}

Proportion proportion(std::uint64_t k, std::uint64_t n, double confidence) {
  Proportion p;
  p.k = k;
  p.n = n;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (n == 0) {
    p.value = p.wilson_low = p.wilson_high = p.exact_low = p.exact_high = nan;
    return p;
  }
  if (!(confidence > 0 && confidence < 1)) {
    fail("confidence must lie in (0, 1), found {}", confidence);
  }
  const double alpha = 1.0 - confidence;
  const double nn = static_cast<double>(n);
  const double phat = static_cast<double>(k) / nn;
  p.value = phat;
  const double z = boost::math::quantile(boost::math::normal_distribution<double>(), 1 - alpha / 2);
  const double denom = 1 + z * z / nn;
  const double center = (phat + z * z / (2 * nn)) / denom;
  const double half = z / denom * std::sqrt(phat * (1 - phat) / nn + z * z / (4 * nn * nn));
  p.wilson_low = std::max(0.0, center - half);
  p.wilson_high = std::min(1.0, center + half);
  const double kk = static_cast<double>(k);
  p.exact_low = k == 0 ? 0.0
                       : boost::math::quantile(
                             boost::math::beta_distribution<double>(kk, nn - kk + 1), alpha / 2);
  p.exact_high = k == n
                     ? 1.0
                     : boost::math::quantile(
                           boost::math::beta_distribution<double>(kk + 1, nn - kk), 1 - alpha / 2);
  return p;
}

namespace {

using Op = Formula::Op;
using Clock = std::chrono::steady_clock;

constexpr std::uint8_t kFalse = 0, kTrue = 1, kUnknown = 2;

// GMP takes 64-bit counts directly as unsigned long (LP64).
static_assert(sizeof(unsigned long) == sizeof(std::uint64_t));

// A box of grid indices: variable v ranges over [lo[v], hi[v]] (inclusive).
struct Box {
  std::vector<std::uint64_t> lo, hi;
};

Box full_box(const Domain& d) {
  Box b;
  for (const auto& v : d.vars) {
    b.lo.push_back(0);
    b.hi.push_back(v.size - 1);
  }
  return b;
}

mpz_class box_size(const Box& b) {
  mpz_class n = 1;
  std::uint64_t chunk = 1;
  for (std::size_t v = 0; v < b.lo.size(); ++v) {
    const std::uint64_t w = b.hi[v] - b.lo[v] + 1;
    if (chunk > (std::uint64_t{1} << 62) / w) {
      n *= mpz_class(static_cast<unsigned long>(chunk));
      chunk = 1;
    }
    chunk *= w;
  }
  n *= mpz_class(static_cast<unsigned long>(chunk));
  return n;
}

// The model's output on a box where it is constant (or at a point).
struct Outputs {
  std::int32_t label = 0;
  const double* scores = nullptr;
  std::size_t n_scores = 0;
};

// Three-valued evaluation of a formula over a box, with interval arithmetic for numbers. The
// first undecided variable met on the way (in the first undecided leaf of the formula) is where
// the box is split next.
class ThreeValued {
 public:
  ThreeValued(const Formula& f, const Domain& d, const Box& b, const Outputs& o)
      : f_(f), d_(d), b_(b), o_(o) {}

  std::uint8_t run(std::uint32_t node) { return tv(node); }
  std::int64_t split_var = -1;

 private:
  struct Iv {
    double lo, hi;
  };

  void note(std::int64_t v) {
    if (split_var < 0) split_var = v;
  }
  // The first variable of a subtree whose range is not a single point.
  void note_subtree(std::uint32_t id) {
    if (split_var >= 0) return;
    const auto& n = f_.nodes[id];
    if (n.op == Op::var) {
      if (b_.lo[n.index] != b_.hi[n.index]) split_var = n.index;
      return;
    }
    for (std::uint32_t i = 0; i < n.n_kids && split_var < 0; ++i)
      note_subtree(f_.kids[n.first_kid + i]);
  }

  std::uint8_t tv(std::uint32_t id) {
    const auto& n = f_.nodes[id];
    const std::uint32_t* k = f_.kids.data() + n.first_kid;
    switch (n.op) {
      case Op::constant:
        return n.value != 0 ? kTrue : kFalse;
      case Op::var: {
        const std::uint64_t lo = b_.lo[n.index], hi = b_.hi[n.index];
        if (lo == hi) return d_.vars[n.index].value(lo) != 0 ? kTrue : kFalse;
        note(n.index);
        return kUnknown;
      }
      case Op::not_: {
        const std::uint8_t v = tv(k[0]);
        return v == kUnknown ? kUnknown : static_cast<std::uint8_t>(1 - v);
      }
      case Op::and_: {
        std::uint8_t r = kTrue;
        for (std::uint32_t i = 0; i < n.n_kids; ++i) {
          const std::uint8_t v = tv(k[i]);
          if (v == kFalse) return kFalse;
          if (v == kUnknown) r = kUnknown;
        }
        return r;
      }
      case Op::or_: {
        std::uint8_t r = kFalse;
        for (std::uint32_t i = 0; i < n.n_kids; ++i) {
          const std::uint8_t v = tv(k[i]);
          if (v == kTrue) return kTrue;
          if (v == kUnknown) r = kUnknown;
        }
        return r;
      }
      case Op::ite: {
        const std::uint8_t c = tv(k[0]);
        if (c == kTrue) return tv(k[1]);
        if (c == kFalse) return tv(k[2]);
        const std::uint8_t a = tv(k[1]), b = tv(k[2]);
        return a == b ? a : kUnknown;
      }
      case Op::eq:
      case Op::ne:
      case Op::lt:
      case Op::le: {
        const Iv l = iv(k[0]), r = iv(k[1]);
        std::uint8_t v = kUnknown;
        if (n.op == Op::eq || n.op == Op::ne) {
          if (l.lo == l.hi && r.lo == r.hi && l.lo == r.lo) {
            v = kTrue;
          } else if (l.hi < r.lo || r.hi < l.lo) {
            v = kFalse;
          }
          if (n.op == Op::ne && v != kUnknown) v = static_cast<std::uint8_t>(1 - v);
        } else if (n.op == Op::lt) {
          v = l.hi < r.lo ? kTrue : l.lo >= r.hi ? kFalse : kUnknown;
        } else {
          v = l.hi <= r.lo ? kTrue : l.lo > r.hi ? kFalse : kUnknown;
        }
        if (v == kUnknown) note_subtree(id);
        return v;
      }
      default: {
        // A number used as a boolean cannot happen (the parser types formulas).
        ASSAY_ASSERT(false);
      }
    }
  }

  Iv iv(std::uint32_t id) {
    const auto& n = f_.nodes[id];
    const std::uint32_t* k = f_.kids.data() + n.first_kid;
    if (n.boolean && n.op != Op::var) {
      const std::uint8_t v = tv(id);
      return v == kTrue ? Iv{1, 1} : v == kFalse ? Iv{0, 0} : Iv{0, 1};
    }
    switch (n.op) {
      case Op::constant:
        return {n.value, n.value};
      case Op::var: {
        const auto& dv = d_.vars[n.index];
        return {dv.value(b_.lo[n.index]), dv.value(b_.hi[n.index])};
      }
      case Op::label:
        return {static_cast<double>(o_.label), static_cast<double>(o_.label)};
      case Op::argmax: {
        std::size_t best = 0;
        for (std::size_t i = 1; i < o_.n_scores; ++i) {
          if (o_.scores[i] > o_.scores[best]) best = i;
        }
        return {static_cast<double>(best), static_cast<double>(best)};
      }
      case Op::score:
        return {o_.scores[n.index], o_.scores[n.index]};
      case Op::add: {
        const Iv a = iv(k[0]), b = iv(k[1]);
        return {a.lo + b.lo, a.hi + b.hi};
      }
      case Op::sub: {
        const Iv a = iv(k[0]), b = iv(k[1]);
        return {a.lo - b.hi, a.hi - b.lo};
      }
      case Op::neg: {
        const Iv a = iv(k[0]);
        return {-a.hi, -a.lo};
      }
      case Op::mul: {
        const Iv a = iv(k[0]), b = iv(k[1]);
        const double c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
        return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
      case Op::ite: {
        const std::uint8_t c = tv(k[0]);
        if (c == kTrue) return iv(k[1]);
        if (c == kFalse) return iv(k[2]);
        const Iv a = iv(k[1]), b = iv(k[2]);
        return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
      }
      default:
        ASSAY_ASSERT(false);
    }
  }

  const Formula& f_;
  const Domain& d_;
  const Box& b_;
  const Outputs& o_;
};

// Box splitting along the trees' thresholds and inside predicates. N is the count type:
// std::uint64_t when the domain is small enough, mpz_class otherwise.
bool reads_scores(const Formula& f) {
  for (const auto& n : f.nodes) {
    if (n.op == Op::score || n.op == Op::argmax) return true;
  }
  return false;
}

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
        const VarDomain& v = d.vars[tree.feature[i]];
        std::uint64_t lo = 0, hi = v.size;  // first index going right lies in [lo, hi]
        while (lo < hi) {
          const std::uint64_t mid = lo + (hi - lo) / 2;
          if (goes_left(m, v.value(mid), tree.threshold[i])) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        split_at_[t][i] = lo;
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
    descend(box, size, 0, 0, on_box);
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
    descend(box, size, 0, 0, OnBox{});
    collecting_ = nullptr;
    return out;
  }

  /// for_each_model_box restricted to one seed.
  void from_seed(Seed& seed, const OnBox& on_box) {
    reached_leaf(seed.box, seed.size, 0, seed.leaf, on_box);
  }

  /// A conjunct of a formula: the root, or one operand of a top-level "and".
  struct Conjunct {
    const Formula* formula;
    std::uint32_t node;
  };

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
  /// sub-boxes (a decided conjunct stays decided on every sub-box).
  void count_pending(Box& box, const N& size, const std::vector<Conjunct>& pending,
                     const Outputs& out, N& acc) {
    std::int64_t split = -1;
    std::vector<Conjunct> next;
    for (const Conjunct& c : pending) {
      ThreeValued ev(*c.formula, d_, box, out);
      const std::uint8_t v = ev.run(c.node);
      if (v == kFalse) {
        ++decided_;
        return;
      }
      if (v == kUnknown) {
        next.push_back(c);
        if (split < 0) split = ev.split_var;
      }
    }
    if (next.empty()) {
      ++decided_;
      acc += size;
      return;
    }
    ASSAY_ASSERT(split >= 0);
    const std::uint64_t lo = box.lo[split], hi = box.hi[split];
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const N base = size / N(hi - lo + 1);
    box.hi[split] = mid;
    count_pending(box, base * N(mid - lo + 1), next, out, acc);
    box.hi[split] = hi;
    box.lo[split] = mid + 1;
    count_pending(box, base * N(hi - mid), next, out, acc);
    box.lo[split] = lo;
  }

  /// Safety `pre => post` in one search: adds #{pre} to `pre_count` and #{pre and post} to
  /// `satisfied`. Once one side is decided on a box, only the other is searched further.
  void count_safety(Box& box, const N& size, const Formula& pre, const Formula& post,
                    const Outputs& out, N& satisfied, N& pre_count) {
    ThreeValued a(pre, d_, box, out);
    const std::uint8_t p = a.run(pre.root);
    if (p == kFalse) {
      ++decided_;
      return;
    }
    ThreeValued b(post, d_, box, out);
    const std::uint8_t q = b.run(post.root);
    if (p == kTrue) {
      pre_count += size;
      if (q == kUnknown) {
        count_pending(box, size, conjuncts({&post}), out, satisfied);
      } else {
        ++decided_;
        if (q == kTrue) satisfied += size;
      }
      return;
    }
    if (q != kUnknown) {
      N n = N(0);
      count_pending(box, size, conjuncts({&pre}), out, n);
      pre_count += n;
      if (q == kTrue) satisfied += n;
      return;
    }
    const std::int64_t split = a.split_var;
    ASSAY_ASSERT(split >= 0);
    const std::uint64_t lo = box.lo[split], hi = box.hi[split];
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const N base = size / N(hi - lo + 1);
    box.hi[split] = mid;
    count_safety(box, base * N(mid - lo + 1), pre, post, out, satisfied, pre_count);
    box.hi[split] = hi;
    box.lo[split] = mid + 1;
    count_safety(box, base * N(hi - mid), pre, post, out, satisfied, pre_count);
    box.lo[split] = lo;
  }

  std::uint64_t decided() const { return decided_; }

 private:
  void descend(Box& box, const N& size, std::size_t t, std::size_t node, const OnBox& on_box) {
    const Tree& tree = m_.trees[t];
    while (!tree.is_leaf(node)) {
      const auto f = static_cast<std::size_t>(tree.feature[node]);
      const std::uint64_t k = split_at_[t][node];
      if (box.hi[f] < k) {
        node = static_cast<std::size_t>(tree.left[node]);
      } else if (box.lo[f] >= k) {
        node = static_cast<std::size_t>(tree.right[node]);
      } else {
        const std::uint64_t lo = box.lo[f], hi = box.hi[f];
        const N base = size / N(hi - lo + 1);
        box.hi[f] = k - 1;
        descend(box, base * N(k - lo), t, static_cast<std::size_t>(tree.left[node]), on_box);
        box.hi[f] = hi;
        box.lo[f] = k;
        descend(box, base * N(hi - k + 1), t, static_cast<std::size_t>(tree.right[node]), on_box);
        box.lo[f] = lo;
        return;
      }
    }
    if (collecting_) {
      collecting_->push_back({box, size, node});
      return;
    }
    reached_leaf(box, size, t, node, on_box);
  }

  // Tree t has reached `node` on this box: go on with the next tree, or report the box.
  void reached_leaf(Box& box, const N& size, std::size_t t, std::size_t node, const OnBox& on_box) {
    leaves_[t] = node;
    if (t + 1 < m_.trees.size()) {
      if (early_) {
        for (std::size_t k = 0; k < width_; ++k) {
          partial_[t + 1][k] = partial_[t][k] + contribution_[t][node][k];
        }
        const std::int32_t label = decided_label(t + 1);
        if (label >= 0) {
          Outputs out;
          out.label = label;
          on_box(box, size, out);
          return;
        }
      }
      descend(box, size, t + 1, 0, on_box);
      return;
    }
    Outputs out;
    out.label = label_from_leaves(m_, leaves_, &scores_);
    out.scores = scores_.data();
    out.n_scores = scores_.size();
    on_box(box, size, out);
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

mpz_class to_mpz(const std::uint64_t& v) {
  return mpz_class(static_cast<unsigned long>(v));
}
mpz_class to_mpz(const mpz_class& v) {
  return v;
}

// The model at a point: label and scores.
std::int32_t model_at(const Model& m, const double* x, std::vector<std::size_t>& leaves,
                      std::vector<double>& scores) {
  const std::span<const double> xs(x, m.n_features);
  if (m.kind == ModelKind::network) {
    scores = predict_scores(m, xs);
    if (scores.size() == 1 && m.classification) return scores[0] > 0.5 ? 1 : 0;
    return static_cast<std::int32_t>(std::max_element(scores.begin(), scores.end()) -
                                     scores.begin());
  }
  leaves.resize(m.trees.size());
  for (std::size_t t = 0; t < m.trees.size(); ++t) leaves[t] = tree_leaf(m, m.trees[t], xs);
  return label_from_leaves(m, leaves, &scores);
}

// Visits every point of `box` in parallel chunks; `visit(x, out, counters)` adds to the chunk's
// counters, which are summed at the end (so the result does not depend on the thread count).
using Visit = std::function<void(const double* x, const Outputs& out, std::uint64_t* counters)>;

std::vector<std::uint64_t> enumerate_box(const Model& m, const Domain& d, const Box& box,
                                         std::uint64_t limit, int threads, std::size_t n_counters,
                                         const Visit& visit, const std::string& task) {
  const mpz_class size = box_size(box);
  if (size > mpz_class(static_cast<unsigned long>(limit))) {
    fail(
        "the domain has {} points, more than the enumeration limit {} (use the structural "
        "method for tree models)",
        to_scientific(size), limit);
  }
  const std::uint64_t total = size.get_ui();
  const std::size_t n_vars = box.lo.size();
  const std::uint64_t n_chunks = std::max<std::uint64_t>(1, std::min<std::uint64_t>(total, 4096));
  std::vector<std::uint64_t> counts(n_chunks * n_counters, 0);
  Progress progress(task, n_chunks);
  parallel_for(
      n_chunks,
      [&](std::size_t c) {
        // c * q + min(c, r) rather than total * c / n_chunks, which overflows for large limits.
        const std::uint64_t q = total / n_chunks, r = total % n_chunks;
        const std::uint64_t begin = c * q + std::min<std::uint64_t>(c, r);
        const std::uint64_t end = begin + q + (c < r ? 1 : 0);
        std::vector<std::uint64_t> digit(n_vars);
        std::vector<double> x(n_vars);
        std::uint64_t rest = begin;
        for (std::size_t v = 0; v < n_vars; ++v) {
          const std::uint64_t w = box.hi[v] - box.lo[v] + 1;
          digit[v] = box.lo[v] + rest % w;
          rest /= w;
          x[v] = d.vars[v].value(digit[v]);
        }
        std::vector<std::size_t> leaves;
        std::vector<double> scores;
        std::uint64_t* counters = counts.data() + c * n_counters;
        for (std::uint64_t i = begin; i < end; ++i) {
          Outputs out;
          out.label = model_at(m, x.data(), leaves, scores);
          out.scores = scores.data();
          out.n_scores = scores.size();
          visit(x.data(), out, counters);
          for (std::size_t v = 0; v < n_vars; ++v) {  // odometer, variable 0 fastest
            if (digit[v] < box.hi[v]) {
              ++digit[v];
              x[v] = d.vars[v].value(digit[v]);
              break;
            }
            digit[v] = box.lo[v];
            x[v] = d.vars[v].value(digit[v]);
          }
        }
        progress.advance();
      },
      threads);
  progress.finish();
  std::vector<std::uint64_t> sum(n_counters, 0);
  for (std::uint64_t c = 0; c < n_chunks; ++c) {
    for (std::size_t k = 0; k < n_counters; ++k) sum[k] += counts[c * n_counters + k];
  }
  return sum;
}

// The L-infinity ball around center, as grid indices, clipped to the domain.
Box region_box(const Domain& d, std::span<const double> center, double epsilon) {
  Box b;
  for (std::size_t v = 0; v < d.vars.size(); ++v) {
    const VarDomain& dv = d.vars[v];
    const double c = center[v];
    const double top = dv.value(dv.size - 1);
    const double tol = 1e-9 * std::max(1.0, std::abs(dv.step));
    if (!(c >= dv.lo - tol && c <= top + tol)) {
      fail("the center's {} = {} lies outside the domain [{}, {}]", dv.name, c, dv.lo, top);
    }
    const double lo_k = std::ceil((c - epsilon - dv.lo) / dv.step - 1e-9);
    const double hi_k = std::floor((c + epsilon - dv.lo) / dv.step + 1e-9);
    const double max_k = static_cast<double>(dv.size - 1);
    const double a = std::clamp(lo_k, 0.0, max_k), z = std::clamp(hi_k, 0.0, max_k);
    if (a > z) {
      fail("the region around {} = {} with radius {} holds no grid point", dv.name, c, epsilon);
    }
    b.lo.push_back(static_cast<std::uint64_t>(a));
    b.hi.push_back(static_cast<std::uint64_t>(z));
  }
  return b;
}

// What one count() call counts.
struct Checks {
  // Per label: the formula of its ground truth, or the negation of another label's.
  struct Truth {
    std::int32_t label = 0;
    const Formula* formula = nullptr;
    std::int32_t complement_of = -1;  // index into truths
  };
  std::vector<Truth> truths;
  std::vector<const SafetyProperty*> safety;
  std::vector<const RegionSpec*> regions;
};

std::string available_names(const Spec& spec) {
  std::string out;
  auto add = [&](const std::string& n) { out += (out.empty() ? "" : ", ") + n; };
  for (const auto& p : spec.predicates) add(p.name);
  for (const auto& p : spec.safety) add(p.name);
  for (const auto& r : spec.regions) add(r.name);
  return out.empty() ? "none" : out;
}

Checks select_checks(const Model& m, const Spec& spec, const std::string& property) {
  Checks c;
  const auto k = static_cast<std::int32_t>(m.n_classes());
  if (!property.empty()) {
    for (const auto& p : spec.predicates) {
      if (p.name != property) continue;
      if (!m.classification || k != 2) {
        fail(
            "--property {} makes a binary ground truth (label 1 = {}), but the model has {} "
            "classes",
            property, property, k);
      }
      c.truths.push_back({0, nullptr, 1});
      c.truths.push_back({1, &p.formula, -1});
      return c;
    }
    for (const auto& s : spec.safety) {
      if (s.name == property) c.safety.push_back(&s);
    }
    for (const auto& r : spec.regions) {
      if (r.name == property) c.regions.push_back(&r);
    }
    if (c.safety.empty() && c.regions.empty()) {
      fail("{} defines no predicate, safety property or region named \"{}\" (available: {})",
           spec.file, property, available_names(spec));
    }
  } else {
    for (const auto& [label, f] : spec.truths) {
      if (!m.classification || label >= k) {
        fail("{}: truth of label {}, but the model has {} classes", spec.file, label, k);
      }
    }
    if (spec.truths.size() == 1 && k == 2) {
      const std::int32_t given = spec.truths[0].first;
      c.truths.resize(2);
      c.truths[given] = {given, &spec.truths[0].second, -1};
      c.truths[1 - given] = {1 - given, nullptr, given};
    } else if (!spec.truths.empty()) {
      if (static_cast<std::int32_t>(spec.truths.size()) != k) {
        std::string missing;
        for (std::int32_t l = 0; l < k; ++l) {
          bool found = false;
          for (const auto& t : spec.truths) found = found || t.first == l;
          if (!found) missing += (missing.empty() ? "" : ", ") + std::to_string(l);
        }
        fail("{}: no truth for label(s) {} (the model has {} classes)", spec.file, missing, k);
      }
      for (const auto& [label, f] : spec.truths) c.truths.push_back({label, &f, -1});
    }
    for (const auto& s : spec.safety) c.safety.push_back(&s);
    for (const auto& r : spec.regions) c.regions.push_back(&r);
    if (c.truths.empty() && c.safety.empty() && c.regions.empty()) {
      fail(
          "{} has nothing to count: declare truth, safety or region statements, or give a "
          "property name",
          spec.file);
    }
  }
  for (const auto* r : c.regions) {
    if (r->label < 0 || r->label >= std::max<std::int32_t>(k, 1)) {
      fail("{}: region {} keeps label {}, but the model has {} classes", spec.file, r->name,
           r->label, k);
    }
  }
  return c;
}

void check_scores(const Formula& f, const Model& m, const std::string& what) {
  for (const auto& n : f.nodes) {
    if (n.op == Op::score && n.index >= m.n_outputs) {
      fail("{} reads score[{}], but the model has {} outputs", what, n.index, m.n_outputs);
    }
  }
}

void finish_label(LabelCounts& l, const std::string& label_name) {
  const mpz_class total = l.tp + l.fp + l.tn + l.fn;
  l.accuracy = ratio(l.tp + l.tn, total);
  l.precision = ratio(l.tp, l.tp + l.fp);
  l.recall = ratio(l.tp, l.tp + l.fn);
  l.f1 = ratio(2 * l.tp, 2 * l.tp + l.fp + l.fn);
  if (std::isnan(l.precision)) {
    warn(fmt::format("precision of label {} is undefined: no input is predicted {}", label_name,
                     label_name));
  }
  if (std::isnan(l.recall)) {
    warn(fmt::format("recall of label {} is undefined: no input has label {}", label_name,
                     label_name));
  }
}

template <typename N>
N initial_size(const Box& box) {
  if constexpr (std::is_same_v<N, mpz_class>) {
    return box_size(box);
  } else {
    return box_size(box).get_ui();
  }
}

// Calls on_box(engine, box, size, outputs, acc) for every model box of `box`, in parallel: the
// boxes of the first tree's leaves are dealt out to workers, each with its own copy of the engine
// and its own accumulator. Counts are exact integers, so the sum of the accumulators does not
// depend on the thread count.
template <typename N, typename Acc, typename F>
Acc parallel_model_boxes(const Structural<N>& proto, const Box& box, const N& size, int threads,
                         const Acc& zero, const F& on_box, std::uint64_t& decided) {
  Structural<N> collector = proto;
  Box b = box;
  auto seeds = collector.seeds(b, size);
  const int workers = resolve_threads(threads, std::max<std::size_t>(seeds.size(), 1));
  std::vector<Acc> acc(static_cast<std::size_t>(workers), zero);
  std::vector<std::uint64_t> boxes(static_cast<std::size_t>(workers), 0);
  Progress progress("count: structural", seeds.size());
  parallel_for(
      static_cast<std::size_t>(workers),
      [&](std::size_t w) {
        Structural<N> engine = proto;
        for (std::size_t i = w; i < seeds.size(); i += static_cast<std::size_t>(workers)) {
          engine.from_seed(seeds[i], [&](Box& bb, const N& s, const Outputs& out) {
            on_box(engine, bb, s, out, acc[w]);
          });
          progress.advance();
        }
        boxes[w] = engine.decided();
      },
      workers);
  progress.finish();
  Acc total = zero;
  for (std::size_t w = 0; w < acc.size(); ++w) {
    total += acc[w];
    decided += boxes[w];
  }
  return total;
}

// Exact TP/FP/TN/FN per label, summed over workers.
template <typename N>
struct LabelTally {
  std::vector<N> tp, fp, tn, fn;
  explicit LabelTally(std::size_t k) : tp(k, N(0)), fp(k, N(0)), tn(k, N(0)), fn(k, N(0)) {}
  LabelTally& operator+=(const LabelTally& o) {
    for (std::size_t l = 0; l < tp.size(); ++l) {
      tp[l] += o.tp[l];
      fp[l] += o.fp[l];
      tn[l] += o.tn[l];
      fn[l] += o.fn[l];
    }
    return *this;
  }
};

template <typename N>
struct SafetyTally {
  N satisfied = N(0);
  N pre = N(0);
  SafetyTally& operator+=(const SafetyTally& o) {
    satisfied += o.satisfied;
    pre += o.pre;
    return *this;
  }
};

template <typename N>
void structural_counts(const Model& m, const Spec& spec, const Checks& c, int threads,
                       CountResult& r) {
  Structural<N> proto(m, spec.domain);
  const std::size_t k = c.truths.size();
  const Box full = full_box(spec.domain);
  const N size = initial_size<N>(full);
  std::uint64_t decided = 0;
  if (k > 0) {
    bool truths_read_scores = false;
    for (const auto& t : c.truths) truths_read_scores |= t.formula && reads_scores(*t.formula);
    proto.set_early_stop(!truths_read_scores);
    const LabelTally<N> tally = parallel_model_boxes(
        proto, full, size, threads, LabelTally<N>(k),
        [&](Structural<N>& engine, Box& b, const N& s, const Outputs& out, LabelTally<N>& acc) {
          std::vector<N> positives(k, N(0));
          for (std::size_t l = 0; l < k; ++l) {
            if (c.truths[l].formula == nullptr) continue;
            engine.count_all(b, s, {c.truths[l].formula}, out, positives[l]);
          }
          for (std::size_t l = 0; l < k; ++l) {
            const N pos =
                c.truths[l].formula ? positives[l] : s - positives[c.truths[l].complement_of];
            if (out.label == c.truths[l].label) {
              acc.tp[l] += pos;
              acc.fp[l] += s - pos;
            } else {
              acc.fn[l] += pos;
              acc.tn[l] += s - pos;
            }
          }
        },
        decided);
    for (std::size_t l = 0; l < k; ++l) {
      r.labels[l].tp = to_mpz(tally.tp[l]);
      r.labels[l].fp = to_mpz(tally.fp[l]);
      r.labels[l].tn = to_mpz(tally.tn[l]);
      r.labels[l].fn = to_mpz(tally.fn[l]);
    }
  }
  for (std::size_t i = 0; i < c.safety.size(); ++i) {
    const Formula* f_pre = &c.safety[i]->pre;
    const Formula* f_post = &c.safety[i]->post;
    proto.set_early_stop(!reads_scores(*f_pre) && !reads_scores(*f_post));
    const SafetyTally<N> tally = parallel_model_boxes(
        proto, full, size, threads, SafetyTally<N>{},
        [&](Structural<N>& engine, Box& b, const N& s, const Outputs& out, SafetyTally<N>& acc) {
          engine.count_safety(b, s, *f_pre, *f_post, out, acc.satisfied, acc.pre);
        },
        decided);
    r.safety[i].satisfied = to_mpz(tally.satisfied);
    r.safety[i].violated = to_mpz(tally.pre) - to_mpz(tally.satisfied);
  }
  r.boxes = decided;
}

void enumeration_counts(const Model& m, const Spec& spec, const Checks& c,
                        const CountParams& params, CountResult& r) {
  const std::size_t k = c.truths.size();
  const std::size_t n_counters = 4 * k + 2 * c.safety.size();
  if (n_counters == 0) return;
  const Box box = full_box(spec.domain);
  const auto counts = enumerate_box(
      m, spec.domain, box, params.enumeration_limit, params.threads, n_counters,
      [&](const double* x, const Outputs& out, std::uint64_t* counters) {
        for (std::size_t l = 0; l < k; ++l) {
          const auto& t = c.truths[l];
          // A complemented label reads its source's truth (evaluated again: cheap, and no
          // per-point buffer is needed).
          const auto& src = t.formula ? t : c.truths[t.complement_of];
          const bool v = evaluate(*src.formula, x, out.label, out.scores, out.n_scores) != 0;
          const bool pos = t.formula ? v : !v;
          const bool pred = out.label == t.label;
          counters[4 * l + (pred ? (pos ? 0 : 1) : (pos ? 3 : 2))] += 1;
        }
        for (std::size_t i = 0; i < c.safety.size(); ++i) {
          if (evaluate(c.safety[i]->pre, x, out.label, out.scores, out.n_scores) == 0) continue;
          const bool post =
              evaluate(c.safety[i]->post, x, out.label, out.scores, out.n_scores) != 0;
          counters[4 * k + 2 * i + (post ? 0 : 1)] += 1;
        }
      },
      "count: enumerate");
  for (std::size_t l = 0; l < k; ++l) {
    r.labels[l].tp = to_mpz(counts[4 * l]);
    r.labels[l].fp = to_mpz(counts[4 * l + 1]);
    r.labels[l].tn = to_mpz(counts[4 * l + 2]);
    r.labels[l].fn = to_mpz(counts[4 * l + 3]);
  }
  for (std::size_t i = 0; i < c.safety.size(); ++i) {
    r.safety[i].satisfied = to_mpz(counts[4 * k + 2 * i]);
    r.safety[i].violated = to_mpz(counts[4 * k + 2 * i + 1]);
  }
  r.boxes = box_size(box).get_ui();
}

// Points of `box` predicted as `label`.
mpz_class region_count(const Model& m, const Domain& d, const Box& region, std::int32_t label,
                       bool structural, std::uint64_t limit, int threads, std::uint64_t& boxes) {
  Box box = region;
  const mpz_class size = box_size(box);
  if (structural) {
    mpz_class acc = 0;
    Structural<mpz_class> engine(m, d);
    engine.set_early_stop(true);
    engine.for_each_model_box(box, size, [&](Box&, const mpz_class& s, const Outputs& out) {
      ++boxes;
      if (out.label == label) acc += s;
    });
    return acc;
  }
  const auto counts = enumerate_box(
      m, d, box, limit, threads, 1,
      [&](const double*, const Outputs& out, std::uint64_t* counters) {
        if (out.label == label) ++counters[0];
      },
      "count: enumerate region");
  boxes += size.get_ui();
  return to_mpz(counts[0]);
}

std::vector<double> random_point(const Domain& d, const Box& box, Rng& rng) {
  std::vector<double> x(d.vars.size());
  for (std::size_t v = 0; v < x.size(); ++v) {
    x[v] = d.vars[v].value(box.lo[v] + rng.below(box.hi[v] - box.lo[v] + 1));
  }
  return x;
}

// One statistical view from points with known true labels (test set) or truth formulas.
struct PointTally {
  std::vector<SampleLabel> labels;
  std::uint64_t correct = 0, n = 0;
  std::vector<std::uint64_t> safe, unsafe;
};

void finish_view(const PointTally& t, double confidence, SampleView& v) {
  v.n = t.n;
  v.accuracy = proportion(t.correct, t.n, confidence);
  for (SampleLabel l : t.labels) {
    l.accuracy = proportion(l.tp + l.tn, t.n, confidence);
    l.precision = proportion(l.tp, l.tp + l.fp, confidence);
    l.recall = proportion(l.tp, l.tp + l.fn, confidence);
    const std::uint64_t d = 2 * l.tp + l.fp + l.fn;
    l.f1 = d == 0 ? std::numeric_limits<double>::quiet_NaN()
                  : 2.0 * static_cast<double>(l.tp) / static_cast<double>(d);
    v.labels.push_back(l);
  }
  for (std::size_t i = 0; i < t.safe.size(); ++i) {
    v.safety.push_back(proportion(t.safe[i], t.safe[i] + t.unsafe[i], confidence));
  }
}

}  // namespace

void set_test_set(CountParams& params, const Model& m, const Table& table,
                  const std::string& label_column) {
  const Column& labels = table.column(label_column);
  std::vector<const Column*> features;
  for (const Column& c : table.columns()) {
    if (c.name == label_column) continue;
    if (!c.is_numeric()) {
      fail("{}: feature column \"{}\" is not numeric", table.source(), c.name);
    }
    features.push_back(&c);
  }
  if (features.size() != m.n_features) {
    fail("{}: {} feature columns (all but \"{}\"), the model has {} features", table.source(),
         features.size(), label_column, m.n_features);
  }
  const std::size_t n = table.n_rows();
  params.test_x.assign(n * m.n_features, 0.0);
  params.test_y.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < features.size(); ++j) {
      params.test_x[i * m.n_features + j] = features[j]->values[i];
    }
    const std::string name =
        labels.is_numeric() ? fmt::format("{}", labels.values[i]) : labels.label(i);
    const auto it = std::find(m.classes.begin(), m.classes.end(), name);
    if (it == m.classes.end()) {
      fail("{}: row {}: label {} is not a class of the model", table.source(), i + 1,
           quote_found(name));
    }
    params.test_y[i] = static_cast<std::int32_t>(it - m.classes.begin());
  }
}

CountResult count(const Model& m, const Spec& spec, const CountParams& params) {
  validate(m);
  if (m.n_features != spec.domain.vars.size()) {
    fail("the model has {} features but {} declares {} inputs", m.n_features, spec.file,
         spec.domain.vars.size());
  }
  if (params.method != "auto" && params.method != "structural" && params.method != "enumerate") {
    fail("method must be auto, structural or enumerate, found {}", quote_found(params.method));
  }
  // Bad samples or test sets fail before the (possibly long) exact count.
  for (const std::size_t n : params.samples) {
    if (n == 0) fail("sample sizes must be >= 1, found 0");
  }
  if (params.test_x.size() != params.test_y.size() * m.n_features) {
    fail("the test set has {} values for {} labels, expected {} ({} features per row)",
         params.test_x.size(), params.test_y.size(), params.test_y.size() * m.n_features,
         m.n_features);
  }
  for (std::size_t i = 0; i < params.test_y.size(); ++i) {
    const std::int32_t y = params.test_y[i];
    if (y < 0 || y >= static_cast<std::int32_t>(m.n_classes())) {
      fail("test label {} at row {} is out of range [0, {})", y, i, m.n_classes());
    }
  }
  const Checks c = select_checks(m, spec, params.property);
  for (const auto& t : c.truths) {
    if (t.formula) check_scores(*t.formula, m, fmt::format("the truth of label {}", t.label));
  }
  for (const auto* s : c.safety) {
    check_scores(s->pre, m, "safety property " + s->name);
    check_scores(s->post, m, "safety property " + s->name);
  }
  const bool trees = m.kind != ModelKind::network;
  if (params.method == "structural" && !trees) {
    fail(
        "structural counting covers trees and tree ensembles; count networks with method "
        "enumerate");
  }
  const bool structural = params.method == "structural" || (params.method == "auto" && trees);

  CountResult r;
  r.method = structural ? "structural" : "enumeration";
  r.property = params.property;
  r.confidence = params.confidence;
  r.domain_size = spec.domain.size();
  r.n_inputs = spec.domain.vars.size();
  for (const auto& t : c.truths) {
    LabelCounts l;
    l.index = t.label;
    l.label = m.classes[t.label];
    r.labels.push_back(l);
  }
  for (const auto* s : c.safety) r.safety.push_back({s->name, 0, 0, 0.0});

  const auto start = Clock::now();
  if (structural) {
    if (r.domain_size < mpz_class("9223372036854775807")) {
      structural_counts<std::uint64_t>(m, spec, c, params.threads, r);
    } else {
      structural_counts<mpz_class>(m, spec, c, params.threads, r);
    }
  } else {
    enumeration_counts(m, spec, c, params, r);
  }
  for (const auto* reg : c.regions) {
    RegionCounts rc;
    rc.name = reg->name;
    rc.label = reg->label;
    const Box box = region_box(spec.domain, reg->center, reg->epsilon);
    rc.total = box_size(box);
    rc.count = region_count(m, spec.domain, box, reg->label, structural, params.enumeration_limit,
                            params.threads, r.boxes);
    rc.robustness = ratio(rc.count, rc.total);
    r.regions.push_back(std::move(rc));
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  r.correct = 0;
  for (std::size_t l = 0; l < r.labels.size(); ++l) {
    finish_label(r.labels[l], r.labels[l].label);
    r.correct += r.labels[l].tp;
  }
  r.accuracy =
      r.labels.empty() ? std::numeric_limits<double>::quiet_NaN() : ratio(r.correct, r.domain_size);
  if (!r.labels.empty()) {
    // Overall accuracy needs exactly one true label per point: the truths' positives must add up
    // to the domain. More means some point satisfies two truths, fewer that some satisfies none.
    mpz_class positives = 0;
    for (const auto& l : r.labels) positives += l.tp + l.fn;
    if (positives != r.domain_size) {
      warn(fmt::format(
          "overall accuracy is undefined: the truths hold on {} points in all, but the domain "
          "has {} ({}); per-label counts are still exact",
          positives.get_str(), r.domain_size.get_str(),
          positives > r.domain_size ? "some points satisfy two truths"
                                    : "some points satisfy no truth"));
      r.accuracy = std::numeric_limits<double>::quiet_NaN();
    }
  }
  for (auto& s : r.safety) s.accuracy = ratio(s.satisfied, s.satisfied + s.violated);

  // Statistical view.
  std::vector<std::size_t> leaves;
  std::vector<double> scores;
  auto tally_point = [&](const double* x, std::int32_t true_label, bool use_truths, PointTally& t) {
    const std::int32_t pred = model_at(m, x, leaves, scores);
    ++t.n;
    bool any_truth = false;
    std::int32_t truth_label = true_label;
    for (std::size_t l = 0; l < c.truths.size(); ++l) {
      bool pos;
      if (use_truths) {
        const auto& tr = c.truths[l];
        const std::size_t src = tr.formula ? l : static_cast<std::size_t>(tr.complement_of);
        const bool v = evaluate(*c.truths[src].formula, x, pred, scores.data(), scores.size()) != 0;
        pos = tr.formula ? v : !v;
      } else {
        pos = c.truths[l].label == true_label;
      }
      if (pos && !any_truth) {
        any_truth = true;
        truth_label = c.truths[l].label;
      }
      const bool p = pred == c.truths[l].label;
      SampleLabel& s = t.labels[l];
      if (p && pos) ++s.tp;
      if (p && !pos) ++s.fp;
      if (!p && !pos) ++s.tn;
      if (!p && pos) ++s.fn;
    }
    if (!c.truths.empty() && any_truth && pred == truth_label) ++t.correct;
    for (std::size_t i = 0; i < c.safety.size(); ++i) {
      if (evaluate(c.safety[i]->pre, x, pred, scores.data(), scores.size()) == 0) continue;
      if (evaluate(c.safety[i]->post, x, pred, scores.data(), scores.size()) != 0) {
        ++t.safe[i];
      } else {
        ++t.unsafe[i];
      }
    }
  };
  auto new_tally = [&] {
    PointTally t;
    for (const auto& tr : c.truths) {
      SampleLabel s;
      s.index = tr.label;
      t.labels.push_back(s);
    }
    t.safe.assign(c.safety.size(), 0);
    t.unsafe.assign(c.safety.size(), 0);
    return t;
  };
  if (!params.test_y.empty()) {
    const std::size_t d = m.n_features;
    PointTally t = new_tally();
    for (std::size_t i = 0; i < params.test_y.size(); ++i) {
      tally_point(params.test_x.data() + i * d, params.test_y[i], false, t);
    }
    SampleView v;
    v.source = "test set";
    finish_view(t, params.confidence, v);
    for (std::size_t i = 0; i < c.regions.size(); ++i) v.regions.push_back(proportion(0, 0));
    r.samples.push_back(std::move(v));
  }
  const Box full = full_box(spec.domain);
  for (std::size_t j = 0; j < params.samples.size(); ++j) {
    const std::size_t n = params.samples[j];
    Rng rng = Rng(params.seed).split(j);
    PointTally t = new_tally();
    for (std::size_t i = 0; i < n; ++i) {
      const auto x = random_point(spec.domain, full, rng);
      tally_point(x.data(), -1, true, t);
    }
    SampleView v;
    v.source = "uniform";
    finish_view(t, params.confidence, v);
    for (std::size_t i = 0; i < c.regions.size(); ++i) {
      const Box box = region_box(spec.domain, c.regions[i]->center, c.regions[i]->epsilon);
      Rng rr = Rng(params.seed).split(1'000'003 * (i + 1) + j);
      std::uint64_t hit = 0;
      for (std::size_t s = 0; s < n; ++s) {
        const auto x = random_point(spec.domain, box, rr);
        if (model_at(m, x.data(), leaves, scores) == c.regions[i]->label) ++hit;
      }
      v.regions.push_back(proportion(hit, n, params.confidence));
    }
    r.samples.push_back(std::move(v));
  }
  return r;
}

RobustnessResult robustness(const Model& m, std::span<const double> x,
                            const RobustnessParams& params) {
  validate(m);
  const std::size_t d = m.n_features;
  if (x.size() != d) fail("x has {} values, the model has {} features", x.size(), d);
  auto widen = [&](const std::vector<double>& v, const char* what) {
    if (v.size() == 1) return std::vector<double>(d, v[0]);
    if (v.size() != d)
      fail("{} has {} values, expected 1 or {} (one per feature)", what, v.size(), d);
    return v;
  };
  const auto lower = widen(params.lower, "lower");
  const auto upper = widen(params.upper, "upper");
  if (!(params.step > 0)) fail("step must be > 0, found {}", params.step);
  for (const std::size_t n : params.samples) {
    if (n == 0) fail("sample sizes must be >= 1, found 0");
  }
  if (!(params.epsilon >= 0)) fail("epsilon must be >= 0, found {}", params.epsilon);
  if (!m.classification) fail("robustness needs a classifier; the model is a regressor");
  if (params.label < 0 || params.label >= static_cast<std::int32_t>(m.n_classes())) {
    fail("label {} is out of range [0, {})", params.label, m.n_classes());
  }
  Domain dom;
  for (std::size_t i = 0; i < d; ++i) {
    if (!(upper[i] >= lower[i])) {
      fail("feature {}: upper bound {} is below lower bound {}", i, upper[i], lower[i]);
    }
    VarDomain v;
    v.name = fmt::format("x[{}]", i);
    v.type = VarDomain::Type::real;
    v.lo = lower[i];
    v.step = params.step;
    v.size = static_cast<std::uint64_t>(std::floor((upper[i] - lower[i]) / params.step + 1e-9)) + 1;
    dom.vars.push_back(v);
  }
  const bool trees = m.kind != ModelKind::network;
  if (params.method != "auto" && params.method != "structural" && params.method != "enumerate") {
    fail("method must be auto, structural or enumerate, found {}", quote_found(params.method));
  }
  if (params.method == "structural" && !trees) {
    fail(
        "structural counting covers trees and tree ensembles; count networks with method "
        "enumerate");
  }
  const bool structural = params.method == "structural" || (params.method == "auto" && trees);
  RobustnessResult r;
  r.method = structural ? "structural" : "enumeration";
  const Box box = region_box(dom, x, params.epsilon);
  const auto start = Clock::now();
  r.total = box_size(box);
  std::uint64_t boxes = 0;
  r.count = region_count(m, dom, box, params.label, structural, std::uint64_t{1} << 32,
                         params.threads, boxes);
  r.robustness = ratio(r.count, r.total);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<std::size_t> leaves;
  std::vector<double> scores;
  for (std::size_t j = 0; j < params.samples.size(); ++j) {
    const std::size_t n = params.samples[j];
    Rng rng = Rng(params.seed).split(j);
    std::uint64_t hit = 0;
    for (std::size_t s = 0; s < n; ++s) {
      const auto p = random_point(dom, box, rng);
      if (model_at(m, p.data(), leaves, scores) == params.label) ++hit;
    }
    r.samples.push_back(proportion(hit, n, params.confidence));
  }
  return r;
}

}  // namespace assay::count
