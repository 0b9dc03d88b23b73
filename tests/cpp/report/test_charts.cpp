// Vega-Lite specs from the chart builders: data rows, ordering, legends, scales, bad input.
// (That the specs render is checked in headless Chromium by test_render.cpp.)
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "assay/core/error.hpp"
#include "assay/report/charts.hpp"
#include "test_util.hpp"

using assay::Json;
using namespace assay::report;

namespace {

const double nan_ = std::numeric_limits<double>::quiet_NaN();

// The layer of `spec` whose mark type is `mark` (searching nested layers).
const Json* find_layer(const Json& spec, const std::string& mark) {
  if (spec.contains("mark")) {
    const Json& m = spec["mark"];
    if ((m.is_string() && m == mark) || (m.is_object() && m["type"] == mark)) return &spec;
  }
  if (spec.contains("layer")) {
    for (const auto& layer : spec["layer"]) {
      if (const Json* found = find_layer(layer, mark)) return found;
    }
  }
  return nullptr;
}

std::vector<double> column(const Json& values, const std::string& field,
                           const std::string& filter_field = "", const Json& filter_value = {}) {
  std::vector<double> out;
  for (const auto& row : values) {
    if (!filter_field.empty() && row[filter_field] != filter_value) continue;
    out.push_back(row[field].is_null() ? nan_ : row[field].get<double>());
  }
  return out;
}

}  // namespace

TEST(Charts, CommonSpecFields) {
  const Json spec = roc_curve_chart({{"m", {0, 1}, {0, 1}}});
  EXPECT_EQ(spec["$schema"], "https://vega.github.io/schema/vega-lite/v6.json");
  EXPECT_EQ(spec["title"], "ROC curve");
  EXPECT_EQ(spec["width"], 400);
  EXPECT_EQ(spec["height"], 300);
  EXPECT_EQ(spec["config"]["range"]["category"][0], "#0072B2");  // Okabe-Ito blue
  EXPECT_EQ(spec["config"]["range"]["category"].size(), 20u);

  const Json custom = roc_curve_chart({{"m", {0, 1}, {0, 1}}}, {"My ROC", 250, 200});
  EXPECT_EQ(custom["title"], "My ROC");
  EXPECT_EQ(custom["width"], 250);
  EXPECT_EQ(custom["height"], 200);
  EXPECT_THROW_MSG(roc_curve_chart({{"m", {0, 1}, {0, 1}}}, {"", 0, 300}), assay::Error,
                   "chart width and height must be positive (found 0 x 300)");
}

TEST(Charts, PrCurveOrdersPointsForStepDrawing) {
  // scikit-learn order: recall decreasing; two points share recall 0.5.
  PrSeries s{"model", {1.0, 0.5, 0.5, 0.0}, {0.5, 0.6, 0.8, 1.0}, {0.5, 0.8, 0.8, 1.0}, 0.7};
  const Json spec = pr_curve_chart({s});
  const Json& values = spec["data"]["values"];
  ASSERT_EQ(values.size(), 7u);
  EXPECT_EQ(values[0]["series"], "model (AP = 0.700)");
  EXPECT_EQ(column(values, "recall", "curve", "precision"), (std::vector<double>{0, 0.5, 0.5, 1}));
  // At equal recall the higher precision comes first: the step holds it over (0, 0.5].
  EXPECT_EQ(column(values, "precision", "curve", "precision"),
            (std::vector<double>{1, 0.8, 0.6, 0.5}));
  EXPECT_EQ(column(values, "order", "curve", "precision"), (std::vector<double>{0, 1, 2, 3}));
  // The repeated point (0.5, 0.8) is drawn once.
  EXPECT_EQ(column(values, "precision", "curve", "interpolated precision"),
            (std::vector<double>{1, 0.8, 0.5}));

  const Json* line = find_layer(spec, "line");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ((*line)["mark"]["interpolate"], "step-before");
  EXPECT_EQ((*line)["encoding"]["x"]["scale"]["domain"], Json({0, 1}));
  EXPECT_EQ((*line)["encoding"]["y"]["scale"]["domain"], Json({0, 1}));
  EXPECT_EQ((*line)["encoding"]["color"]["scale"]["domain"], Json({"model (AP = 0.700)"}));
  EXPECT_EQ((*line)["encoding"]["strokeDash"]["scale"]["domain"],
            Json({"precision", "interpolated precision"}));
  EXPECT_NE(find_layer(spec, "point"), nullptr);  // tooltips
}

