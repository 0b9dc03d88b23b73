// count()'s method "split": truths, safety properties and regions of a .spec grid counted by
// domain splitting with network bounds (domain_split.hpp), exact when every piece is decided.
#include "split_spec.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/warning.hpp"
#include "assay/count/count_params.hpp"
#include "assay/count/domain_split.hpp"
#include "box.hpp"
#include "checks.hpp"
#include "enumerate.hpp"
#include "split_engine.hpp"
#include "three_valued.hpp"

namespace assay::count::detail {

namespace {

using Clock = std::chrono::steady_clock;

// One count: its cells and how a point or a box falls into them.
struct Check {
  enum class Kind { truth, safety, region } kind = Kind::truth;
  std::int32_t label = 0;         // truth: the label l; region: the label L
  const Formula* psi = nullptr;   // truth
  bool negate = false;            // truth: the complement of another label's truth
  const Formula* pre = nullptr;   // safety
  const Formula* post = nullptr;  // safety
  int n_cells() const { return kind == Kind::truth ? 4 : 2; }
};

int truth_cell(bool psi, bool phi) {
  return phi ? (psi ? 0 : 1) : (psi ? 3 : 2);  // TP, FP, TN, FN
}

class SpecJudge {
 public:
  SpecJudge(const Model& m, const NetworkBounds& nb, const Domain& d, const Check& c,
            const SplitParams& p)
      : m_(m), nb_(nb), d_(d), c_(c), limit_(p.enumerate_limit) {}

  Verdict judge(const Box& box) const {
    const mpz_class size = box_size(box);
    if (size <= mpz_class(static_cast<unsigned long>(limit_))) return enumerate(box, size.get_ui());
    Verdict v;
    std::vector<double> influence;
    int label = -2;  // not computed yet
    auto need_label = [&] {
      if (label == -2) label = label_on(box, influence);
      return label;
    };
    auto three = [&](const Formula& f, std::int64_t& split_var) {
      Outputs o;
      o.label = label;
      ThreeValued tv(f, d_, box, o);
      const std::uint8_t s = tv.run(f.root);
      split_var = tv.split_var;
      return s;
    };
    auto split_network = [&] {
      v.kind = Verdict::Kind::split;
      v.dim = widest_influence(box, influence);
      return v;
    };
    auto split_at = [&](std::int64_t var) {
      v.kind = Verdict::Kind::split;
      v.dim = static_cast<std::size_t>(var);
      return v;
    };
    auto decided = [&](int cell) {
      v.kind = Verdict::Kind::decided;
      v.cell = cell;
      return v;
    };
    std::int64_t var = -1;
    switch (c_.kind) {
      case Check::Kind::truth: {
        if (c_.psi->uses_model() && need_label() < 0) return split_network();
        std::uint8_t psi = three(*c_.psi, var);
        if (psi == kUnknown) return split_at(var);
        if (c_.negate) psi = static_cast<std::uint8_t>(1 - psi);
        if (need_label() < 0) return split_network();
        return decided(truth_cell(psi == kTrue, label == c_.label));
      }
      case Check::Kind::safety: {
        if (c_.pre->uses_model() && need_label() < 0) return split_network();
        const std::uint8_t pre = three(*c_.pre, var);
        if (pre == kFalse) return decided(-1);
        if (pre == kUnknown) return split_at(var);
        if (c_.post->uses_model() && need_label() < 0) return split_network();
        const std::uint8_t post = three(*c_.post, var);
        if (post == kUnknown) return split_at(var);
        return decided(post == kTrue ? 0 : 1);
      }
      case Check::Kind::region:
        if (need_label() < 0) return split_network();
        return decided(label == c_.label ? 0 : 1);
    }
    return v;
  }

 private:
  Verdict enumerate(const Box& box, std::uint64_t size) const {
    Verdict v;
    v.kind = Verdict::Kind::counted;
    v.counts.assign(c_.n_cells() + 1, 0);
    const std::size_t n = box.lo.size();
    std::vector<std::uint64_t> k(box.lo);
    std::vector<double> x(n), scores;
    std::vector<std::size_t> leaves;
    for (std::uint64_t i = 0; i < size; ++i) {
      for (std::size_t j = 0; j < n; ++j) x[j] = d_.vars[j].value(k[j]);
      const std::int32_t label = model_at(m_, x.data(), leaves, scores);
      const int cell = point_cell(x.data(), label, scores);
      ++v.counts[cell < 0 ? c_.n_cells() : cell];
      for (std::size_t j = 0; j < n; ++j) {
        if (k[j] < box.hi[j]) {
          ++k[j];
          break;
        }
        k[j] = box.lo[j];
      }
    }
    return v;
  }

  int point_cell(const double* x, std::int32_t label, const std::vector<double>& s) const {
    auto holds = [&](const Formula& f) { return evaluate(f, x, label, s.data(), s.size()) != 0; };
    switch (c_.kind) {
      case Check::Kind::truth:
        return truth_cell(holds(*c_.psi) != c_.negate, label == c_.label);
      case Check::Kind::safety:
        if (!holds(*c_.pre)) return -1;
        return holds(*c_.post) ? 0 : 1;
      case Check::Kind::region:
        return label == c_.label ? 0 : 1;
    }
    return -1;
  }

