#include "cnf_builder.hpp"

#include <algorithm>
#include <utility>

#include "assay/core/error.hpp"

namespace assay::count::detail {

namespace {

enum : std::uint8_t { kAnd = 1, kXor = 2, kIte = 3, kMaj = 4 };

Int floor_shift(Int v, unsigned k) {
  // Floor division by 2^k for negative values too (>> of a negative __int128 is arithmetic on
  // GCC, but say what we mean).
  const Int d = Int(1) << k;
  Int q = v / d;
  if (v % d != 0 && v < 0) --q;
  return q;
}

bool fits(Int value, std::size_t width) {
  if (width == 0) return value == 0;
  if (width >= 127) return true;
  const Int top = Int(1) << (width - 1);
  return value >= -top && value < top;
}

}  // namespace

std::size_t signed_width(Int lo, Int hi) {
  std::size_t w = 1;
  while (!(fits(lo, w) && fits(hi, w))) {
    ++w;
    if (w > 120) fail("a number in the CNF encoding needs more than 120 bits");
  }
  return w;
}

CnfBuilder::CnfBuilder() {
  const Var t = cnf_.new_var();
  ASSAY_ASSERT(t == kTrue);
  cnf_.add_clause({kTrue});
}

std::size_t CnfBuilder::KeyHash::operator()(const std::array<Var, 4>& k) const {
  std::size_t h = 0x9e3779b97f4a7c15ULL;
  for (const Var v : k) {
    h ^= static_cast<std::size_t>(static_cast<std::uint32_t>(v)) + 0x9e3779b97f4a7c15ULL +
         (h << 6) + (h >> 2);
  }
  return h;
}

Var CnfBuilder::input() {
  const Var v = cnf_.new_var();
  inputs_.push_back(v);
  return v;
}

BitVec CnfBuilder::input_vector(std::size_t n_bits) {
  BitVec v;
  for (std::size_t i = 0; i < n_bits; ++i) v.bits.push_back(input());
  v.bits.push_back(kFalse);  // unsigned: a zero sign bit
  v.lo = 0;
  v.hi = (Int(1) << n_bits) - 1;
  return v;
}

void CnfBuilder::clause(std::initializer_list<Var> lits) {
  cnf_.add_clause(lits);
}

void CnfBuilder::clause(const std::vector<Var>& lits) {
  cnf_.add_clause(lits);
}

void CnfBuilder::assert_true(Var a) {
  if (a == kTrue) return;
  if (a == kFalse) {
    cnf_.add_clause(std::span<const Var>());
    return;
  }
  cnf_.add_clause({a});
}

Var CnfBuilder::gate(std::uint8_t op, Var a, Var b, Var c) {
  const std::array<Var, 4> key{op, a, b, c};
  const auto it = gates_.find(key);
  if (it != gates_.end()) return it->second;
  const Var g = cnf_.new_var();
  switch (op) {
    case kAnd:
      clause({-g, a});
      clause({-g, b});
      clause({g, -a, -b});
      break;
    case kXor:
      clause({-g, a, b});
      clause({-g, -a, -b});
      clause({g, -a, b});
      clause({g, a, -b});
      break;
    case kIte:  // g <=> (b if a else c); the last two clauses help propagation
      clause({-g, -a, b});
      clause({-g, a, c});
      clause({g, -a, -b});
      clause({g, a, -c});
      clause({-g, b, c});
      clause({g, -b, -c});
      break;
    case kMaj:
      clause({g, -a, -b});
      clause({g, -a, -c});
      clause({g, -b, -c});
      clause({-g, a, b});
      clause({-g, a, c});
      clause({-g, b, c});
      break;
    default:
      ASSAY_ASSERT(false);
  }
  gates_.emplace(key, g);
  return g;
}

Var CnfBuilder::and2(Var a, Var b) {
  if (a == kFalse || b == kFalse || a == -b) return kFalse;
  if (a == kTrue || a == b) return b;
  if (b == kTrue) return a;
  if (a > b) std::swap(a, b);
  return gate(kAnd, a, b, 0);
}

Var CnfBuilder::xor2(Var a, Var b) {
  if (a == kFalse) return b;
  if (b == kFalse) return a;
  if (a == kTrue) return -b;
  if (b == kTrue) return -a;
  if (a == b) return kFalse;
  if (a == -b) return kTrue;
  // xor(-a, b) = -xor(a, b): hash on positive inputs.
  bool flip = false;
  if (a < 0) {
    a = -a;
    flip = !flip;
  }
  if (b < 0) {
    b = -b;
    flip = !flip;
  }
  if (a > b) std::swap(a, b);
  const Var g = gate(kXor, a, b, 0);
  return flip ? -g : g;
}

Var CnfBuilder::ite(Var c, Var a, Var b) {
  if (c == kTrue || a == b) return a;
  if (c == kFalse) return b;
  if (a == kTrue && b == kFalse) return c;
  if (a == kFalse && b == kTrue) return -c;
  if (a == kTrue) return or2(c, b);
  if (a == kFalse) return and2(-c, b);
  if (b == kTrue) return or2(-c, a);
  if (b == kFalse) return and2(c, a);
  if (a == -b) return -xor2(c, a);  // c ? a : not a
  if (c == a) return or2(c, b);
  if (c == -a) return and2(-c, b);
  if (c == b) return and2(c, a);
  if (c == -b) return or2(-c, a);
  if (c < 0) {
    c = -c;
    std::swap(a, b);
  }
  return gate(kIte, c, a, b);
}

Var CnfBuilder::maj3(Var a, Var b, Var c) {
  for (int i = 0; i < 3; ++i) {
    // One constant input: maj(1, b, c) = b or c; maj(0, b, c) = b and c.
    if (a == kTrue) return or2(b, c);
    if (a == kFalse) return and2(b, c);
    std::swap(a, b);
    std::swap(b, c);
  }
  if (a == b || a == c) return a;
  if (b == c) return b;
  if (a == -b) return c;
  if (a == -c) return b;
  if (b == -c) return a;
  std::array<Var, 3> s{a, b, c};
  std::sort(s.begin(), s.end());
  return gate(kMaj, s[0], s[1], s[2]);
}

Var CnfBuilder::and_n(std::vector<Var> lits) {
  std::sort(lits.begin(), lits.end());
  lits.erase(std::unique(lits.begin(), lits.end()), lits.end());
  std::vector<Var> kept;
  for (const Var l : lits) {
    if (l == kFalse) return kFalse;
    if (l == kTrue) continue;
    if (std::binary_search(lits.begin(), lits.end(), -l)) return kFalse;
    kept.push_back(l);
  }
  if (kept.empty()) return kTrue;
  if (kept.size() == 1) return kept[0];
  if (kept.size() == 2) return and2(kept[0], kept[1]);
  const Var g = cnf_.new_var();
  std::vector<Var> big{g};
  for (const Var l : kept) {
    clause({-g, l});
    big.push_back(-l);
  }
  clause(big);
  return g;
}

Var CnfBuilder::or_n(std::vector<Var> lits) {
  for (Var& l : lits) l = -l;
  return -and_n(std::move(lits));
}

Var CnfBuilder::at_most(const std::vector<Var>& lits, std::uint64_t k) {
  const std::uint64_t n = lits.size();
  if (k >= n) return kTrue;
  if ((k + 1) * n > (std::uint64_t{1} << 22)) {
    std::vector<BitVec> terms;
    terms.reserve(n);
    for (const Var l : lits) terms.push_back(from_bit(l));
    return less_equal(sum(std::move(terms)), constant(static_cast<Int>(k)));
  }
  // at_least[j]: at least j of the literals seen so far hold (j = 0..k+1).
  std::vector<Var> at_least(k + 2, kFalse);
  at_least[0] = kTrue;
  for (std::uint64_t i = 0; i < n; ++i) {
    for (std::uint64_t j = std::min(k + 1, i + 1); j >= 1; --j) {
      at_least[j] = or2(at_least[j], and2(at_least[j - 1], lits[i]));
    }
  }
  return -at_least[k + 1];
}

BitVec CnfBuilder::constant(Int value) const {
  BitVec v;
  v.lo = v.hi = value;
  const std::size_t w = signed_width(value, value);
  for (std::size_t i = 0; i < w; ++i) {
    const bool bit = ((value >> i) & 1) != 0;  // two's complement bits of a negative value too
    v.bits.push_back(bit ? kTrue : kFalse);
  }
  return v;
}

BitVec CnfBuilder::from_bit(Var b) const {
  BitVec v;
  v.bits = {b, kFalse};
  v.lo = b == kTrue ? 1 : 0;
  v.hi = b == kFalse ? 0 : 1;
  return v;
}

BitVec CnfBuilder::extend(const BitVec& a, std::size_t width) const {
  BitVec v = a;
  ASSAY_ASSERT(!v.bits.empty());
  while (v.bits.size() < width) v.bits.push_back(v.bits.back());
  return v;
}

BitVec CnfBuilder::add(const BitVec& a, const BitVec& b) {
  const Int lo = a.lo + b.lo, hi = a.hi + b.hi;
  const std::size_t w = std::max({signed_width(lo, hi), a.width(), b.width()});
  const BitVec x = extend(a, w), y = extend(b, w);
  BitVec r;
  Var carry = kFalse;
  for (std::size_t i = 0; i < w; ++i) {
    r.bits.push_back(xor3(x.bits[i], y.bits[i], carry));
    if (i + 1 < w) carry = maj3(x.bits[i], y.bits[i], carry);
  }
  r.lo = lo;
  r.hi = hi;
  r.bits.resize(signed_width(lo, hi));  // the value fits: the high bits repeat the sign
  return r;
}

BitVec CnfBuilder::sub(const BitVec& a, const BitVec& b) {
  const Int lo = a.lo - b.hi, hi = a.hi - b.lo;
  const std::size_t w = std::max({signed_width(lo, hi), a.width(), b.width()});
  const BitVec x = extend(a, w), y = extend(b, w);
  BitVec r;
  Var carry = kTrue;  // a + not(b) + 1
  for (std::size_t i = 0; i < w; ++i) {
    r.bits.push_back(xor3(x.bits[i], -y.bits[i], carry));
    if (i + 1 < w) carry = maj3(x.bits[i], -y.bits[i], carry);
  }
  r.lo = lo;
  r.hi = hi;
  r.bits.resize(signed_width(lo, hi));
  return r;
}

BitVec CnfBuilder::neg(const BitVec& a) {
  return sub(constant(0), a);
}

BitVec CnfBuilder::shift_left(const BitVec& a, unsigned k) const {
  BitVec r;
  r.bits.assign(k, kFalse);
  r.bits.insert(r.bits.end(), a.bits.begin(), a.bits.end());
  r.lo = a.lo * (Int(1) << k);
  r.hi = a.hi * (Int(1) << k);
  return r;
}

BitVec CnfBuilder::shift_right(const BitVec& a, unsigned k) const {
  BitVec r;
  r.lo = floor_shift(a.lo, k);
  r.hi = floor_shift(a.hi, k);
  for (std::size_t i = k; i < a.width(); ++i) r.bits.push_back(a.bits[i]);
  if (r.bits.empty()) r.bits.push_back(a.bits.back());
  r.bits.resize(std::min(r.bits.size(), signed_width(r.lo, r.hi)));
  return extend(r, signed_width(r.lo, r.hi));
}

BitVec CnfBuilder::mul_const(const BitVec& a, Int c) {
  if (c == 0) return constant(0);
  if (c < 0) return neg(mul_const(a, -c));
  // Non-adjacent form: c = sum d_j 2^j with d_j in {-1, 0, 1} and no two neighbours non-zero,
  // so at most about half of the shifted copies are added.
  std::vector<BitVec> plus, minus;
  unsigned j = 0;
  for (Int n = c; n != 0; n >>= 1, ++j) {
    if ((n & 1) == 0) continue;
    const Int digit = 2 - (n & 3);  // 1 when n = 1 mod 4, -1 when n = 3 mod 4
    (digit > 0 ? plus : minus).push_back(shift_left(a, j));
    n -= digit;
  }
  BitVec r = plus.empty() ? constant(0) : sum(std::move(plus));
  if (!minus.empty()) r = sub(r, sum(std::move(minus)));
  // The exact range of a * c, which the additions only bound from outside.
  r.lo = a.lo * c;
  r.hi = a.hi * c;
  r.bits.resize(std::min(r.bits.size(), signed_width(r.lo, r.hi)));
  return extend(r, signed_width(r.lo, r.hi));
}

BitVec CnfBuilder::mul(const BitVec& a, const BitVec& b) {
  if (b.lo == b.hi) return mul_const(a, b.lo);
  if (a.lo == a.hi) return mul_const(b, a.lo);
  // b = sum_{j < w-1} b_j 2^j - b_{w-1} 2^(w-1): one partial product per bit of b.
  std::vector<BitVec> terms;
  BitVec negative = constant(0);
  for (std::size_t j = 0; j < b.width(); ++j) {
    BitVec t = shift_left(a, static_cast<unsigned>(j));
    for (Var& bit : t.bits) bit = and2(bit, b.bits[j]);
    t.lo = std::min<Int>(0, t.lo);
    t.hi = std::max<Int>(0, t.hi);
    if (j + 1 == b.width()) {
      negative = t;
    } else {
      terms.push_back(std::move(t));
    }
  }
  BitVec r = sub(sum(std::move(terms)), negative);
  const Int c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  r.lo = *std::min_element(c, c + 4);
  r.hi = *std::max_element(c, c + 4);
  r.bits.resize(std::min(r.bits.size(), signed_width(r.lo, r.hi)));
  return extend(r, signed_width(r.lo, r.hi));
}

BitVec CnfBuilder::relu(const BitVec& a) {
  if (a.lo >= 0) return a;
  if (a.hi <= 0) return constant(0);
  BitVec r;
  r.lo = 0;
  r.hi = a.hi;
  const std::size_t w = signed_width(0, a.hi);
  const Var s = sign(a);
  for (std::size_t i = 0; i + 1 < w; ++i) r.bits.push_back(and2(a.bits[i], -s));
  r.bits.push_back(kFalse);
  return r;
}

BitVec CnfBuilder::mux(Var c, const BitVec& a, const BitVec& b) {
  if (c == kTrue) return a;
  if (c == kFalse) return b;
  const Int lo = std::min(a.lo, b.lo), hi = std::max(a.hi, b.hi);
  const std::size_t w = std::max({signed_width(lo, hi), a.width(), b.width()});
  const BitVec x = extend(a, w), y = extend(b, w);
  BitVec r;
  for (std::size_t i = 0; i < w; ++i) r.bits.push_back(ite(c, x.bits[i], y.bits[i]));
  r.lo = lo;
  r.hi = hi;
  return r;
}

BitVec CnfBuilder::sum(std::vector<BitVec> terms) {
  if (terms.empty()) return constant(0);
  while (terms.size() > 1) {
    std::vector<BitVec> next;
    for (std::size_t i = 0; i + 1 < terms.size(); i += 2)
      next.push_back(add(terms[i], terms[i + 1]));
    if (terms.size() % 2 == 1) next.push_back(std::move(terms.back()));
    terms = std::move(next);
  }
  return std::move(terms[0]);
}

Var CnfBuilder::less_than(const BitVec& a, const BitVec& b) {
  if (a.hi < b.lo) return kTrue;
  if (a.lo >= b.hi) return kFalse;
  return sign(sub(a, b));
}

Var CnfBuilder::equal(const BitVec& a, const BitVec& b) {
  if (a.hi < b.lo || b.hi < a.lo) return kFalse;
  if (a.lo == a.hi && b.lo == b.hi) return kTrue;
  const std::size_t w = std::max(a.width(), b.width());
  const BitVec x = extend(a, w), y = extend(b, w);
  std::vector<Var> same;
  for (std::size_t i = 0; i < w; ++i) same.push_back(-xor2(x.bits[i], y.bits[i]));
  return and_n(std::move(same));
}

Cnf CnfBuilder::take() {
  cnf_.set_projection(inputs_);
  return std::move(cnf_);
}

}  // namespace assay::count::detail
