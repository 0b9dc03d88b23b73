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
}  // namespace

WarningHandler set_warning_handler(WarningHandler handler) {
  std::lock_guard lock(handler_mutex());
  std::swap(installed_handler(), handler);
  return handler;
}

void warn(const std::string& message) {
  std::lock_guard lock(handler_mutex());
  if (installed_handler()) installed_handler()(message);
}

}  // namespace assay