TEST(Charts, PrCurveSeriesAndNonFinitePoints) {
  PrSeries a{"a", {0, 0.5, 1}, {1, nan_, 0.4}};  // no AP, no interpolated precision
  PrSeries b{"b", {0, 1}, {1, 0.3}, {}, 0.65};
  const Json spec = pr_curve_chart({a, b});
  const Json& values = spec["data"]["values"];
  ASSERT_EQ(values.size(), 4u);  // the NaN point is dropped
  EXPECT_EQ(column(values, "recall", "series", "a"), (std::vector<double>{0, 1}));
  EXPECT_EQ(column(values, "precision", "series", "b (AP = 0.650)"), (std::vector<double>{1, 0.3}));
  const Json* line = find_layer(spec, "line");
  EXPECT_FALSE((*line)["encoding"].contains("strokeDash"));
  EXPECT_EQ((*line)["encoding"]["color"]["scale"]["domain"], Json({"a", "b (AP = 0.650)"}));
  EXPECT_EQ(spec.dump().find("NaN"), std::string::npos);
}

TEST(Charts, PrCurveBadInput) {
  EXPECT_THROW_MSG(pr_curve_chart({}), assay::Error,
                   "pr_curve_chart needs at least one series (found 0)");
  EXPECT_THROW_MSG(pr_curve_chart({{"m", {0, 1}, {1}}}), assay::Error,
                   "series \"m\": recall and precision differ in length (2 vs 1)");
  EXPECT_THROW_MSG(pr_curve_chart({{"m", {0, 1}, {1, 0.5}, {1, 0.5, 0.5}}}), assay::Error,
                   "series \"m\": recall and interpolated_precision differ in length (2 vs 3)");
  EXPECT_THROW_MSG(pr_curve_chart({{"m", {0}, {1}}, {"m", {0}, {1}}}), assay::Error,
                   "series names must be unique (\"m\" appears twice)");
}

