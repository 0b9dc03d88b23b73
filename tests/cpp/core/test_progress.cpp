// core/progress: Progress reports to the sink installed when it was made (none: nothing), it
// shows 0 done when made and its last update always, only the outermost live Progress reaches
// the sink (nested ones advance it when it counts them), counts are clamped to the total, finish()
// reaches the sink exactly once; make_terminal_progress_sink is silent when quiet or off a
// terminal.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "assay/core/progress.hpp"
#include "assay/core/thread_pool.hpp"

namespace assay {
namespace {

struct Update {
  std::string task;
  std::uint64_t done;
  std::uint64_t total;
  bool operator==(const Update&) const = default;
};

class RecordingSink final : public ProgressSink {
 public:
  void update(const std::string& task, std::uint64_t done, std::uint64_t total) override {
    updates.push_back({task, done, total});
  }
  void finish(const std::string& task) override { finished.push_back(task); }
  std::vector<Update> updates;
  std::vector<std::string> finished;
};

// Installs a recording sink for one test and restores the previous sink after it.
class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override { previous_ = set_progress_sink(sink_); }
  void TearDown() override { set_progress_sink(previous_); }
  std::shared_ptr<RecordingSink> sink_ = std::make_shared<RecordingSink>();

 private:
  std::shared_ptr<ProgressSink> previous_;
};

TEST_F(ProgressTest, FirstAndLastUpdatesAreShownAndFinishOnce) {
  {
    Progress p("bootstrap", 3);
    p.advance();
    p.advance();
    p.advance();
    p.finish();
    p.finish();
  }  // the destructor does not finish again
  ASSERT_GE(sink_->updates.size(), 2u);
  EXPECT_LE(sink_->updates.size(), 4u);
  EXPECT_EQ(sink_->updates.front(), (Update{"bootstrap", 0, 3}));  // shown when made
  EXPECT_EQ(sink_->updates.back(), (Update{"bootstrap", 3, 3}));
  EXPECT_EQ(sink_->finished, (std::vector<std::string>{"bootstrap"}));
}

TEST_F(ProgressTest, DoneIsClampedToTheTotal) {
  Progress p("folds", 4);
  p.advance(3);
  p.advance(5);
  ASSERT_FALSE(sink_->updates.empty());
  EXPECT_EQ(sink_->updates.back(), (Update{"folds", 4, 4}));
}

TEST_F(ProgressTest, DestructorFinishesAndNothingFollowsFinish) {
  {
    Progress p("resamples", 10);
    p.advance();
    p.finish();
    const std::size_t before = sink_->updates.size();
    p.advance(9);  // after finish: not reported
    EXPECT_EQ(sink_->updates.size(), before);
  }
  { Progress q("unfinished", 2); }
  EXPECT_EQ(sink_->finished, (std::vector<std::string>{"resamples", "unfinished"}));
}

TEST_F(ProgressTest, SinkIsTheOneInstalledWhenProgressWasMade) {
  Progress p("early", 1);
  auto later = std::make_shared<RecordingSink>();
  auto mine = set_progress_sink(later);
  p.advance();
  p.finish();
  set_progress_sink(mine);
  EXPECT_EQ(sink_->updates, (std::vector<Update>{{"early", 0, 1}, {"early", 1, 1}}));
  EXPECT_TRUE(later->updates.empty());
  EXPECT_TRUE(later->finished.empty());
}

TEST_F(ProgressTest, AdvanceFromWorkersEndsAtTheTotal) {
  Progress p("parallel", 500);
  parallel_for(
      500, [&](std::size_t) { p.advance(); }, 4);
  p.finish();
  ASSERT_FALSE(sink_->updates.empty());
  for (const Update& u : sink_->updates) EXPECT_LE(u.done, 500u);
  EXPECT_EQ(sink_->finished.size(), 1u);
}

TEST_F(ProgressTest, NestedProgressDrawsNothing) {
  {
    Progress outer("soak", 2);
    {
      Progress inner("learner", 5);
      inner.advance(5);
    }
    outer.advance(2);
  }
  EXPECT_EQ(sink_->updates, (std::vector<Update>{{"soak", 0, 2}, {"soak", 2, 2}}));
  EXPECT_EQ(sink_->finished, (std::vector<std::string>{"soak"}));
  // Once the outer one is finished, the next Progress draws again.
  Progress next("next", 1);
  EXPECT_EQ(sink_->updates.back(), (Update{"next", 0, 1}));
}

TEST_F(ProgressTest, CountedNestedStepsAdvanceTheOuterBar) {
  {
    Progress rows("shift", 6, Progress::Nested::counted);
    for (int row = 0; row < 2; ++row) {
      Progress bootstrap("bootstrap", 3);
      bootstrap.advance(3);
    }
  }
  ASSERT_FALSE(sink_->updates.empty());
  for (const Update& u : sink_->updates) EXPECT_EQ(u.task, "shift");
  EXPECT_EQ(sink_->updates.back(), (Update{"shift", 6, 6}));
}

TEST(Progress, NoSinkReportsNothing) {
  auto previous = set_progress_sink(nullptr);
  auto recorder = std::make_shared<RecordingSink>();
  {
    Progress p("silent", 2);
    set_progress_sink(recorder);  // too late for p
    p.advance(2);
  }
  set_progress_sink(previous);
  EXPECT_TRUE(recorder->updates.empty());
  EXPECT_TRUE(recorder->finished.empty());
}

TEST(Progress, SetReturnsThePreviousSink) {
  auto a = std::make_shared<RecordingSink>();
  auto original = set_progress_sink(a);
  EXPECT_EQ(set_progress_sink(original), a);
}

TEST(Progress, QuietTerminalSinkShowsNothing) {
  // ctest's stderr is not a terminal; quiet never shows a bar. Both are silent sinks that accept
  // calls without writing.
  for (const bool quiet : {true, false}) {
    auto sink = make_terminal_progress_sink(quiet);
    ASSERT_NE(sink, nullptr);
    testing::internal::CaptureStderr();
    sink->update("task", 1, 2);
    sink->finish("task");
    const std::string err = testing::internal::GetCapturedStderr();
    if (quiet || !isatty(2)) {
      EXPECT_EQ(err, "");
    }
  }
}

}  // namespace
}  // namespace assay
