// The HTML page: escaping, blocks, the embedded chart library and specs, writing the file.
// (Rendering in a browser is tested by test_render.cpp.)
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <cmath>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/report/charts.hpp"
#include "assay/report/glossary.hpp"
#include "assay/report/html.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using assay::Json;
using namespace assay::report;

namespace {

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The JSON text of the page's spec element.
std::string specs_text(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"assay-specs\">";
  const auto begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const auto end = page.find("</script>", begin);
  return page.substr(begin + open.size(), end - begin - open.size());
}

}  // namespace

TEST(Html, Escape) {
  EXPECT_EQ(html_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(html_escape(""), "");
  EXPECT_EQ(html_escape("plain \xc3\xa9"), "plain \xc3\xa9");
  // HTML cannot hold NUL: control characters become visible control pictures, whitespace stays.
  EXPECT_EQ(html_escape(std::string("a\0b\x1b\x7f\t\n\r", 8)), "a&#x2400;b&#x241B;&#x2421;\t\n\r");
  HtmlReport page(std::string("T\0", 2));
  page.add_paragraph(std::string("p\0", 2));
  EXPECT_EQ(page.render().find('\0'), std::string::npos);
}

TEST(Html, ChartLibraryIsTheInstalledOne) {
  const auto files = chart_library();
  ASSERT_EQ(files.size(), 3u);
  const char* names[] = {"vega", "vega-lite", "vega-embed"};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(files[i].package, names[i]);
    const fs::path dir = fs::path(ASSAY_SOURCE_DIR) / "report/js/node_modules" / names[i];
    const Json package = Json::parse(read_file(dir / "package.json"));
    EXPECT_EQ(files[i].version, package["version"].get<std::string>());
    // Byte for byte the minified build, less its trailing source-map comment.
    const std::string js = read_file(dir / "build" / (std::string(names[i]) + ".min.js"));
    ASSERT_GT(files[i].code.size(), 10000u);
    EXPECT_EQ(js.compare(0, files[i].code.size(), files[i].code), 0);
    EXPECT_EQ(files[i].code.find("sourceMappingURL"), std::string::npos);
    EXPECT_LE(js.size() - files[i].code.size(), 100u);
  }
}

TEST(Html, PageStructureAndEscaping) {
  HtmlReport page("Run <7> & \"friends\"");
  page.add_heading("Summary & <notes>");
  page.add_heading("Detail", 3);
  page.add_paragraph("line one <b>\nline two");
  page.add_table({"metric", "value", "note"},
                 {{"AP", "0.873", "ok"}, {"n", "1200", "<i>"}, {"x", "-1e-3", "1.2.3"}});
  page.add_json("Metrics", Json{{"ap", 0.873}, {"s", "</script>"}});
  const std::string html = page.render();

  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_NE(html.find("<title>Run &lt;7&gt; &amp; &quot;friends&quot;</title>"), std::string::npos);
  EXPECT_NE(html.find("<h1>Run &lt;7&gt; &amp; &quot;friends&quot;</h1>"), std::string::npos);
  EXPECT_NE(html.find("<h2>Summary &amp; &lt;notes&gt;</h2>"), std::string::npos);
  EXPECT_NE(html.find("<h3>Detail</h3>"), std::string::npos);
  EXPECT_NE(html.find("<p>line one &lt;b&gt;<br>\nline two</p>"), std::string::npos);
  EXPECT_NE(html.find("<thead><tr><th class=\"word\">metric</th><th class=\"word\">value</th>"
                      "<th class=\"word\">note</th></tr></thead>"),
            std::string::npos);
  // Numeric cells are right-aligned, in one format per column; "1.2.3" is not a number.
  EXPECT_NE(html.find("<tr><td>AP</td><td class=\"num\">0.8730</td><td>ok</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>n</td><td class=\"num\">1200.0000</td><td>&lt;i&gt;</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>x</td><td class=\"num\">-0.0010</td><td>1.2.3</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<details><summary>Metrics</summary><pre>{\n  &quot;ap&quot;: 0.873,\n  "
                      "&quot;s&quot;: &quot;&lt;/script&gt;&quot;\n}</pre></details>"),
            std::string::npos);
  // Three library scripts, the status hook and the render script; versions in the footer.
  EXPECT_EQ(count(html, "<script>"), 5u);
  for (const auto& file : chart_library()) {
    EXPECT_NE(html.find(std::string(file.package) + " " + std::string(file.version)),
              std::string::npos);
  }
  EXPECT_NE(html.find("<body data-assay-render=\"pending\">"), std::string::npos);
  EXPECT_EQ(specs_text(html), "[]");
}

