// Segmentation evaluation on 3-D volumes (Shifts 2.0 paper, MS lesions): DSC, nDSC, voxel and
// lesion counts, lesion-level F1, post-processing, nDSC retention, voxel-wise ensemble uncertainty.
//
// Layout: a volume is nx*ny*nz values, first index fastest: voxel (i, j, k) is
// v[i + nx * (j + ny * k)] (NIfTI's order, assay::Volume). A C-ordered numpy array of shape
// (a, b, c) is the same memory with nx = c, ny = b, nz = a (set Grid3::c_order_names so that
// messages name voxels by the numpy index). Every measure here is symmetric in the axes, so both
// readings give the same numbers, with one exception: the nDSC retention orders voxels of exactly
// equal uncertainty by memory order (a stable sort), so with ties the two readings can differ.
// Component numbering follows memory order (scipy.ndimage.label's numbering of the C-ordered
// array).
// Masks are 0/1: uint8 in the low-level functions, doubles in score_subject and binary_mask
// (anything but 0 or 1 is an assay::Error naming the voxel). Conventions and defaults follow
// docs/segmentation.md "Conventions" and the Shifts MS code (mswml/metrics.py,
// uncertainty.py, data_load.py, test.py); docs/segmentation.md states each one:
// - predicted mask = probability >= threshold (Shifts' test.py: seg[seg >= th] = 1);
// - post-processing drops predicted components with fewer than min_lesion_size voxels (Shifts'
//   remove_connected_components keeps components of more than l_min = 9 voxels);
// - DSC, nDSC and lesion F1 use the whole volume (N = nx*ny*nz in nDSC), as Shifts' test.py;
//   the brain mask only selects the voxels of the nDSC retention curve (N = brain voxels there),
//   as Shifts' retention_curves.py;
// - lesion F1: components of prediction and truth (same connectivity); a predicted lesion is a TP
//   when max(0, IoU with each true lesion it overlaps) >= iou_threshold, else an FP; a true lesion
//   is an FN when max(0, IoU with each predicted lesion it overlaps) < iou_threshold;
//   F1 = TP / (TP + (FP + FN) / 2), 1 when that denominator is 0 (Shifts' lesion_f1_score);
// - retention: considered voxels stably sorted by uncertainty ascending (ties keep memory order;
//   Shifts uses numpy's unstable argsort), fractions x_i = ln(i) / ln(points), i = 1..points,
//   pos = floor(N x_i), the pos most certain keep the prediction and the rest take the truth;
//   area = 1 - trapezoid area under (x, nDSC) (Shifts' ndsc_aac_metric, "nDSC R-AUC").
//
// Example:
//   std::vector<std::uint8_t> pred = {1, 1, 0, 0}, truth = {0, 1, 1, 0};   // a 4 x 1 x 1 grid
//   VoxelCounts c = voxel_counts(pred, truth);   // n 4, tp 1, fp 1, fn 1
//   dice(c);                                     // 2 / (2 + 1 + 1) = 0.5
//   normalised_dice(c, 0.5);                     // 0.5: k = 1 when r = |G| / N
//   normalised_dice(c, 0.001);                   // 2 / (2 + 999 + 1) = 0.0019960 (k = 999)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace assay::shift {

struct Grid3 {
  std::size_t nx = 0, ny = 0, nz = 0;
  /// Messages name voxel (i, j, k) as "(k, j, i)", the index of a C-ordered numpy array of shape
  /// (nz, ny, nx), instead of "(i, j, k)". Python sets it; numbers never depend on it.
  bool c_order_names = false;
  std::size_t size() const { return nx * ny * nz; }
};

/// "(i, j, k)" of memory index v (or "(k, j, i)" with grid.c_order_names).
std::string voxel_name(Grid3 grid, std::size_t v);

/// Connected components of a binary mask: labels[v] = 0 for background, 1..count otherwise,
/// numbered in order of each component's first voxel in memory order (scipy.ndimage.label's
/// numbering on the C-ordered array). sizes[c-1] = voxels of component c.
struct Components {
  std::vector<std::uint32_t> labels;
  std::uint32_t count = 0;
  std::vector<std::uint64_t> sizes;
};

/// connectivity: 6 (faces), 18 (faces + edges) or 26 (faces + edges + corners), the neighbours
/// of scipy.ndimage.generate_binary_structure(3, 1 / 2 / 3); anything else is an error. Mask
/// values other than 0 count as foreground. Linear time (two-pass union-find).
Components label_components(std::span<const std::uint8_t> mask, Grid3 grid, int connectivity);

/// Checks that `values` (grid.size() of them) are all 0 or 1 and returns them as a uint8 mask;
/// otherwise an assay::Error "<what>: expected 0 or 1 at voxel (i, j, k), found <value>".
std::vector<std::uint8_t> binary_mask(std::span<const double> values, Grid3 grid,
                                      std::string_view what);

