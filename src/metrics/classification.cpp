#include "assay/metrics/classification.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/ranges.h>

#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/confusion.hpp"
#include "assay/metrics/labels.hpp"
#include "metrics/indicator_rows.hpp"
#include "metrics/power_scale.hpp"

namespace assay::metrics {
namespace {

void check_pair(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                std::span<const double> weights) {
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  check_not_empty(y_true.size(), "y_true");
  check_weights(weights, y_true.size());
}

double zero_division_value(ZeroDivision zd) {
  switch (zd) {
    case ZeroDivision::one:
      return 1.0;
    case ZeroDivision::nan:
      return kNaN;
    default:
      return 0.0;
  }
}

// scikit-learn's _warn_prf text.
void warn_prf(Average average, const char* modifier, const std::string& msg_start,
              std::size_t result_size) {
  std::string axis0 = "sample";
  std::string axis1 = "label";
  if (average == Average::samples) std::swap(axis0, axis1);
  const std::string where = result_size == 1 ? "due to" : fmt::format("in {}s with", axis1);
  warn(WarningKind::undefined_metric,
       fmt::format(
           "{} ill-defined and being set to 0.0 {} no {} {}s. Use `zero_division` parameter to "
           "control this behavior.",
           msg_start, where, modifier, axis0));
}

// numerator/denominator elementwise, x/0 = zero_division value; warns like _prf_divide.
std::vector<double> prf_divide(const std::vector<double>& num, const std::vector<double>& den,
                               const PrfParams& p, bool is_precision) {
  std::vector<double> out(num.size());
  bool any_zero = false;
  const double zd = zero_division_value(p.zero_division);
  for (std::size_t i = 0; i < num.size(); ++i) {
    if (den[i] == 0) {
      out[i] = zd;
      any_zero = true;
    } else {
      out[i] = num[i] / den[i];
    }
  }
  if (!any_zero || p.zero_division != ZeroDivision::warn) return out;
  const bool metric_warns = is_precision ? p.warn_precision : p.warn_recall;
  if (!metric_warns) return out;
  const std::string metric = is_precision ? "Precision" : "Recall";
  const std::string start = p.warn_fscore ? metric + " and F-score are" : metric + " is";
  warn_prf(p.average, is_precision ? "predicted" : "true", start, out.size());
  return out;
}

// Mean of the non-NaN entries, optionally weighted (numpy's average after dropping NaN).
double nan_average(const std::vector<double>& v, std::span<const double> weights) {
  const ScaledWeights scaled(weights);
  const auto w = scaled.span();
  double num = 0;
  double den = 0;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) continue;
    const double wi = w.empty() ? 1.0 : w[i];
    num += wi * v[i];
    den += wi;
    ++kept;
  }
  if (kept == 0) return kNaN;
  if (den == 0) fail("weights sum to zero, can't be normalized");
  return num / den;
}

}  // namespace

double LabelCounts::unscaled(double count) const {
  return std::ldexp(count, -scale_exponent);
}

Average parse_average(const std::string& name) {
  if (name == "none") return Average::none;
  if (name == "binary") return Average::binary;
  if (name == "micro") return Average::micro;
  if (name == "macro") return Average::macro;
  if (name == "weighted") return Average::weighted;
  if (name == "samples") return Average::samples;
  fail("average must be one of None, 'binary', 'micro', 'macro', 'weighted', 'samples', found {}",
       quote_found(name));
}

ZeroDivision parse_zero_division(const std::string& name) {
  if (name == "warn") return ZeroDivision::warn;
  if (name == "0") return ZeroDivision::zero;
  if (name == "1") return ZeroDivision::one;
  if (name == "nan") return ZeroDivision::nan;
  fail("zero_division must be one of 'warn', 0, 1, nan, found {}", quote_found(name));
}

