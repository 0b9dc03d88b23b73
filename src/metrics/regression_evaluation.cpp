#include "assay/metrics/regression_evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/regression.hpp"

namespace assay::metrics {
namespace {

struct MetricInfo {
  const char* id;
  const char* label;
  bool lower_is_better;
};

// Display order: the errors in the target's unit first, then the scores, then the conditional
// ones (their rows exist only when the data are in their domain).
constexpr MetricInfo kMetrics[] = {
    {"mae", "MAE", true},
    {"rmse", "RMSE", true},
    {"mse", "MSE", true},
    {"median_ae", "median AE", true},
    {"max_error", "max error", true},
    {"mape", "MAPE", true},
    {"r2", "R²", false},
    {"explained_variance", "explained variance", false},
    {"d2_absolute_error", "D² absolute error", false},
    {"msle", "MSLE", true},
    {"rmsle", "RMSLE", true},
    {"mean_poisson_deviance", "mean Poisson deviance", true},
    {"mean_gamma_deviance", "mean Gamma deviance", true},
};

const MetricInfo& info(std::string_view id) {
  for (const auto& m : kMetrics) {
    if (id == m.id) return m;
  }
  fail("unknown regression metric {}", quote_found(id));
}

using Metric = std::function<double(const RegressionData&)>;

// R² and D² are undefined on fewer than two samples (scikit-learn warns and returns NaN).
double score_or_nan(const RegressionData& d, const ScoreParts& parts, const char* what) {
  if (d.n_samples() < 2) {
    warn(fmt::format("{} score is not well-defined with less than two samples.", what));
    return kNaN;
  }
  return assemble_score(parts, true)[0];
}

// The metric on the rows a resample drew, as scikit-learn computes it on them: unweighted data
// repeated by their draw counts, weighted data the drawn rows with weight x count. Needed by the
// order statistics (medians, maxima), which weights as counts would not reproduce.
double on_drawn_rows(const Metric& metric, std::span<const double> y, std::span<const double> p,
                     std::span<const double> w, bool weighted) {
  std::vector<double> ys, ps, ws;
  ys.reserve(y.size());
  ps.reserve(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!(w[i] > 0)) continue;
    if (weighted) {
      ys.push_back(y[i]);
      ps.push_back(p[i]);
      ws.push_back(w[i]);
    } else {
      for (long long k = std::llround(w[i]); k > 0; --k) {
        ys.push_back(y[i]);
        ps.push_back(p[i]);
      }
    }
  }
  if (ys.empty()) return kNaN;
  return metric(RegressionData{.y_true = ys, .y_pred = ps, .sample_weight = ws});
}

struct NamedMetric {
  std::string id;
  Metric metric;
  bool order_statistic = false;  // computed on the drawn rows (on_drawn_rows)
};

bool all_at_least(std::span<const double> v, double bound, bool strict) {
  return std::all_of(v.begin(), v.end(), [&](double x) { return strict ? x > bound : x >= bound; });
}

// The metrics that apply to every model's data, and a note for those left out.
std::vector<NamedMetric> applicable_metrics(const RegressionInput& in,
                                            std::vector<std::string>& notes) {
  std::vector<NamedMetric> out = {
      {"mae", [](const RegressionData& d) { return mean_absolute_error(d)[0]; }},
      {"rmse", [](const RegressionData& d) { return mean_squared_error(d, false)[0]; }},
      {"mse", [](const RegressionData& d) { return mean_squared_error(d)[0]; }},
      {"median_ae", [](const RegressionData& d) { return median_absolute_error(d)[0]; }, true},
      {"max_error",
       [](const RegressionData& d) {
         return max_error({d.y_true, d.y_pred, 1, {}});
       },
       true},
      {"mape", [](const RegressionData& d) { return mean_absolute_percentage_error(d)[0]; }},
      {"r2", [](const RegressionData& d) { return score_or_nan(d, r2_parts(d), "R^2"); }},
      {"explained_variance",
       [](const RegressionData& d) { return assemble_score(explained_variance_parts(d))[0]; }},
      {"d2_absolute_error",
       [](const RegressionData& d) { return score_or_nan(d, d2_pinball_parts(d, 0.5), "D^2"); },
       true},
  };
  bool y_nonneg = all_at_least(in.y_true, 0, false), y_pos = all_at_least(in.y_true, 0, true);
  bool p_nonneg = true, p_pos = true;
  for (const auto& m : in.models) {
    p_nonneg = p_nonneg && all_at_least(m.y_pred, 0, false);
    p_pos = p_pos && all_at_least(m.y_pred, 0, true);
  }
  const char* whose = in.models.size() > 1 ? "every model's predictions" : "the predictions";
  if (y_nonneg && p_nonneg) {
    out.push_back({"msle", [](const RegressionData& d) { return mean_squared_log_error(d)[0]; }});
    out.push_back(
        {"rmsle", [](const RegressionData& d) { return mean_squared_log_error(d, false)[0]; }});
  } else {
    notes.push_back(fmt::format("MSLE and RMSLE left out: they need targets and {} >= 0", whose));
  }
  if (y_nonneg && p_pos) {
    out.push_back({"mean_poisson_deviance",
                   [](const RegressionData& d) { return mean_tweedie_deviance(d, 1); }});
  } else {
    notes.push_back(
        fmt::format("mean Poisson deviance left out: it needs targets >= 0 and {} > 0", whose));
  }
  if (y_pos && p_pos) {
    out.push_back({"mean_gamma_deviance",
                   [](const RegressionData& d) { return mean_tweedie_deviance(d, 2); }});
  } else {
    notes.push_back(
        fmt::format("mean Gamma deviance left out: it needs targets and {} > 0", whose));
  }
  return out;
}

void check_input(const RegressionInput& in, const RegressionParams& params) {
  const std::size_t n = in.y_true.size();
  if (n == 0) fail("no samples to evaluate, expected at least one");
  if (in.models.empty()) fail("no model to evaluate: give at least one prediction column");
  check_finite(in.y_true, "y_true");
  std::set<std::string> names;
  for (const auto& m : in.models) {
    if (!names.insert(m.name).second) fail("model {} is given twice", quote_found(m.name));
    check_same_length(n, m.y_pred.size(), "y_true", "y_pred of " + m.name);
    check_finite(m.y_pred, "y_pred of " + m.name);
  }
  check_weights(in.weights, n);
  check_bootstrap_params(params.bootstrap, in.models.size() * std::size(kMetrics),
                         "--bootstrap (Python: n_bootstrap)");
}

// Every model x metric on the same resamples (metrics::bootstrap_many): their intervals.
void add_intervals(RegressionEvaluation& ev, const RegressionInput& input,
                   const std::vector<NamedMetric>& metrics) {
  std::vector<WeightedMetric> replicated;
  std::vector<std::string> names;
  const std::span<const double> y = input.y_true;
  const bool weighted = ev.weighted;
  for (const auto& model : ev.models) {
    const std::span<const double> p = model.y_pred;
    for (const auto& m : metrics) {
      if (m.order_statistic) {
        replicated.push_back([&m, y, p, weighted](std::span<const double> w) {
          return on_drawn_rows(m.metric, y, p, w, weighted);
        });
      } else {
        replicated.push_back([&m, y, p](std::span<const double> w) {
          return m.metric(RegressionData{.y_true = y, .y_pred = p, .sample_weight = w});
        });
      }
      names.push_back(fmt::format("{} of {}", info(m.id).label, model.name));
    }
  }
  const auto intervals =
      bootstrap_many(ev.n_samples, replicated, input.weights, ev.params.bootstrap, names);
  std::size_t k = 0;
  for (auto& model : ev.models) {
    for (auto& e : model.summary) {
      e.low = intervals[k].low;
      e.high = intervals[k].high;
      ++k;
    }
  }
}

}  // namespace

