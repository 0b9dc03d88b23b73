// cart: a classification tree grown as R's rpart grows it (method "class", Gini index, its
// defaults: minsplit 20, minbucket round(minsplit/3) = 7, cp 0.01, maxdepth 30), no tuning.
//
// Split rule, as rpart: a numeric split sends x < threshold one way, the threshold being the
// midpoint between adjacent distinct train values; a node is split only if it has ≥ minsplit
// rows (weighted counts as rpart counts them), both children ≥ minbucket, and the split improves
// the relative risk by ≥ cp (rpart's complexity pruning: subtrees whose improvement is below cp
// are pruned back). Ties between equally good splits go to the first feature, as rpart. Leaves
// predict the class frequencies of their train rows (rpart's `predict(type = "prob")`, priors
// proportional to the data); the label is the first class of highest probability.
// No cross-validation (rpart's xval only fills the cp table), so no randomness.
#pragma once

#include <cstddef>
#include <memory>

#include "assay/learners/learner.hpp"

namespace assay::learners {

struct CartParams {
  /// Fewest (weighted) rows in a node for a split to be tried.
  double min_split = 20;
  /// Fewest rows in a leaf; 0 = round(min_split / 3) as rpart.
  double min_bucket = 0;
  /// Complexity: a split must improve the overall relative risk by at least this.
  double cp = 0.01;
  /// Maximum depth (root = depth 0), at most 30 as rpart.
  int max_depth = 30;
};

/// Reads {"min_split", "min_bucket", "cp", "max_depth"}; unknown keys are errors.
CartParams cart_params_from_json(const Json& params);

std::unique_ptr<Learner> make_cart(const CartParams& params);
/// Registry entry: make_cart(cart_params_from_json(params)).
std::unique_ptr<Learner> make_cart(const Json& params);

}  // namespace assay::learners
