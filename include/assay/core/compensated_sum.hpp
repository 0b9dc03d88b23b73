// A running sum with Neumaier compensation: the error of adding many doubles stays at a few ulps
// instead of growing with the count (AP/ROC areas, retention curves, regression metrics).
#pragma once

#include <cmath>

namespace assay {

class CompensatedSum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    comp_ += std::abs(sum_) >= std::abs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const { return sum_ + comp_; }

 private:
  double sum_ = 0;
  double comp_ = 0;
};

}  // namespace assay
