// Rendering a multi-subject segmentation evaluation (shift/segment_experiment.hpp) three ways: a
// plain-text summary for the terminal, JSON for scripts (the document Python's
// assay.shift.segmentation.evaluate returns), and an HTML page: the across-subject table, a
// per-subject nDSC / lesion F1 chart, the per-subject nDSC retention curves and the patient-level
// error-retention curve (model, oracle dashed, random dotted).
//
// Numbers: across-subject means ± SD and R-AUCs are ×100 (as Shifts reports them), per-subject
// values are fractions. Text shows 2 decimals for percentages, 4 for fractions; JSON keeps full
// precision with NaN written as null.
//
// Example:
//   shift::SegmentEvaluation e = shift::evaluate_segmentation_files(params);
//   std::cout << segment_text(e);        // settings, the across-subject table, one row per subject
//   Json j = segment_json(e, false);     // j["summary"][0]["set"] == "all", no curves
//   segment_html(e, "MS lesions, dev-in").write("segment.html");
#pragma once

#include <string>

#include "assay/core/json.hpp"
#include "assay/report/charts.hpp"
#include "assay/report/html.hpp"
#include "assay/shift/segment_experiment.hpp"

namespace assay::report {

/// The terminal output: settings, the across-subject table, then one row per subject.
std::string segment_text(const shift::SegmentEvaluation& evaluation);

/// {"n_subjects", "params": {...}, "voxel_uncertainty", "summary": [{"set", "n_subjects",
/// "dsc": {"mean", "sd"}, "ndsc", "lesion_f1", "ndsc_retention_auc" (all ×100), "lesion_tp",
/// "lesion_fp", "lesion_fn", "patient_r_auc" (×100), "patient_prr"}], "subjects": [{"subject",
/// "partition", "files": {...}, "n_voxels", "brain_voxels", "voxel_tp", "voxel_fp", "voxel_fn",
/// "dsc", "ndsc", "true_lesions", "predicted_lesions", "lesion_tp", "lesion_fp", "lesion_fn",
/// "lesion_f1", "removed_lesions", "ndsc_retention_auc", "mean_uncertainty", "retention_fraction",
/// "retention_ndsc"}], "patient_retention": {"x", "model", "oracle", "random", "r_auc",
/// "oracle_auc", "random_auc"} or null, "notes"}. `with_curves` = false leaves out the per-subject
/// retention points and the patient-level curve.
Json segment_json(const shift::SegmentEvaluation& evaluation, bool with_curves = true);

/// Vega-Lite specs of the page's charts. The per-subject chart's value axis (nDSC and lesion F1,
/// 0..1) fits the values unless `axis` is AxisRange::full.
Json segment_subject_chart(const shift::SegmentEvaluation& evaluation,
                           AxisRange axis = AxisRange::fit);
Json segment_ndsc_retention_chart(const shift::SegmentEvaluation& evaluation);
Json segment_patient_retention_chart(const shift::SegmentEvaluation& evaluation);

/// The HTML page (retention charts only when there is voxel uncertainty); `axis` as for
/// segment_subject_chart.
HtmlReport segment_html(const shift::SegmentEvaluation& evaluation, const std::string& title,
                        AxisRange axis = AxisRange::fit);

}  // namespace assay::report
