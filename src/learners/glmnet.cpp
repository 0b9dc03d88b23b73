// glmnet: the algorithm of glmnet's Fortran routines lognet2n (two classes) and lognetn (more
// classes, "ungrouped", type.logistic = "Newton"), step for step, so that a path matches R's to
// rounding: the same λ sequence, strong-rule screening, active-set cycles, IRLS stopping rule,
// multinomial centring and early path stop. The data are copied once per fit into a
// column-major standardised matrix so every coordinate update streams two contiguous columns.
#include "assay/learners/glmnet.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <limits>
#include <numeric>
#include <string_view>

#include <fmt/format.h>
#include <Eigen/Dense>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#endif

#include "assay/core/thread_pool.hpp"
#include "assay/core/warning.hpp"
#include "learners/model_state.hpp"

namespace assay::learners {
namespace {

// glmnet.control() defaults.
constexpr double kMinLambdaRatio = 1e-6;  // eps: smallest λ_min / λ_max
constexpr double kMinDevChange = 1e-5;    // fdev: path stops when dev.ratio gains less
constexpr double kMaxDevRatio = 0.999;    // devmax: path stops above this dev.ratio
constexpr std::size_t kMinLambdas = 5;    // mnlam: no early stop before this many λ
constexpr double kPmin = 1e-9;            // pmin: probabilities clamped to [pmin, 1 − pmin]
constexpr double kMaxLink = 250;          // exmx: multinomial links clamped to ±exmx
constexpr double kBig = 9.9e35;           // big: the first generated λ ("infinity")
// cv.glmnet's deviance clamps held-out probabilities to [1e-5, 1 − 1e-5].
constexpr double kCvProbMin = 1e-5;

// The train rows with positive weight, standardised (glmnet's lstandard1).
struct Design {
  std::size_t n = 0, p = 0;
  /// Column-major n x p, (x − mean) / scale; all zero in columns that do not vary.
  std::vector<double> x;
  std::vector<double> mean, scale;
  std::vector<char> varies;
  /// Row weights normalised to sum 1.
  std::vector<double> w;
  /// Index into `classes` per row.
  std::vector<int> y;
  /// Codes of the classes with positive weight, ascending.
  std::vector<int> classes;
  double weight_sum = 0;
};

Design make_design(const Dataset& data, std::span<const std::uint32_t> rows) {
  ASSAY_ASSERT(data.task == TaskKind::classification);
  const std::size_t p = data.n_features;
  const std::size_t n_classes = data.n_classes();
  std::vector<std::uint32_t> kept;
  kept.reserve(rows.size());
  std::vector<double> class_weight(n_classes, 0.0);
  for (std::uint32_t i : rows) {
    const double wi = data.weights.empty() ? 1.0 : data.weights[i];
    if (wi > 0) {
      kept.push_back(i);
      class_weight[static_cast<std::size_t>(data.y_class[i])] += wi;
    }
  }
  Design d;
  d.n = kept.size();
  d.p = p;
  std::vector<int> index_of(n_classes, -1);
  for (std::size_t c = 0; c < n_classes; ++c) {
    if (class_weight[c] > 0) {
      index_of[c] = static_cast<int>(d.classes.size());
      d.classes.push_back(static_cast<int>(c));
    }
  }
  if (d.classes.empty()) {
    throw LearnerFailure(fmt::format("the {} train rows have total weight 0", rows.size()));
  }
  if (d.classes.size() == 1) {
    throw LearnerFailure(
        fmt::format("glmnet needs at least two classes in the train rows, found only class {}",
                    quote_found(data.classes[static_cast<std::size_t>(d.classes[0])])));
  }
  d.w.resize(d.n);
  d.y.resize(d.n);
  for (std::size_t r = 0; r < d.n; ++r) {
    const std::uint32_t i = kept[r];
    d.w[r] = data.weights.empty() ? 1.0 : data.weights[i];
    d.weight_sum += d.w[r];
    d.y[r] = index_of[static_cast<std::size_t>(data.y_class[i])];
  }
  for (double& wi : d.w) wi /= d.weight_sum;
  // Transpose in blocks of rows so that the writes to p columns stay in cache.
  d.x.resize(d.n * p);
  constexpr std::size_t kBlock = 64;
  for (std::size_t r0 = 0; r0 < d.n; r0 += kBlock) {
    const std::size_t r1 = std::min(d.n, r0 + kBlock);
    for (std::size_t j = 0; j < p; ++j) {
      double* col = d.x.data() + j * d.n;
      for (std::size_t r = r0; r < r1; ++r) col[r] = data.x[kept[r] * p + j];
    }
  }
  d.mean.assign(p, 0.0);
  d.scale.assign(p, 1.0);
  d.varies.assign(p, 0);
  for (std::size_t j = 0; j < p; ++j) {
    double* col = d.x.data() + j * d.n;
    const double first = col[0];
    bool varies = false;
    double m = 0;
    for (std::size_t r = 0; r < d.n; ++r) {
      varies |= col[r] != first;
      m += d.w[r] * col[r];
    }
    if (!varies) {
      std::fill(col, col + d.n, 0.0);
      continue;
    }
    double ss = 0;
    for (std::size_t r = 0; r < d.n; ++r) {
      col[r] -= m;
      ss += d.w[r] * col[r] * col[r];
    }
    const double s = std::sqrt(ss);
    const double inv = 1.0 / s;
    for (std::size_t r = 0; r < d.n; ++r) col[r] *= inv;
    d.varies[j] = 1;
    d.mean[j] = m;
    d.scale[j] = s;
  }
  return d;
}

// A path on the standardised scale, stored as glmnet stores it: features in order of entry
// into the active set, and per λ the coefficients of the first n_active of them.
struct StdPath {
  std::size_t k = 1;  // linear predictors
  std::vector<double> lambdas;
  std::vector<std::size_t> order;
  std::vector<std::size_t> n_active;
  std::vector<double> a0;                 // L x k
  std::vector<std::vector<double>> beta;  // per λ: n_active x k, feature-major
  std::vector<double> dev_ratio;
  double dev0 = 0;  // null deviance / 2 per unit weight
  std::size_t passes = 0;
  std::uint64_t streamed_bytes = 0;  // Columns::streamed at the end of the fit
  // Why the path stopped early (maxit reached), or "": callers warn, in task order when fits
  // run in parallel, so the warnings do not depend on timing.
  std::string warning;
};

struct PathSettings {
  double alpha = 1;
  double thresh = 1e-7;
  std::size_t max_passes = 100000;
  /// Given λ values (decreasing); empty = generate n_lambda values down to ratio·λ_max.
  std::span<const double> lambdas;
  std::size_t n_lambda = 100;
  double ratio = 1e-4;
};

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

ASSAY_GLMNET_KERNEL double dot(const double* a, const double* b, std::size_t n,
                               const double* ahead = nullptr) {
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

// The standardised design, column-major: column k is data + k·n. `prefetch`: whether the kernels
// prefetch the columns ahead (when X is too big to stay in the last-level cache; see kAhead).
struct Columns {
  const double* data;
  std::size_t n;
  bool prefetch;
  // The same columns rounded to float for the rough reads (half the bytes); empty when the CPU
  // has no rough reads.
  std::vector<float> rough;
  // Bytes the column kernels streamed over this fit: each array of n values a call reads or
  // writes counts once (a read-and-write twice). Counted by the callers, once per kernel call
  // (not in the kernels, where a thread-local counter cost a call per sweep); a statistic for
  // the bench, so it may change under const access.
  mutable std::uint64_t streamed = 0;
  const double* operator[](std::size_t k) const { return data + k * n; }
  const float* rough_column(std::size_t k) const { return rough.data() + k * n; }
  void count_streams(std::size_t doubles, std::size_t floats = 0) const {
    streamed += n * (doubles * sizeof(double) + floats * sizeof(float));
  }
};

// eta += Σ scale_j·column_j over the columns added, zero scales skipped, four columns per sweep
// (add_scaled_columns), each element's terms in the order added: the links' fixed order.
class ScaledColumnSum {
 public:
  // `counted`: the fit's columns, whose stream count the sweeps add to (nullptr: not counted).
  ScaledColumnSum(double* eta, std::size_t n, const Columns* counted = nullptr)
      : eta_(eta), n_(n), counted_(counted) {}
  void add(const double* column, double scale) {
    if (scale == 0) return;
    columns_[count_] = column;
    scales_[count_++] = scale;
    if (count_ == 4) finish();
  }
  // Adds the columns still held; call once all are added.
  void finish() {
    if (count_ > 0) {
      add_scaled_columns(eta_, columns_, scales_, count_, n_);
      if (counted_ != nullptr) counted_->count_streams(2 + count_);  // eta read and written
    }
    count_ = 0;
  }

 private:
  double* eta_;
  std::size_t n_, count_ = 0;
  const Columns* counted_;
  const double* columns_[4];
  double scales_[4];
};

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

double sum(const double* a, std::size_t n) {
  double s0 = 0, s1 = 0;
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    s0 += a[i];
    s1 += a[i + 1];
  }
  for (; i < n; ++i) s0 += a[i];
  return s0 + s1;
}

// Skips the gradient of a feature that provably stays at zero, with the same bits as computing it.
//
// A coefficient at 0 moves only when |g| > al1 (g = r·x_k), and a pass uses its g for nothing
// else. Since g was last computed, coordinate updates moved r by d·v∘x_j (the intercept by d·v),
// each changing g by d·Σ v x_j x_k, at most |d|·‖x_j‖_v·‖x_k‖_v (Cauchy–Schwarz with weights
// v ≥ 0; ‖x‖_v² = Σ v x² is the curvature xv already at hand, Σ v for the intercept). With
// `drift` the running sum of |d|·‖x_j‖_v: |g now| ≤ |g then| + ‖x_k‖_v·(drift now − drift then),
// plus each dot product's rounding (≤ γ_n·‖r‖₂·‖x_k‖₂; ‖r‖₂ is bounded by its size at the first
// pass plus the running sum of ‖Δr‖₂ ≤ |d|·√max v·‖x_j‖_v) and the rounding of each update of r
// itself (≤ u·(1.02‖r‖₂ + 2.02‖Δr‖₂) in 2-norm, so ·‖x_k‖₂ on g). Below al1, the pass would compute
// g and leave the coefficient at 0, so the sweep over x_k is skipped. Most of a pass's features are
// such zeros, and a sweep streams a column from memory. v is fixed within one coordinate descent;
// `start` (at its first pass, which computes every xv) begins afresh.
class ZeroScreen {
 public:
  ZeroScreen(const double* X, std::size_t n, std::size_t p)
      : n_(n),
        rel_(static_cast<double>(n + 16) * 2.3e-16),
        column_norm_(p),
        g_(p),
        at_(p),
        v_norm_(p),
        known_(p, 0),
        curvature_bound_(p, 0) {
    for (std::size_t k = 0; k < p; ++k) {
      const double* x = X + k * n;
      double squares = 0;
      for (std::size_t i = 0; i < n; ++i) squares += x[i] * x[i];
      column_norm_[k] = std::sqrt(squares * (1 + rel_));
    }
  }

