#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <set>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "assay/learners/learner.hpp"
#include "assay/soak/experiment.hpp"
#include "assay/soak/statistics.hpp"
#include "test_util.hpp"

namespace assay::soak {
namespace {

using learners::Dataset;
using learners::TaskKind;

// 12 rows: subset A = rows 0..5, subset B = rows 6..11; given folds 1,2,3,1,2,3,...
// Labels: A has both classes everywhere; in B only row 11 (fold 3) is class 0, so B's test set
// of fold 1 has one class and B's Same train set of fold 3 has one class.
const std::vector<std::int32_t> kLabels{0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0};
const std::vector<std::int32_t> kSubset{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
const std::vector<std::int64_t> kFold{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};

SoakTask toy_task(std::vector<double> weights = {}) {
  Dataset d;
  d.name = "toy";
  d.n_rows = kLabels.size();
  d.n_features = 1;
  for (std::size_t i = 0; i < d.n_rows; ++i) d.x.push_back(double(i));
  d.feature_names = {"x"};
  d.y_class = kLabels;
  d.classes = {"no", "yes"};
  d.weights = std::move(weights);
  SoakDesign design;
  design.subset = kSubset;
  design.subset_names = {"A", "B"};
  design.fold = kFold;
  return SoakTask{std::move(d), SoakSplits(std::move(design), SoakSplitParams{})};
}

// Featureless by hand from the set definitions (SOAK paper §3.1): the weighted majority class of
// Same/Other/All (ties: class 0), error = weighted share of test rows not of that class.
double hand_error(const SoakResultRow& row, const std::vector<double>& w) {
  const std::int32_t sigma = row.test_subset == "A" ? 0 : 1;
  double count[2] = {0, 0};
  for (std::size_t i = 0; i < kLabels.size(); ++i) {
    const bool other_fold = kFold[i] != row.test_fold;
    const bool same = kSubset[i] == sigma;
    const bool in = other_fold && (row.train_subsets == TrainSubsets::all ||
                                   (row.train_subsets == TrainSubsets::same) == same);
    if (in) count[kLabels[i]] += w.empty() ? 1 : w[i];
  }
  const std::int32_t majority = count[1] > count[0] ? 1 : 0;
  double wrong = 0, total = 0;
  for (std::size_t i = 0; i < kLabels.size(); ++i) {
    if (kFold[i] != row.test_fold || kSubset[i] != sigma) continue;
    const double wi = w.empty() ? 1 : w[i];
    total += wi;
    if (kLabels[i] != majority) wrong += wi;
  }
  return 100 * wrong / total;
}

// Rows 0 and 3 (subset A, fold 1) weigh 0: A's fold-1 test set has total weight 0, so its
// error is undefined and the row says why (instead of a bare NaN).
TEST(RunSoak, TestRowsOfTotalWeightZeroSayWhy) {
  std::vector<std::string> warnings;
  ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  const SoakResults r =
      run_soak({toy_task({0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1})}, SoakParams{.threads = 1});
  std::size_t undefined = 0;
  for (const auto& row : r.rows) {
    if (row.test_subset == "A" && row.test_fold == 1) {
      ++undefined;
      EXPECT_TRUE(std::isnan(row.error_percent));
      EXPECT_EQ(row.failure, "the 2 test rows have total weight 0");
    } else {
      EXPECT_EQ(row.failure, "") << "iteration " << row.iteration;
    }
  }
  EXPECT_EQ(undefined, 3u);  // same, other, all
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(
      warnings[0],
      "learner \"featureless\" on data set \"toy\": 3 of 18 splits gave NA; first: iteration 1 "
      "(all train, test subset A, fold 1): the 2 test rows have total weight 0");
}

// score_classification by its definition: weighted error; AUC of the class-1 scores, defined
// only when both classes have positive test weight; total weight 0 is NaN with the reason.
TEST(SplitScore, ClassificationByDefinition) {
  const std::vector<std::int32_t> y{0, 1, 1, 0}, predicted{0, 1, 0, -1};
  const std::vector<double> score{0.2, 0.9, 0.4, 0.6}, w{1, 2, 3, 4};
  SplitScore s = score_classification(y, predicted, score, w, 2);
  EXPECT_DOUBLE_EQ(s.error_percent, 100.0 * (3 + 4) / 10);
  // Positive pairs (i, j) with y_i = 1, y_j = 0, weighted w_i·w_j: 0.9 > 0.2, 0.9 > 0.6,
  // 0.4 > 0.2, 0.4 < 0.6: (2·1 + 2·4 + 3·1) / ((2 + 3)·(1 + 4)).
  EXPECT_DOUBLE_EQ(s.auc, (2.0 + 8 + 3) / 25);
  EXPECT_EQ(s.failure, "");
  EXPECT_FALSE(s.auc_one_class);
  EXPECT_TRUE(std::isnan(s.mse) && std::isnan(s.mae));
  // Class 1 present but of weight 0: AUC undefined, the error still counts the other rows.
  s = score_classification(y, predicted, score, std::vector<double>{1, 0, 0, 4}, 2);
  EXPECT_TRUE(std::isnan(s.auc));
  EXPECT_TRUE(s.auc_one_class);
  EXPECT_DOUBLE_EQ(s.error_percent, 100.0 * 4 / 5);
  // No scores: no AUC, and no one-class note.
  s = score_classification(y, predicted, {}, {}, 2);
  EXPECT_TRUE(std::isnan(s.auc));
  EXPECT_FALSE(s.auc_one_class);
  EXPECT_DOUBLE_EQ(s.error_percent, 50);
  s = score_classification(y, predicted, score, std::vector<double>{0, 0, 0, 0}, 2);
  EXPECT_TRUE(std::isnan(s.error_percent) && std::isnan(s.auc));
  EXPECT_EQ(s.failure, "the 4 test rows have total weight 0");
}

TEST(SplitScore, RegressionByDefinition) {
  const std::vector<double> y{1, 2, 4}, predicted{2, 2, 1}, w{1, 1, 2};
  SplitScore s = score_regression(y, predicted, w);
  EXPECT_DOUBLE_EQ(s.mse, (1.0 + 0 + 2 * 9) / 4);
  EXPECT_DOUBLE_EQ(s.mae, (1.0 + 0 + 2 * 3) / 4);
  EXPECT_TRUE(std::isnan(s.error_percent) && std::isnan(s.auc));
  s = score_regression(y, predicted, std::vector<double>{0, 0, 0});
  EXPECT_TRUE(std::isnan(s.mse) && std::isnan(s.mae));
  EXPECT_EQ(s.failure, "the 3 test rows have total weight 0");
}

TEST(RunSoak, FeaturelessErrorOfEverySplitByHand) {
  std::vector<std::string> warnings;
  ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  for (const std::vector<double>& w :
       {std::vector<double>{}, std::vector<double>{1, 2, 1, 0.5, 3, 1, 1, 1, 2, 1, 1, 4}}) {
    const SoakResults r = run_soak({toy_task(w)}, SoakParams{.threads = 2});
    ASSERT_EQ(r.rows.size(), 18u);  // 3 train sets x 3 folds x 2 subsets
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      const auto& row = r.rows[i];
      EXPECT_EQ(row.data, "toy");
      EXPECT_EQ(row.learner, "featureless");
      EXPECT_EQ(row.iteration, i + 1);
      EXPECT_EQ(row.failure, "");
      EXPECT_DOUBLE_EQ(row.error_percent, hand_error(row, w)) << "iteration " << row.iteration;
      EXPECT_TRUE(std::isnan(row.mse));
      EXPECT_GE(row.train_seconds, 0);
      // Constant scores: AUC 1/2 when both classes are in the test set, else NaN.
      if (row.test_subset == "B" && row.test_fold != 3) {
        EXPECT_TRUE(std::isnan(row.auc));
      } else {
        EXPECT_DOUBLE_EQ(row.auc, 0.5);
      }
    }
    // Order: all, other, same; within each, fold then subset.
    EXPECT_EQ(r.rows[0].train_subsets, TrainSubsets::all);
    EXPECT_EQ(r.rows[1].test_subset, "B");
    EXPECT_EQ(r.rows[2].test_fold, 2);
    EXPECT_EQ(r.rows[17].train_subsets, TrainSubsets::same);
    // Same train set of A, fold 1: rows 1, 2, 4, 5 (classes 0, 1, 1, 0); test rows 0, 3.
    const auto& same_a1 = r.rows[12];
    EXPECT_EQ(same_a1.n_train, 4u);
    EXPECT_EQ(same_a1.n_test, 2u);
  }
  // Unweighted, Same/A/fold 1 is a 2-2 tie -> class "no"; test rows 0 (no), 3 (yes): 50%.
  const SoakResults r = run_soak({toy_task()}, SoakParams{.threads = 1});
  EXPECT_DOUBLE_EQ(r.rows[12].error_percent, 50);
  EXPECT_EQ(r.rows[12].hyperparameters, R"({"predicted_class":"no"})");
  // B's test sets of folds 1 and 2 have one class, for each of the 3 train sets.
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(warnings.back(),
            "learner \"featureless\" on data set \"toy\": AUC is NaN on 6 of 18 splits (one class "
            "in the test set)");
}

TEST(RunSoak, SameResultsAtAnyThreadCount) {
  ScopedWarningHandler quiet(nullptr);
  std::vector<SoakTask> tasks;
  tasks.push_back(toy_task());
  tasks.push_back(toy_task({1, 2, 1, 0.5, 3, 1, 1, 1, 2, 1, 1, 4}));
  tasks[1].dataset.name = "weighted";
  const SoakParams one{.learners = {"featureless", "cart"}, .threads = 1, .seed = 5};
  SoakParams four = one;
  four.threads = 4;
  const SoakResults a = run_soak(tasks, one);
  const SoakResults b = run_soak(tasks, four);
  ASSERT_EQ(a.rows.size(), 72u);
  ASSERT_EQ(b.rows.size(), 72u);
  auto strip = [](SoakResults r) {
    for (auto& row : r.rows) row.train_seconds = row.predict_seconds = 0;
    return results_json(r).dump();
  };
  EXPECT_EQ(strip(a), strip(b));
  EXPECT_EQ(a.rows[36].data, "weighted");
}

// A learner that needs two classes in its train set (as glmnet will): LearnerFailure otherwise.
class NeedsTwoClasses : public learners::Learner {
 public:
  std::string name() const override { return "two-class"; }
  bool supports(TaskKind task) const override { return task == TaskKind::classification; }
  std::unique_ptr<learners::Model> fit(const Dataset& data,
                                       std::span<const std::uint32_t> train_rows,
                                       const learners::FitContext& context) const override {
    bool seen[2] = {false, false};
    for (std::uint32_t i : train_rows) seen[data.y_class[i]] = true;
    if (!(seen[0] && seen[1])) {
      throw learners::LearnerFailure(
          fmt::format("the train set has one class ({} rows)", train_rows.size()));
    }
    return inner_->fit(data, train_rows, context);
  }