  // The label if the network's bounds prove it constant on the box, else -1 (influence set).
  int label_on(const Box& box, std::vector<double>& influence) const {
    const std::size_t n = box.lo.size(), k = nb_.n_outputs();
    std::vector<double> lo(n), hi(n), mid(n), scores;
    std::vector<std::size_t> leaves;
    for (std::size_t j = 0; j < n; ++j) {
      lo[j] = d_.vars[j].value(box.lo[j]);
      hi[j] = d_.vars[j].value(box.hi[j]);
      mid[j] = d_.vars[j].value(box.lo[j] + (box.hi[j] - box.lo[j]) / 2);
    }
    const std::int32_t cand = model_at(m_, mid.data(), leaves, scores);
    std::vector<LinearObjective> obj;
    std::vector<double> sign;  // +1: the objective must be > 0 for the candidate
    if (k == 1) {
      // One output: label 1 iff sigmoid(z) > 0.5 (z > 0), or z > 0.5 for an identity output.
      LinearObjective o;
      o.w = {1.0};
      o.c = nb_.output_activation() == Activation::logistic ? 0.0 : -0.5;
      obj.push_back(o);
      sign.push_back(cand == 1 ? 1.0 : -1.0);
    } else {
      for (std::size_t j = 0; j < k; ++j) {
        if (static_cast<std::int32_t>(j) == cand) continue;
        LinearObjective o;
        o.w.assign(k, 0.0);
        o.w[cand] = 1.0;
        o.w[j] = -1.0;
        obj.push_back(o);
        sign.push_back(1.0);
      }
    }
    BoundResult b;
    nb_.bound(lo, hi, obj, BoundMethod::linear, b);
    influence.assign(n, 0.0);
    bool proven = true;
    for (std::size_t q = 0; q < obj.size(); ++q) {
      const double lower = sign[q] > 0 ? b.lower[q] : -b.upper[q];
      if (lower > grid_margin(b.lower[q], b.upper[q])) continue;
      proven = false;
      for (std::size_t j = 0; j < n; ++j) influence[j] += b.influence[q * n + j];
    }
    return proven ? cand : -1;
  }

  static double grid_margin(double lo, double up) {
    return 1e-9 * (1.0 + std::abs(lo) + std::abs(up));
  }

  static std::size_t widest_influence(const Box& box, const std::vector<double>& influence) {
    std::size_t best = box.lo.size();
    for (std::size_t j = 0; j < box.lo.size(); ++j) {
      if (box.lo[j] == box.hi[j]) continue;
      if (best == box.lo.size() || influence[j] > influence[best]) best = j;
    }
    if (best < box.lo.size() && influence[best] > 0) return best;
    std::uint64_t w = 0;
    for (std::size_t j = 0; j < box.lo.size(); ++j) {
      if (box.hi[j] - box.lo[j] > w) w = box.hi[j] - box.lo[j], best = j;
    }
    return best;
  }

