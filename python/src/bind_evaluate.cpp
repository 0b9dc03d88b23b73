// assay.metrics.evaluate: the Python twin of `assay metrics` (same library entry point).
#include "assay/metrics/evaluate.hpp"
#include "assay/metrics/uncertainty.hpp"
#include "assay/report/evaluation.hpp"
#include "bindings.hpp"

namespace assay::python {

void bind_evaluate(py::module_& m) {
  m.def(
      "_evaluate",
      [](std::vector<std::string> classes, const Array<std::int32_t>& y_true,
         const Array<double>& scores, const Array<std::int32_t>& y_pred,
         const Array<double>& weights, double threshold, std::string pos_label,
         std::string ap_method, std::size_t n_bootstrap, double confidence, std::uint64_t seed,
         int threads, std::string html, std::size_t max_classes) {
        metrics::EvaluationInput input;
        input.classes = std::move(classes);
        auto yt = view_1d(y_true, "y_true");
        input.y_true.assign(yt.begin(), yt.end());
        if (scores.ndim() == 2) {
          input.n_score_columns = static_cast<std::size_t>(scores.shape(1));
        } else if (scores.ndim() == 1) {
          input.n_score_columns = scores.size() ? 1 : 0;
        } else {
          fail("y_score must be 1-D or 2-D, found {} dimensions", scores.ndim());
        }
        input.scores.assign(scores.data(), scores.data() + scores.size());
        if (input.n_score_columns && input.scores.size() / input.n_score_columns != yt.size()) {
          fail("y_true and y_score differ in length ({} vs {})", yt.size(),
               input.scores.size() / input.n_score_columns);
        }
        auto yp = view_1d(y_pred, "y_pred");
        input.y_pred.assign(yp.begin(), yp.end());
        auto w = view_1d(weights, "sample_weight");
        input.weights.assign(w.begin(), w.end());

        metrics::EvaluateParams params;
        params.threshold = threshold;
        params.pos_label = std::move(pos_label);
        params.ap.method = metrics::parse_ap_method(ap_method);
        params.bootstrap.n_resamples = n_bootstrap;
        params.bootstrap.confidence = confidence;
        params.bootstrap.seed = seed;
        params.bootstrap.threads = threads;
        params.max_classes = max_classes;
        std::string json;
        {
          py::gil_scoped_release release;
          const auto evaluation = metrics::evaluate(std::move(input), params);
          json = report::evaluation_json(evaluation).dump();
          if (!html.empty()) report::evaluation_html(evaluation, "assay evaluation").write(html);
        }
        return json;
      },
      py::arg("classes"), py::arg("y_true"), py::arg("scores"), py::arg("y_pred"),
      py::arg("weights"), py::arg("threshold"), py::arg("pos_label"), py::arg("ap_method"),
      py::arg("n_bootstrap"), py::arg("confidence"), py::arg("seed"), py::arg("threads"),
      py::arg("html"), py::arg("max_classes"));

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
