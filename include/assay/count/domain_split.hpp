// Certified counting by domain splitting: how much of an input box a network maps into an
// unsafe set, as a guaranteed interval (continuous boxes) or an exact count (integer grids).
//
// The box is split into pieces; on each piece the network is bounded (bounds.hpp). A piece on
// which the unsafe condition provably holds everywhere is counted whole as unsafe, one on which
// it provably fails everywhere as safe; an undecided piece is bisected along the input with the
// largest influence on its undecided bounds (|coefficient| * width in the back-substituted
// bounds), or, on an integer grid, enumerated point by point once it holds at most
// `enumerate_limit` points. Concrete points (a uniform sample first, then the centre of every
// undecided piece and the corner its linear bound points to) are evaluated so that a violation
// is found early; it is reported as a counterexample.
//
// Measure: a continuous piece obtained by d bisections of region r has exactly 2^-d of r's
// volume, so the safe and unsafe volumes are exact dyadic sums; the reported fractions are
// rounded outward. unsafe in [lower, upper]: lower = proven-unsafe volume / total, upper =
// 1 - proven-safe volume / total; upper - lower is the undecided share. On grids the counts are
// exact integers (GMP); the count is exact when nothing is left undecided.
//
// Order and determinism: pieces are processed in waves of a fixed size, largest first (the
// undecided share shrinks fastest), each wave in parallel and merged in order, so a run with
// --max-boxes N gives the same result at any thread count. A time limit, the memory budget of
// the open pieces and an interrupt (core/interrupt.hpp) stop between waves.
//
// Example:
//   VnnProperty p = load_vnnlib("prop_2.vnnlib");
//   Model m = load_model("acasxu_2_1.json");  // an assay network (onnx.hpp's load_onnx: ONNX)
//   SplitParams sp;
//   sp.time_limit = 10;
//   sp.bounds = parse_bound_method("linear", "bounds");
//   SplitResult r = count_unsafe(m, p, sp);
//   bool violated = r.decision == "violated";
//   // r.unsafe_lower <= the true unsafe share <= r.unsafe_upper
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gmpxx.h>

#include "assay/count/bounds.hpp"
#include "assay/count/count_params.hpp"
#include "assay/count/count_result.hpp"
#include "assay/count/model.hpp"
#include "assay/count/vnnlib.hpp"

namespace assay::count {

struct SplitParams {
  /// Wall-clock limit in seconds (0 = none); checked between waves.
  double time_limit = 0.0;
  /// Largest number of pieces to bound (0 = none); deterministic at any thread count.
  std::uint64_t max_boxes = 0;
  /// Bytes the open pieces may take (0 = half the memory available at the start, see
  /// allocatable_bytes()). A run that would outgrow it stops with its certified interval, so a
  /// run without a time limit still ends in bounded memory.
  std::uint64_t max_memory = 0;
  /// Stop as soon as the property is decided (a counterexample, or every piece proven safe).
  bool stop_when_decided = false;
  /// Grids: pieces of at most this many points are enumerated instead of split.
  std::uint64_t enumerate_limit = 4096;
  /// "linear" (default) or "interval" bounds.
  BoundMethod bounds = BoundMethod::linear;
  /// Uniform sample drawn before splitting: the statistical estimate beside the certified
  /// interval, and early counterexamples (0 = none). It stops early, with the points drawn so
  /// far, at the time limit or on an interrupt.
  std::size_t samples = 10000;
  /// Confidence level of the sample's Clopper-Pearson interval.
  double confidence = 0.999;
  /// Seed of the sample.
  std::uint64_t seed = 0;
  /// Worker threads (0 = all cores; results do not depend on it).
  int threads = 0;
};

/// One point of the certified interval's history (for the chart).
struct SplitTrace {
  double seconds = 0.0;
  double lower = 0.0;
  double upper = 1.0;
  std::uint64_t boxes = 0;
};

struct SplitResult {
  std::string domain;  ///< "continuous" or "grid"
  /// "input splitting" (this header's method) or "relu branch and bound": graph networks, and
  /// dense networks over continuous boxes of more than 16 free inputs, are searched by branch
  /// and bound over ReLU phases with a projected-gradient attack; that route certifies the
  /// decision (unsafe share exactly 0 when the property holds) but not the share of a violated
  /// property, which the sample then estimates (statistically).
  std::string route = "input splitting";
  std::size_t n_inputs = 0;
  std::size_t n_outputs = 0;
  std::size_t n_regions = 0;
  /// "violated" (a counterexample or a proven-unsafe piece), "holds" (every piece proven safe)
  /// or "unknown".
  std::string decision = "unknown";
  bool finished = false;  ///< nothing left undecided
  /// Share of the domain that is unsafe: lower <= true share <= upper (rounded outward).
  double unsafe_lower = 0.0;
  double unsafe_upper = 1.0;
  /// Grids: exact counts (unsafe_count_lower == unsafe_count_upper when finished).
  mpz_class total;
  mpz_class unsafe_count_lower, unsafe_count_upper;
  /// Continuous: the total volume of the boxes (as a double, for display).
  double volume = 0.0;
  /// A point where the unsafe condition holds, and the network's outputs there.
  std::optional<std::vector<double>> counterexample;
  std::vector<double> counterexample_outputs;
  /// "sample", "search", "proven-unsafe box" or "attack" (projected gradient)
  std::string counterexample_source;
  /// Work done.
  std::uint64_t boxes = 0;  ///< pieces bounded
  std::uint64_t safe_boxes = 0, unsafe_boxes = 0, enumerated_boxes = 0, open_boxes = 0;
  double seconds = 0.0;
  double decision_seconds = -1.0;  ///< when the decision became known (-1: never)
  /// "finished", "decided", "time limit", "max boxes", "memory budget" or "interrupted".
  std::string stopped_by;
  /// Why the run stopped before deciding everything and which option lifts it ("" otherwise).
  std::string stop_message;
  std::uint64_t memory_budget = 0;  ///< bytes the open pieces could take
  /// The statistical estimate from the uniform sample (n = 0 when none): sample.n points drawn
  /// of sample_requested; sample_stopped_by is "time limit" or "interrupted" when fewer.
  Proportion sample;
  std::size_t sample_requested = 0;
  std::string sample_stopped_by;
  double confidence = 0.999;
  std::vector<SplitTrace> trace;
};

/// The options of `params` that domain splitting shares with count(): time_limit, max_boxes,
/// max_memory, seed, threads, the one sample size of `samples` (when given) and enumerate_limit
/// (at most enumeration_limit). Not confidence: count()'s default (0.95) is not splitting's
/// (0.999), so callers set it when it was given.
SplitParams split_params(const CountParams& params);

/// Counts the unsafe share of `property`'s domain under `model` (route: see SplitResult::route).
/// Throws assay::Error when the
/// network's input or output count differs from the property's, the network has hidden layers
/// other than ReLU/identity, or parameters are out of range. A run stopped by a budget or an
/// interrupt returns its certified interval with stop_message set (and warns it).
SplitResult count_unsafe(const Model& model, const VnnProperty& property,
                         const SplitParams& params = {});

}  // namespace assay::count
