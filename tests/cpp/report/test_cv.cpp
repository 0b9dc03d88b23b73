// report/cv: the K-fold comparison's text table (folds, NA folds, mean ± SD, AUC only when
// defined, notes per NA reason), the Figure 2 error and time charts (what is drawn and left out)
// and the HTML page.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../soak/cv_toy.hpp"
#include "assay/core/error.hpp"
#include "assay/report/cv.hpp"
#include "assay/soak/cv.hpp"
#include "test_util.hpp"

namespace assay::soak {
namespace {

using learners::Dataset;

CvParams featureless_params() {
  CvParams p;
  p.learners = {"featureless"};
  p.folds = 3;
  p.threads = 1;
  return p;
}

SoakResultRow fold(std::string learner, int k, double error, double seconds,
                   std::string failure = "") {
  SoakResultRow r;
  r.data = "d";
  r.learner = std::move(learner);
  r.test_fold = k;
  r.error_percent = error;
  r.train_seconds = seconds;
  r.failure = std::move(failure);
  return r;
}

CvSummary summary(std::string learner, std::size_t n, std::size_t failed, double mean, double sd,
                  double seconds_mean, double seconds_sd, std::string first_failure = "") {
  CvSummary s;
  s.data = "d";
  s.learner = std::move(learner);
  s.n = n;
  s.n_failed = failed;
  s.mean = mean;
  s.sd = sd;
  s.train_seconds_mean = seconds_mean;
  s.train_seconds_sd = seconds_sd;
  s.first_failure = std::move(first_failure);
  return s;
}

// Two learners on one data set, built by hand: featureless on three folds, glmnet with one NA
// fold and one fold too fast for the clock (0 s).
CvOutcome hand_outcome() {
  CvOutcome o;
  o.measure = "error_percent";
  o.results.rows = {fold("featureless", 1, 30, 0.001),        fold("featureless", 2, 40, 0.0015),
                    fold("featureless", 3, 50, 0.0005),       fold("glmnet", 1, 12.5, 0.002),
                    fold("glmnet", 2, NAN, 0.0, "one class"), fold("glmnet", 3, 12.5, 0.0)};
  o.summaries = {summary("featureless", 3, 0, 40, 10, 0.001, 0.0005),
                 summary("glmnet", 2, 1, 12.5, NAN, 0.002, 0.001, "one class")};
  return o;
}

std::size_t count_kind(const Json& chart, const char* kind) {
  std::size_t n = 0;
  for (const auto& v : chart["data"]["values"]) n += v["kind"] == kind;
  return n;
}

TEST(CvReport, TextTableWithNaFoldsAndNotes) {
  EXPECT_EQ(report::cv_text(hand_outcome()),
            "data  learner         folds  error_percent mean\u00b1sd  train s mean\u00b1sd\n"
            "d     featureless         3            40.00\u00b110.00    0.0010\u00b10.0005\n"
            "d     glmnet       2 (1 NA)                  12.50    0.0020\u00b10.0010\n"
            "\n"
            "d / glmnet: 1 fold NA: one class\n");
}

TEST(CvReport, TextShowsAucOnlyWhenDefined) {
  CvOutcome o;
  o.measure = "mse";
  CvSummary s = summary("knn", 2, 0, 0.25, 0.05, NAN, NAN);
  s.data = "r";
  s.auc_mean = 0.75;
  s.auc_sd = 0.125;
  o.summaries = {s};
  EXPECT_EQ(report::cv_text(o),
            "data  learner  folds  mse mean\u00b1sd    auc mean\u00b1sd  train s mean\u00b1sd\n"
            "r     knn          2    0.25\u00b10.05  0.7500\u00b10.1250              NaN\n");
}

TEST(CvReport, ErrorChartDrawsDefinedFoldsAndEverySummary) {
  const CvOutcome o = hand_outcome();
  const Json chart = report::cv_error_chart(o);
  EXPECT_EQ(count_kind(chart, "fold"), 5u);  // the NA fold is not drawn
  EXPECT_EQ(count_kind(chart, "stat"), 2u);
  const Json& stat = chart["data"]["values"][5];
  EXPECT_EQ(stat["learner"], "featureless");
  EXPECT_EQ(stat["mean"], 40.0);
  EXPECT_EQ(stat["low"], 30.0);
  EXPECT_EQ(stat["high"], 50.0);
  EXPECT_EQ(stat["label"], "40.00\u00b110.00");
  const Json& glmnet = chart["data"]["values"][6];
  EXPECT_TRUE(glmnet["low"].is_null());  // mean - NaN: no segment
  EXPECT_EQ(glmnet["label"], "12.50");
  EXPECT_EQ(chart["facet"]["field"], "data");
  EXPECT_EQ(chart["facet"]["sort"], Json::array({"d"}));
  EXPECT_EQ(chart["columns"], 1);
  EXPECT_EQ(chart["spec"]["width"], 400);
  EXPECT_EQ(chart["spec"]["height"], 160);  // max(160, 40 per learner)
  EXPECT_EQ(chart["resolve"]["scale"]["x"], "independent");
  EXPECT_EQ(chart["title"], "test error (%) per learner");
  EXPECT_EQ(chart["spec"]["layer"][0]["encoding"]["y"]["sort"],
            Json::array({"featureless", "glmnet"}));
  EXPECT_FALSE(chart.contains("width"));
}

TEST(CvReport, TimeChartLeavesOutZeroSeconds) {
  const Json chart = report::cv_time_chart(hand_outcome());
  EXPECT_EQ(count_kind(chart, "fold"), 4u);  // 0 s and the NA fold are left out
  EXPECT_EQ(count_kind(chart, "stat"), 2u);
  EXPECT_EQ(chart["spec"]["layer"][0]["encoding"]["x"]["scale"]["type"], "log");
  EXPECT_FALSE(chart.contains("resolve"));  // one shared log axis
  EXPECT_EQ(chart["title"], "training time per learner");
}

TEST(CvReport, ChartsWithNothingToDrawAreErrors) {
  CvOutcome o = hand_outcome();
  for (auto& r : o.results.rows) {
    r.error_percent = NAN;
    r.train_seconds = 0;
  }
  EXPECT_THROW_MSG(report::cv_error_chart(o), Error,
                   "no fold has a defined error_percent: nothing to chart");
  EXPECT_THROW_MSG(report::cv_time_chart(o), Error,
                   "no fold has a positive train time: nothing to chart");
  const report::HtmlReport page = report::cv_html(o, "cv", "");
  EXPECT_EQ(page.chart_count(), 0u);
  const std::string html = page.render();
  EXPECT_NE(html.find("No fold has a defined measure: no error chart."), std::string::npos);
  EXPECT_NE(html.find("No fold has a positive train time: no time chart."), std::string::npos);
}

TEST(CvReport, PageSaysHowManyFitsFailed) {
  const report::HtmlReport page = report::cv_html(hand_outcome(), "cv page", "Two learners.");
  EXPECT_EQ(page.chart_count(), 2u);
  const std::string html = page.render();
  EXPECT_NE(html.find("Two learners."), std::string::npos);
  EXPECT_NE(html.find("6 (data set, learner, fold) fits (1 with NA results). Measure: test error "
                      "(%)"),
            std::string::npos);
  EXPECT_NE(html.find("first NA reason"), std::string::npos);
}

TEST(CvReport, ChartsTextAndPage) {
  const CvParams params = featureless_params();
  std::vector<SoakTask> tasks;
  tasks.push_back(cv_task(toy(), params, {}, kFold));
  CvOutcome out = run_cv(std::move(tasks), params);
  const Json error = report::cv_error_chart(out);
  std::size_t folds = 0, stats = 0;
  for (const auto& v : error["data"]["values"]) {
    folds += v["kind"] == "fold";
    stats += v["kind"] == "stat";
  }
  EXPECT_EQ(folds, 3u);
  EXPECT_EQ(stats, 1u);
  EXPECT_EQ(error["facet"]["field"], "data");
  const Json time = report::cv_time_chart(out);
  EXPECT_EQ(time["spec"]["layer"][0]["encoding"]["x"]["scale"]["type"], "log");

  const std::string text = report::cv_text(out);
  EXPECT_NE(text.find("featureless"), std::string::npos);
  EXPECT_NE(text.find("error_percent mean\u00b1sd"), std::string::npos);
  EXPECT_EQ(report::cv_html(out, "cv", "").chart_count(), 2u);

  // A failed fold: counted in the text, not drawn.
  out.results.rows[0].failure = "one class";
  out.results.rows[0].error_percent = NAN;
  out.summaries = cv_summaries(out.results, out.measure);
  EXPECT_NE(report::cv_text(out).find("toy / featureless: 1 fold NA: one class"),
            std::string::npos);
  for (auto& r : out.results.rows) {
    r.failure = "one class";
    r.error_percent = NAN;
  }
  EXPECT_THROW_MSG(report::cv_error_chart(out), Error,
                   "no fold has a defined error_percent: nothing to chart");
  EXPECT_EQ(report::cv_html(out, "cv", "").chart_count(), 0u);
}

}  // namespace
}  // namespace assay::soak
