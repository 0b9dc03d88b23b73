// A running sum with Neumaier compensation: the error of adding many doubles stays at a few ulps
// instead of growing with the count (AP/ROC areas, retention curves, regression metrics).
// Overflow and infinite terms give the plain sum's inf (or NaN for inf + -inf), as numpy does:
// the compensation term is dropped once the sum is not finite (inf - inf would make it NaN).
//
//   CompensatedSum s;
//   for (double x : {1e16, 1.0, -1e16}) s.add(x);
//   s.value();   // 1; a plain double sum gives 0 (1e16 + 1 rounds back to 1e16)
#pragma once

#include <cmath>

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

}  // namespace assay
