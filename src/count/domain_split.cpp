// count_unsafe(): VNN-LIB properties counted by domain splitting, on continuous boxes (exact
// dyadic volumes) and on integer grids (exact counts). The wave loop is split_engine.hpp's.
#include "assay/count/domain_split.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/warning.hpp"
#include "box.hpp"
#include "relu_branch.hpp"
#include "split_engine.hpp"

namespace assay::count {

using detail::Verdict;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kMaxSplitsPerDim = 50;  // dyadic t-coordinates stay exact doubles
constexpr int kUnsafe = 0, kSafe = 1;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Grid decisions need a margin so that the model's floating-point evaluation (what enumeration
// and predict use) agrees with the exact real bound.
double grid_margin(double lo, double up) {
  return 1e-9 * (1.0 + std::abs(lo) + std::abs(up));
}

// The atoms of one region, deduplicated, and each conjunction as indices into them.
struct RegionAtoms {
  std::vector<const LinearAtom*> atoms;
  std::vector<std::vector<std::size_t>> conj;
  std::vector<LinearObjective> objectives;  // one per atom (on z; identity output layer only)
};

class VnnJudge {
 public:
  VnnJudge(const Model& m, const NetworkBounds& nb, const VnnProperty& p, BoundMethod method,
           bool grid)
      : m_(m), nb_(nb), p_(p), method_(method), grid_(grid) {
    for (const auto& r : p.regions) {
      RegionAtoms ra;
      for (const auto& c : r.unsafe) {
        std::vector<std::size_t> idx;
        for (const auto& a : c) {
          idx.push_back(ra.atoms.size());
          ra.atoms.push_back(&a);
          LinearObjective o;
          o.w = a.y;
          o.v = a.x;
          o.c = a.constant;
          ra.objectives.push_back(std::move(o));
        }
        ra.conj.push_back(std::move(idx));
      }
      regions_.push_back(std::move(ra));
    }
  }

  // Three-valued unsafe condition over the box [lo, hi] of region r; an undecided piece gets a
  // split dimension among `splittable` and may carry a witness.
  Verdict judge(std::size_t r, const double* lo, const double* hi,
                const std::vector<bool>& splittable) const {
    const RegionAtoms& ra = regions_[r];
    Verdict v;
    if (ra.conj.empty() ||
        std::any_of(ra.conj.begin(), ra.conj.end(), [](const auto& c) { return c.empty(); })) {
      v.kind = Verdict::Kind::decided;  // an empty conjunction: every point is unsafe
      v.cell = kUnsafe;
      return v;
    }
    const std::size_t n = m_.n_features;
    std::vector<double> alo, aup, infl, desc;
    atom_bounds(ra, lo, hi, alo, aup, infl, desc);
    std::vector<std::uint8_t> state(ra.atoms.size());
    for (std::size_t a = 0; a < ra.atoms.size(); ++a)
      state[a] = atom_state(*ra.atoms[a], alo[a], aup[a]);
    bool any_unknown = false;
    std::vector<std::size_t> open_conj;
    for (std::size_t c = 0; c < ra.conj.size(); ++c) {
      std::uint8_t cs = 1;
      for (const auto a : ra.conj[c]) {
        if (state[a] == 0) {
          cs = 0;
          break;
        }
        if (state[a] == 2) cs = 2;
      }
      if (cs == 1) {
        v.kind = Verdict::Kind::decided;
        v.cell = kUnsafe;
        return v;
      }
      if (cs == 2) {
        any_unknown = true;
        open_conj.push_back(c);
      }
    }
    if (!any_unknown) {
      v.kind = Verdict::Kind::decided;
      v.cell = kSafe;
      return v;
    }
    // Influence of the undecided atoms of the undecided conjunctions.
    std::vector<double> score(n, 0.0);
    for (const auto c : open_conj) {
      for (const auto a : ra.conj[c]) {
        if (state[a] != 2) continue;
        for (std::size_t i = 0; i < n; ++i) score[i] += infl[a * n + i];
      }
    }
    v.kind = Verdict::Kind::split;
    v.dim = pick_dim(score, lo, hi, splittable, r);
    if (v.dim == n) v.kind = Verdict::Kind::open;
    if (!grid_) search_witness(r, ra, open_conj, state, desc, lo, hi, v);
    return v;
  }

  // The network's outputs at x and whether the unsafe condition holds there.
  bool unsafe_at_point(std::size_t r, const double* x, std::vector<double>& y) const {
    y = predict_scores(m_, std::span<const double>(x, m_.n_features));
    return unsafe_at(p_.regions[r], x, y.data());
  }

