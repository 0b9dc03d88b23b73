// The rest of scikit-learn's label metrics (classification.hpp): per-label 2x2 matrices, Jaccard,
// Hamming, Cohen's kappa, likelihood ratios, hinge loss and top-k accuracy.
#include <algorithm>
#include <cmath>
#include <limits>

#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/classification.hpp"
#include "assay/metrics/labels.hpp"
#include "metrics/indicator_rows.hpp"
#include "metrics/power_scale.hpp"

namespace assay::metrics {
namespace {

double weight_of(std::span<const double> w, std::size_t i) {
  return w.empty() ? 1.0 : w[i];
}

// sum w [hit] / sum w (or the weighted count when !normalize); numpy.average semantics.
template <typename Hit>
double weighted_rate(std::size_t n, std::span<const double> weights, bool normalize, Hit&& hit) {
  const ScaledWeights scaled(weights);
  const auto w = scaled.span();
  double hits = 0;
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double wi = weight_of(w, i);
    total += wi;
    if (hit(i)) hits += wi;
  }
  if (!normalize) return scaled.unscale(hits);
  if (total == 0) fail("Weights sum to zero, can't be normalized");
  return hits / total;
}

double zero_division_value(ZeroDivision zd) {
  if (zd == ZeroDivision::one) return 1.0;
  if (zd == ZeroDivision::nan) return kNaN;
  return 0.0;
}

// numpy.average of the non-NaN entries (NaN only arises from zero_division=nan).
double average_ignoring_nan(const std::vector<double>& v, std::span<const double> weights) {
  const ScaledWeights scaled(weights);
  const auto w = scaled.span();
  double num = 0;
  double den = 0;
  bool any = false;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) continue;
    const double wi = w.empty() ? 1.0 : w[i];
    num += wi * v[i];
    den += wi;
    any = true;
  }
  if (!any) return kNaN;
  if (den == 0) fail("Weights sum to zero, can't be normalized");
  return num / den;
}

}  // namespace

template <typename T>
LabelAgreement label_agreement(std::span<const T> y_true, std::span<const T> y_pred,
                               std::span<const double> weights) {
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  check_weights(weights, y_true.size());
  const T* a = y_true.data();
  const T* b = y_pred.data();
  const std::size_t n = y_true.size();
  LabelAgreement out;
  if (weights.empty()) {
    std::size_t matched = 0;  // branch-free, vectorises
    for (std::size_t i = 0; i < n; ++i) matched += a[i] == b[i];
    out.matched = static_cast<double>(matched);
    out.total = static_cast<double>(n);
    out.fraction = n ? out.matched / out.total : kNaN;
    out.mismatch_fraction = n ? (out.total - out.matched) / out.total : kNaN;
    return out;
  }
  const ScaledWeights scaled(weights);
  const double* w = scaled.span().data();
  double matched = 0, total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    matched += a[i] == b[i] ? w[i] : 0.0;
    total += w[i];
  }
  out.matched = scaled.unscale(matched);
  out.total = scaled.unscale(total);
  out.fraction = total > 0 ? matched / total : kNaN;
  out.mismatch_fraction = total > 0 ? (total - matched) / total : kNaN;
  return out;
}

template LabelAgreement label_agreement(std::span<const std::int64_t>,
                                        std::span<const std::int64_t>, std::span<const double>);
template LabelAgreement label_agreement(std::span<const double>, std::span<const double>,
                                        std::span<const double>);

std::vector<double> multilabel_confusion_matrix(const LabelCounts& counts,
                                                std::span<const double> total) {
  const std::size_t m = counts.tp.size();
  if (total.size() != 1 && total.size() != m) {
    fail("total must hold 1 or {} values, found {}", m, total.size());
  }
  std::vector<double> out(4 * m);
  for (std::size_t j = 0; j < m; ++j) {
    // In the weights' own units, as `total` is (inf where the true sums overflow).
    const double tp = counts.unscaled(counts.tp[j]);
    const double fp = counts.unscaled(counts.pred[j] - counts.tp[j]);
    const double fn = counts.unscaled(counts.truth[j] - counts.tp[j]);
    out[4 * j] = total[total.size() == 1 ? 0 : j] - tp - fp - fn;
    out[4 * j + 1] = fp;
    out[4 * j + 2] = fn;
    out[4 * j + 3] = tp;
  }
  return out;
}

