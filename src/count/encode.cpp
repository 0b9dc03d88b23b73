// assay encode: resolve the property, query and label to a Query, and encode it.
#include "assay/count/encode.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "box.hpp"
#include "checks.hpp"
#include "encode_domain.hpp"
#include "encode_model.hpp"
#include "encode_query.hpp"

namespace assay::count {

namespace detail {

namespace {

bool needs_model(const Query& q) {
  auto reads = [](const Formula* f) { return f != nullptr && f->uses_model(); };
  return q.predicted >= 0 || q.ambiguity != Query::Ambiguity::ignore || reads(q.truth) ||
         reads(q.pre) || reads(q.post);
}

std::vector<std::string> comments(const Query& q, const Encoding& e) {
  std::vector<std::string> out;
  out.push_back("written by assay encode");
  out.push_back("query: " + q.description);
  out.push_back("arithmetic: " + e.arithmetic);
  if (e.ambiguous != 0) {
    out.push_back(fmt::format(
        "ambiguous: literal {} holds on the inputs where the fixed-point label may differ from "
        "the model's",
        e.ambiguous));
  }
  for (const InputBits& in : e.inputs) {
    std::string bits;
    for (const Var v : in.bits) bits += fmt::format("{}{}", bits.empty() ? "" : " ", v);
    out.push_back(fmt::format("input {}: grid index 0..{} in variables (lsb first) {}", in.name,
                              in.size - 1, bits.empty() ? "none" : bits));
  }
  return out;
}

// At most k inputs differ from the center: a cardinality constraint on one literal per input
// (its grid index bit, negated where the center is 1).
Var hamming_bits(CnfBuilder& b, const DomainBits& d, const RegionSpec& r) {
  std::vector<Var> differs;
  for (std::size_t v = 0; v < r.center.size(); ++v) {
    const Var bit = d.index(v).bits.at(0);
    differs.push_back(r.center[v] == 1.0 ? -bit : bit);
  }
  return b.at_most(differs, static_cast<std::uint64_t>(r.epsilon));
}

}  // namespace

Encoding encode_query(const Model& m, const Spec& spec, const Query& q, const EncodeParams& p) {
  if (m.n_features != spec.domain.vars.size()) {
    fail("the model has {} features but {} declares {} inputs", m.n_features, spec.file,
         spec.domain.vars.size());
  }
  CnfBuilder b;
  DomainBits d(b, spec.domain);
  ModelCircuit mc;
  mc.arithmetic = "exact (the model is not part of the query)";
  if (needs_model(q)) mc = encode_model(b, d, m, p);
  FormulaBits f(b, d, mc.label, mc.argmax);
  std::vector<Var> parts;
  if (q.truth) parts.push_back(q.truth_negated ? -f.encode(*q.truth) : f.encode(*q.truth));
  if (q.predicted >= 0) {
    const Var phi = mc.label[static_cast<std::size_t>(q.predicted)];
    parts.push_back(q.predicted_negated ? -phi : phi);
  }
  if (q.pre) parts.push_back(f.encode(*q.pre));
  if (q.post) parts.push_back(q.post_negated ? -f.encode(*q.post) : f.encode(*q.post));
  if (q.ambiguity == Query::Ambiguity::exclude) parts.push_back(-mc.ambiguous);
  if (q.ambiguity == Query::Ambiguity::only) parts.push_back(mc.ambiguous);
  if (q.region && q.region->metric == RegionSpec::Metric::hamming) {
    parts.push_back(hamming_bits(b, d, *q.region));
  } else if (q.region) {
    d.restrict_to(region_box(spec.domain, q.region->center, q.region->epsilon));
  }
  for (const Var lit : parts) b.assert_true(lit);

  Encoding e;
  e.query = q.description;
  e.arithmetic = mc.arithmetic;
  e.exact = mc.exact;
  e.ambiguous = mc.ambiguous == kFalse ? 0 : mc.ambiguous;
  e.inputs = d.layout();
  for (const auto& in : e.inputs) e.n_input_bits += in.bits.size();
  e.cnf = b.take();
  e.cnf.comments = comments(q, e);
  return e;
}

namespace {

const char* const kTruthQueries[] = {"tp", "fp", "tn", "fn", "truth", "predicted"};
const char* const kSafetyQueries[] = {"satisfied", "violated", "pre"};
const char* const kRegionQueries[] = {"robust", "not-robust", "region"};

template <std::size_t N>
bool one_of(const std::string& s, const char* const (&list)[N]) {
  return std::find_if(std::begin(list), std::end(list), [&](const char* q) { return s == q; }) !=
         std::end(list);
}

Query truth_query(const Model& m, const Checks& c, const std::string& query, std::int32_t label) {
  if (c.truths.empty()) {
    fail(
        "query \"{}\" needs a ground truth: give a predicate with --property or declare truth "
        "statements",
        query);
  }
  if (label < 0) label = m.n_classes() == 2 ? 1 : 0;
  const auto it = std::find_if(c.truths.begin(), c.truths.end(),
                               [&](const Checks::Truth& t) { return t.label == label; });
  if (it == c.truths.end()) {
    fail("label {} has no truth (the model has {} classes)", label, m.n_classes());
  }
  Query q;
  const Checks::Truth& src =
      it->formula ? *it : c.truths[static_cast<std::size_t>(it->complement_of)];
  q.truth = src.formula;
  q.truth_negated = it->formula == nullptr;
  q.predicted = label;
  if (query == "tp") {
  } else if (query == "fp") {
    q.truth_negated = !q.truth_negated;
  } else if (query == "tn") {
    q.truth_negated = !q.truth_negated;
    q.predicted_negated = true;
  } else if (query == "fn") {
    q.predicted_negated = true;
  } else if (query == "truth") {
    q.predicted = -1;
  } else {  // predicted
    q.truth = nullptr;
  }
  const std::string name = m.classes[static_cast<std::size_t>(label)];
  q.description = fmt::format("{} of label {} (class {})", query, label, quote_found(name));
  return q;
}

Query safety_query(const Checks& c, const std::string& query) {
  if (c.safety.size() != 1) {
    fail(
        "query \"{}\" needs exactly one safety property; the spec selects {} (name one with "
        "--property)",
        query, c.safety.size());
  }
  Query q;
  q.pre = &c.safety[0]->pre;
  if (query != "pre") {
    q.post = &c.safety[0]->post;
    q.post_negated = query == "violated";
  }
  q.description = fmt::format("{} of safety property {}", query, c.safety[0]->name);
  return q;
}

Query region_query(const Checks& c, const std::string& query) {
  if (c.regions.size() != 1) {
    fail("query \"{}\" needs exactly one region; the spec selects {} (name one with --property)",
         query, c.regions.size());
  }
  Query q;
  q.region = c.regions[0];
  if (query != "region") {
    q.predicted = c.regions[0]->label;
    q.predicted_negated = query == "not-robust";
  }
  q.description =
      fmt::format("{} of region {} (label {})", query, c.regions[0]->name, c.regions[0]->label);
  return q;
}

std::string default_query(const Checks& c) {
  if (!c.truths.empty()) return "tp";
  if (!c.safety.empty()) return "violated";
  return "robust";
}

}  // namespace

}  // namespace detail

Encoding encode(const Model& m, const Spec& spec, const EncodeParams& p) {
  validate(m);
  const detail::Checks c = detail::select_checks(m, spec, p.property);
  const std::string query = p.query.empty() ? detail::default_query(c) : p.query;
  detail::Query q;
  if (detail::one_of(query, detail::kTruthQueries)) {
    q = detail::truth_query(m, c, query, p.label);
  } else if (detail::one_of(query, detail::kSafetyQueries)) {
    q = detail::safety_query(c, query);
  } else if (detail::one_of(query, detail::kRegionQueries)) {
    q = detail::region_query(c, query);
  } else {
    fail(
        "query must be one of tp, fp, tn, fn, truth, predicted, satisfied, violated, pre, "
        "robust, not-robust, region; found {}",
        quote_found(query));
  }
  return detail::encode_query(m, spec, q, p);
}

std::vector<std::uint64_t> decode_inputs(const Encoding& e, const std::vector<bool>& projected) {
  const auto& proj = e.cnf.projection;
  if (projected.size() != proj.size()) {
    fail("expected {} projected values, found {}", proj.size(), projected.size());
  }
  std::vector<std::uint64_t> out;
  for (const InputBits& in : e.inputs) {
    std::uint64_t k = 0;
    for (std::size_t j = 0; j < in.bits.size(); ++j) {
      const auto at = std::lower_bound(proj.begin(), proj.end(), in.bits[j]) - proj.begin();
      if (projected[static_cast<std::size_t>(at)]) k |= std::uint64_t{1} << j;
    }
    out.push_back(k);
  }
  return out;
}

}  // namespace assay::count
