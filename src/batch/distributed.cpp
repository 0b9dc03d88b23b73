#include "assay/batch/distributed.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "assay/batch/registry.hpp"
#include "assay/core/error.hpp"
#include "assay/core/json.hpp"
#include "assay/core/progress.hpp"
#include "assay/core/thread_pool.hpp"
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

// Rank 0: the jobs without a result, longest first.
std::vector<std::size_t> job_order(const LoadedExperiment& loaded, const Registry* registry) {
  const std::vector<JobInfo> table = job_table(loaded);
  std::vector<std::size_t> order;
  for (std::size_t job = 1; job <= table.size(); ++job) {
    if (!registry || !registry->has_result(job)) order.push_back(job);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return table[a - 1].cost > table[b - 1].cost;
  });
  return order;
}

}  // namespace

std::optional<ExperimentOutcome> run_distributed(const ExperimentDefinition& def, JobDistributor& d,
                                                 const DistributedParams& params) {
  Prepared prep = prepare(def, d, params);
  const int threads = threads_per_rank(params.threads);
  const Registry* registry = prep.registry ? &*prep.registry : nullptr;
  std::vector<std::size_t> order;
  std::unique_ptr<Gatherer> gatherer;
  if (d.rank() == 0) {
    order = job_order(prep.loaded, registry);
    gatherer = std::make_unique<Gatherer>(prep.loaded.n_units(), order.size(), registry,
                                          to_string(def.kind));
  }
  d.distribute(
      order, [&](std::size_t job) { return run_job(def, prep.loaded, job, threads, d.rank()); },
      [&](std::size_t job, int rank, const std::string& payload) {
        gatherer->receive(job, rank, payload);
      });
  if (d.rank() != 0) return std::nullopt;
  std::vector<soak::SoakUnitResult> units = gatherer->finish();
  if (registry) return collect(*registry);
  return outcome_from_units(def, std::move(prep.loaded), std::move(units));
}

}  // namespace assay::batch
