// Boxes of grid indices: the unit of work of structural counting, enumeration and sampling.
//
// A box holds, per scalar input v, an inclusive range [lo[v], hi[v]] of grid indices k (the
// value is VarDomain::value(k)). Its size is the product of the widths, exact (GMP). Count types
// N are std::uint64_t when the domain has fewer than 2^63 points and mpz_class otherwise.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <gmpxx.h>

#include "assay/core/rng.hpp"
#include "assay/count/model.hpp"
#include "assay/count/spec.hpp"

namespace assay::count::detail {

// GMP takes 64-bit counts directly as unsigned long (LP64).
static_assert(sizeof(unsigned long) == sizeof(std::uint64_t));

struct Box {
  std::vector<std::uint64_t> lo, hi;
};

/// Every grid point of the domain.
Box full_box(const Domain& d);
/// Number of points of the box (exact).
mpz_class box_size(const Box& b);
/// The L-infinity ball around center (one value per input), as grid indices clipped to the
/// domain; throws when the center lies outside the domain or the ball holds no grid point.
Box region_box(const Domain& d, std::span<const double> center, double epsilon);
/// The first grid index of `v` that a tree split on `threshold` sends right. The test is
/// monotone in the value (float32 rounding is monotone too), so the indices going left are
/// exactly 0 .. result-1.
std::uint64_t first_right_index(const Model& m, const VarDomain& v, double threshold);
/// A uniformly drawn point of the box (values, one per input).
std::vector<double> random_point(const Domain& d, const Box& box, Rng& rng);

inline mpz_class to_mpz(const std::uint64_t& v) {
  return mpz_class(static_cast<unsigned long>(v));
}
inline mpz_class to_mpz(const mpz_class& v) {
  return v;
}

/// The size of `box` in count type N.
template <typename N>
N initial_size(const Box& box) {
  if constexpr (std::is_same_v<N, mpz_class>) {
    return box_size(box);
  } else {
    return box_size(box).get_ui();
  }
}

// The model's output on a box where it is constant (or at a point).
struct Outputs {
  std::int32_t label = 0;
  const double* scores = nullptr;
  std::size_t n_scores = 0;
};

}  // namespace assay::count::detail
