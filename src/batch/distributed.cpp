#include "assay/batch/distributed.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "assay/batch/claims.hpp"
#include "assay/batch/job_runner.hpp"
#include "assay/batch/registry.hpp"
#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/thread_pool.hpp"
#include "assay/core/warning.hpp"
#include "system.hpp"

namespace assay::batch {
namespace {

// What each rank prepares before any job runs; the first error is kept to rethrow.
struct Prepared {
  LoadedExperiment loaded;
  std::optional<Registry> registry;
  std::string error;
};

// Rank 0 plans (or reopens) the registry; every rank loads the experiment. Failures are agreed
// on collectively so that no rank waits for one that gave up.
Prepared prepare(const ExperimentDefinition& def, JobDistributor& d, const DistributedParams& p) {
  Prepared out;
  try {
    if (d.rank() == 0 && !p.registry.empty()) {
      out.registry = Registry::plan(p.registry, def, p.out);
      out.loaded = out.registry->load();
    } else {
      out.loaded = load_experiment(def);
    }
  } catch (const Error& e) {
    out.error = e.what();
  }
  const bool failed_here = !out.error.empty();
  const bool any_failed = d.any(failed_here);
  const bool rank0_failed = d.broadcast(failed_here);
  if (!any_failed) return out;
  if (d.rank() == 0) {
    if (failed_here) throw Error(out.error);
    throw Error("another MPI rank could not load the experiment (its message is above)");
  }
  if (failed_here && !rank0_failed) throw Error(fmt::format("rank {}: {}", d.rank(), out.error));
  throw QuietFailure();
}

int threads_per_rank(int requested) {
  if (requested > 0) return requested;
  return std::max(1, default_threads() / std::max(1, local_ranks()));
}

// A worker's payload: "R" + {"result", "provenance"} or "E" + the error.
std::string run_job(const ExperimentDefinition& def, const LoadedExperiment& loaded,
                    std::size_t job, int threads, int rank) {
  JobProvenance prov;
  prov.host = detail::host_name();
  prov.pid = static_cast<std::int64_t>(::getpid());
  prov.started = detail::utc_now();
  prov.mpi_rank = rank;
  detail::reset_peak_rss();
  const double cpu_start = detail::process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  try {
    const soak::SoakUnitResult unit = run_unit(def, loaded, job - 1, threads);
    prov.finished = detail::utc_now();
    prov.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    prov.peak_rss_bytes = detail::peak_rss_bytes();
    prov.cpu_seconds = detail::process_cpu_seconds() - cpu_start;
    return "R" +
           dump_json(
               Json{{"result", unit_result_json(unit)}, {"provenance", provenance_json(prov)}}, -1);
  } catch (const std::exception& e) {
    return std::string("E") + e.what();
  }
}

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

int local_ranks() {
  const char* n = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  return n ? std::max(1, std::atoi(n)) : 1;
}

namespace {

// Rank 0's side: the rows as they arrive (written into the registry at once when there is one).
// Never throws while jobs are handed out (the other ranks would wait forever): the first
// problem is kept and thrown by finish().
class Gatherer {
 public:
  Gatherer(std::size_t n_units, std::size_t n_jobs, const Registry* registry, const char* task)
      : units_(n_units), registry_(registry), progress_(task, n_jobs) {}

  void receive(std::size_t job, int rank, const std::string& payload) {
    progress_.advance();
    try {
      store(job, rank, payload);
    } catch (const std::exception& e) {
      if (first_error_.empty())
        first_error_ = fmt::format("job {} from MPI rank {}: {}", job, rank, e.what());
    }
  }

  std::vector<soak::SoakUnitResult> finish() {
    progress_.finish();
    if (!first_error_.empty()) throw Error(first_error_);
    return std::move(units_);
  }

 private:
  void store(std::size_t job, int rank, const std::string& payload) {
    if (payload.empty() || payload[0] != 'R') {
      const std::string error = payload.empty() ? "no result" : payload.substr(1);
      if (first_error_.empty())
        first_error_ = fmt::format("job {} failed on MPI rank {}: {}", job, rank, error);
      if (registry_) {
        JobProvenance p;
        p.mpi_rank = rank;
        p.finished = detail::utc_now();
        registry_->record_failure(job, error, p);
        registry_->release(job);
      }
      return;
    }
    const Json doc = Json::parse(payload.substr(1));
    const std::string where = fmt::format("result of job {} from MPI rank {}", job, rank);
    units_[job - 1] = unit_result_from_json(doc.at("result"), where);
    if (registry_) {
      registry_->write_result(job, units_[job - 1],
                              provenance_from_json(doc.at("provenance"), where));
    }
  }

