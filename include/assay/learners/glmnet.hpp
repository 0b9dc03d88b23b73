// glmnet: elastic-net penalised logistic (two classes) and multinomial (more) regression by
// cyclic coordinate descent, over glmnet's λ path, with λ chosen by internal K-fold CV as R's
// cv.glmnet does.
//
// Objective at one λ (glmnet's, with row weights w normalised to sum to 1):
//   −Σ_i w_i loglik_i(β0, β) + λ Σ_j [ (1−α)/2 β_j² + α |β_j| ]
// on features standardised with the weighted mean and the weighted population SD (glmnet's
// `standardize = TRUE`); coefficients are reported on the original scale. Multinomial: glmnet's
// "ungrouped" penalty on each class's coefficients, intercepts unpenalised.
// λ path: `n_lambda` values log-spaced from λ_max (the smallest λ with every β = 0) down to
// λ_max·lambda_min_ratio (0.01 when rows < features, else 1e-4, as glmnet chooses); the path
// stops early as glmnet's does (deviance ratio ≥ 0.999 or its change < 1e-5), so perfectly
// separable data never gives infinite coefficients.
// CV: `internal_folds` folds (internal_fold_ids), deviance per fold (cv.glmnet's default
// type.measure), `lambda.min` = argmin of the mean, `lambda.1se` = largest λ whose mean is within
// one standard error of the minimum; the model is refitted on all train rows and predicts at
// the chosen λ (`rule`, default lambda.1se as cv.glmnet's predict).
// Features with zero variance in the train rows get coefficient 0 (glmnet does the same).
// Classes without positive weight in the train rows are left out of the fit and predicted with
// probability 0 (R's glmnet stops instead); one class left is a LearnerFailure. Classification
// only. Description: {"lambda", "rule", "lambda_index" (1-based), "nonzero", "alpha",
// "n_lambda", "lambda_min", "lambda_1se"} and "classes_fitted" when a class was absent.
//
// Example:
//   auto learner = make_learner("glmnet", {{"alpha", 0.5}, {"rule", "lambda.min"}});
//   auto model = learner->fit(data, train_rows, FitContext{.seed = 1});
//   model->predict(data, test_rows, out);   // n_classes probabilities per row
//   // The path itself, as R's glmnet(x, y, alpha = 0.5) gives it:
//   GlmnetPath path = glmnet_path(data, train_rows, GlmnetParams{.alpha = 0.5});
//   // path.lambdas decreasing; path.coefficients[(l * n_outputs + k) * n_features + j]
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "assay/learners/learner.hpp"

namespace assay::learners {

struct GlmnetParams {
  /// Elastic-net mixing: 1 = lasso (default), 0 = ridge.
  double alpha = 1.0;
  /// Number of λ values on the path.
  std::size_t n_lambda = 100;
  /// λ_min / λ_max; 0 = glmnet's choice (0.01 if rows < features, else 1e-4).
  double lambda_min_ratio = 0.0;
  /// Internal CV folds for choosing λ.
  int internal_folds = 10;
  /// "lambda.1se" (default, cv.glmnet's predict) or "lambda.min".
  std::string rule = "lambda.1se";
  /// Coordinate-descent convergence threshold (glmnet's `thresh`).
  double tolerance = 1e-7;
  /// Maximum passes over the data per λ (glmnet's `maxit`).
  std::size_t max_passes = 100000;
};

/// Reads {"alpha", "n_lambda", "lambda_min_ratio", "internal_folds", "rule", "tolerance",
/// "max_passes"}; unknown keys are errors.
GlmnetParams glmnet_params_from_json(const Json& params);

/// One glmnet path on the original feature scale. Classes: the classes with positive train weight
/// ("present", in code order). Two present classes: one linear predictor, the log-odds of the
/// second present class (R's binomial); more: one per present class (R's multinomial, intercepts
/// and each feature's class coefficients centred as glmnet centres them).
struct GlmnetPath {
  /// Class codes of the present classes, ascending.
  std::vector<int> classes;
  /// Linear predictors per λ: 1 (two classes) or classes.size().
  std::size_t n_outputs = 0;
  std::size_t n_features = 0;
  /// λ values, decreasing (length L; the generated path may stop before n_lambda).
  std::vector<double> lambdas;
  /// L x n_outputs, λ-major.
  std::vector<double> intercepts;
  /// L x n_outputs x n_features, λ-major then output-major.
  std::vector<double> coefficients;
  /// Fraction of null deviance explained, per λ (glmnet's dev.ratio).
  std::vector<double> dev_ratio;
  /// Features with a nonzero coefficient (for any class), per λ (glmnet's df).
  std::vector<std::size_t> nonzero;
  /// Null deviance of the train rows (2 x weighted, with weights as given).
  double null_deviance = 0;
  /// Coordinate-descent passes over the data, whole path.
  std::size_t passes = 0;
  /// Bytes the path's column kernels (gradients, curvatures, residual updates, links) streamed:
  /// each array of one value per row that a kernel call reads or writes counts once. A measure
  /// of the work, for comparing the fit's time with the machine's bandwidth; it depends on the
  /// CPU (AVX-512 CPUs read zero coefficients' columns as floats) but not on the thread count.
  std::uint64_t streamed_bytes = 0;
};

/// Fits the path on `rows` of `data`. `lambdas` empty: glmnet's generated path (with its early
/// stop); else these λ values (sorted decreasing, every one > 0), no early stop, as R's
/// glmnet(lambda = ...). Throws LearnerFailure when fewer than two classes have positive weight.
GlmnetPath glmnet_path(const Dataset& data, std::span<const std::uint32_t> rows,
                       const GlmnetParams& params, std::span<const double> lambdas = {});

/// cv.glmnet's result: the full-data path, the deviance curve over it and the chosen λ.
struct GlmnetCv {
  GlmnetPath path;
  /// Internal fold id (0-based) of each train row.
  std::vector<int> fold_ids;
  /// Mean and standard error of the fold deviances per λ (cv.glmnet's cvm, cvsd).
  std::vector<double> cv_mean, cv_sd;
  std::size_t index_min = 0, index_1se = 0;
  /// GlmnetPath::streamed_bytes summed over the K + 1 fits (the full path and each fold's).
  std::uint64_t streamed_bytes = 0;
};

/// R's cv.glmnet(type.measure = "deviance"): the path on all `rows` and each internal fold's
/// own generated path on the other rows (all K + 1 fits in parallel on `threads` workers; the
/// result does not depend on the thread count); each fold is predicted at the full path's λ
/// values by linear interpolation in λ (cv.glmnet's default alignment = "lambda"); held-out
/// deviance −2·log p(y) (p clamped to [1e-5, 1−1e-5]) averaged per fold with row weights and
/// over folds with fold weights; lambda.min / lambda.1se as getOptcv.glmnet. `fold_ids` empty:
/// internal_fold_ids(rows, internal_folds, seed); else one 0-based id per row.
GlmnetCv glmnet_cv(const Dataset& data, std::span<const std::uint32_t> rows,
                   const GlmnetParams& params, std::uint64_t seed, int threads,
                   std::span<const int> fold_ids = {});

std::unique_ptr<Learner> make_glmnet(const GlmnetParams& params);
/// Registry entry: make_glmnet(glmnet_params_from_json(params)).
std::unique_ptr<Learner> make_glmnet(const Json& params);

}  // namespace assay::learners
