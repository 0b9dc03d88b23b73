// Where each job of a batch registry stands: done, running, queued (in Slurm's queue), failed
// (with its error) or missing — what `assay job status` prints and what `assay job submit`
// resubmits.
//
// Example:
//   RegistryStatus s = registry_status(reg);
//   s.count(JobState::missing);        // jobs to run again
//   std::cout << status_text(reg, s, false);   // counts, failed jobs with errors, missing ones
//
// A job is done when results/JOB.json exists. A running marker counts as running when its
// process is alive on this host, or its Slurm array task is pending or running in squeue; a
// marker left by a process that is gone (killed, node lost, scancel) makes the job missing,
// "interrupted". Jobs of a submission whose array task is still in squeue are queued or running.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "assay/batch/registry.hpp"
#include "assay/core/json.hpp"
#include "assay/core/table.hpp"

namespace assay::batch {

enum class JobState { done, running, queued, failed, missing };

/// "done", "running", "queued", "failed", "missing".
const char* to_string(JobState state);

struct JobStatus {
  std::size_t job = 0;
  JobState state = JobState::missing;
  /// Failed attempts so far.
  std::size_t failed_attempts = 0;
  /// failed: the last error; running/queued: where; missing: why, when known.
  std::string detail;
  /// done: where and how it ran; running: the marker.
  std::optional<JobProvenance> provenance;
};

struct RegistryStatus {
  std::vector<JobStatus> jobs;  ///< jobs[J-1] is job J
  /// What squeue/sacct said ("" when there were no submissions).
  std::string slurm;
  /// False when there were submissions but squeue could not be read: queued jobs then look
  /// missing (and submit refuses to resubmit).
  bool queue_readable = true;
  std::size_t count(JobState state) const;
};

/// Reads results, markers, failures and Slurm's queue.
RegistryStatus registry_status(const Registry& registry);

/// Counts on one line, then the failed jobs with their errors, then the missing ones (ranges,
/// with the reason of interrupted ones); with `list_jobs` every job on a line.
std::string status_text(const Registry& registry, const RegistryStatus& status, bool list_jobs);

/// {"registry", "jobs", "counts": {...}, "slurm", "status": [{job, state, attempts, detail,
/// seconds, peak_rss_bytes, host}...]}.
Json status_json(const Registry& registry, const RegistryStatus& status);

/// The job table with the state of every job, its failed attempts, measured wall and CPU seconds
/// and peak memory (MB) of done jobs, host and detail.
Table status_table(const Registry& registry, const RegistryStatus& status);

}  // namespace assay::batch
