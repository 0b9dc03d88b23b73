"""assay.metrics.evaluate: everything `assay metrics` computes, as a dict."""
import json

import numpy as np

from . import _assay

__all__ = ["evaluate"]


def evaluate(y_true, y_score=None, y_pred=None, sample_weight=None, threshold=0.5,
             pos_label=None, ap_method="step", n_bootstrap=0, confidence=0.95, seed=0,
             threads=0, html=None):
    """Evaluates a classifier's predictions the way ``assay metrics`` does (same entry point).

    y_score: 1-D scores of the positive class (binary) or an (n, K) matrix, column k for the k-th
    class in sorted order. y_pred: predicted labels (default: ``score >= threshold`` for binary,
    argmax otherwise). Returns the CLI's JSON document as a dict (summary with bootstrap
    intervals when ``n_bootstrap > 0``, per-class table, confusion matrix, calibration table,
    curves); NaN is returned as None. ``html``: also write the HTML page with charts there.
    """
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
        int(n_bootstrap), float(confidence), int(seed), int(threads), html or "")
    return json.loads(out)
