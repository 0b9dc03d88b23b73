// Parallel loops whose result does not depend on the thread count.
//
// parallel_for(n, f) calls f(i) once for each i in [0, n) on up to `threads` workers (0 = all
// cores). Work is handed out by index, so as long as f(i) writes only to slot i the output is the
// same with 1 or 64 threads. The first exception thrown by any f(i) is rethrown on the caller's
// thread after all workers have stopped; remaining indices are skipped.
//
//   std::vector<double> out(n);
//   parallel_for(n, [&](std::size_t i) { out[i] = std::sqrt(double(i)); }, threads);
//   // out is the same for threads = 1, 2 or 0 (all cores)
//   resolve_threads(8, 3);   // 3: no more workers than tasks
#pragma once

#include <cstddef>
#include <functional>

namespace assay {

/// Number of hardware threads (at least 1).
int hardware_threads();

/// Resolves a user's thread request: 0 = all cores, otherwise clamped to [1, n_tasks].
int resolve_threads(int requested, std::size_t n_tasks);

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& body, int threads = 0);

}  // namespace assay
