// The compiled half of the Python package: `assay._assay`.
#include <Python.h>

#include "assay/core/error.hpp"
#include "assay/core/version.hpp"
#include "assay/core/warning.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {
PyObject* g_warning_category = nullptr;
PyObject* g_undefined_metric_category = nullptr;
}  // namespace
}  // namespace assay::python

PYBIND11_MODULE(_assay, m) {
  using namespace assay::python;
  m.doc() = "assay: compiled core (use the `assay` package, not this module directly)";
  m.attr("__version__") = std::string(assay::version());

  // assay::Error -> assay.AssayError, a ValueError, so code that catches scikit-learn's
  // ValueErrors keeps working.
  static py::exception<assay::Error> error_type(m, "AssayError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const assay::Error& e) {
      PyErr_SetString(error_type.ptr(), e.what());
    }
  });

  g_warning_category = PyErr_NewException("assay.AssayWarning", PyExc_UserWarning, nullptr);
  m.attr("AssayWarning") = py::handle(g_warning_category);
  // scikit-learn's name for "this metric is ill-defined here": code that filters or expects it
  // by name keeps working, and it is still an AssayWarning.
  g_undefined_metric_category =
      PyErr_NewException("assay.metrics.UndefinedMetricWarning", g_warning_category, nullptr);
  m.attr("UndefinedMetricWarning") = py::handle(g_undefined_metric_category);
  assay::set_warning_handler([](const std::string& message) {
    py::gil_scoped_acquire gil;
    PyObject* category = assay::current_warning_kind() == assay::WarningKind::undefined_metric
                             ? g_undefined_metric_category
                             : g_warning_category;
    if (PyErr_WarnEx(category, message.c_str(), 2) < 0) throw py::error_already_set();
  });

  bind_core(m);
  bind_ranking(m);
  bind_classification(m);
  bind_label_metrics(m);
  bind_regression(m);
  bind_uncertainty(m);
  bind_report(m);
  bind_evaluate(m);
  bind_regression_evaluation(m);
  bind_soak_splits(m);
  bind_soak_run(m);
  bind_shift(m);
  bind_count(m);
  bind_learners(m);
  bind_glmnet(m);
  bind_segmentation(m);
  bind_segment_files(m);
  bind_compare(m);
  bind_compare_statistics(m);
  bind_compare_points(m);
  bind_progress(m);
}
