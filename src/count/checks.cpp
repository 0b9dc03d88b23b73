#include "checks.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"

namespace assay::count::detail {

namespace {

std::string available_names(const Spec& spec) {
  std::string out;
  auto add = [&](const std::string& n) {
    if (!out.empty()) out += ", ";  // separate appends: GCC 12 warns falsely (-Wrestrict)
    out += n;
  };
  for (const auto& p : spec.predicates) add(p.name);
  for (const auto& p : spec.safety) add(p.name);
  for (const auto& r : spec.regions) add(r.name);
  return out.empty() ? "none" : out;
}

}  // namespace

Checks select_checks(const Model& m, const Spec& spec, const std::string& property) {
  Checks c;
  const auto k = static_cast<std::int32_t>(m.n_classes());
  if (!property.empty()) {
    for (const auto& p : spec.predicates) {
      if (p.name != property) continue;
      if (!m.classification || k != 2) {
        fail(
            "--property {} makes a binary ground truth (label 1 = {}), but the model has {} "
            "classes",
            property, property, k);
      }
      c.truths.push_back({0, nullptr, 1});
      c.truths.push_back({1, &p.formula, -1});
      return c;
    }
    for (const auto& s : spec.safety) {
      if (s.name == property) c.safety.push_back(&s);
    }
    for (const auto& r : spec.regions) {
      if (r.name == property) c.regions.push_back(&r);
    }
    if (c.safety.empty() && c.regions.empty()) {
      fail("{} defines no predicate, safety property or region named \"{}\" (available: {})",
           spec.file, property, available_names(spec));
    }
  } else {
    for (const auto& [label, f] : spec.truths) {
      if (!m.classification || label >= k) {
        fail("{}: truth of label {}, but the model has {} classes", spec.file, label, k);
      }
    }
    if (spec.truths.size() == 1 && k == 2) {
      const std::int32_t given = spec.truths[0].first;
      c.truths.resize(2);
      c.truths[given] = {given, &spec.truths[0].second, -1};
      c.truths[1 - given] = {1 - given, nullptr, given};
    } else if (!spec.truths.empty()) {
      if (static_cast<std::int32_t>(spec.truths.size()) != k) {
        std::string missing;
        for (std::int32_t l = 0; l < k; ++l) {
          bool found = false;
          for (const auto& t : spec.truths) found = found || t.first == l;
          if (found) continue;
          if (!missing.empty()) missing += ", ";
          missing += std::to_string(l);
        }
        fail("{}: no truth for label(s) {} (the model has {} classes)", spec.file, missing, k);
      }
      for (const auto& [label, f] : spec.truths) c.truths.push_back({label, &f, -1});
    }
    for (const auto& s : spec.safety) c.safety.push_back(&s);
    for (const auto& r : spec.regions) c.regions.push_back(&r);
    if (c.truths.empty() && c.safety.empty() && c.regions.empty()) {
      fail(
          "{} has nothing to count: declare truth, safety or region statements, or give a "
          "property name",
          spec.file);
    }
  }
  for (const auto* r : c.regions) {
    if (r->label < 0 || r->label >= std::max<std::int32_t>(k, 1)) {
      fail("{}: region {} keeps label {}, but the model has {} classes", spec.file, r->name,
           r->label, k);
    }
  }
  return c;
}

void check_scores(const Formula& f, const Model& m, const std::string& what) {
  for (const auto& n : f.nodes) {
    if (n.op == Formula::Op::score && n.index >= m.n_outputs) {
      fail("{} reads score[{}], but the model has {} outputs", what, n.index, m.n_outputs);
    }
  }
}

void finish_label(LabelCounts& l, const std::string& label_name) {
  const mpz_class total = l.tp + l.fp + l.tn + l.fn;
  l.accuracy = ratio(l.tp + l.tn, total);
  l.precision = ratio(l.tp, l.tp + l.fp);
  l.recall = ratio(l.tp, l.tp + l.fn);
  l.f1 = ratio(2 * l.tp, 2 * l.tp + l.fp + l.fn);
  if (std::isnan(l.precision)) {
    warn(fmt::format("precision of label {} is undefined: no input is predicted {}", label_name,
                     label_name));
  }
  if (std::isnan(l.recall)) {
    warn(fmt::format("recall of label {} is undefined: no input has label {}", label_name,
                     label_name));
  }
}

}  // namespace assay::count::detail
