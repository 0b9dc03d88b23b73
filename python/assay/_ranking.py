"""Ranking metrics: PR / ROC / DET curves, average precision under every convention, ROC AUC,
mAP, top-k accuracy, the trapezoid area, DeLong's paired test and PR-curve dominance.
scikit-learn's names, arguments and return shapes; the computation is in C++
(src/metrics/ranking*.cpp). These wrappers check inputs as scikit-learn does and convert them:
labels to 0/1 bytes or class codes, scores to float64.

Differences from scikit-learn 1.2.1 (docs/conventions.md):
- ``roc_curve`` puts ``thresholds[0] = inf`` (scikit-learn >= 1.3), not ``max(y_score) + 1``.
- ``roc_auc_score`` with one class present returns NaN with an ``UndefinedMetricWarning``
  (scikit-learn raises).
- ``precision_recall_curve`` has ``drop_intermediate`` (scikit-learn >= 1.3).
- ``average_precision_score`` accepts 1-D multiclass ``y_true`` with a 2-D ``y_score`` (one-vs-
  rest, as scikit-learn >= 1.3) and the extra ``method``, ``grid``, ``tie_mode``, ``n_pos``.
"""
import warnings

import numpy as np

from . import _assay
from ._assay import AssayError, UndefinedMetricWarning
from ._labels import encode_labels
from ._options import check_integer, check_text
from ._validation import (LABELS, MULTILABEL, check_consistent_length, check_sample_weight,
                          column_or_1d, float_array, indicator, integral_weights, target_kind,
                          type_name)

__all__ = [
    "precision_recall_curve",
    "interpolated_precision",
    "average_precision_score",
    "mean_average_precision",
    "roc_curve",
    "roc_auc_score",
    "det_curve",
    "confusion_matrix_at_thresholds",
    "metric_at_thresholds",
    "auc",
    "top_k_accuracy_score",
    "delong_roc_test",
    "compare_pr_curves",
    "RankedScores",
]


def _classes(y):
    """Sorted distinct values of a 1-D array; O(n) without a sort when there are <= 2."""
    if y.size and y.dtype.kind in "biuf":
        lo, hi = y.min(), y.max()
        if lo == hi:
            return np.array([lo])
        if y.dtype.kind == "b" or (y.dtype.kind in "iu" and int(hi) - int(lo) == 1):
            return np.array([lo, hi])
        if np.count_nonzero(y == lo) + np.count_nonzero(y == hi) == y.size:
            return np.array([lo, hi])
    return np.unique(y)


def _1d(a, name):
    a = np.asarray(a)
    if a.ndim != 1:
        raise AssayError(f"{name} must be a 1-D array, found {a.ndim} dimensions")
    return a


def _scores(y_score, name="y_score"):
    return _1d(np.asarray(y_score, dtype=np.float64), name)


def _weights(sample_weight):
    if sample_weight is None:
        return None
    return _1d(np.asarray(sample_weight, dtype=np.float64), "sample_weight")


def _is_in(y, value):
    """y == value as uint8, False everywhere when the types cannot be compared."""
    eq = np.asarray(y == value) if y.dtype.kind in "biufb" or isinstance(value, str) else None
    if eq is None or eq.shape != y.shape:
        eq = np.array([v == value for v in y.tolist()], dtype=bool)
    return eq.view(np.uint8) if eq.dtype == bool else eq.astype(np.uint8)


def _positives(y, present, pos_label):
    """y == pos_label as 0/1 bytes; a zero-copy view when y already holds 0/1 bytes."""
    if y.dtype.itemsize == 1 and y.dtype.kind in "biu" and pos_label == 1 and \
            all(v in (0, 1) for v in present):
        return y.view(np.uint8)
    return _is_in(y, pos_label)


def _check_pos_label(classes, pos_label):
    """scikit-learn's _check_pos_label_consistency: pos_label, or 1 for {0, 1} / {-1, 1}."""
    if pos_label is not None:
        return pos_label
    ok = ([0, 1], [-1, 1], [0], [-1], [1])
    if classes.dtype.kind in "OUS" or not any(np.array_equal(classes, c) for c in ok):
        shown = ", ".join(repr(c) for c in classes)
        raise AssayError(
            f"y_true takes value in {{{shown}}} and pos_label is not specified: either make "
            "y_true take value in {0, 1} or {-1, 1} or pass pos_label explicitly.")
    return 1


def _label_classes(y_true):
    """(kind, labels, sorted classes or None, scikit-learn type name) of a y_true."""
    kind, y = target_kind(y_true, "y_true")
    if kind != LABELS:
        return kind, y, None, type_name(kind, y)
    classes = _classes(y) if y.dtype.kind in "biuf" else encode_labels(y)[0]
    return kind, y, classes, "multiclass" if len(classes) > 2 else "binary"


def _binary_labels(y_true, pos_label):
    """y_true == pos_label as 0/1 bytes, after scikit-learn's checks (binary, or multiclass with
    an explicit pos_label)."""
    kind, y, classes, name = _label_classes(y_true)
    if not (name == "binary" or (name == "multiclass" and pos_label is not None)):
        raise AssayError(f"{name} format is not supported")
    pos_label = _check_pos_label(classes, pos_label)
    if len(classes) >= 2 and pos_label not in classes.tolist():  # no positive: every AUC NaN
        raise AssayError(f"pos_label={pos_label!r} is not a valid label. It should be one of "
                         f"{classes.tolist()}")
    if y.dtype == bool:
        return y.view(np.uint8) if pos_label in (1, True) else (~y).view(np.uint8)
    return _positives(y, classes.tolist(), pos_label)


def _indicator(y_true):
    y = np.asarray(y_true)
    if y.dtype.kind not in "biuf" or not np.all((y == 0) | (y == 1)):
        raise AssayError("a 2-D y_true must be a 0/1 multilabel indicator matrix")
    return np.ascontiguousarray(y, dtype=np.uint8)


def _curve_inputs(y_true, y_score, pos_label, sample_weight):
    """scikit-learn's _binary_clf_curve checks: binary y_true (or multiclass with pos_label),
    finite labels and scores, consistent lengths; pos_label resolved on the samples with
    non-zero weight. Returns (y == pos_label as bytes, float64 scores, weights or None)."""
    kind, y, classes, name = _label_classes(y_true)
    if y.dtype.kind == "S" or (y.dtype == object and any(isinstance(v, bytes) for v in y[:1])):
        raise TypeError("Support for labels represented as bytes is not supported. Convert the "
                        "labels to a string or integer format.")
    if not (name == "binary" or (name == "multiclass" and pos_label is not None)):
        raise AssayError(f"{name} format is not supported")
    check_consistent_length(y_true, y_score, sample_weight)
    s = float_array(column_or_1d(y_score, "y_score"), "", min_samples=0)
    w = check_sample_weight(sample_weight, len(y))
    if w is not None and not w.all():
        classes = np.unique(y[w != 0])
    pos_label = _check_pos_label(classes, pos_label)
    if y.dtype == bool:
        labels = y.view(np.uint8) if pos_label in (1, True) else (~y).view(np.uint8)
    else:
        labels = _positives(y, classes.tolist(), pos_label)
    return labels, s, w


