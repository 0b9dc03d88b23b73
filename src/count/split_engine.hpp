// The loop shared by every domain-splitting count: a frontier of pieces, processed in waves of a
// fixed size (largest first), judged in parallel and merged in order, until nothing is left or
// the budget runs out. Deterministic for a given budget of pieces at any thread count.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/interrupt.hpp"
#include "assay/core/thread_pool.hpp"

namespace assay::count::detail {

/// What a judge says about one piece.
struct Verdict {
  enum class Kind : std::uint8_t { decided, split, counted, open } kind = Kind::open;
  int cell = -1;                      ///< decided: the cell the whole piece counts in (-1: none)
  std::size_t dim = 0;                ///< split: the input to bisect
  std::vector<std::uint64_t> counts;  ///< counted (enumerated): points per cell, then "none"
  std::vector<double> witness_x;      ///< a counterexample met in this piece (may be empty)
  std::vector<double> witness_y;
};

constexpr std::size_t kWaveSize = 256;

/// Frontier of pieces, largest key first, then first pushed first.
template <class Piece>
class Frontier {
 public:
  void push(double key, Piece p) { heap_.push(Item{key, seq_++, std::move(p)}); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  /// The first piece; its key into `key` when given (to push it back unchanged).
  Piece pop(double* key = nullptr) {
    if (key) *key = heap_.top().key;
    Piece p = std::move(const_cast<Item&>(heap_.top()).piece);
    heap_.pop();
    return p;
  }

 private:
  struct Item {
    double key;
    std::uint64_t seq;
    Piece piece;
    bool operator<(const Item& o) const { return key != o.key ? key < o.key : seq > o.seq; }
  };
  std::priority_queue<Item> heap_;
  std::uint64_t seq_ = 0;
};

/// Bytes malloc takes for a block of `bytes` (glibc: an 8-byte header, 16-byte granules).
constexpr std::size_t heap_bytes(std::size_t bytes) {
  return bytes == 0 ? 0 : (bytes + 8 + 15) / 16 * 16;
}

/// Bytes one open piece holds in a Frontier: its heap slot (the heap's array may be twice the
/// pieces it holds) plus `payload`, the heap blocks of its own vectors.
template <class Piece>
constexpr std::size_t frontier_bytes(std::size_t payload) {
  return 2 * (sizeof(Piece) + 16) + payload;
}

/// The open pieces' memory budget: `requested` bytes, or (0) half of what this process can
/// allocate now (the machine's available memory, less under ulimit -v).
inline std::uint64_t memory_budget(std::uint64_t requested) {
  return requested ? requested : allocatable_bytes() / 2;
}

/// "512 MB", "1.5 GB": a budget in words.
std::string memory_text(std::uint64_t bytes);

/// Why a run stopped early, what the interval means, and which option lifts the limit.
std::string stop_message(const std::string& stopped_by, double time_limit, std::uint64_t max_boxes,
                         std::uint64_t budget, std::uint64_t requested_budget, std::size_t open);

struct WaveBudget {
  double time_limit = 0.0;
  std::uint64_t max_boxes = 0;
  int threads = 0;
  std::chrono::steady_clock::time_point start;
  /// Largest number of open pieces (0 = none): the memory budget over the bytes per piece.
  std::uint64_t max_pieces = 0;
};

/// Runs waves until the frontier is empty (returns "finished"), the budget is spent ("time
/// limit", "max boxes", "memory budget": the frontier could outgrow max_pieces in the next wave),
/// an interrupt is requested ("interrupted") or `stop()` says so after a wave ("decided").
/// `judge(piece)` must be thread-safe; `apply(piece, verdict)` runs in order on the caller's
/// thread and may push.
/// parallel_for over [0, n) that checks `stop_reason()` before each index and skips the rest
/// once it gives a reason, which it returns (nullptr when nothing stopped it). `body(i)` runs
/// only for indices reached before the stop; the caller records which.
template <class StopReason, class Body>
const char* parallel_for_until(std::size_t n, int threads, StopReason stop_reason, Body body) {
  std::atomic<const char*> stopped{nullptr};
  parallel_for(
      n,
      [&](std::size_t i) {
        if (stopped.load(std::memory_order_relaxed)) return;
        if (const char* why = stop_reason()) {
          stopped.store(why, std::memory_order_relaxed);
          return;
        }
        body(i);
      },
      threads);
  return stopped.load();
}

template <class Piece, class Judge, class Apply, class AfterWave>
std::string run_waves(Frontier<Piece>& frontier, const WaveBudget& budget, std::uint64_t& boxes,
                      Judge judge, Apply apply, AfterWave after_wave) {
  using Clock = std::chrono::steady_clock;
  // The time limit and interrupts are checked before every piece too: a wave of a large network
  // can take many seconds. Pieces left unjudged go back to the frontier, still undecided.
  auto stop_reason = [&]() -> const char* {
    if (interrupt_requested()) return "interrupted";
    if (budget.time_limit > 0 &&
        std::chrono::duration<double>(Clock::now() - budget.start).count() >= budget.time_limit) {
      return "time limit";
    }
    return nullptr;
  };
  std::vector<Piece> wave;
  std::vector<double> keys;
  std::vector<Verdict> verdicts;
  std::vector<std::uint8_t> judged;
  while (!frontier.empty()) {
    if (budget.max_boxes && boxes >= budget.max_boxes) return "max boxes";
    if (const char* why = stop_reason()) return why;
    std::size_t n = std::min(kWaveSize, frontier.size());
    if (budget.max_boxes) n = std::min<std::uint64_t>(n, budget.max_boxes - boxes);
    // Each piece of a wave may come back as two: the frontier grows by at most n.
    if (budget.max_pieces && frontier.size() + n > budget.max_pieces) return "memory budget";
    wave.clear();
    keys.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) wave.push_back(frontier.pop(&keys[i]));
    verdicts.assign(n, Verdict{});
    judged.assign(n, 0);
    const char* stopped = parallel_for_until(n, budget.threads, stop_reason, [&](std::size_t i) {
      verdicts[i] = judge(wave[i]);
      judged[i] = 1;
    });
    for (std::size_t i = 0; i < n; ++i) {
      if (judged[i]) {
        ++boxes;
        apply(wave[i], verdicts[i]);
      } else {
        frontier.push(keys[i], std::move(wave[i]));
      }
    }
    if (stopped) return stopped;
    if (after_wave()) return "decided";
  }
  return "finished";
}

}  // namespace assay::count::detail
