#include "encode_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "box.hpp"

namespace assay::count::detail {

namespace {

constexpr double kUnit64 = 0x1p-53;  // unit roundoff of double
constexpr double kUnit32 = 0x1p-24;  // and of float

std::size_t first_max(const std::vector<double>& v) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < v.size(); ++k) {
    if (v[k] > v[best]) best = k;
  }
  return best;
}

// Normalised leaf values, as the model computes them (a zero sum divides by 1).
std::vector<double> normalised(const std::vector<double>& value) {
  double sum = 0.0;
  for (double v : value) sum += v;
  if (sum == 0.0) sum = 1.0;
  std::vector<double> out;
  for (double v : value) out.push_back(v / sum);
  return out;
}

// ------------------------------------------------------------------ trees

// reach[i] holds iff the input reaches node i: the root always, a child when its parent is
// reached and the split sends the input its way. Children have larger indices than parents.
std::vector<Var> tree_reach(CnfBuilder& b, DomainBits& d, const Model& m, const Tree& tree) {
  std::vector<Var> reach(tree.size(), kFalse);
  reach[0] = kTrue;
  for (std::size_t i = 0; i < tree.size(); ++i) {
    if (tree.is_leaf(i)) continue;
    const auto f = static_cast<std::size_t>(tree.feature[i]);
    const Var left = d.index_below(f, first_right_index(m, d.domain().vars[f], tree.threshold[i]));
    reach[static_cast<std::size_t>(tree.left[i])] = b.and2(reach[i], left);
    reach[static_cast<std::size_t>(tree.right[i])] = b.and2(reach[i], -left);
  }
  return reach;
}

// One-hot over k classes: class c holds iff a leaf of class c is reached.
std::vector<Var> leaf_classes(CnfBuilder& b, const Tree& tree, const std::vector<Var>& reach,
                              std::size_t k, std::size_t (*class_of)(const std::vector<double>&)) {
  std::vector<std::vector<Var>> by_class(k);
  for (std::size_t i = 0; i < tree.size(); ++i) {
    if (tree.is_leaf(i)) by_class[class_of(tree.value[i])].push_back(reach[i]);
  }
  std::vector<Var> out;
  for (auto& lits : by_class) out.push_back(b.or_n(std::move(lits)));
  return out;
}

std::size_t raw_class(const std::vector<double>& v) {
  return first_max(v);
}
std::size_t normalised_class(const std::vector<double>& v) {
  return first_max(normalised(v));
}

// "The tree predicts class c" as a decision diagram: each internal node is ite(test, left,
// right), and subtrees whose leaves all agree fold to constants. Smaller than the leaves'
// reach literals, which only ensembles need (to sum the leaves' values).
Var class_diagram(CnfBuilder& b, DomainBits& d, const Model& m, const Tree& tree, std::size_t c,
                  std::size_t (*class_of)(const std::vector<double>&)) {
  std::vector<Var> lit(tree.size(), kFalse);
  for (std::size_t i = tree.size(); i-- > 0;) {  // children have larger indices than parents
    if (tree.is_leaf(i)) {
      lit[i] = class_of(tree.value[i]) == c ? kTrue : kFalse;
      continue;
    }
    const Var left = lit[static_cast<std::size_t>(tree.left[i])];
    const Var right = lit[static_cast<std::size_t>(tree.right[i])];
    if (left == right) {
      lit[i] = left;
      continue;
    }
    const auto f = static_cast<std::size_t>(tree.feature[i]);
    const Var test = d.index_below(f, first_right_index(m, d.domain().vars[f], tree.threshold[i]));
    lit[i] = b.ite(test, left, right);
  }
  return lit[0];
}

// One-hot over k classes; with two classes, class 0 is the negation of class 1.
std::vector<Var> tree_classes(CnfBuilder& b, DomainBits& d, const Model& m, std::size_t k,
                              std::size_t (*class_of)(const std::vector<double>&)) {
  if (k == 2) {
    const Var one = class_diagram(b, d, m, m.trees[0], 1, class_of);
    return {-one, one};
  }
  std::vector<Var> out;
  for (std::size_t c = 0; c < k; ++c)
    out.push_back(class_diagram(b, d, m, m.trees[0], c, class_of));
  return out;
}

