// Regression metrics with scikit-learn 1.2.1's definitions: mean squared / absolute / percentage
// / squared-log error, median absolute error, max error, pinball loss, Tweedie deviances, R²,
// explained variance and the D² scores, for one or several outputs.
//
// Data layout: y_true and y_pred are row-major n x m matrices of doubles (n samples, m outputs;
// m = 1 for a single target): sample i, output j is y[i * m + j]. sample_weight: empty = every
// weight 1, else n finite values >= 0. Per-output functions return m values; `average_outputs`
// turns them into scikit-learn's scalar (multioutput = uniform_average, variance_weighted or
// explicit output weights).
//
// Inputs must be finite: a NaN or infinity in y_true or y_pred is an assay::Error whose message
// begins like scikit-learn's ("Input contains NaN", "Input contains infinity or a value too
// large for dtype('float64')") and names the array and index. Sums are compensated (blocked
// Neumaier) and run in parallel over fixed row chunks for large n, so results do not depend on
// the thread count.
//
// Example:
//   RegressionData d{.y_true = y, .y_pred = p};               // one output, unweighted
//   double mse = mean_squared_error(d)[0];                   // 0.375
//   ScoreParts r2 = r2_parts(d);                               // numerator, denominator
//   double score = average_outputs(assemble_score(r2), {}, r2.denominator)[0];   // 0.94861
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace assay::metrics {

/// The targets of one regression problem (see the layout above).
struct RegressionData {
  std::span<const double> y_true;
  std::span<const double> y_pred;
  std::size_t n_outputs = 1;              ///< m; y_true.size() == y_pred.size() == n * m
  std::span<const double> sample_weight;  ///< empty = all 1
  std::size_t n_samples() const { return n_outputs == 0 ? 0 : y_true.size() / n_outputs; }
};

/// How per-output values become one number (scikit-learn's `multioutput`).
struct OutputAverage {
  enum class Kind { raw_values, uniform_average, variance_weighted, weights };
  Kind kind = Kind::uniform_average;  ///< default: plain mean over outputs
  std::vector<double> weights;        ///< Kind::weights: one weight per output
};

/// Parses "raw_values" / "uniform_average" / "variance_weighted"; else assay::Error with
/// scikit-learn's message.
OutputAverage::Kind parse_output_average(std::string_view name);

/// Checks shapes, weights (finite, >= 0, n of them) and that there is at least one sample.
void check_regression_data(const RegressionData& d);

/// The average of per-output `values` (raw_values returns them unchanged). variance_weighted
/// weighs output j by `denominators[j]` (uniform when all are 0); weights summing to 0 are an
/// assay::Error ("Weights sum to zero, can't be normalized").
std::vector<double> average_outputs(const std::vector<double>& values, const OutputAverage& how,
                                    std::span<const double> denominators = {});

/// Per output: sum w (y - ŷ)^2 / sum w; squared = false gives its square root (RMSE).
std::vector<double> mean_squared_error(const RegressionData& d, bool squared = true);
/// Per output: sum w |y - ŷ| / sum w.
std::vector<double> mean_absolute_error(const RegressionData& d);
/// Per output: sum w |y - ŷ| / max(|y|, 2^-52) / sum w (a fraction).
std::vector<double> mean_absolute_percentage_error(const RegressionData& d);
/// MSE of log1p(y), log1p(ŷ); negative targets are an assay::Error (scikit-learn's message).
std::vector<double> mean_squared_log_error(const RegressionData& d, bool squared = true);
/// Per output: the median of |y - ŷ| (numpy's median), or with weights scikit-learn's
/// _weighted_percentile (no interpolation: the first sorted value whose cumulative weight
/// reaches half the total).
std::vector<double> median_absolute_error(const RegressionData& d);
/// max |y - ŷ| of a single output (several outputs: assay::Error). No weights.
double max_error(const RegressionData& d);
/// Per output: mean pinball loss, alpha (y - ŷ) if y >= ŷ else (1 - alpha)(ŷ - y).
std::vector<double> mean_pinball_loss(const RegressionData& d, double alpha = 0.5);
/// Mean Tweedie deviance of a single output with scikit-learn's domain checks per `power`
/// (0 < power < 1 is undefined; power 1 Poisson, 2 Gamma).
double mean_tweedie_deviance(const RegressionData& d, double power = 0);

/// Numerator and denominator of R² / explained variance / D² per output.
struct ScoreParts {
  std::vector<double> numerator;
  std::vector<double> denominator;
};
/// R²: numerator sum w (y - ŷ)^2, denominator sum w (y - ȳ_w)^2.
ScoreParts r2_parts(const RegressionData& d);
/// Explained variance: weighted variances of the residual and of y.
ScoreParts explained_variance_parts(const RegressionData& d);
/// D² pinball: pinball loss of ŷ and of the alpha-quantile of y (numpy's linear percentile, or
/// the weighted percentile with weights).
ScoreParts d2_pinball_parts(const RegressionData& d, double alpha = 0.5);
/// 1 - numerator / denominator per output; force_finite: 1 when the numerator is 0 and 0 when
/// only the denominator is 0 (scikit-learn's force_finite).
std::vector<double> assemble_score(const ScoreParts& parts, bool force_finite = true);
/// D² Tweedie of a single output: 1 - deviance(y, ŷ) / deviance(y, ȳ_w) (no forcing).
double d2_tweedie_score(const RegressionData& d, double power = 0);

}  // namespace assay::metrics