def precision_recall_curve(y_true, y_score, *, pos_label=None, sample_weight=None,
                           drop_intermediate=False):
    """Compute precision-recall pairs for every distinct score threshold.

    The output is scikit-learn's: ``precision`` and ``recall`` in increasing-threshold order,
    followed by the point (precision 1, recall 0) that has no threshold, so ``thresholds`` is one
    shorter. The curve is not cut at full recall. With no positive, recall is 1 with a warning (as
    scikit-learn). ``drop_intermediate`` keeps the first and last point of each run of equal true
    positive counts (scikit-learn 1.3 and later). ``probas_pred``, scikit-learn 1.2's name of
    ``y_score``, was removed in 1.6 and is gone here too (a TypeError).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels (or multi-class labels with ``pos_label``).
    y_score : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or any decision values).
    pos_label : int, float, bool or str, default=None
        The positive class. None: 1 for labels in {0, 1} or {-1, 1}.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    drop_intermediate : bool, default=False
        Drop the points that do not change the shape of the curve (see above).

    Returns
    -------
    precision : ndarray of shape (n_thresholds + 1,)
        Precision at each threshold, then 1.
    recall : ndarray of shape (n_thresholds + 1,)
        Recall at each threshold, then 0 (non-increasing).
    thresholds : ndarray of shape (n_thresholds,)
        The distinct scores, increasing.

    Raises
    ------
    AssayError
        If ``y_true`` is empty or not binary (without ``pos_label``), ``pos_label`` is needed and
        missing, the scores are not finite, or the
        lengths differ.

    See Also
    --------
    average_precision_score : The summary of this curve.
    interpolated_precision : The upper envelope of the precisions.
    roc_curve : True against false positive rate.

    Examples
    --------
    >>> from assay.metrics import precision_recall_curve
    >>> precision, recall, thresholds = precision_recall_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> precision
    array([0.5       , 0.66666667, 0.5       , 1.        , 1.        ])
    >>> recall
    array([1. , 1. , 0.5, 0.5, 0. ])
    >>> thresholds
    array([0.1 , 0.35, 0.4 , 0.8 ])
    """
    y, s, w = _curve_inputs(y_true, y_score, pos_label, sample_weight)
    if len(y) == 0:
        raise AssayError("y_true is empty: need at least one sample")
    return _assay.ranking_precision_recall_curve(y, s, w, bool(drop_intermediate))


def interpolated_precision(precision, recall):
    """Interpolate precision: the best precision at this recall or any higher one.

    Textbook eq. 172: ``p_interp(r) = max over r' >= r of p(r')``. The points may come in any
    order.

    Parameters
    ----------
    precision : array-like of shape (n_points,)
        Precision of each point of a PR curve.
    recall : array-like of shape (n_points,)
        Recall of each point.

    Returns
    -------
    ndarray of shape (n_points,)
        The interpolated precision of each point, in the input order.

    Raises
    ------
    AssayError
        If an input is not 1-D or the lengths differ.

    See Also
    --------
    precision_recall_curve : Points to interpolate.
    compare_pr_curves : Dominance of two interpolated curves.

    Examples
    --------
    >>> from assay.metrics import interpolated_precision
    >>> interpolated_precision([0.5, 1.0, 0.6, 1.0], [1.0, 0.8, 0.5, 0.0])
    array([0.5, 1. , 1. , 1. ])
    """
    return _assay.ranking_interpolated_precision(_scores(precision, "precision"),
                                                 _scores(recall, "recall"))


def roc_curve(y_true, y_score, *, pos_label=None, sample_weight=None, drop_intermediate=True):
    """Compute the receiver operating characteristic (ROC) curve of binary scores.

    The output is scikit-learn's ``(fpr, tpr, thresholds)`` in decreasing-threshold order,
    starting at (0, 0) with ``thresholds[0] = inf`` (scikit-learn >= 1.3; 1.2.1 uses
    ``max(y_score) + 1``). ``drop_intermediate`` removes the points where the second differences
    of both the false and true positive counts are 0 (scikit-learn's rule).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels (or multi-class labels with ``pos_label``).
    y_score : array-like of shape (n_samples,)
        Scores of the positive class.
    pos_label : int, float, bool or str, default=None
        The positive class. None: 1 for labels in {0, 1} or {-1, 1}.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    drop_intermediate : bool, default=True
        Drop the points that do not change the shape of the curve.

    Returns
    -------
    fpr : ndarray of shape (n_points,)
        False positive rate at each threshold, non-decreasing.
    tpr : ndarray of shape (n_points,)
        True positive rate at each threshold, non-decreasing.
    thresholds : ndarray of shape (n_points,)
        The thresholds, decreasing, ``inf`` first.

    Raises
    ------
    AssayError
        If ``y_true`` is empty or not binary (without ``pos_label``), ``pos_label`` is needed and
        missing, the scores are not finite, or the lengths differ.

    See Also
    --------
    roc_auc_score : The area under this curve.
    det_curve : False negative against false positive rate.

    Examples
    --------
    >>> from assay.metrics import roc_curve
    >>> fpr, tpr, thresholds = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr, tpr
    (array([0. , 0. , 0.5, 0.5, 1. ]), array([0. , 0.5, 0.5, 1. , 1. ]))
    >>> thresholds
    array([ inf, 0.8 , 0.4 , 0.35, 0.1 ])
    """
    y, s, w = _curve_inputs(y_true, y_score, pos_label, sample_weight)
    if len(y) == 0:
        raise AssayError("y_true is empty: need at least one sample")
    return _assay.ranking_roc_curve(y, s, w, bool(drop_intermediate))