 private:
  void atom_bounds(const RegionAtoms& ra, const double* lo, const double* hi,
                   std::vector<double>& alo, std::vector<double>& aup, std::vector<double>& infl,
                   std::vector<double>& desc) const {
    const std::size_t n = m_.n_features;
    const std::span<const double> l(lo, n), h(hi, n);
    BoundResult b;
    if (nb_.output_activation() == Activation::identity) {
      nb_.bound(l, h, ra.objectives, method_, b);
      alo = std::move(b.lower);
      aup = std::move(b.upper);
      infl = std::move(b.influence);
      desc = std::move(b.descent);
      return;
    }
    // Logistic / softmax outputs: atoms by interval arithmetic on the outputs' bounds.
    nb_.output_bounds(l, h, method_, b);
    const std::size_t k = ra.atoms.size(), mo = nb_.n_outputs();
    alo.assign(k, 0.0);
    aup.assign(k, 0.0);
    infl.assign(k * n, 0.0);
    desc.assign(k * n, 0.0);
    for (std::size_t a = 0; a < k; ++a) {
      const LinearAtom& at = *ra.atoms[a];
      double vl = at.constant, vu = at.constant, mag = std::abs(at.constant);
      for (std::size_t j = 0; j < mo; ++j) {
        const double w = at.y[j];
        if (w == 0) continue;
        vl += w >= 0 ? w * b.lower[j] : w * b.upper[j];
        vu += w >= 0 ? w * b.upper[j] : w * b.lower[j];
        mag += std::abs(w) * std::max(std::abs(b.lower[j]), std::abs(b.upper[j]));
        for (std::size_t i = 0; i < n; ++i) {
          infl[a * n + i] += std::abs(w) * b.influence[j * n + i];
          desc[a * n + i] += w * b.descent[j * n + i];
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        const double w = at.x[i];
        vl += w >= 0 ? w * lo[i] : w * hi[i];
        vu += w >= 0 ? w * hi[i] : w * lo[i];
        mag += std::abs(w) * std::max(std::abs(lo[i]), std::abs(hi[i]));
      }
      const double e = (mo + n + 2) * 0x1p-52 * mag + 1e-290;
      alo[a] = round_down(vl - e);
      aup[a] = round_up(vu + e);
    }
  }

  // 0 false, 1 true, 2 unknown.
  std::uint8_t atom_state(const LinearAtom& a, double lo, double up) const {
    if (grid_) {
      const double tau = grid_margin(lo, up);
      if (up < -tau) return 1;
      if (lo > tau) return 0;
      return 2;
    }
    if (a.strict ? up < 0 : up <= 0) return 1;
    if (a.strict ? lo >= 0 : lo > 0) return 0;
    return 2;
  }

  std::size_t pick_dim(const std::vector<double>& score, const double* lo, const double* hi,
                       const std::vector<bool>& splittable, std::size_t r) const {
    const std::size_t n = score.size();
    std::size_t best = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (!splittable[i]) continue;
      if (best == n || score[i] > score[best]) best = i;
    }
    if (best == n || score[best] > 0) return best;
    // No influence (flat bounds): the widest input relative to its region.
    const auto& reg = p_.regions[r];
    double w_best = -1;
    for (std::size_t i = 0; i < n; ++i) {
      if (!splittable[i]) continue;
      const double w = (hi[i] - lo[i]) / (reg.hi[i] - reg.lo[i] + (grid_ ? 1 : 0));
      if (w > w_best) w_best = w, best = i;
    }
    return best;
  }

  void search_witness(std::size_t r, const RegionAtoms& ra, const std::vector<std::size_t>& open,
                      const std::vector<std::uint8_t>& state, const std::vector<double>& desc,
                      const double* lo, const double* hi, Verdict& v) const {
    const std::size_t n = m_.n_features;
    const auto& reg = p_.regions[r];
    std::vector<double> x(n), y;
    auto clamp = [&](std::size_t i, double val) {
      return std::min(std::max(val, reg.lo[i]), reg.hi[i]);
    };
    auto try_point = [&]() {
      if (unsafe_at_point(r, x.data(), y)) {
        v.witness_x = x;
        v.witness_y = y;
        return true;
      }
      return false;
    };
    for (std::size_t i = 0; i < n; ++i) x[i] = clamp(i, lo[i] + 0.5 * (hi[i] - lo[i]));
    if (try_point()) return;
    for (std::size_t k = 0; k < open.size() && k < 2; ++k) {
      std::vector<double> g(n, 0.0);
      for (const auto a : ra.conj[open[k]]) {
        if (state[a] != 2) continue;
        for (std::size_t i = 0; i < n; ++i) g[i] += desc[a * n + i];
      }
      for (std::size_t i = 0; i < n; ++i) x[i] = clamp(i, g[i] > 0 ? lo[i] : hi[i]);
      if (try_point()) return;
    }
  }

