// Bindings of assay/compare (filled in by the compare work).
#include "bindings.hpp"

namespace assay::python {

void bind_compare(py::module_& /*m*/) {}

}  // namespace assay::python
