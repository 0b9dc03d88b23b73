// The model as a circuit over the input bits: one-hot literals of its predicted label (see
// include/assay/count/encode.hpp for how exact each model kind's circuit is).
#pragma once

#include <string>
#include <vector>

#include "assay/count/encoding.hpp"
#include "assay/count/model.hpp"
#include "cnf_builder.hpp"
#include "encode_domain.hpp"

namespace assay::count::detail {

struct ModelCircuit {
  std::vector<Var> label;   ///< label[L] holds iff the circuit predicts class L (one-hot)
  std::vector<Var> argmax;  ///< one-hot of the argmax of the model's scores
  Var ambiguous = kFalse;   ///< inputs where the circuit's label may differ from the model's
  bool exact = true;        ///< ambiguous is kFalse by construction
  std::string arithmetic;   ///< "exact" or the fixed point used, in words
};

/// Encodes a classifier; throws for regression models and unsupported layers (named).
ModelCircuit encode_model(CnfBuilder& b, DomainBits& d, const Model& m, const EncodeParams& p);

/// One-hot of the first maximum of q (ties go to the lowest index, as argmax does).
std::vector<Var> first_argmax(CnfBuilder& b, const std::vector<BitVec>& q);

}  // namespace assay::count::detail
