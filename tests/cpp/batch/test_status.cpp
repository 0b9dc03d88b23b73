// batch/status: where each job of a registry stands — all missing when planned, done after a
// run, failed with its error after a failed attempt — and the status as text (counts, failed
// jobs, missing ranges, the job list), JSON and a table.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "assay/batch/job_runner.hpp"
#include "assay/batch/registry.hpp"
#include "assay/batch/status.hpp"
#include "assay/core/version.hpp"
#include "assay/soak/experiment.hpp"
#include "test_util.hpp"
#include "toy_registry.hpp"

namespace assay::batch {
namespace {

class StatusTest : public ToyRegistryTest {
 protected:
  void write_rows(std::ostream& out) const override {
    for (int i = 0; i < 40; ++i)
      out << i % 7 << "," << (i < 20 ? "p" : "q") << "," << i % 2 << "\n";
  }
  std::vector<std::string> learners() const override { return {"featureless"}; }

  std::string label(std::size_t job) const {
    const JobInfo& j = registry_->jobs()[job - 1];
    return fmt::format("{} on {}, {} train, test subset {}, fold {}", j.learner, j.data,
                       soak::to_string(j.train_subsets), j.test_subset, j.test_fold);
  }
};

TEST(JobState, Names) {
  EXPECT_STREQ(to_string(JobState::done), "done");
  EXPECT_STREQ(to_string(JobState::running), "running");
  EXPECT_STREQ(to_string(JobState::queued), "queued");
  EXPECT_STREQ(to_string(JobState::failed), "failed");
  EXPECT_STREQ(to_string(JobState::missing), "missing");
}

TEST_F(StatusTest, PlannedJobsAreMissing) {
  const Registry& reg = *registry_;
  const RegistryStatus s = registry_status(reg);
  ASSERT_EQ(s.jobs.size(), 12u);
  EXPECT_EQ(s.count(JobState::missing), 12u);
  EXPECT_EQ(s.jobs[11].job, 12u);
  EXPECT_TRUE(s.slurm.empty());  // no submissions
  EXPECT_TRUE(s.queue_readable);
  EXPECT_EQ(status_text(reg, s, false), "registry " + reg.dir().string() +
                                            ": assay soak: toy.csv, 12 jobs, planned by assay " +
                                            assay_version() +
                                            "\n"
                                            "done 0, running 0, queued 0, failed 0, missing 12\n"
                                            "missing: jobs 1-12\n");
}

TEST_F(StatusTest, DoneFailedAndMissingJobs) {
  const Registry& reg = *registry_;
  const LoadedExperiment loaded = reg.load();
  EXPECT_EQ(run_jobs(reg, loaded, {1, 2, 4}, JobRunParams{.threads = 1}).done, 3u);
  EXPECT_EQ(run_jobs(reg, loaded, {5}, JobRunParams{.time_limit = 1e-9}).failed, 1u);
  const RegistryStatus s = registry_status(reg);
  EXPECT_EQ(s.count(JobState::done), 3u);
  EXPECT_EQ(s.count(JobState::failed), 1u);
  EXPECT_EQ(s.count(JobState::missing), 8u);
  EXPECT_EQ(s.jobs[4].failed_attempts, 1u);
  EXPECT_EQ(s.jobs[4].detail, "exceeded the job time limit of 1e-09 s");
  ASSERT_TRUE(s.jobs[0].provenance.has_value());
  const std::string text = status_text(reg, s, false);
  EXPECT_NE(text.find("done 3, running 0, queued 0, failed 1, missing 8\n"
                      "failed: job 5 (" +
                      label(5) +
                      "), 1 attempt: exceeded the job time limit of 1e-09 s\n"
                      "missing: jobs 3, 6-12\n"),
            std::string::npos)
      << text;
  const std::string listed = status_text(reg, s, true);
  EXPECT_NE(listed.find("job 1 done: " + label(1) + "\n"), std::string::npos) << listed;
  EXPECT_NE(listed.find("job 5 failed: " + label(5) + "; exceeded the job time limit of 1e-09 s\n"),
            std::string::npos)
      << listed;
  EXPECT_EQ(listed.find("all jobs done"), std::string::npos);

  const Json j = status_json(reg, s);
  EXPECT_EQ(j["jobs"], 12);
  EXPECT_EQ(j["counts"]["done"], 3);
  EXPECT_EQ(j["counts"]["missing"], 8);
  EXPECT_EQ(j["status"][4]["state"], "failed");
  EXPECT_TRUE(j["status"][0].contains("provenance"));
  EXPECT_FALSE(j["status"][2].contains("provenance"));

  const Table t = status_table(reg, s);
  EXPECT_EQ(t.n_rows(), 12u);
  EXPECT_EQ(t.column("state").label(0), "done");
  EXPECT_EQ(t.column("state").label(4), "failed");
  EXPECT_EQ(t.numeric("failed_attempts")[4], 1.0);
  EXPECT_GE(t.numeric("seconds")[0], 0.0);
  EXPECT_TRUE(std::isnan(t.numeric("seconds")[2]));
}

TEST_F(StatusTest, EveryJobDoneSaysHowToCollect) {
  const Registry& reg = *registry_;
  const LoadedExperiment loaded = reg.load();
  std::vector<std::size_t> all;
  for (std::size_t job = 1; job <= reg.n_jobs(); ++job) all.push_back(job);
  EXPECT_EQ(run_jobs(reg, loaded, all, JobRunParams{.threads = 1}).done, 12u);
  const std::string text = status_text(reg, registry_status(reg), false);
  EXPECT_NE(text.find("done 12, running 0, queued 0, failed 0, missing 0\n"
                      "all jobs done: `assay job collect " +
                      reg.dir().string() + "` writes the outputs\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace assay::batch
