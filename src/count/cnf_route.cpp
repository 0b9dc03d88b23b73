#include "cnf_route.hpp"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/count/approx_counter.hpp"
#include "assay/count/count_params.hpp"
#include "assay/count/encoding.hpp"
#include "assay/count/exact_counter.hpp"
#include "box.hpp"
#include "encode_query.hpp"
#include "enumerate.hpp"
#include "hamming.hpp"

namespace assay::count::detail {

namespace {

Value operator+(const Value& a, const Value& b) {
  return {a.lo + b.lo, a.hi + b.hi, a.approx || b.approx};
}
Value operator-(const Value& a, const Value& b) {
  return {a.lo - b.hi, a.hi - b.lo, a.approx || b.approx};
}
Value exact_value(const mpz_class& n) {
  return {n, n, false};
}

}  // namespace

// A count of points of a set of `size` points lies in [0, size]; bounds from differences and
// sums (and estimates) can leave it.
Value within(Value v, const mpz_class& size) {
  for (mpz_class* x : {&v.lo, &v.hi}) {
    if (*x < 0) *x = 0;
    if (*x > size) *x = size;
  }
  return v;
}

// The four cells of a label (cnf_route.hpp): from certified bounds of #psi (p), #phi (phi) and
// #(psi and phi) (tp) over a domain of n points, each as tight as those bounds allow: tp is at most
// p and phi and at least p + phi - n; fp = phi - tp lies in the complement of psi (at most n - p),
// fn = p - tp in that of phi, tn = n - p - phi + tp in both; and the cells partition the domain, so
// each is at most n minus the others' lower bounds and at least n minus their upper bounds.
// Estimates (approx) are only kept within [0, n]: differences of estimates carry no guarantee.
std::array<Value, 4> label_cells(const Value& p_in, const Value& phi_in, const Value& tp_in,
                                 const mpz_class& n) {
  const Value p = within(p_in, n), phi = within(phi_in, n);
  Value tp = within(tp_in, n);
  if (p.approx || phi.approx || tp.approx) {
    return {tp, within(phi - tp, n), within(exact_value(n) - (p + phi - tp), n), within(p - tp, n)};
  }
  tp.lo = std::max<mpz_class>({tp.lo, p.lo + phi.lo - n, 0});
  tp.hi = std::min<mpz_class>({tp.hi, p.hi, phi.hi});
  Value fp{phi.lo - tp.hi, std::min<mpz_class>(phi.hi - tp.lo, n - p.lo)};
  Value fn{p.lo - tp.hi, std::min<mpz_class>(p.hi - tp.lo, n - phi.lo)};
  Value tn{n - p.hi - phi.hi + tp.lo,
           std::min<mpz_class>({n - p.lo - phi.lo + tp.hi, n - p.lo, n - phi.lo})};
  std::array<Value, 4> cells{tp, within(fp, n), within(tn, n), within(fn, n)};
  std::array<Value, 4> tight = cells;
  for (std::size_t i = 0; i < 4; ++i) {
    mpz_class others_lo = 0, others_hi = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      if (j == i) continue;
      others_lo += cells[j].lo;
      others_hi += cells[j].hi;
    }
    tight[i].hi = std::min<mpz_class>(cells[i].hi, n - others_lo);
    tight[i].lo = std::max<mpz_class>(cells[i].lo, n - others_hi);
  }
  return tight;
}

namespace {

// The inputs of one context (the whole domain, or a region) where the circuit may disagree with
// the model: their points when few enough, else only how many there are.
struct Settled {
  EncodeParams enc;  // the precision the context's queries are encoded with
  std::vector<std::vector<double>> points;
  bool too_many = false;
  Value how_many;
};

class CnfCounts {
 public:
  CnfCounts(const Model& m, const Spec& spec, const CnfRouteParams& p)
      : m_(m), spec_(spec), p_(p), backend_(p.backend) {
    enc_.fraction_bits = p.fraction_bits;
    enc_.weight_bits = p.weight_bits;
    enc_.activation_bits = p.activation_bits;
  }

  /// The count of q's inputs for the model itself (not its fixed-point circuit).
  Value count(Query q) {
    const bool model = q.predicted >= 0 || reads_model(q);
    if (!model) {
      q.ambiguity = Query::Ambiguity::ignore;
      ++formulas_;
      return backend_count(encode_query(m_, spec_, q, enc_).cnf);
    }
    const Settled& s = settle(q.region);  // first: it fixes the context's precision
    q.ambiguity = Query::Ambiguity::exclude;
    const Encoding e = encode_query(m_, spec_, q, s.enc);
    Value v = backend_count(e.cnf);
    ++formulas_;
    if (e.exact) return v;
    if (s.too_many) return v + Value{0, s.how_many.hi, s.how_many.approx};
    std::uint64_t hits = 0;
    for (const auto& x : s.points) hits += holds(q, x.data()) ? 1 : 0;
    return v + exact_value(mpz_class(static_cast<unsigned long>(hits)));
  }

