// xgboost: gradient-boosted trees through libxgboost's C API (Debian's libxgboost, 1.7.x). Every
// return code is checked; a failure becomes assay::Error carrying XGBGetLastError()'s message.
//
// Objective binary:logistic for two classes, multi:softprob for more; reg:squarederror for
// regression. Row weights go to the DMatrix. eta is tuned over `etas` and the number of rounds
// over `rounds` by internal K-fold CV (misclassification rate; regression: MSE), each eta trained
// once per fold for max(rounds) rounds and scored at every candidate count via
// iteration_range; the chosen pair is refitted on all train rows. Deterministic: seed and
// nthread are passed to xgboost, tree_method "exact" by default.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "assay/learners/learner.hpp"

namespace assay::learners {

struct XgboostParams {
  /// Candidate learning rates: 5 log-spaced values in [0.001, 1].
  std::vector<double> etas = {0.001, 0.005623413251903491, 0.03162277660168379, 0.1778279410038923,
                              1.0};
  /// Candidate numbers of boosting rounds: 5 values in [1, 100].
  std::vector<double> rounds = {1, 26, 51, 75, 100};
  /// Internal CV folds for tuning; ignored when there is one candidate pair.
  int internal_folds = 10;
  /// Passed to xgboost as they are.
  int max_depth = 6;
  std::string tree_method = "exact";
};

/// Reads {"eta" (fixes etas), "etas", "nrounds" (fixes rounds), "rounds", "internal_folds",
/// "max_depth", "tree_method"}; unknown keys are errors.
XgboostParams xgboost_params_from_json(const Json& params);

std::unique_ptr<Learner> make_xgboost(const XgboostParams& params);
/// Registry entry: make_xgboost(xgboost_params_from_json(params)).
std::unique_ptr<Learner> make_xgboost(const Json& params);

}  // namespace assay::learners
