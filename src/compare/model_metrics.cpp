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

double weighted_mean(std::span<const double> values, std::span<const double> w) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < values.size(); ++i) num += w[i] * values[i], den += w[i];
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
std::vector<double> confusion(const GroupData& d, std::int32_t k, std::span<const double> w) {
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

ModelMetrics::ModelMetrics(const ProblemShape& shape, GroupData data,
                           const std::vector<std::string>& names)
    : shape_(shape), data_(std::move(data)) {
  n_ = shape_.task == Task::regression ? data_.target.size() : data_.y.size();
  bool ranking = false, losses = false;
  for (const auto& name : names) {
    Metric m{name, std::nullopt};
    if (is_point_metric(name)) m.point = parse_point_metric(name);
    ranking |= name == "roc_auc" || name == "average_precision" || m.point.has_value();
    losses |= name == "log_loss" || name == "brier";
    metrics_.push_back(std::move(m));
  }
  if (shape_.task == Task::binary) {
    is_positive_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) is_positive_[i] = data_.y[i] == shape_.positive;
    if (ranking && n_ > 0) ranked_.emplace(is_positive_, data_.scores);
    if (losses) {
      squared_.resize(n_);
      for (std::size_t i = 0; i < n_; ++i) {
        const double e = data_.scores[i] - is_positive_[i];
        squared_[i] = e * e;
      }
    }
  } else if (shape_.task == Task::multiclass && ranking && !data_.scores.empty() && n_ > 0) {
    const auto k = static_cast<std::size_t>(shape_.n_classes);
    class_truth_.assign(k, std::vector<std::uint8_t>(n_));
    class_ranked_.resize(k);
    std::vector<double> column(n_);
    for (std::size_t c = 0; c < k; ++c) {
      for (std::size_t i = 0; i < n_; ++i) {
        class_truth_[c][i] = data_.y[i] == static_cast<std::int32_t>(c);
        column[i] = data_.scores[i * k + c];
      }
      class_ranked_[c].emplace(class_truth_[c], column);
    }
  }
  if (losses && data_.probabilities && shape_.task != Task::regression) {
    loss_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      loss_[i] = example_log_loss(data_, i, shape_.n_classes, shape_.positive);
    }
  }
}

double ModelMetrics::value(std::size_t m, std::span<const double> weights) const {
  if (n_ == 0) return kNaN;
  const Metric& metric = metrics_[m];
  if (metric.name == "log_loss") return loss_.empty() ? kNaN : weighted_mean(loss_, weights);
  switch (shape_.task) {
    case Task::binary:
      return binary_value(metric, weights);
    case Task::multiclass:
      return multiclass_value(metric.name, weights);
    default:
      return regression_value(metric.name, weights);
  }
}

double ModelMetrics::threshold(std::size_t m, std::span<const double> weights) const {
  const Metric& metric = metrics_[m];
  if (!metric.point || !ranked_) return kNaN;
  const ChosenPoint p = choose_point(ranked_->operating_points(weights), *metric.point);
  return p.feasible ? p.threshold : kNaN;
}

double ModelMetrics::binary_value(const Metric& metric, std::span<const double> w) const {
  const std::string& name = metric.name;
  if (metric.point) {
    const ChosenPoint p = choose_point(ranked_->operating_points(w), *metric.point);
    return p.feasible ? point_value(p, metric.point->metric, metric.point->rule) : kNaN;
  }
  if (name == "roc_auc") return ranked_->roc_auc(w);
  if (name == "average_precision") return ranked_->average_precision(w, shape_.ap);
  if (name == "brier") return weighted_mean(squared_, w);
  ChosenPoint counts;
  counts.feasible = true;
  counts.threshold = shape_.threshold;
  for (std::size_t i = 0; i < n_; ++i) {
    const bool predicted = data_.pred[i] == shape_.positive;
    if (is_positive_[i]) {
      (predicted ? counts.tp : counts.fn) += w[i];
    } else {
      (predicted ? counts.fp : counts.tn) += w[i];
    }
  }
  static const std::vector<std::pair<std::string, PointMetric>> kRates = {
      {"accuracy", PointMetric::accuracy},
      {"balanced_accuracy", PointMetric::balanced_accuracy},
      {"precision", PointMetric::precision},
      {"recall", PointMetric::recall},
      {"specificity", PointMetric::specificity},
      {"fpr", PointMetric::fpr},
      {"f1", PointMetric::f1},
      {"mcc", PointMetric::mcc}};
  for (const auto& [rate, which] : kRates) {
    if (rate == name) return point_value(counts, which);
  }
  fail("internal: binary metric {} has no definition", name);
}

double ModelMetrics::multiclass_value(const std::string& name, std::span<const double> w) const {
  if (name != "roc_auc" && name != "average_precision") {
    return from_confusion(name, confusion(data_, shape_.n_classes, w), shape_.n_classes);
  }
  // One-vs-rest means over the classes with positives (and, for AUC, negatives) under w.
  double sum = 0;
  int count = 0;
  for (std::size_t c = 0; c < class_ranked_.size(); ++c) {
    double pos = 0, total = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      total += w[i];
      if (class_truth_[c][i]) pos += w[i];
    }
    if (pos <= 0 || (name == "roc_auc" && pos >= total)) continue;
    sum += name == "roc_auc" ? class_ranked_[c]->roc_auc(w)
                             : class_ranked_[c]->average_precision(w, shape_.ap);
    ++count;
  }
  return count ? sum / count : kNaN;
}

double ModelMetrics::regression_value(const std::string& name, std::span<const double> w) const {
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
  if (total <= 0) return kNaN;
  if (name == "mae") return absolute / total;
  if (name == "mse") return squared / total;
  if (name == "rmse") return std::sqrt(squared / total);
  if (name == "mape") return percentage / total;
  const double mean = sum_y / total;
  double spread = 0;
  for (std::size_t i = 0; i < n_; ++i) spread += w[i] * (y[i] - mean) * (y[i] - mean);
  return spread > 0 ? 1 - squared / spread : kNaN;  // r2; constant targets: undefined
}

}  // namespace assay::compare::detail
