#include "assay/metrics/uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/options.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/scaled_weights.hpp"

namespace assay::metrics {

void check_resample_count(std::size_t n_resamples, std::size_t n_metrics, std::string_view option) {
  const std::string name = option.empty() ? "" : std::string(option) + ": ";
  if (n_resamples > kMaxResamples) {
    fail(
        "{}expected at most {} resamples, found {} (percentile intervals settle long before: "
        "1000 to 100000 are usual; every resample keeps a value per metric and costs a pass over "
        "the data)",
        name, kMaxResamples, n_resamples);
  }
  // Each metric's replicates, plus one sorted copy for its quantiles.
  const double bytes = 8.0 * static_cast<double>(n_resamples) *
                       static_cast<double>(std::max<std::size_t>(n_metrics, 1) + 1);
  const double available = static_cast<double>(allocatable_bytes());
  if (bytes > available) {
    fail(
        "{}{} resamples of {} metric(s) need {:.1f} GB for their values, more than the {:.1f} GB "
        "this process can allocate; lower {}",
        name, n_resamples, n_metrics, bytes / 1e9, available / 1e9,
        option.empty() ? "the number of resamples" : option);
  }
}

void check_bootstrap_params(const BootstrapParams& params, std::size_t n_metrics,
                            std::string_view option) {
  check_probability("confidence", params.confidence);
  if (params.n_resamples == 0) return;
  check_resample_count(params.n_resamples, n_metrics, option);
  if (params.n_resamples == 1) {
    warn(
        "bootstrap: 1 resample gives a zero-width interval (low = high = that resample's value), "
        "not a confidence interval; use 1000 or more resamples (0 = no intervals)");
  }
}

double quantile(std::span<const double> values, double q) {
  std::vector<double> defined;
  defined.reserve(values.size());
  for (double v : values) {
    if (!std::isnan(v)) defined.push_back(v);
  }
  if (defined.empty()) return kNaN;
  std::sort(defined.begin(), defined.end());
  const double position = q * static_cast<double>(defined.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, defined.size() - 1);
  const double fraction = position - static_cast<double>(below);
  // numpy's _lerp: exact at both ends.
  const double a = defined[below], b = defined[above];
  const double diff = b - a;
  return fraction >= 0.5 ? b - diff * (1 - fraction) : a + diff * fraction;
}

std::vector<BootstrapResult> bootstrap_many(std::size_t n, std::span<const WeightedMetric> metrics,
                                            std::span<const double> base_weights,
                                            const BootstrapParams& params,
                                            std::span<const std::string> names) {
  if (n == 0) fail("bootstrap needs at least one sample, found 0");
  if (params.n_resamples == 0) fail("n_resamples must be at least 1, found 0");
  check_bootstrap_params(params, metrics.size());
  ASSAY_ASSERT(names.empty() || names.size() == metrics.size());
  check_weights(base_weights, n);
  // Draw counts times weights near 1e308 would overflow: the metrics see rescaled weights.
  const ScaledWeights scaled(base_weights);
  base_weights = scaled.span();

  std::vector<double> ones;
  if (base_weights.empty()) {
    ones.assign(n, 1.0);
    base_weights = ones;
  }
  std::vector<BootstrapResult> results(metrics.size());
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    results[m].params = params;
    results[m].estimate = metrics[m](base_weights);
    results[m].replicates.assign(params.n_resamples, kNaN);
  }

  const Rng root(params.seed);
  Progress progress("bootstrap", params.n_resamples);
  // Each resample would repeat the metrics' own warnings (one class drawn, 0/0); the summary
  // warning below counts the undefined resamples instead.
  std::optional<ScopedWarningHandler> muted(std::in_place, WarningHandler{});
  parallel_for(
      params.n_resamples,
      [&](std::size_t r) {
        // Resample r depends only on (seed, r): the same draws for every metric and thread count.
        Rng rng = root.split(r);
        std::vector<double> weights(n, 0.0);
        for (std::size_t draw = 0; draw < n; ++draw) weights[rng.below(n)] += 1.0;
        for (std::size_t i = 0; i < n; ++i) weights[i] *= base_weights[i];
        for (std::size_t m = 0; m < metrics.size(); ++m)
          results[m].replicates[r] = metrics[m](weights);
        progress.advance();
      },
      params.threads);
  progress.finish();
  muted.reset();

