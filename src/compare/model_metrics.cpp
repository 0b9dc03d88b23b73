#include "compare/model_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "assay/core/error.hpp"
#include "assay/metrics/calibration.hpp"

namespace assay::compare::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ratio(double num, double den) {
  return den > 0 ? num / den : kNaN;
}

double weighted_mean(std::span<const double> values, const Weights& w) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double wi = w[i];
    num += wi * values[i], den += wi;
  }
  return ratio(num, den);
}

// scikit-learn's log loss of one example: clip to [eps, 1 - eps], renormalise the row.
double example_log_loss(const GroupData& d, std::size_t i, std::int32_t k, std::int32_t positive) {
  auto clip = [](double p) {
    return std::clamp(p, metrics::kLogLossEps, 1 - metrics::kLogLossEps);
  };
  const std::int32_t y = d.y[i];
  if (k == 2 && d.scores.size() == d.y.size()) {
    const double p1 = clip(d.scores[i]);
    const double p0 = 1 - p1;
    return -std::log((y == positive ? p1 : p0) / (p0 + p1));
  }
  const auto kk = static_cast<std::size_t>(k);
  double sum = 0;
  for (std::size_t c = 0; c < kk; ++c) sum += clip(d.scores[i * kk + c]);
  return -std::log(clip(d.scores[i * kk + static_cast<std::size_t>(y)]) / sum);
}

// The weighted confusion matrix (row = true, column = predicted).
std::vector<double> confusion(const GroupData& d, std::int32_t k, const Weights& w) {
  const auto kk = static_cast<std::size_t>(k);
  std::vector<double> c(kk * kk, 0.0);
  for (std::size_t i = 0; i < d.y.size(); ++i) {
    c[static_cast<std::size_t>(d.y[i]) * kk + static_cast<std::size_t>(d.pred[i])] += w[i];
  }
  return c;
}

// Macro/weighted averages over the labels present in y_true or y_pred, zero_division = 0 and
// MCC as scikit-learn computes them.
double from_confusion(const std::string& name, const std::vector<double>& c, std::int32_t k) {
  const auto kk = static_cast<std::size_t>(k);
  std::vector<double> row(kk, 0.0), col(kk, 0.0);
  double total = 0, correct = 0;
  for (std::size_t i = 0; i < kk; ++i) {
    for (std::size_t j = 0; j < kk; ++j) row[i] += c[i * kk + j], col[j] += c[i * kk + j];
    correct += c[i * kk + i];
  }
  for (double r : row) total += r;
  if (total <= 0) return kNaN;
  if (name == "accuracy") return correct / total;
  if (name == "mcc") {
    double tp = 0, pp = 0, tt = 0;
    for (std::size_t i = 0; i < kk; ++i)
      tp += row[i] * col[i], pp += col[i] * col[i], tt += row[i] * row[i];
    const double cov_yp = correct * total - tp;
    const double cov_pp = total * total - pp, cov_yy = total * total - tt;
    return cov_pp * cov_yy == 0 ? 0.0 : cov_yp / std::sqrt(cov_yy * cov_pp);
  }
  double sum = 0, support = 0;
  int present = 0;
  for (std::size_t i = 0; i < kk; ++i) {
    if (name == "balanced_accuracy") {
      if (row[i] > 0) sum += c[i * kk + i] / row[i], ++present;
      continue;
    }
    if (row[i] + col[i] <= 0) continue;
    const double precision = col[i] > 0 ? c[i * kk + i] / col[i] : 0;
    const double recall = row[i] > 0 ? c[i * kk + i] / row[i] : 0;
    const double f1 = 2 * c[i * kk + i] / (row[i] + col[i]);
    const double v = name == "precision_macro" ? precision : name == "recall_macro" ? recall : f1;
    if (name == "f1_weighted") {
      sum += row[i] * v, support += row[i];
    } else {
      sum += v, ++present;
    }
  }
  if (name == "f1_weighted") return ratio(sum, support);
  return present ? sum / present : kNaN;
}

}  // namespace

bool needs_scores(const std::string& name) {
  return name == "roc_auc" || name == "average_precision" || name == "brier" ||
         name == "log_loss" || is_point_metric(name);
}

bool needs_probabilities(const std::string& name) {
  return name == "brier" || name == "log_loss";
}

namespace {

SortedScores sort_scores(std::span<const std::uint8_t> positive, std::span<const double> scores) {
  const metrics::RankedScores ranked(positive, scores);  // the library's O(n) radix sort
  SortedScores s;
  s.order.assign(ranked.order().begin(), ranked.order().end());
  s.positive.resize(s.order.size());
  for (std::size_t k = 0; k < s.order.size(); ++k) {
    s.positive[k] = positive[s.order[k]];
    if (k > 0 && scores[s.order[k]] != scores[s.order[k - 1]]) {
      s.block_end.push_back(static_cast<std::uint32_t>(k));
    }
    if (k == 0 || scores[s.order[k]] != scores[s.order[k - 1]]) {
      s.block_threshold.push_back(scores[s.order[k]]);
    }
  }
  if (!s.order.empty()) s.block_end.push_back(static_cast<std::uint32_t>(s.order.size()));
  return s;
}

}  // namespace

