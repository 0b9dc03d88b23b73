// Who may run a job: each job of a registry is run by at most one worker at a time, however many
// `assay job run` processes, Slurm array tasks or MPI runs work on the registry at once, on one
// host or on several sharing the folder.
//
// Example:
//   JobProvenance me = provenance_here(1);
//   ClaimAttempt a = claim_job(reg, 17, me, /*reclaim=*/false);
//   if (a.claimed)   // run job 17 (unit 16); writing its result releases the claim
//     reg.write_result(17, run_unit(reg.definition(), loaded, 16, 1), me);
//   else
//     std::cerr << a.why_not;   // "claimed by pid 4242 on this host since ..."
//
// A worker claims a job by creating running/JOB.json exclusively (Registry::claim) before it runs
// it, and removes the claim when the result (or the failure) is written. A claim whose holder is
// gone — killed, its node lost, the host restarted — is taken over:
//   - on the holder's host: its pid is not alive, or now names another process (start time), or
//     the host has restarted since (boot id);
//   - a Slurm array task on another host: squeue no longer lists it, or it was an earlier run of
//     this very task (requeued after a node failure: SLURM_RESTART_COUNT is higher now);
//   - any other holder on another host cannot be checked from here: its job is left alone unless
//     `reclaim` (`assay job run --reclaim`) says that holder is gone.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "assay/batch/registry.hpp"

namespace assay::batch {

/// Whether a claim's holder still runs: alive, gone, or unknown (another host, not checkable).
enum class Holder { alive, gone, unknown };

struct HolderCheck {
  Holder state = Holder::unknown;
  /// Who holds the claim and since when: "pid 4242 on this host since T", "pid 4242 on node7
  /// since T", "Slurm task 42_3 (pid 4242 on node7) since T".
  std::string who;
  /// Gone or unknown: why ("the process is gone", "the host has restarted since", "squeue no
  /// longer lists it", "another host, which this one cannot check").
  std::string why;
};

/// Answers "is Slurm array task JOB_TASK pending or running?"; nullopt when nobody can tell.
using SlurmQueueLookup =
    std::function<std::optional<bool>(const std::string& job_id, const std::string& task_id)>;

/// Judges a claim's holder as described above. `in_queue` defaults to asking squeue.
HolderCheck check_holder(const JobClaim& claim, const SlurmQueueLookup& in_queue = {});

struct ClaimAttempt {
  bool claimed = false;
  /// Not claimed: why ("running: pid 4242 on this host since T", or the holder that cannot be
  /// checked and how to take it over).
  std::string why_not;
  /// Claimed by taking over a stale claim: whose ("took over the claim of pid 17 on h since T:
  /// the process is gone").
  std::string note;
};

/// Claims `job` for `me` (this process): a new claim, or the take-over of a claim whose holder is
/// gone; with `reclaim`, also of a holder that cannot be checked from here.
ClaimAttempt claim_job(const Registry& registry, std::size_t job, const JobProvenance& me,
                       bool reclaim);

}  // namespace assay::batch
