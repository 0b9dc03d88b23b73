#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "assay/core/compensated_sum.hpp"

namespace assay {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(CompensatedSum, RecoversWhatPlainSummationLoses) {
  CompensatedSum s;
  s.add(1.0);
  for (int i = 0; i < 10; ++i) s.add(1e-16);
  EXPECT_DOUBLE_EQ(s.value(), 1.0 + 1e-15);  // a plain sum stays at 1.0
}

// Differential fuzzing found these (tests/fuzz/differential.py): the compensation term of an
// overflowing or infinite sum was inf - inf, so regression losses, auc and deviances were NaN
// where numpy (and scikit-learn) give inf.
TEST(CompensatedSum, OverflowGivesInfinityNotNaN) {
  CompensatedSum s;
  s.add(1e308);
  s.add(1e308);
  EXPECT_EQ(s.value(), kInf);
  s.add(1.0);
  EXPECT_EQ(s.value(), kInf);
}

TEST(CompensatedSum, InfiniteTermsSumAsNumpyDoes) {
  CompensatedSum minus;
  minus.add(2.0);
  minus.add(-kInf);
  EXPECT_EQ(minus.value(), -kInf);
  CompensatedSum both;
  both.add(kInf);
  both.add(-kInf);
  EXPECT_TRUE(std::isnan(both.value()));
}

}  // namespace assay
