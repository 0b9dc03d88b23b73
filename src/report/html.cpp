#include "assay/report/html.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/output_file.hpp"
#include "assay/report/glossary.hpp"

namespace assay::report {
namespace {

const char* const kStyle = R"css(
:root { color-scheme: light; }
body { margin: 0; background: #f4f5f7; color: #1f2328;
       font: 15px/1.5 Helvetica, Arial, sans-serif; }
main { max-width: 1360px; margin: 0 auto; padding: 24px 36px 40px; background: #fff;
       min-height: 100vh; box-sizing: border-box; }
h1 { font-size: 26px; margin: 4px 0 12px; }
h2 { font-size: 20px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #e3e5e8; }
h3 { font-size: 17px; margin: 24px 0 6px; }
h4 { font-size: 15px; margin: 20px 0 4px; }
p { margin: 8px 0; max-width: 80ch; }
table { border-collapse: collapse; margin: 12px 0; font-size: 14px; }
th, td { padding: 4px 14px; border-bottom: 1px solid #e3e5e8; text-align: left; }
th { background: #f3f4f6; font-weight: 600; }
th.word { white-space: nowrap; }  /* "R-AUC", "F1@95": one word, never split at its hyphen */
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td .cell-long { min-width: 24ch; max-width: 60ch; overflow-wrap: anywhere; }
td details.cell-fold summary { font-weight: normal; }
dl.glossary { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 1px 10px;
              margin: 2px 0 14px; font-size: 13px; color: #444c56; max-width: 110ch; }
dl.glossary dt { font-weight: 600; }
dl.glossary dd { margin: 0; }
p.glossary-more { font-size: 13px; color: #444c56; margin: 2px 0 14px; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 28px; }
figure.chart { margin: 12px 0; }
details { margin: 12px 0; }
summary { cursor: pointer; font-weight: 600; }
pre { background: #f6f8fa; padding: 12px; overflow: auto; font-size: 13px; max-height: 480px; }
#assay-errors { margin: 12px 0; padding: 8px 12px; background: #fdecea; color: #a4161a;
                border: 1px solid #f3b8b5; border-radius: 4px; white-space: pre-wrap; }
footer { margin-top: 40px; color: #6e7781; font-size: 13px; }
figcaption { max-width: 560px; font-size: 13px; color: #444c56; margin-top: 2px; }
.table-block { margin: 12px 0; overflow-x: auto; }  /* wide tables scroll, not the page */
.table-block table { margin: 4px 0; }
.table-caption { font-size: 14px; color: #444c56; max-width: 90ch; }
a.assay-csv { font-size: 13px; }
ul.summary { background: #f0f6ff; border: 1px solid #c5dafa; border-radius: 6px;
             padding: 10px 14px 10px 34px; max-width: 110ch; }
ul.summary li { margin: 4px 0; }
a { color: #0b5cad; }
)css";

// Runs before the chart library loads, so that errors while loading it are caught too.
const char* const kStatusScript = R"js(
(function () {
  "use strict";
  var state = { errors: [], warnings: 0, done: null };
  window.assayReport = state;
  function text(args) {
    return Array.prototype.map.call(args, function (a) {
      return a && a.message ? a.message : String(a);
    }).join(" ");
  }
  state.update = function () {
    var body = document.body;
    if (!body) return;
    body.dataset.assayWarnings = String(state.warnings);
    if (state.errors.length) {
      body.dataset.assayRender = "error:" + state.errors[0];
      var box = document.getElementById("assay-errors");
      if (box) {
        box.hidden = false;
        box.textContent = "This report did not render correctly:\n" + state.errors.join("\n");
      }
    } else if (state.done) {
      body.dataset.assayRender = state.done;
    }
  };
  state.error = function (message) { state.errors.push(String(message)); state.update(); };
  state.finish = function (status) { state.done = status; state.update(); };
  window.addEventListener("error", function (e) {
    state.error("JavaScript error: " + (e.message || e.type) +
                (e.lineno ? " (line " + e.lineno + ")" : ""));
  });
  window.addEventListener("unhandledrejection", function (e) {
    state.error("unhandled promise rejection: " + text([e.reason]));
  });
  var consoleError = console.error, consoleWarn = console.warn;
  console.error = function () {
    state.error("console.error: " + text(arguments));
    return consoleError.apply(console, arguments);
  };
  console.warn = function () {
    state.warnings += 1;
    state.update();
    return consoleWarn.apply(console, arguments);
  };
})();
)js";

// Runs after the page body: draws every chart, then checks that each drew data marks.
const char* const kRenderScript = R"js(
(function () {
  "use strict";
  var state = window.assayReport;
  var specs;
  try {
    specs = JSON.parse(document.getElementById("assay-specs").textContent);
  } catch (e) {
    state.error("cannot read the chart specs: " + e.message);
    return;
  }
  if (typeof vegaEmbed !== "function") {
    state.error("the chart library did not load");
    return;
  }
  // Data mark items in a scenegraph: items of non-group marks whose role is "mark" (axes,
  // legends and titles have their own roles), found through nested groups.
  function countMarks(mark) {
    var n = 0;
    (mark.items || []).forEach(function (item) {
      if (mark.marktype === "group") {
        (item.items || []).forEach(function (child) { n += countMarks(child); });
      } else if (mark.role === "mark") {
        n += 1;
      }
    });
    return n;
  }
  var jobs = specs.map(function (spec, i) {
    var el = document.getElementById("assay-chart-" + i);
    var name = "chart " + (i + 1) + " (" + (el.dataset.title || "untitled") + ")";
    return vegaEmbed(el, spec, { renderer: "svg", actions: false, mode: "vega-lite" })
      .then(function (result) {
        var n = countMarks(result.view.scenegraph().root);
        el.dataset.assayMarks = String(n);
        if (!(n > 0)) throw new Error("drew no data marks");
        if (!el.querySelector("svg")) throw new Error("has no SVG");
      })
      .catch(function (e) {
        throw new Error(name + ": " + (e && e.message ? e.message : String(e)));
      });
  });
  Promise.all(jobs).then(function () {
    state.finish("ok:" + specs.length);
    // A link to a section or chart (page.html#id) lands on it once the charts have their size.
    var target = location.hash && document.getElementById(location.hash.slice(1));
    if (target) target.scrollIntoView();
  }, function (e) {
    state.error(e.message);
  });
})();
)js";

// JSON for inside a <script> element: '<', '>' and '&' only occur inside JSON strings, where
// \u003c etc. mean the same, so no "</script" or "<!--" can appear. Invalid UTF-8 becomes U+FFFD.
std::string script_json(const Json& value, int indent = -1) {
  const std::string text = value.dump(indent, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

bool is_number(const std::string& cell) {
  if (cell.empty()) return false;
  double value = 0;
  const char* first = cell.data() + (cell[0] == '+' ? 1 : 0);
  const char* last = cell.data() + cell.size();
  const auto [end, ec] = std::from_chars(first, last, value);
  return ec == std::errc() && end == last;
}

bool is_name(const std::string& text, const char* extra) {
  if (text.empty()) return false;
  for (unsigned char c : text) {
    if (!std::isalnum(c) && !std::strchr(extra, c)) return false;
  }
  return true;
}

std::string base64(std::string_view bytes) {
  static const char* const digits =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int s : {18, 12, 6, 0}) out += digits[(v >> s) & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string spans_html(const std::vector<TextSpan>& spans) {
  std::string html;
  for (const auto& span : spans) {
    if (span.href.empty()) {
      html += html_escape(span.text);
    } else {
      html += fmt::format("<a href=\"{}\">{}</a>", html_escape(span.href), html_escape(span.text));
    }
  }
  return html;
}

bool is_missing(std::string_view cell) {
  return cell == "nan" || cell == "-nan" || cell == "NaN" || cell == "\u2014";
}

// The digits after the point and whether there is an exponent: "1.0000" and "1" differ.
std::pair<std::size_t, bool> written_format(const std::string& cell) {
  const auto e = cell.find_first_of("eE");
  const auto dot = cell.find('.');
  const std::size_t end = e == std::string::npos ? cell.size() : e;
  return {dot == std::string::npos || dot > end ? 0 : end - dot - 1, e != std::string::npos};
}

// Writes "nan" words of a numeric cell as kMissingText: "0.5 [nan, nan]" -> "0.5 [NaN, NaN]".
std::string missing_as_text(const std::string& cell) {
  std::string out;
  for (std::size_t i = 0; i < cell.size();) {
    const bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(cell[i - 1]));
    if (word_start && cell.compare(i, 3, "nan") == 0 &&
        (i + 3 == cell.size() || !std::isalnum(static_cast<unsigned char>(cell[i + 3])))) {
      if (!out.empty() && out.back() == '-') out.pop_back();  // "-nan": a NaN has no sign
      out += kMissingText;
      i += 3;
    } else {
      out += cell[i++];
    }
  }
  return out;
}

void unify_column(std::vector<std::vector<std::string>>& rows, std::size_t j) {
  std::vector<double> values;
  std::vector<std::size_t> at;
  std::pair<std::size_t, bool> first{0, false};
  bool mixed = false;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (j >= rows[r].size()) continue;
    auto& cell = rows[r][j];
    if (cell.empty()) continue;
    if (is_missing(cell)) {
      cell = kMissingText;
      continue;
    }
    if (!is_number(cell)) return;  // text: the caller's format
    const auto written = written_format(cell);
    if (values.empty()) first = written;
    mixed |= written != first;
    double v = 0;
    std::from_chars(cell.data() + (cell[0] == '+'), cell.data() + cell.size(), v);
    values.push_back(v);
    at.push_back(r);
  }
  if (!mixed) return;
  const NumberFormat format = column_format(values);
  for (std::size_t k = 0; k < at.size(); ++k) rows[at[k]][j] = format_number(values[k], format);
}

// A text cell as HTML: short text as is; long text in a box that may break anywhere (a column
// name or a hyperparameter list without spaces must not push the table past the page edge);
// very long text folded under its start.
std::string text_cell_html(const std::string& cell) {
  constexpr std::size_t kLong = 40, kFold = 160, kSummary = 60;
  if (cell.size() <= kLong) return html_escape(cell);
  const std::string box = "<div class=\"cell-long\">" + html_escape(cell) + "</div>";
  if (cell.size() <= kFold) return box;
  std::size_t cut = kSummary;
  while (cut < cell.size() && (static_cast<unsigned char>(cell[cut]) & 0xC0) == 0x80) ++cut;
  return "<details class=\"cell-fold\"><summary>" + html_escape(cell.substr(0, cut)) +
         "\u2026</summary>" + box + "</details>";
}

std::string cell_html(const std::string& cell) {
  if (is_numeric_text(cell)) return "<td class=\"num\">" + html_escape(cell) + "</td>";
  return "<td>" + text_cell_html(cell) + "</td>";
}

// A header of one word (no space) is not broken at its hyphen ("R-AUC"); longer ones wrap.
std::string header_html(const std::string& name) {
  const bool word = name.find(' ') == std::string::npos && name.size() <= 20;
  return (word ? "<th class=\"word\">" : "<th>") + html_escape(name) + "</th>";
}

std::string glossary_id(std::string_view term) {
  std::string id = "glossary-";
  for (unsigned char c : term) {
    if (std::isalnum(c)) {
      id += static_cast<char>(std::tolower(c));
    } else if (id.back() != '-') {
      id += '-';
    }
  }
  while (id.back() == '-') id.pop_back();
  return id;
}

// A column as a data table shows it.
struct ShownColumn {
  std::string name;
  bool numeric = false;
  std::vector<std::string> cells;
};

// The bounds of column `j` when columns j + 1 and j + 2 are its low and high (TableOptions::
// join_intervals), else nullptr.
std::pair<const Column*, const Column*> interval_bounds(const Table& table, std::size_t j) {
  const auto& c = table.columns();
  if (j + 2 >= c.size() || !c[j].is_numeric() || !c[j + 1].is_numeric() || !c[j + 2].is_numeric())
    return {nullptr, nullptr};
  const std::string& low = c[j + 1].name;
  const std::string& high = c[j + 2].name;
  for (const char* sep : {"_", " "}) {
    if (low == c[j].name + sep + "low" && high == c[j].name + sep + "high")
      return {&c[j + 1], &c[j + 2]};
  }
  if (low == "low" && high == "high") return {&c[j + 1], &c[j + 2]};
  return {nullptr, nullptr};
}

std::vector<ShownColumn> shown_columns(const Table& table, bool join_intervals) {
  std::vector<ShownColumn> out;
  const auto& c = table.columns();
  for (std::size_t j = 0; j < c.size(); ++j) {
    const auto [low, high] =
        join_intervals ? interval_bounds(table, j) : std::pair<const Column*, const Column*>{};
    if (low) {
      out.push_back({c[j].name, true, format_intervals(c[j].values, low->values, high->values)});
      j += 2;
    } else if (c[j].is_numeric()) {
      out.push_back({c[j].name, true, format_column(c[j].values)});
    } else {
      out.push_back({c[j].name, false, c[j].strings()});
    }
  }
  return out;
}

}  // namespace

NumberFormat column_format(std::span<const double> values) {
  bool integers = true, scientific = false, any = false;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    any = true;
    const double a = std::abs(v);
    integers &= v == std::floor(v) && a < 1e15;
    // Under 0.001, 4 decimals would show too few digits, unless they show the value exactly.
    const bool exact4 = std::abs(v - std::round(v * 1e4) / 1e4) <= 1e-12;
    scientific |= a != 0 && ((a < 1e-3 && !exact4) || a >= 1e6);
  }
  if (!any || integers) return {NumberFormat::Style::integer, 0};
  if (scientific) return {NumberFormat::Style::scientific, 2};
  return {NumberFormat::Style::fixed, 4};
}

std::string format_number(double v, NumberFormat format) {
  if (std::isnan(v)) return std::string(kMissingText);
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) v = 0;  // no "-0"
  switch (format.style) {
    case NumberFormat::Style::integer:
      return fmt::format("{:.0f}", v);
    case NumberFormat::Style::scientific:
      return fmt::format("{:.{}e}", v, format.decimals);
    case NumberFormat::Style::fixed:
      break;
  }
  std::string text = fmt::format("{:.{}f}", v, format.decimals);
  // A small negative number rounded to zero is zero: "-0.0000" -> "0.0000".
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
  return text;
}

std::vector<std::string> format_column(std::span<const double> values) {
  const NumberFormat format = column_format(values);
  std::vector<std::string> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(format_number(v, format));
  return out;
}

std::vector<std::string> format_intervals(std::span<const double> value,
                                          std::span<const double> low,
                                          std::span<const double> high) {
  if (low.size() != value.size() || high.size() != value.size())
    fail("interval column: {} values, {} lows and {} highs (expected as many)", value.size(),
         low.size(), high.size());
  std::vector<double> all(value.begin(), value.end());
  all.insert(all.end(), low.begin(), low.end());
  all.insert(all.end(), high.begin(), high.end());
  const NumberFormat format = column_format(all);
  std::vector<std::string> out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    std::string cell = format_number(value[i], format);
    if (!std::isnan(low[i]) || !std::isnan(high[i]))
      cell +=
          fmt::format(" [{}, {}]", format_number(low[i], format), format_number(high[i], format));
    out.push_back(std::move(cell));
  }
  return out;
}

std::string display_number(double v) {
  return format_number(v, column_format(std::span<const double>(&v, 1)));
}

void unify_number_columns(std::vector<std::vector<std::string>>& rows, std::size_t label_columns) {
  std::size_t columns = 0;
  for (const auto& row : rows) columns = std::max(columns, row.size());
  for (std::size_t j = label_columns; j < columns; ++j) unify_column(rows, j);
  for (auto& row : rows) {
    for (auto& cell : row) {
      if (cell.find("nan") != std::string::npos && is_numeric_text(cell))
        cell = missing_as_text(cell);
    }
  }
}

bool is_numeric_text(std::string_view cell) {
  bool any = false;
  std::size_t i = 0;
  while (i < cell.size()) {
    const char c = cell[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      // A number: digits with at most one point, then an exponent ("1.5e-05"); "1.2.3" is not.
      std::size_t j = i;
      bool point = false;
      while (j < cell.size() &&
             (std::isdigit(static_cast<unsigned char>(cell[j])) || (cell[j] == '.' && !point))) {
        point |= cell[j] == '.';
        ++j;
      }
      if (j < cell.size() && (cell[j] == 'e' || cell[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < cell.size() && (cell[k] == '-' || cell[k] == '+')) ++k;
        if (k < cell.size() && std::isdigit(static_cast<unsigned char>(cell[k]))) {
          while (k < cell.size() && std::isdigit(static_cast<unsigned char>(cell[k]))) ++k;
          j = k;
        }
      }
      if (j < cell.size() && cell[j] == '.') return false;
      any = true;
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < cell.size() && std::isalpha(static_cast<unsigned char>(cell[j]))) ++j;
      const std::string_view word = cell.substr(i, j - i);
      if (word != "nan" && word != "NaN" && word != "inf") return false;
      any = true;
      i = j;
    } else if (std::string_view(" []()-+,;%/").find(c) != std::string_view::npos) {
      ++i;
    } else if (cell.compare(i, 2, "\u00b1") == 0 || cell.compare(i, 2, "\u00d7") == 0) {
      i += 2;  // ± and ×
    } else if (cell.compare(i, 3, "\u2212") == 0 || cell.compare(i, 3, "\u2013") == 0 ||
               cell.compare(i, 3, "\u2014") == 0) {
      i += 3;  // minus sign, en dash, em dash
    } else {
      return false;
    }
  }
  return any;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default: {
        // HTML cannot hold NUL and shows no other control character: each becomes its visible
        // Unicode "control picture" (U+2400 + c, DEL U+2421), so that it is seen, not lost.
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7F)
          out += fmt::format("&#x{:X};", u == 0x7F ? 0x2421 : 0x2400 + u);
        else
          out += c;
      }
    }
  }
  return out;
}

HtmlReport::HtmlReport(std::string title) : title_(std::move(title)) {}

void HtmlReport::add_heading(const std::string& text, int level, const std::string& anchor) {
  last_was_chart_ = false;
  if (level < 2 || level > 4)
    fail("heading level must be 2, 3 or 4 (found {}; level 1 is the page title)", level);
  if (!anchor.empty() && !is_name(anchor, "-_"))
    fail("heading anchor must be letters, digits, '-' and '_' (found {})", quote_found(anchor));
  const std::string id = anchor.empty() ? "" : fmt::format(" id=\"{}\"", anchor);
  body_ += fmt::format("<h{0}{2}>{1}</h{0}>\n", level, html_escape(text), id);
}

void HtmlReport::add_paragraph(const std::vector<TextSpan>& spans) {
  last_was_chart_ = false;
  body_ += "<p>" + spans_html(spans) + "</p>\n";
}

void HtmlReport::add_list(const std::vector<std::vector<TextSpan>>& items, bool highlight) {
  last_was_chart_ = false;
  body_ += highlight ? "<ul class=\"summary\">\n" : "<ul>\n";
  for (const auto& item : items) body_ += "<li>" + spans_html(item) + "</li>\n";
  body_ += "</ul>\n";
}

void HtmlReport::add_glossary(const std::vector<std::string>& terms) {
  std::vector<const GlossaryEntry*> entries;
  for (const auto& term : terms) {
    const GlossaryEntry* e = glossary_entry(term);
    if (!e) fail("glossary has no term {}", quote_found(term));
    if (std::find(entries.begin(), entries.end(), e) == entries.end()) entries.push_back(e);
  }
  std::string defined, earlier;
  for (const GlossaryEntry* e : entries) {
    const std::string term(e->term);
    const std::string id = glossary_id(term);
    if (std::find(defined_terms_.begin(), defined_terms_.end(), term) == defined_terms_.end()) {
      defined_terms_.push_back(term);
      defined += fmt::format("<dt id=\"{}\">{}</dt><dd>{}</dd>\n", id, html_escape(term),
                             html_escape(e->definition));
    } else {
      earlier += fmt::format("{}<a href=\"#{}\">{}</a>", earlier.empty() ? "" : ", ", id,
                             html_escape(term));
    }
  }
  if (defined.empty() && earlier.empty()) return;
  last_was_chart_ = false;
  if (!defined.empty()) body_ += "<dl class=\"glossary\">\n" + defined + "</dl>\n";
  if (!earlier.empty()) body_ += "<p class=\"glossary-more\">Defined above: " + earlier + "</p>\n";
}

void HtmlReport::add_data_table(const Table& table, const TableOptions& options) {
  if (table.n_columns() == 0) fail("table has no columns (expected at least one)");
  if (!options.csv_name.empty()) {
    if (!is_name(options.csv_name, "-_."))
      fail("table CSV name must be letters, digits, '-', '_' and '.' (found {})",
           quote_found(options.csv_name));
    for (const auto& f : csv_files_) {
      if (f.file_name == options.csv_name + ".csv")
        fail("table CSV name {} is used twice on this page", quote_found(options.csv_name));
    }
  }
  last_was_chart_ = false;
  std::string html =
      options.folded ? "<details class=\"table-block\"><summary>" : "<div class=\"table-block\">";
  if (!options.caption.empty()) {
    html += options.folded
                ? html_escape(options.caption)
                : "<div class=\"table-caption\">" + html_escape(options.caption) + "</div>";
  } else if (options.folded) {
    html += "Table";
  }
  if (options.folded) html += fmt::format(" ({} rows)</summary>", table.n_rows());
  html += "\n<table>\n<thead><tr>";
  const auto shown = shown_columns(table, options.join_intervals);
  std::vector<std::string> texts;  // where the glossary looks for terms
  for (const auto& c : shown) {
    html += header_html(c.name);
    texts.push_back(c.name);
    if (!c.numeric) texts.insert(texts.end(), c.cells.begin(), c.cells.end());
  }
  html += "</tr></thead>\n<tbody>\n";
  for (std::size_t r = 0; r < table.n_rows(); ++r) {
    html += "<tr>";
    for (const auto& c : shown) {
      html += c.numeric ? "<td class=\"num\">" + html_escape(c.cells[r]) + "</td>"
                        : cell_html(c.cells[r]);
    }
    html += "</tr>\n";
  }
  html += "</tbody>\n</table>\n";
  if (!options.csv_name.empty()) {
    CsvFile file{options.csv_name + ".csv", format_csv(table)};
    html += fmt::format(
        "<a class=\"assay-csv\" download=\"{0}\" "
        "href=\"data:text/csv;charset=utf-8;base64,{1}\">Download {0}</a>\n",
        html_escape(file.file_name), base64(file.text));
    csv_files_.push_back(std::move(file));
  }
  html += options.folded ? "</details>\n" : "</div>\n";
  body_ += html;
  auto terms = glossary_terms_in(texts);
  terms.insert(terms.end(), options.glossary.begin(), options.glossary.end());
  add_glossary(terms);
}

void HtmlReport::add_paragraph(const std::string& text) {
  last_was_chart_ = false;
  std::string escaped = html_escape(text);
  std::string html;
  for (char c : escaped) {
    if (c == '\n') {
      html += "<br>\n";
    } else {
      html += c;
    }
  }
  body_ += "<p>" + html + "</p>\n";
}

void HtmlReport::add_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows,
                           const std::vector<std::string>& glossary) {
  if (header.empty()) fail("table header is empty (expected at least one column)");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != header.size())
      fail("table row {} has {} cells, expected {} (the header's)", r + 1, rows[r].size(),
           header.size());
  }
  last_was_chart_ = false;
  auto shown = rows;
  unify_number_columns(shown, 1);
  std::vector<std::string> texts(header);  // where the glossary looks for terms
  std::string html = "<div class=\"table-block\">\n<table>\n<thead><tr>";
  for (const auto& h : header) html += header_html(h);
  html += "</tr></thead>\n<tbody>\n";
  for (const auto& row : shown) {
    html += "<tr>";
    for (const auto& cell : row) {
      html += cell_html(cell);
      if (!is_numeric_text(cell)) texts.push_back(cell);
    }
    html += "</tr>\n";
  }
  html += "</tbody>\n</table>\n</div>\n";
  body_ += html;
  auto terms = glossary_terms_in(texts);
  terms.insert(terms.end(), glossary.begin(), glossary.end());
  add_glossary(terms);
}

