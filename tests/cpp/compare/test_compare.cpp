#include <gtest/gtest.h>

#include <cmath>

#include "assay/compare/compare.hpp"
#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "test_util.hpp"

namespace assay::compare {
namespace {

CompareInput header_example() {
  CompareInput in;
  in.task = Task::binary;
  in.classes = {"0", "1"};
  in.y_true = {0, 0, 1, 1, 0, 1};
  in.models = {{.name = "a", .scores = {.1, .4, .35, .8, .2, .7}, .n_columns = 1},
               {.name = "b", .scores = {.2, .3, .6, .9, .1, .8}, .n_columns = 1}};
  return in;
}

TEST(Compare, HeaderExample) {
  CompareParams p;
  p.metrics = {"roc_auc", "f1"};
  p.bootstrap.n_resamples = 200;
  const ScopedWarningHandler quiet{WarningHandler{}};
  CompareResult r = compare(header_example(), p);
  EXPECT_EQ(r.models[1].metrics[0].value, 1.0);
  EXPECT_NEAR(r.differences[0].difference, 1 - 8.0 / 9, 1e-15);
  EXPECT_EQ(r.differences[0].test, "DeLong");
  EXPECT_EQ(r.differences[1].test, "paired bootstrap");
  EXPECT_EQ(r.baseline, "a");
  EXPECT_EQ(r.conclusions.size(), 2u);
}

TEST(Compare, SameNumbersAtAnyThreadCount) {
  CompareParams p;
  p.metrics = {"roc_auc", "average_precision", "accuracy", "recall@precision>=0.5"};
  p.bootstrap.n_resamples = 100;
  p.bootstrap.seed = 3;
  const ScopedWarningHandler quiet{WarningHandler{}};
  p.bootstrap.threads = 1;
  const auto one = compare(header_example(), p);
  p.bootstrap.threads = 2;
  const auto two = compare(header_example(), p);
  for (std::size_t k = 0; k < one.differences.size(); ++k) {
    const auto& x = one.differences[k];
    const auto& y = two.differences[k];
    EXPECT_TRUE(x.percentile.low == y.percentile.low ||
                (std::isnan(x.percentile.low) && std::isnan(y.percentile.low)));
    EXPECT_TRUE(x.bca.high == y.bca.high || (std::isnan(x.bca.high) && std::isnan(y.bca.high)));
  }
}

TEST(Compare, RefusesBadInput) {
  CompareParams p;
  auto one_model = header_example();
  one_model.models.pop_back();
  EXPECT_THROW_MSG(compare(one_model, p), Error, "compare needs two or more models, found 1");
  auto short_model = header_example();
  short_model.models[1].scores.pop_back();
  EXPECT_THROW_MSG(compare(short_model, p), Error,
                   "model \"b\": expected 6 values (6 examples x 1 column(s)), found 5");
  p.metrics = {"auc_roc"};
  EXPECT_THROW(compare(header_example(), p), Error);
  p.metrics = {};
  p.baseline = "c";
  EXPECT_THROW_MSG(compare(header_example(), p), Error,
                   "baseline \"c\" is not one of the models (a, b)");
}

TEST(CompareInput, ReadsColumnsSlicesAndBins) {
  Table t("data.csv");
  t.add_column(Column::numeric("y", {0, 1, 0, 1, 0, 1, 0, 1}));
  t.add_column(Column::numeric("a", {.1, .9, .2, .8, .3, .7, .4, .6}));
  t.add_column(Column::numeric("b", {.2, .8, .1, .9, .4, .6, .3, .7}));
  t.add_column(Column::categorical("region", {"N", "S", "N", "S", "N", "S", "N", "S"}));
  t.add_column(Column::numeric("age", {10, 20, 30, 40, 50, 60, 70, 80}));
  CompareColumns c{"y", {{"a", {"a"}}, {"b", {"b"}}}, {"region", "age:2"}, ""};
  const CompareInput in = compare_input(t, c, Task::automatic);
  EXPECT_EQ(in.task, Task::binary);
  ASSERT_EQ(in.slices.size(), 2u);
  EXPECT_EQ(in.slices[0].values, (std::vector<std::string>{"N", "S"}));
  EXPECT_EQ(in.slices[1].values, (std::vector<std::string>{"[10, 45)", "[45, 80]"}));
  EXPECT_EQ(in.slices[1].codes, (std::vector<std::int32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  CompareColumns one_value{"y", {{"a", {"a"}}, {"b", {"b"}}}, {"y:1"}, ""};
  EXPECT_THROW(compare_input(t, one_value, Task::automatic), Error);
}

}  // namespace
}  // namespace assay::compare