LabelCounts label_counts(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                         std::int32_t n_classes, std::span<const double> weights) {
  // No samples is allowed here: every count is 0 (scikit-learn's empty-input reports).
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  check_weights(weights, y_true.size());
  const auto k = static_cast<std::uint32_t>(std::max(n_classes, 0));
  LabelCounts c{std::vector<double>(k, 0.0), std::vector<double>(k, 0.0),
                std::vector<double>(k, 0.0)};
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  c.scale_exponent = scaled.exponent();
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    const auto a = static_cast<std::uint32_t>(y_true[i]);
    const auto b = static_cast<std::uint32_t>(y_pred[i]);
    if (a < k) c.truth[a] += w;
    if (b < k) c.pred[b] += w;
    if (a == b && a < k) c.tp[a] += w;
  }
  return c;
}

LabelCounts label_counts_from_confusion(std::span<const double> matrix, std::size_t n_classes) {
  check_same_length(matrix.size(), n_classes * n_classes, "matrix", "classes squared");
  LabelCounts c{std::vector<double>(n_classes, 0.0), std::vector<double>(n_classes, 0.0),
                std::vector<double>(n_classes, 0.0)};
  // Cells of extreme weights are rescaled like label_counts' sums (infinite cells stay so).
  const ScaledWeights scaled(matrix);
  matrix = scaled.span();
  c.scale_exponent = scaled.exponent();
  for (std::size_t a = 0; a < n_classes; ++a) {
    c.tp[a] = matrix[a * n_classes + a];
    for (std::size_t b = 0; b < n_classes; ++b) {
      c.truth[a] += matrix[a * n_classes + b];
      c.pred[b] += matrix[a * n_classes + b];
    }
  }
  return c;
}

std::size_t detail::indicator_rows(std::span<const std::uint8_t> y_true,
                                   std::span<const std::uint8_t> y_pred, std::size_t n_labels,
                                   std::span<const double> weights, bool allow_empty) {
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  if (n_labels == 0 || y_true.size() % n_labels != 0) {
    fail("multilabel indicators must have n x {} entries, found {}", n_labels, y_true.size());
  }
  const std::size_t n = y_true.size() / n_labels;
  if (!allow_empty) check_not_empty(n, "y_true");
  check_weights(weights, n);
  return n;
}

LabelCounts multilabel_counts(std::span<const std::uint8_t> y_true,
                              std::span<const std::uint8_t> y_pred, std::size_t n_labels,
                              std::span<const double> weights, bool samplewise) {
  const std::size_t n = detail::indicator_rows(y_true, y_pred, n_labels, weights);
  const std::size_t m = samplewise ? n : n_labels;
  LabelCounts c{std::vector<double>(m, 0.0), std::vector<double>(m, 0.0),
                std::vector<double>(m, 0.0)};
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  if (!samplewise) c.scale_exponent = scaled.exponent();
  for (std::size_t i = 0; i < n; ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    for (std::size_t l = 0; l < n_labels; ++l) {
      const bool t = y_true[i * n_labels + l] != 0;
      const bool p = y_pred[i * n_labels + l] != 0;
      const std::size_t j = samplewise ? i : l;
      // Per sample the counts are unweighted: the sample weight enters the average.
      const double add = samplewise ? 1.0 : w;
      if (t) c.truth[j] += add;
      if (p) c.pred[j] += add;
      if (t && p) c.tp[j] += add;
    }
  }
  return c;
}

LabelCounts select_counts(const LabelCounts& counts, std::span<const std::int32_t> index) {
  LabelCounts out;
  out.scale_exponent = counts.scale_exponent;
  for (std::int32_t j : index) {
    if (j < 0 || static_cast<std::size_t>(j) >= counts.tp.size()) {
      fail("label index {} out of range 0..{}", j, static_cast<long>(counts.tp.size()) - 1);
    }
    out.tp.push_back(counts.tp[static_cast<std::size_t>(j)]);
    out.pred.push_back(counts.pred[static_cast<std::size_t>(j)]);
    out.truth.push_back(counts.truth[static_cast<std::size_t>(j)]);
  }
  return out;
}

