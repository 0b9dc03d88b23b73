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
    """Reads a .nii / .nii.gz volume (NIfTI-1 or NIfTI-2) as ``(data, affine)``: ``data`` is a
    float64 array of shape (nx, ny, nz) in nibabel's axis order (Fortran-ordered, like
    ``nibabel.load(path).get_fdata()``, scaling applied), ``affine`` the 4x4 voxel-to-world
    matrix nibabel reports as ``img.affine``. Errors name the file."""
    return _assay.read_nifti(os.fspath(path))


def write_nifti(path, array, affine, dtype="float32"):
    """Writes a 3-D array (axis order as nibabel's, i.e. ``array[i, j, k]`` is voxel (i, j, k))
    as NIfTI-1 (.nii, or gzip-compressed for a name ending in .nii.gz) with ``affine`` as sform
    and qform. ``dtype``: uint8, int16, int32, float32 or float64; integer types need integer
    values in range (else an error naming the voxel)."""
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
    """Scores every subject of NIfTI sources and summarises them (`assay segment --json`).

    ``pred``: a source or a list of sources (ensemble members, averaged); a source is a folder,
    a glob, a ``{id}`` pattern or one file (matching rule: docs/segment.md). ``truth``,
    ``uncertainty``, ``brain_mask``: one source each; ``partition``: CSV with columns subject,
    partition. Returns the JSON document as a dict: ``subjects`` (one row per subject:
    dsc, ndsc, lesion counts, lesion_f1, ndsc_retention_auc, mean_uncertainty, retention
    points), ``summary`` (per set "all" and each partition: mean/sd ×100, patient-level R-AUC
    ×100 and PRR) and ``patient_retention``."""
    doc = _assay.segment_evaluate(
        _sources(pred, "prediction", required=True), _one(truth, "truth"),
        _one(uncertainty, "uncertainty"), _one(brain_mask, "brain mask"),
        _one(partition, "partition"), str(voxel_measure), check_number(threshold, "threshold"),
        check_integer(connectivity, "connectivity", -2**31, 2**31 - 1), check_number(iou, "iou"),
        check_unsigned(min_size, "min_size"), check_number(r, "r"), check_threads(threads),
        os.fspath(write_masks) if write_masks is not None else "",
        os.fspath(write_uncertainty) if write_uncertainty is not None else "")
    return json.loads(doc)