  void start(const double* r, const double* v) {
    std::fill(known_.begin(), known_.end(), 0);
    std::fill(curvature_bound_.begin(), curvature_bound_.end(), 0);
    double squares = 0, v_max = 0, v_sum = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      squares += r[i] * r[i];
      v_max = std::max(v_max, v[i]);
      v_sum += v[i];
    }
    r_norm_ = std::sqrt(squares * (1 + rel_));
    sqrt_v_max_ = std::sqrt(v_max);
    v_sum_ = v_sum;
    drift_ = 0;
    update_rounding_ = 0;
    moves_ = 0;
  }

  // g = r·x_k, computed now; xv_k its curvature, fixed until the next start.
  void record(std::size_t k, double g, double xv_k) {
    g_[k] = g;
    at_[k] = drift_;
    v_norm_[k] = v_norm(xv_k);
    known_[k] = 1;
  }

  // Whether feature k, at 0, stays at 0 by a rough read: rough_g = r·x̃_k summed in any order,
  // x̃_k being x_k rounded to float (|x − x̃| ≤ 2⁻²⁴|x| + 2⁻¹⁴⁹), so within
  // (2⁻²⁴ + rel)·‖r‖₂‖x_k‖₂ + √n·‖r‖₂·2⁻¹⁴⁹ of r·x_k and a little further from the exact kernels'
  // g; xv_bound ≥ its curvature. If so, records the largest |g| that read allows, as record()
  // would the exact one.
  bool settles(std::size_t k, double rough_g, double xv_bound, double al1) {
    const double float_part =
        kFloatUnit * column_norm_[k] + std::sqrt(static_cast<double>(n_)) * kFloatTiny;
    const double slack =
        (float_part + 2 * rel_ * column_norm_[k]) * r_norm_ + 2 * static_cast<double>(n_) * kTiny;
    const double g_bound = (std::abs(rough_g) + slack) * (1 + 1e-14);
    if (!(g_bound < al1)) return false;
    record(k, g_bound, xv_bound);
    return true;
  }

  // An upper bound of Σ v·x_k² from a rough sum of its n nonnegative terms v·x̃²
  // (x² ≤ x̃²·(1 + 2⁻²⁴)⁻², or below 2⁻²⁹⁸ where x̃ underflowed to 0).
  double curvature_bound(double rough_square) const {
    return rough_square * (1 + 2 * rel_ + 3 * kFloatUnit) + static_cast<double>(n_) * kTiny;
  }

  // Whether xv_k is still only curvature_bound's bound: its first-pass read was rough, and no
  // exact read since has found the coefficient may move. Such a coefficient is at 0 since that
  // pass, so until it moves its xv enters no update, no dlx and no IRLS check (xv·0 = 0).
  bool curvature_is_bound(std::size_t k) const { return curvature_bound_[k] != 0; }
  void set_curvature_bound(std::size_t k, bool is_bound) { curvature_bound_[k] = is_bound; }

  // r −= d·v∘x_j for a feature with curvature xv_j.
  void moved(double d, double xv_j) { add_move(std::abs(d) * v_norm(xv_j)); }
  // r −= d·v (the intercept).
  void intercept_moved(double d) { add_move(std::abs(d) * v_norm(v_sum_)); }

  // Whether feature k, now at 0, would stay at 0 (false when unsure).
  bool stays_zero(std::size_t k, double al1) const {
    if (!known_[k]) return false;
    // fl(drift) may fall short of the exact sum of its moves by (moves + 4)·u·drift.
    const double drift_slack = drift_ * static_cast<double>(moves_ + 4) * 2.3e-16;
    const double change = v_norm_[k] * (drift_ - at_[k] + drift_slack);
    const double rounding = (4 * rel_ * r_norm_ + 2 * update_rounding_) * column_norm_[k] +
                            static_cast<double>(n_) * kTiny;
    return (std::abs(g_[k]) + change + rounding) * (1 + 1e-14) < al1;
  }

 private:
  // An upper bound of ‖x‖_v from its computed square: sums of n nonnegative products, each of
  // which may also have underflowed.
  double v_norm(double squares) const {
    return std::sqrt(squares * (1 + rel_) + static_cast<double>(n_) * kTiny);
  }

  void add_move(double v_norm_step) {
    drift_ += v_norm_step;
    const double step = sqrt_v_max_ * v_norm_step;  // >= ‖Δr‖₂
    const double rounding = kUnit * (1.02 * (r_norm_ + step) + 2.02 * step);
    r_norm_ = (r_norm_ + step + rounding) * (1 + 1e-14);
    update_rounding_ += rounding;  // since start: at least the part since any g was recorded
    ++moves_;
  }