def det_curve(y_true, y_score, pos_label=None, sample_weight=None, drop_intermediate=False):
    """Compute the detection error tradeoff (DET) curve: false negative against false positive rate.

    scikit-learn's ``det_curve`` of release 1.7 and later: ``(fpr, fnr, thresholds)`` from the
    point with the fewest false positives to the first with every positive found, false positive
    rates decreasing. A threshold at +inf (nothing predicted positive: fpr 0, fnr 1) starts the
    curve unless a finite threshold already has no false positive. A class of zero total weight
    gives NaN rates with an UndefinedMetricWarning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels (or multi-class labels with ``pos_label``).
    y_score : array-like of shape (n_samples,)
        Scores of the positive class.
    pos_label : int, float, bool or str, default=None
        The positive class. None: 1 for labels in {0, 1} or {-1, 1}.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    drop_intermediate : bool, default=False
        Drop the thresholds whose true positive count equals that of both neighbours (the
        horizontal runs of the curve).

    Returns
    -------
    fpr : ndarray of shape (n_points,)
        False positive rate at each threshold.
    fnr : ndarray of shape (n_points,)
        False negative rate at each threshold.
    thresholds : ndarray of shape (n_points,)
        The scores used as thresholds.

    Raises
    ------
    AssayError
        If ``y_true`` holds one class only (as scikit-learn), is not binary (without
        ``pos_label``), the scores are not finite, or the lengths differ.

    See Also
    --------
    roc_curve : True against false positive rate.

    Examples
    --------
    >>> from assay.metrics import det_curve
    >>> fpr, fnr, thresholds = det_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr, fnr
    (array([0.5, 0.5, 0. ]), array([0. , 0.5, 0.5]))
    """
    if sample_weight is not None:  # rates are scale invariant: keep sums finite and exact
        weights = np.asarray(sample_weight)
        if weights.ndim == 1 and weights.dtype.kind == "f":
            sample_weight = _assay._scaled_weights(np.ascontiguousarray(weights,
                                                                        dtype=np.float64))
    fps, tps, thresholds = _counts_at_thresholds(y_true, y_score, pos_label, sample_weight)
    if len(_classes(column_or_1d(y_true, "y_true"))) != 2:
        raise AssayError("Only one class is present in y_true. Detection error tradeoff curve is "
                         "not defined in that case.")
    if not (tps[-1] > 0 and fps[-1] > 0):
        warnings.warn("det_curve: the {} have zero total weight, so their error rates are "
                      "NaN".format("negatives" if tps[-1] > 0 else "positives"),
                      UndefinedMetricWarning, stacklevel=2)
    tps, fps = np.r_[0.0, tps], np.r_[0.0, fps]
    thresholds = np.r_[np.inf, thresholds]
    if drop_intermediate and len(fps) > 2:
        changes = np.diff(tps)
        keep = np.r_[True, (changes[:-1] != 0) | (changes[1:] != 0), True]
        tps, fps, thresholds = tps[keep], fps[keep], thresholds[keep]
    first = np.searchsorted(fps, fps[0], side="right") - 1  # the last point with no false positive
    last = np.searchsorted(tps, tps[-1]) + 1  # the first point with every positive found
    keep = slice(first, last)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (fps[keep][::-1] / fps[-1], (tps[-1] - tps[keep][::-1]) / tps[-1],
                thresholds[keep][::-1])


_POSITIONAL_AT_THRESHOLDS = ("pos_label", "sample_weight")


def confusion_matrix_at_thresholds(y_true, y_score, *args, pos_label=None, sample_weight=None):
    """Binary confusion-matrix counts at every distinct score (scikit-learn >= 1.8).

    For each threshold t (the distinct scores, decreasing), the samples with score >= t are
    predicted positive: tps[i] and fps[i] count (weigh) the positives and negatives at or above
    thresholds[i], fns[i] and tns[i] those below. Samples of zero weight are dropped first, as
    scikit-learn's curves do.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels (or multiclass with an explicit pos_label).
    y_score : array-like of shape (n_samples,)
        Scores: probabilities of pos_label or decision values.
    *args
        The ``pos_label`` and ``sample_weight`` passed positionally: deprecated as in
        scikit-learn 1.9 (FutureWarning); pass them by keyword.
    pos_label : int, float, bool or str, default=None
        The positive class; None means 1 for labels in {0, 1} or {-1, 1}.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    tns, fps, fns, tps : ndarray of shape (n_thresholds,)
        Float counts (weighted sums) per threshold; fps and tps increase, tns and fns decrease.
    thresholds : ndarray of shape (n_thresholds,)
        The distinct scores, decreasing.

    Raises
    ------
    ValueError
        Non-binary y_true without pos_label, inconsistent lengths, NaN or infinite scores,
        or no samples.

    Examples
    --------
    >>> from assay.metrics import confusion_matrix_at_thresholds
    >>> tns, fps, fns, tps, thresholds = confusion_matrix_at_thresholds(
    ...     [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> tps, fps, thresholds
    (array([1., 1., 2., 2.]), array([0., 1., 1., 2.]), array([0.8 , 0.4 , 0.35, 0.1 ]))
    >>> tns, fns
    (array([2., 1., 1., 0.]), array([1., 1., 0., 0.]))
    """
    if args:
        if len(args) > len(_POSITIONAL_AT_THRESHOLDS):
            raise TypeError("confusion_matrix_at_thresholds() takes at most 4 positional "
                            f"arguments but {2 + len(args)} were given")
        warnings.warn("Passing pos_label and sample_weight positionally to "
                      "confusion_matrix_at_thresholds is deprecated (scikit-learn 1.9); pass "
                      "them as keyword arguments.", FutureWarning, stacklevel=2)
        pos_label = args[0]
        sample_weight = args[1] if len(args) > 1 else sample_weight
    fps, tps, thresholds = _counts_at_thresholds(y_true, y_score, pos_label, sample_weight)
    return fps[-1] - fps, fps, tps[-1] - tps, tps, thresholds


def _counts_at_thresholds(y_true, y_score, pos_label, sample_weight):
    """(fps, tps, thresholds): weighted negatives and positives scored >= each distinct score,
    scores decreasing; zero-weight samples dropped (scikit-learn's _binary_clf_curve)."""
    y, s, w = _curve_inputs(y_true, y_score, pos_label, sample_weight)
    if w is not None:
        keep = w != 0
        y, s, w = y[keep], s[keep], w[keep]
    if len(y) == 0:
        raise AssayError("y_true is empty: need at least one sample")
    fps, tps, thresholds, exponent = _assay.ranking_operating_points(
        np.ascontiguousarray(y), np.ascontiguousarray(s),
        None if w is None else np.ascontiguousarray(w, dtype=np.float64))
    if exponent:  # weights near the ends of the double range are summed rescaled by 2^exponent
        fps, tps = np.ldexp(fps, -exponent), np.ldexp(tps, -exponent)
    return fps, tps, thresholds