 private:
  std::unique_ptr<learners::Learner> inner_ = learners::make_featureless();
};

TEST(RunSoak, LearnerFailureGivesNARowAndTheRunGoesOn) {
  std::vector<std::string> warnings;
  ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  const NeedsTwoClasses learner;
  const SoakResults r = run_soak({toy_task()}, {&learner}, SoakParams{.threads = 3});
  ASSERT_EQ(r.rows.size(), 18u);
  std::size_t failed = 0;
  for (const auto& row : r.rows) {
    EXPECT_EQ(row.learner, "two-class");
    // Fold 3's B rows 6, 7, 9, 10 are all class 1: B's Same and A's Other train sets.
    const bool expect_failure =
        row.test_fold == 3 &&
        ((row.test_subset == "B" && row.train_subsets == TrainSubsets::same) ||
         (row.test_subset == "A" && row.train_subsets == TrainSubsets::other));
    if (expect_failure) {
      ++failed;
      EXPECT_EQ(row.failure, "the train set has one class (4 rows)");
      EXPECT_TRUE(std::isnan(row.error_percent));
      EXPECT_TRUE(std::isnan(row.auc));
      EXPECT_TRUE(std::isnan(row.train_seconds));
      EXPECT_EQ(row.n_train, 4u);
      EXPECT_EQ(row.n_test, 2u);
      EXPECT_TRUE(row.iteration == 11 || row.iteration == 18) << row.iteration;
    } else {
      EXPECT_EQ(row.failure, "");
      EXPECT_FALSE(std::isnan(row.error_percent));
    }
  }
  EXPECT_EQ(failed, 2u);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0],
            "learner \"two-class\" on data set \"toy\": 2 of 18 splits gave NA; first: iteration "
            "11 (other train, test subset A, fold 3): the train set has one class (4 rows)");

