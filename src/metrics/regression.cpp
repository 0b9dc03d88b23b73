#include "assay/metrics/regression.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "assay/core/compensated_sum.hpp"
#include "assay/core/error.hpp"
#include "assay/core/radix_sort.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/vector_clones.hpp"
#include "assay/metrics/scaled_weights.hpp"
#include "metrics/vector_math.hpp"

namespace assay::metrics {
namespace {

// Rows per parallel chunk; fixed, so the summation order depends on n only (not on threads).
constexpr std::size_t kChunkRows = std::size_t{1} << 16;
constexpr std::size_t kParallelRows = std::size_t{1} << 20;
constexpr std::size_t kBlockRows = 256;

std::string element_name(const char* name, std::size_t k, std::size_t m) {
  if (m == 1) return fmt::format("{}[{}]", name, k);
  return fmt::format("{}[{}, {}]", name, k / m, k % m);
}

void check_finite_elements(std::span<const double> a, const char* name, std::size_t m) {
  // One branch-free pass in eight independent lanes (it vectorises): x - x is 0, or NaN for a
  // NaN or an infinity, and a NaN stays in its lane's sum. The element is looked for only then.
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= a.size(); i += 8) {
    for (std::size_t k = 0; k < 8; ++k) lane[k] += a[i + k] - a[i + k];
  }
  for (; i < a.size(); ++i) lane[0] += a[i] - a[i];
  bool all_finite = true;
  for (const double v : lane) all_finite &= v == 0;
  if (all_finite) return;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (std::isnan(a[k])) fail("Input contains NaN: {} is NaN", element_name(name, k, m));
    if (std::isinf(a[k])) {
      fail("Input contains infinity or a value too large for dtype('float64'): {} is {}",
           element_name(name, k, m), a[k]);
    }
  }
}

// Non-finite results come from non-finite inputs (refused) or from overflow (kept): checking
// after the computation saves a pass over the data in the common case.
void check_finite_if_needed(const RegressionData& d, std::span<const double> results) {
  for (double r : results) {
    if (!std::isfinite(r)) {
      check_finite_elements(d.y_true, "y_true", d.n_outputs);
      check_finite_elements(d.y_pred, "y_pred", d.n_outputs);
      return;
    }
  }
}

// Adds term(i, j) for rows [begin, end) into acc[j]: plain sums within blocks of kBlockRows rows
// (lane_sum for one output), compensated across blocks.
template <typename Term>
void sum_rows(std::size_t begin, std::size_t end, std::size_t m, const Term& term,
              std::vector<CompensatedSum>& acc) {
  std::vector<double> block(m);
  for (std::size_t b = begin; b < end; b += kBlockRows) {
    const std::size_t e = std::min(end, b + kBlockRows);
    if (m == 1) {
      double v[kBlockRows];
      for (std::size_t i = b; i < e; ++i) v[i - b] = term(i, 0);
      acc[0].add(lane_sum(v, e - b));
      continue;
    }
    std::fill(block.begin(), block.end(), 0.0);
    for (std::size_t i = b; i < e; ++i) {
      for (std::size_t j = 0; j < m; ++j) block[j] += term(i, j);
    }
    for (std::size_t j = 0; j < m; ++j) acc[j].add(block[j]);
  }
}

// Per output j, the sum over rows that sum_range(begin, end, acc) adds into acc[j] for a range of
// rows: in one range below kParallelRows, else in fixed chunks of kChunkRows run in parallel and
// combined in chunk order (so the result does not depend on the thread count).
template <typename SumRange>
std::vector<double> chunked_sums(std::size_t n, std::size_t m, const SumRange& sum_range) {
  std::vector<double> out(m);
  if (n < kParallelRows) {
    std::vector<CompensatedSum> acc(m);
    sum_range(0, n, acc);
    for (std::size_t j = 0; j < m; ++j) out[j] = acc[j].value();
    return out;
  }
  const std::size_t chunks = (n + kChunkRows - 1) / kChunkRows;
  std::vector<std::vector<CompensatedSum>> partial(chunks, std::vector<CompensatedSum>(m));
  parallel_for(chunks, [&](std::size_t c) {
    sum_range(c * kChunkRows, std::min(n, (c + 1) * kChunkRows), partial[c]);
  });
  for (std::size_t j = 0; j < m; ++j) {
    CompensatedSum total;
    for (const auto& p : partial) total.add(p[j].value());
    out[j] = total.value();
  }
  return out;
}

