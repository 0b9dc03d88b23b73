// Running registry jobs in child processes: results with provenance, nothing finished rerun,
// failed attempts (a job past its time limit) recorded and retried up to --retries.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assay/batch/claims.hpp"
#include "assay/batch/job_runner.hpp"
#include "assay/batch/registry.hpp"
#include "assay/batch/status.hpp"
#include "assay/core/error.hpp"
#include "assay/core/output_file.hpp"
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

// Runs `jobs` in `workers` forked processes at once; returns each one's summary.done.
std::vector<std::size_t> run_concurrently(const Registry& reg, const LoadedExperiment& loaded,
                                          const std::vector<std::size_t>& jobs, int workers) {
  std::vector<std::pair<pid_t, int>> children;
  for (int w = 0; w < workers; ++w) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      std::size_t done = 0;
      try {
        done = run_jobs(reg, loaded, jobs, JobRunParams{.threads = 1}).done;
      } catch (...) {
        ::_exit(2);
      }
      const ssize_t written = ::write(fds[1], &done, sizeof done);
      ::_exit(written == sizeof done ? 0 : 3);
    }
    ::close(fds[1]);
    children.emplace_back(pid, fds[0]);
  }
  std::vector<std::size_t> done;
  for (auto [pid, fd] : children) {
    std::size_t n = 0;
    EXPECT_EQ(::read(fd, &n, sizeof n), static_cast<ssize_t>(sizeof n));
    ::close(fd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    done.push_back(n);
  }
  return done;
}

// Several runners on one registry: each job runs exactly once (claims are exclusive).
TEST_F(JobRunnerTest, ConcurrentRunnersRunEachJobExactlyOnce) {
  const Registry& reg = *registry_;
  std::vector<std::size_t> all;
  for (std::size_t job = 1; job <= reg.n_jobs(); ++job) all.push_back(job);
  for (int round = 0; round < 5; ++round) {
    const auto done = run_concurrently(reg, *loaded_, all, 4);
    std::size_t total = 0;
    for (std::size_t d : done) total += d;
    EXPECT_EQ(total, reg.n_jobs()) << "round " << round;
    for (std::size_t job : all) EXPECT_TRUE(reg.has_result(job));
    EXPECT_TRUE(std::filesystem::is_empty(reg.dir() / "running"));
    for (std::size_t job : all) std::filesystem::remove(reg.result_path(job));
  }
}

// A claim left by a worker that died is taken over; one of a live worker is respected; one of
// another host (not a Slurm task) only with reclaim.
TEST_F(JobRunnerTest, StaleClaimsAreTakenOverLiveOnesRespected) {
  const Registry& reg = *registry_;
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  JobProvenance gone = provenance_here(1);
  gone.pid = dead;
  ASSERT_TRUE(reg.claim(1, gone));
  // A live holder: this test's parent process (the claim's start time matches it).
  JobProvenance live = provenance_here(1);
  live.pid = ::getppid();
  ASSERT_TRUE(reg.claim(2, live));
  JobProvenance remote = provenance_here(1);
  remote.host = "elsewhere.example";
  ASSERT_TRUE(reg.claim(3, remote));
  std::filesystem::create_directories(reg.running_path(4).parent_path());
  write_file_atomic(reg.running_path(4).string(), "{truncated");

  const JobRunSummary s = run_jobs(reg, *loaded_, {1, 2, 3, 4}, JobRunParams{});
  EXPECT_EQ(s.done, 2u);
  EXPECT_EQ(s.skipped, 2u);
  const std::string notes = fmt::format("{}", fmt::join(s.notes, "\n"));
  EXPECT_NE(notes.find(fmt::format("job 1: took over the claim of pid {} on this host since {}: "
                                   "the process is gone",
                                   dead, gone.started)),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find(fmt::format("job 2: running (pid {} on this host since {}), not run",
                                   live.pid, live.started)),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find(fmt::format("job 3: claimed by pid {} on elsewhere.example since {} "
                                   "(another host, which this one cannot check); if that "
                                   "process is gone, `assay job run {} --reclaim` runs the job "
                                   "again, not run",
                                   remote.pid, remote.started, reg.dir().string())),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("job 4: took over a damaged claim file: "), std::string::npos) << notes;
  EXPECT_TRUE(reg.has_result(1));
  EXPECT_TRUE(reg.has_result(4));
  EXPECT_FALSE(reg.has_result(3));
  EXPECT_EQ(run_jobs(reg, *loaded_, {3}, JobRunParams{.reclaim = true}).done, 1u);
  std::filesystem::remove(reg.running_path(2));
}