void HtmlReport::add_chart(const std::string& title, const Json& spec) {
  add_chart(title, spec, "");
}

void HtmlReport::add_chart(const std::string& title, const Json& spec, const std::string& caption) {
  if (!spec.is_object()) fail("chart spec must be a JSON object (found {})", spec.type_name());
  Json titled = spec;
  if (!title.empty()) titled["title"] = title;  // one title, drawn by the chart itself
  const std::size_t i = chart_specs_.size();
  // Consecutive charts share one flex row, so they sit side by side on wide screens.
  static const std::string open = "<div class=\"charts\">\n";
  static const std::string close = "</div>\n";
  if (last_was_chart_) {
    body_.resize(body_.size() - close.size());
  } else {
    body_ += open;
  }
  body_ += fmt::format(
      "<figure class=\"chart\" role=\"img\" aria-label=\"{0}\"><div id=\"assay-chart-{1}\" "
      "data-title=\"{0}\"></div>{2}</figure>\n",
      html_escape(title.empty() && spec.contains("title") && spec["title"].is_string()
                      ? spec["title"].get<std::string>()
                      : title),
      i, caption.empty() ? "" : "<figcaption>" + html_escape(caption) + "</figcaption>");
  body_ += close;
  chart_specs_.push_back(std::move(titled));
  last_was_chart_ = true;
}

