#include "assay/report/segmentation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "report_util.hpp"

namespace assay::report {
namespace {

std::string percent(const shift::MeanSd& v) {
  if (std::isnan(v.mean)) return std::string(kMissingText);
  return fmt::format("{:.2f} ± {:.2f}", v.mean, v.sd);
}

std::string percent(double v) {
  return std::isnan(v) ? std::string(kMissingText) : fmt::format("{:.2f}", v);
}

Json mean_sd_json(const shift::MeanSd& v) {
  return {{"mean", detail::json_number(v.mean)}, {"sd", detail::json_number(v.sd)}};
}

std::string describe(const shift::SegmentEvaluation& ev) {
  const auto& p = ev.params;
  const auto& s = p.scoring;
  std::string out = fmt::format(
      "{} subject(s), {} prediction source(s){}; threshold {:g}, connectivity {}, lesion IoU >= "
      "{:g}, min lesion size {}, nDSC r = {:g}; voxel uncertainty: {}",
      ev.subjects.size(), p.pred.size(), p.pred.size() > 1 ? " (ensemble mean)" : "", s.threshold,
      s.connectivity, s.iou_threshold, s.min_lesion_size, s.ndsc_r, ev.voxel_uncertainty);
  out += p.brain_mask.empty() ? "; all voxels" : "; brain-mask voxels";
  return out;
}

std::vector<std::string> summary_header() {
  return {"set",       "subjects",  "DSC",       "nDSC",          "lesion F1",  "nDSC R-AUC",
          "lesion TP", "lesion FP", "lesion FN", "patient R-AUC", "patient PRR"};
}

std::vector<std::vector<std::string>> summary_rows(const shift::SegmentEvaluation& ev) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : ev.sets) {
    rows.push_back(
        {s.set, std::to_string(s.n_subjects), percent(s.dsc), percent(s.ndsc), percent(s.lesion_f1),
         percent(s.ndsc_retention_auc), std::to_string(s.lesion_tp), std::to_string(s.lesion_fp),
         std::to_string(s.lesion_fn), percent(s.patient_r_auc), detail::fixed4(s.patient_prr)});
  }
  return rows;
}

std::vector<std::string> subject_header(const shift::SegmentEvaluation& ev) {
  std::vector<std::string> h{"subject"};
  if (!ev.params.partition_csv.empty()) h.push_back("partition");
  for (const char* c : {"DSC", "nDSC", "lesions", "predicted", "lesion TP", "lesion FP",
                        "lesion FN", "lesion F1", "nDSC R-AUC", "mean uncertainty"}) {
    h.push_back(c);
  }
  return h;
}

