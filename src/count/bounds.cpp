// Interval and linear bounds of ReLU networks with rounding accounted for (see bounds.hpp).
#include "assay/count/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "assay/core/error.hpp"
#include "outward_rounding.hpp"

namespace assay::count {

BoundMethod parse_bound_method(std::string_view text, std::string_view name) {
  if (text == "linear") return BoundMethod::linear;
  if (text == "interval") return BoundMethod::interval;
  fail("{} must be linear or interval, found {}", name, quote_found(text));
}

double round_down(double v) {
  return std::nextafter(v, -std::numeric_limits<double>::infinity());
}
double round_up(double v) {
  return std::nextafter(v, std::numeric_limits<double>::infinity());
}

namespace {

using detail::box_max;
using detail::box_min;
using detail::gamma_n;
using detail::kTiny;
using detail::kUnit;

// ReLU upper line a <= s z + t over [l, u] with l < 0 < u, valid despite rounding.
void relu_upper_line(double l, double u, double& s, double& t) {
  s = u / (u - l);
  if (!(s >= 0)) s = 0;
  if (s > 1) s = 1;
  const double t1 = -round_down(s * l);               // >= -s l
  const double t2 = round_up(u - round_down(s * u));  // >= u - s u
  t = std::max(t1, t2);
}

}  // namespace

// The work of one bound() call: per-thread buffers and the two passes.
struct BoundsKernel {
  const NetworkBounds& nb;
  const double* lo;
  const double* hi;
  std::size_t n0;
  // Per hidden layer: pre-activation bounds and ReLU lines.
  struct Hidden {
    std::vector<double> l, u, s, t;
  };
  std::vector<double> mag;  // per input: max |x_i|, then 1 for the constant column
  std::vector<Hidden> hidden;
  // Forward symbolic equations of the current layer's activations: rows of n0 + 1 columns.
  std::vector<double> la, ua, lz, uz, al, au;  // al/au: interval bounds of activations
  std::vector<double> lam, lam2, grad;
  // Per layer: row_mag[l][i] = sum_j |W_ij| * max |a_j| over the box (a: the layer's input).
  std::vector<std::vector<double>> row_mag;

  void compute_row_mag(std::size_t li) {
    const auto& d = nb.layers_[li];
    row_mag.resize(nb.layers_.size());
    auto& r = row_mag[li];
    r.assign(d.n_out, 0.0);
    std::vector<double>& m = grad;
    m.resize(d.n_in);
    for (std::size_t j = 0; j < d.n_in; ++j) m[j] = act_mag(static_cast<std::ptrdiff_t>(li) - 1, j);
    for (std::size_t i = 0; i < d.n_out; ++i) {
      const double* wa = d.w_abs.data() + i * d.n_in;
      double acc = 0.0;
      for (std::size_t j = 0; j < d.n_in; ++j) acc += wa[j] * m[j];
      r[i] = acc * (1 + gamma_n(d.n_in));  // its own rounding, upward
    }
  }

  BoundsKernel(const NetworkBounds& b, const double* lo_, const double* hi_)
      : nb(b), lo(lo_), hi(hi_), n0(b.n_inputs_) {
    mag.resize(n0 + 1);
    for (std::size_t k = 0; k < n0; ++k) mag[k] = std::max(std::abs(lo[k]), std::abs(hi[k]));
    mag[n0] = 1.0;
  }

  // Interval bounds of every hidden layer's pre-activations (interval method).
  void interval_pass() {
    al.assign(lo, lo + n0);
    au.assign(hi, hi + n0);
    const std::size_t n_hidden = nb.layers_.size() - 1;
    hidden.resize(n_hidden);
    for (std::size_t li = 0; li < n_hidden; ++li) {
      auto& h = hidden[li];
      interval_layer(nb.layers_[li], h.l, h.u);
      activate_interval(nb.layers_[li], h);
    }
  }

  // z = W a + b over a in [al, au]; rounding subtracted / added.
  void interval_layer(const NetworkBounds::Dense& d, std::vector<double>& zl,
                      std::vector<double>& zu) const {
    zl.resize(d.n_out);
    zu.resize(d.n_out);
    const double g = gamma_n(d.n_in + 1);
    for (std::size_t i = 0; i < d.n_out; ++i) {
      const double* w = d.w.data() + i * d.n_in;
      double vl = d.b[i], vu = d.b[i], a = std::abs(d.b[i]);
      for (std::size_t j = 0; j < d.n_in; ++j) {
        const double x = w[j];
        vl += x >= 0 ? x * al[j] : x * au[j];
        vu += x >= 0 ? x * au[j] : x * al[j];
        a += std::abs(x) * std::max(std::abs(al[j]), std::abs(au[j]));
      }
      const double e = g * a + kTiny;
      zl[i] = round_down(vl - e);
      zu[i] = round_up(vu + e);
    }
  }

