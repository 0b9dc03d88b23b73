// core/thread_pool: resolve_threads' clamping, parallel_for visiting every index once whatever
// the thread count, the first exception reaching the caller; one set of threads reused by every
// loop, nesting, concurrent callers, fork, and the process-wide default (set_num_threads,
// ASSAY_NUM_THREADS, OMP_NUM_THREADS).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

TEST(ThreadPool, HardwareThreadsIsAtLeastOne) {
  EXPECT_GE(hardware_threads(), 1);  // the CPUs of the affinity mask, at most the machine's
  EXPECT_LE(hardware_threads(),
            static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(ThreadPool, ResolveThreadsClampsToTheTasks) {
  EXPECT_EQ(resolve_threads(8, 3), 3);
  EXPECT_EQ(resolve_threads(2, 100), 2);
  EXPECT_EQ(resolve_threads(1, 100), 1);
  EXPECT_EQ(resolve_threads(4, 0), 1);  // never fewer than one worker
  EXPECT_EQ(resolve_threads(0, 1'000'000), std::min(default_threads(), 1'000'000));
  EXPECT_EQ(resolve_threads(-3, 1'000'000), default_threads());  // <= 0: the default
  EXPECT_EQ(resolve_threads(0, 1), 1);
}

TEST(ThreadPool, EveryIndexRunsExactlyOnce) {
  for (const int threads : {1, 2, 3, 8}) {
    std::vector<std::atomic<int>> hits(1001);
    parallel_for(
        hits.size(), [&](std::size_t i) { hits[i].fetch_add(1); }, threads);
    for (std::size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].load(), 1) << i;
  }
  int calls = 0;
  parallel_for(
      0, [&](std::size_t) { ++calls; }, 4);
  EXPECT_EQ(calls, 0);
}

TEST(ThreadPool, OneThreadRunsInOrderOnTheCaller) {
  std::vector<std::size_t> order;
  const auto caller = std::this_thread::get_id();
  parallel_for(
      5,
      [&](std::size_t i) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        order.push_back(i);
      },
      1);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(ThreadPool, ResultIndependentOfThreadCount) {
  std::vector<std::uint64_t> one(1000), many(1000);
  parallel_for(
      one.size(), [&](std::size_t i) { one[i] = Rng(1).split(i).next(); }, 1);
  parallel_for(
      many.size(), [&](std::size_t i) { many[i] = Rng(1).split(i).next(); }, 8);
  EXPECT_EQ(one, many);
}

TEST(ThreadPool, ExceptionReachesCaller) {
  EXPECT_THROW_MSG(parallel_for(
                       100,
                       [](std::size_t i) {
                         if (i == 37) fail("task {} failed", i);
                       },
                       4),
                   Error, "task 37 failed");
  // With one thread the loop stops at the failing index.
  std::size_t last = 0;
  EXPECT_THROW(parallel_for(
                   10,
                   [&](std::size_t i) {
                     last = i;
                     if (i == 3) fail("stop");
                   },
                   1),
               Error);
  EXPECT_EQ(last, 3u);
}

std::size_t threads_of_this_process() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

std::vector<std::uint64_t> squares(std::size_t n, int threads) {
  std::vector<std::uint64_t> out(n);
  parallel_for(
      n, [&](std::size_t i) { out[i] = std::uint64_t{i} * i; }, threads);
  return out;
}

TEST(ThreadPool, SameResultAtEveryThreadCount) {
  const auto one = squares(10007, 1);
  for (int t : {2, 3, 8, 0}) EXPECT_EQ(squares(10007, t), one) << t;
  EXPECT_EQ(one[10006], 10006u * 10006u);
}

TEST(ThreadPool, LoopsReuseTheSameThreads) {
  squares(64, 4);  // creates the pool's workers
  const std::size_t before = threads_of_this_process();
  for (int k = 0; k < 2000; ++k) squares(64, 4);
  EXPECT_EQ(threads_of_this_process(), before);
}

TEST(ThreadPool, FirstExceptionReachesTheCallerAndThePoolStaysUsable) {
  std::atomic<int> calls{0};
  EXPECT_THROW(parallel_for(
                   1000,
                   [&](std::size_t i) {
                     ++calls;
                     if (i == 10) throw std::runtime_error("boom");
                   },
                   4),
               std::runtime_error);
  EXPECT_LE(calls.load(), 1000);
  EXPECT_EQ(squares(100, 4), squares(100, 1));
}

TEST(ThreadPool, NestedLoopsRunOnTheirCallingThread) {
  std::vector<std::uint64_t> sums(16);
  parallel_for(
      sums.size(),
      [&](std::size_t i) {
        const auto inner = squares(100 + i, 4);
        sums[i] = std::accumulate(inner.begin(), inner.end(), std::uint64_t{0});
      },
      4);
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const std::uint64_t m = 100 + i;  // sum of k^2 for k < m
    EXPECT_EQ(sums[i], (m - 1) * m * (2 * m - 1) / 6) << i;
  }
}

TEST(ThreadPool, ConcurrentCallersEachGetTheirResult) {
  const auto want = squares(5000, 1);
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int k = 0; k < 50; ++k) {
        if (squares(5000, 3) != want) ++wrong;
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ThreadPool, AForkedChildStartsItsOwnPool) {
  squares(100, 4);  // the parent's pool exists
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a child waiting for its parent's workers would hang: fail instead
    _exit(squares(1000, 4) == squares(1000, 1) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child did not exit (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ThreadPool, AHugeRequestStartsAtMost1023Workers) {
  squares(10, 2);
  const std::size_t before = threads_of_this_process();
  EXPECT_EQ(squares(100000, 100000), squares(100000, 1));
  EXPECT_LE(threads_of_this_process(), before + 1023);
}

TEST(ThreadPool, DefaultComesFromSetNumThreadsThenTheEnvironment) {
  unsetenv("ASSAY_NUM_THREADS");
  unsetenv("OMP_NUM_THREADS");
  set_num_threads(0);
  EXPECT_EQ(default_threads(), hardware_threads());
  setenv("OMP_NUM_THREADS", "3,2", 1);  // one count per nesting level: the first is ours
  EXPECT_EQ(default_threads(), 3);
  setenv("ASSAY_NUM_THREADS", "5", 1);
  EXPECT_EQ(default_threads(), 5);
  setenv("ASSAY_NUM_THREADS", "lots", 1);  // not a count: ignored
  EXPECT_EQ(default_threads(), 3);
  set_num_threads(7);
  EXPECT_EQ(default_threads(), 7);
  EXPECT_EQ(resolve_threads(0, 100), 7);
  EXPECT_EQ(resolve_threads(0, 2), 2);
  EXPECT_EQ(resolve_threads(4, 100), 4);  // an explicit request wins
  set_num_threads(0);
  unsetenv("ASSAY_NUM_THREADS");
  unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(default_threads(), hardware_threads());
}

}  // namespace
}  // namespace assay
