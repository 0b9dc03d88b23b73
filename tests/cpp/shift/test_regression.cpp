#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/shift/regression.hpp"
#include "test_util.hpp"

namespace assay::shift {
namespace {

TEST(Regression, RmseOfHugeErrorsIsScaledNotOverflowed) {
  // Exact RMSE = sqrt((1 + (1e200 - 2)^2 + 0.25) / 4) = 5e199 to double precision (Python
  // fractions/decimal); the squares overflow (1e400), which gave inf or NaN.
  const std::vector<double> y{1, 2, 3, 4}, p{2, 1e200, 3.5, 4};
  EXPECT_NEAR(root_mean_squared_error(y, p, {}), 5e199, 1e-15 * 5e199);
  RegressionParams params;
  params.bootstrap.n_resamples = 20;
  const auto m = regression_metrics(y, p, {}, params);
  EXPECT_NEAR(m.rmse.estimate, 5e199, 1e-15 * 5e199);
  for (double r : m.rmse.replicates) EXPECT_TRUE(std::isfinite(r)) << r;
  // Tiny errors would underflow to 0 when squared: 1e-200 -> 5e-201, not 0.
  const std::vector<double> small_y{0, 0, 0, 0}, small_p{1e-200, 0, 0, 0};
  EXPECT_NEAR(root_mean_squared_error(small_y, small_p, {}), 5e-201, 1e-15 * 5e-201);
  // Ordinary values are untouched: sqrt(MSE) exactly as before.
  const std::vector<double> a{3, -0.5, 2, 7}, b{2.5, 0.0, 2, 8};
  EXPECT_EQ(root_mean_squared_error(a, b, {}), std::sqrt(mean_squared_error(a, b, {})));
}

TEST(Regression, ConfidenceIsCheckedEvenWithoutBootstrap) {
  const std::vector<double> y{1, 2}, p{1, 3};
  RegressionParams params;
  params.bootstrap.confidence = 7;
  EXPECT_THROW_MSG(regression_metrics(y, p, {}, params), Error,
                   "confidence: expected a number in (0, 1), found 7");
}

}  // namespace
}  // namespace assay::shift
