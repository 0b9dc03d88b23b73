"""assay.metrics.evaluate: everything `assay metrics` computes, as an EvaluationResult (a dict)."""
import json
import numbers
import os

import numpy as np

from . import _assay
from ._progress import reporting
from ._results import evaluation_result, regression_evaluation_result
from ._options import (check_finite_number, check_probability, check_resamples, check_threads,
                       check_unsigned)

__all__ = ["evaluate"]


def evaluate(y_true, y_score=None, y_pred=None, sample_weight=None, threshold=0.5,
             pos_label=None, ap_method="step", n_bootstrap=0, confidence=0.95, seed=0,
             threads=0, html=None, max_classes=1000, ap_grid="exact", bins=15,
             bin_strategy="uniform", progress=True, task="auto", name=None,
             title=None):
    """Evaluate a classifier's or regressors' predictions as ``assay metrics`` does.

    The same entry point and options as the CLI, and the same label encoding: numeric labels are
    named as the CLI names them (1.0 as "1") and a NaN label is refused; other labels go by their
    text, in byte order. The result is the CLI's JSON document as an ``EvaluationResult`` (a
    dict): summary (with bootstrap intervals when ``n_bootstrap > 0``), per-class table, confusion
    matrix, calibration table and curves; NaN is returned as None. Its ``summary`` is keyed by
    stable names (``roc_auc``, ``average_precision``, ``log_loss``, ``brier``, ``accuracy``,
    ``f1_macro``...), the same for binary and multi-class labels, each entry holding ``value``,
    ``low``, ``high`` and the display ``label``.

    Two score columns on binary labels must be per-class probabilities (rows summing to 1): two
    models' scores are refused (evaluate each model on its own). Float labels that are not whole
    numbers (a regression target) are refused, as scikit-learn's "continuous" targets are. Scores
    that rank a class below chance beyond doubt (ROC AUC's 95% DeLong upper bound below 0.5) warn
    that they may be inverted (the ``notes`` say so too).

    ``task="regression"`` evaluates regressors as ``assay metrics --task regression`` does:
    ``y_pred`` holds one model's predictions, or a dict ``{name: predictions}`` of several models
    evaluated side by side on the same bootstrap resamples; the result is a
    ``RegressionEvaluationResult`` with MAE, RMSE, MSE, median absolute error, max error, MAPE,
    R², explained variance, D² absolute error, and MSLE, RMSLE and the Poisson and Gamma
    deviances where the values are in their domain, each with its interval. The options of
    classification (``y_score``, ``threshold``, ``pos_label``, ``ap_method``, ``ap_grid``,
    ``bins``, ``bin_strategy``, ``max_classes``) do not apply to it. With ``task="auto"`` (the
    default) numeric labels with more than 50 distinct whole values and fewer than 10 samples per
    value are refused as classes, naming ``task="regression"``; ``task="classification"``
    evaluates them as classes.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes), default=None
        1-D scores of the positive class (binary), or one column per class in sorted class order.
    y_pred : array-like of shape (n_samples,), default=None
        Predicted labels. None: ``score >= threshold`` for binary scores, the argmax otherwise.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    threshold : float, default=0.5
        Decision threshold of binary scores; finite.
    pos_label : int, float or str, default=None
        The positive class. None: the greater of the two sorted labels.
    ap_method : {'step', 'voc07', 'voc_allpoint', 'coco101', 'trapezoid'}, default='step'
        The average-precision convention (the CLI's ``--ap-method``).
    n_bootstrap : int, default=0
        Resamples of the bootstrap intervals, at most 1000000; 0: no intervals (1 gives a
        zero-width interval, with a warning).
    confidence : float, default=0.95
        Level of the intervals, in (0, 1).
    seed : int, default=0
        Seed of the resamples.
    threads : int, default=0
        Threads (0: all cores); the result does not depend on it.
    html : str or path-like, default=None
        Also write the HTML page with charts to this file.
    max_classes : int, default=1000
        More classes are refused, with the memory they would need (0: no limit).
    ap_grid : {'exact', 'numpy'}, default='exact'
        Recall grid of voc07/coco101 (the CLI's ``--ap-grid``).
    bins : int, default=15
        Bins of the calibration table (the CLI's ``--bins``).
    bin_strategy : {'uniform', 'quantile'}, default='uniform'
        Bins of equal width or equal counts (the CLI's ``--bin-strategy``).
    progress : bool, default=True
        A progress bar while the bootstrap runs (on a terminal's stderr, or in Jupyter).
    task : {'auto', 'classification', 'regression'}, default='auto'
        What the predictions are (the CLI's ``--task``): 'auto' is classification that refuses a
        regression target, 'regression' evaluates ``y_pred`` as numeric predictions.
    name : str, default=None
        The model's name on the HTML page (binary curves carry it) and, for a regressor given as
        one array, in the result. None: the name of the ``y_score`` (else ``y_pred``) pandas
        Series, else "scores" (else "predictions").
    title : str, default=None
        The HTML page's title. None: "assay evaluation: " and the model's name (regression:
        "Regression evaluation: " and the target's name).

    Returns
    -------
    EvaluationResult or RegressionEvaluationResult
        A dict holding the CLI's JSON document (keys such as ``n_samples``, ``classes``,
        ``summary``, ``per_class``, ``confusion_matrix``, ``calibration``, ``curves``, ``params``,
        ``notes``), ``summary`` keyed by the stable names; ``to_document()`` gives the CLI's
        document. With ``task="regression"``: the document of ``assay metrics --task regression
        --json`` (``target``, ``n_samples``, ``models`` ``{name: {"summary": {id: {"label",
        "value", "low", "high"}}}}``, ``params``, ``notes``).

    Raises
    ------
    AssayError
        If neither ``y_score`` nor ``y_pred`` is given, the labels are continuous or NaN, two
        score columns on binary labels are not probabilities, there are more than
        ``max_classes`` classes, an option is invalid, or the lengths differ.

    See Also
    --------
    bootstrap : An interval of any one metric.

    Examples
    --------
    >>> from assay.metrics import evaluate
    >>> result = evaluate([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7])
    >>> result["classes"], result["prediction_rule"]
    (['0', '1'], 'score >= 0.5')
    >>> print(round(result["summary"]["roc_auc"]["value"], 4))
    0.8889
    >>> reg = evaluate([3, -0.5, 2, 7], y_pred={"ridge": [2.5, 0.0, 2, 8]}, task="regression")
    >>> reg["models"]["ridge"]["summary"]["mae"]["value"]
    0.5
    """
    if isinstance(html, (bool, numbers.Number)):
        raise _assay.AssayError(f"html: expected a file name, found {html!r}")
    if _assay._metrics_task(str(task), np.asarray(y_true)) == "regression":
        if y_score is not None:
            raise _assay.AssayError('task="regression" takes y_pred, not y_score')
        return _evaluate_regression(y_true, y_pred, sample_weight, n_bootstrap, confidence, seed,
                                    threads, html, progress, name, title)
    if y_score is None and y_pred is None:
        raise _assay.AssayError("give y_score or y_pred")
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
    name = _model_name(name, y_score, y_pred)
    title = f"assay evaluation: {name}" if title is None else _text(title, "title")
    with reporting(progress):
        out = _assay._evaluate(np.asarray(y_true), scores,
                               None if y_pred is None else np.asarray(y_pred), weights, options,
                               os.fspath(html) if html else "", title, name)
    return evaluation_result(json.loads(out))


