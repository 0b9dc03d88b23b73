// Slurm for a batch registry: one array job per submission, written as a readable sbatch script
// into the registry and submitted with `sbatch` (no daemon of assay's own); the queue read back
// with `squeue` (and `sacct` where accounting is enabled) for `assay job status`.
//
// Example:
//   SlurmParams p;  p.partition = "short";  p.time = "2:00:00";  p.chunk = 4;
//   Submission s = submit(reg, p);   // writes reg/slurm/submit-1.sbatch and submit-1.jobs,
//                                    // then runs `sbatch --parsable` on the script
//   // 60 jobs to run with chunk 4: s.tasks == 15 array tasks; s.slurm_job_id: sbatch's job id
//
// A submission lists the jobs to run — missing ones, and failed ones whose attempts do not exceed
// retries + 1 — longest first (JobInfo::cost), in slurm/submit-K.jobs; array task T runs its
// entries (T−1)·chunk+1 .. T·chunk with `assay job run REG --jobs-file ... --chunk C`. Jobs that
// are done, queued or running are never submitted again, so resubmitting after a failure, a
// scancel or a lost node runs only what is missing. The Slurm job name is "assay-" + the first
// 12 digits of the registry id, so squeue finds the registry's tasks.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "assay/batch/registry.hpp"

namespace assay::batch {

struct SlurmParams {
  /// --partition ("" = the cluster's default).
  std::string partition;
  /// --time of each array task, in Slurm's format ("2:00:00", "1-00:00:00"; "" = the default).
  std::string time;
  /// --mem of each array task ("8G"; "" = the default).
  std::string mem;
  /// --cpus-per-task; each job's learner gets that many threads.
  int cpus_per_task = 1;
  /// At most this many array tasks at once ("%N"; 0 = no limit).
  int array_max = 0;
  /// More sbatch options, each one argument ("--qos=long", "--account=lab").
  std::vector<std::string> sbatch_args;
  /// Jobs per array task.
  std::size_t chunk = 1;
  /// Failed jobs are resubmitted while attempts <= retries + 1 (also passed to `job run`).
  int retries = 0;
  /// Seconds a job may run before it is recorded as failed (0 = none; see job_runner.hpp).
  double job_time_limit = 0;
  /// Write the script and its jobs file but do not call sbatch.
  bool dry_run = false;
};

struct Submission {
  /// 1, 2, ... in the order they were made.
  int number = 0;
  /// Slurm's job id of the array ("" for a dry run).
  std::string slurm_job_id;
  std::filesystem::path script, jobs_file;
  std::vector<std::size_t> jobs;
  std::size_t chunk = 1;
  /// Array tasks (0 = nothing to submit).
  std::size_t tasks = 0;
  std::string submitted;  ///< UTC time
};

/// "assay-" + the first 12 hex digits of the registry id.
std::string slurm_job_name(const Registry& registry);

/// The sbatch script of a submission; `assay` is the path of the assay executable.
std::string sbatch_script(const Registry& registry, const SlurmParams& params,
                          const Submission& submission, const std::string& assay);

/// Writes and submits the next submission (see above). Returns it with tasks = 0 when every job
/// is done, queued, running or out of attempts. Throws assay::Error when sbatch is not on PATH,
/// or when Slurm refuses the submission (with sbatch's message).
Submission submit(const Registry& registry, const SlurmParams& params);

/// The submissions made so far (slurm/submissions.json), oldest first.
std::vector<Submission> submissions(const Registry& registry);

/// One array task in Slurm's queue.
struct SlurmTask {
  std::string job_id, task_id;  ///< "4242", "7"
  std::string state;            ///< PENDING, RUNNING, COMPLETING, ...
};

/// The registry's array tasks in the queue (squeue), or nullopt when squeue is absent or fails
/// (`why` then says so).
std::optional<std::vector<SlurmTask>> slurm_queue(const Registry& registry, std::string* why);

/// Final states of array tasks from sacct ("4242_7" -> "CANCELLED by 0"), or nullopt when
/// sacct is absent or accounting is disabled.
std::optional<std::vector<std::pair<std::string, std::string>>> slurm_accounting(
    const std::vector<std::string>& job_ids);

/// Whether the array task is pending or running according to squeue; nullopt when squeue is
/// absent or fails (then nobody can tell).
std::optional<bool> slurm_task_in_queue(const std::string& job_id, const std::string& task_id);

/// squeue's task ids "7", "[5-9,12%2]" expanded to numbers.
std::vector<std::size_t> expand_task_ids(const std::string& text);

}  // namespace assay::batch