def metric_at_thresholds(y_true, y_score, metric_func, *, sample_weight=None,
                         metric_params=None):
    """A classification metric at every distinct score threshold (scikit-learn >= 1.9).

    For each threshold t (the distinct scores, decreasing) the metric is called as
    ``metric_func(y_true, y_score >= t, **metric_params)`` (with ``sample_weight=`` when
    given); the boolean predictions take y_true's dtype when y_true is numeric, so 1 is the
    positive class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_score : array-like of shape (n_samples,)
        Scores: probabilities of the positive class or decision values.
    metric_func : callable
        The metric, called as ``metric_func(y_true, y_pred, **kwargs)``; it returns a number or a
        collection of fixed size.
    sample_weight : array-like of shape (n_samples,), default=None
        Passed to metric_func when not None.
    metric_params : dict, default=None
        Further keyword arguments of metric_func.

    Returns
    -------
    metric_values : ndarray of shape (n_thresholds,) or (n_thresholds, n_outputs)
        The metric at each threshold.
    thresholds : ndarray of shape (n_thresholds,)
        The distinct scores, decreasing.

    Raises
    ------
    ValueError
        Inconsistent lengths, NaN or infinite scores, no samples, or metric_func's own errors.

    Examples
    --------
    >>> from assay.metrics import accuracy_score, metric_at_thresholds
    >>> values, thresholds = metric_at_thresholds([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8],
    ...                                           accuracy_score)
    >>> values, thresholds
    (array([0.75, 0.5 , 0.75, 0.5 ]), array([0.8 , 0.4 , 0.35, 0.1 ]))
    """
    if not callable(metric_func):
        raise AssayError(f"metric_func must be a callable, got {type(metric_func).__name__}")
    y = column_or_1d(y_true, "y_true")
    check_consistent_length(y, y_score, sample_weight)
    s = float_array(column_or_1d(y_score, "y_score"), "", min_samples=1)
    params = dict(metric_params or {})
    if sample_weight is not None:
        params["sample_weight"] = sample_weight
    thresholds = np.unique(s)[::-1]
    as_labels = y.dtype if y.dtype.kind in "biuf" else bool
    values = [metric_func(y, (s >= t).astype(as_labels), **params) for t in thresholds]
    return np.asarray(values), thresholds


def auc(x, y):
    """Trapezoid area under the points (x, y).

    scikit-learn's ``auc``. ``x`` must be monotonic; decreasing ``x`` gives the positive area.

    Parameters
    ----------
    x : array-like of shape (n_points,)
        The x coordinates, increasing or decreasing.
    y : array-like of shape (n_points,)
        The y coordinates.

    Returns
    -------
    float
        The area.

    Raises
    ------
    AssayError
        If there are fewer than 2 points, ``x`` is neither increasing nor decreasing, or the
        lengths differ.

    See Also
    --------
    roc_auc_score : The ROC AUC straight from labels and scores.

    Examples
    --------
    >>> from assay.metrics import auc
    >>> print(round(auc([0, 0.5, 1], [0, 0.75, 1]), 4))
    0.625
    """
    check_consistent_length(x, y)
    xs = np.ascontiguousarray(column_or_1d(x, "x"), dtype=np.float64)
    ys = np.ascontiguousarray(column_or_1d(y, "y"), dtype=np.float64)
    if xs.shape[0] < 2:
        raise AssayError("At least 2 points are needed to compute area under curve, but "
                         "x.shape = %s" % (xs.shape,))
    area = _assay.lm_trapezoid_area(xs, ys)
    if area is None:
        raise AssayError("x is neither increasing nor decreasing : {}.".format(np.asarray(x)))
    return np.float64(area)


def _ap_options(method, grid, tie_mode):
    """The average-precision convention's options, as strings (their values are the library's
    to check)."""
    return check_text(method, "method"), check_text(grid, "grid"), check_text(tie_mode, "tie_mode")


def _average_name(average):
    return "none" if average is None else str(average)


def _scores_2d(y_score):
    s = np.ascontiguousarray(y_score, dtype=np.float64)
    if s.ndim != 2:
        raise AssayError(f"y_score must be a 2-D array, found {s.ndim} dimensions")
    return s


def _one_vs_rest(y, classes):
    codes = np.searchsorted(classes, y)
    out = np.zeros((y.size, len(classes)), dtype=np.uint8)
    out[np.arange(y.size), codes] = 1
    return out


def _check_score_average(average):
    """average= of the ranking scores, by metrics::parse_score_average's rule and words ("none"
    is the library's spelling of None, not Python's)."""
    if average is not None:
        text = average if isinstance(average, str) and average != "none" else repr(average)
        _assay._parse_score_average(text)


def _score_matrix(y_score, n_rows):
    s = float_array(y_score, "", min_samples=0)
    if s.ndim == 1:
        s = s.reshape(-1, 1)
    return s


def _no_weighted_positives(ind, w, average):
    """scikit-learn 1.2's average="weighted" of a multilabel score with no (weighted) positive
    label anywhere: it returns the int 0 before scoring any column (so without the warnings or
    errors of the columns)."""
    if average != "weighted":
        return False
    if w is not None:  # weights near 1e-310 are weights, not zero (the library rescales them)
        w = _assay._scaled_weights(w)
    positives = ind.sum(axis=0) if w is None else (ind * w[:, None]).sum(axis=0)
    return bool(np.isclose(positives.sum(), 0.0))


