// Placeholder: the soak experiment bindings replace this file.
#include "bindings.hpp"
namespace assay::python {
void bind_soak_run(py::module_&) {}
}  // namespace assay::python
