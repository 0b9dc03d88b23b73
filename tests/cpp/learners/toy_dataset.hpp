// Test helper shared by the learner tests: a classification data set with one constant feature
// ("x" = 0), classes "a", "b", ... and the given class codes and weights, named "toy".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "assay/learners/dataset.hpp"

namespace assay::learners {

inline Dataset classification(std::vector<std::int32_t> y, std::size_t n_classes,
                              std::vector<double> weights = {}) {
  Dataset d;
  d.name = "toy";
  d.n_rows = y.size();
  d.n_features = 1;
  d.x.assign(y.size(), 0.0);
  d.feature_names = {"x"};
  d.y_class = std::move(y);
  for (std::size_t k = 0; k < n_classes; ++k) d.classes.push_back(std::string(1, char('a' + k)));
  d.weights = std::move(weights);
  return d;
}

}  // namespace assay::learners
