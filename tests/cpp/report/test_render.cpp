// Opens report pages in headless Chromium (a required test dependency, installed by
// scripts/install-deps.sh) and reads the page's render status (data-assay-render on <body>,
// see html.hpp) from the DOM Chromium dumps. The failure cases show that the check catches a
// spec vega-embed rejects, an empty chart, a JavaScript exception and a console error.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "assay/core/rng.hpp"
#include "assay/report/charts.hpp"
#include "assay/report/html.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using assay::Json;
using namespace assay::report;

namespace {

std::string find_chromium() {
  if (const char* env = std::getenv("ASSAY_CHROMIUM"); env && *env) return env;
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(candidate)) return candidate;
  }
  return {};
}

struct Rendered {
  std::string status;      // data-assay-render, "" if Chromium produced no DOM
  std::string warnings;    // data-assay-warnings
  std::vector<int> marks;  // data-assay-marks of each chart, in page order
  std::string dom, log;
};

// Writes `html` under the build tree (kept for inspection) and loads it in headless Chromium.
Rendered render_in_chromium(const std::string& name, const std::string& html) {
  Rendered r;
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    ADD_FAILURE() << "chromium not found (/usr/bin/chromium): it is required for the report "
                     "tests; run scripts/install-deps.sh (or set ASSAY_CHROMIUM)";
    return r;
  }
  const fs::path dir = fs::path(ASSAY_BINARY_DIR) / "test-output" / "report";
  fs::create_directories(dir);
  const fs::path page = dir / (name + ".html");
  std::ofstream(page, std::ios::binary) << html;
  const fs::path profile =
      fs::temp_directory_path() / ("assay-chromium-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(profile);
  const fs::path dom = dir / (name + ".dom.html"), log = dir / (name + ".chromium.log");
  const std::string command =
      "timeout 60 '" + chromium +
      "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync "
      "--user-data-dir='" +
      profile.string() + "' --virtual-time-budget=20000 --dump-dom 'file://" +
      fs::absolute(page).string() + "' > '" + dom.string() + "' 2> '" + log.string() + "'";
  const int rc = std::system(command.c_str());
  fs::remove_all(profile);
  r.dom = read_file(dom);
  r.log = read_file(log);
  EXPECT_EQ(rc, 0) << "chromium failed: " << command << "\n" << r.log;
  std::smatch m;
  if (std::regex_search(r.dom, m, std::regex("<body[^>]*data-assay-render=\"([^\"]*)\"")))
    r.status = m[1];
  if (std::regex_search(r.dom, m, std::regex("<body[^>]*data-assay-warnings=\"([^\"]*)\"")))
    r.warnings = m[1];
  const std::regex marks("data-assay-marks=\"([0-9]+)\"");
  for (auto it = std::sregex_iterator(r.dom.begin(), r.dom.end(), marks);
       it != std::sregex_iterator(); ++it) {
    r.marks.push_back(std::stoi((*it)[1]));
  }
  return r;
}

// A binary problem with overlapping scores: labels ~ Bernoulli(0.4), scores = label + noise.
struct Problem {
  std::vector<int> y;
  std::vector<double> score;
};

Problem make_problem(std::uint64_t seed, double separation, int n) {
  assay::Rng rng(seed);
  Problem p;
  for (int i = 0; i < n; ++i) {
    const int label = rng.uniform() < 0.4 ? 1 : 0;
    // Sum of uniforms: a cheap bell shape, rounded so that ties occur.
    double noise = rng.uniform() + rng.uniform() + rng.uniform() - 1.5;
    p.y.push_back(label);
    p.score.push_back(std::round((separation * label + noise) * 20) / 20);
  }
  return p;
}

