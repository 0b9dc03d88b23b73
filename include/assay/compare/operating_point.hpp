// Operating points of a binary scorer: choosing a threshold by maximising a metric, by a
// constraint ("largest recall with precision >= 0.9", "FPR <= 1 %") or by a cost matrix, and the
// metrics at the chosen threshold. Re-running the choice inside every bootstrap resample gives
// the honest interval (compare.hpp).
//
// A metric at an operating point is written `METRIC@RULE`:
//   recall@precision>=0.9     the largest recall among thresholds with precision >= 0.9
//   precision@recall>=0.8     the largest precision among thresholds with recall >= 0.8
//   recall@fpr<=0.01          the largest recall (TPR) with false positive rate <= 1 %
//   f1@max_f1                 the F1 at the threshold maximising F1 (also max_accuracy,
//                             max_balanced_accuracy, max_youden = TPR - FPR, max_mcc, max_ of
//                             any higher-is-better metric; min_fpr, min_fnr)
//   recall@cost(fp=1,fn=5)    the recall at the threshold minimising 1 FP + 5 FN (weighted);
//                             costs >= 0, not both 0; min_cost = cost(fp=1,fn=1)
// METRIC is one of threshold, precision, recall (= tpr), specificity (= tnr), fpr, fnr, f1,
// accuracy, balanced_accuracy, mcc, youden, cost (expected cost per example under a cost rule);
// aliases tpr, sensitivity (recall) and tnr (specificity). A constraint is `>=` or `<=` on any of
// them but threshold and cost, its bound in [0, 1] ([-1, 1] for mcc and youden). Case and spaces
// are ignored.
// A constraint's objective is METRIC itself, optimised in its better direction (largest
// precision/recall/...; smallest fpr/fnr/cost); `threshold@...` optimises the rule's natural
// objective: precision for constraints on recall (or fnr), recall for constraints on anything
// else. max_/min_ and cost rules optimise their own metric whatever METRIC is. Candidates are
// every distinct score t (positive iff score >= t) and t = +inf (nothing positive); among equally
// good candidates the largest threshold wins. A NaN metric (0/0) never satisfies a constraint
// nor wins. A rule no candidate satisfies gives NaN (infeasible).
//
// Layout: the candidates come from metrics::OperatingPoints (cumulative weighted tp/fp in
// descending-threshold order, one point per tie block).
//
// Example:
//   auto spec = parse_point_metric("recall@precision>=0.9");
//   ChosenPoint p = choose_point(metrics::RankedScores(y, s).operating_points(), spec);
//   double recall = p.feasible ? point_value(p, spec.metric) : NaN;
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "assay/metrics/ranking.hpp"

namespace assay::compare {

enum class PointMetric {
  threshold,
  precision,
  recall,
  specificity,
  fpr,
  fnr,
  f1,
  accuracy,
  balanced_accuracy,
  mcc,
  youden,
  cost
};

struct PointRule {
  enum class Kind { maximize, at_least, at_most, cost };
  Kind kind = Kind::maximize;
  /// maximize: the metric optimised in its better direction (max_f1, min_fpr); at_least/at_most:
  /// the constrained metric.
  PointMetric metric = PointMetric::f1;
  double bound = 0;
  double cost_fp = 1;
  double cost_fn = 1;
};

struct PointMetricSpec {
  std::string text;  ///< canonical spelling, e.g. "recall@precision>=0.9"
  PointMetric metric = PointMetric::recall;
  PointRule rule;
};

/// True when `name` has an '@' (an operating-point metric).
bool is_point_metric(std::string_view name);

/// Parses `METRIC@RULE` (spaces allowed around operators; "%" after a bound divides by 100).
/// Throws assay::Error: `metric "recall@precision=>0.9": expected a rule such as
/// "precision>=0.9", "fpr<=0.01", "max_f1" or "cost(fp=1,fn=5)", found "precision=>0.9"`.
PointMetricSpec parse_point_metric(std::string_view name);

/// The metric of a name or alias ("recall", "tpr", "f1", ...), or none.
std::optional<PointMetric> point_metric_named(std::string_view name);
/// The canonical name of a metric ("recall" for PointMetric::recall).
std::string_view to_string(PointMetric metric);

/// Whether a larger value of the metric is better (false for fpr, fnr and cost; true for
/// threshold, which has no direction).
bool higher_is_better(PointMetric metric);

struct ChosenPoint {
  bool feasible = false;
  double threshold = 0;  ///< +inf when nothing is predicted positive
  /// Weighted counts in the units of the points (times 2^points.scale_exponent).
  double tp = 0, fp = 0, fn = 0, tn = 0;
};

/// The chosen threshold among the candidates of `points` (and +inf) under spec's rule and
/// objective (see above). O(points), no allocation: it runs inside every bootstrap resample.
ChosenPoint choose_point(const metrics::OperatingPoints& points, const PointMetricSpec& spec);

/// The metric at a chosen point from its counts (NaN where 0/0, e.g. precision with nothing
/// predicted positive, and every metric but threshold when the total weight is 0); `rule`
/// supplies the costs of PointMetric::cost. As scikit-learn: mcc is 0 when its denominator is
/// 0; balanced_accuracy with one class present is that class's recall.
double point_value(const ChosenPoint& point, PointMetric metric, const PointRule& rule = {});

}  // namespace assay::compare