PrfResult precision_recall_fscore(const LabelCounts& counts, const PrfParams& p,
                                  std::span<const double> sample_weight) {
  if (!(p.beta >= 0)) fail("beta should be >=0 in the F-beta score, found {}", p.beta);
  LabelCounts c = counts;
  if (p.average == Average::micro) {
    double tp = 0, pred = 0, truth = 0;
    for (std::size_t i = 0; i < c.tp.size(); ++i) {
      tp += c.tp[i];
      pred += c.pred[i];
      truth += c.truth[i];
    }
    c = LabelCounts{{tp}, {pred}, {truth}, c.scale_exponent};
  }
  PrfResult r;
  r.precision = prf_divide(c.tp, c.pred, p, true);
  r.recall = prf_divide(c.tp, c.truth, p, false);
  if (p.zero_division == ZeroDivision::warn && p.warn_fscore && !p.warn_precision &&
      !p.warn_recall) {
    for (std::size_t i = 0; i < c.tp.size(); ++i) {
      if (c.truth[i] == 0 && c.pred[i] == 0) {
        warn_prf(p.average, "true nor predicted", "F-score is", c.tp.size());
        break;
      }
    }
  }
  const double zd = zero_division_value(p.zero_division);
  r.fscore.resize(c.tp.size());
  for (std::size_t i = 0; i < c.tp.size(); ++i) {
    if (std::isinf(p.beta)) {
      r.fscore[i] = r.recall[i];
      continue;
    }
    const double b2 = p.beta * p.beta;
    const double den = b2 * c.truth[i] + c.pred[i];  // = (1+b2) tp + b2 fn + fp
    r.fscore[i] = den == 0 ? zd : (1 + b2) * c.tp[i] / den;
  }
  if (p.average == Average::none) {
    r.support = c.truth;
    for (double& s : r.support) s = c.unscaled(s);
    return r;
  }
  std::span<const double> w;
  if (p.average == Average::weighted) {
    double total = 0, pred_total = 0;
    for (std::size_t i = 0; i < c.tp.size(); ++i) {
      total += c.truth[i];
      pred_total += c.pred[i];
    }
    if (total == 0) {  // scikit-learn 1.2.1's rule for zero total support
      if (pred_total == 0) return PrfResult{{zd}, {zd}, {zd}, {}};
      return PrfResult{{0.0}, {zd}, {0.0}, {}};
    }
    w = c.truth;
  } else if (p.average == Average::samples) {
    if (!sample_weight.empty())
      check_same_length(c.tp.size(), sample_weight.size(), "y_true", "sample_weight");
    w = sample_weight;
  }
  return PrfResult{
      {nan_average(r.precision, w)}, {nan_average(r.recall, w)}, {nan_average(r.fscore, w)}, {}};
}

double accuracy_score(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                      std::int32_t n_classes, const AccuracyParams& params,
                      std::span<const double> weights, std::span<const double> class_weight) {
  check_pair(y_true, y_pred, weights);
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  const auto k = static_cast<std::uint32_t>(std::max(n_classes, 0));
  if (params.average == AccuracyAverage::macro) {
    if (!params.normalize)
      fail("normalize=False is only defined for average 'micro' or 'weighted'");
    LabelCounts c = label_counts(y_true, y_pred, n_classes, weights);
    double sum = 0;
    std::size_t present = 0;
    for (std::size_t j = 0; j < k; ++j) {
      if (c.truth[j] > 0) {
        sum += c.tp[j] / c.truth[j];
        ++present;
      }
    }
    if (present == 0) fail("no class of y_true has a positive weight");
    return sum / static_cast<double>(present);
  }
  if (!class_weight.empty()) {
    if (params.average != AccuracyAverage::weighted) {
      fail("class_weight is only used with average='weighted'");
    }
    check_same_length(k, class_weight.size(), "classes", "class_weight");
    for (std::size_t j = 0; j < class_weight.size(); ++j) {
      if (!(class_weight[j] >= 0) || std::isinf(class_weight[j])) {
        fail("class_weight must be finite and >= 0, found {} for class {}", class_weight[j], j);
      }
    }
  }
  double correct = 0;
  double total = 0;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    double w = weights.empty() ? 1.0 : weights[i];
    const auto a = static_cast<std::uint32_t>(y_true[i]);
    if (!class_weight.empty()) w *= a < k ? class_weight[a] : 0.0;
    total += w;
    if (y_true[i] == y_pred[i]) correct += w;
  }
  if (!params.normalize) return scaled.unscale(correct);
  if (total == 0) fail("weights sum to zero, can't be normalized");
  return correct / total;
}

