// Ranking metrics: one sort, one scan of tie blocks, pluggable rules (see ranking.hpp). This file:
// the option names and RankedScores; ranking_curves.cpp holds the binary functions,
// ranking_average.cpp the multilabel and multiclass averages, ranking_compare.cpp the DeLong and
// PR-curve comparisons.
#include "assay/metrics/ranking.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/core/compensated_sum.hpp"
#include "assay/core/error.hpp"
#include "assay/core/radix_sort.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "metrics/power_scale.hpp"
#include "metrics/ranking_detail.hpp"

namespace assay::metrics {

using namespace ranking_detail;  // ranking_detail.hpp

namespace ranking_detail {

double auc_single_class_nan() {
  warn(WarningKind::undefined_metric,
       "Only one class present in y_true: ROC AUC is not defined, returning NaN");
  return kNaN;
}

double ap_no_positives() {
  warn(
      "No positive class found in y_true: recall is set to one for all thresholds and average "
      "precision is 0 (scikit-learn convention)");
  return 0.0;
}

double resolve_n_pos(const ApParams& params, double total_pos) {
  if (!params.n_pos) return total_pos;
  const double n_pos = *params.n_pos;
  if (!(n_pos > 0) || n_pos < total_pos * (1 - 1e-12)) {
    fail("n_pos must be positive and at least the number of positives in y_true ({}), found {}",
         total_pos, n_pos);
  }
  return n_pos;
}

std::vector<double> suffix_max(const std::vector<double>& v) {
  std::vector<double> out(v.size());
  double best = -kInf;
  for (std::size_t k = v.size(); k-- > 0;) {
    best = std::max(best, v[k]);
    out[k] = best;
  }
  return out;
}

}  // namespace ranking_detail

namespace {

/// Partial or full ROC AUC from operating points (scikit-learn _binary_roc_auc_score).
double roc_auc_from_points(const OperatingPoints& pts, std::optional<double> max_fpr) {
  const double P = pts.total_pos;
  const double N = pts.total_neg;
  if (!(P > 0) || !(N > 0)) return auc_single_class_nan();
  const std::size_t m = pts.tp.size();
  if (!max_fpr || *max_fpr == 1.0) {
    CompensatedSum area;
    double tp_prev = 0;
    double fp_prev = 0;
    for (std::size_t k = 0; k < m; ++k) {
      area.add((pts.fp[k] - fp_prev) * (pts.tp[k] + tp_prev));
      tp_prev = pts.tp[k];
      fp_prev = pts.fp[k];
    }
    return area.value() / (2 * P * N);
  }
  const double mf = *max_fpr;
  if (!(mf > 0 && mf <= 1)) fail("max_fpr must be in (0, 1], found {}", mf);
  CompensatedSum area;
  double x0 = 0;
  double y0 = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const double x1 = pts.fp[k] / N;
    const double y1 = pts.tp[k] / P;
    if (x1 <= mf) {
      area.add((x1 - x0) * (y1 + y0) / 2);
      x0 = x1;
      y0 = y1;
      continue;
    }
    const double yi = y0 + (mf - x0) * (y1 - y0) / (x1 - x0);
    area.add((mf - x0) * (yi + y0) / 2);
    break;
  }
  const double min_area = 0.5 * mf * mf;
  const double max_area = mf;
  return 0.5 * (1 + (area.value() - min_area) / (max_area - min_area));
}

/// "a", "b", "c" (a non-empty list).
std::string join_names(std::initializer_list<const char*> names) {
  return fmt::format("\"{}\"", fmt::join(names, "\", \""));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Option names.

ApMethod parse_ap_method(std::string_view name) {
  if (name == "step") return ApMethod::step;
  if (name == "voc07") return ApMethod::voc07;
  if (name == "voc_allpoint") return ApMethod::voc_allpoint;
  if (name == "coco101") return ApMethod::coco101;
  if (name == "trapezoid") return ApMethod::trapezoid;
  fail("method must be one of {}, found {}",
       join_names({"step", "voc07", "voc_allpoint", "coco101", "trapezoid"}), quote_found(name));
}

std::string_view to_string(ApMethod method) {
  switch (method) {
    case ApMethod::step:
      return "step";
    case ApMethod::voc07:
      return "voc07";
    case ApMethod::voc_allpoint:
      return "voc_allpoint";
    case ApMethod::coco101:
      return "coco101";
    case ApMethod::trapezoid:
      return "trapezoid";
  }
  return "?";
}

ApGrid parse_ap_grid(std::string_view name) {
  if (name == "exact") return ApGrid::exact;
  if (name == "numpy") return ApGrid::numpy;
  fail("grid must be one of {}, found {}", join_names({"exact", "numpy"}), quote_found(name));
}

TieMode parse_tie_mode(std::string_view name) {
  if (name == "group") return TieMode::group;
  if (name == "sequential") return TieMode::sequential;
  fail("tie_mode must be one of {}, found {}", join_names({"group", "sequential"}),
       quote_found(name));
}

ScoreAverage parse_score_average(std::string_view name) {
  if (name == "none") return ScoreAverage::none;
  if (name == "micro") return ScoreAverage::micro;
  if (name == "macro") return ScoreAverage::macro;
  if (name == "weighted") return ScoreAverage::weighted;
  if (name == "samples") return ScoreAverage::samples;
  fail("average must be one of {} or None, found {}",
       join_names({"micro", "macro", "weighted", "samples"}), quote_found(name));
}

MultiClass parse_multi_class(std::string_view name) {
  if (name == "raise") return MultiClass::raise;
  if (name == "ovr") return MultiClass::ovr;
  if (name == "ovo") return MultiClass::ovo;
  fail("multi_class must be one of {}, found {}", join_names({"raise", "ovr", "ovo"}),
       quote_found(name));
}

// ---------------------------------------------------------------------------------------------
// RankedScores.

RankedScores::RankedScores(std::span<const std::uint8_t> y_true, std::span<const double> y_score) {
  check_lengths(y_true.size(), y_score.size(), "y_score");
  check_labels(y_true);
  const std::size_t n = y_true.size();
  if (n > std::numeric_limits<std::uint32_t>::max()) {
    fail("at most {} samples are supported, found {}", std::numeric_limits<std::uint32_t>::max(),
         n);
  }
  struct Record {
    std::uint64_t key;
    std::uint32_t index;
  };
  std::vector<Record> records(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(y_score[i])) fail_non_finite("y_score", y_score[i], i);
    records[i] = {detail::descending_key(y_score[i]), static_cast<std::uint32_t>(i)};
  }
  std::vector<Record> buffer(n);
  detail::radix_sort(records.data(), buffer.data(), n, [](const Record& r) { return r.key; });
  buffer = {};
  const Record* sorted = records.data();
  score_.resize(n);
  label_.resize(n);
  order_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    order_[k] = sorted[k].index;
    score_[k] = detail::from_descending_key(sorted[k].key);
    label_[k] = y_true[sorted[k].index];
    if (k > 0 && sorted[k].key != sorted[k - 1].key) {
      block_end_.push_back(static_cast<std::uint32_t>(k));
    }
  }
  block_end_.push_back(static_cast<std::uint32_t>(n));
}