ModelCircuit single_tree(CnfBuilder& b, DomainBits& d, const Model& m) {
  ModelCircuit c;
  // scikit-learn predicts the argmax of the raw leaf values; the scores are normalised, and
  // rounding can move their first maximum, so argmax gets its own literals.
  c.label = tree_classes(b, d, m, m.n_classes(), raw_class);
  c.argmax = tree_classes(b, d, m, m.n_outputs, normalised_class);
  c.arithmetic = "exact";
  return c;
}

ModelCircuit vote_forest(CnfBuilder& b, DomainBits& d, const Model& m) {
  const std::size_t k = m.n_classes();
  std::vector<std::vector<BitVec>> votes(k);
  for (const Tree& tree : m.trees) {
    const auto reach = tree_reach(b, d, m, tree);
    const auto vote = leaf_classes(b, tree, reach, k, raw_class);
    for (std::size_t c = 0; c < k; ++c) votes[c].push_back(b.from_bit(vote[c]));
  }
  std::vector<BitVec> counts;
  for (auto& v : votes) counts.push_back(b.sum(std::move(v)));
  ModelCircuit c;
  // Vote counts are small integers: dividing them by the number of trees keeps their order and
  // their ties in floating point, so the first maximum of the counts is the model's.
  c.label = first_argmax(b, counts);
  c.argmax = c.label;
  c.arithmetic = "exact (vote counts)";
  return c;
}

// ------------------------------------------------------------------ sums of leaf values

// What each tree adds to each output at each leaf, in the model's own floating point.
struct Contributions {
  std::vector<std::vector<std::vector<double>>> value;  // [tree][leaf][output]
  std::vector<double> base;                             // per output
  double magnitude = 0.0;  // |base| + sum over trees of the largest |contribution|
  double unit = kUnit64;   // unit roundoff of the model's sums
};

Contributions contributions(const Model& m) {
  Contributions c;
  const std::size_t k = m.n_outputs;
  const bool f32 = m.kind == ModelKind::boosted && m.sum_float32;
  c.unit = f32 ? kUnit32 : kUnit64;
  c.base.assign(k, 0.0);
  if (m.kind == ModelKind::boosted) {
    for (std::size_t j = 0; j < k; ++j) {
      c.base[j] = f32 ? static_cast<double>(static_cast<float>(m.base[j])) : m.base[j];
    }
  }
  double big_base = 0.0;
  for (double v : c.base) big_base = std::max(big_base, std::abs(v));
  c.magnitude = big_base;
  for (const Tree& tree : m.trees) {
    std::vector<std::vector<double>> per_leaf(tree.size(), std::vector<double>(k, 0.0));
    double biggest = 0.0;
    for (std::size_t i = 0; i < tree.size(); ++i) {
      if (!tree.is_leaf(i)) continue;
      if (m.kind == ModelKind::boosted) {
        const double v = tree.scale * tree.value[i][0];
        per_leaf[i][tree.output] = f32 ? static_cast<double>(static_cast<float>(v)) : v;
      } else {
        per_leaf[i] = normalised(tree.value[i]);
      }
      for (double v : per_leaf[i]) biggest = std::max(biggest, std::abs(v));
    }
    c.magnitude += biggest;
    c.value.push_back(std::move(per_leaf));
  }
  return c;
}

bool exact_at(double v, int bits) {
  const double scaled = std::ldexp(v, bits);
  return std::abs(scaled) < 0x1p100 && std::nearbyint(scaled) == scaled;
}

// The fewest fractional bits that make every contribution exact, up to 24; else 10 bits plus
// enough for the number of trees (the error band grows with it). Fewer bits make smaller adders;
// the inputs they leave ambiguous are settled one by one.
int choose_fraction_bits(const Contributions& c, int requested) {
  if (requested > 0) return requested;
  for (int bits = 0; bits <= 24; ++bits) {
    bool all = true;
    for (double v : c.base) all = all && exact_at(v, bits);
    for (const auto& tree : c.value) {
      for (const auto& leaf : tree) {
        for (double v : leaf) all = all && exact_at(v, bits);
      }
    }
    if (all) return bits;
  }
  return 10 + static_cast<int>(std::ceil(std::log2(static_cast<double>(c.value.size()) + 1.0)));
}