TEST(Html, ChartsAreEmbeddedSafely) {
  HtmlReport page("charts");
  page.add_chart("PR </script><!-- & more", pr_curve_chart({{"a </script>", {0, 1}, {1, 0.5}}}));
  page.add_chart("", trend_chart({{"s", {1, 2}, {0.5, 0.6}}}, "x", "y"));
  page.add_paragraph("between");
  page.add_chart("third", Json{{"mark", "point"}});
  EXPECT_EQ(page.chart_count(), 3u);
  const std::string html = page.render();

  const std::string json = specs_text(html);
  EXPECT_EQ(json.find('<'), std::string::npos);
  EXPECT_EQ(json.find('>'), std::string::npos);
  EXPECT_EQ(json.find('&'), std::string::npos);
  const Json specs = Json::parse(json);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0]["title"], "PR </script><!-- & more");  // the figure title wins
  EXPECT_EQ(specs[0]["data"]["values"][0]["series"], "a </script>");
  EXPECT_EQ(specs[1]["title"], "y against x");  // empty title keeps the chart's own
  EXPECT_EQ(specs[2], Json({{"mark", "point"}, {"title", "third"}}));

  EXPECT_NE(html.find("<div id=\"assay-chart-0\" data-title=\"PR &lt;/script&gt;&lt;!-- &amp; "
                      "more\"></div>"),
            std::string::npos);
  EXPECT_NE(html.find("<div id=\"assay-chart-1\" data-title=\"y against x\"></div>"),
            std::string::npos);
  // The first two charts share one row; the paragraph starts a new one.
  EXPECT_EQ(count(html, "<div class=\"charts\">"), 2u);
  const std::regex row("<div class=\"charts\">\n(<figure[^\n]*\n)*</div>");
  std::vector<std::size_t> figures_per_row;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), row); it != std::sregex_iterator();
       ++it) {
    figures_per_row.push_back(count(it->str(), "<figure"));
  }
  EXPECT_EQ(figures_per_row, (std::vector<std::size_t>{2, 1}));
  // Only the library's, the hooks' and the spec element's </script> end tags remain.
  EXPECT_EQ(count(html, "</script>"), 6u);
}

TEST(Html, InvalidUtf8IsReplacedNotThrown) {
  HtmlReport page("bad \xff utf8");
  page.add_chart("c", Json{{"mark", "point"}, {"description", "x\xfey"}});
  page.add_json("j", Json{{"k", "\xc3"}});
  const std::string html = page.render();
  EXPECT_NE(specs_text(html).find("x\xef\xbf\xbdy"), std::string::npos);  // U+FFFD
}

TEST(Html, BadInput) {
  HtmlReport page("t");
  EXPECT_THROW_MSG(page.add_heading("x", 1), assay::Error,
                   "heading level must be 2, 3 or 4 (found 1; level 1 is the page title)");
  EXPECT_THROW_MSG(page.add_heading("x", 5), assay::Error,
                   "heading level must be 2, 3 or 4 (found 5; level 1 is the page title)");
  EXPECT_THROW_MSG(page.add_table({}, {}), assay::Error,
                   "table header is empty (expected at least one column)");
  EXPECT_THROW_MSG(page.add_table({"a", "b"}, {{"1", "2"}, {"3"}}), assay::Error,
                   "table row 2 has 1 cells, expected 2 (the header's)");
  EXPECT_THROW_MSG(page.add_chart("c", Json::array()), assay::Error,
                   "chart spec must be a JSON object (found array)");
  EXPECT_EQ(page.chart_count(), 0u);
  EXPECT_THROW_MSG(page.write("/nonexistent-dir/report.html"), assay::Error,
                   "cannot write /nonexistent-dir/report.html: No such file or directory");
}

TEST(Html, WriteRoundTrips) {
  HtmlReport page("written");
  page.add_paragraph("hello");
  const fs::path path =
      fs::temp_directory_path() / ("assay-test-html-" + std::to_string(getpid()) + ".html");
  page.write(path.string());
  EXPECT_EQ(read_file(path), page.render());
  fs::remove(path);
}

TEST(Html, DisplayNumbers) {
  EXPECT_EQ(display_number(std::nan("")), "NaN");
  EXPECT_EQ(display_number(12), "12");
  EXPECT_EQ(display_number(0.87346), "0.8735");
  EXPECT_EQ(display_number(3.1e-6), "3.10e-06");
  EXPECT_EQ(display_number(-1.0 / 0.0), "-inf");
  EXPECT_EQ(display_number(-0.0), "0");
}

