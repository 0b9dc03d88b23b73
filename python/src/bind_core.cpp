#include "bindings.hpp"

namespace assay::python {

void bind_core(py::module_& /*m*/) {}

}  // namespace assay::python
