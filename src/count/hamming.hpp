// Hamming regions of the .spec language (`region R = hamming([c1, ..., cd], k) label L;`): the
// points of a domain of 0/1 inputs that differ from the center in at most k inputs. What the
// parser, the counting methods and the sampler share: the region as a ground formula, its exact
// size, a uniform sampler, and the formula `label == L` that a region keeps.
//
//   Formula f = hamming_formula(domain, center, 2);   // sum_i [x_i != c_i] <= 2
//   mpz_class n = hamming_ball_size(16, 2);           // 1 + 16 + 120 = 137
//   HammingSampler s(center, 2);  s.draw(rng, x);     // uniform over those 137 points
//
// Counting a Hamming region is counting the safety property `within => label == L`: its
// satisfied count is the region's count, and satisfied + violated its size (count() does so for
// the structural, enumerate and split methods); the CNF routes encode `within` as a cardinality
// constraint instead (CnfBuilder::at_most).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <gmpxx.h>

#include "assay/core/rng.hpp"
#include "assay/count/spec.hpp"

namespace assay::count::detail {

/// True when the input's grid is exactly {0, 1} (bool, int[0, 1], real[0, 1] step 1).
bool zero_one_input(const VarDomain& v);

/// The formula "at most k inputs differ from center" over 0/1 inputs (center values 0 or 1):
/// a balanced sum of one term per input (x_i, or not x_i where c_i = 1) compared with k.
Formula hamming_formula(const Domain& d, std::span<const double> center, std::uint64_t k);

/// The formula `label == label_index`.
Formula label_formula(std::int32_t label_index);

/// sum_{j <= k} C(n, j): the points within Hamming distance k of a point of {0, 1}^n.
mpz_class hamming_ball_size(std::uint64_t n, std::uint64_t k);

/// The number of grid points of a region (either metric).
mpz_class region_size(const Domain& d, const RegionSpec& r);

/// Draws points uniformly from the Hamming ball: first the distance j with probability
/// C(n, j) / size (weights in log space, so n up to the spec's million inputs works), then j
/// distinct positions to flip (Floyd's algorithm).
class HammingSampler {
 public:
  HammingSampler(std::span<const double> center, std::uint64_t k);
  /// Writes one point (n values) into x.
  void draw(Rng& rng, std::vector<double>& x);

 private:
  std::vector<double> center_;
  std::vector<double> cumulative_;  // P(distance <= j), j = 0..k
  std::vector<char> chosen_;
  std::vector<std::uint64_t> picked_;
};

}  // namespace assay::count::detail
