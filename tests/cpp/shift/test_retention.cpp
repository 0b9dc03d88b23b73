#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "assay/shift/retention.hpp"
#include "test_util.hpp"

namespace assay::shift {
namespace {

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// The three unit tests of Shifts' assessment.py.
TEST(RetentionCurve, ShiftsUnitTests) {
  EXPECT_DOUBLE_EQ(mean(retention_curve({{2.0, 1.0}}, {{1.0, 0.0}}).curve), 2.0 / 3);
  const auto r = retention_curve({{0.0, 1, 2, 3, 4}}, {{0.0, 0, 2, 1, 1}});
  EXPECT_NEAR(r.r_auc, 0.8, 1e-15);
  const std::vector<double> errors = {0.3, 0.9, 0.1, 0.5, 0.7, 0.2, 0.4, 0.8, 0.6, 0.05};
  const std::vector<double> zeros(errors.size(), 0.0);
  EXPECT_NEAR(retention_curve(errors, zeros).r_auc, mean(errors) / 2, 1e-15);
}

TEST(RetentionCurve, GroupedVersusVpower) {
  // Ties {0,0}: grouped curve uses their mean error 0.5; vpower keeps input order.
  const std::vector<double> e = {0, 1, 3}, u = {0, 0, 1};
  const auto g = retention_curve(e, u);
  EXPECT_EQ(g.curve, (std::vector<double>{4.0 / 3, 1.0 / 3, 0.5 / 3, 0}));
  const auto v = retention_curve(e, u, {RetentionConvention::shifts_vpower});
  EXPECT_EQ(v.curve, (std::vector<double>{4.0 / 3, 1.0 / 3, 0, 0}));
  // Trapezoid over x = j/3: (4/3 / 2 + 1/3 + 0 + 0 / 2) / 3.
  EXPECT_NEAR(v.r_auc, (2.0 / 3 + 1.0 / 3) / 3, 1e-15);
  EXPECT_NEAR(g.r_auc, (4.0 / 3 + 1.0 / 3 + 0.5 / 3) / 4, 1e-15);
}

TEST(RetentionCurve, OracleRandomAndPrr) {
  const std::vector<double> e = {3, 0, 1, 2}, u = {3, 0, 1, 2};
  const auto p = prr(e, u);
  EXPECT_DOUBLE_EQ(p.prr, 1.0);
  EXPECT_DOUBLE_EQ(p.random_auc, 6.0 / 4 / 2);
  EXPECT_DOUBLE_EQ(oracle_retention_curve(e).r_auc, p.oracle_auc);
  EXPECT_EQ(random_retention_curve(e).curve, (std::vector<double>{1.5, 1.125, 0.75, 0.375, 0}));
}

TEST(RetentionCurve, PrrUndefinedWarns) {
  std::vector<std::string> warnings;
  ScopedWarningHandler h([&](const std::string& m) { warnings.push_back(m); });
  EXPECT_TRUE(std::isnan(prr({{1.0, 1.0}}, {{0.0, 1.0}}).prr));
  ASSERT_EQ(warnings.size(), 1u);
}

TEST(RiskCoverage, TwoSamples) {
  const auto r = risk_coverage({{0.0, 1.0}}, {{0.0, 1.0}});
  EXPECT_EQ(r.coverage, (std::vector<double>{1, 0.5, 0}));
  EXPECT_EQ(r.selective_risk, (std::vector<double>{0.5, 0, 0}));
  EXPECT_EQ(r.generalized_risk, (std::vector<double>{0.5, 0, 0}));
  EXPECT_DOUBLE_EQ(r.aurc, 0.125);
  EXPECT_DOUBLE_EQ(r.augrc, 0.125);
  EXPECT_DOUBLE_EQ(r.e_augrc, 0.125 - 0.125);
  EXPECT_NEAR(r.e_aurc, 0.125 - (0.5 + 0.5 * std::log(0.5)), 1e-15);
}

TEST(F1Retention, TiesRetainLaterIndexFirstAndInclusiveThreshold) {
  const auto r = f1_retention({{5.0, 1.0}}, {{0.0, 0.0}}, {.threshold = 1.0});
  EXPECT_EQ(r.n_acceptable, 1u);
  EXPECT_EQ(r.curve[0], 0);
  EXPECT_DOUBLE_EQ(r.curve[1], 2.0 / (2 + 1e-10));
  // x_k = k / 3: F1-AUC = (F0 + F1 + F2 - F2 / 2) / 3; F1@95 = F_{floor(2.85)} = F_2.
  EXPECT_DOUBLE_EQ(r.f1_auc, (r.curve[1] + r.curve[2] / 2) / 3);
  EXPECT_EQ(r.f1_at_95, r.curve[2]);
}

TEST(F1Retention, NoAcceptableSampleIsNan) {
  std::vector<std::string> warnings;
  ScopedWarningHandler h([&](const std::string& m) { warnings.push_back(m); });
  const auto r = f1_retention({{2.0, 3.0}}, {{0.0, 1.0}}, {.threshold = 1.0});
  EXPECT_TRUE(std::isnan(r.f1_auc));
  EXPECT_TRUE(std::isnan(r.f1_at_95));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "no acceptable sample (error <= threshold): F1 retention is NaN");
}

TEST(RetentionSummary, EqualsSeparateCalls) {
  std::vector<double> e, u;
  for (int i = 0; i < 300; ++i) {
    e.push_back((i * 7919 % 13) / 4.0);
    u.push_back((i * 104729 % 7));
  }
  const double t = 1.0;
  const auto s = retention_summary(e, u, {}, &t);
  EXPECT_EQ(s.prr.r_auc, retention_curve(e, u).r_auc);
  EXPECT_EQ(s.prr.prr, prr(e, u).prr);
  EXPECT_EQ(s.risk_coverage.aurc, risk_coverage(e, u).aurc);
  EXPECT_EQ(s.f1_auc, f1_retention(e, u, {.threshold = t}).f1_auc);
}

TEST(RetentionCurves, EqualSeparateCalls) {
  std::vector<double> e, u;
  for (int i = 0; i < 300; ++i) {
    e.push_back((i * 7919 % 13) / 4.0);
    u.push_back((i * 104729 % 7));
  }
  const double t = 1.0;
  const F1RetentionParams fp{.threshold = t};
  for (auto convention : {RetentionConvention::shifts, RetentionConvention::shifts_vpower}) {
    const RetentionParams rp{convention};
    const auto c = retention_curves(e, u, rp, &t);
    EXPECT_EQ(c.model.curve, retention_curve(e, u, rp).curve);
    EXPECT_EQ(c.model.r_auc, retention_curve(e, u, rp).r_auc);
    EXPECT_EQ(c.oracle.curve, oracle_retention_curve(e, rp).curve);
    EXPECT_EQ(c.oracle.r_auc, oracle_retention_curve(e, rp).r_auc);
    EXPECT_EQ(c.random.curve, random_retention_curve(e, rp).curve);
    ASSERT_TRUE(c.has_f1);
    EXPECT_EQ(c.f1.curve, f1_retention(e, u, fp).curve);
    EXPECT_EQ(c.f1.f1_at_95, f1_retention(e, u, fp).f1_at_95);
    EXPECT_EQ(c.f1_oracle.curve, oracle_f1_retention(e, fp).curve);
    EXPECT_EQ(c.f1_random.curve, random_f1_retention(e, fp).curve);
  }
  EXPECT_FALSE(retention_curves(e, u, {}, nullptr).has_f1);
}

TEST(Retention, BadInput) {
  const std::vector<double> three = {1, 2, 3}, two = {1, 2};
  EXPECT_THROW_MSG(retention_curve(three, two), Error,
                   "errors and uncertainty differ in length (3 vs 2)");
  EXPECT_THROW_MSG(retention_curve({}, {}), Error, "errors is empty: need at least one sample");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW_MSG(prr(three, {{1.0, nan, 2.0}}), Error, "uncertainty contains NaN at index 1");
  EXPECT_THROW_MSG(risk_coverage({{1.0, nan}}, two), Error, "errors contains NaN at index 1");
  EXPECT_THROW_MSG(f1_retention(three, three, {.threshold = 1, .beta = -1}), Error,
                   "beta must be > 0, found -1");
  EXPECT_THROW_MSG(parse_retention_convention("trapz"), Error,
                   "unknown retention convention \"trapz\": expected \"shifts\" or "
                   "\"shifts-vpower\"");
}

}  // namespace
}  // namespace assay::shift