  const Model& m_;
  const NetworkBounds& nb_;
  const VnnProperty& p_;
  BoundMethod method_;
  bool grid_;
  std::vector<RegionAtoms> regions_;
};

// --- shared bookkeeping --------------------------------------------------------------------

struct Run {
  SplitResult& r;
  const SplitParams& params;
  Clock::time_point start;
  std::unique_ptr<Progress> progress;
  std::uint64_t shown = 0;

  bool out_of_time() const {
    return params.time_limit > 0 && seconds_since(start) >= params.time_limit;
  }

  void found(const std::vector<double>& x, const std::vector<double>& y, const char* source) {
    if (r.counterexample) return;
    r.counterexample = x;
    r.counterexample_outputs = y;
    r.counterexample_source = source;
    r.decision = "violated";
    if (r.decision_seconds < 0) r.decision_seconds = seconds_since(start);
  }
  // The final bounds: a finished run with nothing unsafe proves the property holds.
  void conclude(bool finished, bool nothing_unsafe) {
    r.finished = finished;
    if (finished && nothing_unsafe && r.decision == "unknown") {
      r.decision = "holds";
      r.decision_seconds = seconds_since(start);
    }
    trace(r.unsafe_lower, r.unsafe_upper);
  }
  void trace(double lower, double upper) {
    SplitTrace t;
    t.seconds = seconds_since(start);
    t.lower = lower;
    t.upper = upper;
    t.boxes = r.boxes;
    // A long run adds a point per wave: every other one is dropped past 4096, so the history
    // stays bounded (thin_trace keeps 400 at the end).
    if (r.trace.size() >= 4096) {
      std::size_t kept = 0;
      for (std::size_t i = 0; i < r.trace.size(); i += 2) r.trace[kept++] = r.trace[i];
      r.trace.resize(kept);
    }
    r.trace.push_back(t);
    const auto done =
        static_cast<std::uint64_t>(std::clamp(1.0 - (upper - lower), 0.0, 1.0) * 1000);
    if (done > shown) {
      progress->advance(done - shown);
      shown = done;
    }
  }
  bool decided() const { return params.stop_when_decided && r.decision != "unknown"; }
  // Bounds and splits the frontier's pieces in waves until the property is decided (when asked
  // to stop then) or the budget runs out; `bounds` traces the current [lower, upper].
  // `piece_bytes`: what one open piece takes (detail::frontier_bytes).
  template <class Piece, class Judge, class Apply, class Bounds>
  void split(detail::Frontier<Piece>& frontier, std::size_t piece_bytes, Judge judge, Apply apply,
             Bounds bounds) {
    trace(0.0, 1.0);
    if (decided()) {
      r.stopped_by = "decided";
    } else {
      detail::WaveBudget budget{params.time_limit, params.max_boxes, params.threads, start};
      budget.max_pieces = std::max<std::uint64_t>(1, r.memory_budget / piece_bytes);
      r.stopped_by = detail::run_waves(frontier, budget, r.boxes, judge, apply, [&] {
        const auto [lower, upper] = bounds();
        trace(lower, upper);
        return decided();
      });
    }
    r.open_boxes += frontier.size();
  }
};

// Keeps at most ~400 trace points (evenly spaced, the last one kept).
void thin_trace(std::vector<SplitTrace>& t) {
  if (t.size() <= 400) return;
  std::vector<SplitTrace> out;
  const double step = static_cast<double>(t.size() - 1) / 399.0;
  for (int i = 0; i < 400; ++i) out.push_back(t[static_cast<std::size_t>(std::round(i * step))]);
  out.back() = t.back();
  t = std::move(out);
}

double mpq_down(const mpq_class& q) {
  return q.get_d();  // truncation: towards zero, i.e. down for q >= 0
}
double mpq_up(const mpq_class& q) {
  double d = q.get_d();
  if (mpq_class(d) < q) d = round_up(d);
  return d;
}

// Uniform sample over the regions (weights: volumes or point counts), in waves of chunks so that
// the time limit and interrupts are honoured and memory stays bounded whatever the size. Chunk c
// draws from Rng(seed).split(c), so the sample does not depend on the thread count.
template <class Draw>
void sample_domain(const VnnJudge& judge, const std::vector<double>& weights, std::size_t n_in,
                   Run& run, Draw draw) {
  const std::size_t n = run.params.samples;
  run.r.sample_requested = n;
  if (n == 0) return;
  constexpr std::size_t kChunk = 1024, kWave = 256;
  const std::size_t n_chunks = (n + kChunk - 1) / kChunk;
  double wsum = 0;
  for (const double w : weights) wsum += w;
  std::unique_ptr<Progress> progress;
  if (n >= (std::size_t{1} << 20)) progress = std::make_unique<Progress>("count: sampling", n);
  std::vector<std::uint64_t> hits;
  std::vector<std::vector<double>> first_x, first_y;
  std::uint64_t k = 0;
  std::size_t drawn = 0;
  // Checked before every chunk (a chunk of a large network takes a fraction of a second). A
  // chunk is an independent uniform sample, so the chunks drawn when a stop comes are one too.
  auto stop_reason = [&]() -> const char* {
    if (interrupt_requested()) return "interrupted";
    return run.out_of_time() ? "time limit" : nullptr;
  };
  std::vector<std::uint8_t> drawn_chunk;
  for (std::size_t c0 = 0; c0 < n_chunks && run.r.sample_stopped_by.empty(); c0 += kWave) {
    const std::size_t w = std::min(kWave, n_chunks - c0);
    hits.assign(w, 0);
    first_x.assign(w, {});
    first_y.assign(w, {});
    drawn_chunk.assign(w, 0);
    const char* stopped =
        detail::parallel_for_until(w, run.params.threads, stop_reason, [&](std::size_t i) {
          const std::size_t c = c0 + i;
          Rng rng = Rng(run.params.seed).split(c);
          std::vector<double> x(n_in), y;
          const std::size_t end = std::min(n, (c + 1) * kChunk);
          for (std::size_t s = c * kChunk; s < end; ++s) {
            double pick = rng.uniform() * wsum;
            std::size_t r = 0;
            while (r + 1 < weights.size() && pick >= weights[r]) pick -= weights[r++];
            draw(r, rng, x);
            if (judge.unsafe_at_point(r, x.data(), y) && hits[i]++ == 0) {
              first_x[i] = x;
              first_y[i] = y;
            }
          }
          drawn_chunk[i] = 1;
        });
    const std::size_t before = drawn;
    for (std::size_t i = 0; i < w; ++i) {
      if (!drawn_chunk[i]) continue;
      if (hits[i] && k == 0) run.found(first_x[i], first_y[i], "sample");
      k += hits[i];
      const std::size_t c = c0 + i;
      drawn += std::min(n, (c + 1) * kChunk) - c * kChunk;
    }
    if (progress) progress->advance(drawn - before);
    if (stopped) run.r.sample_stopped_by = stopped;
  }
  if (progress) progress->finish();
  run.r.sample = proportion(k, drawn, run.params.confidence);
  if (!run.r.sample_stopped_by.empty()) {
    warn(fmt::format(
        "the uniform sample stopped after {} of {} points ({}); its estimate and interval use the "
        "points drawn",
        drawn, n,
        run.r.sample_stopped_by == "time limit"
            ? fmt::format("the time limit of {} s", run.params.time_limit)
            : std::string("interrupted")));
  }
}

// --- continuous boxes ------------------------------------------------------------------------

struct Piece {
  std::vector<double> t_lo, t_hi;  // dyadic coordinates in [0, 1] of the region
  std::vector<std::uint8_t> splits;
  std::uint32_t region = 0;
  std::uint32_t depth = 0;
};

class Continuous {
 public:
  Continuous(const Model& m, const VnnProperty& p, const VnnJudge& judge, Run& run)
      : p_(p), judge_(judge), run_(run), n_(m.n_features) {
    mpq_class total = 0;
    check_fixed_inputs(p);
    for (const auto& reg : p.regions) {
      mpq_class v = 1;
      std::vector<double> wd(n_), wu(n_);
      for (std::size_t i = 0; i < n_; ++i) {
        if (reg.lo[i] < reg.hi[i]) v *= mpq_class(reg.hi[i]) - mpq_class(reg.lo[i]);
        wd[i] = round_down(reg.hi[i] - reg.lo[i]);
        wu[i] = round_up(reg.hi[i] - reg.lo[i]);
      }
      vol_.push_back(v);
      total += v;
      w_down_.push_back(std::move(wd));
      w_up_.push_back(std::move(wu));
    }
    total_ = total;
    for (const auto& v : vol_) share_.push_back(mpq_class(v / total_).get_d());
    run_.r.volume = total_.get_d();
  }

