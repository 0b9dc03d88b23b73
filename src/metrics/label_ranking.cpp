#include "assay/metrics/label_ranking.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "assay/core/compensated_sum.hpp"
#include "assay/core/error.hpp"
#include "assay/metrics/labels.hpp"
#include "assay/metrics/scaled_weights.hpp"

namespace assay::metrics {
namespace {

// Checks the n x L shapes, finite scores and weights; returns n.
std::size_t check_matrices(std::size_t true_size, std::span<const double> y_score,
                           std::size_t n_labels, std::span<const double> weights) {
  if (n_labels == 0) fail("y_true has no labels: expected at least one column");
  check_same_length(true_size, y_score.size(), "y_true", "y_score");
  if (true_size % n_labels != 0) {
    fail("y_true has {} entries, not a multiple of its {} labels", true_size, n_labels);
  }
  for (std::size_t k = 0; k < y_score.size(); ++k) {
    if (!std::isfinite(y_score[k])) {
      fail("Input y_score contains {}: y_score[{}, {}] is {}",
           std::isnan(y_score[k]) ? "NaN" : "infinity or a value too large for dtype('float64')",
           k / n_labels, k % n_labels, y_score[k]);
    }
  }
  const std::size_t n = true_size / n_labels;
  check_weights(weights, n);
  return n;
}

// Per-sample values v(i), averaged like scikit-learn: weighted sum / total weight.
template <typename PerSample>
double mean_over_samples(std::size_t n, std::span<const double> weights, PerSample&& v) {
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  CompensatedSum sum;
  CompensatedSum total;
  for (std::size_t i = 0; i < n; ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    sum.add(w * v(i));
    total.add(w);
  }
  if (!(total.value() != 0)) fail("Weights sum to zero, can't be normalized");
  return sum.value() / total.value();
}

// numpy's discount: 1 / (log(rank + 2) / log(log_base)), zero beyond k.
std::vector<double> discounts(std::size_t n_labels, const DcgParams& p) {
  std::vector<double> d(n_labels);
  const double base = std::log(p.log_base);
  for (std::size_t r = 0; r < n_labels; ++r) {
    d[r] = 1 / (std::log(static_cast<double>(r) + 2) / base);
  }
  if (p.k) {
    for (std::size_t r = *p.k; r < n_labels; ++r) d[r] = 0;
  }
  return d;
}

// DCG of one sample with ties broken by position: scores sorted descending, among equal scores
// the later label first (numpy's ascending argsort, reversed).
double dcg_ignoring_ties(const double* rel, const double* score, std::size_t n_labels,
                         const std::vector<double>& discount, std::vector<std::size_t>& order) {
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
  double gain = 0;
  for (std::size_t r = 0; r < n_labels; ++r) gain += discount[r] * rel[order[n_labels - 1 - r]];
  return gain;
}

// DCG of one sample averaging the gain of tied scores over their ranks (scikit-learn's
// _tie_averaged_dcg, with the same cumulative-discount differences).
double dcg_tie_averaged(const double* rel, const double* score, std::size_t n_labels,
                        const std::vector<double>& discount_cumsum,
                        std::vector<std::size_t>& order) {
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  double gain = 0;
  double previous_cumsum = 0;
  bool first = true;
  for (std::size_t start = 0; start < n_labels;) {
    std::size_t end = start + 1;
    while (end < n_labels && score[order[end]] == score[order[start]]) ++end;
    double group = 0;
    for (std::size_t r = start; r < end; ++r) group += rel[order[r]];
    const double cumsum = discount_cumsum[end - 1];
    const double discount_sum = first ? cumsum : cumsum - previous_cumsum;
    gain += group / static_cast<double>(end - start) * discount_sum;
    previous_cumsum = cumsum;
    first = false;
    start = end;
  }
  return gain;
}

}  // namespace

double coverage_error(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                      std::size_t n_labels, std::span<const double> sample_weight) {
  const std::size_t n = check_matrices(y_true.size(), y_score, n_labels, sample_weight);
  return mean_over_samples(n, sample_weight, [&](std::size_t i) {
    const std::uint8_t* t = y_true.data() + i * n_labels;
    const double* s = y_score.data() + i * n_labels;
    bool any = false;
    double lowest = 0;
    for (std::size_t j = 0; j < n_labels; ++j) {
      if (t[j] == 0) continue;
      lowest = any ? std::min(lowest, s[j]) : s[j];
      any = true;
    }
    if (!any) return 0.0;
    std::size_t covered = 0;
    for (std::size_t j = 0; j < n_labels; ++j) covered += s[j] >= lowest;
    return static_cast<double>(covered);
  });
}

double label_ranking_average_precision(std::span<const std::uint8_t> y_true,
                                       std::span<const double> y_score, std::size_t n_labels,
                                       std::span<const double> sample_weight) {
  const std::size_t n = check_matrices(y_true.size(), y_score, n_labels, sample_weight);
  std::vector<std::size_t> relevant;
  return mean_over_samples(n, sample_weight, [&](std::size_t i) {
    const std::uint8_t* t = y_true.data() + i * n_labels;
    const double* s = y_score.data() + i * n_labels;
    relevant.clear();
    for (std::size_t j = 0; j < n_labels; ++j) {
      if (t[j] != 0) relevant.push_back(j);
    }
    if (relevant.empty() || relevant.size() == n_labels) return 1.0;
    double sum = 0;
    for (std::size_t r : relevant) {
      std::size_t rank = 0;
      for (std::size_t j = 0; j < n_labels; ++j) rank += s[j] >= s[r];
      std::size_t relevant_rank = 0;
      for (std::size_t j : relevant) relevant_rank += s[j] >= s[r];
      sum += static_cast<double>(relevant_rank) / static_cast<double>(rank);
    }
    return sum / static_cast<double>(relevant.size());
  });
}

double label_ranking_loss(std::span<const std::uint8_t> y_true, std::span<const double> y_score,
                          std::size_t n_labels, std::span<const double> sample_weight) {
  const std::size_t n = check_matrices(y_true.size(), y_score, n_labels, sample_weight);
  std::vector<std::size_t> order(n_labels);
  return mean_over_samples(n, sample_weight, [&](std::size_t i) {
    const std::uint8_t* t = y_true.data() + i * n_labels;
    const double* s = y_score.data() + i * n_labels;
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return s[a] < s[b]; });
    // Ascending tie groups: wrong pairs are (relevant, irrelevant) with irrelevant score >=
    // relevant score, counted as (relevant labels so far, ties included) x (irrelevant in group).
    double wrong = 0;
    std::size_t relevant_so_far = 0;
    std::size_t positives = 0;
    for (std::size_t start = 0; start < n_labels;) {
      std::size_t end = start + 1;
      while (end < n_labels && s[order[end]] == s[order[start]]) ++end;
      std::size_t rel = 0;
      for (std::size_t r = start; r < end; ++r) rel += t[order[r]] != 0;
      relevant_so_far += rel;
      wrong += static_cast<double>(relevant_so_far) * static_cast<double>(end - start - rel);
      positives += rel;
      start = end;
    }
    if (positives == 0 || positives == n_labels) return 0.0;
    return wrong / (static_cast<double>(n_labels - positives) * static_cast<double>(positives));
  });
}

