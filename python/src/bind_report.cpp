#include "bindings.hpp"

namespace assay::python {

void bind_report(py::module_& /*m*/) {}

}  // namespace assay::python
