#include "assay/report/charts.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/report/html.hpp"
#include "report_util.hpp"

namespace assay::report {
namespace detail {
const char* const kGuideGrey = "#8c8c8c";
}  // namespace detail
using detail::kGuideGrey;
namespace {

Json string_array(const std::vector<std::string>& values);

std::string schema_url() {
  // The spec names the Vega-Lite major version that the page embeds (vega-embed warns when the
  // $schema and the loaded library disagree).
  for (const auto& file : chart_library()) {
    if (file.package == "vega-lite") {
      const auto dot = file.version.find('.');
      return fmt::format("https://vega.github.io/schema/vega-lite/v{}.json",
                         file.version.substr(0, dot));
    }
  }
  ASSAY_ASSERT(false && "vega-lite missing from the embedded chart library");
  return {};
}

Json chart_config() {
  return {
      {"font", "Helvetica, Arial, sans-serif"},
      {"title", {{"fontSize", 14}, {"anchor", "start"}, {"offset", 10}}},
      {"axis",
       {{"labelFontSize", 11}, {"titleFontSize", 12}, {"gridColor", "#e6e6e6"}, {"tickCount", 6}}},
      {"legend", {{"labelFontSize", 11}, {"titleFontSize", 12}, {"labelLimit", 280}}},
      {"range", {{"category", string_array(series_palette())}}},
      {"view", {{"stroke", "#d0d0d0"}}},
  };
}

Json base_spec(const ChartParams& params, const std::string& default_title,
               const std::string& description) {
  if (params.width <= 0 || params.height <= 0)
    fail("chart width and height must be positive (found {} x {})", params.width, params.height);
  Json spec = Json::object();
  spec["$schema"] = schema_url();
  spec["description"] = description;
  spec["title"] = params.title.empty() ? default_title : params.title;
  spec["width"] = params.width;
  spec["height"] = params.height;
  spec["config"] = chart_config();
  return spec;
}

// Writes a number for the data; non-finite values become null (assay::Json would do the same).
Json number(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

// Vega expression that is true when datum.<field> is a finite number.
std::string finite(const std::string& field) {
  return fmt::format("isValid(datum['{0}']) && isFinite(datum['{0}'])", field);
}

Json unit_axis(const char* field, const char* title) {
  return {{"field", field},
          {"type", "quantitative"},
          {"title", title},
          {"scale", {{"domain", {0, 1}}, {"nice", false}}},
          {"axis", {{"format", ".1f"}}}};
}

Json tooltip(const char* field, const char* title, const char* format = nullptr) {
  Json t = {{"field", field}, {"title", title}};
  if (format) {
    t["type"] = "quantitative";
    t["format"] = format;
  } else {
    t["type"] = "nominal";
  }
  return t;
}

// Dashed grey y = x line from (0, 0) to (1, 1), for ROC chance and perfect calibration.
Json diagonal_layer(const char* x_field, const char* y_field) {
  return detail::dashed_guide_line({{{x_field, 0}, {y_field, 0}}, {{x_field, 1}, {y_field, 1}}},
                                   x_field, y_field);
}

// Invisible points on a curve's vertices that carry its tooltips (a line mark has one tooltip for
// the whole line); separate from the line so that legends keep line symbols.
Json hover_points(const char* x_field, const char* y_field, Json tooltips) {
  return {{"mark", {{"type", "point"}, {"filled", true}, {"size", 40}, {"opacity", 0}}},
          {"encoding",
           {{"x", {{"field", x_field}, {"type", "quantitative"}}},
            {"y", {{"field", y_field}, {"type", "quantitative"}}},
            {"tooltip", std::move(tooltips)}}}};
}

// The colour legend's title: the caller's, else the chart's default.
std::string legend_title(const ChartParams& params, const char* fallback) {
  return params.legend_title.empty() ? fallback : params.legend_title;
}

void check_series_count(std::size_t n, const char* chart) {
  if (n == 0) fail("{} needs at least one series (found 0)", chart);
}

void check_unique(const std::vector<std::string>& names, const char* what) {
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (!seen.insert(name).second)
      fail("{} must be unique ({} appears twice)", what, quote_found(name));
  }
}

void check_length(const std::string& series, const char* a, std::size_t na, const char* b,
                  std::size_t nb) {
  if (na != nb)
    fail("series {}: {} and {} differ in length ({} vs {})", quote_found(series), a, b, na, nb);
}

std::string legend_label(const std::string& name, const char* stat, double value) {
  return std::isfinite(value) ? fmt::format("{} ({} = {:.3f})", name, stat, value) : name;
}

// Colour encoding of a series field with a solid legend symbol (the marks may be translucent).
Json series_color(const char* field, const char* title, const Json& domain, bool stroke_symbol) {
  Json legend = {{"symbolOpacity", 1}};
  if (stroke_symbol) {
    legend["symbolType"] = "stroke";
    legend["symbolStrokeWidth"] = 3;
  }
  return {{"field", field},
          {"type", "nominal"},
          {"title", title},
          {"scale", {{"domain", domain}}},
          {"legend", std::move(legend)}};
}

Json string_array(const std::vector<std::string>& values) {
  Json out = Json::array();
  for (const auto& v : values) out.push_back(v);
  return out;
}

// Indices of the points whose coordinates are both finite, sorted by (x ascending, y as
// `y_descending` says; stable, so exact duplicates keep their input order), less the points
// within `tolerance` in both x and y of the previous point kept (the first and last are always
// kept). With tolerance = half a pixel of a unit axis the drawing is unchanged to the eye, and a
// curve from millions of samples stays a few thousand points.
std::vector<std::size_t> curve_order(const std::vector<double>& x, const std::vector<double>& y,
                                     bool y_descending, double tolerance) {
  std::vector<std::size_t> idx;
  idx.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isfinite(x[i]) && std::isfinite(y[i])) idx.push_back(i);
  }
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    if (x[a] != x[b]) return x[a] < x[b];
    return y_descending ? y[a] > y[b] : y[a] < y[b];
  });
  std::size_t kept = 0;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const std::size_t i = idx[k], last = idx[kept == 0 ? 0 : kept - 1];
    const bool near =
        kept > 0 && std::abs(x[i] - x[last]) < tolerance && std::abs(y[i] - y[last]) < tolerance;
    if (!near || k + 1 == idx.size()) idx[kept++] = i;
  }
  idx.resize(kept);
  return idx;
}

