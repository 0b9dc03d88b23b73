// Rendering a K-fold comparison of learners (soak/cv.hpp): the terminal table, the Vega-Lite
// charts of the SOAK paper's Figure 2 and the HTML page with both.
//
// Charts (one panel per data set, learners as rows in the order they were run):
// - cv_error_chart (Figure 2, top): the test error of every fold (small grey points), the mean
//   over folds (blue circle) and mean ± SD (blue segment); each panel has its own x scale.
// - cv_time_chart (Figure 2, bottom): the training seconds of every fold (grey points) and their
//   mean (blue circle) on a log10 x axis shared by the panels (times span orders of magnitude:
//   featureless takes microseconds, tuned learners seconds). Times of 0 (below the clock's
//   resolution) cannot be drawn on a log axis and are left out of the chart, not the tables.
// NA folds (a learner that failed) are not drawn; the tables count them.
//
// Example:
//   soak::CvOutcome out = soak::cv_experiment({{"vowel", read_csv("vowel.csv")}}, params);
//   std::cout << cv_text(out);          // one row per (data set, learner): folds, mean ± SD
//   Json chart = cv_error_chart(out);   // Figure 2 (top) as a Vega-Lite spec
//   cv_html(out, "vowel", "10-fold CV of featureless and glmnet").write("cv.html");
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/report/charts.hpp"
#include "assay/report/html.hpp"
#include "assay/soak/cv.hpp"

namespace assay::report {

/// Figure 2 (top). Throws assay::Error when no fold has a defined measure.
Json cv_error_chart(const soak::CvOutcome& outcome, const ChartParams& params = {});

/// Figure 2 (bottom). Throws assay::Error when no fold has a positive train time.
Json cv_time_chart(const soak::CvOutcome& outcome, const ChartParams& params = {});

/// Text table, one row per (data set, learner): folds (and NA folds), measure mean ± SD, AUC
/// mean ± SD (two classes), train seconds mean ± SD; then one line per NA reason.
std::string cv_text(const soak::CvOutcome& outcome);

/// The page: `description`, the summary table, the two charts (each left out, with a note, when
/// it has nothing to draw), the per-fold results and the summary as JSON.
HtmlReport cv_html(const soak::CvOutcome& outcome, const std::string& title,
                   const std::string& description);

}  // namespace assay::report
