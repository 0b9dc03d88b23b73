// Placeholder until the glmnet path bindings land.
#include "bindings.hpp"

namespace assay::python {

void bind_glmnet(py::module_&) {}

}  // namespace assay::python
