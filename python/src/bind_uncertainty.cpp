#include "bindings.hpp"

namespace assay::python {

void bind_uncertainty(py::module_& /*m*/) {}

}  // namespace assay::python
