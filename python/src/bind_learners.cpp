// Learners from Python: _assay.learner_fit(name, params_json, X, y, ...) -> FittedModel with
// predict(X) (class probabilities or values) and description (the chosen hyper-parameters as
// JSON); a FittedModel pickles (learners::save_model). assay.learners builds its
// scikit-learn-style estimators on these.
#include <cmath>
#include <memory>

#include "assay/core/thread_pool.hpp"
#include "assay/core/version.hpp"
#include "assay/learners/learner.hpp"
#include "bindings.hpp"

namespace assay::python {

learners::Dataset dataset_from_arrays(const Array<double>& x,
                                      const std::optional<Array<std::int32_t>>& y_class,
                                      std::vector<std::string> classes,
                                      const std::optional<Array<double>>& y_value,
                                      const std::optional<Array<double>>& weights,
                                      const std::string& task, std::string name,
                                      std::optional<std::vector<std::string>> feature_names) {
  if (x.ndim() != 2) fail("X must be a 2-D array, found {} dimensions", x.ndim());
  learners::Dataset data;
  data.name = std::move(name);
  data.task = parse_task_kind(task);
  if (data.task == TaskKind::classification) {
    if (!y_class) fail("a classification task needs y_class (class codes), found None");
    data.y_class = optional_vector(y_class, "y_class");
    data.classes = std::move(classes);
  } else {
    if (!y_value) fail("a regression task needs y_value (targets), found None");
    data.y_value = optional_vector(y_value, "y_value");
  }
  data.n_rows = static_cast<std::size_t>(x.shape(0));
  data.n_features = static_cast<std::size_t>(x.shape(1));
  data.x.assign(x.data(), x.data() + x.size());
  if (feature_names) {
    data.feature_names = std::move(*feature_names);
  } else {
    for (std::size_t j = 0; j < data.n_features; ++j)
      data.feature_names.push_back(fmt::format("x{}", j));
  }
  data.weights = optional_vector(weights, "sample_weight");
  return data;
}

namespace {

// A fitted learner plus what predict needs to rebuild a Dataset for new rows.
struct FittedModel {
  std::unique_ptr<learners::Model> model;
  learners::TaskKind task = learners::TaskKind::classification;
  std::vector<std::string> classes;
  std::size_t n_features = 0;
};

FittedModel learner_fit(const std::string& name, const std::string& params_json,
                        const Array<double>& x, const std::optional<Array<std::int32_t>>& y_class,
                        std::vector<std::string> classes,
                        const std::optional<Array<double>>& y_value,
                        const std::optional<Array<double>>& weights, const std::string& task,
                        std::uint64_t seed, int threads) {
  Json params;
  try {
    params = params_json.empty() ? Json::object() : Json::parse(params_json);
  } catch (const Json::parse_error& e) {
    fail("learner parameters are not valid JSON: {}", e.what());
  }
  auto learner = learners::make_learner(name, params);
  learners::Dataset data =
      dataset_from_arrays(x, y_class, std::move(classes), y_value, weights, task, "X", {});
  FittedModel fitted;
  fitted.task = data.task;
  fitted.classes = data.classes;
  fitted.n_features = data.n_features;
  const WithoutGil without_gil;
  learners::check_dataset(data);
  if (!learner->supports(data.task)) {
    fail("learner {} does not support {}", quote_found(name), std::string(to_string(data.task)));
  }
  std::vector<std::uint32_t> rows(data.n_rows);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint32_t>(i);
  fitted.model =
      learner->fit(data, rows, {.seed = seed, .threads = resolve_threads(threads, 1 << 20)});
  return fitted;
}

py::array_t<double> fitted_predict(const FittedModel& fitted, const Array<double>& x) {
  if (x.ndim() != 2) fail("X must be a 2-D array, found {} dimensions", x.ndim());
  if (static_cast<std::size_t>(x.shape(1)) != fitted.n_features) {
    fail("X has {} features, but the model was fitted with {}", x.shape(1), fitted.n_features);
  }
  learners::Dataset data;
  data.task = fitted.task;
  data.classes = fitted.classes;
  data.n_rows = static_cast<std::size_t>(x.shape(0));
  data.n_features = fitted.n_features;
  data.x.assign(x.data(), x.data() + x.size());
  for (std::size_t i = 0; i < data.x.size(); ++i) {
    if (!std::isfinite(data.x[i])) {
      fail("X has a non-finite value at row {}, column {}: found {}", i / data.n_features,
           i % data.n_features,
           std::isnan(data.x[i]) ? std::string("NaN") : fmt::format("{}", data.x[i]));
    }
  }
  const std::size_t k = fitted.model->n_outputs();
  std::vector<double> out(data.n_rows * k);
  {
    const WithoutGil without_gil;
    std::vector<std::uint32_t> rows(data.n_rows);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint32_t>(i);
    fitted.model->predict(data, rows, out);
  }
  return to_numpy_2d(std::move(out), data.n_rows, k);
}

// Pickling: (format version, assay version, saved model bytes, task, classes, n_features). The
// version comes first so that a pickle from another format is refused with both versions named,
// whatever its layout; the bytes carry the version again for learners::load_model.
py::tuple fitted_state(const FittedModel& fitted) {
  const std::vector<std::uint8_t> bytes = learners::save_model(*fitted.model);
  return py::make_tuple(learners::kModelFormatVersion, std::string(assay::version()),
                        py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                        std::string(to_string(fitted.task)), fitted.classes, fitted.n_features);
}

FittedModel fitted_from_state(const py::tuple& state) {
  if (state.size() < 2 || !py::isinstance<py::int_>(state[0])) {
    fail(
        "expected a pickled assay FittedModel (format version first), found a tuple of {} "
        "fields",
        state.size());
  }
  const int version = state[0].cast<int>();
  const std::string by = py::str(state[1]);
  if (version != learners::kModelFormatVersion) {
    fail(
        "this model was pickled in assay learner-model format version {} (by assay {}); this "
        "assay {} reads format version {} only: refit the estimator with this assay, or "
        "unpickle it with assay {}",
        version, by, assay::version(), learners::kModelFormatVersion, by);
  }
  if (state.size() != 6) {
    fail("expected a pickled assay FittedModel of 6 fields, found {}", state.size());
  }
  const std::string bytes = state[2].cast<std::string>();
  FittedModel fitted;
  fitted.task = parse_task_kind(state[3].cast<std::string>());
  fitted.classes = state[4].cast<std::vector<std::string>>();
  fitted.n_features = state[5].cast<std::size_t>();
  fitted.model =
      learners::load_model({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
  return fitted;
}

}  // namespace

void bind_learners(py::module_& m) {
  py::class_<FittedModel>(m, "FittedModel")
      .def("predict", &fitted_predict, py::arg("x"),
           "Rows x n_outputs: class probabilities (classification) or values (regression).")
      .def_property_readonly("description",
                             [](const FittedModel& f) { return f.model->description().dump(); })
      .def_property_readonly("n_outputs", [](const FittedModel& f) { return f.model->n_outputs(); })
      .def(py::pickle(&fitted_state, &fitted_from_state));
  m.attr("MODEL_FORMAT_VERSION") = learners::kModelFormatVersion;
  m.def("learner_fit", &learner_fit, py::arg("name"), py::arg("params_json"), py::arg("x"),
        py::arg("y_class"), py::arg("classes"), py::arg("y_value"), py::arg("weights"),
        py::arg("task"), py::arg("seed"), py::arg("threads"),
        "Fits learner `name` (parameters as a JSON object string) on every row of X.");
  m.def("learner_names", &learners::learner_names, "Names of the built-in learners.");
  m.def(
      "internal_fold_ids",
      [](std::size_t n, int folds, std::uint64_t seed) {
        if (folds < 2) fail("folds must be at least 2, found {}", folds);
        return to_numpy(learners::internal_fold_ids(n, folds, seed));
      },
      py::arg("n"), py::arg("folds"), py::arg("seed"),
      "The internal CV fold ids (0..folds-1) a learner uses for n train rows and this seed.");
}

}  // namespace assay::python
