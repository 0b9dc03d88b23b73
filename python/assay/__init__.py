"""assay — how good is my model, really?

Submodules: ``assay.metrics`` (classification metrics with scikit-learn's names and conventions,
curves, AP/mAP under every convention, calibration, bootstrap and DeLong uncertainty).
Errors are raised as ``assay.AssayError`` (a ``ValueError``); degenerate statistics warn with
``assay.AssayWarning`` (a ``UserWarning``) and return NaN.
"""
from ._assay import AssayError, AssayWarning, __version__
from . import metrics
from . import io
from . import report

__all__ = ["AssayError", "AssayWarning", "io", "metrics", "report", "__version__"]