  // The NA row reads back through the tables and is left out of the statistics.
  const Table t = results_table(r);
  EXPECT_EQ(t.names(),
            (std::vector<std::string>{
                "data", "learner", "test.subset", "train.subsets", "test.fold", "seed", "groups",
                "n.train.groups", "iteration", "n_train", "n_test", "error_percent", "auc", "mse",
                "mae", "train_seconds", "predict_seconds", "hyperparameters", "failure"}));
  const SoakResults back = results_from_table(t);
  ASSERT_EQ(back.rows.size(), 18u);
  EXPECT_EQ(back.rows[17].failure, "the train set has one class (4 rows)");
  EXPECT_EQ(back.rows[3].error_percent, r.rows[3].error_percent);
  EXPECT_EQ(back.rows[3].test_fold, r.rows[3].test_fold);
  EXPECT_EQ(back.rows[3].groups, r.rows[3].groups);
  const Json j = results_json(r);
  EXPECT_EQ(j["columns"].size(), 19u);
  EXPECT_TRUE(j["rows"][17][11].is_null());
  EXPECT_EQ(j["rows"][17][18], "the train set has one class (4 rows)");
}

// Counts its fits (and the rows it was fitted on) and remembers each fit's seed.
class CountsFits : public learners::Learner {
 public:
  std::string name() const override { return "counts-fits"; }
  bool supports(TaskKind task) const override { return task == TaskKind::classification; }
  std::unique_ptr<learners::Model> fit(const Dataset& data,
                                       std::span<const std::uint32_t> train_rows,
                                       const learners::FitContext& context) const override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      seeds_.insert(context.seed);
      ++fits_;
    }
    return inner_->fit(data, train_rows, context);
  }
  std::size_t fits() const { return fits_; }
  std::size_t distinct_seeds() const { return seeds_.size(); }

 private:
  std::unique_ptr<learners::Learner> inner_ = learners::make_featureless();
  mutable std::mutex mutex_;
  mutable std::size_t fits_ = 0;
  mutable std::set<std::uint64_t> seeds_;
};