std::vector<std::vector<std::string>> subject_rows(const shift::SegmentEvaluation& ev) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : ev.subjects) {
    const auto& s = r.scores;
    std::vector<std::string> row{r.files.id};
    if (!ev.params.partition_csv.empty()) row.push_back(r.files.partition);
    for (std::string cell :
         {detail::fixed4(s.dsc), detail::fixed4(s.ndsc), std::to_string(s.true_lesions),
          std::to_string(s.predicted_lesions), std::to_string(s.lesion_tp),
          std::to_string(s.lesion_fp), std::to_string(s.lesion_fn), detail::fixed4(s.lesion_f1),
          detail::fixed4(s.ndsc_retention_auc), fmt::format("{:.4g}", s.mean_uncertainty)}) {
      row.push_back(std::move(cell));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

bool has_patient_curve(const shift::SegmentEvaluation& ev) {
  return !ev.patient_curves.model.curve.empty();
}

std::vector<double> retained_fraction(std::size_t points) {
  // curve[j] has j of n = points - 1 subjects rejected.
  const double n = static_cast<double>(points - 1);
  std::vector<double> x(points);
  for (std::size_t j = 0; j < points; ++j) x[j] = (n - static_cast<double>(j)) / n;
  return x;
}

Json numbers(const std::vector<double>& values) {
  Json out = Json::array();
  for (double v : values) out.push_back(detail::json_number(v));
  return out;
}

}  // namespace

std::string segment_text(const shift::SegmentEvaluation& ev) {
  std::string out = describe(ev) + "\n\nacross subjects (mean ± SD, ×100):\n" +
                    detail::text_table(summary_header(), summary_rows(ev), 1) + "\nper subject:\n" +
                    detail::text_table(subject_header(ev), subject_rows(ev),
                                       ev.params.partition_csv.empty() ? 1 : 2);
  for (const auto& note : ev.notes) out += "\nnote: " + note;
  if (!ev.notes.empty()) out += "\n";
  return out;
}

Json segment_json(const shift::SegmentEvaluation& ev, bool with_curves) {
  const auto& p = ev.params;
  Json j;
  j["n_subjects"] = ev.subjects.size();
  j["params"] = {{"pred", p.pred},
                 {"truth", p.truth},
                 {"uncertainty", p.uncertainty},
                 {"brain_mask", p.brain_mask},
                 {"partition", p.partition_csv},
                 {"voxel_measure", p.voxel_measure},
                 {"threshold", p.scoring.threshold},
                 {"connectivity", p.scoring.connectivity},
                 {"iou_threshold", p.scoring.iou_threshold},
                 {"min_lesion_size", p.scoring.min_lesion_size},
                 {"ndsc_r", p.scoring.ndsc_r},
                 {"retention_points", p.scoring.retention_points}};
  j["voxel_uncertainty"] = ev.voxel_uncertainty;
  Json summary = Json::array();
  for (const auto& s : ev.sets) {
    summary.push_back({{"set", s.set},
                       {"n_subjects", s.n_subjects},
                       {"dsc", mean_sd_json(s.dsc)},
                       {"ndsc", mean_sd_json(s.ndsc)},
                       {"lesion_f1", mean_sd_json(s.lesion_f1)},
                       {"ndsc_retention_auc", mean_sd_json(s.ndsc_retention_auc)},
                       {"lesion_tp", s.lesion_tp},
                       {"lesion_fp", s.lesion_fp},
                       {"lesion_fn", s.lesion_fn},
                       {"patient_r_auc", detail::json_number(s.patient_r_auc)},
                       {"patient_prr", detail::json_number(s.patient_prr)}});
  }
  j["summary"] = summary;
  Json subjects = Json::array();
  for (const auto& r : ev.subjects) {
    const auto& s = r.scores;
    Json row = {{"subject", r.files.id},
                {"partition", r.files.partition},
                {"files",
                 {{"pred", r.files.pred},
                  {"truth", r.files.truth},
                  {"uncertainty", r.files.uncertainty},
                  {"brain_mask", r.files.brain_mask}}},
                {"n_voxels", s.n_voxels},
                {"brain_voxels", s.brain_voxels},
                {"voxel_tp", s.voxel_tp},
                {"voxel_fp", s.voxel_fp},
                {"voxel_fn", s.voxel_fn},
                {"dsc", detail::json_number(s.dsc)},
                {"ndsc", detail::json_number(s.ndsc)},
                {"true_lesions", s.true_lesions},
                {"predicted_lesions", s.predicted_lesions},
                {"lesion_tp", s.lesion_tp},
                {"lesion_fp", s.lesion_fp},
                {"lesion_fn", s.lesion_fn},
                {"lesion_f1", detail::json_number(s.lesion_f1)},
                {"removed_lesions", s.removed_lesions},
                {"ndsc_retention_auc", detail::json_number(s.ndsc_retention_auc)},
                {"mean_uncertainty", detail::json_number(s.mean_uncertainty)}};
    if (with_curves) {
      row["retention_fraction"] = numbers(s.retention_fraction);
      row["retention_ndsc"] = numbers(s.retention_ndsc);
    }
    subjects.push_back(std::move(row));
  }
  j["subjects"] = subjects;
  if (with_curves && has_patient_curve(ev)) {
    const auto& c = ev.patient_curves;
    j["patient_retention"] = {{"x", retained_fraction(c.model.curve.size())},
                              {"model", numbers(c.model.curve)},
                              {"oracle", numbers(c.oracle.curve)},
                              {"random", numbers(c.random.curve)},
                              {"r_auc", detail::json_number(c.model.r_auc)},
                              {"oracle_auc", detail::json_number(c.oracle.r_auc)},
                              {"random_auc", detail::json_number(c.random.r_auc)}};
  } else {
    j["patient_retention"] = nullptr;
  }
  j["notes"] = ev.notes;
  return j;
}

Json segment_subject_chart(const shift::SegmentEvaluation& ev, AxisRange axis) {
  if (ev.subjects.empty()) fail("segmentation evaluation has no subjects to chart");
  Json values = Json::array();
  std::vector<std::string> order;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (const auto& r : ev.subjects) {
    order.push_back(r.files.id);
    for (const auto& [measure, v] :
         {std::pair{"nDSC", r.scores.ndsc}, std::pair{"lesion F1", r.scores.lesion_f1}}) {
      if (std::isfinite(v)) {
        low = std::min(low, v);
        high = std::max(high, v);
      }
      values.push_back({{"subject", r.files.id},
                        {"partition", r.files.partition.empty() ? "all" : r.files.partition},
                        {"measure", measure},
                        {"value", detail::json_number(v)}});
    }
  }
  ChartParams chart;
  chart.title = "nDSC and lesion F1 per subject";
  chart.width =
      std::max(400, static_cast<int>(std::min<std::size_t>(ev.subjects.size(), 200)) * 12);
  Json spec = detail::base_spec(chart, chart.title,
                                "Normalised Dice (nDSC) and lesion-level F1 of each subject.");
  spec["data"] = {{"values", std::move(values)}};
  spec["transform"] = {{{"filter", detail::finite("value")}}};
  spec["mark"] = {{"type", "point"}, {"filled", true}, {"size", 60}};
  const auto y_range = axis == AxisRange::full || !(low <= high) ? std::array<double, 2>{0, 1}
                                                                 : fitted_axis(low, high, {0, 1});
  spec["encoding"] = {
      {"x", {{"field", "subject"}, {"type", "nominal"}, {"sort", order}, {"title", "Subject"}}},
      {"y",
       {{"field", "value"},
        {"type", "quantitative"},
        {"title", "nDSC or lesion F1"},
        {"scale", {{"domain", {y_range[0], y_range[1]}}, {"nice", false}, {"zero", false}}}}},
      {"color",
       {{"field", "measure"},
        {"type", "nominal"},
        {"title", "Measure"},
        {"scale",
         {{"domain", {"nDSC", "lesion F1"}},
          {"range", {series_palette()[0], series_palette()[1]}}}}}},
      {"shape", {{"field", "partition"}, {"type", "nominal"}, {"title", "Partition"}}},
      {"tooltip",
       {detail::tooltip("subject", "Subject"), detail::tooltip("partition", "Partition"),
        detail::tooltip("measure", "Measure"), detail::tooltip("value", "Value", ".4f")}}};
  return spec;
}

Json segment_ndsc_retention_chart(const shift::SegmentEvaluation& ev) {
  Json values = Json::array();
  for (const auto& r : ev.subjects) {
    const auto& s = r.scores;
    for (std::size_t i = 0; i < s.retention_fraction.size(); ++i) {
      values.push_back({{"subject", r.files.id},
                        {"partition", r.files.partition.empty() ? "all" : r.files.partition},
                        {"x", s.retention_fraction[i]},
                        {"y", detail::json_number(s.retention_ndsc[i])}});
    }
  }
  if (values.empty()) fail("segmentation evaluation has no nDSC retention curves to chart");
  ChartParams chart;
  chart.title = "nDSC retention per subject";
  Json spec = detail::base_spec(
      chart, chart.title,
      "nDSC with the most uncertain brain voxels replaced by the ground truth, against the "
      "retained fraction of voxels; one line per subject.");
  spec["data"] = {{"values", std::move(values)}};
  spec["transform"] = {{{"filter", detail::finite("y")}}};
  spec["mark"] = {{"type", "line"}, {"strokeWidth", 1.5}, {"opacity", 0.7}};
  spec["encoding"] = {
      {"x",
       {{"field", "x"},
        {"type", "quantitative"},
        {"title", "Retained fraction of voxels"},
        {"scale", {{"domain", {0, 1}}, {"nice", false}}}}},
      {"y", {{"field", "y"}, {"type", "quantitative"}, {"title", "nDSC"}}},
      {"color", {{"field", "partition"}, {"type", "nominal"}, {"title", "Partition"}}},
      {"detail", {{"field", "subject"}, {"type", "nominal"}}},
      {"order", {{"field", "x"}, {"type", "quantitative"}}},
      {"tooltip",
       {detail::tooltip("subject", "Subject"), detail::tooltip("x", "Retained", ".3f"),
        detail::tooltip("y", "nDSC", ".4f")}}};
  return spec;
}

Json segment_patient_retention_chart(const shift::SegmentEvaluation& ev) {
  if (!has_patient_curve(ev)) fail("segmentation evaluation has no patient-level curve to chart");
  const auto& c = ev.patient_curves;
  const auto x = retained_fraction(c.model.curve.size());
  Json values = Json::array();
  for (const auto& [kind, ys] :
       {std::pair{"model", &c.model.curve}, std::pair{"oracle", &c.oracle.curve},
        std::pair{"random", &c.random.curve}}) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      values.push_back(
          {{"kind", kind}, {"x", x[i]}, {"y", detail::json_number((*ys)[i])}, {"order", i}});
    }
  }
  ChartParams chart;
  chart.title =
      fmt::format("Patient-level error retention (R-AUC ×100 = {:.2f})", 100 * c.model.r_auc);
  Json spec = detail::base_spec(
      chart, chart.title,
      "Mean of 1 − nDSC over subjects with the most uncertain subjects (mean voxel uncertainty) "
      "replaced by the ground truth, against the retained fraction; solid: model, dashed: oracle, "
      "dotted: random.");
  spec["data"] = {{"values", std::move(values)}};
  spec["transform"] = {{{"filter", detail::finite("y")}}};
  spec["mark"] = {{"type", "line"}, {"strokeWidth", 2}, {"point", x.size() <= 60}};
  spec["encoding"] = {
      {"x",
       {{"field", "x"},
        {"type", "quantitative"},
        {"title", "Retained fraction of subjects"},
        {"scale", {{"domain", {0, 1}}, {"nice", false}}}}},
      {"y", {{"field", "y"}, {"type", "quantitative"}, {"title", "Error (1 − nDSC, sum / n)"}}},
      {"strokeDash",
       {{"field", "kind"},
        {"type", "nominal"},
        {"title", "Ordering"},
        {"scale",
         {{"domain", {"model", "oracle", "random"}}, {"range", {{1, 0}, {6, 3}, {2, 2}}}}}}},
      {"color",
       {{"field", "kind"},
        {"type", "nominal"},
        {"title", "Ordering"},
        {"scale",
         {{"domain", {"model", "oracle", "random"}},
          {"range", detail::string_array(series_palette())}}}}},
      {"order", {{"field", "order"}, {"type", "quantitative"}}},
      {"tooltip",
       {detail::tooltip("kind", "Ordering"), detail::tooltip("x", "Retained", ".3f"),
        detail::tooltip("y", "Error", ".4g")}}};
  return spec;
}

HtmlReport segment_html(const shift::SegmentEvaluation& ev, const std::string& title,
                        AxisRange axis) {
  HtmlReport page(title);
  page.add_paragraph(describe(ev));
  page.add_heading("Across subjects (mean ± SD, ×100)");
  page.add_table(summary_header(), summary_rows(ev));
  page.add_chart("nDSC and lesion F1 per subject", segment_subject_chart(ev, axis));
  bool any_retention = false;
  for (const auto& r : ev.subjects) any_retention |= !r.scores.retention_fraction.empty();
  if (any_retention) {
    page.add_chart("nDSC retention per subject (higher is better)",
                   segment_ndsc_retention_chart(ev));
  }
  if (has_patient_curve(ev)) {
    page.add_chart("Patient-level error retention (lower is better)",
                   segment_patient_retention_chart(ev));
  }
  page.add_heading("Per subject");
  page.add_table(subject_header(ev), subject_rows(ev));
  for (const auto& note : ev.notes) page.add_paragraph("Note: " + note);
  page.add_json("All numbers (JSON)", segment_json(ev, false));
  return page;
}

}  // namespace assay::report
