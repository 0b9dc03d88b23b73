// MPI for batch runs (an optional build component: built when CMake finds MPI, e.g. Debian's
// OpenMPI; the CLI then runs `mpirun -n N assay soak|cv ...` across the ranks).
//
// Example (in main(argc, argv)):
//   std::optional<mpi::Session> session;
//   if (batch::launched_by_mpi()) session.emplace(argc, argv);   // MPI_Init_thread
//   auto d = mpi::world_distributor();                          // over MPI_COMM_WORLD
//   auto outcome = batch::run_distributed(def, *d, params);
//   // leaving main: ~Session calls MPI_Finalize
//
// Protocol (MPI_COMM_WORLD, tags below): a worker sends READY, then receives JOB (a 64-bit job
// number) or STOP; after a job it sends RESULT (the job number, then the payload bytes) and
// waits for the next JOB or STOP. Rank 0 answers every READY/RESULT with the next job of the
// queue, or STOP when it is empty, and runs jobs itself on a worker thread; only its calling
// thread makes MPI calls (MPI_THREAD_FUNNELED), polling with MPI_Iprobe and sleeping 1 ms when
// idle so that it does not take a core from the workers.
#pragma once

#include <memory>

#include "assay/batch/distributed.hpp"

namespace assay::mpi {

/// MPI_Init_thread(FUNNELED) on construction, MPI_Finalize on destruction. Throws assay::Error
/// when MPI cannot start or lacks FUNNELED support.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

/// A JobDistributor over MPI_COMM_WORLD. Requires: a live Session.
std::unique_ptr<batch::JobDistributor> world_distributor();

}  // namespace assay::mpi
