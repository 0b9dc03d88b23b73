// Placeholder until the glmnet learner lands.
#include "assay/learners/glmnet.hpp"

namespace assay::learners {

GlmnetParams glmnet_params_from_json(const Json& params) {
  ParamReader read("glmnet", params);
  read.finish();
  return {};
}

std::unique_ptr<Learner> make_glmnet(const GlmnetParams&) {
  fail("learner \"glmnet\" is not built yet");
}

std::unique_ptr<Learner> make_glmnet(const Json& params) {
  return make_glmnet(glmnet_params_from_json(params));
}

}  // namespace assay::learners
