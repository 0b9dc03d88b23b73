// Ensemble uncertainty measures and Gaussian likelihoods (Shifts 2.0 paper; Shifts' uncertainty
// code; docs/shift.md "Ensemble uncertainty").
//
// Data layout:
// - Classification: probs has M members x n samples x K classes, row-major: member m, sample i,
//   class k is probs[(m * n + i) * K + k] (numpy's probs[m, i, k], Shifts' layout). Every entry
//   must be finite and in [0, 1] and every member's row must sum to 1 within numpy.allclose's
//   tolerance, |sum - 1| <= 1e-8 + 1e-5 (the tolerance assay's multiclass ROC AUC uses); else an
//   assay::Error naming member, sample and the sum found.
// - Regression: preds has M members x n samples x 2, row-major: member m, sample i holds the
//   mean at preds[(m * n + i) * 2] and the variance at preds[(m * n + i) * 2 + 1] (Shifts'
//   [n_models, n_samples, 2]). Means finite, variances finite and >= 0 (a negative variance is
//   an assay::Error naming member and sample).
// Results are one value per sample; members are averaged with equal weight. Work is split over
// samples on `threads` workers (0 = all cores); the result does not depend on the thread count,
// and neither does the bad input reported: the first in (member, sample) order within the first
// block of samples (2048 regression, 256 classification) that holds one.
// The logs are computed by a vectorised log within 1 ulp of glibc's (docs/performance.md), so
// results can differ from numpy's in the last bits.
//
// Classification (eps = 1e-10, p̄ = member mean, logs natural):
//   entropy_of_expected = -sum_k p̄ log(p̄ + eps)
//   expected_entropy    = mean_m -sum_k p_m log(p_m + eps)
//   mutual_information  = entropy_of_expected - expected_entropy
//   epkl                = -sum_k p̄ mean_m log(p_m + eps) - expected_entropy
//                         (mean over all M^2 ordered member pairs of KL, i = j included)
//   reverse_mutual_information = epkl - mutual_information (= mean_m KL(p̄ || p_m))
//   confidence          = max_k p̄, positive. Shifts stores -max_k p̄ under the key
//                         'confidence' so that every measure is an uncertainty; use
//                         -confidence where an uncertainty is expected.
// Regression (Shifts' ensemble_uncertainties_regression; eps = 1e-10 on variances for the two
// EPKLs only):
//   data_uncertainty      = mean_m v_m                 (Shifts 'mvar')
//   knowledge_uncertainty = var_m mu_m, ddof 0          (Shifts 'varm')
//   total_variance        = knowledge + data            (Shifts 'tvar')
//   epkl_reg (Shifts' 'epkl') = mean over member pairs (i, j) of the cross-entropy
//       H(N_i, N_j) = mean pairwise KL + mean member entropy, with v + eps
//   epkl (true EPKL) = mean over pairs of KL(N_i || N_j) with v + eps, computed as
//       0.5 [mean_j (v̄ - v_j) / v_j + var(mu) mean_j 1/v_j + mean_j (mū - mu_j)^2 / v_j]
//       (no cancellation when members agree; equals epkl_reg - mean member entropy).
// Gaussian NLL (Shifts' nll_regression, eps = 1e-8 by default):
//   nll_i = (y - mu)^2 / (2 v + eps) + log(v + eps) / 2 + log(2 pi) / 2.
// Ensemble NLL of the equal-weight mixture: -log(mean_m exp(-nll_m)), computed with
// log-sum-exp. Shifts' ens_nll_regression evaluates exp(-nll) directly, which underflows to 0
// (and returns inf) when every member's nll exceeds ~745; assay stays finite there.
//
// Example:
//   // M = 2 members, n = 2 samples, K = 2 classes: probs[m, i, k]
//   std::vector<double> probs = {0.9, 0.1,  0.5, 0.5,     // member 0: samples 0, 1
//                                0.7, 0.3,  0.5, 0.5};    // member 1
//   EnsembleUncertainty u = ensemble_uncertainty(probs, 2, 2, 2);
//   // u.entropy_of_expected {0.50040, 0.69315}, u.expected_entropy {0.46797, 0.69315},
//   // u.mutual_information {0.03243, 0}, u.epkl {0.06750, 0},
//   // u.reverse_mutual_information {0.03507, 0}, u.confidence {0.8, 0.5}
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace assay::shift {

/// Per-sample measures of a classification ensemble; each vector has n entries.
struct EnsembleUncertainty {
  std::vector<double> entropy_of_expected;
  std::vector<double> expected_entropy;
  std::vector<double> mutual_information;
  std::vector<double> epkl;
  std::vector<double> reverse_mutual_information;
  std::vector<double> confidence;  ///< max_k p̄ (higher = more certain)
};

struct EnsembleParams {
  /// eps inside the logs; default 1e-10 (Shifts).
  double epsilon = 1e-10;
  /// Worker threads (0 = all cores); results do not depend on it.
  int threads = 0;
};

/// Requires: probs.size() == n_members * n_samples * n_classes, all three >= 1.
EnsembleUncertainty ensemble_uncertainty(std::span<const double> probs, std::size_t n_members,
                                         std::size_t n_samples, std::size_t n_classes,
                                         const EnsembleParams& params = {});

/// Per-sample measures of a regression ensemble (members give mean and variance).
struct RegressionEnsembleUncertainty {
  std::vector<double> mean;  ///< ensemble mean prediction mean_m mu_m
  std::vector<double> total_variance;
  std::vector<double> data_uncertainty;
  std::vector<double> knowledge_uncertainty;
  std::vector<double> epkl_reg;  ///< Shifts' 'epkl' (expected pairwise cross-entropy)
  std::vector<double> epkl;      ///< true expected pairwise KL
};

/// Requires: preds.size() == n_members * n_samples * 2, both >= 1.
RegressionEnsembleUncertainty ensemble_uncertainty_regression(std::span<const double> preds,
                                                              std::size_t n_members,
                                                              std::size_t n_samples,
                                                              const EnsembleParams& params = {});

/// Per-sample Gaussian NLL. Requires equal lengths >= 1, finite values, var >= 0, eps >= 0.
std::vector<double> gaussian_nll(std::span<const double> y, std::span<const double> mean,
                                 std::span<const double> var, double epsilon = 1e-8);

/// Per-sample NLL of the equal-weight Gaussian mixture of the members (layout as
/// ensemble_uncertainty_regression). Requires y.size() == n_samples.
std::vector<double> ensemble_nll(std::span<const double> y, std::span<const double> preds,
                                 std::size_t n_members, std::size_t n_samples,
                                 double epsilon = 1e-8);

}  // namespace assay::shift
