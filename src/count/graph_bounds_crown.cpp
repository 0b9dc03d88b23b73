// Back-substitution of linear functions through a graph network (CROWN), batched over columns,
// its forward adjoint (the gradient with respect to the ReLU lower slopes) and the projected
// gradient ascent on those slopes (alpha-CROWN). Rounding: graph_bounds_kernel.hpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "assay/count/bounds.hpp"
#include "count/graph_bounds_kernel.hpp"

namespace assay::count::detail {

namespace {

// Columns per batch: each sparse entry then updates this many contiguous coefficients.
constexpr std::size_t kBatch = 64;

// y += w x over one batch of coefficients; the usual batch size is a constant, so the compiler
// unrolls and vectorises it.
template <std::size_t N>
void axpy_batch(double* __restrict y, double w, const double* __restrict x) {
  for (std::size_t b = 0; b < N; ++b) y[b] += w * x[b];
}
void axpy(double* __restrict y, double w, const double* __restrict x, std::size_t n) {
  if (n == kBatch) return axpy_batch<kBatch>(y, w, x);
  for (std::size_t b = 0; b < n; ++b) y[b] += w * x[b];
}

// The f rows are every `stride`-th (2 when they alternate with -f rows).
bool all_lower_rows_positive(const std::vector<double>& best, std::size_t stride) {
  for (std::size_t b = 0; b < best.size(); b += stride) {
    if (!(best[b] > 0)) return false;
  }
  return true;
}

bool any_nonzero(const double* x, std::size_t n) {
  for (std::size_t b = 0; b < n; ++b) {
    if (x[b] != 0.0) return true;
  }
  return false;
}

}  // namespace

double GraphKernel::lower_slope(const NodeRelax& r, std::size_t j) const {
  return parallel_slopes && r.free_slope[j] ? r.us[j] : r.ls[j];
}

GraphKernel::GraphKernel(const GraphNetwork& graph, std::span<const std::size_t> summands_,
                         std::span<const double> lo_, std::span<const double> hi_)
    : g(graph), summands(summands_), lo(lo_), hi(hi_) {
  const std::size_t n = g.nodes.size();
  L.resize(n);
  U.resize(n);
  mag.resize(n);
  row_mag.resize(n);
  relax.resize(n);
  lam.resize(n);
  touched.assign(n, 0);
}

double* GraphKernel::lam_of(std::size_t k) {
  if (!touched[k]) {
    lam[k].assign(g.nodes[k].size * B, 0.0);
    touched[k] = 1;
  }
  return lam[k].data();
}

void GraphKernel::start(std::size_t top, std::size_t columns, std::span<const double> c) {
  B = columns;
  std::fill(touched.begin(), touched.end(), 0);
  lam_of(top);
  beta.assign(c.begin(), c.end());
  beta.resize(B, 0.0);
  beta_abs.resize(B);
  for (std::size_t b = 0; b < B; ++b) beta_abs[b] = std::abs(beta[b]);
  err.assign(B, 0.0);
  beta_terms = 1;
}

// lam . value(k) = lam . bias + sum_t (M_t^T lam) . value(source_t).
void GraphKernel::through_linear(std::size_t k) {
  const GraphNode& n = g.nodes[k];
  for (const auto& t : n.terms) lam_of(t.source);
  const double* X = lam[k].data();
  for (std::size_t i = 0; i < n.size; ++i) {
    const double* x = X + i * B;
    if (!any_nonzero(x, B)) continue;
    if (const double bi = n.bias[i]; bi != 0.0) {
      for (std::size_t b = 0; b < B; ++b) {
        const double p = x[b] * bi;
        beta[b] += p;
        beta_abs[b] += std::abs(p);
      }
    }
    for (std::size_t ti = 0; ti < n.terms.size(); ++ti) {
      const auto& t = n.terms[ti];
      const double scale = gamma_n(summands[t.source]) * row_mag[k][ti][i];
      for (std::size_t b = 0; b < B; ++b) err[b] += scale * std::abs(x[b]);
      double* Y = lam[t.source].data();
      const auto& m = t.matrix;
      for (std::size_t e = m.row_start[i]; e < m.row_start[i + 1]; ++e) {
        const double w = m.value[e];
        axpy(Y + static_cast<std::size_t>(m.column[e]) * B, w, x, B);
      }
    }
  }
  beta_terms += n.size;
}

// Per element: lam * value >= lam * (s z + t) with the lower line where lam > 0, the upper one
// where lam < 0.
void GraphKernel::through_activation(std::size_t k) {
  const GraphNode& n = g.nodes[k];
  const NodeRelax& r = relax[k];
  double* Y = lam_of(n.source);
  const double* X = lam[k].data();
  const double gs = gamma_n(summands[n.source]);
  const double* A = alpha.empty() || alpha[k].empty() ? nullptr : alpha[k].data();
  const auto& ms = mag[n.source];
  for (std::size_t j = 0; j < n.size; ++j) {
    const bool free = A && r.free_slope[j];
    for (std::size_t b = 0; b < B; ++b) {
      const double m = X[j * B + b];
      if (m == 0.0) continue;
      const double s = m > 0 ? (free ? A[j * B + b] : lower_slope(r, j)) : r.us[j];
      const double t = m > 0 ? r.lt[j] : r.ut[j];
      const double p = m * s;
      Y[j * B + b] += p;
      err[b] += gs * std::abs(p) * ms[j];
      if (t != 0.0) {
        const double q = m * t;
        beta[b] += q;
        beta_abs[b] += std::abs(q);
      }
    }
  }
  beta_terms += n.size;
}

// max >= the element with the largest lower bound; max <= its upper bound (a constant), or
// = that element when it dominates its window.
void GraphKernel::through_max_pool(std::size_t k) {
  const GraphNode& n = g.nodes[k];
  const NodeRelax& r = relax[k];
  double* Y = lam_of(n.source);
  const double* X = lam[k].data();
  const double gs = gamma_n(summands[n.source]);
  const auto& ms = mag[n.source];
  for (std::size_t j = 0; j < n.size; ++j) {
    const std::size_t c = r.arg[j];
    for (std::size_t b = 0; b < B; ++b) {
      const double m = X[j * B + b];
      if (m == 0.0) continue;
      if (m > 0 || r.exact[j]) {
        Y[c * B + b] += m;
        err[b] += gs * std::abs(m) * ms[c];
      } else {
        const double q = m * U[k][j];
        beta[b] += q;
        beta_abs[b] += std::abs(q);
      }
    }
  }
  beta_terms += n.size;
}

void GraphKernel::back_substitute(std::size_t top, std::span<const double> v,
                                  std::vector<double>& out) {
  for (std::size_t k = top; k > 0; --k) {
    if (!touched[k]) continue;
    switch (g.nodes[k].op) {
      case GraphOp::input:
        break;
      case GraphOp::linear:
        through_linear(k);
        break;
      case GraphOp::relu:
      case GraphOp::sigmoid:
      case GraphOp::tanh:
        through_activation(k);
        break;
      case GraphOp::max_pool:
        through_max_pool(k);
        break;
    }
  }
  const std::size_t n0 = g.n_inputs();
  double* C = lam_of(0);
  const double g0 = gamma_n(summands[0]);
  if (!v.empty()) {
    for (std::size_t i = 0; i < n0; ++i) {
      for (std::size_t b = 0; b < B; ++b) {
        const double p = v[i * B + b];
        C[i * B + b] += p;
        err[b] += g0 * std::abs(p) * mag[0][i];
      }
    }
  }
  out.resize(B);
  std::vector<double> column(n0);
  const double gb = gamma_n(beta_terms);
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t i = 0; i < n0; ++i) column[i] = C[i * B + b];
    const double value = box_min(column.data(), beta[b], lo.data(), hi.data(), mag[0].data(), n0);
    const double total = err[b] * 1.0001 + gb * beta_abs[b];
    out[b] = round_down(value - (total * 1.0001 + kTiny));
  }
}

