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
    """Label the connected components of a binary 3-D mask.

    Like ``scipy.ndimage.label(mask, generate_binary_structure(3, c))`` with c = 1, 2, 3 for
    connectivity 6, 18, 26.

    Parameters
    ----------
    mask : array-like of shape (nx, ny, nz)
        The mask (bool or 0/1).
    connectivity : {6, 18, 26}, default=6
        Voxels sharing a face (6), also an edge (18), also a corner (26) are neighbours.

    Returns
    -------
    labels : numpy.ndarray of int32, of the mask's shape
        0 outside the components, else 1..count numbered by first voxel in C order.
    count : int
        The number of components.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> labels, count = segmentation.label(pred)
    >>> count, labels[0, 0], labels[2, 0, 0]
    (2, array([1, 1, 1, 0], dtype=int32), 2)
    """
    m = _volume(mask)
    labels, count = _assay._segmentation_label(m, _connectivity(connectivity))
    return labels.reshape(m.shape), int(count)


def voxel_counts(prediction, truth):
    """Count the voxel TP / FP / FN of a binary prediction against the truth.

    Parameters
    ----------
    prediction : array-like of shape (nx, ny, nz)
        The predicted mask (bool or 0/1).
    truth : array-like of shape (nx, ny, nz)
        The true mask (bool or 0/1).

    Returns
    -------
    dict of str to int
        Keys n (voxels compared), tp, fp, fn.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> segmentation.voxel_counts(pred, truth)
    {'n': 64, 'tp': 2, 'fp': 2, 'fn': 1}
    """
    d = _assay._segmentation_voxel_scores(_volume(prediction), _volume(truth), 0.001)
    return {k: int(d[k]) for k in ("n", "tp", "fp", "fn")}


def dice(prediction, truth):
    """Compute the Dice similarity coefficient of two masks; 1 when both are empty.

    ``DSC = 2|P ∩ G| / (|P| + |G|)``.

    Parameters
    ----------
    prediction : array-like of shape (nx, ny, nz)
        The predicted mask (bool or 0/1).
    truth : array-like of shape (nx, ny, nz)
        The true mask (bool or 0/1).

    Returns
    -------
    float
        The Dice similarity coefficient.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> round(segmentation.dice(pred, truth), 4)
    0.5714
    """
    return float(_assay._segmentation_voxel_scores(_volume(prediction), _volume(truth),
                                                   0.001)["dice"])


def ndsc(prediction, truth, r=0.001):
    """Compute the normalised DSC (Shifts).

    ``nDSC = 2TP / (2TP + k FP + FN)``, ``k = (1 - r)|G| / (r (N - |G|))``, N = all voxels of
    the volume; k = 1 when ``|G| = 0``; 1 when both masks are empty.

    Parameters
    ----------
    prediction : array-like of shape (nx, ny, nz)
        The predicted mask (bool or 0/1).
    truth : array-like of shape (nx, ny, nz)
        The true mask (bool or 0/1).
    r : float, default=0.001
        The reference lesion load the score is normalised to, in (0, 1).

    Returns
    -------
    float
        The normalised DSC.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> round(segmentation.ndsc(pred, truth), 4), round(segmentation.ndsc(pred, truth, r=0.5), 4)
    (0.0387, 0.7846)
    """
    return float(_assay._segmentation_voxel_scores(_volume(prediction), _volume(truth),
                                                   check_number(r, "r"))["ndsc"])