MetricsTask parse_metrics_task(std::string_view name, std::string_view what) {
  if (name == "auto") return MetricsTask::automatic;
  if (name == "classification") return MetricsTask::classification;
  if (name == "regression") return MetricsTask::regression;
  fail("{}: expected auto, classification or regression, found {}", what, quote_found(name));
}

namespace {

// The number of distinct values of a numeric column of whole numbers; 0 when a value is NaN or
// not whole (or the column holds text).
std::size_t distinct_whole_numbers(const Column& c) {
  if (!c.is_numeric()) return 0;
  std::set<double> distinct;
  for (double v : c.values) {
    if (std::isnan(v) || v != std::floor(v)) return 0;
    distinct.insert(v);
  }
  return distinct.size();
}

bool many_values(std::size_t k, std::size_t n) {
  return k > kMaxAutoClasses && k * kMinSamplesPerClass > n;
}

}  // namespace

bool looks_like_regression_target(const Column& label) {
  if (!label.is_numeric()) return false;
  for (double v : label.values) {
    if (std::isfinite(v) && v != std::floor(v)) return true;
  }
  return many_values(distinct_whole_numbers(label), label.values.size());
}

void classification_target_check(const Table& table, const std::string& label) {
  const Column& c = table.column(label);
  // Values that are not whole: evaluation_input refuses them at their cell.
  const std::size_t k = distinct_whole_numbers(c), n = c.values.size();
  if (!many_values(k, n)) return;
  fail_in(table,
          fmt::format("column \"{}\" holds {} distinct numbers in {} rows ({:.1f} rows each): a "
                      "regression target, not classes; give --task regression (Python: "
                      "task=\"regression\") for regression metrics, or --task classification to "
                      "evaluate its values as {} classes",
                      label, k, n, static_cast<double>(n) / static_cast<double>(k), k));
}