TEST(RunSoak, TrainTwinsShareOneFitAndMatchUnitsRunAlone) {
  // Two subsets, three folds: 18 splits but 9 distinct train sets (All once per fold; Same of A
  // is Other of B and the reverse), so 9 fits, each with its own seed.
  const std::vector<SoakTask> tasks{toy_task()};
  const CountsFits learner;
  const std::vector<const learners::Learner*> learners{&learner};
  const SoakResults shared = run_soak(tasks, learners, SoakParams{.threads = 2, .seed = 3});
  EXPECT_EQ(learner.fits(), 9u);
  EXPECT_EQ(learner.distinct_seeds(), 9u);
  ASSERT_EQ(shared.rows.size(), 18u);
  const SoakSplits& splits = tasks[0].splits;
  for (std::size_t u = 0; u < 18; ++u) {
    // A twin's row reports the one fit's time; a unit run alone (as a batch job) fits again
    // with the same seed and gives the same row.
    const auto& twin = shared.rows[splits.train_twin(u)];
    EXPECT_EQ(shared.rows[u].train_seconds, twin.train_seconds) << u;
    EXPECT_EQ(shared.rows[u].n_train, twin.n_train) << u;
    SoakResultRow alone = run_soak_unit(tasks, learners, u, 3, 1).row;
    alone.train_seconds = shared.rows[u].train_seconds;
    alone.predict_seconds = shared.rows[u].predict_seconds;
    EXPECT_EQ(results_json(SoakResults{{alone}}).dump(),
              results_json(SoakResults{{shared.rows[u]}}).dump())
        << u;
  }
  EXPECT_EQ(learner.fits(), 27u);
  EXPECT_EQ(learner.distinct_seeds(), 9u);
}

TEST(RunSoak, Regression) {
  SoakTask task = toy_task();
  task.dataset.task = TaskKind::regression;
  task.dataset.classes.clear();
  task.dataset.y_class.clear();
  task.dataset.y_value = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  ScopedWarningHandler quiet(nullptr);
  const SoakResults r = run_soak({task}, SoakParams{.threads = 1});
  // Same, A, fold 1: train rows 1, 2, 4, 5 -> mean (2+3+5+6)/4 = 4; test rows 0, 3 (1, 4).
  const auto& row = r.rows[12];
  EXPECT_DOUBLE_EQ(row.mse, (9 + 0) / 2.0);
  EXPECT_DOUBLE_EQ(row.mae, (3 + 0) / 2.0);
  EXPECT_TRUE(std::isnan(row.error_percent));
  EXPECT_TRUE(std::isnan(row.auc));
  EXPECT_EQ(soak_statistics(r).measure, "mse");
}

TEST(RunSoak, BadInput) {
  EXPECT_THROW_MSG(
      run_soak({toy_task()}, SoakParams{.learners = {"featureless", "xyz"}}), Error,
      "unknown learner \"xyz\"; known learners: featureless, glmnet, cart, knn, xgboost");
  EXPECT_THROW_MSG(run_soak({toy_task()}, SoakParams{.learners = {}}), Error,
                   "no learners given, expected at least one");
  SoakTask task = toy_task();
  task.dataset.n_rows = 11;
  task.dataset.x.pop_back();
  task.dataset.y_class.pop_back();
  EXPECT_THROW_MSG(run_soak({task}, SoakParams{}), Error,
                   "data set \"toy\": the split design has 12 rows but the data set has 11");
  SoakTask bad = toy_task();
  bad.dataset.y_class[3] = 2;
  EXPECT_THROW_MSG(run_soak({bad}, SoakParams{}), Error,
                   "data set \"toy\": class code 2 in row 3 is outside 0..1 (the 2 classes)");
  SoakTask regression = toy_task();
  regression.dataset.task = TaskKind::regression;
  regression.dataset.y_value.assign(12, 1.0);
  const NeedsTwoClasses learner;
  EXPECT_THROW_MSG(run_soak({regression}, {&learner}, SoakParams{}), Error,
                   "learner \"two-class\" does not support regression (data set \"toy\")");
}

}  // namespace
}  // namespace assay::soak