  const double alpha = (1 - params.confidence) / 2;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    auto& result = results[m];
    result.n_undefined =
        static_cast<std::size_t>(std::count_if(result.replicates.begin(), result.replicates.end(),
                                               [](double v) { return std::isnan(v); }));
    if (result.n_undefined > 0) {
      warn(
          fmt::format("bootstrap: {} was undefined (NaN) on {} of {} resamples; they are left "
                      "out of the interval",
                      names.empty() ? std::string("the metric") : names[m], result.n_undefined,
                      params.n_resamples));
    }
    result.low = quantile(result.replicates, alpha);
    result.high = quantile(result.replicates, 1 - alpha);
    double sum = 0, count = 0;
    for (double v : result.replicates) {
      if (!std::isnan(v)) sum += v, count += 1;
    }
    double squares = 0;
    const double mean = count > 0 ? sum / count : kNaN;
    for (double v : result.replicates) {
      if (!std::isnan(v)) squares += (v - mean) * (v - mean);
    }
    result.standard_error = count > 1 ? std::sqrt(squares / (count - 1)) : kNaN;
  }
  return results;
}

BootstrapResult bootstrap(std::size_t n, const WeightedMetric& metric,
                          std::span<const double> base_weights, const BootstrapParams& params) {
  return std::move(bootstrap_many(n, std::span(&metric, 1), base_weights, params).front());
}

BootstrapResult bootstrap_ranking(std::span<const std::uint8_t> y_true,
                                  std::span<const double> y_score, std::span<const double> weights,
                                  RankingMetric metric, const ApParams& ap,
                                  const BootstrapParams& params) {
  const RankedScores ranked(y_true, y_score);
  if (metric == RankingMetric::roc_auc) {
    return bootstrap(
        y_true.size(), [&](std::span<const double> w) { return ranked.roc_auc(w); }, weights,
        params);
  }
  return bootstrap(
      y_true.size(), [&](std::span<const double> w) { return ranked.average_precision(w, ap); },
      weights, params);
}

RunSummary summarize_runs(std::span<const double> values) {
  if (values.empty()) fail("summarize_runs needs at least one value, found 0");
  check_finite(values, "values");
  RunSummary s;
  s.n = values.size();
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  // Sums of values near the largest double overflow (1e308 + 1e308); the values divided by the
  // largest magnitude (a power of two, so exactly) do not, and the mean and SD scale back.
  const double largest = std::max(std::fabs(s.min), std::fabs(s.max));
  const double scale = largest > 0 ? std::exp2(std::ilogb(largest)) : 1.0;
  const double nn = static_cast<double>(s.n);
  double sum = 0;
  for (double v : values) sum += v / scale;
  const double scaled_mean = sum / nn;
  s.mean = scaled_mean * scale;
  // Two-pass variance: exact enough for any realistic number of runs.
  double squares = 0, correction = 0;
  for (double v : values) {
    const double d = v / scale - scaled_mean;
    squares += d * d;
    correction += d;
  }
  if (s.n > 1) {
    s.sd = std::sqrt((squares - correction * correction / nn) / (nn - 1)) * scale;
    if (std::isinf(s.sd)) {
      warn(
          fmt::format("summarize_runs: the standard deviation exceeds the largest double ({}); "
                      "reported as inf",
                      std::numeric_limits<double>::max()));
    }
  } else {
    s.sd = kNaN;
    warn("summarize_runs: the standard deviation of a single run is undefined (NaN)");
  }
  return s;
}

GroupedRunSummary summarize_runs_by(std::span<const double> values, std::span<const double> by) {
  check_same_length(values.size(), by.size(), "values", "by");
  check_finite(by, "by");
  std::map<double, std::vector<double>> groups;
  for (std::size_t i = 0; i < values.size(); ++i) groups[by[i]].push_back(values[i]);
  GroupedRunSummary out;
  for (const auto& [key, group] : groups) {
    out.by.push_back(key);
    out.summaries.push_back(summarize_runs(group));
  }
  if (out.by.empty()) fail("summarize_runs needs at least one value, found 0");
  return out;
}

}  // namespace assay::metrics

namespace assay::metrics {

GroupedRunSummary summarize_runs_in_table(const Table& table, const std::string& value,
                                          const std::string& by) {
  if (table.n_rows() == 0)
    fail_at(Location{table.source(), 0, 0}, "no data rows, expected at least one");
  const auto& values = table.numeric(value);
  // Checked here, where the file's line and column are known (the arrays only have indices).
  for (const std::string* name : {&value, &by}) {
    if (name->empty()) continue;
    const auto& column = table.numeric(*name);
    for (std::size_t i = 0; i < column.size(); ++i) {
      if (!std::isfinite(column[i])) {
        fail_at_cell(table, i, *name, fmt::format("expected a finite number, found {}", column[i]));
      }
    }
  }
  if (by.empty()) return summarize_runs_by(values, std::vector<double>(values.size(), 0.0));
  return summarize_runs_by(values, table.numeric(by));
}

}  // namespace assay::metrics
