// Private to the overview layer: the sections of the overview report (overview.hpp). Each
// analysis has three steps — run (the library entry point of its subcommand), summarize (plain
// sentences for the top of the page) and render (its section) — so that the summary, which comes
// first on the page, can be written after every analysis has run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "assay/compare/compare.hpp"
#include "assay/compare/gates.hpp"
#include "assay/count/counting.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/regression_evaluation.hpp"
#include "assay/overview/config.hpp"
#include "assay/overview/overview.hpp"
#include "assay/report/html.hpp"
#include "assay/shift/partition.hpp"
#include "assay/shift/segment_experiment.hpp"
#include "assay/soak/cv.hpp"
#include "assay/soak/tables.hpp"

namespace assay::report::detail {

/// Section anchors (the ids of their headings), for cross-links.
inline constexpr const char* kMetricsAnchor = "metrics";
inline constexpr const char* kRegressionAnchor = "regression";
inline constexpr const char* kSoakAnchor = "soak";
inline constexpr const char* kCvAnchor = "cv";
inline constexpr const char* kShiftAnchor = "shift";
inline constexpr const char* kSegmentAnchor = "segment";
inline constexpr const char* kCountAnchor = "count";
inline constexpr const char* kCompareAnchor = "compare";

/// A claim (report/claim.hpp) with its text rendered by render_claim: the one way claims are made.
Claim make_claim(std::string kind, std::string section, std::vector<std::string> subjects,
                 Json facts);

/// The renderers behind render_claim, one per file, by the kind's prefix.
std::string render_metrics_claim(const Claim& claim);   // metrics.*
std::string render_learning_claim(const Claim& claim);  // soak.*, cv.*
std::string render_shift_claim(const Claim& claim);     // shift.*, segment.*
std::string render_count_claim(const Claim& claim);     // count.*
std::string render_compare_claim(const Claim& claim);   // compare.*

/// A comparison and its gates.
struct CompareOutcome {
  compare::CompareResult result;
  std::vector<compare::GateOutcome> gates;
};

/// Everything that ran, in the configuration's model order.
struct Results {
  std::vector<metrics::Evaluation> metrics;
  std::optional<metrics::RegressionEvaluation> regression;
  std::optional<soak::SoakOutcome> soak;
  std::optional<soak::CvOutcome> cv;
  std::optional<shift::ShiftEvaluation> shift;
  std::vector<shift::SegmentEvaluation> segment;
  std::vector<count::CountResult> count;
  std::optional<CompareOutcome> compare;
};

// metrics (overview_metrics.cpp)
std::vector<Claim> summarize_metrics(const MetricsSection& config,
                                     const std::vector<metrics::Evaluation>& results,
                                     const std::vector<metrics::EvaluationInput>& inputs);
/// `claims`: the summary's (its pair claims give the comparisons table).
void render_metrics(HtmlReport& page, const MetricsSection& config,
                    const std::vector<metrics::Evaluation>& results,
                    const std::vector<Claim>& claims, AxisRange axis);

// regression (overview_regression.cpp)
/// Reads the file and builds the input as `assay metrics --task regression` does.
metrics::RegressionInput prepare_regression(const RegressionSection& config);
/// `claims`: the summary's (the section repeats its own sentences).
void render_regression(HtmlReport& page, const RegressionSection& config,
                       const metrics::RegressionEvaluation& evaluation,
                       const std::vector<Claim>& claims);

// soak and cv (overview_learning.cpp)
std::vector<Claim> summarize_soak(const soak::SoakOutcome& outcome);
void render_soak(HtmlReport& page, const SoakSection& config, const soak::SoakOutcome& outcome);
std::vector<Claim> summarize_cv(const soak::CvOutcome& outcome);
void render_cv(HtmlReport& page, const CvSection& config, const soak::CvOutcome& outcome);

// shift and segment (overview_shift.cpp)
std::vector<Claim> summarize_shift(const shift::ShiftEvaluation& evaluation);
void render_shift(HtmlReport& page, const ShiftSection& config,
                  const shift::ShiftEvaluation& evaluation);
std::vector<Claim> summarize_segment(const SegmentSection& config,
                                     const std::vector<shift::SegmentEvaluation>& results);
void render_segment(HtmlReport& page, const SegmentSection& config,
                    const std::vector<shift::SegmentEvaluation>& results, AxisRange axis);

// count (overview_count.cpp)
std::vector<Claim> summarize_count(const CountSection& config,
                                   const std::vector<count::CountResult>& results);
/// `metrics_threshold`: the [metrics] operating threshold when that section ran (cross-link).
void render_count(HtmlReport& page, const CountSection& config,
                  const std::vector<count::CountResult>& results,
                  std::optional<double> metrics_threshold, AxisRange axis);

// compare (overview_compare.cpp)
/// Reads the table and builds the input as `assay compare` does; checks the gates against what
/// the run will compute.
compare::CompareInput prepare_compare(const CompareSection& config);
CompareOutcome run_compare(const CompareSection& config, compare::CompareInput input);
/// The comparison's conclusions, then each failed gate (or that every gate passed).
std::vector<Claim> summarize_compare(const CompareOutcome& outcome);
void render_compare(HtmlReport& page, const CompareSection& config, const CompareOutcome& outcome);

// Shared wording and the rules of the claims (report/claim.hpp).
using wording::fact;
using wording::fixed_or_undefined;
using wording::p_value_text;
using wording::percent;
using wording::shown;
using wording::with_interval;

/// A link span to a section.
TextSpan section_link(const std::string& text, const std::string& anchor);

}  // namespace assay::report::detail