  static constexpr double kTiny = 4 * std::numeric_limits<double>::min();
  static constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;
  static constexpr double kFloatUnit = std::numeric_limits<float>::epsilon() / 2;  // 2⁻²⁴
  static constexpr double kFloatTiny = std::numeric_limits<float>::denorm_min();   // 2⁻¹⁴⁹
  std::size_t n_;
  double rel_;  // γ_n with room: the relative rounding of an n-term sum of products
  std::vector<double> column_norm_, g_, at_, v_norm_;
  std::vector<char> known_, curvature_bound_;
  double r_norm_ = 0, sqrt_v_max_ = 0, v_sum_ = 0, drift_ = 0, update_rounding_ = 0;
  std::size_t moves_ = 0;
};

Columns make_columns(const double* X, std::size_t n, std::size_t p) {
  Columns columns{X, n, n * p * sizeof(double) >= kPrefetchBytes, {}};
  if (rough_reads()) columns.rough.assign(X, X + n * p);
  return columns;
}

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

// The λ of step `ilm` (glmnet: the first generated λ is "infinite", the second λ_max·alf where
// λ_max comes from the gradient at the null model, then ×alf each step).
struct LambdaSequence {
  const PathSettings& s;
  double alf = 1;
  double lambda_max = 0;
  explicit LambdaSequence(const PathSettings& settings) : s(settings) {
    if (s.lambdas.empty() && s.n_lambda > 1) {
      alf = std::pow(std::max(kMinLambdaRatio, s.ratio), 1.0 / static_cast<double>(s.n_lambda - 1));
    }
  }
  std::size_t count() const { return s.lambdas.empty() ? s.n_lambda : s.lambdas.size(); }
  bool generated() const { return s.lambdas.empty(); }
  // Returns (λ, λ_previous for the strong rule).
  std::pair<double, double> next(std::size_t ilm, double previous, const std::vector<double>& ga,
                                 const std::vector<char>& varies) {
    if (!generated()) return {s.lambdas[ilm], previous};
    if (ilm == 0) return {kBig, previous};
    if (ilm == 1) {
      double g = 0;
      for (std::size_t j = 0; j < ga.size(); ++j)
        if (varies[j]) g = std::max(g, ga[j]);
      lambda_max = g / std::max(s.alpha, 1e-3);
      return {alf * lambda_max, lambda_max};
    }
    return {previous * alf, previous};
  }
};

// Stores λ step `ilm`; returns false when the path stops here (glmnet's rules).
bool record_step(StdPath& out, const LambdaSequence& seq, double lambda, double dev_ratio,
                 const std::vector<double>& b0, const std::vector<double>& b,
                 const std::vector<std::size_t>& order, std::size_t p) {
  const std::size_t k = out.k;
  out.lambdas.push_back(lambda);
  out.n_active.push_back(order.size());
  for (std::size_t c = 0; c < k; ++c) out.a0.push_back(b0[c]);
  std::vector<double> beta(order.size() * k);
  for (std::size_t a = 0; a < order.size(); ++a)
    for (std::size_t c = 0; c < k; ++c) beta[a * k + c] = b[c * p + order[a]];
  out.beta.push_back(std::move(beta));
  out.dev_ratio.push_back(dev_ratio);
  const std::size_t l = out.lambdas.size();
  if (!seq.generated() || l < std::min(kMinLambdas, seq.count())) return true;
  if (out.dev_ratio[l - 1] - out.dev_ratio[l - 2] < kMinDevChange) return false;
  if (out.dev_ratio[l - 1] > kMaxDevRatio) return false;
  return true;
}

void finish_lambdas(StdPath& out, const LambdaSequence& seq) {
  // R reports λ_max where the Fortran used "infinity" (glmnet's fix.lam).
  if (seq.generated() && !out.lambdas.empty()) out.lambdas[0] = seq.lambda_max;
}

// Glossary: the paths below keep the names of glmnet's Fortran (lognet2n, lognetn) so that they
// can be read side by side with it.
//   ilm          index of the λ step;  al: its λ;  al0: the previous λ (for the strong rule)
//   al1, al2     the L1 and L2 parts of the penalty: λα and λ(1 − α)  (om = 1 − α)
//   tlam         strong-rule threshold α(2λ − λ_previous): features with ga above it are screened
//   in ga           |gradient| of each feature at the current fit (strong rule and KKT check) b0, b
//   intercept(s) and coefficients (class-major: b[c·p + j]); bs0, bs: their values at
//                the start of the IRLS step
//   v, r         IRLS weights w·q(1 − q) and working residual w·(y − q)
//   q            binomial: fitted probability, then the link during the refit; multinomial:
//                exp(link) per class, with sxp their sum over the classes per row
//   xmz          Σ v: the intercept's curvature;  xv: each coefficient's curvature Σ v·x²
//   dlx          largest xv·Δb² of a pass: the convergence measure;  shr: its threshold
//                (thresh × null deviance)
//   nlp          coordinate passes so far; maxit = PathSettings::max_passes
//   dev0, dev1, devi   null deviance, deviance of the intercept-only fit, deviance at the step
//   pmin, vmin, fmin/fmax, emin/emax, pfm/pfx   glmnet's clamps of probabilities, weights, links

// The passes ran out at λ step `ilm` (glmnet's maxit), as R's glmnet reports it: a warning
// (returned), and the solutions for the larger λ are kept (a failure when there are none).
std::string pass_limit_reached(std::size_t ilm, const PathSettings& s) {
  if (ilm == 0) {
    throw LearnerFailure(fmt::format(
        "glmnet did not converge at the first λ within {} passes (max_passes)", s.max_passes));
  }
  return fmt::format(
      "glmnet did not converge at λ number {} within {} passes (max_passes); the path stops "
      "at λ number {}, as R's glmnet does",
      ilm + 1, s.max_passes, ilm);
}

// glmnet's coordinate descent for one linear predictor at one IRLS step: full passes over the
// strong set (the first also computes the curvatures), each followed by passes over the active
// set until they settle. `pass(list, first, may_enter)` runs one pass and returns its dlx.
// Returns false when the passes exceed the budget (then the path stops).
template <typename Pass>
bool coordinate_descent(Pass&& pass, const std::vector<std::size_t>& strong_list,
                        const std::vector<std::size_t>& order, double shr, std::size_t max_passes,
                        std::size_t& nlp) {
  for (bool first = true;; first = false) {
    ++nlp;
    if (pass(strong_list, first, true) < shr) return true;
    if (nlp > max_passes) return false;
    for (;;) {
      ++nlp;
      if (pass(order, false, false) < shr) break;
      if (nlp > max_passes) return false;
    }
  }
}

// How the IRLS loop at one λ ended.
enum class LambdaOutcome {
  converged,   // record the step; the path goes on unless glmnet's early-stop rules say not
  stop_path,   // record the step, then stop (the weights collapsed: xmz <= vmin)
  pass_limit,  // maxit reached: the step is not recorded and the path stops
};

// What both paths share: the design, the λ sequence, the strong and active sets and the pass
// count. Derived paths fill `out` step by step.
class PathCommon {
 public:
  virtual ~PathCommon() = default;

  // glmnet's λ loop: the strong rule, the IRLS at λ, the step recorded unless the passes ran
  // out; the path stops early by glmnet's rules (record_step) or when an IRLS says so.
  StdPath run() {
    for (std::size_t ilm = 0; ilm < seq.count(); ++ilm) {
      start_lambda(ilm);
      const LambdaOutcome outcome = irls();
      if (outcome == LambdaOutcome::pass_limit) {
        out.warning = pass_limit_reached(ilm, s);
        break;
      }
      const bool go_on = record_step(out, seq, al, (dev1 - deviance()) / dev0, b0, b, order, p);
      if (outcome == LambdaOutcome::stop_path || !go_on) break;
    }
    return finish();
  }

 protected:
  // IRLS at the current λ until it converges, the weights collapse or the passes run out.
  virtual LambdaOutcome irls() = 0;
  // The deviance of the current fit (devi).
  virtual double deviance() const = 0;

  PathCommon(const Design& design, const PathSettings& settings)
      : d(design),
        s(settings),
        n(design.n),
        p(design.p),
        X(design.x.data()),
        w(design.w.data()),
        ga(design.p, 0.0),
        strong(design.p, 0),
        in_active(design.p, 0),
        seq(settings),
        screen(X, n, p),
        columns(make_columns(X, n, p)) {}