// Half a pixel on a unit (0..1) axis of the larger plot side.
double half_pixel(const ChartParams& params) {
  return 0.5 / std::max(1, std::max(params.width, params.height));
}

// The operating point of one series (NaN coordinates = none) and the axes it is drawn on.
struct OperatingPoint {
  double x, y;
  std::string rule;
};
struct Axes {
  const char *x_field, *y_field, *x_title, *y_title;
};

// Ringed dots at each series' operating point (the threshold in use), coloured like its curve;
// no layer when no series has a finite operating point.
void add_operating_layer(Json& spec, const Axes& axes, const std::vector<std::string>& labels,
                         const std::vector<OperatingPoint>& points, const std::string& legend) {
  Json values = Json::array();
  for (std::size_t k = 0; k < labels.size(); ++k) {
    const auto& p = points[k];
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    values.push_back({{"series", labels[k]},
                      {axes.x_field, p.x},
                      {axes.y_field, p.y},
                      {"rule", p.rule.empty() ? "operating point" : p.rule}});
  }
  if (values.empty()) return;
  spec["layer"].push_back(
      {{"data", {{"values", std::move(values)}}},
       {"mark",
        {{"type", "point"},
         {"filled", true},
         {"size", 110},
         {"stroke", "#000000"},
         {"strokeWidth", 1.5},
         {"opacity", 1}}},
       {"encoding",
        {{"x", {{"field", axes.x_field}, {"type", "quantitative"}}},
         {"y", {{"field", axes.y_field}, {"type", "quantitative"}}},
         // No legend of its own: it shares the curves' colour legend (a
         // "legend": null here conflicts with theirs and Vega-Lite warns).
         {"color", {{"field", "series"}, {"type", "nominal"}}},
         {"tooltip",
          {tooltip("series", legend.c_str()), tooltip("rule", "Operating point"),
           tooltip(axes.x_field, axes.x_title, ".4f"),
           tooltip(axes.y_field, axes.y_title, ".4f")}}}}});
}