RegressionInput regression_input(const Table& table, const RegressionColumns& columns) {
  if (columns.label.empty()) fail("no label column given");
  if (columns.models.empty()) fail("no prediction column given");
  if (table.n_rows() == 0) fail_in(table, "no data rows, expected at least one");
  auto numbers = [&](const std::string& name, const char* what) {
    const Column& c = table.column(name);
    if (!c.is_numeric()) {
      fail_in(table, fmt::format("{} column \"{}\": expected numbers, found text such as {}", what,
                                 name, quote_found(c.categories.front())));
    }
    for (std::size_t i = 0; i < c.values.size(); ++i) {
      if (!std::isfinite(c.values[i])) {
        fail_at_cell(table, i, name,
                     fmt::format("expected a finite {}, found {}", what,
                                 std::isnan(c.values[i]) ? "NaN" : "infinity"));
      }
    }
    return c.values;
  };
  RegressionInput in;
  in.target = columns.label;
  in.y_true = numbers(columns.label, "target");
  for (const auto& [name, column] : columns.models) {
    for (const auto& m : in.models) {
      if (m.name == name) fail_in(table, fmt::format("model {} is given twice", quote_found(name)));
    }
    in.models.push_back({name, numbers(column, "prediction")});
  }
  if (!columns.weight.empty()) {
    in.weights = numbers(columns.weight, "weight");
    const auto& w = in.weights;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (w[i] < 0) {
        fail_at_cell(table, i, columns.weight,
                     fmt::format("expected a finite weight >= 0, found {}", w[i]));
      }
    }
  }
  return in;
}

const std::vector<std::string>& regression_metric_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> out;
    for (const auto& m : kMetrics) out.emplace_back(m.id);
    return out;
  }();
  return ids;
}

std::string regression_metric_label(std::string_view id) {
  return info(id).label;
}

bool regression_lower_is_better(std::string_view id) {
  return info(id).lower_is_better;
}

const RegressionEstimate* RegressionModelResult::find(std::string_view id) const {
  for (const auto& e : summary) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

RegressionEvaluation evaluate_regression(RegressionInput input, const RegressionParams& params) {
  check_input(input, params);
  RegressionEvaluation ev;
  ev.params = params;
  ev.target = input.target;
  ev.n_samples = input.y_true.size();
  ev.weighted = !input.weights.empty();
  ev.total_weight = ev.weighted ? std::accumulate(input.weights.begin(), input.weights.end(), 0.0)
                                : static_cast<double>(ev.n_samples);
  if (ev.weighted && !(ev.total_weight > 0)) fail("the weights sum to zero");
  const auto metrics = applicable_metrics(input, ev.notes);

  // Values on the full data, then every model x metric on the same resamples.
  for (auto& model : input.models) {
    RegressionModelResult result{model.name, {}, std::move(model.y_pred)};
    const RegressionData full{
        .y_true = input.y_true, .y_pred = result.y_pred, .sample_weight = input.weights};
    for (const auto& m : metrics) result.summary.push_back({m.id, m.metric(full), kNaN, kNaN});
    ev.models.push_back(std::move(result));
  }
  if (params.bootstrap.n_resamples > 0) add_intervals(ev, input, metrics);
  ev.y_true = std::move(input.y_true);
  ev.weights = std::move(input.weights);
  return ev;
}

}  // namespace assay::metrics
