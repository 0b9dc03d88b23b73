// Canonical partitions (Shifts 2.0 paper): every metric per partition and on the joint in+shifted
// sets, for several models side by side (the layout of the Shifts 2.0 paper's Tables 2 and 3);
// threshold tuning on one partition applied to the others; generalisation sets sampled uniformly
// over declared feature ranges.
//
// Data layout: one row per sample. target[i] is the true value, each model gives prediction[i]
// and uncertainty[i] (higher = less certain); partition[i] names the sample's partition
// ("train", "dev_in", "dev_out", "eval_in", "eval_out", ...; empty vector = one partition
// "all"); shifted[i] = 1 for a shifted sample (empty = derived from the partition names, below).
//
// Sets evaluated, in this order:
// 1. every partition: Shifts 2.0's canonical names first, in the order train, dev_in, dev_out,
//    eval_in, eval_out (case-insensitive), then any other names in first-seen order;
// 2. joint sets: partitions whose names differ only by a trailing "_in"/"_out" (also "-in",
//    "-out", case-insensitive) form the joint set "<base> (in+out)", e.g. dev_in + dev_out =
//    "dev (in+out)" — Shifts 2.0 assesses models on the joint in-domain and shifted sets;
// 3. "all" (every sample), when there is more than one partition.
// Shifted flag derived from names: a partition whose name ends in "out" or contains "shift"
// (case-insensitive) is shifted, every other partition in-domain.
//
// Per set and model: n, RMSE / MAE / MAPE / R^2 (regression.hpp, optional bootstrap
// intervals), mean error, R-AUC and PRR (retention.hpp, params.convention), AURC / AUGRC
// (fd-shifts, fractions), F1-AUC and F1@95 when params.acceptable is set (acceptable = error <=
// acceptable), and the OOD AUROC of the uncertainty for shifted vs in-domain samples where the
// set holds both. Rows with an undefined PRR (NaN) or no acceptable sample (NaN F1 columns) get
// one note and one warning per kind, not one per row. An empty partition cannot occur
// (partitions are the values present); a set that is empty after all (a tuning partition that
// does not exist) is an assay::Error.
//
// Example:
//   PartitionInput in{.target = {1, 2, 3, 4},
//                     .models = {{"m", {1.5, 2, 2, 4}, {0.5, 0.1, 0.9, 0.2}}},
//                     .partition = {"dev_in", "dev_in", "dev_out", "dev_out"}};
//   ShiftEvaluation ev = evaluate_partitions(in, PartitionParams{});
//   // ev.sets {"dev_in", "dev_out", "dev (in+out)", "all"}; one row per set (one model):
//   // dev_in: rmse 0.35355, mae 0.25, r2 0.5, r_auc 0.041667, prr 1;
//   // dev (in+out): rmse 0.55902, r_auc 0.075, ood_auroc 0.75
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "assay/core/table.hpp"
#include "assay/metrics/uncertainty.hpp"
#include "assay/shift/retention.hpp"

