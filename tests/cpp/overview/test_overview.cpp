// The overview's summary as claims (overview.hpp): each decision (best, tie, no better than
// chance, inverted scores, same PR curve, crossings) on hand-made data where the truth is known,
// and every sentence rendered from its claim. tests/python/test_report_claims.py checks the same
// rules on many seeded random data sets against the page's own numbers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/overview/overview.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using assay::Error;
using assay::Json;
using namespace assay::report;

namespace {

// A predictions file with a label column y and one score column per model, and the overview of
// it (no bootstrap unless asked: the rules, not the intervals, are tested here).
struct Scored {
  std::vector<int> y;
  std::vector<std::pair<std::string, std::vector<double>>> models;
};

Overview overview_of(const Scored& data, const std::string& name, int bootstrap = 0) {
  const fs::path dir = fs::path(ASSAY_BINARY_DIR) / "test-output" / "report-overview";
  fs::create_directories(dir);
  std::ofstream csv(dir / (name + ".csv"));
  csv << "y";
  for (const auto& [model, _] : data.models) csv << "," << model;
  csv << "\n";
  for (std::size_t i = 0; i < data.y.size(); ++i) {
    csv << data.y[i];
    for (const auto& [_, scores] : data.models) csv << "," << fmt::format("{:.17g}", scores[i]);
    csv << "\n";
  }
  csv.close();
  Json models = Json::object();
  for (const auto& [model, _] : data.models) models[model] = model;
  const Json config = {
      {"metrics",
       {{"file", name + ".csv"}, {"label", "y"}, {"bootstrap", bootstrap}, {"models", models}}}};
  return run_overview(prepare_overview(report_config_from_json(config, dir.string())));
}

const Claim* find_claim(const Overview& o, const std::string& kind, std::size_t skip = 0) {
  for (const auto& c : o.claims) {
    if (c.kind == kind && skip-- == 0) return &c;
  }
  return nullptr;
}

// y = 1 for the first half.
std::vector<int> halves(std::size_t n) {
  std::vector<int> y(n);
  for (std::size_t i = 0; i < n; ++i) y[i] = i < n / 2;
  return y;
}

// A score that ranks most positives first (AUC well above 0.5) and its mirror image.
std::vector<double> good(std::size_t n) {
  std::vector<double> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = 1.0 - double(i) / double(n) + (i % 3 == 0 ? 0.3 : 0);
  return s;
}

std::vector<double> mirrored(std::vector<double> s) {
  for (auto& v : s) v = 2 - v;
  return s;
}

}  // namespace

TEST(OverviewClaims, EveryTextIsRenderedFromItsClaim) {
  const auto o = overview_of({halves(20), {{"a", good(20)}, {"b", mirrored(good(20))}}}, "render");
  ASSERT_EQ(o.summary.size(), o.claims.size());
  for (std::size_t i = 0; i < o.claims.size(); ++i) {
    EXPECT_EQ(o.claims[i].text, render_claim(o.claims[i]));
    EXPECT_EQ(o.summary[i], o.claims[i].text);
    EXPECT_EQ(o.document["claims"][i]["text"], o.claims[i].text);
  }
  Claim unknown{"metrics.magic", "metrics", {}, Json::object(), ""};
  EXPECT_THROW_MSG(render_claim(unknown), Error, "unknown kind of claim \"metrics.magic\"");
}

TEST(OverviewClaims, InvertedModelIsNeverBestAndIsCalledInverted) {
  const auto o = overview_of({halves(20), {{"a", good(20)}, {"flip", mirrored(good(20))}}}, "flip");
  const Claim* ranking = find_claim(o, "metrics.ranking");
  ASSERT_TRUE(ranking);
  EXPECT_EQ(ranking->facts["outcome"], "best");
  EXPECT_EQ(ranking->facts["best"], Json::array({0}));
  const Claim* inverted = find_claim(o, "metrics.inverted");
  ASSERT_TRUE(inverted);
  EXPECT_EQ(inverted->subjects, std::vector<std::string>{"flip"});
  const double auc = inverted->facts["value"].get<double>();
  EXPECT_LT(auc, 0.5);
  EXPECT_EQ(inverted->text,
            fmt::format("flip's scores look inverted: its ROC AUC {:.3f} is below chance (0.5), "
                        "so higher scores go with the other class, not with \"1\"; reversed, "
                        "they would give {:.3f}.",
                        auc, 1 - auc));
  EXPECT_EQ(find_claim(o, "metrics.inverted", 1), nullptr);
}

