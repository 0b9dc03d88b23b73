// report/shift: a shift evaluation as the terminal table (4-decimal numbers, small and large
// ones in %g, bootstrap intervals, F1 columns only with an acceptable threshold, notes), as JSON
// (NaN written as null, curves optional), the error- and F1-retention charts and the HTML page.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "assay/core/error.hpp"
#include "assay/report/shift.hpp"
#include "test_util.hpp"

namespace assay::shift {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

metrics::BootstrapResult value(double estimate, double low = 0, double high = 0) {
  metrics::BootstrapResult b;
  b.estimate = estimate;
  b.low = low;
  b.high = high;
  return b;
}

PartitionRow row(std::string set, std::size_t n, std::size_t shifted) {
  PartitionRow r;
  r.set = std::move(set);
  r.kind = "partition";
  r.model = "m";
  r.n = n;
  r.n_shifted = shifted;
  r.f1_auc = r.f1_at_95 = kNaN;
  return r;
}

// One model on two sets, numbers chosen to exercise each way a number is written.
ShiftEvaluation hand_evaluation() {
  ShiftEvaluation ev;
  ev.n_samples = 6;
  ev.models = {"m"};
  ev.sets = {"dev_in", "all"};
  PartitionRow a = row("dev_in", 4, 0);
  a.rmse = value(0.5);
  a.mae = value(0.25);
  a.mape = value(1.234e6);
  a.r2 = value(kNaN);
  a.r_auc = 0.1;
  a.prr = 0.0005;
  a.aurc = 2;
  a.augrc = -HUGE_VAL;
  a.ood_auroc = kNaN;
  PartitionRow b = row("all", 6, 2);
  b.kind = "all";
  b.rmse = value(1, 0.5, 1.5);
  b.mae = value(0.75, 0.25, 1);
  b.mape = value(0.125, 0.1, 0.2);
  b.r2 = value(-0.5, -1, 0);
  b.r_auc = 0.2;
  b.prr = 0.5;
  b.aurc = 0.01;
  b.augrc = 0.002;
  b.ood_auroc = 0.75;
  b.f1_auc = 0.6;
  b.f1_at_95 = 0.9;
  ev.rows = {a, b};
  ModelCurves c;
  c.model = "m";
  c.x = {0, 0.5, 1};
  c.retention = {0, 0.4, 1};
  c.oracle = {0, 0.1, 1};
  c.random = {1, 1, 1};
  c.f1 = {1, 0.8, kNaN};
  c.f1_oracle = {1, 1, 0.5};
  c.f1_random = {0.5, 0.5, 0.5};
  c.r_auc = 0.2;
  c.f1_auc = 0.6;
  ev.curves = {c};
  return ev;
}

TEST(ShiftReport, TextTableWritesEachKindOfNumber) {
  ShiftEvaluation ev = hand_evaluation();
  ev.notes = {"1 row(s) have an undefined PRR"};
  EXPECT_EQ(report::shift_text(ev),
            "6 samples, 1 model(s), 2 set(s); error: squared; retention convention: shifts\n"
            "\n"
            "set     model  n  shifted    RMSE     MAE      MAPE       R2   R-AUC     PRR    "
            "AURC   AUGRC  OOD AUROC\n"
            "dev_in  m      4        0  0.5000  0.2500  1.23e+06      NaN  0.1000  0.0005  "
            "2.0000    -inf        NaN\n"
            "all     m      6        2  1.0000  0.7500  1.25e-01  -0.5000  0.2000  0.5000  "
            "0.0100  0.0020     0.7500\n"
            "\n"
            "note: 1 row(s) have an undefined PRR\n");
}

TEST(ShiftReport, IntervalsAndF1ColumnsWhenAsked) {
  ShiftEvaluation ev = hand_evaluation();
  ev.rows.erase(ev.rows.begin());
  ev.sets = {"all"};
  ev.params.acceptable = 0.5;
  ev.params.beta = 2;
  ev.params.bootstrap.n_resamples = 200;
  ev.params.bootstrap.confidence = 0.9;
  ev.params.bootstrap.seed = 7;
  EXPECT_EQ(report::shift_text(ev),
            "6 samples, 1 model(s), 1 set(s); error: squared; retention convention: shifts; "
            "acceptable: error <= 0.5 (F-beta, beta = 2); intervals: 90% percentile bootstrap, "
            "200 resamples, seed 7\n"
            "\n"
            "set  model  n  shifted                     RMSE                      MAE"
            "                     MAPE                         R2   R-AUC     PRR    AURC   AUGRC"
            "  F1-AUC   F1@95  OOD AUROC\n"
            "all  m      6        2  1.0000 [0.5000, 1.5000]  0.7500 [0.2500, 1.0000]  0.1250 "
            "[0.1000, 0.2000]  -0.5000 [-1.0000, 0.0000]  0.2000  0.5000  0.0100  0.0020  0.6000"
            "  0.9000     0.7500\n");
}

TEST(ShiftReport, JsonWritesNaNAsNullAndCurvesOnRequest) {
  ShiftEvaluation ev = hand_evaluation();
  const Json j = report::shift_json(ev);
  EXPECT_EQ(j["n_samples"], 6);
  EXPECT_EQ(j["sets"], Json::array({"dev_in", "all"}));
  EXPECT_EQ(j["params"]["convention"], "shifts");
  EXPECT_EQ(j["params"]["error"], "squared");
  EXPECT_TRUE(j["params"]["acceptable"].is_null());
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["mape"]["value"], 1.234e6);
  // NaN stays a number in the document; dump_json writes it as null.
  EXPECT_TRUE(std::isnan(j["rows"][0]["r2"]["value"].get<double>()));
  EXPECT_NE(dump_json(j["rows"][0], -1).find("\"ood_auroc\":null"), std::string::npos);
  EXPECT_EQ(j["rows"][1]["kind"], "all");
  EXPECT_EQ(j["rows"][1]["rmse"]["high"], 1.5);
  ASSERT_EQ(j["curves"].size(), 1u);
  EXPECT_EQ(j["curves"][0]["retention"], Json::array({0, 0.4, 1}));
  EXPECT_FALSE(report::shift_json(ev, false).contains("curves"));
}

