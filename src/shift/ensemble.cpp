#include "assay/shift/ensemble.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <string>

#include "assay/core/error.hpp"
#include "assay/core/radix_sort.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/validate.hpp"
#include "shift/fast_log.hpp"
#include "shift/sorted.hpp"

namespace assay::shift {
namespace {

constexpr std::size_t kChunk = 2048;      // samples per work item (regression)
constexpr std::size_t kClassChunk = 256;  // samples per work item (classification: x K values)
constexpr double kSumTolerance = 1e-8 + 1e-5;

// Runs body(begin, end) over chunks of samples in parallel; the first error in sample order is
// rethrown (so the message does not depend on the thread count).
template <typename Body>
void for_chunks(std::size_t n, int threads, std::size_t chunk, Body&& body) {
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::vector<std::optional<std::string>> errors(chunks);
  parallel_for(
      chunks,
      [&](std::size_t c) {
        try {
          body(c * chunk, std::min(n, (c + 1) * chunk));
        } catch (const Error& e) {
          errors[c] = e.what();
        }
      },
      resolve_threads(threads, chunks));
  for (const auto& e : errors) {
    if (e) throw Error(*e);
  }
}

void check_shape(std::size_t size, std::size_t m, std::size_t n, std::size_t k, const char* what,
                 const char* last) {
  if (m == 0) fail("{} needs at least one member, found 0", what);
  if (n == 0) fail("{} needs at least one sample, found 0", what);
  if (k == 0) fail("{} needs at least one class, found 0", what);
  if (size != m * n * k) {
    fail("{} has {} values, expected members x samples x {} = {} x {} x {} = {}", what, size, last,
         m, n, k, m * n * k);
  }
}

void check_member_value(double mean, double var, std::size_t m, std::size_t i) {
  if (!std::isfinite(mean)) fail("preds: mean of member {} is {} at sample {}", m, mean, i);
  if (!std::isfinite(var)) fail("preds: variance of member {} is {} at sample {}", m, var, i);
  if (var < 0) fail("preds: negative variance {} of member {} at sample {}", var, m, i);
}

// Sizes a per-sample output, with huge pages advised before its first write: six fresh 8 MB
// outputs otherwise cost ~12k page faults, a fifth of the regression measures' time at 1e6.
void size_output(std::vector<double>& v, std::size_t n) {
  v.reserve(n);
  assay::detail::advise_huge_pages(v.data(), n * sizeof(double));
  v.resize(n);
}

struct ClassificationInputs {
  const double* probs;
  std::size_t M, n, K;
  double eps;
};

// The exact first offending entry of a chunk, in (member, sample, class) order.
void report_bad_probabilities(const ClassificationInputs& in, std::size_t begin, std::size_t end) {
  for (std::size_t m = 0; m < in.M; ++m) {
    for (std::size_t i = begin; i < end; ++i) {
      const double* row = in.probs + (m * in.n + i) * in.K;
      double sum = 0;
      for (std::size_t k = 0; k < in.K; ++k) {
        if (!(row[k] >= 0 && row[k] <= 1)) {
          fail("probs must be in [0, 1], found {} (member {}, sample {}, class {})", row[k], m, i,
               k);
        }
        sum += row[k];
      }
      if (std::abs(sum - 1) > kSumTolerance) {
        fail("probabilities of member {} at sample {} sum to {}, expected 1 (tolerance {})", m, i,
             sum, kSumTolerance);
      }
    }
  }
}

// log(x + eps): the vectorised log (finite garbage for x + eps = 0 or subnormal, which is
// possible only with eps < DBL_MIN and is then recomputed with std::log).
[[gnu::always_inline]] inline void shifted_logs(const double* x, double eps, double* out,
                                                std::size_t len) {
  constexpr double kMinNormal = std::numeric_limits<double>::min();
#pragma GCC ivdep
  for (std::size_t j = 0; j < len; ++j) out[j] = detail::fast_log(x[j] + eps);
  if (eps < kMinNormal) {
    for (std::size_t j = 0; j < len; ++j) {
      if (x[j] + eps < kMinNormal) out[j] = std::log(x[j] + eps);
    }
  }
}

// Samples [begin, end): members outer, so each member's block of c x K probabilities is
// contiguous and the log and the sums over members vectorise.
ASSAY_VECTOR_CLONES void classification_chunk(const ClassificationInputs& in, std::size_t begin,
                                              std::size_t end, EnsembleUncertainty& r) {
  const std::size_t M = in.M, K = in.K, c = end - begin, len = c * K;
  const double dm = static_cast<double>(M);
  std::vector<double> mean(len, 0.0), mean_log(len, 0.0), lp(len), low(len, 0.0), high(len, 1.0),
      nan_check(len, 0.0), entropy(c, 0.0);
  bool bad = false;
  for (std::size_t m = 0; m < M; ++m) {
    const double* row = in.probs + (m * in.n + begin) * K;
    shifted_logs(row, in.eps, lp.data(), len);
#pragma GCC ivdep
    for (std::size_t j = 0; j < len; ++j) {
      const double p = row[j];
      low[j] = p < low[j] ? p : low[j];
      high[j] = p > high[j] ? p : high[j];
      nan_check[j] += p - p;
      mean[j] += p;
      mean_log[j] += lp[j];
    }
    for (std::size_t i = 0; i < c; ++i) {
      double sum = 0, h = 0;
      for (std::size_t k = 0; k < K; ++k) {
        sum += row[i * K + k];
        h += row[i * K + k] * -lp[i * K + k];
      }
      bad |= std::abs(sum - 1) > kSumTolerance;
      entropy[i] += h;
    }
  }
  for (std::size_t j = 0; j < len; ++j) {
    bad |= low[j] < 0 || high[j] > 1 || !(nan_check[j] == 0);
  }
  if (bad) report_bad_probabilities(in, begin, end);
#pragma GCC ivdep
  for (std::size_t j = 0; j < len; ++j) mean[j] /= dm;
  shifted_logs(mean.data(), in.eps, lp.data(), len);
  for (std::size_t i = 0; i < c; ++i) {
    const double expected_entropy = entropy[i] / dm;
    double eoe = 0, cross = 0, confidence = 0;
    for (std::size_t k = 0; k < K; ++k) {
      const double pbar = mean[i * K + k];
      eoe += pbar * -lp[i * K + k];
      cross += pbar * (mean_log[i * K + k] / dm);
      confidence = std::max(confidence, pbar);
    }
    const double mi = eoe - expected_entropy;
    const double epkl = -cross - expected_entropy;
    const std::size_t o = begin + i;
    r.entropy_of_expected[o] = eoe;
    r.expected_entropy[o] = expected_entropy;
    r.mutual_information[o] = mi;
    r.epkl[o] = epkl;
    r.reverse_mutual_information[o] = epkl - mi;
    r.confidence[o] = confidence;
  }
}

struct RegressionInputs {
  const double* preds;
  std::size_t M, n;
  double eps;
};

// Samples [begin, end), members outer: contiguous, branch-free, vectorisable inner loops. The
// sum over members of log(v + eps) is taken as the log of their product (one log per sample
// instead of one per member) when that product is a normal double; otherwise (huge or tiny
// variances) the logs are summed.
ASSAY_VECTOR_CLONES void regression_chunk(const RegressionInputs& in, std::size_t begin,
                                          std::size_t end, RegressionEnsembleUncertainty& r) {
  const std::size_t M = in.M, n = in.n;
  const double eps = in.eps, dm = static_cast<double>(M);
  const double log_2pi = std::log(2 * std::numbers::pi);
  const double* preds = in.preds;
  const std::size_t c = end - begin;
  std::vector<double> sum_mu(c, 0.0), sum_var(c, 0.0), sum_ve(c, 0.0), a(c, 0.0), b(c, 0.0),
      d(c, 0.0), q(c, 0.0), prod(c, 1.0), ss(c, 0.0), spread(c, 0.0), drift(c, 0.0), finite(c, 0.0),
      min_var(c, 0.0);
  for (std::size_t m = 0; m < M; ++m) {
    const double* row = preds + (m * n + begin) * 2;
#pragma GCC ivdep  // the per-sample arrays and the input never overlap
    for (std::size_t i = 0; i < c; ++i) {
      const double mm = row[2 * i], v = row[2 * i + 1];
      finite[i] += (mm - mm) + (v - v);  // NaN once a value is NaN or infinite
      min_var[i] = v < min_var[i] ? v : min_var[i];
      const double ve = v + eps;
      const double inv = 1.0 / ve;
      const double mean_inv = inv * mm;
      sum_mu[i] += mm;
      sum_var[i] += v;
      sum_ve[i] += ve;
      a[i] += mm * mm + ve;
      b[i] += inv;
      d[i] += mean_inv;
      q[i] += mm * mean_inv;
      prod[i] *= ve;
    }
  }
  for (std::size_t i = 0; i < c; ++i) {
    if (!(finite[i] == 0) || min_var[i] < 0) {
      for (std::size_t m = 0; m < M; ++m) {
        for (std::size_t j = begin; j < end; ++j) {
          check_member_value(preds[(m * n + j) * 2], preds[(m * n + j) * 2 + 1], m, j);
        }
      }
    }
  }
  for (std::size_t m = 0; m < M; ++m) {
    const double* row = preds + (m * n + begin) * 2;
#pragma GCC ivdep
    for (std::size_t i = 0; i < c; ++i) {
      const double mbar = sum_mu[i] / dm;
      const double vbar = sum_ve[i] / dm;
      const double dev = row[2 * i] - mbar;
      const double ve = row[2 * i + 1] + eps;
      ss[i] += dev * dev;
      spread[i] += (vbar - ve) / ve;
      drift[i] += dev * dev / ve;
    }
  }
  for (std::size_t i = 0; i < c; ++i) {
    double log_sum;
    if (prod[i] >= std::numeric_limits<double>::min() &&
        prod[i] <= std::numeric_limits<double>::max()) {
      log_sum = std::log(prod[i]);
    } else {
      log_sum = 0;
      for (std::size_t m = 0; m < M; ++m) {
        log_sum += std::log(preds[(m * n + begin + i) * 2 + 1] + eps);
      }
    }
    const double mbar = sum_mu[i] / dm;
    const double knowledge = ss[i] / dm;
    const double data = sum_var[i] / dm;
    const double am = a[i] / dm, bm = b[i] / dm, dmn = d[i] / dm;
    const double em = (q[i] + log_sum) / dm + log_2pi;
    const std::size_t o = begin + i;
    r.mean[o] = mbar;
    r.knowledge_uncertainty[o] = knowledge;
    r.data_uncertainty[o] = data;
    r.total_variance[o] = knowledge + data;
    r.epkl_reg[o] = 0.5 * (am * bm - 2 * mbar * dmn + em);
    r.epkl[o] = 0.5 * (spread[i] / dm + knowledge * bm + drift[i] / dm);
  }
}

}  // namespace

EnsembleUncertainty ensemble_uncertainty(std::span<const double> probs, std::size_t n_members,
                                         std::size_t n_samples, std::size_t n_classes,
                                         const EnsembleParams& params) {
  check_shape(probs.size(), n_members, n_samples, n_classes, "probs", "classes");
  if (!(params.epsilon >= 0)) fail("epsilon must be >= 0, found {}", params.epsilon);
  const ClassificationInputs in{probs.data(), n_members, n_samples, n_classes, params.epsilon};
  EnsembleUncertainty r;
  for (auto* v : {&r.entropy_of_expected, &r.expected_entropy, &r.mutual_information, &r.epkl,
                  &r.reverse_mutual_information, &r.confidence}) {
    size_output(*v, n_samples);
  }
  for_chunks(n_samples, params.threads, kClassChunk,
             [&](std::size_t begin, std::size_t end) { classification_chunk(in, begin, end, r); });
  return r;
}

RegressionEnsembleUncertainty ensemble_uncertainty_regression(std::span<const double> preds,
                                                              std::size_t n_members,
                                                              std::size_t n_samples,
                                                              const EnsembleParams& params) {
  check_shape(preds.size(), n_members, n_samples, 2, "preds", "2");
  if (!(params.epsilon >= 0)) fail("epsilon must be >= 0, found {}", params.epsilon);
  const RegressionInputs in{preds.data(), n_members, n_samples, params.epsilon};
  RegressionEnsembleUncertainty r;
  for (auto* v : {&r.mean, &r.total_variance, &r.data_uncertainty, &r.knowledge_uncertainty,
                  &r.epkl_reg, &r.epkl}) {
    size_output(*v, n_samples);
  }
  for_chunks(n_samples, params.threads, kChunk,
             [&](std::size_t begin, std::size_t end) { regression_chunk(in, begin, end, r); });
  return r;
}

std::vector<double> gaussian_nll(std::span<const double> y, std::span<const double> mean,
                                 std::span<const double> var, double epsilon) {
  if (y.size() != mean.size() || y.size() != var.size()) {
    fail("y, mean and var differ in length ({}, {}, {})", y.size(), mean.size(), var.size());
  }
  check_not_empty(y.size(), "y");
  if (!(epsilon >= 0)) fail("epsilon must be >= 0, found {}", epsilon);
  check_finite(y, "y");
  check_finite(mean, "mean");
  check_finite(var, "var");
  const double half_log_2pi = std::log(2 * std::numbers::pi) / 2;
  std::vector<double> out(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (var[i] < 0) fail("var contains a negative variance {} at index {}", var[i], i);
    const double d = y[i] - mean[i];
    out[i] = d * d / (2.0 * var[i] + epsilon) + std::log(var[i] + epsilon) / 2.0 + half_log_2pi;
  }
  return out;
}

std::vector<double> ensemble_nll(std::span<const double> y, std::span<const double> preds,
                                 std::size_t n_members, std::size_t n_samples, double epsilon) {
  check_shape(preds.size(), n_members, n_samples, 2, "preds", "2");
  if (y.size() != n_samples) {
    fail("y and preds differ in number of samples ({} vs {})", y.size(), n_samples);
  }
  if (!(epsilon >= 0)) fail("epsilon must be >= 0, found {}", epsilon);
  check_finite(y, "y");
  const std::size_t M = n_members, n = n_samples;
  const double half_log_2pi = std::log(2 * std::numbers::pi) / 2;
  const double log_m = std::log(static_cast<double>(M));
  std::vector<double> out(n), neg(M);
  for (std::size_t i = 0; i < n; ++i) {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t m = 0; m < M; ++m) {
      const double mu = preds[(m * n + i) * 2], v = preds[(m * n + i) * 2 + 1];
      check_member_value(mu, v, m, i);
      const double d = y[i] - mu;
      neg[m] = -(d * d / (2.0 * v + epsilon) + std::log(v + epsilon) / 2.0 + half_log_2pi);
      top = std::max(top, neg[m]);
    }
    double s = 0;
    for (std::size_t m = 0; m < M; ++m) s += std::exp(neg[m] - top);
    out[i] = -(top + std::log(s) - log_m);
  }
  return out;
}

}  // namespace assay::shift
