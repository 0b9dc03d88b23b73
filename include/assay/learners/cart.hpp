// cart: a classification tree grown exactly as R's rpart grows it (method "class", Gini index,
// its defaults: minsplit 20, minbucket round(minsplit/3) = 7, cp 0.01, maxdepth 30), no tuning.
// Same splits (variable, threshold, direction), same node sizes, same predicted probabilities as
// `rpart(y ~ ., data, weights)` on the same rows in the same order; tests/python/test_cart.py
// checks this against R at test time.
//
// The rules, as rpart applies them:
// - Priors are the (weighted) class proportions of the train rows and the loss is 0/1, so a
//   leaf predicts the weighted class shares of its train rows (rpart's `predict(type="prob")`).
// - A node is split only if it has >= min_split rows (rows, not weights, as rpart counts), is
//   shallower than max_depth (root = depth 0), and its risk (weighted misclassifications) and the
//   complexity estimate handed down by its parent exceed cp * root risk.
// - Candidate splits of a numeric feature: x < threshold vs x >= threshold, the threshold being
//   the midpoint of two adjacent distinct values of the node's rows of positive weight, each side
//   with >= min_bucket such rows. The split maximising the Gini improvement
//   (node weight * impurity minus the children's) wins; ties go to the first position along the
//   sorted feature and then to the first feature (column order). Which side "x < threshold" goes
//   to follows rpart (left when the left side's mean class code is lower): it changes node
//   numbers, not predictions.
// - After growing, subtrees whose complexity (risk reduction per split) is <= cp * root risk are
//   pruned back, with rpart's bottom-up weakest-link bookkeeping.
// - Every floating-point sum runs in rpart's order (its sort order of each feature, ties
//   included), so even near-ties between features break as rpart breaks them.
// Rows of weight 0 count for min_split and are routed down the tree but take no part in choosing
// splits (as rpart). A train set of one class gives a single leaf (rpart does the same); a train
// set of total weight 0 is a LearnerFailure. Deterministic: no randomness, and the same tree at
// any thread count (threads only split the per-feature work).
//
// Example:
//   // 4 rows of classes {a, a, a, b}: fewer than min_split = 20 rows, so the root is the tree
//   auto learner = make_learner("cart", {{"cp", 0.001}});
//   auto model = learner->fit(data, rows, FitContext{});
//   model->predict(data, rows, out);      // every row: {0.75, 0.25}, the train class shares
//   model->description();                 // {"nodes": 1, "leaves": 1, "depth": 0}
#pragma once

#include <cstddef>
#include <memory>

#include "assay/learners/learner.hpp"

namespace assay::learners {

struct CartParams {
  /// Fewest rows in a node for a split to be tried (rpart's minsplit).
  int min_split = 20;
  /// Fewest rows of positive weight on each side of a split; 0 = round(min_split / 3) as rpart.
  int min_bucket = 0;
  /// Complexity: a split must reduce the risk by at least cp * root risk (rpart's cp).
  double cp = 0.01;
  /// Maximum depth of a leaf (root = depth 0), 1..30 as rpart.
  int max_depth = 30;
  /// Put the whole tree into Model::description() under "tree" (for tests; large for big trees).
  bool record_tree = false;
};

/// Reads {"min_split", "min_bucket", "cp", "max_depth", "record_tree"}; unknown keys are errors.
/// As rpart.control: min_bucket given without min_split sets min_split = 3 * min_bucket.
CartParams cart_params_from_json(const Json& params);

/// Description of a fitted cart model: {"nodes", "leaves", "depth"} and, with record_tree,
/// "tree": the nodes in rpart's frame order (depth first, left first), each
/// {"node": rpart's node number (root 1, children 2k, 2k+1), "var": feature name or "<leaf>",
///  "n": rows, "wt": weight, "yval": predicted class code, "counts": weighted class sums,
///  "prob": predicted probabilities} plus, for a split, "threshold" and "ncat" (-1: rows with
///  x < threshold go left, +1: they go right, as rpart's splits matrix).
std::unique_ptr<Learner> make_cart(const CartParams& params);
/// Registry entry: make_cart(cart_params_from_json(params)).
std::unique_ptr<Learner> make_cart(const Json& params);

}  // namespace assay::learners
