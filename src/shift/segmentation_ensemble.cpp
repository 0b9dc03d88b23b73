// Voxel-wise uncertainty of an ensemble of binary probability maps (Shifts' uncertainty.py on the
// stacked [p, 1 - p] distribution). Members are read as M sequential streams; the logs use the
// shift layer's vectorisable fast_log (p + eps >= 1e-10 is always a normal double).
#include <algorithm>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/shift/segmentation.hpp"
#include "shift/fast_log.hpp"
#include "shift/segmentation_detail.hpp"

namespace assay::shift {

VoxelEnsembleMaps ensemble_maps(std::span<const double> members, std::size_t n_members, Grid3 grid,
                                double epsilon) {
  return ensemble_maps(members, n_members, grid, epsilon, EnsembleMapSelection{});
}

VoxelEnsembleMaps ensemble_maps(std::span<const double> members, std::size_t n_members, Grid3 grid,
                                double epsilon, const EnsembleMapSelection& which) {
  if (n_members == 0) fail("members: expected at least 1 member map, found 0");
  if (!(epsilon > 0 && epsilon < 1)) fail("epsilon: expected a value in (0, 1), found {}", epsilon);
  const std::size_t n = grid.size();
  if (members.size() != n_members * n) {
    fail("members: expected {} members x {} voxels ({} x {} x {}) = {} values, found {}", n_members,
         n, grid.nx, grid.ny, grid.nz, n_members * n, members.size());
  }
  detail::check_size(n, grid, "members");
  for (std::size_t m = 0; m < n_members; ++m) {
    const double* p = members.data() + m * n;
    for (std::size_t v = 0; v < n; ++v) {
      if (!(p[v] >= 0.0 && p[v] <= 1.0)) {
        fail("members: expected a probability in [0, 1] for member {} at voxel {}, found {}", m,
             voxel_name(grid, v), p[v]);
      }
    }
  }
  VoxelEnsembleMaps out;
  // Unselected maps stay empty; their pointer is null and nothing is written there.
  const auto output = [n](std::vector<double>& map, bool wanted) -> double* {
    if (!wanted) return nullptr;
    map.resize(n);
    return map.data();
  };
  const double inv_m = 1.0 / static_cast<double>(n_members);
  const double count = static_cast<double>(n_members);
  using detail::fast_log;
  double* const mean = output(out.mean, which.mean);
  double* const eoe_out = output(out.entropy_of_expected, which.entropy_of_expected);
  double* const exe_out = output(out.expected_entropy, which.expected_entropy);
  double* const mi_out = output(out.mutual_information, which.mutual_information);
  double* const epkl_out = output(out.epkl, which.epkl);
  double* const rmi_out = output(out.reverse_mutual_information, which.reverse_mutual_information);
  // Blocks of voxels keep the per-member partial sums in cache while the members stream by.
  constexpr std::size_t kBlock = 1024;
  double sum_p[kBlock], sum_q[kBlock], sum_log_p[kBlock], sum_log_q[kBlock], sum_entropy[kBlock];
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t len = std::min(kBlock, n - begin);
    for (std::size_t t = 0; t < len; ++t) {
      sum_p[t] = sum_q[t] = sum_log_p[t] = sum_log_q[t] = sum_entropy[t] = 0;
    }
    for (std::size_t m = 0; m < n_members; ++m) {
      const double* p = members.data() + m * n + begin;
      for (std::size_t t = 0; t < len; ++t) {
        const double pm = p[t], qm = 1.0 - pm;
        const double lp = fast_log(pm + epsilon), lq = fast_log(qm + epsilon);
        sum_p[t] += pm;
        sum_q[t] += qm;
        sum_log_p[t] += lp;
        sum_log_q[t] += lq;
        sum_entropy[t] += -(pm * lp + qm * lq);
      }
    }
    for (std::size_t t = 0; t < len; ++t) {
      const std::size_t v = begin + t;
      const double pbar = sum_p[t] / count, qbar = sum_q[t] / count;
      const double eoe = -(pbar * fast_log(pbar + epsilon) + qbar * fast_log(qbar + epsilon));
      const double exe = sum_entropy[t] * inv_m;
      const double mi = eoe - exe;
      const double epkl = -(pbar * (sum_log_p[t] / count) + qbar * (sum_log_q[t] / count)) - exe;
      if (mean) mean[v] = pbar;
      if (eoe_out) eoe_out[v] = eoe;
      if (exe_out) exe_out[v] = exe;
      if (mi_out) mi_out[v] = mi;
      if (epkl_out) epkl_out[v] = epkl;
      if (rmi_out) rmi_out[v] = epkl - mi;
    }
  }
  return out;
}

}  // namespace assay::shift
