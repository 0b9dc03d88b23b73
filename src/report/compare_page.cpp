// The comparison's page blocks: forest plot, metric and difference tables, slice charts, worst
// slices and gates (compare_detail.hpp), and compare_html, which puts them on a page.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "assay/report/charts.hpp"
#include "assay/report/compare.hpp"
#include "compare_detail.hpp"

namespace assay::report {
namespace detail {
namespace {

using compare::CompareResult;
using compare::Difference;

std::string interval_name(const CompareResult& r) {
  return fmt::format("{:g}% bootstrap interval", 100 * r.params.bootstrap.confidence);
}

std::string pair_name(const Difference& d) {
  return d.model + " vs " + d.baseline;
}

// Forest-plot rows read "better to the right": a loss's difference is drawn with its sign flipped.
std::string forest_row(const Difference& d) {
  return d.higher_is_better ? d.metric : d.metric + " (lower is better: sign flipped)";
}

IntervalPoint forest_point(const Difference& d) {
  const double s = d.higher_is_better ? 1 : -1;
  const double a = s * d.percentile.low, b = s * d.percentile.high;
  return {forest_row(d), pair_name(d), s * d.difference, std::min(a, b), std::max(a, b)};
}

Column text_column(const std::string& name, const std::vector<std::string>& cells) {
  return Column::categorical(name, cells);
}

// Model, metric, value, low, high (and threshold) rows of model summaries; `slice` prefixes the
// slice's name when given.
struct MetricRows {
  std::vector<std::string> slice, model, metric;
  std::vector<double> value, low, high, threshold, undefined;