namespace assay::shift {

/// Per-sample error from target and prediction.
enum class ErrorKind {
  squared,   ///< (y - ŷ)^2 (Shifts' vessel power and weather regression)
  absolute,  ///< |y - ŷ|
  zero_one,  ///< 1 if y != ŷ else 0 (classification labels coded as numbers)
};
ErrorKind parse_error_kind(std::string_view name);  ///< "squared" | "absolute" | "zero-one"
std::string_view to_string(ErrorKind kind);

/// One model's predictions and uncertainties (n each).
struct ModelInput {
  std::string name;
  std::vector<double> prediction;
  std::vector<double> uncertainty;
};

struct PartitionInput {
  std::vector<double> target;
  std::vector<ModelInput> models;
  /// Partition name per sample; empty = a single partition "all".
  std::vector<std::string> partition;
  /// 1 = shifted, 0 = in-domain, per sample; empty = derived from partition names.
  std::vector<std::uint8_t> shifted;
};

struct PartitionParams {
  /// Retention-curve convention for R-AUC and PRR; default shifts.
  RetentionConvention convention = RetentionConvention::shifts;
  /// Per-sample error; default squared error.
  ErrorKind error = ErrorKind::squared;
  /// F1 retention: acceptable = error <= acceptable; nullopt (default) = no F1 columns.
  std::optional<double> acceptable;
  /// F-beta's beta; default 1.
  double beta = 1;
  /// Intervals of RMSE/MAE/MAPE/R^2; default none (n_resamples = 0).
  metrics::BootstrapParams bootstrap = {.n_resamples = 0};
  /// Points per chart curve (evenly spaced retention fractions, ends included); default 201.
  std::size_t curve_points = 201;
};

/// One row of the table: one set, one model.
struct PartitionRow {
  std::string set;
  std::string kind;  ///< "partition", "joint" or "all"
  std::string model;
  std::size_t n = 0;
  std::size_t n_shifted = 0;
  metrics::BootstrapResult rmse, mae, mape, r2;  ///< replicates dropped
  double mean_error = 0;
  double r_auc = 0;
  double prr = 0;
  double aurc = 0;
  double augrc = 0;
  double f1_auc = 0;     ///< NaN when params.acceptable is unset
  double f1_at_95 = 0;   ///< NaN when params.acceptable is unset
  double ood_auroc = 0;  ///< NaN unless the set holds in-domain and shifted samples
};

/// Chart curves of one model on all samples, at `x` = retained fraction (1 = nothing rejected).
struct ModelCurves {
  std::string model;
  std::vector<double> x;
  std::vector<double> retention, oracle, random;  ///< error-retention (R at x)
  std::vector<double> f1, f1_oracle, f1_random;   ///< empty without params.acceptable
  double r_auc = 0, f1_auc = 0;
};

struct ShiftEvaluation {
  std::size_t n_samples = 0;
  std::vector<std::string> models;
  std::vector<std::string> sets;   ///< in table order
  std::vector<PartitionRow> rows;  ///< set-major: rows[s * models.size() + m]
  std::vector<ModelCurves> curves;
  PartitionParams params;
  std::vector<std::string> notes;
};

/// The partition table. Requires: target and every model of length n >= 1, partition and
/// shifted empty or of length n, at least one model, distinct model names.
ShiftEvaluation evaluate_partitions(const PartitionInput& input, const PartitionParams& params);

/// Column roles of a table for `assay shift`.
struct ShiftColumns {
  std::string target;
  /// Prediction columns, one per model (the model is named after its column).
  std::vector<std::string> pred;
  /// Uncertainty columns, one per --pred column (or empty when only members are given).
  std::vector<std::string> uncertainty;
  /// Member prediction columns of one ensemble (model "ensemble"): its prediction is the
  /// member mean, its uncertainty the total variance (variance of member means, ddof 0, plus
  /// the mean of member_vars when given).
  std::vector<std::string> members;
  /// Member variance columns, one per member column (optional).
  std::vector<std::string> member_vars;
  std::string partition;  ///< categorical (or numeric) partition column; empty = none
  std::string shifted;    ///< numeric 0/1 column; empty = derived from partition names
};

/// Builds the PartitionInput from table columns and calls evaluate_partitions: the entry point
/// of `assay shift`. Errors name the file and column.
ShiftEvaluation evaluate_table(const Table& table, const ShiftColumns& columns,
                               const PartitionParams& params);

/// Threshold tuning (Shifts 2.0 paper: the segmentation threshold is tuned on dev-in): predict
/// positive when score >= threshold; the threshold maximising the metric on the tuning
/// partition (candidates: its distinct scores; ties: the highest threshold) is applied to every
/// partition.
enum class TuneMetric { f1, accuracy };
TuneMetric parse_tune_metric(std::string_view name);  ///< "f1" | "accuracy"

struct ThresholdTuning {
  double threshold = 0;
  double tuned_value = 0;         ///< the metric on the tuning partition
  std::vector<std::string> sets;  ///< partitions in first-seen order, then "all"
  std::vector<double> values;     ///< the metric at `threshold` on each set
};
/// Requires: equal lengths n >= 1, y_true in {0, 1}, finite scores, `tune_on` a partition.
/// F1 with no predicted and no true positive is 0 with a warning (scikit-learn's zero_division).
ThresholdTuning tune_threshold(std::span<const std::uint8_t> y_true, std::span<const double> score,
                               const std::vector<std::string>& partition,
                               const std::string& tune_on, TuneMetric metric = TuneMetric::f1);

/// Generalisation set inputs: n samples, feature j uniform in [low[j], high[j]), sampled
/// independently (feature j from the stream Rng(seed).split(j), so adding a feature does not
/// change the others). Row-major n x d: sample i, feature j at out[i * d + j].
/// Requires: low.size() == high.size() >= 1, finite bounds with low[j] <= high[j].
std::vector<double> generalisation_inputs(std::span<const double> low, std::span<const double> high,
                                          std::size_t n, std::uint64_t seed);

}  // namespace assay::shift
