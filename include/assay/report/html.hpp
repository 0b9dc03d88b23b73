// One self-contained HTML report page: headings, paragraphs, tables, JSON blocks and Vega-Lite
// charts (see charts.hpp), with vega, vega-lite and vega-embed inlined, so the page works offline
// and from file:// (no network, no other files).
//
//   HtmlReport page("Model evaluation");
//   page.add_paragraph("Scores from run 7; 1200 samples.");
//   page.add_table({"metric", "value"}, {{"AP", "0.873"}, {"ROC AUC", "0.912"}});
//   page.add_chart("Precision-recall", pr_curve_chart({{"model", recall, precision}}));
//   page.write("report.html");
//
// All text is HTML-escaped (it is text, never markup). Specs are embedded as JSON inside a
// <script type="application/json"> element with '<', '>' and '&' written as \u003c escapes, so no
// string in a spec can end the element. Charts are drawn with renderer "svg" and no action menu.
//
// Render status, for tests and tools: once every chart has rendered, the page sets the body's
// data-assay-render attribute to "ok:<number of charts>" after checking that each chart drew at
// least one data mark. Any failure (a spec vega-embed rejects, a JavaScript exception, an
// unhandled promise rejection, a console.error call, or a chart with no data marks) sets it to
// "error:<message>" instead and shows the message in a red box at the top of the page.
// data-assay-warnings counts console.warn calls (vega's own warnings). Each chart's container
// (id "assay-chart-<i>") gets data-assay-marks = the number of data mark items it drew.
//
// Data tables (add_data_table): the page shows the cells rounded for reading and offers
// the full-precision CSV (core/csv.hpp's format_csv, the bytes write_csv writes) as a download
// link (<a class="assay-csv" download="NAME.csv" href="data:text/csv;...">); csv_files() lists
// every such table so that a caller can write the same files next to the page.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "assay/core/json.hpp"
#include "assay/core/table.hpp"

namespace assay::report {

/// One file of the embedded chart library.
struct ChartLibraryFile {
  /// npm package name: "vega", "vega-lite" or "vega-embed".
  std::string_view package;
  /// Installed version, as pinned by report/js/package-lock.json.
  std::string_view version;
  /// The minified browser (UMD) build, without its source-map comment.
  std::string_view code;
};

/// The chart library inlined into every page, in load order (vega, vega-lite, vega-embed).
/// Generated at build time by cmake/embed_chart_library.py.
std::span<const ChartLibraryFile> chart_library();

/// Escapes text for HTML element content and attribute values (& < > " '); control characters
/// other than tab, newline and carriage return (NUL, ESC, DEL, ...) become their visible Unicode
/// control pictures (U+2400 + c; DEL U+2421), since HTML cannot hold them.
std::string html_escape(std::string_view text);

/// A piece of text, optionally a link (e.g. "#section-metrics" to a heading's anchor).
struct TextSpan {
  std::string text;
  /// Link target; empty = plain text.
  std::string href = {};
};

/// How add_data_table shows a Table.
struct TableOptions {
  /// File name stem of the CSV download (letters, digits, '-', '_', '.'; unique per page);
  /// empty = no download.
  std::string csv_name;
  /// Caption above the table (what the rows are, units, conventions); empty = none.
  std::string caption = {};
  /// Show the table folded (a <details> block with the caption as its summary), for long
  /// per-fold or per-subject listings.
  bool folded = false;
};

/// How a number appears in a shown table (its CSV keeps full precision): NaN as "—", integers
/// as such, |v| < 0.001 in scientific notation with 3 significant digits, else 4 decimals.
std::string display_number(double value);

/// A CSV table offered by the page.
struct CsvFile {
  /// TableOptions::csv_name + ".csv".
  std::string file_name;
  /// The CSV text (format_csv of the table).
  std::string text;
};

/// A report page built block by block, in order.
class HtmlReport {
 public:
  /// Ensures: the page has the title (in <title> and as the top <h1>) and no blocks.
  explicit HtmlReport(std::string title);

  /// Requires: 2 <= level <= 4 (level 1 is the page title). `anchor` (letters, digits, '-',
  /// '_') becomes the heading's id, the target of "#anchor" links; empty = none.
  void add_heading(const std::string& text, int level = 2, const std::string& anchor = "");

  /// A paragraph of plain text; line breaks in `text` are kept.
  void add_paragraph(const std::string& text);

  /// A paragraph of spans, some of them links.
  void add_paragraph(const std::vector<TextSpan>& spans);

  /// A bulleted list, one item per entry; `highlight` draws it as the boxed summary.
  void add_list(const std::vector<std::vector<TextSpan>>& items, bool highlight = false);

  /// A data table: cells shown rounded (display_number) and, with options.csv_name, a link that
  /// downloads the whole table as CSV at full precision. Throws assay::Error for a csv_name
  /// already used on this page or with other characters than letters, digits, '-', '_', '.'.
  void add_data_table(const Table& table, const TableOptions& options);

  /// Requires: header non-empty and every row with header.size() cells.
  /// Ensures: a table; cells that parse completely as numbers are right-aligned.
  void add_table(const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows);

  /// Requires: spec is a JSON object (a Vega-Lite spec, e.g. from charts.hpp).
  /// Ensures: a figure with `title` as its caption; chart_count() grows by one.
  void add_chart(const std::string& title, const Json& spec);

  /// Same, with a caption under the chart (units, conventions, how to read it).
  void add_chart(const std::string& title, const Json& spec, const std::string& caption);

  /// A collapsible block with `value` pretty-printed (e.g. the metrics as the CLI's --json).
  void add_json(const std::string& title, const Json& value);

  /// Number of charts added so far.
  std::size_t chart_count() const { return chart_specs_.size(); }

  /// The CSV tables added so far (add_data_table with a csv_name), in page order.
  const std::vector<CsvFile>& csv_files() const { return csv_files_; }

  /// The whole page as UTF-8 HTML (about 0.9 MB: the chart library is inlined).
  std::string render() const;

  /// Writes render() to `path`; throws assay::Error if the file cannot be written.
  void write(const std::string& path) const;

 private:
  std::string title_;
  std::string body_;  // rendered blocks, in order
  std::vector<Json> chart_specs_;
  std::vector<CsvFile> csv_files_;
  bool last_was_chart_ = false;  // consecutive charts share one row
};

}  // namespace assay::report
