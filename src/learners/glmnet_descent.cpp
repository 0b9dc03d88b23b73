// glmnet's hot loops: the column kernels (exact reads, each in a fixed order of operations, and
// the rough reads of the zero screen) and one cyclic coordinate-descent pass over a feature list
// (see glmnet_detail.hpp). Kept in one file so the pass and its reads compile together.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#endif

#include "learners/glmnet_detail.hpp"

namespace assay::learners::glmnet_detail {
namespace {

// The dense kernels: each streams columns of n doubles once, with four or eight independent
// accumulators (the sums are latency-bound otherwise). They are written with GCC's vector
// types, lane u of an accumulator being the scalar sum s[u] of the plain loop, so every CPU does
// the same operations in the same order: no fused multiply-add, the same bits. Left to the
// auto-vectoriser, the plain loops compiled to shuffles, scalar adds and stack spills (the
// accumulators did not map onto vector lanes), which made a sweep over a long column slower than
// R's Eigen code. On x86-64 GCC builds each kernel also has an AVX2 clone (one 256-bit
// instruction per four lanes) chosen at load time by the CPU's features; they were once cloned
// for "arch=haswell", which GCC selects only on a CPU that is a Haswell.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ASSAY_GLMNET_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define ASSAY_GLMNET_KERNEL
#endif

// Four doubles as one value; the unaligned variant loads and stores at any double's address.
// The helpers are always inlined, so GCC's note (-Wpsabi) that a 32-byte vector is passed
// differently with and without AVX concerns no real call; it is silenced for the rest of the file
// (GCC reports it at the end of the file, after any pop).
#pragma GCC diagnostic ignored "-Wpsabi"
typedef double Lanes4 __attribute__((vector_size(32)));
typedef double Lanes4Unaligned __attribute__((vector_size(32), aligned(8)));

[[gnu::always_inline]] inline Lanes4 load4(const double* p) {
  return *reinterpret_cast<const Lanes4Unaligned*>(p);
}
[[gnu::always_inline]] inline void store4(double* p, Lanes4 v) {
  *reinterpret_cast<Lanes4Unaligned*>(p) = v;
}
[[gnu::always_inline]] inline double sum_pairs(Lanes4 s) {
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// When X is larger than the last-level cache holds, each sweep streams the column it reads
// (`next`) from memory, and coordinate descent moves to another column every few microseconds:
// the hardware prefetcher, which must see a stream before it follows it, starts late on each. So
// the kernels then prefetch kAhead doubles ahead in the stream they read, running on into
// `ahead`, the column the pass reads after this one (nullptr: none known, or X is small, and
// nothing is prefetched). Prefetches change no arithmetic. Measured on the update kernel over
// 256 columns: with X of 15 MB, 0.32 ns per row against 0.65-0.87 without; with two such
// processes at once and X of 8 MB each, 0.35 against 0.34-0.74; one process with X of 2-8 MB
// (cache-resident) pays 0-8 % for them, hence kPrefetchBytes.
constexpr std::size_t kAhead = 512;  // 4 KiB
constexpr std::size_t kPrefetchBytes = std::size_t{8} << 20;

[[gnu::always_inline]] inline void prefetch_ahead(const double* next, const double* ahead,
                                                  std::size_t i, std::size_t n) {
  if (ahead == nullptr) return;
  const std::size_t j = i + kAhead;
  if (j < n) {
    __builtin_prefetch(next + j, 0, 3);
  } else if (j - n < n) {
    __builtin_prefetch(ahead + (j - n), 0, 3);
  }
}

// Runs step(i) over i = 0, 4, 8, ... while i + 4 <= n, prefetching for `stream` (see above) once
// per 64-byte line; returns where the scalar tail starts.
template <class Step>
[[gnu::always_inline]] inline std::size_t sweep_by_four(std::size_t n, const double* stream,
                                                        const double* ahead, Step step) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    prefetch_ahead(stream, ahead, i, n);
    step(i);
    step(i + 4);
  }
  for (; i + 4 <= n; i += 4) step(i);
  return i;
}

}  // namespace

