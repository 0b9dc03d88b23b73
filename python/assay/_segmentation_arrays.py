"""Per-subject segmentation measures on numpy volumes (Shifts 2.0 paper, MS lesions): connected
components, DSC, nDSC, lesion-level F1, post-processing, the nDSC retention curve, voxel-wise
ensemble uncertainty maps and ``score_subject`` tying them together. Every convention (>= on the
probability threshold, IoU rule, retention fractions, brain mask use) is in docs/segmentation.md;
the computations are in C++ (include/assay/shift/segmentation.hpp).

Volumes are 3-D arrays of any memory order and dtype (masks: bool or 0/1 numbers; anything else
is an error naming the voxel by its numpy index). Numbers never depend on the memory order;
component labels are numbered in C order, as ``scipy.ndimage.label`` numbers them.
"""
import numpy as np

from . import _assay
from ._options import check_integer, check_number

__all__ = [
    "label", "voxel_counts", "dice", "ndsc", "lesion_f1", "remove_small_lesions", "postprocess",
    "ndsc_retention", "ensemble_maps", "score_subject",
]


def _volume(a):
    return np.ascontiguousarray(a, dtype=np.float64)


# Arguments checked here so that a bad one is named (pybind11 would say "incompatible function
# arguments"); the ranges that carry meaning (connectivity 6/18/26, r in (0, 1), ...) are the
# library's checks, with its messages.
def _connectivity(c):
    return check_integer(c, "connectivity", -2**31, 2**31 - 1)


def _size(value, name):
    return check_integer(value, name, 0, 2**63 - 1)


def _points(points):
    """Points of the retention curve: 2..1000000 (Shifts uses 200)."""
    return check_integer(points, "points", 2, _assay._max_retention_points)


def label(mask, connectivity=6):
    """Connected components of a binary 3-D mask -> ``(labels, count)`` like
    ``scipy.ndimage.label(mask, generate_binary_structure(3, c))`` with c = 1, 2, 3 for
    connectivity 6, 18, 26: int32 labels 1..count numbered by first voxel in C order."""
    m = _volume(mask)
    labels, count = _assay._segmentation_label(m, _connectivity(connectivity))
    return labels.reshape(m.shape), int(count)


def voxel_counts(prediction, truth):
    """Voxel TP / FP / FN and n (voxels compared) of a binary prediction against the truth."""
    d = _assay._segmentation_voxel_scores(_volume(prediction), _volume(truth), 0.001)
    return {k: int(d[k]) for k in ("n", "tp", "fp", "fn")}


def dice(prediction, truth):
    """DSC = 2|P ∩ G| / (|P| + |G|); 1 when both masks are empty."""
    return float(_assay._segmentation_voxel_scores(_volume(prediction), _volume(truth),
                                                   0.001)["dice"])


def ndsc(prediction, truth, r=0.001):
    """Normalised DSC (Shifts): 2TP / (2TP + k FP + FN), k = (1 - r)|G| / (r (N - |G|)), N = all
    voxels of the volume; k = 1 when |G| = 0; 1 when both masks are empty."""
    return float(_assay._segmentation_voxel_scores(_volume(prediction), _volume(truth),
                                                   check_number(r, "r"))["ndsc"])


def lesion_f1(prediction, truth, iou_threshold=0.25, connectivity=6):
    """Lesion-level detection (Shifts' lesion_f1_score): a predicted lesion is a TP when its best
    IoU with an overlapping true lesion is >= iou_threshold (else FP); a true lesion is an FN when
    its best IoU with an overlapping predicted lesion is < iou_threshold. Returns a dict with
    true_lesions, predicted_lesions, tp, fp, fn and f1 = TP / (TP + (FP + FN) / 2) (1 if 0/0)."""
    d = _assay._segmentation_lesion_counts(_volume(prediction), _volume(truth),
                                           check_number(iou_threshold, "iou_threshold"),
                                           _connectivity(connectivity))
    out = {k: int(d[k]) for k in ("true_lesions", "predicted_lesions", "tp", "fp", "fn")}
    out["f1"] = float(d["f1"])
    return out


