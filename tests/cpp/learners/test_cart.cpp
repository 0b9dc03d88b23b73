// cart: rules checked on hand-made data (tests/python/test_cart.py compares with R's rpart).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "assay/learners/cart.hpp"
#include "assay/learners/dataset.hpp"
#include "assay/learners/learner.hpp"
#include "test_util.hpp"

namespace assay::learners {
namespace {

// One feature per column of `columns` (all the same length), classes "a", "b", ...
Dataset make_data(std::vector<std::vector<double>> columns, std::vector<std::int32_t> y,
                  std::size_t n_classes, std::vector<double> weights = {}) {
  Dataset d;
  d.name = "toy";
  d.n_rows = y.size();
  d.n_features = columns.size();
  d.x.resize(d.n_rows * d.n_features);
  for (std::size_t j = 0; j < columns.size(); ++j) {
    d.feature_names.push_back("f" + std::to_string(j));
    for (std::size_t i = 0; i < d.n_rows; ++i) d.x[i * d.n_features + j] = columns[j][i];
  }
  d.y_class = std::move(y);
  for (std::size_t k = 0; k < n_classes; ++k) d.classes.push_back(std::string(1, char('a' + k)));
  d.weights = std::move(weights);
  return d;
}

std::vector<std::uint32_t> all_rows(const Dataset& d) {
  std::vector<std::uint32_t> rows(d.n_rows);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint32_t>(i);
  return rows;
}

Json fit_tree(const Dataset& d, Json params = Json::object(), int threads = 1) {
  params["record_tree"] = true;
  return make_learner("cart", params)
      ->fit(d, all_rows(d), {.seed = 0, .threads = threads})
      ->description();
}

std::vector<double> predict(const Dataset& d, Json params = Json::object()) {
  const auto model = make_learner("cart", params)->fit(d, all_rows(d), {});
  std::vector<double> out(d.n_rows * model->n_outputs());
  model->predict(d, all_rows(d), out);
  return out;
}

TEST(Cart, SeparableDataGiveOneSplitAtTheMidpoint) {
  // x = 1..40, class b exactly when x > 20: one split at 20.5; x < 20.5 holds class a, whose
  // code is lower, so it goes left (rpart's ncat -1).
  std::vector<double> x;
  std::vector<std::int32_t> y;
  for (int i = 1; i <= 40; ++i) {
    x.push_back(i);
    y.push_back(i > 20 ? 1 : 0);
  }
  const Dataset d = make_data({x}, y, 2);
  const Json desc = fit_tree(d);
  EXPECT_EQ(desc["nodes"], 3);
  EXPECT_EQ(desc["leaves"], 2);
  EXPECT_EQ(desc["depth"], 1);
  const Json& root = desc["tree"][0];
  EXPECT_EQ(root["var"], "f0");
  EXPECT_EQ(root["threshold"], 20.5);
  EXPECT_EQ(root["ncat"], -1);
  EXPECT_EQ(desc["tree"][1]["node"], 2);
  EXPECT_EQ(desc["tree"][1]["n"], 20);
  EXPECT_EQ(desc["tree"][2]["node"], 3);
  const auto p = predict(d);
  EXPECT_EQ(p[0], 1.0);   // x = 1: class a
  EXPECT_EQ(p[79], 1.0);  // x = 40: class b
}

TEST(Cart, DirectionFollowsTheClassMeans) {
  // Class b on the low side: x < threshold goes right (ncat +1), as rpart reports it.
  std::vector<double> x;
  std::vector<std::int32_t> y;
  for (int i = 1; i <= 40; ++i) {
    x.push_back(i);
    y.push_back(i <= 20 ? 1 : 0);
  }
  const Json desc = fit_tree(make_data({x}, y, 2));
  EXPECT_EQ(desc["tree"][0]["ncat"], 1);
  EXPECT_EQ(desc["tree"][1]["n"], 20);
  EXPECT_EQ(desc["tree"][1]["yval"], 0);  // node 2 (left) holds the x >= 20.5 rows, class a
}

TEST(Cart, TooFewRowsForMinSplit) {
  std::vector<double> x;
  std::vector<std::int32_t> y;
  for (int i = 0; i < 19; ++i) {
    x.push_back(i);
    y.push_back(i < 10 ? 0 : 1);
  }
  EXPECT_EQ(fit_tree(make_data({x}, y, 2))["nodes"], 1);
  EXPECT_EQ(fit_tree(make_data({x}, y, 2), {{"min_split", 19}})["nodes"], 3);
}

TEST(Cart, MinBucketAndComplexityPruning) {
  // Class b only at x = 1, 2, 3 of 1..30. The pure 3-row leaf needs min_bucket <= 3; with the
  // default 7, the admissible splits leave the risk at 3 misclassified rows, so cp prunes them.
  std::vector<double> x;
  std::vector<std::int32_t> y;
  for (int i = 1; i <= 30; ++i) {
    x.push_back(i);
    y.push_back(i <= 3 ? 1 : 0);
  }
  const Dataset d = make_data({x}, y, 2);
  EXPECT_EQ(fit_tree(d)["nodes"], 1);
  const Json small = fit_tree(d, {{"min_bucket", 3}});  // min_split becomes 9, as rpart.control
  EXPECT_EQ(small["nodes"], 3);
  EXPECT_EQ(small["tree"][0]["threshold"], 3.5);
}

TEST(Cart, ThresholdsLieBetweenDistinctValuesOnly) {
  // Ties: values 0 (10 rows), 1 (10 rows), 2 (10 rows); class b for value 2 only, except that
  // one row of value 1 is class b too. The split must not cut through the tied value 1.
  std::vector<double> x;
  std::vector<std::int32_t> y;
  for (int v = 0; v < 3; ++v) {
    for (int i = 0; i < 10; ++i) {
      x.push_back(v);
      y.push_back(v == 2 || (v == 1 && i == 0) ? 1 : 0);
    }
  }
  const Json desc = fit_tree(make_data({x}, y, 2));
  EXPECT_EQ(desc["tree"][0]["threshold"], 1.5);
}

TEST(Cart, ZeroWeightRowsAreRoutedButDoNotChooseSplits) {
  // Rows 0..39 as in the separable case; rows 40..59 have weight 0 and the opposite labels.
  std::vector<double> x;
  std::vector<std::int32_t> y;
  std::vector<double> w;
  for (int i = 1; i <= 60; ++i) {
    const int v = i <= 40 ? i : i - 40;
    x.push_back(v);
    y.push_back((v > 20) == (i <= 40) ? 1 : 0);
    w.push_back(i <= 40 ? 2.0 : 0.0);
  }
  const Json desc = fit_tree(make_data({x}, y, 2, w));
  ASSERT_EQ(desc["nodes"], 3);
  EXPECT_EQ(desc["tree"][0]["threshold"], 20.5);
  EXPECT_EQ(desc["tree"][0]["n"], 60);
  EXPECT_EQ(desc["tree"][0]["wt"], 80.0);
  EXPECT_EQ(desc["tree"][1]["n"], 40);  // 20 weighted rows and 20 of weight 0
  EXPECT_EQ(desc["tree"][1]["prob"], Json::array({1.0, 0.0}));
}

TEST(Cart, OneClassOrConstantFeaturesGiveOneLeaf) {
  std::vector<double> x(30), constant(30, 4.0);
  std::vector<std::int32_t> one_class(30, 2), mixed(30);
  for (int i = 0; i < 30; ++i) {
    x[i] = i;
    mixed[i] = i % 2;
  }
  const Dataset pure = make_data({x}, one_class, 3);
  EXPECT_EQ(fit_tree(pure)["nodes"], 1);
  EXPECT_EQ(predict(pure)[0 * 3 + 2], 1.0);
  const Dataset flat = make_data({constant, constant}, mixed, 2);
  EXPECT_EQ(fit_tree(flat)["nodes"], 1);
  EXPECT_EQ(predict(flat)[0], 0.5);
}

TEST(Cart, MaxDepthLimitsTheTree) {
  std::mt19937 gen(3);
  std::normal_distribution<double> normal;
  std::vector<double> a(400), b(400);
  std::vector<std::int32_t> y(400);
  for (int i = 0; i < 400; ++i) {
    a[i] = normal(gen);
    b[i] = normal(gen);
    y[i] = (a[i] * b[i] > 0) ? 1 : 0;
  }
  const Dataset d = make_data({a, b}, y, 2);
  EXPECT_LE(fit_tree(d, {{"max_depth", 1}})["depth"], 1);
  EXPECT_GT(fit_tree(d, {{"cp", 0.0}})["depth"], 2);
}

TEST(Cart, SameTreeAtAnyThreadCount) {
  std::mt19937 gen(5);
  std::normal_distribution<double> normal;
  const int n = 6000;  // 6000 x 12 entries: large nodes take the parallel path
  std::vector<std::vector<double>> cols(12, std::vector<double>(n));
  std::vector<std::int32_t> y(n);
  std::vector<double> w(n);
  for (int i = 0; i < n; ++i) {
    for (auto& c : cols) c[i] = std::round(normal(gen) * 4) / 4;
    y[i] = (cols[0][i] + cols[1][i] + normal(gen) > 0) + (cols[2][i] > 1 ? 1 : 0);
    w[i] = std::abs(normal(gen));
  }
  const Dataset d = make_data(cols, y, 3, w);
  const Json params = {{"cp", 0.001}};
  EXPECT_EQ(fit_tree(d, params, 1), fit_tree(d, params, 4));
}

TEST(Cart, ParametersAndBadInput) {
  EXPECT_THROW_MSG(make_learner("cart", {{"cp", 2}}), Error,
                   "learner \"cart\" parameter \"cp\": expected a number in [0, 1], found 2");
  EXPECT_THROW_MSG(make_learner("cart", {{"max_depth", 31}}), Error,
                   "learner \"cart\" parameter \"max_depth\": expected an integer in [1, 30], "
                   "found 31");
  EXPECT_THROW_MSG(make_learner("cart", {{"min_split", 2.5}}), Error,
                   "learner \"cart\" parameter \"min_split\": expected an integer, found 2.5");
  EXPECT_THROW(make_learner("cart", {{"minsplit", 3}}), Error);
  const auto cart = make_learner("cart");
  EXPECT_EQ(cart->name(), "cart");
  EXPECT_TRUE(cart->supports(TaskKind::classification));
  EXPECT_FALSE(cart->supports(TaskKind::regression));

  Dataset zero = make_data({{1, 2, 3}}, {0, 1, 0}, 2, {0, 0, 0});
  EXPECT_THROW_MSG(cart->fit(zero, all_rows(zero), {}), LearnerFailure,
                   "the 3 train rows have total weight 0");
  Dataset regression = make_data({{1, 2, 3}}, {0, 0, 0}, 0);
  regression.task = TaskKind::regression;
  regression.y_class.clear();
  regression.y_value = {1, 2, 3};
  EXPECT_THROW_MSG(cart->fit(regression, all_rows(regression), {}), Error,
                   "learner \"cart\" supports classification only, found a regression task");
}

}  // namespace
}  // namespace assay::learners
