#include "box.hpp"

#include <algorithm>
#include <cmath>

#include "assay/core/error.hpp"

namespace assay::count::detail {

Box full_box(const Domain& d) {
  Box b;
  for (const auto& v : d.vars) {
    b.lo.push_back(0);
    b.hi.push_back(v.size - 1);
  }
  return b;
}

mpz_class box_size(const Box& b) {
  mpz_class n = 1;
  std::uint64_t chunk = 1;
  for (std::size_t v = 0; v < b.lo.size(); ++v) {
    const std::uint64_t w = b.hi[v] - b.lo[v] + 1;
    if (chunk > (std::uint64_t{1} << 62) / w) {
      n *= mpz_class(static_cast<unsigned long>(chunk));
      chunk = 1;
    }
    chunk *= w;
  }
  n *= mpz_class(static_cast<unsigned long>(chunk));
  return n;
}

// The L-infinity ball around center, as grid indices, clipped to the domain.
Box region_box(const Domain& d, std::span<const double> center, double epsilon) {
  Box b;
  for (std::size_t v = 0; v < d.vars.size(); ++v) {
    const VarDomain& dv = d.vars[v];
    const double c = center[v];
    const double top = dv.value(dv.size - 1);
    const double tol = 1e-9 * std::max(1.0, std::abs(dv.step));
    if (!(c >= dv.lo - tol && c <= top + tol)) {
      fail("the center's {} = {} lies outside the domain [{}, {}]", dv.name, c, dv.lo, top);
    }
    const double lo_k = std::ceil((c - epsilon - dv.lo) / dv.step - 1e-9);
    const double hi_k = std::floor((c + epsilon - dv.lo) / dv.step + 1e-9);
    const double max_k = static_cast<double>(dv.size - 1);
    const double a = std::clamp(lo_k, 0.0, max_k), z = std::clamp(hi_k, 0.0, max_k);
    if (a > z) {
      fail("the region around {} = {} with radius {} holds no grid point", dv.name, c, epsilon);
    }
    b.lo.push_back(static_cast<std::uint64_t>(a));
    b.hi.push_back(static_cast<std::uint64_t>(z));
  }
  return b;
}

std::uint64_t first_right_index(const Model& m, const VarDomain& v, double threshold) {
  std::uint64_t lo = 0, hi = v.size;  // the first index going right lies in [lo, hi]
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (goes_left(m, v.value(mid), threshold)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

std::vector<double> random_point(const Domain& d, const Box& box, Rng& rng) {
  std::vector<double> x(d.vars.size());
  for (std::size_t v = 0; v < x.size(); ++v) {
    x[v] = d.vars[v].value(box.lo[v] + rng.below(box.hi[v] - box.lo[v] + 1));
  }
  return x;
}

}  // namespace assay::count::detail
