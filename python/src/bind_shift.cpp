// Placeholder: the shift bindings replace this file.
#include "bindings.hpp"
namespace assay::python {
void bind_shift(py::module_&) {}
}  // namespace assay::python