def average_precision_score(y_true, y_score, *, average="macro", pos_label=1,
                            sample_weight=None, method="step", grid="exact", tie_mode="group",
                            n_pos=None):
    """Average precision (AP) of scores, under scikit-learn's or another convention.

    ``method`` picks the convention: 'step' (scikit-learn: the sum of recall increments times
    precision, not the trapezoid area), 'voc07' (PASCAL VOC 11-point), 'voc_allpoint' (the exact
    area under the interpolated curve, VOC 2010+), 'coco101' (COCO's 101 recall points) or
    'trapezoid' (the trapezoid area under the raw curve, for comparison; optimistic). A 2-D
    ``y_true`` is a multilabel indicator scored per column and averaged as ``average`` says; a 1-D
    multi-class ``y_true`` with a 2-D ``y_score`` is one-vs-rest (as scikit-learn >= 1.3). With
    no positive in ``y_true`` (and no ``n_pos``) AP is 0 with a warning, as scikit-learn 1.2.1.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True binary labels, multi-class labels, or a multilabel indicator matrix.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores of the positive class, or one column per class.
    average : {'macro', 'micro', 'weighted', 'samples'} or None, default='macro'
        How the per-class APs of 2-D input are combined; None returns them all.
    pos_label : int, float, bool or str, default=1
        The positive class of binary input (must stay 1 for multilabel input).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    method : {'step', 'voc07', 'voc_allpoint', 'coco101', 'trapezoid'}, default='step'
        The AP convention (see above).
    grid : {'exact', 'numpy'}, default='exact'
        Recall grid of 'voc07' and 'coco101': the correctly rounded k/10 and k/100, or numpy's
        float grids (``np.arange(0, 1.1, 0.1)``, ``np.linspace(0, 1, 101)``).
    tie_mode : {'group', 'sequential'}, default='group'
        One curve point per run of equal scores (scikit-learn), or one per sample in stable
        descending order (VOC/COCO detection style).
    n_pos : float, default=None
        Recall denominator larger than the positives scored (objects never detected); binary only,
        at least the (weighted) number of positives.

    Returns
    -------
    float or ndarray of shape (n_classes,)
        The AP, per class when ``average`` is None.

    Raises
    ------
    AssayError
        If ``y_true`` is empty or of an unsupported type, ``pos_label`` is not a label (or not 1
        for multilabel input), an option is unknown, the shapes differ, or the scores are not
        finite.

    See Also
    --------
    precision_recall_curve : The curve AP summarises.
    mean_average_precision : The mean one-vs-rest AP with the classes left out.

    Examples
    --------
    >>> from assay.metrics import average_precision_score
    >>> y_true, y_score = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    >>> print(round(average_precision_score(y_true, y_score), 4))
    0.8333
    >>> print(round(average_precision_score(y_true, y_score, method="voc07"), 4))
    0.8485
    """
    method, grid, tie_mode = _ap_options(method, grid, tie_mode)
    kind, y = target_kind(y_true, "y_true")
    if len(y) == 0:  # every route, as scikit-learn (a weighted average of no column gave 0)
        raise AssayError("y_true is empty: need at least one sample")
    n_pos = None if n_pos is None else float(n_pos)
    if kind == MULTILABEL and pos_label != 1:
        raise AssayError("Parameter pos_label is fixed to 1 for multilabel-indicator y_true. Do "
                         "not set pos_label or set pos_label to 1.")
    if kind == LABELS:
        present = encode_labels(y)[0].tolist() if y.dtype.kind not in "biuf" else \
            _classes(y).tolist()
        if len(present) == 2 and pos_label not in present:
            raise AssayError(f"pos_label={pos_label} is not a valid label. It should be one of "
                             f"{present}")
    _check_score_average(average)
    score_dims = np.ndim(y_score)
    if kind == LABELS and len(present) > 2 and score_dims == 2:
        # 1-D multiclass labels with a score matrix: one-vs-rest (scikit-learn >= 1.3)
        if pos_label != 1:
            raise AssayError("Parameter pos_label is fixed to 1 for multiclass y_true. Do not set "
                             "pos_label or set pos_label to 1.")
        check_consistent_length(y, y_score, sample_weight)
        ind = _one_vs_rest(y, np.unique(y))
        kind = MULTILABEL
    elif kind == MULTILABEL:
        check_consistent_length(y, y_score, sample_weight)
        ind = indicator(y)
    elif kind != LABELS or len(present) > 2:
        name = type_name(kind, y)
        raise AssayError(f"{name} format is not supported")
    if kind == MULTILABEL:
        s = _score_matrix(y_score, len(ind))
        w = check_sample_weight(sample_weight, len(ind))
        if s.shape != ind.shape:
            raise AssayError(f"y_true and y_score have different shape ({ind.shape} vs "
                             f"{s.shape})")
        if _no_weighted_positives(ind, w, average):
            return 0
        out = _assay.ranking_average_precision_multilabel(
            ind, s, w, _average_name(average), method, grid, tie_mode, n_pos)
        return out if average is None else np.float64(out[0])
    labels, s, w = _curve_inputs(y, y_score, pos_label, sample_weight)
    if len(labels) == 0:
        raise AssayError("y_true is empty: need at least one sample")
    return np.float64(_assay.ranking_average_precision(labels, s, w, method, grid, tie_mode,
                                                      n_pos))


def mean_average_precision(y_true, y_score, *, labels=None, sample_weight=None, method="step",
                           grid="exact", tie_mode="group"):
    """Mean over classes of the one-vs-rest average precision (mAP).

    ``y_true`` holds 1-D class labels (column j of ``y_score`` is ``labels[j]``; by default 0..k-1
    for integer ``y_true``, else the sorted distinct labels) or a 2-D 0/1 indicator. Classes
    without positives are left out of the mean, get NaN in ``per_class`` and are listed in
    ``excluded``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True class labels, or an indicator matrix.
    y_score : array-like of shape (n_samples, n_classes)
        One column of scores per class.
    labels : array-like of shape (n_classes,), default=None
        The class of each column of ``y_score``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    method : {'step', 'voc07', 'voc_allpoint', 'coco101', 'trapezoid'}, default='step'
        The AP convention, as in ``average_precision_score``.
    grid : {'exact', 'numpy'}, default='exact'
        Recall grid of 'voc07' and 'coco101', as in ``average_precision_score``.
    tie_mode : {'group', 'sequential'}, default='group'
        Treatment of tied scores, as in ``average_precision_score``.

    Returns
    -------
    dict
        ``{"map": float, "per_class": ndarray of shape (n_classes,), "labels": ndarray,
        "excluded": list of labels}``.

    Raises
    ------
    AssayError
        If ``y_score`` is not 2-D, its columns do not match the labels, ``y_true`` holds a label
        not among them, a 2-D ``y_true`` is not 0/1, or an option is unknown.

    See Also
    --------
    average_precision_score : AP of one class, or averaged over columns.

    Examples
    --------
    >>> from assay.metrics import mean_average_precision
    >>> result = mean_average_precision(
    ...     [0, 1, 1, 0], [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.5, 0.2, 0.3], [0.2, 0.5, 0.3]])
    >>> print(round(result["map"], 4))
    0.625
    >>> result["per_class"], result["excluded"]
    (array([0.75, 0.5 ,  nan]), [2])
    """
    method, grid, tie_mode = _ap_options(method, grid, tie_mode)
    s = _scores_2d(y_score)
    k = s.shape[1]
    y = np.asarray(y_true)
    if y.ndim == 2:
        ind = _indicator(y)
        classes = np.arange(k) if labels is None else np.asarray(labels)
    else:
        y = _1d(y, "y_true")
        if labels is not None:
            classes = np.asarray(labels)
        elif y.dtype.kind in "iub":
            classes = np.arange(k)
        else:
            classes = np.unique(y)
        if len(classes) != k:
            raise AssayError(f"y_score has {k} columns but there are {len(classes)} labels")
        order = np.argsort(classes, kind="stable")
        pos = np.searchsorted(classes[order], y)
        pos = np.minimum(pos, k - 1)
        bad = classes[order][pos] != y
        if np.any(bad):
            i = int(np.flatnonzero(bad)[0])
            raise AssayError(f"y_true contains label {y[i]!r} at index {i}, not in labels")
        ind = np.zeros((y.size, k), dtype=np.uint8)
        ind[np.arange(y.size), order[pos]] = 1
    if len(classes) != k:
        raise AssayError(f"y_score has {k} columns but there are {len(classes)} labels")
    m, per_class, excluded = _assay.ranking_mean_average_precision(
        ind, s, _weights(sample_weight), method, grid, tie_mode)
    return {"map": m, "per_class": per_class, "labels": classes,
            "excluded": [classes[j].item() if hasattr(classes[j], "item") else classes[j]
                         for j in excluded]}


