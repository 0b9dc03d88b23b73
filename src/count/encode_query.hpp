// One counting query as a CNF: the conjunction of a truth (or its negation), a predicted label
// (or its negation), a safety property's pre- and postcondition, a region, and the model's
// ambiguity literal. `assay encode` writes one; the CNF counting methods build several.
#pragma once

#include <cstdint>
#include <string>

#include "assay/count/encoding.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"

namespace assay::count::detail {

struct Query {
  std::string description;
  const Formula* truth = nullptr;  ///< psi (nullptr: not part of the query)
  bool truth_negated = false;      ///< use not psi
  std::int32_t predicted = -1;     ///< phi_L for this L (-1: not part of the query)
  bool predicted_negated = false;  ///< use not phi_L
  const Formula* pre = nullptr;    ///< safety precondition
  const Formula* post = nullptr;   ///< safety postcondition
  bool post_negated = false;
  const RegionSpec* region = nullptr;  ///< restrict the inputs to the region's box
  enum class Ambiguity { ignore, exclude, only } ambiguity = Ambiguity::ignore;
};

/// The CNF of `q`; the model is encoded only when the query or its formulas read it.
Encoding encode_query(const Model& m, const Spec& spec, const Query& q, const EncodeParams& p);

}  // namespace assay::count::detail
