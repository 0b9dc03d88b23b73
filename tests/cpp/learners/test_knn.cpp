// learners/knn: votes of the k nearest (ties to the lower train row), k tuned by internal CV
// independently of threads, constant features, weights, regression and bad parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "assay/core/rng.hpp"
#include "assay/learners/dataset.hpp"
#include "assay/learners/knn.hpp"
#include "assay/learners/learner.hpp"
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
  std::iota(rows.begin(), rows.end(), 0u);
  return rows;
}

// Row-major features x (n_features columns) with class codes y.
Dataset classification(std::vector<double> x, std::size_t n_features, std::vector<std::int32_t> y,
                       std::size_t n_classes, std::vector<double> weights = {}) {
  Dataset d;
  d.name = "toy";
  d.n_rows = y.size();
  d.n_features = n_features;
  d.x = std::move(x);
  for (std::size_t j = 0; j < n_features; ++j) d.feature_names.push_back("x" + std::to_string(j));
  d.y_class = std::move(y);
  for (std::size_t k = 0; k < n_classes; ++k) d.classes.push_back(std::string(1, char('a' + k)));
  d.weights = std::move(weights);
  return d;
}

// n rows of p standard normal features (Box-Muller), 3 classes from the first two features.
Dataset random_data(std::size_t n, std::size_t p, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> x(n * p);
  for (double& v : x) {
    v = std::sqrt(-2 * std::log(1 - rng.uniform())) * std::cos(6.283185307179586 * rng.uniform());
  }
  std::vector<std::int32_t> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double s = x[i * p] + 0.5 * x[i * p + 1] + 0.7 * (rng.uniform() - 0.5);
    y[i] = s < -0.4 ? 0 : (s < 0.4 ? 1 : 2);
  }
  return classification(std::move(x), p, std::move(y), 3);
}

TEST(Knn, VoteSharesOfTheKNearest) {
  // One feature: 0,1,2 (class a) and 10,11,12 (class b); rows 6, 7 are queries at 3 and 10.4.
  const Dataset d = classification({0, 1, 2, 10, 11, 12, 3, 10.4}, 1, {0, 0, 0, 1, 1, 1, 0, 0}, 2);
  const std::vector<std::uint32_t> train{0, 1, 2, 3, 4, 5};
  const auto learner = make_learner("knn", Json{{"k", 4}});
  EXPECT_EQ(learner->name(), "knn");
  EXPECT_TRUE(learner->supports(TaskKind::regression));
  const auto model = learner->fit(d, train, {});
  ASSERT_EQ(model->n_outputs(), 2u);
  // Query 3: nearest 2, 1, 0, then 10 -> 3/4 a. Query 10.4: 10, 11, 12, then 2 -> 1/4 a.
  EXPECT_EQ(predict_all(*model, d, {6, 7}), (std::vector<double>{0.75, 0.25, 0.25, 0.75}));
  EXPECT_EQ(model->description().dump(), R"({"k":4,"cv_error":null})");
}

