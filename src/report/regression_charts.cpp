#include "assay/report/regression_charts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "report_util.hpp"

namespace assay::report {
namespace {

using detail::base_spec;
using detail::finite;
using detail::json_number;
using detail::string_array;
using detail::tooltip;

void check_series(const std::vector<RegressionSeries>& series, const char* chart) {
  if (series.empty()) fail("{} needs at least one series (found 0)", chart);
  std::set<std::string> names;
  for (const auto& s : series) {
    if (!names.insert(s.name).second)
      fail("series names must be unique ({} appears twice)", quote_found(s.name));
    if (s.actual.size() != s.predicted.size())
      fail("series {}: actual and predicted differ in length ({} vs {})", quote_found(s.name),
           s.actual.size(), s.predicted.size());
  }
}

std::vector<std::string> names_of(const std::vector<RegressionSeries>& series) {
  std::vector<std::string> out;
  for (const auto& s : series) out.push_back(s.name);
  return out;
}

Json model_color(const std::vector<RegressionSeries>& series, bool stroke_symbol) {
  const auto& palette = series_palette();
  Json range = Json::array();
  for (std::size_t i = 0; i < series.size(); ++i) range.push_back(palette[i % palette.size()]);
  Json legend = {{"symbolOpacity", 1}};
  if (stroke_symbol) legend["symbolType"] = "stroke";
  return {{"field", "model"},
          {"type", "nominal"},
          {"title", "Model"},
          {"scale", {{"domain", string_array(names_of(series))}, {"range", range}}},
          {"legend", legend}};
}

Json scatter_layer(Json values, const char* x, const char* y, const std::string& x_title,
                   const std::string& y_title, const Json& x_scale, const Json& y_scale,
                   const std::vector<RegressionSeries>& series) {
  return {
      {"data", {{"values", std::move(values)}}},
      {"transform", {{{"filter", finite(x) + " && " + finite(y)}}}},
      {"mark", {{"type", "point"}, {"filled", true}, {"size", 18}, {"opacity", 0.55}}},
      {"encoding",
       {{"x", {{"field", x}, {"type", "quantitative"}, {"title", x_title}, {"scale", x_scale}}},
        {"y", {{"field", y}, {"type", "quantitative"}, {"title", y_title}, {"scale", y_scale}}},
        {"color", model_color(series, false)},
        {"tooltip",
         {tooltip("model", "Model"), tooltip("actual", "Actual", ".4~f"),
          tooltip("predicted", "Predicted", ".4~f"), tooltip("residual", "Residual", ".4~f")}}}}};
}

// The drawn rows of every model: model, actual, predicted, residual.
Json scatter_values(const std::vector<RegressionSeries>& series) {
  Json values = Json::array();
  const auto rows = scatter_rows(series.front().actual.size());
  for (const auto& s : series) {
    for (std::size_t i : rows) {
      values.push_back({{"model", s.name},
                        {"actual", json_number(s.actual[i])},
                        {"predicted", json_number(s.predicted[i])},
                        {"residual", json_number(s.actual[i] - s.predicted[i])}});
    }
  }
  return values;
}

struct Range {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    low = std::min(low, v);
    high = std::max(high, v);
  }
  bool empty() const { return !(low <= high); }
};

void check_lengths_match(const std::vector<RegressionSeries>& series) {
  for (const auto& s : series) {
    if (s.actual.size() != series.front().actual.size())
      fail("series {}: {} values, expected {} as the first series", quote_found(s.name),
           s.actual.size(), series.front().actual.size());
  }
}

}  // namespace

std::string scatter_note(std::size_t n) {
  if (n <= kMaxScatterPoints) return fmt::format("All {} samples drawn.", n);
  return fmt::format(
      "{} evenly spaced of the {} samples drawn (the same rows for every model), so that the "
      "page stays small; the metrics use every sample.",
      kMaxScatterPoints, n);
}

std::vector<std::size_t> scatter_rows(std::size_t n) {
  std::vector<std::size_t> rows;
  if (n <= kMaxScatterPoints) {
    for (std::size_t i = 0; i < n; ++i) rows.push_back(i);
    return rows;
  }
  for (std::size_t k = 0; k < kMaxScatterPoints; ++k) {
    rows.push_back(k * (n - 1) / (kMaxScatterPoints - 1));
  }
  return rows;
}