Int quantise(double v, int bits) {
  const double scaled = std::ldexp(v, bits);
  if (!(std::abs(scaled) < 0x1p100)) {
    fail("a leaf value {} is too large for {} fractional bits in the CNF encoding", v, bits);
  }
  return static_cast<Int>(std::nearbyint(scaled));
}

// A tree's contribution to output j as a bit-vector: exactly one leaf is reached, so bit i of
// the sum is the disjunction of the reached leaves whose value has bit i set.
BitVec tree_term(CnfBuilder& b, const Tree& tree, const std::vector<Var>& reach,
                 const std::vector<std::vector<double>>& value, std::size_t j, int bits) {
  Int lo = 0, hi = 0;
  bool first = true;
  for (std::size_t i = 0; i < tree.size(); ++i) {
    if (!tree.is_leaf(i) || reach[i] == kFalse) continue;
    const Int q = quantise(value[i][j], bits);
    lo = first ? q : std::min(lo, q);
    hi = first ? q : std::max(hi, q);
    first = false;
  }
  if (lo == hi) return b.constant(lo);
  BitVec v;
  v.lo = lo;
  v.hi = hi;
  const std::size_t w = signed_width(lo, hi);
  for (std::size_t bit = 0; bit < w; ++bit) {
    std::vector<Var> set;
    for (std::size_t i = 0; i < tree.size(); ++i) {
      if (!tree.is_leaf(i) || reach[i] == kFalse) continue;
      if ((quantise(value[i][j], bits) >> bit) & 1) set.push_back(reach[i]);
    }
    v.bits.push_back(b.or_n(std::move(set)));
  }
  return v;
}

// A bound, in units of 2^-bits, on |circuit sum - model's floating-point sum| for every output
// (0 when both are exact), plus a margin for the final floating-point step of the label rule.
Int sum_error_bound(const Model& m, const Contributions& c, int bits) {
  const auto trees = static_cast<double>(m.trees.size());
  double quantisation = 0.0;
  for (double v : c.base) {
    quantisation =
        std::max(quantisation, std::abs(v - std::ldexp(double(quantise(v, bits)), -bits)));
  }
  for (const auto& tree : c.value) {
    double worst = 0.0;
    for (const auto& leaf : tree) {
      for (double v : leaf) {
        worst = std::max(worst, std::abs(v - std::ldexp(double(quantise(v, bits)), -bits)));
      }
    }
    quantisation += worst;
  }
  // The model's sums are exact when every term is an integer multiple of 2^-bits and every
  // partial sum stays far inside the format's integer range (then dividing by the number of
  // trees keeps order and ties too); otherwise they err by at most (T + 2) u sum|term|.
  const double mantissa = c.unit == kUnit32 ? 0x1p22 : 0x1p50;
  const bool exact_sums = quantisation == 0.0 && std::ldexp(c.magnitude, bits) < mantissa;
  const double rounding = exact_sums ? 0.0 : 2.0 * (trees + 3.0) * c.unit * c.magnitude;
  const double total = (quantisation + rounding) * (1.0 + 1e-9);
  if (total == 0.0) return 0;
  return static_cast<Int>(std::ceil(std::ldexp(total, bits))) + 1;
}

// The binary rules sigmoid(m) > 1 - sigmoid(m) (scikit-learn) and float32 sigmoid(m) > 0.5
// (xgboost) both say m > 0 except within a hair of 0.
double logistic_band(const Model& m) {
  return m.logistic_half ? 1e-6 : 1e-12;
}

Var within(CnfBuilder& b, const BitVec& q, Int center, Int radius) {
  return b.and2(b.less_equal(q, b.constant(center + radius)),
                b.less_equal(b.constant(center - radius), q));
}

