"""Robustness and uncertainty under distribution shift (Shifts 2.0 paper): error-retention curves
(R-AUC, PRR) under the Shifts conventions, fd-shifts AURC / AUGRC, F1 retention, ensemble
uncertainty measures, Gaussian NLL, regression metrics with bootstrap intervals, OOD detection,
canonical partition tables, threshold tuning and generalisation sets; RetentionCurveDisplay draws
a retention curve with matplotlib. See docs/shift.md."""
from .._shift import *  # noqa: F401,F403
from .._shift import __all__ as _shift_all
from .._plot.retention_curve import RetentionCurveDisplay  # noqa: F401
from . import segmentation  # noqa: F401,E402  (assay.shift.segmentation: 3-D volumes)

__all__ = list(_shift_all) + ["RetentionCurveDisplay"]
