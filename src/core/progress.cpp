#include "assay/core/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace assay {
namespace {
std::mutex& sink_mutex() {
  static std::mutex m;
  return m;
}
std::shared_ptr<ProgressSink>& installed_sink() {
  static std::shared_ptr<ProgressSink> s;
  return s;
}
// The outermost live Progress (guarded by sink_mutex()): only it reaches the sink.
Progress*& outermost() {
  static Progress* p = nullptr;
  return p;
}
// Rate and ETA are shown once a bar has run this long (earlier rates are noise); Python's bar
// (assay/_progress.py) waits as long.
constexpr double kRateAfterSeconds = 0.5;

class SilentSink final : public ProgressSink {
 public:
  void update(const std::string&, std::uint64_t, std::uint64_t) override {}
  void finish(const std::string&) override {}
};

// "1.2k", "3.4M": short counts for the rate.
std::string short_count(double v) {
  if (v < 1e3) return fmt::format("{:.3g}", v);
  if (v < 1e6) return fmt::format("{:.3g}k", v / 1e3);
  if (v < 1e9) return fmt::format("{:.3g}M", v / 1e6);
  return fmt::format("{:.3g}G", v / 1e9);
}

// "59s", "12m05s", "3h20m", "41d": the estimated time left.
std::string short_duration(double s) {
  if (!(s < 1e9)) return "never";
  if (s < 60) return fmt::format("{:.0f}s", s);
  const auto t = static_cast<std::uint64_t>(s);
  if (s < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  if (s < 86400 * 3) return fmt::format("{}h{:02}m", t / 3600, t / 60 % 60);
  return fmt::format("{}d", t / 86400);
}

class TerminalBar final : public ProgressSink {
 public:
  void update(const std::string& task, std::uint64_t done, std::uint64_t total) override {
    constexpr int kWidth = 30;
    const auto now = std::chrono::steady_clock::now();
    if (task != task_) task_ = task, start_ = now;  // a new bar: its rate starts now
    const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(filled, '#');
    bar.resize(kWidth, '.');
    std::string line =
        fmt::format("\r{} [{}] {:3.0f}% ({}/{})", task, bar, 100 * fraction, done, total);
    const double seconds = std::chrono::duration<double>(now - start_).count();
    if (seconds >= kRateAfterSeconds && done > 0) {
      const double rate = static_cast<double>(done) / seconds;
      line += fmt::format(" {}/s, ETA {}", short_count(rate),
                          short_duration(static_cast<double>(total - done) / rate));
    }
    std::fputs((line + "\x1b[K").c_str(), stderr);
    std::fflush(stderr);
  }
  void finish(const std::string&) override {
    task_.clear();
    std::fputs("\r\x1b[2K", stderr);
    std::fflush(stderr);
  }

 private:
  std::string task_;
  std::chrono::steady_clock::time_point start_;
};
}  // namespace

std::shared_ptr<ProgressSink> set_progress_sink(std::shared_ptr<ProgressSink> sink) {
  std::lock_guard lock(sink_mutex());
  std::swap(installed_sink(), sink);
  return sink;
}

std::shared_ptr<ProgressSink> make_terminal_progress_sink(bool quiet) {
  if (quiet || !isatty(STDERR_FILENO)) return std::make_shared<SilentSink>();
  return std::make_shared<TerminalBar>();
}

Progress::Progress(std::string task, std::uint64_t total, Nested nested)
    : task_(std::move(task)), total_(total), nested_(nested) {
  std::lock_guard lock(sink_mutex());
  if (Progress* outer = outermost()) {
    if (outer->nested_ == Nested::counted) parent_ = outer;
    return;  // nested: draws nothing
  }
  outermost() = this;
  outermost_ = true;
  sink_ = installed_sink();
  // The bar shows (and its clock starts) now, not when the first step is done: a slow first
  // step would otherwise leave the screen blank and inflate the rate.
  if (sink_ && total_ > 0) {  // nothing to do (0 resamples): no bar
    last_update_ = std::chrono::steady_clock::now();
    sink_->update(task_, 0, total_);
  }
}

Progress::~Progress() {
  finish();
}

void Progress::advance(std::uint64_t n) {
  if (parent_) parent_->advance(n);
  const std::uint64_t done = done_.fetch_add(n, std::memory_order_relaxed) + n;
  if (!sink_) return;
  const auto now = std::chrono::steady_clock::now();
  // The last step always draws (waiting for the lock): a dropped one left the bar at 49%.
  std::unique_lock lock(mutex_, std::defer_lock);
  if (done >= total_) {
    lock.lock();
  } else if (!lock.try_lock()) {
    return;
  }
  if (finished_) return;
  if (now - last_update_ < std::chrono::milliseconds(50) && done < total_) return;
  last_update_ = now;
  drawn_ = std::min(done, total_);
  sink_->update(task_, drawn_, total_);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (sink_) {
    // The steps done since the last redraw are shown once before the bar goes: a task that
    // ends early (fewer steps than estimated) or within 50 ms still reports what it did.
    const std::uint64_t done = done_.load(std::memory_order_relaxed);
    if (std::min(done, total_) != drawn_) sink_->update(task_, std::min(done, total_), total_);
    sink_->finish(task_);
  }
  if (outermost_) {
    std::lock_guard outer_lock(sink_mutex());
    outermost() = nullptr;
  }
}

}  // namespace assay
