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
// Methods (CountParams::method):
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
#include <string_view>
#include <vector>

#include <gmpxx.h>

#include "assay/core/table.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"

namespace assay::count {

/// k successes out of n, with Wilson score and Clopper-Pearson (exact binomial) intervals.
/// n = 0 gives NaN everywhere.
struct Proportion {
  std::uint64_t k = 0;
  std::uint64_t n = 0;
  double value = 0.0;
  double wilson_low = 0.0;
  double wilson_high = 0.0;
  double exact_low = 0.0;  ///< Clopper-Pearson
  double exact_high = 0.0;
};
Proportion proportion(std::uint64_t k, std::uint64_t n, double confidence = 0.95);

/// How a count was obtained and what it guarantees.
struct Guarantee {
  std::string method;      ///< "structural", "enumerate", "exact-cnf" or "approx"
  bool exact = true;       ///< the value is the exact count
  bool bounded = false;    ///< not exact, but certified: lower <= count <= upper (time limit,
                           ///< or too many ambiguous inputs to settle)
  double epsilon = 0.0;    ///< approx: within a factor (1 + epsilon) of the count...
  double delta = 0.0;      ///< ...with probability at least 1 - delta (each count on its own)
  std::uint64_t seed = 0;  ///< approx: the seed of the hashes
  std::string note;        ///< e.g. "3 ambiguous inputs settled by evaluating the model"
};

/// Certified bounds of a count that is not exact (Guarantee::bounded).
struct CountBounds {
  mpz_class lower, upper;
};

struct LabelCounts {
  std::int32_t index = 0;
  std::string label;         ///< the model's class name
  mpz_class tp, fp, tn, fn;  ///< exact, or estimates (approx), or lower bounds (bounded)
  Guarantee guarantee;
  CountBounds tp_bounds, fp_bounds, tn_bounds, fn_bounds;  ///< when guarantee.bounded
  double accuracy = 0.0;
  double precision = 0.0;
  double recall = 0.0;
  double f1 = 0.0;
};

struct SafetyCounts {
  std::string name;
  mpz_class satisfied;  ///< S
  mpz_class violated;   ///< N
  double accuracy = 0.0;
  Guarantee guarantee;
  CountBounds satisfied_bounds, violated_bounds;  ///< when guarantee.bounded
};

struct RegionCounts {
  std::string name;
  std::int32_t label = 0;
  mpz_class total;
  mpz_class count;
  double robustness = 0.0;
  Guarantee guarantee;
  CountBounds count_bounds;  ///< when guarantee.bounded
};

/// Estimates from a finite set of points (a uniform sample or a test set).
struct SampleLabel {
  std::int32_t index = 0;
  std::uint64_t tp = 0, fp = 0, tn = 0, fn = 0;
  Proportion accuracy, precision, recall;
  double f1 = 0.0;
};
struct SampleView {
  std::string source;  ///< "uniform" or "test set"
  std::size_t n = 0;   ///< points drawn (fewer than requested when stopped early)
  std::size_t requested = 0;
  /// Why fewer than `requested` points were drawn: "time limit" or "interrupted" ("" = none).
  std::string stopped_by;
  std::vector<SampleLabel> labels;
  Proportion accuracy;              ///< overall: predicted label == true label
  std::vector<Proportion> safety;   ///< per safety property: S out of S+N
  std::vector<Proportion> regions;  ///< per region: sampled inside the region
};

/// A counting method, spelled in results exactly as its option (to_string): a result never names
/// its method differently from the option that asks for it.
enum class CountMethod { automatic, structural, enumerate, exact_cnf, approx, split };
/// "auto", "structural", "enumerate", "exact-cnf", "approx" or "split"; anything else throws
/// assay::Error "method must be auto, structural, ..., found "x"".
CountMethod parse_count_method(std::string_view name);
std::string_view to_string(CountMethod method);

/// Largest time limit in seconds (about 31.7 years). Limits become deadlines on a clock counting
/// nanoseconds in 64 bits; 1e10 s would overflow it into a deadline in the past.
inline constexpr double kMaxTimeLimit = 1e9;
/// Throws assay::Error unless 0 <= seconds <= kMaxTimeLimit: "time_limit: expected seconds in
/// [0, 1000000000] (0 = no limit; larger values overflow the clock), found 10000000000". With
/// `as_written` (the CLI's text) the message quotes it instead: found "1e10".
void check_time_limit(std::string_view name, double seconds, std::string_view as_written = {});

struct CountParams {
  /// "" = every truth, safety property and region of the spec; otherwise one name: a predicate
  /// (then label 1 = it, label 0 = its negation; binary models only), a safety property or a
  /// region.
  std::string property;
  /// "auto", "structural", "enumerate", "exact-cnf", "approx" or "split" (see above).
  std::string method = "auto";
  /// exact-cnf / approx: wall-clock limit per count in seconds (0 = none; auto gives the exact
  /// counter this, or 60 when 0, then its approximate fallback this again, or none when 0).
  double time_limit = 0.0;
  /// approx: tolerance and confidence of each count (ApproxMC's defaults).
  double epsilon = 0.8;
  double delta = 0.2;
  /// exact-cnf / approx: inputs where a fixed-point circuit may disagree with the model are
  /// settled one by one when there are at most this many; beyond, the counts are bounds.
  std::uint64_t ambiguity_limit = 100000;
  /// exact-cnf / approx: fixed point of the encoding (encode.hpp's EncodeParams).
  int fraction_bits = 0;
  int weight_bits = 12;
  int activation_bits = 12;
  /// Sizes of uniform samples for the statistical view (default: none). Each sample (and each
  /// region's) stops early, with the points drawn so far, after time_limit seconds (when set) or
  /// on an interrupt (core/interrupt.hpp).
  std::vector<std::size_t> samples;
  /// Seed of the samples and of approx's hashes (the same seed gives the same results at any
  /// thread count).
  std::uint64_t seed = 0;
  /// Confidence level of the intervals.
  double confidence = 0.95;
  /// Worker threads for enumeration, structural counting and approx's measurements (0 = all
  /// cores; results do not depend on it).
  int threads = 0;
  /// Largest domain (or region) enumerated, in points (default 2^32).
  std::uint64_t enumeration_limit = std::uint64_t{1} << 32;
  /// split: largest number of pieces bounded per count (0 = none; time_limit applies too).
  std::uint64_t max_boxes = 0;
  /// split: bytes the open pieces may take (0 = half the memory available when a count starts,
  /// allocatable_bytes() / 2); a count that reaches it stops with certified bounds.
  std::uint64_t max_memory = 0;
  /// Optional test set: row-major n x n_features values and true label indices.
  std::vector<double> test_x;
  std::vector<std::int32_t> test_y;
};

struct CountResult {
  std::string method;  ///< the method asked for after auto's choice (each count has its own)
  std::string property;
  mpz_class domain_size;
  std::size_t n_inputs = 0;
  std::vector<LabelCounts> labels;  ///< one per label, empty when nothing to compare with
  mpz_class correct;                ///< points whose predicted label is their true label
  double accuracy = 0.0;
  std::vector<SafetyCounts> safety;
  std::vector<RegionCounts> regions;
  std::vector<SampleView> samples;  ///< test set first (if given), then uniform samples
  double confidence = 0.95;         ///< confidence level of the samples' intervals
  std::uint64_t boxes = 0;          ///< structural: decided boxes; enumerate: points
  std::uint64_t cnf_counts = 0;     ///< exact-cnf / approx: formulas counted
  std::uint64_t ambiguous = 0;      ///< exact-cnf / approx: ambiguous inputs settled
  double seconds = 0.0;             ///< exact counting time (without the samples)
};

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
  /// "auto", "structural" or "enumerate".
  std::string method = "auto";
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

/// mpz as decimal text; `scientific` gives "3.32e+270" for display.
std::string to_decimal(const mpz_class& value);
std::string to_scientific(const mpz_class& value, int digits = 3);
/// a / b as a double (NaN when b == 0).
double ratio(const mpz_class& a, const mpz_class& b);

}  // namespace assay::count