  void run() {
    std::vector<double> weights(share_);
    sample_domain(judge_, weights, n_, run_, [&](std::size_t r, Rng& rng, std::vector<double>& x) {
      const auto& reg = p_.regions[r];
      for (std::size_t i = 0; i < n_; ++i) {
        x[i] = std::min(reg.hi[i], reg.lo[i] + rng.uniform() * (reg.hi[i] - reg.lo[i]));
      }
    });
    detail::Frontier<Piece> frontier;
    for (std::uint32_t r = 0; r < p_.regions.size(); ++r) {
      Piece pc;
      pc.t_lo.assign(n_, 0.0);
      pc.t_hi.assign(n_, 1.0);
      pc.splits.assign(n_, 0);
      pc.region = r;
      frontier.push(std::log2(share_[r]), std::move(pc));
    }
    const std::size_t payload =
        2 * detail::heap_bytes(n_ * sizeof(double)) + detail::heap_bytes(n_);
    run_.split(
        frontier, detail::frontier_bytes<Piece>(payload),
        [&](const Piece& pc) { return judge(pc); },
        [&](Piece& pc, Verdict& v) { apply(frontier, pc, v); },
        [&] {
          return std::pair{approx_[kUnsafe], 1.0 - approx_[kSafe]};
        });
    finish(frontier.empty() && open_ == 0);
  }