void GraphKernel::refine(std::size_t k, std::span<const std::uint32_t> which, double sign) {
  std::vector<double> out, out2;
  for (std::size_t first = 0; first < which.size(); first += kBatch) {
    if (std::chrono::steady_clock::now() >= deadline) return;  // the rest keep L[k] / U[k]
    const std::size_t count = std::min(kBatch, which.size() - first);
    for (const bool parallel : {false, true}) {
      parallel_slopes = parallel;
      start(k, count, {});
      double* X = lam[k].data();
      for (std::size_t b = 0; b < count; ++b) X[which[first + b] * B + b] = sign;
      back_substitute(k, {}, parallel ? out2 : out);
    }
    parallel_slopes = false;
    for (std::size_t b = 0; b < count; ++b) out[b] = std::max(out[b], out2[b]);
    for (std::size_t b = 0; b < count; ++b) {
      const std::size_t j = which[first + b];
      if (sign > 0) {
        L[k][j] = std::max(L[k][j], out[b]);
      } else {
        U[k][j] = std::min(U[k][j], -out[b]);
      }
    }
  }
}

// The values of every node in the relaxed network (the lines back_substitute chose) at the box
// corner where the input coefficients are smallest: the derivative of the bound with respect to
// each node's coefficients.
void GraphKernel::forward_adjoint(std::size_t top) {
  adjoint.resize(g.nodes.size());
  const double* C = lam[0].data();
  auto& a0 = adjoint[0];
  a0.resize(g.n_inputs() * B);
  for (std::size_t i = 0; i < g.n_inputs(); ++i) {
    for (std::size_t b = 0; b < B; ++b) a0[i * B + b] = C[i * B + b] >= 0 ? lo[i] : hi[i];
  }
  for (std::size_t k = 1; k <= top; ++k) {
    const GraphNode& n = g.nodes[k];
    auto& a = adjoint[k];
    a.assign(n.size * B, 0.0);
    const double* X = touched[k] ? lam[k].data() : nullptr;
    if (n.op == GraphOp::linear) {
      for (std::size_t i = 0; i < n.size; ++i) {
        double* y = a.data() + i * B;
        for (std::size_t b = 0; b < B; ++b) y[b] = n.bias[i];
        for (const auto& t : n.terms) {
          const auto& m = t.matrix;
          const double* src = adjoint[t.source].data();
          for (std::size_t e = m.row_start[i]; e < m.row_start[i + 1]; ++e) {
            axpy(y, m.value[e], src + static_cast<std::size_t>(m.column[e]) * B, B);
          }
        }
      }
      continue;
    }
    const NodeRelax& r = relax[k];
    const double* src = adjoint[n.source].data();
    if (n.op == GraphOp::max_pool) {
      for (std::size_t j = 0; j < n.size; ++j) {
        for (std::size_t b = 0; b < B; ++b) {
          const double m = X ? X[j * B + b] : 0.0;
          a[j * B + b] = m >= 0 || r.exact[j] ? src[r.arg[j] * B + b] : U[k][j];
        }
      }
      continue;
    }
    const double* A = alpha.empty() || alpha[k].empty() ? nullptr : alpha[k].data();
    for (std::size_t j = 0; j < n.size; ++j) {
      const bool free = A && r.free_slope[j];
      for (std::size_t b = 0; b < B; ++b) {
        const double m = X ? X[j * B + b] : 0.0;
        const double s = m >= 0 ? (free ? A[j * B + b] : r.ls[j]) : r.us[j];
        const double t = m >= 0 ? r.lt[j] : r.ut[j];
        a[j * B + b] = s * src[j * B + b] + t;
      }
    }
  }
}

