#include "assay/core/validate.hpp"

#include <cmath>

#include "assay/core/error.hpp"

namespace assay {

const char* non_finite_name(double x) {
  if (std::isnan(x)) return "NaN";
  return x > 0 ? "inf" : "-inf";
}

void fail_non_finite(std::string_view what, double x, std::size_t i) {
  fail("{} contains {} at index {}", what, non_finite_name(x), i);
}

void check_same_length(std::size_t n1, std::size_t n2, std::string_view name1,
                       std::string_view name2) {
  if (n1 != n2) fail("{} and {} differ in length ({} vs {})", name1, name2, n1, n2);
}

void check_not_empty(std::size_t n, std::string_view what) {
  if (n == 0) fail("{} is empty: need at least one sample", what);
}

void check_finite(std::span<const double> values, std::string_view what) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) fail_non_finite(what, values[i], i);
  }
}

void check_weights(std::span<const double> weights, std::size_t n, std::string_view name,
                   std::string_view weights_name) {
  if (weights.empty()) return;
  check_same_length(n, weights.size(), name, weights_name);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double w = weights[i];
    if (!std::isfinite(w)) fail_non_finite(weights_name, w, i);
    if (w < 0) fail("{} must be >= 0, found {} at index {}", weights_name, w, i);
  }
}

}  // namespace assay
