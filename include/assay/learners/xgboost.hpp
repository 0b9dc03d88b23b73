// xgboost: gradient-boosted trees through libxgboost's C API (Debian's libxgboost, 1.7.x). Every
// return code is checked; a failure becomes assay::Error "xgboost <function> failed: <message>"
// carrying XGBGetLastError()'s message (a caller's mistake, not a LearnerFailure).
//
// Objective: binary:logistic for two classes, multi:softprob with num_class for more;
// reg:squarederror for regression. Row weights go to the DMatrix ("weight"). Features are
// narrowed to float32 as xgboost's Python DMatrix does; NaN (xgboost's missing value) never
// occurs because datasets hold finite features only. Every other xgboost parameter keeps its
// default (base_score 0.5, lambda 1, no subsampling), as in mlr3's classif.xgboost.
//
// Tuning (more than one candidate pair): internal K-fold CV with internal_fold_ids(n_train, K,
// ctx.seed). Each eta is trained once per fold for max(rounds) rounds and the held-out rows are
// scored at every candidate round count with iteration_range [0, r) (identical to training r
// rounds: a booster's first r rounds do not depend on later ones). Score per fold: the weighted
// misclassification rate (regression: weighted mean squared error), predicted class = the
// largest probability, ties -> the lowest class code (binary: class 1 iff p > 0.5); a fold
// whose held-out rows weigh 0 scores 0. Tuning score = the mean of the K fold scores
// (GridSearchCV's mean_test_score); the smallest wins, ties -> the cheaper pair: fewer rounds,
// then the smaller eta. The chosen pair is refitted on every train row.
//
// Classes: the classes present in a train set (rows of any weight) are coded 0..K'-1 in class
// code order; K' = 2 gives binary:logistic, K' > 2 multi:softprob; classes absent from that
// train set get probability 0. A train set of one class is a LearnerFailure for the fit, but an
// inner-CV training fold of one class simply predicts that class (no booster).
//
// Threads (FitContext::threads = T is the whole budget): the K CV folds run in parallel on
// assay's pool, each booster with nthread max(1, T / K) (1 whenever T <= K: no nested
// oversubscription); the refit and predictions use nthread T. seed = ctx.seed mod 2^31
// (xgboost's seed parameter; unused by these tree methods without subsampling).
//
// Determinism: with nthread 1 per fold (any T < 2K) the CV scores, hence the chosen pair, are
// bit-identical at any such T. A booster's own result can depend on its nthread only through the
// order in which xgboost adds per-thread gradient sums (double precision); see
// docs/learner_xgboost.md for the measured check.
//
// Description: {"eta", "nrounds", "cv_error" (null when not tuned), and "absent_classes" (class
// names absent from the train rows) when there are any}.
//
// Example:
//   XgboostParams p;
//   p.etas = {0.3};  p.rounds = {10};          // one pair: no tuning, no internal CV
//   auto model = make_xgboost(p)->fit(data, train_rows, FitContext{.seed = 1, .threads = 2});
//   model->predict(data, test_rows, out);      // n_classes probabilities per row
//   model->description();                      // {"eta": 0.3, "nrounds": 10, "cv_error": null}
//   make_learner("xgboost", {{"eta", 0.3}, {"nrounds", 10}});   // the same learner from JSON
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "assay/learners/learner.hpp"

namespace assay::learners {

struct XgboostParams {
  /// Candidate learning rates: 10^(-3, -2.25, -1.5, -0.75, 0), 5 log-spaced values in [0.001, 1]
  /// (paradox's grid of p_dbl(0.001, 1, logscale = TRUE) with resolution 5).
  std::vector<double> etas = {0.001, 0.005623413251903491, 0.03162277660168379, 0.1778279410038923,
                              1.0};
  /// Candidate numbers of boosting rounds: {1, 25, 50, 75, 100}, paradox's grid of p_int(1, 100)
  /// with resolution 5 (floor(u * 100 * (1 - 1e-16)) + 1 at u = 0, 1/4, 1/2, 3/4, 1).
  std::vector<int> rounds = {1, 25, 50, 75, 100};
  /// Internal CV folds for tuning; ignored when there is one candidate pair.
  int internal_folds = 10;
  /// Tree depth, passed to xgboost (its default).
  int max_depth = 6;
  /// xgboost tree_method: "hist" (default: fastest on CPU, see docs), "exact" or "approx".
  std::string tree_method = "hist";
};

/// Reads {"eta" (one value: fixes etas), "etas" (array), "nrounds" (one value: fixes rounds),
/// "rounds" (array of integers), "internal_folds", "max_depth", "tree_method"}; unknown keys,
/// both "eta" and "etas" (or "nrounds" and "rounds"), and out-of-range values are errors.
XgboostParams xgboost_params_from_json(const Json& params);

std::unique_ptr<Learner> make_xgboost(const XgboostParams& params);
/// Registry entry: make_xgboost(xgboost_params_from_json(params)).
std::unique_ptr<Learner> make_xgboost(const Json& params);

}  // namespace assay::learners