// Per output j: sum over rows of term(i, j).
template <typename Term>
std::vector<double> column_sums(std::size_t n, std::size_t m, const Term& term) {
  return chunked_sums(n, m,
                      [&](std::size_t begin, std::size_t end, std::vector<CompensatedSum>& acc) {
                        sum_rows(begin, end, m, term, acc);
                      });
}

double total_weight(const RegressionData& d) {
  if (d.sample_weight.empty()) return static_cast<double>(d.n_samples());
  const ScaledWeights scaled(d.sample_weight);  // means are ratios of rescaled sums
  const auto w = scaled.span();
  return column_sums(w.size(), 1, [&](std::size_t i, std::size_t) { return w[i]; })[0];
}

// Per output: sum_i w_i f(y_ij, p_ij, j).
template <typename F>
std::vector<double> weighted_sums(const RegressionData& d, const F& f) {
  const std::size_t n = d.n_samples();
  const std::size_t m = d.n_outputs;
  const double* y = d.y_true.data();
  const double* p = d.y_pred.data();
  std::vector<double> sums;
  if (d.sample_weight.empty()) {
    sums = column_sums(
        n, m, [&](std::size_t i, std::size_t j) { return f(y[i * m + j], p[i * m + j], j); });
  } else {
    const ScaledWeights scaled(d.sample_weight);  // means are ratios of rescaled sums
    const double* w = scaled.span().data();
    sums = column_sums(n, m, [&](std::size_t i, std::size_t j) {
      return w[i] * f(y[i * m + j], p[i * m + j], j);
    });
  }
  return sums;
}

// sums[j] / sum_i w_i per output (numpy.average's denominator).
std::vector<double> divide_by_weights(const RegressionData& d, std::vector<double> sums) {
  std::vector<double> totals(sums.size(), total_weight(d));
  if (!d.sample_weight.empty() && d.n_outputs > 1) {
    // Summed in the weighted sums' order, so that the mean of a constant column is exactly that
    // constant (r2_score of a constant y_true found by differential fuzzing: -2e31, not 0).
    const ScaledWeights scaled(d.sample_weight);
    const auto w = scaled.span();
    totals =
        column_sums(d.n_samples(), d.n_outputs, [&](std::size_t i, std::size_t) { return w[i]; });
  }
  for (std::size_t j = 0; j < sums.size(); ++j) {
    if (!(totals[j] > 0)) fail("Weights sum to zero, can't be normalized");
    sums[j] /= totals[j];
  }
  return sums;
}

// Per output: sum_i w_i f(y_ij, p_ij, j) / sum_i w_i (numpy.average with weights along axis 0).
template <typename F>
std::vector<double> weighted_means(const RegressionData& d, const F& f) {
  return divide_by_weights(d, weighted_sums(d, f));
}

// Values of output j in sample order.
std::vector<double> column(std::span<const double> a, std::size_t m, std::size_t j) {
  const std::size_t n = a.size() / m;
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i * m + j];
  return out;
}

