#include "assay/batch/job_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "assay/batch/claims.hpp"
#include "assay/core/error.hpp"
#include "assay/core/progress.hpp"
#include "system.hpp"

namespace assay::batch {
namespace {

volatile std::sig_atomic_t g_interrupt = 0;

extern "C" void on_interrupt(int sig) {
  g_interrupt = sig;
}

// SIGTERM/SIGINT set a flag (poll then returns EINTR) while jobs run; restored afterwards.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupt = 0;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: poll returns EINTR
    sigaction(SIGTERM, &sa, &old_term_);
    sigaction(SIGINT, &sa, &old_int_);
  }
  ~InterruptGuard() {
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGINT, &old_int_, nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_term_ {
  }, old_int_{};
};

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// The child: compute the unit and hand it back; never returns.
[[noreturn]] void child_main(const Registry& registry, const LoadedExperiment& loaded,
                             std::size_t job, int threads, int fd, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the runner (scancel, SIGKILL of the task)
  if (::getppid() != parent) ::_exit(111);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGINT, SIG_DFL);
  std::string payload;
  try {
    const soak::SoakUnitResult unit = run_unit(registry.definition(), loaded, job - 1, threads);
    payload = "R" + unit_result_json(unit).dump();
  } catch (const Error& e) {
    payload = std::string("E") + e.what();
  } catch (const std::exception& e) {
    payload = std::string("Einternal error: ") + e.what();
  }
  write_all(fd, payload);
  ::close(fd);
  ::_exit(0);
}

struct ChildOutcome {
  std::string payload;
  int status = 0;
  rusage usage{};
  bool timed_out = false;
  double seconds = 0;
};