/// probability >= threshold, as a 0/1 mask. Probabilities must lie in [0, 1] (NaN, infinities
/// and values outside are an assay::Error naming the voxel).
std::vector<std::uint8_t> threshold_probability(std::span<const double> probability, Grid3 grid,
                                                double threshold);

/// Post-processing: zeroes every component of `mask` with fewer than min_lesion_size voxels (0
/// or 1 keeps all). Returns the number of components removed.
std::size_t remove_small_lesions(std::span<std::uint8_t> mask, Grid3 grid, int connectivity,
                                 std::size_t min_lesion_size);

/// Voxel counts of a prediction against the truth; n = voxels compared.
struct VoxelCounts {
  std::uint64_t n = 0, tp = 0, fp = 0, fn = 0;
  std::uint64_t predicted() const { return tp + fp; }
  std::uint64_t truth() const { return tp + fn; }
};

VoxelCounts voxel_counts(std::span<const std::uint8_t> prediction,
                         std::span<const std::uint8_t> truth);

/// DSC = 2TP / (2TP + FP + FN); 1 when prediction and truth are both empty.
double dice(const VoxelCounts& c);

/// nDSC = 2TP / (2TP + k FP + FN), k = (1 - r)|G| / (r (N - |G|)) (k = 1 when |G| = 0, k FP = 0
/// when FP = 0); 1 when prediction and truth are both empty. N = c.n. r in (0, 1).
double normalised_dice(const VoxelCounts& c, double r);

/// Lesion-level detection counts (see the header comment for the TP / FP / FN rule).
struct LesionCounts {
  std::uint64_t true_lesions = 0, predicted_lesions = 0;
  std::uint64_t tp = 0, fp = 0, fn = 0;
  double f1 = 1;
};

/// From components of prediction and truth on the same grid. iou_threshold in [0, 1].
LesionCounts lesion_counts(const Components& prediction, const Components& truth,
                           double iou_threshold);
/// Labels both masks first.
LesionCounts lesion_counts(std::span<const std::uint8_t> prediction,
                           std::span<const std::uint8_t> truth, Grid3 grid, int connectivity,
                           double iou_threshold);

/// The nDSC retention curve of one subject.
struct NdscRetention {
  /// fraction[i - 1] = ln(i) / ln(points), i = 1..points.
  std::vector<double> fraction;
  /// nDSC at each fraction (N = considered voxels).
  std::vector<double> ndsc;
  /// 1 - trapezoid area under (fraction, ndsc): Shifts' nDSC R-AAC (lower is better).
  double area = 0;
  /// Voxels considered (brain-mask voxels, or all without a mask).
  std::uint64_t n_voxels = 0;
};

/// Most points of an nDSC retention curve (Shifts uses 200): more are refused before any table
/// is sized by them.
inline constexpr std::size_t kMaxRetentionPoints = 1'000'000;

/// brain_mask may be empty (all voxels). Uncertainty NaN is an assay::Error naming the voxel
/// (infinities sort to the ends). points in 2..kMaxRetentionPoints; r in (0, 1). Voxels are ranked
/// by uncertainty as a stable sort would rank them (ties in memory order), but only the keys at the
/// cuts are found (histograms of the keys' bits, not a sort); the nDSC at each fraction comes from
/// prefix counts over the voxels where prediction or truth is 1.
NdscRetention ndsc_retention(std::span<const std::uint8_t> prediction,
                             std::span<const std::uint8_t> truth,
                             std::span<const double> uncertainty,
                             std::span<const std::uint8_t> brain_mask, Grid3 grid, double r = 0.001,
                             std::size_t points = 200);

/// Voxel-wise measures of an ensemble of M binary (lesion / background) probability maps, each
/// vector grid.size() long. Per voxel, with p_m the member's lesion probability, q_m = 1 - p_m,
/// p̄ = mean_m p_m, q̄ = mean_m q_m, eps = 1e-10 and L(x) = log(x + eps) (Shifts' uncertainty.py
/// on the stacked [p, 1 - p] distribution; docs/shift.md "Ensemble uncertainty"):
///   entropy_of_expected = -(p̄ L(p̄) + q̄ L(q̄))
///   expected_entropy    = mean_m -(p_m L(p_m) + q_m L(q_m))
///   mutual_information  = entropy_of_expected - expected_entropy
///   epkl                = -(p̄ mean_m L(p_m) + q̄ mean_m L(q_m)) - expected_entropy
///   reverse_mutual_information = epkl - mutual_information (Shifts' baseline uncertainty)
struct VoxelEnsembleMaps {
  std::vector<double> mean;  ///< p̄, the ensemble probability map
  std::vector<double> entropy_of_expected;
  std::vector<double> expected_entropy;
  std::vector<double> mutual_information;
  std::vector<double> epkl;
  std::vector<double> reverse_mutual_information;
};

