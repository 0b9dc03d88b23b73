// Small wrappers over the operating system for batch runs: host name, time stamps, process
// liveness, peak memory and running external programs (sbatch, squeue) with their output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace assay::batch::detail {

/// gethostname(), or "unknown".
std::string host_name();

/// Now in UTC as "2026-11-29T16:48:03.123Z".
std::string utc_now();

/// Whether a process with this id runs on this host (kill(pid, 0), and not a zombie).
bool process_alive(std::int64_t pid);

/// When a process of this host started, in clock ticks since boot (/proc/PID/stat), or 0 when
/// unknown (no such process). With the pid it names one process: a pid is reused, its start is not.
std::uint64_t process_start_ticks(std::int64_t pid);

/// This boot of this host (/proc/sys/kernel/random/boot_id), or "" when unknown: a claim made
/// before a restart names a process of an earlier boot.
std::string boot_id();

/// Resets this process's peak resident memory (Linux /proc/self/clear_refs); false if it cannot.
bool reset_peak_rss();
/// This process's peak resident memory in bytes (VmHWM), or 0 if unknown.
std::int64_t peak_rss_bytes();

/// User + system CPU seconds of this process so far (all its threads).
double process_cpu_seconds();

/// The full path of `program` on PATH (or `program` itself if it contains a '/' and exists), or
/// "" when absent.
std::string find_program(const std::string& program);

struct CommandResult {
  int exit_code = 0;  ///< 128 + signal when killed by a signal
  std::string out, err;
};

/// Runs argv[0] (searched on PATH) with the arguments, waits, and returns its exit code and
/// output. Throws assay::Error "<argv[0]> not found on PATH (<hint>)" when the program is absent.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& hint);

/// "3, 9-19, 22" (or with separator "," and no spaces: "3,9-19,22") from sorted job numbers.
std::string ranges(const std::vector<std::size_t>& sorted, const char* separator = ", ");

}  // namespace assay::batch::detail
