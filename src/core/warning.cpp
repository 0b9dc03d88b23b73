#include "assay/core/warning.hpp"

#include <mutex>

namespace assay {
namespace {
std::mutex& handler_mutex() {
  static std::mutex m;
  return m;
}
WarningHandler& installed_handler() {
  static WarningHandler h;
  return h;
}
// Written and read only while handler_mutex() is held.
WarningKind g_current_kind = WarningKind::general;
}  // namespace

WarningHandler set_warning_handler(WarningHandler handler) {
  std::lock_guard lock(handler_mutex());
  std::swap(installed_handler(), handler);
  return handler;
}

void warn(const std::string& message) {
  warn(WarningKind::general, message);
}

void warn(WarningKind kind, const std::string& message) {
  std::lock_guard lock(handler_mutex());
  if (!installed_handler()) return;
  g_current_kind = kind;
  try {
    installed_handler()(message);
  } catch (...) {
    g_current_kind = WarningKind::general;
    throw;
  }
  g_current_kind = WarningKind::general;
}

WarningKind current_warning_kind() {
  return g_current_kind;
}

}  // namespace assay