// [low, high] widened to multiples of a round step (1, 2, 2.5 or 5 times a power of ten) near a
// tenth of the span. Multiples are formed as integer * mantissa, then scaled by the power of ten
// with one division, so 0.92 comes out as the double nearest 0.92, not 0.9200000000000002.
std::pair<double, double> round_outward(double low, double high) {
  const double raw = (high - low) / 10;
  const int exponent = static_cast<int>(std::floor(std::log10(raw)));
  // Shaved by a hair so that a raw step of 0.005000000000000001 counts as 5, not above it.
  const double fraction = raw / std::pow(10.0, exponent) * (1 - 1e-9);
  const double mantissa = fraction <= 1     ? 1
                          : fraction <= 2   ? 2
                          : fraction <= 2.5 ? 2.5
                          : fraction <= 5   ? 5
                                            : 10;
  const double scale = std::pow(10.0, std::abs(exponent));
  auto at = [&](double k) { return exponent >= 0 ? k * mantissa * scale : k * mantissa / scale; };
  const double step = at(1);
  // A hair of slack: -0.05 / 0.01 is -5.000000000000001, which must round to -5, not -6.
  return {at(std::floor(low / step + 1e-9)), at(std::ceil(high / step - 1e-9))};
}

// Past series_palette()'s colours Vega starts over: the subtitle says so (tooltips name each).
void note_repeated_colours(Json& spec, std::size_t n_series) {
  const std::size_t n_colours = series_palette().size();
  if (n_series <= n_colours) return;
  spec["title"] = {{"text", spec["title"]},
                   {"subtitle", fmt::format("{} series, {} colours: colours repeat (the tooltip "
                                            "names each series)",
                                            n_series, n_colours)}};
}

}  // namespace

const std::vector<std::string>& series_palette() {
  static const std::vector<std::string> palette = {
      "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
      "#000000", "#2A2AB8", "#3CB83C", "#C040C0", "#66600A", "#C8104E", "#8A8A8A",
      "#D89A7A", "#7A3030", "#6A0A6A", "#0A5A5A", "#A0A000", "#8080FF"};
  return palette;
}

AxisRange parse_axis_range(std::string_view text) {
  if (text == "fit") return AxisRange::fit;
  if (text == "full") return AxisRange::full;
  fail("chart axis must be fit or full, found {}", quote_found(std::string(text)));
}

std::string_view to_string(AxisRange axis) {
  return axis == AxisRange::fit ? "fit" : "full";
}

std::array<double, 2> fitted_axis(double low, double high, const std::vector<double>& bounds) {
  if (!std::isfinite(low) || !std::isfinite(high) || low > high)
    fail("fitted_axis needs finite low <= high (found {} and {})", low, high);
  if (!bounds.empty() && (bounds.size() != 2 || !(bounds[0] < bounds[1])))
    fail("fitted_axis bounds must be [min, max] with min < max (found {} values)", bounds.size());
  const double span = high > low ? high - low : (low != 0 ? std::abs(low) : 1.0);
  const double pad = 0.05 * span;
  const auto [lo, hi] = round_outward(low - pad, high + pad);
  if (bounds.empty()) return {lo, hi};
  const double a = std::max(lo, bounds[0]), b = std::min(hi, bounds[1]);
  if (a < b) return {a, b};
  return {bounds[0], bounds[1]};  // the data lie outside the bounds: show the whole range
}