double multilabel_accuracy(std::span<const std::uint8_t> y_true,
                           std::span<const std::uint8_t> y_pred, std::size_t n_labels,
                           bool normalize, std::span<const double> weights) {
  const std::size_t n = detail::indicator_rows(y_true, y_pred, n_labels, weights);
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  double correct = 0, total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    bool same = true;
    for (std::size_t l = 0; l < n_labels && same; ++l) {
      same = (y_true[i * n_labels + l] != 0) == (y_pred[i * n_labels + l] != 0);
    }
    total += w;
    if (same) correct += w;
  }
  if (!normalize) return scaled.unscale(correct);
  if (total == 0) fail("weights sum to zero, can't be normalized");
  return correct / total;
}

double balanced_accuracy_score(std::span<const std::int32_t> y_true,
                               std::span<const std::int32_t> y_pred, std::int32_t n_classes,
                               std::span<const double> weights, bool adjusted) {
  LabelCounts c = label_counts(y_true, y_pred, n_classes, weights);
  double sum = 0;
  std::size_t present = 0;
  bool missing = false;
  for (std::size_t j = 0; j < c.tp.size(); ++j) {
    if (c.truth[j] > 0) {
      sum += c.tp[j] / c.truth[j];
      ++present;
    } else {
      missing = true;
    }
  }
  if (missing) warn("y_pred contains classes not in y_true");
  if (present == 0) {
    warn("balanced accuracy is undefined: no class of y_true has a positive weight");
    return kNaN;
  }
  double score = sum / static_cast<double>(present);
  if (adjusted) {
    if (present == 1) {
      warn(WarningKind::undefined_metric,
           "adjusted balanced accuracy is undefined with one class in y_true");
      return kNaN;
    }
    const double chance = 1.0 / static_cast<double>(present);
    score -= chance;
    score /= 1 - chance;
  }
  return score;
}

double matthews_corrcoef(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                         std::int32_t n_classes, std::span<const double> weights) {
  LabelCounts c = label_counts(y_true, y_pred, n_classes, weights);
  // Squares of weighted counts: rescale extreme weights first (the ratio does not change).
  const double scale = power_of_two_scale(c.pred);
  double n_correct = 0, n = 0, tp_dot = 0, pp = 0, tt = 0;
  std::size_t true_classes = 0, pred_classes = 0;
  for (std::size_t j = 0; j < c.tp.size(); ++j) {
    const double tp = c.tp[j] * scale, pred = c.pred[j] * scale, truth = c.truth[j] * scale;
    n_correct += tp;
    n += pred;
    tp_dot += truth * pred;
    pp += pred * pred;
    tt += truth * truth;
    true_classes += truth > 0;
    pred_classes += pred > 0;
  }
  const double cov_ytyp = n_correct * n - tp_dot;
  const double cov_ypyp = n * n - pp;
  const double cov_ytyt = n * n - tt;
  // One class on either side is 0/0, whatever rounding makes of n*n - tt (it can be < 0).
  if (true_classes < 2 || pred_classes < 2 || !(cov_ypyp * cov_ytyt > 0)) {
    warn(WarningKind::undefined_metric,
         "Matthews correlation coefficient is undefined: y_true or y_pred has one class only");
    return kNaN;
  }
  return cov_ytyp / std::sqrt(cov_ytyt * cov_ypyp);
}

