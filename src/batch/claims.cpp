#include "assay/batch/claims.hpp"

#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "assay/batch/slurm.hpp"
#include "assay/core/error.hpp"
#include "files.hpp"
#include "system.hpp"

namespace assay::batch {
namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// This process's Slurm array job and task ("" outside Slurm).
std::pair<std::string, std::string> my_slurm_task() {
  std::string job = env("SLURM_ARRAY_JOB_ID");
  if (job.empty()) job = env("SLURM_JOB_ID");
  return {job, env("SLURM_ARRAY_TASK_ID")};
}

// How often Slurm has requeued this job (0 outside Slurm or on the first run).
std::uint64_t slurm_restart_count() {
  return std::strtoull(env("SLURM_RESTART_COUNT").c_str(), nullptr, 10);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The claim file, running/JOB.json: the holder's provenance, its boot and process start time.

bool Registry::claim(std::size_t job, const JobProvenance& holder) const {
  Json doc = provenance_json(holder);
  doc["boot_id"] = detail::boot_id();
  doc["process_start"] = detail::process_start_ticks(holder.pid);
  doc["token"] = detail::random_token();
  doc["slurm_restart"] = slurm_restart_count();
  std::error_code ec;
  fs::create_directories(running_path(job).parent_path(), ec);
  return detail::create_exclusive(running_path(job), dump_json(doc, 1) + "\n");
}

std::optional<JobClaim> Registry::claim_of(std::size_t job) const {
  const fs::path path = running_path(job);
  std::error_code ec;
  if (!fs::exists(path, ec) && !ec) return std::nullopt;
  JobClaim claim;
  try {
    claim.text = detail::read_file(path);
  } catch (const Error& e) {
    if (!fs::exists(path, ec) && !ec) return std::nullopt;  // released while being read
    claim.damage = e.what();
    return claim;
  }
  try {
    const Json doc = detail::parse_json_text(claim.text, path);
    claim.holder = provenance_from_json(doc, path.string());
    if (const auto it = doc.find("boot_id"); it != doc.end() && it->is_string())
      claim.boot_id = it->get<std::string>();
    if (const auto it = doc.find("process_start"); it != doc.end() && it->is_number_unsigned())
      claim.process_start = it->get<std::uint64_t>();
    if (const auto it = doc.find("token"); it != doc.end() && it->is_string())
      claim.token = it->get<std::string>();
    if (const auto it = doc.find("slurm_restart"); it != doc.end() && it->is_number_unsigned())
      claim.slurm_restart = it->get<std::uint64_t>();
  } catch (const Error& e) {
    claim.damage = e.what();
  }
  return claim;
}

bool Registry::take_over(std::size_t job, const JobClaim& stale,
                         const JobProvenance& holder) const {
  const fs::path path = running_path(job);
  const fs::path moved =
      path.parent_path() / fmt::format(".{}.takeover.{}.{}.{}", path.filename().string(),
                                       detail::host_name(), ::getpid(), detail::random_token());
  std::error_code ec;
  fs::rename(path, moved, ec);
  if (ec) return false;  // another worker moved or released it first
  std::string text;
  try {
    text = detail::read_file(moved);
  } catch (const Error&) {
    text.clear();
  }
  if (text != stale.text) {
    // A fresh claim took the stale one's place meanwhile: give it back.
    fs::rename(moved, path, ec);
    return false;
  }
  fs::remove(moved, ec);
  return claim(job, holder);
}

void Registry::release(std::size_t job) const {
  const auto claim = claim_of(job);
  if (!claim || !claim->damage.empty()) return;
  if (claim->holder.host != detail::host_name() || claim->holder.pid != ::getpid()) return;
  std::error_code ec;
  fs::remove(running_path(job), ec);
}

// ---------------------------------------------------------------------------------------------
// Holders.

namespace {

HolderCheck on_this_host(const JobClaim& claim) {
  const JobProvenance& h = claim.holder;
  HolderCheck c{Holder::alive, fmt::format("pid {} on this host since {}", h.pid, h.started), ""};
  const std::string boot = detail::boot_id();
  if (!claim.boot_id.empty() && !boot.empty() && claim.boot_id != boot) {
    c.state = Holder::gone;
    c.why = "the host has restarted since";
  } else if (!detail::process_alive(h.pid)) {
    c.state = Holder::gone;
    c.why = "the process is gone";
  } else if (claim.process_start != 0 &&
             detail::process_start_ticks(h.pid) != claim.process_start) {
    c.state = Holder::gone;
    c.why = fmt::format("the process is gone (pid {} now names another process)", h.pid);
  }
  return c;
}

HolderCheck on_another_host(const JobClaim& claim, const SlurmQueueLookup& in_queue) {
  const JobProvenance& h = claim.holder;
  if (h.slurm_job_id.empty()) {
    return {Holder::unknown, fmt::format("pid {} on {} since {}", h.pid, h.host, h.started),
            "another host, which this one cannot check"};
  }
  const std::string task =
      h.slurm_array_task_id.empty() ? h.slurm_job_id : h.slurm_job_id + "_" + h.slurm_array_task_id;
  HolderCheck c{
      Holder::alive,
      fmt::format("Slurm task {} (pid {} on {}) since {}", task, h.pid, h.host, h.started), ""};
  // The same array task in a later run (Slurm requeued it after a node failure): the earlier
  // run is gone. The same run (several processes of one task, srun -n) is not.
  if (my_slurm_task() == std::pair{h.slurm_job_id, h.slurm_array_task_id} &&
      slurm_restart_count() > claim.slurm_restart) {
    c.state = Holder::gone;
    c.why = "it is an earlier run of this Slurm task (requeued)";
    return c;
  }
  const std::optional<bool> queued =
      in_queue ? in_queue(h.slurm_job_id, h.slurm_array_task_id)
               : slurm_task_in_queue(h.slurm_job_id, h.slurm_array_task_id);
  if (!queued) {
    c.state = Holder::unknown;
    c.why = "squeue cannot be read here, so whether it still runs is unknown";
  } else if (!*queued) {
    c.state = Holder::gone;
    c.why = "squeue no longer lists it";
  }
  return c;
}

}  // namespace

HolderCheck check_holder(const JobClaim& claim, const SlurmQueueLookup& in_queue) {
  if (!claim.damage.empty()) return {Holder::gone, "a damaged claim file", claim.damage};
  if (claim.holder.host == detail::host_name()) return on_this_host(claim);
  return on_another_host(claim, in_queue);
}

ClaimAttempt claim_job(const Registry& registry, std::size_t job, const JobProvenance& me,
                       bool reclaim) {
  // A few rounds: a claim may be released or taken over between looking and claiming.
  for (int round = 0; round < 4; ++round) {
    if (registry.claim(job, me)) return {true, "", ""};
    const std::optional<JobClaim> current = registry.claim_of(job);
    if (!current) continue;
    const HolderCheck h = check_holder(*current);
    if (h.state == Holder::alive) return {false, "running (" + h.who + ")", ""};
    if (h.state == Holder::unknown && !reclaim) {
      return {false,
              fmt::format("claimed by {} ({}); if that process is gone, `assay job run {} "
                          "--reclaim` runs the job again",
                          h.who, h.why, registry.dir().string()),
              ""};
    }
    if (registry.take_over(job, *current, me)) {
      if (!current->damage.empty())
        return {true, "", "took over a damaged claim file: " + current->damage};
      return {true, "",
              fmt::format("took over the claim of {}: {}", h.who,
                          h.state == Holder::gone ? h.why : "--reclaim")};
    }
  }
  return {false, "claimed by another worker meanwhile", ""};
}

}  // namespace assay::batch
