#include "encode_domain.hpp"

#include <cmath>

#include "assay/core/error.hpp"

namespace assay::count::detail {

using Op = Formula::Op;

std::pair<Int, int> dyadic(double x) {
  if (!std::isfinite(x)) {
    fail("the CNF encoding needs finite numbers in formulas, found {}", x);
  }
  if (x == 0.0) return {0, 0};
  int e = 0;
  const double f = std::frexp(x, &e);  // x = f 2^e, 0.5 <= |f| < 1
  Int m = static_cast<Int>(std::ldexp(f, 53));
  e -= 53;
  while ((m & 1) == 0) {
    m /= 2;
    ++e;
  }
  return {m, e};
}

namespace {

std::size_t bits_for(std::uint64_t size) {
  std::size_t n = 0;
  while (n < 64 && (std::uint64_t{1} << n) < size) ++n;
  return n;
}

Int shifted(Int m, int by) {
  if (by > 100) fail("a number in the CNF encoding needs more than 120 bits");
  return m * (Int(1) << by);
}

// Formulas do exact arithmetic on lo + k*step, while the enumerator and the structural counter
// read the floating-point grid values lo + k*step: the counts agree only while every grid value
// is a double (a binary-fraction step such as 0.25, within 53 bits). Differential fuzzing found
// `2 * x == 1` true at x = -1 + 15 * 0.1 when enumerating and false in the CNF.
void check_exact_grid(const VarDomain& v) {
  if (v.type != VarDomain::Type::real) return;
  auto [ml, el] = dyadic(v.lo);
  const auto [ms, es] = dyadic(v.step);
  if (ml == 0) el = es;
  const int e = std::min(el, es);
  auto magnitude = [](Int x) { return x < 0 ? -x : x; };
  const bool exact = el - e <= 53 && es - e <= 53 &&
                     magnitude(shifted(ml, el - e)) +
                             static_cast<Int>(v.size - 1) * magnitude(shifted(ms, es - e)) <
                         (Int(1) << 53);
  if (!exact) {
    fail(
        "{}: the CNF encoding computes with the exact grid values lo + k*step, but with step {} "
        "they are rounded in floating point, where the other methods read them; use a step that "
        "is a binary fraction (0.5, 0.25, 0.125, ...) or method structural or enumerate",
        v.name, v.step);
  }
}

}  // namespace

DomainBits::DomainBits(CnfBuilder& b, const Domain& d) : b_(b), d_(d) {
  for (const VarDomain& v : d.vars) {
    BitVec k = b.input_vector(bits_for(v.size));
    if ((v.size & (v.size - 1)) != 0) {  // not a power of two: k <= size - 1
      b.assert_true(b.less_than(k, b.constant(static_cast<Int>(v.size))));
    }
    k.hi = static_cast<Int>(v.size) - 1;
    index_.push_back(std::move(k));
  }
}

Var DomainBits::index_below(std::size_t v, std::uint64_t t) {
  if (t == 0) return kFalse;
  if (t >= d_.vars[v].size) return kTrue;
  return b_.less_than(index_[v], b_.constant(static_cast<Int>(t)));
}

Num DomainBits::value(std::size_t v) {
  const VarDomain& dv = d_.vars[v];
  auto [ml, el] = dyadic(dv.lo);
  const auto [ms, es] = dyadic(dv.step);
  if (ml == 0) el = es;
  const int e = std::min(el, es);
  Num n;
  n.exp = e;
  n.v = b_.add(b_.constant(shifted(ml, el - e)), b_.mul_const(index_[v], shifted(ms, es - e)));
  return n;
}

void DomainBits::restrict_to(const Box& box) {
  for (std::size_t v = 0; v < index_.size(); ++v) {
    if (box.lo[v] > 0) b_.assert_true(-index_below(v, box.lo[v]));
    if (box.hi[v] + 1 < d_.vars[v].size) b_.assert_true(index_below(v, box.hi[v] + 1));
  }
}

std::vector<InputBits> DomainBits::layout() const {
  std::vector<InputBits> out;
  for (std::size_t v = 0; v < index_.size(); ++v) {
    InputBits in;
    in.name = d_.vars[v].name;
    in.size = d_.vars[v].size;
    in.bits.assign(index_[v].bits.begin(), index_[v].bits.end() - 1);  // without the sign bit
    out.push_back(std::move(in));
  }
  return out;
}

std::pair<BitVec, BitVec> align(CnfBuilder& b, const Num& x, const Num& y, int& exp) {
  exp = std::min(x.exp, y.exp);
  if (x.exp - exp > 100 || y.exp - exp > 100) {
    fail("the CNF encoding cannot align numbers of such different scales (2^{} and 2^{})", x.exp,
         y.exp);
  }
  return {b.shift_left(x.v, static_cast<unsigned>(x.exp - exp)),
          b.shift_left(y.v, static_cast<unsigned>(y.exp - exp))};
}

Var FormulaBits::encode(const Formula& f) {
  // Children are built before their parents (the elaborator appends nodes bottom-up), so one
  // pass from the root down marks what the formula uses and one pass up encodes it: no recursion,
  // however deep the formula.
  std::vector<char> used(f.nodes.size(), 0);
  used[f.root] = 1;
  for (std::size_t id = f.root + 1; id-- > 0;) {
    if (!used[id]) continue;
    const auto& n = f.nodes[id];
    for (std::uint32_t i = 0; i < n.n_kids; ++i) {
      const std::uint32_t kid = f.kids[n.first_kid + i];
      ASSAY_ASSERT(kid < id);
      used[kid] = 1;
    }
  }
  std::vector<Value> values(f.nodes.size());
  for (std::uint32_t id = 0; id <= f.root; ++id) {
    if (used[id]) node(f, id, values);
  }
  return values[f.root].lit;
}

Num FormulaBits::one_hot_value(const std::vector<Var>& one_hot, const char* what) {
  if (one_hot.empty()) fail("the formula reads {}, but no model is encoded", what);
  const std::size_t k = one_hot.size();
  Num n;
  n.v.lo = 0;
  n.v.hi = static_cast<Int>(k) - 1;
  for (std::size_t j = 0; (std::size_t{1} << j) < k; ++j) {
    std::vector<Var> set;
    for (std::size_t l = 0; l < k; ++l) {
      if ((l >> j) & 1) set.push_back(one_hot[l]);
    }
    n.v.bits.push_back(b_.or_n(set));
  }
  n.v.bits.push_back(kFalse);
  return n;
}

Num FormulaBits::numeric(const Formula& f, std::uint32_t id, std::vector<Value>& values) {
  if (f.nodes[id].boolean) return Num{b_.from_bit(values[id].lit), 0};
  return values[id].num;
}

void FormulaBits::node(const Formula& f, std::uint32_t id, std::vector<Value>& values) {
  const auto& n = f.nodes[id];
  const std::uint32_t* k = f.kids.data() + n.first_kid;
  Value& out = values[id];
  auto num = [&](std::uint32_t kid) { return numeric(f, kid, values); };
  switch (n.op) {
    case Op::constant:
      if (n.boolean) {
        out.lit = n.value != 0 ? kTrue : kFalse;
      } else {
        const auto [m, e] = dyadic(n.value);
        out.num = Num{b_.constant(m), e};
      }
      return;
    case Op::var:
      if (n.boolean) {
        out.lit = d_.index(n.index).bits[0];
      } else {
        check_exact_grid(d_.domain().vars[n.index]);
        out.num = d_.value(n.index);
      }
      return;
    case Op::label:
      out.num = one_hot_value(label_, "the model's label");
      return;
    case Op::argmax:
      out.num = one_hot_value(argmax_, "argmax");
      return;
    case Op::score:
      fail(
          "score[{}] is not supported by the CNF encoder (the model's scores are sums of real "
          "numbers); use method structural or enumerate",
          n.index);
    case Op::not_:
      out.lit = -values[k[0]].lit;
      return;
    case Op::and_:
    case Op::or_: {
      std::vector<Var> lits;
      for (std::uint32_t i = 0; i < n.n_kids; ++i) lits.push_back(values[k[i]].lit);
      out.lit = n.op == Op::and_ ? b_.and_n(std::move(lits)) : b_.or_n(std::move(lits));
      return;
    }
    case Op::add:
    case Op::sub: {
      int e = 0;
      const auto [x, y] = align(b_, num(k[0]), num(k[1]), e);
      out.num = Num{n.op == Op::add ? b_.add(x, y) : b_.sub(x, y), e};
      return;
    }
    case Op::mul: {
      const Num x = num(k[0]), y = num(k[1]);
      out.num = Num{b_.mul(x.v, y.v), x.exp + y.exp};
      return;
    }
    case Op::neg: {
      const Num x = num(k[0]);
      out.num = Num{b_.neg(x.v), x.exp};
      return;
    }
    case Op::eq:
    case Op::ne:
    case Op::lt:
    case Op::le:
      out.lit = comparison(f, n, values);
      return;
    case Op::ite:
      if (n.boolean) {
        out.lit = b_.ite(values[k[0]].lit, values[k[1]].lit, values[k[2]].lit);
      } else {
        int e = 0;
        const auto [x, y] = align(b_, num(k[1]), num(k[2]), e);
        out.num = Num{b_.mux(values[k[0]].lit, x, y), e};
      }
      return;
  }
  ASSAY_ASSERT(false);
}

// `input op constant` (or `constant op input`) as a comparison of the input's grid index, with
// the thresholds found by evaluating the grid values in floating point, exactly as the enumerator
// and the three-valued evaluator compare them.
bool FormulaBits::input_vs_constant(const Formula& f, const Formula::Node& n, Var& out) {
  const auto& a = f.nodes[f.kids[n.first_kid]];
  const auto& b = f.nodes[f.kids[n.first_kid + 1]];
  const bool mirrored = a.op == Op::constant && b.op == Op::var;
  if (!(a.op == Op::var && b.op == Op::constant) && !mirrored) return false;
  const std::size_t v = mirrored ? b.index : a.index;
  const double c = mirrored ? a.value : b.value;
  if (std::isnan(c)) return false;
  const VarDomain& dv = d_.domain().vars[v];
  // First index whose value is >= c (resp. > c): value < c iff k < below_lt.
  auto first_index = [&](bool strict) {
    std::uint64_t lo = 0, hi = dv.size;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      const double x = dv.value(mid);
      if (strict ? x > c : x >= c) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };
  const Var lt = d_.index_below(v, first_index(false));  // x < c
  const Var le = d_.index_below(v, first_index(true));   // x <= c
  switch (n.op) {
    case Op::eq:
      out = b_.and2(-lt, le);
      break;
    case Op::ne:
      out = -b_.and2(-lt, le);
      break;
    case Op::lt:
      out = mirrored ? -le : lt;  // c < x iff not (x <= c)
      break;
    case Op::le:
      out = mirrored ? -lt : le;  // c <= x iff not (x < c)
      break;
    default:
      ASSAY_ASSERT(false);
  }
  return true;
}

Var FormulaBits::comparison(const Formula& f, const Formula::Node& n, std::vector<Value>& values) {
  Var lit = 0;
  if (input_vs_constant(f, n, lit)) return lit;
  const std::uint32_t* k = f.kids.data() + n.first_kid;
  int e = 0;
  const auto [x, y] = align(b_, numeric(f, k[0], values), numeric(f, k[1], values), e);
  switch (n.op) {
    case Op::eq:
      return b_.equal(x, y);
    case Op::ne:
      return -b_.equal(x, y);
    case Op::lt:
      return b_.less_than(x, y);
    case Op::le:
      return b_.less_equal(x, y);
    default:
      ASSAY_ASSERT(false);
  }
}

}  // namespace assay::count::detail
