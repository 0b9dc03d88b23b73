#include "assay/core/thread_pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

namespace assay {
namespace {

// set_num_threads' value; 0 = not set (the environment and the CPUs decide).
std::atomic<int> g_num_threads{0};

// A positive integer from the environment variable `name`, or 0.
int threads_from_env(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return 0;
  int value = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  // OMP_NUM_THREADS may list one count per nesting level ("4,2"): the first is ours.
  if (ec != std::errc() || (ptr != end && *ptr != ',') || value < 1) return 0;
  return value;
}

// True on the pool's own workers: a parallel_for inside a parallel_for runs on the calling
// worker (the pool is busy with the outer loop; waiting for it would deadlock).
thread_local bool t_pool_worker = false;

// Most workers the pool starts, whatever is asked (ASSAY_NUM_THREADS=100000 would otherwise start
// that many threads): a request beyond it runs on these, with the same result.
constexpr int kMostWorkers = 1023;

// One loop at a time over [0, n): the caller and up to `helpers` workers take indices from a
// shared counter. Workers are created on first need and then wait for the next loop, so a call
// costs a wake-up, not a thread creation.
class Pool {
 public:
  // False when another thread's loop is running (the caller then runs its loop alone).
  bool try_run(std::size_t n, const std::function<void(std::size_t)>& body, int helpers) {
    std::unique_lock run(run_mutex_, std::try_to_lock);
    if (!run.owns_lock()) return false;
    grow(helpers);
    {
      std::lock_guard lock(mutex_);
      body_ = &body;
      n_ = n;
      next_ = 0;
      failed_ = false;
      error_ = nullptr;
      wanted_ = helpers;
      joined_ = 0;
      ++generation_;
    }
    wake_.notify_all();
    take_indices();
    std::unique_lock lock(mutex_);
    wanted_ = joined_;  // a worker that wakes up late does not join a finished loop
    done_.wait(lock, [&] { return active_ == 0; });
    body_ = nullptr;
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  void grow(int helpers) {
    for (; workers_ < helpers; ++workers_) {
      // Workers live as long as the process; the pool is never destroyed.
      std::thread([this] { work(); }).detach();
    }
  }

  void work() {
    t_pool_worker = true;
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (joined_ >= wanted_) continue;
        ++joined_;
        ++active_;
      }
      take_indices();
      std::lock_guard lock(mutex_);
      if (--active_ == 0) done_.notify_all();
    }
  }

  // Indices in order of the shared counter; the first exception stops the loop.
  void take_indices() {
    for (;;) {
      if (failed_.load(std::memory_order_relaxed)) return;
      const std::size_t i = next_.fetch_add(1);
      if (i >= n_) return;
      try {
        (*body_)(i);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
        failed_ = true;
      }
    }
  }

  std::mutex run_mutex_;  // held by the caller of the running loop
  std::mutex mutex_;      // guards the loop's bookkeeping below
  std::condition_variable wake_, done_;
  int workers_ = 0;  // started so far
  const std::function<void(std::size_t)>* body_ = nullptr;
  std::size_t n_ = 0;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  int wanted_ = 0, joined_ = 0, active_ = 0;
  std::uint64_t generation_ = 0;
};

// The pool of this process. A child made by fork() has none of its parent's threads: it starts
// a pool of its own (the parent's object is left alone: its mutexes may have been held).
std::atomic<Pool*> g_pool{nullptr};

void forget_pool_in_child() {
  g_pool.store(nullptr);
}

Pool& pool() {
  Pool* p = g_pool.load();
  if (p != nullptr) return *p;
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, forget_pool_in_child); });
  auto* fresh = new Pool();  // never deleted: detached workers use it until the process ends
  if (g_pool.compare_exchange_strong(p, fresh)) return *fresh;
  delete fresh;  // another thread installed one first (no worker was started on ours)
  return *p;
}

}  // namespace

int hardware_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

int default_threads() {
  if (const int n = g_num_threads.load(); n > 0) return n;
  if (const int n = threads_from_env("ASSAY_NUM_THREADS"); n > 0) return n;
  if (const int n = threads_from_env("OMP_NUM_THREADS"); n > 0) return n;
  return hardware_threads();
}

void set_num_threads(int n) {
  g_num_threads.store(std::max(0, n));
}

int resolve_threads(int requested, std::size_t n_tasks) {
  int t = requested > 0 ? requested : default_threads();
  if (n_tasks < static_cast<std::size_t>(t))
    t = static_cast<int>(std::max<std::size_t>(1, n_tasks));
  return t;
}

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& body, int threads) {
  const int t = resolve_threads(threads, n);
  if (t > 1 && !t_pool_worker && pool().try_run(n, body, std::min(t - 1, kMostWorkers))) return;
  for (std::size_t i = 0; i < n; ++i) body(i);
}

}  // namespace assay
