// The loop shared by every domain-splitting count: a frontier of pieces, processed in waves of a
// fixed size (largest first), judged in parallel and merged in order, until nothing is left or
// the budget runs out. Deterministic for a given budget of pieces at any thread count.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "assay/core/thread_pool.hpp"
#include "assay/count/domain_split.hpp"

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
  Piece pop() {
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

struct WaveBudget {
  double time_limit = 0.0;
  std::uint64_t max_boxes = 0;
  int threads = 0;
  std::chrono::steady_clock::time_point start;
};

/// Runs waves until the frontier is empty (returns "finished"), the budget is spent ("time
/// limit", "max boxes") or `stop()` says so after a wave ("decided"). `judge(piece)` must be
/// thread-safe; `apply(piece, verdict)` runs in order on the caller's thread and may push.
template <class Piece, class Judge, class Apply, class AfterWave>
std::string run_waves(Frontier<Piece>& frontier, const WaveBudget& budget, std::uint64_t& boxes,
                      Judge judge, Apply apply, AfterWave after_wave) {
  using Clock = std::chrono::steady_clock;
  std::vector<Piece> wave;
  std::vector<Verdict> verdicts;
  while (!frontier.empty()) {
    if (budget.max_boxes && boxes >= budget.max_boxes) return "max boxes";
    if (budget.time_limit > 0 &&
        std::chrono::duration<double>(Clock::now() - budget.start).count() >= budget.time_limit) {
      return "time limit";
    }
    std::size_t n = std::min(kWaveSize, frontier.size());
    if (budget.max_boxes) n = std::min<std::uint64_t>(n, budget.max_boxes - boxes);
    wave.clear();
    for (std::size_t i = 0; i < n; ++i) wave.push_back(frontier.pop());
    verdicts.assign(n, Verdict{});
    parallel_for(
        n, [&](std::size_t i) { verdicts[i] = judge(wave[i]); }, budget.threads);
    boxes += n;
    for (std::size_t i = 0; i < n; ++i) apply(wave[i], verdicts[i]);
    if (after_wave()) return "decided";
  }
  return "finished";
}

}  // namespace assay::count::detail
