// assay.metrics.evaluate(..., task="regression"): the Python twin of `assay metrics --task
// regression` (same library entry point, metrics::evaluate_regression), and the task choice of
// evaluate (metrics::parse_metrics_task, the auto-detection rule).
#include "assay/core/table.hpp"
#include "assay/metrics/regression_evaluation.hpp"
#include "assay/report/regression.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

/// The one place where Python's options become metrics::RegressionParams (the CLI's names).
metrics::RegressionParams regression_params(const py::dict& options) {
  metrics::RegressionParams params;
  for (const auto& [key, value] : options) {
    const auto name = key.cast<std::string>();
    if (!set_bootstrap_option(params.bootstrap, name, value))
      ASSAY_ASSERT(false && "unknown regression option");
  }
  return params;
}

std::vector<double> copy_1d(const Array<double>& a, const char* what) {
  const auto v = view_1d(a, what);
  return {v.begin(), v.end()};
}

}  // namespace

void bind_regression_evaluation(py::module_& m) {
  // The task evaluate() runs: "auto" checks y_true by the detection rule and gives
  // "classification"; a regression target is refused with the message naming task="regression".
  m.def(
      "_metrics_task",
      [](const std::string& task, const py::array& y_true) -> std::string {
        const auto parsed = metrics::parse_metrics_task(task, "task");
        if (parsed == metrics::MetricsTask::regression) return "regression";
        if (parsed == metrics::MetricsTask::automatic && y_true.size() > 0) {
          Table table;
          table.add_column(array_column(y_true, "y_true"));
          metrics::classification_target_check(table, "y_true");
        }
        return "classification";
      },
      py::arg("task"), py::arg("y_true"));

  m.def(
      "_evaluate_regression",
      [](const Array<double>& y_true, const std::vector<std::string>& names,
         const std::vector<Array<double>>& predictions, const Array<double>& sample_weight,
         const std::string& target, const py::dict& options, const std::string& html,
         const std::string& title) {
        const auto params = regression_params(options);
        metrics::RegressionInput input;
        input.target = target;
        input.y_true = copy_1d(y_true, "y_true");
        for (std::size_t k = 0; k < names.size(); ++k) {
          input.models.push_back({names[k], copy_1d(predictions[k], "y_pred")});
        }
        input.weights = copy_1d(sample_weight, "sample_weight");
        std::string json;
        {
          const WithoutGil without_gil;
          const auto evaluation = metrics::evaluate_regression(std::move(input), params);
          json = report::regression_json(evaluation).dump();
          if (!html.empty()) {
            report::regression_html(evaluation,
                                    title.empty() ? "Regression evaluation: " + target : title)
                .write(html);
          }
        }
        return json;
      },
      py::arg("y_true"), py::arg("names"), py::arg("predictions"), py::arg("sample_weight"),
      py::arg("target"), py::arg("options"), py::arg("html"), py::arg("title") = "");
}

}  // namespace assay::python
