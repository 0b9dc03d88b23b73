// The overview's metrics section: every model's metrics::evaluate result (what `assay metrics`
// computes) side by side — headline values with bootstrap intervals, PR and ROC curves of all
// models in one chart each with the operating points, paired comparisons (DeLong test of the ROC
// AUCs, PR-curve dominance), confusion matrices and reliability diagrams.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

#include <fmt/format.h>

#include "assay/metrics/ranking.hpp"
#include "assay/report/charts.hpp"
#include "overview_detail.hpp"

namespace assay::report::detail {
namespace {

using metrics::Evaluation;
using metrics::EvaluationInput;

// Headline values drawn on the common 0..1 axis (the others, such as MCC or log loss, have
// other ranges or directions and stay in the table).
bool on_unit_axis(const std::string& name) {
  static const std::set<std::string> other = {"MCC", "log loss", "Brier score", "ECE",
                                              "ECE (top label)"};
  return !other.count(name);
}

const metrics::Estimate* find(const Evaluation& ev, const std::string& name) {
  for (const auto& e : ev.summary) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

double value_of(const Evaluation& ev, const std::string& name) {
  const auto* e = find(ev, name);
  return e ? e->value : std::nan("");
}

// A binary model with one score column (curves, operating point, paired tests).
bool scored_binary(const Evaluation& ev, const EvaluationInput& in) {
  return ev.binary && in.n_score_columns == 1;
}

std::vector<std::uint8_t> positives(const Evaluation& ev, const EvaluationInput& in) {
  const auto code = static_cast<std::int32_t>(
      std::find(ev.classes.begin(), ev.classes.end(), ev.positive_class) - ev.classes.begin());
  std::vector<std::uint8_t> out(in.y_true.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = in.y_true[i] == code;
  return out;
}

std::string interval_name(const MetricsSection& m) {
  const auto& b = m.params.bootstrap;
  return b.n_resamples > 0 ? fmt::format("{:g}% bootstrap interval", 100 * b.confidence)
                           : "interval";
}

Table summary_table(const MetricsSection& m, const std::vector<Evaluation>& results) {
  std::vector<std::string> model, metric;
  std::vector<double> value, low, high;
  if (results.empty()) return {};
  for (const auto& e : results.front().summary) {
    for (std::size_t k = 0; k < results.size(); ++k) {
      const auto* est = find(results[k], e.name);
      if (!est) continue;
      metric.push_back(e.name);
      model.push_back(m.models[k].name);
      value.push_back(est->value);
      low.push_back(est->low);
      high.push_back(est->high);
    }
  }
  Table t;
  t.add_column(Column::categorical("metric", metric));
  t.add_column(Column::categorical("model", model));
  t.add_column(Column::numeric("value", value));
  t.add_column(Column::numeric("low", low));
  t.add_column(Column::numeric("high", high));
  return t;
}

Table class_table(const MetricsSection& m, const std::vector<Evaluation>& results) {
  std::vector<std::string> model, cls;
  std::vector<double> precision, recall, f1, support, auc, ap;
  for (std::size_t k = 0; k < results.size(); ++k) {
    for (const auto& c : results[k].per_class) {
      model.push_back(m.models[k].name);
      cls.push_back(c.name);
      precision.push_back(c.precision);
      recall.push_back(c.recall);
      f1.push_back(c.f1);
      support.push_back(c.support);
      auc.push_back(c.roc_auc);
      ap.push_back(c.average_precision);
    }
  }
  Table t;
  t.add_column(Column::categorical("model", model));
  t.add_column(Column::categorical("class", cls));
  t.add_column(Column::numeric("precision", precision));
  t.add_column(Column::numeric("recall", recall));
  t.add_column(Column::numeric("F1", f1));
  t.add_column(Column::numeric("support", support));
  t.add_column(Column::numeric("ROC AUC", auc));
  t.add_column(Column::numeric("AP", ap));
  return t;
}

struct PairComparison {
  std::string a, b;
  metrics::DelongResult delong;
  metrics::PrComparison pr;
};

std::vector<PairComparison> compare_pairs(const MetricsSection& m,
                                          const std::vector<Evaluation>& results,
                                          const std::vector<EvaluationInput>& inputs) {
  std::vector<PairComparison> out;
  for (std::size_t a = 0; a < results.size(); ++a) {
    if (!scored_binary(results[a], inputs[a])) continue;
    for (std::size_t b = a + 1; b < results.size(); ++b) {
      if (!scored_binary(results[b], inputs[b])) continue;
      const auto y = positives(results[a], inputs[a]);
      out.push_back(
          {m.models[a].name, m.models[b].name,
           metrics::delong_roc_test(y, inputs[a].scores, inputs[b].scores),
           metrics::compare_pr_curves(y, inputs[a].scores, inputs[b].scores, m.params.ap)});
    }
  }
  return out;
}

std::string dominance_text(const PairComparison& c) {
  if (c.pr.dominant == "a")
    return fmt::format("{}'s PR curve dominates {}'s (at least as high at every recall)", c.a, c.b);
  if (c.pr.dominant == "b")
    return fmt::format("{}'s PR curve dominates {}'s (at least as high at every recall)", c.b, c.a);
  if (c.pr.dominant == "equal") return fmt::format("{} and {} have the same PR curve", c.a, c.b);
  // Crossings as shown (two decimals), each once: close crossings would repeat a value.
  std::vector<std::string> shown;
  for (double r : c.pr.crossings) {
    std::string text = fmt::format("{:.2f}", r);
    if (std::find(shown.begin(), shown.end(), text) == shown.end()) shown.push_back(text);
  }
  std::string where;
  for (std::size_t i = 0; i < shown.size() && i < 3; ++i) where += (i ? ", " : "") + shown[i];
  if (shown.size() > 3) where += ", ...";
  return fmt::format(
      "the PR curves of {} and {} cross (at recall {}): which is better depends on "
      "the operating point",
      c.a, c.b, where);
}

Table pairs_table(const std::vector<PairComparison>& pairs) {
  std::vector<std::string> a, b, dominant;
  std::vector<double> auc_a, auc_b, z, p, crossings;
  for (const auto& c : pairs) {
    a.push_back(c.a);
    b.push_back(c.b);
    auc_a.push_back(c.delong.auc_a);
    auc_b.push_back(c.delong.auc_b);
    z.push_back(c.delong.z);
    p.push_back(c.delong.p_value);
    dominant.push_back(c.pr.dominant == "a"       ? c.a
                       : c.pr.dominant == "b"     ? c.b
                       : c.pr.dominant == "equal" ? "equal"
                                                  : "none (curves cross)");
    crossings.push_back(static_cast<double>(c.pr.crossings.size()));
  }
  Table t;
  t.add_column(Column::categorical("model A", a));
  t.add_column(Column::categorical("model B", b));
  t.add_column(Column::numeric("ROC AUC A", auc_a));
  t.add_column(Column::numeric("ROC AUC B", auc_b));
  t.add_column(Column::numeric("DeLong z", z));
  t.add_column(Column::numeric("DeLong p", p));
  t.add_column(Column::categorical("PR dominant", dominant));
  t.add_column(Column::numeric("PR crossings", crossings));
  return t;
}

std::string describe(const MetricsSection& m, const std::vector<Evaluation>& results) {
  const Evaluation& ev = results.front();
  std::string out = fmt::format("{}: {} samples", m.file, ev.n_samples);
  if (ev.weighted)
    out += fmt::format(" (weight column \"{}\", total weight {:g})", m.columns.weight,
                       ev.total_weight);
  out += fmt::format(", {} classes", ev.classes.size());
  if (ev.binary) out += fmt::format(", positive class \"{}\"", ev.positive_class);
  out += fmt::format("; {} models. Predictions: {}. Average precision: {} convention.",
                     results.size(), ev.prediction_rule, metrics::to_string(m.params.ap.method));
  const auto& b = m.params.bootstrap;
  if (b.n_resamples > 0)
    out += fmt::format(
        " Intervals: {:g}% percentile bootstrap over samples, {} resamples, seed "
        "{} (each model resampled the same way).",
        100 * b.confidence, b.n_resamples, b.seed);
  return out;
}

void render_curves(HtmlReport& page, const MetricsSection& m,
                   const std::vector<Evaluation>& results) {
  std::vector<PrSeries> pr;
  std::vector<RocSeries> roc;
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Evaluation& ev = results[k];
    const bool one = ev.pr_curves.size() == 1;
    for (const auto& c : ev.pr_curves) {
      PrSeries s{one ? m.models[k].name : m.models[k].name + " / " + c.name, c.x, c.y,
                 c.y_interpolated, c.area};
      if (ev.binary) {
        s.operating_recall = value_of(ev, "recall");
        s.operating_precision = value_of(ev, "precision");
        s.operating_label = ev.prediction_rule;
      }
      pr.push_back(std::move(s));
    }
    for (const auto& c : ev.roc_curves) {
      RocSeries s{one ? m.models[k].name : m.models[k].name + " / " + c.name, c.x, c.y, c.area};
      if (ev.binary) {
        s.operating_fpr = 1 - value_of(ev, "specificity");
        s.operating_tpr = value_of(ev, "recall");
        s.operating_label = ev.prediction_rule;
      }
      roc.push_back(std::move(s));
    }
  }
  if (pr.empty()) return;
  ChartParams cp;
  cp.title = fmt::format("Precision-recall (AP: {})", metrics::to_string(m.params.ap.method));
  page.add_chart("Precision-recall curves of every model", pr_curve_chart(pr, cp),
                 "Precision (fraction of predicted positives that are positive) against recall "
                 "(fraction of positives found), both 0..1, as the threshold falls. Solid: the "
                 "curve; dotted: interpolated precision (best precision at any recall at or "
                 "above). Ringed dots: the operating threshold used by the tables (and by the "
                 "counting section). AP in the legend.");
  page.add_chart("ROC curves of every model", roc_curve_chart(roc),
                 "True positive rate against false positive rate, 0..1; dashed: chance. Ringed "
                 "dots: the operating threshold. ROC AUC in the legend.");
}

void render_matrices(HtmlReport& page, const MetricsSection& m,
                     const std::vector<Evaluation>& results) {
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Evaluation& ev = results[k];
    ChartParams cp;
    cp.width = 260;
    cp.height = 220;
    cp.title = fmt::format("{}: confusion matrix", m.models[k].name);
    page.add_chart(cp.title,
                   confusion_matrix_chart(ev.confusion, ev.classes, ev.classes, false, cp),
                   fmt::format("Rows: true class; columns: predicted class ({}); cells: {}.",
                               ev.prediction_rule, ev.weighted ? "total weight" : "samples"));
  }
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Evaluation& ev = results[k];
    if (!ev.calibration) continue;
    const auto& b = ev.calibration->bins;
    if (std::none_of(b.count.begin(), b.count.end(), [](double c) { return c > 0; })) continue;
    ChartParams cp;
    cp.width = 260;
    cp.height = 220;
    cp.title = fmt::format("{}: reliability", m.models[k].name);
    page.add_chart(cp.title,
                   reliability_chart({b.lower, b.upper, b.count, b.accuracy, b.confidence}, cp),
                   fmt::format("Observed frequency against predicted probability ({}), {} bins; "
                               "red: the gap to perfect calibration (dashed). ECE = {:.4f}.",
                               ev.binary ? "positive class" : "top label", b.lower.size(),
                               ev.calibration->error));
  }
}

}  // namespace