 private:
  // Inputs fixed by their bounds are constants; every box must fix the same ones.
  void check_fixed_inputs(const VnnProperty& p) const {
    for (std::size_t r = 1; r < p.regions.size(); ++r) {
      for (std::size_t i = 0; i < n_; ++i) {
        const bool a = p.regions[0].lo[i] == p.regions[0].hi[i];
        const bool b = p.regions[r].lo[i] == p.regions[r].hi[i];
        if (a != b) {
          fail("{}: X_{} is fixed in box {} but not in box {}; their volumes are not comparable",
               p.file, i, a ? 1 : r + 1, a ? r + 1 : 1);
        }
      }
    }
  }

  void box(const Piece& pc, std::vector<double>& lo, std::vector<double>& hi) const {
    const auto& reg = p_.regions[pc.region];
    lo.resize(n_);
    hi.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      const double a = pc.t_lo[i] == 0
                           ? reg.lo[i]
                           : round_down(reg.lo[i] + round_down(pc.t_lo[i] * w_down_[pc.region][i]));
      const double b = pc.t_hi[i] == 1
                           ? reg.hi[i]
                           : round_up(reg.lo[i] + round_up(pc.t_hi[i] * w_up_[pc.region][i]));
      lo[i] = std::max(a, reg.lo[i]);
      hi[i] = std::min(b, reg.hi[i]);
    }
  }

  Verdict judge(const Piece& pc) const {
    std::vector<double> lo, hi;
    box(pc, lo, hi);
    std::vector<bool> splittable(n_);
    const auto& reg = p_.regions[pc.region];
    for (std::size_t i = 0; i < n_; ++i) {
      splittable[i] = pc.splits[i] < kMaxSplitsPerDim && reg.lo[i] < reg.hi[i];
    }
    return judge_.judge(pc.region, lo.data(), hi.data(), splittable);
  }

  void apply(detail::Frontier<Piece>& frontier, Piece& pc, Verdict& v) {
    if (!v.witness_x.empty()) run_.found(v.witness_x, v.witness_y, "search");
    switch (v.kind) {
      case Verdict::Kind::decided: {
        auto& cell = count_[v.cell];
        ++cell[{pc.region, pc.depth}];
        approx_[v.cell] += std::ldexp(share_[pc.region], -static_cast<int>(pc.depth));
        if (v.cell == kSafe) {
          ++run_.r.safe_boxes;
        } else {
          ++run_.r.unsafe_boxes;
          if (!run_.r.counterexample) proven_unsafe(pc);
        }
        return;
      }
      case Verdict::Kind::split: {
        Piece a = pc;
        const std::size_t d = v.dim;
        const double mid = 0.5 * (pc.t_lo[d] + pc.t_hi[d]);
        a.t_hi[d] = mid;
        pc.t_lo[d] = mid;
        ++a.splits[d];
        ++pc.splits[d];
        ++a.depth;
        ++pc.depth;
        const double key = std::log2(share_[pc.region]) - a.depth;
        frontier.push(key, std::move(a));
        frontier.push(key, std::move(pc));
        return;
      }
      default:
        ++open_;
        ++run_.r.open_boxes;
        return;
    }
  }

