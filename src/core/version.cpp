#include "assay/core/version.hpp"

namespace assay {

// ASSAY_VERSION is defined for this file by CMake from project(assay VERSION ...).
std::string_view version() {
  return ASSAY_VERSION;
}

}  // namespace assay
