#include "assay/core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace assay {

int hardware_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

int resolve_threads(int requested, std::size_t n_tasks) {
  int t = requested > 0 ? requested : hardware_threads();
  if (n_tasks < static_cast<std::size_t>(t))
    t = static_cast<int>(std::max<std::size_t>(1, n_tasks));
  return t;
}

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& body, int threads) {
  const int t = resolve_threads(threads, n);
  if (t <= 1) {
    for (std::size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        body(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(t - 1);
  for (int k = 1; k < t; ++k) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace assay
