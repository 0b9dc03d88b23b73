// Placeholder until the knn learner lands.
#include "assay/learners/knn.hpp"

namespace assay::learners {

KnnParams knn_params_from_json(const Json& params) {
  ParamReader read("knn", params);
  read.finish();
  return {};
}

std::unique_ptr<Learner> make_knn(const KnnParams&) {
  fail("learner \"knn\" is not built yet");
}

std::unique_ptr<Learner> make_knn(const Json& params) {
  return make_knn(knn_params_from_json(params));
}

}  // namespace assay::learners