  void proven_unsafe(const Piece& pc) {
    std::vector<double> lo, hi, x(n_), y;
    box(pc, lo, hi);
    for (std::size_t i = 0; i < n_; ++i) x[i] = lo[i] + 0.5 * (hi[i] - lo[i]);
    judge_.unsafe_at_point(pc.region, x.data(), y);
    run_.found(x, y, "proven-unsafe box");
  }

  // Exact dyadic sums -> fractions rounded outward.
  void finish(bool finished) {
    mpq_class measure[2] = {0, 0};
    for (int c = 0; c < 2; ++c) {
      for (const auto& [key, cnt] : count_[c]) {
        mpq_class part = vol_[key.first] * mpz_class(static_cast<unsigned long>(cnt));
        mpz_class denom = 1;
        denom <<= key.second;
        part /= denom;
        measure[c] += part;
      }
    }
    const mpq_class unsafe = measure[kUnsafe] / total_;
    const mpq_class upper = 1 - measure[kSafe] / total_;
    run_.r.unsafe_lower = mpq_down(unsafe);
    run_.r.unsafe_upper = mpq_up(upper);
    run_.conclude(finished, measure[kUnsafe] == 0);
  }

  const VnnProperty& p_;
  const VnnJudge& judge_;
  Run& run_;
  std::size_t n_;
  std::vector<mpq_class> vol_;
  mpq_class total_;
  std::vector<double> share_;
  std::vector<std::vector<double>> w_down_, w_up_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> count_[2];
  double approx_[2] = {0.0, 0.0};
  std::uint64_t open_ = 0;
};

// --- integer grids ---------------------------------------------------------------------------

struct GridPiece {
  detail::Box box;  // offsets from the region's lower corner
  std::uint32_t region = 0;
};

class Grid {
 public:
  Grid(const Model& m, const VnnProperty& p, const VnnJudge& judge, Run& run)
      : p_(p), judge_(judge), run_(run), n_(m.n_features) {
    for (const auto& reg : p.regions) {
      detail::Box b;
      mpz_class size = 1;
      for (std::size_t i = 0; i < n_; ++i) {
        const double w = reg.hi[i] - reg.lo[i];
        if (std::abs(reg.lo[i]) > 0x1p53 || std::abs(reg.hi[i]) > 0x1p53 || w >= 0x1p62) {
          fail(
              "{}: X_{} spans [{}, {}]; integer domains must lie within +-2^53 and hold fewer "
              "than 2^62 values per input",
              p.file, i, reg.lo[i], reg.hi[i]);
        }
        b.lo.push_back(0);
        b.hi.push_back(static_cast<std::uint64_t>(w));
        size *= mpz_class(static_cast<unsigned long>(w) + 1);
      }
      sizes_.push_back(size);
      total_ += size;
      roots_.push_back(std::move(b));
    }
    run_.r.total = total_;
  }

  void run() {
    std::vector<double> weights;
    for (const auto& s : sizes_) weights.push_back(s.get_d());
    sample_domain(judge_, weights, n_, run_, [&](std::size_t r, Rng& rng, std::vector<double>& x) {
      const auto& reg = p_.regions[r];
      for (std::size_t i = 0; i < n_; ++i) {
        x[i] = reg.lo[i] + static_cast<double>(rng.below(roots_[r].hi[i] + 1));
      }
    });
    detail::Frontier<GridPiece> frontier;
    for (std::uint32_t r = 0; r < p_.regions.size(); ++r) {
      frontier.push(std::log2(sizes_[r].get_d()), GridPiece{roots_[r], r});
    }
    const std::size_t payload = 2 * detail::heap_bytes(n_ * sizeof(std::uint64_t));
    run_.split(
        frontier, detail::frontier_bytes<GridPiece>(payload),
        [&](const GridPiece& pc) { return judge(pc); },
        [&](GridPiece& pc, Verdict& v) { apply(frontier, pc, v); },
        [&] {
          const double t = total_.get_d();
          return std::pair{count_[kUnsafe].get_d() / t, 1.0 - count_[kSafe].get_d() / t};
        });
    finish(frontier.empty());
  }

