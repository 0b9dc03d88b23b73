// Segmentation evaluation over many subjects stored as NIfTI files (Shifts 2.0 paper, MS lesions):
// the library entry point of `assay segment` and Python's assay.shift.segmentation.evaluate.
//
// Inputs are *sources*, each naming one volume per subject:
// - a folder: every *.nii / *.nii.gz file in it (not recursive);
// - a glob (contains *, ? or [): the .nii / .nii.gz files it matches;
// - a pattern with `{id}` in the file name, e.g. "preds/{id}_prob.nii.gz": the files of that
//   folder that match, the subject id being the part `{id}` stands for (without .nii/.nii.gz
//   when the pattern has no extension);
// - one .nii / .nii.gz file: a single subject.
// Subject ids (folder, glob): the file name without .nii/.nii.gz, minus the longest prefix and
// suffix common to all files of that source, cut back to a separator (a prefix ends with, a
// suffix starts with, a character other than a letter or digit): "sub-01_pred", "sub-02_pred",
// ... give ids "01", "02"; "1_gt_isovox", "12_gt_isovox" give "1", "12". A source with a single
// file: its id is the file name without extension, and it matches the truth's only subject when
// the truth source has a single subject. The truth source defines the subjects; every other
// source must have exactly the same ids (missing or extra ids are an error naming the ids and
// the source); two files with one id are an error naming both.
//
// Per subject (in parallel, `threads` workers, each with one reused workspace holding one
// subject's volumes: streaming): the truth mask, the prediction(s), optional uncertainty map and
// brain mask are read (assay/core/nifti.hpp); all must share the truth's grid (shape and affine
// within 1e-4, else an error naming both files); truth and brain mask must be 0/1, predictions
// in [0, 1], uncertainty not NaN (else an error naming the file and voxel). Several --pred
// sources are ensemble members: the probability is their voxel-wise mean (p_1 + ... + p_M) / M.
// The voxel uncertainty is the --uncertainty map when given, else `voxel_measure` of the members
// with classes {1 - p, p} (shift/ensemble.hpp ensemble_uncertainty, the formulas of
// segmentation.hpp ensemble_maps), computed only for brain-mask voxels unless the map is written.
// Masks are read straight into bytes and probability maps checked and thresholded block by
// block as the files are decoded. Then score_subject_masks (shift/segmentation.hpp): threshold,
// post-processing, DSC / nDSC / lesion F1 on the whole volume, nDSC retention and mean
// uncertainty over the brain-mask voxels.
//
// Across subjects, overall ("all") and per partition: mean ± SD (ddof 0, numpy's np.std) of
// DSC, nDSC, lesion F1 and nDSC R-AUC, reported ×100 as Shifts does, and the patient-level
// error-retention curve (error = 1 − nDSC, uncertainty = mean voxel uncertainty over the
// considered voxels; shift/retention.hpp, convention "shifts") with its R-AUC (×100) and PRR.
//
// Example:
//   SegmentParams p;
//   p.truth = "gt/{id}_gt.nii.gz";
//   p.pred = {"m1/{id}_prob.nii.gz", "m2/{id}_prob.nii.gz"};   // two members: their mean
//   p.brain_mask = "masks/";                                    // a folder: ids from file names
//   SegmentEvaluation e = evaluate_segmentation_files(p);
//   // e.subjects: one per truth subject (ids "01", "02", ...); e.sets[0] is "all": DSC, nDSC,
//   // lesion F1 and nDSC R-AUC as mean ± SD ×100 (report/segmentation.hpp renders them)
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "assay/core/table.hpp"
#include "assay/shift/retention.hpp"
#include "assay/shift/segmentation.hpp"