ASSAY_GLMNET_KERNEL double dot(const double* a, const double* b, std::size_t n,
                               const double* ahead) {
  Lanes4 lo = {0, 0, 0, 0}, hi = {0, 0, 0, 0};  // s[0..3] and s[4..7]
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    prefetch_ahead(b, ahead, i, n);
    lo += load4(a + i) * load4(b + i);
    hi += load4(a + i + 4) * load4(b + i + 4);
  }
  double s0 = lo[0];
  for (; i < n; ++i) s0 += a[i] * b[i];
  return ((s0 + lo[1]) + (lo[2] + lo[3])) + sum_pairs(hi);
}

namespace {

// Σ r·x and Σ v·x² in one sweep.
ASSAY_GLMNET_KERNEL double dot_and_square(const double* r, const double* v, const double* x,
                                          std::size_t n, double& square, const double* ahead) {
  Lanes4 s = {0, 0, 0, 0}, q = {0, 0, 0, 0};
  auto step = [&](std::size_t i) __attribute__((always_inline)) {
    const Lanes4 xi = load4(x + i);
    s += load4(r + i) * xi;
    q += load4(v + i) * xi * xi;
  };
  std::size_t i = sweep_by_four(n, x, ahead, step);
  for (; i < n; ++i) {
    s[0] += r[i] * x[i];
    q[0] += v[i] * x[i] * x[i];
  }
  square = sum_pairs(q);
  return sum_pairs(s);
}

// prefetch_ahead for the four columns a sweep reads together: the last runs on into `ahead`.
[[gnu::always_inline]] inline void prefetch_four(const double* const* x, const double* ahead,
                                                 std::size_t i, std::size_t n) {
  if (ahead == nullptr) return;
  if (i + kAhead < n) {
    for (int c = 0; c < 3; ++c) __builtin_prefetch(x[c] + i + kAhead, 0, 3);
  }
  prefetch_ahead(x[3], ahead, i, n);
}

// dot of four columns in one sweep, each column's sum in dot's order (its bits), as independent
// chains; for later passes, whose zero coefficients the screen could not settle.
ASSAY_GLMNET_KERNEL void dot_four(const double* a, const double* const* x, std::size_t n, double* g,
                                  const double* ahead) {
  const double *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
  Lanes4 lo0 = {0, 0, 0, 0}, lo1 = lo0, lo2 = lo0, lo3 = lo0, hi0 = lo0, hi1 = lo0, hi2 = lo0,
         hi3 = lo0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    prefetch_four(x, ahead, i, n);
    const Lanes4 al = load4(a + i), ah = load4(a + i + 4);
    lo0 += al * load4(x0 + i);
    hi0 += ah * load4(x0 + i + 4);
    lo1 += al * load4(x1 + i);
    hi1 += ah * load4(x1 + i + 4);
    lo2 += al * load4(x2 + i);
    hi2 += ah * load4(x2 + i + 4);
    lo3 += al * load4(x3 + i);
    hi3 += ah * load4(x3 + i + 4);
  }
  double t0 = lo0[0], t1 = lo1[0], t2 = lo2[0], t3 = lo3[0];
  for (; i < n; ++i) {
    t0 += a[i] * x0[i];
    t1 += a[i] * x1[i];
    t2 += a[i] * x2[i];
    t3 += a[i] * x3[i];
  }
  g[0] = ((t0 + lo0[1]) + (lo0[2] + lo0[3])) + sum_pairs(hi0);
  g[1] = ((t1 + lo1[1]) + (lo1[2] + lo1[3])) + sum_pairs(hi1);
  g[2] = ((t2 + lo2[1]) + (lo2[2] + lo2[3])) + sum_pairs(hi2);
  g[3] = ((t3 + lo3[1]) + (lo3[2] + lo3[3])) + sum_pairs(hi3);
}

