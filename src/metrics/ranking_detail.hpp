// Private to the ranking metrics (ranking.cpp: option names and RankedScores; ranking_curves.cpp:
// the binary functions and their one-pass scan; ranking_average.cpp: multilabel and multiclass
// averaging; ranking_compare.cpp: DeLong and PR-curve comparison): the checks and the answers for
// undefined metrics they share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "assay/metrics/ranking.hpp"

namespace assay::metrics::ranking_detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline void check_lengths(std::size_t n_true, std::size_t n_score, const char* score_name) {
  check_same_length(n_true, n_score, "y_true", score_name);
  check_not_empty(n_true, "y_true");
}

/// Checks labels are 0/1; returns the number of positives.
inline std::size_t check_labels(std::span<const std::uint8_t> y) {
  std::size_t n_pos = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (y[i] > 1) fail("y_true must be 0 or 1, found {} at index {}", int(y[i]), i);
    n_pos += y[i];
  }
  return n_pos;
}

/// NaN, with the warning that ROC AUC is not defined for one class.
double auc_single_class_nan();

/// 0, with scikit-learn's warning for average precision without positives.
double ap_no_positives();

/// The recall denominator: params.n_pos if given (checked against the positives), else them.
double resolve_n_pos(const ApParams& params, double total_pos);

/// out[k] = max(v[k:]): the interpolated precision of the PR curve at point k.
std::vector<double> suffix_max(const std::vector<double>& v);

}  // namespace assay::metrics::ranking_detail
