// Small inputs that several header examples take as given (tests/header_examples/setups.inc).
#pragma once

#include <cstdint>
#include <string>

#include "assay/learners/dataset.hpp"

namespace hx {

/// A tree over the 16 edge bits of a 4-node graph: predicts 1 when edge 0 -> 0 is present.
inline const char* const graph_tree_json = R"({"format": "assay-model", "version": 1,
  "kind": "tree", "task": "classification", "n_features": 16, "n_outputs": 2, "classes": [0, 1],
  "split_rule": "<=", "input_float32": true,
  "trees": [{"feature": [0, -2, -2], "threshold": [0.5, -2, -2], "left": [1, -1, -1],
             "right": [2, -1, -1], "value": [[5, 5], [5, 0], [0, 5]]}]})";

/// 4-node graphs as 16 booleans, with the property Transitive (examples/count/graph4.spec).
inline const char* const graph4_spec = R"(const n = 4;
input x[n * n] : bool;
pred edge(i, j) = x[i * n + j];
pred Transitive = forall i in 0..n-1 : forall j in 0..n-1 : forall k in 0..n-1 :
  (edge(i, j) and edge(j, k)) => edge(i, k);
)";

/// 20 rows, two features, classes "no"/"yes" that the first feature mostly separates.
inline assay::learners::Dataset two_class_data() {
  assay::learners::Dataset d;
  d.name = "two";
  d.n_rows = 20;
  d.n_features = 2;
  d.feature_names = {"x1", "x2"};
  d.classes = {"no", "yes"};
  for (int i = 0; i < 20; ++i) {
    const int label = (i % 2 == 0) != (i % 7 == 0);
    d.x.push_back(label + 0.1 * (i % 5));
    d.x.push_back((i * 37 % 11) / 11.0);
    d.y_class.push_back(label);
  }
  return d;
}

/// A CSV of 40 rows: label y (3 classes), features x1, x2, a subset column.
inline std::string vowel_csv() {
  std::string text = "y,x1,x2,subset\n";
  for (int i = 0; i < 40; ++i)
    text += std::to_string(i % 3) + "," + std::to_string(i % 3 + 0.05 * (i % 7)) + "," +
            std::to_string((i * 13 % 17) / 17.0) + "," + (i < 20 ? "A" : "B") + "\n";
  return text;
}

/// The columns of the SOAK paper's aztrees data, 60 rows: y, region3, polygon, coordinates.
inline std::string aztrees_csv() {
  std::string text = "y,region3,polygon,xcoord,ycoord,band1\n";
  const char* regions[] = {"NE", "NW", "S"};
  for (int i = 0; i < 60; ++i) {
    const bool tree = (i * 7 + i / 9) % 5 < 2;
    text += std::string(tree ? "Tree" : "Other") + "," + regions[i % 3] + "," +
            std::to_string(i / 2) + "," + std::to_string(i) + "," + std::to_string(60 - i) + "," +
            std::to_string((tree != (i % 11 == 0)) + 0.01 * (i % 9)) + "\n";
  }
  return text;
}

}  // namespace hx
