#include "assay/batch/slurm.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "assay/batch/job_runner.hpp"
#include "assay/batch/status.hpp"
#include "assay/core/error.hpp"
#include "assay/core/output_file.hpp"
#include "assay/core/warning.hpp"
#include "files.hpp"
#include "system.hpp"

namespace assay::batch {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSbatchHint =
    "Slurm's client commands are needed: run this on a Slurm login node, or install slurm-client";

// A word for bash: bare when safe, else single-quoted.
std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-+=./:,@%") == std::string::npos) {
    return s;
  }
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// An #SBATCH option value: sbatch splits these lines at white space, so quote when needed.
std::string sbatch_value(const std::string& s) {
  if (s.find_first_of(" \t\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\\\"") : std::string(1, c);
  return out + "\"";
}

fs::path submissions_path(const Registry& registry) {
  return registry.dir() / "slurm" / "submissions.json";
}

Json submission_json(const Submission& s) {
  return Json{{"number", s.number},
              {"slurm_job_id", s.slurm_job_id},
              {"script", s.script.string()},
              {"jobs_file", s.jobs_file.string()},
              {"jobs", s.jobs.size()},
              {"chunk", s.chunk},
              {"tasks", s.tasks},
              {"submitted", s.submitted}};
}

std::string this_executable() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("assay") : exe.string();
}

std::string format_seconds(double s) {
  return fmt::format("{}", s);
}

}  // namespace

std::string slurm_job_name(const Registry& registry) {
  return "assay-" + registry.id().substr(0, 12);
}

std::string sbatch_script(const Registry& registry, const SlurmParams& p, const Submission& s,
                          const std::string& assay) {
  const std::string dir = fs::absolute(registry.dir()).lexically_normal().string();
  std::string array = fmt::format("1-{}", s.tasks);
  if (s.tasks == 1) array = "1";
  if (p.array_max > 0) array += fmt::format("%{}", p.array_max);
  std::string out;
  out += "#!/bin/bash\n";
  out += fmt::format("# assay batch registry {} ({}), submission {}.\n", dir,
                     registry.definition().title, s.number);
  out += fmt::format(
      "# {} array task{} of {} job{} each: task T runs entries (T-1)*{}+1 .. T*{} of\n# {}.\n",
      s.tasks, s.tasks == 1 ? "" : "s", s.chunk, s.chunk == 1 ? "" : "s", s.chunk, s.chunk,
      s.jobs_file.string());
  out += "# Each job writes " + dir + "/results/JOB.json atomically; `assay job status " + dir +
         "`\n# shows progress, `assay job submit " + dir +
         "` resubmits what is missing, and\n# `assay job collect " + dir +
         "` writes the experiment's outputs.\n";
  out += "#SBATCH --job-name=" + slurm_job_name(registry) + "\n";
  out += "#SBATCH --array=" + array + "\n";
  out += "#SBATCH --output=" + sbatch_value(dir + "/logs/slurm-%A_%a.out") + "\n";
  out += fmt::format("#SBATCH --cpus-per-task={}\n", p.cpus_per_task);
  if (!p.partition.empty()) out += "#SBATCH --partition=" + sbatch_value(p.partition) + "\n";
  if (!p.time.empty()) out += "#SBATCH --time=" + sbatch_value(p.time) + "\n";
  if (!p.mem.empty()) out += "#SBATCH --mem=" + sbatch_value(p.mem) + "\n";
  for (const auto& a : p.sbatch_args) out += "#SBATCH " + sbatch_value(a) + "\n";
  out += "\n";
  out += fmt::format(
      "exec {} --quiet job run {} --jobs-file {} --chunk {} --threads "
      "\"${{SLURM_CPUS_PER_TASK:-1}}\" --retries {} --job-time-limit {}\n",
      shell_quote(assay), shell_quote(dir), shell_quote(s.jobs_file.string()), s.chunk, p.retries,
      format_seconds(p.job_time_limit));
  return out;
}

