#include "bindings.hpp"

namespace assay::python {

void bind_classification(py::module_& /*m*/) {}

}  // namespace assay::python
