// core/validate: the shared input checks (lengths, emptiness, finiteness, weights) and their one
// wording per mistake, with values spelled as numpy prints them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Validate, NonFiniteValuesAreNamedAsNumpyPrintsThem) {
  EXPECT_STREQ(non_finite_name(kNaN), "NaN");
  EXPECT_STREQ(non_finite_name(-kNaN), "NaN");
  EXPECT_STREQ(non_finite_name(kInf), "inf");
  EXPECT_STREQ(non_finite_name(-kInf), "-inf");
  EXPECT_TRUE(std::isnan(kNaN));
}

TEST(Validate, FailNonFiniteNamesArrayValueAndIndex) {
  EXPECT_THROW_MSG(fail_non_finite("y_score", kNaN, 1), Error, "y_score contains NaN at index 1");
  EXPECT_THROW_MSG(fail_non_finite("x", kInf, 0), Error, "x contains inf at index 0");
  EXPECT_THROW_MSG(fail_non_finite("sample_weight", -kInf, 12), Error,
                   "sample_weight contains -inf at index 12");
}

TEST(Validate, SameLengthPassesOrNamesBothLengths) {
  EXPECT_NO_THROW(check_same_length(0, 0, "a", "b"));
  EXPECT_NO_THROW(check_same_length(3, 3, "y_true", "y_score"));
  EXPECT_THROW_MSG(check_same_length(3, 2, "y_true", "y_score"), Error,
                   "y_true and y_score differ in length (3 vs 2)");
  EXPECT_THROW_MSG(check_same_length(120, 119, "y_true", "y_pred"), Error,
                   "y_true and y_pred differ in length (120 vs 119)");
  EXPECT_THROW_MSG(check_same_length(0, 5, "labels", "scores"), Error,
                   "labels and scores differ in length (0 vs 5)");
}

TEST(Validate, NotEmptyNeedsOneSample) {
  EXPECT_NO_THROW(check_not_empty(1, "y_true"));
  EXPECT_THROW_MSG(check_not_empty(0, "y_true"), Error,
                   "y_true is empty: need at least one sample");
}

TEST(Validate, FiniteReportsTheFirstNonFiniteValue) {
  EXPECT_NO_THROW(check_finite(std::vector<double>{}, "v"));
  EXPECT_NO_THROW(check_finite(std::vector<double>{0, -1e308, 1e308, 5e-324}, "v"));
  EXPECT_THROW_MSG(check_finite(std::vector<double>{0.5, kNaN, kInf}, "y_score"), Error,
                   "y_score contains NaN at index 1");
  EXPECT_THROW_MSG(check_finite(std::vector<double>{0.5, 1, -kInf, kNaN}, "y_score"), Error,
                   "y_score contains -inf at index 2");
  EXPECT_THROW_MSG(check_finite(std::vector<double>{kInf}, "x"), Error,
                   "x contains inf at index 0");
}

TEST(Validate, EmptyWeightsMeanAllOnes) {
  EXPECT_NO_THROW(check_weights({}, 3));
  EXPECT_NO_THROW(check_weights({}, 0));
  EXPECT_NO_THROW(check_weights(std::vector<double>{0, 1, 2.5}, 3));
}

TEST(Validate, WeightsWithTheWrongLengthNameBothArrays) {
  EXPECT_THROW_MSG(check_weights(std::vector<double>{1, 1}, 3), Error,
                   "y_true and sample_weight differ in length (3 vs 2)");
  EXPECT_THROW_MSG(check_weights(std::vector<double>{1, 1}, 1, "y", "w"), Error,
                   "y and w differ in length (1 vs 2)");
}

TEST(Validate, WeightsMustBeFiniteAndNonNegative) {
  EXPECT_THROW_MSG(check_weights(std::vector<double>{kInf, 1, 1}, 3), Error,
                   "sample_weight contains inf at index 0");
  EXPECT_THROW_MSG(check_weights(std::vector<double>{1, kNaN}, 2), Error,
                   "sample_weight contains NaN at index 1");
  EXPECT_THROW_MSG(check_weights(std::vector<double>{1, -1, 2}, 3), Error,
                   "sample_weight must be >= 0, found -1 at index 1");
  EXPECT_THROW_MSG(check_weights(std::vector<double>{0.25, -0.5}, 2), Error,
                   "sample_weight must be >= 0, found -0.5 at index 1");
  // The first bad weight is named, whichever kind it is.
  EXPECT_THROW_MSG(check_weights(std::vector<double>{-2, kNaN}, 2), Error,
                   "sample_weight must be >= 0, found -2 at index 0");
  EXPECT_THROW_MSG(check_weights(std::vector<double>{1, -kInf}, 2, "y_true", "weights"), Error,
                   "weights contains -inf at index 1");
  // -0.0 is not below zero.
  EXPECT_NO_THROW(check_weights(std::vector<double>{-0.0}, 1));
}

}  // namespace
}  // namespace assay