// One format per column, chosen from all its values: "1" and "1.0000" never share a column.
TEST(Html, OneNumberFormatPerColumn) {
  const double nan = std::nan("");
  using V = std::vector<std::string>;
  EXPECT_EQ(format_column(std::vector<double>{1, 0.5, nan}), (V{"1.0000", "0.5000", "NaN"}));
  EXPECT_EQ(format_column(std::vector<double>{3, 12, nan}), (V{"3", "12", "NaN"}));
  EXPECT_EQ(format_column(std::vector<double>{0.5, 2e-5, 0}),
            (V{"5.00e-01", "2.00e-05", "0.00e+00"}));
  EXPECT_EQ(format_column(std::vector<double>{2.5e6 + 0.5, 1.25}), (V{"2.50e+06", "1.25e+00"}));
  EXPECT_EQ(format_column(std::vector<double>{2.5e6, 1}), (V{"2500000", "1"}));
  EXPECT_EQ(format_column(std::vector<double>{-0.00001, 0.25}), (V{"-1.00e-05", "2.50e-01"}));
  EXPECT_EQ(format_column(std::vector<double>{nan, 1.0 / 0.0}), (V{"NaN", "inf"}));
  EXPECT_EQ(format_intervals(std::vector<double>{0.9, 1}, std::vector<double>{0.85, nan},
                             std::vector<double>{1, nan}),
            (V{"0.9000 [0.8500, 1.0000]", "1.0000"}));

  std::vector<std::vector<std::string>> rows{{"0.1", "1", "0.5000", "12 [10, 14]", "a"},
                                             {"1", "1.0000", "nan", "nan [nan, -nan]", "nan"}};
  unify_number_columns(rows, 1);
  EXPECT_EQ(rows[0], (V{"0.1", "1", "0.5000", "12 [10, 14]", "a"}));  // labels as written
  EXPECT_EQ(rows[1], (V{"1", "1", "NaN", "NaN [NaN, NaN]", "NaN"}));
  std::vector<std::vector<std::string>> same{{"x", "0.5000"}, {"y", "1.0000"}};
  unify_number_columns(same);  // one format already: as written
  EXPECT_EQ(same[1], (V{"y", "1.0000"}));
  EXPECT_TRUE(is_numeric_text("0.912 [0.887, 0.934]"));
  EXPECT_TRUE(is_numeric_text("1.20\u00b10.30"));
  EXPECT_TRUE(is_numeric_text("-1e-3"));
  EXPECT_FALSE(is_numeric_text("1.2.3"));
  EXPECT_FALSE(is_numeric_text("C=1"));
  EXPECT_FALSE(is_numeric_text("[ ]"));
}

