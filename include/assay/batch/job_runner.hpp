// Running a registry's jobs in this process's children: what `assay job run` does, in a Slurm
// array task or by hand.
//
// Example:
//   Registry reg = Registry::open("reg");
//   LoadedExperiment loaded = reg.load();          // the data are read once per process
//   run_jobs(reg, loaded, {1, 2, 3}, JobRunParams{.threads = 1, .time_limit = 600});
//
// Each job runs in a forked child that computes its row and hands it back through a pipe; this
// process then writes results/JOB.json atomically with the provenance (host, pid, Slurm ids,
// start and end, seconds, the child's peak memory, attempt). A child that crashes, is killed, or
// runs past the time limit (then this process kills it) is recorded as a failed attempt with the
// reason in failed/JOB.json, and run again while its attempts do not exceed retries + 1.
// Jobs with a result are skipped (nothing finished is recomputed). Before running a job the
// runner claims it (batch/claims.hpp: running/JOB.json, created exclusively), so that a job runs
// in at most one worker at a time however many runners share the registry; jobs claimed by a
// live worker are skipped, claims of workers that are gone are taken over. A damaged result
// (one that cannot be read as this job's) is moved aside and the job runs again. On SIGTERM or
// SIGINT (scancel, Slurm's time limit, Ctrl-C) the running child is killed, its marker removed —
// the job stays missing, to be resubmitted — and this process dies of that signal.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "assay/batch/registry.hpp"

namespace assay::batch {

struct JobRunParams {
  /// Threads of each job's learner (0 = all cores); results do not depend on it.
  int threads = 0;
  /// Seconds a job may run before it is killed and recorded as failed; 0 = no limit.
  double time_limit = 0;
  /// Failed attempts that may be retried: a job runs while its attempts <= retries + 1.
  int retries = 0;
  /// Also run jobs that already have a result (their result is replaced).
  bool force = false;
  /// Also take over claims held by workers on other hosts that cannot be checked from here
  /// (not Slurm tasks): the caller says they are gone.
  bool reclaim = false;
};

struct JobRunSummary {
  std::size_t done = 0;     ///< jobs that ran and wrote a result
  std::size_t failed = 0;   ///< jobs whose last attempt here failed
  std::size_t skipped = 0;  ///< already done, running elsewhere, or out of attempts
  /// One line per skipped or failed job, and per repair (a damaged result or failure record
  /// moved aside, a stale claim taken over).
  std::vector<std::string> notes;
};

/// Runs `jobs` (1-based numbers, in this order) as described above. Throws assay::Error for a
/// job number out of range.
JobRunSummary run_jobs(const Registry& registry, const LoadedExperiment& loaded,
                       const std::vector<std::size_t>& jobs, const JobRunParams& params);

/// The jobs of array task `task` (1-based) when each task runs `chunk` consecutive entries of
/// `list`: entries (task−1)·chunk+1 .. task·chunk. Throws assay::Error when the task has none.
std::vector<std::size_t> chunk_of(const std::vector<std::size_t>& list, std::size_t task,
                                  std::size_t chunk);

/// Job numbers from a jobs file (separated by white space or commas; ranges "3-7" allowed),
/// each checked against the registry. Throws assay::Error with file:line:col for anything else.
std::vector<std::size_t> read_job_list(const std::string& path, const Registry& registry);

/// The provenance of work done by this process now: host, pid, start time, Slurm ids from the
/// environment (SLURM_ARRAY_JOB_ID/SLURM_JOB_ID, SLURM_ARRAY_TASK_ID).
JobProvenance provenance_here(std::size_t attempt);

}  // namespace assay::batch
