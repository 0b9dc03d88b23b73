#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/shift/ensemble.hpp"
#include "assay/shift/regression.hpp"
#include "test_util.hpp"

namespace assay::shift {
namespace {

TEST(EnsembleUncertainty, AgreeingMembersHaveNoKnowledgeUncertainty) {
  // 2 members x 1 sample x 2 classes, identical: MI = EPKL = RMI = 0.
  const std::vector<double> probs = {0.25, 0.75, 0.25, 0.75};
  const auto r = ensemble_uncertainty(probs, 2, 1, 2, {.epsilon = 0, .threads = 1});
  const double h = -(0.25 * std::log(0.25) + 0.75 * std::log(0.75));
  EXPECT_NEAR(r.entropy_of_expected[0], h, 1e-15);
  EXPECT_NEAR(r.expected_entropy[0], h, 1e-15);
  EXPECT_NEAR(r.mutual_information[0], 0, 1e-15);
  EXPECT_NEAR(r.epkl[0], 0, 1e-15);
  EXPECT_EQ(r.confidence[0], 0.75);
}

TEST(EnsembleUncertainty, DisagreeingOneHotMembers) {
  // Members certain of different classes: MI = log 2 (eps 0 on p = 0 gives 0 * log 0 -> use
  // eps = 1e-10 as Shifts does).
  const std::vector<double> probs = {1, 0, 0, 1};
  const auto r = ensemble_uncertainty(probs, 2, 1, 2);
  EXPECT_NEAR(r.entropy_of_expected[0], std::log(2.0), 1e-9);
  EXPECT_NEAR(r.expected_entropy[0], 0, 1e-9);
  // EPKL: mean over 4 ordered pairs, two of them KL = -log(1e-10).
  EXPECT_NEAR(r.epkl[0], -0.5 * std::log(1e-10), 1e-6);
}

TEST(EnsembleUncertainty, BadInput) {
  EXPECT_THROW_MSG(ensemble_uncertainty(std::vector<double>(5, 0.5), 2, 1, 2), Error,
                   "probs has 5 values, expected members x samples x classes = 2 x 1 x 2 = 4");
  EXPECT_THROW_MSG(ensemble_uncertainty({{0.5, 0.6}}, 1, 1, 2), Error,
                   "probabilities of member 0 at sample 0 sum to 1.1, expected 1 (tolerance "
                   "1.001e-05)");
  EXPECT_THROW_MSG(ensemble_uncertainty({}, 0, 1, 2), Error,
                   "probs needs at least one member, found 0");
  EXPECT_THROW_MSG(ensemble_uncertainty_regression({{1.0, 1.0, 2.0, -3.0}}, 1, 2), Error,
                   "preds: negative variance -3 of member 0 at sample 1");
}

TEST(EnsembleUncertainty, FirstBadSampleReportedAtAnyThreadCount) {
  // 2 members x 5000 samples x 2 classes; bad rows in two different work chunks.
  const std::size_t n = 5000;
  std::vector<double> probs(2 * n * 2, 0.5);
  probs[(1 * n + 4000) * 2] = 0.7;  // member 1, sample 4000 sums to 1.2
  probs[(0 * n + 300) * 2] = 0.8;   // member 0, sample 300 sums to 1.3
  for (int threads : {1, 4}) {
    EXPECT_THROW_MSG(ensemble_uncertainty(probs, 2, n, 2, {.epsilon = 1e-10, .threads = threads}),
                     Error,
                     "probabilities of member 0 at sample 300 sum to 1.3, expected 1 (tolerance "
                     "1.001e-05)");
  }
  std::vector<double> ok(2 * n * 2, 0.5);
  const auto one = ensemble_uncertainty(ok, 2, n, 2, {.epsilon = 1e-10, .threads = 1});
  const auto four = ensemble_uncertainty(ok, 2, n, 2, {.epsilon = 1e-10, .threads = 4});
  EXPECT_EQ(one.epkl, four.epkl);
  EXPECT_EQ(one.entropy_of_expected, four.entropy_of_expected);
}

TEST(RegressionEnsemble, TotalVarianceAndEpkl) {
  // Members N(0, 1) and N(2, 1): knowledge = 1, data = 1; KL(N0||N2) = 2 -> EPKL = 1.
  const std::vector<double> preds = {0, 1, 2, 1};
  const auto r = ensemble_uncertainty_regression(preds, 2, 1, {.epsilon = 0, .threads = 1});
  EXPECT_EQ(r.mean[0], 1);
  EXPECT_EQ(r.knowledge_uncertainty[0], 1);
  EXPECT_EQ(r.data_uncertainty[0], 1);
  EXPECT_EQ(r.total_variance[0], 2);
  EXPECT_DOUBLE_EQ(r.epkl[0], 1);
  // Cross-entropy = KL + entropy 0.5 log(2 pi e).
  EXPECT_NEAR(r.epkl_reg[0], 1 + 0.5 * std::log(2 * std::numbers::pi * std::numbers::e), 1e-14);
}

TEST(Nll, GaussianAndMixture) {
  const auto g = gaussian_nll({{1.0}}, {{0.0}}, {{1.0}}, 0);
  EXPECT_DOUBLE_EQ(g[0], 0.5 + 0.5 * std::log(2 * std::numbers::pi));
  // Two identical members: the mixture is the member.
  const auto e = ensemble_nll({{1.0}}, {{0.0, 1.0, 0.0, 1.0}}, 2, 1, 0);
  EXPECT_NEAR(e[0], g[0], 1e-15);
  // Far from both members: finite (no underflow).
  const auto far = ensemble_nll({{50.0}}, {{0.0, 1e-3, 0.1, 1e-3}}, 2, 1);
  EXPECT_TRUE(std::isfinite(far[0]));
}

TEST(RegressionMetrics, KnownValuesAndErrors) {
  const std::vector<double> y = {1, 2, 3, 4}, p = {1, 2, 3, 6};
  EXPECT_DOUBLE_EQ(mean_squared_error(y, p), 1.0);
  EXPECT_DOUBLE_EQ(root_mean_squared_error(y, p), 1.0);
  EXPECT_DOUBLE_EQ(mean_absolute_error(y, p), 0.5);
  EXPECT_DOUBLE_EQ(mean_absolute_percentage_error(y, p), 0.125);
  EXPECT_DOUBLE_EQ(r2_score(y, p), 1 - 4 / 5.0);
  EXPECT_EQ(r2_score({{2.0, 2.0}}, {{2.0, 2.0}}), 1.0);
  EXPECT_EQ(r2_score({{2.0, 2.0}}, {{2.0, 3.0}}), 0.0);
  EXPECT_THROW_MSG(mean_absolute_error(y, {{1.0}}), Error,
                   "y_true and y_pred differ in length (4 vs 1)");
  EXPECT_THROW_MSG(mean_absolute_error(y, p, {{1.0, -1.0, 0.0, 0.0}}), Error,
                   "sample_weight must be >= 0, found -1 at index 1");
}

TEST(OodDetection, PerfectSeparation) {
  const std::vector<std::uint8_t> shifted = {0, 0, 1, 1};
  const auto r = ood_detection(shifted, {{0.1, 0.2, 0.8, 0.9}});
  EXPECT_EQ(r.auroc, 1);
  EXPECT_EQ(r.fpr_at_95, 0);
  EXPECT_EQ(r.average_precision, 1);
  EXPECT_THROW_MSG(ood_detection(shifted, {{0.1}}), Error,
                   "shifted and uncertainty differ in length (4 vs 1)");
}

}  // namespace
}  // namespace assay::shift
