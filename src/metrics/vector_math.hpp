// Private to the metrics layer: log, log1p and pow over whole arrays through glibc's vector math
// library (libmvec, part of libc6), 4 values per call on CPUs with AVX2 and 2 otherwise. Per
// value they are scalar libm's functions to within a few ulp (glibc documents the bounds); the
// regression metrics whose cost is these functions (MSLE, Poisson, Gamma and Tweedie
// deviances) were 2-5x slower than scikit-learn, whose numpy runs SIMD versions of them. 8
// values per call where the CPU has AVX-512.
//
// Every value goes through the same vector routine (the tail is padded), so a result depends on
// the CPU's instruction set but never on the position of a value, n or the thread count.
#pragma once

#include <cstddef>

namespace assay::metrics::detail {

/// out[i] = log(x[i]) for i < n (out may alias x).
void log_many(const double* x, double* out, std::size_t n);

/// out[i] = log1p(x[i]) for i < n (out may alias x).
void log1p_many(const double* x, double* out, std::size_t n);

/// out[i] = pow(x[i], exponent) for i < n (out may alias x). Exponents 0.5, -0.5, -1, 1 and 2 are
/// computed with sqrt, division and products (as numpy's `**` does), equal to pow for finite x.
void pow_many(const double* x, double exponent, double* out, std::size_t n);

}  // namespace assay::metrics::detail
