// ReLU branch and bound with attacks: count_unsafe()'s route for high-dimensional boxes and
// graph networks (relu_branch.hpp).
#include "relu_branch.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/warning.hpp"
#include "graph_attack.hpp"
#include "graph_bounds.hpp"
#include "split_engine.hpp"

namespace assay::count::detail {

namespace {

using Clock = std::chrono::steady_clock;

// Optimised slopes at the root and in every child: a child bounded with CROWN's fixed slopes is
// looser than its parent's optimised bound, so splitting gains nothing (mnistfc prop_0_0.03:
// still open after 3,781 sub-problems without them in children, proven after 11 with them).
constexpr int kRootAlphaIterations = 20;
constexpr int kChildAlphaIterations = 20;
// The attack re-runs every this many waves (seeds from the wave number: deterministic).
constexpr std::uint64_t kAttackEveryWaves = 8;
// Branching looks ahead: the best-scored unstable neurons each get both children bounded
// (fixed slopes, the parent's node bounds reused: cheap), and the split whose worse child bound
// is highest wins (filtered smart branching).
constexpr std::size_t kLookaheadCandidates = 8;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Activation output_activation(const Model& m) {
  if (m.kind == ModelKind::graph) return m.graph_output_activation;
  return m.layers.empty() ? Activation::identity : m.layers.back().activation;
}

std::size_t free_inputs(const VnnRegion& r) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < r.lo.size(); ++i) k += r.lo[i] < r.hi[i] ? 1 : 0;
  return k;
}

// Per region: its atoms flattened, each conjunction as indices into them, and the objectives.
struct RegionAtoms {
  std::vector<const LinearAtom*> atoms;
  std::vector<std::vector<std::uint32_t>> conj;
  std::vector<GraphObjective> objectives;
};

RegionAtoms region_atoms(const VnnRegion& reg) {
  RegionAtoms ra;
  for (const auto& c : reg.unsafe) {
    std::vector<std::uint32_t> idx;
    for (const auto& a : c) {
      idx.push_back(static_cast<std::uint32_t>(ra.atoms.size()));
      ra.atoms.push_back(&a);
      ra.objectives.push_back(GraphObjective{a.y, a.x, a.constant});
    }
    ra.conj.push_back(std::move(idx));
  }
  return ra;
}

// An atom (<= 0, or < 0 when strict) is false on the whole sub-problem.
bool atom_false(const LinearAtom& a, double lower) {
  return a.strict ? lower >= 0 : lower > 0;
}

using NodeBounds = std::pair<std::vector<std::vector<double>>, std::vector<std::vector<double>>>;

// What bounding a sub-problem found; the judge writes it (one thread per sub-problem), the
// in-order merge reads it.
struct Outcome {
  std::shared_ptr<const NodeBounds> bounds;
  std::vector<std::uint32_t> open;  // conjunctions not proven empty
  std::uint32_t first_atom = 0;     // the objective that drives the next branching choice
  ReluSplit branch;
  std::vector<double> lower;   // per atom of the region (-inf: not bounded)
  std::vector<double> corner;  // where the first objective's lower bound points
};

struct Sub {
  std::vector<ReluSplit> splits;
  std::shared_ptr<const NodeBounds> parent;  // null at the root
  // The parent's lower bounds per atom: a child's set lies in its parent's, so they hold too.
  std::shared_ptr<const std::vector<double>> parent_lower;
  std::vector<std::uint32_t> open;
  std::uint32_t region = 0;
  std::uint32_t depth = 0;
  std::uint32_t first_atom = 0;
  mutable std::shared_ptr<Outcome> outcome;
};

class ReluBranch {
 public:
  ReluBranch(const Model& m, const VnnProperty& p, const SplitParams& params, SplitResult& r)
      : m_(m), p_(p), params_(params), r_(r), start_(Clock::now()) {
    if (m.kind == ModelKind::graph) {
      g_ = m.graph.get();
    } else {
      own_ = graph_from_network(m);
      g_ = &own_;
    }
    bounds_ = std::make_unique<GraphBounds>(*g_);
    for (const auto& reg : p.regions) atoms_.push_back(region_atoms(reg));
    region_shares();
  }