def _multiclass_labels(y, s, labels):
    """scikit-learn's checks of `labels` for multiclass ROC AUC; returns the classes."""
    if labels is None:
        classes = encode_labels(y)[0]
        if len(classes) != s.shape[1]:
            raise AssayError("Number of classes in y_true not equal to the number of columns in "
                             "'y_score'")
        return classes
    classes = np.asarray(column_or_1d(labels, "labels"))
    unique = np.unique(classes)
    if len(unique) != len(classes):
        raise AssayError("Parameter 'labels' must be unique")
    if not np.array_equal(unique, classes):
        raise AssayError("Parameter 'labels' must be ordered")
    if len(classes) != s.shape[1]:
        raise AssayError(f"Number of given labels, {len(classes)}, not equal to the number of "
                         f"columns in 'y_score', {s.shape[1]}")
    if len(np.setdiff1d(y, classes)):
        raise AssayError("'y_true' contains labels not in parameter 'labels'")
    return classes


def _multiclass_roc_auc(y, s, w, average, multi_class, labels):
    if s.ndim != 2 or not np.allclose(1, s.sum(axis=1)):
        raise AssayError("Target scores need to be probabilities for multiclass roc_auc, i.e. "
                         "they should sum up to 1.0 over classes")
    options = ("macro", "weighted", None)
    if multi_class == "ovr":
        options = ("micro",) + options
    if average not in options:
        raise AssayError("average must be one of {0} for multiclass problems".format(options))
    if multi_class not in ("ovo", "ovr"):
        raise AssayError("multi_class='{0}' is not supported for multiclass ROC AUC, "
                         "multi_class must be in ('ovo', 'ovr')".format(multi_class))
    if average is None and multi_class == "ovo":
        raise NotImplementedError("average=None is not implemented for multi_class='ovo'.")
    classes = _multiclass_labels(y, s, labels)
    if multi_class == "ovo" and w is not None:
        raise AssayError("sample_weight is not supported for multiclass one-vs-one ROC AUC, "
                         "'sample_weight' must be None in this case.")
    check_consistent_length(y, s, w)
    w = check_sample_weight(w, len(y))
    all_classes, codes, _ = encode_labels(y, None, labels=classes)
    codes = np.searchsorted(classes, all_classes)[codes].astype(np.int32)
    if multi_class == "ovr" and w is not None and \
            _no_weighted_positives(np.eye(len(classes), dtype=np.uint8)[codes], w, average):
        return 0  # total weight below numpy.isclose's 1e-8 (scikit-learn's one-vs-rest)
    out = _assay.ranking_roc_auc_multiclass(codes, s, w, _average_name(average), multi_class)
    return out if average is None else np.float64(out[0])


def roc_auc_score(y_true, y_score, *, average="macro", sample_weight=None, max_fpr=None,
                  multi_class="raise", labels=None):
    """Area under the ROC curve (ROC AUC) of binary, multilabel or multi-class scores.

    As scikit-learn 1.2.1: binary, multilabel (2-D ``y_true``) and multi-class (one-vs-rest
    'ovr', or one-vs-one 'ovo' after Hand & Till, which takes no sample weights; both check that
    each score row sums to 1). The binary AUC is ``P(s+ > s-) + P(s+ = s-) / 2``; ``max_fpr``
    gives the McClish-standardised partial AUC. With one class present the AUC is NaN with an
    UndefinedMetricWarning (scikit-learn raises).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels, or a multilabel indicator matrix.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores of the greater class (binary), or one column per class.
    average : {'macro', 'weighted', 'micro', 'samples'} or None, default='macro'
        How the per-class AUCs are combined ('micro' and None not with 'ovo'; 'samples' for
        multilabel input only); None returns them all.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    max_fpr : float, default=None
        In (0, 1]: the standardised partial AUC up to this false positive rate (binary only).
    multi_class : {'raise', 'ovr', 'ovo'}, default='raise'
        The multi-class scheme; 'raise' refuses multi-class input.
    labels : array-like of shape (n_classes,), default=None
        The sorted classes of the columns of a multi-class ``y_score``.

    Returns
    -------
    float or ndarray of shape (n_classes,)
        The AUC, per class when ``average`` is None.

    Raises
    ------
    AssayError
        If ``y_true`` is empty; multi-class input comes with ``multi_class='raise'``, with a
        ``max_fpr`` or with score rows that do not sum to 1; ``labels`` is not unique, sorted and
        complete; ``max_fpr`` is outside (0, 1]; or the shapes differ.
    NotImplementedError
        If ``average`` is None with ``multi_class='ovo'`` (as scikit-learn).

    See Also
    --------
    roc_curve : The curve under which the area lies.
    delong_roc_test : Whether two AUCs on the same samples differ.

    Examples
    --------
    >>> from assay.metrics import roc_auc_score
    >>> print(round(roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4))
    0.75
    >>> y_prob = [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]]
    >>> print(round(roc_auc_score([0, 1, 2, 2], y_prob, multi_class="ovr"), 4))
    0.9167
    """
    kind, y = target_kind(y_true, "y_true")
    s = float_array(y_score, "", min_samples=0)
    check_consistent_length(y, s)
    if len(y) == 0:  # every route, as scikit-learn (a weighted ovr average of nothing gave 0)
        raise AssayError("y_true is empty: need at least one sample")
    classes = None
    if kind == LABELS:
        classes = _classes(y) if y.dtype.kind in "biuf" else encode_labels(y)[0]
    if kind == LABELS and (len(classes) > 2 or (s.ndim == 2 and s.shape[1] > 2)):
        if max_fpr is not None and max_fpr != 1.0:
            raise AssayError(
                "Partial AUC computation not available in multiclass setting, 'max_fpr' must be "
                f"set to `None`, received `max_fpr={max_fpr}` instead")
        if multi_class == "raise":
            raise AssayError("multi_class must be in ('ovo', 'ovr')")
        return _multiclass_roc_auc(y, s, sample_weight, average, multi_class, labels)
    _check_score_average(average)
    check_consistent_length(y, s, sample_weight)
    w = check_sample_weight(sample_weight, len(y))
    if max_fpr is not None and (max_fpr <= 0 or max_fpr > 1):
        raise AssayError("Expected max_fpr in range (0, 1], got: %r" % max_fpr)
    max_fpr = None if max_fpr is None else float(max_fpr)
    if kind == MULTILABEL:
        ind = indicator(y)
        s = _score_matrix(s, len(ind))
        if s.shape != ind.shape:
            raise AssayError(f"y_true and y_score have different shape ({ind.shape} vs "
                             f"{s.shape})")
        if _no_weighted_positives(ind, w, average):
            return 0
        out = _assay.ranking_roc_auc_multilabel(ind, s, w, _average_name(average), max_fpr)
        return out if average is None else np.float64(out[0])
    if kind != LABELS:
        raise AssayError(f"{type_name(kind, y)} format is not supported")
    s = column_or_1d(s, "y_score")
    if len(classes) == 2:
        y_bin = _positives(y, classes.tolist(), classes[-1])
    else:
        y_bin = np.zeros(y.size, dtype=np.uint8)
    return np.float64(_assay.ranking_roc_auc(y_bin, np.ascontiguousarray(s), w, max_fpr))


