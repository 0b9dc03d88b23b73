// Ranking metrics averaged over the columns of a multilabel or multiclass score matrix
// (scikit-learn _average_binary_score, one-vs-rest and one-vs-one ROC AUC, mean average precision),
// each column scored by the binary functions of ranking_curves.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/ranking.hpp"
#include "assay/metrics/scaled_weights.hpp"

namespace assay::metrics {

// ---------------------------------------------------------------------------------------------
// Multilabel / multiclass.

namespace {

using BinaryMetric = std::function<double(std::span<const std::uint8_t>, std::span<const double>,
                                          std::span<const double>)>;

std::size_t check_matrix(std::size_t y_size, std::size_t s_size, std::size_t k,
                         std::span<const double> w) {
  if (k == 0) fail("y_score has no columns");
  if (y_size != s_size) fail("y_true and y_score differ in size ({} vs {})", y_size, s_size);
  check_not_empty(y_size, "y_true");
  if (y_size % k != 0) fail("y_score size {} is not a multiple of its {} columns", s_size, k);
  const std::size_t n = y_size / k;
  check_weights(w, n);
  return n;
}

double weighted_mean(const std::vector<double>& score, const std::vector<double>* weights) {
  if (!weights) {
    double s = 0;
    for (double x : score) s += x;
    return s / double(score.size());
  }
  double sw = 0;
  double s = 0;
  for (std::size_t i = 0; i < score.size(); ++i) {
    sw += (*weights)[i];
    s += (*weights)[i] * score[i];
  }
  if (sw == 0) fail("the weights of the average sum to zero");
  return s / sw;
}

/// scikit-learn _average_binary_score.
std::vector<double> average_binary_score(const BinaryMetric& metric,
                                         std::span<const std::uint8_t> y, std::span<const double> s,
                                         std::size_t k, std::span<const double> w,
                                         ScoreAverage average) {
  const std::size_t n = check_matrix(y.size(), s.size(), k, w);
  // The "weighted" average's zero test and its weights see the rescaled weights.
  const ScaledWeights scaled(w);
  w = scaled.span();
  if (average == ScoreAverage::micro) {
    std::vector<double> wr;
    if (!w.empty()) {
      wr.resize(n * k);
      for (std::size_t i = 0; i < n; ++i) std::fill_n(wr.begin() + i * k, k, w[i]);
    }
    return {metric(y, s, wr)};
  }
  std::vector<double> score;
  std::optional<std::vector<double>> avg_weight;
  if (average == ScoreAverage::samples) {
    score.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      score[i] = metric(y.subspan(i * k, k), s.subspan(i * k, k), {});
    if (!w.empty()) avg_weight.emplace(w.begin(), w.end());
  } else {
    score.resize(k);
    std::vector<std::uint8_t> yc(n);
    std::vector<double> sc(n);
    for (std::size_t c = 0; c < k; ++c) {
      for (std::size_t i = 0; i < n; ++i) {
        yc[i] = y[i * k + c];
        sc[i] = s[i * k + c];
      }
      score[c] = metric(yc, sc, w);
    }
    if (average == ScoreAverage::none) return score;
    if (average == ScoreAverage::weighted) {
      avg_weight.emplace(k, 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t c = 0; c < k; ++c) {
          if (y[i * k + c]) (*avg_weight)[c] += w.empty() ? 1.0 : w[i];
        }
      }
      double total = 0;
      for (double x : *avg_weight) total += x;
      if (std::abs(total) <= 1e-8) return {0.0};  // numpy.isclose(total, 0)
    }
  }
  if (avg_weight) {
    for (std::size_t c = 0; c < score.size(); ++c) {
      if ((*avg_weight)[c] == 0) score[c] = 0;
    }
  }
  return {weighted_mean(score, avg_weight ? &*avg_weight : nullptr)};
}

void check_labels_matrix(std::span<const std::uint8_t> y) {
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (y[i] > 1) fail("y_true must be 0 or 1, found {} at index {}", int(y[i]), i);
  }
}

}  // namespace

std::vector<double> average_precision_multilabel(std::span<const std::uint8_t> y_true,
                                                 std::span<const double> y_score,
                                                 std::size_t n_columns,
                                                 std::span<const double> sample_weight,
                                                 ScoreAverage average, const ApParams& params) {
  check_labels_matrix(y_true);
  check_finite(y_score, "y_score");
  BinaryMetric metric = [&params](std::span<const std::uint8_t> y, std::span<const double> s,
                                  std::span<const double> w) {
    return average_precision(y, s, w, params);
  };
  return average_binary_score(metric, y_true, y_score, n_columns, sample_weight, average);
}

std::vector<double> roc_auc_multilabel(std::span<const std::uint8_t> y_true,
                                       std::span<const double> y_score, std::size_t n_columns,
                                       std::span<const double> sample_weight, ScoreAverage average,
                                       std::optional<double> max_fpr) {
  check_labels_matrix(y_true);
  check_finite(y_score, "y_score");
  BinaryMetric metric = [max_fpr](std::span<const std::uint8_t> y, std::span<const double> s,
                                  std::span<const double> w) { return roc_auc(y, s, w, max_fpr); };
  return average_binary_score(metric, y_true, y_score, n_columns, sample_weight, average);
}

