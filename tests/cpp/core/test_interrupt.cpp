// core/interrupt: a scope clears earlier requests and its own at its end; request_interrupt()
// is seen from every thread; the scope's poll runs on its own thread only, at most every 50 ms;
// nested scopes restore the outer one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "assay/core/interrupt.hpp"

namespace assay {
namespace {

TEST(Interrupt, ScopesClearRequestsAndEveryThreadSeesOne) {
  request_interrupt();
  {
    const InterruptScope scope;
    EXPECT_FALSE(interrupt_requested());  // an earlier Ctrl-C does not stop the next count
    std::thread([] { request_interrupt(); }).join();
    EXPECT_TRUE(interrupt_requested());
    bool seen_by_worker = false;
    std::thread([&] { seen_by_worker = interrupt_requested(); }).join();
    EXPECT_TRUE(seen_by_worker);
    EXPECT_THROW(throw_if_interrupted(), Interrupted);
  }
  EXPECT_FALSE(interrupt_requested());
  EXPECT_NO_THROW(throw_if_interrupted());
}

TEST(Interrupt, ThePollRunsOnTheScopesThreadAtMostEvery50Ms) {
  std::atomic<int> polls{0};
  std::atomic<bool> answer{false};
  const InterruptScope scope([&] {
    ++polls;
    return answer.load();
  });
  EXPECT_FALSE(interrupt_requested());  // too soon after the scope opened
  EXPECT_EQ(polls, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  std::thread([] { EXPECT_FALSE(interrupt_requested()); }).join();  // another thread: no poll
  EXPECT_EQ(polls, 0);
  EXPECT_FALSE(interrupt_requested());
  EXPECT_EQ(polls, 1);
  EXPECT_FALSE(interrupt_requested());  // within 50 ms of the last poll
  EXPECT_EQ(polls, 1);
  answer = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_TRUE(interrupt_requested());
  EXPECT_EQ(polls, 2);
  EXPECT_TRUE(interrupt_requested());  // stays requested without polling again
  EXPECT_EQ(polls, 2);
}

TEST(Interrupt, NestedScopesRestoreTheOuterPoll) {
  int outer_polls = 0;
  const InterruptScope outer([&] {
    ++outer_polls;
    return false;
  });
  {
    const InterruptScope inner([] { return true; });
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    EXPECT_TRUE(interrupt_requested());
  }
  EXPECT_FALSE(interrupt_requested());  // the inner request ended with its scope
  EXPECT_EQ(outer_polls, 1);            // and the outer scope polls again
}

}  // namespace
}  // namespace assay
