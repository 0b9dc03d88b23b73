// glmnet's λ paths (see glmnet_detail.hpp): the standardised design, glmnet's λ sequence, the
// IRLS of lognet2n (two classes) and lognetn (more classes) around the coordinate-descent passes,
// the coefficients on the data's scale, and glmnet_path.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "assay/core/warning.hpp"
#include "learners/glmnet_detail.hpp"

namespace assay::learners::glmnet_detail {

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

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace assay::learners::glmnet_detail

namespace assay::learners {

using glmnet_detail::path_on_rows;

GlmnetPath glmnet_path(const Dataset& data, std::span<const std::uint32_t> rows,
                       const GlmnetParams& params, std::span<const double> lambdas) {
  std::string warning;
  GlmnetPath path = path_on_rows(data, rows, params, lambdas, warning);
  if (!warning.empty()) warn(warning);
  return path;
}

}  // namespace assay::learners