std::vector<Sentence> summarize_metrics(const MetricsSection& m,
                                        const std::vector<Evaluation>& results,
                                        const std::vector<EvaluationInput>& inputs) {
  std::vector<Sentence> out;
  if (results.empty()) return out;
  // The ranking measure: ROC AUC for binary scores, macro ROC AUC for multi-class scores, else
  // accuracy.
  std::string measure = "accuracy";
  for (const char* name : {"ROC AUC", "ROC AUC (one-vs-rest, macro)"}) {
    if (find(results.front(), name)) measure = name;
  }
  std::size_t best = 0;
  for (std::size_t k = 1; k < results.size(); ++k) {
    if (value_of(results[k], measure) > value_of(results[best], measure)) best = k;
  }
  std::string text;
  for (std::size_t k = 0; k < results.size(); ++k) {
    const auto* e = find(results[k], measure);
    text += fmt::format("{}{} {}", k ? ", " : "", m.models[k].name,
                        with_interval(e ? e->value : NAN, e ? e->low : NAN, e ? e->high : NAN));
  }
  const std::string interval =
      m.params.bootstrap.n_resamples > 0
          ? fmt::format(" ({:g}% bootstrap intervals)", 100 * m.params.bootstrap.confidence)
          : "";
  out.push_back({results.size() > 1 ? fmt::format("Metrics: {} ranks best by {}: {}{}.",
                                                  m.models[best].name, measure, text, interval)
                                    : fmt::format("Metrics: {} {}{}.", measure, text, interval),
                 kMetricsAnchor});
  const Evaluation& ev = results[best];
  if (ev.binary && find(ev, "recall")) {
    out.push_back(
        {fmt::format("At the operating threshold ({}), {} finds {} of the \"{}\" cases "
                     "with precision {}.",
                     ev.prediction_rule, m.models[best].name, percent(value_of(ev, "recall")),
                     ev.positive_class, percent(value_of(ev, "precision"))),
         kMetricsAnchor});
  }
  for (const auto& c : compare_pairs(m, results, inputs)) {
    out.push_back({fmt::format("{} vs {}: ROC AUC difference {:+.3f} (DeLong {}); {}.", c.a, c.b,
                               c.delong.auc_a - c.delong.auc_b, p_value_text(c.delong.p_value),
                               dominance_text(c)),
                   kMetricsAnchor});
  }
  return out;
}