  Guarantee guarantee(const std::vector<Value>& parts) const {
    Guarantee g;
    g.method = method_name();
    bool approx = false, bounded = false;
    for (const Value& v : parts) {
      approx = approx || v.approx;
      bounded = bounded || (!v.approx && v.lo != v.hi);
    }
    g.exact = !approx && !bounded;
    g.bounded = bounded;
    if (approx) {
      g.epsilon = p_.epsilon;
      g.delta = p_.delta;
      g.seed = p_.seed;
    }
    std::size_t settled = 0;
    for (const auto& [region, s] : settled_) settled += s.points.size();
    if (settled > 0) {
      g.note = fmt::format(
          "{} input(s) where the fixed-point circuit could disagree with the "
          "model were settled by evaluating the model",
          settled);
    }
    if (approx_used_ && backend_ == CnfBackend::exact_then_approx) {
      if (!g.note.empty()) g.note += "; ";  // separate appends: GCC 12 warns (-Wrestrict)
      g.note += "some counts ran out of time and were counted approximately";
    }
    return g;
  }

  std::uint64_t formulas() const { return formulas_; }
  std::uint64_t settled() const {
    std::uint64_t n = 0;
    for (const auto& [region, s] : settled_) n += s.points.size();
    return n;
  }

 private:
  static bool reads_model(const Query& q) {
    auto reads = [](const Formula* f) { return f != nullptr && f->uses_model(); };
    return reads(q.truth) || reads(q.pre) || reads(q.post);
  }

  std::string method_name() const {
    if (backend_ == CnfBackend::approx) return "approx";
    return approx_used_ ? "exact-cnf+approx" : "exact-cnf";
  }

  Value exact_count(const Cnf& f, bool& complete) {
    ExactCountParams ep;
    ep.time_limit = p_.time_limit;
    ep.threads = p_.threads;  // the circuit route's workers
    const ExactCountResult r = count_exact(f, ep);
    complete = r.complete;
    return {r.lower, r.upper, false};
  }

  Value approx_count(const Cnf& f) {
    ApproxCountParams ap;
    ap.epsilon = p_.epsilon;
    ap.delta = p_.delta;
    ap.seed = p_.seed;
    ap.threads = p_.threads;
    ap.time_limit = p_.time_limit;
    const ApproxCountResult r = count_approx(f, ap);
    if (!r.complete) {  // certified: the models it found, at most every projected assignment
      mpz_class all;
      mpz_ui_pow_ui(all.get_mpz_t(), 2, static_cast<unsigned long>(r.n_projected));
      return {r.lower, all, false};
    }
    approx_used_ = approx_used_ || !r.exact;
    return {r.estimate, r.estimate, !r.exact};
  }

  Value backend_count(const Cnf& f) {
    if (backend_ == CnfBackend::approx) return approx_count(f);
    bool complete = false;
    Value v = exact_count(f, complete);
    if (complete || backend_ == CnfBackend::exact || interrupt_requested()) return v;
    const Value a = approx_count(f);
    if (a.approx || a.lo == a.hi) return a;
    // Both stopped: the tighter of their certified bounds.
    return {std::max<mpz_class>(v.lo, a.lo), std::min<mpz_class>(v.hi, a.hi), false};
  }

  // The ambiguous inputs of a context, enumerated once (each one a point of the domain). When
  // there are many, ensemble sums are re-encoded with more fractional bits first: the band of
  // doubt shrinks with the quantisation error, and enumerating points one by one is slow.
  const Settled& settle(const RegionSpec* region) {
    auto it = settled_.find(region);
    if (it != settled_.end()) return it->second;
    Settled s;
    s.enc = enc_;
    for (;;) {
      Query q;
      q.region = region;
      q.ambiguity = Query::Ambiguity::only;
      const Encoding e = encode_query(m_, spec_, q, s.enc);
      if (e.exact) break;
      const Value n = backend_count(e.cnf);
      ++formulas_;
      if (n.hi > kSettleDirectly && finer_precision(s.enc)) continue;
      if (n.hi > p_.ambiguity_limit) {
        s.too_many = true;
        s.how_many = n;
      } else if (!enumerate_points(e, s)) {  // n was an estimate, or the time ran out
        s.points.clear();
        s.too_many = true;
        s.how_many = n;
      }
      break;
    }
    return settled_.emplace(region, std::move(s)).first->second;
  }

