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

class SilentSink final : public ProgressSink {
 public:
  void update(const std::string&, std::uint64_t, std::uint64_t) override {}
  void finish(const std::string&) override {}
};

class TerminalBar final : public ProgressSink {
 public:
  void update(const std::string& task, std::uint64_t done, std::uint64_t total) override {
    constexpr int kWidth = 30;
    const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(filled, '#');
    bar.resize(kWidth, '.');
    std::fputs(
        fmt::format("\r{} [{}] {:3.0f}% ({}/{})", task, bar, 100 * fraction, done, total).c_str(),
        stderr);
    std::fflush(stderr);
  }
  void finish(const std::string&) override {
    std::fputs("\r\x1b[2K", stderr);
    std::fflush(stderr);
  }
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

Progress::Progress(std::string task, std::uint64_t total) : task_(std::move(task)), total_(total) {
  std::lock_guard lock(sink_mutex());
  sink_ = installed_sink();
}

Progress::~Progress() {
  finish();
}

void Progress::advance(std::uint64_t n) {
  const std::uint64_t done = done_.fetch_add(n, std::memory_order_relaxed) + n;
  if (!sink_) return;
  const auto now = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || finished_) return;
  if (now - last_update_ < std::chrono::milliseconds(50) && done < total_) return;
  last_update_ = now;
  sink_->update(task_, std::min(done, total_), total_);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (sink_) sink_->finish(task_);
}

}  // namespace assay
