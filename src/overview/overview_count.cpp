// The overview's counting section: count::count per model (`assay count`) — exact TP/FP/TN/FN
// over the whole bounded input space beside the estimates a test set or uniform samples give.
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "assay/report/charts.hpp"
#include "assay/report/count.hpp"
#include "overview_detail.hpp"

namespace assay::report::detail {
namespace {

using count::CountResult;

std::string view_name(const count::SampleView& v) {
  return v.source == "uniform" ? fmt::format("uniform sample n={}", v.n)
                               : fmt::format("{} n={}", v.source, v.n);
}

// The label the section speaks about: the positive label (index 1) of a two-label model, else
// none (overall accuracy only).
const count::LabelCounts* focus(const CountResult& r, std::size_t* position = nullptr) {
  if (r.labels.size() != 2) return nullptr;
  for (std::size_t l = 0; l < 2; ++l) {
    if (r.labels[l].index == 1) {
      if (position) *position = l;
      return &r.labels[l];
    }
  }
  return nullptr;
}

std::string guarantee_text(const count::Guarantee& g) {
  if (g.bounded) return "certified bounds (" + g.method + ")";
  if (!g.exact)
    return fmt::format("approximate ({}): within a factor 1+{:g} with probability {:g}", g.method,
                       g.epsilon, 1 - g.delta);
  return "exact (" + g.method + ")";
}

Table counts_table(const CountSection& config, const std::vector<CountResult>& results) {
  std::vector<std::string> model, label, tp, fp, tn, fn, how;
  std::vector<double> accuracy, precision, recall, f1;
  for (std::size_t m = 0; m < results.size(); ++m) {
    for (const auto& l : results[m].labels) {
      model.push_back(config.models[m].name);
      label.push_back(l.label);
      tp.push_back(count::to_decimal(l.tp));
      fp.push_back(count::to_decimal(l.fp));
      tn.push_back(count::to_decimal(l.tn));
      fn.push_back(count::to_decimal(l.fn));
      accuracy.push_back(l.accuracy);
      precision.push_back(l.precision);
      recall.push_back(l.recall);
      f1.push_back(l.f1);
      how.push_back(guarantee_text(l.guarantee));
    }
  }
  Table t;
  t.add_column(Column::categorical("model", model));
  t.add_column(Column::categorical("label", label));
  t.add_column(Column::categorical("TP", tp));
  t.add_column(Column::categorical("FP", fp));
  t.add_column(Column::categorical("TN", tn));
  t.add_column(Column::categorical("FN", fn));
  t.add_column(Column::numeric("accuracy", accuracy));
  t.add_column(Column::numeric("precision", precision));
  t.add_column(Column::numeric("recall", recall));
  t.add_column(Column::numeric("F1", f1));
  t.add_column(Column::categorical("how counted", how));
  return t;
}

// Exact value beside each estimate: one row per (model, metric, source).
struct EstimateRows {
  std::vector<std::string> model, metric, source;
  std::vector<double> value, low, high, exact;
  std::vector<IntervalPoint> points;
};

void add_estimates(EstimateRows& rows, const std::string& model, const CountResult& r) {
  std::size_t l = 0;
  const count::LabelCounts* label = focus(r, &l);
  struct Metric {
    std::string name;
    double exact;
    std::function<const count::Proportion&(const count::SampleView&)> of;
  };
  std::vector<Metric> metrics = {
      {"accuracy", r.accuracy,
       [](const count::SampleView& v) -> const count::Proportion& { return v.accuracy; }}};
  if (label) {
    metrics.push_back({"precision (" + label->label + ")", label->precision,
                       [l](const count::SampleView& v) -> const count::Proportion& {
                         return v.labels[l].precision;
                       }});
    metrics.push_back({"recall (" + label->label + ")", label->recall,
                       [l](const count::SampleView& v) -> const count::Proportion& {
                         return v.labels[l].recall;
                       }});
  }
  for (const auto& m : metrics) {
    const std::string row = model + ": " + m.name;
    rows.points.push_back({row, "exact (whole domain)", m.exact, NAN, NAN});
    for (const auto& v : r.samples) {
      const count::Proportion& p = m.of(v);
      rows.model.push_back(model);
      rows.metric.push_back(m.name);
      rows.source.push_back(view_name(v));
      rows.value.push_back(p.value);
      rows.low.push_back(p.wilson_low);
      rows.high.push_back(p.wilson_high);
      rows.exact.push_back(m.exact);
      rows.points.push_back({row, view_name(v), p.value, p.wilson_low, p.wilson_high});
    }
  }
}

// How the counts of a model were obtained, the weakest over its labels (certified bounds, then
// approximate, then exact): the summary's numbers are no better than that.
std::string weakest_guarantee(const CountResult& r) {
  const count::LabelCounts* weakest = nullptr;
  for (const auto& l : r.labels) {
    const auto rank = [](const count::Guarantee& g) { return g.bounded ? 2 : g.exact ? 0 : 1; };
    if (!weakest || rank(l.guarantee) > rank(weakest->guarantee)) weakest = &l;
  }
  return weakest ? guarantee_text(weakest->guarantee) : "";
}

Json proportion(const count::Proportion& p) {
  return {{"value", p.value}, {"low", p.wilson_low}, {"high", p.wilson_high}};
}

}  // namespace

std::vector<Claim> summarize_count(const CountSection& config,
                                   const std::vector<CountResult>& results) {
  std::vector<Claim> out;
  for (std::size_t m = 0; m < results.size(); ++m) {
    const CountResult& r = results[m];
    Json f{{"domain_size", count::to_decimal(r.domain_size)},
           {"domain_shown", short_count(r.domain_size)},
           {"accuracy", r.accuracy},
           {"guarantee", weakest_guarantee(r)}};
    const count::SampleView* test = nullptr;
    for (const auto& v : r.samples) {
      if (v.source != "uniform") test = &v;
    }
    if (test) f["test_accuracy"] = proportion(test->accuracy);
    std::size_t l = 0;
    if (const auto* label = focus(r, &l)) {
      f["label"] = label->label;
      f["precision"] = label->precision;
      if (test) f["test_precision"] = proportion(test->labels[l].precision);
    }
    out.push_back(make_claim("count.model", kCountAnchor, {config.models[m].name}, f));
  }
  return out;
}

std::string render_count_claim(const Claim& c) {
  if (c.kind != "count.model") fail("unknown kind of claim {}", quote_found(c.kind));
  const Json& f = c.facts;
  const auto interval = [](const Json& p) {
    return with_interval(fact(p, "value"), fact(p, "low"), fact(p, "high"));
  };
  std::string text = fmt::format("Counting: over all {} inputs of the domain, {}'s accuracy is {}",
                                 f.at("domain_shown").get<std::string>(), c.subjects[0],
                                 fixed_or_undefined(fact(f, "accuracy"), 4));
  if (f.contains("test_accuracy"))
    text += fmt::format(" (the test set says {})", interval(f["test_accuracy"]));
  if (f.contains("label")) {
    text += fmt::format("; its precision for \"{}\" is {} over the whole domain",
                        f["label"].get<std::string>(), fixed_or_undefined(fact(f, "precision"), 4));
    if (f.contains("test_precision"))
      text += fmt::format(" against {} on the test set", interval(f["test_precision"]));
  }
  const std::string guarantee = f.at("guarantee").get<std::string>();
  if (!guarantee.empty()) text += fmt::format(" ({})", guarantee);
  return text + ".";
}

void render_count(HtmlReport& page, const CountSection& config,
                  const std::vector<CountResult>& results, std::optional<double> metrics_threshold,
                  AxisRange axis) {
  page.add_heading("Counting: the whole input space", 2, kCountAnchor);
  if (results.empty()) return;
  const CountResult& first = results.front();
  page.add_paragraph(fmt::format(
      "Domain: {} ({} inputs, {} points){}. Each model's predicted label is counted against the "
      "spec's ground truth at every point — TP, FP, TN, FN are counts of inputs, not samples — "
      "beside what a test set and uniform samples of the domain would estimate ({:g}% Wilson "
      "intervals).",
      config.spec, first.n_inputs, short_count(first.domain_size),
      first.property.empty() ? "" : ", property " + first.property, 100 * first.confidence));
  std::vector<TextSpan> link{
      {"Operating point: a model's label is its most probable class (a tie goes to the first "
       "class), so for a two-label model the positive label is predicted when its probability "
       "is above 0.5"}};
  if (metrics_threshold) {
    link.push_back(
        {fmt::format(" — the metrics section uses the threshold score \u2265 {:g} (the "
                     "ringed dots on its ",
                     *metrics_threshold)});
    link.push_back(section_link("PR and ROC curves", kMetricsAnchor));
    link.push_back({*metrics_threshold == 0.5
                        ? "); the two rules differ only for a probability of exactly 0.5."
                        : "); the counts here are at 0.5, not at that threshold."});
  } else {
    link.push_back({"."});
  }
  page.add_paragraph(link);
  page.add_data_table(counts_table(config, results),
                      {"count-labels",
                       "Exact counts per model and label over the whole domain (counts "
                       "as exact integers), and the metrics they give."});
  EstimateRows rows;
  for (std::size_t m = 0; m < results.size(); ++m)
    add_estimates(rows, config.models[m].name, results[m]);
  if (!rows.value.empty()) {
    Table t;
    t.add_column(Column::categorical("model", rows.model));
    t.add_column(Column::categorical("metric", rows.metric));
    t.add_column(Column::categorical("source", rows.source));
    t.add_column(Column::numeric("estimate", rows.value));
    t.add_column(Column::numeric("wilson_low", rows.low));
    t.add_column(Column::numeric("wilson_high", rows.high));
    t.add_column(Column::numeric("exact", rows.exact));
    page.add_data_table(t, {"count-estimates",
                            "Each estimate from a finite set of points beside the "
                            "exact value over the whole domain."});
  }
  IntervalChartParams ip;
  ip.chart.title = "Exact values and estimates";
  ip.chart.width = 440;
  ip.chart.axis = axis;
  ip.x_title = "value (fraction)";
  ip.domain = {0, 1};
  ip.series_title = "Source";
  ip.interval_name = fmt::format("{:g}% Wilson interval", 100 * first.confidence);
  page.add_chart(ip.chart.title, interval_chart(rows.points, ip),
                 "Per model and metric: the exact value over the whole domain and the estimates "
                 "from the test set and uniform samples, with Wilson intervals. An exact value "
                 "outside an interval means the sample misleads.");
  for (std::size_t m = 0; m < results.size(); ++m) {
    const CountResult& r = results[m];
    if (!r.safety.empty()) {
      std::vector<std::string> name, s, n;
      std::vector<double> accuracy;
      for (const auto& p : r.safety) {
        name.push_back(p.name);
        s.push_back(count::to_decimal(p.satisfied));
        n.push_back(count::to_decimal(p.violated));
        accuracy.push_back(p.accuracy);
      }
      Table t;
      t.add_column(Column::categorical("property", name));
      t.add_column(Column::categorical("satisfied", s));
      t.add_column(Column::categorical("violated", n));
      t.add_column(Column::numeric("accuracy", accuracy));
      page.add_data_table(t,
                          {"count-safety-" + std::to_string(m + 1),
                           config.models[m].name + ": safety properties (inputs satisfying pre)"});
    }
  }
}

}  // namespace assay::report::detail