std::vector<double> dcg_per_sample(std::span<const double> y_true, std::span<const double> y_score,
                                   std::size_t n_labels, const DcgParams& params) {
  const std::size_t n = check_matrices(y_true.size(), y_score, n_labels, {});
  if (!(params.log_base > 0) || params.log_base == 1) {
    fail("log_base must be positive and not 1, found {}", params.log_base);
  }
  const auto discount = discounts(n_labels, params);
  std::vector<double> cumsum(n_labels);
  double running = 0;
  for (std::size_t r = 0; r < n_labels; ++r) cumsum[r] = running += discount[r];
  std::vector<double> out(n);
  std::vector<std::size_t> order(n_labels);
  for (std::size_t i = 0; i < n; ++i) {
    const double* rel = y_true.data() + i * n_labels;
    const double* s = y_score.data() + i * n_labels;
    out[i] = params.ignore_ties ? dcg_ignoring_ties(rel, s, n_labels, discount, order)
                                : dcg_tie_averaged(rel, s, n_labels, cumsum, order);
  }
  return out;
}

std::vector<double> ndcg_per_sample(std::span<const double> y_true, std::span<const double> y_score,
                                    std::size_t n_labels, const DcgParams& params) {
  DcgParams p = params;
  p.log_base = 2;
  auto gain = dcg_per_sample(y_true, y_score, n_labels, p);
  p.ignore_ties = true;
  const auto ideal = dcg_per_sample(y_true, y_true, n_labels, p);
  for (std::size_t i = 0; i < gain.size(); ++i) gain[i] = ideal[i] == 0 ? 0.0 : gain[i] / ideal[i];
  return gain;
}

double average_samples(const std::vector<double>& values, std::span<const double> sample_weight) {
  check_weights(sample_weight, values.size(), "values");
  if (values.empty()) fail("no samples to average");
  return mean_over_samples(values.size(), sample_weight, [&](std::size_t i) { return values[i]; });
}

}  // namespace assay::metrics
