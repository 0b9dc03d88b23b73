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

TEST(LaneSum, AddsFourLanesThenPairsThem) {
  // Value k goes to lane k % 4 while four remain, the rest to lane 0; then (0 + 1) + (2 + 3).
  const double v[7] = {1.0, 1e16, -1e16, 3.0, 5.0, 7.0, 11.0};
  double lane0 = 1.0;
  lane0 += 5.0;  // value 4 starts the tail
  lane0 += 7.0;
  lane0 += 11.0;
  EXPECT_EQ(lane_sum(v, 7), (lane0 + 1e16) + (-1e16 + 3.0));
  EXPECT_EQ(lane_sum(v, 7), 28.0);  // a sequential sum gives 26 (1 + 1e16 rounds to 1e16)
  EXPECT_EQ(lane_sum(v, 0), 0.0);
}

}  // namespace assay
