#include "assay/core/interrupt.hpp"

#include <atomic>

namespace assay {
namespace {

std::atomic<bool> g_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_interrupt runs in signal handlers");
std::atomic<InterruptScope*> g_scope{nullptr};

constexpr auto kPollInterval = std::chrono::milliseconds(50);

}  // namespace

bool interrupt_requested() {
  if (g_requested.load(std::memory_order_relaxed)) return true;
  InterruptScope* scope = g_scope.load(std::memory_order_acquire);
  // Only the scope's thread polls (and touches last_poll_), so no lock is needed.
  if (scope && scope->poll_ && std::this_thread::get_id() == scope->owner_) {
    const auto now = std::chrono::steady_clock::now();
    if (now - scope->last_poll_ >= kPollInterval) {
      scope->last_poll_ = now;
      if (scope->poll_()) request_interrupt();
    }
  }
  return g_requested.load(std::memory_order_relaxed);
}

void throw_if_interrupted() {
  if (interrupt_requested()) throw Interrupted();
}

void request_interrupt() noexcept {
  g_requested.store(true, std::memory_order_relaxed);
}

InterruptScope::InterruptScope(std::function<bool()> poll)
    : poll_(std::move(poll)),
      owner_(std::this_thread::get_id()),
      last_poll_(std::chrono::steady_clock::now()),
      previous_(g_scope.load()) {
  g_requested.store(false);
  g_scope.store(this, std::memory_order_release);
}

InterruptScope::~InterruptScope() {
  g_scope.store(previous_, std::memory_order_release);
  g_requested.store(false);
}

}  // namespace assay
