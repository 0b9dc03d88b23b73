"""Segmentation evaluation on NIfTI files (assay.shift.segmentation.read_nifti / write_nifti /
evaluate): the twins of `assay segment`. Conventions (subject matching, scaling, affines, data
types) are in docs/segment.md; the work is done in C++ (include/assay/shift/segment_experiment.hpp,
include/assay/core/nifti.hpp)."""
import json
import os

import numpy as np

from . import _assay
from ._options import check_integer, check_number, check_threads, check_unsigned

__all__ = ["read_nifti", "write_nifti", "evaluate"]


def read_nifti(path):
    """Read a .nii / .nii.gz volume (NIfTI-1 or NIfTI-2).

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    data : numpy.ndarray of shape (nx, ny, nz)
        The voxels as float64, in nibabel's axis order (Fortran-ordered, like
        ``nibabel.load(path).get_fdata()``, scaling applied).
    affine : numpy.ndarray of shape (4, 4)
        The voxel-to-world matrix nibabel reports as ``img.affine``.

    Raises
    ------
    assay.AssayError
        An unreadable or invalid file; errors name the file.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> mask = np.zeros((4, 4, 4))
    >>> mask[0, 0, 0:2] = 1
    >>> segmentation.write_nifti("mask.nii.gz", mask, np.diag([1.0, 1.0, 2.0, 1.0]), dtype="uint8")
    >>> data, affine = segmentation.read_nifti("mask.nii.gz")
    >>> data.shape, data.sum(), affine[2, 2]
    ((4, 4, 4), 2.0, 2.0)
    """
    return _assay.read_nifti(os.fspath(path))


def write_nifti(path, array, affine, dtype="float32"):
    """Write a 3-D array as NIfTI-1.

    The file is .nii, or gzip-compressed for a name ending in .nii.gz, with ``affine`` as sform
    and qform.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.
    array : array-like of shape (nx, ny, nz)
        The volume, in nibabel's axis order (``array[i, j, k]`` is voxel (i, j, k)).
    affine : array-like of shape (4, 4)
        The voxel-to-world matrix.
    dtype : {"uint8", "int16", "int32", "float32", "float64"}, default="float32"
        The stored type; integer types need integer values in range.

    Raises
    ------
    assay.AssayError
        An array that is not 3-D, or a value that does not fit ``dtype`` (the error names the
        voxel).

    Examples
    --------
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> segmentation.write_nifti("zeros.nii", np.zeros((2, 3, 4)), np.eye(4))
    >>> segmentation.read_nifti("zeros.nii")[0].shape
    (2, 3, 4)
    """
    data = np.asarray(array, dtype=np.float64)
    if data.ndim != 3:
        raise _assay.AssayError(f"{os.fspath(path)}: expected a 3-D array, found {data.ndim} "
                                "dimensions")
    affine = np.ascontiguousarray(affine, dtype=np.float64)
    _assay.write_nifti(os.fspath(path), np.asfortranarray(data), affine, str(dtype))


def _sources(value, what, required=False):
    if value is None:
        if required:
            raise _assay.AssayError(f"expected a {what} source")
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    return [os.fspath(v) for v in value]


def _one(value, what):
    sources = _sources(value, what)
    if len(sources) > 1:
        raise _assay.AssayError(f"expected one {what} source, found {len(sources)}")
    return sources[0] if sources else ""


def evaluate(pred, truth, *, uncertainty=None, brain_mask=None, partition=None,
             voxel_measure="auto", threshold=0.35, connectivity=6, iou=0.25, min_size=10,
             r=0.001, threads=0, write_masks=None, write_uncertainty=None):
    """Score every subject of NIfTI sources and summarise them (``assay segment --json``).

    A source is a folder, a glob, a ``{id}`` pattern or one file (matching rule:
    docs/segment.md).

    Parameters
    ----------
    pred : str, os.PathLike or list of them
        A source or a list of sources (ensemble members, averaged).
    truth : str or os.PathLike
        The true masks' source.
    uncertainty : str or os.PathLike, default=None
        The voxel uncertainty maps' source. None: computed from the members (see
        ``voxel_measure``).
    brain_mask : str or os.PathLike, default=None
        The brain masks' source.
    partition : str or os.PathLike, default=None
        A CSV with columns subject, partition.
    voxel_measure : str, default="auto"
        The voxel uncertainty from the members without ``uncertainty``: auto (RMI for an
        ensemble, entropy for one model), none, entropy_of_expected, expected_entropy,
        mutual_information, epkl, reverse_mutual_information.
    threshold : float, default=0.35
        Predicted mask: probability >= threshold.
    connectivity : {6, 18, 26}, default=6
        The lesions' voxel connectivity.
    iou : float, default=0.25
        A lesion TP needs best IoU >= this.
    min_size : int, default=10
        Predicted lesions of fewer voxels are removed.
    r : float, default=0.001
        The nDSC's reference lesion load.
    threads : int, default=0
        Threads; 0 = all cores.
    write_masks : str or os.PathLike, default=None
        A folder for the post-processed masks (<id>_mask.nii.gz).
    write_uncertainty : str or os.PathLike, default=None
        A folder for the voxel uncertainty maps (<id>_uncertainty.nii.gz).

    Returns
    -------
    dict
        The JSON document: ``subjects`` (one row per subject: dsc, ndsc, lesion counts,
        lesion_f1, ndsc_retention_auc, mean_uncertainty, retention points), ``summary`` (per set
        "all" and each partition: mean/sd x100, patient-level R-AUC x100 and PRR) and
        ``patient_retention``.

    Examples
    --------
    >>> import os
    >>> import numpy as np
    >>> from assay.shift import segmentation
    >>> truth = np.zeros((4, 4, 4))
    >>> truth[0, 0, 0:2] = 1
    >>> os.makedirs("pred"), os.makedirs("truth")
    (None, None)
    >>> for subject, extra in (("s1", 0), ("s2", 2)):
    ...     probability = truth * 0.9
    ...     probability[3, 3, 3 - extra:] = 0.8  # a false lesion: 1 voxel in s1, 3 in s2
    ...     segmentation.write_nifti(f"pred/{subject}.nii.gz", probability, np.eye(4))
    ...     segmentation.write_nifti(f"truth/{subject}.nii.gz", truth, np.eye(4), dtype="uint8")
    >>> result = segmentation.evaluate("pred", "truth", min_size=1)
    >>> [(row["subject"], round(row["dsc"], 4), row["lesion_fp"]) for row in result["subjects"]]
    [('s1', 0.8, 1), ('s2', 0.5714, 1)]
    """
    doc = _assay.segment_evaluate(
        _sources(pred, "prediction", required=True), _one(truth, "truth"),
        _one(uncertainty, "uncertainty"), _one(brain_mask, "brain mask"),
        _one(partition, "partition"), str(voxel_measure), check_number(threshold, "threshold"),
        check_integer(connectivity, "connectivity", -2**31, 2**31 - 1), check_number(iou, "iou"),
        check_unsigned(min_size, "min_size"), check_number(r, "r"), check_threads(threads),
        os.fspath(write_masks) if write_masks is not None else "",
        os.fspath(write_uncertainty) if write_uncertainty is not None else "")
    return json.loads(doc)
