// Three-valued evaluation of a ground formula over a box (true / false / undecided), with
// interval arithmetic for numbers: the test that lets structural counting count a whole box at
// once, and tells it where to bisect when it cannot.
#pragma once

#include <algorithm>
#include <cstdint>

#include "assay/core/error.hpp"
#include "assay/count/spec.hpp"
#include "box.hpp"

namespace assay::count::detail {

using Op = Formula::Op;

constexpr std::uint8_t kFalse = 0, kTrue = 1, kUnknown = 2;

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

// True when the formula reads the model's scores (score[k] or argmax), not only its label.
inline bool reads_scores(const Formula& f) {
  for (const auto& n : f.nodes) {
    if (n.op == Op::score || n.op == Op::argmax) return true;
  }
  return false;
}

}  // namespace assay::count::detail