  void activate_interval(const NetworkBounds::Dense& d, Hidden& h) {
    al = h.l;
    au = h.u;
    if (!d.relu) return;
    for (std::size_t j = 0; j < al.size(); ++j) {
      al[j] = std::max(al[j], 0.0);
      au[j] = std::max(au[j], 0.0);
    }
  }

  // Forward symbolic bounds of every hidden layer (linear method), intersected with intervals.
  void symbolic_pass() {
    const std::size_t cols = n0 + 1;
    // The input: x_k = x_k exactly.
    la.assign(n0 * cols, 0.0);
    for (std::size_t k = 0; k < n0; ++k) la[k * cols + k] = 1.0;
    ua = la;
    al.assign(lo, lo + n0);
    au.assign(hi, hi + n0);
    const std::size_t n_hidden = nb.layers_.size() - 1;
    hidden.resize(n_hidden);
    std::vector<double> zl_iv, zu_iv;
    for (std::size_t li = 0; li < n_hidden; ++li) {
      const auto& d = nb.layers_[li];
      auto& h = hidden[li];
      interval_layer(d, zl_iv, zu_iv);
      compute_row_mag(li);
      symbolic_layer(d, li == 0);
      h.l.resize(d.n_out);
      h.u.resize(d.n_out);
      for (std::size_t i = 0; i < d.n_out; ++i) {
        const double* cl = lz.data() + i * cols;
        const double* cu = uz.data() + i * cols;
        h.l[i] = std::max(zl_iv[i], box_min(cl, cl[n0], lo, hi, mag.data(), n0));
        h.u[i] = std::min(zu_iv[i], box_max(cu, cu[n0], lo, hi, mag.data(), n0));
        if (h.u[i] < h.l[i]) h.u[i] = h.l[i];  // cannot happen with sound bounds; keep ordered
      }
      if (li > 0 && d.relu) refine_unstable(li, h);
      activate_interval(d, h);
      relax_forward(d, h);
    }
    compute_row_mag(n_hidden);
  }

  // Back-substitution (DeepPoly / CROWN) for the neurons that the forward bounds leave
  // unstable: their ReLU relaxation is what loosens every later bound.
  void refine_unstable(std::size_t li, Hidden& h) {
    for (std::size_t j = 0; j < h.l.size(); ++j) {
      if (h.l[j] >= 0 || h.u[j] <= 0) continue;
      h.l[j] = std::max(h.l[j], neuron_lower(li, j, 1.0));
      if (h.l[j] >= 0) continue;
      h.u[j] = std::min(h.u[j], -neuron_lower(li, j, -1.0));
      if (h.u[j] < h.l[j]) h.u[j] = h.l[j];
    }
  }

  // lz, uz = W (la or ua) + b, with the coefficient rounding folded into the constant.
  void symbolic_layer(const NetworkBounds::Dense& d, bool exact_input) {
    const std::size_t cols = n0 + 1;
    lz.assign(d.n_out * cols, 0.0);
    uz.assign(d.n_out * cols, 0.0);
    // Magnitudes of the previous equations over the box.
    std::vector<double>& ma = lam;
    std::vector<double>& mb = lam2;
    ma.assign(d.n_in, 0.0);
    mb.assign(d.n_in, 0.0);
    for (std::size_t j = 0; j < d.n_in; ++j) {
      for (std::size_t k = 0; k < cols; ++k) {
        ma[j] += std::abs(la[j * cols + k]) * mag[k];
        mb[j] += std::abs(ua[j * cols + k]) * mag[k];
      }
    }
    const double g = gamma_n(d.n_in + 1);
    for (std::size_t i = 0; i < d.n_out; ++i) {
      const double* w = d.w.data() + i * d.n_in;
      double* cl = lz.data() + i * cols;
      double* cu = uz.data() + i * cols;
      double el = std::abs(d.b[i]), eu = el;
      for (std::size_t j = 0; j < d.n_in; ++j) {
        const double x = w[j];
        if (x == 0.0) continue;
        const double* pl = (x > 0 ? la : ua).data() + j * cols;
        const double* pu = (x > 0 ? ua : la).data() + j * cols;
        for (std::size_t k = 0; k < cols; ++k) {
          cl[k] += x * pl[k];
          cu[k] += x * pu[k];
        }
        el += std::abs(x) * (x > 0 ? ma[j] : mb[j]);
        eu += std::abs(x) * (x > 0 ? mb[j] : ma[j]);
      }
      cl[n0] += d.b[i];
      cu[n0] += d.b[i];
      if (exact_input) {
        // The first layer's equations are its weights: only the constant can have rounded.
        el = eu = std::abs(d.b[i]);
      }
      cl[n0] = round_down(cl[n0] - (g * el + kTiny));
      cu[n0] = round_up(cu[n0] + (g * eu + kTiny));
    }
  }

