// Ranking metrics that compare two models' scores on the same labels: DeLong's test of two ROC
// AUCs and the crossings of two interpolated PR curves.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "assay/core/compensated_sum.hpp"
#include "assay/core/error.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/ranking.hpp"
#include "metrics/ranking_detail.hpp"

namespace assay::metrics {

using namespace ranking_detail;  // ranking_detail.hpp

// ---------------------------------------------------------------------------------------------
// DeLong and PR-curve comparison.

DelongResult delong_roc_test(std::span<const std::uint8_t> y_true, std::span<const double> score_a,
                             std::span<const double> score_b) {
  check_lengths(y_true.size(), score_a.size(), "score_a");
  check_lengths(y_true.size(), score_b.size(), "score_b");
  check_finite(score_a, "score_a");
  check_finite(score_b, "score_b");
  const std::size_t n_all = y_true.size();
  const std::size_t m = check_labels(y_true);
  const std::size_t n = n_all - m;
  DelongResult out;
  if (m < 2 || n < 2) {
    warn(fmt::format(
        "DeLong test needs at least 2 positives and 2 negatives, found {} and {}: returning NaN", m,
        n));
    out.auc_a = out.auc_b = out.z = out.p_value = kNaN;
    for (auto& row : out.covariance) row[0] = row[1] = kNaN;
    return out;
  }
  // Position of each sample among the positives / negatives (original order).
  std::vector<std::uint32_t> rank_in_class(n_all);
  {
    std::uint32_t ip = 0;
    std::uint32_t in = 0;
    for (std::size_t i = 0; i < n_all; ++i) rank_in_class[i] = y_true[i] ? ip++ : in++;
  }
  // V10 (positives) and V01 (negatives) structural components per model (Sun & Xu 2014).
  std::vector<double> v10[2];
  std::vector<double> v01[2];
  const std::span<const double> scores[2] = {score_a, score_b};
  for (int model = 0; model < 2; ++model) {
    v10[model].resize(m);
    v01[model].resize(n);
    const RankedScores ranked(y_true, scores[model]);
    const auto order = ranked.order();
    std::size_t begin = 0;
    std::size_t cp = 0;
    std::size_t cn = 0;
    // Walk tie blocks in descending order; ascending midranks follow from the counts before.
    while (begin < n_all) {
      std::size_t end = begin + 1;
      const double s0 = scores[model][order[begin]];
      while (end < n_all && scores[model][order[end]] == s0) ++end;
      std::size_t dp = 0;
      for (std::size_t t = begin; t < end; ++t) dp += y_true[order[t]];
      const std::size_t dn = (end - begin) - dp;
      const double tz = (2.0 * double(n_all) - double(begin) - double(end) + 1.0) / 2.0;
      const double tx = (2.0 * double(m) - 2.0 * double(cp) - double(dp) + 1.0) / 2.0;
      const double ty = (2.0 * double(n) - 2.0 * double(cn) - double(dn) + 1.0) / 2.0;
      for (std::size_t t = begin; t < end; ++t) {
        const std::uint32_t i = order[t];
        if (y_true[i]) {
          v10[model][rank_in_class[i]] = (tz - tx) / double(n);
        } else {
          v01[model][rank_in_class[i]] = 1.0 - (tz - ty) / double(m);
        }
      }
      cp += dp;
      cn += dn;
      begin = end;
    }
  }
  auto mean = [](const std::vector<double>& v) {
    CompensatedSum s;
    for (double x : v) s.add(x);
    return s.value() / double(v.size());
  };
  const double mean10[2] = {mean(v10[0]), mean(v10[1])};
  const double mean01[2] = {mean(v01[0]), mean(v01[1])};
  out.auc_a = mean10[0];
  out.auc_b = mean10[1];
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 2; ++c) {
      CompensatedSum s10;
      CompensatedSum s01;
      for (std::size_t i = 0; i < m; ++i)
        s10.add((v10[r][i] - mean10[r]) * (v10[c][i] - mean10[c]));
      for (std::size_t j = 0; j < n; ++j)
        s01.add((v01[r][j] - mean01[r]) * (v01[c][j] - mean01[c]));
      out.covariance[r][c] =
          s10.value() / double(m - 1) / double(m) + s01.value() / double(n - 1) / double(n);
    }
  }
  const double var = out.covariance[0][0] + out.covariance[1][1] - 2 * out.covariance[0][1];
  if (!(var > 0)) {
    warn("DeLong test: the difference of the two AUCs has zero variance; z and p are NaN");
    out.z = out.p_value = kNaN;
    return out;
  }
  out.z = (out.auc_a - out.auc_b) / std::sqrt(var);
  out.p_value = std::erfc(std::abs(out.z) / std::sqrt(2.0));
  return out;
}

PrComparison compare_pr_curves(std::span<const std::uint8_t> y_true,
                               std::span<const double> score_a, std::span<const double> score_b,
                               const ApParams& params) {
  check_lengths(y_true.size(), score_a.size(), "score_a");
  check_lengths(y_true.size(), score_b.size(), "score_b");
  check_finite(score_a, "score_a");
  check_finite(score_b, "score_b");
  const OperatingPoints pa = RankedScores(y_true, score_a).operating_points({}, params.tie_mode);
  const OperatingPoints pb = RankedScores(y_true, score_b).operating_points({}, params.tie_mode);
  PrComparison out;
  out.ap_a = average_precision(pa, params);
  out.ap_b = average_precision(pb, params);
  const double P = params.n_pos ? *params.n_pos : pa.total_pos;
  if (!(P > 0)) {
    out.dominant = "equal";
    return out;
  }
  struct Curve {
    std::vector<double> recall;
    std::vector<double> best;  // suffix max of precision
  };
  auto make = [P](const OperatingPoints& p) {
    Curve c;
    std::vector<double> prec(p.tp.size());
    c.recall.resize(p.tp.size());
    for (std::size_t k = 0; k < p.tp.size(); ++k) {
      c.recall[k] = p.tp[k] / P;
      prec[k] = p.tp[k] / (p.tp[k] + p.fp[k]);
    }
    c.best = suffix_max(prec);
    return c;
  };
  const Curve ca = make(pa);
  const Curve cb = make(pb);
  auto value = [](const Curve& c, double r) {
    const auto it = std::lower_bound(c.recall.begin(), c.recall.end(), r);
    return it == c.recall.end() ? 0.0 : c.best[std::size_t(it - c.recall.begin())];
  };
  std::vector<double> breaks;
  for (double r : ca.recall)
    if (r > 0) breaks.push_back(r);
  for (double r : cb.recall)
    if (r > 0) breaks.push_back(r);
  breaks.push_back(1.0);
  std::sort(breaks.begin(), breaks.end());
  breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
  int last_sign = 0;
  bool a_better = false;
  bool b_better = false;
  double left = 0;
  for (const double u : breaks) {
    const double fa = value(ca, u);
    const double fb = value(cb, u);
    int sign = 0;
    if (std::abs(fa - fb) > 1e-12 * std::max(std::abs(fa), std::abs(fb))) sign = fa > fb ? 1 : -1;
    if (sign != 0) {
      if (last_sign != 0 && sign != last_sign) out.crossings.push_back(left);
      last_sign = sign;
      (sign > 0 ? a_better : b_better) = true;
    }
    left = u;
  }
  out.dominant = a_better && b_better ? "" : a_better ? "a" : b_better ? "b" : "equal";
  return out;
}

}  // namespace assay::metrics
