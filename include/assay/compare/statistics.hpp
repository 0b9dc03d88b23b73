// The statistics of a paired comparison, apart from any metric: bootstrap intervals (percentile
// and BCa) and p-values, the permutation p-value, exact McNemar, DeLong's test of two correlated
// ROC AUCs with the interval of their difference, and multiple-comparison corrections.
//
// Layout: replicates are one value per resample in resample order, NaN where the statistic was
// undefined on that resample (left out, as metrics::bootstrap does). Binary labels are one byte
// per example (1 = positive); weights empty = all 1.
//
// Example:
//   std::vector<double> d = {0.01, 0.03, -0.01, 0.02};   // difference on each resample
//   Interval ci = percentile_interval(d, 0.02, 0.95);    // {0.02, q(0.025), q(0.975)}
//   double p = bootstrap_p_value(d);                     // two-sided, docs/compare.md
//   auto m = mcnemar_exact(3, 12);                       // statsmodels mcnemar(exact=True)
//   std::vector<double> p_values = {0.01, 0.04, 0.03};
//   auto adj = adjust_p_values(p_values, Correction::holm);   // {0.03, 0.06, 0.06}
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "assay/compare/compare.hpp"

namespace assay::compare {

/// Percentile interval at `confidence` of the defined replicates (numpy's linear quantiles, as
/// metrics::quantile); value = estimate. NaN bounds when no replicate is defined.
Interval percentile_interval(std::span<const double> replicates, double estimate,
                             double confidence);

/// BCa interval (Efron 1987; scipy.stats.bootstrap's method="BCa"): bias correction z0 from the
/// share of replicates below the estimate (ties count half, as scipy), acceleration from the
/// jackknife values (leave-one-out, or delete-a-group), percentiles adjusted accordingly.
/// NaN replicates and jackknife values are left out. NaN bounds when z0 or the acceleration is
/// undefined (all replicates on one side, constant jackknife), with a warning naming `what`.
Interval bca_interval(std::span<const double> replicates, double estimate,
                      std::span<const double> jackknife, double confidence,
                      const std::string& what = "the difference");

/// Two-sided p-value of "no difference" from the bootstrap distribution of a difference: the
/// smallest alpha whose (1 - alpha) percentile interval excludes 0,
/// p = min(1, 2 * min(#{d* <= 0} + 1, #{d* >= 0} + 1) / (B + 1)) over the B defined replicates.
/// NaN when none is defined.
double bootstrap_p_value(std::span<const double> replicates);

/// Two-sided Monte Carlo permutation p-value as scipy.stats.permutation_test (random
/// permutations): p_greater = (#{t* >= t - tol} + 1) / (B + 1), p_less likewise,
/// p = min(1, 2 * min(p_greater, p_less)) with scipy's relative tolerance on ties,
/// tol = max(1e-14, 1e-14 |t|). NaN null statistics are left out; NaN when none is defined.
double permutation_p_value(std::span<const double> null_statistics, double observed);

/// Exact McNemar test on the discordant counts (whole numbers): two-sided binomial p-value
/// min(1, 2 * P(X <= min(b, c))) with X ~ Binomial(b + c, 1/2), as statsmodels'
/// mcnemar(table, exact=True); mid-p = p - P(X = min(b, c)). b = c (b + c = 0 included) gives
/// p = 1 and mid-p = 1 (the two tails share the middle point: 2 P(X <= b) - P(X = b) = 1).
/// Negative or non-whole counts are an assay::Error.
struct McNemarResult {
  double p_value = 0;
  double mid_p = 0;
};
McNemarResult mcnemar_exact(double b, double c);

/// Adjusted p-values in the input's order, as statsmodels.stats.multitest.multipletests
/// (holm, bonferroni, fdr_bh; none returns them unchanged). NaN p-values stay NaN and are not
/// counted among the tests; a p-value outside [0, 1] is an assay::Error.
std::vector<double> adjust_p_values(std::span<const double> p_values, Correction correction);

/// DeLong et al. (1988) paired test of model - baseline ROC AUCs, with the interval of the
/// difference (difference -/+ z * se at `confidence`), as R's pROC roc.test(paired = TRUE,
/// method = "delong") when unweighted. Weighted examples use the weighted structural components
/// (RankedScores::roc_auc_variance's rule, which equals DeLong's with unit weights). Every
/// value NaN + a warning when a class has fewer than two examples of positive weight; z, p and
/// the interval NaN + a warning when the difference has zero variance (standard_error = 0).
DelongDetail delong_difference(std::span<const std::uint8_t> y_true,
                               std::span<const double> score_model,
                               std::span<const double> score_baseline,
                               std::span<const double> weights, double confidence);

}  // namespace assay::compare