def lesion_f1(prediction, truth, iou_threshold=0.25, connectivity=6):
    """Score lesion-level detection (Shifts' lesion_f1_score).

    A predicted lesion is a TP when its best IoU with an overlapping true lesion is >=
    iou_threshold (else FP); a true lesion is an FN when its best IoU with an overlapping
    predicted lesion is < iou_threshold.

    Parameters
    ----------
    prediction : array-like of shape (nx, ny, nz)
        The predicted mask (bool or 0/1).
    truth : array-like of shape (nx, ny, nz)
        The true mask (bool or 0/1).
    iou_threshold : float, default=0.25
        The IoU a detection needs.
    connectivity : {6, 18, 26}, default=6
        Voxels sharing a face (6), also an edge (18), also a corner (26) are neighbours.

    Returns
    -------
    dict
        Keys true_lesions, predicted_lesions, tp, fp, fn and f1 = TP / (TP + (FP + FN) / 2) (1 if
        0/0).

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> segmentation.lesion_f1(pred, truth)
    {'true_lesions': 2, 'predicted_lesions': 2, 'tp': 1, 'fp': 1, 'fn': 1, 'f1': 0.5}
    """
    d = _assay._segmentation_lesion_counts(_volume(prediction), _volume(truth),
                                           check_number(iou_threshold, "iou_threshold"),
                                           _connectivity(connectivity))
    out = {k: int(d[k]) for k in ("true_lesions", "predicted_lesions", "tp", "fp", "fn")}
    out["f1"] = float(d["f1"])
    return out


def remove_small_lesions(mask, min_size=10, connectivity=6):
    """Remove the components of a mask with fewer than ``min_size`` voxels.

    Shifts' remove_connected_components with l_min = min_size - 1.

    Parameters
    ----------
    mask : array-like of shape (nx, ny, nz)
        The mask (bool or 0/1).
    min_size : int, default=10
        The fewest voxels a kept component has.
    connectivity : {6, 18, 26}, default=6
        Voxels sharing a face (6), also an edge (18), also a corner (26) are neighbours.

    Returns
    -------
    numpy.ndarray of uint8, of the mask's shape
        The mask without its small components.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> int(segmentation.remove_small_lesions(pred, min_size=2).sum())  # the 1-voxel lesion goes
    3
    """
    m = _volume(mask)
    kept, _removed = _assay._segmentation_remove_small(m, _size(min_size, "min_size"),
                                                       _connectivity(connectivity))
    return kept.reshape(m.shape)


def postprocess(probability, threshold=0.35, min_lesion_size=10, connectivity=6):
    """Threshold a probability map into the predicted mask that ``score_subject`` evaluates.

    Voxels with probability >= threshold, then components of fewer than ``min_lesion_size``
    voxels removed.

    Parameters
    ----------
    probability : array-like of shape (nx, ny, nz)
        The lesion probability of each voxel.
    threshold : float, default=0.35
        Voxels with probability >= threshold are lesion.
    min_lesion_size : int, default=10
        The fewest voxels a kept component has.
    connectivity : {6, 18, 26}, default=6
        Voxels sharing a face (6), also an edge (18), also a corner (26) are neighbours.

    Returns
    -------
    numpy.ndarray of uint8, of the map's shape
        The predicted mask.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> probability = np.where(pred, 0.9, 0.1)
    >>> int(segmentation.postprocess(probability, min_lesion_size=2).sum())
    3
    """
    p = _volume(probability)
    mask = _assay._segmentation_postprocess(p, check_number(threshold, "threshold"),
                                            _size(min_lesion_size, "min_lesion_size"),
                                            _connectivity(connectivity))
    return mask.reshape(p.shape)


def ndsc_retention(prediction, truth, uncertainty, brain_mask=None, points=200, r=0.001):
    """Compute the nDSC retention curve of one subject (Shifts' ndsc_aac_metric).

    Over the brain-mask voxels (all voxels without a mask): voxels stably sorted by uncertainty
    ascending; at fraction x_i = ln(i) / ln(points) the floor(N x_i) most certain keep the
    prediction, the rest take the truth.

    Parameters
    ----------
    prediction : array-like of shape (nx, ny, nz)
        The predicted mask (bool or 0/1).
    truth : array-like of shape (nx, ny, nz)
        The true mask (bool or 0/1).
    uncertainty : array-like of shape (nx, ny, nz)
        The uncertainty of each voxel.
    brain_mask : array-like of shape (nx, ny, nz), default=None
        The voxels the curve runs over. None: all.
    points : int, default=200
        Points of the curve, 2..1000000 (Shifts uses 200).
    r : float, default=0.001
        The nDSC's reference lesion load.

    Returns
    -------
    dict
        Keys fractions, curve, area (= 1 - trapezoid area) and n_voxels.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> uncertainty = np.where(pred != truth, 0.9, 0.1)
    >>> result = segmentation.ndsc_retention(pred, truth, uncertainty, points=4)
    >>> result["curve"].round(4)
    array([1.    , 1.    , 1.    , 0.0387])
    >>> round(result["area"], 4), result["n_voxels"]
    (0.0997, 64)
    """
    d = _assay._segmentation_retention(
        _volume(prediction), _volume(truth), _volume(uncertainty),
        None if brain_mask is None else _volume(brain_mask), check_number(r, "r"),
        _points(points))
    return {"fractions": d["fractions"], "curve": d["curve"], "area": float(d["area"]),
            "n_voxels": int(d["n_voxels"])}