// numpy.percentile(values, q * 100) with the default linear method, step by step as numpy 1.24
// computes it (virtual index, floor, gamma, then its two-sided lerp).
double numpy_percentile(std::vector<double> values, double percentile) {
  const std::size_t n = values.size();
  const double q = percentile / 100;
  const double virtual_index = static_cast<double>(n) * q + (1 + q * (1 - 1 - 1)) - 1;
  double previous_index = std::floor(virtual_index);
  std::size_t lo = 0;
  std::size_t hi = 0;
  if (virtual_index >= static_cast<double>(n) - 1) {
    lo = hi = n - 1;
    previous_index = -1;
  } else if (virtual_index < 0) {
    lo = hi = 0;
    previous_index = 0;
  } else {
    lo = static_cast<std::size_t>(previous_index);
    hi = lo + 1;
  }
  // numpy partitions around the two order statistics (O(n)); so does this.
  std::nth_element(values.begin(), values.begin() + lo, values.end());
  const double a = values[lo];
  const double b = hi == lo ? a : *std::min_element(values.begin() + lo + 1, values.end());
  const double t = virtual_index - previous_index;
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

// scikit-learn's _weighted_percentile: the first value in sorted order whose cumulative weight
// (a sequential cumsum, as numpy's) reaches percentile/100 of the total.
double weighted_percentile(std::span<const double> values, std::span<const double> raw_weights,
                           double percentile) {
  const std::size_t n = values.size();
  const ScaledWeights scaled(raw_weights);  // cumulative sums of 1e308 would overflow
  const auto weights = scaled.span();
  // A stable sort by value as (order-preserving key, row) pairs in one contiguous array: the
  // comparisons touch no other memory (an index sort comparing values[a] < values[b] missed the
  // cache at every step). -0 is keyed as +0, so that ties are exactly the values' ties.
  struct KeyRow {
    std::uint64_t key;
    std::size_t row;
  };
  std::vector<KeyRow> sorted(n);
  for (std::size_t i = 0; i < n; ++i) {
    sorted[i] = {assay::detail::ascending_key(values[i] == 0 ? 0.0 : values[i]), i};
  }
  std::sort(sorted.begin(), sorted.end(), [](const KeyRow& a, const KeyRow& b) {
    return a.key < b.key || (a.key == b.key && a.row < b.row);
  });
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = sorted[k].row;
  std::vector<double> cdf(n);
  double running = 0;
  for (std::size_t k = 0; k < n; ++k) cdf[k] = running += weights[order[k]];
  double target = percentile / 100 * cdf[n - 1];
  if (target == 0) target = std::nextafter(0.0, 1.0);
  const std::size_t k = std::lower_bound(cdf.begin(), cdf.end(), target) - cdf.begin();
  return values[order[std::min(k, n - 1)]];
}

void check_single_output(const RegressionData& d, const char* what) {
  if (d.n_outputs != 1) fail("Multioutput not supported in {}", what);
}

// tweedie_terms for a power outside {0, 1, 2}, given t[i] = max(y, 0)^(2-power) (max only for
// power < 0) and p_1[i] = p[i]^(1-power): the rows' deviances into t, with p^(2-power) formed as
// p_1 p. Returns how many rows had either power outside the normal range (both are positive, as
// p > 0): the caller asks pow itself there. Counted rather than branched on, so the loop
// vectorises (on AVX2 and up: 64-bit compares); no product feeds a sum, so no clone fuses one.
ASSAY_VECTOR_CLONES std::int64_t general_power_terms(const double* y, const double* p,
                                                     const double* p_1, std::size_t n, double power,
                                                     double* t) {
  constexpr double kMin = std::numeric_limits<double>::min(),
                   kMax = std::numeric_limits<double>::max();
  const double c12 = (1 - power) * (2 - power), c1 = 1 - power, c2 = 2 - power;
  std::int64_t abnormal = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double p_2 = p_1[i] * p[i];
    abnormal += (p_1[i] < kMin ? 1 : 0) + (p_1[i] > kMax ? 1 : 0) + (p_2 < kMin ? 1 : 0) +
                (p_2 > kMax ? 1 : 0);
    t[i] = 2 * (t[i] / c12 - y[i] * p_1[i] / c1 + p_2 / c2);
  }
  return abnormal;
}