  // The activations' equations from the pre-activations' (ReLU relaxation; identity keeps them).
  void relax_forward(const NetworkBounds::Dense& d, Hidden& h) {
    const std::size_t cols = n0 + 1;
    la.swap(lz);
    ua.swap(uz);
    h.s.assign(d.n_out, 1.0);
    h.t.assign(d.n_out, 0.0);
    if (!d.relu) return;
    for (std::size_t j = 0; j < d.n_out; ++j) {
      double* cl = la.data() + j * cols;
      double* cu = ua.data() + j * cols;
      if (h.l[j] >= 0) continue;  // active: a = z
      if (h.u[j] <= 0) {          // inactive: a = 0
        std::fill(cl, cl + cols, 0.0);
        std::fill(cu, cu + cols, 0.0);
        h.s[j] = 0.0;
        continue;
      }
      double s, t;
      relu_upper_line(h.l[j], h.u[j], s, t);
      h.s[j] = s;
      h.t[j] = t;
      double ml = 0.0, mu = 0.0;
      for (std::size_t k = 0; k < cols; ++k) {
        cl[k] *= s;  // a >= s z >= s L(x)
        cu[k] *= s;  // a <= s z + t <= s U(x) + t
        ml += std::abs(cl[k]) * mag[k];
        mu += std::abs(cu[k]) * mag[k];
      }
      cl[n0] = round_down(cl[n0] - (2 * kUnit * ml + kTiny));
      cu[n0] = round_up(round_up(cu[n0] + t) + (2 * kUnit * mu + kTiny));
    }
  }

  // Magnitude of layer li's activations (li = -1: the inputs).
  double act_mag(std::ptrdiff_t li, std::size_t j) const {
    if (li < 0) return mag[j];
    const auto& h = hidden[li];
    if (nb.layers_[li].relu) return std::max(0.0, h.u[j]);
    return std::max(std::abs(h.l[j]), std::abs(h.u[j]));
  }

  // Lower bound of the objective by back-substitution; leaves the input coefficients in grad.
  double backward_lower(const LinearObjective& o, double sign) {
    const auto& layers = nb.layers_;
    lam.assign(layers.back().n_out, 0.0);
    for (std::size_t j = 0; j < o.w.size(); ++j) lam[j] = sign * o.w[j];
    return backward(static_cast<std::ptrdiff_t>(layers.size()) - 1, sign * o.c, &o.v, sign);
  }

  // Lower bound of sign * z_j of layer li (its pre-activation), by back-substitution.
  double neuron_lower(std::size_t li, std::size_t j, double sign) {
    lam.assign(nb.layers_[li].n_out, 0.0);
    lam[j] = sign;
    return backward(static_cast<std::ptrdiff_t>(li), 0.0, nullptr, sign);
  }

