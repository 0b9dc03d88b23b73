// Placeholder until the segmentation file bindings land.
#include "bindings.hpp"

namespace assay::python {

void bind_segment_files(py::module_&) {}

}  // namespace assay::python