// The Tweedie unit deviance of every row (power 0: squared error; 1: Poisson, 2 (y log(y / p) - y
// + p); 2: Gamma, 2 (log(p / y) + y / p - 1); else 2 (max(y, 0)^(2-power) / ((1-power)(2-power))
// - y p^(1-power) / (1-power) + p^(2-power) / (2-power)), max only for power < 0), as
// scikit-learn computes them into t[0, n). p is per row, or with `constant` one value p[0] for
// every row (its powers then taken once, as d2_tweedie_score's null model does). Logs and powers
// are taken over whole arrays (vector_math.hpp).
void tweedie_terms(std::span<const double> y, std::span<const double> p, bool constant,
                   double power, double* t) {
  const std::size_t n = y.size();  // at most kBlockRows
  const auto p_at = [&](std::size_t i) { return constant ? p[0] : p[i]; };
  if (power == 0 || power == 1 || power == 2) {
    if (power == 0) {
      for (std::size_t i = 0; i < n; ++i) t[i] = (y[i] - p_at(i)) * (y[i] - p_at(i));
      return;
    }
    for (std::size_t i = 0; i < n; ++i) t[i] = power == 1 ? y[i] / p_at(i) : p_at(i) / y[i];
    detail::log_many(t, t, n);
    for (std::size_t i = 0; i < n; ++i) {
      const double yi = y[i], pi = p_at(i);
      if (power == 2) {
        t[i] = 2 * (t[i] + yi / pi - 1);
      } else {
        // scipy's xlogy: 0 at y = 0, unless y / p is NaN (d2_tweedie_score's null deviance when
        // every y is 0: the mean prediction 0 is outside the Poisson domain).
        const double xlogy = yi == 0 && !std::isnan(yi / pi) ? 0.0 : yi * t[i];
        t[i] = 2 * (xlogy - yi + pi);
      }
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i) t[i] = power < 0 ? std::max(y[i], 0.0) : y[i];
  detail::pow_many(t, 2 - power, t, n);
  const double c12 = (1 - power) * (2 - power), c1 = 1 - power, c2 = 2 - power;
  if (constant) {
    const double p_1 = std::pow(p[0], 1 - power), p_2 = std::pow(p[0], 2 - power);
    for (std::size_t i = 0; i < n; ++i) t[i] = 2 * (t[i] / c12 - y[i] * p_1 / c1 + p_2 / c2);
    return;
  }
  // p^(2-power) = p^(1-power) p: one vector pow instead of two (one more rounding), except
  // where the product leaves the normal range (power 3, p = 1e-300: inf · 1e-300), where pow
  // itself is asked.
  double p_1[kBlockRows];
  detail::pow_many(p.data(), 1 - power, p_1, n);
  if (general_power_terms(y.data(), p.data(), p_1, n, power, t) == 0) return;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isnormal(p_1[i]) || !std::isnormal(p_1[i] * p[i])) {
      const double p_2 = std::pow(p[i], 2 - power);
      t[i] = 2 * (std::pow(power < 0 ? std::max(y[i], 0.0) : y[i], 2 - power) / c12 -
                  y[i] * p_1[i] / c1 + p_2 / c2);
    }
  }
}

// weighted_means for one output whose per-row values come block by block from fill(b, e, out)
// (rows [b, e), at most kBlockRows of them): the same chunks, blocks, lanes and compensation as
// column_sums, so the same result as summing a full array of the values, without allocating it.
template <typename Fill>
double streamed_weighted_mean(const RegressionData& d, const Fill& fill) {
  const ScaledWeights scaled(d.sample_weight);  // means are ratios of rescaled sums
  const double* w = d.sample_weight.empty() ? nullptr : scaled.span().data();
  auto sums = chunked_sums(
      d.n_samples(), 1, [&](std::size_t begin, std::size_t end, std::vector<CompensatedSum>& acc) {
        double v[kBlockRows];
        for (std::size_t b = begin; b < end; b += kBlockRows) {
          const std::size_t e = std::min(end, b + kBlockRows);
          fill(b, e, v);
          if (w != nullptr) {
            for (std::size_t k = 0; k < e - b; ++k) v[k] = w[b + k] * v[k];
          }
          acc[0].add(lane_sum(v, e - b));
        }
      });
  return divide_by_weights(d, std::move(sums))[0];
}