TEST(OverviewClaims, OnlyInvertedModelsMeansNoneIsBest) {
  // The case: every model inverted (ROC AUC near 0); the least inverted used to be
  // "best by ROC AUC".
  const auto flip = mirrored(good(20));
  auto worse = flip;
  std::swap(worse[0], worse[19]);
  const auto o = overview_of({halves(20), {{"a", flip}, {"b", worse}}}, "inverted");
  const Claim* ranking = find_claim(o, "metrics.ranking");
  ASSERT_TRUE(ranking);
  EXPECT_EQ(ranking->facts["outcome"], "none_above_chance");
  EXPECT_EQ(ranking->text.rfind("Metrics: no model is better than chance by ROC AUC (all at or "
                                "below 0.5): a 0.",
                                0),
            0u)
      << ranking->text;
  EXPECT_TRUE(find_claim(o, "metrics.inverted", 1));       // both are called inverted
  EXPECT_FALSE(find_claim(o, "metrics.operating_point"));  // no best model to describe
  for (const auto& s : o.summary) EXPECT_EQ(s.find("best"), std::string::npos) << s;
}

TEST(OverviewClaims, EqualModelsTieAndHaveTheSamePrCurve) {
  // b is a monotone transform of a: other numbers, the same ranking, the same curves.
  auto b = good(16);
  for (auto& v : b) v = v * v + 3;
  const auto o = overview_of({halves(16), {{"a", good(16)}, {"b", b}}}, "equal");
  const Claim* ranking = find_claim(o, "metrics.ranking");
  EXPECT_EQ(ranking->facts["outcome"], "tie");
  EXPECT_EQ(ranking->text.rfind("Metrics: a and b tie for best by ROC AUC: a 0.", 0), 0u)
      << ranking->text;
  const Claim* pair = find_claim(o, "metrics.pair");
  ASSERT_TRUE(pair);
  EXPECT_EQ(pair->facts["relation"], "same");
  EXPECT_NE(pair->text.find("a and b have the same PR curve, point for point."), std::string::npos)
      << pair->text;
}

TEST(OverviewClaims, SameInterpolatedCurveIsNotCalledTheSameCurve) {
  // Ranks 1, 0, 1, 0: a scores them apart, b ties the middle two. The raw PR curves differ
  // (a has the point recall 0.5, precision 0.5), the interpolated ones do not.
  const Scored data{{1, 0, 1, 0}, {{"a", {4, 3, 2, 1}}, {"b", {4, 2, 2, 1}}}};
  const auto o = overview_of(data, "interpolated");
  const Claim* pair = find_claim(o, "metrics.pair");
  ASSERT_TRUE(pair);
  EXPECT_EQ(pair->facts["relation"], "same_interpolated");
  EXPECT_NE(pair->text.find("a and b have the same interpolated PR curve, but their raw curves "
                            "differ (AP 0.833 vs 0.833)"),
            std::string::npos)
      << pair->text;
  EXPECT_EQ(pair->text.find("the same PR curve"), std::string::npos);
}

