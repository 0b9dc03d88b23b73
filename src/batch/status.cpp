#include "assay/batch/status.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "assay/batch/claims.hpp"
#include "assay/batch/job_runner.hpp"
#include "assay/batch/slurm.hpp"
#include "assay/core/error.hpp"
#include "system.hpp"

namespace assay::batch {
namespace {

// Registry job -> (Slurm array task, its state) for tasks still in the queue.
std::map<std::size_t, std::string> queued_jobs(const Registry& registry,
                                               const std::vector<Submission>& subs,
                                               const std::vector<SlurmTask>& queue) {
  std::map<std::string, const Submission*> by_id;
  for (const auto& s : subs) by_id[s.slurm_job_id] = &s;
  std::map<std::size_t, std::string> out;
  for (const auto& t : queue) {
    const auto it = by_id.find(t.job_id);
    if (it == by_id.end()) continue;
    const std::size_t task = std::stoull(t.task_id);
    const Submission& s = *it->second;
    if (task < 1 || task > s.tasks) continue;
    for (std::size_t job : chunk_of(s.jobs, task, s.chunk)) {
      out[job] = fmt::format("{} (Slurm {}_{})", t.state, t.job_id, t.task_id);
    }
  }
  (void)registry;
  return out;
}

// Why a missing job's last Slurm task ended, from sacct (when accounting is on).
std::map<std::size_t, std::string> accounted_jobs(const std::vector<Submission>& subs) {
  std::map<std::size_t, std::string> out;
  std::vector<std::string> ids;
  for (const auto& s : subs) ids.push_back(s.slurm_job_id);
  const auto states = slurm_accounting(ids);
  if (!states) return out;
  std::map<std::string, std::string> by_task(states->begin(), states->end());
  for (const auto& s : subs) {
    for (std::size_t task = 1; task <= s.tasks; ++task) {
      const auto it = by_task.find(fmt::format("{}_{}", s.slurm_job_id, task));
      if (it == by_task.end()) continue;
      for (std::size_t job : chunk_of(s.jobs, task, s.chunk)) {
        out[job] = fmt::format("Slurm {}: {}", it->first, it->second);
      }
    }
  }
  return out;
}

// squeue's answer for one array task: from the queue read once for the whole status when the
// task belongs to one of the registry's submissions, else from squeue itself (a job run by hand
// inside a Slurm allocation).
SlurmQueueLookup queue_lookup(const std::optional<std::vector<SlurmTask>>& queue,
                              const std::vector<Submission>& subs) {
  return [&queue, &subs](const std::string& job_id,
                         const std::string& task_id) -> std::optional<bool> {
    const bool ours = std::any_of(subs.begin(), subs.end(),
                                  [&](const Submission& s) { return s.slurm_job_id == job_id; });
    if (!ours) return slurm_task_in_queue(job_id, task_id);
    if (!queue) return std::nullopt;
    return std::any_of(queue->begin(), queue->end(), [&](const SlurmTask& t) {
      return t.job_id == job_id && t.task_id == task_id;
    });
  };
}

// A job whose claim's holder still runs (or cannot be checked) is running; one whose holder is
// gone is missing, "interrupted".
bool claimed_status(const JobClaim& claim, const SlurmQueueLookup& lookup, bool in_queue,
                    JobStatus& s) {
  const JobProvenance& h = claim.holder;
  const HolderCheck holder = check_holder(claim, lookup);
  if (holder.state != Holder::gone || in_queue) {
    s.state = JobState::running;
    s.provenance = h;
    s.detail = fmt::format("on {} (pid {}) since {}{}{}", h.host, h.pid, h.started,
                           h.slurm_job_id.empty() ? ""
                                                  : fmt::format(", Slurm {}_{}", h.slurm_job_id,
                                                                h.slurm_array_task_id),
                           holder.state == Holder::unknown ? fmt::format(" ({})", holder.why) : "");
    return true;
  }
  s.detail = claim.damage.empty()
                 ? fmt::format("interrupted: was running on {} (pid {}) since {}; {}", h.host,
                               h.pid, h.started, holder.why)
                 : fmt::format("interrupted: its claim file is damaged ({})", claim.damage);
  return false;
}

JobStatus status_of(const Registry& registry, std::size_t job,
                    const std::map<std::size_t, std::string>& queued,
                    const std::map<std::size_t, std::string>& accounted,
                    const SlurmQueueLookup& lookup) {
  JobStatus s;
  s.job = job;
  std::string failure;
  try {
    const auto failures = registry.failures(job);
    s.failed_attempts = failures.size();
    if (!failures.empty()) failure = failures.back().first;
  } catch (const Error& e) {
    failure = fmt::format("damaged failure record: {}", e.what());
  }
  const ResultCheck result = registry.check_result(job);
  if (result.state == ResultState::valid) {
    JobProvenance p;
    registry.read_result(job, &p);
    s.state = JobState::done;
    s.provenance = p;
    return s;
  }
  if (const auto claim = registry.claim_of(job)) {
    if (claimed_status(*claim, lookup, queued.count(job) > 0, s)) return s;
  }
  if (const auto it = queued.find(job); it != queued.end()) {
    s.state = it->second.rfind("PENDING", 0) == 0 ? JobState::queued : JobState::running;
    s.detail = it->second;
    return s;
  }
  if (result.state == ResultState::damaged) {
    s.state = JobState::failed;
    s.detail = fmt::format(
        "damaged result: {}; `assay job run {} --job {}` moves it aside and runs the job again",
        result.damage, registry.dir().string(), job);
    return s;
  }
  if (!failure.empty()) {
    s.state = JobState::failed;
    s.detail = failure;
    return s;
  }
  s.state = JobState::missing;
  if (s.detail.empty()) {
    if (const auto it = accounted.find(job); it != accounted.end()) s.detail = it->second;
  }
  return s;
}

}  // namespace

const char* to_string(JobState state) {
  switch (state) {
    case JobState::done:
      return "done";
    case JobState::running:
      return "running";
    case JobState::queued:
      return "queued";
    case JobState::failed:
      return "failed";
    case JobState::missing:
      return "missing";
  }
  return "?";
}

std::size_t RegistryStatus::count(JobState state) const {
  std::size_t n = 0;
  for (const auto& j : jobs) n += j.state == state;
  return n;
}

RegistryStatus registry_status(const Registry& registry) {
  RegistryStatus status;
  std::vector<Submission> subs;
  try {
    subs = submissions(registry);
  } catch (const Error& e) {
    status.slurm = fmt::format(
        "{}; the earlier Slurm submissions are unknown, so their queued jobs show as missing "
        "(`assay job submit` moves the file aside)",
        e.what());
  }
  std::map<std::size_t, std::string> queued, accounted;
  std::optional<std::vector<SlurmTask>> queue;
  if (!subs.empty()) {
    std::string why;
    queue = slurm_queue(registry, &why);
    if (queue) {
      queued = queued_jobs(registry, subs, *queue);
    } else {
      status.queue_readable = false;
      why += "; jobs of earlier submissions may be queued although shown as missing";
    }
    status.slurm = why;
    accounted = accounted_jobs(subs);
  }
  const SlurmQueueLookup lookup = queue_lookup(queue, subs);
  for (std::size_t job = 1; job <= registry.n_jobs(); ++job) {
    status.jobs.push_back(status_of(registry, job, queued, accounted, lookup));
  }
  return status;
}

namespace {

std::string job_label(const JobInfo& j) {
  return fmt::format("{} on {}, {} train, test subset {}, fold {}", j.learner, j.data,
                     soak::to_string(j.train_subsets), j.test_subset, j.test_fold);
}

}  // namespace

std::string status_text(const Registry& registry, const RegistryStatus& status, bool list_jobs) {
  std::string out =
      fmt::format("registry {}: {}, {} jobs, planned by assay {}\n", registry.dir().string(),
                  registry.definition().title, registry.n_jobs(), assay_version());
  out += fmt::format("done {}, running {}, queued {}, failed {}, missing {}\n",
                     status.count(JobState::done), status.count(JobState::running),
                     status.count(JobState::queued), status.count(JobState::failed),
                     status.count(JobState::missing));
  if (!status.slurm.empty()) out += status.slurm + "\n";
  std::vector<std::size_t> missing;
  for (const auto& j : status.jobs) {
    if (j.state == JobState::failed) {
      const std::string attempts =
          j.failed_attempts == 0  // a damaged result: no attempt failed
              ? ""
              : fmt::format(", {} attempt{}", j.failed_attempts, j.failed_attempts == 1 ? "" : "s");
      out += fmt::format("failed: job {} ({}){}: {}\n", j.job,
                         job_label(registry.jobs()[j.job - 1]), attempts, j.detail);
    }
    if (j.state == JobState::missing) missing.push_back(j.job);
  }
  if (!missing.empty()) {
    out += fmt::format("missing: jobs {}\n", detail::ranges(missing));
    for (const auto& j : status.jobs) {
      if (j.state == JobState::missing && !j.detail.empty()) {
        out += fmt::format("  job {}: {}\n", j.job, j.detail);
      }
    }
  }
  if (list_jobs) {
    for (const auto& j : status.jobs) {
      out += fmt::format("job {} {}: {}{}{}\n", j.job, to_string(j.state),
                         job_label(registry.jobs()[j.job - 1]), j.detail.empty() ? "" : "; ",
                         j.detail);
    }
  }
  if (status.count(JobState::done) == registry.n_jobs()) {
    out += fmt::format("all jobs done: `assay job collect {}` writes the outputs\n",
                       registry.dir().string());
  }
  return out;
}

Json status_json(const Registry& registry, const RegistryStatus& status) {
  Json counts = Json::object();
  for (JobState s :
       {JobState::done, JobState::running, JobState::queued, JobState::failed, JobState::missing}) {
    counts[to_string(s)] = status.count(s);
  }
  Json jobs = Json::array();
  for (const auto& j : status.jobs) {
    Json row{{"job", j.job},
             {"state", to_string(j.state)},
             {"failed_attempts", j.failed_attempts},
             {"detail", j.detail}};
    if (j.provenance) row["provenance"] = provenance_json(*j.provenance);
    jobs.push_back(std::move(row));
  }
  return Json{{"registry", registry.dir().string()},
              {"id", registry.id()},
              {"jobs", registry.n_jobs()},
              {"counts", counts},
              {"slurm", status.slurm},
              {"status", jobs}};
}

Table status_table(const Registry& registry, const RegistryStatus& status) {
  const std::size_t n = status.jobs.size();
  std::vector<std::string> state(n), data(n), learner(n), subset(n), train(n), host(n), detail(n);
  std::vector<double> job(n), fold(n), cost(n), attempts(n), seconds(n), cpu(n), memory(n);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = status.jobs[i];
    const auto& info = registry.jobs()[i];
    job[i] = double(s.job);
    state[i] = to_string(s.state);
    data[i] = info.data;
    learner[i] = info.learner;
    subset[i] = info.test_subset;
    train[i] = soak::to_string(info.train_subsets);
    fold[i] = info.test_fold;
    cost[i] = info.cost;
    attempts[i] = double(s.failed_attempts);
    const bool done = s.state == JobState::done && s.provenance;
    seconds[i] = done ? s.provenance->seconds : nan;
    cpu[i] = done ? s.provenance->cpu_seconds : nan;
    memory[i] = done ? double(s.provenance->peak_rss_bytes) / 1e6 : nan;
    host[i] = s.provenance ? s.provenance->host : "";
    detail[i] = s.detail;
  }
  Table t;
  t.add_column(Column::numeric("job", job));
  t.add_column(Column::categorical("state", state));
  t.add_column(Column::categorical("data", data));
  t.add_column(Column::categorical("learner", learner));
  t.add_column(Column::categorical("test.subset", subset));
  t.add_column(Column::categorical("train.subsets", train));
  t.add_column(Column::numeric("test.fold", fold));
  t.add_column(Column::numeric("cost", cost));
  t.add_column(Column::numeric("failed_attempts", attempts));
  t.add_column(Column::numeric("seconds", seconds));
  t.add_column(Column::numeric("cpu_seconds", cpu));
  t.add_column(Column::numeric("peak_memory_mb", memory));
  t.add_column(Column::categorical("host", host));
  t.add_column(Column::categorical("detail", detail));
  return t;
}

}  // namespace assay::batch
