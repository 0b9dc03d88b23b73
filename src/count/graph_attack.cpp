// Projected-gradient attack on a VNN-LIB region (graph_attack.hpp).
#include "graph_attack.hpp"

#include <algorithm>
#include <cmath>

#include "assay/core/interrupt.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"

namespace assay::count::detail {

namespace {

double atom_value(const LinearAtom& a, std::span<const double> x, std::span<const double> z) {
  double s = a.constant;
  for (std::size_t j = 0; j < a.y.size(); ++j) s += a.y[j] * z[j];
  for (std::size_t i = 0; i < a.x.size(); ++i) s += a.x[i] * x[i];
  return s;
}

bool confirmed(const Model& m, const VnnRegion& region, const std::vector<double>& x,
               AttackPoint& out) {
  std::vector<double> y = predict_scores(m, x);
  if (!unsafe_at(region, x.data(), y.data())) return false;
  out.x = x;
  out.y = std::move(y);
  return true;
}

// Signed-gradient descent on max over the conjunction's atoms from x, inside the box.
std::optional<AttackPoint> descend(const Model& m, const GraphNetwork& g, const VnnRegion& region,
                                   const std::vector<LinearAtom>& conj, std::vector<double> x,
                                   const AttackParams& p) {
  const std::size_t n = x.size();
  std::vector<std::vector<double>> values;
  AttackPoint found;
  for (int t = 0; t <= p.steps; ++t) {
    if (interrupt_requested() || std::chrono::steady_clock::now() >= p.deadline) break;
    graph_forward_all(g, x, values);
    const auto& z = values.back();
    std::size_t worst = 0;
    double worst_value = -INFINITY;
    for (std::size_t k = 0; k < conj.size(); ++k) {
      const double v = atom_value(conj[k], x, z);
      if (v > worst_value) worst_value = v, worst = k;
    }
    // Near or past the boundary: the plain forward pass decides (it is what users see).
    if (worst_value <= 1e-12 * (1 + std::abs(worst_value)) && confirmed(m, region, x, found)) {
      return found;
    }
    if (t == p.steps) break;
    const LinearAtom& a = conj[worst];
    std::vector<double> grad = graph_gradient(g, values, a.y);
    for (std::size_t i = 0; i < a.x.size(); ++i) grad[i] += a.x[i];
    const double share = p.step_share * (1.0 - 0.9 * t / std::max(1, p.steps - 1));
    for (std::size_t i = 0; i < n; ++i) {
      if (grad[i] == 0) continue;
      const double step = share * (region.hi[i] - region.lo[i]);
      x[i] = std::clamp(x[i] - (grad[i] > 0 ? step : -step), region.lo[i], region.hi[i]);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<AttackPoint> pgd_attack(const Model& model, const GraphNetwork& graph,
                                      const VnnRegion& region,
                                      const std::vector<std::vector<double>>& corners,
                                      const AttackParams& params) {
  const std::size_t n = region.lo.size();
  std::vector<std::vector<double>> starts;
  for (const auto& c : corners) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = std::clamp(c[i], region.lo[i], region.hi[i]);
    starts.push_back(std::move(x));
  }
  std::vector<double> centre(n);
  for (std::size_t i = 0; i < n; ++i)
    centre[i] = region.lo[i] + 0.5 * (region.hi[i] - region.lo[i]);
  starts.push_back(std::move(centre));
  const std::size_t fixed = starts.size();
  const std::size_t per_conj = fixed + static_cast<std::size_t>(std::max(0, params.random_starts));
  const std::size_t tasks = region.unsafe.size() * per_conj;
  std::vector<std::optional<AttackPoint>> results(tasks);
  parallel_for(
      tasks,
      [&](std::size_t t) {
        const std::size_t c = t / per_conj, s = t % per_conj;
        std::vector<double> x;
        if (s < fixed) {
          x = starts[s];
        } else {
          Rng rng = Rng(params.seed).split(t);
          x.resize(n);
          for (std::size_t i = 0; i < n; ++i) {
            x[i] = std::min(region.hi[i],
                            region.lo[i] + rng.uniform() * (region.hi[i] - region.lo[i]));
          }
        }
        results[t] = descend(model, graph, region, region.unsafe[c], std::move(x), params);
      },
      params.threads);
  for (auto& r : results) {
    if (r) return std::move(r);
  }
  return std::nullopt;
}

}  // namespace assay::count::detail
