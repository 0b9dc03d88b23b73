// The overview's metrics section: every model's metrics::evaluate result (what `assay metrics`
// computes) side by side — headline values with bootstrap intervals, PR and ROC curves of all
// models in one chart each with the operating points, paired comparisons (DeLong test of the ROC
// AUCs, PR-curve dominance), confusion matrices and reliability diagrams.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

// Pairs of binary models: their ROC AUCs (the headline values), DeLong's test of them and how
// the PR curves relate, both tests on the unweighted samples (neither takes weights).
struct PairComparison {
  std::string a, b;
  double auc_a = NAN, auc_b = NAN;
  metrics::DelongResult delong;
  metrics::PrComparison pr;
  /// "same" (raw PR curves equal point for point), "same_interpolated" (only the interpolated
  /// ones), "a" / "b" (that model's interpolated curve dominates), "cross".
  std::string relation;
};

// Equal PR curves, point for point, as the chart draws them (metrics::evaluate's curve: one
// point per block of tied scores, intermediate points of equal recall dropped), unweighted as
// the rest of the pair's comparison.
bool same_raw_curve(std::span<const std::uint8_t> y, std::span<const double> a,
                    std::span<const double> b) {
  const auto pa = metrics::precision_recall_curve(y, a, {}, true);
  const auto pb = metrics::precision_recall_curve(y, b, {}, true);
  return pa.precision == pb.precision && pa.recall == pb.recall;
}

std::string relation_of(const metrics::PrComparison& pr, bool same_raw) {
  if (same_raw) return "same";
  if (pr.dominant == "equal") return "same_interpolated";
  if (pr.dominant == "a" || pr.dominant == "b") return pr.dominant;
  return "cross";
}

std::vector<PairComparison> compare_pairs(const MetricsSection& m,
                                          const std::vector<Evaluation>& results,
                                          const std::vector<EvaluationInput>& inputs) {
  std::vector<PairComparison> out;
  for (std::size_t a = 0; a < results.size(); ++a) {
    if (!scored_binary(results[a], inputs[a])) continue;
    for (std::size_t b = a + 1; b < results.size(); ++b) {
      if (!scored_binary(results[b], inputs[b])) continue;
      const auto y = positives(results[a], inputs[a]);
      PairComparison c{
          m.models[a].name,
          m.models[b].name,
          value_of(results[a], "ROC AUC"),
          value_of(results[b], "ROC AUC"),
          metrics::delong_roc_test(y, inputs[a].scores, inputs[b].scores),
          metrics::compare_pr_curves(y, inputs[a].scores, inputs[b].scores, m.params.ap),
          ""};
      c.relation = relation_of(c.pr, same_raw_curve(y, inputs[a].scores, inputs[b].scores));
      out.push_back(std::move(c));
    }
  }
  return out;
}

// The crossing recalls as printed: 3 decimals, more (up to 6) when that would print two equal.
std::vector<std::string> crossing_texts(const std::vector<double>& recalls) {
  std::vector<std::string> out;
  for (int decimals = 3; decimals <= 6; ++decimals) {
    out.clear();
    for (double r : recalls) out.push_back(fmt::format("{:.{}f}", r, decimals));
    if (std::set<std::string>(out.begin(), out.end()).size() == out.size()) break;
  }
  return out;
}

constexpr std::size_t kCrossingsListed = 3;
constexpr double kLevel = 0.05;  // of the paired tests' "significant"

// The PR relation of a pair in words (the summary and the paired-comparisons paragraph).
std::string relation_text(const Json& f, const std::string& a, const std::string& b) {
  const std::string relation = f.at("relation").get<std::string>();
  if (relation == "same")
    return fmt::format("{} and {} have the same PR curve, point for point", a, b);
  if (relation == "same_interpolated")
    return fmt::format(
        "{} and {} have the same interpolated PR curve, but their raw curves differ (AP {} vs "
        "{})",
        a, b, fixed_or_undefined(fact(f, "ap_a"), 3), fixed_or_undefined(fact(f, "ap_b"), 3));
  if (relation == "a" || relation == "b") {
    const bool first = relation == "a";
    return fmt::format(
        "{}'s interpolated PR curve dominates {}'s (at least as high at every recall, higher at "
        "some)",
        first ? a : b, first ? b : a);
  }
  const auto recalls = f.at("crossings").get<std::vector<double>>();
  const auto texts = crossing_texts(recalls);
  const std::size_t listed = std::min<std::size_t>(texts.size(), kCrossingsListed);
  std::string where = fmt::format("{}", fmt::join(texts.begin(), texts.begin() + listed, ", "));
  if (texts.size() > kCrossingsListed)
    where += fmt::format(" and {} more", texts.size() - kCrossingsListed);
  return fmt::format(
      "the interpolated PR curves of {} and {} cross {} {} (at recall {}): which is better "
      "depends on the operating point",
      a, b, recalls.size(), recalls.size() == 1 ? "time" : "times", where);
}

