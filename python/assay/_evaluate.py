"""assay.metrics.evaluate: everything `assay metrics` computes, as a dict."""
import json
import os

import numpy as np

from . import _assay
from ._options import check_probability, check_threads, check_unsigned

__all__ = ["evaluate"]


def evaluate(y_true, y_score=None, y_pred=None, sample_weight=None, threshold=0.5,
             pos_label=None, ap_method="step", n_bootstrap=0, confidence=0.95, seed=0,
             threads=0, html=None, max_classes=1000):
    """Evaluates a classifier's predictions the way ``assay metrics`` does (same entry point).

    y_score: 1-D scores of the positive class (binary) or an (n, K) matrix, column k for the k-th
    class in sorted order. y_pred: predicted labels (default: ``score >= threshold`` for binary,
    argmax otherwise). Returns the CLI's JSON document as a dict (summary with bootstrap
    intervals when ``n_bootstrap > 0``, per-class table, confusion matrix, calibration table,
    curves); NaN is returned as None. ``html``: also write the HTML page with charts there.
    ``n_bootstrap=0``: no intervals (1 gives a zero-width interval, with a warning).
    ``max_classes``: more classes are refused with the memory they would need (0 = no limit).
    """
    n_bootstrap = check_unsigned(n_bootstrap, "n_bootstrap")
    confidence = check_probability(confidence, "confidence")
    seed = check_unsigned(seed, "seed")
    threads = check_threads(threads)
    max_classes = check_unsigned(max_classes, "max_classes")
    y_true = np.asarray(y_true)
    if y_score is None and y_pred is None:
        raise _assay.AssayError("give y_score or y_pred")
    arrays = [y_true] if y_pred is None else [y_true, np.asarray(y_pred)]
    if len(arrays) == 2 and len(arrays[0]) != len(arrays[1]):
        raise _assay.AssayError(
            f"y_true and y_pred differ in length ({len(arrays[0])} vs {len(arrays[1])})")
    classes = np.unique(np.concatenate(arrays))
    codes = [np.searchsorted(classes, a).astype(np.int32) for a in arrays]
    names = [str(c) for c in classes]
    scores = (np.empty(0) if y_score is None
              else np.ascontiguousarray(y_score, dtype=np.float64))
    weights = (np.empty(0) if sample_weight is None
               else np.asarray(sample_weight, dtype=np.float64))
    out = _assay._evaluate(
        names, codes[0], scores, codes[1] if y_pred is not None else np.empty(0, np.int32),
        weights, float(threshold), "" if pos_label is None else str(pos_label), ap_method,
        n_bootstrap, confidence, seed, threads, os.fspath(html) if html else "", max_classes)
    return json.loads(out)