/// members: n_members x grid.size(), member-major (member m's voxel v at m * grid.size() + v).
/// Every value must be a probability in [0, 1] (else an assay::Error naming member and voxel).
VoxelEnsembleMaps ensemble_maps(std::span<const double> members, std::size_t n_members, Grid3 grid,
                                double epsilon = 1e-10);

/// Which maps ensemble_maps fills (the others stay empty): a pipeline that needs the mean and one
/// uncertainty map holds 2 volumes instead of 6.
struct EnsembleMapSelection {
  bool mean = true, entropy_of_expected = true, expected_entropy = true, mutual_information = true,
       epkl = true, reverse_mutual_information = true;
};
VoxelEnsembleMaps ensemble_maps(std::span<const double> members, std::size_t n_members, Grid3 grid,
                                double epsilon, const EnsembleMapSelection& which);

struct SegmentationParams {
  /// A probability map becomes the predicted mask by p >= threshold (Shifts: 0.35, seg >= th).
  double threshold = 0.35;
  /// Voxel connectivity for lesions and post-processing: 6 (Shifts' ndimage.label default),
  /// 18 or 26.
  int connectivity = 6;
  /// A predicted lesion is a TP if its best IoU with an overlapping true lesion is >= this; a
  /// true lesion is an FN if its best IoU is < this (Shifts: 0.25 in metrics.py, 0.5 in test.py).
  double iou_threshold = 0.25;
  /// Post-processing: predicted components with fewer voxels than this are removed (Shifts'
  /// baselines remove components of <= 9 voxels, i.e. min_lesion_size 10); 0 or 1 keeps all.
  /// True lesions are never filtered.
  std::size_t min_lesion_size = 10;
  /// nDSC reference lesion load r, in (0, 1).
  double ndsc_r = 0.001;
  /// Points of the nDSC retention curve (fractions ln(i)/ln(points), i = 1..points), >= 2.
  std::size_t retention_points = 200;
};

/// Throws assay::Error for parameters out of range (message names the parameter).
void check_params(const SegmentationParams& params);

struct SubjectScores {
  /// Voxels of the volume: the N of the nDSC (Shifts' test.py scores the whole volume).
  std::uint64_t n_voxels = 0;
  /// Voxels of the retention curve and the mean uncertainty: brain-mask voxels, or all.
  std::uint64_t brain_voxels = 0;
  /// Voxel counts of the post-processed prediction against the truth (whole volume).
  std::uint64_t voxel_tp = 0, voxel_fp = 0, voxel_fn = 0;
  double dsc = 0, ndsc = 0;
  std::uint64_t true_lesions = 0, predicted_lesions = 0;
  std::uint64_t lesion_tp = 0, lesion_fp = 0, lesion_fn = 0;
  double lesion_f1 = 0;
  /// Predicted components removed by post-processing (fewer than min_lesion_size voxels).
  std::uint64_t removed_lesions = 0;
  /// Area above the nDSC retention curve (1 − trapezoid area, Shifts' "nDSC R-AUC"); NaN when
  /// no uncertainty map was given.
  double ndsc_retention_auc = 0;
  /// Mean voxel uncertainty over the brain-mask voxels (all without a mask): a patient-level
  /// uncertainty; NaN without an uncertainty map (or with an empty brain mask).
  double mean_uncertainty = 0;
  /// The retention curve's points (fraction retained, nDSC), empty without uncertainty.
  std::vector<double> retention_fraction, retention_ndsc;
};

/// Scores one subject: threshold the probability map (a 0/1 prediction works too), drop small
/// predicted components, then voxel counts, DSC, nDSC, lesion counts and F1 on the whole volume,
/// and, with an uncertainty map, the nDSC retention over the brain-mask voxels.
/// `probability` and `truth` are required; `uncertainty` and `brain_mask` may be empty. All given
/// volumes have grid.size() values. Throws assay::Error for a size mismatch, probabilities that
/// are NaN or outside [0, 1], NaN uncertainties, non-binary truth / brain mask (naming the first
/// offending voxel as (i, j, k)) and bad parameters.
SubjectScores score_subject(std::span<const double> probability, std::span<const double> truth,
                            std::span<const double> uncertainty, std::span<const double> brain_mask,
                            Grid3 grid, const SegmentationParams& params);

/// The same with the truth and brain mask already as 0/1 bytes (an empty brain mask = every
/// voxel), as `assay segment` reads them from their files without holding doubles: equal
/// results. Throws assay::Error as score_subject, and for a mask byte other than 0 or 1.
SubjectScores score_subject_masks(std::span<const double> probability,
                                  std::span<const std::uint8_t> truth,
                                  std::span<const double> uncertainty,
                                  std::span<const std::uint8_t> brain_mask, Grid3 grid,
                                  const SegmentationParams& params);

/// The post-processed prediction score_subject evaluates: threshold, then remove_small_lesions.
std::vector<std::uint8_t> postprocess(std::span<const double> probability, Grid3 grid,
                                      const SegmentationParams& params);

}  // namespace assay::shift