  // λ of step ilm and the strong rule: features whose gradient exceeds tlam join the strong set.
  void start_lambda(std::size_t ilm) {
    double al0;
    std::tie(al, al0) = seq.next(ilm, al, ga, d.varies);
    al1 = al * s.alpha;
    al2 = al * (1 - s.alpha);
    const double tlam = s.alpha * (2 * al - al0);
    for (std::size_t k = 0; k < p; ++k)
      if (!strong[k] && d.varies[k] && ga[k] > tlam) strong[k] = 1;
  }

  void list_strong() {
    strong_list.clear();
    for (std::size_t k = 0; k < p; ++k)
      if (strong[k]) strong_list.push_back(k);
  }

  // One pass for the predictor with coefficients bc, curvatures xvc and intercept b0c, then the
  // intercept's own update; returns dlx.
  double pass(const std::vector<std::size_t>& list, bool first, bool may_enter, double* bc,
              double* xvc, double& b0c, double xmz) {
    if (first) screen.start(r.data(), v.data());
    double dlx = coordinate_pass(list, columns, bc, xvc, r.data(), v.data(), al1, al2, first,
                                 may_enter, in_active, order, screen);
    const double d0 = sum(r.data(), n) / xmz;
    if (d0 != 0) {
      screen.intercept_moved(d0);
      b0c += d0;
      dlx = std::max(dlx, xmz * d0 * d0);
      for (std::size_t i = 0; i < n; ++i) r[i] -= d0 * v[i];
    }
    return dlx;
  }

  // eta = b0c + Σ_active bc_k x_k.
  void linear_predictor(double b0c, const double* bc, std::vector<double>& eta) const {
    std::fill(eta.begin(), eta.end(), b0c);
    ScaledColumnSum sum(eta.data(), n, &columns);
    for (std::size_t k : order) sum.add(X + k * n, bc[k]);
    sum.finish();
  }

  StdPath finish() {
    out.order = order;
    out.passes = nlp;
    out.streamed_bytes = columns.streamed;
    finish_lambdas(out, seq);
    return std::move(out);
  }

  const Design& d;
  const PathSettings& s;
  const std::size_t n, p;
  const double* X;
  const double* w;
  std::vector<double> ga, v, r;
  std::vector<char> strong, in_active;
  std::vector<std::size_t> order, strong_list;
  LambdaSequence seq;
  ZeroScreen screen;
  Columns columns;
  double al = 0, al1 = 0, al2 = 0;
  std::size_t nlp = 0;
  // Intercepts and coefficients (class-major), their values at the IRLS step's start, and the
  // coefficients' curvatures; the deviances and the convergence threshold (see the glossary).
  std::vector<double> b0, bs0, b, bs, xv;
  double dev0 = 0, dev1 = 0, shr = 0;
  StdPath out;
};

// lognet2n: two classes, y = 1 for the second class.
class BinomialPath final : public PathCommon {
 public:
  BinomialPath(const Design& design, const PathSettings& settings)
      : PathCommon(design, settings), y(design.n), q(design.n) {
    start_at_intercept();
  }

 private:
  // The intercept-only fit: q0 = the second class's weight share, its link, residuals, ga.
  void start_at_intercept() {
    for (std::size_t i = 0; i < n; ++i) y[i] = d.y[i] == 1 ? 1.0 : 0.0;
    const double q0 = dot(w, y.data(), n);
    columns.count_streams(2);
    if (!(q0 > kPmin) || !(q0 < pmax)) {
      throw LearnerFailure(
          fmt::format("glmnet: a class has weight share {} of the train rows, below {}",
                      std::min(q0, 1 - q0), kPmin));
    }
    const double bz = std::log(q0 / (1 - q0));
    b0 = {bz};
    bs0 = {bz};
    b.assign(p, 0.0);
    bs.assign(p, 0.0);
    xv.assign(p, 0.0);
    std::fill(q.begin(), q.end(), q0);
    v.resize(n);
    r.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = q0 * (1 - q0) * w[i];
      r[i] = w[i] * (y[i] - q0);
    }
    xmz = q0 * (1 - q0);
    dev1 = -(bz * q0 + std::log(1 - q0));
    dev0 = dev1;
    out.k = 1;
    out.dev0 = dev0;
    shr = s.thresh * dev0;
    for (std::size_t j = 0; j < p; ++j) {
      if (!d.varies[j]) continue;
      ga[j] = std::abs(dot(r.data(), X + j * n, n));
      columns.count_streams(2);
    }
  }

  // IRLS at the current λ: coordinate descent, new working response, until the coefficients
  // stop moving and no feature outside the strong set violates the KKT conditions.
  LambdaOutcome irls() override {
    for (;;) {
      bs0[0] = b0[0];
      for (std::size_t k : order) bs[k] = b[k];
      list_strong();
      auto one_pass = [&](const std::vector<std::size_t>& list, bool first, bool may_enter) {
        return pass(list, first, may_enter, b.data(), xv.data(), b0[0], xmz);
      };
      if (!coordinate_descent(one_pass, strong_list, order, shr, s.max_passes, nlp)) {
        return LambdaOutcome::pass_limit;
      }
      if (!refit_weights()) return LambdaOutcome::stop_path;
      for (std::size_t i = 0; i < n; ++i) r[i] = w[i] * (y[i] - q[i]);
      if (moved()) continue;
      if (!kkt_violations_enter()) return LambdaOutcome::converged;
    }
  }

  // q, v and xmz at the new coefficients; false when the weights collapse (xmz <= vmin).
  bool refit_weights() {
    std::vector<double>& eta = q;  // the link, replaced in place by the probability
    linear_predictor(b0[0], b.data(), eta);
    xmz = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double fi = eta[i];
      q[i] = fi < fmin ? 0.0 : fi > fmax ? 1.0 : 1 / (1 + std::exp(-fi));
      v[i] = w[i] * q[i] * (1 - q[i]);
      xmz += v[i];
    }
    return xmz > vmin;
  }

  bool moved() const {
    if (xmz * (b0[0] - bs0[0]) * (b0[0] - bs0[0]) >= shr) return true;
    for (std::size_t k : order) {
      if (xv[k] * (b[k] - bs[k]) * (b[k] - bs[k]) >= shr) return true;
    }
    return false;
  }

  // KKT check of the features outside the strong set; those in violation join it.
  bool kkt_violations_enter() {
    bool entered = false;
    for (std::size_t k = 0; k < p; ++k) {
      if (strong[k] || !d.varies[k]) continue;
      ga[k] = std::abs(dot(r.data(), X + k * n, n));
      columns.count_streams(2);
      if (ga[k] > al1) {
        strong[k] = 1;
        entered = true;
      }
    }
    return entered;
  }

  double deviance() const override {
    double devi = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double pi = std::min(std::max(kPmin, q[i]), pmax);
      // y is 0 or 1 and both logs are finite, so the other class's term is a signed zero that
      // leaves the sum's bits unchanged: one log per row instead of two.
      devi -= w[i] * (y[i] == 1.0 ? std::log(pi) : std::log(1 - pi));
    }
    return devi;
  }

  static constexpr double pmax = 1 - kPmin;
  static constexpr double vmin = (1 + kPmin) * kPmin * (1 - kPmin);
  const double fmax = std::log(1 / kPmin - 1), fmin = -fmax;
  std::vector<double> y, q;
  double xmz = 0;
};

StdPath binomial_path(const Design& d, const PathSettings& s) {
  return BinomialPath(d, s).run();
}

