// Bindings for the report layer: chart builders return Vega-Lite specs as JSON text, and
// render_html builds a whole page from a list of blocks. Series arrive as tuples of sequences
// (numpy arrays convert); a Python wrapper can json.loads the specs.
#include "assay/core/input_files.hpp"
#include "assay/core/output_file.hpp"
#include "assay/overview/config.hpp"
#include "assay/overview/overview.hpp"
#include "assay/report/charts.hpp"
#include "assay/report/html.hpp"
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

// A configuration dict as JSON, keeping NaN and infinity (JSON text cannot hold them) so that the
// schema reports them at their key. The Python wrapper has already turned numpy scalars and
// arrays, tuples and paths into plain values; anything else is refused with its key path.
Json config_json(const py::handle& value, const std::string& path) {
  const std::string where = path.empty() ? "config" : "config: " + path;
  if (py::isinstance<py::dict>(value)) {
    Json out = Json::object();
    for (const auto& [key, child] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key))
        fail("{}: expected string keys, found the key {}", where,
             quote_found(py::str(py::repr(key)).cast<std::string>()));
      const auto name = key.cast<std::string>();
      out[name] = config_json(child, path.empty() ? name : path + "." + name);
    }
    return out;
  }
  if (py::isinstance<py::list>(value)) {
    Json out = Json::array();
    const auto list = value.cast<py::list>();
    for (std::size_t i = 0; i < list.size(); ++i)
      out.push_back(config_json(list[i], path + "[" + std::to_string(i) + "]"));
    return out;
  }
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) {
    try {
      return value.cast<std::int64_t>();
    } catch (const py::cast_error&) {
      return value.cast<double>();  // beyond int64: the schema reports it as out of range
    }
  }
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  fail("{}: expected a string, number, boolean, list or dict, found {}", where,
       py::str(py::type::of(value).attr("__name__")).cast<std::string>());
}

}  // namespace

/// The overview report (`assay report`): `config` is a TOML file's path (str) or a dict (relative
/// paths from `base_dir`); returns {"page", "files", "document"} as JSON text, or
/// {"checked": true} with `check_only`.
std::string report_build(const py::object& config, const std::string& base_dir,
                         const std::string& out, bool check_only) {
  const InputFilesScope inputs;  // no output of the call may replace one of them
  report::ReportConfig c = py::isinstance<py::str>(config)
                               ? report::read_report_config(config.cast<std::string>())
                               : report::report_config_from_json(config_json(config, ""), base_dir);
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
  m.def("report_build", &report_build, py::arg("config"), py::arg("base_dir"), py::arg("out"),
        py::arg("check_only"));
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