// dot_and_square of four columns in one sweep: each column's two sums take dot_and_square's
// operations in its order (the same bits), but the columns' eight sums are independent chains,
// where one column's two wait on the adds' latency. For the first pass, whose zero coefficients
// mostly stay zero, so r stays put from one column to the next.
ASSAY_GLMNET_KERNEL void dot_and_square_four(const double* r, const double* v,
                                             const double* const* x, std::size_t n, double* g,
                                             double* square, const double* ahead) {
  const double *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
  Lanes4 s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0, q0 = s0, q1 = s0, q2 = s0, q3 = s0;
  auto step = [&](std::size_t i) __attribute__((always_inline)) {
    const Lanes4 ri = load4(r + i), vi = load4(v + i);
    const Lanes4 a0 = load4(x0 + i), a1 = load4(x1 + i), a2 = load4(x2 + i), a3 = load4(x3 + i);
    s0 += ri * a0;
    q0 += vi * a0 * a0;
    s1 += ri * a1;
    q1 += vi * a1 * a1;
    s2 += ri * a2;
    q2 += vi * a2 * a2;
    s3 += ri * a3;
    q3 += vi * a3 * a3;
  };
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    prefetch_four(x, ahead, i, n);
    step(i);
    step(i + 4);
  }
  for (; i + 4 <= n; i += 4) step(i);
  for (; i < n; ++i) {
    s0[0] += r[i] * x0[i];
    q0[0] += v[i] * x0[i] * x0[i];
    s1[0] += r[i] * x1[i];
    q1[0] += v[i] * x1[i] * x1[i];
    s2[0] += r[i] * x2[i];
    q2[0] += v[i] * x2[i] * x2[i];
    s3[0] += r[i] * x3[i];
    q3[0] += v[i] * x3[i] * x3[i];
  }
  g[0] = sum_pairs(s0);
  g[1] = sum_pairs(s1);
  g[2] = sum_pairs(s2);
  g[3] = sum_pairs(s3);
  square[0] = sum_pairs(q0);
  square[1] = sum_pairs(q1);
  square[2] = sum_pairs(q2);
  square[3] = sum_pairs(q3);
}

ASSAY_GLMNET_KERNEL void axpy_weighted(double* r, const double* v, const double* x, double d,
                                       std::size_t n, const double* ahead) {
  auto step = [&](std::size_t i) __attribute__((always_inline)) {
    store4(r + i, load4(r + i) - d * load4(v + i) * load4(x + i));
  };
  // x itself is cached (its gradient was just read): what counts is the run into `ahead`.
  std::size_t i = sweep_by_four(n, x, ahead, step);
  for (; i < n; ++i) r[i] -= d * v[i] * x[i];
}

// r −= d·v∘x, then returns r·next (fused: the next coordinate's gradient is read in the same
// sweep over memory).
ASSAY_GLMNET_KERNEL double update_and_dot(double* r, const double* v, const double* x, double d,
                                          const double* next, std::size_t n, const double* ahead) {
  Lanes4 s = {0, 0, 0, 0};
  auto step = [&](std::size_t i) __attribute__((always_inline)) {
    const Lanes4 ri = load4(r + i) - d * load4(v + i) * load4(x + i);
    store4(r + i, ri);
    s += ri * load4(next + i);
  };
  std::size_t i = sweep_by_four(n, next, ahead, step);
  for (; i < n; ++i) {
    r[i] -= d * v[i] * x[i];
    s[0] += r[i] * next[i];
  }
  return sum_pairs(s);
}

// The same, also returning Σ v·next² (the next coordinate's curvature).
ASSAY_GLMNET_KERNEL double update_and_dot_square(double* r, const double* v, const double* x,
                                                 double d, const double* next, std::size_t n,
                                                 double& square, const double* ahead) {
  Lanes4 s = {0, 0, 0, 0}, q = {0, 0, 0, 0};
  auto step = [&](std::size_t i) __attribute__((always_inline)) {
    const Lanes4 ri = load4(r + i) - d * load4(v + i) * load4(x + i);
    store4(r + i, ri);
    const Lanes4 ni = load4(next + i);
    s += ri * ni;
    q += load4(v + i) * ni * ni;
  };
  std::size_t i = sweep_by_four(n, next, ahead, step);
  for (; i < n; ++i) {
    r[i] -= d * v[i] * x[i];
    s[0] += r[i] * next[i];
    q[0] += v[i] * next[i] * next[i];
  }
  square = sum_pairs(q);
  return sum_pairs(s);
}

}  // namespace

// eta += Σ b[j]·cols[j] for `count` (1 to 4) columns in one sweep over eta, each element's terms
// added in column order: the bits of one column at a time, with a quarter of eta's traffic.
ASSAY_GLMNET_KERNEL void add_scaled_columns(double* eta, const double* const* cols, const double* b,
                                            std::size_t count, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    Lanes4 e = load4(eta + i);
    for (std::size_t j = 0; j < count; ++j) e += b[j] * load4(cols[j] + i);
    store4(eta + i, e);
  }
  for (; i < n; ++i) {
    for (std::size_t j = 0; j < count; ++j) eta[i] += b[j] * cols[j][i];
  }
}

