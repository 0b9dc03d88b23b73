// Placeholder: the soak split bindings replace this file.
#include "bindings.hpp"
namespace assay::python {
void bind_soak_splits(py::module_&) {}
}  // namespace assay::python