ModelMetrics::ModelMetrics(const ProblemShape& shape, GroupData data,
                           const std::vector<std::string>& names)
    : shape_(shape), data_(std::move(data)) {
  n_ = shape_.task == Task::regression ? data_.target.size() : data_.y.size();
  bool losses = false, ranking = false;
  for (const auto& name : names) {
    Metric m{name, std::nullopt, std::nullopt};
    if (is_point_metric(name)) m.point = parse_point_metric(name);
    if (shape_.task == Task::binary && !m.point) m.rate = point_metric_named(name);
    ranking |= name == "roc_auc" || name == "average_precision";
    points_ |= m.point.has_value() ||
               (name == "average_precision" &&
                (shape_.ap.method != metrics::ApMethod::step ||
                 shape_.ap.tie_mode != metrics::TieMode::group || shape_.ap.n_pos.has_value()));
    losses |= name == "log_loss" || name == "brier";
    per_example_ |= !m.point && name != "roc_auc" && name != "average_precision";
    metrics_.push_back(std::move(m));
  }
  const bool sort = (ranking || points_) && n_ > 0;
  if (shape_.task == Task::binary) {
    is_positive_.resize(n_);
    predicted_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      is_positive_[i] = data_.y[i] == shape_.positive;
      predicted_[i] = data_.pred[i] == shape_.positive;
    }
    if (sort) sorted_.push_back(sort_scores(is_positive_, data_.scores));
    if (losses) {
      squared_.resize(n_);
      for (std::size_t i = 0; i < n_; ++i) {
        const double e = data_.scores[i] - is_positive_[i];
        squared_[i] = e * e;
      }
    }
  } else if (shape_.task == Task::multiclass && sort && !data_.scores.empty()) {
    const auto k = static_cast<std::size_t>(shape_.n_classes);
    std::vector<std::uint8_t> truth(n_);
    std::vector<double> column(n_);
    for (std::size_t c = 0; c < k; ++c) {
      for (std::size_t i = 0; i < n_; ++i) {
        truth[i] = data_.y[i] == static_cast<std::int32_t>(c);
        column[i] = data_.scores[i * k + c];
      }
      sorted_.push_back(sort_scores(truth, column));
    }
  }
  if (losses && data_.probabilities && shape_.task != Task::regression) {
    loss_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      loss_[i] = example_log_loss(data_, i, shape_.n_classes, shape_.positive);
    }
  }
}

// One pass over the sorted scores: ROC AUC (ties count half), scikit-learn's step AP over tie
// blocks, and, when asked, the operating points (one per block with positive weight). Written
// without data-dependent branches: labels and zero draw counts are random, and mispredicted
// branches cost more than the arithmetic.
template <typename WeightOf>
void scan_blocks(const SortedScores& s, WeightOf weight_of, bool points,
                 metrics::OperatingPoints& pts, double& auc, double& ap) {
  constexpr double kTiny = std::numeric_limits<double>::min();
  double tp = 0, fp = 0, area2 = 0, ap_sum = 0;
  std::size_t begin = 0;
  for (std::size_t b = 0; b < s.block_end.size(); ++b) {
    double dp = 0, total = 0;
    for (std::size_t k = begin; k < s.block_end[b]; ++k) {
      const double wk = weight_of(s.order[k]);
      dp += wk * s.positive[k];
      total += wk;
    }
    begin = s.block_end[b];
    const double dn = total - dp;
    area2 += dn * (2 * tp + dp);
    tp += dp;
    fp += dn;
    ap_sum += dp * (tp / std::max(tp + fp, kTiny));
    if (points && total > 0) {
      pts.threshold.push_back(s.block_threshold[b]);
      pts.tp.push_back(tp);
      pts.fp.push_back(fp);
    }
  }
  pts.total_pos = tp;
  pts.total_neg = fp;
  auc = tp > 0 && fp > 0 ? area2 / (2 * tp * fp) : kNaN;
  ap = tp > 0 ? ap_sum / tp : kNaN;
}

ModelMetrics::RankScan ModelMetrics::scan(const SortedScores& s, const Weights& w,
                                          bool points) const {
  RankScan r;
  if (w.counts.empty()) {
    if (w.base.empty()) {
      scan_blocks(
          s, [](std::uint32_t) { return 1.0; }, points, r.points, r.auc, r.ap);
    } else {
      scan_blocks(
          s, [&](std::uint32_t i) { return w.base[i]; }, points, r.points, r.auc, r.ap);
    }
  } else if (w.base.empty()) {
    scan_blocks(
        s, [&](std::uint32_t i) { return static_cast<double>(w.counts[i]); }, points, r.points,
        r.auc, r.ap);
  } else {
    scan_blocks(
        s, [&](std::uint32_t i) { return w.counts[i] * w.base[i]; }, points, r.points, r.auc, r.ap);
  }
  return r;
}

