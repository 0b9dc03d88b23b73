// A batch registry: a folder that holds one experiment's definition, its job table and one
// result file per finished job, so that the jobs can run anywhere (Slurm array tasks, MPI ranks,
// several machines sharing the folder), in any order, be interrupted and resumed, and be
// collected into exactly what the one-machine run writes.
//
// Layout of DIR:
//   registry.json          format, assay version, experiment (batch/experiment.hpp), inputs with
//                          size and SHA-256, id (SHA-256 of experiment + inputs), default --out
//   jobs.csv               the job table: job (1-based), data, learner, test.subset,
//                          train.subsets, test.fold, seed, n.train.groups, iteration, n_train,
//                          n_test, cost (relative: n_train x features x classes)
//   results/JOB.json       a finished job: the row and provenance (host, pid, Slurm/MPI ids,
//                          start/end, seconds, peak memory, attempt); written atomically
//   running/JOB.json       a job's claim: the worker running it (host, boot, pid and its start
//                          time, start, attempt, Slurm ids), created atomically and exclusively,
//                          so that every job runs in at most one worker at a time
//   failed/JOB.json        the failed attempts of a job, each with its error
//   results/JOB.json.damaged-TIME   a result that could not be read, set aside (never deleted)
//   slurm/, logs/          sbatch scripts and their job lists, Slurm's output files
// Job J is unit J−1 of soak::SoakUnits: its seed and row do not depend on where it runs.
//
// Example:
//   Registry reg = Registry::plan("reg", def, "out");   // or Registry::open("reg")
//   LoadedExperiment loaded = reg.load();               // checks input checksums, reads data
//   run_jobs(reg, loaded, {1, 2, 3}, JobRunParams{.threads = 1});   // batch/job_runner.hpp
//   ExperimentOutcome out = collect(reg);               // refuses unless all done and matching
//   write_outputs(def, out, reg.out());                 // batch/experiment.hpp
//
// Requires: one registry per folder; result files are only written by job runners.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "assay/batch/experiment.hpp"
#include "assay/core/json.hpp"

namespace assay::batch {

/// This build's version ("0.1.0"): a registry planned by another version is refused.
const std::string& assay_version();

/// One input file of the experiment.
struct RegistryInput {
  std::string path;  ///< absolute
  std::uintmax_t bytes = 0;
  std::string sha256;
};

/// One row of the job table.
struct JobInfo {
  std::size_t job = 0;  ///< 1-based
  std::string data, learner, test_subset;
  soak::TrainSubsets train_subsets = soak::TrainSubsets::same;
  std::int32_t test_fold = 1, seed = 1;
  std::int64_t n_train_groups = 0;
  std::size_t iteration = 0, n_train = 0, n_test = 0;
  /// Relative cost estimate: n_train x features x classes (1 for regression). Used to hand out
  /// long jobs first.
  double cost = 0;
};

/// Where and how a job ran (a result's or a failed attempt's provenance).
struct JobProvenance {
  std::string host;
  std::int64_t pid = 0;
  std::string started, finished;  ///< UTC, ISO 8601 with milliseconds
  double seconds = 0;
  /// User + system CPU seconds of the process that ran the job (its learner threads included);
  /// NaN when unknown. On a shared machine the load-independent cost.
  double cpu_seconds = std::numeric_limits<double>::quiet_NaN();
  std::int64_t peak_rss_bytes = 0;  ///< of the process that ran the job
  std::size_t attempt = 1;
  std::string slurm_job_id, slurm_array_task_id;
  int mpi_rank = -1;
};

/// A job's claim (running/JOB.json): who runs the job now. The pid's start time and the host's
/// boot id tell a live holder from a reused pid or an earlier boot.
struct JobClaim {
  JobProvenance holder;
  std::string boot_id;
  std::uint64_t process_start = 0;  ///< clock ticks since boot; 0 = unknown
  /// The holder's SLURM_RESTART_COUNT: a later run of the same array task (requeued) has more.
  std::uint64_t slurm_restart = 0;
  std::string token;   ///< unique per claim
  std::string text;    ///< the file's bytes as read
  std::string damage;  ///< why the file could not be read ("" = it could)
};

/// What results/JOB.json holds: nothing, a valid result of this job, or a damaged one (with why).
enum class ResultState { none, valid, damaged };
struct ResultCheck {
  ResultState state = ResultState::none;
  /// damaged: the located reason, e.g. "reg/results/000017.json:1:12: expected a number within
  /// the range of a double, found 1e400".
  std::string damage;
};

Json provenance_json(const JobProvenance& p);
JobProvenance provenance_from_json(const Json& json, const std::string& where);

/// A unit's result as stored in results/JOB.json (every double round-trips exactly).
Json unit_result_json(const soak::SoakUnitResult& unit);
soak::SoakUnitResult unit_result_from_json(const Json& json, const std::string& where);

class Registry {
 public:
  /// Creates the registry in `dir` (created if missing, must be empty or hold no registry.json)
  /// for `def`, reading its inputs to list the jobs; `out` (may be empty) is where collect
  /// writes by default. If `dir` already holds a registry of the same experiment and inputs it
  /// is opened instead (its results are kept: resume); one of another experiment, other inputs
  /// or another version is an error naming what differs.
  static Registry plan(const std::string& dir, const ExperimentDefinition& def,
                       const std::string& out);