std::vector<double> samplewise_confusion_matrix(std::span<const std::uint8_t> y_true,
                                                std::span<const std::uint8_t> y_pred,
                                                std::size_t n_labels,
                                                std::span<const double> weights) {
  const std::size_t n = detail::indicator_rows(y_true, y_pred, n_labels, weights, true);
  std::vector<double> out(4 * n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t both = 0, pred = 0, truth = 0;
    for (std::size_t l = 0; l < n_labels; ++l) {
      const bool t = y_true[i * n_labels + l] != 0;
      const bool p = y_pred[i * n_labels + l] != 0;
      both += t && p;
      pred += p;
      truth += t;
    }
    const double w = weight_of(weights, i);
    const double tp = w * static_cast<double>(both);
    const double fp = w * static_cast<double>(pred) - tp;
    const double fn = w * static_cast<double>(truth) - tp;
    out[4 * i] = w * static_cast<double>(n_labels) - tp - fp - fn;
    out[4 * i + 1] = fp;
    out[4 * i + 2] = fn;
    out[4 * i + 3] = tp;
  }
  return out;
}

std::vector<double> jaccard_score(const LabelCounts& counts, Average average,
                                  ZeroDivision zero_division,
                                  std::span<const double> sample_weight) {
  std::vector<double> num = counts.tp;
  std::vector<double> den(num.size());
  for (std::size_t j = 0; j < num.size(); ++j) {
    den[j] = counts.tp[j] + (counts.pred[j] - counts.tp[j]) + (counts.truth[j] - counts.tp[j]);
  }
  if (average == Average::micro) {
    double n = 0, d = 0;
    for (std::size_t j = 0; j < num.size(); ++j) {
      n += num[j];
      d += den[j];
    }
    num = {n};
    den = {d};
  }
  std::vector<double> score(num.size());
  bool undefined = false;
  for (std::size_t j = 0; j < num.size(); ++j) {
    undefined |= den[j] == 0;
    score[j] = den[j] == 0 ? zero_division_value(zero_division) : num[j] / den[j];
  }
  if (undefined && zero_division == ZeroDivision::warn) {
    const bool samples = average == Average::samples;
    const std::string where =
        score.size() == 1 ? "due to" : (samples ? "in samples with" : "in labels with");
    warn(WarningKind::undefined_metric,
         fmt::format("Jaccard is ill-defined and being set to 0.0 {} no true or predicted {}. Use "
                     "`zero_division` parameter to control this behavior.",
                     where, samples ? "labels" : "samples"));
  }
  if (average == Average::none) return score;
  std::span<const double> w;
  if (average == Average::weighted) {
    double support = 0;
    for (double t : counts.truth) support += t;
    if (support != 0) w = counts.truth;
  } else if (average == Average::samples) {
    w = sample_weight;
  }
  return {average_ignoring_nan(score, w)};
}

double hamming_loss(std::span<const std::uint8_t> y_true, std::span<const std::uint8_t> y_pred,
                    std::size_t n_labels, std::span<const double> weights) {
  const std::size_t n = detail::indicator_rows(y_true, y_pred, n_labels, weights, true);
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  double differences = 0;
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t d = 0;
    for (std::size_t l = 0; l < n_labels; ++l) {
      d += (y_true[i * n_labels + l] != 0) != (y_pred[i * n_labels + l] != 0);
    }
    const double w = weight_of(weights, i);
    differences += w * static_cast<double>(d);
    total += w;
  }
  const double nn = static_cast<double>(n);
  return differences / (nn * static_cast<double>(n_labels) * (total / nn));
}

double mismatch_rate(std::span<const std::int32_t> y_true, std::span<const std::int32_t> y_pred,
                     std::span<const double> weights) {
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  check_weights(weights, y_true.size());
  return weighted_rate(y_true.size(), weights, true,
                       [&](std::size_t i) { return y_true[i] != y_pred[i]; });
}

KappaWeights parse_kappa_weights(const std::string& name) {
  if (name == "none") return KappaWeights::none;
  if (name == "linear") return KappaWeights::linear;
  if (name == "quadratic") return KappaWeights::quadratic;
  fail("Unknown kappa weighting type. Expected None, 'linear' or 'quadratic', found {}",
       quote_found(name));
}

double cohen_kappa(std::span<const double> confusion, std::size_t n_classes, KappaWeights weights) {
  const std::size_t k = n_classes;
  check_same_length(confusion.size(), k * k, "confusion matrix", "classes squared");
  // col[i] * row[j] of weights near 1e-300 (1e300) underflows (overflows): rescale exactly.
  const double scale = power_of_two_scale(confusion);
  std::vector<double> scaled(confusion.begin(), confusion.end());
  for (double& v : scaled) v *= scale;
  confusion = scaled;
  std::vector<double> col(k, 0.0), row(k, 0.0);
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j < k; ++j) {
      row[i] += confusion[i * k + j];
      col[j] += confusion[i * k + j];
    }
  }
  double total = 0;
  for (double c : col) total += c;
  double observed = 0, expected = 0;
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j < k; ++j) {
      const double d = i > j ? static_cast<double>(i - j) : static_cast<double>(j - i);
      const double w = weights == KappaWeights::none     ? (i == j ? 0.0 : 1.0)
                       : weights == KappaWeights::linear ? d
                                                         : d * d;
      observed += w * confusion[i * k + j];
      expected += w * (col[i] * row[j] / total);
    }
  }
  if (!(expected != 0) || std::isnan(expected)) {
    warn(WarningKind::undefined_metric,
         "Cohen's kappa is undefined: the expected disagreement is 0 (one label only), "
         "returning NaN");
    return kNaN;
  }
  return 1 - observed / expected;
}

