"""assay — how good is my model, really?

Submodules: ``assay.metrics`` (classification metrics with scikit-learn's names and conventions,
curves, AP/mAP under every convention, calibration, bootstrap and DeLong uncertainty),
``assay.soak`` (Same/Other/All K-fold cross-validation over data subsets, with paired t-tests),
``assay.shift`` (retention curves, R-AUC, F1-AUC, ensemble uncertainty, regression metrics under
distribution shift).
Errors are raised as ``assay.AssayError`` (a ``ValueError``); degenerate statistics warn with
``assay.AssayWarning`` (a ``UserWarning``) and return NaN.
"""
from ._assay import AssayError, AssayWarning, __version__
from . import metrics
from . import io
from . import report
from . import shift
from . import soak

__all__ = ["AssayError", "AssayWarning", "io", "metrics", "report", "shift", "soak",
           "__version__"]
