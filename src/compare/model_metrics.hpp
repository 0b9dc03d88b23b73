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
#include "assay/metrics/ranking.hpp"

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

/// The weights of one evaluation: base weights (empty = all 1) times bootstrap draw counts
/// (empty = all 1). Counts are bytes so that gathering them in each model's sorted order stays
/// in cache at a million examples (the engine falls back to base weights for a resample where
/// an example is drawn more than 255 times).
struct Weights {
  std::span<const double> base;
  std::span<const std::uint8_t> counts;
  double operator[](std::size_t i) const {
    const double b = base.empty() ? 1.0 : base[i];
    return counts.empty() ? b : counts[i] * b;
  }
};

/// Scores sorted once (descending, ties in blocks): every resample is one pass over them,
/// gathering the weights in sorted order.
struct SortedScores {
  std::vector<std::uint32_t> order;      ///< sorted position -> example
  std::vector<std::uint8_t> positive;    ///< label at each sorted position
  std::vector<std::uint32_t> block_end;  ///< end (exclusive) of each tie block
  std::vector<double> block_threshold;   ///< the block's score
};

/// The metrics of one model on one group. Weights are trusted (finite, >= 0, already rescaled):
/// the caller checks them once, not once per resample.
class ModelMetrics {
 public:
  ModelMetrics(const ProblemShape& shape, GroupData data, const std::vector<std::string>& names);

  std::size_t size() const { return n_; }
  std::size_t n_metrics() const { return metrics_.size(); }
  /// Every metric under the weights (length size()) into out (length n_metrics()): one pass per
  /// sorted score column and one over the examples.
  void evaluate(const Weights& weights, std::span<double> out) const;
  /// Operating-point metric m: the point its rule chooses under the weights (none for other
  /// metrics or when infeasible).
  std::optional<ChosenPoint> chosen_point(std::size_t m, const Weights& weights) const;

 private:
  struct Metric {
    std::string name;
    std::optional<PointMetricSpec> point;
    /// Binary metrics at the fixed threshold (accuracy, precision, f1, ...): their formula from
    /// the counts, resolved once instead of by name in every resample.
    std::optional<PointMetric> rate;
  };
  struct RankScan {
    double auc = 0;
    double ap = 0;
    metrics::OperatingPoints points;  // filled when asked for
  };
  RankScan scan(const SortedScores& s, const Weights& w, bool points) const;
  void binary(const Weights& w, std::span<double> out) const;
  void multiclass(const Weights& w, std::span<double> out) const;
  void regression(const Weights& w, std::span<double> out) const;

  ProblemShape shape_;
  GroupData data_;
  std::size_t n_ = 0;
  std::vector<Metric> metrics_;
  bool points_ = false;          // operating points needed (a point metric, or a non-step AP)
  std::vector<double> loss_;     // per-example log loss (probabilities)
  std::vector<double> squared_;  // binary: per-example squared error of the probability
  bool per_example_ = false;     // a metric needs the pass over the examples (not the ranking)
  std::vector<std::uint8_t> is_positive_;
  std::vector<std::uint8_t> predicted_;  // binary: 1 where the decision is the positive class
  std::vector<SortedScores> sorted_;     // binary: one; multi-class: one per class
};

/// Whether the metric needs scores (not only predicted labels).
bool needs_scores(const std::string& canonical_name);
/// Whether the metric needs probabilities.
bool needs_probabilities(const std::string& canonical_name);

}  // namespace assay::compare::detail
