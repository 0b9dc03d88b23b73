// count() and robustness(): check the request, pick the method, hand each stage the parameters
// it needs, fold the stage's counts into the result, derive the rates, and put the statistical
// views beside them. The methods live in their own files: structural (structural.hpp),
// enumerate (enumerate.hpp), exact-cnf and approx (cnf_route.hpp), split (split_spec.hpp); the
// statistical views in sampling.hpp.
#include "assay/count/counting.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "assay/count/domain_split.hpp"
#include "box.hpp"
#include "checks.hpp"
#include "cnf_route.hpp"
#include "enumerate.hpp"
#include "hamming.hpp"
#include "sampling.hpp"
#include "split_spec.hpp"
#include "stage_counts.hpp"
#include "structural.hpp"

namespace assay::count {

using detail::Box;
using detail::Checks;
using detail::StageCounts;
using Clock = std::chrono::steady_clock;

namespace {

// What runs: a CountMethod other than auto, or auto's choice for large networks (exact CNF
// counting within the time budget, approximate beyond it; reported as exact-cnf).
enum class Method { structural, enumerate, exact_cnf, approx, exact_cnf_then_approx, split };

std::string method_name(Method m) {
  switch (m) {
    case Method::structural:
      return std::string(to_string(CountMethod::structural));
    case Method::enumerate:
      return std::string(to_string(CountMethod::enumerate));
    case Method::exact_cnf:
    case Method::exact_cnf_then_approx:
      return std::string(to_string(CountMethod::exact_cnf));
    case Method::approx:
      return std::string(to_string(CountMethod::approx));
    case Method::split:
      return std::string(to_string(CountMethod::split));
  }
  return "";
}

// Robustness counts without the CNF methods and splitting (cnf_allowed = false).
CountMethod check_method(CountMethod method, const Model& m, bool cnf_allowed) {
  if (!cnf_allowed) check_count_method(method, kRobustnessMethods);
  const bool graph = m.kind == ModelKind::graph;
  if (method == CountMethod::split && m.kind != ModelKind::network) {
    fail("method split counts {}; count trees with method structural",
         graph ? "dense networks here (a graph network: --vnnlib)" : "networks");
  }
  if (graph && (method == CountMethod::exact_cnf || method == CountMethod::approx)) {
    fail(
        "method {} encodes trees and dense networks as CNF; count a graph network (convolutions, "
        "pooling, skip connections) with method enumerate, or over a VNN-LIB box with --vnnlib",
        to_string(method));
  }
  if (method == CountMethod::structural && (m.kind == ModelKind::network || graph)) {
    fail("structural counting covers trees and tree ensembles; count networks with method {}",
         cnf_allowed ? "enumerate, exact-cnf or approx" : "enumerate");
  }
  return method;
}

// auto: structural for trees; networks are enumerated when that is cheap, else counted through
// CNF, exactly within the time budget and approximately beyond it.
Method resolve_method(CountMethod method, const Model& m, const mpz_class& domain_size) {
  switch (method) {
    case CountMethod::structural:
      return Method::structural;
    case CountMethod::enumerate:
      return Method::enumerate;
    case CountMethod::exact_cnf:
      return Method::exact_cnf;
    case CountMethod::approx:
      return Method::approx;
    case CountMethod::split:
      return Method::split;
    case CountMethod::automatic:
      break;
  }
  if (m.kind == ModelKind::graph) return Method::enumerate;
  if (m.kind != ModelKind::network) return Method::structural;
  if (domain_size <= mpz_class(1UL << 26)) return Method::enumerate;
  return Method::exact_cnf_then_approx;
}

bool use_structural(CountMethod method, const Model& m) {
  return method == CountMethod::structural ||
         (method == CountMethod::automatic && m.kind != ModelKind::network &&
          m.kind != ModelKind::graph);
}

// A test point outside the domain would be compared with counts that never include it.
void check_test_points(const Domain& d, const CountParams& params) {
  const std::size_t n = d.vars.size();
  for (std::size_t k = 0; k < params.test_x.size(); ++k) {
    const VarDomain& v = d.vars[k % n];
    const double value = params.test_x[k];
    if (on_grid(v, value)) continue;
    fail(
        "test set row {} (index {}), feature {} ({}): {} is not a point of its domain {}; the "
        "exact counts cover the domain only",
        k / n + 1, k / n, k % n, v.name, value, domain_text(v));
  }
}

// Bad samples or test sets fail before the (possibly long) exact count.
void check_request(const Model& m, const Spec& spec, const CountParams& params) {
  validate(m);
  if (m.n_features != spec.domain.vars.size()) {
    fail("the model has {} features but {} declares {} inputs", m.n_features, spec.file,
         spec.domain.vars.size());
  }
  check_method(params.method, m, true);
  check_time_limit("time_limit", params.time_limit);
  if (!(params.epsilon > 0)) fail("epsilon must be > 0, found {}", params.epsilon);
  if (!(params.delta > 0 && params.delta < 1)) {
    fail("delta must lie in (0, 1), found {}", params.delta);
  }
  for (const std::size_t n : params.samples) {
    if (n == 0) fail("sample sizes must be >= 1, found 0");
  }
  if (params.test_x.size() != params.test_y.size() * m.n_features) {
    fail("the test set has {} values for {} labels, expected {} ({} features per row)",
         params.test_x.size(), params.test_y.size(), params.test_y.size() * m.n_features,
         m.n_features);
  }
  for (std::size_t i = 0; i < params.test_y.size(); ++i) {
    const std::int32_t y = params.test_y[i];
    if (y < 0 || y >= static_cast<std::int32_t>(m.n_classes())) {
      fail("test label {} at row {} is out of range [0, {})", y, i, m.n_classes());
    }
  }
  check_test_points(spec.domain, params);
}

void check_score_indices(const Model& m, const Checks& c) {
  for (const auto& t : c.truths) {
    if (t.formula) {
      detail::check_scores(*t.formula, m, fmt::format("the truth of label {}", t.label));
    }
  }
  for (const auto* s : c.safety) {
    detail::check_scores(s->pre, m, "safety property " + s->name);
    detail::check_scores(s->post, m, "safety property " + s->name);
  }
}

// The result's header; the counts come from the stage (fold_counts).
CountResult empty_result(const Spec& spec, const CountParams& params, Method method) {
  CountResult r;
  r.method = method_name(method);
  r.property = params.property;
  r.confidence = params.confidence;
  r.domain_size = spec.domain.size();
  r.n_inputs = spec.domain.vars.size();
  return r;
}

detail::CnfRouteParams cnf_route_params(const CountParams& p, detail::CnfBackend backend) {
  detail::CnfRouteParams out;
  out.backend = backend;
  out.time_limit = p.time_limit;
  out.epsilon = p.epsilon;
  out.delta = p.delta;
  out.seed = p.seed;
  out.threads = p.threads;
  out.ambiguity_limit = p.ambiguity_limit;
  out.fraction_bits = p.fraction_bits;
  out.weight_bits = p.weight_bits;
  out.activation_bits = p.activation_bits;
  return out;
}

StageCounts exact_counts(const Model& m, const Spec& spec, const Checks& c,
                         const CountParams& params, Method method) {
  switch (method) {
    case Method::enumerate:
      return detail::enumeration_counts(m, spec, c, params.enumeration_limit, params.threads);
    case Method::structural:
      if (spec.domain.size() < mpz_class("9223372036854775807")) {
        return detail::structural_counts<std::uint64_t>(m, spec, c, params.threads);
      }
      return detail::structural_counts<mpz_class>(m, spec, c, params.threads);
    case Method::exact_cnf:
      return detail::cnf_counts(m, spec, c, cnf_route_params(params, detail::CnfBackend::exact));
    case Method::approx:
      return detail::cnf_counts(m, spec, c, cnf_route_params(params, detail::CnfBackend::approx));
    case Method::exact_cnf_then_approx: {
      auto budget = cnf_route_params(params, detail::CnfBackend::exact_then_approx);
      if (budget.time_limit == 0) budget.time_limit = 60;
      return detail::cnf_counts(m, spec, c, budget);
    }
    case Method::split:
      return detail::split_counts(m, spec, c, split_params(params));
  }
  return {};
}

// The stage's counts into r, named after the checks they count.
void fold_counts(const Model& m, const Checks& c, StageCounts s, CountResult& r) {
  r.labels = std::move(s.labels);
  for (std::size_t i = 0; i < r.labels.size(); ++i) {
    r.labels[i].index = c.truths[i].label;
    r.labels[i].label = m.classes[c.truths[i].label];
  }
  r.safety = std::move(s.safety);
  for (std::size_t i = 0; i < r.safety.size(); ++i) r.safety[i].name = c.safety[i]->name;
  r.regions = std::move(s.regions);
  r.boxes = s.boxes;
  r.cnf_counts = s.cnf_counts;
  r.ambiguous = s.ambiguous;
}

mpz_class region_count(const Model& m, const Domain& d, const Box& box, std::int32_t label,
                       bool structural, std::uint64_t limit, int threads, std::uint64_t& boxes) {
  if (structural) return detail::structural_region_count(m, d, box, label, boxes);
  return detail::enumerated_region_count(m, d, box, label, limit, threads, boxes);
}

bool cnf_method(Method m) {
  return m == Method::exact_cnf || m == Method::approx || m == Method::exact_cnf_then_approx;
}

// Whether the stage of `method` counts region `reg` itself: the CNF routes count every region
// (a Hamming region as a cardinality constraint), split counts boxes; the rest is counted here.
bool stage_counts_region(Method method, const RegionSpec& reg) {
  return cnf_method(method) || (method == Method::split && reg.metric == RegionSpec::Metric::linf);
}

Checks stage_checks(const Checks& c, Method method) {
  Checks s = c;
  std::erase_if(s.regions, [&](const RegionSpec* r) { return !stage_counts_region(method, *r); });
  return s;
}

RegionCounts box_region_counts(const Model& m, const Spec& spec, const RegionSpec& reg,
                               const CountParams& params, Method method, CountResult& r) {
  RegionCounts rc;
  rc.name = reg.name;
  rc.label = reg.label;
  const Box box = detail::region_box(spec.domain, reg.center, reg.epsilon);
  rc.total = detail::box_size(box);
  rc.count = region_count(m, spec.domain, box, reg.label, method == Method::structural,
                          params.enumeration_limit, params.threads, r.boxes);
  rc.guarantee.method = method_name(method);
  return rc;
}

// A Hamming region is not a box: its count is the satisfied count of the safety property
// `within => label == L`, counted by the method like any safety property (with its guarantee).
RegionCounts hamming_region_counts(const Model& m, const Spec& spec, const RegionSpec& reg,
                                   const CountParams& params, Method method, CountResult& r) {
  const SafetyProperty keeps{reg.name, reg.within, detail::label_formula(reg.label)};
  Checks one;
  one.safety.push_back(&keeps);
  const StageCounts s = exact_counts(m, spec, one, params, method);
  const SafetyCounts& sc = s.safety.at(0);
  RegionCounts rc;
  rc.name = reg.name;
  rc.label = reg.label;
  rc.total = detail::region_size(spec.domain, reg);
  rc.count = sc.satisfied;
  rc.guarantee = sc.guarantee;
  if (sc.guarantee.bounded) rc.count_bounds = sc.satisfied_bounds;
  r.boxes += s.boxes;
  return rc;
}

// Every region of `c` in its order: the stage's (already in r.regions, in stage_checks order)
// and those counted here.
void region_counts(const Model& m, const Spec& spec, const Checks& c, const CountParams& params,
                   Method method, CountResult& r) {
  std::vector<RegionCounts> from_stage = std::move(r.regions);
  r.regions.clear();
  std::size_t next = 0;
  for (const auto* reg : c.regions) {
    if (stage_counts_region(method, *reg)) {
      r.regions.push_back(std::move(from_stage.at(next++)));
    } else if (reg->metric == RegionSpec::Metric::hamming) {
      r.regions.push_back(hamming_region_counts(m, spec, *reg, params, method, r));
    } else {
      r.regions.push_back(box_region_counts(m, spec, *reg, params, method, r));
    }
  }
}

// Overall accuracy needs exactly one true label per point: the truths' positives must add up to
// the domain. More means some point satisfies two truths, fewer that some satisfies none.
void overall_accuracy(CountResult& r) {
  r.correct = 0;
  for (const auto& l : r.labels) r.correct += l.tp;
  r.accuracy =
      r.labels.empty() ? std::numeric_limits<double>::quiet_NaN() : ratio(r.correct, r.domain_size);
  if (r.labels.empty()) return;
  // Estimates (approx) need not add up to the domain; only exact counts are checked.
  for (const auto& l : r.labels) {
    if (!l.guarantee.exact) return;
  }
  mpz_class positives = 0;
  for (const auto& l : r.labels) positives += l.tp + l.fn;
  if (positives == r.domain_size) return;
  warn(fmt::format(
      "overall accuracy is undefined: the truths hold on {} points in all, but the domain "
      "has {} ({}); per-label counts are still exact",
      positives.get_str(), r.domain_size.get_str(),
      positives > r.domain_size ? "some points satisfy two truths"
                                : "some points satisfy no truth"));
  r.accuracy = std::numeric_limits<double>::quiet_NaN();
}

// Rates from counts that are only bounds would look exact: they are NaN, with a warning.
void finish_rates(CountResult& r) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  bool bounded = false;
  for (auto& l : r.labels) {
    detail::finish_label(l, l.label);
    if (l.guarantee.bounded) {
      l.accuracy = l.precision = l.recall = l.f1 = nan;
      bounded = true;
    }
  }
  overall_accuracy(r);
  if (bounded) r.accuracy = nan;
  for (auto& s : r.safety) {
    s.accuracy = s.guarantee.bounded ? nan : ratio(s.satisfied, s.satisfied + s.violated);
    bounded = bounded || s.guarantee.bounded;
  }
  for (auto& g : r.regions) {
    g.robustness = g.guarantee.bounded ? nan : ratio(g.count, g.total);
    bounded = bounded || g.guarantee.bounded;
  }
  if (bounded) {
    warn(
        "some counts are only bounds (a time limit, the memory budget or --max-boxes of method "
        "split, an interrupt, or too many ambiguous inputs to settle); their rates are "
        "undefined");
  }
}

// The grid of a robustness call: per feature, lower..upper in steps of `step`.
Domain robustness_domain(std::size_t d, const RobustnessParams& params) {
  auto widen = [&](const std::vector<double>& v, const char* what) {
    if (v.size() == 1) return std::vector<double>(d, v[0]);
    if (v.size() != d)
      fail("{} has {} values, expected 1 or {} (one per feature)", what, v.size(), d);
    return v;
  };
  const auto lower = widen(params.lower, "lower");
  const auto upper = widen(params.upper, "upper");
  if (!(params.step > 0) || !std::isfinite(params.step)) {
    fail("step must be a finite number > 0, found {}", params.step);
  }
  Domain dom;
  for (std::size_t i = 0; i < d; ++i) {
    if (!std::isfinite(lower[i]) || !std::isfinite(upper[i])) {
      fail("feature {}: expected finite bounds, found [{}, {}]", i, lower[i], upper[i]);
    }
    if (!(upper[i] >= lower[i])) {
      fail("feature {}: upper bound {} is below lower bound {}", i, upper[i], lower[i]);
    }
    VarDomain v;
    v.name = fmt::format("x[{}]", i);
    v.type = VarDomain::Type::real;
    v.lo = lower[i];
    v.step = params.step;
    const std::string problem = real_grid_problem(lower[i], upper[i], params.step, v.size);
    if (!problem.empty()) fail("feature {}: the grid {}", i, problem);
    dom.vars.push_back(v);
  }
  return dom;
}

void check_robustness_request(const Model& m, std::span<const double> x,
                              const RobustnessParams& params) {
  validate(m);
  if (x.size() != m.n_features) {
    fail("x has {} values, the model has {} features", x.size(), m.n_features);
  }
  for (const std::size_t n : params.samples) {
    if (n == 0) fail("sample sizes must be >= 1, found 0");
  }
  check_time_limit("time_limit", params.time_limit);
  if (!(params.epsilon >= 0)) fail("epsilon must be >= 0, found {}", params.epsilon);
  if (!m.classification) fail("robustness needs a classifier; the model is a regressor");
  if (params.label < 0 || params.label >= static_cast<std::int32_t>(m.n_classes())) {
    fail("label {} is out of range [0, {})", params.label, m.n_classes());
  }
}

}  // namespace