// One Adam step (ascent) on the free slopes: d bound / d alpha_j = lam_j * adjoint(source)_j
// where the lower line is used (lam_j > 0), else 0. Projected on [0, 1].
void GraphKernel::alpha_gradient_step(int step, std::vector<std::vector<double>>& m1,
                                      std::vector<std::vector<double>>& m2) {
  constexpr double lr = 0.1, b1 = 0.9, b2 = 0.999, eps = 1e-12;
  const double c1 = 1 - std::pow(b1, step + 1), c2 = 1 - std::pow(b2, step + 1);
  for (std::size_t k = 1; k < g.nodes.size(); ++k) {
    if (alpha[k].empty() || !touched[k]) continue;
    const NodeRelax& r = relax[k];
    const double* X = lam[k].data();
    const double* src = adjoint[g.nodes[k].source].data();
    auto& A = alpha[k];
    m1[k].resize(A.size(), 0.0);
    m2[k].resize(A.size(), 0.0);
    for (std::size_t j = 0; j < g.nodes[k].size; ++j) {
      if (!r.free_slope[j]) continue;
      for (std::size_t b = 0; b < B; ++b) {
        const std::size_t i = j * B + b;
        const double grad = X[i] > 0 ? X[i] * src[i] : 0.0;
        m1[k][i] = b1 * m1[k][i] + (1 - b1) * grad;
        m2[k][i] = b2 * m2[k][i] + (1 - b2) * grad * grad;
        const double step_size = lr * (m1[k][i] / c1) / (std::sqrt(m2[k][i] / c2) + eps);
        const double next = A[i] + step_size;
        A[i] = next >= 0 ? std::min(next, 1.0) : 0.0;  // [0, 1] keeps the line sound; NaN -> 0
      }
    }
  }
}

