// The overview's learning sections: Same/Other/All cross-validation (soak::soak_experiment, as
// `assay soak`) and plain K-fold comparison of learners (soak::cv_experiment, as `assay cv`).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "assay/report/cv.hpp"
#include "assay/report/soak.hpp"
#include "assay/soak/statistics.hpp"
#include "overview_detail.hpp"

namespace assay::report::detail {
namespace {

constexpr double kLevel = 0.05;

std::string measure_unit(const std::string& measure) {
  if (measure == "error_percent") return "percentage points of test error";
  if (measure == "auc") return "of test AUC";
  return "of test " + measure;
}

std::string measure_name(const std::string& measure) {
  if (measure == "error_percent") return "test error (% misclassified)";
  if (measure == "auc") return "test ROC AUC";
  return "test " + measure;
}

bool worse(const soak::Comparison& c, const std::string& measure) {
  return measure == "auc" ? c.paired.mean_difference < 0 : c.paired.mean_difference > 0;
}

// The learners worth a sentence: every learner but the featureless baseline, unless it is alone.
bool speaks(const std::string& learner, const std::vector<std::string>& learners) {
  return learner != "featureless" || learners.size() == 1;
}

std::vector<std::string> learners_of(const soak::SoakStatistics& s) {
  std::vector<std::string> out;
  for (const auto& c : s.summaries) {
    if (std::find(out.begin(), out.end(), c.learner) == out.end()) out.push_back(c.learner);
  }
  return out;
}

}  // namespace

std::vector<Sentence> summarize_soak(const soak::SoakOutcome& o) {
  const auto& s = o.statistics;
  const auto learners = learners_of(s);
  std::vector<Sentence> out;
  for (const auto& learner : learners) {
    if (!speaks(learner, learners)) continue;
    std::vector<std::string> differ, all_effects;
    std::size_t n_other = 0;
    for (const auto& c : s.comparisons) {
      if (c.learner != learner || c.n_train_groups != 0) continue;
      const double p = c.paired.p_value;
      const std::string where =
          o.tasks.size() > 1 ? c.test_subset + " of " + c.data : c.test_subset;
      if (c.compared == soak::TrainSubsets::other) {
        ++n_other;
        if (p < kLevel)
          differ.push_back(
              fmt::format("{:.1f} \u00b1 {:.1f} {} {} on {} ({})",
                          std::abs(c.paired.mean_difference), c.paired.sd, measure_unit(s.measure),
                          worse(c, s.measure) ? "worse" : "better", where, p_value_text(p)));
      } else if (p < kLevel) {
        all_effects.push_back(fmt::format("{} on {} ({:+.1f}, {})",
                                          worse(c, s.measure) ? "hurts" : "helps", where,
                                          c.paired.mean_difference, p_value_text(p)));
      }
    }
    if (n_other == 0) continue;
    std::string text;
    if (differ.empty()) {
      text = fmt::format(
          "Same/Other/All: trained on the other subsets, {} predicts every subset as "
          "well as trained on the same one (paired t-tests, all p \u2265 0.05): the "
          "subsets look similar enough to pool.",
          learner);
    } else {
      text = fmt::format("Same/Other/All: trained on the other subsets, {} is ", learner);
      for (std::size_t i = 0; i < differ.size(); ++i)
        text += (i ? (i + 1 == differ.size() ? " and " : ", ") : "") + differ[i];
      text += fmt::format(
          " than trained on the same subset (mean \u00b1 SD of the fold "
          "differences): those subsets differ, pool them with care.");
    }
    if (!all_effects.empty()) {
      text += " Training on all subsets ";
      for (std::size_t i = 0; i < all_effects.size(); ++i) text += (i ? ", " : "") + all_effects[i];
      text += ".";
    }
    out.push_back({text, kSoakAnchor});
  }
  return out;
}

void render_soak(HtmlReport& page, const SoakSection& config, const soak::SoakOutcome& o) {
  const auto& s = o.statistics;
  page.add_heading("Same/Other/All: can the data's subsets be pooled?", 2, kSoakAnchor);
  page.add_paragraph(soak::describe_experiment(o, config.params));
  page.add_paragraph(fmt::format(
      "Measure: {}, mean \u00b1 SD over the folds. For each test subset a model is trained on the "
      "same subset, on the other subsets and on all of them; Other\u2212Same and All\u2212Same are "
      "two-sided paired t-tests over folds (Welch's test beside them). Level 0.05.",
      measure_name(s.measure)));
  for (const auto& [data, learner] : [&] {
         std::vector<std::pair<std::string, std::string>> pairs;
         for (const auto& t : s.summaries) {
           if (std::find(pairs.begin(), pairs.end(), std::make_pair(t.data, t.learner)) ==
               pairs.end())
             pairs.emplace_back(t.data, t.learner);
         }
         return pairs;
       }()) {
    ChartParams cp;
    cp.width = 300;
    page.add_chart(fmt::format("{} / {}", data, learner), soak_error_chart(s, data, learner, cp),
                   fmt::format("{} ({}), one panel per test subset: dot = mean over folds, line = "
                               "mean \u00b1 SD; grey segments join Same to the compared train set, "
                               "labelled with the paired p-value.",
                               measure_name(s.measure), learner));
  }
  page.add_data_table(
      soak::pvalues_table(s),
      {"soak-pvalues",
       "One row per comparison: means of Same and the compared train set, the mean and "
       "SD of the fold differences, paired and Welch t-tests (train groups 0 = full "
       "size)."});
  page.add_data_table(soak::summaries_table(s),
                      {"soak-summaries", "Mean and SD over folds per train set and test subset."});
  page.add_data_table(
      soak::results_table(o.results),
      {"soak-results", "Every train/test split (one row per fold and train set)", true});
}

std::vector<Sentence> summarize_cv(const soak::CvOutcome& o) {
  std::vector<Sentence> out;
  std::vector<std::string> data;
  for (const auto& s : o.summaries) {
    if (std::find(data.begin(), data.end(), s.data) == data.end()) data.push_back(s.data);
  }
  const bool lower_better = o.measure != "auc";
  const std::string unit = o.measure == "error_percent" ? " %" : "";
  for (const auto& d : data) {
    std::vector<const soak::CvSummary*> rows;
    for (const auto& s : o.summaries) {
      if (s.data == d && std::isfinite(s.mean)) rows.push_back(&s);
    }
    if (rows.empty()) continue;
    std::stable_sort(rows.begin(), rows.end(), [&](auto* a, auto* b) {
      return lower_better ? a->mean < b->mean : a->mean > b->mean;
    });
    std::string text = fmt::format("Cross-validation{}: by mean {} over {} folds, ",
                                   data.size() > 1 ? " on " + d : "", measure_name(o.measure),
                                   rows.front()->n + rows.front()->n_failed);
    for (std::size_t i = 0; i < rows.size(); ++i)
      text += fmt::format("{}{} {:.2f} \u00b1 {:.2f}{}", i ? (i == 1 ? " beats " : ", then ") : "",
                          rows[i]->learner, rows[i]->mean, rows[i]->sd, unit);
    out.push_back({text + ".", kCvAnchor});
  }
  return out;
}

void render_cv(HtmlReport& page, const CvSection& config, const soak::CvOutcome& o) {
  page.add_heading("Cross-validation: which learner?", 2, kCvAnchor);
  page.add_paragraph(soak::describe_cv(o, config.params));
  page.add_paragraph(fmt::format(
      "Measure: {}; mean \u00b1 SD over folds (ddof 1). Train seconds are wall-clock per fold, "
      "including each learner's internal tuning.",
      measure_name(o.measure)));
  page.add_data_table(soak::cv_summary_table(o),
                      {"cv-summary", "One row per data set and learner: mean and SD over folds."});
  try {
    page.add_chart("Test error per learner", cv_error_chart(o),
                   fmt::format("{} of every fold (grey), the mean (blue dot) and mean \u00b1 SD.",
                               measure_name(o.measure)));
  } catch (const Error& e) {
    page.add_paragraph(fmt::format("No error chart: {}.", e.message()));
  }
  try {
    page.add_chart("Training time per learner", cv_time_chart(o),
                   "Training seconds per fold (grey) and their mean, on a log axis shared by the "
                   "panels.");
  } catch (const Error& e) {
    page.add_paragraph(fmt::format("No time chart: {}.", e.message()));
  }
  page.add_data_table(soak::cv_results_table(o.results),
                      {"cv-results", "Every fold of every learner", true});
}

}  // namespace assay::report::detail