Json pair_facts(const PairComparison& c, bool weighted) {
  return {{"auc_a", c.auc_a},       {"auc_b", c.auc_b},
          {"z", c.delong.z},        {"p", c.delong.p_value},
          {"level", kLevel},        {"weighted", weighted},
          {"relation", c.relation}, {"crossings", c.pr.crossings},
          {"ap_a", c.pr.ap_a},      {"ap_b", c.pr.ap_b}};
}

// The comparisons table, from the pair claims of the summary: the table and the sentences
// cannot disagree (one list of crossings for both).
Table pairs_table(const std::vector<const Claim*>& pairs) {
  std::vector<std::string> a, b, dominant;
  std::vector<double> auc_a, auc_b, z, p, crossings;
  for (const auto* c : pairs) {
    const Json& f = c->facts;
    const std::string relation = f.at("relation").get<std::string>();
    a.push_back(c->subjects[0]);
    b.push_back(c->subjects[1]);
    auc_a.push_back(fact(f, "auc_a"));
    auc_b.push_back(fact(f, "auc_b"));
    z.push_back(fact(f, "z"));
    p.push_back(fact(f, "p"));
    dominant.push_back(relation == "a"                   ? c->subjects[0]
                       : relation == "b"                 ? c->subjects[1]
                       : relation == "same"              ? "same curve"
                       : relation == "same_interpolated" ? "same interpolated curve"
                                                         : "none (curves cross)");
    crossings.push_back(static_cast<double>(f.at("crossings").size()));
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
  // Multi-class curves are one per (model, class): "model / class".
  const bool per_class = std::any_of(results.begin(), results.end(),
                                     [](const Evaluation& ev) { return ev.pr_curves.size() > 1; });
  cp.legend_title = per_class ? "Model / class" : "Model";
  page.add_chart("Precision-recall curves of every model", pr_curve_chart(pr, cp),
                 "Precision (fraction of predicted positives that are positive) against recall "
                 "(fraction of positives found), both 0..1, as the threshold falls. Solid: the "
                 "curve; dotted: interpolated precision (best precision at any recall at or "
                 "above). Ringed dots: the operating threshold used by the tables. AP in the "
                 "legend.");
  ChartParams roc_params;
  roc_params.legend_title = cp.legend_title;
  page.add_chart("ROC curves of every model", roc_curve_chart(roc, roc_params),
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
    const ReliabilityBins bins{
        b.lower,      b.upper,
        b.count,      b.accuracy,
        b.confidence, ev.binary ? ReliabilityKind::positive_class : ReliabilityKind::top_label};
    page.add_chart(cp.title, reliability_chart(bins, cp),
                   fmt::format("Observed frequency against predicted probability ({}), {} bins; "
                               "red: the gap to perfect calibration (dashed). ECE = {:.4f}.",
                               ev.binary ? "positive class" : "top label", b.lower.size(),
                               ev.calibration->error));
  }
}

// --- the summary's claims ------------------------------------------------------------------

constexpr int kDecimals = 3;  // ROC AUC and accuracy as the summary prints them

// The measure models are ranked by: ROC AUC when every model has binary scores, macro ROC AUC
// when every model has multi-class scores, else accuracy.
std::string ranking_measure(const std::vector<Evaluation>& results) {
  for (const char* name : {"ROC AUC", "ROC AUC (one-vs-rest, macro)"}) {
    if (std::all_of(results.begin(), results.end(),
                    [&](const Evaluation& ev) { return find(ev, name) != nullptr; }))
      return name;
  }
  return "accuracy";
}

// Intervals as printed overlap.
bool overlap(double low_a, double high_a, double low_b, double high_b) {
  const double la = shown(low_a, kDecimals), ha = shown(high_a, kDecimals);
  const double lb = shown(low_b, kDecimals), hb = shown(high_b, kDecimals);
  if (!std::isfinite(la) || !std::isfinite(ha) || !std::isfinite(lb) || !std::isfinite(hb))
    return false;
  return std::max(la, lb) <= std::min(ha, hb);
}

// The DeLong p-value of the pair (a, b) in either order; nullopt when the pair was not tested.
std::optional<double> pair_p(const std::vector<PairComparison>& pairs, const std::string& a,
                             const std::string& b) {
  for (const auto& c : pairs) {
    if ((c.a == a && c.b == b) || (c.a == b && c.b == a)) return c.delong.p_value;
  }
  return std::nullopt;
}

// Whether the best model's lead over each other model is established, by the sharpest evidence
// on the page: DeLong's paired test of the ROC AUCs where every pair was tested (lead not
// established when p >= 0.05 or undefined), else the bootstrap intervals as printed (they
// overlap). Returns {"how": "delong" | "intervals" | "none", "uncertain": [{"model", "p"}]}.
Json lead_facts(const MetricsSection& m, const std::string& measure, const Json& values,
                const Json& lows, const Json& highs, std::size_t b,
                const std::vector<PairComparison>& pairs) {
  Json uncertain = Json::array();
  bool tested = measure == "ROC AUC";
  for (std::size_t k = 0; tested && k < values.size(); ++k)
    tested = k == b || pair_p(pairs, m.models[b].name, m.models[k].name).has_value();
  const bool intervals = std::isfinite(fact(lows, b)) && std::isfinite(fact(highs, b));
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (k == b || !std::isfinite(fact(values, k))) continue;
    if (tested) {
      const double p = *pair_p(pairs, m.models[b].name, m.models[k].name);
      if (!(p < kLevel)) uncertain.push_back({{"model", k}, {"p", p}});
    } else if (intervals && overlap(fact(lows, b), fact(highs, b), fact(lows, k), fact(highs, k))) {
      uncertain.push_back({{"model", k}, {"p", nullptr}});
    }
  }
  return {{"how", tested ? "delong" : intervals ? "intervals" : "none"}, {"uncertain", uncertain}};
}

