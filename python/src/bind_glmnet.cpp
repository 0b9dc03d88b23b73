// glmnet's path and internal CV from Python, for peer tests against R glmnet and benchmarks:
// _assay.glmnet_path(...) and _assay.glmnet_cv(...) return dicts of numpy arrays.
#include "assay/core/thread_pool.hpp"
#include "assay/learners/glmnet.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

learners::Dataset glmnet_dataset(const Array<double>& x, const Array<std::int32_t>& y,
                                 int n_classes, const std::optional<Array<double>>& weights) {
  if (n_classes < 2) fail("n_classes must be at least 2, found {}", n_classes);
  std::vector<std::string> classes;
  for (int c = 0; c < n_classes; ++c) classes.push_back(std::to_string(c));
  learners::Dataset data = dataset_from_arrays(x, y, std::move(classes), std::nullopt, weights,
                                               "classification", "X", {});
  learners::check_dataset(data);
  return data;
}

learners::GlmnetParams parse_params(const std::string& params_json) {
  Json params;
  try {
    params = params_json.empty() ? Json::object() : Json::parse(params_json);
  } catch (const Json::parse_error& e) {
    fail("glmnet parameters are not valid JSON: {}", e.what());
  }
  return learners::glmnet_params_from_json(params);
}

std::vector<std::uint32_t> all_rows(std::size_t n) {
  std::vector<std::uint32_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = static_cast<std::uint32_t>(i);
  return rows;
}

py::dict path_dict(learners::GlmnetPath&& path) {
  const std::size_t L = path.lambdas.size(), k = path.n_outputs, p = path.n_features;
  py::dict out;
  out["classes"] = to_numpy(std::vector<int>(path.classes));
  out["lambdas"] = to_numpy(std::move(path.lambdas));
  out["intercepts"] = to_numpy_2d(std::move(path.intercepts), L, k);
  auto* owned = new std::vector<double>(std::move(path.coefficients));
  py::capsule free_when_done(owned, [](void* q) { delete static_cast<std::vector<double>*>(q); });
  out["coefficients"] =
      py::array_t<double>({L, k, p}, {k * p * sizeof(double), p * sizeof(double), sizeof(double)},
                          owned->data(), free_when_done);
  out["dev_ratio"] = to_numpy(std::move(path.dev_ratio));
  out["nonzero"] = to_numpy(std::vector<std::size_t>(path.nonzero));
  out["null_deviance"] = path.null_deviance;
  out["passes"] = path.passes;
  out["streamed_bytes"] = path.streamed_bytes;
  return out;
}

py::dict glmnet_path(const Array<double>& x, const Array<std::int32_t>& y, int n_classes,
                     const std::optional<Array<double>>& weights, const std::string& params_json,
                     const std::optional<Array<double>>& lambdas) {
  const learners::Dataset data = glmnet_dataset(x, y, n_classes, weights);
  const learners::GlmnetParams params = parse_params(params_json);
  const std::vector<double> given = optional_vector(lambdas, "lambdas");
  learners::GlmnetPath path;
  {
    const WithoutGil without_gil;
    path = learners::glmnet_path(data, all_rows(data.n_rows), params, given);
  }
  return path_dict(std::move(path));
}

py::dict glmnet_cv(const Array<double>& x, const Array<std::int32_t>& y, int n_classes,
                   const std::optional<Array<double>>& weights, const std::string& params_json,
                   std::uint64_t seed, int threads,
                   const std::optional<Array<std::int32_t>>& fold_ids) {
  const learners::Dataset data = glmnet_dataset(x, y, n_classes, weights);
  const learners::GlmnetParams params = parse_params(params_json);
  const std::vector<std::int32_t> folds = optional_vector(fold_ids, "fold_ids");
  learners::GlmnetCv cv;
  {
    const WithoutGil without_gil;
    cv = learners::glmnet_cv(data, all_rows(data.n_rows), params, seed,
                             resolve_threads(threads, 1 << 20), folds);
  }
  py::dict out = path_dict(std::move(cv.path));
  out["fold_ids"] = to_numpy(std::move(cv.fold_ids));
  out["cv_mean"] = to_numpy(std::move(cv.cv_mean));
  out["cv_sd"] = to_numpy(std::move(cv.cv_sd));
  out["index_min"] = cv.index_min;
  out["index_1se"] = cv.index_1se;
  out["streamed_bytes_all_fits"] = cv.streamed_bytes;
  return out;
}

}  // namespace

void bind_glmnet(py::module_& m) {
  m.def("glmnet_path", &glmnet_path, py::arg("x"), py::arg("y"), py::arg("n_classes"),
        py::arg("weights") = py::none(), py::arg("params_json") = "",
        py::arg("lambdas") = py::none(),
        "glmnet's path on every row of X (class codes y): dict with classes, lambdas, "
        "intercepts (L x k), coefficients (L x k x p, original scale), dev_ratio, nonzero, "
        "null_deviance, passes, streamed_bytes. lambdas None = glmnet's generated path.");
  m.def("glmnet_cv", &glmnet_cv, py::arg("x"), py::arg("y"), py::arg("n_classes"),
        py::arg("weights") = py::none(), py::arg("params_json") = "", py::arg("seed") = 0,
        py::arg("threads") = 1, py::arg("fold_ids") = py::none(),
        "cv.glmnet: the path dict plus fold_ids (0-based), cv_mean, cv_sd, index_min, "
        "index_1se (0-based), streamed_bytes_all_fits (the K + 1 fits').");
}

}  // namespace assay::python