void GraphKernel::relu_scores(std::size_t column, std::vector<std::vector<double>>& scores) const {
  scores.assign(g.nodes.size(), {});
  for (std::size_t k = 1; k < g.nodes.size(); ++k) {
    const GraphNode& n = g.nodes[k];
    if (n.op != GraphOp::relu) continue;
    scores[k].assign(n.size, 0.0);
    if (!touched[k]) continue;
    for (std::size_t j = 0; j < n.size; ++j) {
      if (!relax[k].free_slope[j]) continue;
      const double l = L[n.source][j], u = U[n.source][j];
      scores[k][j] = std::abs(lam[k][j * B + column]) * (u * -l / (u - l));
    }
  }
}

void GraphKernel::objective_batch(std::span<const GraphObjective> objectives, std::size_t first,
                                  std::size_t count, int iterations, RowOptions options,
                                  std::vector<double>& out, std::vector<double>& input_coef,
                                  std::vector<std::vector<double>>* scores) {
  // Column stride * q is objective q's f row, stride * q + 1 its -f row (when stride is 2).
  const std::size_t stride = options.lower_only ? 1 : 2;
  const std::size_t top = g.nodes.size() - 1, cols = stride * count, n0 = g.n_inputs();
  std::vector<double> c(cols), v;
  for (std::size_t q = 0; q < count; ++q) {
    const auto& o = objectives[first + q];
    c[stride * q] = o.c;
    if (stride == 2) c[2 * q + 1] = -o.c;
    if (o.v.empty()) continue;
    v.resize(n0 * cols, 0.0);
    for (std::size_t i = 0; i < n0; ++i) {
      v[i * cols + stride * q] = o.v[i];
      if (stride == 2) v[i * cols + 2 * q + 1] = -o.v[i];
    }
  }
  B = cols;
  alpha.assign(g.nodes.size(), {});
  for (std::size_t k = 1; iterations > 0 && k < g.nodes.size(); ++k) {
    const NodeRelax& r = relax[k];
    if (g.nodes[k].op != GraphOp::relu) continue;
    if (std::find(r.free_slope.begin(), r.free_slope.end(), 1) == r.free_slope.end()) continue;
    alpha[k].resize(g.nodes[k].size * cols);
    for (std::size_t j = 0; j < g.nodes[k].size; ++j)
      std::fill_n(alpha[k].begin() + j * cols, cols, r.ls[j]);
  }
  std::vector<std::vector<double>> m1(g.nodes.size()), m2(g.nodes.size());
  std::vector<double> best(cols, -std::numeric_limits<double>::infinity()), res;
  for (int it = 0; it <= iterations; ++it) {
    start(top, cols, c);
    double* X = lam[top].data();
    for (std::size_t q = 0; q < count; ++q) {
      const auto& w = objectives[first + q].w;
      for (std::size_t j = 0; j < w.size(); ++j) {
        X[j * cols + stride * q] = w[j];
        if (stride == 2) X[j * cols + 2 * q + 1] = -w[j];
      }
    }
    back_substitute(top, v, res);
    for (std::size_t b = 0; b < cols; ++b) {
      if (!(res[b] > best[b])) continue;
      best[b] = res[b];
      if (b % stride != 0) continue;
      const std::size_t q = first + b / stride;
      for (std::size_t i = 0; i < n0; ++i) input_coef[q * n0 + i] = lam[0][i * cols + b];
      if (scores && q == 0) relu_scores(b, *scores);
    }
    if (it == iterations) break;
    if (options.stop_when_positive && all_lower_rows_positive(best, stride)) break;
    if (std::chrono::steady_clock::now() >= options.deadline) break;  // the best so far holds
    forward_adjoint(top);
    alpha_gradient_step(it, m1, m2);
  }
  for (std::size_t q = 0; q < count; ++q) {
    out[2 * (first + q)] = best[stride * q];
    if (stride == 2) out[2 * (first + q) + 1] = best[2 * q + 1];
  }
  alpha.clear();
}

void GraphKernel::objective_rows(std::span<const GraphObjective> objectives, int iterations,
                                 RowOptions options, std::vector<double>& out,
                                 std::vector<double>& input_coef,
                                 std::vector<std::vector<double>>* scores) {
  out.assign(2 * objectives.size(), -std::numeric_limits<double>::infinity());
  input_coef.assign(objectives.size() * g.n_inputs(), 0.0);
  const std::size_t per_batch = options.lower_only ? kBatch : kBatch / 2;
  for (std::size_t first = 0; first < objectives.size(); first += per_batch) {
    const std::size_t count = std::min(per_batch, objectives.size() - first);
    objective_batch(objectives, first, count, iterations, options, out, input_coef,
                    first == 0 ? scores : nullptr);
  }
}

}  // namespace assay::count::detail
