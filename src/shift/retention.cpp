#include "assay/shift/retention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "assay/core/error.hpp"
#include "assay/core/radix_sort.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "shift/sorted.hpp"

namespace assay::shift {
namespace detail {

std::unique_ptr<Record[], ByUncertainty::Free> ByUncertainty::allocate(std::size_t n) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(Record);
  bytes = (bytes + kHuge - 1) / kHuge * kHuge;
  auto* p = static_cast<Record*>(std::aligned_alloc(kHuge, bytes));
  if (!p) throw std::bad_alloc();
  assay::detail::advise_huge_pages(p, bytes);
  return std::unique_ptr<Record[], Free>(p);
}

ByUncertainty::ByUncertainty(std::span<const double> errors, std::span<const double> uncertainty) {
  check_errors_uncertainty(errors, uncertainty);
  n_ = errors.size();
  records_ = allocate(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    records_[i] = {assay::detail::ascending_key(uncertainty[i]), errors[i]};
  }
  const auto buffer = allocate(n_);
  assay::detail::radix_sort(records_.get(), buffer.get(), n_,
                            [](const Record& r) { return r.key; });
}

std::vector<double> sorted_ascending(std::span<const double> values) {
  const std::size_t n = values.size();
  assay::detail::KeyArray keys(n), buffer(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = assay::detail::ascending_key(values[i]);
  assay::detail::radix_sort_keys(keys.get(), buffer.get(), n);
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = assay::detail::from_ascending_key(keys[i]);
  return out;
}

void check_errors_uncertainty(std::span<const double> errors, std::span<const double> uncertainty) {
  check_same_length(errors.size(), uncertainty.size(), "errors", "uncertainty");
  check_not_empty(errors.size(), "errors");
  check_finite(errors, "errors");
  for (std::size_t i = 0; i < uncertainty.size(); ++i) {
    if (std::isnan(uncertainty[i])) fail_non_finite("uncertainty", uncertainty[i], i);
  }
}

}  // namespace detail

namespace {
using detail::ByUncertainty;
constexpr double kF1Eps = 1e-10;

// Prefix sums S_k of the errors in ascending-uncertainty order (grouped: each error replaced by
// its tie group's mean), as the curve R[j] = S_{n-j} / n.
std::vector<double> curve_from_sorted(const ByUncertainty& s, RetentionConvention convention) {
  const std::size_t n = s.size();
  const double dn = static_cast<double>(n);
  std::vector<double> curve(n + 1);
  curve[n] = 0;
  double running = 0;  // sequential, like numpy.cumsum
  std::size_t k = 0;
  while (k < n) {
    const std::size_t end = convention == RetentionConvention::shifts ? s.group_end(k) : k + 1;
    if (end - k == 1) {
      running += s[k].error;
      curve[n - (k + 1)] = running / dn;
    } else {
      CompensatedSum group;
      for (std::size_t i = k; i < end; ++i) group.add(s[i].error);
      const double mean = group.value() / static_cast<double>(end - k);
      for (std::size_t i = k; i < end; ++i) {
        running += mean;
        curve[n - (i + 1)] = running / dn;
      }
    }
    k = end;
  }
  return curve;
}

// Same from errors already sorted ascending (the oracle: grouping by equal errors is a no-op).
std::vector<double> curve_from_values(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  const double dn = static_cast<double>(n);
  std::vector<double> curve(n + 1);
  curve[n] = 0;
  double running = 0;
  for (std::size_t k = 0; k < n; ++k) {
    running += sorted[k];
    curve[n - (k + 1)] = running / dn;
  }
  return curve;
}

double area(const std::vector<double>& curve, RetentionConvention convention) {
  CompensatedSum total;
  for (double v : curve) total.add(v);
  const std::size_t n = curve.size() - 1;
  if (convention == RetentionConvention::shifts) {
    return total.value() / static_cast<double>(n + 1);
  }
  total.add(-0.5 * curve.front());
  total.add(-0.5 * curve.back());
  return total.value() / static_cast<double>(n);
}

// Under the shifts convention a single tie group (constant uncertainty) makes the curve the
// random curve: its area is R[0] / 2 exactly (summing the points would leave ~1e-16 of rounding,
// and a PRR of 1e-14 instead of 0).
double model_area(const ByUncertainty& s, const std::vector<double>& curve,
                  RetentionConvention convention) {
  if (convention == RetentionConvention::shifts && s.group_end(0) == s.size()) {
    return curve[0] / 2;
  }
  return area(curve, convention);
}

double prr_of(double r_auc, double random_auc, double oracle_auc) {
  const double denominator = oracle_auc - random_auc;
  if (denominator == 0) {
    warn("PRR is undefined (oracle and random areas are equal, e.g. all errors equal): NaN");
    return kNaN;
  }
  return (r_auc - random_auc) / denominator + 0.0;  // + 0.0: a PRR of 0 is never shown as -0
}

bool all_binary(std::span<const double> errors) {
  return std::all_of(errors.begin(), errors.end(), [](double e) { return e == 0 || e == 1; });
}

// Trapezoid area of fd-shifts' descending-coverage points: -numpy.trapz(risk, coverage).
double trapezoid_desc(const std::vector<double>& coverage, const std::vector<double>& risk) {
  CompensatedSum total;
  for (std::size_t i = 0; i + 1 < coverage.size(); ++i) {
    total.add((coverage[i] - coverage[i + 1]) * (risk[i] + risk[i + 1]) / 2);
  }
  return total.value();
}

struct RcCurves {
  std::vector<double> coverage, selective, generalized;
};

// fd-shifts' points from groups in ascending-uncertainty order: counts[g], sums[g] are the
// number and error sum of the samples in groups 0..g.
RcCurves rc_points(const std::vector<std::size_t>& counts, const std::vector<double>& sums,
                   std::size_t n) {
  const double dn = static_cast<double>(n);
  RcCurves rc;
  const std::size_t g = counts.size();
  rc.coverage.reserve(g + 1);
  rc.selective.reserve(g + 1);
  rc.generalized.reserve(g + 1);
  for (std::size_t i = g; i-- > 0;) {
    rc.coverage.push_back(static_cast<double>(counts[i]) / dn);
    rc.selective.push_back(sums[i] / static_cast<double>(counts[i]));
    rc.generalized.push_back(sums[i] / dn);
  }
  rc.coverage.push_back(0);
  rc.selective.push_back(rc.selective.back());
  rc.generalized.push_back(0);
  return rc;
}

RcCurves rc_from_sorted(const ByUncertainty& s) {
  std::vector<std::size_t> counts;
  std::vector<double> sums;
  CompensatedSum running;
  for (std::size_t k = 0; k < s.size();) {
    const std::size_t end = s.group_end(k);
    for (std::size_t i = k; i < end; ++i) running.add(s[i].error);
    counts.push_back(end);
    sums.push_back(running.value());
    k = end;
  }
  return rc_points(counts, sums, s.size());
}

// Optimal curves (fd-shifts: confids = linspace(1, 0, n) over errors sorted ascending).
void optimal_areas(std::span<const double> errors, const std::vector<double>& sorted,
                   double& aurc_opt, double& augrc_opt) {
  const std::size_t n = errors.size();
  if (all_binary(errors)) {
    CompensatedSum total;
    for (double e : errors) total.add(e);
    const double r = total.value() / static_cast<double>(n);
    aurc_opt = r + (1 - r) * std::log(1 - r + std::numeric_limits<double>::epsilon());
    augrc_opt = 0.5 * r * r;
    return;
  }
  std::vector<std::size_t> counts(n);
  std::vector<double> sums(n);
  CompensatedSum running;
  for (std::size_t k = 0; k < n; ++k) {
    running.add(sorted[k]);
    counts[k] = k + 1;
    sums[k] = running.value();
  }
  const RcCurves rc = rc_points(counts, sums, n);
  aurc_opt = trapezoid_desc(rc.coverage, rc.selective);
  augrc_opt = trapezoid_desc(rc.coverage, rc.generalized);
}

void check_f1_params(const F1RetentionParams& p) {
  if (std::isnan(p.threshold)) fail("threshold must be a number, found nan");
  if (!(p.beta > 0) || !std::isfinite(p.beta)) fail("beta must be > 0, found {}", p.beta);
}

// F-beta from the cumulative acceptable count tp among the k retained (Shifts' operation order).
double f_beta(double tp, double k, double tp_total, double b2) {
  const double precision = tp / k;
  const double recall = tp / tp_total;
  return (1 + b2) * precision * recall / (precision * b2 + recall + kF1Eps);
}

void finish_f1(F1RetentionResult& r, std::size_t n) {
  CompensatedSum total;
  for (double f : r.curve) total.add(f);
  total.add(-0.5 * r.curve[n]);
  r.f1_auc = total.value() / static_cast<double>(n + 1);
  const auto at = static_cast<std::size_t>(0.95 * static_cast<double>(n + 1));
  r.f1_at_95 = r.curve[at];
  if (r.n_acceptable == 0) {
    warn("no acceptable sample (error <= threshold): F1 retention is NaN");
  }
}

// F curve over retained samples visited by `visit(fn)` in retention order (fn(acceptable)).
template <typename Visit>
F1RetentionResult f1_curve(std::size_t n, std::size_t n_acceptable, double beta, Visit&& visit) {
  F1RetentionResult r;
  r.n_acceptable = n_acceptable;
  r.curve.resize(n + 1);
  r.curve[0] = 0;  // P = 1, R = 0
  const double tp_total = static_cast<double>(n_acceptable);
  const double b2 = beta * beta;
  std::size_t k = 0, tp = 0;
  visit([&](bool acceptable) {
    ++k;
    tp += acceptable;
    r.curve[k] = f_beta(static_cast<double>(tp), static_cast<double>(k), tp_total, b2);
  });
  finish_f1(r, n);
  return r;
}

F1RetentionResult f1_from_sorted(const ByUncertainty& s, std::size_t n_acceptable,
                                 const F1RetentionParams& p) {
  return f1_curve(s.size(), n_acceptable, p.beta, [&](auto&& fn) {
    for (std::size_t k = 0; k < s.size();) {
      const std::size_t end = s.group_end(k);
      for (std::size_t i = end; i-- > k;) fn(s[i].error <= p.threshold);  // ties: last first
      k = end;
    }
  });
}

std::size_t count_acceptable(std::span<const double> errors, double threshold) {
  std::size_t c = 0;
  for (double e : errors) c += e <= threshold;
  return c;
}

// PRR and its areas from the uncertainty order and the errors sorted ascending (the oracle).
PrrResult prr_from(const ByUncertainty& s, const std::vector<double>& by_error,
                   RetentionConvention convention) {
  const auto curve = curve_from_sorted(s, convention);
  PrrResult r;
  r.r_auc = model_area(s, curve, convention);
  r.random_auc = curve[0] / 2;
  r.oracle_auc = area(curve_from_values(by_error), convention);
  r.prr = prr_of(r.r_auc, r.random_auc, r.oracle_auc);
  return r;
}

// AURC / AUGRC and their excess over the optimal areas; the points are kept when `points`.
RiskCoverageResult risk_coverage_from(const ByUncertainty& s, std::span<const double> errors,
                                      const std::vector<double>& by_error, bool points) {
  RcCurves rc = rc_from_sorted(s);
  RiskCoverageResult r;
  r.aurc = trapezoid_desc(rc.coverage, rc.selective);
  r.augrc = trapezoid_desc(rc.coverage, rc.generalized);
  double aurc_opt = 0, augrc_opt = 0;
  optimal_areas(errors, by_error, aurc_opt, augrc_opt);
  r.e_aurc = r.aurc - aurc_opt;
  r.e_augrc = r.augrc - augrc_opt;
  if (points) {
    r.coverage = std::move(rc.coverage);
    r.selective_risk = std::move(rc.selective);
    r.generalized_risk = std::move(rc.generalized);
  }
  return r;
}

RetentionResult random_from(std::span<const double> errors, RetentionConvention convention) {
  const std::size_t n = errors.size();
  CompensatedSum total;
  for (double e : errors) total.add(e);
  RetentionResult r;
  r.convention = convention;
  r.curve.resize(n + 1);
  const double r0 = total.value() / static_cast<double>(n);
  for (std::size_t j = 0; j <= n; ++j) {
    r.curve[j] = r0 * static_cast<double>(n - j) / static_cast<double>(n);
  }
  r.r_auc = r0 / 2;
  return r;
}

F1RetentionResult oracle_f1_from(const std::vector<double>& by_error, std::size_t n_acceptable,
                                 const F1RetentionParams& p) {
  return f1_curve(by_error.size(), n_acceptable, p.beta, [&](auto&& fn) {
    for (double e : by_error) fn(e <= p.threshold);
  });
}

F1RetentionResult random_f1_from(std::size_t n, std::size_t n_acceptable,
                                 const F1RetentionParams& params) {
  F1RetentionResult r;
  r.n_acceptable = n_acceptable;
  r.curve.resize(n + 1);
  r.curve[0] = 0;
  const double p = static_cast<double>(n_acceptable) / static_cast<double>(n);
  const double b2 = params.beta * params.beta;
  for (std::size_t k = 1; k <= n; ++k) {
    const double recall = n_acceptable ? static_cast<double>(k) / static_cast<double>(n) : kNaN;
    r.curve[k] = (1 + b2) * p * recall / (p * b2 + recall + kF1Eps);
  }
  finish_f1(r, n);
  return r;
}

}  // namespace

RetentionConvention parse_retention_convention(std::string_view name) {
  if (name == "shifts") return RetentionConvention::shifts;
  if (name == "shifts-vpower" || name == "shifts_vpower") {
    return RetentionConvention::shifts_vpower;
  }
  fail("unknown retention convention {}: expected \"shifts\" or \"shifts-vpower\"",
       quote_found(name));
}

std::string_view to_string(RetentionConvention convention) {
  return convention == RetentionConvention::shifts ? "shifts" : "shifts-vpower";
}

RetentionResult retention_curve(std::span<const double> errors, std::span<const double> uncertainty,
                                const RetentionParams& params) {
  const ByUncertainty sorted(errors, uncertainty);
  RetentionResult r;
  r.convention = params.convention;
  r.curve = curve_from_sorted(sorted, params.convention);
  r.r_auc = model_area(sorted, r.curve, params.convention);
  return r;
}

RetentionResult oracle_retention_curve(std::span<const double> errors,
                                       const RetentionParams& params) {
  detail::check_errors_uncertainty(errors, errors);
  RetentionResult r;
  r.convention = params.convention;
  r.curve = curve_from_values(detail::sorted_ascending(errors));
  r.r_auc = area(r.curve, params.convention);
  return r;
}

RetentionResult random_retention_curve(std::span<const double> errors,
                                       const RetentionParams& params) {
  detail::check_errors_uncertainty(errors, errors);
  return random_from(errors, params.convention);
}

PrrResult prr(std::span<const double> errors, std::span<const double> uncertainty,
              const RetentionParams& params) {
  const ByUncertainty sorted(errors, uncertainty);
  return prr_from(sorted, detail::sorted_ascending(errors), params.convention);
}

RiskCoverageResult risk_coverage(std::span<const double> errors,
                                 std::span<const double> uncertainty) {
  const ByUncertainty sorted(errors, uncertainty);
  return risk_coverage_from(sorted, errors, detail::sorted_ascending(errors), true);
}

F1RetentionResult f1_retention(std::span<const double> errors, std::span<const double> uncertainty,
                               const F1RetentionParams& params) {
  check_f1_params(params);
  const ByUncertainty sorted(errors, uncertainty);
  return f1_from_sorted(sorted, count_acceptable(errors, params.threshold), params);
}

F1RetentionResult oracle_f1_retention(std::span<const double> errors,
                                      const F1RetentionParams& params) {
  check_f1_params(params);
  detail::check_errors_uncertainty(errors, errors);
  return oracle_f1_from(detail::sorted_ascending(errors),
                        count_acceptable(errors, params.threshold), params);
}

F1RetentionResult random_f1_retention(std::span<const double> errors,
                                      const F1RetentionParams& params) {
  check_f1_params(params);
  detail::check_errors_uncertainty(errors, errors);
  return random_f1_from(errors.size(), count_acceptable(errors, params.threshold), params);
}

RetentionCurves retention_curves(std::span<const double> errors,
                                 std::span<const double> uncertainty, const RetentionParams& params,
                                 const double* threshold, double beta) {
  const F1RetentionParams p{threshold ? *threshold : 0, beta};
  if (threshold) check_f1_params(p);
  const ByUncertainty sorted(errors, uncertainty);
  const auto by_error = detail::sorted_ascending(errors);
  RetentionCurves c;
  c.model.convention = c.oracle.convention = params.convention;
  c.model.curve = curve_from_sorted(sorted, params.convention);
  c.model.r_auc = model_area(sorted, c.model.curve, params.convention);
  c.oracle.curve = curve_from_values(by_error);
  c.oracle.r_auc = area(c.oracle.curve, params.convention);
  c.random = random_from(errors, params.convention);
  if (threshold) {
    const std::size_t n_acceptable = count_acceptable(errors, *threshold);
    c.has_f1 = true;
    c.f1 = f1_from_sorted(sorted, n_acceptable, p);
    c.f1_oracle = oracle_f1_from(by_error, n_acceptable, p);
    c.f1_random = random_f1_from(errors.size(), n_acceptable, p);
  }
  return c;
}

RetentionSummary retention_summary(std::span<const double> errors,
                                   std::span<const double> uncertainty,
                                   const RetentionParams& params, const double* threshold,
                                   double beta) {
  const F1RetentionParams p{threshold ? *threshold : 0, beta};
  if (threshold) check_f1_params(p);  // before the sorts: bad parameters fail fast
  const ByUncertainty sorted(errors, uncertainty);
  const auto by_error = detail::sorted_ascending(errors);
  RetentionSummary s;
  s.prr = prr_from(sorted, by_error, params.convention);
  s.risk_coverage = risk_coverage_from(sorted, errors, by_error, false);
  if (threshold) {
    const auto f1 = f1_from_sorted(sorted, count_acceptable(errors, *threshold), p);
    s.has_f1 = true;
    s.f1_auc = f1.f1_auc;
    s.f1_at_95 = f1.f1_at_95;
    s.n_acceptable = f1.n_acceptable;
  }
  return s;
}

}  // namespace assay::shift