OperatingPoints RankedScores::operating_points(std::span<const double> weights,
                                               TieMode tie_mode) const {
  const std::size_t n = size();
  check_weights(weights, n);
  OperatingPoints pts;
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  pts.scale_exponent = scaled.exponent();
  const bool weighted = !weights.empty();
  CompensatedSum tp;
  CompensatedSum fp;
  std::int64_t tp_count = 0;
  std::int64_t fp_count = 0;
  auto push = [&](double threshold) {
    pts.threshold.push_back(threshold);
    pts.tp.push_back(weighted ? tp.value() : double(tp_count));
    pts.fp.push_back(weighted ? fp.value() : double(fp_count));
  };
  std::size_t begin = 0;
  for (const std::uint32_t end : block_end_) {
    bool any = false;
    for (std::size_t k = begin; k < end; ++k) {
      const double w = weighted ? weights[order_[k]] : 1.0;
      if (w == 0) continue;
      any = true;
      if (weighted) {
        (label_[k] ? tp : fp).add(w);
      } else {
        (label_[k] ? tp_count : fp_count) += 1;
      }
      if (tie_mode == TieMode::sequential) push(score_[k]);
    }
    if (any && tie_mode == TieMode::group) push(score_[begin]);
    begin = end;
  }
  pts.total_pos = weighted ? tp.value() : double(tp_count);
  pts.total_neg = weighted ? fp.value() : double(fp_count);
  return pts;
}