Json pr_curve_chart(const std::vector<PrSeries>& series, const ChartParams& params) {
  check_series_count(series.size(), "pr_curve_chart");
  std::vector<std::string> names, labels;
  bool any_interpolated = false;
  for (const auto& s : series) {
    check_length(s.name, "recall", s.recall.size(), "precision", s.precision.size());
    if (!s.interpolated_precision.empty()) {
      check_length(s.name, "recall", s.recall.size(), "interpolated_precision",
                   s.interpolated_precision.size());
      any_interpolated = true;
    }
    names.push_back(s.name);
    labels.push_back(legend_label(s.name, "AP", s.average_precision));
  }
  check_unique(names, "series names");

  const std::string legend = legend_title(params, "Model");
  const char* const raw = "precision";
  const char* const interp = "interpolated precision";
  const double tolerance = half_pixel(params);
  Json values = Json::array();
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    // At equal recall, higher precision first: the step then holds the precision at which that
    // recall is first reached, as step AP counts it, and drops vertically after.
    std::size_t order = 0;
    for (std::size_t i : curve_order(s.recall, s.precision, /*y_descending=*/true, tolerance)) {
      values.push_back({{"series", labels[k]},
                        {"curve", raw},
                        {"recall", s.recall[i]},
                        {"precision", s.precision[i]},
                        {"order", order++}});
    }
    if (s.interpolated_precision.empty()) continue;
    order = 0;
    for (std::size_t i : curve_order(s.recall, s.interpolated_precision, true, tolerance)) {
      values.push_back({{"series", labels[k]},
                        {"curve", interp},
                        {"recall", s.recall[i]},
                        {"precision", s.interpolated_precision[i]},
                        {"order", order++}});
    }
  }

  Json encoding = {
      {"x", unit_axis("recall", "Recall")},
      {"y", unit_axis("precision", "Precision")},
      {"color", series_color("series", legend.c_str(), string_array(labels), true)},
      {"order", {{"field", "order"}, {"type", "quantitative"}}},
  };
  if (any_interpolated) {
    encoding["strokeDash"] = {{"field", "curve"},
                              {"type", "nominal"},
                              {"title", "Curve"},
                              {"scale", {{"domain", {raw, interp}}, {"range", {{1, 0}, {2, 3}}}}},
                              {"legend", {{"symbolStrokeColor", "#555555"}}}};
  }
  Json spec = base_spec(params, "Precision-recall curve",
                        "Precision against recall per model, as step lines; dotted: interpolated "
                        "precision (highest precision at any recall at or above).");
  spec["data"] = {{"values", std::move(values)}};
  spec["transform"] = {{{"filter", finite("recall") + " && " + finite("precision")}}};
  Json line = {{"mark", {{"type", "line"}, {"interpolate", "step-before"}, {"strokeWidth", 2}}},
               {"encoding", std::move(encoding)}};
  spec["layer"] = {
      std::move(line),
      hover_points("recall", "precision",
                   {tooltip("series", legend.c_str()), tooltip("curve", "Curve"),
                    tooltip("recall", "Recall", ".4f"), tooltip("precision", "Precision", ".4f")})};
  std::vector<OperatingPoint> points;
  for (const auto& s : series)
    points.push_back({s.operating_recall, s.operating_precision, s.operating_label});
  add_operating_layer(spec, {"recall", "precision", "Recall", "Precision"}, labels, points, legend);
  note_repeated_colours(spec, labels.size());
  return spec;
}

Json roc_curve_chart(const std::vector<RocSeries>& series, const ChartParams& params) {
  check_series_count(series.size(), "roc_curve_chart");
  std::vector<std::string> names, labels;
  for (const auto& s : series) {
    check_length(s.name, "fpr", s.fpr.size(), "tpr", s.tpr.size());
    names.push_back(s.name);
    labels.push_back(legend_label(s.name, "AUC", s.auc));
  }
  check_unique(names, "series names");

  const std::string legend = legend_title(params, "Model");
  const double tolerance = half_pixel(params);
  Json values = Json::array();
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    std::size_t order = 0;
    for (std::size_t i : curve_order(s.fpr, s.tpr, /*y_descending=*/false, tolerance)) {
      values.push_back(
          {{"series", labels[k]}, {"fpr", s.fpr[i]}, {"tpr", s.tpr[i]}, {"order", order++}});
    }
  }
  Json curves = {
      {"data", {{"values", std::move(values)}}},
      {"transform", {{{"filter", finite("fpr") + " && " + finite("tpr")}}}},
      {"layer",
       {{{"mark", {{"type", "line"}, {"strokeWidth", 2}}},
         {"encoding",
          {{"x", unit_axis("fpr", "False positive rate")},
           {"y", unit_axis("tpr", "True positive rate")},
           {"color", series_color("series", legend.c_str(), string_array(labels), true)},
           {"order", {{"field", "order"}, {"type", "quantitative"}}}}}},
        hover_points("fpr", "tpr",
                     {tooltip("series", legend.c_str()), tooltip("fpr", "FPR", ".4f"),
                      tooltip("tpr", "TPR", ".4f")})}},
  };
  Json spec = base_spec(params, "ROC curve",
                        "True positive rate against false positive rate per model; dashed: "
                        "chance (a random ranking).");
  spec["layer"] = {diagonal_layer("fpr", "tpr"), std::move(curves)};
  std::vector<OperatingPoint> points;
  for (const auto& s : series)
    points.push_back({s.operating_fpr, s.operating_tpr, s.operating_label});
  add_operating_layer(spec, {"fpr", "tpr", "FPR", "TPR"}, labels, points, legend);
  note_repeated_colours(spec, labels.size());
  return spec;
}