// A model's own ROC AUC (binary, or macro one-vs-rest for multi-class scores), if it has one.
const metrics::Estimate* own_auc(const Evaluation& ev) {
  const auto* e = find(ev, "ROC AUC");
  return e ? e : find(ev, "ROC AUC (one-vs-rest, macro)");
}

// The rule of "scores look inverted": the model's own ROC AUC, as printed, is below 0.5.
bool inverted(const Evaluation& ev) {
  const auto* e = own_auc(ev);
  return e && shown(e->value, kDecimals) < 0.5;
}

// The rule of "ranks best": among the models whose value as printed is defined and above chance
// (ROC AUC 0.5; accuracy has no fixed chance level) and whose scores do not look inverted, the
// highest printed value; several with that value tie. Inverted and chance-level models are never
// best, whatever the measure.
Json ranking_facts(const MetricsSection& m, const std::vector<Evaluation>& results,
                   const std::vector<PairComparison>& pairs) {
  const std::string measure = ranking_measure(results);
  const double chance = measure == "accuracy" ? NAN : 0.5;
  Json values = Json::array(), lows = Json::array(), highs = Json::array();
  Json excluded = Json::array();
  double top = -INFINITY;
  bool any_defined = false;
  for (std::size_t k = 0; k < results.size(); ++k) {
    const auto* e = find(results[k], measure);
    const double v = e ? e->value : NAN;
    values.push_back(v);
    lows.push_back(e ? e->low : NAN);
    highs.push_back(e ? e->high : NAN);
    const double s = shown(v, kDecimals);
    any_defined = any_defined || std::isfinite(s);
    if (inverted(results[k])) {
      excluded.push_back(k);
    } else if (std::isfinite(s) && !(s <= chance)) {
      top = std::max(top, s);
    }
  }
  Json best = Json::array();
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (std::isfinite(top) && shown(fact(values, k), kDecimals) == top && !inverted(results[k]))
      best.push_back(k);
  }
  const std::string outcome = results.size() == 1  ? "single"
                              : !any_defined       ? "undefined"
                              : !best.empty()      ? (best.size() == 1 ? "best" : "tie")
                              : std::isnan(chance) ? "all_inverted"
                                                   : "none_above_chance";
  const Json lead = outcome == "best" ? lead_facts(m, measure, values, lows, highs,
                                                   best[0].get<std::size_t>(), pairs)
                                      : Json(nullptr);
  const auto& boot = m.params.bootstrap;
  return {{"measure", measure},
          {"chance", chance},
          {"confidence", boot.n_resamples > 0 ? Json(boot.confidence) : Json(nullptr)},
          {"values", values},
          {"lows", lows},
          {"highs", highs},
          {"outcome", outcome},
          {"excluded", excluded},
          {"best", best},
          {"lead", lead}};
}