// glmnet's elc: the shift s minimising Σ_c [(1−α)/2 (a_c − s)² + α |a_c − s|], by which each
// feature's class coefficients are centred (any shift gives the same probabilities).
double centring_shift(double alpha, std::vector<double> a) {
  const std::size_t n = a.size();
  const double mean = std::accumulate(a.begin(), a.end(), 0.0) / static_cast<double>(n);
  if (alpha == 0 || n == 2) return mean;
  std::sort(a.begin(), a.end());
  if (a.front() == a.back()) return a.front();
  if (alpha == 1) return n % 2 == 1 ? a[n / 2] : 0.5 * (a[n / 2] + a[n / 2 - 1]);
  // Strictly convex and piecewise quadratic: a stationary point inside an interval between
  // sorted values, or else the best breakpoint.
  const double r = alpha / ((1 - alpha) * static_cast<double>(n));
  for (std::size_t below = 0; below <= n; ++below) {
    const double s = mean - r * (static_cast<double>(below) - static_cast<double>(n - below));
    const bool above_lo = below == 0 || s > a[below - 1];
    const bool below_hi = below == n || s < a[below];
    if (above_lo && below_hi) return s;
  }
  double best = a[0], best_value = std::numeric_limits<double>::infinity();
  for (double s : a) {
    double value = 0;
    for (double x : a) value += 0.5 * (1 - alpha) * (x - s) * (x - s) + alpha * std::abs(x - s);
    if (value < best_value) {
      best_value = value;
      best = s;
    }
  }
  return best;
}

// lognetn: K ≥ 3 classes, one penalised linear predictor per class.
class MultinomialPath final : public PathCommon {
 public:
  MultinomialPath(const Design& design, const PathSettings& settings)
      : PathCommon(design, settings),
        nc(design.classes.size()),
        q(nc * design.n),
        sxp(design.n, 0.0),
        eta(design.n),
        di(design.n),
        shift_buf(nc) {
    b0.assign(nc, 0.0);
    bs0.assign(nc, 0.0);
    b.assign(nc * p, 0.0);
    bs.assign(nc * p, 0.0);
    xv.assign(nc * p, 0.0);
    v.resize(n);
    r.resize(n);
    start_at_intercepts();
  }

 private:
  // The intercept-only fit: log class shares (centred), q = their exponentials, ga = the largest
  // gradient over the classes.
  void start_at_intercepts() {
    for (std::size_t c = 0; c < nc; ++c) {
      double q0 = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (d.y[i] == static_cast<int>(c)) q0 += w[i];
      if (!(q0 > kPmin) || !(q0 < pmax)) {
        throw LearnerFailure(
            fmt::format("glmnet: a class has weight share {} of the train rows, outside ({}, {})",
                        q0, kPmin, pmax));
      }
      b0[c] = std::log(q0);
      dev1 -= q0 * b0[c];
    }
    dev0 = dev1;
    const double m = std::accumulate(b0.begin(), b0.end(), 0.0) / static_cast<double>(nc);
    for (double& x : b0) x -= m;
    for (std::size_t c = 0; c < nc; ++c) {
      const double e = std::exp(b0[c]);
      for (std::size_t i = 0; i < n; ++i) {
        q[c * n + i] = e;
        sxp[i] += e;
      }
    }
    for (std::size_t c = 0; c < nc; ++c) {
      residual(c);
      for (std::size_t j = 0; j < p; ++j) {
        if (!d.varies[j]) continue;
        ga[j] = std::max(ga[j], std::abs(dot(r.data(), X + j * n, n)));
        columns.count_streams(2);
      }
    }
    out.k = nc;
    out.dev0 = dev0;
    shr = s.thresh * dev0;
  }

  void residual(std::size_t c) {
    for (std::size_t i = 0; i < n; ++i)
      r[i] = w[i] * ((d.y[i] == static_cast<int>(c) ? 1.0 : 0.0) - q[c * n + i] / sxp[i]);
  }

  // IRLS at the current λ: sweeps over the classes (each one a coordinate descent), centring,
  // until no class moves and no feature outside the strong set violates the KKT conditions.
  LambdaOutcome irls() override {
    for (;;) {
      moved = false;
      any_class = false;
      list_strong();
      for (std::size_t c = 0; c < nc; ++c) {
        if (!fit_class(c)) return LambdaOutcome::pass_limit;
      }
      centre();
      if (!any_class) return LambdaOutcome::stop_path;
      if (moved) continue;
      if (!kkt_violations_enter()) return LambdaOutcome::converged;
    }
  }

  // One class's coordinate descent with the other classes fixed, then its new exp(link). A class
  // whose weights collapsed (xmz <= vmin) is skipped. False when the passes ran out.
  bool fit_class(std::size_t c) {
    bs0[c] = b0[c];
    for (std::size_t k : order) bs[c * p + k] = b[c * p + k];
    const double xmz = class_weights(c);
    if (xmz <= vmin) return true;
    any_class = true;
    double* bc = b.data() + c * p;
    double* xvc = xv.data() + c * p;
    auto one_pass = [&](const std::vector<std::size_t>& list, bool first, bool may_enter) {
      return pass(list, first, may_enter, bc, xvc, b0[c], xmz);
    };
    if (!coordinate_descent(one_pass, strong_list, order, shr, s.max_passes, nlp)) return false;
    if (!moved) moved = class_moved(c, xmz);
    update_class_links(c);
    return true;
  }

  // v and r of class c at the current probabilities (clamped at pfm, pfx); returns xmz.
  double class_weights(std::size_t c) {
    double xmz = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double pic = q[c * n + i] / sxp[i];
      if (pic < pfm) {
        pic = 0;
        v[i] = 0;
      } else if (pic > pfx) {
        pic = 1;
        v[i] = 0;
      } else {
        v[i] = w[i] * pic * (1 - pic);
        xmz += v[i];
      }
      r[i] = w[i] * ((d.y[i] == static_cast<int>(c) ? 1.0 : 0.0) - pic);
    }
    return xmz;
  }

  bool class_moved(std::size_t c, double xmz) const {
    if (xmz * (b0[c] - bs0[c]) * (b0[c] - bs0[c]) > shr) return true;
    const double* bc = b.data() + c * p;
    const double* xvc = xv.data() + c * p;
    for (std::size_t k : order) {
      if (xvc[k] * (bc[k] - bs[c * p + k]) * (bc[k] - bs[c * p + k]) > shr) return true;
    }
    return false;
  }

  // q of class c = exp(link), clamped to [emin, emax]·sxp; sxp follows.
  void update_class_links(std::size_t c) {
    linear_predictor(b0[c], b.data() + c * p, eta);
    double* qc = q.data() + c * n;
    for (std::size_t i = 0; i < n; ++i) {
      const double fi = std::min(std::max(-kMaxLink, eta[i]), kMaxLink);
      sxp[i] -= qc[i];
      qc[i] = std::min(std::max(emin * sxp[i], std::exp(fi)), emax * sxp[i]);
      sxp[i] += qc[i];
    }
  }

  // Centre the intercepts and each active feature's class coefficients (glmnet's elc); the
  // probabilities do not change, q and sxp are rescaled by the same factor per row.
  void centre() {
    const double s0 = -std::accumulate(b0.begin(), b0.end(), 0.0) / static_cast<double>(nc);
    for (double& x : b0) x += s0;
    std::fill(di.begin(), di.end(), s0);
    for (std::size_t l : order) {
      for (std::size_t c = 0; c < nc; ++c) shift_buf[c] = b[c * p + l];
      const double sl = centring_shift(s.alpha, shift_buf);
      if (sl == 0) continue;
      for (std::size_t c = 0; c < nc; ++c) b[c * p + l] -= sl;
      const double* xl = X + l * n;
      for (std::size_t i = 0; i < n; ++i) di[i] -= sl * xl[i];
    }
    for (std::size_t i = 0; i < n; ++i) {
      const double e = std::exp(di[i]);
      sxp[i] *= e;
      for (std::size_t c = 0; c < nc; ++c) q[c * n + i] *= e;
    }
  }

  // KKT check of the features outside the strong set (largest gradient over the classes).
  bool kkt_violations_enter() {
    std::vector<std::size_t> outside;
    for (std::size_t k = 0; k < p; ++k)
      if (!strong[k] && d.varies[k]) {
        outside.push_back(k);
        ga[k] = 0;
      }
    if (outside.empty()) return false;
    for (std::size_t c = 0; c < nc; ++c) {
      residual(c);
      for (std::size_t k : outside) {
        ga[k] = std::max(ga[k], std::abs(dot(r.data(), X + k * n, n)));
        columns.count_streams(2);
      }
    }
    bool entered = false;
    for (std::size_t k : outside) {
      if (ga[k] > al1) {
        strong[k] = 1;
        entered = true;
      }
    }
    return entered;
  }

  double deviance() const override {
    double devi = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t c = static_cast<std::size_t>(d.y[i]);
      devi -= w[i] * std::log(q[c * n + i] / sxp[i]);
    }
    return devi;
  }

  static constexpr double pmax = 1 - kPmin;
  static constexpr double emin = kPmin / pmax, emax = 1 / emin;
  static constexpr double pfm = (1 + kPmin) * kPmin, pfx = (1 - kPmin) * pmax;
  static constexpr double vmin = pfm * pmax;
  const std::size_t nc;
  std::vector<double> q, sxp, eta, di, shift_buf;
  bool moved = false, any_class = false;
};

