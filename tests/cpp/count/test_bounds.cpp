// count/bounds: output bounds of ReLU networks on boxes — they contain every evaluation (corners
// and random points), the linear relaxation is tighter than intervals, a point gives a tight and
// outward-rounded box, and hidden logistic layers are refused.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "assay/core/error.hpp"
#include "assay/core/rng.hpp"
#include "assay/count/bounds.hpp"
#include "assay/count/model.hpp"
#include "random_net.hpp"

namespace assay::count {
namespace {

TEST(Bounds, ContainEveryEvaluationAndLinearIsTighter) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Model m = random_net({4, 12, 12, 3}, seed);
    const NetworkBounds nb(m);
    Rng rng(seed + 100);
    std::vector<double> lo(4), hi(4), x(4);
    for (int i = 0; i < 4; ++i) {
      lo[i] = rng.normal();
      hi[i] = lo[i] + 0.5 * rng.uniform();
    }
    BoundResult lin, itv;
    nb.output_bounds(lo, hi, BoundMethod::linear, lin);
    nb.output_bounds(lo, hi, BoundMethod::interval, itv);
    for (int j = 0; j < 3; ++j) {
      EXPECT_LE(itv.lower[j], lin.lower[j]);
      EXPECT_GE(itv.upper[j], lin.upper[j]);
    }
    for (int s = 0; s < 2000; ++s) {
      for (int i = 0; i < 4; ++i) x[i] = lo[i] + rng.uniform() * (hi[i] - lo[i]);
      if (s < 16) {  // the corners too
        for (int i = 0; i < 4; ++i) x[i] = (s >> i) & 1 ? hi[i] : lo[i];
      }
      const auto y = predict_scores(m, x);
      for (int j = 0; j < 3; ++j) {
        ASSERT_LE(lin.lower[j], y[j]);
        ASSERT_GE(lin.upper[j], y[j]);
      }
    }
  }
}

TEST(Bounds, AreExactOnAPointAndOutwardRounded) {
  const Model m = random_net({3, 8, 2}, 7);
  const NetworkBounds nb(m);
  const std::vector<double> x = {0.25, -0.5, 1.0};
  BoundResult r;
  nb.output_bounds(x, x, BoundMethod::linear, r);
  const auto y = predict_scores(m, x);
  for (int j = 0; j < 2; ++j) {
    EXPECT_LE(r.lower[j], y[j]);
    EXPECT_GE(r.upper[j], y[j]);
    EXPECT_LT(r.upper[j] - r.lower[j], 1e-12);
  }
  EXPECT_LT(round_down(1.0), 1.0);
  EXPECT_GT(round_up(1.0), 1.0);
}

TEST(Bounds, RefusesHiddenLogisticLayers) {
  Model m = random_net({2, 3, 2}, 1);
  m.layers[0].activation = Activation::logistic;
  try {
    NetworkBounds nb(m);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "bounds cover ReLU and identity hidden layers; layer 0 is logistic");
  }
}

}  // namespace
}  // namespace assay::count
