// report/compare: a hand-made comparison (two models, a loss among the metrics, slices, gates)
// as JSON (its shape, NaN as null, "passed") and as the page: the forest plot with its zero rule
// and losses drawn sign-flipped, the slice charts, the worst slices, the gate table and the CSV
// downloads — and none of the slice or gate blocks when there are no slices or gates.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "assay/report/compare.hpp"

namespace assay::report {
namespace {

using namespace assay::compare;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ModelSummary summary(const std::string& name, double auc, double brier, double recall) {
  return {name,
          {{"roc_auc", auc, auc - 0.02, auc + 0.02, kNaN, 0},
           {"brier", brier, brier - 0.01, brier + 0.01, kNaN, 0},
           {"recall@precision>=0.8", recall, recall - 0.05, recall + 0.05, 0.61, 3}}};
}

Difference difference(const std::string& metric, double d, bool higher_is_better) {
  Difference x;
  x.model = "b";
  x.baseline = "a";
  x.metric = metric;
  x.higher_is_better = higher_is_better;
  x.difference = d;
  x.percentile = {d, d - 0.01, d + 0.01};
  x.bca = {d, d - 0.012, d + 0.009};
  x.p_value = 0.01;
  x.test = "paired bootstrap";
  x.p_adjusted = 0.03;
  return x;
}

CompareResult hand_result(bool with_slices) {
  CompareResult r;
  r.task = Task::binary;
  r.classes = {"legit", "fraud"};
  r.positive_class = "fraud";
  r.n_examples = 200;
  r.total_weight = 200;
  r.metrics = {"roc_auc", "brier", "recall@precision>=0.8"};
  r.baseline = "a";
  r.models = {summary("a", 0.80, 0.12, 0.40), summary("b", 0.85, 0.13, 0.50)};
  Difference auc = difference("roc_auc", 0.05, true);
  auc.test = "DeLong";
  auc.delong = DelongDetail{0.85, 0.80, 0.05, 0.01, 0.03, 0.07, 5, 1e-6};
  r.differences = {auc, difference("brier", 0.01, false),
                   difference("recall@precision>=0.8", 0.1, true)};
  r.differences[2].p_adjusted = kNaN;
  if (with_slices) {
    for (const char* region : {"north", "south"}) {
      SliceResult s;
      s.column = "region";
      s.value = region;
      s.n_examples = 100;
      s.support = 100;
      s.positives = 20;
      s.negatives = 80;
      s.too_small = std::string(region) == "south";
      s.models = {summary("a", 0.78, 0.11, 0.38), summary("b", 0.86, 0.14, 0.52)};
      s.differences = {difference("roc_auc", 0.08, true)};
      r.slices.push_back(s);
    }
    r.worst_slices = {{"b", "roc_auc", "region", "south", {0.86, 0.8, 0.9}, {0.01, -0.02, 0.04}}};
  }
  r.conclusions = {"b beats a on roc_auc by 0.05 [0.04, 0.06], Holm-adjusted p = 0.03 (DeLong)."};
  r.notes = {"something to note"};
  return r;
}

std::vector<GateOutcome> hand_gates() {
  return {{"roc_auc >= 0.8", "b", 0.85, 0.85, 0.83, 0.87, true, "b: roc_auc 0.85 >= 0.8"},
          {"brier <= 0.1", "b", 0.13, 0.13, 0.12, 0.14, false, "b: brier 0.13 > 0.1"}};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> csv_names(const HtmlReport& page) {
  std::vector<std::string> out;
  for (const auto& f : page.csv_files()) out.push_back(f.file_name);
  return out;
}

TEST(ComparePage, JsonHasEveryPartWithNaNAsNull) {
  // As written: NaN becomes null.
  const Json j = Json::parse(compare_json(hand_result(true), hand_gates()).dump());
  for (const char* key : {"task", "classes", "positive_class", "n_examples", "total_weight",
                          "weighted", "metrics", "baseline", "models", "differences", "slices",
                          "worst_slices", "gates", "passed", "conclusions", "notes", "params"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["task"], "binary");
  EXPECT_EQ(j["models"][1]["metrics"][2]["threshold"], 0.61);
  EXPECT_TRUE(j["models"][0]["metrics"][0]["threshold"].is_null());
  const Json& d = j["differences"][0];
  EXPECT_EQ(d["percentile"]["low"], 0.04);
  EXPECT_EQ(d["delong"]["z"], 5);
  EXPECT_TRUE(d["mcnemar"].is_null());
  EXPECT_FALSE(j["differences"][1]["higher_is_better"].get<bool>());
  EXPECT_TRUE(j["differences"][2]["p_adjusted"].is_null());
  EXPECT_EQ(j["slices"][1]["value"], "south");
  EXPECT_TRUE(j["slices"][1]["too_small"].get<bool>());
  EXPECT_EQ(j["worst_slices"][0]["gap"]["low"], -0.02);
  EXPECT_FALSE(j["passed"].get<bool>());
  EXPECT_EQ(j["gates"][1]["message"], "b: brier 0.13 > 0.1");
  EXPECT_TRUE(compare_json(hand_result(false), {})["passed"].is_null());
}

TEST(ComparePage, ForestPlotSlicesWorstSlicesAndGates) {
  const HtmlReport page = compare_html(hand_result(true), hand_gates(), "compare");
  const std::string html = page.render();
  // Forest plot + one slice chart per metric.
  EXPECT_EQ(page.chart_count(), 4u);
  EXPECT_TRUE(has(html, "Differences from the baseline"));
  EXPECT_TRUE(has(html, "gain over the baseline (positive = model better)"));
  EXPECT_TRUE(has(html, "\"strokeDash\":[4,4]"));  // the zero rule
  // brier is a loss: b's +0.01 is drawn as -0.01 (worse, left of zero), its interval flipped.
  EXPECT_TRUE(has(html,
                  "{\"row\":\"brier (lower is better: sign flipped)\",\"series\":\"b vs a\","
                  "\"value\":-0.01,\"low\":-0.02,\"high\":"));
  EXPECT_TRUE(has(html, "roc_auc per slice"));
  EXPECT_TRUE(has(html, "brier per slice"));
  EXPECT_TRUE(has(html, "region=south (small)"));
  EXPECT_TRUE(has(html, "b beats a on roc_auc"));
  EXPECT_TRUE(has(html, "Gate failed: b: brier 0.13 &gt; 0.1"));
  EXPECT_TRUE(has(html, "At least one gate FAILED"));
  EXPECT_TRUE(has(html, "Note: something to note"));
  EXPECT_EQ(csv_names(page),
            (std::vector<std::string>{
                "compare-gates.csv", "compare-models.csv", "compare-differences.csv",
                "compare-delong.csv", "compare-slice-sizes.csv", "compare-slice-metrics.csv",
                "compare-slice-differences.csv", "compare-worst-slices.csv"}));
  // The model table shows the operating point's threshold.
  EXPECT_TRUE(has(page.csv_files()[1].text, "threshold"));
  EXPECT_TRUE(has(page.csv_files()[1].text, "0.61"));
}

// The tests and intervals the tables name are defined beside them.
TEST(ComparePage, TablesHaveTheirGlossary) {
  const std::string html = compare_html(hand_result(true), hand_gates(), "compare").render();
  EXPECT_NE(html.find("<dt id=\"glossary-bca\">BCa</dt>"), std::string::npos);
}

TEST(ComparePage, NoSliceOrGateBlocksWithoutThem) {
  const HtmlReport page = compare_html(hand_result(false), {}, "compare");
  const std::string html = page.render();
  EXPECT_EQ(page.chart_count(), 1u);
  EXPECT_FALSE(has(html, "per slice"));
  EXPECT_FALSE(has(html, "id=\"compare-gates\""));
  EXPECT_FALSE(has(html, "id=\"compare-slices\""));
  EXPECT_EQ(csv_names(page),
            (std::vector<std::string>{"compare-models.csv", "compare-differences.csv",
                                      "compare-delong.csv"}));
}

TEST(ComparePage, NoForestPlotWhenEveryDifferenceIsUndefined) {
  CompareResult r = hand_result(false);
  for (auto& d : r.differences) d.difference = kNaN;
  EXPECT_EQ(compare_html(r, {}, "compare").chart_count(), 0u);
}

}  // namespace
}  // namespace assay::report
