// Projected-gradient attack (PGD) on a VNN-LIB region: search the box for a point where one
// conjunction of the unsafe condition holds, by signed-gradient steps on the largest atom value
// (the conjunction holds where every atom is <= 0, i.e. where that maximum is), each step
// projected back into the box. Several starts per conjunction: the corner a bound's input
// coefficients point to, the box centre, and seeded random points.
//
// Every candidate is confirmed by a plain forward pass of the model (predict_scores, the scores
// users see) and unsafe_at(); only a confirmed point is returned. Starts run in parallel and the
// first success in start order wins, so the result does not depend on the thread count.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "assay/count/graph.hpp"
#include "assay/count/model.hpp"
#include "assay/count/vnnlib.hpp"

namespace assay::count::detail {

struct AttackParams {
  /// Random starts per conjunction (besides the suggested corners and the centre).
  int random_starts = 4;
  /// Signed-gradient steps per start.
  int steps = 40;
  /// First step as a share of each input's width (it shrinks linearly to a tenth of this).
  double step_share = 0.25;
  std::uint64_t seed = 0;
  int threads = 0;
  /// Steps stop here (a run's time limit; max() = none); interrupts stop them too.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct AttackPoint {
  std::vector<double> x, y;  ///< a confirmed unsafe point and the model's scores there
};

/// Searches region `region` of the property for an unsafe point. `corners`: extra starting
/// points (e.g. from bounds' input coefficients), each projected into the box; may be empty.
/// `graph` is the model as a graph (the model itself when kind graph, else graph_from_network);
/// its output must be the scores before the model's output activation, which must be identity.
std::optional<AttackPoint> pgd_attack(const Model& model, const GraphNetwork& graph,
                                      const VnnRegion& region,
                                      const std::vector<std::vector<double>>& corners,
                                      const AttackParams& params);

}  // namespace assay::count::detail
