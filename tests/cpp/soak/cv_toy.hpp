// Test helper shared by the K-fold tests of soak/cv and report/cv: a 15-row, 3-class data set
// with given folds.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "assay/learners/dataset.hpp"

namespace assay::soak {

// 15 rows, labels 0/1/2 (7, 5, 3 rows), given folds 1,2,3,1,2,3,...
inline const std::vector<std::int32_t> kLabels{0, 1, 0, 2, 0, 1, 1, 0, 2, 0, 1, 0, 2, 1, 0};
inline const std::vector<std::int64_t> kFold{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};

inline learners::Dataset toy(std::vector<double> weights = {}) {
  learners::Dataset d;
  d.name = "toy";
  d.n_rows = kLabels.size();
  d.n_features = 1;
  for (std::size_t i = 0; i < d.n_rows; ++i) d.x.push_back(double(i % 4));
  d.feature_names = {"x"};
  d.y_class = kLabels;
  d.classes = {"a", "b", "c"};
  d.weights = std::move(weights);
  return d;
}

}  // namespace assay::soak