def top_k_accuracy_score(y_true, y_score, *, k=2, normalize=True, sample_weight=None,
                         labels=None):
    """Top-k accuracy: the fraction of samples whose class is among the k highest scores.

    scikit-learn's ``top_k_accuracy_score``. Tied scores rank the higher class index first. Binary
    ``y_true`` takes 1-D scores: ``k = 1`` thresholds them at 0.5 for probabilities, else at 0, and
    ``k >= 2`` is always a hit (with an UndefinedMetricWarning, as scikit-learn warns).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores: 1-D of the greater class for binary input, else one column per class.
    k : int, default=2
        The number of top-scored classes that count as a hit.
    normalize : bool, default=True
        True: the fraction of hits; False: the (weighted) number of hits.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    labels : array-like of shape (n_classes,), default=None
        The sorted, unique classes of the columns of ``y_score``. None: the classes of ``y_true``.

    Returns
    -------
    float or int
        The top-k accuracy; an int count for ``normalize=False`` without float weights.

    Raises
    ------
    AssayError
        If ``y_true`` is not binary or multi-class, the classes do not match the columns of
        ``y_score``, ``labels`` is not unique and sorted or misses a label of ``y_true``, or the
        lengths differ.

    See Also
    --------
    accuracy_score : The top-1 accuracy of predicted labels.

    Examples
    --------
    >>> from assay.metrics import top_k_accuracy_score
    >>> y_score = [[0.5, 0.2, 0.3], [0.3, 0.4, 0.3], [0.2, 0.5, 0.3], [0.5, 0.3, 0.2]]
    >>> print(round(top_k_accuracy_score([0, 1, 2, 2], y_score, k=2), 4))
    0.75
    """
    y = column_or_1d(y_true, "y_true")
    kind, y = target_kind(y, "y_true")
    classes_true = encode_labels(y)[0] if kind == LABELS else None
    name = type_name(kind, y) if kind != LABELS else (
        "multiclass" if len(classes_true) > 2 else "binary")
    if name == "binary" and labels is not None and len(labels) > 2:
        name = "multiclass"
    if name not in ("binary", "multiclass"):
        raise AssayError(f"y type must be 'binary' or 'multiclass', got '{name}' instead.")
    s = float_array(y_score, "")  # scikit-learn refuses zero samples here
    if name == "binary":
        if s.ndim == 2 and s.shape[1] != 1:
            raise AssayError(f"`y_true` is binary while y_score is 2d with {s.shape[1]} classes. "
                             "If `y_true` does not contain all the labels, `labels` must be "
                             "provided.")
        s = column_or_1d(s, "y_score")
    check_consistent_length(y, s, sample_weight)
    w = check_sample_weight(sample_weight, len(y))
    score_classes = s.shape[1] if s.ndim == 2 else 2
    if labels is None:
        classes = classes_true
        if len(classes) != score_classes:
            raise AssayError(
                f"Number of classes in 'y_true' ({len(classes)}) not equal to the number of "
                f"classes in 'y_score' ({score_classes}).You can provide a list of all known "
                "classes by assigning it to the `labels` parameter.")
    else:
        listed = column_or_1d(labels, "labels")
        classes = np.unique(listed)
        if len(classes) != len(listed):
            raise AssayError("Parameter 'labels' must be unique.")
        if not np.array_equal(classes, listed):
            raise AssayError("Parameter 'labels' must be ordered.")
        if len(classes) != score_classes:
            raise AssayError(f"Number of given labels ({len(classes)}) not equal to the number "
                             f"of classes in 'y_score' ({score_classes}).")
        if len(np.setdiff1d(y, classes)):
            raise AssayError("'y_true' contains labels not in parameter 'labels'.")
    if k >= len(classes):
        warnings.warn(f"'k' ({k}) greater than or equal to 'n_classes' ({len(classes)}) will "
                      "result in a perfect score and is therefore meaningless.",
                      UndefinedMetricWarning, stacklevel=2)
    all_classes, codes, _ = encode_labels(y, None, labels=classes)
    codes = np.searchsorted(classes, all_classes)[codes].astype(np.int32)
    count = not normalize and integral_weights(sample_weight)
    if name == "binary":
        if k == 1:
            threshold = 0.5 if s.min() >= 0 and s.max() <= 1 else 0.0
            value = _assay.lm_top_1_accuracy_binary(codes, np.ascontiguousarray(s), threshold,
                                                    bool(normalize), w)
        else:
            value = (1.0 if normalize else (float(len(codes)) if w is None else float(w.sum())))
    else:
        value = _assay.lm_top_k_accuracy(codes, s, check_integer(k, "k", 0, 2**63 - 1),
                                         bool(normalize), w)
    return int(value) if count else np.float64(value)


def delong_roc_test(y_true, score_a, score_b, *, pos_label=None):
    """Test whether two ROC AUCs on the same samples differ (DeLong's paired test).

    DeLong et al. (1988), with the fast O(n log n) algorithm of Sun & Xu (2014) and midranks for
    ties; the p-value is two-sided from the normal distribution. Fewer than 2 positives or 2
    negatives, or a zero variance of the difference, give NaN with a warning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    score_a : array-like of shape (n_samples,)
        Scores of the first model.
    score_b : array-like of shape (n_samples,)
        Scores of the second model, for the same samples.
    pos_label : int, float, bool or str, default=None
        The positive class. None: 1 for labels in {0, 1} or {-1, 1}.

    Returns
    -------
    dict
        ``{"auc_a", "auc_b", "covariance" (2 x 2 ndarray), "z", "p_value"}``.

    Raises
    ------
    AssayError
        If ``y_true`` is not binary, ``pos_label`` is needed and missing or not a label, or the
        lengths differ.

    See Also
    --------
    roc_auc_score : One AUC.
    bootstrap : A percentile interval of any metric.

    Examples
    --------
    >>> from assay.metrics import delong_roc_test
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> a = [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.3, 0.9]
    >>> b = [0.6, 0.3, 0.2, 0.7, 0.5, 0.4, 0.8, 0.6]
    >>> result = delong_roc_test(y, a, b)
    >>> print(round(result["auc_a"], 4), round(result["auc_b"], 4), round(result["p_value"], 4))
    0.9375 0.4062 0.0291
    """
    y = _binary_labels(y_true, pos_label)
    return _assay.ranking_delong_roc_test(y, _scores(score_a, "score_a"),
                                          _scores(score_b, "score_b"))