StdPath multinomial_path(const Design& d, const PathSettings& s) {
  return MultinomialPath(d, s).run();
}

PathSettings settings_for(const GlmnetParams& params, const Design& d,
                          std::span<const double> lambdas) {
  PathSettings s;
  s.alpha = params.alpha;
  s.thresh = params.tolerance;
  s.max_passes = params.max_passes;
  s.lambdas = lambdas;
  s.n_lambda = params.n_lambda;
  s.ratio = params.lambda_min_ratio > 0 ? params.lambda_min_ratio : (d.n < d.p ? 0.01 : 1e-4);
  return s;
}

StdPath fit_std_path(const Design& d, const GlmnetParams& params, std::span<const double> lambdas) {
  const PathSettings s = settings_for(params, d, lambdas);
  return d.classes.size() == 2 ? binomial_path(d, s) : multinomial_path(d, s);
}

// Coefficients of λ step `l` on the original scale: intercepts (k) and k x p coefficients.
void original_scale(const Design& d, const StdPath& sp, std::size_t l, double* intercepts,
                    double* coefficients) {
  const std::size_t k = sp.k, p = d.p;
  std::fill(coefficients, coefficients + k * p, 0.0);
  for (std::size_t c = 0; c < k; ++c) intercepts[c] = sp.a0[l * k + c];
  for (std::size_t a = 0; a < sp.n_active[l]; ++a) {
    const std::size_t j = sp.order[a];
    for (std::size_t c = 0; c < k; ++c) {
      const double beta = sp.beta[l][a * k + c] / d.scale[j];
      coefficients[c * p + j] = beta;
      intercepts[c] -= beta * d.mean[j];
    }
  }
  if (k > 1) {  // R's multnet centres the original-scale intercepts too
    const double m = std::accumulate(intercepts, intercepts + k, 0.0) / static_cast<double>(k);
    for (std::size_t c = 0; c < k; ++c) intercepts[c] -= m;
  }
}

GlmnetPath to_path(const Design& d, const StdPath& sp) {
  GlmnetPath out;
  out.classes = d.classes;
  out.n_outputs = sp.k;
  out.n_features = d.p;
  out.lambdas = sp.lambdas;
  out.dev_ratio = sp.dev_ratio;
  out.null_deviance = 2 * d.weight_sum * sp.dev0;
  out.passes = sp.passes;
  out.streamed_bytes = sp.streamed_bytes;
  const std::size_t L = sp.lambdas.size(), k = sp.k, p = d.p;
  out.intercepts.resize(L * k);
  out.coefficients.resize(L * k * p);
  out.nonzero.resize(L);
  for (std::size_t l = 0; l < L; ++l) {
    original_scale(d, sp, l, out.intercepts.data() + l * k, out.coefficients.data() + l * k * p);
    std::size_t nz = 0;
    for (std::size_t a = 0; a < sp.n_active[l]; ++a) {
      bool any = false;
      for (std::size_t c = 0; c < k; ++c) any |= sp.beta[l][a * k + c] != 0;
      nz += any;
    }
    out.nonzero[l] = nz;
  }
  return out;
}

void check_lambdas(std::span<const double> lambdas) {
  for (std::size_t l = 0; l < lambdas.size(); ++l) {
    if (!(lambdas[l] > 0) || !std::isfinite(lambdas[l])) {
      fail("glmnet: every λ must be a positive finite number, found {} at position {}", lambdas[l],
           l);
    }
    if (l > 0 && !(lambdas[l] < lambdas[l - 1])) {
      fail("glmnet: λ values must be strictly decreasing, found {} after {} at position {}",
           lambdas[l], lambdas[l - 1], l);
    }
  }
}

// Probabilities of the data's classes (absent classes 0) from linear predictors of the present
// classes: `eta` holds k values, k = 1 (log-odds of the second present class) or classes.size().
void probabilities(const std::vector<int>& classes, std::size_t k, const double* eta,
                   double* prob /* n_classes of the data */) {
  if (k == 1) {
    const double p1 = 1 / (1 + std::exp(-eta[0]));
    prob[classes[0]] = 1 - p1;
    prob[classes[1]] = p1;
    return;
  }
  double mx = eta[0];
  for (std::size_t c = 1; c < k; ++c) mx = std::max(mx, eta[c]);
  double total = 0;
  for (std::size_t c = 0; c < k; ++c) total += std::exp(eta[c] - mx);
  for (std::size_t c = 0; c < k; ++c) prob[classes[c]] = std::exp(eta[c] - mx) / total;
}

// One internal fold's fit on the original scale: its own generated path (cv.glmnet fits each
// fold without the full path's λ), or, when its train rows hold one class, that class.
struct FoldFit {
  int constant_class = -1;
  std::string warning;  // the path's (StdPath::warning)
  std::uint64_t streamed_bytes = 0;
  std::vector<int> classes;
  std::size_t k = 1;
  std::vector<double> lambdas;
  Eigen::MatrixXd coef;  // p x (k·L): column l·k + c = class c's coefficients at λ_l
  Eigen::VectorXd icpt;  // k·L
};

FoldFit fit_fold(const Dataset& data, std::span<const std::uint32_t> train,
                 const GlmnetParams& params) {
  FoldFit fit;
  Design d;
  try {
    d = make_design(data, train);
  } catch (const LearnerFailure&) {
    for (std::uint32_t i : train) {
      if (data.weights.empty() || data.weights[i] > 0) {
        fit.constant_class = data.y_class[i];
        break;
      }
    }
    if (fit.constant_class < 0) fit.constant_class = 0;  // total weight 0: any class
    return fit;
  }
  StdPath sp = fit_std_path(d, params, {});
  const std::size_t k = sp.k, L = sp.lambdas.size(), p = d.p;
  d.x = {};  // the copy is no longer needed; free it before the next fit on this worker
  fit.warning = std::move(sp.warning);
  fit.streamed_bytes = sp.streamed_bytes;
  fit.classes = d.classes;
  fit.k = k;
  fit.lambdas = sp.lambdas;
  fit.coef.resize(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(k * L));
  fit.icpt.resize(static_cast<Eigen::Index>(k * L));
  std::vector<double> a0(k), beta(k * p);
  for (std::size_t l = 0; l < L; ++l) {
    original_scale(d, sp, l, a0.data(), beta.data());
    for (std::size_t c = 0; c < k; ++c) {
      const auto col = static_cast<Eigen::Index>(l * k + c);
      fit.icpt(col) = a0[c];
      for (std::size_t j = 0; j < p; ++j)
        fit.coef(static_cast<Eigen::Index>(j), col) = beta[c * p + j];
    }
  }
  return fit;
}

