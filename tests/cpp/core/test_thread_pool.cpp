// core/thread_pool: resolve_threads' clamping, parallel_for visiting every index once whatever
// the thread count, and the first exception reaching the caller.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/thread_pool.hpp"
#include "test_util.hpp"

namespace assay {
namespace {

TEST(ThreadPool, HardwareThreadsIsAtLeastOne) {
  EXPECT_GE(hardware_threads(), 1);
  EXPECT_EQ(hardware_threads(),
            static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(ThreadPool, ResolveThreadsClampsToTheTasks) {
  EXPECT_EQ(resolve_threads(8, 3), 3);
  EXPECT_EQ(resolve_threads(2, 100), 2);
  EXPECT_EQ(resolve_threads(1, 100), 1);
  EXPECT_EQ(resolve_threads(4, 0), 1);  // never fewer than one worker
  EXPECT_EQ(resolve_threads(0, 1'000'000), std::min(hardware_threads(), 1'000'000));
  EXPECT_EQ(resolve_threads(-3, 1'000'000), hardware_threads());  // <= 0: all cores
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

}  // namespace
}  // namespace assay
