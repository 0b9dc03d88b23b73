// Private to the shift layer: a branch-free natural log that compilers vectorise (the ensemble
// measures take M x K logs per sample; glibc's log is a scalar call that blocks vectorisation).
//
// fdlibm's e_log.c reduction and polynomial (error < 1 ulp there; here the general formula is
// used for the whole reduced range, measured <= 2 ulp by the tests). Requires: x a positive
// normal double (>= DBL_MIN, finite); callers clamp and fix up the rare other inputs.
#pragma once

#include <bit>
#include <cstdint>

// Loops that call fast_log get AVX-512 and AVX2 clones (assay/core/vector_clones.hpp).
#include "assay/core/vector_clones.hpp"

namespace assay::shift::detail {

inline double fast_log(double x) {
  constexpr double kLg1 = 6.666666666666735130e-01, kLg2 = 3.999999999940941908e-01,
                   kLg3 = 2.857142874366239149e-01, kLg4 = 2.222219843214978396e-01,
                   kLg5 = 1.818357216161805012e-01, kLg6 = 1.531383769920937332e-01,
                   kLg7 = 1.479819860511658591e-01;
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  const auto bits = std::bit_cast<std::uint64_t>(x);
  // Exponent as a double without an int-to-double conversion (2^52 + e, minus 2^52).
  double k = std::bit_cast<double>(((bits >> 52) & 0x7ff) | 0x4330000000000000ULL) -
             (4503599627370496.0 + 1023.0);
  // Reduce the mantissa to about [sqrt(2)/2, sqrt(2)) with integer operations only (an FP
  // select would not be if-converted under the default -ftrapping-math): mantissas above
  // sqrt(2) (top 20 fraction bits > 0x6a09e) are halved by lowering their exponent field.
  const auto top = static_cast<std::int32_t>((bits >> 32) & 0xfffff);
  const std::int32_t high = top > 0x6a09e;
  const std::uint64_t m_bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  const double m = std::bit_cast<double>(m_bits - (static_cast<std::uint64_t>(high) << 52));
  k += static_cast<double>(high);
  const double f = m - 1.0;
  const double hfsq = 0.5 * f * f;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (kLg2 + w * (kLg4 + w * kLg6));
  const double t2 = z * (kLg1 + w * (kLg3 + w * (kLg5 + w * kLg7)));
  const double r = t2 + t1;
  return k * kLn2Hi - ((hfsq - (s * (hfsq + r) + k * kLn2Lo)) - f);
}

}  // namespace assay::shift::detail