namespace assay::shift {

/// Where a run's voxel uncertainty comes from: auto (resolved by the number of members), a map
/// file (--uncertainty; not an option of --voxel-measure), none, or one measure of the members
/// (shift/ensemble.hpp). Results spell it as the option does (to_string).
enum class VoxelMeasure {
  automatic,
  file,
  none,
  entropy_of_expected,
  expected_entropy,
  mutual_information,
  epkl,
  reverse_mutual_information
};
/// "auto", "none", "entropy_of_expected", "expected_entropy", "mutual_information", "epkl" or
/// "reverse_mutual_information"; anything else throws assay::Error naming what was found.
VoxelMeasure parse_voxel_measure(std::string_view name);
std::string_view to_string(VoxelMeasure measure);

struct SegmentParams {
  /// Prediction sources (at least one): probability maps or 0/1 masks; several = ensemble
  /// members, averaged voxel-wise.
  std::vector<std::string> pred;
  /// Ground-truth mask source (required): 0/1 volumes; it defines the subjects.
  std::string truth;
  /// Voxel uncertainty map source; empty = computed from the members by `voxel_measure`.
  std::string uncertainty;
  /// Brain mask source (0/1); empty = every voxel is considered.
  std::string brain_mask;
  /// CSV with columns `subject` and `partition` (e.g. in-domain / shifted); empty = none. Rows
  /// for subjects not evaluated are ignored; a subject without a row is an error.
  std::string partition_csv;
  /// Voxel uncertainty from the members when no map is given: "auto" (default: reverse mutual
  /// information for an ensemble, entropy of the prediction for one model, as the Shifts MS
  /// baselines), "none", or entropy_of_expected, expected_entropy, mutual_information, epkl,
  /// reverse_mutual_information.
  std::string voxel_measure = "auto";
  /// Per-subject settings: threshold 0.35, connectivity 6, IoU 0.25, min lesion size 10, r.
  SegmentationParams scoring;
  /// Worker threads, one subject each (0 = all cores); results do not depend on it.
  int threads = 0;
  /// Folder for the post-processed predicted masks (<id>_mask.nii.gz, uint8); empty = none. It
  /// must not hold input files (refused: an input could be overwritten).
  std::string write_masks;
  /// Folder for the voxel uncertainty maps (<id>_uncertainty.nii.gz, float32); empty = none; not
  /// a folder holding input files either.
  std::string write_uncertainty;
};

/// One subject's files, as matched.
struct SubjectFiles {
  std::string id;
  std::vector<std::string> pred;  ///< one per --pred source
  std::string truth;
  std::string uncertainty;  ///< empty without an uncertainty source
  std::string brain_mask;   ///< empty without a brain-mask source
  std::string partition;    ///< empty without a partition CSV
};

/// The subjects of `params` (truth ids in natural order: "2" before "10") with their files, by
/// the matching rule above; throws assay::Error naming the source for any mismatch.
std::vector<SubjectFiles> match_subjects(const SegmentParams& params);

struct SubjectResult {
  SubjectFiles files;
  SubjectScores scores;
};

struct MeanSd {
  double mean = std::numeric_limits<double>::quiet_NaN();
  double sd = std::numeric_limits<double>::quiet_NaN();
};

/// One row of the across-subject table. Every MeanSd and R-AUC here is ×100 (percent).
struct SegmentSetSummary {
  /// "all" or a partition name.
  std::string set;
  std::size_t n_subjects = 0;
  MeanSd dsc, ndsc, lesion_f1, ndsc_retention_auc;
  std::uint64_t lesion_tp = 0, lesion_fp = 0, lesion_fn = 0;
  /// Patient-level error-retention R-AUC (error 1 − nDSC) ×100 and PRR (fraction); NaN without
  /// uncertainty.
  double patient_r_auc = std::numeric_limits<double>::quiet_NaN();
  double patient_prr = std::numeric_limits<double>::quiet_NaN();
};

struct SegmentEvaluation {
  SegmentParams params;
  /// "file" (--uncertainty), a measure name, or "none".
  std::string voxel_uncertainty;
  std::vector<SubjectResult> subjects;
  /// "all" first, then each partition in sorted order.
  std::vector<SegmentSetSummary> sets;
  /// Patient-level curves over all subjects (model, oracle, random); empty without uncertainty.
  RetentionCurves patient_curves;
  std::vector<std::string> notes;
};

/// Reads, scores and summarises every subject. Throws assay::Error naming the file (and voxel)
/// for bad input.
SegmentEvaluation evaluate_segmentation_files(const SegmentParams& params);

/// One row per subject: id, partition, the SubjectScores numbers (fractions) — the CSV.
Table subject_table(const SegmentEvaluation& evaluation);

}  // namespace assay::shift
