// Running registry jobs in child processes: results with provenance, nothing finished rerun,
// failed attempts (a job past its time limit) recorded and retried up to --retries.
#include <gtest/gtest.h>

#include <unistd.h>

#include "assay/batch/job_runner.hpp"
#include "assay/batch/registry.hpp"
#include "assay/batch/status.hpp"
#include "assay/core/error.hpp"
#include "test_util.hpp"
#include "toy_registry.hpp"

namespace assay::batch {
namespace {

class JobRunnerTest : public ToyRegistryTest {
 protected:
  void write_rows(std::ostream& out) const override {
    for (int i = 0; i < 40; ++i)
      out << i % 7 << "," << (i < 20 ? "p" : "q") << "," << i % 2 << "\n";
  }
  std::vector<std::string> learners() const override { return {"featureless"}; }
  void SetUp() override {
    ToyRegistryTest::SetUp();
    loaded_.emplace(registry_->load());
  }

  std::optional<LoadedExperiment> loaded_;
};

TEST_F(JobRunnerTest, RunsEachJobOnceWithItsProvenance) {
  const Registry& reg = *registry_;
  const JobRunSummary first = run_jobs(reg, *loaded_, {1, 2, 3}, JobRunParams{.threads = 1});
  EXPECT_EQ(first.done, 3u);
  EXPECT_EQ(first.skipped, 0u);
  JobProvenance p;
  const auto unit = reg.read_result(2, &p);
  EXPECT_EQ(unit.row.iteration, 2u);
  EXPECT_EQ(p.pid, ::getpid());  // the runner; the job ran in its child
  EXPECT_EQ(p.attempt, 1u);
  EXPECT_GT(p.peak_rss_bytes, 0);
  EXPECT_GE(p.cpu_seconds, 0);
  EXPECT_FALSE(reg.running(2).has_value());
  const JobRunSummary again = run_jobs(reg, *loaded_, {2, 3, 4}, JobRunParams{});
  EXPECT_EQ(again.done, 1u);
  EXPECT_EQ(again.skipped, 2u);
  ASSERT_EQ(again.notes.size(), 2u);
  EXPECT_EQ(again.notes[0], "job 2: done, not run");
  JobProvenance q;
  reg.read_result(2, &q);
  EXPECT_EQ(q.started, p.started);  // not recomputed
  run_jobs(reg, *loaded_, {2}, JobRunParams{.force = true});
  reg.read_result(2, &q);
  EXPECT_NE(q.started, p.started);
  EXPECT_THROW_MSG(run_jobs(reg, *loaded_, {13}, JobRunParams{}), Error,
                   "job 13 is out of range: " + reg.dir().string() + " has jobs 1..12");
}

TEST_F(JobRunnerTest, TimeLimitFailuresAreRecordedAndRetried) {
  const Registry& reg = *registry_;
  const JobRunSummary s =
      run_jobs(reg, *loaded_, {5}, JobRunParams{.time_limit = 1e-9, .retries = 2});
  EXPECT_EQ(s.failed, 1u);
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_EQ(s.notes[0], "job 5 failed: exceeded the job time limit of 1e-09 s");
  const auto failures = reg.failures(5);
  ASSERT_EQ(failures.size(), 3u);  // 1 + 2 retries
  EXPECT_EQ(failures[2].second.attempt, 3u);
  const RegistryStatus status = registry_status(reg);
  EXPECT_EQ(status.jobs[4].state, JobState::failed);
  EXPECT_EQ(status.jobs[4].failed_attempts, 3u);
  // Out of attempts: skipped, with the reason.
  const JobRunSummary skipped = run_jobs(reg, *loaded_, {5}, JobRunParams{.retries = 2});
  ASSERT_EQ(skipped.notes.size(), 1u);
  EXPECT_EQ(skipped.notes[0],
            "job 5: failed 3 times (last: exceeded the job time limit of 1e-09 s); --retries 2 "
            "allows 3 attempts, not run");
  // One more retry allowed: it runs and succeeds; the result says it was attempt 4.
  EXPECT_EQ(run_jobs(reg, *loaded_, {5}, JobRunParams{.retries = 3}).done, 1u);
  JobProvenance p;
  reg.read_result(5, &p);
  EXPECT_EQ(p.attempt, 4u);
  EXPECT_EQ(registry_status(reg).jobs[4].state, JobState::done);
}

}  // namespace
}  // namespace assay::batch
