#include "hamming.hpp"

#include <algorithm>
#include <cmath>

#include "assay/core/error.hpp"
#include "box.hpp"

namespace assay::count::detail {

namespace {

using Op = Formula::Op;

std::uint32_t add_node(Formula& f, Formula::Node n, std::initializer_list<std::uint32_t> kids) {
  n.first_kid = static_cast<std::uint32_t>(f.kids.size());
  n.n_kids = static_cast<std::uint32_t>(kids.size());
  f.kids.insert(f.kids.end(), kids.begin(), kids.end());
  f.nodes.push_back(n);
  return static_cast<std::uint32_t>(f.nodes.size() - 1);
}

// Sum of terms[lo, hi) as a balanced tree, so the formula is O(log n) deep (the recursive passes
// over formulas rely on shallow formulas).
std::uint32_t balanced_sum(Formula& f, const std::vector<std::uint32_t>& terms, std::size_t lo,
                           std::size_t hi) {
  if (hi - lo == 1) return terms[lo];
  const std::size_t mid = lo + (hi - lo) / 2;
  const std::uint32_t l = balanced_sum(f, terms, lo, mid);
  const std::uint32_t r = balanced_sum(f, terms, mid, hi);
  Formula::Node n;
  n.op = Op::add;
  return add_node(f, n, {l, r});
}

std::uint32_t constant(Formula& f, double value, bool boolean) {
  Formula::Node n;
  n.op = Op::constant;
  n.value = value;
  n.boolean = boolean;
  return add_node(f, n, {});
}

// The term of input v: a boolean that holds where x_v differs from the center.
std::uint32_t differs(Formula& f, const VarDomain& dv, std::uint32_t v, double c) {
  Formula::Node x;
  x.op = Op::var;
  x.index = v;
  x.boolean = dv.type == VarDomain::Type::boolean;
  const std::uint32_t xv = add_node(f, x, {});
  if (!x.boolean) {  // int[0, 1] or real[0, 1] step 1: compare with the center's value
    Formula::Node ne;
    ne.op = Op::ne;
    ne.boolean = true;
    return add_node(f, ne, {xv, constant(f, c, false)});
  }
  if (c == 0) return xv;
  Formula::Node n;
  n.op = Op::not_;
  n.boolean = true;
  return add_node(f, n, {xv});
}

}  // namespace

bool zero_one_input(const VarDomain& v) {
  return v.size == 2 && v.value(0) == 0.0 && v.value(1) == 1.0;
}

Formula hamming_formula(const Domain& d, std::span<const double> center, std::uint64_t k) {
  Formula f;
  const std::size_t n = d.vars.size();
  if (k >= n) {  // every point of the domain
    f.root = constant(f, 1, true);
    return f;
  }
  std::vector<std::uint32_t> terms;
  terms.reserve(n);
  for (std::size_t v = 0; v < n; ++v) {
    terms.push_back(differs(f, d.vars[v], static_cast<std::uint32_t>(v), center[v]));
  }
  const std::uint32_t sum = balanced_sum(f, terms, 0, terms.size());
  Formula::Node le;
  le.op = Op::le;
  le.boolean = true;
  f.root = add_node(f, le, {sum, constant(f, static_cast<double>(k), false)});
  return f;
}

Formula label_formula(std::int32_t label_index) {
  Formula f;
  Formula::Node l;
  l.op = Op::label;
  const std::uint32_t label = add_node(f, l, {});
  Formula::Node eq;
  eq.op = Op::eq;
  eq.boolean = true;
  f.root = add_node(f, eq, {label, constant(f, label_index, false)});
  return f;
}

mpz_class hamming_ball_size(std::uint64_t n, std::uint64_t k) {
  mpz_class total = 0, term = 1;  // term = C(n, j)
  for (std::uint64_t j = 0; j <= std::min(n, k); ++j) {
    total += term;
    term = term * static_cast<unsigned long>(n - j) / static_cast<unsigned long>(j + 1);
  }
  return total;
}

mpz_class region_size(const Domain& d, const RegionSpec& r) {
  if (r.metric == RegionSpec::Metric::hamming) {
    return hamming_ball_size(d.vars.size(), static_cast<std::uint64_t>(r.epsilon));
  }
  return box_size(region_box(d, r.center, r.epsilon));
}

HammingSampler::HammingSampler(std::span<const double> center, std::uint64_t k)
    : center_(center.begin(), center.end()), chosen_(center.size(), 0) {
  const std::uint64_t n = center.size();
  const std::uint64_t top = std::min(n, k);
  std::vector<double> log_w(top + 1);
  const double log_n = std::lgamma(static_cast<double>(n) + 1);
  for (std::uint64_t j = 0; j <= top; ++j) {
    const double jj = static_cast<double>(j);
    log_w[j] = log_n - std::lgamma(jj + 1) - std::lgamma(static_cast<double>(n) - jj + 1);
  }
  const double mx = *std::max_element(log_w.begin(), log_w.end());
  double sum = 0;
  for (const double lw : log_w) {
    sum += std::exp(lw - mx);
    cumulative_.push_back(sum);
  }
  for (double& c : cumulative_) c /= sum;
  cumulative_.back() = 1.0;
}

void HammingSampler::draw(Rng& rng, std::vector<double>& x) {
  const std::uint64_t n = center_.size();
  const double u = rng.uniform();
  const auto j = static_cast<std::uint64_t>(
      std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin());
  // Floyd: for t = n - j .. n - 1, pick r in [0, t]; take r, or t when r was taken before.
  picked_.clear();
  for (std::uint64_t t = n - j; t < n; ++t) {
    std::uint64_t r = rng.below(t + 1);
    if (chosen_[r]) r = t;
    chosen_[r] = 1;
    picked_.push_back(r);
  }
  x = center_;
  for (const std::uint64_t p : picked_) {
    x[p] = 1.0 - x[p];
    chosen_[p] = 0;
  }
}

}  // namespace assay::count::detail
