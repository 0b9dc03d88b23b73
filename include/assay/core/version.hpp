// The version of assay (the project's version in CMakeLists.txt), for --version, Python's
// assay.__version__ and saved models.
//
// Example:
//   std::string_view v = version();   // the project's version, e.g. "0.1.0"
#pragma once

#include <string_view>

namespace assay {

/// "MAJOR.MINOR.PATCH", e.g. "0.1.0".
std::string_view version();

}  // namespace assay
