// Vega-Lite chart specs for evaluation results (PR and ROC curves, confusion matrix heat map,
// reliability diagram, trends across a meta-parameter).
//
// Data layout: every builder takes plain columns, std::vector<double> of equal length, one entry
// per point (or bin); nothing here depends on the metrics types. Each builder returns a complete,
// self-contained Vega-Lite spec (assay::Json, data inlined under "data.values") that HtmlReport
// embeds, or that can be written to a .vl.json file and opened in any Vega-Lite viewer.
//
// Conventions shared by all charts:
// - Fixed size (ChartParams::width x height, 400 x 300 by default), tooltips on data marks, one
//   palette for series (series_palette(): Okabe & Ito's eight colour-blind-safe colours, then
//   twelve more, distinct for up to 20 series; past 20 the colours repeat and the chart's subtitle
//   says so; the tooltip names the series) and "blues" for the heat map. Every colour legend has
//   a title saying what it lists ("Model", "Class", ...).
// - Value axes fit the data: a dot-and-whisker chart of values between 0.93 and 1 spans about
//   0.92..1, not 0..1 (AxisRange::fit, the default; AxisRange::full keeps the whole natural range,
//   e.g. 0..1, so that charts of different data compare). PR, ROC and reliability charts always
//   span 0..1: their corners and diagonals are part of the reading.
// - NaN and infinities are allowed in the data: assay::Json writes them as null and every chart
//   filters such points out (a curve point with a non-finite coordinate is not drawn, a trend
//   point with a non-finite SD is drawn without its band).
// - PR and ROC curves drop each point within half a pixel (in both coordinates) of the previous
//   point drawn: the drawing looks the same, and a curve from millions of samples (one point per
//   distinct score) still makes a small page.
// - Series names and labels are free text; they are data, not markup, so they need no escaping.
// - Bad input (columns of different lengths, no series, duplicate labels, ...) throws
//   assay::Error naming expected and found values.
//
// Example:
//   PrSeries s{.name = "model", .recall = {1, 1, 0.5, 0.5, 0},   // precision_recall_curve's
//              .precision = {0.5, 2.0 / 3, 0.5, 1, 1}};          // points, any order
//   s.average_precision = 0.8333;             // legend: "model (AP = 0.833)"
//   Json spec = pr_curve_chart({s});          // a complete Vega-Lite spec, data inlined
//   write_json_file("pr.vl.json", spec);      // or HtmlReport::add_chart("PR", spec)
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "assay/core/json.hpp"