  void run() {
    progress_ = std::make_unique<Progress>("count: branch and bound", 1000);
    trace(0.0, 1.0);
    sample();
    if (!r_.counterexample && !out_of_time()) attack(0, {});
    if (r_.counterexample) {
      r_.stopped_by = "decided";
    } else {
      search();
    }
    conclude();
    progress_->finish();
  }

 private:
  bool out_of_time() const {
    return params_.time_limit > 0 && seconds_since(start_) >= params_.time_limit;
  }

  // The time limit as a point in time (none: max()), for the work that checks it inside.
  Clock::time_point deadline() const {
    if (params_.time_limit <= 0) return Clock::time_point::max();
    return start_ + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(params_.time_limit));
  }

  void region_shares() {
    // Log-volumes: 784 widths of 0.06 underflow a product of doubles.
    std::vector<double> logv;
    for (const auto& reg : p_.regions) {
      double s = 0;
      for (std::size_t i = 0; i < reg.lo.size(); ++i) {
        if (reg.lo[i] < reg.hi[i]) s += std::log(reg.hi[i] - reg.lo[i]);
      }
      logv.push_back(s);
    }
    const double top = *std::max_element(logv.begin(), logv.end());
    double sum = 0;
    for (const double l : logv) sum += std::exp(l - top);
    for (const double l : logv) share_.push_back(std::exp(l - top) / sum);
    r_.volume = std::exp(top) * sum;
  }

  void found(const std::vector<double>& x, const std::vector<double>& y, const char* source) {
    if (r_.counterexample) return;
    r_.counterexample = x;
    r_.counterexample_outputs = y;
    r_.counterexample_source = source;
    r_.decision = "violated";
    r_.decision_seconds = seconds_since(start_);
  }

  void trace(double lower, double upper) {
    SplitTrace t;
    t.seconds = seconds_since(start_);
    t.lower = lower;
    t.upper = upper;
    t.boxes = r_.boxes;
    if (r_.trace.size() >= 400) {  // keep every other point: the history stays bounded
      std::size_t kept = 0;
      for (std::size_t i = 0; i < r_.trace.size(); i += 2) r_.trace[kept++] = r_.trace[i];
      r_.trace.resize(kept);
    }
    r_.trace.push_back(t);
  }

  // The progress bar shows the share of the search tree closed (sub-problem at depth d of a
  // region: 2^-d of its share), which is not a share of the box.
  void advance_tree(double closed) {
    tree_closed_ += closed;
    const auto done = static_cast<std::uint64_t>(std::clamp(tree_closed_, 0.0, 1.0) * 1000);
    if (done > shown_) {
      progress_->advance(done - shown_);
      shown_ = done;
    }
  }

  // The uniform sample (the statistical estimate), drawn as input splitting draws it: chunk c
  // of 1024 points from Rng(seed).split(c), regions weighted by volume.
  void sample() {
    const std::size_t n = params_.samples;
    r_.sample_requested = n;
    if (n == 0) return;
    constexpr std::size_t kChunk = 1024, kWave = 64, kCheckEvery = 64;
    const std::size_t n_chunks = (n + kChunk - 1) / kChunk;
    std::uint64_t k = 0;
    std::size_t drawn = 0;
    auto stop_reason = [&]() -> const char* {
      if (interrupt_requested()) return "interrupted";
      return out_of_time() ? "time limit" : nullptr;
    };
    for (std::size_t c0 = 0; c0 < n_chunks && r_.sample_stopped_by.empty(); c0 += kWave) {
      const std::size_t w = std::min(kWave, n_chunks - c0);
      std::vector<std::uint64_t> hits(w, 0);
      std::vector<std::vector<double>> fx(w), fy(w);
      std::vector<std::uint8_t> done(w, 0);
      std::vector<std::size_t> drawn_in(w, 0);
      std::vector<const char*> cut(w, nullptr);
      const char* stopped = parallel_for_until(w, params_.threads, stop_reason, [&](std::size_t i) {
        const std::size_t c = c0 + i;
        Rng rng = Rng(params_.seed).split(c);
        std::vector<double> x(p_.n_inputs);
        const std::size_t end = std::min(n, (c + 1) * kChunk);
        for (std::size_t s = c * kChunk; s < end; ++s, ++drawn_in[i]) {
          // A chunk of a large network's forward passes takes seconds: the limit is checked
          // within it too (a time-based cut does not bias the points drawn).
          if (drawn_in[i] % kCheckEvery == kCheckEvery - 1 && (cut[i] = stop_reason())) break;
          double pick = rng.uniform();
          std::size_t reg = 0;
          while (reg + 1 < share_.size() && pick >= share_[reg]) pick -= share_[reg++];
          const auto& rg = p_.regions[reg];
          for (std::size_t d = 0; d < x.size(); ++d) {
            x[d] = std::min(rg.hi[d], rg.lo[d] + rng.uniform() * (rg.hi[d] - rg.lo[d]));
          }
          std::vector<double> y = predict_scores(m_, x);
          if (unsafe_at(rg, x.data(), y.data()) && hits[i]++ == 0) {
            fx[i] = x;
            fy[i] = std::move(y);
          }
        }
        done[i] = 1;
      });
      for (std::size_t i = 0; i < w; ++i) {
        if (!done[i]) continue;
        if (hits[i] && !r_.counterexample) found(fx[i], fy[i], "sample");
        k += hits[i];
        drawn += drawn_in[i];
        if (cut[i] && !stopped) stopped = cut[i];
      }
      if (stopped) r_.sample_stopped_by = stopped;
    }
    r_.sample = proportion(k, drawn, params_.confidence);
    if (!r_.sample_stopped_by.empty()) {
      warn(fmt::format(
          "the uniform sample stopped after {} of {} points ({}); its estimate and interval use "
          "the points drawn",
          drawn, n, r_.sample_stopped_by));
    }
  }

  // PGD on every region; `round` seeds it, `corners` are extra starts (per region).
  void attack(std::uint64_t round, const std::vector<std::vector<std::vector<double>>>& corners) {
    AttackParams ap;
    ap.threads = params_.threads;
    ap.deadline = deadline();
    for (std::size_t reg = 0; reg < p_.regions.size() && !r_.counterexample; ++reg) {
      ap.seed = Rng(params_.seed).split(1000003 + round).split(reg).next();
      static const std::vector<std::vector<double>> none;
      const auto& c = reg < corners.size() ? corners[reg] : none;
      if (auto hit = pgd_attack(m_, *g_, p_.regions[reg], c, ap)) {
        found(hit->x, hit->y, "attack");
      }
    }
  }

  std::vector<GraphObjective> objectives(const Sub& s, std::vector<std::uint32_t>& ids) const {
    const RegionAtoms& ra = atoms_[s.region];
    ids.clear();
    ids.push_back(s.first_atom);
    for (const auto c : s.open) {
      for (const auto a : ra.conj[c]) {
        if (a != s.first_atom) ids.push_back(a);
      }
    }
    std::vector<GraphObjective> objs;
    for (const auto a : ids) objs.push_back(ra.objectives[a]);
    return objs;
  }

  // Bounds one sub-problem: proven (decided), branch on a neuron (split), or stuck (open).
  Verdict judge(const Sub& s) const {
    Verdict v;
    const VnnRegion& reg = p_.regions[s.region];
    const RegionAtoms& ra = atoms_[s.region];
    std::vector<std::uint32_t> ids;
    const std::vector<GraphObjective> objs = objectives(s, ids);
    GraphBoundParams bp;
    bp.method = params_.bounds;
    bp.alpha_iterations = s.depth == 0 ? kRootAlphaIterations : kChildAlphaIterations;
    bp.stop_when_positive = true;  // a sub-problem whose objectives are all > 0 is closed
    bp.lower_only = true;          // only lower bounds close conjunctions
    bp.deadline = deadline();      // a bound of a large graph takes seconds: stop on time
    if (s.parent) {
      bp.reuse_lower = &s.parent->first;
      bp.reuse_upper = &s.parent->second;
      bp.reuse_same_box = true;
    }
    GraphBoundResult b;
    bounds_->bound(reg.lo, reg.hi, objs, s.splits, bp, b);
    if (b.infeasible) {
      v.kind = Verdict::Kind::decided;
      return v;
    }
    std::vector<double> lower(ra.atoms.size(), -INFINITY);
    for (std::size_t k = 0; k < ids.size(); ++k) lower[ids[k]] = b.lower[k];
    if (s.parent_lower) {
      for (std::size_t a = 0; a < lower.size(); ++a)
        lower[a] = std::max(lower[a], (*s.parent_lower)[a]);
    }
    auto out = std::make_shared<Outcome>();
    double worst = INFINITY;
    for (const auto c : s.open) {
      double best = -INFINITY;
      std::uint32_t best_atom = 0;
      bool empty = false;
      for (const auto a : ra.conj[c]) {
        if (atom_false(*ra.atoms[a], lower[a])) empty = true;
        if (lower[a] > best) best = lower[a], best_atom = a;
      }
      if (empty) continue;
      out->open.push_back(c);
      if (best < worst) worst = best, out->first_atom = best_atom;
    }
    if (out->open.empty()) {
      v.kind = Verdict::Kind::decided;
      return v;
    }
    // The corner objective 0's lower bound points to: a cheap concrete check.
    const std::size_t n = reg.lo.size();
    out->corner.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double coef = b.input_coef.size() >= n ? b.input_coef[i] : 0.0;
      out->corner[i] = coef > 0 ? reg.lo[i] : coef < 0 ? reg.hi[i] : 0.5 * (reg.lo[i] + reg.hi[i]);
    }
    std::vector<double> y = predict_scores(m_, out->corner);
    if (unsafe_at(reg, out->corner.data(), y.data())) {
      v.witness_x = out->corner;
      v.witness_y = std::move(y);
    }
    if (!pick_neuron(s, reg, objs.front(), b, out->branch)) {
      v.kind = Verdict::Kind::open;
      s.outcome = std::move(out);
      return v;
    }
    out->lower = std::move(lower);
    out->bounds =
        std::make_shared<const NodeBounds>(std::move(b.node_lower), std::move(b.node_upper));
    v.kind = Verdict::Kind::split;
    s.outcome = std::move(out);
    return v;
  }

  struct Candidate {
    ReluSplit split;
    double score = 0, area = 0;
  };

  // The unsplit unstable neurons, best first: by relu_score, then (without scores) by the
  // relaxation area -l*u/(u-l); at most kLookaheadCandidates.
  std::vector<Candidate> candidates(const Sub& s, const GraphBoundResult& b) const {
    std::vector<Candidate> all;
    for (std::size_t k = 0; k < g_->nodes.size(); ++k) {
      const GraphNode& nd = g_->nodes[k];
      if (nd.op != GraphOp::relu) continue;
      const auto& l = b.node_lower[nd.source];
      const auto& u = b.node_upper[nd.source];
      const bool scored = k < b.relu_score.size() && !b.relu_score[k].empty();
      for (std::size_t i = 0; i < nd.size; ++i) {
        if (!(l[i] < 0 && u[i] > 0) || is_split(s, k, i)) continue;
        all.push_back(
            {ReluSplit{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(i), false},
             scored ? b.relu_score[k][i] : 0.0, -l[i] * u[i] / (u[i] - l[i])});
      }
    }
    const auto better = [](const Candidate& a, const Candidate& c) {
      if (a.score != c.score) return a.score > c.score;
      if (a.area != c.area) return a.area > c.area;
      return std::tie(a.split.node, a.split.index) < std::tie(c.split.node, c.split.index);
    };
    const std::size_t keep = std::min(all.size(), kLookaheadCandidates);
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(),
                      better);
    all.resize(keep);
    return all;
  }

  // The lower bound of `objective` in the child with `split` added (+inf when it is empty).
  double child_lower(const Sub& s, const VnnRegion& reg, const GraphObjective& objective,
                     const GraphBoundResult& b, const ReluSplit& split) const {
    std::vector<ReluSplit> splits = s.splits;
    splits.push_back(split);
    GraphBoundParams bp;
    bp.method = params_.bounds;
    bp.reuse_lower = &b.node_lower;
    bp.reuse_upper = &b.node_upper;
    bp.reuse_same_box = true;
    bp.lower_only = true;
    GraphBoundResult c;
    bounds_->bound(reg.lo, reg.hi, std::span<const GraphObjective>(&objective, 1), splits, bp, c);
    return c.infeasible ? INFINITY : c.lower.front();
  }

  // The neuron to split: among the candidates, the one whose worse child has the highest
  // bound of the first objective (ties: the better-scored). False when every ReLU is stable or
  // split.
  bool pick_neuron(const Sub& s, const VnnRegion& reg, const GraphObjective& objective,
                   const GraphBoundResult& b, ReluSplit& out) const {
    const std::vector<Candidate> cands = candidates(s, b);
    if (cands.empty()) return false;
    out = cands.front().split;
    if (cands.size() == 1 || params_.bounds != BoundMethod::linear || out_of_time()) return true;
    double best = -INFINITY;
    for (const Candidate& c : cands) {
      ReluSplit off = c.split, on = c.split;
      on.active = true;
      const double worse =
          std::min(child_lower(s, reg, objective, b, off), child_lower(s, reg, objective, b, on));
      if (worse > best) best = worse, out = c.split;
    }
    return true;
  }

  static bool is_split(const Sub& s, std::size_t node, std::size_t index) {
    return std::any_of(s.splits.begin(), s.splits.end(),
                       [&](const ReluSplit& r) { return r.node == node && r.index == index; });
  }

  void apply(Frontier<Sub>& frontier, Sub& s, Verdict& v) {
    if (!v.witness_x.empty()) found(v.witness_x, v.witness_y, "search");
    const double weight = std::ldexp(share_[s.region], -static_cast<int>(s.depth));
    if (s.outcome && !s.outcome->corner.empty()) {
      auto& c = corners_[s.region];
      if (c.size() < 2) c.push_back(s.outcome->corner);
    }
    switch (v.kind) {
      case Verdict::Kind::decided:
        ++r_.safe_boxes;
        advance_tree(weight);
        return;
      case Verdict::Kind::split: {
        const auto lower = std::make_shared<const std::vector<double>>(std::move(s.outcome->lower));
        for (const bool active : {false, true}) {
          Sub child;
          child.splits = s.splits;
          ReluSplit split = s.outcome->branch;
          split.active = active;
          child.splits.push_back(split);
          child.parent = s.outcome->bounds;
          child.parent_lower = lower;
          child.open = s.outcome->open;
          child.first_atom = s.outcome->first_atom;
          child.region = s.region;
          child.depth = s.depth + 1;
          frontier.push(-static_cast<double>(child.depth), std::move(child));
        }
        return;
      }
      default:
        ++stuck_;
        ++r_.open_boxes;
        return;
    }
  }

  void search() {
    Frontier<Sub> frontier;
    for (std::uint32_t reg = 0; reg < p_.regions.size(); ++reg) {
      Sub root;
      root.region = reg;
      for (std::uint32_t c = 0; c < atoms_[reg].conj.size(); ++c) root.open.push_back(c);
      // Empty conjunction: the whole region is unsafe, the centre a counterexample.
      if (std::any_of(atoms_[reg].conj.begin(), atoms_[reg].conj.end(),
                      [](const auto& c) { return c.empty(); })) {
        attack(0, {});
        if (r_.counterexample) break;
      }
      if (!atoms_[reg].atoms.empty()) root.first_atom = atoms_[reg].conj.front().front();
      frontier.push(0.0, std::move(root));
    }
    if (r_.counterexample) {
      r_.stopped_by = "decided";
      return;
    }
    std::size_t node_values = 0;
    for (const auto& nd : g_->nodes) node_values += nd.size;
    const std::size_t payload = 2 * heap_bytes(node_values * sizeof(double)) +
                                heap_bytes(64 * sizeof(ReluSplit)) + heap_bytes(64);
    WaveBudget budget{params_.time_limit, params_.max_boxes, params_.threads, start_};
    budget.max_pieces = std::max<std::uint64_t>(1, r_.memory_budget / frontier_bytes<Sub>(payload));
    std::uint64_t wave = 0;
    corners_.assign(p_.regions.size(), {});
    r_.stopped_by = run_waves(
        frontier, budget, r_.boxes, [&](const Sub& s) { return judge(s); },
        [&](Sub& s, Verdict& v) {
          apply(frontier, s, v);
          s.outcome.reset();
        },
        [&] {
          ++wave;
          if (!r_.counterexample && wave % kAttackEveryWaves == 0 && !out_of_time()) {
            attack(wave, corners_);
          }
          corners_.assign(p_.regions.size(), {});
          trace(0.0, 1.0);
          // A counterexample ends the search: phase splitting cannot measure the unsafe share.
          return r_.counterexample.has_value();
        });
    r_.open_boxes += frontier.size();
  }

  void conclude() {
    const bool all_proven = !r_.counterexample && r_.stopped_by == "finished" && stuck_ == 0;
    if (all_proven) {
      r_.decision = "holds";
      r_.decision_seconds = seconds_since(start_);
      r_.finished = true;
      r_.unsafe_lower = r_.unsafe_upper = 0.0;
    } else {
      r_.finished = false;
      r_.unsafe_lower = 0.0;
      r_.unsafe_upper = 1.0;
      if (r_.stopped_by == "finished") r_.stopped_by = "open sub-problems";
    }
    trace(r_.unsafe_lower, r_.unsafe_upper);
  }

  const Model& m_;
  const VnnProperty& p_;
  const SplitParams& params_;
  SplitResult& r_;
  Clock::time_point start_;
  GraphNetwork own_;
  const GraphNetwork* g_ = nullptr;
  std::unique_ptr<GraphBounds> bounds_;
  std::vector<RegionAtoms> atoms_;
  std::vector<double> share_;
  std::unique_ptr<Progress> progress_;
  double tree_closed_ = 0;
  std::uint64_t shown_ = 0, stuck_ = 0;
  std::vector<std::vector<std::vector<double>>> corners_;
};

