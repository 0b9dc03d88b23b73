// Bindings for the count layer (assay.models and assay.count wrap them). Models and specs are
// opaque handles; results travel as the JSON text of report/count.hpp (exact counts as decimal
// strings, turned into Python ints by assay.count). The GIL is released while counting.
#include <optional>

#include "assay/count/counting.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"
#include "assay/report/count.hpp"
#include "bindings.hpp"

namespace assay::python {

namespace {

std::span<const double> rows(const Array<double>& x, std::size_t n_features, std::size_t& n_rows) {
  if (x.ndim() != 2) fail("X must be a 2-D array, found {} dimensions", x.ndim());
  if (static_cast<std::size_t>(x.shape(1)) != n_features) {
    fail("X has {} features, the model expects {}", x.shape(1), n_features);
  }
  n_rows = static_cast<std::size_t>(x.shape(0));
  return {x.data(), static_cast<std::size_t>(x.size())};
}

}  // namespace

void bind_count(py::module_& m) {
  using count::Model;
  using count::Spec;
  py::class_<Model, std::shared_ptr<Model>>(m, "CountModel");
  py::class_<Spec, std::shared_ptr<Spec>>(m, "CountSpec");

  m.def(
      "count_parse_model",
      [](const std::string& text, const std::string& where) {
        return std::make_shared<Model>(count::parse_model(text, where));
      },
      py::arg("text"), py::arg("where"));
  m.def(
      "count_load_model",
      [](const std::string& path) { return std::make_shared<Model>(count::load_model(path)); },
      py::arg("path"));
  m.def(
      "count_model_to_json", [](const Model& model) { return count::model_to_json(model).dump(); },
      py::arg("model"));
  m.def(
      "count_model_info",
      [](const Model& model) { return count::model_info_json(count::model_info(model)).dump(); },
      py::arg("model"));
  m.def(
      "count_predict_label",
      [](const Model& model, const Array<double>& x) {
        std::size_t n = 0;
        const auto data = rows(x, model.n_features, n);
        std::vector<std::int32_t> out(n);
        {
          py::gil_scoped_release release;
          for (std::size_t i = 0; i < n; ++i) {
            out[i] =
                count::predict_label(model, data.subspan(i * model.n_features, model.n_features));
          }
        }
        return to_numpy(std::move(out));
      },
      py::arg("model"), py::arg("X"));
  m.def(
      "count_predict_scores",
      [](const Model& model, const Array<double>& x) {
        std::size_t n = 0;
        const auto data = rows(x, model.n_features, n);
        std::vector<double> out;
        std::size_t width = 0;
        {
          py::gil_scoped_release release;
          for (std::size_t i = 0; i < n; ++i) {
            const auto s =
                count::predict_scores(model, data.subspan(i * model.n_features, model.n_features));
            width = s.size();
            out.insert(out.end(), s.begin(), s.end());
          }
        }
        if (n == 0) width = model.n_outputs;
        return to_numpy_2d(std::move(out), n, width);
      },
      py::arg("model"), py::arg("X"));

  m.def(
      "count_parse_spec",
      [](const std::string& text, const std::string& file) {
        return std::make_shared<Spec>(count::parse_spec(text, file));
      },
      py::arg("text"), py::arg("file"));
  m.def(
      "count_load_spec",
      [](const std::string& path) { return std::make_shared<Spec>(count::load_spec(path)); },
      py::arg("path"));
  m.def(
      "count_spec_inputs",
      [](const Spec& spec) {
        std::vector<std::string> names;
        for (const auto& v : spec.domain.vars) names.push_back(v.name);
        return names;
      },
      py::arg("spec"));

  m.def(
      "count_count",
      [](const Model& model, const Spec& spec, const std::string& property,
         const std::string& method, const std::vector<std::size_t>& samples, std::uint64_t seed,
         double confidence, int threads, const std::optional<Array<double>>& x_test,
         const std::optional<Array<std::int32_t>>& y_test) {
        count::CountParams p;
        p.property = property;
        p.method = method;
        p.samples = samples;
        p.seed = seed;
        p.confidence = confidence;
        p.threads = threads;
        if (x_test.has_value() != y_test.has_value())
          fail("give both X_test and y_test, or neither");
        if (x_test) {
          std::size_t n = 0;
          const auto data = rows(*x_test, model.n_features, n);
          p.test_x.assign(data.begin(), data.end());
          const auto y = view_1d(*y_test, "y_test");
          p.test_y.assign(y.begin(), y.end());
        }
        count::CountResult r;
        {
          py::gil_scoped_release release;
          r = count::count(model, spec, p);
        }
        return report::count_json(r).dump();
      },
      py::arg("model"), py::arg("spec"), py::arg("property"), py::arg("method"), py::arg("samples"),
      py::arg("seed"), py::arg("confidence"), py::arg("threads"), py::arg("X_test"),
      py::arg("y_test"));

  m.def(
      "count_robustness",
      [](const Model& model, const Array<double>& x, double epsilon, std::int32_t label,
         const std::vector<double>& lower, const std::vector<double>& upper, double step,
         const std::vector<std::size_t>& samples, std::uint64_t seed, double confidence,
         const std::string& method, int threads) {
        const auto xv = view_1d(x, "x");
        count::RobustnessParams p;
        p.epsilon = epsilon;
        p.label = label;
        p.lower = lower;
        p.upper = upper;
        p.step = step;
        p.samples = samples;
        p.seed = seed;
        p.confidence = confidence;
        p.method = method;
        p.threads = threads;
        count::RobustnessResult r;
        {
          py::gil_scoped_release release;
          r = count::robustness(model, xv, p);
        }
        return report::robustness_json(r).dump();
      },
      py::arg("model"), py::arg("x"), py::arg("epsilon"), py::arg("label"), py::arg("lower"),
      py::arg("upper"), py::arg("step"), py::arg("samples"), py::arg("seed"), py::arg("confidence"),
      py::arg("method"), py::arg("threads"));
}

}  // namespace assay::python
