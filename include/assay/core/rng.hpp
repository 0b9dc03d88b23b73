// Seeded, portable random numbers: the same seed gives the same stream on every platform and
// compiler (std:: distributions are implementation-defined, so none are used).
//
// Determinism at any thread count: give each independent unit of work (a bootstrap resample, a
// fold) its own stream with `Rng(seed).split(unit_index)` instead of sharing one generator.
//
// Example:
//   Rng rng(7);
//   double u = rng.uniform();                 // in [0, 1); the same value on every platform
//   std::uint64_t k = rng.below(10);          // 0..9
//   Rng unit3 = Rng(7).split(3);              // depends only on (7, 3), not on who ran before
//
// Ensures: the same seed gives the same sequence everywhere; split(i) depends only on the seed
// and i, not on how many numbers were drawn before. Not thread-safe: one generator per thread or
// per unit of work.
#pragma once

#include <cstdint>

namespace assay {

/// xoshiro256** seeded through SplitMix64.
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0);

  /// Next raw 64-bit value.
  std::uint64_t next();
  /// Uniform double in [0, 1) with 53 random bits.
  double uniform();
  /// Uniform integer in [0, n); n > 0. Unbiased (Lemire's multiply-and-reject).
  std::uint64_t below(std::uint64_t n);
  /// Standard normal (Box–Muller, no cached second value so streams stay simple).
  double normal();
  /// An independent stream for unit `index`, derived from this generator's seed only.
  Rng split(std::uint64_t index) const;

 private:
  std::uint64_t seed_;
  std::uint64_t s_[4];
};

}  // namespace assay
