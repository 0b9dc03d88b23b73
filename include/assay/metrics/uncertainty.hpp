// Uncertainty of a metric: bootstrap percentile intervals and mean ± SD across runs.
//
// The textbook section "Evaluation Metrics": "run with multiple different random seeds and report
// mean and standard deviation across the runs" and "report trends against one or more
// meta-parameters rather than a single operating point". Layout: samples are indexed 0..n-1 in the
// caller's order; weights are per sample (empty = all 1).
//
// Bootstrap by weights: a resample is represented by how many times each sample was drawn
// (multinomial counts), passed to the metric as per-sample weights. A metric that sorts its
// input (ROC AUC, AP) therefore sorts once and re-scans per resample.
//
// Example:
//   BootstrapParams p;  p.n_resamples = 2000;  p.seed = 7;
//   auto r = bootstrap(n, [&](std::span<const double> w) { return ranked.roc_auc(w); }, {}, p);
//   // r.estimate, r.low, r.high
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "assay/core/table.hpp"
#include "assay/metrics/ranking.hpp"

namespace assay::metrics {

/// Most resamples a bootstrap draws (the CLI's --bootstrap, Python's n_resamples / n_bootstrap):
/// percentile intervals settle long before (the usual 1000 to 100000 are all accepted), while
/// every resample keeps one value per metric and costs a pass over the samples, so 10^8 of them
/// would need gigabytes and hours for nothing.
inline constexpr std::size_t kMaxResamples = 1'000'000;

struct BootstrapParams {
  /// Number of resamples (1..kMaxResamples).
  std::size_t n_resamples = 1000;
  /// Two-sided confidence level of the percentile interval, in (0, 1).
  double confidence = 0.95;
  /// Seed: resample i uses the stream Rng(seed).split(i), so results do not depend on threads.
  std::uint64_t seed = 0;
  /// Worker threads (0 = all cores). Use 1 when the metric is not thread-safe.
  int threads = 0;
};

struct BootstrapResult {
  /// The metric on the original sample (base weights).
  double estimate = 0;
  /// Percentile interval bounds (numpy's default linear interpolation between order statistics).
  double low = 0;
  double high = 0;
  /// Standard deviation of the defined replicates (ddof = 1).
  double standard_error = 0;
  /// The metric on each resample, in resample order; NaN where it was undefined.
  std::vector<double> replicates;
  /// How many replicates were NaN (e.g. a resample with one class for ROC AUC); excluded from
  /// the interval, with a warning.
  std::size_t n_undefined = 0;
  BootstrapParams params;
};

/// Refuses a resample count above kMaxResamples, or whose replicates (8 bytes per resample and
/// metric) would not fit in the memory this process can allocate, with a message that names
/// `option` (none when empty, for the CLI's validators):
/// "--bootstrap: expected at most 1000000 resamples, found 100000000 (...)".
void check_resample_count(std::size_t n_resamples, std::size_t n_metrics = 1,
                          std::string_view option = "n_resamples");

/// Checks params before any work (resample count as above, confidence in (0, 1)) and warns that
/// one resample gives a zero-width interval. n_resamples = 0 (no intervals) passes.
void check_bootstrap_params(const BootstrapParams& params, std::size_t n_metrics,
                            std::string_view option = "n_resamples");

/// The metric as a function of per-sample weights (length n, caller's order). It must be safe to
/// call concurrently when params.threads != 1.
using WeightedMetric = std::function<double(std::span<const double> weights)>;

/// Percentile bootstrap of `metric` over n samples. Base weights near 1e308 or 1e-310 are
/// rescaled exactly by a power of two (assay/metrics/scaled_weights.hpp) before they are
/// multiplied by the draw counts, so the metric should be scale-invariant (every mean, ratio,
/// AUC and AP is).
/// Requires: n > 0; base_weights empty or of length n, finite and >= 0.
/// Ensures: result.replicates.size() == params.n_resamples; identical output at any thread count.
BootstrapResult bootstrap(std::size_t n, const WeightedMetric& metric,
                          std::span<const double> base_weights, const BootstrapParams& params);

/// Several metrics on the same resamples (each resample is drawn once): results[m] equals
/// bootstrap(n, metrics[m], ...). `names` (empty, or one per metric) name them in warnings.
std::vector<BootstrapResult> bootstrap_many(std::size_t n, std::span<const WeightedMetric> metrics,
                                            std::span<const double> base_weights,
                                            const BootstrapParams& params,
                                            std::span<const std::string> names = {});

/// Ranking metrics whose bootstrap sorts the scores once (RankedScores) and rescans per resample.
enum class RankingMetric { roc_auc, average_precision };

/// Bootstrap of a binary ROC AUC or AP: the same resamples as bootstrap(), O(n) per resample.
/// y_true: 1 = positive, 0 = negative; weights: empty or base weights as in bootstrap().
BootstrapResult bootstrap_ranking(std::span<const std::uint8_t> y_true,
                                  std::span<const double> y_score, std::span<const double> weights,
                                  RankingMetric metric, const ApParams& ap,
                                  const BootstrapParams& params);

/// Quantile q in [0,1] of `values` (NaN excluded) with numpy's default "linear" method;
/// NaN if no value is defined.
double quantile(std::span<const double> values, double q);

struct RunSummary {
  double mean = 0;
  /// Sample standard deviation (ddof = 1); NaN for a single run, with a warning.
  double sd = 0;
  double min = 0;
  double max = 0;
  std::size_t n = 0;
};

/// Mean, SD, min, max and count of the runs' values. Requires: no NaN values; n >= 1.
RunSummary summarize_runs(std::span<const double> values);

struct GroupedRunSummary {
  /// Distinct meta-parameter values, ascending.
  std::vector<double> by;
  /// One summary per value of `by`, same order.
  std::vector<RunSummary> summaries;
};

/// summarize_runs per distinct value of the meta-parameter `by` (same length as values).
GroupedRunSummary summarize_runs_by(std::span<const double> values, std::span<const double> by);

/// The runs of a table (one row per run): column `value` summarised per value of the numeric
/// column `by`, or as one group (by = 0) when `by` is empty. Throws naming the file for a table
/// without rows or a missing/non-numeric column. The entry point of `assay runs`.
GroupedRunSummary summarize_runs_in_table(const Table& table, const std::string& value,
                                          const std::string& by);

}  // namespace assay::metrics