Json inverted_facts(const Evaluation& ev) {
  const metrics::Estimate& e = *own_auc(ev);
  return {{"measure", e.name},   {"value", e.value},
          {"low", e.low},        {"high", e.high},
          {"chance", 0.5},       {"reversed", 1 - e.value},
          {"binary", ev.binary}, {"positive", ev.positive_class}};
}

// "a, b and c".
std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

std::vector<std::string> pick(const std::vector<std::string>& names, const Json& indices) {
  std::vector<std::string> out;
  for (const auto& i : indices) out.push_back(names[i.get<std::size_t>()]);
  return out;
}

std::string ranking_text(const Claim& c) {
  const Json& f = c.facts;
  const std::string measure = f.at("measure").get<std::string>();
  const std::string outcome = f.at("outcome").get<std::string>();
  std::string values;
  for (std::size_t k = 0; k < c.subjects.size(); ++k)
    values += fmt::format(
        "{}{} {}", k ? ", " : "", c.subjects[k],
        with_interval(fact(f["values"], k), fact(f["lows"], k), fact(f["highs"], k), kDecimals));
  const double confidence = fact(f, "confidence");
  const std::string intervals = std::isfinite(confidence)
                                    ? fmt::format(" ({:g}% bootstrap interval{})", 100 * confidence,
                                                  c.subjects.size() > 1 ? "s" : "")
                                    : "";
  if (outcome == "single") return fmt::format("Metrics: {} of {}{}.", measure, values, intervals);
  if (outcome == "undefined")
    return fmt::format("Metrics: {} is undefined for every model: {}{}.", measure, values,
                       intervals);
  if (outcome == "none_above_chance")
    return fmt::format(
        "Metrics: no model is better than chance by {} (all at or below {:g}): {}{}.", measure,
        fact(f, "chance"), values, intervals);
  if (outcome == "all_inverted")
    return fmt::format(
        "Metrics: no model ranks best by {}, as the scores of every defined one look inverted: "
        "{}{}.",
        measure, values, intervals);
  if (outcome == "tie")
    return fmt::format("Metrics: {} tie for best by {}: {}{}.",
                       join_names(pick(c.subjects, f["best"])), measure, values, intervals);
  std::string text =
      fmt::format("Metrics: {} ranks best by {}: {}{}.",
                  c.subjects[f["best"][0].get<std::size_t>()], measure, values, intervals);
  const Json& lead = f.at("lead");
  std::vector<std::string> others;
  for (const auto& u : lead.at("uncertain")) {
    const std::string name = c.subjects[u.at("model").get<std::size_t>()];
    others.push_back(lead["how"] == "delong"
                         ? fmt::format("{} (DeLong {})", name, p_value_text(fact(u, "p")))
                         : name);
  }
  if (others.empty()) return text;
  if (lead["how"] == "delong")
    return text + fmt::format(
                      " Its lead over {} is not significant at level {:g}: the data do not tell "
                      "them apart at this sample size.",
                      join_names(others), kLevel);
  return text + fmt::format(
                    " Its interval overlaps that of {}: the data may not tell them apart at this "
                    "sample size.",
                    join_names(others));
}

}  // namespace

std::vector<Claim> summarize_metrics(const MetricsSection& m,
                                     const std::vector<Evaluation>& results,
                                     const std::vector<EvaluationInput>& inputs) {
  std::vector<Claim> out;
  if (results.empty()) return out;
  std::vector<std::string> names;
  for (const auto& model : m.models) names.push_back(model.name);
  const auto pairs = compare_pairs(m, results, inputs);
  const Json ranking = ranking_facts(m, results, pairs);
  out.push_back(make_claim("metrics.ranking", kMetricsAnchor, names, ranking));
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (inverted(results[k]))
      out.push_back(
          make_claim("metrics.inverted", kMetricsAnchor, {names[k]}, inverted_facts(results[k])));
  }
  if (ranking["outcome"] == "best") {
    const auto best = ranking["best"][0].get<std::size_t>();
    const Evaluation& ev = results[best];
    if (ev.binary && find(ev, "recall"))
      out.push_back(make_claim("metrics.operating_point", kMetricsAnchor, {names[best]},
                               {{"rule", ev.prediction_rule},
                                {"positive", ev.positive_class},
                                {"recall", value_of(ev, "recall")},
                                {"precision", value_of(ev, "precision")},
                                {"weighted", ev.weighted}}));
  }
  for (const auto& c : pairs)
    out.push_back(make_claim("metrics.pair", kMetricsAnchor, {c.a, c.b},
                             pair_facts(c, results.front().weighted)));
  return out;
}

