// Stopping long work cleanly when the user asks (Ctrl-C).
//
// A front end opens an InterruptScope around a long call. A stop is requested either with
// request_interrupt() (async-signal-safe: the CLI's SIGINT handler calls it) or by the scope's
// poll function, which interrupt_requested() runs on the scope's own thread at most every 50 ms
// (Python: PyErr_CheckSignals, which runs Python's signal handlers on the main thread only).
// Long loops call interrupt_requested() between units of work (it is cheap: an atomic load, and
// on the scope's thread a clock read) and stop early: work with a meaningful partial answer
// (samples drawn so far, a certified interval) returns it marked "interrupted"; other work
// throws Interrupted.
//
// Example:
//   InterruptScope scope([] { return python_saw_ctrl_c(); });
//   for (std::size_t i = 0; i < n; ++i) {
//     if (i % 4096 == 0 && interrupt_requested()) break;   // partial result
//     work(i);
//   }
//
// Outside any scope nothing polls, and a stop is still honoured if requested.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>

namespace assay {

/// Thrown by work that has no partial answer to give when a stop was requested.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

/// Whether a stop was requested (runs the innermost scope's poll when called on its thread).
bool interrupt_requested();

/// Throws Interrupted when a stop was requested.
void throw_if_interrupted();

/// Requests a stop. Async-signal-safe.
void request_interrupt() noexcept;

class InterruptScope {
 public:
  /// Clears any earlier request; `poll` (may be empty) returns true to request a stop.
  explicit InterruptScope(std::function<bool()> poll = {});
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  friend bool interrupt_requested();
  std::function<bool()> poll_;
  std::thread::id owner_;
  std::chrono::steady_clock::time_point last_poll_;
  InterruptScope* previous_ = nullptr;
};

}  // namespace assay