TEST(ShiftReport, RetentionChartsLabelModelsWithTheirArea) {
  ShiftEvaluation ev = hand_evaluation();
  const Json error = report::shift_retention_chart(ev, false);
  EXPECT_EQ(error["title"], "Error-retention curve");
  ASSERT_EQ(error["data"]["values"].size(), 9u);  // model, oracle, random x 3 points
  EXPECT_EQ(error["data"]["values"][0]["series"], "m (R-AUC = 0.2000)");
  EXPECT_EQ(error["data"]["values"][4]["kind"], "oracle");
  EXPECT_EQ(error["data"]["values"][4]["y"], 0.1);
  EXPECT_EQ(error["encoding"]["color"]["scale"]["domain"], Json::array({"m (R-AUC = 0.2000)"}));
  EXPECT_THROW_MSG(report::shift_retention_chart(ev, true), Error,
                   "F1-retention chart needs an acceptable threshold");
  ev.params.acceptable = 0.5;
  const Json f1 = report::shift_retention_chart(ev, true);
  EXPECT_EQ(f1["title"], "F1-retention curve");
  EXPECT_EQ(f1["data"]["values"][0]["series"], "m (F1-AUC = 0.6000)");
  EXPECT_TRUE(f1["data"]["values"][2]["y"].is_null());  // NaN: filtered out by the chart
  ev.curves.clear();
  EXPECT_THROW_MSG(report::shift_retention_chart(ev, false), Error,
                   "shift evaluation has no curves to chart");
}

TEST(ShiftReport, PageHasTheF1ChartOnlyWithAThreshold) {
  ShiftEvaluation ev = hand_evaluation();
  ev.notes = {"something to note"};
  const report::HtmlReport page = report::shift_html(ev, "shift");
  EXPECT_EQ(page.chart_count(), 1u);
  const std::string html = page.render();
  EXPECT_NE(html.find("Error retention on all samples (lower is better)"), std::string::npos);
  EXPECT_NE(html.find("Note: something to note"), std::string::npos);
  ev.params.acceptable = 0.5;
  EXPECT_EQ(report::shift_html(ev, "shift").chart_count(), 2u);
}

}  // namespace
}  // namespace assay::shift
