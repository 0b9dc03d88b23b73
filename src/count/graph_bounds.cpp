// Bounds of graph networks (graph_bounds.hpp): every node's bounds in topological order
// (interval propagation, tightened by back-substitution for the linear nodes that feed a
// nonlinearity, by the ReLU splits, or taken from a parent's result), then each objective.
#include "count/graph_bounds.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "assay/core/error.hpp"
#include "count/graph_bounds_kernel.hpp"

namespace assay::count::detail {

// ---- node bounds (GraphKernel members that need no back-substitution) ------------------------

void GraphKernel::set_mag(std::size_t k) {
  auto& m = mag[k];
  m.resize(L[k].size());
  for (std::size_t j = 0; j < m.size(); ++j) m[j] = std::max(std::abs(L[k][j]), std::abs(U[k][j]));
}

// row_mag[k][t][i] >= sum_e |M_t(i, e)| * mag(source)_e, rounding included.
void GraphKernel::compute_row_mag(std::size_t k) {
  const GraphNode& n = g.nodes[k];
  row_mag[k].resize(n.terms.size());
  for (std::size_t ti = 0; ti < n.terms.size(); ++ti) {
    const auto& m = n.terms[ti].matrix;
    const auto& ms = mag[n.terms[ti].source];
    auto& r = row_mag[k][ti];
    r.resize(n.size);
    for (std::size_t i = 0; i < n.size; ++i) {
      double acc = 0.0;
      for (std::size_t e = m.row_start[i]; e < m.row_start[i + 1]; ++e)
        acc += std::abs(m.value[e]) * ms[m.column[e]];
      r[i] = acc * (1 + gamma_n(m.row_start[i + 1] - m.row_start[i]));
    }
  }
}

// Bounds of node k from its sources' bounds; for a linear node whose terms read the input this
// is the exact range over the box (up to the subtracted rounding).
void GraphKernel::interval_node(std::size_t k) {
  const GraphNode& n = g.nodes[k];
  auto& l = L[k];
  auto& u = U[k];
  l.resize(n.size);
  u.resize(n.size);
  switch (n.op) {
    case GraphOp::input:
      return;
    case GraphOp::linear: {
      compute_row_mag(k);
      for (std::size_t i = 0; i < n.size; ++i) {
        double vl = n.bias[i], vu = n.bias[i], a = std::abs(n.bias[i]);
        std::size_t count = 1;
        for (const auto& t : n.terms) {
          const auto& m = t.matrix;
          const auto& sl = L[t.source];
          const auto& su = U[t.source];
          const auto& ms = mag[t.source];
          for (std::size_t e = m.row_start[i]; e < m.row_start[i + 1]; ++e) {
            const double w = m.value[e];
            const std::uint32_t c = m.column[e];
            vl += w >= 0 ? w * sl[c] : w * su[c];
            vu += w >= 0 ? w * su[c] : w * sl[c];
            a += std::abs(w) * ms[c];
          }
          count += m.row_start[i + 1] - m.row_start[i];
        }
        const double e = gamma_n(count + 1) * a + kTiny;
        l[i] = round_down(vl - e);
        u[i] = round_up(vu + e);
      }
      return;
    }
    case GraphOp::relu:
      for (std::size_t j = 0; j < n.size; ++j) {
        l[j] = std::max(L[n.source][j], 0.0);
        u[j] = std::max(U[n.source][j], 0.0);
      }
      return;
    case GraphOp::sigmoid:
    case GraphOp::tanh: {
      const SCurve f = n.op == GraphOp::sigmoid ? SCurve::sigmoid : SCurve::tanh;
      for (std::size_t j = 0; j < n.size; ++j) {
        l[j] = s_curve_down(f, L[n.source][j]);
        u[j] = s_curve_up(f, U[n.source][j]);
      }
      return;
    }
    case GraphOp::max_pool:
      for (std::size_t r = 0; r < n.size; ++r) {
        l[r] = u[r] = -std::numeric_limits<double>::infinity();
        for (std::size_t e = n.pool.row_start[r]; e < n.pool.row_start[r + 1]; ++e) {
          l[r] = std::max(l[r], L[n.source][n.pool.column[e]]);
          u[r] = std::max(u[r], U[n.source][n.pool.column[e]]);
        }
      }
      return;
  }
}

void GraphKernel::relax_node(std::size_t k) {
  const GraphNode& n = g.nodes[k];
  NodeRelax& r = relax[k];
  const auto& sl = L[n.source];
  const auto& su = U[n.source];
  if (n.op == GraphOp::max_pool) {
    r.arg.resize(n.size);
    r.exact.resize(n.size);
    for (std::size_t j = 0; j < n.size; ++j) {
      const std::size_t e0 = n.pool.row_start[j], e1 = n.pool.row_start[j + 1];
      std::uint32_t best = n.pool.column[e0];
      for (std::size_t e = e0; e < e1; ++e) {
        if (sl[n.pool.column[e]] > sl[best]) best = n.pool.column[e];
      }
      bool exact = true;
      for (std::size_t e = e0; e < e1 && exact; ++e)
        exact = n.pool.column[e] == best || su[n.pool.column[e]] <= sl[best];
      r.arg[j] = best;
      r.exact[j] = exact;
    }
    return;
  }
  r.ls.assign(n.size, 0.0);
  r.lt.assign(n.size, 0.0);
  r.us.assign(n.size, 0.0);
  r.ut.assign(n.size, 0.0);
  r.free_slope.assign(n.size, 0);
  for (std::size_t j = 0; j < n.size; ++j) {
    const double l = sl[j], u = su[j];
    if (n.op == GraphOp::relu) {
      if (l >= 0) {
        r.ls[j] = r.us[j] = 1.0;
      } else if (u > 0) {
        const Line up = relu_upper_line(l, u);
        r.us[j] = up.s;
        r.ut[j] = up.t;
        r.ls[j] = u > -l ? 1.0 : 0.0;  // CROWN: the lower line of smaller area
        r.free_slope[j] = 1;
      }
      continue;
    }
    Line lower, upper;
    s_curve_lines(n.op == GraphOp::sigmoid ? SCurve::sigmoid : SCurve::tanh, l, u, lower, upper);
    r.ls[j] = lower.s;
    r.lt[j] = lower.t;
    r.us[j] = upper.s;
    r.ut[j] = upper.t;
  }
}

namespace {

bool is_nonlinear(GraphOp op) {
  return op != GraphOp::input && op != GraphOp::linear;
}

// Per node: 0 = feeds no nonlinearity, 1 = feeds only ReLUs, 2 = feeds another nonlinearity.
std::vector<int> nonlinear_consumers(const GraphNetwork& g) {
  std::vector<int> feeds(g.nodes.size(), 0);
  for (const auto& n : g.nodes) {
    if (!is_nonlinear(n.op)) continue;
    feeds[n.source] = std::max(feeds[n.source], n.op == GraphOp::relu ? 1 : 2);
  }
  return feeds;
}

bool reads_only_input(const GraphNode& n) {
  return std::all_of(n.terms.begin(), n.terms.end(), [](const auto& t) { return t.source == 0; });
}

struct NodePass {
  GraphKernel& k;
  const GraphBoundParams& params;
  std::vector<std::vector<ReluSplit>> splits_at;  // per relu source node
  std::vector<int> feeds;

