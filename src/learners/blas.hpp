// BLAS inside assay's own thread pool: matrix products run on the calling worker only, so a
// learner on each of 8 workers does not start 8 OpenBLAS threads each (oversubscription) and
// results do not depend on BLAS's own threading.
#pragma once

namespace assay::learners::detail {

/// Makes OpenBLAS single-threaded (once per process); a no-op for other BLAS libraries. Call
/// before the first BLAS-backed product.
void single_threaded_blas();

}  // namespace assay::learners::detail