// Linear predictors of the test rows at each of the fold's columns (m x k·L, column-major): the
// intercept, then the nonzero coefficients' terms in feature order, each row's sum on its own.
// A fixed order, so that the bits do not depend on the CPU: a BLAS product's do (OpenBLAS picks
// its kernel, and with it the order of each sum, by the CPU it runs on).
Eigen::MatrixXd fold_links(const Dataset& data, std::span<const std::uint32_t> test,
                           const FoldFit& fit) {
  const std::size_t m = test.size(), p = data.n_features;
  const auto columns = static_cast<std::size_t>(fit.coef.cols());
  std::vector<double> xt(m * p);  // the test rows, feature-major
  for (std::size_t t = 0; t < m; ++t)
    for (std::size_t j = 0; j < p; ++j) xt[j * m + t] = data.x[test[t] * p + j];
  Eigen::MatrixXd eta(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(columns));
  for (std::size_t col = 0; col < columns; ++col) {
    double* out = eta.data() + col * m;
    std::fill(out, out + m, fit.icpt(static_cast<Eigen::Index>(col)));
    ScaledColumnSum sum(out, m);
    for (std::size_t j = 0; j < p; ++j)
      sum.add(xt.data() + j * m,
              fit.coef(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(col)));
    sum.finish();
  }
  return eta;
}

// Held-out deviance of one fold at each master λ (weighted mean of −2·log p(y) over `test`).
// Predictions interpolate the fold's coefficients linearly in λ at the master values, clamped
// to the fold path's ends (cv.glmnet's default alignment = "lambda", glmnet's lambda.interp).
std::vector<double> fold_deviance(const Dataset& data, const FoldFit& fit,
                                  std::span<const std::uint32_t> test,
                                  std::span<const double> lambdas) {
  const std::size_t L = lambdas.size(), nc = data.n_classes();
  const std::size_t m = test.size();
  std::vector<double> row_weight(m);
  double total_weight = 0;
  for (std::size_t t = 0; t < m; ++t) {
    row_weight[t] = data.weights.empty() ? 1.0 : data.weights[test[t]];
    total_weight += row_weight[t];
  }
  std::vector<double> out(L, 0.0);
  std::vector<double> prob(nc, 0.0);
  auto add = [&](std::size_t t, std::size_t l) {
    const double py = prob[static_cast<std::size_t>(data.y_class[test[t]])];
    out[l] += row_weight[t] * -2 * std::log(std::min(std::max(py, kCvProbMin), 1 - kCvProbMin));
  };
  if (fit.constant_class >= 0) {
    prob[static_cast<std::size_t>(fit.constant_class)] = 1;
    for (std::size_t t = 0; t < m; ++t)
      for (std::size_t l = 0; l < L; ++l) add(t, l);
  } else {
    const std::size_t k = fit.k, fitted_l = fit.lambdas.size();
    const Eigen::MatrixXd eta = fold_links(data, test, fit);
    std::vector<std::size_t> left(L), right(L);
    std::vector<double> frac(L, 1.0);
    const std::vector<double>& fl = fit.lambdas;
    for (std::size_t l = 0; l < L; ++l) {
      const double target = lambdas[l];
      if (fitted_l == 1 || target >= fl.front()) {
        left[l] = right[l] = 0;
      } else if (target <= fl.back()) {
        left[l] = right[l] = fitted_l - 1;
      } else {
        std::size_t j = 0;
        while (fl[j + 1] >= target) ++j;
        left[l] = j;
        right[l] = fl[j] == target ? j : j + 1;
        if (left[l] != right[l]) frac[l] = (target - fl[j + 1]) / (fl[j] - fl[j + 1]);
      }
    }
    std::vector<double> e(k);
    for (std::size_t t = 0; t < m; ++t) {
      const auto row = static_cast<Eigen::Index>(t);
      for (std::size_t l = 0; l < L; ++l) {
        for (std::size_t c = 0; c < k; ++c) {
          e[c] = frac[l] * eta(row, static_cast<Eigen::Index>(left[l] * k + c)) +
                 (1 - frac[l]) * eta(row, static_cast<Eigen::Index>(right[l] * k + c));
        }
        std::fill(prob.begin(), prob.end(), 0.0);
        probabilities(fit.classes, k, e.data(), prob.data());
        add(t, l);
      }
    }
  }
  for (double& x : out) x = total_weight > 0 ? x / total_weight : NAN;
  return out;
}

class GlmnetModel : public Model {
 public:
  GlmnetModel(std::size_t n_classes, std::vector<int> classes, std::size_t k,
              std::vector<double> intercepts, std::vector<double> coefficients, Json description)
      : n_classes_(n_classes),
        classes_(std::move(classes)),
        k_(k),
        intercepts_(std::move(intercepts)),
        coefficients_(std::move(coefficients)),
        description_(std::move(description)) {}

  std::size_t n_outputs() const override { return n_classes_; }

  void predict(const Dataset& data, std::span<const std::uint32_t> rows,
               std::span<double> out) const override {
    ASSAY_ASSERT(out.size() == rows.size() * n_classes_);
    const std::size_t p = data.n_features;
    ASSAY_ASSERT(coefficients_.size() == k_ * p);
    std::vector<double> eta(k_);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const double* x = data.row(rows[r]);
      for (std::size_t c = 0; c < k_; ++c)
        eta[c] = intercepts_[c] + dot(coefficients_.data() + c * p, x, p);
      double* prob = out.data() + r * n_classes_;
      std::fill(prob, prob + n_classes_, 0.0);
      probabilities(classes_, k_, eta.data(), prob);
    }
  }

  Json description() const override { return description_; }

  Json save() const override {
    return Json{{"learner", "glmnet"},
                {"n_classes", n_classes_},
                {"classes", state::pack(classes_)},
                {"k", k_},
                {"intercepts", state::pack(intercepts_)},
                {"coefficients", state::pack(coefficients_)},
                {"description", description_}};
  }

 private:
  std::size_t n_classes_;
  std::vector<int> classes_;
  std::size_t k_;
  std::vector<double> intercepts_;
  std::vector<double> coefficients_;  // k x p
  Json description_;
};

class Glmnet : public Learner {
 public:
  explicit Glmnet(GlmnetParams params) : params_(std::move(params)) {}
  std::string name() const override { return "glmnet"; }
  bool supports(TaskKind task) const override { return task == TaskKind::classification; }

  std::unique_ptr<Model> fit(const Dataset& data, std::span<const std::uint32_t> train_rows,
                             const FitContext& context) const override {
    ASSAY_ASSERT(data.task == TaskKind::classification);
    GlmnetCv cv = glmnet_cv(data, train_rows, params_, context.seed, context.threads);
    const std::size_t l = params_.rule == "lambda.min" ? cv.index_min : cv.index_1se;
    const GlmnetPath& path = cv.path;
    const std::size_t k = path.n_outputs, p = path.n_features;
    std::vector<double> intercepts(
        path.intercepts.begin() + static_cast<std::ptrdiff_t>(l * k),
        path.intercepts.begin() + static_cast<std::ptrdiff_t>(l * k + k));
    std::vector<double> coefficients(
        path.coefficients.begin() + static_cast<std::ptrdiff_t>(l * k * p),
        path.coefficients.begin() + static_cast<std::ptrdiff_t>((l + 1) * k * p));
    Json description{{"lambda", path.lambdas[l]},
                     {"rule", params_.rule},
                     {"lambda_index", l + 1},
                     {"nonzero", path.nonzero[l]},
                     {"alpha", params_.alpha},
                     {"n_lambda", path.lambdas.size()},
                     {"lambda_min", path.lambdas[cv.index_min]},
                     {"lambda_1se", path.lambdas[cv.index_1se]}};
    if (path.classes.size() < data.n_classes()) {
      std::vector<std::string> fitted;
      for (int c : path.classes) fitted.push_back(data.classes[static_cast<std::size_t>(c)]);
      description["classes_fitted"] = fitted;
    }
    return std::make_unique<GlmnetModel>(data.n_classes(), path.classes, k, std::move(intercepts),
                                         std::move(coefficients), std::move(description));
  }

 private:
  GlmnetParams params_;
};

}  // namespace

