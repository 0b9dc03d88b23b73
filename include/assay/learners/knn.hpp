// knn: k nearest neighbours by Euclidean distance on standardised features, k tuned over
// k_min..k_max by internal K-fold CV. Built to give scikit-learn's answers:
//   make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=k, algorithm="brute"))
// and, tuned, GridSearchCV(that pipeline, {"n_neighbors": k_min..k_max},
//   cv=PredefinedSplit(internal_fold_ids(n_train, internal_folds, seed))).
//
// Standardising: each feature is centred on the train rows' mean and divided by their population
// SD, with StandardScaler's arithmetic (same sums, same "indistinguishable from constant" test;
// constant features are centred and divided by 1, so they add nothing to any distance). Inside
// internal CV the scaler is refitted on each inner-train fold, as GridSearchCV refits the
// pipeline; the final model's scaler uses every train row.
//
// Neighbours: ordered by the squared distance Σ(q_j − t_j)² computed directly (not through
// ‖q‖² + ‖t‖² − 2q·t, which is only used to screen candidates: see nearest_neighbours in
// src/learners/knn_search.cpp), ties broken by the lower train position. (scikit-learn's
// brute-force search keeps a max-heap and evicts whichever tied row sits at its root, which
// depends on its chunking and thread count: rows tied exactly at the k-th distance are the one
// place the two can differ.) One search per CV fold finds the k_max nearest and scores every k.
//
// Classification: predict_proba = the neighbours' vote shares (count / k, as scikit-learn);
// the predicted label (for the CV error) is the class with most votes, ties → the lowest class
// code (scikit-learn's mode). Regression: the neighbours' mean target.
//
// Tuning score: the mean over folds of each fold's error rate (classification; for regression the
// fold's mean squared error), as GridSearchCV averages per-fold scores (not the pooled rate); the
// smallest k among equal means wins (GridSearchCV's first best). Candidates larger than the
// smallest inner-train fold are skipped (GridSearchCV scores them NaN, ranked last).
//
// Row weights (optional): rows of weight 0 are never neighbours; the scaler uses the weighted
// mean and SD (StandardScaler with sample_weight); a neighbour's vote counts its weight, so
// predict_proba = each class's share of the neighbours' total weight; the CV score weights rows.
// Weights never change which rows are neighbours or how many (k stays a count of rows).
// scikit-learn's KNeighborsClassifier takes no sample weights, so weighted knn has no peer.
//
// Failures (LearnerFailure, recorded as NA by experiment runners): k (fixed) larger than the train
// rows of positive weight; no candidate k fits the smallest inner-train fold; fewer train rows
// than internal folds; train rows of total weight 0. A train set of one class is fine: that class
// gets probability 1 (as scikit-learn).
//
// Example:
//   // one feature x = {0, 1, 2, 10, 11}, classes {a, a, b, b, b}; k fixed at 3 (no tuning)
//   auto model = make_knn(KnnParams{.k_min = 3, .k_max = 3})->fit(data, all_rows, FitContext{});
//   model->predict(data, row_1, out);   // x = 1: neighbours x = 1, 0, 2, so out = {2/3, 1/3}
#pragma once

#include <memory>

#include "assay/learners/learner.hpp"

namespace assay::learners {

struct KnnParams {
  /// Smallest candidate number of neighbours; with k_min == k_max, no tuning (and no internal CV).
  int k_min = 1;
  /// Largest candidate number of neighbours.
  int k_max = 20;
  /// Internal CV folds for choosing k (at least 2).
  int internal_folds = 10;
};

/// Reads {"k" (fixes k_min = k_max = k; not together with k_min/k_max), "k_min", "k_max",
/// "internal_folds"}; unknown keys, non-integers, k < 1, k_min > k_max and internal_folds < 2 are
/// errors naming the key.
KnnParams knn_params_from_json(const Json& params);

/// Requires 1 <= k_min <= k_max and internal_folds >= 2 (assay::Error otherwise).
std::unique_ptr<Learner> make_knn(const KnnParams& params);
/// Registry entry: make_knn(knn_params_from_json(params)).
std::unique_ptr<Learner> make_knn(const Json& params);

}  // namespace assay::learners