namespace {

// Rough reads, for the zero screen only: r·x̃ (and Σ v·x̃²) with x̃ the column rounded to float
// (half the bytes: on a machine whose L2 does not hold X, the reads stream it from the L3), summed
// in any order with fused multiply-adds and many independent chains. ZeroScreen::settles bounds
// how far such a sum lies from the exact kernels' g; the screen uses a rough read only to prove
// that a coefficient at 0 stays at 0, never as a value of the fit. GCC builds on CPUs with AVX-512
// only (measured there); elsewhere `rough_reads()` is false and every read is exact.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f") != 0;
  return yes;
}

// Eight floats of x from x + i, widened to doubles (exact).
__attribute__((target("avx512f"), always_inline)) inline __m512d load8(const float* x,
                                                                       std::size_t i) {
  // The all-lanes mask: the unmasked intrinsic trips -Wuninitialized in GCC 12's header.
  return _mm512_maskz_cvtps_pd(0xff, _mm256_loadu_ps(x + i));
}
// The sum of the eight lanes, through memory: GCC 12's _mm512_reduce_add_pd trips
// -Wuninitialized in its header.
__attribute__((target("avx512f"))) inline double sum_lanes(__m512d s) {
  double lanes[8];
  _mm512_storeu_pd(lanes, s);
  double sum = 0;
  for (double lane : lanes) sum += lane;
  return sum;
}

// The rough reads prefetch `ahead`, the column likely read next, one line of it per line read
// of x: short columns end before the hardware prefetcher has caught up with them.
[[gnu::always_inline]] inline void prefetch_line(const float* ahead, std::size_t i) {
  __builtin_prefetch(ahead + i, 0, 3);
}

__attribute__((target("avx512f"))) double rough_dot_512(const double* r, const float* x,
                                                        std::size_t n, const double* v,
                                                        double* square, const float* ahead) {
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, q0 = s0, q1 = s0;
  std::size_t i = 0;
  if (v == nullptr) {
    for (; i + 32 <= n; i += 32) {
      prefetch_line(ahead, i);
      prefetch_line(ahead, i + 16);
      s0 = _mm512_fmadd_pd(_mm512_loadu_pd(r + i), load8(x, i), s0);
      s1 = _mm512_fmadd_pd(_mm512_loadu_pd(r + i + 8), load8(x, i + 8), s1);
      s2 = _mm512_fmadd_pd(_mm512_loadu_pd(r + i + 16), load8(x, i + 16), s2);
      s3 = _mm512_fmadd_pd(_mm512_loadu_pd(r + i + 24), load8(x, i + 24), s3);
    }
  } else {
    for (; i + 16 <= n; i += 16) {
      prefetch_line(ahead, i);
      const __m512d x0 = load8(x, i), x1 = load8(x, i + 8);
      s0 = _mm512_fmadd_pd(_mm512_loadu_pd(r + i), x0, s0);
      s1 = _mm512_fmadd_pd(_mm512_loadu_pd(r + i + 8), x1, s1);
      q0 = _mm512_fmadd_pd(_mm512_mul_pd(_mm512_loadu_pd(v + i), x0), x0, q0);
      q1 = _mm512_fmadd_pd(_mm512_mul_pd(_mm512_loadu_pd(v + i + 8), x1), x1, q1);
    }
  }
  for (; i + 8 <= n; i += 8) {
    const __m512d xi = load8(x, i);
    s2 = _mm512_fmadd_pd(_mm512_loadu_pd(r + i), xi, s2);
    if (v != nullptr) q0 = _mm512_fmadd_pd(_mm512_mul_pd(_mm512_loadu_pd(v + i), xi), xi, q0);
  }
  double g = sum_lanes(_mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3)));
  double sq = sum_lanes(_mm512_add_pd(q0, q1));
  for (; i < n; ++i) {
    const double xi = x[i];
    g += r[i] * xi;
    if (v != nullptr) sq += v[i] * xi * xi;
  }
  if (v != nullptr) *square = sq;
  return g;
}