namespace {

// One entry of submissions.json; `where` names the file and the entry.
Submission submission_from_json(const Json& j, const std::string& where, const Registry& registry) {
  auto field = [&](const char* key, auto check, const char* expected) -> const Json& {
    if (!j.is_object()) fail("{}: expected an object, found {}", where, quote_found(j.dump()));
    const auto it = j.find(key);
    if (it == j.end()) fail("{}: expected the field \"{}\", found none", where, key);
    if (!check(*it))
      fail("{}: field \"{}\": expected {}, found {}", where, key, expected,
           quote_found(it->dump()));
    return *it;
  };
  const auto text = [](const Json& v) { return v.is_string(); };
  const auto count = [](const Json& v) { return v.is_number_unsigned(); };
  Submission s;
  s.number = static_cast<int>(field("number", count, "a submission number").get<std::uint32_t>());
  s.slurm_job_id = field("slurm_job_id", text, "Slurm's job id").get<std::string>();
  s.script = field("script", text, "a file name").get<std::string>();
  s.jobs_file = field("jobs_file", text, "a file name").get<std::string>();
  s.chunk = field("chunk", count, "a number of jobs").get<std::size_t>();
  s.tasks = field("tasks", count, "a number of tasks").get<std::size_t>();
  s.submitted = field("submitted", text, "a time").get<std::string>();
  if (s.chunk < 1) fail("{}: field \"chunk\": expected at least 1, found 0", where);
  s.jobs = read_job_list(s.jobs_file.string(), registry);
  if (s.tasks != (s.jobs.size() + s.chunk - 1) / s.chunk) {
    fail("{}: field \"tasks\": expected {} ({} jobs in chunks of {}), found {}", where,
         (s.jobs.size() + s.chunk - 1) / s.chunk, s.jobs.size(), s.chunk, s.tasks);
  }
  return s;
}

}  // namespace

std::vector<Submission> submissions(const Registry& registry) {
  std::vector<Submission> out;
  const fs::path path = submissions_path(registry);
  std::error_code ec;
  if (!fs::exists(path, ec) && !ec) return out;
  const Json doc = detail::parse_json_file(path);
  if (!doc.is_array()) {
    fail("{}: expected a list of submissions, found {}", path.string(), quote_found(doc.dump()));
  }
  for (std::size_t k = 0; k < doc.size(); ++k) {
    out.push_back(
        submission_from_json(doc[k], fmt::format("{} (entry {})", path.string(), k + 1), registry));
  }
  return out;
}

Submission submit(const Registry& registry, const SlurmParams& p) {
  if (p.chunk < 1) fail("--chunk must be at least 1, found {}", p.chunk);
  if (p.cpus_per_task < 1) fail("--cpus-per-task must be at least 1, found {}", p.cpus_per_task);
  if (p.retries < 0) fail("--retries must be >= 0, found {}", p.retries);
  if (p.job_time_limit < 0) fail("--job-time-limit must be >= 0, found {}", p.job_time_limit);
  if (!p.dry_run && detail::find_program("sbatch").empty()) {
    fail("sbatch not found on PATH ({})", kSbatchHint);
  }
  std::vector<Submission> earlier;
  try {
    earlier = submissions(registry);
  } catch (const Error& e) {
    // Not knowing earlier submissions only risks submitting a queued job again, and a job
    // runs at most once anyway (claims); a registry that could never submit again is worse.
    const auto moved = detail::set_aside(submissions_path(registry));
    warn(
        fmt::format("{}: moved aside to {}; jobs of earlier submissions that are still queued "
                    "may be submitted again (each runs once: the second finds it done)",
                    e.what(), moved.string()));
  }
  const RegistryStatus status = registry_status(registry);
  if (!status.queue_readable) {
    fail(
        "cannot read Slurm's queue ({}), so jobs still queued cannot be told from missing ones; "
        "nothing was submitted",
        status.slurm);
  }
  Submission s;
  for (const auto& j : status.jobs) {
    const bool retry =
        j.state == JobState::failed && j.failed_attempts <= static_cast<std::size_t>(p.retries);
    if (j.state == JobState::missing || retry) s.jobs.push_back(j.job);
  }
  if (s.jobs.empty()) return s;
  // Longest first: Slurm starts array tasks in index order.
  std::stable_sort(s.jobs.begin(), s.jobs.end(), [&](std::size_t a, std::size_t b) {
    return registry.jobs()[a - 1].cost > registry.jobs()[b - 1].cost;
  });
  s.number = earlier.empty() ? 1 : earlier.back().number + 1;
  s.chunk = p.chunk;
  s.tasks = (s.jobs.size() + p.chunk - 1) / p.chunk;
  const fs::path dir = fs::absolute(registry.dir()).lexically_normal();
  s.script = dir / "slurm" / fmt::format("submit-{}.sbatch", s.number);
  s.jobs_file = dir / "slurm" / fmt::format("submit-{}.jobs", s.number);
  std::string list;
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    list +=
        fmt::format("{}{}", s.jobs[i], (i + 1) % 20 == 0 || i + 1 == s.jobs.size() ? "\n" : " ");
  }
  std::error_code ec;
  fs::create_directories(dir / "slurm", ec);
  fs::create_directories(dir / "logs", ec);
  write_file_atomic(s.jobs_file.string(), list);
  write_file_atomic(s.script.string(), sbatch_script(registry, p, s, this_executable()));
  fs::permissions(s.script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add,
                  ec);
  s.submitted = detail::utc_now();
  if (p.dry_run) return s;
  const auto r = detail::run_command({"sbatch", "--parsable", s.script.string()}, kSbatchHint);
  std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
  if (r.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    std::string message = r.err.empty() ? r.out : r.err;
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
      message.pop_back();
    fail("Slurm refused the submission of {} (sbatch exit status {}): {}", s.script.string(),
         r.exit_code, message.empty() ? "no message" : message);
  }
  s.slurm_job_id = id;
  Json all = Json::array();
  for (const auto& e : earlier) all.push_back(submission_json(e));
  all.push_back(submission_json(s));
  write_file_atomic(submissions_path(registry).string(), all.dump(1) + "\n");
  return s;
}

