// After a model parses, the fuzz targets also predict with it at x = 0 (the validated model must
// be usable: no out-of-range child, leaf or class index) and summarise it as `assay model info`.
#pragma once

#include <vector>

#include "assay/count/model.hpp"

namespace assay::fuzz {

inline void use_model(const assay::count::Model& model) {
  assay::count::model_info(model);
  if (model.n_features > (std::size_t{1} << 20)) return;  // refusing huge x is not this test's job
  const std::vector<double> x(model.n_features, 0.0);
  assay::count::predict_scores(model, x);
  assay::count::predict_label(model, x);
}

}  // namespace assay::fuzz