// Inputs where the best sum's lead over some other sum is at most `gap`.
Var near_tie(CnfBuilder& b, const std::vector<BitVec>& q, const std::vector<Var>& label, Int gap) {
  std::vector<Var> any;
  for (std::size_t l = 0; l < q.size(); ++l) {
    std::vector<Var> close;
    for (std::size_t c = 0; c < q.size(); ++c) {
      if (c != l) close.push_back(b.less_equal(q[l], b.add(q[c], b.constant(gap))));
    }
    any.push_back(b.and2(label[l], b.or_n(std::move(close))));
  }
  return b.or_n(std::move(any));
}

ModelCircuit summed_ensemble(CnfBuilder& b, DomainBits& d, const Model& m, const EncodeParams& p) {
  const Contributions c = contributions(m);
  const int bits = choose_fraction_bits(c, p.fraction_bits);
  const std::size_t k = m.n_outputs;
  std::vector<std::vector<BitVec>> terms(k);
  for (std::size_t j = 0; j < k; ++j) terms[j].push_back(b.constant(quantise(c.base[j], bits)));
  for (std::size_t t = 0; t < m.trees.size(); ++t) {
    const auto reach = tree_reach(b, d, m, m.trees[t]);
    for (std::size_t j = 0; j < k; ++j) {
      terms[j].push_back(tree_term(b, m.trees[t], reach, c.value[t], j, bits));
    }
  }
  std::vector<BitVec> sums;
  for (auto& t : terms) sums.push_back(b.sum(std::move(t)));
  Int error = sum_error_bound(m, c, bits);
  ModelCircuit out;
  if (k == 1) {  // binary boosting: label 1 iff the margin is > 0
    const Var one = b.less_than(b.constant(0), sums[0]);
    out.label = {-one, one};
    out.argmax = {kTrue};
    if (error > 0 || bits > (m.logistic_half ? 22 : 40)) {
      error += static_cast<Int>(std::ceil(std::ldexp(logistic_band(m), bits))) + 1;
    }
    out.ambiguous = error == 0 ? kFalse : within(b, sums[0], 0, error);
  } else {
    out.label = first_argmax(b, sums);
    out.argmax = out.label;
    out.ambiguous = error == 0 ? kFalse : near_tie(b, sums, out.label, 2 * error);
  }
  out.exact = error == 0;
  out.arithmetic =
      out.exact ? fmt::format("exact (leaf values in fixed point with {} fractional bits)", bits)
                : fmt::format(
                      "fixed point with {} fractional bits; the label is certain where the "
                      "leading sum is ahead by more than {:.3g} (quantisation and floating-point "
                      "error)",
                      bits, std::ldexp(static_cast<double>(k == 1 ? error : 2 * error), -bits));
  return out;
}

// ------------------------------------------------------------------ networks

struct Interval {
  double lo = 0.0, hi = 0.0;
  double abs() const { return std::max(std::abs(lo), std::abs(hi)); }
};

double gamma(std::size_t n, double u) {
  const double nu = static_cast<double>(n) * u;
  return 1.01 * nu / (1.0 - nu);
}

void check_network(const Model& m) {
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const Activation a = m.layers[l].activation;
    const bool last = l + 1 == m.layers.size();
    if (!last && a != Activation::relu && a != Activation::identity) {
      fail(
          "the CNF encoder supports ReLU and identity hidden layers; layer {} has a {} "
          "activation",
          l, a == Activation::logistic ? "logistic" : "softmax");
    }
  }
}

// A layer of the network in fixed point, with its error bound.
struct LayerState {
  std::vector<BitVec> value;  // activations as integers at exponent `exp`
  int exp = 0;
  std::vector<Interval> range;  // of the model's floating-point activations
  std::vector<double> error;    // |fixed-point value - model's value| bound per neuron
};

