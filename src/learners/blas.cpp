#include "learners/blas.hpp"

#include <mutex>

#include "assay/learners/blas_threads.hpp"

// Declared weak so that linking against a BLAS without them still works.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" int blas_thread_shutdown_(void) __attribute__((weak));

namespace assay::learners::detail {

void single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  });
}

}  // namespace assay::learners::detail

namespace assay::learners {

void stop_blas_threads() {
  detail::single_threaded_blas();
  if (blas_thread_shutdown_ != nullptr) blas_thread_shutdown_();
}

}  // namespace assay::learners
