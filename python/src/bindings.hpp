// Shared helpers for the pybind11 bindings: numpy arrays in, numpy arrays out, without copies
// where possible. Each binding file defines one bind_<part>(module) function (module.cpp calls
// them all). Bindings only convert arguments, fill a Params struct, call one library function and
// convert the result: no metric logic lives here.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/table.hpp"
#include "assay/learners/dataset.hpp"
#include "assay/metrics/uncertainty.hpp"
#include "assay/soak/splits.hpp"

namespace assay::python {

namespace py = pybind11;

template <typename T>
using Array = py::array_t<T, py::array::c_style | py::array::forcecast>;

/// Releases the GIL for the rest of the enclosing scope, so that other Python threads run while
/// the library computes: the one way the bindings release it. Inside that scope no Python object
/// may be touched (convert the arguments before it, the results after it); the library reports
/// warnings through assay::warn, which takes the GIL back itself.
class WithoutGil {
 public:
  WithoutGil() = default;
  WithoutGil(const WithoutGil&) = delete;
  WithoutGil& operator=(const WithoutGil&) = delete;

 private:
  py::gil_scoped_release release_;
};

/// A read-only view of a 1-D array; throws assay::Error naming `what` if it is not 1-D.
template <typename T>
std::span<const T> view_1d(const Array<T>& a, const char* what) {
  if (a.ndim() != 1) {
    fail("{} must be a 1-D array, found {} dimensions", what, a.ndim());
  }
  return {a.data(), static_cast<std::size_t>(a.shape(0))};
}

/// A copy of an optional 1-D array (empty when None).
template <typename T>
std::vector<T> optional_vector(const std::optional<Array<T>>& a, const char* what) {
  if (!a) return {};
  auto v = view_1d(*a, what);
  return {v.begin(), v.end()};
}

/// The SOAK design and split parameters from per-row codes, shared by _assay.SoakSplits and
/// _assay.soak_run (defined in bind_soak_splits.cpp).
soak::SoakDesign soak_design_from_arrays(const Array<std::int32_t>& subset,
                                         std::vector<std::string> subset_names,
                                         const std::optional<Array<std::int32_t>>& group,
                                         const std::optional<Array<std::int32_t>>& stratum,
                                         const std::optional<Array<std::int64_t>>& fold);
soak::SoakSplitParams soak_split_params(int folds, std::string subsets, int sizes, double ratio,
                                        int seeds, std::uint64_t seed);

/// A learners::Dataset from numpy arrays (defined in bind_learners.cpp): x is rows x features
/// (C order); classification takes class codes 0..len(classes)-1, regression y_value; weights may
/// be None. Feature names default to x0, x1, ... Does not run check_dataset.
learners::Dataset dataset_from_arrays(const Array<double>& x,
                                      const std::optional<Array<std::int32_t>>& y_class,
                                      std::vector<std::string> classes,
                                      const std::optional<Array<double>>& y_value,
                                      const std::optional<Array<double>>& weights,
                                      const std::string& task, std::string name,
                                      std::optional<std::vector<std::string>> feature_names);

/// Moves a vector into a numpy array without copying (the array owns the vector).
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({owned->size()}, {sizeof(T)}, owned->data(), free_when_done);
}

/// Same, as a rows x cols C-order matrix.
template <typename T>
py::array_t<T> to_numpy_2d(std::vector<T>&& values, std::size_t rows, std::size_t cols) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({rows, cols}, {cols * sizeof(T), sizeof(T)}, owned->data(), free_when_done);
}

/// The bootstrap options shared by evaluate's classification and regression twins
/// (n_bootstrap, confidence, seed, threads) set into `params`; false for any other name.
bool set_bootstrap_option(metrics::BootstrapParams& params, const std::string& name,
                          const py::handle& value);

void bind_core(py::module_& m);
void bind_ranking(py::module_& m);
void bind_classification(py::module_& m);
void bind_label_metrics(py::module_& m);
void bind_regression(py::module_& m);
void bind_uncertainty(py::module_& m);
void bind_report(py::module_& m);
void bind_evaluate(py::module_& m);
void bind_regression_evaluation(py::module_& m);
void bind_soak_splits(py::module_& m);
void bind_soak_run(py::module_& m);
void bind_shift(py::module_& m);
void bind_count(py::module_& m);
void bind_learners(py::module_& m);
void bind_glmnet(py::module_& m);
void bind_segmentation(py::module_& m);
void bind_segment_files(py::module_& m);
/// A 1-D array as the column a CSV file would give (defined in bind_evaluate.cpp): numbers stay
/// numbers, anything else becomes text (str() of each), so labels, slices and predicted classes
/// are encoded by the library's CSV rules.
Column array_column(const py::array& values, const std::string& name);

/// A class label given from Python as the library names it: text as it is, a number in its
/// shortest round-trip form (1.0 -> "1"), as the numeric labels of a column are named.
std::string label_name(const py::handle& value);

void bind_compare(py::module_& m);
void bind_compare_statistics(py::module_& m);
void bind_compare_points(py::module_& m);
void bind_progress(py::module_& m);

/// The progress of one long call. With `progress`, the library reports to whatever sink is
/// installed (the recorder that assay._progress polls and draws); without it, to none for the
/// duration of the call (the previous sink is put back after).
class ProgressScope {
 public:
  explicit ProgressScope(bool progress)
      : silenced_(!progress), previous_(silenced_ ? set_progress_sink(nullptr) : nullptr) {}
  ~ProgressScope() {
    if (silenced_) set_progress_sink(previous_);
  }
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  bool silenced_;
  std::shared_ptr<ProgressSink> previous_;
};

}  // namespace assay::python
