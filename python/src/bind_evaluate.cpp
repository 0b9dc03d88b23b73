// assay.metrics.evaluate: the Python twin of `assay metrics` (same library entry point, same
// label encoding: the labels become the columns of an in-memory table that
// metrics::evaluation_input encodes exactly as it encodes a CSV file's columns).
#include <fmt/format.h>

#include <variant>

#include "assay/core/table.hpp"
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/uncertainty.hpp"
#include "assay/report/evaluation.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

/// The classes and codes of y_true (and y_pred), encoded by the library's CSV rules.
metrics::EvaluationInput encoded_labels(const py::array& y_true,
                                        const std::optional<py::array>& y_pred) {
  Table table;
  table.add_column(array_column(y_true, "y_true"));
  metrics::EvaluateColumns columns;
  columns.label = "y_true";
  if (y_pred) {
    Column pred = array_column(*y_pred, "y_pred");
    if (pred.size() != table.n_rows()) {
      fail("y_true and y_pred differ in length ({} vs {})", table.n_rows(), pred.size());
    }
    table.add_column(std::move(pred));
    columns.pred = "y_pred";
  }
  // No samples: evaluate() says so (the table would name a file it does not have).
  if (table.n_rows() == 0) return {};
  return metrics::evaluation_input(table, columns);
}

/// The y_score matrix (n x K, or 1-D for one column) into the input, checked against y_true.
void add_scores(metrics::EvaluationInput& input, const Array<double>& scores) {
  if (scores.ndim() == 2) {
    input.n_score_columns = static_cast<std::size_t>(scores.shape(1));
  } else if (scores.ndim() == 1) {
    input.n_score_columns = scores.size() ? 1 : 0;
  } else {
    fail("y_score must be 1-D or 2-D, found {} dimensions", scores.ndim());
  }
  input.scores.assign(scores.data(), scores.data() + scores.size());
  const std::size_t n = input.y_true.size();
  if (input.n_score_columns && input.scores.size() / input.n_score_columns != n) {
    fail("y_true and y_score differ in length ({} vs {})", n,
         input.scores.size() / input.n_score_columns);
  }
}

/// The one place where Python's options become metrics::EvaluateParams: every key of
/// assay.metrics.evaluate's parameter dict, by the names of `assay metrics`' options.
metrics::EvaluateParams evaluate_params(const py::dict& options) {
  metrics::EvaluateParams params;
  for (const auto& [key, value] : options) {
    const auto name = key.cast<std::string>();
    if (set_bootstrap_option(params.bootstrap, name, value)) continue;
    if (name == "threshold") {
      params.threshold = value.cast<double>();
    } else if (name == "pos_label") {
      params.pos_label = label_name(value);
    } else if (name == "ap_method") {
      params.ap.method = metrics::parse_ap_method(value.cast<std::string>());
    } else if (name == "ap_grid") {
      params.ap.grid = metrics::parse_ap_grid(value.cast<std::string>());
    } else if (name == "bins") {
      params.calibration.bins = value.cast<std::int32_t>();
    } else if (name == "bin_strategy") {
      params.calibration.strategy = metrics::parse_bin_strategy(value.cast<std::string>());
    } else if (name == "max_classes") {
      params.max_classes = value.cast<std::size_t>();
    } else {
      ASSAY_ASSERT(false && "unknown evaluate option");
    }
  }
  return params;
}

}  // namespace

bool set_bootstrap_option(metrics::BootstrapParams& params, const std::string& name,
                          const py::handle& value) {
  if (name == "n_bootstrap") {
    params.n_resamples = value.cast<std::size_t>();
  } else if (name == "confidence") {
    params.confidence = value.cast<double>();
  } else if (name == "seed") {
    params.seed = value.cast<std::uint64_t>();
  } else if (name == "threads") {
    params.threads = value.cast<int>();
  } else {
    return false;
  }
  return true;
}

Column array_column(const py::array& values, const std::string& name) {
  if (values.ndim() != 1) {
    fail("{} must be a 1-D array, found {} dimensions", name, values.ndim());
  }
  const char kind = values.dtype().kind();
  if (kind == 'i' || kind == 'u' || kind == 'f') {
    const auto converted = values.cast<Array<double>>();  // alive while viewed
    const auto numbers = view_1d(converted, name.c_str());
    return Column::numeric(name, {numbers.begin(), numbers.end()});
  }
  return Column::categorical(
      name, values.attr("astype")("str").attr("tolist")().cast<std::vector<std::string>>());
}

std::string label_name(const py::handle& value) {
  const auto label = value.cast<std::variant<std::string, double>>();
  if (const auto* text = std::get_if<std::string>(&label)) return *text;
  return fmt::format("{}", std::get<double>(label));
}

void bind_evaluate(py::module_& m) {
  m.def(
      "_check_pos_label",
      [](const std::string& name, const std::string& label) {
        metrics::check_pos_label(name, label);
      },
      py::arg("name"), py::arg("label"), "The CLI's --pos-label rule: no empty class label.");
  m.def(
      "_evaluate",
      [](const py::array& y_true, const Array<double>& y_score,
         const std::optional<py::array>& y_pred, const Array<double>& sample_weight,
         const py::dict& options, const std::string& html, const std::string& title,
         const std::string& model) {
        const auto params = evaluate_params(options);
        auto input = encoded_labels(y_true, y_pred);
        add_scores(input, y_score);
        auto w = view_1d(sample_weight, "sample_weight");
        input.weights.assign(w.begin(), w.end());
        std::string json;
        {
          const WithoutGil without_gil;
          const auto evaluation = metrics::evaluate(std::move(input), params);
          json = report::evaluation_json(evaluation).dump();
          if (!html.empty()) report::evaluation_html(evaluation, title, model).write(html);
        }
        return json;
      },
      py::arg("y_true"), py::arg("y_score"), py::arg("y_pred"), py::arg("sample_weight"),
      py::arg("options"), py::arg("html"), py::arg("title"), py::arg("model"));

  m.def(
      "_runs_html",
      [](const Array<double>& values, const Array<double>& by, const std::string& x_title,
         const std::string& y_title, bool log_x, const std::string& path) {
        const auto runs = metrics::summarize_runs_by(view_1d(values, "values"), view_1d(by, "by"));
        report::runs_html(runs, x_title, y_title, log_x, "assay runs").write(path);
      },
      py::arg("values"), py::arg("by"), py::arg("x_title"), py::arg("y_title"), py::arg("log_x"),
      py::arg("path"));
}

}  // namespace assay::python
