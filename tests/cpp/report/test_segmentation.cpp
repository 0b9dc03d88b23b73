// report/segmentation: a multi-subject segmentation evaluation as the terminal summary (settings,
// the across-subject table ×100, one row per subject, notes), as JSON (curves optional), the
// per-subject, nDSC-retention and patient-retention charts, and the HTML page (retention charts
// only with voxel uncertainty).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "assay/core/error.hpp"
#include "assay/report/segmentation.hpp"
#include "test_util.hpp"

namespace assay::shift {
namespace {

SubjectResult subject(std::string id, double dsc, double ndsc, std::uint64_t lesions,
                      std::uint64_t tp, std::uint64_t fp, std::uint64_t fn, double f1) {
  SubjectResult r;
  r.files.id = std::move(id);
  r.scores.dsc = dsc;
  r.scores.ndsc = ndsc;
  r.scores.true_lesions = lesions;
  r.scores.predicted_lesions = tp + fp;
  r.scores.lesion_tp = tp;
  r.scores.lesion_fp = fp;
  r.scores.lesion_fn = fn;
  r.scores.lesion_f1 = f1;
  r.scores.ndsc_retention_auc = std::numeric_limits<double>::quiet_NaN();
  r.scores.mean_uncertainty = std::numeric_limits<double>::quiet_NaN();
  return r;
}

// Two subjects without voxel uncertainty (so no retention curves).
SegmentEvaluation hand_evaluation() {
  SegmentEvaluation ev;
  ev.params.pred = {"pred/"};
  ev.params.truth = "truth/";
  ev.voxel_uncertainty = "none";
  ev.subjects = {subject("s01", 0.8, 0.7775, 3, 2, 0, 1, 0.8),
                 subject("s02", 0.6, 0.5325, 2, 1, 1, 1, 0.5)};
  SegmentSetSummary all;
  all.set = "all";
  all.n_subjects = 2;
  all.dsc = {70, 10};
  all.ndsc = {65.5, 12.25};
  all.lesion_f1 = {50, 0};
  all.lesion_tp = 3;
  all.lesion_fp = 1;
  all.lesion_fn = 2;
  ev.sets = {all};
  return ev;
}

// Adds per-subject nDSC retention curves and a patient-level curve over the two subjects.
SegmentEvaluation with_curves() {
  SegmentEvaluation ev = hand_evaluation();
  ev.voxel_uncertainty = "entropy_of_expected";
  for (auto& s : ev.subjects) {
    s.scores.retention_fraction = {0, 0.5, 1};
    s.scores.retention_ndsc = {1, 0.9, s.scores.ndsc};
    s.scores.ndsc_retention_auc = 0.9;
  }
  ev.patient_curves.model.curve = {0.3, 0.2, 0};
  ev.patient_curves.oracle.curve = {0.3, 0.1, 0};
  ev.patient_curves.random.curve = {0.3, 0.15, 0};
  return ev;
}

TEST(SegmentReport, TextHasSettingsSummaryAndSubjects) {
  SegmentEvaluation ev = hand_evaluation();
  ev.notes = {"s02: no lesion predicted"};
  EXPECT_EQ(report::segment_text(ev),
            "2 subject(s), 1 prediction source(s); threshold 0.35, connectivity 6, lesion IoU >= "
            "0.25, min lesion size 10, nDSC r = 0.001; voxel uncertainty: none; all voxels\n"
            "\n"
            "across subjects (mean \u00b1 SD, \u00d7100):\n"
            "set  subjects            DSC           nDSC     lesion F1  nDSC R-AUC  lesion TP  "
            "lesion FP  lesion FN  patient R-AUC  patient PRR\n"
            "all         2  70.00 \u00b1 10.00  65.50 \u00b1 12.25  50.00 \u00b1 0.00         NaN"
            "          3          1          2            NaN          NaN\n"
            "\n"
            "per subject:\n"
            "subject     DSC    nDSC  lesions  predicted  lesion TP  lesion FP  lesion FN  lesion "
            "F1  nDSC R-AUC  mean uncertainty\n"
            "s01      0.8000  0.7775        3          2          2          0          1     "
            "0.8000         NaN               NaN\n"
            "s02      0.6000  0.5325        2          2          1          1          1     "
            "0.5000         NaN               NaN\n"
            "\n"
            "note: s02: no lesion predicted\n");
}

TEST(SegmentReport, SettingsNameEnsemblesBrainMasksAndPartitions) {
  SegmentEvaluation ev = hand_evaluation();
  ev.params.pred = {"a/", "b/"};
  ev.params.brain_mask = "brain/";
  ev.params.partition_csv = "parts.csv";
  ev.subjects[0].files.partition = "dev_in";
  ev.subjects[1].files.partition = "eval_out";
  const std::string text = report::segment_text(ev);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "2 subject(s), 2 prediction source(s) (ensemble mean); threshold 0.35, connectivity 6, "
            "lesion IoU >= 0.25, min lesion size 10, nDSC r = 0.001; voxel uncertainty: none; "
            "brain-mask voxels");
  EXPECT_NE(text.find("subject  partition     DSC"), std::string::npos);
  EXPECT_NE(text.find("s02      eval_out   0.6000"), std::string::npos);
}

TEST(SegmentReport, JsonSummaryAndSubjects) {
  const Json j = report::segment_json(hand_evaluation());
  EXPECT_EQ(j["n_subjects"], 2);
  EXPECT_EQ(j["params"]["pred"], Json::array({"pred/"}));
  EXPECT_EQ(j["params"]["threshold"], 0.35);
  EXPECT_EQ(j["params"]["min_lesion_size"], 10);
  EXPECT_EQ(j["voxel_uncertainty"], "none");
  ASSERT_EQ(j["summary"].size(), 1u);
  EXPECT_EQ(j["summary"][0]["set"], "all");
  EXPECT_EQ(j["summary"][0]["ndsc"]["mean"], 65.5);
  EXPECT_EQ(j["summary"][0]["ndsc"]["sd"], 12.25);
  EXPECT_TRUE(j["summary"][0]["ndsc_retention_auc"]["mean"].is_null());
  EXPECT_TRUE(j["summary"][0]["patient_r_auc"].is_null());
  EXPECT_EQ(j["summary"][0]["lesion_fn"], 2);
  ASSERT_EQ(j["subjects"].size(), 2u);
  EXPECT_EQ(j["subjects"][1]["subject"], "s02");
  EXPECT_EQ(j["subjects"][1]["lesion_f1"], 0.5);
  EXPECT_TRUE(j["patient_retention"].is_null());
}

TEST(SegmentReport, JsonCurvesOnRequest) {
  const SegmentEvaluation ev = with_curves();
  const Json j = report::segment_json(ev);
  EXPECT_EQ(j["subjects"][0]["retention_ndsc"], Json::array({1, 0.9, 0.7775}));
  EXPECT_EQ(j["patient_retention"]["model"], Json::array({0.3, 0.2, 0}));
  EXPECT_EQ(j["patient_retention"]["x"], Json::array({1, 0.5, 0}));  // subjects retained
  const Json thin = report::segment_json(ev, false);
  EXPECT_FALSE(thin["subjects"][0].contains("retention_ndsc"));
  EXPECT_TRUE(thin["patient_retention"].is_null());
}

TEST(SegmentReport, ChartsNeedSomethingToDraw) {
  const SegmentEvaluation ev = hand_evaluation();
  const Json subjects = report::segment_subject_chart(ev);
  EXPECT_EQ(subjects["encoding"]["x"]["field"], "subject");
  EXPECT_THROW_MSG(report::segment_ndsc_retention_chart(ev), Error,
                   "segmentation evaluation has no nDSC retention curves to chart");
  EXPECT_THROW_MSG(report::segment_patient_retention_chart(ev), Error,
                   "segmentation evaluation has no patient-level curve to chart");
  SegmentEvaluation empty = ev;
  empty.subjects.clear();
  EXPECT_THROW_MSG(report::segment_subject_chart(empty), Error,
                   "segmentation evaluation has no subjects to chart");
  const SegmentEvaluation curves = with_curves();
  EXPECT_EQ(report::segment_ndsc_retention_chart(curves)["data"]["values"].size(), 6u);
  EXPECT_EQ(report::segment_patient_retention_chart(curves)["data"]["values"].size(), 9u);
}

// nDSC, DSC, lesion F1 and the retention areas are defined beside the tables that use them.
TEST(SegmentReport, PageDefinesItsAbbreviations) {
  const std::string html = report::segment_html(hand_evaluation(), "seg").render();
  for (const char* id : {"glossary-dsc", "glossary-ndsc", "glossary-lesion-f1",
                         "glossary-ndsc-r-auc", "glossary-r-auc", "glossary-prr"})
    EXPECT_NE(html.find(std::string("<dt id=\"") + id + "\">"), std::string::npos) << id;
  EXPECT_EQ(html.find("<td class=\"num\">nan</td>"), std::string::npos);
}

TEST(SegmentReport, PageHasRetentionChartsOnlyWithUncertainty) {
  EXPECT_EQ(report::segment_html(hand_evaluation(), "seg").chart_count(), 1u);
  EXPECT_EQ(report::segment_html(with_curves(), "seg").chart_count(), 3u);
}

}  // namespace
}  // namespace assay::shift
