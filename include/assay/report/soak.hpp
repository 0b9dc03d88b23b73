// Rendering a SOAK experiment (soak/experiment.hpp, soak/statistics.hpp): the terminal summary,
// the Vega-Lite charts of the SOAK paper and the HTML page with both.
//
// Charts:
// - soak_error_chart (SOAK paper, Figure 3): for one data set and learner, one panel per test
//   subset; rows are the train sets (all, all-same, same, other-same, other); each train set shows
//   its mean test error (point) and mean ± SD over folds (segment) labelled "mean±sd", and each
//   comparison a grey segment from the Same mean to the compared mean labelled with the paired
//   t-test p-value ("P=0.0123", "P<0.0001").
// - soak_difference_chart (Figures 4 and 5): one row per (data set, learner); left the mean
//   error difference (compared − Same) over test subsets (segment min..max, point at the mean),
//   right log10 of the paired p-value (min..max, mean); a dotted rule at difference 0 and at
//   log10(0.05).
// - soak_downsample_chart (mlr3resampling's pvalue_downsample): per (data set, learner), test
//   subsets by train size (full and each down-sampled N): Figure 3's marks at equal train sizes.
// Figures 3 to 5 draw full-size comparisons (n_train_groups = 0); soak_downsample_chart the rest.
//
// Example:
//   soak::SoakOutcome out = soak::soak_experiment(tables, spec, params);   // soak/tables.hpp
//   std::cout << soak_text(out.statistics);
//   soak_verdict(out.statistics.comparisons[0]);   // e.g. for other-same with p >= 0.05:
//                                                  // "other subsets predict as well"
//   soak_html(out.statistics, out.results, "aztrees3", "10-fold SOAK").write("soak.html");
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/report/charts.hpp"
#include "assay/report/html.hpp"
#include "assay/soak/experiment.hpp"
#include "assay/soak/statistics.hpp"

namespace assay::report {

/// Figure 3 for one (data set, learner). Throws assay::Error if the statistics have no summary
/// for that pair.
Json soak_error_chart(const soak::SoakStatistics& statistics, const std::string& data,
                      const std::string& learner, const ChartParams& params = {});

/// Figures 4 (compared = all) and 5 (compared = other) across every (data set, learner). Throws
/// assay::Error if there is no full-size comparison of that kind (e.g. one subset only).
Json soak_difference_chart(const soak::SoakStatistics& statistics, soak::TrainSubsets compared,
                           const ChartParams& params = {});

/// mlr3resampling's pvalue_downsample plot for one (data set, learner): a row of panels per test
/// subset, a column per train size ("full", then each down-sampled number of train groups N,
/// ascending); each panel draws, as Figure 3, the mean ± SD of Same, Other and All at that size
/// (summaries.csv's rows) and grey segments from the Same mean to the Other/All mean labelled
/// with the paired p-value (pvalues.csv's rows). Its data rows carry those numbers (kind "stat":
/// mean, sd; kind "p": same_mean, compared_mean, diff, p) with test_subset, n_train_groups
/// (0 = full) and train. Throws assay::Error when the pair has no down-sampled comparison
/// (run without down-sampling, --sizes -1).
Json soak_downsample_chart(const soak::SoakStatistics& statistics, const std::string& data,
                           const std::string& learner, const ChartParams& params = {});

/// True when `statistics` compare train sets at a down-sampled size for (data, learner).
bool has_downsampled_comparisons(const soak::SoakStatistics& statistics, const std::string& data,
                                 const std::string& learner);

/// How to read soak_downsample_chart, one paragraph (`measure` as SoakStatistics::measure).
std::string soak_downsample_explanation(const std::string& measure);

/// Adds soak_downsample_chart (with its explanation) for every (data set, learner) that has
/// down-sampled comparisons, `width` pixels wide: the `assay soak` page and `assay report`'s
/// [soak] section.
void add_soak_downsample_charts(HtmlReport& page, const soak::SoakStatistics& statistics,
                                int width);

/// What a comparison says, in words, from its paired test at level 0.05: for other-same
/// "other subsets predict as well" / "other subsets predict worse" / "other subsets predict
/// better"; for all-same "combining subsets helps" / "combining subsets hurts" / "combining
/// subsets makes no significant difference"; "undefined (<reason>)" when p is NaN. `measure`
/// (SoakStatistics::measure) gives the direction: a higher value is worse, except for "auc".
std::string soak_verdict(const soak::Comparison& comparison,
                         const std::string& measure = "error_percent");

/// The terminal summary: per (data set, learner, test subset) the mean ± SD of Same/Other/All
/// and the two comparisons (difference, p, verdict), then a one-line conclusion per data set
/// ("subsets similar" when no Other−Same comparison is significantly worse, else which test
/// subsets differ).
std::string soak_text(const soak::SoakStatistics& statistics);

/// The HTML page: how the experiment was run (`description`), the summary table, Figure 3 per
/// (data set, learner), Figures 4 and 5 when there are two or more subsets, the p-value and
/// summary tables.
HtmlReport soak_html(const soak::SoakStatistics& statistics, const soak::SoakResults& results,
                     const std::string& title, const std::string& description);

}  // namespace assay::report
