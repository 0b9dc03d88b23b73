// learners/learner: the registry (make_learner, learner_names), ParamReader's checks of each
// kind of parameter with messages naming the learner and key, and internal_fold_ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/learners/learner.hpp"
#include "test_util.hpp"

namespace assay::learners {
namespace {

TEST(Learners, Registry) {
  EXPECT_EQ(learner_names(),
            (std::vector<std::string>{"featureless", "glmnet", "cart", "knn", "xgboost"}));
  EXPECT_THROW_MSG(
      make_learner("xyz"), Error,
      "unknown learner \"xyz\"; known learners: featureless, glmnet, cart, knn, xgboost");
  for (const auto& name : learner_names()) EXPECT_NE(make_learner(name), nullptr) << name;
  EXPECT_NE(make_learner("featureless", Json(nullptr)), nullptr);  // null = defaults
  EXPECT_THROW_MSG(make_learner("knn", Json::array({1})), Error,
                   "parameters of learner \"knn\" must be a JSON object, found [1]");
}

TEST(ParamReader, AbsentOrNullKeysGiveTheFallback) {
  ParamReader read("glmnet", Json{{"alpha", nullptr}});
  EXPECT_EQ(read.number("alpha", 0.5), 0.5);
  EXPECT_EQ(read.integer("folds", 10, 2, 100), 10);
  EXPECT_TRUE(read.boolean("standardize", true));
  EXPECT_EQ(read.choice("rule", "lambda.1se", {"lambda.min", "lambda.1se"}), "lambda.1se");
  EXPECT_EQ(read.numbers("lambdas", {1, 2}), (std::vector<double>{1, 2}));
  EXPECT_NO_THROW(read.finish());
  EXPECT_THROW_MSG(ParamReader("cart", Json("cp=1")), Error,
                   "parameters of learner \"cart\" must be a JSON object, found \"cp=1\"");
}

TEST(ParamReader, NumbersAndIntegers) {
  ParamReader read("knn", Json{{"x", 0.25}, {"k", 7}, {"f", 3.0}, {"big", 1e300}});
  EXPECT_EQ(read.number("x", 0, 0, 1), 0.25);
  EXPECT_EQ(read.integer("k", 1, 1, 100), 7);
  EXPECT_EQ(read.integer("f", 1, 1, 100), 3);  // a float that is an integer
  EXPECT_EQ(read.number("big", 0), 1e300);
  EXPECT_THROW_MSG(ParamReader("knn", Json{{"x", 1.5}}).number("x", 0, 0, 1), Error,
                   "learner \"knn\" parameter \"x\": expected a number in [0, 1], found 1.5");
  EXPECT_THROW_MSG(ParamReader("knn", Json{{"x", "a"}}).number("x", 0), Error,
                   "learner \"knn\" parameter \"x\": expected a number, found \"a\"");
  EXPECT_THROW_MSG(ParamReader("knn", Json{{"k", 2.5}}).integer("k", 1, 1, 10), Error,
                   "learner \"knn\" parameter \"k\": expected an integer, found 2.5");
  EXPECT_THROW_MSG(ParamReader("knn", Json{{"k", 1e16}}).integer("k", 1, 1, 10), Error,
                   "learner \"knn\" parameter \"k\": expected an integer, found 1e+16");
  EXPECT_THROW_MSG(ParamReader("knn", Json{{"k", 0}}).integer("k", 1, 1, 10), Error,
                   "learner \"knn\" parameter \"k\": expected an integer in [1, 10], found 0");
  EXPECT_THROW_MSG(ParamReader("knn", Json{{"k", true}}).integer("k", 1, 1, 10), Error,
                   "learner \"knn\" parameter \"k\": expected an integer, found true");
}

TEST(ParamReader, BooleansChoicesAndArrays) {
  ParamReader read("xgboost", Json{{"b", false}, {"c", "hist"}, {"etas", {0.1, 1}}, {"one", 0.3}});
  EXPECT_FALSE(read.boolean("b", true));
  EXPECT_EQ(read.choice("c", "exact", {"exact", "hist"}), "hist");
  EXPECT_EQ(read.numbers("etas", {}, 0, 1), (std::vector<double>{0.1, 1}));
  EXPECT_EQ(read.numbers("one", {}, 0, 1), (std::vector<double>{0.3}));  // a number is a list
  EXPECT_NO_THROW(read.finish());
  EXPECT_THROW_MSG(ParamReader("x", Json{{"b", 1}}).boolean("b", true), Error,
                   "learner \"x\" parameter \"b\": expected true or false, found 1");
  EXPECT_THROW_MSG(ParamReader("x", Json{{"c", "approx"}}).choice("c", "exact", {"exact", "hist"}),
                   Error,
                   "learner \"x\" parameter \"c\": expected one of exact, hist, found \"approx\"");
  EXPECT_THROW_MSG(
      ParamReader("x", Json{{"e", Json::array()}}).numbers("e", {}), Error,
      "learner \"x\" parameter \"e\": expected a non-empty array of numbers, found []");
  EXPECT_THROW_MSG(ParamReader("x", Json{{"e", {0.5, 2}}}).numbers("e", {}, 0, 1), Error,
                   "learner \"x\" parameter \"e\": expected numbers in [0, 1], found 2");
  EXPECT_THROW_MSG(ParamReader("x", Json{{"e", {0.5, "a"}}}).numbers("e", {}, 0, 1), Error,
                   "learner \"x\" parameter \"e\": expected numbers in [0, 1], found \"a\"");
}

TEST(ParamReader, FinishNamesTheUnknownKeyAndTheKnownOnes) {
  ParamReader read("glmnet", Json{{"alpha", 0.5}, {"alpah", 1}});
  read.number("alpha", 1, 0, 1);
  read.integer("folds", 10, 2, 100);
  EXPECT_THROW_MSG(read.finish(), Error,
                   "learner \"glmnet\" has no parameter \"alpah\"; its parameters: alpha, folds");
  ParamReader none("featureless", Json{{"k", 1}});
  EXPECT_THROW_MSG(none.finish(), Error,
                   "learner \"featureless\" has no parameter \"k\"; its parameters: none");
}

TEST(InternalFolds, BalancedSeededPermutation) {
  const std::vector<int> ids = internal_fold_ids(11, 3, 5);
  ASSERT_EQ(ids.size(), 11u);
  std::vector<int> sizes(3, 0);
  for (const int f : ids) {
    ASSERT_GE(f, 0);
    ASSERT_LT(f, 3);
    ++sizes[static_cast<std::size_t>(f)];
  }
  EXPECT_EQ(sizes, (std::vector<int>{4, 4, 3}));  // 0,1,2,0,1,2,... permuted
  EXPECT_EQ(internal_fold_ids(11, 3, 5), ids);
  EXPECT_NE(internal_fold_ids(11, 3, 6), ids);
  EXPECT_EQ(internal_fold_ids(2, 2, 1).size(), 2u);
  EXPECT_THROW_MSG(internal_fold_ids(4, 5, 1), LearnerFailure,
                   "internal 5-fold cross-validation needs at least 5 train rows, found 4");
}

}  // namespace
}  // namespace assay::learners
