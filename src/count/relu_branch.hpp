// count_unsafe()'s route for high-dimensional boxes and graph networks: a projected-gradient
// attack, then branch and bound over ReLU phases (graph_bounds.hpp), per region, with the
// unsafe condition's conjunctions as objectives. Input splitting cannot get anywhere in hundreds
// of dimensions (each bisection halves one of 784 widths); fixing a ReLU's phase removes its
// relaxation error wherever it lies in the box.
//
// Route rule (count_unsafe): this route when the model is a graph network, or when it is a dense
// network with an identity output layer over a continuous box with more than
// kReluBranchMinInputs free inputs or with a logistic hidden layer (which input splitting's
// dense bounds do not cover); ACAS Xu's 5 inputs keep input splitting.
//
// What it certifies: "holds" when every conjunction is proven empty on every sub-problem (then
// the unsafe share is exactly 0: [0, 0], finished); a counterexample (attack, sample or the
// corner a bound points to, always checked by a plain forward pass) makes it "violated", and
// then the certified share stays [0, 1]: phase splitting does not measure volume, so the share
// is given by the uniform sample's estimate and Clopper-Pearson interval (statistical).
//
// Sub-problems (lists of ReluSplit) are bounded in waves as in split_engine.hpp: a frontier
// (shallowest first), waves of a fixed size judged in parallel and merged in order, so the
// result with max_boxes is the same at any thread count; the attack re-runs every few waves with
// seeds fixed by the wave number. SplitResult::boxes counts sub-problems bounded.
//
// Branching looks ahead (filtered smart branching): the best-scored unstable neurons each get
// both children bounded cheaply, and the split whose worse child bound is highest wins.
#pragma once

#include <cstddef>

#include "assay/count/domain_split.hpp"

namespace assay::count::detail {

/// Continuous boxes with more free inputs than this are searched by ReLU branch and bound.
constexpr std::size_t kReluBranchMinInputs = 16;

/// True when count_unsafe takes the branch-and-bound route for this model and property.
bool use_relu_branch(const Model& m, const VnnProperty& p);

/// The branch-and-bound route (m and p already checked by count_unsafe).
SplitResult count_unsafe_relu_branch(const Model& m, const VnnProperty& p,
                                     const SplitParams& params);

}  // namespace assay::count::detail