void ModelMetrics::evaluate(const Weights& weights, std::span<double> out) const {
  if (n_ == 0) {
    std::fill(out.begin(), out.end(), kNaN);
    return;
  }
  switch (shape_.task) {
    case Task::binary:
      return binary(weights, out);
    case Task::multiclass:
      return multiclass(weights, out);
    default:
      return regression(weights, out);
  }
}

std::optional<ChosenPoint> ModelMetrics::chosen_point(std::size_t m, const Weights& weights) const {
  const Metric& metric = metrics_[m];
  if (!metric.point || sorted_.empty()) return std::nullopt;
  const ChosenPoint p = choose_point(scan(sorted_[0], weights, true).points, *metric.point);
  if (!p.feasible) return std::nullopt;
  return p;
}

void ModelMetrics::binary(const Weights& w, std::span<double> out) const {
  // Weighted counts of (label, decision) cells, indexed 2 * positive + predicted.
  double cell[4] = {0, 0, 0, 0};
  double total = 0, squared = 0, loss = 0;
  if (per_example_) {
    for (std::size_t i = 0; i < n_; ++i) {
      const double wi = w[i];
      cell[2 * is_positive_[i] + predicted_[i]] += wi;
      total += wi;
      if (!squared_.empty()) squared += wi * squared_[i];
      if (!loss_.empty()) loss += wi * loss_[i];
    }
  }
  ChosenPoint counts;
  counts.feasible = true;
  counts.tn = cell[0], counts.fp = cell[1], counts.fn = cell[2], counts.tp = cell[3];
  RankScan ranks;
  if (!sorted_.empty()) ranks = scan(sorted_[0], w, points_);
  for (std::size_t m = 0; m < metrics_.size(); ++m) {
    const Metric& metric = metrics_[m];
    const std::string& name = metric.name;
    if (metric.point) {
      const ChosenPoint p = choose_point(ranks.points, *metric.point);
      out[m] = p.feasible ? point_value(p, metric.point->metric, metric.point->rule) : kNaN;
    } else if (name == "roc_auc") {
      out[m] = ranks.auc;
    } else if (name == "average_precision") {
      out[m] = points_ ? metrics::average_precision(ranks.points, shape_.ap) : ranks.ap;
    } else if (name == "brier") {
      out[m] = ratio(squared, total);
    } else if (name == "log_loss") {
      out[m] = loss_.empty() ? kNaN : ratio(loss, total);
    } else {
      ASSAY_ASSERT(metric.rate.has_value());
      out[m] = point_value(counts, *metric.rate);
    }
  }
}

void ModelMetrics::multiclass(const Weights& w, std::span<double> out) const {
  const auto matrix = confusion(data_, shape_.n_classes, w);
  std::vector<RankScan> classes;
  std::vector<double> positives;
  if (!sorted_.empty()) {
    for (const auto& s : sorted_) classes.push_back(scan(s, w, points_));
  }
  for (std::size_t m = 0; m < metrics_.size(); ++m) {
    const std::string& name = metrics_[m].name;
    if (name == "log_loss") {
      out[m] = loss_.empty() ? kNaN : weighted_mean(loss_, w);
    } else if (name == "roc_auc" || name == "average_precision") {
      // One-vs-rest means over the classes with positives (and, for AUC, negatives).
      double sum = 0;
      int count = 0;
      for (const auto& c : classes) {
        double v = name == "roc_auc" ? c.auc : c.ap;
        if (name == "average_precision" && points_ && !std::isnan(v)) {
          v = metrics::average_precision(c.points, shape_.ap);
        }
        if (!std::isnan(v)) sum += v, ++count;
      }
      out[m] = count ? sum / count : kNaN;
    } else {
      out[m] = from_confusion(name, matrix, shape_.n_classes);
    }
  }
}

void ModelMetrics::regression(const Weights& w, std::span<double> out) const {
  const auto& y = data_.target;
  const auto& f = data_.scores;
  double total = 0, absolute = 0, squared = 0, percentage = 0, sum_y = 0;
  for (std::size_t i = 0; i < n_; ++i) {
    const double e = y[i] - f[i];
    total += w[i];
    absolute += w[i] * std::abs(e);
    squared += w[i] * e * e;
    percentage += w[i] * std::abs(e) / std::max(std::abs(y[i]), 2.220446049250313e-16);
    sum_y += w[i] * y[i];
  }
  double spread = 0;
  const double mean = sum_y / total;
  for (std::size_t i = 0; i < n_; ++i) spread += w[i] * (y[i] - mean) * (y[i] - mean);
  for (std::size_t m = 0; m < metrics_.size(); ++m) {
    const std::string& name = metrics_[m].name;
    if (!(total > 0)) {
      out[m] = kNaN;
    } else if (name == "mae") {
      out[m] = absolute / total;
    } else if (name == "mse") {
      out[m] = squared / total;
    } else if (name == "rmse") {
      out[m] = std::sqrt(squared / total);
    } else if (name == "mape") {
      out[m] = percentage / total;
    } else {
      out[m] = spread > 0 ? 1 - squared / spread : kNaN;  // r2; constant targets: undefined
    }
  }
}

}  // namespace assay::compare::detail
