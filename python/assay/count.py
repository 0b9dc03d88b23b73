"""Exact counting over a bounded input domain (source 002, QuantifyML), beside the estimates
from test sets and uniform samples. See docs/count.md.

``count(model, spec, ...)`` returns the document of ``assay count --json`` as a dict, with exact
counts as Python ints; ``robustness(model, x, epsilon, label, lower, upper)`` the exact size of
an L-infinity ball around x, how many of its points keep ``label``, and their ratio.
"""
import json
import os

import numpy as np

from . import _assay
from .models import Model, load as _load_model

__all__ = ["count", "robustness", "parse_spec", "load_spec", "spec_inputs"]

_EXACT_FIELDS = ("domain_size", "correct", "tp", "fp", "tn", "fn", "satisfied", "violated",
                 "total", "count")


def _ints(obj):
    # Exact counts travel as decimal strings; give them back as Python ints.
    if isinstance(obj, dict):
        return {k: (int(v) if k in _EXACT_FIELDS and isinstance(v, str) else _ints(v))
                for k, v in obj.items()}
    if isinstance(obj, list):
        return [_ints(v) for v in obj]
    return obj


def parse_spec(text, file="<spec>"):
    """Parses .spec text (see docs/count.md); errors read "file:line:col: message"."""
    return _assay.count_parse_spec(text, file)


def load_spec(path):
    return _assay.count_load_spec(str(path))


def spec_inputs(spec):
    """Names of the scalar inputs, in feature order ("x[0]", "x[1]", ...)."""
    return _assay.count_spec_inputs(_spec(spec))


def _spec(spec):
    if isinstance(spec, _assay.CountSpec):
        return spec
    if isinstance(spec, os.PathLike) or (isinstance(spec, str) and (
            os.path.exists(spec) or ("\n" not in spec and spec.endswith(".spec")))):
        return load_spec(spec)  # a missing file: "cannot open spec file ..."
    if isinstance(spec, str):
        return parse_spec(spec)
    raise TypeError(f"spec must be a path, spec text or a parsed spec, found {type(spec).__name__}")


def _model(model):
    if isinstance(model, Model):
        return model.native
    if isinstance(model, _assay.CountModel):
        return model
    if isinstance(model, (str, os.PathLike)):
        return _load_model(model).native
    from .models import from_sklearn
    return from_sklearn(model).native


def count(model, spec, property=None, *, samples=(), seed=0, X_test=None, y_test=None,
          method="auto", confidence=0.95, threads=0):
    """Exact TP/FP/TN/FN per label, safety S/N and region robustness of `model` over the whole
    domain of `spec`, plus estimates from the test set (X_test, y_test as label indices) and
    uniform samples of each size in `samples`.

    model: an assay.models.Model, a model file, or a fitted scikit-learn estimator.
    spec: a .spec path, spec text, or a parsed spec.
    property: one predicate (the truth of label 1), safety property or region; None = all.
    """
    xt = None if X_test is None else np.ascontiguousarray(np.asarray(X_test, dtype=np.float64))
    yt = None if y_test is None else np.ascontiguousarray(np.asarray(y_test, dtype=np.int32))
    text = _assay.count_count(_model(model), _spec(spec), property or "", method,
                              [int(n) for n in samples], int(seed), float(confidence),
                              int(threads), xt, yt)
    return _ints(json.loads(text))


def robustness(model, x, epsilon, label, lower, upper, *, step=1.0, samples=(), seed=0,
               confidence=0.95, method="auto", threads=0):
    """Robustness of `model` around `x`: the region is every grid point (lower + k*step) within
    `epsilon` of x in each feature, clipped to [lower, upper] (scalars or one value per feature).

    Returns a dict: count (points predicted `label`, exact int), total (region size, exact int),
    robustness (count / total), samples (estimates from uniform samples of the region), method,
    seconds.
    """
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float64).ravel())
    lower = np.atleast_1d(np.asarray(lower, dtype=np.float64)).tolist()
    upper = np.atleast_1d(np.asarray(upper, dtype=np.float64)).tolist()
    text = _assay.count_robustness(_model(model), x, float(epsilon), int(label), lower, upper,
                                   float(step), [int(n) for n in samples], int(seed),
                                   float(confidence), method, int(threads))
    return _ints(json.loads(text))