def remove_small_lesions(mask, min_size=10, connectivity=6):
    """The mask (uint8) without its components of fewer than ``min_size`` voxels (Shifts'
    remove_connected_components with l_min = min_size - 1)."""
    m = _volume(mask)
    kept, _removed = _assay._segmentation_remove_small(m, _size(min_size, "min_size"),
                                                       _connectivity(connectivity))
    return kept.reshape(m.shape)


def postprocess(probability, threshold=0.35, min_lesion_size=10, connectivity=6):
    """The predicted mask (uint8) that score_subject evaluates: probability >= threshold, then
    components of fewer than min_lesion_size voxels removed."""
    p = _volume(probability)
    mask = _assay._segmentation_postprocess(p, check_number(threshold, "threshold"),
                                            _size(min_lesion_size, "min_lesion_size"),
                                            _connectivity(connectivity))
    return mask.reshape(p.shape)


def ndsc_retention(prediction, truth, uncertainty, brain_mask=None, points=200, r=0.001):
    """nDSC retention curve of one subject (Shifts' ndsc_aac_metric) over the brain-mask voxels
    (all voxels without a mask): voxels stably sorted by uncertainty ascending; at fraction
    x_i = ln(i) / ln(points) the floor(N x_i) most certain keep the prediction, the rest take the
    truth. Returns dict(fractions, curve, area = 1 - trapezoid area, n_voxels)."""
    d = _assay._segmentation_retention(
        _volume(prediction), _volume(truth), _volume(uncertainty),
        None if brain_mask is None else _volume(brain_mask), check_number(r, "r"),
        _points(points))
    return {"fractions": d["fractions"], "curve": d["curve"], "area": float(d["area"]),
            "n_voxels": int(d["n_voxels"])}


def ensemble_maps(members, epsilon=1e-10):
    """Voxel-wise ensemble maps from M member lesion-probability maps (an (M, a, b, c) array or a
    sequence of M 3-D arrays): mean, entropy_of_expected, expected_entropy, mutual_information,
    epkl and reverse_mutual_information of the binary [p, 1 - p] distribution (Shifts'
    uncertainty.py, eps = 1e-10). Returns a dict of 3-D arrays."""
    if isinstance(members, (list, tuple)):
        members = np.stack([np.asarray(m, dtype=np.float64) for m in members])
    m = _volume(members)
    d = _assay._segmentation_ensemble_maps(m, check_number(epsilon, "epsilon"))
    return {k: v.reshape(m.shape[1:]) for k, v in d.items()}


def score_subject(probability, truth, uncertainty=None, brain_mask=None, threshold=0.35,
                  connectivity=6, iou_threshold=0.25, min_lesion_size=10, r=0.001, points=200):
    """Every per-subject measure: the probability map (or a 0/1 prediction) is thresholded
    (p >= threshold) and components of fewer than min_lesion_size voxels are removed; then voxel
    counts, DSC, nDSC (N = all voxels), lesion counts and F1 on the whole volume and, with an
    uncertainty map, the nDSC retention curve and area over the brain-mask voxels and the mean
    uncertainty there (NaN without one). Returns a dict (see docs/segmentation.md)."""
    d = _assay._segmentation_score_subject(
        _volume(probability), _volume(truth),
        None if uncertainty is None else _volume(uncertainty),
        None if brain_mask is None else _volume(brain_mask), check_number(threshold, "threshold"),
        _connectivity(connectivity), check_number(iou_threshold, "iou_threshold"),
        _size(min_lesion_size, "min_lesion_size"), check_number(r, "r"), _points(points))
    out = dict(d)
    for k in ("n_voxels", "brain_voxels", "voxel_tp", "voxel_fp", "voxel_fn", "true_lesions",
              "predicted_lesions", "lesion_tp", "lesion_fp", "lesion_fn", "removed_lesions"):
        out[k] = int(out[k])
    for k in ("dsc", "ndsc", "lesion_f1", "ndsc_retention_auc", "mean_uncertainty"):
        out[k] = float(out[k])
    return out
