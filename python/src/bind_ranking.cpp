#include "bindings.hpp"

namespace assay::python {

void bind_ranking(py::module_& /*m*/) {}

}  // namespace assay::python