void check_tweedie_domain(const RegressionData& d, double power) {
  const std::string start =
      fmt::format("Mean Tweedie deviance error with power={} can only be used on ", power);
  const auto any = [](std::span<const double> a, auto pred) {
    return std::any_of(a.begin(), a.end(), pred);
  };
  const auto non_positive = [](double v) { return v <= 0; };
  if (power < 0) {
    if (any(d.y_pred, non_positive)) fail("{}strictly positive y_pred.", start);
  } else if (power > 0 && power < 1) {
    fail("Tweedie deviance is only defined for power<=0 and power>=1.");
  } else if (power >= 1 && power < 2) {
    if (any(d.y_true, [](double v) { return v < 0; }) || any(d.y_pred, non_positive)) {
      fail("{}non-negative y and strictly positive y_pred.", start);
    }
  } else if (power >= 2) {
    if (any(d.y_true, non_positive) || any(d.y_pred, non_positive)) {
      fail("{}strictly positive y and y_pred.", start);
    }
  }
}

}  // namespace

OutputAverage::Kind parse_output_average(std::string_view name) {
  if (name == "raw_values") return OutputAverage::Kind::raw_values;
  if (name == "uniform_average") return OutputAverage::Kind::uniform_average;
  if (name == "variance_weighted") return OutputAverage::Kind::variance_weighted;
  fail(
      "Allowed 'multioutput' string values are ('raw_values', 'uniform_average', "
      "'variance_weighted'). You provided multioutput={}",
      quote_found(name));
}

void check_regression_data(const RegressionData& d) {
  if (d.n_outputs == 0) fail("y_true has no outputs: expected at least one column");
  if (d.y_true.size() != d.y_pred.size()) {
    fail("Found input variables with inconsistent numbers of samples: [{}, {}]",
         d.y_true.size() / d.n_outputs, d.y_pred.size() / d.n_outputs);
  }
  if (d.y_true.size() % d.n_outputs != 0) {
    fail("y_true has {} values, not a multiple of its {} outputs", d.y_true.size(), d.n_outputs);
  }
  const std::size_t n = d.n_samples();
  if (n == 0) {
    fail("Found array with 0 sample(s) (shape=(0,)) while a minimum of 1 is required.");
  }
  const auto w = d.sample_weight;
  if (w.empty()) return;
  if (w.size() != n) {
    fail("Found input variables with inconsistent numbers of samples: [{}, {}, {}]", n, n,
         w.size());
  }
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!std::isfinite(w[i])) fail("sample_weight must be finite, found {} at index {}", w[i], i);
    if (w[i] < 0) fail("sample_weight must be >= 0, found {} at index {}", w[i], i);
  }
}

std::vector<double> average_outputs(const std::vector<double>& values, const OutputAverage& how,
                                    std::span<const double> denominators) {
  using Kind = OutputAverage::Kind;
  if (how.kind == Kind::raw_values) return values;
  std::span<const double> weights;
  if (how.kind == Kind::weights) {
    if (how.weights.size() != values.size()) {
      fail("There must be equally many custom weights ({}) as outputs ({}).", how.weights.size(),
           values.size());
    }
    weights = how.weights;
  } else if (how.kind == Kind::variance_weighted) {
    const bool any =
        std::any_of(denominators.begin(), denominators.end(), [](double v) { return v != 0; });
    if (any) weights = denominators;
  }
  if (weights.empty()) {
    double sum = 0;
    for (double v : values) sum += v;
    return {sum / static_cast<double>(values.size())};
  }
  double num = 0;
  double den = 0;
  for (std::size_t j = 0; j < values.size(); ++j) {
    num += values[j] * weights[j];
    den += weights[j];
  }
  if (den == 0) fail("Weights sum to zero, can't be normalized");
  return {num / den};
}

std::vector<double> mean_squared_error(const RegressionData& d, bool squared) {
  check_regression_data(d);
  auto out = weighted_means(d, [](double y, double p, std::size_t) { return (y - p) * (y - p); });
  check_finite_if_needed(d, out);
  if (!squared) {
    for (double& v : out) v = std::sqrt(v);
  }
  return out;
}