TEST(Charts, RocCurve) {
  RocSeries s{"lr", {0, 0.5, 0.5, 1, 0}, {0, 0.75, 0.5, 1, 0.25}, 0.8125};
  const Json spec = roc_curve_chart({s, {"tree", {0, 1}, {0, 1}}});
  ASSERT_EQ(spec["layer"].size(), 2u);
  // Chance diagonal first, drawn under the curves.
  const Json& diagonal = spec["layer"][0];
  EXPECT_EQ(diagonal["data"]["values"], Json::parse(R"([{"fpr":0,"tpr":0},{"fpr":1,"tpr":1}])"));
  EXPECT_EQ(diagonal["mark"]["strokeDash"], Json({5, 4}));
  const Json& values = spec["layer"][1]["data"]["values"];
  EXPECT_EQ(column(values, "fpr", "series", "lr (AUC = 0.812)"),
            (std::vector<double>{0, 0, 0.5, 0.5, 1}));
  EXPECT_EQ(column(values, "tpr", "series", "lr (AUC = 0.812)"),
            (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(column(values, "tpr", "series", "tree"), (std::vector<double>{0, 1}));
  const Json* line = find_layer(spec["layer"][1], "line");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ((*line)["encoding"]["color"]["scale"]["domain"], Json({"lr (AUC = 0.812)", "tree"}));
  EXPECT_EQ((*line)["encoding"]["x"]["title"], "False positive rate");

  EXPECT_THROW_MSG(roc_curve_chart({}), assay::Error,
                   "roc_curve_chart needs at least one series (found 0)");
  EXPECT_THROW_MSG(roc_curve_chart({{"x", {0, 0.5, 1}, {0, 1}}}), assay::Error,
                   "series \"x\": fpr and tpr differ in length (3 vs 2)");
}

TEST(Charts, ConfusionMatrixRectangularCounts) {
  // 2 actual rows x 3 predicted columns, row-major.
  const Json spec = confusion_matrix_chart({5, 0, 1, 2, 7, 3}, {"a", "b"}, {"a", "b", "rest"});
  const Json& values = spec["data"]["values"];
  ASSERT_EQ(values.size(), 6u);
  EXPECT_EQ(values[2], Json::parse(R"({"actual":"a","predicted":"rest","value":1.0,"text":"1"})"));
  EXPECT_EQ(values[4]["actual"], "b");
  EXPECT_EQ(values[4]["predicted"], "b");
  EXPECT_EQ(values[4]["value"], 7.0);
  const Json* rect = find_layer(spec, "rect");
  ASSERT_NE(rect, nullptr);
  EXPECT_EQ((*rect)["encoding"]["x"]["scale"]["domain"], Json({"a", "b", "rest"}));
  EXPECT_EQ((*rect)["encoding"]["y"]["scale"]["domain"], Json({"a", "b"}));
  EXPECT_EQ((*rect)["encoding"]["x"]["title"], "Predicted");
  EXPECT_EQ((*rect)["encoding"]["y"]["title"], "Actual");
  EXPECT_EQ((*rect)["encoding"]["color"]["scale"]["domain"], Json({0, 7.0}));
  EXPECT_EQ((*rect)["encoding"]["color"]["scale"]["scheme"], "blues");
  const Json* text = find_layer(spec, "text");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ((*text)["encoding"]["color"]["condition"]["test"], "datum.value > 3.5");
}

TEST(Charts, ConfusionMatrixTextFormats) {
  // Weighted counts: 4 significant digits.
  Json values = confusion_matrix_chart({2.5, 1234.5678}, {"x"}, {"p", "q"})["data"]["values"];
  EXPECT_EQ(values[0]["text"], "2.5");
  EXPECT_EQ(values[1]["text"], "1235");
  // Normalized: 2 decimals, colour domain 0..1, NaN cell blank and null.
  const Json spec = confusion_matrix_chart({0.25, 0.75, nan_, nan_}, {"x", "y"}, {"p", "q"}, true);
  values = spec["data"]["values"];
  EXPECT_EQ(values[0]["text"], "0.25");
  EXPECT_TRUE(values[2]["value"].is_null());
  EXPECT_EQ(values[2]["text"], "");
  EXPECT_EQ((*find_layer(spec, "rect"))["encoding"]["color"]["scale"]["domain"], Json({0, 1}));
  EXPECT_EQ((*find_layer(spec, "rect"))["encoding"]["color"]["title"], "Fraction");
}

TEST(Charts, ConfusionMatrixBadInput) {
  EXPECT_THROW_MSG(confusion_matrix_chart({1, 2, 3}, {"a", "b"}, {"a", "b"}), assay::Error,
                   "confusion matrix has 3 values, expected 2 rows x 2 columns = 4");
  EXPECT_THROW_MSG(confusion_matrix_chart({}, {}, {"a"}), assay::Error,
                   "confusion_matrix_chart needs at least one row and one column label (found 0 "
                   "x 1)");
  EXPECT_THROW_MSG(confusion_matrix_chart({1, 2}, {"a", "a"}, {"p"}), assay::Error,
                   "row labels must be unique (\"a\" appears twice)");
  EXPECT_THROW_MSG(confusion_matrix_chart({1, 2}, {"a"}, {"p", "p"}), assay::Error,
                   "column labels must be unique (\"p\" appears twice)");
}

TEST(Charts, ReliabilitySkipsEmptyBins) {
  ReliabilityBins bins{{0, 0.5}, {0.5, 1}, {0, 10}, {nan_, 0.8}, {nan_, 0.9}};
  const Json spec = reliability_chart(bins);
  ASSERT_EQ(spec["layer"].size(), 2u);
  const Json& values = spec["layer"][0]["data"]["values"];
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0], Json::parse(R"({"bin":"0.5 to 1","lower":0.5,"upper":1.0,"count":10.0,
                                      "accuracy":0.8,"confidence":0.9})"));
  EXPECT_EQ(spec["layer"][0]["layer"].size(), 3u);           // bars, gaps, points
  EXPECT_EQ(spec["layer"][1]["data"]["values"].size(), 2u);  // the diagonal
  const Json* rect = find_layer(spec, "rect");
  EXPECT_EQ((*rect)["encoding"]["x"]["scale"]["domain"], Json({0, 1}));
  // Top label (the default): whether the top label is true against its probability.
  EXPECT_EQ((*rect)["encoding"]["y"]["title"], "Accuracy of the top label");
  EXPECT_EQ((*rect)["encoding"]["x"]["title"], "Mean top-label probability");
  // Binary: the positive class's observed frequency against its mean predicted probability.
  bins.kind = ReliabilityKind::positive_class;
  const Json binary = reliability_chart(bins);
  const Json* bars = find_layer(binary, "rect");
  EXPECT_EQ((*bars)["encoding"]["y"]["title"], "Frequency of the positive class");
  EXPECT_EQ((*bars)["encoding"]["x"]["title"], "Mean predicted probability");
  EXPECT_EQ(binary.dump().find("Accuracy"), std::string::npos);  // (the field is "accuracy")
  EXPECT_EQ(binary.dump().find("Confidence"), std::string::npos);
}

