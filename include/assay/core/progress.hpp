// Progress of long work, reported to an installed sink (the library never prints itself).
//
// Example:
//   Progress p("bootstrap", n_resamples);   // no-op when no sink is installed
//   parallel_for(n, [&](size_t i) { work(i); p.advance(); });
//   p.finish();
//
// The CLI installs `make_terminal_progress_sink(quiet)`: a bar on stderr when stderr is a TTY,
// nothing otherwise or with --quiet; the bar shows its rate and ETA once it has run 0.5 s.
// Progress::advance is thread-safe and cheap (an atomic add; the sink is called at most ~20
// times a second).
//
// Nesting: only the outermost live Progress of the process reaches the sink (its clock starts
// when it is made). One made while another lives (a bootstrap inside a `shift` row, a learner
// inside a SOAK unit) draws nothing: its bar would replace the outer one and restart the clock,
// so that no bar ever ran long enough to show an ETA. An outer Progress made with
// Nested::counted has for total the steps of the Progress objects nested in it, which advance
// it:
//
// Example:
//   Progress rows("shift", n_rows * n_resamples, Progress::Nested::counted);
//   for (std::size_t row = 0; row < n_rows; ++row) bootstrap_row(row);
//   // each row's Progress("bootstrap", n_resamples) advances `rows`, drawing nothing itself
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace assay {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  /// done <= total; called under a mutex.
  virtual void update(const std::string& task, std::uint64_t done, std::uint64_t total) = 0;
  virtual void finish(const std::string& task) = 0;
};

/// Installs the process-wide sink (nullptr = none); returns the previous one.
std::shared_ptr<ProgressSink> set_progress_sink(std::shared_ptr<ProgressSink> sink);

/// A bar on stderr if it is a TTY and !quiet; otherwise a sink that shows nothing.
std::shared_ptr<ProgressSink> make_terminal_progress_sink(bool quiet);

class Progress {
 public:
  /// What the Progress objects made while this one lives do: draw nothing (ignored), or also
  /// advance this one (counted; `total` then counts their steps).
  enum class Nested { ignored, counted };

  Progress(std::string task, std::uint64_t total, Nested nested = Nested::ignored);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void advance(std::uint64_t n = 1);
  void finish();

 private:
  std::string task_;
  std::uint64_t total_;
  std::atomic<std::uint64_t> done_{0};
  std::shared_ptr<ProgressSink> sink_;
  bool outermost_ = false;
  Nested nested_ = Nested::ignored;
  Progress* parent_ = nullptr;  // the outermost Progress when it counts this one's steps
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_update_;
  std::uint64_t drawn_ = 0;  // the `done` the sink last showed
  bool finished_ = false;
};

}  // namespace assay