std::string render_metrics_claim(const Claim& c) {
  const Json& f = c.facts;
  if (c.kind == "metrics.ranking") return ranking_text(c);
  if (c.kind == "metrics.inverted") {
    const std::string measure = f.at("measure").get<std::string>();
    const double chance = fact(f, "chance");
    std::string text = fmt::format(
        "{}'s scores look inverted: its {} {} is below chance ({:g}), so ", c.subjects[0], measure,
        with_interval(fact(f, "value"), fact(f, "low"), fact(f, "high"), kDecimals), chance);
    text += f.at("binary").get<bool>()
                ? fmt::format("higher scores go with the other class, not with \"{}\"",
                              f.at("positive").get<std::string>())
                : std::string("they rank the classes the wrong way round on average");
    text += fmt::format("; reversed, they would give {}.",
                        fixed_or_undefined(fact(f, "reversed"), kDecimals));
    if (shown(fact(f, "high"), kDecimals) >= chance)
      text +=
          fmt::format(" Its interval reaches {:g}: it may also be no better than chance.", chance);
    return text;
  }
  if (c.kind == "metrics.operating_point") {
    const double precision = fact(f, "precision");
    const std::string rule = f.at("rule").get<std::string>();
    const std::string positive = f.at("positive").get<std::string>();
    const std::string by_weight = f.at("weighted").get<bool>() ? " (by weight)" : "";
    if (!std::isfinite(precision))
      return fmt::format(
          "At the operating threshold ({}), {} predicts no case \"{}\", so it finds {} of them "
          "and its precision is undefined.",
          rule, c.subjects[0], positive, percent(fact(f, "recall")));
    return fmt::format(
        "At the operating threshold ({}), {} finds {} of the \"{}\" cases{} with precision {}.",
        rule, c.subjects[0], percent(fact(f, "recall")), positive, by_weight, percent(precision));
  }
  if (c.kind == "metrics.pair") {
    const double p = fact(f, "p"), level = fact(f, "level");
    const double difference = fact(f, "auc_a") - fact(f, "auc_b");
    std::string test = "DeLong " + p_value_text(p);
    if (std::isfinite(p))
      test += fmt::format(", {}significant at level {:g}", p < level ? "" : "not ", level);
    return fmt::format(
        "{} vs {}: ROC AUC difference {} ({}); {}.{}", c.subjects[0], c.subjects[1],
        std::isfinite(difference) ? fmt::format("{:+.3f}", difference) : std::string("undefined"),
        test, relation_text(f, c.subjects[0], c.subjects[1]),
        f.at("weighted").get<bool>() ? " DeLong's test and the PR comparison ignore the weights."
                                     : "");
  }
  fail("unknown kind of claim {}", quote_found(c.kind));
}

void render_metrics(HtmlReport& page, const MetricsSection& m,
                    const std::vector<Evaluation>& results, const std::vector<Claim>& claims,
                    AxisRange axis) {
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
    ip.chart.axis = axis;
    ip.x_title = "value (fraction)";
    ip.domain = {0, 1};
    ip.interval_name = ci;
    page.add_chart(
        "Headline metrics per model", interval_chart(points, ip),
        fmt::format(
            "Each metric per model: dot = value on all samples, line = {}. "
            "One axis for every row, so differences compare directly{}.",
            ci, axis == AxisRange::full ? " (0..1)" : "; it spans the values, not all of 0..1"));
  }
  render_curves(page, m, results);
  std::vector<const Claim*> pairs;
  for (const auto& c : claims) {
    if (c.kind == "metrics.pair") pairs.push_back(&c);
  }
  if (!pairs.empty()) {
    page.add_heading("Paired comparisons", 3);
    page.add_paragraph(
        "Every pair of models on the same samples: DeLong's test of the two correlated ROC AUCs "
        "(two-sided, unweighted) and whether one PR curve (interpolated precision) lies above "
        "the other at every recall (source: the textbook's Figure 45; unweighted):");
    std::vector<std::vector<TextSpan>> items;
    for (const auto* c : pairs)
      items.push_back({{relation_text(c->facts, c->subjects[0], c->subjects[1]) + "."}});
    page.add_list(items);
    page.add_data_table(pairs_table(pairs),
                        {"metrics-comparisons",
                         "One row per pair of models: their ROC AUCs (as in the summary table), "
                         "DeLong's z and p, and how their PR curves relate."});
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
