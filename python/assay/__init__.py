"""assay — how good is my model, really?

Submodules: ``assay.metrics`` (classification metrics with scikit-learn's names and conventions,
curves, AP/mAP under every convention, calibration, bootstrap and DeLong uncertainty),
``assay.soak`` (Same/Other/All K-fold cross-validation over data subsets, with paired t-tests),
``assay.shift`` (retention curves, R-AUC, F1-AUC, ensemble uncertainty, regression metrics under
distribution shift), ``assay.models`` (tree ensembles and networks from scikit-learn and xgboost
in one JSON format) and ``assay.count`` (exact counting over a model's whole bounded input space:
learnability, safety, local robustness), ``assay.compare`` (which model is better: paired
differences of any metric with intervals and tests, slices, operating points, CI gates);
``assay.learners`` (the five learners of the SOAK paper
as scikit-learn estimators, and ``cv``), loaded on first use since it imports scikit-learn.
Errors are raised as ``assay.AssayError`` (a ``ValueError``); degenerate statistics warn with
``assay.AssayWarning`` (a ``UserWarning``) and return NaN.

Threads: ``assay.set_num_threads(n)`` sets what "all cores" (threads=0, n_jobs=None) means for
the process; without it the environment variable ``ASSAY_NUM_THREADS``, else ``OMP_NUM_THREADS``
(which joblib sets in its workers), else the CPUs the process may use. Results do not depend on it.
"""
from ._assay import AssayError, AssayWarning, __version__, get_num_threads, set_num_threads
from . import metrics
from . import io
from . import report
from . import shift
from . import soak
from . import models
from . import count
from . import compare

__all__ = ["AssayError", "AssayWarning", "compare", "count", "get_num_threads", "io", "learners",
           "metrics", "models", "report", "set_num_threads", "shift", "soak", "__version__"]


def __getattr__(name):
    # assay.learners imports scikit-learn (its estimators subclass BaseEstimator): load it lazily.
    if name == "learners":
        import importlib
        return importlib.import_module(".learners", __name__)
    raise AttributeError(f"module 'assay' has no attribute {name!r}")