  /// Opens an existing registry. Throws assay::Error for a missing folder, a folder without
  /// registry.json, a file that is not an assay registry, or one planned by another version.
  static Registry open(const std::string& dir);

  const std::filesystem::path& dir() const { return dir_; }
  const ExperimentDefinition& definition() const { return definition_; }
  /// SHA-256 of the experiment and its inputs: every result file carries it.
  const std::string& id() const { return id_; }
  const std::vector<RegistryInput>& inputs() const { return inputs_; }
  const std::vector<JobInfo>& jobs() const { return jobs_; }
  std::size_t n_jobs() const { return jobs_.size(); }
  /// Default output folder of collect ("" if none was given when planning).
  const std::string& out() const { return out_; }
  /// The registry.json document.
  const Json& document() const { return document_; }

  /// Throws assay::Error unless 1 <= job <= n_jobs() ("job 0 is out of range: DIR has jobs 1..N").
  void check_job(std::size_t job) const;
  /// Throws assay::Error naming the first input whose size or SHA-256 differs from the plan's.
  void check_inputs() const;
  /// check_inputs(), then reads the data and builds the tasks and learners.
  LoadedExperiment load() const;

  std::filesystem::path result_path(std::size_t job) const;
  std::filesystem::path running_path(std::size_t job) const;
  std::filesystem::path failed_path(std::size_t job) const;

  /// Whether results/JOB.json holds a valid result of this job (check_result(job) is valid).
  bool has_result(std::size_t job) const;
  /// Reads and validates results/JOB.json (see read_result) without throwing: a file that is
  /// not a result of this job (garbage, a folder, 1e400, another registry's, another job's) is
  /// damaged, with the reason.
  ResultCheck check_result(std::size_t job) const;
  /// Moves a damaged results/JOB.json aside to results/JOB.json.damaged-<UTC time>, so that the
  /// job can run again and the file is kept for a look; returns the new path.
  std::filesystem::path set_aside(const std::filesystem::path& damaged) const;
  /// Reads and validates results/JOB.json: it must belong to this registry (id, job number,
  /// version) and be this job's row (data set, learner, split). Throws assay::Error naming the
  /// file (and line:column for JSON that does not parse) otherwise.
  soak::SoakUnitResult read_result(std::size_t job, JobProvenance* provenance = nullptr) const;
  /// Writes results/JOB.json atomically and releases this process's claim of the job.
  void write_result(std::size_t job, const soak::SoakUnitResult& unit,
                    const JobProvenance& provenance) const;
  /// Appends a failed attempt to failed/JOB.json (atomically). Throws assay::Error naming the
  /// file when failed/JOB.json is damaged.
  void record_failure(std::size_t job, const std::string& error,
                      const JobProvenance& provenance) const;
  /// The failed attempts of a job (error and provenance), oldest first. Throws assay::Error
  /// naming the file when failed/JOB.json is damaged.
  std::vector<std::pair<std::string, JobProvenance>> failures(std::size_t job) const;

  /// Claims a job for this process (batch/claims.cpp): creates running/JOB.json holding
  /// `holder`, this host's boot id and this process's start time, exclusively — a complete
  /// temporary file hard-linked to the name, which fails when the name exists (atomic on local
  /// file systems and NFS). False when the job is claimed already.
  bool claim(std::size_t job, const JobProvenance& holder) const;
  /// The job's claim, if any (a file that cannot be read has `damage` set).
  std::optional<JobClaim> claim_of(std::size_t job) const;
  /// Takes over `stale`, a claim whose holder is gone: moves the file away atomically, checks
  /// that it is still the claim that was judged stale (else puts it back), then claims the job.
  /// False when another worker was quicker.
  bool take_over(std::size_t job, const JobClaim& stale, const JobProvenance& holder) const;
  /// Removes the job's claim if this process holds it (same host and pid).
  void release(std::size_t job) const;
  /// The holder of the job's claim, if any and readable.
  std::optional<JobProvenance> running(std::size_t job) const;

 private:
  Registry() = default;
  void read_document();
  std::filesystem::path dir_;
  Json document_;
  ExperimentDefinition definition_;
  std::string id_, out_;
  std::vector<RegistryInput> inputs_;
  std::vector<JobInfo> jobs_;
};

/// What `assay soak ... --plan DIR` prints: the registry, its jobs (and how many are done when
/// it was planned before), and the commands that run and collect them.
std::string plan_text(const Registry& registry);

/// The job table of a loaded experiment (job J = unit J−1).
std::vector<JobInfo> job_table(const LoadedExperiment& loaded);

/// Reads every result (each validated), gives the warnings of the one-process run and returns
/// the outcome. Throws assay::Error if a job has no result (naming how many and the first ones,
/// and pointing to `assay job status`).
ExperimentOutcome collect(const Registry& registry);

}  // namespace assay::batch