TEST(Charts, ReliabilityBadInput) {
  EXPECT_THROW_MSG(reliability_chart({{0}, {1}, {1}, {1}, {}}), assay::Error,
                   "reliability bins: lower and confidence differ in length (1 vs 0)");
  EXPECT_THROW_MSG(reliability_chart({{0.5}, {0.5}, {1}, {1}, {1}}), assay::Error,
                   "reliability bin 0: expected 0 <= lower < upper <= 1, found [0.5, 0.5]");
  EXPECT_THROW_MSG(reliability_chart({{0}, {1}, {-1}, {1}, {1}}), assay::Error,
                   "reliability bin 0: count must be finite and >= 0, found -1");
  EXPECT_THROW_MSG(reliability_chart({{0}, {1}, {3}, {nan_}, {0.5}}), assay::Error,
                   "reliability bin 0: accuracy and confidence must be in [0, 1], found nan and "
                   "0.5");
  EXPECT_THROW_MSG(reliability_chart({{0, 0.5}, {0.5, 1}, {0, 0}, {0, 0}, {0, 0}}), assay::Error,
                   "reliability_chart needs at least one non-empty bin (found 2 bins, all empty)");
}

TEST(Charts, TrendMeanAndBand) {
  TrendSeries s{"AP", {10, 1, 100}, {0.8, 0.7, 0.75}, {0.1, 0.05, nan_}};
  const Json spec = trend_chart({s}, "C", "AP", /*log_x=*/true);
  EXPECT_EQ(spec["title"], "AP against C");
  const Json& values = spec["data"]["values"];
  EXPECT_EQ(column(values, "x"), (std::vector<double>{1, 10, 100}));
  EXPECT_EQ(column(values, "mean"), (std::vector<double>{0.7, 0.8, 0.75}));
  EXPECT_DOUBLE_EQ(values[1]["low"].get<double>(), 0.7);
  EXPECT_DOUBLE_EQ(values[1]["high"].get<double>(), 0.9);
  EXPECT_TRUE(values[2]["sd"].is_null());  // one run: no band there
  EXPECT_TRUE(values[2]["low"].is_null());
  const Json* area = find_layer(spec, "area");
  ASSERT_NE(area, nullptr);
  EXPECT_EQ((*area)["encoding"]["y2"]["field"], "high");
  EXPECT_EQ((*area)["encoding"]["x"]["scale"]["type"], "log");
  const Json* line = find_layer(spec, "line");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ((*line)["encoding"]["y"]["title"], "AP");
  EXPECT_EQ(spec.dump().find("NaN"), std::string::npos);

  // Without SDs: no band layer; linear x axis.
  const Json plain = trend_chart({{"a", {1, 2}, {3, 4}}}, "depth", "accuracy");
  EXPECT_EQ(find_layer(plain, "area"), nullptr);
  EXPECT_EQ((*find_layer(plain, "line"))["encoding"]["x"]["scale"]["zero"], false);
}