  // Back-substitution for the elements whose bounds matter: a ReLU's unstable inputs, every
  // input of another nonlinearity.
  void refine(std::size_t node) {
    const bool relu_only = feeds[node] == 1;
    auto wanted = [&](std::size_t j) {
      return !relu_only || (k.L[node][j] < 0 && k.U[node][j] > 0);
    };
    std::vector<std::uint32_t> which;
    for (std::size_t j = 0; j < k.L[node].size(); ++j) {
      if (wanted(j)) which.push_back(static_cast<std::uint32_t>(j));
    }
    k.refine(node, which, 1.0);
    std::erase_if(which, [&](std::uint32_t j) { return !wanted(j); });
    k.refine(node, which, -1.0);
  }

  // False when some bound crosses (the region is empty).
  bool apply_splits(std::size_t node) {
    for (const ReluSplit& s : splits_at[node]) {
      if (s.active) {
        k.L[node][s.index] = std::max(k.L[node][s.index], 0.0);
      } else {
        k.U[node][s.index] = std::min(k.U[node][s.index], 0.0);
      }
    }
    for (std::size_t j = 0; j < k.L[node].size(); ++j) {
      if (!(k.L[node][j] <= k.U[node][j])) return false;
    }
    return true;
  }

  // Whether a node's sources all kept the reused bounds (so would it: interval propagation from
  // them cannot beat bounds that were intersected with it in the first place).
  bool sources_clean(const GraphNode& n, const std::vector<char>& changed) const {
    if (n.op == GraphOp::linear) {
      return std::none_of(n.terms.begin(), n.terms.end(),
                          [&](const auto& t) { return changed[t.source]; });
    }
    return !changed[n.source];
  }