// r −= d·v∘x with axpy_weighted's operations (its bits: (d·v)·x, then the difference, no fused
// multiply-add), then the rough read of `next` at the new r in the same sweep.
__attribute__((target("avx512f"))) double update_and_rough_dot_512(double* r, const double* v,
                                                                   const double* x, double d,
                                                                   const float* next, std::size_t n,
                                                                   const double* v_next,
                                                                   double* square) {
  const __m512d dd = _mm512_set1_pd(d);
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, q0 = s0, q1 = s0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512d vi = _mm512_loadu_pd(v + i);
    const __m512d ri = _mm512_sub_pd(_mm512_loadu_pd(r + i),
                                     _mm512_mul_pd(_mm512_mul_pd(dd, vi), _mm512_loadu_pd(x + i)));
    _mm512_storeu_pd(r + i, ri);
    if ((i & 8) == 0 && i + 256 < n) prefetch_line(next, i + 256);
    const __m512d ni = load8(next, i);
    if ((i & 8) == 0) {
      s0 = _mm512_fmadd_pd(ri, ni, s0);
      if (v_next != nullptr) q0 = _mm512_fmadd_pd(_mm512_mul_pd(vi, ni), ni, q0);
    } else {
      s1 = _mm512_fmadd_pd(ri, ni, s1);
      if (v_next != nullptr) q1 = _mm512_fmadd_pd(_mm512_mul_pd(vi, ni), ni, q1);
    }
  }
  double g = sum_lanes(_mm512_add_pd(s0, s1));
  double sq = sum_lanes(_mm512_add_pd(q0, q1));
  for (; i < n; ++i) {
    r[i] -= d * v[i] * x[i];
    const double ni = next[i];
    g += r[i] * ni;
    if (v_next != nullptr) sq += v[i] * ni * ni;
  }
  if (v_next != nullptr) *square = sq;
  return g;
}

// rough_dot_512 of four columns in one sweep (r and v read once for the four).
__attribute__((target("avx512f"))) void rough_dot_four_512(const double* r, const float* const* x,
                                                           std::size_t n, const double* v,
                                                           double* g, double* square) {
  __m512d s[4], q[4];
  for (int c = 0; c < 4; ++c) s[c] = q[c] = _mm512_setzero_pd();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512d ri = _mm512_loadu_pd(r + i);
    const __m512d vi = v != nullptr ? _mm512_loadu_pd(v + i) : ri;
    for (int c = 0; c < 4; ++c) {
      const __m512d xi = load8(x[c], i);
      s[c] = _mm512_fmadd_pd(ri, xi, s[c]);
      if (v != nullptr) q[c] = _mm512_fmadd_pd(_mm512_mul_pd(vi, xi), xi, q[c]);
    }
  }
  for (int c = 0; c < 4; ++c) {
    double gc = sum_lanes(s[c]), sq = sum_lanes(q[c]);
    for (std::size_t t = i; t < n; ++t) {
      const double xi = x[c][t];
      gc += r[t] * xi;
      if (v != nullptr) sq += v[t] * xi * xi;
    }
    g[c] = gc;
    square[c] = sq;
  }
}

// ASSAY_GLMNET_EXACT_READS=1 turns the rough reads off: the tests compare both ways bit for bit.
bool rough_reads() {
  static const bool off = [] {
    const char* value = std::getenv("ASSAY_GLMNET_EXACT_READS");
    return value != nullptr && std::string_view(value) == "1";
  }();
  return !off && has_avx512();
}

// r·x roughly; with v, also Σ v·x² roughly in *square; prefetching `ahead` (x itself when
// none is known). Only when rough_reads().
double rough_dot(const double* r, const float* x, std::size_t n, const double* v, double* square,
                 const float* ahead) {
  return rough_dot_512(r, x, n, v, square, ahead);
}

// r −= d·v∘x (axpy_weighted's bits), then the rough read of `next` (Σ v·next² too when
// with_square), in one sweep. Only when rough_reads().
double update_and_rough_dot(double* r, const double* v, const double* x, double d,
                            const float* next, std::size_t n, bool with_square, double* square) {
  return update_and_rough_dot_512(r, v, x, d, next, n, with_square ? v : nullptr, square);
}

// rough_dot of four columns in one sweep, into g[0..3] and square[0..3].
void rough_dot_four(const double* r, const float* const* x, std::size_t n, const double* v,
                    double* g, double* square) {
  rough_dot_four_512(r, x, n, v, g, square);
}
#else
bool rough_reads() {
  return false;
}
double rough_dot(const double*, const float*, std::size_t, const double*, double*, const float*) {
  return 0;
}
void rough_dot_four(const double*, const float* const*, std::size_t, const double*, double*,
                    double*) {}
