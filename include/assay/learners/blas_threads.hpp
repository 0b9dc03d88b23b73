// OpenBLAS's own worker threads, for a program that runs only assay's code (the CLI).
//
// The learners call BLAS on the calling thread only (assay's thread pool does the parallel
// work, and results must not depend on thread counts). OpenBLAS, loaded with them, starts a
// worker thread per extra core when the program starts, and each spins, yielding, for ~0.1 s of
// CPU before it sleeps: in every command, whether or not it uses a learner.
//
// Example (first thing in main()):
//   stop_blas_threads();   // OpenBLAS's workers end; BLAS runs on the calling thread
#pragma once

namespace assay::learners {

/// Makes OpenBLAS single-threaded and stops the worker threads it has started; a no-op for other
/// BLAS libraries. Not for a process whose other code wants threaded BLAS (numpy in Python).
void stop_blas_threads();

}  // namespace assay::learners