  // A finer encoding, unless the user fixed the precision or it is at the finest: ensemble sums
  // in more fractional bits; network weights and activations in more bits.
  bool finer_precision(EncodeParams& enc) const {
    if (m_.kind == ModelKind::network) {
      const bool defaults = p_.weight_bits == EncodeParams{}.weight_bits &&
                            p_.activation_bits == EncodeParams{}.activation_bits;
      if (!defaults || enc.weight_bits >= kFinestNetworkBits) return false;
      enc.weight_bits += 8;
      enc.activation_bits += 8;
      return true;
    }
    const bool summed = m_.kind == ModelKind::boosted || m_.kind == ModelKind::forest;
    if (!summed || p_.fraction_bits > 0 || enc.fraction_bits >= kFinestFractionBits) return false;
    enc.fraction_bits = enc.fraction_bits < 32 ? 32 : kFinestFractionBits;
    return true;
  }

  // Keeps every ambiguous point; false when there are more than ambiguity_limit or the time
  // limit stopped the enumeration first (the count then gives bounds).
  bool enumerate_points(const Encoding& e, Settled& s) const {
    auto keep = [&](const std::vector<bool>& projected) {
      if (s.points.size() >= p_.ambiguity_limit) return;
      const auto k = decode_inputs(e, projected);
      std::vector<double> x(k.size());
      for (std::size_t v = 0; v < k.size(); ++v) x[v] = spec_.domain.vars[v].value(k[v]);
      s.points.push_back(std::move(x));
    };
    // A circuit with few inputs (every encoding on up to 30 input bits): evaluated 64 inputs at
    // a time by the exact counter's circuit route; otherwise CryptoMiniSat with blocking clauses.
    ExactCountParams ep;
    ep.time_limit = p_.time_limit;
    const CircuitModels c = enumerate_circuit_models(e.cnf, p_.ambiguity_limit + 1, keep, ep);
    if (c.circuit) return !c.interrupted && c.found <= p_.ambiguity_limit;
    const ProjectedEnumeration r =
        enumerate_projected(e.cnf, p_.ambiguity_limit + 1, keep, p_.time_limit);
    return !r.interrupted && r.found <= p_.ambiguity_limit;
  }

  static constexpr std::uint64_t kSettleDirectly = 4096;
  static constexpr int kFinestFractionBits = 52;
  static constexpr int kFinestNetworkBits = 28;

  // Does the query hold at x for the model itself?
  bool holds(const Query& q, const double* x) {
    const std::int32_t label = model_at(m_, x, leaves_, scores_);
    auto eval = [&](const Formula* f) {
      return evaluate(*f, x, label, scores_.data(), scores_.size()) != 0;
    };
    if (q.truth && eval(q.truth) == q.truth_negated) return false;
    if (q.predicted >= 0 && (label == q.predicted) == q.predicted_negated) return false;
    if (q.pre && !eval(q.pre)) return false;
    if (q.post && eval(q.post) == q.post_negated) return false;
    return true;
  }