Json confusion_matrix_chart(const std::vector<double>& matrix,
                            const std::vector<std::string>& row_labels,
                            const std::vector<std::string>& col_labels, bool normalized,
                            const ChartParams& params) {
  if (row_labels.empty() || col_labels.empty())
    fail("confusion_matrix_chart needs at least one row and one column label (found {} x {})",
         row_labels.size(), col_labels.size());
  if (matrix.size() != row_labels.size() * col_labels.size())
    fail("confusion matrix has {} values, expected {} rows x {} columns = {}", matrix.size(),
         row_labels.size(), col_labels.size(), row_labels.size() * col_labels.size());
  check_unique(row_labels, "row labels");
  check_unique(col_labels, "column labels");

  double max_value = 0;
  bool all_integers = true;
  for (double v : matrix) {
    if (!std::isfinite(v)) continue;
    max_value = std::max(max_value, v);
    if (v != std::round(v) || std::abs(v) > 1e15) all_integers = false;
  }
  Json values = Json::array();
  for (std::size_t i = 0; i < row_labels.size(); ++i) {
    for (std::size_t j = 0; j < col_labels.size(); ++j) {
      const double v = matrix[i * col_labels.size() + j];
      std::string text;
      if (std::isfinite(v)) {
        text = normalized     ? fmt::format("{:.2f}", v)
               : all_integers ? fmt::format("{:.0f}", v)
                              : fmt::format("{:.4g}", v);
      }
      values.push_back({{"actual", row_labels[i]},
                        {"predicted", col_labels[j]},
                        {"value", number(v)},
                        {"text", text}});
    }
  }
  const char* const value_title = normalized ? "Fraction" : "Count";
  std::size_t longest = 0;
  for (const auto& l : col_labels) longest = std::max(longest, l.size());
  Json x = {{"field", "predicted"},
            {"type", "nominal"},
            {"title", "Predicted"},
            {"scale", {{"domain", string_array(col_labels)}}},
            {"axis", {{"labelAngle", longest > 6 ? -45 : 0}}}};
  Json y = {{"field", "actual"},
            {"type", "nominal"},
            {"title", "Actual"},
            {"scale", {{"domain", string_array(row_labels)}}}};
  Json color_scale = {{"scheme", "blues"}};
  color_scale["domain"] = normalized ? Json{0, 1} : Json{0, max_value > 0 ? max_value : 1};
  Json cell_tooltip = {tooltip("actual", "Actual"), tooltip("predicted", "Predicted"),
                       tooltip("value", value_title, normalized ? ".4f" : ",.6~g")};
  Json cells = {
      {"transform", {{{"filter", finite("value")}}}},
      {"mark", {{"type", "rect"}, {"stroke", "white"}, {"strokeWidth", 1}}},
      {"encoding",
       {{"x", x},
        {"y", y},
        {"color",
         {{"field", "value"},
          {"type", "quantitative"},
          {"title", value_title},
          {"scale", std::move(color_scale)}}},
        {"tooltip", cell_tooltip}}},
  };
  // White text on the darker half of the colour scale, black on the lighter half.
  const double threshold = normalized ? 0.5 : 0.5 * max_value;
  Json text = {
      {"mark", {{"type", "text"}, {"fontSize", 12}, {"baseline", "middle"}}},
      {"encoding",
       {{"x", x},
        {"y", y},
        {"text", {{"field", "text"}, {"type", "nominal"}}},
        {"color",
         {{"condition", {{"test", fmt::format("datum.value > {}", threshold)}, {"value", "white"}}},
          {"value", "black"}}},
        {"tooltip", cell_tooltip}}},
  };
  Json spec = base_spec(params, "Confusion matrix",
                        "Rows: actual class; columns: predicted class; colour and text: the value "
                        "of each cell.");
  spec["data"] = {{"values", std::move(values)}};
  spec["layer"] = {std::move(cells), std::move(text)};
  return spec;
}