double update_and_rough_dot(double*, const double*, const double*, double, const float*,
                            std::size_t, bool, double*) {
  return 0;
}
#endif

// Σ r·x with update_and_dot's operations in its order (its bits): the read after a move when the
// update ran on its own (axpy_weighted) because a rough read came first.
ASSAY_GLMNET_KERNEL double dot_one_chain(const double* r, const double* x, std::size_t n,
                                         const double* ahead) {
  Lanes4 s = {0, 0, 0, 0};
  auto step = [&](std::size_t i) __attribute__((always_inline)) {
    s += load4(r + i) * load4(x + i);
  };
  std::size_t i = sweep_by_four(n, x, ahead, step);
  for (; i < n; ++i) s[0] += r[i] * x[i];
  return sum_pairs(s);
}

// Σ v·x² with dot_and_square's operations in its order (its bits): the curvature of a feature
// whose first-pass read was rough, once an exact read finds it may move.
ASSAY_GLMNET_KERNEL double square_one_chain(const double* v, const double* x, std::size_t n) {
  Lanes4 q = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const Lanes4 xi = load4(x + i);
    q += load4(v + i) * xi * xi;
  }
  for (; i < n; ++i) q[0] += v[i] * x[i] * x[i];
  return sum_pairs(q);
}

}  // namespace

Columns make_columns(const double* X, std::size_t n, std::size_t p) {
  Columns columns{X, n, n * p * sizeof(double) >= kPrefetchBytes, {}};
  if (rough_reads()) columns.rough.assign(X, X + n * p);
  return columns;
}

namespace {

// The column reads of one coordinate pass over `list` (see coordinate_pass): the zero screen's
// skips, the exact reads (four columns per sweep where r stands still) and the rough reads that
// settle coefficients at 0. b and r change under it as the pass goes; it writes the xv it reads.
class PassReads {
 public:
  PassReads(const std::vector<std::size_t>& list, const Columns& x, const double* b, double* xv,
            double* r, const double* v, double al1, bool with_curvature, ZeroScreen& screen)
      : list_(list),
        x_(x),
        b_(b),
        xv_(xv),
        r_(r),
        v_(v),
        al1_(al1),
        with_curvature_(with_curvature),
        screen_(screen) {}

  bool rough() const { return !x_.rough.empty(); }

  // Whether the screen proves feature k stays at 0 without a read. The first pass computes
  // every xv, so it skips nothing.
  bool skips(std::size_t k) const {
    return !with_curvature_ && b_[k] == 0 && screen_.stays_zero(k, al1_);
  }

  // The kernels' `ahead`: the first of list[from], list[from + 1], list[from + 2] the screen
  // cannot skip now (the drift only grows, so one it can skip now is likely skipped then). With
  // rough reads, a coefficient at 0 is read from the float columns, so only the columns of
  // nonzero coefficients are worth prefetching.
  const double* column_from(std::size_t from) const {
    if (!x_.prefetch) return nullptr;
    for (std::size_t c = from; c < std::min(from + 3, list_.size()); ++c) {
      if (rough() && b_[list_[c]] == 0) continue;
      if (!skips(list_[c])) return x_[list_[c]];
    }
    return nullptr;
  }

  // r moved: the grouped reads taken before no longer hold.
  void r_moved() { exact_four_.from = rough_four_.from = kNone; }

  // g of list[at] (and in the first pass its xv) at an r that has not moved since list[at - 1].
  // When the next features have coefficient 0 (so they will likely stay there, and r with them),
  // one sweep reads four columns, each with its kernel's bits; the results serve while r does
  // not move. A later pass groups only features the screen cannot skip now.
  double read_unmoved(std::size_t at, const double* ahead) {
    const std::size_t k = list_[at];
    if (!exact_four_.holds(at)) {
      exact_four_.from = kNone;
      if (!four_ahead(at)) {
        x_.count_streams(with_curvature_ ? 3 : 2);
        return with_curvature_ ? dot_and_square(r_, v_, x_[k], x_.n, xv_[k], ahead)
                               : dot(r_, x_[k], x_.n, ahead);
      }
      const double* cols[4] = {x_[k], x_[list_[at + 1]], x_[list_[at + 2]], x_[list_[at + 3]]};
      x_.count_streams(with_curvature_ ? 6 : 5);
      if (with_curvature_) {
        dot_and_square_four(r_, v_, cols, x_.n, exact_four_.g, exact_four_.square,
                            column_from(at + 4));
      } else {
        dot_four(r_, cols, x_.n, exact_four_.g, column_from(at + 4));
      }
      exact_four_.from = at;
    }
    if (with_curvature_) xv_[k] = exact_four_.square[at - exact_four_.from];
    return exact_four_.g[at - exact_four_.from];
  }

