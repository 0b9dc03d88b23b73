// One experiment run by several cooperating processes (MPI ranks): `mpirun -n N assay soak ...`.
//
// Example (d: *mpi::world_distributor() of assay/mpi/distributor.hpp, in an MPI build):
//   auto outcome = run_distributed(def, d, {.threads = 1, .registry = "reg"});
//   if (outcome) write_outputs(def, *outcome, "out");               // rank 0 only
//
// Every rank reads the data once and builds the same tasks. Rank 0 hands out units one at a
// time, longest first (JobInfo::cost), to every rank including itself (a worker thread beside
// the coordinating one), and gathers the rows; units are the same as in the one-process run
// (same numbering, same seeds), so the outputs are identical bit for bit. With a registry,
// rank 0 plans it (or reopens the same plan), hands out only the jobs without a result, writes
// each result into it as it arrives, and collects from it at the end: a killed run, rerun,
// continues where it stopped. Without one, a rank that dies loses the run (mpirun stops every
// rank); with one, only the jobs in flight are lost.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "assay/batch/experiment.hpp"

namespace assay::batch {

/// Hands out jobs among cooperating processes; implemented over MPI by assay/mpi.
class JobDistributor {
 public:
  virtual ~JobDistributor() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Collective: true on every rank when `flag` is true on any rank.
  virtual bool any(bool flag) = 0;
  /// Collective: rank 0's `flag` on every rank.
  virtual bool broadcast(bool flag) = 0;
  /// Collective. Rank 0 hands out the entries of `order` (only rank 0's `order` is used) to
  /// every rank, itself included; each rank calls run(job) for the jobs it gets and the payload
  /// it returns goes back to rank 0, which calls on_result(job, rank, payload) on its calling
  /// thread, in arrival order. Returns on every rank when all jobs are done.
  virtual void distribute(
      const std::vector<std::size_t>& order, const std::function<std::string(std::size_t)>& run,
      const std::function<void(std::size_t, int, const std::string&)>& on_result) = 0;
};

/// Thrown on the ranks that must exit with an error without a message of their own (rank 0
/// prints the reason).
class QuietFailure : public std::runtime_error {
 public:
  QuietFailure() : std::runtime_error("failed on another rank") {}
};

struct DistributedParams {
  /// Threads of each rank's learner (0 = this host's cores divided among the ranks on it).
  int threads = 0;
  /// Registry folder ("" = none): planned or reopened by rank 0, see above.
  std::string registry;
  /// Default output folder recorded in a new registry.
  std::string out;
};

/// Runs the experiment over the distributor's ranks (see above). Returns the outcome on rank 0
/// and nullopt elsewhere. Throws assay::Error on the rank(s) that failed to load the experiment
/// or plan the registry (QuietFailure on the others), and on rank 0 when a job failed (naming
/// it and the rank).
std::optional<ExperimentOutcome> run_distributed(const ExperimentDefinition& def,
                                                 JobDistributor& distributor,
                                                 const DistributedParams& params);

/// Whether this process was started by an MPI launcher (mpirun/mpiexec/srun with PMI): the
/// launcher's environment variables (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK).
bool launched_by_mpi();

/// Ranks on this host according to the launcher (OMPI_COMM_WORLD_LOCAL_SIZE), else 1.
int local_ranks();

}  // namespace assay::batch