  const Model& m_;
  const Spec& spec_;
  const CnfRouteParams& p_;
  CnfBackend backend_;
  EncodeParams enc_;
  std::map<const RegionSpec*, Settled> settled_;
  std::vector<std::size_t> leaves_;
  std::vector<double> scores_;
  std::uint64_t formulas_ = 0;
  bool approx_used_ = false;
};

// ------------------------------------------------------------------ per check

Query truth_part(const Checks& c, std::size_t l) {
  const auto& t = c.truths[l];
  const auto& src = t.formula ? t : c.truths[static_cast<std::size_t>(t.complement_of)];
  Query q;
  q.truth = src.formula;
  q.truth_negated = t.formula == nullptr;
  return q;
}

void set_label(LabelCounts& out, const Value& tp, const Value& fp, const Value& tn, const Value& fn,
               const Guarantee& g) {
  out.tp = tp.lo;
  out.fp = fp.lo;
  out.tn = tn.lo;
  out.fn = fn.lo;
  out.guarantee = g;
  if (g.bounded) {
    out.tp_bounds = {tp.lo, tp.hi};
    out.fp_bounds = {fp.lo, fp.hi};
    out.tn_bounds = {tn.lo, tn.hi};
    out.fn_bounds = {fn.lo, fn.hi};
  }
}

// Exact counters: TP, #truth and #predicted per label give the four cells; for two labels whose
// truths are complements, label 0's cells are label 1's, swapped.
void exact_labels(CnfCounts& k, const Model& m, const Checks& c, const mpz_class& domain,
                  StageCounts& r) {
  const bool binary = c.truths.size() == 2 && m.n_classes() == 2 &&
                      (c.truths[0].formula == nullptr || c.truths[1].formula == nullptr);
  for (std::size_t l = 0; l < c.truths.size(); ++l) {
    if (binary && c.truths[l].formula == nullptr) continue;
    Query truth = truth_part(c, l);
    Query predicted;
    predicted.predicted = c.truths[l].label;
    Query both = truth;
    both.predicted = c.truths[l].label;
    const Value p = k.count(truth), phi = k.count(predicted), tp = k.count(both);
    const auto [tp_, fp, tn, fn] = label_cells(p, phi, tp, domain);
    const Guarantee g = k.guarantee({p, phi, tp});
    set_label(r.labels[l], tp_, fp, tn, fn, g);
    if (binary) set_label(r.labels[1 - l], tn, fn, tp_, fp, g);
  }
}

// Approximate counters: each cell counted on its own (differences of estimates have no
// guarantee).
void approx_labels(CnfCounts& k, const Checks& c, const mpz_class& domain, StageCounts& r) {
  for (std::size_t l = 0; l < c.truths.size(); ++l) {
    Value cell[4];
    for (int i = 0; i < 4; ++i) {  // tp, fp, tn, fn
      Query q = truth_part(c, l);
      q.predicted = c.truths[l].label;
      if (i == 1 || i == 2) q.truth_negated = !q.truth_negated;
      q.predicted_negated = i >= 2;
      cell[i] = within(k.count(q), domain);
    }
    set_label(r.labels[l], cell[0], cell[1], cell[2], cell[3],
              k.guarantee({cell[0], cell[1], cell[2], cell[3]}));
  }
}

void safety_counts(CnfCounts& k, const Checks& c, bool approx, const mpz_class& domain,
                   StageCounts& r) {
  for (std::size_t i = 0; i < c.safety.size(); ++i) {
    Query pre;
    pre.pre = &c.safety[i]->pre;
    Query sat = pre;
    sat.post = &c.safety[i]->post;
    Query viol = sat;
    viol.post_negated = true;
    Value s = within(k.count(sat), domain);
    Value n;
    if (approx) {
      n = within(k.count(viol), domain);
    } else {  // S = #(pre and post) <= #pre; N = #pre - S, at most the points outside S
      const Value all_pre = within(k.count(pre), domain);
      if (!s.approx && !all_pre.approx && s.hi > all_pre.hi) s.hi = all_pre.hi;
      n = within(all_pre - s, domain);
      if (!n.approx && n.hi > domain - s.lo) n.hi = domain - s.lo;
    }
    auto& out = r.safety[i];
    out.satisfied = s.lo;
    out.violated = n.lo;
    out.guarantee = k.guarantee({s, n});
    if (out.guarantee.bounded) {
      out.satisfied_bounds = {s.lo, s.hi};
      out.violated_bounds = {n.lo, n.hi};
    }
  }
}

void region_counts(CnfCounts& k, const Spec& spec, const Checks& c, StageCounts& r) {
  for (const RegionSpec* reg : c.regions) {
    RegionCounts rc;
    rc.name = reg->name;
    rc.label = reg->label;
    rc.total = region_size(spec.domain, *reg);
    Query q;
    q.region = reg;
    q.predicted = reg->label;
    const Value v = within(k.count(q), rc.total);
    rc.count = v.lo;
    rc.guarantee = k.guarantee({v});
    if (rc.guarantee.bounded) rc.count_bounds = {v.lo, v.hi};
    r.regions.push_back(std::move(rc));
  }
}

}  // namespace

StageCounts cnf_counts(const Model& m, const Spec& spec, const Checks& c,
                       const CnfRouteParams& params) {
  if (!m.classification) fail("the CNF methods count classifiers; the model is a regressor");
  CnfCounts k(m, spec, params);
  const bool approx = params.backend == CnfBackend::approx;
  StageCounts r = empty_counts(c, to_string(approx ? CountMethod::approx : CountMethod::exact_cnf));
  const mpz_class domain = spec.domain.size();
  if (approx) {
    approx_labels(k, c, domain, r);
  } else {
    exact_labels(k, m, c, domain, r);
  }
  safety_counts(k, c, approx, domain, r);
  region_counts(k, spec, c, r);
  r.cnf_counts = k.formulas();
  r.ambiguous = k.settled();
  return r;
}

}  // namespace assay::count::detail
