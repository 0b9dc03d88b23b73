// Bindings for the report layer: chart builders return Vega-Lite specs as JSON text, and
// render_html builds a whole page from a list of blocks. Series arrive as tuples of sequences
// (numpy arrays convert); a Python wrapper can json.loads the specs.
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"
#include "assay/report/charts.hpp"
#include "assay/report/config.hpp"
#include "assay/report/html.hpp"
#include "assay/report/overview.hpp"
#include "bindings.hpp"

namespace assay::python {

namespace {

using Column = std::vector<double>;

report::ChartParams chart_params(const std::string& title, int width, int height) {
  report::ChartParams p;
  p.title = title;
  p.width = width;
  p.height = height;
  return p;
}

Json parse_json(const std::string& text, const char* what) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    fail("{} is not valid JSON: {}", what, e.what());
  }
}

/// blocks: ("heading", text[, level]) | ("paragraph", text) | ("table", header, rows) |
/// ("chart", title, spec_json) | ("json", title, json).
std::string render_html(const std::string& title, const py::list& blocks) {
  report::HtmlReport page(title);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto block = blocks[i].cast<py::tuple>();
    if (block.empty()) fail("block {} is empty (expected a tuple starting with its kind)", i);
    const auto kind = block[0].cast<std::string>();
    const auto need = [&](std::size_t lo, std::size_t hi) {
      if (block.size() < lo || block.size() > hi)
        fail("block {} ({}) has {} items, expected {}", i, kind, block.size(),
             lo == hi ? fmt::format("{}", lo) : fmt::format("{} to {}", lo, hi));
    };
    if (kind == "heading") {
      need(2, 3);
      page.add_heading(block[1].cast<std::string>(), block.size() > 2 ? block[2].cast<int>() : 2);
    } else if (kind == "paragraph") {
      need(2, 2);
      page.add_paragraph(block[1].cast<std::string>());
    } else if (kind == "table") {
      need(3, 3);
      page.add_table(block[1].cast<std::vector<std::string>>(),
                     block[2].cast<std::vector<std::vector<std::string>>>());
    } else if (kind == "chart") {
      need(3, 3);
      page.add_chart(block[1].cast<std::string>(),
                     parse_json(block[2].cast<std::string>(), "chart spec"));
    } else if (kind == "json") {
      need(3, 3);
      page.add_json(block[1].cast<std::string>(),
                    parse_json(block[2].cast<std::string>(), "json block"));
    } else {
      fail("block {}: unknown kind {} (expected heading, paragraph, table, chart or json)", i,
           quote_found(kind));
    }
  }
  return page.render();
}

}  // namespace

/// The overview report (`assay report`): `config` is a TOML file's path (is_path) or a JSON
/// object's text (relative paths from `base_dir`); returns {"page", "files", "document"} as JSON
/// text, or {"checked": true} with `check_only`.
std::string report_build(const std::string& config, bool is_path, const std::string& base_dir,
                         const std::string& out, bool check_only) {
  const InputFilesScope inputs;  // no output of the call may replace one of them
  report::ReportConfig c = is_path ? report::read_report_config(config)
                                   : report::report_config_from_json(
                                         parse_json(config, "report configuration"), base_dir);
  if (!out.empty()) c.out = out;
  Json result;
  {
    const WithoutGil without_gil;
    check_writable(c.out, "out");
    const report::PreparedOverview prepared = report::prepare_overview(c);
    report::check_overview_outputs(c.out, "out");
    if (check_only) return Json{{"checked", true}, {"page", c.out}}.dump();
    const report::Overview overview = report::run_overview(prepared);
    const auto files = report::write_overview(overview, c.out);
    result = {{"page", c.out}, {"files", files}, {"document", overview.document}};
  }
  return result.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void bind_report(py::module_& m) {
  m.def("report_build", &report_build, py::arg("config"), py::arg("is_path"), py::arg("base_dir"),
        py::arg("out"), py::arg("check_only"));
  m.def(
      "pr_curve_chart",
      [](const std::vector<std::tuple<std::string, Column, Column, Column, double>>& series,
         const std::string& title, int width, int height) {
        std::vector<report::PrSeries> s;
        for (const auto& [name, recall, precision, interpolated, ap] : series)
          s.push_back({name, recall, precision, interpolated, ap});
        return report::pr_curve_chart(s, chart_params(title, width, height)).dump();
      },
      py::arg("series"), py::arg("title") = "", py::arg("width") = 400, py::arg("height") = 300,
      "series: [(name, recall, precision, interpolated_precision or [], AP or nan)] -> spec JSON.");
  m.def(
      "roc_curve_chart",
      [](const std::vector<std::tuple<std::string, Column, Column, double>>& series,
         const std::string& title, int width, int height) {
        std::vector<report::RocSeries> s;
        for (const auto& [name, fpr, tpr, auc] : series) s.push_back({name, fpr, tpr, auc});
        return report::roc_curve_chart(s, chart_params(title, width, height)).dump();
      },
      py::arg("series"), py::arg("title") = "", py::arg("width") = 400, py::arg("height") = 300,
      "series: [(name, fpr, tpr, AUC or nan)] -> spec JSON.");
  m.def(
      "confusion_matrix_chart",
      [](const Column& matrix, const std::vector<std::string>& row_labels,
         const std::vector<std::string>& col_labels, bool normalized, const std::string& title,
         int width, int height) {
        return report::confusion_matrix_chart(matrix, row_labels, col_labels, normalized,
                                              chart_params(title, width, height))
            .dump();
      },
      py::arg("matrix"), py::arg("row_labels"), py::arg("col_labels"),
      py::arg("normalized") = false, py::arg("title") = "", py::arg("width") = 400,
      py::arg("height") = 300, "matrix: row-major values (rows = actual) -> spec JSON.");
  m.def(
      "reliability_chart",
      [](Column lower, Column upper, Column count, Column accuracy, Column confidence,
         const std::string& title, int width, int height) {
        report::ReliabilityBins bins{std::move(lower), std::move(upper), std::move(count),
                                     std::move(accuracy), std::move(confidence)};
        return report::reliability_chart(bins, chart_params(title, width, height)).dump();
      },
      py::arg("lower"), py::arg("upper"), py::arg("count"), py::arg("accuracy"),
      py::arg("confidence"), py::arg("title") = "", py::arg("width") = 400, py::arg("height") = 300,
      "Reliability diagram from per-bin columns -> spec JSON.");
  m.def(
      "trend_chart",
      [](const std::vector<std::tuple<std::string, Column, Column, Column>>& series,
         const std::string& x_title, const std::string& y_title, bool log_x,
         const std::string& title, int width, int height) {
        std::vector<report::TrendSeries> s;
        for (const auto& [name, x, mean, sd] : series) s.push_back({name, x, mean, sd});
        return report::trend_chart(s, x_title, y_title, log_x, chart_params(title, width, height))
            .dump();
      },
      py::arg("series"), py::arg("x_title"), py::arg("y_title"), py::arg("log_x") = false,
      py::arg("title") = "", py::arg("width") = 400, py::arg("height") = 300,
      "series: [(name, x, mean, sd or [])] -> spec JSON.");
  m.def("render_html", &render_html, py::arg("title"), py::arg("blocks"),
        "A self-contained HTML page from blocks: ('heading', text[, level]), ('paragraph', "
        "text), ('table', header, rows), ('chart', title, spec_json), ('json', title, json).");
}

}  // namespace assay::python
