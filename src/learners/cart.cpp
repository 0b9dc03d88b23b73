// Placeholder until the cart learner lands.
#include "assay/learners/cart.hpp"

namespace assay::learners {

CartParams cart_params_from_json(const Json& params) {
  ParamReader read("cart", params);
  read.finish();
  return {};
}

std::unique_ptr<Learner> make_cart(const CartParams&) {
  fail("learner \"cart\" is not built yet");
}

std::unique_ptr<Learner> make_cart(const Json& params) {
  return make_cart(cart_params_from_json(params));
}

}  // namespace assay::learners
