// learners/featureless: class frequencies and weighted means learned from the training rows.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "assay/learners/dataset.hpp"
#include "assay/learners/learner.hpp"
#include "test_util.hpp"
#include "toy_dataset.hpp"

namespace assay::learners {
namespace {

std::vector<double> predict_all(const Model& model, const Dataset& data,
                                const std::vector<std::uint32_t>& rows) {
  std::vector<double> out(rows.size() * model.n_outputs());
  model.predict(data, rows, out);
  return out;
}

TEST(Featureless, PredictsTrainClassFrequencies) {
  // Train rows 0..4 have classes 0,2,2,1,2: frequencies 1/5, 1/5, 3/5; row 5 is not trained on.
  const Dataset d = classification({0, 2, 2, 1, 2, 0}, 3);
  const auto learner = make_learner("featureless");
  EXPECT_EQ(learner->name(), "featureless");
  EXPECT_TRUE(learner->supports(TaskKind::classification));
  EXPECT_TRUE(learner->supports(TaskKind::regression));
  const auto model = learner->fit(d, std::vector<std::uint32_t>{0, 1, 2, 3, 4}, {});
  ASSERT_EQ(model->n_outputs(), 3u);
  const auto out = predict_all(*model, d, {5, 0});
  EXPECT_EQ(out, (std::vector<double>{0.2, 0.2, 0.6, 0.2, 0.2, 0.6}));
  EXPECT_EQ(model->description().dump(), R"({"predicted_class":"c"})");
}

TEST(Featureless, WeightedFrequenciesAndTiesToSmallestCode) {
  // Weights 3 (class 1) vs 1+2 (class 0): a tie at 1/2; the majority is the smaller code 0.
  const Dataset d = classification({0, 1, 0, 1}, 2, {1, 3, 2, 100});
  const auto model = make_featureless()->fit(d, std::vector<std::uint32_t>{0, 1, 2}, {});
  EXPECT_EQ(predict_all(*model, d, {3}), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(model->description().dump(), R"({"predicted_class":"a"})");
}

TEST(Featureless, ClassAbsentFromTrainGetsZero) {
  const Dataset d = classification({1, 1, 0}, 2);
  const auto model = make_featureless()->fit(d, std::vector<std::uint32_t>{0, 1}, {});
  EXPECT_EQ(predict_all(*model, d, {2}), (std::vector<double>{0.0, 1.0}));
}

TEST(Featureless, RegressionWeightedMean) {
  Dataset d;
  d.task = TaskKind::regression;
  d.n_rows = 4;
  d.n_features = 1;
  d.x.assign(4, 0.0);
  d.y_value = {1, 2, 4, 100};
  d.weights = {1, 1, 2, 1};
  const auto model = make_featureless()->fit(d, std::vector<std::uint32_t>{0, 1, 2}, {});
  ASSERT_EQ(model->n_outputs(), 1u);
  // (1 + 2 + 2*4) / 4 = 2.75
  EXPECT_EQ(predict_all(*model, d, {3, 0}), (std::vector<double>{2.75, 2.75}));
}

TEST(Featureless, ZeroTotalWeightIsALearnerFailure) {
  const Dataset d = classification({0, 1, 0}, 2, {0, 0, 1});
  EXPECT_THROW_MSG(make_featureless()->fit(d, std::vector<std::uint32_t>{0, 1}, {}), LearnerFailure,
                   "the 2 train rows have total weight 0");
}

}  // namespace
}  // namespace assay::learners
