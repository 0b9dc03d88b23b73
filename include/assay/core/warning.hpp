// Warnings for degenerate statistics (NaN results, zero-division conventions).
//
// The library never prints: it calls the installed handler. The CLI installs one that writes
// "assay: warning: ..." to stderr; the Python module turns warnings into `assay.AssayWarning`
// (a UserWarning) through the `warnings` module. With no handler installed they are dropped.
// The handler may be called from worker threads; it is called under a mutex, one at a time.
#pragma once

#include <functional>
#include <string>

namespace assay {

using WarningHandler = std::function<void(const std::string& message)>;

/// Installs `handler` (empty = drop warnings); returns the previous one.
WarningHandler set_warning_handler(WarningHandler handler);

/// Reports a warning to the installed handler.
void warn(const std::string& message);

}  // namespace assay
