// Parallel loops whose result does not depend on the thread count, on one pool of threads per
// process.
//
// parallel_for(n, f) calls f(i) once for each i in [0, n) on up to `threads` threads (0 = the
// process-wide default, below). Work is handed out by index, so as long as f(i) writes only to
// slot i the output is the same with 1 or 64 threads. The first exception thrown by any f(i) is
// rethrown on the caller's thread after all threads have stopped; remaining indices are skipped.
//
// Example:
//   std::vector<double> out(n);
//   parallel_for(n, [&](std::size_t i) { out[i] = std::sqrt(double(i)); }, threads);
//   // out is the same for threads = 1, 2 or 0 (the default)
//   resolve_threads(8, 3);   // 3: no more threads than tasks
//   set_num_threads(1);      // every later threads = 0 means one thread
//
// Threads: the caller works too; the other threads come from a pool created on first need and
// reused by every later loop (a call costs a wake-up, not a thread creation). One loop runs on
// the pool at a time: a loop started inside another one (or while another thread's loop holds
// the pool) runs on its calling thread, which gives the same result. After fork() the child
// starts a pool of its own. The pool starts at most 1023 workers, whatever is asked.
//
// The default (threads = 0): set_num_threads(n) if called with n > 0, else the environment
// variable ASSAY_NUM_THREADS, else OMP_NUM_THREADS (what joblib sets in its worker processes so
// that libraries do not oversubscribe the machine), else the CPUs this process may run on.
#pragma once

#include <cstddef>
#include <functional>

namespace assay {

/// The CPUs this process may run on (its affinity mask; at least 1).
int hardware_threads();

/// What threads = 0 means (see above).
int default_threads();

/// Sets the process-wide default (0 = back to the environment and the CPUs). Thread-safe.
void set_num_threads(int n);

/// Resolves a user's thread request: 0 = default_threads(); then clamped to [1, n_tasks].
int resolve_threads(int requested, std::size_t n_tasks);

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& body, int threads = 0);

}  // namespace assay
