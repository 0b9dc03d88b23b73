// The xgboost learner in C++: the C API wrapper's error handling, class coding, failures,
// parameters and thread invariance. Agreement with python3-xgboost is in
// tests/python/test_xgboost_learner.py.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../../../src/learners/xgboost_capi.hpp"
#include "assay/core/rng.hpp"
#include "assay/learners/learner.hpp"
#include "assay/learners/xgboost.hpp"
#include "test_util.hpp"

namespace assay::learners {
namespace {

std::vector<double> predict_all(const Model& model, const Dataset& data,
                                const std::vector<std::uint32_t>& rows) {
  std::vector<double> out(rows.size() * model.n_outputs());
  model.predict(data, rows, out);
  return out;
}

std::vector<std::uint32_t> all_rows(const Dataset& d) {
  std::vector<std::uint32_t> rows(d.n_rows);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint32_t>(i);
  return rows;
}

// Two noisy features; the class is mostly decided by feature 0 (k classes by thresholds).
Dataset noisy(std::size_t n, std::size_t k, std::uint64_t seed) {
  Dataset d;
  d.name = "noisy";
  d.n_rows = n;
  d.n_features = 2;
  d.feature_names = {"x0", "x1"};
  Rng rng(seed);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<std::int32_t>(rng.below(k));
    d.y_class.push_back(c);
    d.x.push_back(c + 0.9 * (static_cast<double>(rng.below(1000)) / 1000.0 - 0.5) * 2);
    d.x.push_back(static_cast<double>(rng.below(1000)) / 1000.0);
  }
  for (std::size_t c = 0; c < k; ++c) d.classes.push_back(std::string(1, char('a' + c)));
  return d;
}

TEST(XgboostCapi, ErrorsCarryXgboostsMessage) {
  const std::vector<float> x = {0, 1, 2, 3};
  xgb::Matrix m(x, 4, 1, 1);
  const std::vector<float> labels = {0, 1, 0, 1};
  m.set_info("label", labels);
  try {
    m.set_info("wieght", labels);
    ADD_FAILURE() << "expected an error for an unknown info field";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("xgboost XGDMatrixSetFloatInfo failed: ", 0), 0u)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("wieght"), std::string::npos) << e.what();
  }
  xgb::Booster booster(m);
  booster.set_param("objective", "binary:logistic");
  booster.set_param("tree_method", "no_such_method");
  try {
    booster.update(0, m);
    ADD_FAILURE() << "expected an error for an unknown tree_method";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("xgboost XGBoosterUpdateOneIter failed: ", 0), 0u)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("no_such_method"), std::string::npos) << e.what();
  }
}

TEST(XgboostCapi, PredictsWithTheFirstRounds) {
  const std::vector<float> x = {0, 1, 2, 3, 4, 5};
  xgb::Matrix m(x, 6, 1, 1);
  const std::vector<float> labels = {0, 0, 0, 1, 1, 1};
  m.set_info("label", labels);
  xgb::Booster booster(m);
  booster.set_param("objective", "binary:logistic");
  booster.set_param("min_child_weight", "0");
  for (int it = 0; it < 3; ++it) booster.update(it, m);
  const auto p1 = booster.predict(m, 1), p3 = booster.predict(m, 3), all = booster.predict(m, 0);
  ASSERT_EQ(p1.size(), 6u);
  EXPECT_EQ(p3, all);
  EXPECT_LT(p1[5], p3[5]);  // more rounds: more confident on a separable toy
  EXPECT_GT(p1[5], 0.5f);
}

TEST(Xgboost, FixedPairBinaryProbabilities) {
  const Dataset d = noisy(120, 2, 1);
  const auto learner = make_learner("xgboost", Json{{"eta", 0.3}, {"nrounds", 10}});
  EXPECT_EQ(learner->name(), "xgboost");
  EXPECT_TRUE(learner->supports(TaskKind::classification));
  EXPECT_TRUE(learner->supports(TaskKind::regression));
  const auto model = learner->fit(d, all_rows(d), {.seed = 1, .threads = 1});
  ASSERT_EQ(model->n_outputs(), 2u);
  const auto out = predict_all(*model, d, all_rows(d));
  int right = 0;
  for (std::size_t i = 0; i < d.n_rows; ++i) {
    EXPECT_NEAR(out[2 * i] + out[2 * i + 1], 1.0, 1e-12);
    right += (out[2 * i + 1] > 0.5) == (d.y_class[i] == 1);
  }
  EXPECT_GT(right, 100);
  EXPECT_EQ(model->description().dump(), R"({"eta":0.3,"nrounds":10,"cv_error":null})");
}

TEST(Xgboost, TunedPairIsTheSameAtAnyThreadCount) {
  const Dataset d = noisy(90, 3, 2);
  const auto learner = make_learner(
      "xgboost", Json{{"etas", {0.1, 1.0}}, {"rounds", {1, 5, 10}}, {"internal_folds", 3}});
  const auto one = learner->fit(d, all_rows(d), {.seed = 4, .threads = 1});
  const auto three = learner->fit(d, all_rows(d), {.seed = 4, .threads = 3});
  EXPECT_EQ(one->description(), three->description());
  EXPECT_TRUE(one->description()["cv_error"].is_number());
  EXPECT_EQ(predict_all(*one, d, all_rows(d)), predict_all(*three, d, all_rows(d)));
}

