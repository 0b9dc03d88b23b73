"""Segmentation evaluation on 3-D volumes (Shifts 2.0 paper, MS lesions): DSC, nDSC, lesion-level F1
with 3-D connected components, nDSC retention, voxel-wise ensemble uncertainty, on numpy arrays
(assay.shift.segmentation.*) and on NIfTI files. See docs/segmentation.md and docs/segment.md."""
from .._segmentation_arrays import *  # noqa: F401,F403
from .._segmentation_files import *  # noqa: F401,F403