def ensemble_maps(members, epsilon=1e-10):
    """Compute voxel-wise uncertainty maps of an ensemble of lesion-probability maps.

    The measures of the binary [p, 1 - p] distribution (Shifts' uncertainty.py, eps = 1e-10).

    Parameters
    ----------
    members : array-like of shape (n_members, nx, ny, nz) or sequence of 3-D arrays
        The M members' lesion probability maps.
    epsilon : float, default=1e-10
        Added inside the logarithms.

    Returns
    -------
    dict of str to numpy.ndarray
        3-D maps: mean, entropy_of_expected, expected_entropy, mutual_information, epkl and
        reverse_mutual_information.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> members = [np.where(pred, 0.9, 0.1), np.where(pred, 1.0, 0.2)]
    >>> maps = segmentation.ensemble_maps(members)
    >>> maps["mean"].shape, round(float(maps["mean"][0, 0, 0]), 4)
    ((4, 4, 4), 0.95)
    """
    if isinstance(members, (list, tuple)):
        members = np.stack([np.asarray(m, dtype=np.float64) for m in members])
    m = _volume(members)
    d = _assay._segmentation_ensemble_maps(m, check_number(epsilon, "epsilon"))
    return {k: v.reshape(m.shape[1:]) for k, v in d.items()}


def score_subject(probability, truth, uncertainty=None, brain_mask=None, threshold=0.35,
                  connectivity=6, iou_threshold=0.25, min_lesion_size=10, r=0.001, points=200):
    """Compute every per-subject measure of a segmentation.

    The probability map (or a 0/1 prediction) is thresholded (p >= threshold) and components of
    fewer than ``min_lesion_size`` voxels are removed; then voxel counts, DSC, nDSC (N = all
    voxels), lesion counts and F1 on the whole volume and, with an uncertainty map, the nDSC
    retention curve and area over the brain-mask voxels and the mean uncertainty there (NaN
    without one).

    Parameters
    ----------
    probability : array-like of shape (nx, ny, nz)
        The lesion probability map, or a 0/1 prediction.
    truth : array-like of shape (nx, ny, nz)
        The true mask.
    uncertainty : array-like of shape (nx, ny, nz), default=None
        The uncertainty of each voxel. None: no retention measures.
    brain_mask : array-like of shape (nx, ny, nz), default=None
        The voxels the retention curve runs over. None: all.
    threshold : float, default=0.35
        Voxels with probability >= threshold are lesion.
    connectivity : {6, 18, 26}, default=6
        Voxels sharing a face (6), also an edge (18), also a corner (26) are neighbours.
    iou_threshold : float, default=0.25
        The IoU a lesion detection needs.
    min_lesion_size : int, default=10
        The fewest voxels a kept component has.
    r : float, default=0.001
        The nDSC's reference lesion load.
    points : int, default=200
        Points of the retention curve.

    Returns
    -------
    dict
        The measures (see docs/segmentation.md): voxel counts, dsc, ndsc, lesion counts,
        lesion_f1, removed_lesions, ndsc_retention_auc, mean_uncertainty and the retention
        curve.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4), bool)
    >>> truth[0, 0, 0:2] = truth[3, 3, 3] = True
    >>> pred = np.zeros((4, 4, 4), bool)
    >>> pred[0, 0, 0:3] = pred[2, 0, 0] = True
    >>> probability = np.where(pred, 0.9, 0.1)
    >>> scores = segmentation.score_subject(probability, truth, min_lesion_size=1)
    >>> scores["voxel_tp"], round(scores["dsc"], 4), scores["lesion_f1"]
    (2, 0.5714, 0.5)
    """
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
