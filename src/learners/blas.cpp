#include "learners/blas.hpp"

#include <mutex>

// Declared weak so that linking against a BLAS without it still works.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace assay::learners::detail {

void single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  });
}

}  // namespace assay::learners::detail