[[noreturn]] void die_of_interrupt(const Registry& registry, std::size_t job, pid_t child,
                                   bool reaped = false) {
  if (!reaped) {
    ::kill(child, SIGKILL);
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  registry.release(job);  // not a failure: the job stays missing, to be resubmitted
  const int sig = g_interrupt;
  std::fprintf(stderr, "assay: job %zu interrupted by signal %d (%s); it stays missing\n", job, sig,
               strsignal(sig));
  ::signal(sig, SIG_DFL);
  ::raise(sig);
  ::_exit(128 + sig);
}

// Reads the child's payload until it closes the pipe (it exits), killing it at the deadline.
ChildOutcome wait_for_child(const Registry& registry, std::size_t job, pid_t child, int fd,
                            double time_limit) {
  ChildOutcome out;
  const auto start = std::chrono::steady_clock::now();
  char buffer[65536];
  for (;;) {
    if (g_interrupt) die_of_interrupt(registry, job, child);
    int timeout_ms = -1;
    if (time_limit > 0) {
      const double left =
          time_limit -
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (left <= 0) {
        out.timed_out = true;
        ::kill(child, SIGKILL);
        break;
      }
      timeout_ms = static_cast<int>(std::ceil(left * 1000));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (g_interrupt) die_of_interrupt(registry, job, child);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // deadline check above
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      out.payload.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;  // the child closed the pipe: it has finished
    }
  }
  ::close(fd);
  while (::wait4(child, &out.status, 0, &out.usage) < 0) {
    if (errno != EINTR) break;
    if (g_interrupt) die_of_interrupt(registry, job, child);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// Why a child gave no result, or "" when it did.
std::string failure_of(const ChildOutcome& c, double time_limit) {
  if (c.timed_out) return fmt::format("exceeded the job time limit of {} s", time_limit);
  if (WIFSIGNALED(c.status)) {
    const int sig = WTERMSIG(c.status);
    return fmt::format("the job's process was killed by signal {} ({}){}", sig, strsignal(sig),
                       sig == SIGKILL ? " (out of memory, or killed by hand)" : "");
  }
  if (WIFEXITED(c.status) && WEXITSTATUS(c.status) != 0) {
    return fmt::format("the job's process exited with status {}", WEXITSTATUS(c.status));
  }
  if (c.payload.empty()) return "the job's process exited without a result";
  if (c.payload[0] == 'E') return c.payload.substr(1);
  if (c.payload[0] != 'R') return "the job's process sent an unreadable result";
  return {};
}

// One attempt of one job (claimed by this process); true when it wrote a result.
bool attempt_job(const Registry& registry, const LoadedExperiment& loaded, std::size_t job,
                 std::size_t attempt, const JobRunParams& params, std::string& error) {
  JobProvenance prov = provenance_here(attempt);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail("cannot create a pipe: {}", std::strerror(errno));
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) fail("cannot start a process for job {}: {}", job, std::strerror(errno));
  if (child == 0) {
    ::close(fds[0]);
    child_main(registry, loaded, job, params.threads, fds[1], parent);
  }
  ::close(fds[1]);
  const ChildOutcome c = wait_for_child(registry, job, child, fds[0], params.time_limit);
  prov.finished = detail::utc_now();
  prov.seconds = c.seconds;
  prov.peak_rss_bytes = static_cast<std::int64_t>(c.usage.ru_maxrss) * 1024;
  prov.cpu_seconds = double(c.usage.ru_utime.tv_sec + c.usage.ru_stime.tv_sec) +
                     1e-6 * double(c.usage.ru_utime.tv_usec + c.usage.ru_stime.tv_usec);
  error = failure_of(c, params.time_limit);
  if (error.empty()) {
    soak::SoakUnitResult unit;
    try {
      unit = unit_result_from_json(Json::parse(c.payload.substr(1)), fmt::format("job {}", job));
    } catch (const std::exception& e) {
      error = fmt::format("the job's process sent an unreadable result: {}", e.what());
    }
    if (error.empty()) {
      registry.write_result(job, unit, prov);
      return true;
    }
  }
  // scancel signals every process of the task: a child that died of it is not a failure.
  if (g_interrupt) die_of_interrupt(registry, job, child, /*reaped=*/true);
  registry.record_failure(job, error, prov);
  return false;
}

// The failed attempts of a job so far. A failure record that cannot be read is set aside (and
// the attempts count from 0 again) when `repair`, else counted as none.
std::size_t failed_attempts(const Registry& registry, std::size_t job, bool repair,
                            std::vector<std::string>& notes, std::string* last = nullptr) {
  try {
    const auto failures = registry.failures(job);
    if (last && !failures.empty()) *last = failures.back().first;
    return failures.size();
  } catch (const Error& e) {
    if (!repair) return 0;
    const auto moved = registry.set_aside(registry.failed_path(job));
    notes.push_back(fmt::format("job {}: damaged failure record moved to {} ({})", job,
                                moved.string(), e.what()));
    return 0;
  }
}

// Why a job is not run now, or "". With `claimed` (this process holds the job's claim), damaged
// failure records are set aside.
std::string reason_to_skip(const Registry& registry, std::size_t job, const JobRunParams& params,
                           bool claimed, std::vector<std::string>& notes) {
  if (!params.force && registry.has_result(job)) return "done";
  std::string last;
  const std::size_t failed = failed_attempts(registry, job, claimed, notes, &last);
  if (failed > static_cast<std::size_t>(params.retries)) {
    return fmt::format("failed {} time{} (last: {}); --retries {} allows {} attempt{}", failed,
                       failed == 1 ? "" : "s", last, params.retries, params.retries + 1,
                       params.retries == 0 ? "" : "s");
  }
  return {};
}

// Releases this process's claim of a job when it goes out of scope (errors included).
class ClaimRelease {
 public:
  ClaimRelease(const Registry& registry, std::size_t job) : registry_(registry), job_(job) {}
  ~ClaimRelease() {
    try {
      registry_.release(job_);
    } catch (...) {
      // leaving the claim is safe: its holder (this process) is gone soon, so it is stale
    }
  }
  ClaimRelease(const ClaimRelease&) = delete;
  ClaimRelease& operator=(const ClaimRelease&) = delete;

 private:
  const Registry& registry_;
  std::size_t job_;
};

// Runs a job this process has claimed: sets a damaged result aside, then attempts it until it
// succeeds or its attempts are used up. True when it wrote a result.
bool run_claimed_job(const Registry& registry, const LoadedExperiment& loaded, std::size_t job,
                     const JobRunParams& params, std::vector<std::string>& notes,
                     std::string& error) {
  const ResultCheck result = registry.check_result(job);
  if (result.state == ResultState::damaged) {
    const auto moved = registry.set_aside(registry.result_path(job));
    notes.push_back(fmt::format("job {}: damaged result moved to {} ({}); running the job again",
                                job, moved.string(), result.damage));
  }
  for (;;) {
    const std::size_t attempt = failed_attempts(registry, job, true, notes) + 1;
    if (attempt_job(registry, loaded, job, attempt, params, error)) return true;
    if (attempt > static_cast<std::size_t>(params.retries)) return false;
  }
}

}  // namespace

JobProvenance provenance_here(std::size_t attempt) {
  JobProvenance p;
  p.host = detail::host_name();
  p.pid = ::getpid();
  p.started = detail::utc_now();
  p.attempt = attempt;
  const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  p.slurm_job_id = array_job ? array_job : (job ? job : "");
  p.slurm_array_task_id = task ? task : "";
  return p;
}

JobRunSummary run_jobs(const Registry& registry, const LoadedExperiment& loaded,
                       const std::vector<std::size_t>& jobs, const JobRunParams& params) {
  for (std::size_t job : jobs) registry.check_job(job);
  JobRunSummary summary;
  InterruptGuard guard;
  Progress progress("jobs", jobs.size());
  for (std::size_t job : jobs) {
    if (g_interrupt) {
      ::signal(g_interrupt, SIG_DFL);  // between jobs: nothing to clean up
      ::raise(g_interrupt);
    }
    // Cheap checks first; then the claim, then the same checks again: another worker may have
    // finished the job between the first look and the claim.
    std::string skip = reason_to_skip(registry, job, params, false, summary.notes);
    std::optional<ClaimRelease> release;
    if (skip.empty()) {
      const ClaimAttempt claim = claim_job(registry, job, provenance_here(1), params.reclaim);
      if (!claim.note.empty()) summary.notes.push_back(fmt::format("job {}: {}", job, claim.note));
      if (claim.claimed) {
        release.emplace(registry, job);
        skip = reason_to_skip(registry, job, params, true, summary.notes);
      } else {
        skip = claim.why_not;
      }
    }
    if (!skip.empty()) {
      ++summary.skipped;
      summary.notes.push_back(fmt::format("job {}: {}, not run", job, skip));
      progress.advance();
      continue;
    }
    std::string error;
    if (run_claimed_job(registry, loaded, job, params, summary.notes, error)) {
      ++summary.done;
    } else {
      ++summary.failed;
      summary.notes.push_back(fmt::format("job {} failed: {}", job, error));
    }
    progress.advance();
  }
  progress.finish();
  return summary;
}

std::vector<std::size_t> chunk_of(const std::vector<std::size_t>& list, std::size_t task,
                                  std::size_t chunk) {
  if (chunk < 1) fail("--chunk must be at least 1, found {}", chunk);
  const std::size_t tasks = (list.size() + chunk - 1) / chunk;
  if (task < 1 || task > tasks) {
    fail("array task {} is out of range: {} jobs in chunks of {} make tasks 1..{}", task,
         list.size(), chunk, tasks);
  }
  const std::size_t begin = (task - 1) * chunk;
  const std::size_t end = std::min(list.size(), begin + chunk);
  return std::vector<std::size_t>(list.begin() + std::ptrdiff_t(begin),
                                  list.begin() + std::ptrdiff_t(end));
}

std::vector<std::size_t> read_job_list(const std::string& path, const Registry& registry) {
  std::ifstream in(path);
  if (!in) fail("{}: cannot read: {}", path, std::strerror(errno));
  std::vector<std::size_t> jobs;
  std::string line;
  for (std::int64_t line_no = 1; std::getline(in, line); ++line_no) {
    std::size_t i = 0;
    while (i < line.size()) {
      if (line[i] == ' ' || line[i] == '\t' || line[i] == ',' || line[i] == '\r') {
        ++i;
        continue;
      }
      const std::size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != ',' &&
             line[i] != '\r')
        ++i;
      const std::string word = line.substr(start, i - start);
      const Location at{path, line_no, static_cast<std::int64_t>(start + 1)};
      std::size_t first = 0, last = 0;
      const auto dash = word.find('-', 1);
      auto parse = [&](const std::string& s, std::size_t& v) {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18)
          fail_at(at, "expected a job number or range (3 or 3-7), found {}", quote_found(word));
        v = std::stoull(s);
      };
      parse(dash == std::string::npos ? word : word.substr(0, dash), first);
      last = first;
      if (dash != std::string::npos) parse(word.substr(dash + 1), last);
      if (last < first) fail_at(at, "expected a range low-high, found {}", quote_found(word));
      for (std::size_t job = first; job <= last; ++job) {
        if (job < 1 || job > registry.n_jobs()) {
          fail_at(at, "job {} is out of range: {} has jobs 1..{}", job, registry.dir().string(),
                  registry.n_jobs());
        }
        jobs.push_back(job);
      }
    }
  }
  return jobs;
}

}  // namespace assay::batch
