// One self-contained HTML report page: headings, paragraphs, tables, JSON blocks and Vega-Lite
// charts (see charts.hpp), with vega, vega-lite and vega-embed inlined, so the page works offline
// and from file:// (no network, no other files).
//
// Example:
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
// Tables (add_table, add_data_table): one number format per column (format_column: integers
// as integers, else 4 decimals, scientific notation with 3 significant digits where a value is
// under 0.001 that 4 decimals would not show exactly, or from 10^6 on), missing values as "NaN"
// (kMissingText) — in the CLI's text tables too. Numbers and intervals ("0.912 [0.887, 0.934]")
// stay on one line; long free text wraps, and a very long cell is folded (a <details> with its
// start as the summary). Under a table that uses abbreviations from the glossary (glossary.hpp) the
// page lists their definitions: each term in full the first time the page uses it, later as a link
// to that first definition.
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
  /// Show each interval in one cell, "value [low, high]" (format_intervals): a numeric column
  /// X followed by X_low and X_high (or "X low" and "X high", or columns named low and high)
  /// is shown as one column X. The CSV keeps every column.
  bool join_intervals = false;
  /// Glossary terms the table uses but the page cannot find in its text (ordinary words such
  /// as "Same"); found terms need not be listed.
  std::vector<std::string> glossary = {};
};

/// How every page and text table shows a missing value (NaN); JSON writes null.
inline constexpr std::string_view kMissingText = "NaN";

/// One number format for a whole column (NumberFormat), chosen from its finite values.
struct NumberFormat {
  enum class Style { integer, fixed, scientific };
  Style style = Style::integer;
  /// Digits after the point (fixed) or of the mantissa (scientific).
  int decimals = 0;
};

/// The format of a column: integer when every finite value is a whole number under 10^15;
/// else scientific (2 mantissa decimals) when a value other than 0 is from 10^6 on in magnitude
/// or under 0.001 and not exact at 4 decimals (0.0005 is); else fixed with 4 decimals. No finite
/// value: integer.
NumberFormat column_format(std::span<const double> values);

/// `value` in `format`; NaN as kMissingText, infinities as "inf" / "-inf", -0 as 0.
std::string format_number(double value, NumberFormat format);

/// Every value of a column in the column's format (column_format).
std::vector<std::string> format_column(std::span<const double> values);

/// One cell per row, "value [low, high]" (or "value" alone where low and high are both NaN),
/// with all numbers of the column in one format chosen from all of them.
/// Requires: the three spans have the same size.
std::vector<std::string> format_intervals(std::span<const double> value,
                                          std::span<const double> low,
                                          std::span<const double> high);

/// A single number shown on its own (in a sentence): format_number in its own column_format.
std::string display_number(double value);

/// Text tables built from strings (add_table, the CLI's tables): a column whose cells are all
/// numbers, missing ("nan", "NaN", "—") or empty, written in more than one format ("1" and
/// "1.0000"), is written again in its column_format; "nan" becomes kMissingText in every cell
/// made of numbers ("0.91 [nan, nan]"). The first `label_columns` columns name the rows (a
/// hyperparameter's values "0.1", "1"): their numbers stay as written. Rows may be shorter than
/// others (cells past a row's end are skipped).
void unify_number_columns(std::vector<std::vector<std::string>>& rows,
                          std::size_t label_columns = 0);

/// A cell made only of numbers, missing values and the punctuation of intervals ("0.9", "NaN",
/// "0.912 [0.887, 0.934]", "0.91±0.02", "12.5%"): shown right-aligned on one line.
bool is_numeric_text(std::string_view cell);

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

  /// The glossary of `terms` (glossary.hpp terms or aliases; unknown ones are an error, a bug):
  /// the definition of each term not yet defined on the page, then links to earlier ones.
  /// add_table / add_data_table call it for the terms they use.
  void add_glossary(const std::vector<std::string>& terms);

  /// A bulleted list, one item per entry; `highlight` draws it as the boxed summary.
  void add_list(const std::vector<std::vector<TextSpan>>& items, bool highlight = false);

  /// A data table: numeric columns shown rounded (format_column) and, with options.csv_name, a
  /// link that downloads the whole table as CSV at full precision; then the glossary of the
  /// terms it uses and of options.glossary. Throws assay::Error for a csv_name already used on
  /// this page or with other characters than letters, digits, '-', '_', '.'.
  void add_data_table(const Table& table, const TableOptions& options);

  /// Requires: header non-empty and every row with header.size() cells.
  /// Ensures: a table (unify_number_columns applied, the first column naming the rows); numeric
  /// cells (is_numeric_text) are right-aligned on one line; then the glossary of the terms it uses
  /// and of `glossary`.
  void add_table(const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows,
                 const std::vector<std::string>& glossary = {});

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
  bool last_was_chart_ = false;             // consecutive charts share one row
  std::vector<std::string> defined_terms_;  // glossary terms defined on the page so far
};

}  // namespace assay::report