  // Lower bound of lam . z_top + beta (+ sign * v . x) over the box: lam (set by the caller)
  // is pushed through layer top's affine map, the ReLU relaxations below it, down to the inputs.
  double backward(std::ptrdiff_t top, double beta, const std::vector<double>* v, double sign) {
    const auto& layers = nb.layers_;
    double beta_abs = std::abs(beta), err = 0.0;
    std::size_t beta_terms = 1;
    for (std::ptrdiff_t li = top; li >= 0; --li) {
      const auto& d = layers[li];
      // Through the affine map: beta += lam . b, lam' = lam W.
      // The rounding of lam' is at most gamma * sum_j (|lam| |W|)_j * |a_j| = gamma * sum_i
      // |lam_i| * row_mag_i, with row_mag_i = sum_j |W_ij| |a_j| computed once per box.
      lam2.assign(d.n_in, 0.0);
      const double* rm = row_mag[li].data();
      double g_abs = 0.0;
      for (std::size_t i = 0; i < d.n_out; ++i) {
        const double li_ = lam[i];
        if (li_ == 0.0) continue;
        beta += li_ * d.b[i];
        beta_abs += std::abs(li_ * d.b[i]);
        g_abs += std::abs(li_) * rm[i];
        const double* w = d.w.data() + i * d.n_in;
        for (std::size_t j = 0; j < d.n_in; ++j) lam2[j] += li_ * w[j];
      }
      beta_terms += d.n_out;
      err += gamma_n(d.n_out) * g_abs * 1.0001;
      lam.swap(lam2);
      if (li == 0) break;
      // Through the previous layer's ReLU (identity keeps lam).
      const auto& prev = layers[li - 1];
      if (!prev.relu) continue;
      const auto& h = hidden[li - 1];
      for (std::size_t j = 0; j < prev.n_out; ++j) {
        const double m = lam[j];
        if (m == 0.0 || h.l[j] >= 0) continue;
        if (h.u[j] <= 0) {
          lam[j] = 0.0;
          continue;
        }
        if (m > 0) {
          lam[j] = h.u[j] > -h.l[j] ? m : 0.0;  // a >= z or a >= 0
        } else {
          lam[j] = m * h.s[j];
          err += kUnit * std::abs(lam[j]) * std::max(-h.l[j], h.u[j]);
          beta += m * h.t[j];
          beta_abs += std::abs(m * h.t[j]);
          ++beta_terms;
        }
      }
    }
    // lam now holds the input coefficients.
    for (std::size_t k = 0; v && k < v->size(); ++k) {
      lam[k] += sign * (*v)[k];
      err += kUnit * std::abs(lam[k]) * mag[k];
    }
    err += gamma_n(beta_terms) * beta_abs;
    grad.assign(lam.begin(), lam.end());
    const double value = box_min(lam.data(), beta, lo, hi, mag.data(), n0);
    return round_down(value - (err * 1.0001 + kTiny));
  }

  // Interval bound of the objective from interval bounds of z (the output layer's input is
  // the last hidden layer's activations in [al, au]).
  void objective_interval(const LinearObjective& o, const std::vector<double>& zl,
                          const std::vector<double>& zu, double& lower, double& upper) const {
    double vl = o.c, vu = o.c, a = std::abs(o.c);
    std::size_t n = 1;
    for (std::size_t j = 0; j < o.w.size(); ++j) {
      const double w = o.w[j];
      vl += w >= 0 ? w * zl[j] : w * zu[j];
      vu += w >= 0 ? w * zu[j] : w * zl[j];
      a += std::abs(w) * std::max(std::abs(zl[j]), std::abs(zu[j]));
      ++n;
    }
    for (std::size_t k = 0; k < o.v.size(); ++k) {
      const double v = o.v[k];
      vl += v >= 0 ? v * lo[k] : v * hi[k];
      vu += v >= 0 ? v * hi[k] : v * lo[k];
      a += std::abs(v) * mag[k];
      ++n;
    }
    const double e = gamma_n(n) * a + kTiny;
    lower = round_down(vl - e);
    upper = round_up(vu + e);
  }
};

NetworkBounds::NetworkBounds(const Model& m) {
  validate(m);
  if (m.kind != ModelKind::network)
    fail("bounds need a network model, found {}", to_string(m.kind));
  n_inputs_ = m.n_features;
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const Layer& src = m.layers[l];
    const bool last = l + 1 == m.layers.size();
    if (!last && src.activation != Activation::relu && src.activation != Activation::identity) {
      fail("bounds cover ReLU and identity hidden layers; layer {} is {}", l,
           src.activation == Activation::logistic ? "logistic" : "softmax");
    }
    Dense d;
    d.n_in = src.n_in;
    d.n_out = src.n_out;
    d.w = src.weights;
    d.b = src.bias;
    d.w_abs.resize(d.w.size());
    for (std::size_t i = 0; i < d.w.size(); ++i) d.w_abs[i] = std::abs(d.w[i]);
    d.relu = !last && src.activation == Activation::relu;
    layers_.push_back(std::move(d));
    if (last) output_activation_ = src.activation;
  }
}

