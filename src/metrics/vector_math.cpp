#include "metrics/vector_math.hpp"

#include <cmath>

#include "assay/core/vector_clones.hpp"

#if defined(__x86_64__) && defined(__linux__)
#include <immintrin.h>

// glibc's vector math entry points (x86-64 vector function ABI: "b" = SSE, 2 doubles; "d" =
// AVX2, 4 doubles; "e" = AVX-512, 8 doubles). The SSE ones pick the best SSE code for the CPU
// themselves.
extern "C" {
__m128d _ZGVbN2v_log(__m128d);
__m128d _ZGVbN2v_log1p(__m128d);
__m128d _ZGVbN2vv_pow(__m128d, __m128d);
// Declared with their instruction sets, as clang requires for vector arguments.
__attribute__((target("avx2"))) __m256d _ZGVdN4v_log(__m256d);
__attribute__((target("avx2"))) __m256d _ZGVdN4v_log1p(__m256d);
__attribute__((target("avx2"))) __m256d _ZGVdN4vv_pow(__m256d, __m256d);
__attribute__((target("avx512f"))) __m512d _ZGVeN8v_log(__m512d);
__attribute__((target("avx512f"))) __m512d _ZGVeN8v_log1p(__m512d);
__attribute__((target("avx512f"))) __m512d _ZGVeN8vv_pow(__m512d, __m512d);
}
#define ASSAY_HAVE_LIBMVEC 1
#endif

namespace assay::metrics::detail {
namespace {

#ifdef ASSAY_HAVE_LIBMVEC
bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") != 0;
  return yes;
}

bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f") != 0;
  return yes;
}

enum class Op { log, log1p, pow };

template <Op op>
__attribute__((target("avx2"))) inline __m256d call4(__m256d v, __m256d e) {
  if constexpr (op == Op::log) return _ZGVdN4v_log(v);
  if constexpr (op == Op::log1p) return _ZGVdN4v_log1p(v);
  if constexpr (op == Op::pow) return _ZGVdN4vv_pow(v, e);
}

template <Op op>
inline __m128d call2(__m128d v, __m128d e) {
  if constexpr (op == Op::log) return _ZGVbN2v_log(v);
  if constexpr (op == Op::log1p) return _ZGVbN2v_log1p(v);
  if constexpr (op == Op::pow) return _ZGVbN2vv_pow(v, e);
}

template <Op op>
__attribute__((target("avx512f"))) inline __m512d call8(__m512d v, __m512d e) {
  if constexpr (op == Op::log) return _ZGVeN8v_log(v);
  if constexpr (op == Op::log1p) return _ZGVeN8v_log1p(v);
  if constexpr (op == Op::pow) return _ZGVeN8vv_pow(v, e);
}

// Groups of 8 values, the last group padded with copies of its first value.
template <Op op>
__attribute__((target("avx512f"))) void apply8(const double* x, double e, double* out,
                                               std::size_t n) {
  const __m512d ev = _mm512_set1_pd(e);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_storeu_pd(out + i, call8<op>(_mm512_loadu_pd(x + i), ev));
  if (i == n) return;
  double in[8], res[8];
  for (std::size_t k = 0; k < 8; ++k) in[k] = x[i + k < n ? i + k : i];
  _mm512_storeu_pd(res, call8<op>(_mm512_loadu_pd(in), ev));
  for (std::size_t k = i; k < n; ++k) out[k] = res[k - i];
}

// Groups of 4 values, the last group padded with copies of its first value.
template <Op op>
__attribute__((target("avx2"))) void apply4(const double* x, double e, double* out, std::size_t n) {
  const __m256d ev = _mm256_set1_pd(e);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(out + i, call4<op>(_mm256_loadu_pd(x + i), ev));
  if (i == n) return;
  double in[4], res[4];
  for (std::size_t k = 0; k < 4; ++k) in[k] = x[i + k < n ? i + k : i];
  _mm256_storeu_pd(res, call4<op>(_mm256_loadu_pd(in), ev));
  for (std::size_t k = i; k < n; ++k) out[k] = res[k - i];
}

// Pairs of values, a last single value duplicated.
template <Op op>
void apply2(const double* x, double e, double* out, std::size_t n) {
  const __m128d ev = _mm_set1_pd(e);
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) _mm_storeu_pd(out + i, call2<op>(_mm_loadu_pd(x + i), ev));
  if (i < n) out[i] = _mm_cvtsd_f64(call2<op>(_mm_set1_pd(x[i]), ev));
}

template <Op op>
void apply(const double* x, double e, double* out, std::size_t n) {
  if (has_avx512()) {
    apply8<op>(x, e, out, n);
  } else if (has_avx2()) {
    apply4<op>(x, e, out, n);
  } else {
    apply2<op>(x, e, out, n);
  }
}
#endif

}  // namespace

void log_many(const double* x, double* out, std::size_t n) {
#ifdef ASSAY_HAVE_LIBMVEC
  apply<Op::log>(x, 0, out, n);
#else
  for (std::size_t i = 0; i < n; ++i) out[i] = std::log(x[i]);
#endif
}

void log1p_many(const double* x, double* out, std::size_t n) {
#ifdef ASSAY_HAVE_LIBMVEC
  apply<Op::log1p>(x, 0, out, n);
#else
  for (std::size_t i = 0; i < n; ++i) out[i] = std::log1p(x[i]);
#endif
}

// The exponents numpy's `**` also computes without pow, each correctly rounded or within one
// ulp and many times faster than a vector pow (Tweedie power 1.5 needs the two square roots).
// They equal pow wherever x is finite: + 0.0 turns sqrt's -0 into pow's +0.
namespace {
ASSAY_VECTOR_CLONES bool pow_by_arithmetic(const double* x, double exponent, double* out,
                                           std::size_t n) {
  if (exponent == 0.5) {
    for (std::size_t i = 0; i < n; ++i) out[i] = std::sqrt(x[i]) + 0.0;
  } else if (exponent == -0.5) {
    for (std::size_t i = 0; i < n; ++i) out[i] = 1.0 / (std::sqrt(x[i]) + 0.0);
  } else if (exponent == -1) {
    for (std::size_t i = 0; i < n; ++i) out[i] = 1.0 / x[i];
  } else if (exponent == 2) {
    for (std::size_t i = 0; i < n; ++i) out[i] = x[i] * x[i];
  } else if (exponent == 1) {
    for (std::size_t i = 0; i < n; ++i) out[i] = x[i];
  } else {
    return false;
  }
  return true;
}
}  // namespace

void pow_many(const double* x, double exponent, double* out, std::size_t n) {
  if (pow_by_arithmetic(x, exponent, out, n)) return;
#ifdef ASSAY_HAVE_LIBMVEC
  apply<Op::pow>(x, exponent, out, n);
#else
  for (std::size_t i = 0; i < n; ++i) out[i] = std::pow(x[i], exponent);
#endif
}

}  // namespace assay::metrics::detail
