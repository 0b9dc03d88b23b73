#include <cmath>
#include <cstdint>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/metrics/calibration.hpp"
#include "test_util.hpp"

namespace am = assay::metrics;
using Codes = std::vector<std::int32_t>;

TEST(Calibration, UniformBinsHandComputed) {
  // Bins of 0.1: {0.05, 0.07} -> bin 0 (outcomes 0, 0); {0.91, 0.95} -> bin 9 (1, 1).
  Codes y{0, 0, 1, 1};
  std::vector<double> p{0.05, 0.07, 0.95, 0.91};
  am::CalibrationParams params;
  params.bins = 10;
  auto r = am::calibration_error_binary(y, 1, p, params);
  EXPECT_DOUBLE_EQ(r.error, 0.5 * 0.06 + 0.5 * 0.07);
  EXPECT_EQ(r.bins.count[0], 2);
  EXPECT_EQ(r.bins.count[5], 0);
  EXPECT_TRUE(std::isnan(r.bins.accuracy[5]));
  EXPECT_DOUBLE_EQ(r.bins.confidence[9], 0.93);
  params.norm = am::CalibrationNorm::max;
  EXPECT_DOUBLE_EQ(am::calibration_error_binary(y, 1, p, params).error, 0.07);
}

TEST(Calibration, EdgeValueGoesToLowerBin) {
  // 0.5 sits on an edge: (0.4, 0.5] like scikit-learn's calibration_curve.
  Codes y{1};
  std::vector<double> p{0.5};
  am::CalibrationParams params;
  params.bins = 10;
  EXPECT_EQ(am::calibration_error_binary(y, 1, p, params).bins.count[4], 1);
}

TEST(Calibration, TopLabel) {
  Codes y{0, 1};
  std::vector<double> p{0.8, 0.2, 0.6, 0.4};  // both predict class 0; first correct
  am::CalibrationParams params;
  params.bins = 1;
  EXPECT_DOUBLE_EQ(am::calibration_error_top_label(y, p, 2, params).error, 0.2);
}

TEST(Calibration, BrierAndLogLoss) {
  Codes y{0, 1, 1};
  std::vector<double> p{0.1, 0.8, 0.6};
  EXPECT_DOUBLE_EQ(am::brier_score_loss(y, 1, p), (0.01 + 0.04 + 0.16) / 3);
  EXPECT_DOUBLE_EQ(am::log_loss(y, 2, p, 1, 1e-15),
                   -(std::log(0.9) + std::log(0.8) + std::log(0.6)) / 3);
}

TEST(Calibration, BadInputMessages) {
  Codes y{0, 1};
  std::vector<double> p{0.1, 1.5};
  EXPECT_THROW_MSG(am::brier_score_loss(y, 1, p), assay::Error,
                   "y_prob must be in [0, 1], found 1.5 at index 1");
  std::vector<double> q{std::nan(""), 0.5};
  EXPECT_THROW_MSG(am::calibration_error_binary(y, 1, q), assay::Error,
                   "y_prob contains NaN at index 0");
  std::vector<double> r{0.5};
  EXPECT_THROW_MSG(am::calibration_error_binary(y, 1, r), assay::Error,
                   "y_true and y_prob differ in length (2 vs 1)");
  am::CalibrationParams params;
  params.bins = 0;
  std::vector<double> ok{0.5, 0.5};
  EXPECT_THROW_MSG(am::calibration_error_binary(y, 1, ok, params), assay::Error,
                   "bins must be >= 1, found 0");
}

TEST(Calibration, TooManyBinsAreRefusedWithTheMemoryTheyWouldNeed) {
  std::vector<std::int32_t> y{0, 1};
  std::vector<double> ok{0.5, 0.5};
  am::CalibrationParams params;
  params.bins = 100000000;  // 6.4 GB of bin tables before a single sample is binned
  EXPECT_THROW_MSG(am::calibration_error_binary(y, 1, ok, params), assay::Error,
                   "bins must be at most 100000, found 100000000 (its tables alone would need "
                   "6.4 GB)");
  params.bins = 2147483647;
  EXPECT_THROW_MSG(am::calibration_error_binary(y, 1, ok, params), assay::Error,
                   "bins must be at most 100000, found 2147483647 (its tables alone would need "
                   "137.4 GB)");
  params.bins = am::kMaxBins;
  EXPECT_EQ(am::calibration_error_binary(y, 1, ok, params).bins.count.size(), 100000u);
}