  // g of list[at] just after r moved, with the bits of the fused kernel that would have read it
  // (update_and_dot or update_and_dot_square): its rough read came first, so r was updated alone.
  double read_after_move(std::size_t at, const double* ahead) {
    const std::size_t k = list_[at];
    x_.count_streams(with_curvature_ ? 3 : 2);
    return with_curvature_ ? dot_and_square(r_, v_, x_[k], x_.n, xv_[k], ahead)
                           : dot_one_chain(r_, x_[k], x_.n, ahead);
  }

  // Whether a rough read of list[at], at 0 and not read exactly yet, proves it stays at 0 (then
  // recorded). Rough reads cost the loads, exact ones the adds' latency or the L3's bandwidth,
  // and most coefficients at 0 stay there.
  bool rough_settles(std::size_t at) {
    if (!rough() || b_[list_[at]] != 0 || exact_four_.holds(at)) return false;
    double square = 0;
    const double g_rough = rough_read(at, square);
    return settles_roughly(at, g_rough, square);
  }

  // r −= d·v∘x_j, then whether the rough read of list[at] at the new r, in the same sweep,
  // proves it stays at 0.
  bool update_and_rough_settles(std::size_t j, double d, std::size_t at) {
    double square = 0;
    x_.count_streams(4, 1);  // r read and written, v, x_j; the next column as floats
    const double g_rough = update_and_rough_dot(r_, v_, x_[j], d, x_.rough_column(list_[at]), x_.n,
                                                with_curvature_, &square);
    return settles_roughly(at, g_rough, square);
  }

 private:
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  // Four reads of list[from..from + 3] taken in one sweep.
  struct FourRead {
    std::size_t from = kNone;
    double g[4], square[4];
    bool holds(std::size_t at) const { return at >= from && at < from + 4; }
  };

  bool four_ahead(std::size_t at) const {
    if (at + 4 > list_.size()) return false;
    for (std::size_t c = at; c < at + 4; ++c) {
      if (c < at + 3 && b_[list_[c]] != 0) return false;
      if (!with_curvature_ && c > at && skips(list_[c])) return false;
    }
    return true;
  }

  // Like the exact reads, the rough ones read four columns in one sweep where the next features
  // are at 0 too; the results serve while r does not move.
  double rough_read(std::size_t at, double& square) {
    const double* v = with_curvature_ ? v_ : nullptr;
    if (!rough_four_.holds(at)) {
      rough_four_.from = kNone;
      const std::size_t k = list_[at];
      if (!four_ahead(at) || b_[list_[at + 3]] != 0) {
        const float* ahead = x_.rough_column(at + 1 < list_.size() ? list_[at + 1] : k);
        x_.count_streams(v != nullptr ? 2 : 1, 1);
        return rough_dot(r_, x_.rough_column(k), x_.n, v, &square, ahead);
      }
      const float* cols[4] = {x_.rough_column(k), x_.rough_column(list_[at + 1]),
                              x_.rough_column(list_[at + 2]), x_.rough_column(list_[at + 3])};
      x_.count_streams(v != nullptr ? 2 : 1, 4);
      rough_dot_four(r_, cols, x_.n, v, rough_four_.g, rough_four_.square);
      rough_four_.from = at;
    }
    square = rough_four_.square[at - rough_four_.from];
    return rough_four_.g[at - rough_four_.from];
  }

  // In the first pass a settled feature's xv becomes a bound (ZeroScreen::curvature_is_bound).
  bool settles_roughly(std::size_t at, double g_rough, double square) {
    const std::size_t k = list_[at];
    const double xv_bound = with_curvature_ ? screen_.curvature_bound(square) : xv_[k];
    if (!screen_.settles(k, g_rough, xv_bound, al1_)) return false;
    if (with_curvature_) {
      xv_[k] = xv_bound;
      screen_.set_curvature_bound(k, true);
    }
    return true;
  }