void render_metrics(HtmlReport& page, const MetricsSection& m,
                    const std::vector<Evaluation>& results,
                    const std::vector<EvaluationInput>& inputs) {
  page.add_heading("Metrics: what the predictions say", 2, kMetricsAnchor);
  if (results.empty()) return;
  page.add_paragraph(describe(m, results));
  const std::string ci = interval_name(m);
  page.add_data_table(
      summary_table(m, results),
      {"metrics-summary",
       fmt::format("Headline values per model (rows grouped by metric), with the {} "
                   "(low, high). Fractions in 0..1; threshold-based values use {}.",
                   ci, results.front().prediction_rule)});
  std::vector<IntervalPoint> points;
  for (const auto& e : results.front().summary) {
    if (!on_unit_axis(e.name)) continue;
    for (std::size_t k = 0; k < results.size(); ++k) {
      if (const auto* est = find(results[k], e.name))
        points.push_back({e.name, m.models[k].name, est->value, est->low, est->high});
    }
  }
  if (!points.empty()) {
    IntervalChartParams ip;
    ip.chart.title = "Headline metrics per model";
    ip.chart.width = 440;
    ip.x_title = "value (fraction, 0..1)";
    ip.domain = {0, 1};
    ip.interval_name = ci;
    page.add_chart("Headline metrics per model", interval_chart(points, ip),
                   fmt::format("Each metric per model: dot = value on all samples, line = {}. "
                               "One axis (0..1) for every row, so differences compare directly.",
                               ci));
  }
  render_curves(page, m, results);
  const auto pairs = compare_pairs(m, results, inputs);
  if (!pairs.empty()) {
    page.add_heading("Paired comparisons", 3);
    std::vector<TextSpan> spans{
        {"Every pair of models on the same samples: DeLong's test of the "
         "two correlated ROC AUCs (two-sided, unweighted) and whether one "
         "PR curve (interpolated precision) lies above the other at every "
         "recall (source: the textbook's Figure 45). "}};
    for (const auto& c : pairs) spans.push_back({dominance_text(c) + ". "});
    page.add_paragraph(spans);
    page.add_data_table(pairs_table(pairs), {"metrics-comparisons", "One row per pair of models."});
  }
  render_matrices(page, m, results);
  page.add_data_table(
      class_table(m, results),
      {"metrics-per-class",
       "Per class and model: precision, recall, F1 (fractions), support (samples or "
       "weight), one-vs-rest ROC AUC and AP of the class's score column."});
  for (std::size_t k = 0; k < results.size(); ++k) {
    for (const auto& note : results[k].notes) page.add_paragraph(m.models[k].name + ": " + note);
  }
}

}  // namespace assay::report::detail