LayerState network_inputs(CnfBuilder& b, DomainBits& d) {
  LayerState s;
  std::vector<Num> nums;
  int exp = 0;
  for (std::size_t v = 0; v < d.domain().vars.size(); ++v) {
    nums.push_back(d.value(v));
    exp = std::min(exp, nums.back().exp);
  }
  s.exp = exp;
  for (std::size_t v = 0; v < nums.size(); ++v) {
    const VarDomain& dv = d.domain().vars[v];
    s.value.push_back(b.shift_left(nums[v].v, static_cast<unsigned>(nums[v].exp - exp)));
    s.range.push_back({dv.value(0), dv.value(dv.size - 1)});
    // Integer grids are exact in floating point; other grid values are rounded once or twice.
    const bool integral = dv.type != VarDomain::Type::real ||
                          (dv.lo == std::floor(dv.lo) && dv.step == std::floor(dv.step));
    s.error.push_back(integral ? 0.0 : 4.0 * kUnit64 * s.range.back().abs());
  }
  return s;
}

// z = W a + b for one layer: the fixed-point sums, their range and error bound.
LayerState affine(CnfBuilder& b, const Layer& layer, const LayerState& in, int weight_bits) {
  double wmax = 0.0;
  for (double w : layer.weights) wmax = std::max(wmax, std::abs(w));
  const int fw =
      wmax > 0 ? weight_bits - 1 - static_cast<int>(std::ceil(std::log2(wmax + 1e-300))) : 0;
  LayerState out;
  out.exp = in.exp - fw;
  for (std::size_t o = 0; o < layer.n_out; ++o) {
    const double* w = layer.weights.data() + o * layer.n_in;
    std::vector<BitVec> terms;
    double lo = layer.bias[o], hi = layer.bias[o], quant = 0.0, prop = 0.0, mass = 0.0;
    for (std::size_t i = 0; i < layer.n_in; ++i) {
      const Int wq = quantise(w[i], fw);
      if (wq != 0) terms.push_back(b.mul_const(in.value[i], wq));
      lo += std::min(w[i] * in.range[i].lo, w[i] * in.range[i].hi);
      hi += std::max(w[i] * in.range[i].lo, w[i] * in.range[i].hi);
      const double a = in.range[i].abs();
      quant += std::abs(std::ldexp(double(wq), -fw) - w[i]) * (a + in.error[i]);
      prop += std::abs(w[i]) * in.error[i];
      mass += std::abs(w[i]) * a;
    }
    const Int bq = quantise(layer.bias[o], -out.exp);
    terms.push_back(b.constant(bq));
    out.value.push_back(b.sum(std::move(terms)));
    const double bias_error = std::abs(std::ldexp(double(bq), out.exp) - layer.bias[o]);
    const double rounding = gamma(layer.n_in + 2, kUnit64) * (mass + std::abs(layer.bias[o]));
    const double slack = 1e-9 * (std::abs(lo) + std::abs(hi)) + 1e-300;
    out.range.push_back({lo - slack, hi + slack});
    out.error.push_back((quant + prop + bias_error + rounding) * (1.0 + 1e-9) + 1e-300);
  }
  return out;
}

// ReLU (or identity), then keep `bits` fractional bits (rounding down adds 2^-bits of error).
LayerState activate(CnfBuilder& b, LayerState z, Activation a, int bits) {
  if (a == Activation::relu) {
    for (std::size_t j = 0; j < z.value.size(); ++j) {
      z.value[j] = b.relu(z.value[j]);
      z.range[j] = {std::max(0.0, z.range[j].lo), std::max(0.0, z.range[j].hi)};
    }
  }
  if (z.exp < -bits) {
    const auto drop = static_cast<unsigned>(-bits - z.exp);
    for (std::size_t j = 0; j < z.value.size(); ++j) {
      z.value[j] = b.shift_right(z.value[j], drop);
      z.error[j] += std::ldexp(1.0, -bits);
    }
    z.exp = -bits;
  }
  return z;
}

