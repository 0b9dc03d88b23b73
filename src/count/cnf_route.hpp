// Methods exact-cnf and approx of count(): QuantifyML's route, each count a CNF formula.
#pragma once

#include "assay/count/counting.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"
#include "checks.hpp"

namespace assay::count::detail {

enum class CnfBackend {
  exact,             ///< the exact projected counter; bounds when the time limit stops it
  approx,            ///< ApproxMC
  exact_then_approx  ///< exact within the time limit, ApproxMC for a count that runs out
};

/// Fills the truths', safety properties' and regions' counts of r (with their guarantees) by
/// counting CNF encodings with `backend`.
void cnf_counts(const Model& m, const Spec& spec, const Checks& c, const CountParams& params,
                CnfBackend backend, CountResult& r);

}  // namespace assay::count::detail