std::string stop_text(const SplitResult& r, const SplitParams& params) {
  const std::string what =
      "the unsafe share [0, 1] is what phase splitting certifies until every sub-problem is "
      "proven; the sampled estimate is statistical";
  const std::string open =
      fmt::format("{} sub-problem{}", r.open_boxes, r.open_boxes == 1 ? "" : "s");
  if (r.stopped_by == "time limit") {
    return fmt::format(
        "stopped at the time limit of {} s with {} open; {} (raise "
        "--time-limit / time_limit to go on)",
        params.time_limit, open, what);
  }
  if (r.stopped_by == "max boxes") {
    return fmt::format("stopped after {} sub-problems (--max-boxes / max_boxes) with {} open; {}",
                       params.max_boxes, r.open_boxes, what);
  }
  if (r.stopped_by == "memory budget") {
    return fmt::format(
        "stopped when the {} open sub-problems reached the memory budget of {} "
        "(raise --max-memory / max_memory, in MB); {}",
        r.open_boxes, memory_text(r.memory_budget), what);
  }
  if (r.stopped_by == "interrupted") {
    return fmt::format("interrupted with {} open; {}", open, what);
  }
  if (r.stopped_by == "open sub-problems") {
    return fmt::format(
        "{} sub-problems have every ReLU fixed and are still not proven (the "
        "relaxation of other nonlinearities is too loose there); {}",
        r.open_boxes, what);
  }
  return "";
}

}  // namespace

