// The overview's learning sections: Same/Other/All cross-validation (soak::soak_experiment, as
// `assay soak`) and plain K-fold comparison of learners (soak::cv_experiment, as `assay cv`).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

// "a, b and c".
std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + words[i];
  return out;
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

constexpr int kCvDecimals = 2;  // cross-validation means and SDs as the summary prints them

// Decimals that show a fold difference (error in percent, AUC or MSE) to three significant
// digits, at least one and at most six; its SD is printed with the same decimals.
int decimals_for(double v) {
  if (!std::isfinite(v) || v == 0) return 1;
  return std::clamp(2 - static_cast<int>(std::floor(std::log10(std::abs(v)))), 1, 6);
}

// The Other-Same tests without a p-value, with their reason: "E (all differences equal: +66.7
// in every fold), N (fewer than two pairs (1))".
std::string untested(const Json& tests) {
  std::vector<std::string> out;
  for (const auto& t : tests) {
    if (!std::isnan(fact(t, "p"))) continue;
    const double d = fact(t, "difference");
    const std::string reason = t.at("reason").get<std::string>();
    out.push_back(t.at("where").get<std::string>() + " (" + reason +
                  (reason == "all differences equal" && std::isfinite(d)
                       ? fmt::format(": {:+.{}f} in every fold", d, decimals_for(d))
                       : "") +
                  ")");
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

// The rule of the Same/Other/All sentence: a test subset "differs" when the paired t-test of
// Other - Same over folds has p < level; "worse" or "better" by the sign of the mean difference
// and the measure's direction. Tests that are undefined (too few folds, no variance) are named
// with their reason, never read as "no difference".
std::string pooling_text(const Claim& c) {
  const Json& f = c.facts;
  const double level = fact(f, "level");
  const bool higher_better = f.at("higher_better").get<bool>();
  const std::string measure = f.at("measure").get<std::string>();
  const auto worse = [&](double d) { return higher_better ? d < 0 : d > 0; };
  std::vector<std::string> differ;
  std::size_t undefined = 0;
  for (const auto& t : f.at("other")) {
    const double p = fact(t, "p"), d = fact(t, "difference");
    if (std::isnan(p)) ++undefined;
    if (!(p < level)) continue;
    const int decimals = decimals_for(d);
    differ.push_back(fmt::format("{:.{}f} \u00b1 {:.{}f} {} {} on {} ({})", std::abs(d), decimals,
                                 fact(t, "sd"), decimals, measure_unit(measure),
                                 worse(d) ? "worse" : "better", t.at("where").get<std::string>(),
                                 p_value_text(p)));
  }
  const std::string none = untested(f.at("other"));
  std::string text;
  if (undefined == f.at("other").size()) {
    text = fmt::format(
        "Same/Other/All: for {}, no Other\u2212Same t-test is defined \u2014 {} \u2014 so no "
        "test says whether the subsets can be pooled at this sample size.",
        c.subjects[0], none);
  } else if (differ.empty()) {
    text = fmt::format(
        "Same/Other/All: for {}, training on the other subsets instead of the same one makes no "
        "significant difference on any test subset (paired t-tests over folds, all p \u2265 {:g}"
        "{}): no evidence against pooling the subsets at this sample size.",
        c.subjects[0], level, none.empty() ? "" : "; no test on " + none);
  } else {
    text = fmt::format("Same/Other/All: trained on the other subsets, {} is ", c.subjects[0]);
    for (std::size_t i = 0; i < differ.size(); ++i)
      text += (i ? (i + 1 == differ.size() ? " and " : ", ") : "") + differ[i];
    text += fmt::format(
        " than trained on the same subset (mean \u00b1 SD of the fold differences, paired "
        "t-tests at level {:g}): those subsets differ, pool them with care.",
        level);
    if (!none.empty()) text += " No test on " + none + ".";
  }
  std::vector<std::string> effects;
  for (const auto& t : f.at("all")) {
    const double p = fact(t, "p"), d = fact(t, "difference");
    if (p < level)
      effects.push_back(fmt::format("{} on {} ({:+.{}f}, {})", worse(d) ? "hurts" : "helps",
                                    t.at("where").get<std::string>(), d, decimals_for(d),
                                    p_value_text(p)));
  }
  if (!effects.empty()) {
    text += " Training on all subsets instead of the same one ";
    text += fmt::format("{}", fmt::join(effects, ", "));
    text += ".";
  }
  return text;
}

std::string cv_text(const Claim& c) {
  const Json& f = c.facts;
  const std::string measure = f.at("measure").get<std::string>();
  const std::string unit = measure == "error_percent" ? " %" : "";
  const std::string data = f.at("data").get<std::string>();
  const auto folds = f.at("folds").get<std::size_t>();
  const std::string lowest = f.at("lower_better").get<bool>() ? "lowest" : "highest";
  std::string values;
  for (std::size_t i = 0; i < c.subjects.size(); ++i) {
    const double mean = fact(f["means"], i);
    values += fmt::format("{}{} {}", i ? ", " : "", c.subjects[i],
                          std::isfinite(mean)
                              ? fmt::format("{:.2f} \u00b1 {:.2f}{}", mean, fact(f["sds"], i), unit)
                              : std::string("undefined"));
  }
  std::vector<std::string> best, close;
  for (const auto& i : f.at("best")) best.push_back(c.subjects[i.get<std::size_t>()]);
  for (const auto& i : f.at("close")) close.push_back(c.subjects[i.get<std::size_t>()]);
  std::string text = fmt::format("Cross-validation{}: by mean {} over {} folds, ",
                                 data.empty() ? "" : " on " + data, measure_name(measure), folds);
  if (best.empty())
    text += fmt::format("every learner is undefined: {}.", values);
  else if (best.size() == 1)
    text += fmt::format("{} has the {}: {}.", best[0], lowest, values);
  else
    text += fmt::format("{} tie for the {}: {}.", join_words(best), lowest, values);
  if (!close.empty())
    text += fmt::format(" {} {} within one fold SD of it: not clearly worse at this sample size.",
                        join_words(close), close.size() == 1 ? "is" : "are");
  for (std::size_t i = 0; i < c.subjects.size(); ++i) {
    const auto failed = f["failed"][i].get<std::size_t>();
    if (failed > 0)
      text += fmt::format(" {}: {} of {} folds failed.", c.subjects[i], failed,
                          failed + f["n"][i].get<std::size_t>());
  }
  return text;
}

}  // namespace

std::vector<Claim> summarize_soak(const soak::SoakOutcome& o) {
  const auto& s = o.statistics;
  const auto learners = learners_of(s);
  std::vector<Claim> out;
  for (const auto& learner : learners) {
    if (!speaks(learner, learners)) continue;
    Json other = Json::array(), all = Json::array();
    for (const auto& c : s.comparisons) {
      if (c.learner != learner || c.n_train_groups != 0) continue;
      const std::string where =
          o.tasks.size() > 1 ? c.test_subset + " of " + c.data : c.test_subset;
      Json test{{"where", where},
                {"difference", c.paired.mean_difference},
                {"sd", c.paired.sd},
                {"p", c.paired.p_value},
                {"reason", c.paired.undefined_reason}};
      (c.compared == soak::TrainSubsets::other ? other : all).push_back(test);
    }
    if (other.empty()) continue;
    out.push_back(make_claim("soak.pooling", kSoakAnchor, {learner},
                             {{"measure", s.measure},
                              {"higher_better", s.measure == "auc"},
                              {"level", kLevel},
                              {"other", other},
                              {"all", all}}));
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
  add_soak_downsample_charts(page, s, 600);
  const std::vector<std::string> train_sets{"Same", "Other", "All"};  // glossary terms
  page.add_data_table(
      soak::pvalues_table(s),
      {.csv_name = "soak-pvalues",
       .caption = "One row per comparison: means of Same and the compared train set, the mean "
                  "and SD of the fold differences, paired and Welch t-tests (train groups 0 = "
                  "full size).",
       .glossary = train_sets});
  page.add_data_table(soak::summaries_table(s),
                      {.csv_name = "soak-summaries",
                       .caption = "Mean and SD over folds per train set and test subset.",
                       .glossary = train_sets});
  page.add_data_table(soak::results_table(o.results),
                      {.csv_name = "soak-results",
                       .caption = "Every train/test split (one row per fold and train set)",
                       .folded = true,
                       .glossary = train_sets});
}

// The rule of "has the lowest (highest) mean": the best mean as printed (2 decimals) among the
// learners with a defined mean; several with that mean tie. A learner whose printed mean is within
// one fold SD (its own or the best's, as printed) of the best is "not clearly worse".
std::vector<Claim> summarize_cv(const soak::CvOutcome& o) {
  std::vector<Claim> out;
  std::vector<std::string> data;
  for (const auto& s : o.summaries) {
    if (std::find(data.begin(), data.end(), s.data) == data.end()) data.push_back(s.data);
  }
  const bool lower_better = o.measure != "auc";
  for (const auto& d : data) {
    std::vector<const soak::CvSummary*> rows;
    for (const auto& s : o.summaries) {
      if (s.data == d) rows.push_back(&s);
    }
    // Best first; undefined means last, in the configuration's order.
    std::stable_sort(rows.begin(), rows.end(), [&](auto* a, auto* b) {
      const double x = shown(a->mean, kCvDecimals), y = shown(b->mean, kCvDecimals);
      if (!std::isfinite(x) || !std::isfinite(y)) return std::isfinite(x) && !std::isfinite(y);
      return lower_better ? x < y : x > y;
    });
    std::vector<std::string> learners;
    Json means = Json::array(), sds = Json::array(), n = Json::array(), failed = Json::array();
    std::size_t folds = 0;
    for (const auto* r : rows) {
      learners.push_back(r->learner);
      means.push_back(r->mean);
      sds.push_back(r->sd);
      n.push_back(r->n);
      failed.push_back(r->n_failed);
      folds = std::max(folds, r->n + r->n_failed);
    }
    const double top = shown(rows.front()->mean, kCvDecimals);
    Json best = Json::array(), close = Json::array();
    for (std::size_t i = 0; std::isfinite(top) && i < rows.size(); ++i) {
      const double m = shown(rows[i]->mean, kCvDecimals);
      if (m == top) {
        best.push_back(i);
      } else if (std::isfinite(m) &&
                 std::abs(m - top) <= std::max(shown(rows[i]->sd, kCvDecimals),
                                               shown(rows.front()->sd, kCvDecimals))) {
        close.push_back(i);
      }
    }
    out.push_back(make_claim("cv.ranking", kCvAnchor, learners,
                             {{"data", data.size() > 1 ? d : std::string()},
                              {"measure", o.measure},
                              {"lower_better", lower_better},
                              {"folds", folds},
                              {"means", means},
                              {"sds", sds},
                              {"n", n},
                              {"failed", failed},
                              {"best", best},
                              {"close", close}}));
  }
  return out;
}

std::string render_learning_claim(const Claim& c) {
  if (c.kind == "soak.pooling") return pooling_text(c);
  if (c.kind == "cv.ranking") return cv_text(c);
  fail("unknown kind of claim {}", quote_found(c.kind));
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
