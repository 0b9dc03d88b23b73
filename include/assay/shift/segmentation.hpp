// Segmentation evaluation on 3-D volumes (source 003, MS lesions): DSC, nDSC, voxel and lesion
// counts, lesion-level F1, nDSC retention, voxel-wise ensemble uncertainty.
//
// Layout: a volume is nx*ny*nz values, first index fastest: voxel (i, j, k) is
// v[i + nx * (j + ny * k)] (NIfTI's order, assay::Volume). A C-ordered numpy array of shape
// (a, b, c) is the same memory with nx = c, ny = b, nz = a; every measure here is symmetric in
// the axes, so both readings give the same numbers.
// Masks are 0/1 doubles (truth: anything else is an error naming the voxel). Conventions and
// defaults follow ../shared/design/CONVENTIONS.md "Segmentation" and the Shifts MS code;
// docs/segmentation.md states each one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace assay::shift {

struct Grid3 {
  std::size_t nx = 0, ny = 0, nz = 0;
  std::size_t size() const { return nx * ny * nz; }
};

/// Connected components of a binary mask: labels[v] = 0 for background, 1..count otherwise,
/// numbered in order of each component's first voxel in memory order (scipy.ndimage.label's
/// numbering on the C-ordered array). sizes[c-1] = voxels of component c.
struct Components {
  std::vector<std::uint32_t> labels;
  std::uint32_t count = 0;
  std::vector<std::uint64_t> sizes;
};

/// connectivity: 6 (faces), 18 (faces + edges) or 26 (faces + edges + corners); anything else is
/// an error.
Components label_components(std::span<const std::uint8_t> mask, Grid3 grid, int connectivity);

struct SegmentationParams {
  /// A probability map becomes the predicted mask by p > threshold (Shifts baselines: 0.35).
  double threshold = 0.35;
  /// Voxel connectivity for lesions: 6, 18 or 26 (Shifts: 6... see docs/segmentation.md).
  int connectivity = 6;
  /// A predicted lesion is a true positive if its best IoU with a true lesion is ≥ this.
  double iou_threshold = 0.25;
  /// Post-processing: predicted components with fewer voxels than this are removed (Shifts'
  /// baselines remove components of ≤ 9 voxels, i.e. min_lesion_size 10); 0 or 1 keeps all.
  std::size_t min_lesion_size = 10;
  /// nDSC reference lesion load r.
  double ndsc_r = 0.001;
  /// Points of the nDSC retention curve (fractions ln(i)/ln(points), i = 1..points).
  std::size_t retention_points = 200;
};

struct SubjectScores {
  /// Voxels considered (brain-mask voxels when a mask is given, else all).
  std::uint64_t n_voxels = 0;
  std::uint64_t voxel_tp = 0, voxel_fp = 0, voxel_fn = 0;
  double dsc = 0, ndsc = 0;
  std::uint64_t true_lesions = 0, predicted_lesions = 0;
  std::uint64_t lesion_tp = 0, lesion_fp = 0, lesion_fn = 0;
  double lesion_f1 = 0;
  /// Area above the nDSC retention curve (1 − trapezoid area, Shifts' "nDSC R-AUC"); NaN when
  /// no uncertainty map was given.
  double ndsc_retention_auc = 0;
  /// Mean voxel uncertainty over the considered voxels (patient-level uncertainty); NaN without
  /// an uncertainty map.
  double mean_uncertainty = 0;
  /// The retention curve's points (fraction retained, nDSC), empty without uncertainty.
  std::vector<double> retention_fraction, retention_ndsc;
};

/// Scores one subject. `probability` (or a 0/1 prediction) and `truth` are required;
/// `uncertainty` and `brain_mask` may be empty. All given volumes have grid.size() values.
/// Throws assay::Error for a size mismatch, NaN probabilities or uncertainties, or non-binary
/// truth / brain mask (naming the first offending voxel as (i, j, k)).
SubjectScores score_subject(std::span<const double> probability, std::span<const double> truth,
                            std::span<const double> uncertainty, std::span<const double> brain_mask,
                            Grid3 grid, const SegmentationParams& params);

}  // namespace assay::shift