  void add(const std::string& slice_name, const compare::ModelSummary& m) {
    for (const auto& v : m.metrics) {
      slice.push_back(slice_name);
      model.push_back(m.name);
      metric.push_back(v.metric);
      value.push_back(v.value);
      low.push_back(v.low);
      high.push_back(v.high);
      threshold.push_back(v.threshold);
      undefined.push_back(static_cast<double>(v.n_undefined));
    }
  }
  Table table(bool with_slice, bool with_threshold) const {
    Table t;
    if (with_slice) t.add_column(text_column("slice", slice));
    t.add_column(text_column("model", model));
    t.add_column(text_column("metric", metric));
    t.add_column(Column::numeric("value", value));
    t.add_column(Column::numeric("low", low));
    t.add_column(Column::numeric("high", high));
    if (with_threshold) t.add_column(Column::numeric("threshold", threshold));
    t.add_column(Column::numeric("undefined resamples", undefined));
    return t;
  }
};

bool any_threshold(const CompareResult& r) {
  for (const auto& m : r.models) {
    for (const auto& v : m.metrics) {
      if (std::isfinite(v.threshold)) return true;
    }
  }
  return false;
}

std::string slice_name(const compare::SliceResult& s) {
  return s.column + "=" + s.value;
}

// `slices`: each difference's slice name (a first column), or none.
Table differences_table(const std::vector<Difference>& diffs,
                        const std::vector<std::string>& slices = {}) {
  std::vector<std::string> model, baseline, metric, better, test;
  std::vector<double> diff, p_low, p_high, b_low, b_high, p, adjusted;
  for (const auto& d : diffs) {
    model.push_back(d.model);
    baseline.push_back(d.baseline);
    metric.push_back(d.metric);
    better.push_back(d.higher_is_better ? "higher" : "lower");
    diff.push_back(d.difference);
    p_low.push_back(d.percentile.low);
    p_high.push_back(d.percentile.high);
    b_low.push_back(d.bca.low);
    b_high.push_back(d.bca.high);
    p.push_back(d.p_value);
    test.push_back(d.test);
    adjusted.push_back(d.p_adjusted);
  }
  Table t;
  if (!slices.empty()) t.add_column(text_column("slice", slices));
  t.add_column(text_column("model", model));
  t.add_column(text_column("baseline", baseline));
  t.add_column(text_column("metric", metric));
  t.add_column(text_column("better", better));
  t.add_column(Column::numeric("difference", diff));
  t.add_column(Column::numeric("percentile low", p_low));
  t.add_column(Column::numeric("percentile high", p_high));
  t.add_column(Column::numeric("BCa low", b_low));
  t.add_column(Column::numeric("BCa high", b_high));
  t.add_column(Column::numeric("p", p));
  t.add_column(text_column("test", test));
  t.add_column(Column::numeric("adjusted p", adjusted));
  return t;
}

Table delong_table(const std::vector<Difference>& diffs) {
  std::vector<std::string> model, baseline;
  std::vector<double> auc_m, auc_b, diff, se, low, high, z, p;
  for (const auto& d : diffs) {
    if (!d.delong) continue;
    const auto& x = *d.delong;
    model.push_back(d.model);
    baseline.push_back(d.baseline);
    auc_m.push_back(x.auc_model);
    auc_b.push_back(x.auc_baseline);
    diff.push_back(x.difference);
    se.push_back(x.standard_error);
    low.push_back(x.low);
    high.push_back(x.high);
    z.push_back(x.z);
    p.push_back(x.p_value);
  }
  Table t;
  t.add_column(text_column("model", model));
  t.add_column(text_column("baseline", baseline));
  t.add_column(Column::numeric("AUC model", auc_m));
  t.add_column(Column::numeric("AUC baseline", auc_b));
  t.add_column(Column::numeric("difference", diff));
  t.add_column(Column::numeric("standard error", se));
  t.add_column(Column::numeric("low", low));
  t.add_column(Column::numeric("high", high));
  t.add_column(Column::numeric("z", z));
  t.add_column(Column::numeric("p", p));
  return t;
}

Table mcnemar_table(const std::vector<Difference>& diffs) {
  std::vector<std::string> model, baseline, metric;
  std::vector<double> model_only, baseline_only, p, mid_p;
  for (const auto& d : diffs) {
    if (!d.mcnemar) continue;
    model.push_back(d.model);
    baseline.push_back(d.baseline);
    metric.push_back(d.metric);
    model_only.push_back(d.mcnemar->model_only);
    baseline_only.push_back(d.mcnemar->baseline_only);
    p.push_back(d.mcnemar->p_value);
    mid_p.push_back(d.mcnemar->mid_p);
  }
  Table t;
  t.add_column(text_column("model", model));
  t.add_column(text_column("baseline", baseline));
  t.add_column(text_column("metric", metric));
  t.add_column(Column::numeric("only model right", model_only));
  t.add_column(Column::numeric("only baseline right", baseline_only));
  t.add_column(Column::numeric("exact p", p));
  t.add_column(Column::numeric("mid-p", mid_p));
  return t;
}

bool any_delong(const std::vector<Difference>& diffs) {
  for (const auto& d : diffs) {
    if (d.delong) return true;
  }
  return false;
}

bool any_mcnemar(const std::vector<Difference>& diffs) {
  for (const auto& d : diffs) {
    if (d.mcnemar) return true;
  }
  return false;
}

// One panel: the metric on the whole data ("all") and on each slice, per model.
std::vector<IntervalPoint> slice_points(const CompareResult& r, std::size_t metric) {
  std::vector<IntervalPoint> points;
  const auto add = [&](const std::string& row, const compare::ModelSummary& m) {
    const auto& v = m.metrics.at(metric);
    points.push_back({row, m.name, v.value, v.low, v.high});
  };
  for (const auto& m : r.models) add("all", m);
  for (const auto& s : r.slices) {
    const std::string row = slice_name(s) + (s.too_small ? " (small)" : "");
    for (const auto& m : s.models) add(row, m);
  }
  return points;
}

bool any_small(const CompareResult& r) {
  for (const auto& s : r.slices) {
    if (s.too_small) return true;
  }
  return false;
}

bool has_finite_value(const std::vector<IntervalPoint>& points) {
  for (const auto& p : points) {
    if (std::isfinite(p.value)) return true;
  }
  return false;
}

Table slice_info_table(const CompareResult& r) {
  std::vector<std::string> column, value, small;
  std::vector<double> n, support, positives, negatives;
  for (const auto& s : r.slices) {
    column.push_back(s.column);
    value.push_back(s.value);
    n.push_back(static_cast<double>(s.n_examples));
    support.push_back(s.support);
    positives.push_back(s.positives);
    negatives.push_back(s.negatives);
    small.push_back(s.too_small ? "yes" : "no");
  }
  Table t;
  t.add_column(text_column("column", column));
  t.add_column(text_column("value", value));
  t.add_column(Column::numeric("examples", n));
  t.add_column(Column::numeric("support", support));
  t.add_column(Column::numeric("positives", positives));
  t.add_column(Column::numeric("negatives", negatives));
  t.add_column(text_column("too small", small));
  return t;
}

Table worst_table(const CompareResult& r) {
  std::vector<std::string> model, metric, slice;
  std::vector<double> value, low, high, gap, gap_low, gap_high;
  for (const auto& w : r.worst_slices) {
    model.push_back(w.model);
    metric.push_back(w.metric);
    slice.push_back(w.column + "=" + w.value);
    value.push_back(w.slice.value);
    low.push_back(w.slice.low);
    high.push_back(w.slice.high);
    gap.push_back(w.gap.value);
    gap_low.push_back(w.gap.low);
    gap_high.push_back(w.gap.high);
  }
  Table t;
  t.add_column(text_column("model", model));
  t.add_column(text_column("metric", metric));
  t.add_column(text_column("worst slice", slice));
  t.add_column(Column::numeric("value", value));
  t.add_column(Column::numeric("low", low));
  t.add_column(Column::numeric("high", high));
  t.add_column(Column::numeric("gap to whole", gap));
  t.add_column(Column::numeric("gap low", gap_low));
  t.add_column(Column::numeric("gap high", gap_high));
  return t;
}

Table gates_table(const std::vector<compare::GateOutcome>& gates) {
  std::vector<std::string> result, gate, model, message;
  std::vector<double> value, estimate, low, high;
  for (const auto& g : gates) {
    result.push_back(g.passed ? "pass" : "FAIL");
    gate.push_back(g.gate);
    model.push_back(g.model);
    value.push_back(g.value);
    estimate.push_back(g.estimate);
    low.push_back(g.low);
    high.push_back(g.high);
    message.push_back(g.message);
  }
  Table t;
  t.add_column(text_column("result", result));
  t.add_column(text_column("gate", gate));
  t.add_column(text_column("model", model));
  t.add_column(Column::numeric("gated value", value));
  t.add_column(Column::numeric("estimate", estimate));
  t.add_column(Column::numeric("low", low));
  t.add_column(Column::numeric("high", high));
  t.add_column(text_column("why", message));
  return t;
}

}  // namespace

void add_forest_plot(HtmlReport& page, const CompareBlocks& b) {
  std::vector<IntervalPoint> points;
  for (const auto& d : b.result.differences) points.push_back(forest_point(d));
  if (!has_finite_value(points)) return;
  IntervalChartParams ip;
  ip.chart.title = "Differences from the baseline";
  ip.chart.width = 460;
  ip.x_title = "gain over the baseline (positive = model better)";
  ip.series_title = "Pair";
  ip.interval_name = interval_name(b.result) + " (percentile)";
  ip.reference = 0;
  ip.legend_below = true;
  page.add_chart(ip.chart.title, interval_chart(points, ip),
                 fmt::format("One row per metric, one colour per pair (model vs baseline): dot = "
                             "the difference on all examples, line = its {} (percentile). Right "
                             "of the dashed zero line the model is better; for losses (lower is "
                             "better, e.g. brier) the difference is drawn with its sign flipped, "
                             "so right is better there too.",
                             interval_name(b.result)));
}

void add_model_table(HtmlReport& page, const CompareBlocks& b) {
  MetricRows rows;
  for (const auto& m : b.result.models) rows.add("", m);
  const bool thresholds = any_threshold(b.result);
  page.add_data_table(
      rows.table(false, thresholds),
      {"compare-models",
       fmt::format("Each model's metrics on all examples with the {} (low, high){}; undefined "
                   "resamples are left out of the interval.",
                   interval_name(b.result),
                   thresholds ? "; operating-point metrics (METRIC@RULE) with the threshold "
                                "chosen on the data (chosen again in every resample)"
                              : "")});
}

void add_difference_tables(HtmlReport& page, const CompareBlocks& b) {
  const auto& diffs = b.result.differences;
  page.add_data_table(
      differences_table(diffs),
      {"compare-differences",
       "Model - baseline per metric (\"better\": whether higher or lower values are better), "
       "its percentile and BCa intervals, the test's two-sided p and the adjusted p."});
  if (any_delong(diffs)) {
    const std::string description =
        std::string(
            "DeLong's test of the two correlated ROC AUCs: the difference, its standard "
            "error, the normal interval, z and p") +
        (b.result.weighted ? " (from the weighted structural components)." : ".");
    page.add_data_table(delong_table(diffs), {.csv_name = "compare-delong",
                                              .caption = description,
                                              .folded = true,
                                              .glossary = {"DeLong"}});
  }
  if (any_mcnemar(diffs)) {
    page.add_data_table(mcnemar_table(diffs),
                        {"compare-mcnemar",
                         "Exact McNemar test: (weighted) examples only the model gets right and "
                         "only the baseline, the exact two-sided binomial p and the mid-p.",
                         true,
                         false,
                         {"McNemar"}});
  }
}

void add_slice_blocks(HtmlReport& page, const CompareBlocks& b) {
  const CompareResult& r = b.result;
  if (r.slices.empty()) return;
  page.add_heading("Slices", b.level, "compare-slices");
  for (std::size_t k = 0; k < r.metrics.size(); ++k) {
    const auto points = slice_points(r, k);
    if (!has_finite_value(points)) continue;
    IntervalChartParams ip;
    ip.chart.title = r.metrics[k] + " per slice";
    ip.chart.width = 360;
    ip.x_title =
        r.metrics[k] + (compare::metric_higher_is_better(r.metrics[k]) ? " (higher is better)"
                                                                       : " (lower is better)");
    ip.interval_name = interval_name(r);
    page.add_chart(ip.chart.title, interval_chart(points, ip),
                   fmt::format("{} per model on all examples and on each slice: dot = value, "
                               "line = {}.{}",
                               r.metrics[k], interval_name(r),
                               any_small(r) ? " \"(small)\": too few examples for the interval "
                                              "to mean much."
                                            : ""));
  }
  MetricRows rows;
  std::vector<Difference> diffs;
  std::vector<std::string> diff_slices;
  for (const auto& s : r.slices) {
    for (const auto& m : s.models) rows.add(slice_name(s), m);
    diffs.insert(diffs.end(), s.differences.begin(), s.differences.end());
    diff_slices.resize(diffs.size(), slice_name(s));
  }
  page.add_data_table(slice_info_table(r),
                      {"compare-slice-sizes",
                       "Each slice: examples, (weighted) support and, for binary labels, its "
                       "positives and negatives."});
  page.add_data_table(
      rows.table(true, false),
      {"compare-slice-metrics",
       "Every model's metrics on every slice, with the " + interval_name(r) + ".", true});
  if (!diffs.empty()) {
    page.add_data_table(differences_table(diffs, diff_slices),
                        {"compare-slice-differences",
                         "Model - baseline on every slice, with the same intervals and tests as "
                         "on the whole data.",
                         true});
  }
  if (!r.worst_slices.empty()) {
    page.add_data_table(
        worst_table(r),
        {"compare-worst-slices",
         fmt::format("The worst slice of each model and metric: its value with the {}, and the "
                     "gap to the whole data (slice - all; same resamples, so the gap has its own "
                     "interval).",
                     interval_name(r))});
  }
}

void add_gate_table(HtmlReport& page, const CompareBlocks& b) {
  if (b.gates.empty()) return;
  page.add_heading("Gates", b.level, "compare-gates");
  const bool passed = compare::all_passed(b.gates);
  page.add_paragraph(passed ? "Every gate passed."
                            : "At least one gate FAILED (assay compare exits with status 1).");
  page.add_data_table(gates_table(b.gates),
                      {"compare-gates",
                       "One row per gate and model it applies to: the gated value (point "
                       "estimate or interval bound, as asked), the estimate and its interval."});
}

void add_compare_body(HtmlReport& page, const CompareBlocks& b) {
  add_forest_plot(page, b);
  add_gate_table(page, b);
  page.add_heading("Models", b.level, "compare-models");
  add_model_table(page, b);
  page.add_heading("Differences", b.level, "compare-differences");
  add_difference_tables(page, b);
  add_slice_blocks(page, b);
  for (const auto& n : b.result.notes) page.add_paragraph("Note: " + n);
}

}  // namespace detail

std::string compare_description(const compare::CompareResult& r) {
  const auto& p = r.params;
  std::string out = fmt::format("{} examples", r.n_examples);
  if (r.weighted) out += fmt::format(" (total weight {})", display_number(r.total_weight));
  out += fmt::format(", {} task", compare::to_string(r.task));
  if (!r.positive_class.empty()) out += fmt::format(", positive class \"{}\"", r.positive_class);
  out += fmt::format("; baseline {}. ", r.baseline);
  if (p.bootstrap.n_resamples > 0) {
    out += fmt::format(
        "Intervals: {:g}%, from {} paired bootstrap resamples (the same for every model, metric "
        "and slice), seed {}. ",
        100 * p.bootstrap.confidence, p.bootstrap.n_resamples, p.bootstrap.seed);
  } else {
    out += "No resamples: no intervals. ";
  }
  out += p.correction == compare::Correction::none
             ? "p-values are not corrected for multiple comparisons."
             : fmt::format("p-values are adjusted by {} over every test of the run.",
                           compare::to_string(p.correction));
  return out;
}

void add_compare_blocks(HtmlReport& page, const compare::CompareResult& result,
                        const std::vector<compare::GateOutcome>& gates, int heading_level) {
  detail::add_compare_body(page, {result, gates, heading_level});
}

HtmlReport compare_html(const compare::CompareResult& r,
                        const std::vector<compare::GateOutcome>& gates, const std::string& title) {
  HtmlReport page(title);
  page.add_paragraph(compare_description(r));
  page.add_heading("Conclusions", 2, "conclusions");
  std::vector<std::vector<TextSpan>> items;
  for (const auto& c : r.conclusions) items.push_back({TextSpan{c}});
  for (const auto& g : gates) {
    if (!g.passed) items.push_back({TextSpan{"Gate failed: " + g.message}});
  }
  if (!items.empty()) page.add_list(items, true);
  add_compare_blocks(page, r, gates, 2);
  return page;
}

}  // namespace assay::report