// Intervals stay on one line, long text wraps or folds, and no cell says "nan" or "—".
TEST(Html, TableCellsIntervalsAndLongText) {
  HtmlReport page("cells");
  const std::string long_text(50, 'x');
  const std::string very_long = "alpha=0.5," + std::string(200, 'y');
  page.add_table({"model", "RMSE", "note"},
                 {{"a", "0.912 [0.887, 0.934]", long_text}, {"b", "nan", very_long}});
  const std::string html = page.render();
  EXPECT_NE(html.find("<td class=\"num\">0.912 [0.887, 0.934]</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">NaN</td>"), std::string::npos);
  EXPECT_NE(html.find("<td><div class=\"cell-long\">" + long_text + "</div></td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td><details class=\"cell-fold\"><summary>alpha=0.5,"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"table-block\">\n<table>"), std::string::npos);
  EXPECT_NE(html.find("td.num { text-align: right; font-variant-numeric: tabular-nums; "
                      "white-space: nowrap; }"),
            std::string::npos);
}

// Data tables can show value, low and high as one interval cell; the CSV keeps the columns.
TEST(Html, DataTablesJoinIntervals) {
  assay::Table t;
  t.add_column(assay::Column::categorical("model", {"a", "b"}));
  t.add_column(assay::Column::numeric("rmse", {1.5, 2}));
  t.add_column(assay::Column::numeric("rmse_low", {1, 1.25}));
  t.add_column(assay::Column::numeric("rmse_high", {2, 3}));
  t.add_column(assay::Column::numeric("n", {10, 20}));
  HtmlReport page("joined");
  page.add_data_table(t, {.csv_name = "t", .join_intervals = true});
  const std::string html = page.render();
  EXPECT_NE(html.find("<th class=\"word\">rmse</th><th class=\"word\">n</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">1.5000 [1.0000, 2.0000]</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">2.0000 [1.2500, 3.0000]</td><td class=\"num\">20</td>"),
            std::string::npos);
  EXPECT_EQ(page.csv_files()[0].text, assay::format_csv(t));
}

// Every abbreviation a table uses is defined beside it, once per page, then linked.
TEST(Html, GlossaryBesideTables) {
  using V = std::vector<std::string>;
  EXPECT_EQ(glossary_terms_in(V{"set", "R-AUC", "PRR", "F1@95", "ROC AUC (one-vs-rest, macro)"}),
            (V{"R-AUC", "PRR", "F1@95", "ROC AUC"}));
  EXPECT_EQ(glossary_terms_in(V{"ndsc_r_auc_mean", "lesion_f1_sd", "f1_at_95", "r2"}),
            (V{"nDSC R-AUC", "lesion F1", "F1@95", "R\u00b2"}));
  EXPECT_EQ(glossary_terms_in(V{"all runs", "same", "mAP (step)", "Apple"}), V{"mAP"});
  ASSERT_NE(glossary_entry("prr"), nullptr);
  EXPECT_EQ(glossary_entry("PRR")->term, "PRR");
  EXPECT_EQ(glossary_entry("nonsense"), nullptr);

  HtmlReport page("glossary");
  page.add_table({"model", "PRR"}, {{"a", "0.5"}});
  page.add_table({"model", "PRR", "AURC"}, {{"a", "0.5", "0.1"}}, {"Same"});
  const std::string html = page.render();
  EXPECT_EQ(count(html, "<dt id=\"glossary-prr\">PRR</dt>"), 1u);
  EXPECT_NE(html.find("<dt id=\"glossary-aurc\">AURC</dt>"), std::string::npos);
  EXPECT_NE(html.find("<dt id=\"glossary-same\">Same</dt>"), std::string::npos);
  EXPECT_NE(html.find("Defined above: <a href=\"#glossary-prr\">PRR</a>"), std::string::npos);
  EXPECT_THROW_MSG(page.add_glossary({"XYZ"}), assay::Error, "glossary has no term \"XYZ\"");
}

TEST(Html, DataTablesOfferTheirCsv) {
  assay::Table t;
  t.add_column(assay::Column::categorical("model", {"a, quoted \"b\"", "c"}));
  t.add_column(assay::Column::numeric("AP", {0.123456789, std::nan("")}));
  HtmlReport page("tables");
  page.add_heading("Section", 2, "sec-1");
  page.add_paragraph({{"see "}, {"the section", "#sec-1"}, {" <now>"}});
  page.add_list({{{"one"}}, {{"two", "#x"}}}, true);
  page.add_data_table(t, {"metrics-summary", "Caption & more"});
  page.add_data_table(t, {"", "", true});  // shown, folded, no download
  ASSERT_EQ(page.csv_files().size(), 1u);
  EXPECT_EQ(page.csv_files()[0].file_name, "metrics-summary.csv");
  EXPECT_EQ(page.csv_files()[0].text, assay::format_csv(t));
  const std::string html = page.render();
  EXPECT_NE(html.find("<h2 id=\"sec-1\">Section</h2>"), std::string::npos);
  EXPECT_NE(html.find("<p>see <a href=\"#sec-1\">the section</a> &lt;now&gt;</p>"),
            std::string::npos);
  EXPECT_NE(html.find("<ul class=\"summary\">\n<li>one</li>\n<li><a href=\"#x\">two</a></li>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">0.1235</td></tr>"), std::string::npos);  // rounded
  EXPECT_NE(html.find("<td class=\"num\">NaN</td>"), std::string::npos);          // NaN
  EXPECT_NE(html.find("Caption &amp; more"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"table-block\"><summary>Table (2 rows)</summary>"),
            std::string::npos);
  // The download holds the full-precision CSV, base64-encoded.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(html, m,
                        std::regex("download=\"metrics-summary.csv\" "
                                   "href=\"data:text/csv;charset=utf-8;base64,([^\"]*)\"")));
  const std::string b64 = m[1];
  std::string decoded;
  const std::string digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  unsigned bits = 0;
  int n = 0;
  for (char c : b64) {
    if (c == '=') break;
    bits = (bits << 6) | static_cast<unsigned>(digits.find(c));
    n += 6;
    if (n >= 8) {
      n -= 8;
      decoded += static_cast<char>((bits >> n) & 0xFF);
    }
  }
  EXPECT_EQ(decoded, assay::format_csv(t));
  EXPECT_NE(decoded.find("0.123456789"), std::string::npos);

  EXPECT_THROW_MSG(page.add_data_table(t, {"metrics-summary"}), assay::Error,
                   "table CSV name \"metrics-summary\" is used twice on this page");
  EXPECT_THROW_MSG(page.add_data_table(t, {"a/b"}), assay::Error,
                   "table CSV name must be letters, digits, '-', '_' and '.' (found \"a/b\")");
  EXPECT_THROW_MSG(page.add_heading("x", 2, "a b"), assay::Error,
                   "heading anchor must be letters, digits, '-' and '_' (found \"a b\")");
}
