// Placeholder until the learner bindings land.
#include "bindings.hpp"

namespace assay::python {

void bind_learners(py::module_&) {}

}  // namespace assay::python