  const std::vector<std::size_t>& list_;
  const Columns& x_;
  const double* b_;
  double* xv_;
  double* r_;
  const double* v_;
  double al1_;
  bool with_curvature_;
  ZeroScreen& screen_;
  FourRead exact_four_, rough_four_;
};

// glmnet's update of coefficient k from its gradient g (soft-thresholding); returns the change.
// A curvature that is still only a bound (its first-pass read was rough) is computed exactly
// first, in dot_and_square's order, when the coefficient is about to leave 0.
double update_coefficient(std::size_t k, double g, const Columns& x, double* b, double* xv,
                          const double* v, double al1, double al2, ZeroScreen& screen) {
  const double bk = b[k];
  const double u = g + xv[k] * bk;
  const double au = std::abs(u) - al1;
  if (au > 0 && screen.curvature_is_bound(k)) {
    x.count_streams(2);
    xv[k] = square_one_chain(v, x[k], x.n);
    screen.set_curvature_bound(k, false);
  }
  b[k] = au > 0 ? std::copysign(au, u) / (xv[k] + al2) : 0.0;
  return b[k] - bk;
}

}  // namespace

// One cyclic coordinate-descent pass over `list` for one linear predictor (glmnet's inner
// loop): b, xv indexed by feature; r and v the working residual and weights. `with_curvature`:
// xv of each listed feature is computed in the same sweep (the first pass of an IRLS step).
// Features that move for the first time are appended to `order` when `may_enter`. Returns the
// largest xv·Δb².
double coordinate_pass(const std::vector<std::size_t>& list, const Columns& x, double* b,
                       double* xv, double* r, const double* v, double al1, double al2,
                       bool with_curvature, bool may_enter, std::vector<char>& in_active,
                       std::vector<std::size_t>& order, ZeroScreen& screen) {
  double dlx = 0;
  if (list.empty()) return dlx;
  PassReads reads(list, x, b, xv, r, v, al1, with_curvature, screen);
  bool skipped = reads.skips(list[0]) || reads.rough_settles(0);
  double g = 0;
  if (!skipped) {
    g = reads.read_unmoved(0, reads.column_from(1));
    screen.record(list[0], g, xv[list[0]]);
  }
  for (std::size_t a = 0; a < list.size(); ++a) {
    const std::size_t k = list[a];
    if (skipped) b[k] = 0.0;
    const double change = skipped ? 0.0 : update_coefficient(k, g, x, b, xv, v, al1, al2, screen);
    if (change != 0) screen.moved(change, xv[k]);
    const bool last = a + 1 == list.size();
    skipped = !last && reads.skips(list[a + 1]);
    bool read_next = !last && !skipped;
    const std::size_t k_next = read_next ? list[a + 1] : 0;
    const double* next = read_next ? x[k_next] : nullptr;
    const double* ahead = reads.column_from(a + 2);
    // A next coefficient at 0 is first read roughly, at r after this move; if that does not
    // settle it, its exact read has the bits of the fused kernel that would have read it.
    const bool rough_next = read_next && reads.rough() && b[k_next] == 0;
    bool settled = false;
    if (change != 0) {
      reads.r_moved();
      dlx = std::max(dlx, xv[k] * change * change);
      if (rough_next) {
        settled = reads.update_and_rough_settles(k, change, a + 1);
      } else if (!read_next) {
        x.count_streams(4);  // r read and written, v, x_k
        axpy_weighted(r, v, x[k], change, x.n, ahead);
      } else {
        x.count_streams(5);  // r read and written, v, x_k, the next column
        g = with_curvature ? update_and_dot_square(r, v, x[k], change, next, x.n, xv[k_next], ahead)
                           : update_and_dot(r, v, x[k], change, next, x.n, ahead);
      }
      if (may_enter && !in_active[k]) {
        in_active[k] = 1;
        order.push_back(k);
      }
    } else if (rough_next) {
      settled = reads.rough_settles(a + 1);
    }
    if (settled) {
      skipped = true;
      read_next = false;
    } else if (rough_next && change != 0) {
      g = reads.read_after_move(a + 1, ahead);
    } else if (read_next && change == 0) {
      g = reads.read_unmoved(a + 1, ahead);
    }
    if (read_next) screen.record(k_next, g, xv[k_next]);
  }
  return dlx;
}

}  // namespace assay::learners::glmnet_detail