def compare_pr_curves(y_true, score_a, score_b, *, pos_label=None, method="voc_allpoint",
                      grid="exact", tie_mode="group"):
    """Decide whether one model's interpolated PR curve dominates the other's at every recall.

    Textbook Figure 45. Each model's interpolated precision is compared on every interval of the
    union of both curves' recall breakpoints. ``ap_a`` and ``ap_b`` are the APs under
    ``method``; the default 'voc_allpoint' is the area under the interpolated curve, so a
    dominant curve never has the smaller AP.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    score_a : array-like of shape (n_samples,)
        Scores of the first model.
    score_b : array-like of shape (n_samples,)
        Scores of the second model, for the same samples.
    pos_label : int, float, bool or str, default=None
        The positive class. None: 1 for labels in {0, 1} or {-1, 1}.
    method : {'voc_allpoint', 'step', 'voc07', 'coco101', 'trapezoid'}, default='voc_allpoint'
        The AP convention of ``ap_a`` and ``ap_b``.
    grid : {'exact', 'numpy'}, default='exact'
        Recall grid of 'voc07' and 'coco101', as in ``average_precision_score``.
    tie_mode : {'group', 'sequential'}, default='group'
        Treatment of tied scores, as in ``average_precision_score``.

    Returns
    -------
    dict
        ``{"dominant": "a" | "b" | "equal" | None, "crossings": ndarray, "ap_a", "ap_b"}``:
        None when the curves cross; ``crossings`` holds the recalls where the better curve
        switches.

    Raises
    ------
    AssayError
        If ``y_true`` is not binary, ``pos_label`` is needed and missing, an option is unknown,
        or the lengths differ.

    See Also
    --------
    interpolated_precision : The curves compared.
    delong_roc_test : A test of two ROC AUCs.

    Examples
    --------
    >>> from assay.metrics import compare_pr_curves
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> a = [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.3, 0.9]
    >>> b = [0.6, 0.3, 0.2, 0.7, 0.5, 0.4, 0.8, 0.6]
    >>> result = compare_pr_curves(y, a, b)
    >>> result["dominant"], round(result["ap_a"], 4), round(result["ap_b"], 4)
    ('a', 0.95, 0.5)
    """
    method, grid, tie_mode = _ap_options(method, grid, tie_mode)
    y = _binary_labels(y_true, pos_label)
    return _assay.ranking_compare_pr_curves(y, _scores(score_a, "score_a"),
                                            _scores(score_b, "score_b"), method, grid, tie_mode)


class RankedScores:
    """Binary scores sorted once, to recompute ROC AUC and AP under many weightings.

    Sorting is the costly part of a ranking metric; a bootstrap scores the same samples under
    many weightings, so this object sorts once and rescans per weighting. Weights are per sample
    in the original order (e.g. bootstrap counts).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_score : array-like of shape (n_samples,)
        Scores of the positive class.
    pos_label : int, float, bool or str, default=None
        The positive class. None: 1 for labels in {0, 1} or {-1, 1}.

    Raises
    ------
    AssayError
        If ``y_true`` is not binary, ``pos_label`` is needed and missing, or the lengths differ.

    See Also
    --------
    bootstrap : Resamples any metric; it too sorts once for 'roc_auc' and 'average_precision'.

    Examples
    --------
    >>> from assay.metrics import RankedScores
    >>> ranked = RankedScores([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> print(round(ranked.roc_auc(), 4), round(ranked.roc_auc([1, 2, 1, 1]), 4))
    0.75 0.6667
    """

    def __init__(self, y_true, y_score, *, pos_label=None):
        self._impl = _assay.RankedScores(_binary_labels(y_true, pos_label), _scores(y_score))

    def __len__(self):
        return len(self._impl)

    def roc_auc(self, sample_weight=None, max_fpr=None):
        """ROC AUC of the sorted scores under per-sample weights.

        The same number as ``roc_auc_score(y_true, y_score, sample_weight=...)``, without sorting
        the scores again.

        Parameters
        ----------
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample in the original order. None: every sample weighs 1.
        max_fpr : float, default=None
            The standardised partial AUC up to this false positive rate, as in ``roc_auc_score``.

        Returns
        -------
        float
            The AUC (NaN with an UndefinedMetricWarning when one class has no weight).

        Raises
        ------
        AssayError
            If ``sample_weight`` does not have one weight per sample.

        See Also
        --------
        roc_auc_score : The same AUC from labels and scores.

        Examples
        --------
        >>> from assay.metrics import RankedScores
        >>> ranked = RankedScores([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> print(round(ranked.roc_auc(max_fpr=0.5), 4))
        0.6667
        """
        return self._impl.roc_auc(_weights(sample_weight),
                                  None if max_fpr is None else float(max_fpr))

    def average_precision(self, sample_weight=None, *, method="step", grid="exact",
                          tie_mode="group", n_pos=None):
        """Average precision of the sorted scores under per-sample weights.

        The same number as ``average_precision_score`` of the binary labels and scores with these
        weights and options, without sorting the scores again.

        Parameters
        ----------
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample in the original order. None: every sample weighs 1.
        method : {'step', 'voc07', 'voc_allpoint', 'coco101', 'trapezoid'}, default='step'
            The AP convention, as in ``average_precision_score``.
        grid : {'exact', 'numpy'}, default='exact'
            Recall grid of 'voc07' and 'coco101'.
        tie_mode : {'group', 'sequential'}, default='group'
            Treatment of tied scores.
        n_pos : float, default=None
            Recall denominator overriding the (weighted) number of positives.

        Returns
        -------
        float
            The AP.

        Raises
        ------
        AssayError
            If ``sample_weight`` does not have one weight per sample, or an option is unknown.

        See Also
        --------
        average_precision_score : The same AP from labels and scores.

        Examples
        --------
        >>> from assay.metrics import RankedScores
        >>> ranked = RankedScores([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> print(round(ranked.average_precision(), 4))
        0.8333
        >>> print(round(ranked.average_precision([1, 0, 1, 2]), 4))
        1.0
        """
        method, grid, tie_mode = _ap_options(method, grid, tie_mode)
        return self._impl.average_precision(_weights(sample_weight), method, grid, tie_mode,
                                            None if n_pos is None else float(n_pos))
