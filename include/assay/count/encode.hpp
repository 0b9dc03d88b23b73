// CNF encoding of "the model says L and the truth says L'" (QuantifyML's route): the domain's
// inputs as bits, the model as a circuit, the spec's formulas by Tseitin, one query asserted.
// The projected model count of the result is the number of inputs of the domain that satisfy
// the query — what `assay count` computes by other means.
//
// Example:
//   Model m = load_model("tree.json");
//   Spec s = load_spec("graph4.spec");
//   EncodeParams p;
//   p.property = "Transitive";
//   p.query = "tp";                        // TP of label 1: Transitive and predicted 1
//   Encoding e = encode(m, s, p);
//   write_dimacs_file(e.cnf, "tp.cnf");    // GANAK, d4, ApproxMC read it; so does assay
//
// Inputs: a boolean is one variable; an int[lo, hi] or real grid input with S points is its grid
// index k in ceil(log2 S) bits with k <= S-1 enforced; the projection is exactly these bits, so
// every grid point is one projected model. Variable 1 is the constant true.
//
// Models, and how exact their circuit is:
// - decision trees: each split `x_f <= t` is the comparison k_f < s of the grid index with the
//   first index that goes right (found as the structural counter finds it, with scikit-learn's and
//   xgboost's float32 rounding of x), and node i is reached iff its parent is reached and the test
//   holds: exact.
// - random forests with votes: per class a vote count (an adder of the trees' vote bits) and the
//   first maximum by comparators: exact.
// - random forests with averaged probabilities and boosted ensembles: each tree's contribution to
//   each output is the leaf's value in fixed point with `fraction_bits` fractional bits, summed by
//   adders; the label is the first maximum of the sums (for binary boosting: the sum > 0). When
//   every value is exact at that precision and the model's floating-point sums are exact too, the
//   circuit is exact. Otherwise the result also defines `ambiguous`: the inputs where the best and
//   the second-best sum are closer than twice a bound on quantisation plus floating-point error;
//   outside them the circuit's label is the model's label.
// - networks (dense, ReLU or identity hidden layers; identity, logistic or softmax output): each
//   layer's weights in fixed point with `weight_bits` significant bits, activations kept with
//   `activation_bits` fractional bits; the error bound is propagated through the layers (interval
//   bounds of every neuron on the domain), and `ambiguous` marks the inputs where it could change
//   the label.
// `assay count --method exact-cnf` counts the queries outside `ambiguous` and settles the
// ambiguous inputs by evaluating the model on each (when there are at most a limit of them), so
// its counts are exact; a CNF file written by `encode` counts the circuit's label as it is, and
// its comments say whether the circuit is exact.
// Spec formulas: booleans by Tseitin; comparisons of one input with a constant become grid-index
// comparisons (exact, as the enumerator evaluates them); other arithmetic is exact rational
// (fixed point with the exponents of the binary fractions involved) on bit-vectors sized from
// their ranges; `label` and `argmax` read the model's label; `score[k]` is not supported.
#pragma once

#include "assay/count/encoding.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"

namespace assay::count {

/// Encodes one query (see EncodeParams). Throws assay::Error for models or formulas the encoder
/// does not support (naming the part), unknown names, or a model/spec mismatch.
Encoding encode(const Model& model, const Spec& spec, const EncodeParams& params = {});

}  // namespace assay::count