std::unique_ptr<Model> state::load_glmnet(const Reader& read) {
  constexpr std::size_t kMost = std::numeric_limits<std::int32_t>::max();
  const std::size_t n_classes = read.count("n_classes", kMost);
  const std::size_t k = read.count("k", n_classes);
  std::vector<int> classes = read.array<int>("classes");
  for (int c : classes) {
    if (c < 0 || static_cast<std::size_t>(c) >= n_classes) read.invalid("class code out of range");
  }
  std::vector<double> intercepts = read.array<double>("intercepts", k);
  std::vector<double> coefficients = read.array<double>("coefficients");
  if (k == 0 || coefficients.size() % k != 0) read.invalid("coefficients are not k x p");
  // probabilities(): k == 1 is the binomial model over two present classes, else one per class.
  if (classes.size() != (k == 1 ? 2 : k)) read.invalid("classes do not match k");
  return std::make_unique<GlmnetModel>(n_classes, std::move(classes), k, std::move(intercepts),
                                       std::move(coefficients), read.field("description"));
}

namespace {

// glmnet_path without its warning, which goes to `warning` (glmnet_cv runs it on a worker).
GlmnetPath path_on_rows(const Dataset& data, std::span<const std::uint32_t> rows,
                        const GlmnetParams& params, std::span<const double> lambdas,
                        std::string& warning) {
  if (data.task != TaskKind::classification) {
    fail("glmnet supports classification only, found a regression data set {}",
         quote_found(data.name));
  }
  check_lambdas(lambdas);
  const Design d = make_design(data, rows);
  StdPath sp = fit_std_path(d, params, lambdas);
  warning = std::move(sp.warning);
  return to_path(d, sp);
}

}  // namespace

GlmnetPath glmnet_path(const Dataset& data, std::span<const std::uint32_t> rows,
                       const GlmnetParams& params, std::span<const double> lambdas) {
  std::string warning;
  GlmnetPath path = path_on_rows(data, rows, params, lambdas, warning);
  if (!warning.empty()) warn(warning);
  return path;
}

GlmnetCv glmnet_cv(const Dataset& data, std::span<const std::uint32_t> rows,
                   const GlmnetParams& params, std::uint64_t seed, int threads,
                   std::span<const int> fold_ids) {
  GlmnetCv cv;
  if (data.task != TaskKind::classification) {
    fail("glmnet supports classification only, found a regression data set {}",
         quote_found(data.name));
  }
  if (fold_ids.empty()) {
    cv.fold_ids = internal_fold_ids(rows.size(), params.internal_folds, seed);
  } else {
    if (fold_ids.size() != rows.size()) {
      fail("glmnet: expected one fold id per train row ({}), found {}", rows.size(),
           fold_ids.size());
    }
    cv.fold_ids.assign(fold_ids.begin(), fold_ids.end());
  }
  int n_folds = 0;
  for (int f : cv.fold_ids) {
    if (f < 0) fail("glmnet: fold ids must be >= 0, found {}", f);
    n_folds = std::max(n_folds, f + 1);
  }
  if (n_folds < 2) fail("glmnet: internal CV needs at least 2 folds, found {}", n_folds);
  const auto folds = static_cast<std::size_t>(n_folds);
  std::vector<std::vector<std::uint32_t>> test_rows(folds);
  for (std::size_t r = 0; r < rows.size(); ++r)
    test_rows[static_cast<std::size_t>(cv.fold_ids[r])].push_back(rows[r]);
  // The full path and the fold paths do not depend on each other (each fold generates its own
  // λ values): all K + 1 fits run in parallel, the biggest (task 0, the full path) first.
  // Errors are kept per task and the first in task order is rethrown, so which error a caller
  // sees does not depend on timing.
  std::vector<FoldFit> fits(folds);
  std::vector<std::exception_ptr> errors(folds + 1);
  std::string full_path_warning;
  parallel_for(
      folds + 1,
      [&](std::size_t task) {
        try {
          if (task == 0) {
            cv.path = path_on_rows(data, rows, params, {}, full_path_warning);
            return;
          }
          const std::size_t f = task - 1;
          std::vector<std::uint32_t> train;
          train.reserve(rows.size() - test_rows[f].size());
          for (std::size_t r = 0; r < rows.size(); ++r)
            if (static_cast<std::size_t>(cv.fold_ids[r]) != f) train.push_back(rows[r]);
          fits[f] = fit_fold(data, train, params);
        } catch (...) {
          errors[task] = std::current_exception();
        }
      },
      resolve_threads(threads, folds + 1));
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  // Warnings in task order (the full path, then the folds), whatever order the fits ended in.
  if (!full_path_warning.empty()) warn(full_path_warning);
  for (const FoldFit& fit : fits)
    if (!fit.warning.empty()) warn(fit.warning);
  cv.streamed_bytes = cv.path.streamed_bytes;
  for (const FoldFit& fit : fits) cv.streamed_bytes += fit.streamed_bytes;
  const std::size_t L = cv.path.lambdas.size();
  std::vector<std::vector<double>> fold_dev(folds);
  std::vector<double> fold_weight(folds, 0.0);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    fold_weight[static_cast<std::size_t>(cv.fold_ids[r])] +=
        data.weights.empty() ? 1.0 : data.weights[rows[r]];
  }
  parallel_for(
      folds,
      [&](std::size_t f) {
        fold_dev[f] = fold_deviance(data, fits[f], test_rows[f], cv.path.lambdas);
      },
      resolve_threads(threads, folds));
  // cv.glmnet's cvstats: fold means weighted by fold weight; folds of weight 0 are skipped.
  cv.cv_mean.assign(L, 0.0);
  cv.cv_sd.assign(L, 0.0);
  for (std::size_t l = 0; l < L; ++l) {
    double wsum = 0, m = 0;
    std::size_t used = 0;
    for (std::size_t f = 0; f < fold_dev.size(); ++f) {
      if (!(fold_weight[f] > 0)) continue;
      wsum += fold_weight[f];
      m += fold_weight[f] * fold_dev[f][l];
      ++used;
    }
    m /= wsum;
    double ss = 0;
    for (std::size_t f = 0; f < fold_dev.size(); ++f) {
      if (!(fold_weight[f] > 0)) continue;
      ss += fold_weight[f] * (fold_dev[f][l] - m) * (fold_dev[f][l] - m);
    }
    cv.cv_mean[l] = m;
    cv.cv_sd[l] = std::sqrt(ss / wsum / static_cast<double>(used - 1));
  }
  // getOptcv.glmnet: the largest λ at the minimum, and the largest λ within one SE of it.
  std::size_t best = 0;
  for (std::size_t l = 1; l < L; ++l)
    if (cv.cv_mean[l] < cv.cv_mean[best]) best = l;
  cv.index_min = best;
  const double bound = cv.cv_mean[best] + cv.cv_sd[best];
  cv.index_1se = best;
  for (std::size_t l = 0; l < L; ++l) {
    if (cv.cv_mean[l] <= bound) {
      cv.index_1se = l;
      break;
    }
  }
  return cv;
}

GlmnetParams glmnet_params_from_json(const Json& params) {
  ParamReader read("glmnet", params);
  GlmnetParams p;
  p.alpha = read.number("alpha", p.alpha, 0.0, 1.0);
  p.n_lambda = static_cast<std::size_t>(
      read.integer("n_lambda", static_cast<std::int64_t>(p.n_lambda), 2, 100000));
  p.lambda_min_ratio = read.number("lambda_min_ratio", p.lambda_min_ratio, 0.0, 0.999999);
  p.internal_folds = static_cast<int>(read.integer("internal_folds", p.internal_folds, 2, 1000000));
  p.rule = read.choice("rule", p.rule, {"lambda.1se", "lambda.min"});
  p.tolerance = read.number("tolerance", p.tolerance, 1e-300, 1.0);
  p.max_passes = static_cast<std::size_t>(
      read.integer("max_passes", static_cast<std::int64_t>(p.max_passes), 1, 1000000000000));
  read.finish();
  return p;
}

std::unique_ptr<Learner> make_glmnet(const GlmnetParams& params) {
  return std::make_unique<Glmnet>(params);
}

std::unique_ptr<Learner> make_glmnet(const Json& params) {
  return make_glmnet(glmnet_params_from_json(params));
}

}  // namespace assay::learners