BinaryRates binary_rates(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                         std::int32_t positive, std::span<const double> weights) {
  check_pair(y_true, y_pred, weights);
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  BinaryRates r;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    const double w = weights.empty() ? 1.0 : weights[i];
    const bool t = y_true[i] == positive;
    const bool p = y_pred[i] == positive;
    (t ? (p ? r.tp : r.fn) : (p ? r.fp : r.tn)) += w;
  }
  std::vector<std::string> undefined;
  auto ratio = [&](double num, double den, const char* name) {
    if (den == 0) {
      undefined.emplace_back(name);
      return kNaN;
    }
    return num / den;
  };
  r.recall = ratio(r.tp, r.tp + r.fn, "recall");
  r.precision = ratio(r.tp, r.tp + r.fp, "precision");
  r.specificity = ratio(r.tn, r.tn + r.fp, "specificity");
  r.fpr = ratio(r.fp, r.tn + r.fp, "fpr");
  r.fnr = ratio(r.fn, r.tp + r.fn, "fnr");
  r.fdr = ratio(r.fp, r.tp + r.fp, "fdr");
  r.npv = ratio(r.tn, r.tn + r.fn, "npv");
  r.accuracy = ratio(r.tp + r.tn, r.tp + r.tn + r.fp + r.fn, "accuracy");
  r.f1 = ratio(2 * r.tp, 2 * r.tp + r.fp + r.fn, "f1");
  const double mcc_den = (r.tp + r.fp) * (r.tp + r.fn) * (r.tn + r.fp) * (r.tn + r.fn);
  r.mcc = ratio(r.tp * r.tn - r.fp * r.fn, std::sqrt(mcc_den), "mcc");
  if (!undefined.empty()) {
    warn(fmt::format("binary rates undefined (0/0), set to NaN: {}", fmt::join(undefined, ", ")));
  }
  for (double* count : {&r.tp, &r.fp, &r.tn, &r.fn}) *count = scaled.unscale(*count);
  return r;
}

std::vector<std::uint8_t> threshold_scores(std::span<const double> scores, double threshold) {
  std::vector<std::uint8_t> out(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (std::isnan(scores[i])) fail("y_score contains NaN at index {}", i);
    out[i] = scores[i] >= threshold;
  }
  return out;
}

std::vector<std::int32_t> argmax_rows(std::span<const double> scores, std::size_t n_classes) {
  if (n_classes == 0 || scores.size() % n_classes != 0) {
    fail("y_score must have n x {} entries, found {}", n_classes, scores.size());
  }
  const std::size_t n = scores.size() / n_classes;
  std::vector<std::int32_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double* row = scores.data() + i * n_classes;
    std::size_t best = 0;
    for (std::size_t k = 0; k < n_classes; ++k) {
      if (std::isnan(row[k])) fail("y_score contains NaN at row {}, column {}", i, k);
      if (row[k] > row[best]) best = k;
    }
    out[i] = static_cast<std::int32_t>(best);
  }
  return out;
}

std::vector<std::uint8_t> one_vs_all(std::span<const double> scores, std::size_t n_classes,
                                     double threshold) {
  if (n_classes == 0 || scores.size() % n_classes != 0) {
    fail("y_score must have n x {} entries, found {}", n_classes, scores.size());
  }
  std::vector<std::uint8_t> out(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (std::isnan(scores[i])) {
      fail("y_score contains NaN at row {}, column {}", i / n_classes, i % n_classes);
    }
    out[i] = scores[i] >= threshold;
  }
  return out;
}

}  // namespace assay::metrics
