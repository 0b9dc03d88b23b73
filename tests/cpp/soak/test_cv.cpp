// soak/cv: plain and grouped K-fold cross-validation of the learners (cv_task, cv_experiment),
// and its checks of learners and parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/learners/learner.hpp"
#include "assay/soak/cv.hpp"
#include "cv_toy.hpp"
#include "test_util.hpp"

namespace assay::soak {
namespace {

using learners::Dataset;
using learners::TaskKind;

CvParams featureless_params(int threads = 1) {
  CvParams p;
  p.learners = {"featureless"};
  p.folds = 3;
  p.threads = threads;
  return p;
}

// K-fold featureless by hand: weighted majority of the rows outside the fold (ties: the first
// class), error = weighted share of the fold's rows not of that class.
double hand_error(std::int64_t fold, const std::vector<std::int64_t>& folds,
                  const std::vector<double>& w) {
  double count[3] = {0, 0, 0};
  for (std::size_t i = 0; i < kLabels.size(); ++i) {
    if (folds[i] != fold) count[kLabels[i]] += w.empty() ? 1 : w[i];
  }
  const auto majority = std::int32_t(std::max_element(count, count + 3) - count);
  double wrong = 0, total = 0;
  for (std::size_t i = 0; i < kLabels.size(); ++i) {
    if (folds[i] != fold) continue;
    const double wi = w.empty() ? 1 : w[i];
    total += wi;
    if (kLabels[i] != majority) wrong += wi;
  }
  return 100 * wrong / total;
}

TEST(Cv, FeaturelessErrorsEqualHandComputedKFold) {
  const std::vector<double> w{1, 2, 1, 1, 3, 1, 1, 1, 2, 1, 1, 1, 1, 5, 1};
  for (const auto& weights : {std::vector<double>{}, w}) {
    const CvParams params = featureless_params();
    std::vector<SoakTask> tasks;
    tasks.push_back(cv_task(toy(weights), params, {}, kFold));
    const CvOutcome out = run_cv(std::move(tasks), params);
    ASSERT_EQ(out.results.rows.size(), 3u);
    std::vector<double> errors;
    for (const auto& row : out.results.rows) {
      EXPECT_EQ(row.test_subset, "full");
      EXPECT_EQ(row.train_subsets, TrainSubsets::same);
      EXPECT_EQ(row.n_train + row.n_test, 15u);
      EXPECT_DOUBLE_EQ(row.error_percent, hand_error(row.test_fold, kFold, weights));
      errors.push_back(row.error_percent);
    }
    ASSERT_EQ(out.summaries.size(), 1u);
    const CvSummary& s = out.summaries[0];
    const double mean = (errors[0] + errors[1] + errors[2]) / 3;
    double ss = 0;
    for (double e : errors) ss += (e - mean) * (e - mean);
    EXPECT_EQ(out.measure, "error_percent");
    EXPECT_EQ(s.n, 3u);
    EXPECT_EQ(s.n_failed, 0u);
    EXPECT_NEAR(s.mean, mean, 1e-12);
    EXPECT_NEAR(s.sd, std::sqrt(ss / 2), 1e-12);
    EXPECT_TRUE(std::isnan(s.auc_mean));  // three classes: no AUC
    EXPECT_GE(s.train_seconds_mean, 0);
  }
}

TEST(Cv, RegressionMeasuresMse) {
  Dataset d;
  d.name = "reg";
  d.task = TaskKind::regression;
  d.n_rows = 12;
  d.n_features = 1;
  for (std::size_t i = 0; i < d.n_rows; ++i) {
    d.x.push_back(double(i));
    d.y_value.push_back(double(i * i % 7));
  }
  d.feature_names = {"x"};
  const std::vector<std::int64_t> folds{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
  CvParams params = featureless_params();
  params.task = TaskKind::regression;
  std::vector<SoakTask> tasks;
  tasks.push_back(cv_task(d, params, {}, folds));
  const CvOutcome out = run_cv(std::move(tasks), params);
  EXPECT_EQ(out.measure, "mse");
  double sum = 0;
  for (const auto& row : out.results.rows) {
    // Featureless regression: the mean of the other folds' targets.
    double mean = 0, n = 0, se = 0, m = 0;
    for (std::size_t i = 0; i < 12; ++i) {
      if (folds[i] != row.test_fold) mean += d.y_value[i], ++n;
    }
    mean /= n;
    for (std::size_t i = 0; i < 12; ++i) {
      if (folds[i] == row.test_fold) se += (d.y_value[i] - mean) * (d.y_value[i] - mean), ++m;
    }
    EXPECT_NEAR(row.mse, se / m, 1e-12);
    EXPECT_TRUE(std::isnan(row.error_percent));
    sum += row.mse;
  }
  EXPECT_NEAR(out.summaries[0].mean, sum / 3, 1e-12);
  EXPECT_TRUE(std::isnan(out.summaries[0].auc_mean));
}

TEST(Cv, RandomFoldsAreStratifiedByLabelAndCoverEveryRowOnce) {
  const CvParams params = featureless_params();
  std::vector<SoakTask> tasks;
  tasks.push_back(cv_task(toy(), params));
  const auto& splits = tasks[0].splits;
  ASSERT_EQ(splits.size(), 3u);
  std::vector<int> tested(15, 0);
  for (std::size_t i = 0; i < splits.size(); ++i) {
    for (auto r : splits.test_rows(i)) ++tested[r];
  }
  EXPECT_EQ(tested, std::vector<int>(15, 1));
  // Per class, fold sizes differ by at most one (7 rows of class 0 -> 3,2,2).
  for (std::int32_t c = 0; c < 3; ++c) {
    std::map<int, int> per_fold;
    for (std::size_t i = 0; i < 15; ++i) {
      if (kLabels[i] == c) ++per_fold[splits.folds()[i]];
    }
    int lo = 1 << 30, hi = 0;
    for (int f = 1; f <= 3; ++f) {
      lo = std::min(lo, per_fold[f]);
      hi = std::max(hi, per_fold[f]);
    }
    EXPECT_LE(hi - lo, 1) << "class " << c;
  }
  // The hand computation on the folds the splitter assigned.
  const std::vector<std::int64_t> folds(splits.folds().begin(), splits.folds().end());
  const CvOutcome out = run_cv(std::move(tasks), params);
  for (const auto& row : out.results.rows) {
    EXPECT_DOUBLE_EQ(row.error_percent, hand_error(row.test_fold, folds, {}));
  }
}

TEST(Cv, SameResultsAtAnyThreadCount) {
  auto run = [](int threads) {
    const CvParams params = featureless_params(threads);
    std::vector<SoakTask> tasks;
    tasks.push_back(cv_task(toy(), params));
    tasks.push_back(cv_task(toy({1, 2, 1, 1, 3, 1, 1, 1, 2, 1, 1, 1, 1, 5, 1}), params));
    tasks[1].dataset.name = "toy2";
    std::vector<double> errors;
    for (const auto& r : run_cv(std::move(tasks), params).results.rows)
      errors.push_back(r.error_percent);
    return errors;
  };
  EXPECT_EQ(run(1), run(2));
  EXPECT_EQ(run(1), run(4));
}

TEST(Cv, SummariesCountNaFoldsAndLeaveThemOut) {
  SoakResults results;
  auto row = [](std::string data, double error, double seconds, std::string failure) {
    SoakResultRow r;
    r.data = std::move(data);
    r.learner = "featureless";
    r.error_percent = error;
    r.auc = 0.5 + error / 100;
    r.train_seconds = seconds;
    r.predict_seconds = seconds / 10;
    r.failure = std::move(failure);
    return r;
  };
  results.rows = {row("a", 10, 1, ""), row("a", NAN, NAN, "one class"), row("a", 20, 3, ""),
                  row("b", 30, 2, ""), row("a", 30, 2, "")};
  const auto s = cv_summaries(results, "error_percent");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].data, "a");
  EXPECT_EQ(s[0].n, 3u);
  EXPECT_EQ(s[0].n_failed, 1u);
  EXPECT_EQ(s[0].first_failure, "one class");
  EXPECT_DOUBLE_EQ(s[0].mean, 20);
  EXPECT_DOUBLE_EQ(s[0].sd, 10);
  EXPECT_DOUBLE_EQ(s[0].auc_mean, 0.7);
  EXPECT_DOUBLE_EQ(s[0].train_seconds_mean, 2);
  EXPECT_DOUBLE_EQ(s[0].train_seconds_sd, 1);
  EXPECT_DOUBLE_EQ(s[0].predict_seconds_mean, 0.2);
  // One fold: mean, no SD.
  EXPECT_EQ(s[1].n, 1u);
  EXPECT_DOUBLE_EQ(s[1].mean, 30);
  EXPECT_TRUE(std::isnan(s[1].sd));
  // Equal values: exactly that value and SD 0 (no rounding noise).
  results.rows = {row("c", 100.0 / 11, 1, ""), row("c", 100.0 / 11, 1, ""),
                  row("c", 100.0 / 11, 1, "")};
  const auto equal = cv_summaries(results, "error_percent");
  EXPECT_EQ(equal[0].mean, 100.0 / 11);
  EXPECT_EQ(equal[0].sd, 0.0);
  EXPECT_THROW_MSG(cv_summaries(results, "accuracy"), Error,
                   "measure must be error_percent, auc, mse or mae, found \"accuracy\"");
}

TEST(Cv, FromTablesAndBadInput) {
  Table t;
  std::vector<std::string> y;
  std::vector<double> x, g;
  for (std::size_t i = 0; i < 15; ++i) {
    y.push_back(kLabels[i] == 0 ? "no" : "yes");
    x.push_back(double(i));
    g.push_back(double(i / 3));
  }
  t.add_column(Column::numeric("x", x));
  t.add_column(Column::numeric("g", g));
  t.add_column(Column::categorical("y", y));
  CvParams p = featureless_params();
  p.data.label = "y";
  p.group = "g";
  const CvOutcome out = cv_experiment({{"t", t}}, p);
  EXPECT_EQ(out.tasks[0].dataset.n_features, 1u);  // the group column is not a feature
  EXPECT_EQ(out.results.rows.size(), 3u);
  // Groups of 3 rows never split: every test fold is a union of whole groups.
  for (const auto& r : out.results.rows) EXPECT_EQ(r.n_test % 3, 0u);
  EXPECT_FALSE(std::isnan(out.summaries[0].auc_mean));  // two classes: AUC
  EXPECT_EQ(describe_cv(out, p),
            "K-fold cross-validation (SOAK paper §4.1) on t (15 rows, 1 features, 2 classes, "
            "grouped; 3 folds). Learners: featureless. Folds random within each class "
            "(stratified), groups of column \"g\" never split; seed = 1.");

  EXPECT_THROW_MSG(cv_experiment({}, p), Error,
                   "cross-validation needs at least one data set (found none)");
  EXPECT_THROW_MSG(cv_experiment({{"t", t}, {"t", t}}, p), Error,
                   "data set names must be unique (\"t\" appears twice)");
  CvParams unknown = p;
  unknown.learners = {"featureless", "forest"};
  EXPECT_THROW_MSG(cv_experiment({{"t", t}}, unknown), Error,
                   "unknown learner \"forest\"; known learners: featureless, glmnet, cart, knn, "
                   "xgboost");
  CvParams stray = p;
  stray.learner_params = {{"glmnet", {{"alpha", 0.5}}}};
  EXPECT_THROW_MSG(cv_experiment({{"t", t}}, stray), Error,
                   "parameters given for learner \"glmnet\", which is not among the learners "
                   "(featureless)");
  CvParams bad_key = p;
  bad_key.learner_params = {{"featureless", {{"alpha", 0.5}}}};
  EXPECT_THROW_MSG(cv_experiment({{"t", t}}, bad_key), Error,
                   "learner \"featureless\" has no parameter \"alpha\"; its parameters: none");
  CvParams one_fold = featureless_params();
  one_fold.folds = 1;
  EXPECT_THROW(cv_task(toy(), one_fold), Error);
}

}  // namespace
}  // namespace assay::soak
