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
#pragma once

#include <cstddef>
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

std::unique_ptr<Learner> make_glmnet(const GlmnetParams& params);
/// Registry entry: make_glmnet(glmnet_params_from_json(params)).
std::unique_ptr<Learner> make_glmnet(const Json& params);

}  // namespace assay::learners