void HtmlReport::add_json(const std::string& title, const Json& value) {
  last_was_chart_ = false;
  body_ +=
      fmt::format("<details><summary>{}</summary><pre>{}</pre></details>\n", html_escape(title),
                  html_escape(value.dump(2, ' ', false, Json::error_handler_t::replace)));
}

std::string HtmlReport::render() const {
  std::string versions;
  std::string scripts;
  for (const auto& file : chart_library()) {
    if (!versions.empty()) versions += ", ";
    versions += fmt::format("{} {}", file.package, file.version);
    scripts += "<script>";
    scripts += file.code;
    scripts += "</script>\n";
  }
  Json specs = Json::array();
  for (const auto& spec : chart_specs_) specs.push_back(spec);

  std::string page;
  page.reserve(scripts.size() + body_.size() + 16384);
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += fmt::format("<meta name=\"generator\" content=\"assay; {}\">\n", html_escape(versions));
  page += "<title>" + html_escape(title_) + "</title>\n";
  page += "<style>" + std::string(kStyle) + "</style>\n";
  page += "<script>" + std::string(kStatusScript) + "</script>\n";
  page += scripts;
  page += "</head>\n<body data-assay-render=\"pending\">\n<main>\n";
  page += "<h1>" + html_escape(title_) + "</h1>\n";
  page += "<div id=\"assay-errors\" role=\"alert\" hidden></div>\n";
  page += body_;
  page += fmt::format(
      "<footer>Generated by assay. Charts drawn with {} (inlined in this file; it needs no "
      "network).</footer>\n",
      html_escape(versions));
  page += "</main>\n<script type=\"application/json\" id=\"assay-specs\">" + script_json(specs) +
          "</script>\n";
  page += "<script>" + std::string(kRenderScript) + "</script>\n</body>\n</html>\n";
  return page;
}

void HtmlReport::write(const std::string& path) const {
  write_file_atomic(path, render());
}

}  // namespace assay::report