TEST(Charts, TrendBadInput) {
  EXPECT_THROW_MSG(trend_chart({}, "x", "y"), assay::Error,
                   "trend_chart needs at least one series (found 0)");
  EXPECT_THROW_MSG(trend_chart({{"s", {1, 2}, {1}}}, "x", "y"), assay::Error,
                   "series \"s\": x and mean differ in length (2 vs 1)");
  EXPECT_THROW_MSG(trend_chart({{"s", {1, 2}, {1, 2}, {0.1}}}, "x", "y"), assay::Error,
                   "series \"s\": x and sd differ in length (2 vs 1)");
  EXPECT_THROW_MSG(trend_chart({{"s", {0, 2}, {1, 2}}}, "x", "y", true), assay::Error,
                   "series \"s\": a log x axis needs x > 0, found 0");
}

TEST(Charts, LongCurvesAreThinnedToHalfPixels) {
  // 100001 points on a smooth ROC curve: consecutive points are far closer than half a pixel.
  RocSeries s{"big", {}, {}};
  for (int i = 0; i <= 100000; ++i) {
    s.fpr.push_back(i / 100000.0);
    s.tpr.push_back(std::sqrt(i / 100000.0));
  }
  const Json values = roc_curve_chart({s})["layer"][1]["data"]["values"];
  EXPECT_LT(values.size(), 1000u);
  EXPECT_GT(values.size(), 400u);
  EXPECT_EQ(values.front()["fpr"], 0.0);
  EXPECT_EQ(values.back()["fpr"], 1.0);
  EXPECT_EQ(values.back()["tpr"], 1.0);
  // No gap between drawn points exceeds a pixel-sized step plus one original step.
  const double tol = 0.5 / 400;
  for (std::size_t k = 1; k < values.size(); ++k) {
    const double dx = values[k]["fpr"].get<double>() - values[k - 1]["fpr"].get<double>();
    const double dy = values[k]["tpr"].get<double>() - values[k - 1]["tpr"].get<double>();
    EXPECT_LT(std::min(dx, dy), tol + 0.01) << k;
  }
  // Points within half a pixel of each other in both coordinates collapse, ends kept.
  const Json pr = pr_curve_chart({{"p", {0, 0.0001, 0.0002, 0.5}, {1, 0.9999, 0.5, 0.5}}});
  EXPECT_EQ(column(pr["data"]["values"], "recall"), (std::vector<double>{0, 0.0002, 0.5}));
}

