// What one count() call counts: the truths (one per label, or a label's complement), the safety
// properties and the robustness regions that a spec and a `--property` name select, checked
// against the model; and the rates derived from exact counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "assay/count/count_result.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"

namespace assay::count::detail {

// What one count() call counts.
struct Checks {
  // Per label: the formula of its ground truth, or the negation of another label's.
  struct Truth {
    std::int32_t label = 0;
    const Formula* formula = nullptr;
    std::int32_t complement_of = -1;  // index into truths
  };
  std::vector<Truth> truths;
  std::vector<const SafetyProperty*> safety;
  std::vector<const RegionSpec*> regions;
};

/// The checks of `spec` (all of them, or the one named `property`); throws when a name is
/// unknown, a truth's label is not a class of the model, or labels lack a truth.
Checks select_checks(const Model& m, const Spec& spec, const std::string& property);

/// Throws when `f` reads score[k] beyond the model's outputs (`what` names the formula).
void check_scores(const Formula& f, const Model& m, const std::string& what);

/// Accuracy, precision, recall and F1 from the exact counts; NaN and a warning when undefined.
void finish_label(LabelCounts& l, const std::string& label_name);

}  // namespace assay::count::detail