TEST(OverviewClaims, CrossingsAreCountedOnceForTextAndTable) {
  // Two rankings whose interpolated PR curves swap the lead several times, some crossings so
  // close that two decimals would print them alike.
  std::vector<int> y;
  std::vector<double> a, b;
  const int pattern_a[] = {1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0};
  const int pattern_b[] = {0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0};
  // Scores: a ranks the rows in order, b ranks them by its own pattern of labels.
  for (int i = 0; i < 16; ++i) y.push_back(pattern_a[i]);
  std::vector<int> order_b;  // row indices in b's ranking: the i-th row of b's pattern
  std::vector<bool> used(16);
  for (int i = 0; i < 16; ++i) {
    for (int r = 0; r < 16; ++r) {
      if (!used[r] && y[r] == pattern_b[i]) {
        used[r] = true;
        order_b.push_back(r);
        break;
      }
    }
  }
  a.resize(16);
  b.resize(16);
  for (int i = 0; i < 16; ++i) {
    a[i] = 16 - i;
    b[order_b[i]] = 16 - i;
  }
  const auto o = overview_of({y, {{"a", a}, {"b", b}}}, "cross");
  const Claim* pair = find_claim(o, "metrics.pair");
  ASSERT_TRUE(pair);
  ASSERT_EQ(pair->facts["relation"], "cross") << pair->text;
  const auto crossings = pair->facts["crossings"].get<std::vector<double>>();
  ASSERT_GE(crossings.size(), 2u);
  const std::string count = fmt::format("cross {} time", crossings.size());
  EXPECT_NE(pair->text.find(count), std::string::npos) << pair->text;
  // The comparisons table counts the same crossings.
  for (const auto& file : o.page.csv_files()) {
    if (file.file_name != "metrics-comparisons.csv") continue;
    const auto table = assay::parse_csv(file.text, "metrics-comparisons.csv");
    EXPECT_EQ(table.numeric("PR crossings")[0], double(crossings.size()));
    EXPECT_EQ(table.column("PR dominant").label(0), "none (curves cross)");
  }
  // And the JSON document: the pair's crossings under metrics.comparisons, the table's row
  // under tables.
  const Json& compared = o.document["metrics"]["comparisons"][0];
  EXPECT_EQ(compared["pr"]["crossings"].get<std::vector<double>>(), crossings);
  EXPECT_EQ(compared["pr"]["n_crossings"], crossings.size());
  EXPECT_EQ(compared["delong"]["p"], pair->facts["p"]);
  const Json& row = o.document["tables"]["metrics-comparisons"][0];
  EXPECT_EQ(row["PR crossings"], double(crossings.size()));
  EXPECT_EQ(row["model A"], "a");
  EXPECT_EQ(o.document["tables"].size(), o.page.csv_files().size());
}

TEST(OverviewClaims, ValuesEqualAsPrintedTieEvenWhenTheyDifferBeyond) {
  // 100 positives, 100 negatives; a ranks the rows in file order, b swaps one adjacent positive
  // and negative: its ROC AUC is lower by 1 / (100 * 100), the same to three decimals.
  std::vector<int> y(200);
  for (int i = 0; i < 200; ++i) y[i] = i < 120 ? i % 4 != 3 : i % 8 == 0;
  std::vector<double> a(200);
  for (int i = 0; i < 200; ++i) a[i] = 200 - i;
  auto b = a;
  std::swap(b[2], b[3]);  // rows 2 (positive) and 3 (negative)
  const auto o = overview_of({y, {{"a", a}, {"b", b}}}, "tie");
  const Claim& ranking = o.claims.front();
  const double va = ranking.facts["values"][0].get<double>();
  const double vb = ranking.facts["values"][1].get<double>();
  EXPECT_NEAR(va - vb, 1e-4, 1e-12);
  ASSERT_EQ(fmt::format("{:.3f}", va), fmt::format("{:.3f}", vb));
  EXPECT_EQ(ranking.facts["outcome"], "tie") << ranking.text;
  EXPECT_EQ(ranking.text.rfind("Metrics: a and b tie for best by ROC AUC: ", 0), 0u)
      << ranking.text;
}

TEST(OverviewClaims, ALeadThatIsNotSignificantIsSaid) {
  // Two models a little apart on 30 samples: DeLong's paired test cannot tell them apart, so the
  // best one's lead is said to be uncertain (the paired test, not the overlap of the intervals,
  // where every pair was tested).
  auto b = good(30);
  std::swap(b[2], b[20]);
  const auto o = overview_of({halves(30), {{"a", good(30)}, {"b", b}}}, "lead", 200);
  const Claim& ranking = o.claims.front();
  ASSERT_EQ(ranking.facts["outcome"], "best") << ranking.text;
  EXPECT_EQ(ranking.facts["lead"]["how"], "delong");
  ASSERT_EQ(ranking.facts["lead"]["uncertain"].size(), 1u);
  const double p = ranking.facts["lead"]["uncertain"][0]["p"].get<double>();
  EXPECT_GE(p, 0.05);
  EXPECT_NE(ranking.text.find(fmt::format(" (95% bootstrap intervals). Its lead over b (DeLong "
                                          "p = {:.3f}) is not significant at level 0.05: the "
                                          "data do not tell them apart at this sample size.",
                                          p)),
            std::string::npos)
      << ranking.text;
  const Claim* pair = find_claim(o, "metrics.pair");
  ASSERT_TRUE(pair);
  EXPECT_NE(pair->text.find("not significant at level 0.05"), std::string::npos) << pair->text;
}