Json reliability_chart(const ReliabilityBins& bins, const ChartParams& params) {
  const std::size_t n = bins.lower.size();
  const std::pair<const char*, std::size_t> columns[] = {{"upper", bins.upper.size()},
                                                         {"count", bins.count.size()},
                                                         {"accuracy", bins.accuracy.size()},
                                                         {"confidence", bins.confidence.size()}};
  for (const auto& [name, size] : columns) {
    if (size != n)
      fail("reliability bins: lower and {} differ in length ({} vs {})", name, n, size);
  }
  Json values = Json::array();
  for (std::size_t i = 0; i < n; ++i) {
    const double lo = bins.lower[i], hi = bins.upper[i], count = bins.count[i];
    if (!(lo >= 0 && hi <= 1 && lo < hi))
      fail("reliability bin {}: expected 0 <= lower < upper <= 1, found [{}, {}]", i, lo, hi);
    if (!(count >= 0) || !std::isfinite(count))
      fail("reliability bin {}: count must be finite and >= 0, found {}", i, count);
    if (count == 0) continue;  // empty bins have no accuracy to show
    const double acc = bins.accuracy[i], conf = bins.confidence[i];
    if (!(acc >= 0 && acc <= 1) || !(conf >= 0 && conf <= 1))
      fail("reliability bin {}: accuracy and confidence must be in [0, 1], found {} and {}", i, acc,
           conf);
    values.push_back({{"bin", fmt::format("{:.3g} to {:.3g}", lo, hi)},
                      {"lower", lo},
                      {"upper", hi},
                      {"count", count},
                      {"accuracy", acc},
                      {"confidence", conf}});
  }
  if (values.empty())
    fail("reliability_chart needs at least one non-empty bin (found {} bins, all empty)", n);

  // Binary: the positive class's observed frequency against its predicted probability;
  // multi-class: whether the top label is right against its probability.
  const bool positive = bins.kind == ReliabilityKind::positive_class;
  const char* const x_title =
      positive ? "Mean predicted probability" : "Mean top-label probability";
  const char* const y_title =
      positive ? "Frequency of the positive class" : "Accuracy of the top label";
  Json bin_tooltip = {
      tooltip("bin", positive ? "Predicted probability range" : "Top-label probability range"),
      tooltip("count", "Samples", ",~g"),
      tooltip("accuracy",
              positive ? "Observed frequency of the positive class"
                       : "Fraction whose top label is true",
              ".4f"),
      tooltip("confidence", positive ? "Mean predicted probability" : "Mean top-label probability",
              ".4f")};
  Json bars = {
      {"mark", {{"type", "rect"}, {"color", "#4c78a8"}, {"opacity", 0.85}, {"stroke", "white"}}},
      {"encoding",
       {{"x", unit_axis("lower", x_title)},
        {"x2", {{"field", "upper"}}},
        {"y", unit_axis("accuracy", y_title)},
        {"y2", {{"datum", 0}}},
        {"tooltip", bin_tooltip}}},
  };
  Json gaps = {
      {"mark", {{"type", "rect"}, {"color", "#e45756"}, {"opacity", 0.35}}},
      {"encoding",
       {{"x", {{"field", "lower"}, {"type", "quantitative"}}},
        {"x2", {{"field", "upper"}}},
        {"y", {{"field", "accuracy"}, {"type", "quantitative"}}},
        {"y2", {{"field", "confidence"}}},
        {"tooltip", bin_tooltip}}},
  };
  Json points = {
      {"mark", {{"type", "point"}, {"filled", true}, {"color", "#222222"}}},
      {"encoding",
       {{"x", {{"field", "confidence"}, {"type", "quantitative"}}},
        {"y", {{"field", "accuracy"}, {"type", "quantitative"}}},
        {"size",
         {{"field", "count"},
          {"type", "quantitative"},
          {"title", "Samples"},
          {"scale", {{"range", {20, 160}}, {"zero", false}}}}},
        {"tooltip", bin_tooltip}}},
  };
  Json data_layers = {{"data", {{"values", std::move(values)}}},
                      {"layer", {std::move(bars), std::move(gaps), std::move(points)}}};
  Json spec = base_spec(
      params, "Reliability diagram",
      positive ? "Per bin of predicted probability: the observed frequency of the positive class "
                 "(bar), the gap to the mean predicted probability (red) and the mean predicted "
                 "probability (dot, sized by samples); dashed: perfect calibration."
               : "Per bin of top-label probability: the fraction whose top label is true (bar), "
                 "the gap to the mean top-label probability (red) and that mean (dot, sized by "
                 "samples); dashed: perfect calibration.");
  spec["layer"] = {std::move(data_layers), diagonal_layer("lower", "accuracy")};
  return spec;
}