ModelCircuit network_label(CnfBuilder& b, const Model& m, const LayerState& z) {
  const Activation out_act = m.layers.back().activation;
  double e = 0.0;
  for (double v : z.error) e = std::max(e, v);
  ModelCircuit c;
  auto to_units = [&](double x) { return static_cast<Int>(std::ceil(std::ldexp(x, -z.exp))) + 1; };
  if (z.value.size() == 1) {
    // One output: logistic, label 1 iff sigmoid(z) > 0.5, i.e. z > 0; identity: z > 0.5.
    BitVec q = z.value[0];
    int exp = z.exp;
    if (out_act != Activation::logistic && exp > -1) {
      q = b.shift_left(q, static_cast<unsigned>(exp + 1));
      exp = -1;
    }
    const Int threshold = out_act == Activation::logistic ? 0 : Int(1) << (-exp - 1);
    const Var one = b.less_than(b.constant(threshold), q);
    c.label = {-one, one};
    c.argmax = {kTrue};
    const double band = out_act == Activation::logistic ? 1e-12 : 0.0;
    const Int radius = static_cast<Int>(std::ceil(std::ldexp(e + band, -exp))) + 1;
    c.ambiguous = within(b, q, threshold, radius);
  } else {
    c.label = first_argmax(b, z.value);
    c.argmax = c.label;
    const double band = out_act == Activation::softmax ? 1e-9 : 0.0;
    c.ambiguous = near_tie(b, z.value, c.label, to_units(2.0 * e + band));
  }
  c.exact = false;
  return c;
}

ModelCircuit network(CnfBuilder& b, DomainBits& d, const Model& m, const EncodeParams& p) {
  check_network(m);
  LayerState s = network_inputs(b, d);
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    LayerState z = affine(b, m.layers[l], s, p.weight_bits);
    if (l + 1 == m.layers.size()) {
      ModelCircuit c = network_label(b, m, z);
      double e = 0.0;
      for (double v : z.error) e = std::max(e, v);
      c.arithmetic = fmt::format(
          "fixed point: weights with {} significant bits per layer, activations with {} "
          "fractional bits; outputs within {:.3g} of the model's, so the label is certain where "
          "the leading output is ahead by more than {:.3g}",
          p.weight_bits, p.activation_bits, e, 2 * e);
      return c;
    }
    s = activate(b, std::move(z), m.layers[l].activation, p.activation_bits);
  }
  ASSAY_ASSERT(false);
}

}  // namespace

std::vector<Var> first_argmax(CnfBuilder& b, const std::vector<BitVec>& q) {
  std::vector<Var> out;
  for (std::size_t l = 0; l < q.size(); ++l) {
    std::vector<Var> wins;
    for (std::size_t c = 0; c < q.size(); ++c) {
      if (c < l) wins.push_back(b.less_than(q[c], q[l]));
      if (c > l) wins.push_back(b.less_equal(q[c], q[l]));
    }
    out.push_back(b.and_n(std::move(wins)));
  }
  return out;
}

ModelCircuit encode_model(CnfBuilder& b, DomainBits& d, const Model& m, const EncodeParams& p) {
  if (!m.classification) {
    fail("the CNF encoder counts classifiers; the model is a regression model");
  }
  if (p.weight_bits < 2 || p.weight_bits > 40) {
    fail("weight_bits must lie in [2, 40], found {}", p.weight_bits);
  }
  if (p.activation_bits < 0 || p.activation_bits > 40) {
    fail("activation_bits must lie in [0, 40], found {}", p.activation_bits);
  }
  if (p.fraction_bits < 0 || p.fraction_bits > 60) {
    fail("fraction_bits must lie in [0, 60], found {}", p.fraction_bits);
  }
  switch (m.kind) {
    case ModelKind::tree:
      return single_tree(b, d, m);
    case ModelKind::forest:
      if (m.aggregation == Aggregation::vote) return vote_forest(b, d, m);
      return summed_ensemble(b, d, m, p);
    case ModelKind::boosted:
      return summed_ensemble(b, d, m, p);
    case ModelKind::network:
      return network(b, d, m, p);
    case ModelKind::graph:
      fail(
          "the CNF route encodes trees and dense networks; a graph network (convolutions, "
          "pooling, skip connections) is counted by enumeration or, over a VNN-LIB box, by "
          "bounds and splitting (--vnnlib)");
  }
  ASSAY_ASSERT(false);
}

}  // namespace assay::count::detail