Json predicted_vs_actual_chart(const std::vector<RegressionSeries>& series,
                               const std::string& target, const ChartParams& params) {
  check_series(series, "predicted_vs_actual_chart");
  check_lengths_match(series);
  Range range;
  for (const auto& s : series) {
    for (std::size_t i : scatter_rows(s.actual.size())) {
      range.add(s.actual[i]);
      range.add(s.predicted[i]);
    }
  }
  if (range.empty()) range = {0, 1};
  if (range.low == range.high) range = {range.low - 0.5, range.high + 0.5};
  // The same range on both axes, so that the y = x line is the diagonal of the square.
  const Json scale = {{"domain", {range.low, range.high}}, {"nice", false}, {"zero", false}};
  Json spec = base_spec(params, "Predicted vs actual",
                        "Each sample's prediction against its actual value, one colour per "
                        "model; dashed: y = x (perfect predictions).");
  // Square, so that y = x is the 45° diagonal.
  spec["height"] = spec["width"];
  spec["layer"] = {detail::dashed_guide_line({{{"actual", range.low}, {"predicted", range.low}},
                                              {{"actual", range.high}, {"predicted", range.high}}},
                                             "actual", "predicted"),
                   scatter_layer(scatter_values(series), "actual", "predicted", "Actual " + target,
                                 "Predicted " + target, scale, scale, series)};
  return spec;
}

Json residual_chart(const std::vector<RegressionSeries>& series, const std::string& target,
                    const ChartParams& params) {
  check_series(series, "residual_chart");
  check_lengths_match(series);
  Range x;
  for (const auto& s : series) {
    for (std::size_t i : scatter_rows(s.predicted.size())) x.add(s.predicted[i]);
  }
  if (x.empty()) x = {0, 1};
  const Json x_scale = {{"zero", false}};
  const Json y_scale = {{"zero", true}};
  Json spec = base_spec(params, "Residuals",
                        "Each sample's residual (actual - predicted) against its prediction, one "
                        "colour per model; dashed: residual 0.");
  spec["layer"] = {
      detail::dashed_guide_line(
          {{{"predicted", x.low}, {"residual", 0}}, {{"predicted", x.high}, {"residual", 0}}},
          "predicted", "residual"),
      scatter_layer(scatter_values(series), "predicted", "residual", "Predicted " + target,
                    "Residual (actual - predicted)", x_scale, y_scale, series)};
  return spec;
}

Json residual_histogram_chart(const std::vector<RegressionSeries>& series,
                              const std::string& target, const ChartParams& params) {
  check_series(series, "residual_histogram_chart");
  Range range;
  for (const auto& s : series) {
    for (std::size_t i = 0; i < s.actual.size(); ++i) range.add(s.actual[i] - s.predicted[i]);
  }
  if (range.empty()) range = {0, 1};
  if (range.low == range.high) range = {range.low - 0.5, range.high + 0.5};
  const double width = (range.high - range.low) / static_cast<double>(kResidualBins);
  Json values = Json::array();
  for (const auto& s : series) {
    std::vector<double> counts(kResidualBins, 0.0);
    for (std::size_t i = 0; i < s.actual.size(); ++i) {
      const double r = s.actual[i] - s.predicted[i];
      if (!std::isfinite(r)) continue;
      auto bin = static_cast<std::size_t>((r - range.low) / width);
      counts[std::min(bin, kResidualBins - 1)] += 1;
    }
    for (std::size_t b = 0; b <= kResidualBins; ++b) {
      // The last point closes the final step at the upper edge.
      const double count = counts[std::min(b, kResidualBins - 1)];
      values.push_back({{"model", s.name},
                        {"low", range.low + width * static_cast<double>(b)},
                        {"high", range.low + width * static_cast<double>(b + 1)},
                        {"count", count},
                        {"edge", b == kResidualBins}});
    }
  }
  Json spec = base_spec(params, "Residual distribution",
                        "Number of samples per residual (actual - predicted) bin, one step line "
                        "per model; bins of equal width shared by the models.");
  const Json x = {
      {"field", "low"},
      {"type", "quantitative"},
      {"title", "Residual (actual - predicted " + target + ")"},
      {"scale", {{"domain", {range.low, range.high}}, {"nice", false}, {"zero", false}}}};
  const Json y = {{"field", "count"}, {"type", "quantitative"}, {"title", "Samples"}};
  spec["data"] = {{"values", std::move(values)}};
  spec["layer"] = {{{"mark", {{"type", "line"}, {"interpolate", "step-after"}, {"strokeWidth", 2}}},
                    {"encoding", {{"x", x}, {"y", y}, {"color", model_color(series, true)}}}},
                   {{"transform", {{{"filter", "!datum.edge"}}}},
                    {"mark", {{"type", "point"}, {"filled", true}, {"size", 30}, {"opacity", 0}}},
                    {"encoding",
                     {{"x", x},
                      {"y", y},
                      {"tooltip",
                       {tooltip("model", "Model"), tooltip("low", "From", ".4~f"),
                        tooltip("high", "To", ".4~f"), tooltip("count", "Samples", "d")}}}}}};
  return spec;
}

}  // namespace assay::report