Json trend_chart(const std::vector<TrendSeries>& series, const std::string& x_title,
                 const std::string& y_title, bool log_x, const ChartParams& params) {
  check_series_count(series.size(), "trend_chart");
  std::vector<std::string> names;
  bool any_band = false;
  for (const auto& s : series) {
    check_length(s.name, "x", s.x.size(), "mean", s.mean.size());
    if (!s.sd.empty()) {
      check_length(s.name, "x", s.x.size(), "sd", s.sd.size());
      any_band = true;
    }
    names.push_back(s.name);
    if (log_x) {
      for (double v : s.x) {
        if (!(v > 0)) fail("series {}: a log x axis needs x > 0, found {}", quote_found(s.name), v);
      }
    }
  }
  check_unique(names, "series names");

  Json values = Json::array();
  for (const auto& s : series) {
    std::vector<std::size_t> idx(s.x.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      return s.x[a] < s.x[b];  // NaN x compares false both ways; filtered out in the spec
    });
    for (std::size_t i : idx) {
      const double sd = s.sd.empty() ? std::nan("") : s.sd[i];
      values.push_back({{"series", s.name},
                        {"x", number(s.x[i])},
                        {"mean", number(s.mean[i])},
                        {"sd", number(sd)},
                        {"low", number(s.mean[i] - sd)},
                        {"high", number(s.mean[i] + sd)}});
    }
  }
  Json x = {{"field", "x"},
            {"type", "quantitative"},
            {"title", x_title},
            {"scale", log_x ? Json{{"type", "log"}} : Json{{"zero", false}}}};
  const std::string legend = legend_title(params, "Series");
  Json color = series_color("series", legend.c_str(), string_array(names), false);
  Json line = {
      {"transform", {{{"filter", finite("x") + " && " + finite("mean")}}}},
      {"mark", {{"type", "line"}, {"strokeWidth", 2}, {"point", {{"filled", true}, {"size", 40}}}}},
      {"encoding",
       {{"x", x},
        {"y",
         {{"field", "mean"},
          {"type", "quantitative"},
          {"title", y_title},
          {"scale", {{"zero", false}}}}},
        {"color", color},
        {"tooltip",
         {tooltip("series", legend.c_str()), tooltip("x", "x", ",~g"),
          tooltip("mean", "Mean", ".4g"), tooltip("sd", "SD", ".4g")}}}},
  };
  Json layers = Json::array();
  if (any_band) {
    layers.push_back({
        {"transform",
         {{{"filter", finite("x") + " && " + finite("low") + " && " + finite("high")}}}},
        {"mark", {{"type", "area"}, {"opacity", 0.2}}},
        {"encoding",
         {{"x", x},
          {"y", {{"field", "low"}, {"type", "quantitative"}, {"stack", nullptr}}},
          {"y2", {{"field", "high"}}},
          {"color", color},
          {"tooltip", nullptr}}},
    });
  }
  layers.push_back(std::move(line));
  Json spec =
      base_spec(params, fmt::format("{} against {}", y_title, x_title),
                "Mean (line) and mean \u00b1 SD (band) at each value of the meta-parameter.");
  spec["data"] = {{"values", std::move(values)}};
  spec["layer"] = std::move(layers);
  note_repeated_colours(spec, names.size());
  return spec;
}

namespace {

// The value axis of interval_chart: the natural range (full), or fitted to every finite value,
// interval end and the reference line (fit, and always without a natural range).
std::array<double, 2> interval_axis(const std::vector<IntervalPoint>& points,
                                    const IntervalChartParams& params) {
  if (params.chart.axis == AxisRange::full && !params.domain.empty())
    return {params.domain[0], params.domain[1]};
  double low = std::numeric_limits<double>::infinity(), high = -low;
  auto take = [&](double v) {
    if (!std::isfinite(v)) return;
    low = std::min(low, v);
    high = std::max(high, v);
  };
  for (const auto& p : points) {
    if (!std::isfinite(p.value)) continue;
    take(p.value);
    if (std::isfinite(p.low) && std::isfinite(p.high)) {
      take(p.low);
      take(p.high);
    }
  }
  take(params.reference);
  return fitted_axis(low, high, params.domain);
}

}  // namespace

