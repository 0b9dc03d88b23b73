// knn: k nearest neighbours by Euclidean distance on features standardised with the train rows'
// mean and population SD (scikit-learn's StandardScaler; constant features are left centred,
// unscaled), k tuned over k_min..k_max by internal K-fold CV (misclassification rate, smallest k
// among ties), uniform votes (weighted by the neighbours' row weights when given); predict_proba
// = vote shares as scikit-learn's KNeighborsClassifier. Distance ties among neighbours: the
// lower train index first (scikit-learn's brute-force stable order). Distances are computed
// blockwise as ‖a‖² + ‖b‖² − 2a·b with a BLAS-backed matrix product, then the k_max nearest kept,
// so one pass over the train rows scores every k at once.
#pragma once

#include <memory>

#include "assay/learners/learner.hpp"

namespace assay::learners {

struct KnnParams {
  /// Candidate numbers of neighbours; with k_min == k_max, no tuning.
  int k_min = 1;
  int k_max = 20;
  /// Internal CV folds for choosing k.
  int internal_folds = 10;
};

/// Reads {"k" (fixes k_min = k_max), "k_min", "k_max", "internal_folds"}; unknown keys are
/// errors.
KnnParams knn_params_from_json(const Json& params);

std::unique_ptr<Learner> make_knn(const KnnParams& params);
/// Registry entry: make_knn(knn_params_from_json(params)).
std::unique_ptr<Learner> make_knn(const Json& params);

}  // namespace assay::learners