TEST(Charts, OperatingPointsAreRingedDots) {
  PrSeries pr{"m", {0, 0.5, 1}, {1, 0.8, 0.5}};
  pr.operating_recall = 0.5;
  pr.operating_precision = 0.8;
  pr.operating_label = "score >= 0.5";
  const Json spec = pr_curve_chart({pr, PrSeries{"n", {0, 1}, {1, 0.4}}});
  ASSERT_EQ(spec["layer"].size(), 3u);  // curves, hover points, operating points
  const Json& points = spec["layer"][2];
  ASSERT_EQ(points["data"]["values"].size(), 1u);  // "n" has none
  EXPECT_EQ(points["data"]["values"][0]["rule"], "score >= 0.5");
  EXPECT_EQ(points["data"]["values"][0]["recall"], 0.5);
  EXPECT_EQ(points["mark"]["stroke"], "#000000");
  RocSeries roc{"m", {0, 1}, {0, 1}};
  EXPECT_EQ(roc_curve_chart({roc})["layer"].size(), 2u);  // no operating point, no layer
}

TEST(Charts, IntervalChart) {
  IntervalChartParams p;
  p.x_title = "value (0..1)";
  p.domain = {0, 1};
  const Json spec = interval_chart({{"AP", "a", 0.8, 0.75, 0.85},
                                    {"AP", "b", 0.7, std::nan(""), std::nan("")},
                                    {"F1", "a", std::nan(""), 0, 1},
                                    {"F1", "b", 0.6, 0.5, 0.7}},
                                   p);
  const Json& values = spec["data"]["values"];
  ASSERT_EQ(values.size(), 3u);  // the NaN value is left out
  EXPECT_TRUE(values[1]["low"].is_null());
  // Fitted to the values and interval ends, 0.5..0.85: widened by 5%, rounded out to 0.05.
  EXPECT_EQ(spec["layer"][1]["encoding"]["x"]["scale"]["domain"], Json({0.45, 0.9}));
  EXPECT_EQ(spec["layer"][0]["mark"]["clip"], true);  // a natural range: whiskers stay inside
  p.chart.axis = AxisRange::full;
  EXPECT_EQ(interval_chart({{"AP", "a", 0.8, 0.75, 0.85}},
                           p)["layer"][1]["encoding"]["x"]["scale"]["domain"],
            Json({0, 1}));
  p.chart.axis = AxisRange::fit;
  EXPECT_EQ(spec["layer"][1]["encoding"]["y"]["sort"], Json({"AP", "F1"}));
  EXPECT_EQ(spec["layer"][1]["encoding"]["x"]["title"], "value (0..1)");
  EXPECT_FALSE(spec["config"]["legend"].contains("orient"));  // right of the plot
  p.legend_below = true;
  EXPECT_EQ(interval_chart({{"AP", "a", 0.8}}, p)["config"]["legend"]["orient"], "bottom");
  EXPECT_THROW_MSG(interval_chart({{"AP", "a", std::nan("")}}, p), assay::Error,
                   "interval_chart needs at least one point with a finite value (found none)");
  p.domain = {0};
  EXPECT_THROW_MSG(interval_chart({{"AP", "a", 1}}, p), assay::Error,
                   "interval_chart domain must be [low, high] (found 1 values)");
}

TEST(Charts, FittedAxisRoundsOutwardInsideTheBounds) {
  // Values between 0.93 and 1 spread over the chart: 0.92..1, not 0..1.
  EXPECT_EQ(fitted_axis(0.93, 1.0, {0, 1}), (std::array<double, 2>{0.92, 1.0}));
  EXPECT_EQ(fitted_axis(0.45, 0.97, {0, 1}), (std::array<double, 2>{0.4, 1.0}));
  // Unbounded: the padding may pass 1; steps of 0.02, 1 and 2.
  EXPECT_EQ(fitted_axis(0.93, 1.0), (std::array<double, 2>{0.92, 1.01}));
  EXPECT_EQ(fitted_axis(2.6, 9.1), (std::array<double, 2>{2.0, 10.0}));
  EXPECT_EQ(fitted_axis(-0.047, 0.1), (std::array<double, 2>{-0.06, 0.12}));
  EXPECT_EQ(fitted_axis(120, 135), (std::array<double, 2>{118, 136}));
  // One value: 5% of its size each side; zero: 0.05.
  EXPECT_EQ(fitted_axis(0.5, 0.5), (std::array<double, 2>{0.475, 0.525}));
  EXPECT_EQ(fitted_axis(0, 0), (std::array<double, 2>{-0.05, 0.05}));
  // Data past the bounds (a mean + SD above 100) keep the bound.
  EXPECT_EQ(fitted_axis(60, 130, {0, 100}), (std::array<double, 2>{50, 100}));
  EXPECT_THROW_MSG(fitted_axis(1, 0), assay::Error,
                   "fitted_axis needs finite low <= high (found 1 and 0)");
  EXPECT_THROW_MSG(fitted_axis(0, 1, {1, 0}), assay::Error,
                   "fitted_axis bounds must be [min, max] with min < max (found 2 values)");
}