std::vector<double> mean_absolute_error(const RegressionData& d) {
  check_regression_data(d);
  auto out = weighted_means(d, [](double y, double p, std::size_t) { return std::abs(y - p); });
  check_finite_if_needed(d, out);
  return out;
}

std::vector<double> mean_absolute_percentage_error(const RegressionData& d) {
  check_regression_data(d);
  auto out = weighted_means(d, [](double y, double p, std::size_t) {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    return std::abs(p - y) / std::max(std::abs(y), eps);
  });
  check_finite_if_needed(d, out);
  return out;
}

std::vector<double> mean_squared_log_error(const RegressionData& d, bool squared) {
  check_regression_data(d);
  check_finite_elements(d.y_true, "y_true", d.n_outputs);
  check_finite_elements(d.y_pred, "y_pred", d.n_outputs);
  const auto negative = [](double v) { return v < 0; };
  if (std::any_of(d.y_true.begin(), d.y_true.end(), negative) ||
      std::any_of(d.y_pred.begin(), d.y_pred.end(), negative)) {
    fail("Mean Squared Logarithmic Error cannot be used when targets contain negative values.");
  }
  std::vector<double> out;
  if (d.n_outputs == 1) {  // block by block, no full-size arrays of logs
    out = {streamed_weighted_mean(d, [&](std::size_t b, std::size_t e, double* v) {
      double log_y[kBlockRows];
      detail::log1p_many(d.y_true.data() + b, log_y, e - b);
      detail::log1p_many(d.y_pred.data() + b, v, e - b);
      for (std::size_t k = 0; k < e - b; ++k) v[k] = (log_y[k] - v[k]) * (log_y[k] - v[k]);
    })};
  } else {
    std::vector<double> log_y(d.y_true.size()), log_p(d.y_pred.size());
    detail::log1p_many(d.y_true.data(), log_y.data(), log_y.size());
    detail::log1p_many(d.y_pred.data(), log_p.data(), log_p.size());
    RegressionData logs = d;
    logs.y_true = log_y;
    logs.y_pred = log_p;
    out = weighted_means(logs, [](double a, double b, std::size_t) {
      const double diff = a - b;
      return diff * diff;
    });
  }
  if (!squared) {
    for (double& v : out) v = std::sqrt(v);
  }
  return out;
}

std::vector<double> median_absolute_error(const RegressionData& d) {
  check_regression_data(d);
  check_finite_elements(d.y_true, "y_true", d.n_outputs);
  check_finite_elements(d.y_pred, "y_pred", d.n_outputs);
  const std::size_t n = d.n_samples();
  const std::size_t m = d.n_outputs;
  std::vector<double> out(m);
  std::vector<double> errors(n);
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t i = 0; i < n; ++i)
      errors[i] = std::abs(d.y_pred[i * m + j] - d.y_true[i * m + j]);
    if (!d.sample_weight.empty()) {
      out[j] = weighted_percentile(errors, d.sample_weight, 50);
      continue;
    }
    // numpy.median: the middle value, or the mean of the two middle values.
    const std::size_t half = n / 2;
    std::nth_element(errors.begin(), errors.begin() + half, errors.end());
    const double upper = errors[half];
    if (n % 2 == 1) {
      out[j] = upper;
    } else {
      const double lower = *std::max_element(errors.begin(), errors.begin() + half);
      out[j] = (lower + upper) / 2;
    }
  }
  return out;
}

double max_error(const RegressionData& d) {
  check_regression_data(d);
  check_single_output(d, "max_error");
  check_finite_elements(d.y_true, "y_true", 1);
  check_finite_elements(d.y_pred, "y_pred", 1);
  // Eight independent maxima (they vectorise); the maximum does not depend on the grouping.
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const std::size_t n = d.y_true.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (std::size_t k = 0; k < 8; ++k) {
      const double e = std::abs(d.y_true[i + k] - d.y_pred[i + k]);
      lane[k] = e > lane[k] ? e : lane[k];
    }
  }
  for (; i < n; ++i) lane[0] = std::max(lane[0], std::abs(d.y_true[i] - d.y_pred[i]));
  return *std::max_element(lane, lane + 8);
}

