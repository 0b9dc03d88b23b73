// The results of counting, shared by every counting method and by the CNF and domain-splitting
// counts: exact big-integer counts per label, safety property and region (LabelCounts,
// SafetyCounts, RegionCounts), how each was obtained (Guarantee), the statistical estimates
// beside them (Proportion, SampleView), and count()'s whole answer (CountResult).
//
// Data layout: counts are mpz_class (GMP big integers: a domain of 2^200 points is counted
// exactly). A count that is not exact says so in its Guarantee: `bounded` counts hold their lower
// bound and carry certified [lower, upper] in the *_bounds fields; approximate counts (method
// approx) are estimates with an (epsilon, delta) guarantee. Rates derived from counts are doubles
// (NaN when undefined). CountResult lists labels, safety properties and regions in the spec's
// order; samples hold the test set first (if any), then one view per uniform sample size.
//
// Example:
//   Proportion p = proportion(9, 10);  // 9 of 10 points, intervals at 95%
//   // p.value == 0.9; p.wilson_low < 0.9 < p.wilson_high; likewise exact_low / exact_high
//   const mpz_class n("340282366920938463463374607431768211456");  // 2^128
//   std::string s = to_scientific(n);  // "3.40e+38"
//   double r = ratio(mpz_class(1), mpz_class(4));  // 0.25
//   LabelCounts l;
//   l.tp = n;                          // exact counts of any size
//   l.guarantee.method = "enumerate";  // exact by default (guarantee.exact == true)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gmpxx.h>

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
  /// The method that counted it, spelled as its option (count_params.hpp's to_string):
  /// "structural", "enumerate", "exact-cnf", "approx" or "split"; "exact-cnf+approx" when auto's
  /// exact counter ran out of time and approx counted some of its formulas.
  std::string method;
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

/// mpz as decimal text; `scientific` gives "3.32e+270" for display.
std::string to_decimal(const mpz_class& value);
std::string to_scientific(const mpz_class& value, int digits = 3);
/// a / b as a double (NaN when b == 0).
double ratio(const mpz_class& a, const mpz_class& b);

}  // namespace assay::count
