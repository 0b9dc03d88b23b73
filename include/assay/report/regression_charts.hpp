// Vega-Lite charts of regressors' predictions: predicted against actual values (with the y = x
// line of perfect predictions), residuals against predictions, and the residuals' distribution.
//
// Data layout: one RegressionSeries per model, each with the same n actual values and that
// model's n predictions (plain vectors of doubles, nothing from the metrics types). The residual
// is actual - predicted (positive: the model predicted too low). Models are coloured with
// series_palette() (charts.hpp) in the order given, under a legend titled "Model".
//
// Size: scatter charts draw at most kMaxScatterPoints points per model; beyond that an evenly
// spaced subset of the rows (the same rows for every model) is drawn; scatter_note() says so
// for a caption and scatter_rows() gives the rows. The histogram is computed here from
// every row (kResidualBins equal-width bins shared by the models), so it is small at any n.
//
// Example:
//   RegressionSeries s{.name = "ridge", .actual = {3, -0.5, 2, 7}, .predicted = {2.5, 0, 2, 8}};
//   Json a = predicted_vs_actual_chart({s}, "y");   // points + dashed y = x line
//   Json r = residual_chart({s}, "y");              // residual vs predicted + dashed 0 line
//   Json h = residual_histogram_chart({s}, "y");    // counts per residual bin, one step
//                                                   // line per model
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/report/charts.hpp"

namespace assay::report {

inline constexpr std::size_t kMaxScatterPoints = 2000;
inline constexpr std::size_t kResidualBins = 30;

/// One model's predictions of the target.
struct RegressionSeries {
  /// Legend label (the model's name).
  std::string name;
  /// Actual values; the same for every series of a chart.
  std::vector<double> actual;
  /// Predictions, same length as actual.
  std::vector<double> predicted;
};

/// The rows a scatter chart of n rows draws: all of them up to kMaxScatterPoints, else
/// kMaxScatterPoints evenly spaced rows (first and last included).
std::vector<std::size_t> scatter_rows(std::size_t n);

/// A caption sentence: how many of the n samples a scatter chart draws.
std::string scatter_note(std::size_t n);

/// Predicted (y axis) against actual (x axis) values, one colour per model, on equal axis ranges
/// of a square plot (params.width on both sides) with the dashed y = x line. `target` names the
/// axes ("actual y", "predicted y"). Requires at least one series and equal lengths; non-finite
/// points are not drawn.
Json predicted_vs_actual_chart(const std::vector<RegressionSeries>& series,
                               const std::string& target, const ChartParams& params = {});

/// Residual (actual - predicted, y axis) against the prediction (x axis), one colour per model,
/// with a dashed line at 0.
Json residual_chart(const std::vector<RegressionSeries>& series, const std::string& target,
                    const ChartParams& params = {});

/// The distribution of the residuals: the number of samples in each of kResidualBins equal-width
/// bins spanning every model's residuals, drawn as one step line per model.
Json residual_histogram_chart(const std::vector<RegressionSeries>& series,
                              const std::string& target, const ChartParams& params = {});

}  // namespace assay::report