std::vector<std::size_t> expand_task_ids(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t.front() == '[') t = t.substr(1);
  if (!t.empty() && t.back() == ']') t.pop_back();
  t = t.substr(0, t.find('%'));
  std::vector<std::size_t> out;
  std::istringstream parts(t);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto dash = part.find('-');
    try {
      const std::size_t a = std::stoull(part.substr(0, dash));
      const std::size_t b = dash == std::string::npos ? a : std::stoull(part.substr(dash + 1));
      for (std::size_t k = a; k <= b; ++k) out.push_back(k);
    } catch (const std::exception&) {
      // not a task id (e.g. "N/A"): nothing to expand
    }
  }
  return out;
}

std::optional<std::vector<SlurmTask>> slurm_queue(const Registry& registry, std::string* why) {
  if (detail::find_program("squeue").empty()) {
    if (why) *why = "squeue not found on PATH: Slurm's queue was not checked";
    return std::nullopt;
  }
  const auto r = detail::run_command(
      {"squeue", "--noheader", "--array", "--name=" + slurm_job_name(registry), "--format=%i|%T"},
      kSbatchHint);
  if (r.exit_code != 0) {
    if (why) *why = "squeue failed: " + r.err.substr(0, r.err.find('\n'));
    return std::nullopt;
  }
  std::vector<SlurmTask> tasks;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    const auto bar = line.find('|');
    const auto under = line.find('_');
    if (bar == std::string::npos || under == std::string::npos || under > bar) continue;
    const std::string job = line.substr(0, under), state = line.substr(bar + 1);
    for (std::size_t task : expand_task_ids(line.substr(under + 1, bar - under - 1))) {
      tasks.push_back(SlurmTask{job, std::to_string(task), state});
    }
  }
  if (why)
    *why = fmt::format("squeue: {} array task{} of this registry in the queue", tasks.size(),
                       tasks.size() == 1 ? "" : "s");
  return tasks;
}

std::optional<std::vector<std::pair<std::string, std::string>>> slurm_accounting(
    const std::vector<std::string>& job_ids) {
  if (job_ids.empty() || detail::find_program("sacct").empty()) return std::nullopt;
  std::string ids;
  for (const auto& id : job_ids) ids += (ids.empty() ? "" : ",") + id;
  const auto r = detail::run_command({"sacct", "--noheader", "--parsable2", "--allocations",
                                      "--jobs=" + ids, "--format=JobID,State"},
                                     kSbatchHint);
  if (r.exit_code != 0) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    const auto bar = line.find('|');
    if (bar != std::string::npos) out.emplace_back(line.substr(0, bar), line.substr(bar + 1));
  }
  return out;
}

std::optional<bool> slurm_task_in_queue(const std::string& job_id, const std::string& task_id) {
  if (job_id.empty() || detail::find_program("squeue").empty()) return std::nullopt;
  const std::string id = task_id.empty() ? job_id : job_id + "_" + task_id;
  const auto r = detail::run_command(
      {"squeue", "--noheader", "--array", "--jobs=" + id, "--format=%T"}, kSbatchHint);
  // squeue refuses the id of a job that has left the queue ("Invalid job id specified").
  if (r.exit_code != 0) {
    if (r.err.find("Invalid job id") != std::string::npos) return false;
    return std::nullopt;
  }
  return r.out.find_first_not_of(" \n") != std::string::npos;
}

}  // namespace assay::batch