  bool run() {
    const auto& g = k.g;
    k.L[0].assign(k.lo.begin(), k.lo.end());
    k.U[0].assign(k.hi.begin(), k.hi.end());
    k.set_mag(0);  // of the whole box, which box_min reads
    if (!apply_splits(0)) return false;
    // Per node: its bounds differ from the reused ones (all of them without reuse_same_box).
    const bool same_box = params.reuse_lower && params.reuse_same_box;
    std::vector<char> changed(g.nodes.size(), 1);
    auto differs = [&](std::size_t node) {
      return k.L[node] != (*params.reuse_lower)[node] || k.U[node] != (*params.reuse_upper)[node];
    };
    if (same_box) changed[0] = differs(0);
    for (std::size_t node = 1; node < g.nodes.size(); ++node) {
      const GraphNode& n = g.nodes[node];
      if (same_box && sources_clean(n, changed)) {
        k.L[node] = (*params.reuse_lower)[node];
        k.U[node] = (*params.reuse_upper)[node];
        if (n.op == GraphOp::linear) k.compute_row_mag(node);  // back-substitution's rounding
      } else {
        k.interval_node(node);
        if (params.reuse_lower) {
          const auto& rl = (*params.reuse_lower)[node];
          const auto& ru = (*params.reuse_upper)[node];
          for (std::size_t j = 0; j < n.size; ++j) {
            k.L[node][j] = std::max(k.L[node][j], rl[j]);
            k.U[node][j] = std::min(k.U[node][j], ru[j]);
          }
        } else if (params.method == BoundMethod::linear && n.op == GraphOp::linear &&
                   feeds[node] > 0 && !reads_only_input(n)) {
          refine(node);
        }
      }
      if (!apply_splits(node)) return false;
      if (same_box) changed[node] = differs(node);
      k.set_mag(node);
      if (is_nonlinear(n.op)) k.relax_node(node);
    }
    return true;
  }
};

void check_arguments(const GraphNetwork& g, std::span<const double> lo, std::span<const double> hi,
                     std::span<const GraphObjective> objectives, std::span<const ReluSplit> splits,
                     const GraphBoundParams& params) {
  if (lo.size() != g.n_inputs() || hi.size() != g.n_inputs())
    fail("graph bounds: a box of {} / {} values for {} inputs", lo.size(), hi.size(), g.n_inputs());
  for (std::size_t i = 0; i < lo.size(); ++i) {
    if (!(std::isfinite(lo[i]) && std::isfinite(hi[i]) && lo[i] <= hi[i]))
      fail("graph bounds: input {} has the range [{}, {}]", i, lo[i], hi[i]);
  }
  for (const auto& o : objectives) {
    if ((!o.w.empty() && o.w.size() != g.n_outputs()) ||
        (!o.v.empty() && o.v.size() != g.n_inputs()))
      fail("graph bounds: an objective with {} output and {} input weights for {} and {}",
           o.w.size(), o.v.size(), g.n_outputs(), g.n_inputs());
  }
  for (const auto& s : splits) {
    if (s.node >= g.nodes.size() || g.nodes[s.node].op != GraphOp::relu ||
        s.index >= g.nodes[s.node].size)
      fail("graph bounds: split of neuron {} of node {}, which is no relu neuron", s.index, s.node);
  }
  if ((params.reuse_lower == nullptr) != (params.reuse_upper == nullptr))
    fail("graph bounds: reuse_lower and reuse_upper go together");
  for (const auto* r : {params.reuse_lower, params.reuse_upper}) {
    if (!r) continue;
    bool ok = r->size() == g.nodes.size();
    for (std::size_t k = 0; ok && k < g.nodes.size(); ++k) ok = (*r)[k].size() == g.nodes[k].size;
    if (!ok) fail("graph bounds: reused node bounds do not match the graph's nodes");
  }
  if (params.alpha_iterations < 0)
    fail("graph bounds: alpha_iterations must be >= 0, found {}", params.alpha_iterations);
}

// Bounds of the objective from the output node's bounds (and the box for v).
void objective_interval(const GraphKernel& k, const GraphObjective& o, double& lower,
                        double& upper) {
  const std::size_t top = k.g.nodes.size() - 1;
  double vl = o.c, vu = o.c, a = std::abs(o.c);
  std::size_t n = 1;
  auto add = [&](double w, double l, double u) {
    vl += w >= 0 ? w * l : w * u;
    vu += w >= 0 ? w * u : w * l;
    a += std::abs(w) * std::max(std::abs(l), std::abs(u));
    ++n;
  };
  for (std::size_t j = 0; j < o.w.size(); ++j) add(o.w[j], k.L[top][j], k.U[top][j]);
  for (std::size_t i = 0; i < o.v.size(); ++i) add(o.v[i], k.lo[i], k.hi[i]);
  const double e = gamma_n(n) * a + kTiny;
  lower = round_down(vl - e);
  upper = round_up(vu + e);
}

// Interval method: the relaxation gap u (-l) / (u - l) of each free neuron, unweighted.
void gap_scores(const GraphKernel& k, std::vector<std::vector<double>>& scores) {
  scores.assign(k.g.nodes.size(), {});
  for (std::size_t node = 1; node < k.g.nodes.size(); ++node) {
    const GraphNode& n = k.g.nodes[node];
    if (n.op != GraphOp::relu) continue;
    scores[node].assign(n.size, 0.0);
    for (std::size_t j = 0; j < n.size; ++j) {
      if (!k.relax[node].free_slope[j]) continue;
      const double l = k.L[n.source][j], u = k.U[n.source][j];
      scores[node][j] = u * -l / (u - l);
    }
  }
}

void set_infeasible(std::size_t n_objectives, std::size_t n_inputs, GraphBoundResult& out) {
  out.infeasible = true;
  out.lower.assign(n_objectives, std::numeric_limits<double>::infinity());
  out.upper.assign(n_objectives, -std::numeric_limits<double>::infinity());
  out.input_coef.assign(n_objectives * n_inputs, 0.0);
}

}  // namespace

GraphBounds::GraphBounds(const GraphNetwork& g) : g_(g) {
  validate(g);
  std::vector<std::vector<std::size_t>> count(g.nodes.size());
  for (std::size_t k = 0; k < g.nodes.size(); ++k) count[k].assign(g.nodes[k].size, 1);
  for (auto& c : count[0]) ++c;  // the objective's input weights v
  for (const auto& n : g.nodes) {
    if (n.op == GraphOp::linear) {
      for (const auto& t : n.terms) {
        for (const std::uint32_t c : t.matrix.column) ++count[t.source][c];
      }
    } else if (n.op == GraphOp::max_pool) {
      for (const std::uint32_t c : n.pool.column) ++count[n.source][c];
    } else if (n.op != GraphOp::input) {
      for (auto& c : count[n.source]) ++c;
    }
  }
  summands_.resize(g.nodes.size());
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    summands_[k] = *std::max_element(count[k].begin(), count[k].end()) + 1;
}

void GraphBounds::bound(std::span<const double> lo, std::span<const double> hi,
                        std::span<const GraphObjective> objectives,
                        std::span<const ReluSplit> splits, const GraphBoundParams& params,
                        GraphBoundResult& out) const {
  check_arguments(g_, lo, hi, objectives, splits, params);
  GraphKernel k(g_, summands_, lo, hi);
  k.deadline = params.deadline;
  NodePass pass{k, params, std::vector<std::vector<ReluSplit>>(g_.nodes.size()),
                nonlinear_consumers(g_)};
  for (const auto& s : splits) pass.splits_at[g_.nodes[s.node].source].push_back(s);
  out = GraphBoundResult{};
  const bool feasible = pass.run();
  const std::size_t n_obj = objectives.size();
  if (!feasible) {
    set_infeasible(n_obj, g_.n_inputs(), out);
  } else {
    out.lower.resize(n_obj);
    out.upper.resize(n_obj);
    std::vector<double> rows;
    if (params.method == BoundMethod::linear &&
        std::chrono::steady_clock::now() < params.deadline) {
      k.objective_rows(objectives, params.alpha_iterations,
                       {params.stop_when_positive, params.lower_only, params.deadline}, rows,
                       out.input_coef, &out.relu_score);
    } else {
      out.input_coef.assign(n_obj * g_.n_inputs(), 0.0);
    }
    for (std::size_t q = 0; q < n_obj; ++q) {
      objective_interval(k, objectives[q], out.lower[q], out.upper[q]);
      if (!rows.empty()) {
        out.lower[q] = std::max(out.lower[q], rows[2 * q]);
        out.upper[q] = std::min(out.upper[q], -rows[2 * q + 1]);
      }
    }
    for (std::size_t q = 0; q < n_obj; ++q) {
      if (out.lower[q] > out.upper[q]) set_infeasible(n_obj, g_.n_inputs(), out);
    }
  }
  if (out.relu_score.size() != g_.nodes.size()) {
    if (out.infeasible) {
      out.relu_score.assign(g_.nodes.size(), {});
      for (std::size_t node = 0; node < g_.nodes.size(); ++node) {
        if (g_.nodes[node].op == GraphOp::relu) out.relu_score[node].assign(g_.nodes[node].size, 0);
      }
    } else {
      gap_scores(k, out.relu_score);
    }
  }
  for (std::size_t node = 0; node < g_.nodes.size(); ++node) {
    if (k.L[node].size() == g_.nodes[node].size) continue;  // not reached: infeasible
    k.L[node].assign(g_.nodes[node].size, std::numeric_limits<double>::infinity());
    k.U[node].assign(g_.nodes[node].size, -std::numeric_limits<double>::infinity());
  }
  out.node_lower = std::move(k.L);
  out.node_upper = std::move(k.U);
}

}  // namespace assay::count::detail