// Claims of Slurm tasks on other hosts: alive while squeue lists the task, gone when it does not,
// unknown when squeue cannot be read; an earlier run of this very task (requeued) is gone.
TEST(ClaimHolders, SlurmTasksOnOtherHosts) {
  JobClaim claim;
  claim.holder.host = "node9.example";
  claim.holder.pid = 77;
  claim.holder.started = "T";
  claim.holder.slurm_job_id = "42";
  claim.holder.slurm_array_task_id = "3";
  const auto queue = [](std::optional<bool> answer) {
    return [answer](const std::string&, const std::string&) { return answer; };
  };
  HolderCheck h = check_holder(claim, queue(true));
  EXPECT_EQ(h.state, Holder::alive);
  EXPECT_EQ(h.who, "Slurm task 42_3 (pid 77 on node9.example) since T");
  h = check_holder(claim, queue(false));
  EXPECT_EQ(h.state, Holder::gone);
  EXPECT_EQ(h.why, "squeue no longer lists it");
  EXPECT_EQ(check_holder(claim, queue(std::nullopt)).state, Holder::unknown);
  ::setenv("SLURM_ARRAY_JOB_ID", "42", 1);
  ::setenv("SLURM_ARRAY_TASK_ID", "3", 1);
  EXPECT_EQ(check_holder(claim, queue(true)).state, Holder::alive);  // the same run: srun -n 2
  ::setenv("SLURM_RESTART_COUNT", "1", 1);
  h = check_holder(claim, queue(true));
  EXPECT_EQ(h.state, Holder::gone);
  EXPECT_EQ(h.why, "it is an earlier run of this Slurm task (requeued)");
  for (const char* name : {"SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_RESTART_COUNT"})
    ::unsetenv(name);
  claim.holder.slurm_job_id.clear();
  h = check_holder(claim, queue(true));
  EXPECT_EQ(h.state, Holder::unknown);
  EXPECT_EQ(h.why, "another host, which this one cannot check");
}

// A damaged result is moved aside (kept) and its job runs again; so is a damaged failure record.
TEST_F(JobRunnerTest, DamagedResultsAreSetAsideAndRerun) {
  const Registry& reg = *registry_;
  EXPECT_EQ(run_jobs(reg, *loaded_, {1, 2}, JobRunParams{}).done, 2u);
  write_file_atomic(reg.result_path(1).string(), "{\"format\": 1e400}");
  write_file_atomic(reg.failed_path(2).string(), "[");
  std::filesystem::remove(reg.result_path(2));
  const RegistryStatus before = registry_status(reg);
  EXPECT_EQ(before.jobs[0].state, JobState::failed);
  EXPECT_EQ(before.jobs[0].detail,
            "damaged result: " + reg.result_path(1).string() +
                ":1:12: expected a number within the range of a double, found 1e400; `assay job "
                "run " +
                reg.dir().string() + " --job 1` moves it aside and runs the job again");
  EXPECT_EQ(before.jobs[1].state, JobState::failed);
  EXPECT_EQ(before.jobs[1].detail, "damaged failure record: " + reg.failed_path(2).string() +
                                       ":1:2: expected JSON, found the end of the file (truncated "
                                       "JSON)");
  const JobRunSummary s = run_jobs(reg, *loaded_, {1, 2}, JobRunParams{});
  EXPECT_EQ(s.done, 2u);
  ASSERT_EQ(s.notes.size(), 2u);
  EXPECT_EQ(s.notes[0].rfind(
                "job 1: damaged result moved to " + reg.result_path(1).string() + ".damaged-", 0),
            0u)
      << s.notes[0];
  EXPECT_EQ(s.notes[1].rfind("job 2: damaged failure record moved to ", 0), 0u) << s.notes[1];
  EXPECT_TRUE(reg.has_result(1));
  std::size_t kept = 0;
  for (const auto& e : std::filesystem::directory_iterator(reg.dir() / "results")) {
    kept += e.path().filename().string().find(".damaged-") != std::string::npos;
  }
  EXPECT_EQ(kept, 1u);
  EXPECT_EQ(registry_status(reg).count(JobState::done), 2u);
}

}  // namespace
}  // namespace assay::batch
