// Progress of long calls for Python: _assay._ProgressRecorder, a sink that only records the latest
// (task, done, total). The library calls a sink from its worker threads, which must never call
// into Python (they would wait for the GIL the caller's thread may hold: a deadlock); so the sink
// stores numbers under a mutex and assay._progress polls them from a Python thread and draws.
#include <mutex>

#include "assay/core/progress.hpp"
#include "bindings.hpp"

namespace assay::python {
namespace {

class RecordingSink final : public ProgressSink {
 public:
  void update(const std::string& task, std::uint64_t done, std::uint64_t total) override {
    const std::lock_guard lock(mutex_);
    if (!running_ || task != task_) ++started_;  // a new bar: the poller restarts its clock
    running_ = true;
    task_ = task;
    done_ = done;
    total_ = total;
  }
  void finish(const std::string&) override {
    const std::lock_guard lock(mutex_);
    running_ = false;
  }
  /// (bars started so far, task, done, total, running).
  py::tuple latest() {
    std::string task;
    std::uint64_t started = 0, done = 0, total = 0;
    bool running = false;
    {
      const std::lock_guard lock(mutex_);
      started = started_, task = task_, done = done_, total = total_, running = running_;
    }
    return py::make_tuple(started, task, done, total, running);
  }

 private:
  std::mutex mutex_;
  std::uint64_t started_ = 0;
  std::string task_;
  std::uint64_t done_ = 0, total_ = 0;
  bool running_ = false;
};

// Installs a RecordingSink for its lifetime (install() .. uninstall()), then puts the previous
// sink back.
class ProgressRecorder {
 public:
  void install() {
    if (installed_) return;
    previous_ = set_progress_sink(sink_);
    installed_ = true;
  }
  void uninstall() {
    if (!installed_) return;
    set_progress_sink(previous_);
    previous_.reset();
    installed_ = false;
  }
  py::tuple latest() { return sink_->latest(); }

 private:
  std::shared_ptr<RecordingSink> sink_ = std::make_shared<RecordingSink>();
  std::shared_ptr<ProgressSink> previous_;
  bool installed_ = false;
};

}  // namespace

void bind_progress(py::module_& m) {
  py::class_<ProgressRecorder>(m, "_ProgressRecorder",
                               "Records the latest progress of the library's long work "
                               "(assay._progress draws it).")
      .def(py::init<>())
      .def("install", &ProgressRecorder::install, "Installs the recorder as the progress sink.")
      .def("uninstall", &ProgressRecorder::uninstall, "Puts the previous progress sink back.")
      .def("latest", &ProgressRecorder::latest,
           "(bars started so far, task, done, total, running).");
}

}  // namespace assay::python
