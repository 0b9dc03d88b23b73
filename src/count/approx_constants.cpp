#include "count/approx_constants.hpp"

#include <cmath>

namespace assay::count::detail {

namespace {

double pivot(double epsilon) {
  return 9.84 * (1 + 1 / epsilon) * (1 + 1 / epsilon);
}

/// Pr[at least half of t independent measurements err], each with probability p.
double majority_error(std::uint32_t t, double p) {
  double term = std::pow(p, t);  // k = t
  double sum = term;
  for (std::uint32_t k = t - 1; 2 * k >= t; --k) {  // k = t-1 .. ceil(t/2)
    term *= static_cast<double>(k + 1) / (t - k) * (1 - p) / p;
    sum += term;
  }
  return sum;
}

}  // namespace

double approx_threshold_real(double epsilon) {
  return 1 + 9.84 * (1 + epsilon / (1 + epsilon)) * (1 + 1 / epsilon) * (1 + 1 / epsilon);
}

std::uint32_t approx_threshold(double epsilon) {
  return static_cast<std::uint32_t>(approx_threshold_real(epsilon));
}

std::uint32_t approx_measurements(double epsilon, double delta) {
  // Upper bounds on one measurement's probability to fall below count/(1+eps) (p_low) and
  // above count*(1+eps) (p_high), by epsilon regime (ApproxMC6, Lemma 4).
  const double sqrt2 = std::sqrt(2.0);
  const double p_low = epsilon < sqrt2 - 1       ? 0.262
                       : epsilon < 1             ? 0.157
                       : epsilon < 3             ? 0.085
                       : epsilon < 4 * sqrt2 - 1 ? 0.055
                                                 : 0.023;
  const double p_high = epsilon < 3 ? 0.169 : 0.044;
  std::uint32_t t = 1;
  while (majority_error(t, p_low) + majority_error(t, p_high) > delta) t += 2;
  return t;
}

double rounded_cell(double cell, double epsilon) {
  const double sqrt2 = std::sqrt(2.0);
  const double p = pivot(epsilon);
  if (epsilon < sqrt2 - 1) return std::fmax(cell, std::sqrt(1 + 2 * epsilon) / 2 * p);
  if (epsilon < 1) return std::fmax(cell, p / sqrt2);
  if (epsilon < 3) return std::fmax(cell, p);
  if (epsilon < 4 * sqrt2 - 1) return p;
  return sqrt2 * p;
}

}  // namespace assay::count::detail