std::vector<double> roc_auc_multiclass(std::span<const std::int32_t> y_true,
                                       std::span<const double> y_score, std::size_t k,
                                       std::span<const double> sample_weight, ScoreAverage average,
                                       MultiClass multi_class) {
  if (k == 0) fail("y_score has no columns");
  const std::size_t n = y_true.size();
  check_not_empty(n, "y_true");
  if (y_score.size() != n * k) {
    fail("y_true and y_score differ in length ({} vs {})", n, y_score.size() / k);
  }
  check_weights(sample_weight, n);
  check_finite(y_score, "y_score");
  for (std::size_t i = 0; i < n; ++i) {
    if (y_true[i] < 0 || std::size_t(y_true[i]) >= k) {
      fail("y_true code {} at index {} is outside 0..{}", y_true[i], i, k - 1);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (std::size_t c = 0; c < k; ++c) sum += y_score[i * k + c];
    if (!(std::abs(1.0 - sum) <= 1e-8 + 1e-5 * std::abs(sum))) {
      fail(
          "Target scores need to be probabilities for multiclass roc_auc, i.e. they should sum up "
          "to 1.0 over classes (row {} sums to {})",
          i, sum);
    }
  }
  if (multi_class == MultiClass::raise) fail("multi_class must be in ('ovo', 'ovr')");
  if (multi_class == MultiClass::ovr) {
    if (average == ScoreAverage::samples) {
      fail("average must be one of ('micro', 'macro', 'weighted', None) for multiclass problems");
    }
    std::vector<std::uint8_t> indicator(n * k, 0);
    for (std::size_t i = 0; i < n; ++i) indicator[i * k + std::size_t(y_true[i])] = 1;
    return roc_auc_multilabel(indicator, y_score, k, sample_weight, average);
  }
  if (!sample_weight.empty()) {
    fail(
        "sample_weight is not supported for multiclass one-vs-one ROC AUC, 'sample_weight' must "
        "be None in this case.");
  }
  if (average == ScoreAverage::none) fail("average=None is not implemented for multi_class='ovo'.");
  if (average != ScoreAverage::macro && average != ScoreAverage::weighted) {
    fail("average must be one of ('macro', 'weighted', None) for multiclass problems");
  }
  std::vector<bool> present(k, false);
  for (auto c : y_true) present[std::size_t(c)] = true;
  std::vector<double> pair_scores;
  std::vector<double> prevalence;
  std::vector<std::uint8_t> yt;
  std::vector<double> sa;
  std::vector<double> sb;
  for (std::size_t a = 0; a < k; ++a) {
    if (!present[a]) continue;
    for (std::size_t b = a + 1; b < k; ++b) {
      if (!present[b]) continue;
      yt.clear();
      sa.clear();
      sb.clear();
      for (std::size_t i = 0; i < n; ++i) {
        const auto c = std::size_t(y_true[i]);
        if (c != a && c != b) continue;
        yt.push_back(c == a);
        sa.push_back(y_score[i * k + a]);
        sb.push_back(y_score[i * k + b]);
      }
      prevalence.push_back(double(yt.size()) / double(n));
      const double auc_a = roc_auc(yt, sa);
      for (auto& v : yt) v = 1 - v;
      const double auc_b = roc_auc(yt, sb);
      pair_scores.push_back((auc_a + auc_b) / 2);
    }
  }
  if (pair_scores.empty()) {
    warn("fewer than two classes present in y_true: one-vs-one ROC AUC is NaN");
    return {kNaN};
  }
  return {weighted_mean(pair_scores, average == ScoreAverage::weighted ? &prevalence : nullptr)};
}

MeanApResult mean_average_precision(std::span<const std::uint8_t> y_true,
                                    std::span<const double> y_score, std::size_t k,
                                    std::span<const double> sample_weight, const ApParams& params) {
  const std::size_t n = check_matrix(y_true.size(), y_score.size(), k, sample_weight);
  check_labels_matrix(y_true);
  check_finite(y_score, "y_score");
  if (params.n_pos) fail("n_pos is not supported by mean_average_precision (one per class)");
  MeanApResult out;
  out.per_class.assign(k, kNaN);
  std::vector<std::uint8_t> yc(n);
  std::vector<double> sc(n);
  double sum = 0;
  std::size_t used = 0;
  for (std::size_t c = 0; c < k; ++c) {
    double pos_weight = 0;
    for (std::size_t i = 0; i < n; ++i) {
      yc[i] = y_true[i * k + c];
      sc[i] = y_score[i * k + c];
      if (yc[i]) pos_weight += sample_weight.empty() ? 1.0 : sample_weight[i];
    }
    if (!(pos_weight > 0)) {
      out.excluded.push_back(c);
      continue;
    }
    out.per_class[c] = average_precision(yc, sc, sample_weight, params);
    sum += out.per_class[c];
    ++used;
  }
  if (used == 0) {
    warn("no class has positive samples in y_true: mean average precision is NaN");
    out.map = kNaN;
  } else {
    out.map = sum / double(used);
  }
  return out;
}

}  // namespace assay::metrics