def _text(value, what):
    """A non-empty string option (the page's title or the model's name)."""
    if not isinstance(value, str) or not value:
        raise _assay.AssayError(f"{what}: expected a non-empty string, found {value!r}")
    return value


def _model_name(name, y_score, y_pred):
    """The model's name: given, else the scores' (or predictions') pandas Series name."""
    if name is not None:
        return _text(name, "name")
    source = y_score if y_score is not None else y_pred
    series_name = getattr(source, "name", None)
    if isinstance(series_name, str) and series_name:
        return series_name
    return "scores" if y_score is not None else "predictions"


def _label_name(label):
    """pos_label as the library takes it: a number (named like the numeric labels) or text."""
    if label is None:
        return ""
    if isinstance(label, str):
        _assay._check_pos_label("pos_label", label)
    if isinstance(label, numbers.Real) and not isinstance(label, (bool, np.bool_)):
        return float(label)
    return str(label)


def _bins(bins):
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, numbers.Integral) \
            or not -2**31 <= bins < 2**31:
        raise _assay.AssayError(f"bins: expected an integer, found {bins!r}")
    return int(bins)


def _evaluate_regression(y_true, y_pred, sample_weight, n_bootstrap, confidence, seed, threads,
                         html, progress, name, title):
    """evaluate(task="regression"): the models' predictions by name, then the library."""
    if y_pred is None:
        raise _assay.AssayError('task="regression" needs y_pred (an array or {name: array})')
    if isinstance(y_pred, dict):
        if name is not None:
            raise _assay.AssayError("name: names one model; the dict y_pred names its models")
        models = [(str(key), pred) for key, pred in y_pred.items()]
    else:
        models = [(_model_name(name, None, y_pred), y_pred)]
    options = {
        "n_bootstrap": check_resamples(n_bootstrap, "n_bootstrap"),
        "confidence": check_probability(confidence, "confidence"),
        "seed": check_unsigned(seed, "seed"),
        "threads": check_threads(threads),
    }
    weights = (np.empty(0) if sample_weight is None
               else np.asarray(sample_weight, dtype=np.float64))
    target = str(getattr(y_true, "name", None) or "y")
    with reporting(progress):
        out = _assay._evaluate_regression(
            np.asarray(y_true, dtype=np.float64), [name for name, _ in models],
            [np.asarray(pred, dtype=np.float64) for _, pred in models], weights, target,
            options, os.fspath(html) if html else "",
            "" if title is None else _text(title, "title"))
    return regression_evaluation_result(json.loads(out))