std::vector<double> mean_pinball_loss(const RegressionData& d, double alpha) {
  check_regression_data(d);
  auto out = weighted_means(d, [alpha](double y, double p, std::size_t) {
    const double diff = y - p;
    return diff >= 0 ? alpha * diff : -((1 - alpha) * diff);
  });
  check_finite_if_needed(d, out);
  return out;
}

double mean_tweedie_deviance(const RegressionData& d, double power) {
  check_regression_data(d);
  check_single_output(d, "mean_tweedie_deviance");
  check_finite_elements(d.y_true, "y_true", 1);
  check_finite_elements(d.y_pred, "y_pred", 1);
  check_tweedie_domain(d, power);
  return streamed_weighted_mean(d, [&](std::size_t b, std::size_t e, double* out) {
    tweedie_terms(d.y_true.subspan(b, e - b), d.y_pred.subspan(b, e - b), false, power, out);
  });
}

ScoreParts r2_parts(const RegressionData& d) {
  check_regression_data(d);
  const auto mean = weighted_means(d, [](double y, double, std::size_t) { return y; });
  check_finite_if_needed(d, mean);
  ScoreParts parts;
  parts.numerator =
      weighted_sums(d, [](double y, double p, std::size_t) { return (y - p) * (y - p); });
  check_finite_if_needed(d, parts.numerator);
  parts.denominator = weighted_sums(
      d, [&mean](double y, double, std::size_t j) { return (y - mean[j]) * (y - mean[j]); });
  return parts;
}

ScoreParts explained_variance_parts(const RegressionData& d) {
  check_regression_data(d);
  const auto diff_mean = weighted_means(d, [](double y, double p, std::size_t) { return y - p; });
  check_finite_if_needed(d, diff_mean);
  const auto mean = weighted_means(d, [](double y, double, std::size_t) { return y; });
  ScoreParts parts;
  parts.numerator = weighted_means(d, [&diff_mean](double y, double p, std::size_t j) {
    const double r = y - p - diff_mean[j];
    return r * r;
  });
  parts.denominator = weighted_means(
      d, [&mean](double y, double, std::size_t j) { return (y - mean[j]) * (y - mean[j]); });
  return parts;
}

ScoreParts d2_pinball_parts(const RegressionData& d, double alpha) {
  ScoreParts parts;
  parts.numerator = mean_pinball_loss(d, alpha);
  const std::size_t m = d.n_outputs;
  std::vector<double> quantile(m);
  for (std::size_t j = 0; j < m; ++j) {
    auto y = column(d.y_true, m, j);
    quantile[j] = d.sample_weight.empty() ? numpy_percentile(std::move(y), alpha * 100)
                                          : weighted_percentile(y, d.sample_weight, alpha * 100);
  }
  parts.denominator = weighted_means(d, [&quantile, alpha](double y, double, std::size_t j) {
    const double diff = y - quantile[j];
    return diff >= 0 ? alpha * diff : -((1 - alpha) * diff);
  });
  return parts;
}

std::vector<double> assemble_score(const ScoreParts& parts, bool force_finite) {
  std::vector<double> out(parts.numerator.size());
  for (std::size_t j = 0; j < out.size(); ++j) {
    const double num = parts.numerator[j];
    const double den = parts.denominator[j];
    if (!force_finite) {
      out[j] = 1 - num / den;
    } else if (num == 0) {
      out[j] = 1;
    } else {
      out[j] = den != 0 ? 1 - num / den : 0.0;
    }
  }
  return out;
}

double d2_tweedie_score(const RegressionData& d, double power) {
  const double numerator = mean_tweedie_deviance(d, power);
  const double mean = weighted_means(d, [](double y, double, std::size_t) { return y; })[0];
  const double denominator = streamed_weighted_mean(d, [&](std::size_t b, std::size_t e,
                                                           double* out) {
    tweedie_terms(d.y_true.subspan(b, e - b), std::span<const double>(&mean, 1), true, power, out);
  });
  return 1 - numerator / denominator;
}

}  // namespace assay::metrics