template <typename Fn>
void RankedScores::scan_blocks(std::span<const double> weights, Fn&& fn) const {
  std::size_t begin = 0;
  for (const std::uint32_t end : block_end_) {
    double dp = 0;
    double dn = 0;
    for (std::size_t k = begin; k < end; ++k) {
      const double w = weights.empty() ? 1.0 : weights[order_[k]];
      (label_[k] ? dp : dn) += w;
    }
    if (dp + dn > 0) fn(dp, dn);  // all-zero-weight blocks are no operating point
    begin = end;
  }
}

// Full AUC and step AP stream over the blocks without materialising the operating points, so
// a bootstrap resample costs one gather and one scan.
double RankedScores::roc_auc(std::span<const double> weights, std::optional<double> max_fpr) const {
  if (max_fpr && *max_fpr != 1.0) {
    return roc_auc_from_points(operating_points(weights, TieMode::group), max_fpr);
  }
  check_weights(weights, size());
  // The area is a sum of products of weights: rescale extreme weights (exactly, by 2^k).
  const ScaledWeights scaled(weights);
  CompensatedSum tp;
  CompensatedSum fp;
  CompensatedSum area2;
  scan_blocks(scaled.span(), [&](double dp, double dn) {
    area2.add(dn * (2 * tp.value() + dp));
    tp.add(dp);
    fp.add(dn);
  });
  const double P = tp.value();
  const double N = fp.value();
  if (!(P > 0) || !(N > 0)) return auc_single_class_nan();
  return area2.value() / (2 * P * N);
}

double RankedScores::average_precision(std::span<const double> weights,
                                       const ApParams& params) const {
  if (params.method != ApMethod::step || params.tie_mode != TieMode::group) {
    return metrics::average_precision(operating_points(weights, params.tie_mode), params);
  }
  check_weights(weights, size());
  const ScaledWeights scaled(weights);
  CompensatedSum tp;
  CompensatedSum fp;
  CompensatedSum sum;
  scan_blocks(scaled.span(), [&](double dp, double dn) {
    tp.add(dp);
    fp.add(dn);
    const double t = tp.value();
    if (dp > 0) sum.add(dp * (t / (t + fp.value())));
  });
  const double P = resolve_n_pos(params, tp.value());
  if (!(P > 0)) return ap_no_positives();
  return sum.value() / P;
}

RankedScores::AucVariance RankedScores::roc_auc_variance(std::span<const double> weights) const {
  check_weights(weights, size());
  const ScaledWeights scaled(weights);
  weights = scaled.span();
  auto weight = [&](std::size_t k) { return weights.empty() ? 1.0 : weights[order_[k]]; };
  // Totals and Kish's sum of squares per class.
  double W[2] = {0, 0}, squares[2] = {0, 0};
  std::size_t count[2] = {0, 0};
  for (std::size_t k = 0; k < size(); ++k) {
    const double w = weight(k);
    W[label_[k]] += w;
    squares[label_[k]] += w * w;
    count[label_[k]] += w > 0;
  }
  if (count[0] < 2 || count[1] < 2) return {kNaN, kNaN};
  // Walk the tie blocks from the highest score: a negative's V01 counts the positives above it
  // (half those tied), a positive's V10 the negatives below it (half those tied).
  double above[2] = {0, 0};
  double weighted_v[2] = {0, 0};
  std::vector<double> v(size());
  std::size_t begin = 0;
  for (const std::uint32_t end : block_end_) {
    double block[2] = {0, 0};
    for (std::size_t k = begin; k < end; ++k) block[label_[k]] += weight(k);
    const double v10 = (W[0] - above[0] - block[0] + block[0] / 2) / W[0];
    const double v01 = (above[1] + block[1] / 2) / W[1];
    for (std::size_t k = begin; k < end; ++k) {
      v[k] = label_[k] ? v10 : v01;
      weighted_v[label_[k]] += weight(k) * v[k];
    }
    above[0] += block[0];
    above[1] += block[1];
    begin = end;
  }
  const double auc = weighted_v[1] / W[1];
  double spread[2] = {0, 0};
  for (std::size_t k = 0; k < size(); ++k) {
    const double w = weight(k);
    spread[label_[k]] += w * w * (v[k] - auc) * (v[k] - auc);
  }
  const double variance =
      spread[1] / (W[1] * W[1] - squares[1]) + spread[0] / (W[0] * W[0] - squares[0]);
  return {auc, variance};
}

}  // namespace assay::metrics
