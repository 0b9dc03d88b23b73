// One model's metrics on one group of examples (the whole data or a slice), as functions of
// per-example weights: the bootstrap passes resample counts times the base weights, the
// jackknife zeros, the point estimate the base weights. Each function sorts nothing per call:
// the ranking structures are built once here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "assay/compare/compare.hpp"
#include "assay/compare/operating_point.hpp"
#include "assay/metrics/uncertainty.hpp"

namespace assay::compare::detail {

/// What the metrics of a task need to know about the whole problem.
struct ProblemShape {
  Task task = Task::binary;
  std::int32_t n_classes = 2;
  std::int32_t positive = 1;  ///< binary: code of the positive class
  double threshold = 0.5;
  metrics::ApParams ap;
};

/// One model's data on one group, in the group's example order.
struct GroupData {
  std::vector<std::int32_t> y;     ///< class codes (classification)
  std::vector<double> target;      ///< regression targets
  std::vector<double> scores;      ///< binary: positive score; regression: prediction;
                                   ///< multi-class: n x K (empty for predictions only)
  std::vector<std::int32_t> pred;  ///< classification: predicted codes
  bool probabilities = false;      ///< binary scores in [0, 1] / rows summing to 1
};

/// The metrics of one model on one group.
class ModelMetrics {
 public:
  ModelMetrics(const ProblemShape& shape, GroupData data, const std::vector<std::string>& names);

  std::size_t size() const { return n_; }
  /// Metric m under the weights (length size()).
  double value(std::size_t m, std::span<const double> weights) const;
  /// Operating-point metric m: the threshold its rule chooses under the weights (NaN for other
  /// metrics or when infeasible).
  double threshold(std::size_t m, std::span<const double> weights) const;

 private:
  struct Metric {
    std::string name;
    std::optional<PointMetricSpec> point;
  };
  double binary_value(const Metric& metric, std::span<const double> w) const;
  double multiclass_value(const std::string& name, std::span<const double> w) const;
  double regression_value(const std::string& name, std::span<const double> w) const;

  ProblemShape shape_;
  GroupData data_;
  std::size_t n_ = 0;
  std::vector<Metric> metrics_;
  std::vector<double> loss_;     // per-example log loss (probabilities)
  std::vector<double> squared_;  // binary: per-example squared error of the probability
  std::vector<std::uint8_t> is_positive_;
  std::optional<metrics::RankedScores> ranked_;         // binary
  std::vector<std::vector<std::uint8_t>> class_truth_;  // multi-class one-vs-rest
  std::vector<std::optional<metrics::RankedScores>> class_ranked_;
};

/// Whether the metric needs scores (not only predicted labels).
bool needs_scores(const std::string& canonical_name);
/// Whether the metric needs probabilities.
bool needs_probabilities(const std::string& canonical_name);

}  // namespace assay::compare::detail
