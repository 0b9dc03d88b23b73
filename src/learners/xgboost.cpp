// Placeholder until the xgboost learner lands.
#include "assay/learners/xgboost.hpp"

namespace assay::learners {

XgboostParams xgboost_params_from_json(const Json& params) {
  ParamReader read("xgboost", params);
  read.finish();
  return {};
}

std::unique_ptr<Learner> make_xgboost(const XgboostParams&) {
  fail("learner \"xgboost\" is not built yet");
}

std::unique_ptr<Learner> make_xgboost(const Json& params) {
  return make_xgboost(xgboost_params_from_json(params));
}

}  // namespace assay::learners