  const Model& m_;
  const NetworkBounds& nb_;
  const Domain& d_;
  const Check& c_;
  std::uint64_t limit_;
};

struct CheckCounts {
  std::vector<mpz_class> cells;
  mpz_class undecided;
  bool finished = false;
  std::uint64_t boxes = 0, enumerated = 0, open = 0, memory_budget = 0;
  std::string stopped_by;
};

CheckCounts split_check(const Model& m, const NetworkBounds& nb, const Domain& d, const Box& root,
                        const Check& c, const SplitParams& params, const std::string& task) {
  const SpecJudge judge(m, nb, d, c, params);
  CheckCounts out;
  out.cells.assign(c.n_cells() + 1, 0);
  const mpz_class total = box_size(root);
  Frontier<Box> frontier;
  frontier.push(std::log2(total.get_d()), root);
  Progress progress(task, 1000);
  std::uint64_t shown = 0;
  mpz_class decided = 0;
  WaveBudget budget{params.time_limit, params.max_boxes, params.threads, Clock::now()};
  out.memory_budget = memory_budget(params.max_memory);
  const std::size_t piece = frontier_bytes<Box>(2 * heap_bytes(root.lo.size() * 8));
  budget.max_pieces = std::max<std::uint64_t>(1, out.memory_budget / piece);
  out.stopped_by = run_waves(
      frontier, budget, out.boxes, [&](const Box& b) { return judge.judge(b); },
      [&](Box& b, Verdict& v) {
        if (v.kind == Verdict::Kind::decided) {
          const mpz_class s = box_size(b);
          out.cells[v.cell < 0 ? c.n_cells() : v.cell] += s;
          decided += s;
        } else if (v.kind == Verdict::Kind::counted) {
          ++out.enumerated;
          for (std::size_t i = 0; i < v.counts.size(); ++i) {
            out.cells[i] += mpz_class(static_cast<unsigned long>(v.counts[i]));
            decided += mpz_class(static_cast<unsigned long>(v.counts[i]));
          }
        } else {
          Box a = b;
          const std::size_t j = v.dim;
          const std::uint64_t mid = b.lo[j] + (b.hi[j] - b.lo[j]) / 2;
          a.hi[j] = mid;
          b.lo[j] = mid + 1;
          frontier.push(std::log2(box_size(a).get_d()), std::move(a));
          frontier.push(std::log2(box_size(b).get_d()), std::move(b));
        }
      },
      [&] {
        const auto done = static_cast<std::uint64_t>(1000 * mpq_class(decided, total).get_d());
        if (done > shown) progress.advance(done - shown), shown = done;
        return false;
      });
  progress.finish();
  out.undecided = total - decided;
  out.finished = out.undecided == 0;
  out.open = frontier.size();
  if (out.stopped_by == "memory budget") {
    warn(fmt::format("{}: {}", task.substr(task.find(' ') + 1),
                     stop_message(out.stopped_by, params.time_limit, params.max_boxes,
                                  out.memory_budget, params.max_memory, out.open)));
  }
  return out;
}

Guarantee split_guarantee(const CheckCounts& k) {
  Guarantee g;
  g.method = to_string(CountMethod::split);
  g.exact = k.finished;
  g.bounded = !k.finished;
  g.note = fmt::format("{} boxes bounded, {} enumerated{}", k.boxes, k.enumerated,
                       k.finished ? "" : "; stopped by the " + k.stopped_by);
  return g;
}

void check_label_only(const Formula& f, const std::string& what) {
  for (const auto& n : f.nodes) {
    if (n.op == Formula::Op::score || n.op == Formula::Op::argmax) {
      fail(
          "method split reads the predicted label only; {} uses score[k] or argmax (use method "
          "enumerate)",
          what);
    }
  }
}

}  // namespace

StageCounts split_counts(const Model& m, const Spec& spec, const Checks& c,
                         const SplitParams& params) {
  if (!m.classification) fail("method split counts classifiers; the network is a regressor");
  StageCounts r = empty_counts(c, to_string(CountMethod::split));
  const NetworkBounds nb(m);
  const Box root = full_box(spec.domain);
  for (std::size_t i = 0; i < c.truths.size(); ++i) {
    const auto& t = c.truths[i];
    Check k;
    k.kind = Check::Kind::truth;
    k.label = t.label;
    k.psi = t.formula;
    std::int32_t written = t.label;  // the label whose formula the spec states
    if (!k.psi) {
      k.psi = c.truths[t.complement_of].formula;
      k.negate = true;
      written = c.truths[t.complement_of].label;
    }
    check_label_only(*k.psi, fmt::format("the truth of label {}", written));
    const CheckCounts cc =
        split_check(m, nb, spec.domain, root, k, params, fmt::format("count: label {}", t.label));
    LabelCounts& l = r.labels[i];
    l.tp = cc.cells[0];
    l.fp = cc.cells[1];
    l.tn = cc.cells[2];
    l.fn = cc.cells[3];
    l.guarantee = split_guarantee(cc);
    l.tp_bounds = {l.tp, l.tp + cc.undecided};
    l.fp_bounds = {l.fp, l.fp + cc.undecided};
    l.tn_bounds = {l.tn, l.tn + cc.undecided};
    l.fn_bounds = {l.fn, l.fn + cc.undecided};
    r.boxes += cc.boxes;
  }
  for (std::size_t i = 0; i < c.safety.size(); ++i) {
    const auto* s = c.safety[i];
    Check k;
    k.kind = Check::Kind::safety;
    k.pre = &s->pre;
    k.post = &s->post;
    check_label_only(s->pre, "safety property " + s->name);
    check_label_only(s->post, "safety property " + s->name);
    const CheckCounts cc = split_check(m, nb, spec.domain, root, k, params, "count: " + s->name);
    SafetyCounts& sc = r.safety[i];
    sc.satisfied = cc.cells[0];
    sc.violated = cc.cells[1];
    sc.guarantee = split_guarantee(cc);
    sc.satisfied_bounds = {sc.satisfied, sc.satisfied + cc.undecided};
    sc.violated_bounds = {sc.violated, sc.violated + cc.undecided};
    r.boxes += cc.boxes;
  }
  for (const auto* reg : c.regions) {
    Check k;
    k.kind = Check::Kind::region;
    k.label = reg->label;
    const Box box = region_box(spec.domain, reg->center, reg->epsilon);
    const CheckCounts cc = split_check(m, nb, spec.domain, box, k, params, "count: " + reg->name);
    RegionCounts rc;
    rc.name = reg->name;
    rc.label = reg->label;
    rc.total = box_size(box);
    rc.count = cc.cells[0];
    rc.guarantee = split_guarantee(cc);
    rc.count_bounds = {rc.count, rc.count + cc.undecided};
    r.boxes += cc.boxes;
    r.regions.push_back(std::move(rc));
  }
  return r;
}

}  // namespace assay::count::detail