LikelihoodRatios class_likelihood_ratios(std::span<const double> confusion, bool warn_undefined) {
  auto note = [&](const char* message) {
    if (warn_undefined) warn(message);
  };
  if (confusion.size() == 1) {
    note("samples of only one class were seen during testing ");
    return {kNaN, kNaN};
  }
  if (confusion.size() != 4)
    fail("expected a 2x2 confusion matrix, found {} cells", confusion.size());
  // Products of counts near 1e300 (1e-300) overflow (underflow): rescale exactly.
  const double scale = power_of_two_scale(confusion);
  const double tn = confusion[0] * scale, fp = confusion[1] * scale, fn = confusion[2] * scale,
               tp = confusion[3] * scale;
  const double support_pos = tp + fn;
  const double support_neg = tn + fp;
  LikelihoodRatios r;
  if (support_pos == 0) {
    note("no samples of the positive class were present in the testing set ");
    r = {kNaN, kNaN};
  }
  if (fp == 0) {
    note(tp == 0 ? "no samples predicted for the positive class"
                 : "positive_likelihood_ratio ill-defined and being set to nan ");
    r.positive = kNaN;
  } else {
    r.positive = (tp * support_neg) / (fp * support_pos);
  }
  if (tn == 0) {
    note("negative_likelihood_ratio ill-defined and being set to nan ");
    r.negative = kNaN;
  } else {
    r.negative = (fn * support_neg) / (tn * support_pos);
  }
  return r;
}

double hinge_loss_binary(std::span<const std::int32_t> y_true, std::int32_t positive,
                         std::span<const double> decision, std::span<const double> weights) {
  check_same_length(y_true.size(), decision.size(), "y_true", "pred_decision");
  check_weights(weights, y_true.size());
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  double loss = 0, total = 0;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    const double y = y_true[i] == positive ? 1.0 : -1.0;
    const double w = weight_of(weights, i);
    loss += w * std::max(0.0, 1 - y * decision[i]);
    total += w;
  }
  if (total == 0) fail("Weights sum to zero, can't be normalized");
  return loss / total;
}

double hinge_loss_multiclass(std::span<const std::int32_t> y_true, std::span<const double> decision,
                             std::size_t n_classes, std::span<const double> weights) {
  check_same_length(y_true.size() * n_classes, decision.size(), "y_true x classes",
                    "pred_decision");
  check_weights(weights, y_true.size());
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  double loss = 0, total = 0;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    const auto y = static_cast<std::size_t>(y_true[i]);
    if (y >= n_classes) fail("y_true code {} out of range 0..{}", y_true[i], n_classes - 1);
    const double* row = decision.data() + i * n_classes;
    double other = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < n_classes; ++k) {
      if (k != y) other = std::max(other, row[k]);
    }
    const double w = weight_of(weights, i);
    loss += w * std::max(0.0, 1 - (row[y] - other));
    total += w;
  }
  if (total == 0) fail("Weights sum to zero, can't be normalized");
  return loss / total;
}

double top_k_accuracy(std::span<const std::int32_t> y_true, std::span<const double> scores,
                      std::size_t n_classes, std::size_t k, bool normalize,
                      std::span<const double> weights) {
  check_same_length(y_true.size() * n_classes, scores.size(), "y_true x classes", "y_score");
  check_weights(weights, y_true.size());
  return weighted_rate(y_true.size(), weights, normalize, [&](std::size_t i) {
    const auto c = static_cast<std::size_t>(y_true[i]);
    if (c >= n_classes) return false;
    const double* row = scores.data() + i * n_classes;
    // Columns ranked before c: higher scores, and equal scores at a higher column index.
    std::size_t before = 0;
    for (std::size_t j = 0; j < n_classes; ++j) {
      before += row[j] > row[c] || (row[j] == row[c] && j > c);
    }
    return before < k;
  });
}

double top_1_accuracy_binary(std::span<const std::int32_t> y_true, std::span<const double> scores,
                             double threshold, bool normalize, std::span<const double> weights) {
  check_same_length(y_true.size(), scores.size(), "y_true", "y_score");
  check_weights(weights, y_true.size());
  return weighted_rate(y_true.size(), weights, normalize,
                       [&](std::size_t i) { return (scores[i] > threshold ? 1 : 0) == y_true[i]; });
}

}  // namespace assay::metrics
