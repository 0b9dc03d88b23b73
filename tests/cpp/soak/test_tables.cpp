// soak/tables: a SOAK experiment on tables — column roles (subset, group, fold and strata are
// never features), soak_task_from_table, soak_experiment's checks of data set names, the
// --learner-param assignments and the one-paragraph description of a run.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/soak/tables.hpp"
#include "test_util.hpp"

namespace assay::soak {
namespace {

// 12 rows: subsets A and B (6 rows each), folds 1..3 given, two classes in every fold of each
// subset, one numeric feature and a column that would be a feature if the subset were not named.
Table toy_table() {
  std::string text = "y,x,s,f,g\n";
  const char* labels = "abbaabbaabab";
  for (int i = 0; i < 12; ++i) {
    text += std::string(1, labels[i]) + "," + std::to_string(i % 4) + "," + (i < 6 ? "A" : "B") +
            "," + std::to_string(i % 3 + 1) + "," + std::to_string(i) + "\n";
  }
  return parse_csv(text, "toy.csv");
}

SoakTableSpec spec() {
  SoakTableSpec s;
  s.data.label = "y";
  s.design.subset = "s";
  s.design.fold = "f";
  s.design.group = "g";
  return s;
}

SoakSplitParams split_params() {
  SoakSplitParams p;
  p.folds = 3;
  return p;
}

TEST(SoakTables, DesignColumnsAreNeverFeatures) {
  const SoakTask task = soak_task_from_table(toy_table(), spec(), split_params(), "toy");
  EXPECT_EQ(task.dataset.name, "toy");
  EXPECT_EQ(task.dataset.feature_names, (std::vector<std::string>{"x"}));
  EXPECT_EQ(task.dataset.n_rows, 12u);
  EXPECT_EQ(task.dataset.classes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(task.splits.design().subset_names, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(task.splits.n_folds(), 3);
  EXPECT_EQ(task.splits.folds(), (std::vector<std::int32_t>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
  // Without the subset role the subset column is a one-hot feature.
  SoakTableSpec plain = spec();
  plain.design.subset.clear();
  const SoakTask all = soak_task_from_table(toy_table(), plain, split_params(), "toy");
  EXPECT_EQ(all.dataset.feature_names, (std::vector<std::string>{"x", "s=A", "s=B"}));
}

TEST(SoakTables, StrataColumnsAreReservedToo) {
  SoakTableSpec s = spec();
  s.design.group.clear();
  s.design.strata = {"g"};
  const SoakTask task = soak_task_from_table(toy_table(), s, split_params(), "toy");
  EXPECT_EQ(task.dataset.feature_names, (std::vector<std::string>{"x"}));
}

TEST(SoakTables, SubsetAndLabelMustDiffer) {
  SoakTableSpec s = spec();
  s.design.subset = "y";
  EXPECT_THROW_MSG(soak_task_from_table(toy_table(), s, split_params(), "toy"), Error,
                   "the subset column and the label column must differ (both are \"y\")");
  SoakTableSpec f = spec();
  f.data.features = {"x", "s"};
  EXPECT_THROW_MSG(soak_task_from_table(toy_table(), f, split_params(), "toy"), Error,
                   "toy.csv: column \"s\" is named twice (subset/group/fold/strata and features)");
}

TEST(SoakTables, ExperimentNeedsUniquelyNamedDataSets) {
  SoakExperimentParams params;
  params.splits = split_params();
  params.run.threads = 1;
  EXPECT_THROW_MSG(soak_experiment({}, spec(), params), Error,
                   "a SOAK experiment needs at least one data set (found none)");
  const Table t = toy_table();
  EXPECT_THROW_MSG(soak_experiment({{"toy", t}, {"toy", t}}, spec(), params), Error,
                   "data set names must be unique (\"toy\" appears twice)");
}

TEST(SoakTables, ExperimentRunsEveryTaskAndDescribesItself) {
  SoakExperimentParams params;
  params.splits = split_params();
  params.run.threads = 1;
  const Table t = toy_table();
  const SoakOutcome out = soak_experiment({{"one", t}, {"two", t}}, spec(), params);
  ASSERT_EQ(out.tasks.size(), 2u);
  EXPECT_EQ(out.tasks[1].dataset.name, "two");
  const std::size_t splits = out.tasks[0].splits.size();
  EXPECT_EQ(out.results.rows.size(), 2 * splits);  // one learner
  EXPECT_EQ(out.results.rows.front().data, "one");
  EXPECT_EQ(out.results.rows.back().data, "two");
  EXPECT_EQ(out.statistics.measure, "error_percent");
  const std::string each = "(12 rows, 1 features, 2 subsets: A, B, grouped; 3 folds, " +
                           std::to_string(splits) + " splits)";
  EXPECT_EQ(describe_experiment(out, params),
            "SOAK (Same/Other/All K-fold cross-validation, SOAK paper) on one " + each + "; two " +
                each +
                ". Learners: featureless. Train subsets: SOA; sizes = -1, ratio = 0.5, seeds = 1; "
                "seed = 1.");
  SoakExperimentParams with = params;
  with.run.learner_params = {{"featureless", Json::object()}};
  EXPECT_NE(describe_experiment(out, with).find("Learners: featureless (parameters: "
                                                "{\"featureless\":{}})."),
            std::string::npos);
}

TEST(LearnerParams, FromAssignments) {
  const Json p = learner_params_from_assignments({"glmnet.alpha=0.5", "glmnet.rule=lambda.min",
                                                  "xgboost.etas=[0.1,1]", "knn.k=3", "cart.cp=1e-3",
                                                  "glmnet.name=\"x=1\"", "a.b.c=true"});
  EXPECT_EQ(p["glmnet"]["alpha"], 0.5);
  EXPECT_EQ(p["glmnet"]["rule"], "lambda.min");
  EXPECT_EQ(p["glmnet"]["name"], "x=1");
  EXPECT_EQ(p["xgboost"]["etas"], Json::array({0.1, 1}));
  EXPECT_EQ(p["knn"]["k"], 3);
  EXPECT_EQ(p["cart"]["cp"], 0.001);
  EXPECT_EQ(p["a"]["b.c"], true);
  EXPECT_TRUE(learner_params_from_assignments({}).empty());
  EXPECT_THROW_MSG(learner_params_from_assignments({"glmnet.alpha"}), Error,
                   "--learner-param expects LEARNER.KEY=VALUE (e.g. glmnet.alpha=0.5), found "
                   "\"glmnet.alpha\"");
  EXPECT_THROW_MSG(learner_params_from_assignments({"alpha=0.5"}), Error,
                   "--learner-param expects LEARNER.KEY=VALUE (e.g. glmnet.alpha=0.5), found "
                   "\"alpha=0.5\"");
  EXPECT_THROW_MSG(learner_params_from_assignments({"glmnet.alpha="}), Error,
                   "--learner-param expects LEARNER.KEY=VALUE with all three non-empty, found "
                   "\"glmnet.alpha=\"");
  EXPECT_THROW_MSG(learner_params_from_assignments({"glmnet.alpha=1", "glmnet.alpha=0.5"}), Error,
                   "--learner-param glmnet.alpha is given twice");
}

}  // namespace
}  // namespace assay::soak
