// Exact counting over a bounded input domain (the QuantifyML paper), with big integers, and
// the statistical estimates a user would otherwise trust, side by side.
//
// Example:
//   Model m = load_model("tree.json");
//   Spec s = load_spec("graph4.spec");
//   CountParams p;
//   p.property = "Transitive";           // label 1 = Transitive, label 0 = its negation
//   p.samples = {100, 1000, 10000};
//   CountResult r = count(m, s, p);      // r.labels[1].tp ... exact; r.samples: estimates
//
// Definitions (docs/count.md "What is counted"): for label l with ground truth psi_l and model
// output phi_l = (predicted label == l), TP = #{psi_l and phi_l}, FP = #{not psi_l and phi_l}, TN =
// #{not psi_l and not phi_l}, FN = #{psi_l and not phi_l}, counted over every point of the domain.
// accuracy = (TP+TN)/|D|, precision = TP/(TP+FP), recall = TP/(TP+FN), F1 = 2TP/(2TP+FP+FN); an
// empty denominator gives NaN and a warning. Safety `pre => post`: S = #{pre and post}, N = #{pre
// and not post}, accuracy = S/(S+N). Robustness around x with radius eps: R = prod_i [x_i-eps,
// x_i+eps] (grid points, clipped to the domain), robustness = #{x' in R : label(x') = L} / |R|.
//
// The shared types live in count_params.hpp (CountParams, CountMethod) and count_result.hpp
// (CountResult and its parts). Methods (CountParams::method):
//   structural  trees and tree ensembles: the domain box is split along the trees' thresholds
//               until every tree reaches one leaf (so the output is constant on the box); inside,
//               each predicate is evaluated three-valued (true / false / undecided) over the box
//               with interval arithmetic and the box is bisected only where it is undecided.
//               Exact; cost grows with the number of decided boxes, not with |D|.
//   enumerate   every point (|D| <= enumeration_limit, default 2^32), in parallel; the oracle.
//   exact-cnf   QuantifyML's route: each count is a CNF formula (encode.hpp) counted by the
//               exact projected model counter (exact_counter.hpp). Per label three counts
//               (TP, #truth, #predicted) give all four cells. Inputs where a fixed-point circuit
//               may disagree with the model are settled by evaluating the model on each of them
//               (up to ambiguity_limit of them), so the counts are exact. With a time limit a
//               count that does not finish is reported as certified bounds [lower, upper].
//   approx      the same formulas counted by ApproxMC (approx_counter.hpp): each count within
//               a factor (1 + epsilon) of the true one with probability at least 1 - delta.
//   split       networks (domain_split.hpp): the domain is split into boxes on which sound bounds
//               of the network decide the label and the predicates; small boxes are enumerated.
//               Exact when it finishes; with time_limit / max_boxes, certified bounds.
//   auto        structural for tree models; for networks enumerate when |D| <= 2^26, else
//               exact-cnf within time_limit per count (default 60 s), then approx for a count
//               that ran out of time.
// Every count says how it was obtained (Guarantee): method, exact or not, bounds, epsilon/delta.
// Statistical view: for each n in `samples`, n points drawn uniformly (seeded) from the domain or
// region, with Wilson and Clopper-Pearson intervals at `confidence`; and, when given, a test set.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gmpxx.h>

#include "assay/core/table.hpp"
#include "assay/count/count_params.hpp"
#include "assay/count/count_result.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"

namespace assay::count {

/// Fills params.test_x / test_y from a table: `label_column` holds class names (matched against
/// model.classes as text), every other column is a feature, in table order (n_features of them,
/// numeric). Errors name the table, the column and the row.
void set_test_set(CountParams& params, const Model& model, const Table& table,
                  const std::string& label_column);

/// Counts `model` over the domain of `spec`. Throws assay::Error when the model's feature count
/// differs from the spec's inputs, a label or score index is out of range, or the domain is too
/// large to enumerate.
CountResult count(const Model& model, const Spec& spec, const CountParams& params = {});

struct RobustnessParams {
  /// Radius of the L-infinity ball (in input units).
  double epsilon = 1.0;
  /// The label the region should keep (index into the model's classes).
  std::int32_t label = 0;
  /// Domain bounds per feature (a single value applies to every feature) and grid step.
  std::vector<double> lower;
  std::vector<double> upper;
  double step = 1.0;
  /// Uniform sample sizes inside the region (default: none).
  std::vector<std::size_t> samples;
  /// Each sample stops early, with the points drawn so far, after this many seconds (0 = none)
  /// or on an interrupt; a warning says so.
  double time_limit = 0.0;
  /// Seed of the samples.
  std::uint64_t seed = 0;
  /// Confidence level of the intervals.
  double confidence = 0.95;
  /// auto, structural or enumerate (kRobustnessMethods).
  CountMethod method = CountMethod::automatic;
  /// Worker threads for enumeration (0 = all cores).
  int threads = 0;
};

struct RobustnessResult {
  mpz_class total;  ///< |R|
  mpz_class count;  ///< points of R predicted as `label`
  double robustness = 0.0;
  std::vector<Proportion> samples;
  std::string method;
  double seconds = 0.0;
};

/// Robustness of `model` around x (one value per feature).
RobustnessResult robustness(const Model& model, std::span<const double> x,
                            const RobustnessParams& params);

}  // namespace assay::count