bool use_relu_branch(const Model& m, const VnnProperty& p) {
  if (m.kind == ModelKind::graph) return true;
  if (p.integer_inputs || output_activation(m) != Activation::identity) return false;
  // Input splitting bounds dense layers with NetworkBounds, which covers ReLU and identity
  // hidden layers only; the graph bounds relax logistic ones too.
  for (std::size_t l = 0; l + 1 < m.layers.size(); ++l) {
    if (m.layers[l].activation == Activation::logistic) return true;
  }
  return !p.regions.empty() && free_inputs(p.regions.front()) > kReluBranchMinInputs;
}

SplitResult count_unsafe_relu_branch(const Model& m, const VnnProperty& p,
                                     const SplitParams& params) {
  if (p.integer_inputs) {
    fail("{}: graph networks are counted over continuous (Real) inputs; its inputs are Int",
         p.file);
  }
  if (output_activation(m) != Activation::identity) {
    fail(
        "branch and bound bounds the network's scores before its output activation; this "
        "network applies {} to them, which VNN-LIB atoms over Y cannot be bounded through",
        output_activation(m) == Activation::softmax ? "softmax" : "the logistic function");
  }
  SplitResult r;
  r.route = "relu branch and bound";
  r.domain = "continuous";
  r.n_inputs = p.n_inputs;
  r.n_outputs = p.n_outputs;
  r.n_regions = p.regions.size();
  r.confidence = params.confidence;
  r.sample = proportion(0, 0, params.confidence);
  r.memory_budget = memory_budget(params.max_memory);
  const auto start = Clock::now();
  ReluBranch(m, p, params, r).run();
  r.seconds = seconds_since(start);
  r.stop_message = stop_text(r, params);
  if (r.stopped_by == "memory budget") warn(r.stop_message);
  return r;
}

}  // namespace assay::count::detail