void set_test_set(CountParams& params, const Model& m, const Table& table,
                  const std::string& label_column) {
  const Column& labels = table.column(label_column);
  std::vector<const Column*> features;
  for (const Column& c : table.columns()) {
    if (c.name == label_column) continue;
    if (!c.is_numeric()) {
      fail("{}: feature column \"{}\" is not numeric", table.source(), c.name);
    }
    features.push_back(&c);
  }
  if (features.size() != m.n_features) {
    fail("{}: {} feature columns (all but \"{}\"), the model has {} features", table.source(),
         features.size(), label_column, m.n_features);
  }
  const std::size_t n = table.n_rows();
  params.test_x.assign(n * m.n_features, 0.0);
  params.test_y.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < features.size(); ++j) {
      params.test_x[i * m.n_features + j] = features[j]->values[i];
    }
    const std::string name =
        labels.is_numeric() ? fmt::format("{}", labels.values[i]) : labels.label(i);
    const auto it = std::find(m.classes.begin(), m.classes.end(), name);
    if (it == m.classes.end()) {
      fail("{}: row {}: label {} is not a class of the model", table.source(), i + 1,
           quote_found(name));
    }
    params.test_y[i] = static_cast<std::int32_t>(it - m.classes.begin());
  }
}

CountResult count(const Model& m, const Spec& spec, const CountParams& params) {
  check_request(m, spec, params);
  const Checks c = detail::select_checks(m, spec, params.property);
  check_score_indices(m, c);
  const Method method = resolve_method(params.method, m, spec.domain.size());
  CountResult r = empty_result(spec, params, method);
  const auto start = Clock::now();
  fold_counts(m, c, exact_counts(m, spec, stage_checks(c, method), params, method), r);
  region_counts(m, spec, c, params, method, r);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  finish_rates(r);
  r.samples =
      detail::sample_views(m, spec, c, {params.test_x, params.test_y},
                           {params.samples, params.seed, params.confidence, params.time_limit});
  return r;
}

RobustnessResult robustness(const Model& m, std::span<const double> x,
                            const RobustnessParams& params) {
  check_robustness_request(m, x, params);
  const Domain dom = robustness_domain(m.n_features, params);
  const bool structural = use_structural(check_method(params.method, m, false), m);
  RobustnessResult r;
  r.method = method_name(structural ? Method::structural : Method::enumerate);
  const Box box = detail::region_box(dom, x, params.epsilon);
  const auto start = Clock::now();
  r.total = detail::box_size(box);
  std::uint64_t boxes = 0;
  r.count = region_count(m, dom, box, params.label, structural, std::uint64_t{1} << 32,
                         params.threads, boxes);
  r.robustness = ratio(r.count, r.total);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.samples =
      detail::region_samples(m, dom, box, params.label,
                             {params.samples, params.seed, params.confidence, params.time_limit});
  return r;
}

}  // namespace assay::count