Json interval_chart(const std::vector<IntervalPoint>& points, const IntervalChartParams& params) {
  std::vector<std::string> rows, series;
  Json values = Json::array();
  for (const auto& p : points) {
    if (!std::isfinite(p.value)) continue;
    if (std::find(rows.begin(), rows.end(), p.row) == rows.end()) rows.push_back(p.row);
    if (std::find(series.begin(), series.end(), p.series) == series.end())
      series.push_back(p.series);
    const bool interval = std::isfinite(p.low) && std::isfinite(p.high);
    values.push_back({{"row", p.row},
                      {"series", p.series},
                      {"value", p.value},
                      {"low", interval ? Json(p.low) : Json(nullptr)},
                      {"high", interval ? Json(p.high) : Json(nullptr)}});
  }
  if (values.empty())
    fail("interval_chart needs at least one point with a finite value (found none)");
  if (!params.domain.empty() && params.domain.size() != 2)
    fail("interval_chart domain must be [low, high] (found {} values)", params.domain.size());
  ChartParams chart = params.chart;
  chart.height =
      std::max<int>(chart.height, static_cast<int>(rows.size() * (14 * series.size() + 10)));
  const auto axis = interval_axis(points, params);
  Json x = {{"field", "value"},
            {"type", "quantitative"},
            {"title", params.x_title},
            {"scale", {{"domain", {axis[0], axis[1]}}, {"nice", false}, {"zero", false}}}};
  const Json y = {
      {"field", "row"}, {"type", "nominal"}, {"title", nullptr}, {"sort", string_array(rows)}};
  const Json offset = {{"field", "series"}, {"type", "nominal"}, {"sort", string_array(series)}};
  const Json color =
      series_color("series", params.series_title.c_str(), string_array(series), false);
  const Json tips = {tooltip("row", "Row"),
                     tooltip("series", params.series_title.c_str()),
                     tooltip("value", "Value", ".4~g"),
                     {{"field", "low"},
                      {"type", "quantitative"},
                      {"format", ".4~g"},
                      {"title", params.interval_name + " low"}},
                     {{"field", "high"},
                      {"type", "quantitative"},
                      {"format", ".4~g"},
                      {"title", params.interval_name + " high"}}};
  Json x2 = {{"field", "high"}};
  Json rule = {{"transform", {{{"filter", finite("low") + " && " + finite("high")}}}},
               // Clipped to the natural range: a mean ± SD can pass a bound the values never do.
               {"mark", {{"type", "rule"}, {"strokeWidth", 2}, {"clip", !params.domain.empty()}}},
               {"encoding",
                {{"x", {{"field", "low"}, {"type", "quantitative"}}},
                 {"x2", x2},
                 {"y", y},
                 {"yOffset", offset},
                 {"color", color},
                 {"tooltip", tips}}}};
  Json dot = {
      {"mark", {{"type", "point"}, {"filled", true}, {"size", 60}, {"opacity", 1}}},
      {"encoding", {{"x", x}, {"y", y}, {"yOffset", offset}, {"color", color}, {"tooltip", tips}}}};
  Json spec = base_spec(chart, params.x_title,
                        "Each estimate as a dot with its interval as a line; rows share one axis.");
  spec["data"] = {{"values", std::move(values)}};
  spec["layer"] = Json::array();
  if (std::isfinite(params.reference)) {
    spec["layer"].push_back(
        {{"data", {{"values", {{{"value", params.reference}}}}}},
         {"mark", {{"type", "rule"}, {"color", "#555"}, {"strokeDash", {4, 4}}}},
         {"encoding", {{"x", {{"field", "value"}, {"type", "quantitative"}}}}}});
  }
  spec["layer"].push_back(std::move(rule));
  spec["layer"].push_back(std::move(dot));
  if (params.legend_below) spec["config"]["legend"]["orient"] = "bottom";
  note_repeated_colours(spec, series.size());
  return spec;
}

namespace detail {

Json base_spec(const ChartParams& params, const std::string& default_title,
               const std::string& description) {
  return report::base_spec(params, default_title, description);
}
Json json_number(double value) {
  return number(value);
}
std::string finite(const std::string& field) {
  return report::finite(field);
}
void note_repeated_colours(Json& spec, std::size_t n_series) {
  report::note_repeated_colours(spec, n_series);
}
Json tooltip(const char* field, const char* title, const char* format) {
  return report::tooltip(field, title, format);
}
Json string_array(const std::vector<std::string>& values) {
  return report::string_array(values);
}
Json dashed_guide_line(Json points, const char* x_field, const char* y_field) {
  return {{"data", {{"values", std::move(points)}}},
          {"mark",
           {{"type", "line"},
            {"color", kGuideGrey},
            {"strokeDash", {5, 4}},
            {"strokeWidth", 1},
            {"tooltip", nullptr}}},
          {"encoding",
           {{"x", {{"field", x_field}, {"type", "quantitative"}}},
            {"y", {{"field", y_field}, {"type", "quantitative"}}}}}};
}

}  // namespace detail

}  // namespace assay::report