TEST(Charts, IntervalChartKeepsTheReferenceInsideTheAxis) {
  IntervalChartParams p;
  p.reference = 0;
  const Json spec = interval_chart({{"AP", "b vs a", 0.05, 0.02, 0.1}}, p);
  EXPECT_EQ(spec["layer"][2]["encoding"]["x"]["scale"]["domain"], Json({-0.02, 0.12}));
  EXPECT_EQ(spec["layer"][0]["data"]["values"][0]["value"], 0);  // the dashed rule at 0
  EXPECT_EQ(spec["layer"][1]["mark"]["clip"], false);            // no natural range
}

TEST(Charts, AxisRangeIsReadFromText) {
  EXPECT_EQ(parse_axis_range("fit"), AxisRange::fit);
  EXPECT_EQ(parse_axis_range("full"), AxisRange::full);
  EXPECT_EQ(to_string(AxisRange::full), "full");
  EXPECT_THROW_MSG(parse_axis_range("unit"), assay::Error,
                   "chart axis must be fit or full, found \"unit\"");
}

TEST(Charts, LegendTitlesSayWhatTheyList) {
  const PrSeries s{"cat", {0, 1}, {1, 0.5}};
  EXPECT_EQ((*find_layer(pr_curve_chart({s}), "line"))["encoding"]["color"]["title"], "Model");
  ChartParams params;
  params.legend_title = "Class";
  const Json pr = pr_curve_chart({s}, params);
  EXPECT_EQ((*find_layer(pr, "line"))["encoding"]["color"]["title"], "Class");
  EXPECT_EQ(pr["layer"][1]["encoding"]["tooltip"][0]["title"], "Class");
  const Json roc = roc_curve_chart({{"cat", {0, 1}, {0, 1}}}, params);
  EXPECT_EQ(roc["layer"][1]["layer"][0]["encoding"]["color"]["title"],
            "Class");  // after the diagonal
  const Json trend = trend_chart({{"a", {1, 2}, {3, 4}}}, "x", "y", false, params);
  EXPECT_EQ((*find_layer(trend, "line"))["encoding"]["color"]["title"], "Class");
}

TEST(Charts, TwentyDistinctColoursThenANote) {
  const auto& palette = series_palette();
  ASSERT_EQ(palette.size(), 20u);
  EXPECT_EQ(palette[0], "#0072B2");  // Okabe & Ito's eight first
  EXPECT_EQ(palette[7], "#000000");
  EXPECT_EQ(std::set<std::string>(palette.begin(), palette.end()).size(), 20u);
  std::vector<RocSeries> series;
  for (int k = 0; k < 20; ++k) series.push_back({"class " + std::to_string(k), {0, 1}, {0, 1}});
  EXPECT_TRUE(roc_curve_chart(series)["title"].is_string());  // 20: no note
  series.push_back({"class 20", {0, 1}, {0, 1}});
  const Json spec = roc_curve_chart(series);
  EXPECT_EQ(spec["title"]["text"], "ROC curve");
  EXPECT_EQ(spec["title"]["subtitle"],
            "21 series, 20 colours: colours repeat (the tooltip names each series)");
}
