#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "assay/report/shift.hpp"
#include "assay/shift/partition.hpp"
#include "test_util.hpp"

namespace assay::shift {
namespace {

PartitionInput small_input() {
  PartitionInput in;
  in.target = {1, 2, 3, 4, 5, 6};
  in.models.push_back({"m", {1, 2, 3, 5, 5, 8}, {0.1, 0.2, 0.3, 0.9, 0.1, 0.8}});
  in.partition = {"eval_out", "dev_in", "dev_out", "dev_out", "eval_in", "eval_out"};
  return in;
}

TEST(Partitions, SetsAndShiftedFlagsFromNames) {
  PartitionParams params;
  params.acceptable = 0.5;
  const auto ev = evaluate_partitions(small_input(), params);
  EXPECT_EQ(ev.sets, (std::vector<std::string>{"dev_in", "dev_out", "eval_in", "eval_out",
                                               "dev (in+out)", "eval (in+out)", "all"}));
  ASSERT_EQ(ev.rows.size(), 7u);
  EXPECT_EQ(ev.rows[1].n, 2u);
  EXPECT_EQ(ev.rows[1].n_shifted, 2u);
  EXPECT_EQ(ev.rows[1].kind, "partition");
  EXPECT_EQ(ev.rows[4].kind, "joint");
  EXPECT_EQ(ev.rows[6].n_shifted, 4u);
  // dev_out: errors 0 (u .3) and 1 (u .9): RMSE sqrt(1/2).
  EXPECT_DOUBLE_EQ(ev.rows[1].rmse.estimate, std::sqrt(0.5));
  EXPECT_TRUE(std::isnan(ev.rows[0].ood_auroc));
  // all: shifted u {.1, .3, .9, .8} vs in-domain u {.2, .1}: (0 + .5 + 2 + 2 + 2) / 8.
  EXPECT_DOUBLE_EQ(ev.rows[6].ood_auroc, 6.5 / 8);
}

TEST(Partitions, BadInput) {
  auto in = small_input();
  in.models.push_back(in.models[0]);
  EXPECT_THROW_MSG(evaluate_partitions(in, {}), Error, "model name \"m\" is given twice");
  in = small_input();
  in.shifted = {0, 1, 2, 0, 0, 0};
  EXPECT_THROW_MSG(evaluate_partitions(in, {}), Error,
                   "shifted must be 0 or 1, found 2 at index 2");
  EXPECT_THROW_MSG(parse_error_kind("cubed"), Error,
                   "unknown error \"cubed\": expected \"squared\", \"absolute\" or \"zero-one\"");
}

TEST(Partitions, TableAndReport) {
  const Table table = parse_csv(
      "part,y,p,u,m0,m1\n"
      "dev_in,1,1.5,0.2,1,2\n"
      "dev_out,2,3,0.9,2,4\n"
      "dev_in,3,3,0.1,3,3\n"
      "dev_out,4,2,0.5,5,4\n",
      "t.csv");
  ShiftColumns columns;
  columns.target = "y";
  columns.pred = {"p"};
  columns.uncertainty = {"u"};
  columns.members = {"m0", "m1"};
  columns.partition = "part";
  PartitionParams params;
  params.acceptable = 0.5;
  const auto ev = evaluate_table(table, columns, params);
  EXPECT_EQ(ev.models, (std::vector<std::string>{"p", "ensemble"}));
  // Ensemble on row 1: mean 1.5, knowledge variance 0.25 (no member variances).
  const std::string text = report::shift_text(ev);
  EXPECT_NE(text.find("dev (in+out)"), std::string::npos);
  const Json j = report::shift_json(ev);
  EXPECT_EQ(j["rows"].size(), 8u);  // 2 models x (dev_in, dev_out, dev (in+out), all)
  EXPECT_EQ(j["params"]["acceptable"], 0.5);
  const std::string html = report::shift_html(ev, "t").render();
  EXPECT_NE(html.find("F1 retention on all samples"), std::string::npos);
  columns.uncertainty.clear();
  EXPECT_THROW_MSG(evaluate_table(table, columns, params), Error,
                   "give one uncertainty column per prediction column: 1 prediction and 0 "
                   "uncertainty columns");
  columns.uncertainty = {"nope"};
  EXPECT_THROW(evaluate_table(table, columns, params), Error);
  // Columns that would be ignored silently are errors.
  columns.pred.clear();
  EXPECT_THROW_MSG(evaluate_table(table, columns, params), Error,
                   "uncertainty columns need prediction columns (--pred): found 1 uncertainty "
                   "and 0 prediction columns");
  columns.uncertainty.clear();
  columns.members.clear();
  columns.pred = {"p"};
  columns.uncertainty = {"u"};
  columns.member_vars = {"m0"};
  EXPECT_THROW_MSG(evaluate_table(table, columns, params), Error,
                   "member variance columns need member columns (--members): found 1 variance "
                   "and 0 member columns");
}

TEST(Partitions, UndefinedPrrGetsOneNoteAndWarning) {
  // dev_in (one sample) and eval_in (one sample) have equal oracle and random areas.
  std::vector<std::string> warnings;
  const ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  const auto ev = evaluate_partitions(small_input(), {});
  std::size_t nan_rows = 0;
  for (const auto& row : ev.rows) nan_rows += std::isnan(row.prr);
  EXPECT_EQ(nan_rows, 2u);
  const std::string note =
      "2 row(s) have an undefined PRR (oracle and random areas equal, e.g. all errors equal): "
      "NaN";
  EXPECT_EQ(warnings, std::vector<std::string>{note});
  EXPECT_NE(std::find(ev.notes.begin(), ev.notes.end(), note), ev.notes.end());
}

TEST(TuneThreshold, TunedOnOnePartitionAppliedToAll) {
  const std::vector<std::uint8_t> y = {1, 0, 1, 0, 1, 0};
  const std::vector<double> s = {0.9, 0.4, 0.6, 0.7, 0.3, 0.2};
  const std::vector<std::string> part = {"a", "a", "a", "b", "b", "b"};
  const auto r = tune_threshold(y, s, part, "a");
  EXPECT_EQ(r.threshold, 0.6);  // F1 = 1 on "a"
  EXPECT_EQ(r.tuned_value, 1.0);
  EXPECT_EQ(r.sets, (std::vector<std::string>{"a", "b", "all"}));
  EXPECT_DOUBLE_EQ(r.values[1], 0.0);  // "b": one FP, one FN
  EXPECT_DOUBLE_EQ(r.values[2], 2.0 * 2 / (2 * 2 + 1 + 1));
}

TEST(Generalisation, UniformSeededIndependent) {
  const std::vector<double> lo = {0, 10}, hi = {1, 20};
  const auto a = generalisation_inputs(lo, hi, 1000, 5);
  EXPECT_EQ(a, generalisation_inputs(lo, hi, 1000, 5));
  for (std::size_t i = 0; i < 1000; ++i) {
    EXPECT_GE(a[2 * i], 0);
    EXPECT_LT(a[2 * i], 1);
    EXPECT_GE(a[2 * i + 1], 10);
    EXPECT_LT(a[2 * i + 1], 20);
  }
  const auto one = generalisation_inputs({{0.0}}, {{1.0}}, 1000, 5);
  for (std::size_t i = 0; i < 1000; ++i) EXPECT_EQ(one[i], a[2 * i]);
  EXPECT_THROW_MSG(generalisation_inputs({{1.0}}, {{0.0}}, 3, 0), Error,
                   "feature 0 has range [1, 0]: expected finite bounds with low <= high");
}

}  // namespace
}  // namespace assay::shift
