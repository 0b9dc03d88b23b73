// glmnet's private pieces, shared by its files (private to src/learners): the constants of
// glmnet.control(), the standardised design, a path on the standardised scale, the column store
// with its zero screen, and the functions one file calls in another.
//
// glmnet follows glmnet's Fortran routines lognet2n (two classes) and lognetn (more classes,
// "ungrouped", type.logistic = "Newton") step for step, so that a path matches R's to rounding:
// the same λ sequence, strong-rule screening, active-set cycles, IRLS stopping rule, multinomial
// centring and early path stop. The data are copied once per fit into a column-major
// standardised matrix so every coordinate update streams two contiguous columns. Its files:
//   glmnet_descent.cpp  the column kernels and one coordinate-descent pass (the hot loops)
//   glmnet_path.cpp     the design, the λ paths (lognet2n, lognetn), glmnet_path
//   glmnet_cv.cpp       cv.glmnet: the fold fits, held-out deviance, glmnet_cv
//   glmnet.cpp          the learner, its fitted model and saved state
//
//   const Design d = make_design(data, rows);          // weight > 0 rows, standardised
//   StdPath sp = fit_std_path(d, params, {});          // the generated λ path
//   std::vector<double> a0(sp.k), beta(sp.k * d.p);
//   original_scale(d, sp, 0, a0.data(), beta.data());  // step 0 on the data's scale
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "assay/learners/glmnet.hpp"

namespace assay::learners::glmnet_detail {

// Not part of the library's interface (nothing outside src/learners/glmnet*.cpp calls these).
#pragma GCC visibility push(hidden)

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

// The rows of `rows` with positive weight, standardised; throws LearnerFailure when their total
// weight is 0 or they hold one class.
Design make_design(const Dataset& data, std::span<const std::uint32_t> rows);

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

// The column kernels (glmnet_descent.cpp) that other files call: Σ a·b in a fixed order of
// operations (the same bits on every CPU), and eta += Σ b[j]·cols[j] for 1 to 4 columns.
double dot(const double* a, const double* b, std::size_t n, const double* ahead = nullptr);
void add_scaled_columns(double* eta, const double* const* cols, const double* b, std::size_t count,
                        std::size_t n);

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

// The columns of X (n x p, column-major), with their float copy when the CPU has rough reads.
Columns make_columns(const double* X, std::size_t n, std::size_t p);

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

// One cyclic coordinate-descent pass over `list` (glmnet_descent.cpp, where it is described);
// returns the largest xv·Δb².
double coordinate_pass(const std::vector<std::size_t>& list, const Columns& x, double* b,
                       double* xv, double* r, const double* v, double al1, double al2,
                       bool with_curvature, bool may_enter, std::vector<char>& in_active,
                       std::vector<std::size_t>& order, ZeroScreen& screen);

// glmnet's path for the design: given λ values (decreasing), or generated when empty.
StdPath fit_std_path(const Design& d, const GlmnetParams& params, std::span<const double> lambdas);

// Coefficients of λ step `l` on the original scale: intercepts (k) and k x p coefficients.
void original_scale(const Design& d, const StdPath& sp, std::size_t l, double* intercepts,
                    double* coefficients);

// glmnet_path without its warning, which goes to `warning` (glmnet_cv runs it on a worker).
GlmnetPath path_on_rows(const Dataset& data, std::span<const std::uint32_t> rows,
                        const GlmnetParams& params, std::span<const double> lambdas,
                        std::string& warning);

// Probabilities of the data's classes (absent classes 0) from linear predictors of the present
// classes: `eta` holds k values, k = 1 (log-odds of the second present class) or classes.size().
// Inline: the held-out deviance (glmnet_cv.cpp) calls it per test row and λ.
inline void probabilities(const std::vector<int>& classes, std::size_t k, const double* eta,
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

#pragma GCC visibility pop

}  // namespace assay::learners::glmnet_detail
