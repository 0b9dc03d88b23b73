// Private to count: ApproxMC6's constants (Yang and Meel, "Rounding Meets Approximate Model
// Counting", CAV 2023), as the ApproxMC tool computes them.
//
//   approx_threshold(0.8)          == 72   // cell size bound
//   approx_measurements(0.8, 0.2)  == 3    // t, the number of measurements (odd)
//   rounded_cell(20, 0.8)          == pivot / sqrt(2) == 35.22...
#pragma once

#include <cstdint>

namespace assay::count::detail {

/// Largest cell bound accepted (a smaller epsilon would enumerate more models per cell).
constexpr std::uint32_t kMaxThreshold = 1u << 24;

/// 1 + 9.84 (1 + eps/(1+eps)) (1 + 1/eps)^2, before truncation.
double approx_threshold_real(double epsilon);
/// The truncated threshold: a cell "is small" when it holds at most this many models.
std::uint32_t approx_threshold(double epsilon);
/// The smallest odd t whose error bound (Pr[median below] + Pr[median above]) is <= delta, with
/// ApproxMC6's per-measurement bounds for the epsilon regime.
std::uint32_t approx_measurements(double epsilon, double delta);
/// A cell count after ApproxMC6's rounding for the epsilon regime (pivot = 9.84 (1 + 1/eps)^2).
double rounded_cell(double cell, double epsilon);

}  // namespace assay::count::detail