// PR and ROC points at every distinct threshold (scores sorted descending, ties grouped).
void curves(const Problem& p, PrSeries& pr, RocSeries& roc) {
  std::vector<std::size_t> idx(p.y.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](auto a, auto b) { return p.score[a] > p.score[b]; });
  double pos = 0, neg = 0;
  for (int v : p.y) (v ? pos : neg) += 1;
  double tp = 0, fp = 0;
  roc.fpr = {0};
  roc.tpr = {0};
  for (std::size_t k = 0; k < idx.size(); ++k) {
    (p.y[idx[k]] ? tp : fp) += 1;
    if (k + 1 < idx.size() && p.score[idx[k + 1]] == p.score[idx[k]]) continue;
    pr.recall.push_back(tp / pos);
    pr.precision.push_back(tp / (tp + fp));
    roc.fpr.push_back(fp / neg);
    roc.tpr.push_back(tp / pos);
  }
  pr.recall.push_back(0);  // scikit-learn's final point
  pr.precision.push_back(1);
  // Interpolated precision: highest precision at any recall >= r.
  pr.interpolated_precision.resize(pr.recall.size());
  for (std::size_t i = 0; i < pr.recall.size(); ++i) {
    double best = 0;
    for (std::size_t j = 0; j < pr.recall.size(); ++j) {
      if (pr.recall[j] >= pr.recall[i]) best = std::max(best, pr.precision[j]);
    }
    pr.interpolated_precision[i] = best;
  }
  double ap = 0, prev = 0;
  std::vector<std::size_t> order(pr.recall.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](auto a, auto b) { return pr.recall[a] < pr.recall[b]; });
  for (auto i : order) {
    ap += (pr.recall[i] - prev) * pr.precision[i];
    prev = pr.recall[i];
  }
  pr.average_precision = ap;
  double auc = 0;
  for (std::size_t i = 1; i < roc.fpr.size(); ++i)
    auc += (roc.fpr[i] - roc.fpr[i - 1]) * (roc.tpr[i] + roc.tpr[i - 1]) / 2;
  roc.auc = auc;
}

HtmlReport full_report() {
  HtmlReport page("Model evaluation <demo> & \"checks\"");
  page.add_paragraph("Two models on 400 samples.\nText with </script> and <b>tags</b> is escaped.");
  page.add_table({"model", "AP", "ROC AUC"},
                 {{"strong", "0.912", "0.95"}, {"weak", "0.61", "nan"}});

  std::vector<PrSeries> prs;
  std::vector<RocSeries> rocs;
  for (auto [name, sep, seed] :
       {std::tuple{"strong", 1.2, 1}, std::tuple{"weak </script>", 0.5, 2}}) {
    PrSeries pr{name, {}, {}};
    RocSeries roc{name, {}, {}};
    curves(make_problem(seed, sep, 400), pr, roc);
    prs.push_back(pr);
    rocs.push_back(roc);
  }
  prs[0].operating_recall = 0.6;  // ringed dots at the operating threshold
  prs[0].operating_precision = 0.8;
  rocs[0].operating_fpr = 0.2;
  rocs[0].operating_tpr = 0.6;
  prs[1].precision.push_back(std::nan(""));  // a NaN point must not break the chart
  prs[1].recall.push_back(0.5);
  prs[1].interpolated_precision.push_back(std::nan(""));
  page.add_heading("Curves");
  page.add_chart("Precision-recall curve", pr_curve_chart(prs));
  page.add_chart("ROC curve", roc_curve_chart(rocs));

  page.add_heading("Errors and calibration");
  page.add_chart("Confusion matrix (actual x predicted groups)",
                 confusion_matrix_chart({50, 3, 2, 0, 4, 41, 7, 1, 0, 6, 38, 9},
                                        {"cat", "dog", "bird"}, {"cat", "dog", "bird", "other"}));
  ReliabilityBins bins;
  for (int b = 0; b < 10; ++b) {
    bins.lower.push_back(b / 10.0);
    bins.upper.push_back((b + 1) / 10.0);
    const double conf = (b + 0.5) / 10.0;
    bins.count.push_back(b == 2 ? 0 : 20 + 15 * b);
    bins.confidence.push_back(b == 2 ? std::nan("") : conf);
    bins.accuracy.push_back(b == 2 ? std::nan("")
                                   : std::clamp(conf - 0.08 + 0.02 * (b % 3), 0.0, 1.0));
  }
  page.add_chart("Reliability diagram", reliability_chart(bins));

  TrendSeries a{"AP",
                {0.01, 0.1, 1, 10, 100},
                {0.71, 0.78, 0.83, 0.81, 0.74},
                {0.03, 0.02, 0.015, 0.02, std::nan("")}};
  TrendSeries b{"ROC AUC",
                {0.01, 0.1, 1, 10, 100},
                {0.80, 0.85, 0.9, 0.88, 0.83},
                {0.02, 0.02, 0.01, 0.015, 0.03}};
  page.add_chart(
      "", trend_chart({a, b}, "C (regularization)", "score (mean \u00b1 SD over 5 seeds)", true));
  IntervalChartParams ip;
  ip.domain = {0, 1};
  page.add_chart("Intervals",
                 interval_chart({{"AP", "strong", 0.9, 0.85, 0.95},
                                 {"AP", "weak", 0.6, 0.5, 0.7},
                                 {"F1", "strong", 0.8, std::nan(""), std::nan("")}},
                                ip),
                 "A caption under the chart.");
  page.add_json("Metrics as JSON", Json{{"ap", 0.912}, {"note", "</script><!--"}});
  return page;
}

