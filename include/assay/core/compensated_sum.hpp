// A running sum with Neumaier compensation: the error of adding many doubles stays at a few ulps
// instead of growing with the count (AP/ROC areas, retention curves, regression metrics).
// Overflow and infinite terms give the plain sum's inf (or NaN for inf + -inf), as numpy does:
// the compensation term is dropped once the sum is not finite (inf - inf would make it NaN).
// lane_sum is the plain sum the callers add per block (a few hundred values) before compensating.
//
// Example:
//   CompensatedSum s;
//   for (double x : {1e16, 1.0, -1e16}) s.add(x);
//   s.value();   // 1; a plain double sum gives 0 (1e16 + 1 rounds back to 1e16)
#pragma once

#include <cmath>
#include <cstddef>

namespace assay {

class CompensatedSum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    if (std::isfinite(t)) comp_ += std::abs(sum_) >= std::abs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const { return std::isfinite(sum_) ? sum_ + comp_ : sum_; }

 private:
  double sum_ = 0;
  double comp_ = 0;
};

/// The plain sum of v[0, len) in four independent lanes, combined as (0 + 1) + (2 + 3): the loop
/// vectorises. Meant for blocks of a few hundred values, each added to a CompensatedSum.
inline double lane_sum(const double* v, std::size_t len) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t k = 0;
  for (; k + 4 <= len; k += 4) {
    s0 += v[k];
    s1 += v[k + 1];
    s2 += v[k + 2];
    s3 += v[k + 3];
  }
  for (; k < len; ++k) s0 += v[k];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace assay
