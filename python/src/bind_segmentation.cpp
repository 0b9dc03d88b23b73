// Placeholder until the segmentation bindings land.
#include "bindings.hpp"

namespace assay::python {

void bind_segmentation(py::module_&) {}

}  // namespace assay::python