std::string insert_before(std::string html, const std::string& marker, const std::string& text) {
  const auto at = html.rfind(marker);
  EXPECT_NE(at, std::string::npos);
  html.insert(at, text);
  return html;
}

}  // namespace

TEST(Render, AllChartTypesRenderWithoutErrors) {
  const HtmlReport page = full_report();
  const Rendered r = render_in_chromium("all_charts", page.render());
  EXPECT_EQ(r.status, "ok:6") << r.log;
  EXPECT_EQ(r.warnings, "0") << "vega logged warnings; see " << ASSAY_BINARY_DIR
                             << "/test-output/report/all_charts.chromium.log\n"
                             << r.log;
  ASSERT_EQ(r.marks.size(), 6u);
  for (int n : r.marks) EXPECT_GT(n, 0);
  // Text stayed text: the escaped paragraph and the title, not markup.
  EXPECT_NE(r.dom.find("Text with &lt;/script&gt; and &lt;b&gt;tags&lt;/b&gt; is escaped."),
            std::string::npos);
  EXPECT_NE(r.dom.find("<svg"), std::string::npos);
}

TEST(Render, SpecRejectedByVegaIsReported) {
  HtmlReport page("broken");
  page.add_chart("good", trend_chart({{"s", {1, 2}, {0.5, 0.6}}}, "x", "y"));
  page.add_chart("bad", Json{{"data", {{"values", {{{"a", 1}}}}}},
                             {"mark", "no-such-mark"},
                             {"encoding", {{"x", {{"field", "a"}, {"type", "quantitative"}}}}}});
  const Rendered r = render_in_chromium("broken_spec", page.render());
  EXPECT_EQ(r.status.rfind("error:chart 2 (bad): ", 0), 0u) << r.status;
}

TEST(Render, EmptyChartIsReported) {
  HtmlReport page("empty");
  page.add_chart("nothing",
                 Json{{"data", {{"values", Json::array()}}},
                      {"mark", "point"},
                      {"encoding", {{"x", {{"field", "a"}, {"type", "quantitative"}}}}}});
  const Rendered r = render_in_chromium("empty_chart", page.render());
  EXPECT_EQ(r.status, "error:chart 1 (nothing): drew no data marks");
}

TEST(Render, JavaScriptExceptionAndConsoleErrorAreReported) {
  HtmlReport page("script errors");
  page.add_chart("fine", trend_chart({{"s", {1, 2}, {0.5, 0.6}}}, "x", "y"));
  const std::string html = page.render();
  Rendered r = render_in_chromium(
      "js_exception", insert_before(html, "</body>", "<script>throw new Error('boom');</script>"));
  EXPECT_EQ(r.status.rfind("error:JavaScript error: ", 0), 0u) << r.status;
  EXPECT_NE(r.status.find("boom"), std::string::npos) << r.status;
  r = render_in_chromium(
      "console_error",
      insert_before(html, "</body>", "<script>console.error('bad thing');</script>"));
  EXPECT_EQ(r.status, "error:console.error: bad thing");
}