 private:
  void values(const GridPiece& pc, std::vector<double>& lo, std::vector<double>& hi) const {
    const auto& reg = p_.regions[pc.region];
    lo.resize(n_);
    hi.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      lo[i] = reg.lo[i] + static_cast<double>(pc.box.lo[i]);
      hi[i] = reg.lo[i] + static_cast<double>(pc.box.hi[i]);
    }
  }

  Verdict judge(const GridPiece& pc) const {
    const mpz_class size = detail::box_size(pc.box);
    if (size <= mpz_class(static_cast<unsigned long>(run_.params.enumerate_limit))) {
      return enumerate(pc, size.get_ui());
    }
    std::vector<double> lo, hi;
    values(pc, lo, hi);
    std::vector<bool> splittable(n_);
    for (std::size_t i = 0; i < n_; ++i) splittable[i] = pc.box.lo[i] < pc.box.hi[i];
    return judge_.judge(pc.region, lo.data(), hi.data(), splittable);
  }

  Verdict enumerate(const GridPiece& pc, std::uint64_t size) const {
    Verdict v;
    v.kind = Verdict::Kind::counted;
    v.counts.assign(3, 0);
    const auto& reg = p_.regions[pc.region];
    std::vector<std::uint64_t> k(pc.box.lo);
    std::vector<double> x(n_), y;
    for (std::uint64_t i = 0; i < size; ++i) {
      for (std::size_t d = 0; d < n_; ++d) x[d] = reg.lo[d] + static_cast<double>(k[d]);
      const bool unsafe = judge_.unsafe_at_point(pc.region, x.data(), y);
      ++v.counts[unsafe ? kUnsafe : kSafe];
      if (unsafe && v.witness_x.empty()) {
        v.witness_x = x;
        v.witness_y = y;
      }
      for (std::size_t d = 0; d < n_; ++d) {  // next point (odometer)
        if (k[d] < pc.box.hi[d]) {
          ++k[d];
          break;
        }
        k[d] = pc.box.lo[d];
      }
    }
    return v;
  }

  void apply(detail::Frontier<GridPiece>& frontier, GridPiece& pc, Verdict& v) {
    if (!v.witness_x.empty()) run_.found(v.witness_x, v.witness_y, "search");
    switch (v.kind) {
      case Verdict::Kind::decided: {
        count_[v.cell] += detail::box_size(pc.box);
        ++(v.cell == kSafe ? run_.r.safe_boxes : run_.r.unsafe_boxes);
        if (v.cell == kUnsafe && !run_.r.counterexample) {
          std::vector<double> lo, hi, y;
          values(pc, lo, hi);
          judge_.unsafe_at_point(pc.region, lo.data(), y);
          run_.found(lo, y, "proven-unsafe box");
        }
        return;
      }
      case Verdict::Kind::counted:
        count_[kUnsafe] += mpz_class(static_cast<unsigned long>(v.counts[kUnsafe]));
        count_[kSafe] += mpz_class(static_cast<unsigned long>(v.counts[kSafe]));
        ++run_.r.enumerated_boxes;
        return;
      case Verdict::Kind::split: {
        GridPiece a = pc;
        const std::size_t d = v.dim;
        const std::uint64_t mid = pc.box.lo[d] + (pc.box.hi[d] - pc.box.lo[d]) / 2;
        a.box.hi[d] = mid;
        pc.box.lo[d] = mid + 1;
        frontier.push(std::log2(detail::box_size(a.box).get_d()), std::move(a));
        frontier.push(std::log2(detail::box_size(pc.box).get_d()), std::move(pc));
        return;
      }
      default:
        ++run_.r.open_boxes;
        return;
    }
  }

  void finish(bool finished) {
    run_.r.unsafe_count_lower = count_[kUnsafe];
    run_.r.unsafe_count_upper = total_ - count_[kSafe];
    run_.r.unsafe_lower = mpq_down(mpq_class(count_[kUnsafe], total_));
    run_.r.unsafe_upper = mpq_up(mpq_class(total_ - count_[kSafe], total_));
    run_.conclude(finished, count_[kUnsafe] == 0);
  }

  const VnnProperty& p_;
  const VnnJudge& judge_;
  Run& run_;
  std::size_t n_;
  std::vector<detail::Box> roots_;
  std::vector<mpz_class> sizes_;
  mpz_class total_ = 0;
  mpz_class count_[2] = {0, 0};
};

