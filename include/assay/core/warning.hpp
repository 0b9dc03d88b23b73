// Warnings for degenerate statistics (NaN results, zero-division conventions).
//
// The library never prints: it calls the installed handler. The CLI installs one that writes
// "assay: warning: ..." to stderr; the Python module turns warnings into `assay.AssayWarning`
// (a UserWarning) through the `warnings` module. With no handler installed they are dropped.
// The handler may be called from worker threads; it is called under a mutex, one at a time.
//
// Example:
//   std::vector<std::string> seen;
//   {
//     ScopedWarningHandler capture([&](const std::string& m) { seen.push_back(m); });
//     warn("4 of 10 folds failed");   // seen == {"4 of 10 folds failed"}
//   }                                 // the previous handler is back
#pragma once

#include <functional>
#include <string>

namespace assay {

using WarningHandler = std::function<void(const std::string& message)>;

/// Installs `handler` (empty = drop warnings); returns the previous one.
WarningHandler set_warning_handler(WarningHandler handler);

/// Reports a warning to the installed handler.
void warn(const std::string& message);

/// What a warning is about. Python maps undefined_metric (a metric ill-defined on this input,
/// scikit-learn's UndefinedMetricWarning) to assay.metrics.UndefinedMetricWarning, a subclass of
/// assay.AssayWarning; general warnings and notes are AssayWarning. A note says how an input was
/// read when it was not said (a detected CSV separator); the CLI prints "assay: note: ...".
enum class WarningKind { general, undefined_metric, note };

/// Reports a warning of the given kind to the installed handler.
void warn(WarningKind kind, const std::string& message);

/// The kind of the warning being handled (read it inside a handler; general outside one).
WarningKind current_warning_kind();

/// Installs `handler` for the lifetime of this object, then restores the previous one (e.g. an
/// empty handler to silence warnings that every bootstrap resample would repeat).
class ScopedWarningHandler {
 public:
  explicit ScopedWarningHandler(WarningHandler handler)
      : previous_(set_warning_handler(std::move(handler))) {}
  ~ScopedWarningHandler() { set_warning_handler(std::move(previous_)); }
  ScopedWarningHandler(const ScopedWarningHandler&) = delete;
  ScopedWarningHandler& operator=(const ScopedWarningHandler&) = delete;

 private:
  WarningHandler previous_;
};

}  // namespace assay