  std::vector<soak::SoakUnitResult> units_;
  const Registry* registry_;
  Progress progress_;
  std::string first_error_;
};

// Rank 0's jobs: those without a result, longest first. With a registry each is claimed for
// this run first (batch/claims.hpp), so that no other worker runs it meanwhile; jobs that a live
// worker holds are left to it and listed in `elsewhere`, damaged results are moved aside.
struct JobOrder {
  std::vector<std::size_t> jobs;
  std::vector<std::pair<std::size_t, std::string>> elsewhere;   ///< (job, why not claimed)
  std::vector<std::pair<std::size_t, std::string>> taken_over;  ///< (job, whose stale claim)
  std::string error;  ///< thrown after the (empty) distribution, so no rank waits forever
};

// One warning for the stale claims taken over (a killed run leaves one per job it had).
void warn_taken_over(const std::vector<std::pair<std::size_t, std::string>>& taken_over) {
  if (taken_over.empty()) return;
  std::vector<std::size_t> jobs;
  for (const auto& [job, note] : taken_over) jobs.push_back(job);
  warn(fmt::format("job{} {}: {}{}", jobs.size() == 1 ? "" : "s", detail::ranges(jobs),
                   taken_over.front().second,
                   jobs.size() == 1 ? "" : " (the first; the others alike)"));
}

JobOrder job_order(const LoadedExperiment& loaded, const Registry* registry) {
  const std::vector<JobInfo> table = job_table(loaded);
  JobOrder out;
  try {
    JobProvenance me = provenance_here(1);
    me.mpi_rank = 0;
    for (std::size_t job = 1; job <= table.size(); ++job) {
      if (registry == nullptr) {
        out.jobs.push_back(job);
        continue;
      }
      if (registry->has_result(job)) continue;
      const ClaimAttempt claim = claim_job(*registry, job, me, /*reclaim=*/false);
      if (!claim.claimed) {
        out.elsewhere.emplace_back(job, claim.why_not);
        continue;
      }
      if (!claim.note.empty()) out.taken_over.emplace_back(job, claim.note);
      if (const ResultCheck r = registry->check_result(job); r.state == ResultState::damaged) {
        const auto moved = registry->set_aside(registry->result_path(job));
        warn(fmt::format("job {}: damaged result moved to {} ({}); running the job again", job,
                         moved.string(), r.damage));
      }
      out.jobs.push_back(job);
    }
  } catch (const std::exception& e) {
    out.error = e.what();
    if (registry) {
      for (std::size_t job : out.jobs) registry->release(job);
    }
    out.jobs.clear();
  }
  warn_taken_over(out.taken_over);
  std::stable_sort(out.jobs.begin(), out.jobs.end(), [&](std::size_t a, std::size_t b) {
    return table[a - 1].cost > table[b - 1].cost;
  });
  return out;
}

// Jobs left to other workers that have not finished yet: an error naming them.
void check_left_to_others(const Registry& registry,
                          const std::vector<std::pair<std::size_t, std::string>>& elsewhere) {
  std::size_t unfinished = 0;
  std::string list;
  for (const auto& [job, why] : elsewhere) {
    if (registry.has_result(job)) continue;
    if (++unfinished <= 3) list += fmt::format("{}job {}: {}", list.empty() ? "" : "; ", job, why);
  }
  if (unfinished == 0) return;
  fail(
      "{} job{} of {} {} claimed by other workers and not done yet ({}{}); run this command "
      "again (or `assay job collect {}`) when they are",
      unfinished, unfinished == 1 ? "" : "s", registry.dir().string(),
      unfinished == 1 ? "is" : "are", list, unfinished > 3 ? "; ..." : "", registry.dir().string());
}

}  // namespace

std::optional<ExperimentOutcome> run_distributed(const ExperimentDefinition& def, JobDistributor& d,
                                                 const DistributedParams& params) {
  Prepared prep = prepare(def, d, params);
  const int threads = threads_per_rank(params.threads);
  const Registry* registry = prep.registry ? &*prep.registry : nullptr;
  JobOrder order;
  std::unique_ptr<Gatherer> gatherer;
  if (d.rank() == 0) {
    order = job_order(prep.loaded, registry);
    gatherer = std::make_unique<Gatherer>(prep.loaded.n_units(), order.jobs.size(), registry,
                                          to_string(def.kind));
  }
  d.distribute(
      order.jobs,
      [&](std::size_t job) { return run_job(def, prep.loaded, job, threads, d.rank()); },
      [&](std::size_t job, int rank, const std::string& payload) {
        gatherer->receive(job, rank, payload);
      });
  if (d.rank() != 0) return std::nullopt;
  std::vector<soak::SoakUnitResult> units = gatherer->finish();
  if (!order.error.empty()) throw Error(order.error);
  if (registry) {
    check_left_to_others(*registry, order.elsewhere);
    return collect(*registry);
  }
  return outcome_from_units(def, std::move(prep.loaded), std::move(units));
}

}  // namespace assay::batch
