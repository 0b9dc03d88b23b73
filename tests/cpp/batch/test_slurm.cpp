// Slurm submissions without a cluster: the sbatch script and its job list (dry runs), the
// array task ids squeue prints, chunks of a job list, job files, and sbatch missing from PATH.
// A real one-node cluster runs in tests/python/test_cluster_slurm.py.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "assay/batch/job_runner.hpp"
#include "assay/batch/registry.hpp"
#include "assay/batch/slurm.hpp"
#include "assay/batch/status.hpp"
#include "assay/core/error.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/warning.hpp"
#include "test_util.hpp"
#include "toy_registry.hpp"

namespace assay::batch {
namespace {
namespace fs = std::filesystem;

class SlurmTest : public ToyRegistryTest {
 protected:
  void write_rows(std::ostream& out) const override {
    for (int i = 0; i < 40; ++i)
      out << i % 5 << "," << (i < 24 ? "big" : "small") << "," << i % 2 << "\n";
  }
};

TEST_F(SlurmTest, DryRunWritesAReadableScriptLongestJobsFirst) {
  const Registry& reg = *registry_;
  ASSERT_EQ(reg.n_jobs(), 12u);  // 2 subsets x 2 folds x 3 train sets
  SlurmParams p;
  p.partition = "short";
  p.time = "1:00:00";
  p.mem = "2G";
  p.cpus_per_task = 2;
  p.array_max = 3;
  p.chunk = 5;
  p.retries = 1;
  p.job_time_limit = 30;
  p.sbatch_args = {"--qos=low", "--comment=two words"};
  p.dry_run = true;
  const Submission s = submit(reg, p);
  EXPECT_EQ(s.number, 1);
  EXPECT_EQ(s.tasks, 3u);  // 12 jobs in chunks of 5
  ASSERT_EQ(s.jobs.size(), 12u);
  for (std::size_t i = 1; i < s.jobs.size(); ++i) {
    EXPECT_GE(reg.jobs()[s.jobs[i - 1] - 1].cost, reg.jobs()[s.jobs[i] - 1].cost);
  }
  const std::string script = read_file(s.script);
  const std::string dir = fs::absolute(reg.dir()).lexically_normal().string();
  const std::vector<std::string> lines{
      "#!/bin/bash\n",
      "#SBATCH --job-name=" + slurm_job_name(reg) + "\n",
      std::string("#SBATCH --array=1-3%3\n"),
      "#SBATCH --output=" + dir + "/logs/slurm-%A_%a.out\n",
      std::string("#SBATCH --cpus-per-task=2\n"),
      std::string("#SBATCH --partition=short\n"),
      std::string("#SBATCH --time=1:00:00\n"),
      std::string("#SBATCH --mem=2G\n"),
      std::string("#SBATCH --qos=low\n"),
      std::string("#SBATCH \"--comment=two words\"\n"),
      " --quiet job run " + dir + " --jobs-file " + dir +
          "/slurm/submit-1.jobs --chunk 5 --threads \"${SLURM_CPUS_PER_TASK:-1}\" --retries 1 "
          "--job-time-limit 30\n"};
  for (const std::string& line : lines) {
    EXPECT_NE(script.find(line), std::string::npos) << line << "\nin\n" << script;
  }
  // The jobs file holds the order; the chunks of the array tasks cover every job once.
  const auto listed = read_job_list(s.jobs_file.string(), reg);
  EXPECT_EQ(listed, s.jobs);
  std::vector<std::size_t> covered;
  for (std::size_t task = 1; task <= s.tasks; ++task) {
    for (std::size_t job : chunk_of(listed, task, 5)) covered.push_back(job);
  }
  EXPECT_EQ(covered, listed);
  EXPECT_EQ(chunk_of(listed, 3, 5).size(), 2u);
  EXPECT_THROW_MSG(chunk_of(listed, 4, 5), Error,
                   "array task 4 is out of range: 12 jobs in chunks of 5 make tasks 1..3");
}

TEST_F(SlurmTest, SbatchMissingFromPathIsAClearError) {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", dir_.c_str(), 1);
  try {
    submit(*registry_, SlurmParams{});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "sbatch not found on PATH (Slurm's client commands are needed: run this on a Slurm "
              "login node, or install slurm-client)");
  }
  ::setenv("PATH", saved.c_str(), 1);
}

TEST_F(SlurmTest, NothingToSubmitWhenEveryJobIsDone) {
  const Registry& reg = *registry_;
  const LoadedExperiment loaded = reg.load();
  for (std::size_t job = 1; job <= reg.n_jobs(); ++job) {
    reg.write_result(job, run_unit(reg.definition(), loaded, job - 1, 1), JobProvenance{});
  }
  SlurmParams p;
  p.dry_run = true;
  EXPECT_EQ(submit(reg, p).tasks, 0u);
  const RegistryStatus status = registry_status(reg);
  EXPECT_EQ(status.count(JobState::done), 12u);
  EXPECT_NE(status_text(reg, status, false).find("all jobs done"), std::string::npos);
}

// A damaged submissions.json neither blocks status nor submit forever: status says so, submit
// moves it aside (with a warning) and submits.
TEST_F(SlurmTest, DamagedSubmissionsAreNamedThenSetAside) {
  const Registry& reg = *registry_;
  const fs::path subs = reg.dir() / "slurm" / "submissions.json";
  write_file_atomic(subs.string(), "[{\"number\": 1, \"slurm_job_id\": \"42\", \"chunk\": 1e400}]");
  const RegistryStatus status = registry_status(reg);
  EXPECT_EQ(status.slurm, subs.string() +
                              ":1:47: expected a number within the range of a double, found "
                              "1e400; the earlier Slurm submissions are unknown, so their queued "
                              "jobs show as missing (`assay job submit` moves the file aside)");
  EXPECT_EQ(status.count(JobState::missing), 12u);
  write_file_atomic(subs.string(), "[{\"number\": 1, \"slurm_job_id\": 42}]");
  EXPECT_THROW_MSG(submissions(reg), Error,
                   subs.string() +
                       " (entry 1): field \"slurm_job_id\": expected Slurm's job id, "
                       "found \"42\"");
  std::vector<std::string> warnings;
  ScopedWarningHandler capture([&](const std::string& m) { warnings.push_back(m); });
  SlurmParams p;
  p.dry_run = true;
  EXPECT_EQ(submit(reg, p).jobs.size(), 12u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind(subs.string() + " (entry 1): field \"slurm_job_id\"", 0), 0u);
  EXPECT_NE(warnings[0].find("moved aside to " + subs.string() + ".damaged-"), std::string::npos);
  EXPECT_FALSE(fs::exists(subs));
}

TEST(SlurmTaskIds, SqueueFormsExpand) {
  EXPECT_EQ(expand_task_ids("7"), (std::vector<std::size_t>{7}));
  EXPECT_EQ(expand_task_ids("[5-7,12%2]"), (std::vector<std::size_t>{5, 6, 7, 12}));
  EXPECT_TRUE(expand_task_ids("N/A").empty());
}

TEST_F(SlurmTest, JobFilesNameTheBadWord) {
  const std::string path = (dir_ / "jobs.txt").string();
  std::ofstream(path) << "1 2-4,6\n7 x9\n";
  EXPECT_THROW_MSG(read_job_list(path, *registry_), Error,
                   path + ":2:3: expected a job number or range (3 or 3-7), found \"x9\"");
  std::ofstream(path) << "1 13\n";
  EXPECT_THROW_MSG(
      read_job_list(path, *registry_), Error,
      path + ":1:3: job 13 is out of range: " + registry_->dir().string() + " has jobs 1..12");
  std::ofstream(path) << "5-3\n";
  EXPECT_THROW_MSG(read_job_list(path, *registry_), Error,
                   path + ":1:1: expected a range low-high, found \"5-3\"");
  std::ofstream(path) << "1 2-4,6\n7\n";
  EXPECT_EQ(read_job_list(path, *registry_), (std::vector<std::size_t>{1, 2, 3, 4, 6, 7}));
}

}  // namespace
}  // namespace assay::batch