namespace assay::report {

/// How a value axis whose values have a natural range (fractions 0..1, scores x100) is drawn.
enum class AxisRange {
  /// The axis spans the data (points, intervals and any reference line) with a little padding,
  /// its ends rounded (fitted_axis) and never past the natural range: values between 0.93 and 1
  /// spread over the chart instead of piling at its edge.
  fit,
  /// The axis spans the whole natural range (e.g. 0..1), the same for every data set.
  full,
};

/// "fit" or "full" -> AxisRange (the one place where the CLI's --chart-axis and the report
/// configuration's chart_axis are read); anything else throws assay::Error naming both.
AxisRange parse_axis_range(std::string_view text);

/// The inverse of parse_axis_range: "fit" or "full".
std::string_view to_string(AxisRange axis);

/// The axis [low, high] that AxisRange::fit draws for data spanning [low, high] (finite,
/// low <= high): the span widened by 5% on each side (a single value: by 5% of its size, or
/// 0.05 for 0), both ends rounded outward to a multiple of a round step (1, 2, 2.5 or 5 times a
/// power of ten, about a tenth of the span), then clipped to `bounds` = [min, max] when given
/// (empty = unbounded). Example: data 0.93..1.0 with bounds 0..1 -> 0.92..1.0.
std::array<double, 2> fitted_axis(double low, double high, const std::vector<double>& bounds = {});

/// Options common to every chart.
struct ChartParams {
  /// Chart title drawn above the plot; empty = the chart's default title.
  std::string title;
  /// Width of the plot area in pixels (axes and legend come on top); default 400.
  int width = 400;
  /// Height of the plot area in pixels; default 300.
  int height = 300;
  /// Value axis of charts whose values have a natural range (interval_chart with a `domain`,
  /// and the pages' own per-subject and estimate charts); default fit. PR, ROC and reliability
  /// charts ignore it (always 0..1).
  AxisRange axis = AxisRange::fit;
  /// Title of the colour legend (what the series are); empty = the chart's default: "Model" for
  /// PR and ROC curves, "Series" for trends.
  std::string legend_title = {};
};

/// One precision-recall curve, e.g. from metrics' precision_recall_curve.
struct PrSeries {
  /// Legend label.
  std::string name;
  /// Recall of each point, in either order (scikit-learn returns it decreasing).
  std::vector<double> recall;
  /// Precision of each point; same length as recall.
  std::vector<double> precision;
  /// Interpolated precision (max precision at any recall >= r, textbook Figure 44) per point,
  /// drawn dotted in the series' colour; empty = not drawn, else same length as recall.
  std::vector<double> interpolated_precision = {};
  /// Average precision shown in the legend as "name (AP = 0.873)"; NaN = not shown.
  double average_precision = std::numeric_limits<double>::quiet_NaN();
  /// The operating point (the decision threshold in use), drawn as a ringed dot; NaN = none.
  double operating_recall = std::numeric_limits<double>::quiet_NaN();
  double operating_precision = std::numeric_limits<double>::quiet_NaN();
  /// Tooltip text of the operating point, e.g. "score >= 0.5".
  std::string operating_label = {};
};

/// Precision-recall chart: each series as a step line (the precision at a point holds over the
/// recall interval that ends there, which is how step AP integrates it), points ordered by
/// increasing recall and, at equal recall, decreasing precision; interpolated precision, where
/// given, as a dotted step line. Both axes span 0..1. Requires at least one series.
Json pr_curve_chart(const std::vector<PrSeries>& series, const ChartParams& params = {});

/// One ROC curve, e.g. from metrics' roc_curve.
struct RocSeries {
  /// Legend label.
  std::string name;
  /// False positive rate of each point, in any order.
  std::vector<double> fpr;
  /// True positive rate of each point; same length as fpr.
  std::vector<double> tpr;
  /// Area under the curve shown in the legend as "name (AUC = 0.912)"; NaN = not shown.
  double auc = std::numeric_limits<double>::quiet_NaN();
  /// The operating point (the decision threshold in use), drawn as a ringed dot; NaN = none.
  double operating_fpr = std::numeric_limits<double>::quiet_NaN();
  double operating_tpr = std::numeric_limits<double>::quiet_NaN();
  /// Tooltip text of the operating point, e.g. "score >= 0.5".
  std::string operating_label = {};
};

/// ROC chart: each series as a line through its points ordered by (fpr, tpr), plus the dashed
/// grey chance diagonal. Both axes span 0..1. Requires at least one series.
Json roc_curve_chart(const std::vector<RocSeries>& series, const ChartParams& params = {});

/// Confusion-matrix heat map. `matrix` is row-major: row i (actual class row_labels[i]), column j
/// (predicted class col_labels[j]) is matrix[i * col_labels.size() + j]; rectangular matrices are
/// allowed (grouped confusion matrices). Each cell shows its value as text: integers as such,
/// other counts with 4 significant digits, normalized values with 2 decimals. `normalized` = the
/// values are fractions (colour scale fixed to 0..1). NaN cells (e.g. a normalized row with no
/// samples) are left blank. Labels must be non-empty and unique per axis.
Json confusion_matrix_chart(const std::vector<double>& matrix,
                            const std::vector<std::string>& row_labels,
                            const std::vector<std::string>& col_labels, bool normalized = false,
                            const ChartParams& params = {});

/// What a reliability diagram's bins hold, for its axis titles and tooltips.
enum class ReliabilityKind {
  /// Multi-class, top label: per bin the mean probability of the predicted (top) label and the
  /// fraction of samples whose top label is the true class.
  top_label,
  /// Binary: per bin the mean predicted probability of the positive class and the observed
  /// frequency of the positive class.
  positive_class,
};

/// Calibration bins for a reliability diagram, one entry per bin in each column.
struct ReliabilityBins {
  /// Lower edge of each bin's confidence range, in 0..1.
  std::vector<double> lower;
  /// Upper edge of each bin; upper[i] > lower[i].
  std::vector<double> upper;
  /// Number (or total weight) of samples in each bin, >= 0; bins with 0 are not drawn.
  std::vector<double> count;
  /// Fraction of correct predictions in each bin (NaN allowed for empty bins).
  std::vector<double> accuracy;
  /// Mean confidence in each bin (NaN allowed for empty bins).
  std::vector<double> confidence;
  /// What the columns mean (axis titles and tooltips); default top_label.
  ReliabilityKind kind = ReliabilityKind::top_label;
};

/// Reliability diagram: per non-empty bin a bar spanning the bin's confidence range up to its
/// accuracy, a red translucent "gap" bar between accuracy and mean confidence, and a point at
/// (mean confidence, accuracy) sized by count; plus the dashed diagonal of perfect calibration.
/// Both axes span 0..1. Requires all columns of equal length and at least one non-empty bin.
Json reliability_chart(const ReliabilityBins& bins, const ChartParams& params = {});

/// One trend: a statistic summarized (mean and SD, e.g. across seeds) at each value of a
/// meta-parameter.
struct TrendSeries {
  /// Legend label.
  std::string name;
  /// Meta-parameter value of each point (any order; drawn sorted).
  std::vector<double> x;
  /// Mean at each x; same length as x.
  std::vector<double> mean;
  /// Standard deviation at each x; same length as x, or empty = no band. NaN (one run) = no band
  /// at that point.
  std::vector<double> sd = {};
};

/// Trend chart (textbook section "Evaluation Metrics": report trends, mean and SD across seeds, not
/// one operating point): per series a line with points through the means and a translucent mean ±
/// SD band, against a quantitative x axis, logarithmic if `log_x` (for meta-parameters such as C or
/// a learning rate; then every x must be > 0). Requires at least one series.
Json trend_chart(const std::vector<TrendSeries>& series, const std::string& x_title,
                 const std::string& y_title, bool log_x = false, const ChartParams& params = {});

/// The series colours of every chart, in order: Okabe & Ito's colour-blind-safe palette (blue,
/// orange, bluish green, reddish purple, sky blue, vermillion, yellow, black), then twelve more
/// chosen to stay apart from those, from each other and from the white background (CIELAB
/// distance about 26 or more, as Okabe & Ito's blue and sky blue): indigo, green, magenta,
/// olive, raspberry, grey, tan, maroon, plum, dark teal, khaki, periwinkle. 20 in all.
const std::vector<std::string>& series_palette();

/// One estimate with its interval, for interval_chart.
struct IntervalPoint {
  /// Row of the chart (y axis), e.g. a metric or a partition.
  std::string row;
  /// Series (colour), e.g. a model; series of one row are drawn side by side.
  std::string series;
  double value = 0;
  /// Interval bounds; NaN = no interval (only the point is drawn).
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
};

/// Options of interval_chart on top of ChartParams.
struct IntervalChartParams {
  ChartParams chart = {};
  /// Title of the value axis (with its unit).
  std::string x_title = "value";
  /// The values' natural range [low, high] (e.g. 0..1 for fractions); empty = unbounded. With
  /// chart.axis = full the axis spans it; with fit (the default) the axis fits the data and
  /// stays inside it (intervals reaching past it, e.g. a mean + SD above 1, are clipped).
  std::vector<double> domain = {};
  /// Title of the colour legend.
  std::string series_title = "Model";
  /// Tooltip name of the interval, e.g. "95% bootstrap interval".
  std::string interval_name = "interval";
  /// A dashed vertical rule at this value (e.g. 0 for differences, always inside the axis);
  /// NaN = none.
  double reference = std::numeric_limits<double>::quiet_NaN();
  /// Colour legend under the plot instead of right of it; default false. For long series names
  /// (e.g. "model vs baseline" pairs), which beside the plot would widen the chart past a
  /// narrow page.
  bool legend_below = false;
};

/// Dot-and-whisker chart (a forest plot): per row one dot per series at its value with a line
/// over [low, high]; rows in first-seen order, series dodged within a row in first-seen order.
/// The value axis is fitted_axis of the values, interval ends and `reference` (see `domain`).
/// Non-finite values are left out; `reference`, when given, is drawn under the points.
/// Requires at least one point with a finite value.
Json interval_chart(const std::vector<IntervalPoint>& points, const IntervalChartParams& params);

}  // namespace assay::report
