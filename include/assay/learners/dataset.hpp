// The data a learner sees: a dense feature matrix, a target and optional row weights.
//
// Layout: n_rows x n_features, row-major: feature j of row i is `x[i * n_features + j]`.
// Classification targets are class codes 0..n_classes-1 into `classes` (sorted as scikit-learn
// sorts labels: numerically when every label is a number, else as strings); regression targets
// are doubles. Weights are per row; empty = all 1.
//
// From a table (the CLI, `assay.soak.run`): numeric columns are features as they are;
// categorical columns are one-hot encoded, one 0/1 column per category in first-seen order,
// named "column=category". The label, subset, group, fold, strata and weight columns are never
// features; `features` (keep only these) or `drop` (remove these) narrow the rest. NaN in a
// feature is an error naming the file, row and column (learners do not impute).
//
// Example:
//   Table t = parse_csv("x,colour,y\n1.5,red,yes\n2.0,blue,no\n", "mem.csv");
//   Dataset d = dataset_from_table(t, {.label = "y"}, TaskKind::classification, "demo");
//   // d.feature_names {"x", "colour=red", "colour=blue"}, d.n_features 3
//   // d.x {1.5, 1, 0,  2.0, 0, 1}; d.classes {"no", "yes"}; d.y_class {1, 0}
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "assay/core/table.hpp"
#include "assay/core/task.hpp"

namespace assay::learners {

using assay::TaskKind;  // core/task.hpp: parse_task_kind, to_string

struct Dataset {
  /// Name used in results (e.g. the file stem).
  std::string name;
  TaskKind task = TaskKind::classification;
  std::size_t n_rows = 0;
  std::size_t n_features = 0;
  /// Row-major n_rows x n_features.
  std::vector<double> x;
  std::vector<std::string> feature_names;
  /// Classification: one code per row, 0..classes.size()-1. Empty for regression.
  std::vector<std::int32_t> y_class;
  /// Class names, index = code. Empty for regression.
  std::vector<std::string> classes;
  /// Regression: one target per row. Empty for classification.
  std::vector<double> y_value;
  /// Per-row weights; empty = all 1.
  std::vector<double> weights;
  /// The file the rows were read from and each row's line in it (dataset_from_table on a table
  /// read by read_csv); empty for data sets built in memory.
  std::string source;
  std::vector<std::int64_t> row_lines;

  std::size_t n_classes() const { return classes.size(); }
  const double* row(std::size_t i) const { return x.data() + i * n_features; }
  /// Row i for messages: "data.csv:7 (data row 6)" when its file line is known, else "row 5"
  /// (0-based, as numpy indexes the arrays a caller passed).
  std::string row_name(std::size_t i) const;
};

/// Which columns of a table play which role.
struct DatasetColumns {
  /// Target column (required).
  std::string label;
  /// Keep only these feature columns (empty = every column without a role).
  std::vector<std::string> features;
  /// Remove these columns from the features.
  std::vector<std::string> drop;
  /// Optional row-weight column.
  std::string weight;
  /// Columns that have a role elsewhere (subset, group, fold, strata) and so are not features.
  std::vector<std::string> reserved;
  /// Most distinct values a text feature may have (0 = no limit). One-hot encoding makes one
  /// dense feature per value: a column of ids in 20,000 rows would need 3.2 GB. Default 1000.
  std::size_t max_levels = 1000;
};

/// Checks the invariants above (sizes, class codes in range, at least two classes, finite
/// features and targets, weights finite and >= 0); throws assay::Error naming the data set and
/// the row (0-based) otherwise. For data sets built in memory (Python); run_soak calls it.
void check_dataset(const Dataset& data);

/// Builds a data set from a table. Classification labels may be numeric or strings; a
/// regression target must be numeric. Throws assay::Error (naming the file) for no rows, a
/// missing column, a column named twice (label, weight, features, reserved), no features left,
/// NaN or ±inf in a feature or a regression target, NaN in a class label, a text regression
/// target, a text, negative or non-finite weight, or a classification label with fewer than two
/// classes, a text feature with more than `max_levels` distinct values, or a feature matrix
/// larger than the memory this process can allocate (both before allocating it, naming the
/// column, its values and the gigabytes). With both `features` and `drop`, the listed features
/// minus the dropped ones remain.
Dataset dataset_from_table(const Table& table, const DatasetColumns& columns, TaskKind task,
                           std::string name);

}  // namespace assay::learners