TEST(Knn, DistanceTiesGoToTheLowerTrainRow) {
  // Train rows at 1, -1, 1, -1 (classes b, a, a, b: mean 0, SD 1 exactly); the query at 0 is
  // at distance 1 from all four. k = 1 takes row 0, k = 2 rows 0 and 1, k = 3 rows 0, 1, 2.
  const Dataset d = classification({1, -1, 1, 0, -1}, 1, {1, 0, 0, 0, 1}, 2);
  const std::vector<std::uint32_t> train{0, 1, 2, 4};
  EXPECT_EQ(predict_all(*make_knn(Json{{"k", 1}})->fit(d, train, {}), d, {3}),
            (std::vector<double>{0, 1}));
  EXPECT_EQ(predict_all(*make_knn(Json{{"k", 2}})->fit(d, train, {}), d, {3}),
            (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(predict_all(*make_knn(Json{{"k", 3}})->fit(d, train, {}), d, {3}),
            (std::vector<double>{2.0 / 3, 1.0 / 3}));
}

TEST(Knn, TunedKDoesNotDependOnThreads) {
  const Dataset d = random_data(700, 4, 11);
  const auto rows = all_rows(d);
  const auto learner = make_learner("knn");
  const auto one = learner->fit(d, rows, {.seed = 5, .threads = 1});
  const auto four = learner->fit(d, rows, {.seed = 5, .threads = 4});
  EXPECT_EQ(one->description().dump(), four->description().dump());
  const int k = one->description()["k"].get<int>();
  EXPECT_GE(k, 1);
  EXPECT_LE(k, 20);
  const double cv_error = one->description()["cv_error"].get<double>();
  EXPECT_GT(cv_error, 0.0);
  EXPECT_LT(cv_error, 0.5);
  EXPECT_EQ(predict_all(*one, d, rows), predict_all(*four, d, rows));
  // The tuned model predicts as the fixed-k model with the chosen k.
  const auto fixed = make_learner("knn", Json{{"k", k}})->fit(d, rows, {.seed = 99});
  EXPECT_EQ(predict_all(*one, d, rows), predict_all(*fixed, d, rows));
}

TEST(Knn, ConstantFeaturesChangeNothing) {
  Dataset d = random_data(200, 2, 4);
  Dataset wide = d;
  wide.n_features = 4;
  wide.feature_names = {"x0", "c", "x1", "zero"};
  wide.x.clear();
  for (std::size_t i = 0; i < d.n_rows; ++i) {
    wide.x.insert(wide.x.end(), {d.x[i * 2], 1e6, d.x[i * 2 + 1], 0.0});
  }
  const auto rows = all_rows(d);
  const auto a = make_learner("knn")->fit(d, rows, {.seed = 1});
  const auto b = make_learner("knn")->fit(wide, rows, {.seed = 1});
  EXPECT_EQ(a->description().dump(), b->description().dump());
  EXPECT_EQ(predict_all(*a, d, rows), predict_all(*b, wide, rows));
}

TEST(Knn, AllFeaturesConstantTakesTheFirstTrainRows) {
  // Every distance is 0: the k nearest are the first k train rows (ties → lower position).
  const Dataset d = classification({3, 3, 3, 3, 3, 3}, 1, {1, 0, 0, 1, 1, 0}, 2);
  const auto model = make_knn(Json{{"k", 3}})->fit(d, std::vector<std::uint32_t>{4, 1, 2, 3}, {});
  EXPECT_EQ(predict_all(*model, d, {0, 5}),
            (std::vector<double>{2.0 / 3, 1.0 / 3, 2.0 / 3, 1.0 / 3}));
}

TEST(Knn, OneClassPredictsItWithProbabilityOne) {
  const Dataset d = classification({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 1,
                                   {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}, 2);
  const std::vector<std::uint32_t> train{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const auto model = make_knn(Json{{"k_max", 5}, {"internal_folds", 2}})->fit(d, train, {});
  EXPECT_EQ(model->description().dump(), R"({"k":1,"cv_error":0.0})");
  EXPECT_EQ(predict_all(*model, d, {11}), (std::vector<double>{0, 1}));
}

TEST(Knn, WeightsScaleVotesAndZeroWeightRowsAreNoNeighbours) {
  // Rows 0..3 at 0, 1, 2, 3 (classes a, b, b, a) with weights 3, 1, 0, 2; query at 1.2.
  const Dataset d = classification({0, 1, 2, 3, 1.2}, 1, {0, 1, 1, 0, 0}, 2, {3, 1, 0, 2, 1});
  const std::vector<std::uint32_t> train{0, 1, 2, 3};
  // k = 2: rows 1 (b, w 1) and 0 (a, w 3); row 2 (weight 0) is skipped.
  EXPECT_EQ(predict_all(*make_knn(Json{{"k", 2}})->fit(d, train, {}), d, {4}),
            (std::vector<double>{0.75, 0.25}));
  // k = 3 takes every row of positive weight; k = 4 has too few.
  EXPECT_EQ(predict_all(*make_knn(Json{{"k", 3}})->fit(d, train, {}), d, {4}),
            (std::vector<double>{5.0 / 6, 1.0 / 6}));
  EXPECT_THROW_MSG(make_knn(Json{{"k", 4}})->fit(d, train, {}), LearnerFailure,
                   "knn with k = 4 needs at least 4 train rows of positive weight, found 3");
  Dataset zero = d;
  zero.weights = {0, 0, 0, 0, 1};
  EXPECT_THROW_MSG(make_knn(Json{{"k", 1}})->fit(zero, train, {}), LearnerFailure,
                   "the 4 train rows have total weight 0");
}

TEST(Knn, WeightsOfZeroAndOneEqualTheSubset) {
  // Zero-weight rows drop out of the scaler and the search: the same predictions as fitting the
  // rows of weight 1 alone (fixed k; tuning would use other folds).
  Dataset d = random_data(300, 3, 8);
  std::vector<std::uint32_t> kept;
  d.weights.assign(d.n_rows, 1.0);
  for (std::size_t i = 0; i < d.n_rows; ++i) {
    if (i % 3 == 0) {
      d.weights[i] = 0;
    } else {
      kept.push_back(static_cast<std::uint32_t>(i));
    }
  }
  Dataset plain = d;
  plain.weights.clear();
  const auto rows = all_rows(d);
  const auto weighted = make_knn(Json{{"k", 5}})->fit(d, rows, {});
  const auto subset = make_knn(Json{{"k", 5}})->fit(plain, kept, {});
  EXPECT_EQ(predict_all(*weighted, d, rows), predict_all(*subset, plain, rows));
}

TEST(Knn, RegressionMeanOfNeighbours) {
  Dataset d;
  d.task = TaskKind::regression;
  d.n_rows = 5;
  d.n_features = 1;
  d.x = {0, 1, 2, 10, 1.4};
  d.feature_names = {"x"};
  d.y_value = {1, 2, 4, 100, 0};
  const auto model = make_knn(Json{{"k", 3}})->fit(d, std::vector<std::uint32_t>{0, 1, 2, 3}, {});
  ASSERT_EQ(model->n_outputs(), 1u);
  EXPECT_EQ(predict_all(*model, d, {4}), (std::vector<double>{7.0 / 3}));
  const auto tuned = make_knn(Json{{"k_max", 3}, {"internal_folds", 2}})
                         ->fit(d, std::vector<std::uint32_t>{0, 1, 2, 3}, {.seed = 2});
  EXPECT_TRUE(tuned->description()["cv_error"].is_number());
}

TEST(Knn, TooFewRowsForTheCandidates) {
  const Dataset d = random_data(12, 2, 1);
  const std::vector<std::uint32_t> few{0, 1, 2, 3, 4};
  EXPECT_THROW_MSG(make_knn(Json{{"k", 6}})->fit(d, few, {}), LearnerFailure,
                   "knn with k = 6 needs at least 6 train rows, found 5");
  // 12 rows in 10 folds: inner-train folds of 10 or 11 rows, so k is tuned over 1..10.
  const auto model = make_knn(Json::object())->fit(d, all_rows(d), {.seed = 3});
  EXPECT_LE(model->description()["k"].get<int>(), 10);
  EXPECT_THROW_MSG(make_knn(Json{{"k_min", 11}, {"k_max", 20}})->fit(d, all_rows(d), {}),
                   LearnerFailure,
                   "knn: no candidate k in 11..20 fits the smallest inner-train fold of internal "
                   "10-fold cross-validation (10 rows)");
  EXPECT_THROW_MSG(make_knn(Json::object())->fit(d, few, {}), LearnerFailure,
                   "internal 10-fold cross-validation needs at least 10 train rows, found 5");
}

TEST(Knn, InvalidParameters) {
  EXPECT_THROW_MSG(make_learner("knn", Json{{"k", 0}}), Error,
                   "learner \"knn\" parameter \"k\": expected an integer in [1, 1000000], found 0");
  EXPECT_THROW_MSG(make_learner("knn", Json{{"k", 2.5}}), Error,
                   "learner \"knn\" parameter \"k\": expected an integer, found 2.5");
  EXPECT_THROW_MSG(make_learner("knn", Json{{"k_min", 5}, {"k_max", 3}}), Error,
                   "learner \"knn\": expected k_min <= k_max, found k_min = 5 and k_max = 3");
  EXPECT_THROW_MSG(make_learner("knn", Json{{"k", 5}, {"k_max", 3}}), Error,
                   "learner \"knn\": give either \"k\" or \"k_min\"/\"k_max\", found both");
  EXPECT_THROW_MSG(make_learner("knn", Json{{"k_min", 30}}), Error,
                   "learner \"knn\": expected k_min <= k_max, found k_min = 30 and k_max = 20");
  EXPECT_THROW_MSG(
      make_learner("knn", Json{{"internal_folds", 1}}), Error,
      "learner \"knn\" parameter \"internal_folds\": expected an integer in [2, 1000], found 1");
  EXPECT_THROW_MSG(make_learner("knn", Json{{"neighbours", 3}}), Error,
                   "learner \"knn\" has no parameter \"neighbours\"; its parameters: k, k_min, "
                   "k_max, internal_folds");
  EXPECT_THROW_MSG(make_knn(KnnParams{.k_min = 0, .k_max = 3, .internal_folds = 10}), Error,
                   "knn: expected 1 <= k_min <= k_max, found k_min = 0 and k_max = 3");
}

}  // namespace
}  // namespace assay::learners