// How the bounds are computed (moved here from the public header):
// Linear method: for hidden layer l, lower and upper linear functions of x (L(x) <= z(x) <=
// U(x)) are pushed forward; an unstable ReLU on [l, u] is relaxed by a <= u (z - l) / (u - l)
// above and a >= u / (u - l) z below. Each neuron's interval is the tighter of its symbolic
// bound and interval propagation. The objective is then bounded by back-substitution: through
// each ReLU the relaxation that gives the better bound is chosen per neuron (the CROWN rule:
// the upper line for negative multipliers, the line a >= z or a >= 0, whichever has the smaller
// area, for positive ones).
//
// Rounding: every sum of n products computed in floating point differs from the exact one by at
// most gamma_n times the sum of the absolute products (gamma_n = n u / (1 - n u), u = 2^-53);
// such errors on the coefficients of a linear function are turned into an error on its constant
// through the magnitudes of the variables over the box, and subtracted (lower bounds) or added
// (upper bounds), then the result is moved one ulp outward. Relaxation lines are checked at the
// interval's ends with outward rounding, so a rounded slope stays a valid bound.
void NetworkBounds::bound(std::span<const double> lo, std::span<const double> hi,
                          std::span<const LinearObjective> objectives, BoundMethod method,
                          BoundResult& out) const {
  ASSAY_ASSERT(lo.size() == n_inputs_ && hi.size() == n_inputs_);
  BoundsKernel k(*this, lo.data(), hi.data());
  if (method == BoundMethod::interval) {
    k.interval_pass();
  } else {
    k.symbolic_pass();
  }
  // Interval bounds of the output layer's z from the last activations.
  std::vector<double> zl, zu;
  k.interval_layer(layers_.back(), zl, zu);
  const std::size_t n = n_inputs_;
  out.lower.assign(objectives.size(), 0.0);
  out.upper.assign(objectives.size(), 0.0);
  out.influence.assign(objectives.size() * n, 0.0);
  out.descent.assign(objectives.size() * n, 0.0);
  for (std::size_t q = 0; q < objectives.size(); ++q) {
    const auto& o = objectives[q];
    double* infl = out.influence.data() + q * n;
    double lower, upper;
    k.objective_interval(o, zl, zu, lower, upper);
    if (method == BoundMethod::linear) {
      lower = std::max(lower, k.backward_lower(o, 1.0));
      for (std::size_t i = 0; i < n; ++i) {
        infl[i] += std::abs(k.grad[i]) * (hi[i] - lo[i]);
        out.descent[q * n + i] = k.grad[i];
      }
      upper = std::min(upper, -k.backward_lower(o, -1.0));
      for (std::size_t i = 0; i < n; ++i) infl[i] += std::abs(k.grad[i]) * (hi[i] - lo[i]);
    } else {
      for (std::size_t i = 0; i < n; ++i) infl[i] = hi[i] - lo[i];
    }
    out.lower[q] = lower;
    out.upper[q] = std::max(upper, lower);
  }
}

void NetworkBounds::output_bounds(std::span<const double> lo, std::span<const double> hi,
                                  BoundMethod method, BoundResult& out) const {
  const std::size_t m = n_outputs();
  std::vector<LinearObjective> unit(m);
  for (std::size_t j = 0; j < m; ++j) {
    unit[j].w.assign(m, 0.0);
    unit[j].w[j] = 1.0;
  }
  bound(lo, hi, unit, method, out);
  const std::vector<double> zl = out.lower, zu = out.upper;
  constexpr double rel = 1e-12;
  if (output_activation_ == Activation::logistic) {
    for (std::size_t j = 0; j < m; ++j) {
      out.lower[j] = std::max(0.0, (1.0 / (1.0 + std::exp(-zl[j]))) * (1 - rel));
      out.upper[j] = std::min(1.0, (1.0 / (1.0 + std::exp(-zu[j]))) * (1 + rel));
    }
  } else if (output_activation_ == Activation::softmax) {
    for (std::size_t k = 0; k < m; ++k) {
      double sl = 1.0, su = 1.0;
      for (std::size_t j = 0; j < m; ++j) {
        if (j == k) continue;
        sl += std::exp(zu[j] - zl[k]);
        su += std::exp(zl[j] - zu[k]);
      }
      out.lower[k] = std::max(0.0, (1.0 / sl) * (1 - rel));
      out.upper[k] = std::min(1.0, (1.0 / su) * (1 + rel));
    }
  }
}

}  // namespace assay::count