TEST(Xgboost, UsesOnlyTheTrainRows) {
  const Dataset d = noisy(60, 2, 3);
  std::vector<std::uint32_t> even;
  Dataset sub = d;
  sub.n_rows = 30;
  sub.x.clear();
  sub.y_class.clear();
  for (std::uint32_t i = 0; i < 60; i += 2) {
    even.push_back(i);
    sub.x.insert(sub.x.end(), d.row(i), d.row(i) + 2);
    sub.y_class.push_back(d.y_class[i]);
  }
  const auto learner = make_learner("xgboost", Json{{"eta", 0.5}, {"nrounds", 4}});
  const auto a = learner->fit(d, even, {.seed = 0, .threads = 1});
  const auto b = learner->fit(sub, all_rows(sub), {.seed = 0, .threads = 1});
  EXPECT_EQ(predict_all(*a, d, all_rows(d)), predict_all(*b, d, all_rows(d)));
}

TEST(Xgboost, AbsentClassGetsProbabilityZero) {
  Dataset d = noisy(60, 3, 5);
  d.classes.push_back("d");                      // class "d" has no rows
  for (auto& c : d.y_class) c = c == 1 ? 3 : c;  // and now "b" has none either
  const auto model = make_learner("xgboost", Json{{"eta", 0.5}, {"nrounds", 3}})
                         ->fit(d, all_rows(d), {.seed = 0, .threads = 1});
  ASSERT_EQ(model->n_outputs(), 4u);
  const auto out = predict_all(*model, d, all_rows(d));
  for (std::size_t i = 0; i < d.n_rows; ++i) {
    EXPECT_EQ(out[4 * i + 1], 0.0);
    EXPECT_NEAR(out[4 * i] + out[4 * i + 2] + out[4 * i + 3], 1.0, 1e-6);
  }
  EXPECT_EQ(model->description()["absent_classes"], Json::array({"b"}));
}

TEST(Xgboost, OneClassOrZeroWeightIsALearnerFailure) {
  Dataset d = noisy(20, 2, 6);
  const auto learner = make_learner("xgboost", Json{{"eta", 0.5}, {"nrounds", 3}});
  std::vector<std::uint32_t> zeros;
  for (std::uint32_t i = 0; i < 20; ++i) {
    if (d.y_class[i] == 0) zeros.push_back(i);
  }
  EXPECT_THROW_MSG(learner->fit(d, zeros, {}), LearnerFailure,
                   "xgboost needs at least two classes in the train rows, found only class \"a\"");
  d.weights.assign(20, 0.0);
  EXPECT_THROW_MSG(learner->fit(d, all_rows(d), {}), LearnerFailure,
                   "the 20 train rows have total weight 0");
}

TEST(Xgboost, Regression) {
  Dataset d;
  d.task = TaskKind::regression;
  d.n_rows = 50;
  d.n_features = 1;
  d.feature_names = {"x"};
  for (int i = 0; i < 50; ++i) {
    d.x.push_back(i);
    d.y_value.push_back(i < 25 ? 1.0 : 3.0);
  }
  const auto model = make_learner("xgboost", Json{{"rounds", {10, 50}}, {"internal_folds", 5}})
                         ->fit(d, all_rows(d), {.seed = 0, .threads = 1});
  ASSERT_EQ(model->n_outputs(), 1u);
  const auto out = predict_all(*model, d, {0, 49});
  EXPECT_NEAR(out[0], 1.0, 0.05);
  EXPECT_NEAR(out[1], 3.0, 0.05);
  EXPECT_EQ(model->description()["eta"], 1.0);
}

TEST(Xgboost, BadParameters) {
  EXPECT_THROW_MSG(make_learner("xgboost", Json{{"max_depth", 0}}), Error,
                   "learner \"xgboost\" parameter \"max_depth\": expected an integer in [1, 64], "
                   "found 0");
  EXPECT_THROW_MSG(make_learner("xgboost", Json{{"etas", Json::array()}}), Error,
                   "learner \"xgboost\" parameter \"etas\": expected a non-empty array of "
                   "numbers, found []");
  const auto p = xgboost_params_from_json(Json{{"eta", 0.5}, {"rounds", {3, 7}}});
  EXPECT_EQ(p.etas, std::vector<double>{0.5});
  EXPECT_EQ(p.rounds, (std::vector<int>{3, 7}));
  const auto defaults = xgboost_params_from_json(Json::object());
  EXPECT_EQ(defaults.rounds, (std::vector<int>{1, 25, 50, 75, 100}));
  ASSERT_EQ(defaults.etas.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(defaults.etas[i], std::pow(10.0, -3.0 + 0.75 * static_cast<double>(i)));
  }
}

}  // namespace
}  // namespace assay::learners
