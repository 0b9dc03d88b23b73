"""assay.metrics.evaluate: everything `assay metrics` computes, as an EvaluationResult (a dict)."""
import json
import numbers
import os

import numpy as np

from . import _assay
from ._progress import reporting
from ._results import evaluation_result
from ._options import (check_finite_number, check_probability, check_resamples, check_threads,
                       check_unsigned)

__all__ = ["evaluate"]


def evaluate(y_true, y_score=None, y_pred=None, sample_weight=None, threshold=0.5,
             pos_label=None, ap_method="step", n_bootstrap=0, confidence=0.95, seed=0,
             threads=0, html=None, max_classes=1000, ap_grid="exact", bins=15,
             bin_strategy="uniform", progress=True):
    """Evaluates a classifier's predictions the way ``assay metrics`` does (same entry point,
    same options, same label encoding: numeric labels are named as the CLI names them, 1.0 as
    "1", and a NaN label is refused; other labels by their text, in byte order).

    y_score: 1-D scores of the positive class (binary) or an (n, K) matrix, column k for the k-th
    class in sorted order. y_pred: predicted labels (default: ``score >= threshold`` for binary,
    argmax otherwise). Returns the CLI's JSON document as an ``EvaluationResult`` (a dict:
    summary with bootstrap intervals when ``n_bootstrap > 0``, per-class table, confusion
    matrix, calibration table, curves); NaN is returned as None. Its ``summary`` is keyed by
    stable names (``roc_auc``, ``average_precision``, ``log_loss``, ``brier``, ``accuracy``,
    ``f1_macro``...), the same for binary and multi-class labels, each entry holding value,
    low, high and the display ``label``. ``progress``: a bar while the bootstrap runs.
    ``html``: also write the HTML page with charts there.
    ``n_bootstrap=0``: no intervals (1 gives a zero-width interval, with a warning; at most
    1000000).
    Two score columns on binary labels must be per-class probabilities (rows summing to 1):
    two models' scores are refused (evaluate each model on its own). Float labels that are not
    whole numbers (a regression target) are refused, as scikit-learn's "continuous" targets are.
    Scores that rank a class below chance beyond doubt (ROC AUC's 95% DeLong upper bound below
    0.5) warn that they may be inverted (the ``notes`` say so too).
    ``max_classes``: more classes are refused with the memory they would need (0 = no limit).
    ``ap_grid`` (exact or numpy: the recall grid of voc07/coco101), ``bins`` and ``bin_strategy``
    (uniform or quantile: the calibration table) are the CLI's --ap-grid, --bins, --bin-strategy.
    """
    if y_score is None and y_pred is None:
        raise _assay.AssayError("give y_score or y_pred")
    if isinstance(html, (bool, numbers.Number)):
        raise _assay.AssayError(f"html: expected a file name, found {html!r}")
    # The options by the CLI's names, turned into the library's parameters in one place (C++).
    options = {
        "threshold": check_finite_number(threshold, "threshold"),
        "pos_label": _label_name(pos_label),
        "ap_method": str(ap_method),
        "ap_grid": str(ap_grid),
        "bins": _bins(bins),
        "bin_strategy": str(bin_strategy),
        "n_bootstrap": check_resamples(n_bootstrap, "n_bootstrap"),
        "confidence": check_probability(confidence, "confidence"),
        "seed": check_unsigned(seed, "seed"),
        "threads": check_threads(threads),
        "max_classes": check_unsigned(max_classes, "max_classes"),
    }
    scores = (np.empty(0) if y_score is None
              else np.ascontiguousarray(y_score, dtype=np.float64))
    weights = (np.empty(0) if sample_weight is None
               else np.asarray(sample_weight, dtype=np.float64))
    with reporting(progress):
        out = _assay._evaluate(np.asarray(y_true), scores,
                               None if y_pred is None else np.asarray(y_pred), weights, options,
                               os.fspath(html) if html else "")
    return evaluation_result(json.loads(out))


def _label_name(label):
    """pos_label as the library takes it: a number (named like the numeric labels) or text."""
    if label is None:
        return ""
    if isinstance(label, str) and not label:
        raise _assay.AssayError("pos_label: expected a class label, found an empty string")
    if isinstance(label, numbers.Real) and not isinstance(label, (bool, np.bool_)):
        return float(label)
    return str(label)


def _bins(bins):
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, numbers.Integral) \
            or not -2**31 <= bins < 2**31:
        raise _assay.AssayError(f"bins: expected an integer, found {bins!r}")
    return int(bins)
