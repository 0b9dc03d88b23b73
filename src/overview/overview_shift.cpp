// The overview's shift sections: the partition table of shift::evaluate_table (`assay shift`,
// all models side by side) and the segmentation evaluation of every model
// (shift::evaluate_segmentation_files, `assay segment`).
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "assay/report/charts.hpp"
#include "assay/report/segmentation.hpp"
#include "assay/report/shift.hpp"
#include "overview_detail.hpp"

namespace assay::report::detail {
namespace {

using shift::PartitionRow;
using shift::ShiftEvaluation;

// The headline error of a row and its name: RMSE (squared error), MAE (absolute) or the error
// rate (zero-one), the latter as a fraction.
struct Headline {
  std::string name;
  double value, low, high;
};

Headline headline(const ShiftEvaluation& ev, const PartitionRow& r) {
  switch (ev.params.error) {
    case shift::ErrorKind::zero_one:
      return {"error rate", r.mean_error, NAN, NAN};
    case shift::ErrorKind::absolute:
      return {"MAE", r.mae.estimate, r.mae.low, r.mae.high};
    default:
      return {"RMSE", r.rmse.estimate, r.rmse.low, r.rmse.high};
  }
}

std::string error_name(const ShiftEvaluation& ev) {
  switch (ev.params.error) {
    case shift::ErrorKind::zero_one:
      return "errors";
    case shift::ErrorKind::absolute:
      return "total absolute error";
    default:
      return "total squared error";
  }
}

bool contains(const std::string& text, const char* part) {
  std::string lower = text;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find(part) != std::string::npos;
}

// The in-domain and shifted partitions to quote: "eval" ones first, else the first of each kind
// (train left out).
std::pair<const PartitionRow*, const PartitionRow*> in_and_out(const ShiftEvaluation& ev,
                                                               const std::string& model) {
  const PartitionRow *in = nullptr, *out = nullptr;
  for (const auto& r : ev.rows) {
    if (r.model != model || r.kind != "partition" || contains(r.set, "train")) continue;
    const bool shifted = r.n_shifted == r.n, domain = r.n_shifted == 0;
    auto& slot = shifted ? out : in;
    if (!shifted && !domain) continue;
    if (!slot || (contains(r.set, "eval") && !contains(slot->set, "eval"))) slot = &r;
  }
  return {in, out};
}

// The point of the model's error-retention curve (all samples) nearest to rejecting `rejected`
// of the samples, most uncertain first: {the fraction it rejects, the fraction of the total error
// it removes}; NaN when the curve is empty or the total error is 0.
std::pair<double, double> removed_at(const shift::ModelCurves& c, double rejected) {
  if (c.x.empty()) return {NAN, NAN};
  std::size_t full = 0, at = 0;
  for (std::size_t i = 0; i < c.x.size(); ++i) {
    if (c.x[i] > c.x[full]) full = i;
    if (std::abs(c.x[i] - (1 - rejected)) < std::abs(c.x[at] - (1 - rejected))) at = i;
  }
  if (!(c.retention[full] > 0)) return {NAN, NAN};
  return {c.x[full] - c.x[at], 1 - c.retention[at] / c.retention[full]};
}

std::string headline_name(const ShiftEvaluation& ev) {
  return headline(ev, PartitionRow{}).name;
}

// A headline value as the summary prints it, and that printed value (compared by the rule of
// "rises" / "falls" / "stays at").
std::string show(const std::string& name, const Json& v) {
  if (name == "error rate") return percent(fact(v, "value"));
  return with_interval(fact(v, "value"), fact(v, "low"), fact(v, "high"), 3);
}
double printed(const std::string& name, double value) {
  return name == "error rate" ? shown(100 * value, 1) : shown(value, 3);
}

constexpr double kChance = 0.5;

std::string shift_text(const Claim& c) {
  const Json& f = c.facts;
  const std::string& model = c.subjects[0];
  const std::string name = f.at("headline").get<std::string>();
  std::string text = "Shift: ";
  if (f.contains("in")) {
    const Json &a = f["in"], &b = f["out"];
    const double x = printed(name, fact(a, "value")), y = printed(name, fact(b, "value"));
    const std::string change = !std::isfinite(x) || !std::isfinite(y) ? "goes"
                               : y > x                                ? "rises"
                               : y < x                                ? "falls"
                                                                      : "stays";
    if (change == "stays")
      text += fmt::format("on the shifted partition {} the {} of {} is as on {} ({} and {})",
                          b.at("set").get<std::string>(), name, model,
                          a.at("set").get<std::string>(), show(name, a), show(name, b));
    else
      text += fmt::format("on the shifted partition {} the {} of {} {} from {} ({}) to {}",
                          b.at("set").get<std::string>(), name, model, change, show(name, a),
                          a.at("set").get<std::string>(), show(name, b));
  } else {
    text += fmt::format("{} on all samples", model);
  }
  const double rejected = fact(f, "rejected"), removed = fact(f, "removed");
  if (std::isfinite(removed) && shown(100 * rejected, 0) > 0)
    text += fmt::format(
        "; rejecting the {} most uncertain inputs removes {} of its {} (random rejection: {} on "
        "average)",
        percent(rejected, 0), percent(removed, 0), f.at("error_name").get<std::string>(),
        percent(rejected, 0));
  const double ood = fact(f, "ood_auroc");
  if (std::isfinite(ood)) {
    const double s = shown(ood, 3);
    if (s > kChance)
      text += fmt::format(
          "; its uncertainty tells shifted from in-domain inputs apart with AUROC {:.3f}", ood);
    else if (s == kChance)
      text += fmt::format(
          "; its uncertainty does not tell shifted from in-domain inputs apart (AUROC {:.3f}, "
          "chance)",
          ood);
    else
      text += fmt::format(
          "; its uncertainty is lower on shifted than on in-domain inputs (AUROC {:.3f}, below "
          "chance: a warning sign)",
          ood);
  }
  return text + ".";
}

std::string segment_text(const Claim& c) {
  const Json& f = c.facts;
  std::string text = fmt::format("Segmentation: {} (", c.subjects[0]);
  const auto one = [](double mean, double sd) {
    return std::isfinite(mean) ? fmt::format("{:.1f} \u00b1 {:.1f}", mean, sd)
                               : std::string("undefined");
  };
  for (std::size_t i = 0; i < f.at("sets").size(); ++i) {
    const Json& s = f["sets"][i];
    text += fmt::format("{}{} {} subjects: nDSC {}, lesion F1 {}", i ? "; " : "",
                        s.at("set").get<std::string>(), s.at("subjects").get<std::size_t>(),
                        one(fact(s, "ndsc_mean"), fact(s, "ndsc_sd")),
                        one(fact(s, "f1_mean"), fact(s, "f1_sd")));
  }
  text += "; mean \u00b1 SD \u00d7100)";
  const double prr = fact(f, "prr");
  if (std::isfinite(prr))
    text += shown(prr, 2) > 0
                ? fmt::format(
                      "; its uncertainty ranks subjects by error with PRR {:.2f} (1 = as "
                      "an oracle, 0 = as chance)",
                      prr)
                : fmt::format(
                      "; its uncertainty ranks subjects by error no better than chance "
                      "(PRR {:.2f})",
                      prr);
  return text + ".";
}

Table shift_table(const ShiftEvaluation& ev) {
  Table t;
  std::vector<std::string> set, kind, model;
  std::vector<double> n, n_shifted, mean_error, r_auc, prr, aurc, augrc, f1_auc, f1_95, ood;
  std::vector<std::vector<double>> boot(12);
  for (const auto& r : ev.rows) {
    set.push_back(r.set);
    kind.push_back(r.kind);
    model.push_back(r.model);
    n.push_back(static_cast<double>(r.n));
    n_shifted.push_back(static_cast<double>(r.n_shifted));
    std::size_t k = 0;
    for (const auto* b : {&r.rmse, &r.mae, &r.mape, &r.r2}) {
      boot[k++].push_back(b->estimate);
      boot[k++].push_back(b->low);
      boot[k++].push_back(b->high);
    }
    mean_error.push_back(r.mean_error);
    r_auc.push_back(r.r_auc);
    prr.push_back(r.prr);
    aurc.push_back(r.aurc);
    augrc.push_back(r.augrc);
    f1_auc.push_back(r.f1_auc);
    f1_95.push_back(r.f1_at_95);
    ood.push_back(r.ood_auroc);
  }
  t.add_column(Column::categorical("set", set));
  t.add_column(Column::categorical("kind", kind));
  t.add_column(Column::categorical("model", model));
  t.add_column(Column::numeric("n", n));
  t.add_column(Column::numeric("n_shifted", n_shifted));
  std::size_t k = 0;
  for (const char* name : {"rmse", "mae", "mape", "r2"}) {
    t.add_column(Column::numeric(name, boot[k++]));
    t.add_column(Column::numeric(std::string(name) + "_low", boot[k++]));
    t.add_column(Column::numeric(std::string(name) + "_high", boot[k++]));
  }
  t.add_column(Column::numeric("mean_error", mean_error));
  t.add_column(Column::numeric("r_auc", r_auc));
  t.add_column(Column::numeric("prr", prr));
  t.add_column(Column::numeric("aurc", aurc));
  t.add_column(Column::numeric("augrc", augrc));
  t.add_column(Column::numeric("f1_auc", f1_auc));
  t.add_column(Column::numeric("f1_at_95", f1_95));
  t.add_column(Column::numeric("ood_auroc", ood));
  return t;
}

std::string describe(const ShiftSection& config, const ShiftEvaluation& ev) {
  std::string out = fmt::format(
      "{}: {} samples, {} models ({}), {} sets. Per-sample error: {}; retention convention: {}.",
      config.file, ev.n_samples, ev.models.size(), fmt::format("{}", fmt::join(ev.models, ", ")),
      ev.sets.size(), shift::to_string(ev.params.error), shift::to_string(ev.params.convention));
  if (ev.params.acceptable)
    out += fmt::format(" A prediction is acceptable when its error is at most {:g} (F1 retention).",
                       *ev.params.acceptable);
  const auto& b = ev.params.bootstrap;
  if (b.n_resamples > 0)
    out += fmt::format(" Intervals: {:g}% percentile bootstrap, {} resamples, seed {}.",
                       100 * b.confidence, b.n_resamples, b.seed);
  return out;
}

std::string file_name(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

}  // namespace

std::vector<Claim> summarize_shift(const ShiftEvaluation& ev) {
  std::vector<Claim> out;
  for (std::size_t m = 0; m < ev.models.size(); ++m) {
    const std::string& model = ev.models[m];
    Json f{{"headline", headline_name(ev)}, {"error_name", error_name(ev)}};
    const auto [in, shifted] = in_and_out(ev, model);
    if (in && shifted) {
      const Headline a = headline(ev, *in), b = headline(ev, *shifted);
      f["in"] = {{"set", in->set}, {"value", a.value}, {"low", a.low}, {"high", a.high}};
      f["out"] = {{"set", shifted->set}, {"value", b.value}, {"low", b.low}, {"high", b.high}};
    }
    if (m < ev.curves.size()) {
      const auto [rejected, removed] = removed_at(ev.curves[m], 0.1);
      f["rejected"] = rejected;
      f["removed"] = removed;
    }
    for (const auto& r : ev.rows) {
      if (r.model == model && r.kind == "all") f["ood_auroc"] = r.ood_auroc;
    }
    out.push_back(make_claim("shift.model", kShiftAnchor, {model}, f));
  }
  return out;
}

void render_shift(HtmlReport& page, const ShiftSection& config, const ShiftEvaluation& ev) {
  page.add_heading("Shift: errors and uncertainty under distribution shift", 2, kShiftAnchor);
  page.add_paragraph(describe(config, ev));
  page.add_paragraph(
      "Per set and model: RMSE, MAE, MAPE and R\u00b2 with bootstrap intervals; R-AUC (area under "
      "the error-retention curve, lower is better), PRR (prediction rejection ratio: 1 = the "
      "uncertainty orders errors like an oracle, 0 = like chance), AURC/AUGRC, F1-AUC and F1@95 "
      "(acceptable-prediction retention), and the OOD AUROC of the uncertainty for shifted against "
      "in-domain samples where a set holds both.");
  page.add_data_table(shift_table(ev),
                      {.csv_name = "shift-partitions",
                       .caption = "One row per set (partition, joint in+out set, all) and model.",
                       .join_intervals = true});
  std::vector<IntervalPoint> points;
  std::string name = "RMSE";
  for (const auto& r : ev.rows) {
    const Headline h = headline(ev, r);
    name = h.name;
    points.push_back({r.set, r.model, h.value, h.low, h.high});
  }
  IntervalChartParams ip;
  ip.chart.title = name + " per set and model";
  ip.chart.width = 440;
  ip.x_title = name + (name == "error rate" ? " (fraction)" : " (target units)");
  ip.interval_name =
      ev.params.bootstrap.n_resamples > 0
          ? fmt::format("{:g}% bootstrap interval", 100 * ev.params.bootstrap.confidence)
          : "interval";
  page.add_chart(ip.chart.title, interval_chart(points, ip),
                 fmt::format("{} of each model on each set (one shared axis); lines: the {}.", name,
                             ip.interval_name));
  page.add_chart("Error retention", shift_retention_chart(ev, false),
                 "Error (sum of the retained samples' errors / n) against the retained fraction, "
                 "rejecting the most uncertain first; dashed: oracle order, dotted: random order. "
                 "Lower and steeper is better.");
  if (ev.params.acceptable)
    page.add_chart("F1 retention", shift_retention_chart(ev, true),
                   "F1 of acceptable predictions against the retained fraction; dashed: oracle, "
                   "dotted: random. Higher is better.");
  for (const auto& note : ev.notes) page.add_paragraph("Note: " + note);
}

std::vector<Claim> summarize_segment(const SegmentSection& config,
                                     const std::vector<shift::SegmentEvaluation>& results) {
  std::vector<Claim> out;
  for (std::size_t m = 0; m < results.size(); ++m) {
    const auto& ev = results[m];
    Json sets = Json::array();
    for (const auto& s : ev.sets)
      sets.push_back({{"set", s.set},
                      {"subjects", s.n_subjects},
                      {"ndsc_mean", s.ndsc.mean},
                      {"ndsc_sd", s.ndsc.sd},
                      {"f1_mean", s.lesion_f1.mean},
                      {"f1_sd", s.lesion_f1.sd}});
    out.push_back(
        make_claim("segment.model", kSegmentAnchor, {config.models[m].name},
                   {{"sets", sets}, {"prr", ev.sets.empty() ? NAN : ev.sets.front().patient_prr}}));
  }
  return out;
}

std::string render_shift_claim(const Claim& c) {
  if (c.kind == "shift.model") return shift_text(c);
  if (c.kind == "segment.model") return segment_text(c);
  fail("unknown kind of claim {}", quote_found(c.kind));
}

void render_segment(HtmlReport& page, const SegmentSection& config,
                    const std::vector<shift::SegmentEvaluation>& results, AxisRange axis) {
  page.add_heading("Segmentation: lesions under shift", 2, kSegmentAnchor);
  if (results.empty()) return;
  const auto& p = results.front().params;
  page.add_paragraph(fmt::format(
      "Truth: {}; {} subjects; models: {}. Masks: probability \u2265 {:g}, lesions "
      "{}-connected, a lesion counts when IoU \u2265 {:g}, predicted lesions under {} voxels "
      "removed, nDSC reference load r = {:g}. DSC, nDSC, lesion F1 and nDSC R-AUC are mean "
      "\u00b1 SD over subjects (ddof 0) \u00d7100, as Shifts reports them.",
      p.truth, results.front().subjects.size(), results.size(), p.scoring.threshold,
      p.scoring.connectivity, p.scoring.iou_threshold, p.scoring.min_lesion_size,
      p.scoring.ndsc_r));
  std::vector<std::string> model, set;
  std::vector<std::vector<double>> cols(14);
  std::vector<IntervalPoint> points;
  for (std::size_t m = 0; m < results.size(); ++m) {
    for (const auto& s : results[m].sets) {
      model.push_back(config.models[m].name);
      set.push_back(s.set);
      const double values[] = {static_cast<double>(s.n_subjects),
                               s.dsc.mean,
                               s.dsc.sd,
                               s.ndsc.mean,
                               s.ndsc.sd,
                               s.lesion_f1.mean,
                               s.lesion_f1.sd,
                               s.ndsc_retention_auc.mean,
                               s.ndsc_retention_auc.sd,
                               static_cast<double>(s.lesion_tp),
                               static_cast<double>(s.lesion_fp),
                               static_cast<double>(s.lesion_fn),
                               s.patient_r_auc,
                               s.patient_prr};
      for (std::size_t k = 0; k < cols.size(); ++k) cols[k].push_back(values[k]);
      points.push_back({s.set + ": nDSC", config.models[m].name, s.ndsc.mean,
                        s.ndsc.mean - s.ndsc.sd, s.ndsc.mean + s.ndsc.sd});
      points.push_back({s.set + ": lesion F1", config.models[m].name, s.lesion_f1.mean,
                        s.lesion_f1.mean - s.lesion_f1.sd, s.lesion_f1.mean + s.lesion_f1.sd});
    }
  }
  Table t;
  t.add_column(Column::categorical("model", model));
  t.add_column(Column::categorical("set", set));
  std::size_t k = 0;
  for (const char* name : {"n_subjects", "dsc_mean", "dsc_sd", "ndsc_mean", "ndsc_sd",
                           "lesion_f1_mean", "lesion_f1_sd", "ndsc_r_auc_mean", "ndsc_r_auc_sd",
                           "lesion_tp", "lesion_fp", "lesion_fn", "patient_r_auc", "patient_prr"})
    t.add_column(Column::numeric(name, cols[k++]));
  page.add_data_table(t, {"segment-summary",
                          "Per model and set (all subjects, then each partition): means and SDs "
                          "\u00d7100, lesion counts, patient-level R-AUC (\u00d7100) and PRR."});
  IntervalChartParams ip;
  ip.chart.title = "nDSC and lesion F1 per set and model";
  ip.chart.width = 440;
  ip.chart.axis = axis;
  ip.x_title = "\u00d7100 (mean \u00b1 SD over subjects)";
  ip.domain = {0, 100};
  ip.interval_name = "mean \u00b1 SD";
  page.add_chart(ip.chart.title, interval_chart(points, ip),
                 axis == AxisRange::full
                     ? "Dot: mean over subjects; line: mean \u00b1 SD; one 0..100 axis for all "
                       "rows."
                     : "Dot: mean over subjects; line: mean \u00b1 SD; one axis for all rows, "
                       "fitted to the values inside 0..100.");
  for (std::size_t m = 0; m < results.size(); ++m) {
    const auto& ev = results[m];
    const std::string& name = config.models[m].name;
    Json chart = segment_subject_chart(ev, axis);
    page.add_chart(name + ": per subject", chart,
                   "nDSC and lesion F1 of each subject (fractions); colour: the measure, shape: "
                   "the partition.");
    if (!ev.patient_curves.model.curve.empty()) {
      page.add_chart(name + ": patient-level retention", segment_patient_retention_chart(ev),
                     "Error 1 \u2212 nDSC (sum / n) against the retained fraction of subjects, the "
                     "most uncertain rejected first; dashed: oracle, dotted: random.");
    }
    page.add_data_table(shift::subject_table(ev), {"segment-subjects-" + file_name(name),
                                                   name + ": every subject (fractions)", true});
  }
}

}  // namespace assay::report::detail