void check_request(const Model& m, const VnnProperty& p, const SplitParams& params) {
  validate(m);
  if (m.kind != ModelKind::network && m.kind != ModelKind::graph) {
    fail("counting a VNN-LIB property needs a network; the model is a {}", to_string(m.kind));
  }
  if (m.n_features != p.n_inputs) {
    fail("the network has {} inputs but {} declares {} (X_0..X_{})", m.n_features, p.file,
         p.n_inputs, p.n_inputs - 1);
  }
  if (m.n_outputs != p.n_outputs) {
    fail("the network has {} outputs but {} declares {} (Y_0..Y_{})", m.n_outputs, p.file,
         p.n_outputs, p.n_outputs - 1);
  }
  check_time_limit("time_limit", params.time_limit);
  if (!(params.confidence > 0 && params.confidence < 1)) {
    fail("confidence must lie in (0, 1), found {}", params.confidence);
  }
  if (params.enumerate_limit == 0) fail("enumerate_limit must be >= 1, found 0");
  if (params.threads < 0) fail("threads must be >= 0, found {}", params.threads);
}

}  // namespace

SplitResult count_unsafe(const Model& m, const VnnProperty& p, const SplitParams& params) {
  check_request(m, p, params);
  if (detail::use_relu_branch(m, p)) return detail::count_unsafe_relu_branch(m, p, params);
  const NetworkBounds nb(m);
  SplitResult r;
  r.domain = p.integer_inputs ? "grid" : "continuous";
  r.n_inputs = p.n_inputs;
  r.n_outputs = p.n_outputs;
  r.n_regions = p.regions.size();
  r.confidence = params.confidence;
  r.sample = proportion(0, 0, params.confidence);
  r.memory_budget = detail::memory_budget(params.max_memory);
  Run run{r, params, Clock::now(), std::make_unique<Progress>("count: splitting", 1000)};
  const VnnJudge judge(m, nb, p, params.bounds, p.integer_inputs);
  if (p.integer_inputs) {
    Grid(m, p, judge, run).run();
  } else {
    Continuous(m, p, judge, run).run();
  }
  run.progress->finish();
  r.seconds = seconds_since(run.start);
  thin_trace(r.trace);
  r.stop_message = detail::stop_message(r.stopped_by, params.time_limit, params.max_boxes,
                                        r.memory_budget, params.max_memory, r.open_boxes);
  // A limit the user set needs no warning; the default memory budget stopping a run does.
  if (r.stopped_by == "memory budget") warn(r.stop_message);
  return r;
}

SplitParams split_params(const CountParams& params) {
  SplitParams p;
  p.time_limit = params.time_limit;
  p.max_boxes = params.max_boxes;
  p.max_memory = params.max_memory;
  p.enumerate_limit = std::min(p.enumerate_limit, params.enumeration_limit);
  if (!params.samples.empty()) p.samples = params.samples.front();
  p.seed = params.seed;
  p.threads = params.threads;
  return p;
}

namespace detail {

std::string memory_text(std::uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) return fmt::format("{:.3g} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.3g} MB", b / 1e6);
  return fmt::format("{:.3g} kB", b / 1e3);
}

std::string stop_message(const std::string& stopped_by, double time_limit, std::uint64_t max_boxes,
                         std::uint64_t budget, std::uint64_t requested_budget, std::size_t open) {
  const std::string certified = "the interval so far is certified";
  if (stopped_by == "time limit") {
    return fmt::format(
        "stopped at the time limit of {} s with {} boxes undecided; {} (raise --time-limit / "
        "time_limit to narrow it)",
        time_limit, open, certified);
  }
  if (stopped_by == "max boxes") {
    return fmt::format(
        "stopped after {} boxes (--max-boxes / max_boxes) with {} undecided; {} (raise it to "
        "narrow the interval)",
        max_boxes, open, certified);
  }
  if (stopped_by == "memory budget") {
    return fmt::format(
        "stopped when the {} undecided boxes reached the memory budget of {} ({}); {} (raise "
        "--max-memory / max_memory, in MB, to go on; --time-limit bounds the run by time "
        "instead)",
        open, memory_text(budget),
        requested_budget ? "as asked" : "half the memory available at the start", certified);
  }
  if (stopped_by == "interrupted") {
    return fmt::format("interrupted with {} boxes undecided; {}", open, certified);
  }
  return "";
}

}  // namespace detail

}  // namespace assay::count
