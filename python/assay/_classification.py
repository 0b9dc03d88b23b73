"""Label-based classification metrics and calibration (scikit-learn 1.9 names, arguments,
defaults and return shapes). Thin wrappers: arguments are converted here, the counts and sums
are computed by the compiled library (src/metrics/{labels,confusion,classification,
calibration}.cpp); the multi-class Brier score, the D² scores and log losses of rows that do
not sum to one are short numpy formulas here. See docs/metrics_classification.md."""
import functools
import warnings

import numpy as np

from . import _assay
from ._assay import AssayError, AssayWarning, UndefinedMetricWarning
from ._options import check_integer, check_text
from ._labels import (agreement, check_average, codes_of, encode_labels, multilabel_columns,
                      present_labels, selected_codes, set_wise_labels, zero_division_name)
from ._validation import (LABELS, MULTILABEL, as_array, check_consistent_length, check_finite,
                          check_sample_weight, check_targets, column_or_1d, float_array,
                          indicator, integral_weights, is_text, num_samples, target_kind,
                          type_name)

__all__ = [
    "confusion_matrix",
    "grouped_confusion_matrix",
    "accuracy_score",
    "balanced_accuracy_score",
    "matthews_corrcoef",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "f1_score",
    "fbeta_score",
    "classification_report",
    "binary_rates",
    "predict_labels",
    "calibration_error",
    "brier_score_loss",
    "log_loss",
    "d2_log_loss_score",
    "d2_brier_score",
]

# ----------------------------------------------------------------------------- label handling

def _label_targets(y_true, y_pred, sample_weight, what=None):
    """Checked 1-D targets and weights of a metric that refuses multilabel indicators."""
    targets = check_targets(y_true, y_pred, sample_weight)
    if targets.kind == MULTILABEL:
        raise AssayError("multilabel-indicator is not supported")
    return targets, check_sample_weight(sample_weight, len(targets.y_true))


def _as_labels(y, name):
    """1-D labels for the probability metrics (column vectors flattened); scikit-learn's
    errors for NaN / infinity."""
    kind, a = target_kind(y, name)
    if kind == MULTILABEL or a.ndim != 1:
        if kind != LABELS:
            raise AssayError(f"{name} should be a 1d array, got an array of shape {a.shape} "
                             "instead.")
    if kind.startswith("continuous"):
        raise AssayError(f"Only binary classification is supported. The type of the target is "
                         f"{kind}.")
    return a


# ----------------------------------------------------------------------------- confusion matrices

def _empty_dtype(normalize, sample_weight):
    return np.int64 if normalize is None and integral_weights(sample_weight) else np.float64


def confusion_matrix(y_true, y_pred, *, labels=None, sample_weight=None, normalize=None):
    """Count (or weigh) every pair of true and predicted labels in a matrix.

    Entry ``C[i, j]`` is the total weight of the samples whose true label is ``labels[i]`` and
    whose predicted label is ``labels[j]``, as scikit-learn's ``confusion_matrix``. ``labels``
    selects and orders the rows and columns; samples whose true or predicted label is not listed
    are dropped. Normalising divides by row, column or grand totals, and 0/0 gives 0. The counts are
    int64 (exact, never wrapping) unless the weights are floats or the matrix is normalised. A
    1 x 1 matrix (a single label in both inputs) warns that ``labels`` would give the intended
    shape, as scikit-learn 1.9 does.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (numbers or strings; multilabel indicators are refused).
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    labels : array-like of shape (n_classes,), default=None
        The classes of the rows and columns, in this order. None: the sorted union of the labels
        in ``y_true`` and ``y_pred``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample (non-negative and finite). None: every sample weighs 1.
    normalize : {'true', 'pred', 'all'}, default=None
        Divide by the row sums ('true'), the column sums ('pred') or the total ('all'); None
        keeps the counts.

    Returns
    -------
    ndarray of shape (n_classes, n_classes)
        Counts as int64, or float64 when weighted by floats or normalised.

    Raises
    ------
    AssayError
        If ``normalize`` is not one of the options, ``labels`` is empty, has duplicates or names
        no label of ``y_true``, the input is a multilabel indicator, or the lengths differ.

    See Also
    --------
    multilabel_confusion_matrix : One 2 x 2 matrix per class.
    grouped_confusion_matrix : Rows and columns over groups of classes.

    Examples
    --------
    >>> from assay.metrics import confusion_matrix
    >>> confusion_matrix([0, 1, 2, 2, 1, 0], [0, 2, 2, 2, 1, 0])
    array([[2, 0, 0],
           [0, 1, 1],
           [0, 0, 2]])
    >>> confusion_matrix([0, 1, 2, 2, 1, 0], [0, 2, 2, 2, 1, 0], normalize="true")
    array([[1. , 0. , 0. ],
           [0. , 0.5, 0.5],
           [0. , 0. , 1. ]])
    """
    targets, w = _label_targets(y_true, y_pred, sample_weight)
    a, b = targets.y_true, targets.y_pred
    if normalize not in ("true", "pred", "all", None):
        raise AssayError("normalize must be one of {'true', 'pred', 'all', None}")
    norm_name = "none" if normalize is None else normalize
    integral = integral_weights(sample_weight)
    if labels is None:
        if len(a) == 0:  # scikit-learn: float64 when normalised or weighted by floats
            return np.zeros((0, 0), dtype=_empty_dtype(normalize, sample_weight))
        if a.dtype.kind in "iu" and b.dtype.kind in "iu" and (w is None or not integral):
            # One pass straight over the integer labels when their range is small.
            direct = _assay.cls_confusion_matrix_direct(np.asarray(a, dtype=np.int64),
                                                        np.asarray(b, dtype=np.int64), w,
                                                        norm_name)
            if direct is not None:
                cm = direct[1]
                return cm.astype(np.int64) if normalize is None and integral else cm
        classes, ct, cp = encode_labels(a, b)
        k = len(classes)
    else:
        listed = np.asarray(labels)
        k = listed.size
        if k == 0:
            raise AssayError("'labels' should contain at least one label.")
        if len(a) == 0:  # scikit-learn returns int zeros here, normalised or weighted alike
            return np.zeros((k, k), dtype=int)
        classes, ct, cp = encode_labels(a, b, labels=listed)
        if len(np.unique(codes_of(classes, listed))) != k:
            raise AssayError("labels contains duplicates")
        position = np.full(len(classes), -1, dtype=np.int32)
        position[codes_of(classes, listed)] = np.arange(k, dtype=np.int32)
        ct, cp = position[ct], position[cp]
        if not (ct >= 0).any():
            raise AssayError("At least one label specified must be in y_true")
    if w is not None and integral:
        cm = _assay.lm_confusion_matrix_integer(ct, cp, k, np.asarray(sample_weight,
                                                                      dtype=np.int64))
        if normalize is None:
            return cm
        return _assay.cls_confusion_matrix(ct, cp, k, w, norm_name)
    cm = _assay.cls_confusion_matrix(ct, cp, k, w, norm_name)
    if normalize is None and integral:
        cm = cm.astype(np.int64)
    return cm



def _warns_of_a_single_label(function):
    """scikit-learn 1.9 (not 1.2): a 1 x 1 confusion matrix warns that `labels` would give the
    intended shape (so do the metrics built on it, as in scikit-learn)."""
    @functools.wraps(function)
    def checked(*args, **kwargs):
        cm = function(*args, **kwargs)
        if cm.shape == (1, 1):
            warnings.warn("A single label was found in 'y_true' and 'y_pred'. For the confusion "
                          "matrix to have the correct shape, use the 'labels' parameter to pass "
                          "all known labels.", AssayWarning, stacklevel=2)
        return cm
    return checked


confusion_matrix = _warns_of_a_single_label(confusion_matrix)


def grouped_confusion_matrix(y_true, y_pred, row_groups=None, col_groups=None, *,
                             sample_weight=None):
    """Confusion matrix over groups of classes, possibly rectangular.

    Rows and columns need not match: ``row_groups`` maps each true class to a row-group name and
    ``col_groups`` each predicted class to a column-group name, each as a dict
    ``{class: name}``. A class mapped to None, or absent from the dict, is ignored (its samples are
    dropped). None stands for the identity over the classes present (sorted), so with both None
    the result is ``confusion_matrix``. Groups are ordered by their first appearance among the
    dict's values.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    row_groups : dict, default=None
        ``{true class: row-group name or None}``. None: one row per class present.
    col_groups : dict, default=None
        ``{predicted class: column-group name or None}``. None: one column per class present.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    matrix : ndarray of shape (n_row_groups, n_col_groups)
        Float64; ``matrix[r, c]`` is the weight of the samples whose true class is in row group
        ``r`` and whose predicted class is in column group ``c``.
    row_names : list
        The row-group names, in row order.
    col_names : list
        The column-group names, in column order.

    Raises
    ------
    AssayError
        If a grouping is not a dict, the input is a multilabel indicator, or the lengths differ.

    See Also
    --------
    confusion_matrix : One row and one column per class.

    Examples
    --------
    >>> from assay.metrics import grouped_confusion_matrix
    >>> kind = {"cat": "animal", "dog": "animal", "car": "vehicle"}
    >>> m, rows, cols = grouped_confusion_matrix(["cat", "dog", "car", "car"],
    ...                                          ["dog", "dog", "car", "cat"],
    ...                                          row_groups=kind, col_groups=kind)
    >>> m
    array([[2., 0.],
           [1., 1.]])
    >>> rows, cols
    (['animal', 'vehicle'], ['animal', 'vehicle'])
    """
    targets, w = _label_targets(y_true, y_pred, sample_weight)
    classes, ct, cp = encode_labels(targets.y_true, targets.y_pred)
    class_list = classes.tolist()

    def mapping(groups, what):
        if groups is None:
            groups = {c: c for c in class_list}
        if not isinstance(groups, dict):
            raise AssayError(f"{what} must be a dict {{class: group name or None}}, found "
                             f"{type(groups).__name__}")
        names = []
        index = {}
        for g in groups.values():
            if g is not None and g not in index:
                index[g] = len(names)
                names.append(g)
        codes = np.array([index[groups[c]] if groups.get(c) is not None else -1
                          for c in class_list], dtype=np.int32)
        return codes, names

    rows, row_names = mapping(row_groups, "row_groups")
    cols, col_names = mapping(col_groups, "col_groups")
    m = _assay.cls_grouped_confusion_matrix(ct, cp, rows, cols, len(row_names), len(col_names), w)
    return m, row_names, col_names


# ----------------------------------------------------------------------------- accuracy, MCC

def _empty_score(normalize=True, count=True):
    """scikit-learn's mean of no samples (NaN, with a warning); the unnormalised count is 0
    (0.0 when float weights make the count a weighted sum, as np.dot gives)."""
    if not normalize:
        return 0 if count else np.float64(0.0)
    warnings.warn("the score of zero samples is undefined, returning NaN", UndefinedMetricWarning,
                  stacklevel=3)
    return np.float64(np.nan)


def accuracy_score(y_true, y_pred, *, normalize=True, sample_weight=None, average="micro",
                   class_weight=None):
    """Accuracy: fraction (or number) of correct predictions, optionally averaged per class.

    Textbook eqs. 162-164. ``average='micro'`` (the default) is scikit-learn's
    ``accuracy_score``, the (weighted) fraction correct; ``normalize=False`` gives the (weighted)
    number correct, an int without weights or with integer weights (as scikit-learn's dot product
    of the hits with the weights). Multilabel input gives the subset accuracy.
    ``average='macro'`` is the mean over the classes present in ``y_true`` of the per-class recall
    (with ``sample_weight``: the weighted recall), which is the balanced accuracy without its
    warning. ``average='weighted'`` is ``(1/W) sum_i w_i [y_pred_i == y_true_i]`` with
    ``w_i = sample_weight_i * class_weight[y_true_i]``. The fraction correct of zero samples is NaN
    with an UndefinedMetricWarning (their number correct is 0).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    normalize : bool, default=True
        True: the fraction correct; False: the (weighted) number correct.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    average : {'micro', 'macro', 'weighted'}, default='micro'
        How to combine the samples (see above); multilabel input takes 'micro' only.
    class_weight : dict or array-like of shape (n_classes,), default=None
        Weights of the classes for ``average='weighted'``: a dict ``{class: weight}`` (absent
        classes weigh 1) or an array aligned with the sorted classes.

    Returns
    -------
    float or int
        The accuracy; an int for ``normalize=False`` without float weights.

    Raises
    ------
    AssayError
        If multilabel input asks for an average other than 'micro', ``class_weight`` has the
        wrong length, the lengths differ, or the weights sum to zero (except as below).
    ZeroDivisionError
        If the weights of numeric 1-D labels sum to zero with ``normalize=True`` and the default
        'micro' average (as scikit-learn).

    See Also
    --------
    balanced_accuracy_score : Mean per-class recall.
    zero_one_loss : One minus the accuracy.

    Examples
    --------
    >>> from assay.metrics import accuracy_score
    >>> y_true, y_pred = [0, 1, 2, 2, 1, 0], [0, 2, 2, 2, 1, 0]
    >>> print(round(accuracy_score(y_true, y_pred), 4))
    0.8333
    >>> accuracy_score(y_true, y_pred, normalize=False)
    5
    """
    targets = check_targets(y_true, y_pred, sample_weight)
    a, b = targets.y_true, targets.y_pred
    w = check_sample_weight(sample_weight, len(a))
    count = not normalize and integral_weights(sample_weight)
    if targets.kind == MULTILABEL:
        if average != "micro":
            raise AssayError("multilabel accuracy supports average='micro' only (subset accuracy)")
        if len(a) == 0:
            return _empty_score(normalize, count)
        value = _assay.cls_multilabel_accuracy(a, b, bool(normalize), w)
        return int(value) if count else np.float64(value)
    if len(a) == 0:
        return _empty_score(normalize, count)
    if average == "micro" and class_weight is None:
        counts = agreement(a, b, w)
        if counts is not None:
            matched, total, fraction, _ = counts
            if count:
                return int(matched)
            if not normalize:
                return np.float64(matched)
            if total == 0:
                raise ZeroDivisionError("Weights sum to zero, can't be normalized")
            return np.float64(fraction)
    classes, ct, cp = encode_labels(a, b)
    cw = None
    if class_weight is not None:
        if isinstance(class_weight, dict):
            cw = np.array([float(class_weight.get(c, 1.0)) for c in classes.tolist()])
        else:
            cw = np.asarray(class_weight, dtype=np.float64)
            if len(cw) != len(classes):
                raise AssayError(f"class_weight has {len(cw)} entries but there are "
                                 f"{len(classes)} classes")
    value = _assay.cls_accuracy(ct, cp, len(classes), check_text(average, "average"),
                                bool(normalize), w, cw)
    return int(value) if count and average == "micro" else np.float64(value)


def balanced_accuracy_score(y_true, y_pred, *, sample_weight=None, adjusted=False):
    """Balanced accuracy: the mean over classes of the recall.

    As scikit-learn's ``balanced_accuracy_score``. ``adjusted=True`` rescales so that chance
    scores 0; with one class in ``y_true`` that is NaN plus an UndefinedMetricWarning (where
    scikit-learn divides by zero).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    adjusted : bool, default=False
        Rescale the score so that random guessing gives 0 and perfect prediction 1.

    Returns
    -------
    float
        The balanced accuracy (NaN for zero samples, with an UndefinedMetricWarning).

    Raises
    ------
    AssayError
        If the input is a multilabel indicator or the lengths differ.

    See Also
    --------
    accuracy_score : With ``average='macro'``, the same number without the warning.

    Examples
    --------
    >>> from assay.metrics import balanced_accuracy_score
    >>> print(round(balanced_accuracy_score([0, 0, 0, 1], [0, 0, 1, 1]), 4))
    0.8333
    """
    targets, w = _label_targets(y_true, y_pred, sample_weight)
    if len(targets.y_true) == 0:
        return _empty_score()
    classes, ct, cp = encode_labels(targets.y_true, targets.y_pred)
    return np.float64(_assay.cls_balanced_accuracy(ct, cp, len(classes), w, bool(adjusted)))


def matthews_corrcoef(y_true, y_pred, *, sample_weight=None):
    """Compute the Matthews correlation coefficient (binary or multi-class).

    As scikit-learn's ``matthews_corrcoef``, except in the undefined case (one class in
    ``y_true`` or in ``y_pred``): there scikit-learn returns 0.0, assay NaN plus an
    UndefinedMetricWarning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float
        Between -1 and 1 (1: perfect, 0: no correlation); NaN when undefined.

    Raises
    ------
    AssayError
        If the input is a multilabel indicator or the lengths differ.

    See Also
    --------
    binary_rates : The MCC with the other rates of one class.

    Examples
    --------
    >>> from assay.metrics import matthews_corrcoef
    >>> print(round(matthews_corrcoef([0, 0, 1, 1], [0, 1, 1, 1]), 4))
    0.5774
    """
    targets, w = _label_targets(y_true, y_pred, sample_weight)
    if len(targets.y_true) == 0:
        return _empty_score()
    classes, ct, cp = encode_labels(targets.y_true, targets.y_pred)
    return np.float64(_assay.cls_matthews_corrcoef(ct, cp, len(classes), w))


# ----------------------------------------------------------------------------- P/R/F

def precision_recall_fscore_support(y_true, y_pred, *, beta=1.0, labels=None, pos_label=1,
                                    average=None,
                                    warn_for=("precision", "recall", "f-score"),
                                    sample_weight=None, zero_division="warn"):
    """Precision, recall, F-beta and support per class, or averaged.

    As scikit-learn's ``precision_recall_fscore_support``, with the F-beta rule of
    scikit-learn >= 1.4: ``F = (1 + beta^2) tp / ((1 + beta^2) tp + beta^2 fn + fp)``, with
    ``zero_division`` only when ``tp + fp + fn = 0`` (docs/metrics_classification.md lists where
    this differs from 1.2.1). Labels not present in the data get zero counts; for multilabel input
    ``labels`` are column indices.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    beta : float, default=1.0
        Weight of recall against precision in the F-score (must be >= 0).
    labels : array-like, default=None
        The labels to score and their order. None: every label present, sorted.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average='binary'``.
    average : {'binary', 'micro', 'macro', 'weighted', 'samples'}, default=None
        None: one value per label. 'binary': ``pos_label`` only; 'micro': from the pooled counts;
        'macro': unweighted mean over labels; 'weighted': mean weighted by support; 'samples':
        mean over samples (multilabel only).
    warn_for : tuple of str, default=('precision', 'recall', 'f-score')
        The quantities that warn when ill-defined.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    zero_division : {'warn', 0, 1, np.nan}, default='warn'
        Value of a ratio with a zero denominator: 'warn' gives 0 with an UndefinedMetricWarning;
        ``np.nan`` gives NaN, left out of the averages.

    Returns
    -------
    precision : float or ndarray of shape (n_labels,)
        Precision, per label when ``average`` is None.
    recall : float or ndarray of shape (n_labels,)
        Recall, in the same form.
    fbeta_score : float or ndarray of shape (n_labels,)
        The F-beta score, in the same form.
    support : None or ndarray of shape (n_labels,)
        The number (or weight) of true samples of each label; None when averaged.

    Raises
    ------
    AssayError
        If ``beta`` is negative, ``average`` or ``zero_division`` is not an option,
        ``pos_label`` is not a label of binary input, 'samples' is asked of non-multilabel input,
        or the lengths differ.

    See Also
    --------
    precision_score, recall_score, f1_score, fbeta_score : One of the four at a time.
    classification_report : The table of all of them.

    Examples
    --------
    >>> from assay.metrics import precision_recall_fscore_support
    >>> p, r, f, s = precision_recall_fscore_support([0, 1, 1, 0, 1], [0, 1, 0, 0, 1])
    >>> p
    array([0.66666667, 1.        ])
    >>> s
    array([2, 3])
    """
    zd = zero_division_name(zero_division)
    if beta < 0:
        raise AssayError("beta should be >=0 in the F-beta score")
    check_average(average)
    targets = check_targets(y_true, y_pred, sample_weight)
    a, b = targets.y_true, targets.y_pred
    w = check_sample_weight(sample_weight, len(a))
    flags = ("precision" in warn_for, "recall" in warn_for, "f-score" in warn_for)
    avg_name = "none" if average is None else average
    if targets.kind == MULTILABEL:
        labels = set_wise_labels(targets, None, average, labels, pos_label)
        a, b = multilabel_columns(targets, labels)
        if a.shape[0] == 0:
            a = np.zeros((0, a.shape[1]), dtype=np.uint8)
        p, r, f, s = _assay.cls_prf_multilabel(a, b, w, float(beta), avg_name, zd, *flags)
    else:
        if (labels is None and average not in ("binary", "samples") and a.dtype.kind in "iu"
                and b.dtype.kind in "iu" and len(a)):
            # One pass straight over small-range integer labels (no codes materialised).
            direct = _assay.cls_prf_direct(np.asarray(a, dtype=np.int64),
                                           np.asarray(b, dtype=np.int64), w, float(beta),
                                           avg_name, zd, *flags)
            if direct is not None:
                set_wise_labels(targets, direct[0], average, labels, pos_label)
                p, r, f, s = direct[1]
                return _prf_result(p, r, f, s, sample_weight, float_counts(targets))
        classes = encode_labels(a, b)[0]
        labels = set_wise_labels(targets, classes, average, labels, pos_label)
        if average == "samples":
            raise AssayError("Samplewise metrics are not available outside of multilabel "
                             "classification.")
        classes, ct, cp, select = selected_codes(targets, labels)
        p, r, f, s = _assay.cls_prf_multiclass(ct, cp, len(classes), select, w, float(beta),
                                               avg_name, zd, *flags)
    return _prf_result(p, r, f, s, sample_weight, float_counts(targets))


def _prf_result(p, r, f, s, sample_weight, as_float=False):
    if s is None:
        return np.float64(p), np.float64(r), np.float64(f), None
    if sample_weight is None and not as_float:
        s = s.astype(np.int64)
    return p, r, f, s


def float_counts(targets):
    """True where scikit-learn 1.2's multilabel_confusion_matrix (and so the support of
    precision_recall_fscore_support) gives float64 counts without weights: 1-D labels of which
    no sample is predicted right (its "pathological case" starts from np.zeros)."""
    if targets.kind == MULTILABEL:
        return False
    return not np.any(np.asarray(targets.y_true) == np.asarray(targets.y_pred))


def _single(name, y_true, y_pred, labels, pos_label, average, sample_weight, zero_division,
            beta=1.0):
    p, r, f, _ = precision_recall_fscore_support(
        y_true, y_pred, beta=beta, labels=labels, pos_label=pos_label, average=average,
        warn_for=(name,), sample_weight=sample_weight, zero_division=zero_division)
    return {"precision": p, "recall": r, "f-score": f}[name]


def precision_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                    sample_weight=None, zero_division="warn"):
    """Precision ``tp / (tp + fp)``: the fraction of predicted positives that are right.

    As scikit-learn's ``precision_score``; the rules are those of
    ``precision_recall_fscore_support``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    labels : array-like, default=None
        The labels to score and their order. None: every label present, sorted.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average='binary'``.
    average : {'binary', 'micro', 'macro', 'weighted', 'samples'} or None, default='binary'
        How the per-label values are combined; None returns them all.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    zero_division : {'warn', 0, 1, np.nan}, default='warn'
        Value when nothing is predicted positive ('warn': 0 with an UndefinedMetricWarning).

    Returns
    -------
    float or ndarray of shape (n_labels,)
        The precision, per label when ``average`` is None.

    Raises
    ------
    AssayError
        As ``precision_recall_fscore_support``.

    See Also
    --------
    precision_recall_fscore_support : Precision, recall and F together.

    Examples
    --------
    >>> from assay.metrics import precision_score
    >>> print(round(precision_score([0, 1, 1, 0, 1], [0, 1, 0, 1, 1]), 4))
    0.6667
    """
    return _single("precision", y_true, y_pred, labels, pos_label, average, sample_weight,
                   zero_division)


def recall_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                 sample_weight=None, zero_division="warn"):
    """Recall ``tp / (tp + fn)``: the fraction of true positives that are found.

    As scikit-learn's ``recall_score``; the rules are those of
    ``precision_recall_fscore_support``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    labels : array-like, default=None
        The labels to score and their order. None: every label present, sorted.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average='binary'``.
    average : {'binary', 'micro', 'macro', 'weighted', 'samples'} or None, default='binary'
        How the per-label values are combined; None returns them all.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    zero_division : {'warn', 0, 1, np.nan}, default='warn'
        Value when a label has no true sample ('warn': 0 with an UndefinedMetricWarning).

    Returns
    -------
    float or ndarray of shape (n_labels,)
        The recall, per label when ``average`` is None.

    Raises
    ------
    AssayError
        As ``precision_recall_fscore_support``.

    See Also
    --------
    precision_recall_fscore_support : Precision, recall and F together.

    Examples
    --------
    >>> from assay.metrics import recall_score
    >>> print(round(recall_score([0, 1, 1, 0, 1], [0, 1, 0, 1, 1]), 4))
    0.6667
    """
    return _single("recall", y_true, y_pred, labels, pos_label, average, sample_weight,
                   zero_division)


def fbeta_score(y_true, y_pred, *, beta, labels=None, pos_label=1, average="binary",
                sample_weight=None, zero_division="warn"):
    """F-beta score: the weighted harmonic mean of precision and recall.

    As scikit-learn's ``fbeta_score``, with the F-beta rule of scikit-learn >= 1.4 (see
    ``precision_recall_fscore_support`` and docs/metrics_classification.md). ``beta`` > 1 favours
    recall, ``beta`` < 1 precision; ``beta = inf`` gives the recall.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    beta : float
        Weight of recall against precision (>= 0); required.
    labels : array-like, default=None
        The labels to score and their order. None: every label present, sorted.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average='binary'``.
    average : {'binary', 'micro', 'macro', 'weighted', 'samples'} or None, default='binary'
        How the per-label values are combined; None returns them all.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    zero_division : {'warn', 0, 1, np.nan}, default='warn'
        Value when ``tp + fp + fn = 0`` ('warn': 0 with an UndefinedMetricWarning).

    Returns
    -------
    float or ndarray of shape (n_labels,)
        The F-beta score, per label when ``average`` is None.

    Raises
    ------
    AssayError
        As ``precision_recall_fscore_support``.

    See Also
    --------
    f1_score : F-beta with beta = 1.

    Examples
    --------
    >>> from assay.metrics import fbeta_score
    >>> print(round(fbeta_score([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], beta=2), 4))
    0.7143
    """
    return _single("f-score", y_true, y_pred, labels, pos_label, average, sample_weight,
                   zero_division, beta=beta)


def f1_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary", sample_weight=None,
             zero_division="warn"):
    """F1 score: the harmonic mean of precision and recall.

    As scikit-learn's ``f1_score``: ``fbeta_score`` with ``beta=1``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    labels : array-like, default=None
        The labels to score and their order. None: every label present, sorted.
    pos_label : int, float, bool or str, default=1
        The class scored when ``average='binary'``.
    average : {'binary', 'micro', 'macro', 'weighted', 'samples'} or None, default='binary'
        How the per-label values are combined; None returns them all.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    zero_division : {'warn', 0, 1, np.nan}, default='warn'
        Value when ``tp + fp + fn = 0`` ('warn': 0 with an UndefinedMetricWarning).

    Returns
    -------
    float or ndarray of shape (n_labels,)
        The F1 score, per label when ``average`` is None.

    Raises
    ------
    AssayError
        As ``precision_recall_fscore_support``.

    See Also
    --------
    fbeta_score : Any weight of recall against precision.

    Examples
    --------
    >>> from assay.metrics import f1_score
    >>> print(round(f1_score([0, 1, 1, 0, 1], [0, 1, 0, 0, 1]), 4))
    0.8
    >>> f1_score([0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1], average=None)
    array([0.8, 0. , 0. ])
    """
    return fbeta_score(y_true, y_pred, beta=1, labels=labels, pos_label=pos_label,
                       average=average, sample_weight=sample_weight, zero_division=zero_division)


def classification_report(y_true, y_pred, *, labels=None, target_names=None, sample_weight=None,
                          digits=2, output_dict=False, zero_division="warn"):
    """Text (or dict) table of precision, recall, F1 and support per label and averaged.

    scikit-learn's ``classification_report``: the same text, or the same dict with
    ``output_dict=True``. 'accuracy' replaces 'micro avg' for binary or multi-class input when all
    present labels are reported; multilabel input adds 'samples avg'.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    labels : array-like of shape (n_labels,), default=None
        The labels to report, in order. None: every label present, sorted.
    target_names : list of str, default=None
        Display names of the labels, in the order of ``labels``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    digits : int, default=2
        Digits after the decimal point in the text (the dict is not rounded).
    output_dict : bool, default=False
        Return a dict ``{row name: {column name: value}}`` instead of text.
    zero_division : {'warn', 0, 1, np.nan}, default='warn'
        As in ``precision_recall_fscore_support``.

    Returns
    -------
    str or dict
        The table as text, or as a dict when ``output_dict`` is True.

    Raises
    ------
    AssayError
        If ``target_names`` does not match the labels found (without explicit ``labels``; with
        them it is an AssayWarning), or as ``precision_recall_fscore_support``.

    See Also
    --------
    precision_recall_fscore_support : The numbers of the table.

    Examples
    --------
    >>> from assay.metrics import classification_report
    >>> print(classification_report([0, 1, 1, 0], [0, 1, 0, 0]))
                  precision    recall  f1-score   support
    <BLANKLINE>
               0       0.67      1.00      0.80         2
               1       1.00      0.50      0.67         2
    <BLANKLINE>
        accuracy                           0.75         4
       macro avg       0.83      0.75      0.73         4
    weighted avg       0.83      0.75      0.73         4
    <BLANKLINE>
    """
    targets = check_targets(y_true, y_pred)
    kind = "multilabel" if targets.kind == MULTILABEL else "labels"
    a, b = y_true, y_pred
    present = present_labels(targets)
    if labels is None:
        labels = present
        labels_given = False
    else:
        labels = np.asarray(labels)
        labels_given = True
    micro_is_accuracy = kind != "multilabel" and (
        not labels_given or set(labels.tolist()) == set(present.tolist()))
    if target_names is not None and len(labels) != len(target_names):
        if labels_given:
            warnings.warn("labels size, {0}, does not match size of target_names, {1}".format(
                len(labels), len(target_names)), AssayWarning, stacklevel=2)
        else:
            raise AssayError("Number of classes, {0}, does not match size of target_names, {1}. "
                             "Try specifying the labels parameter".format(
                                 len(labels), len(target_names)))
    if target_names is None:
        target_names = ["%s" % label for label in labels]
    headers = ["precision", "recall", "f1-score", "support"]
    p, r, f1, s = precision_recall_fscore_support(a, b, labels=labels, average=None,
                                                  sample_weight=sample_weight,
                                                  zero_division=zero_division)
    rows = list(zip(target_names, p, r, f1, s))
    averages = ("micro", "macro", "weighted") + (("samples",) if kind == "multilabel" else ())
    if output_dict:
        report = {row[0]: dict(zip(headers, [v.item() for v in row[1:]])) for row in rows}
    else:
        width = max(max(len(cn) for cn in target_names), len("weighted avg"), digits)
        head_fmt = "{:>{width}s} " + " {:>9}" * len(headers)
        text = head_fmt.format("", *headers, width=width) + "\n\n"
        row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\n"
        for row in rows:
            text += row_fmt.format(*row, width=width, digits=digits)
        text += "\n"
    for average in averages:
        heading = "accuracy" if average == "micro" and micro_is_accuracy else average + " avg"
        ap, ar, af, _ = precision_recall_fscore_support(a, b, labels=labels, average=average,
                                                        sample_weight=sample_weight,
                                                        zero_division=zero_division)
        avg = [np.float64(ap), np.float64(ar), np.float64(af), np.sum(s)]
        if output_dict:
            report[heading] = dict(zip(headers, [v.item() for v in avg]))
        elif heading == "accuracy":
            fmt = "{:>{width}s} " + " {:>9.{digits}}" * 2 + " {:>9.{digits}f}" + " {:>9}\n"
            text += fmt.format(heading, "", "", *avg[2:], width=width, digits=digits)
        else:
            text += row_fmt.format(heading, *avg, width=width, digits=digits)
    if output_dict:
        if "accuracy" in report:
            report["accuracy"] = report["accuracy"]["precision"]
        return report
    return text


def binary_rates(y_true, y_pred, *, pos_label=1, sample_weight=None):
    """Operating point of one class against the rest: counts and every rate derived from them.

    The dict holds ``tp``, ``fp``, ``tn``, ``fn`` (weighted counts) and ``recall``,
    ``precision``, ``specificity``, ``fpr``, ``fnr``, ``fdr``, ``npv``, ``accuracy``, ``f1`` and
    ``mcc``. A ratio with a zero denominator is NaN, with one AssayWarning naming every such ratio.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    pos_label : int, float, bool or str, default=1
        The positive class; every other label is negative.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    dict
        ``{name: float}`` for the four counts and the ten rates above.

    Raises
    ------
    AssayError
        If ``pos_label`` is not a label of ``y_true`` or ``y_pred``, the input is a multilabel
        indicator, or the lengths differ.

    See Also
    --------
    confusion_matrix : All the counts of a multi-class problem.

    Examples
    --------
    >>> from assay.metrics import binary_rates
    >>> rates = binary_rates([0, 1, 1, 0], [0, 1, 0, 0])
    >>> rates["tp"], rates["fn"], rates["recall"], rates["specificity"]
    (1.0, 1.0, 0.5, 1.0)
    """
    targets, w = _label_targets(y_true, y_pred, sample_weight)
    present = encode_labels(targets.y_true, targets.y_pred)[0].tolist()
    if pos_label not in present:  # all counts would be 0 for "positive": a silent wrong answer
        raise AssayError(f"pos_label={pos_label!r} is not a valid label. It should be one of "
                         f"{present}")
    classes, ct, cp = encode_labels(targets.y_true, targets.y_pred, labels=[pos_label])
    positive = int(codes_of(classes, [pos_label])[0])
    return _assay.cls_binary_rates(ct, cp, positive, w)


def predict_labels(y_score, rule="argmax", threshold=0.5):
    """Turn scores into decisions (textbook eqs. 170-171).

    1-D scores (binary) give the boolean array ``score >= threshold``. 2-D scores of shape
    (n, K) give, for ``rule='argmax'``, the column index of the first maximum of each row (like
    ``numpy.argmax``) and, for ``rule='one_vs_all'``, an (n, K) boolean indicator
    ``p_k >= threshold`` (a sample may be positive for several classes or none).

    Parameters
    ----------
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores of the positive class, or one column of scores per class.
    rule : {'argmax', 'one_vs_all'}, default='argmax'
        The decision rule of 2-D scores; ignored for 1-D scores.
    threshold : float, default=0.5
        The score from which a sample is positive (1-D scores and 'one_vs_all').

    Returns
    -------
    ndarray of shape (n_samples,) or (n_samples, n_classes)
        Booleans for 1-D scores and 'one_vs_all'; int64 column indices for 'argmax'.

    Raises
    ------
    AssayError
        If ``y_score`` has more than two dimensions or ``rule`` is unknown.

    See Also
    --------
    roc_curve : The rates of every threshold of 1-D scores.

    Examples
    --------
    >>> from assay.metrics import predict_labels
    >>> predict_labels([0.2, 0.7, 0.5])
    array([False,  True,  True])
    >>> predict_labels([[0.1, 0.9], [0.8, 0.2]])
    array([1, 0])
    """
    s = np.ascontiguousarray(y_score, dtype=np.float64)
    if s.ndim == 1:
        return _assay.cls_threshold(s, float(threshold)).astype(bool)
    if s.ndim != 2:
        raise AssayError(f"y_score must be 1-D or 2-D, found shape {s.shape}")
    if rule == "argmax":
        return _assay.cls_argmax(s).astype(np.int64)
    if rule == "one_vs_all":
        return _assay.cls_one_vs_all(s, float(threshold)).astype(bool)
    raise AssayError(f"rule must be 'argmax' or 'one_vs_all', found {rule!r}")


# ----------------------------------------------------------------------------- calibration

def _positive_code(a, pos_label, strict=False):
    """scikit-learn's pos_label rule for binary probability metrics: given, else 1 for labels in
    {0,1}/{-1,1}, else the greater of two numeric labels; strings need pos_label. Returns the
    codes of y_true and the code of the positive class (-1 if it does not occur). strict: a
    pos_label that is neither of two classes is an error (scikit-learn's rule for precision)."""
    classes, ct, _ = encode_labels(a)
    if len(classes) > 2:
        raise AssayError("Only binary classification is supported. The type of the target is "
                         "multiclass.")
    if pos_label is None:
        values = classes.tolist()
        if is_text(classes):
            raise AssayError(f"y_true takes value in {{{', '.join(repr(c) for c in classes)}"
                             "} and pos_label is not specified: either make y_true take value in "
                             "{0, 1} or {-1, 1} or pass pos_label explicitly.")
        if set(values) <= {0, 1} or set(values) <= {-1, 1}:
            pos_label = 1
        elif values:
            pos_label = values[-1]
    found = [i for i, c in enumerate(classes.tolist()) if c == pos_label]
    if strict and len(classes) == 2 and not found:
        raise AssayError(f"pos_label={pos_label!r} is not a valid label. It should be one of "
                         f"{classes.tolist()}")
    return ct, (found[0] if found else -1)


def _calibration_options(multiclass, bins, strategy, norm):
    """(multiclass, bins, strategy, norm) checked for their types; the library checks values."""
    return (check_text(multiclass, "multiclass"), check_integer(bins, "bins", -2**31, 2**31 - 1),
            check_text(strategy, "strategy"), check_text(norm, "norm"))


def calibration_error(y_true, y_prob, *, bins=15, strategy="uniform", norm="l1",
                      multiclass="top_label", sample_weight=None, pos_label=None, labels=None):
    """Expected (L1), RMS (L2) or maximum calibration error, with its reliability table.

    With 1-D ``y_prob`` the problem is binary and ``y_prob`` is the probability of ``pos_label``
    (default: the greater label). With 2-D ``y_prob`` of shape (n, K), column k is the probability
    of the k-th class (``labels``; default 0..K-1 when ``y_true`` holds integers in that range,
    else the sorted classes of ``y_true``); ``multiclass='top_label'`` bins the top probability
    against ``[argmax == y_true]``, ``'classwise'`` bins every column against ``[y_true == k]``
    and averages the K errors.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_prob : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    bins : int, default=15
        Number of bins.
    strategy : {'uniform', 'quantile'}, default='uniform'
        Bins of equal width, or of (about) equal counts.
    norm : {'l1', 'l2', 'max'}, default='l1'
        Expected calibration error ('l1'), its root-mean-square form ('l2') or the largest gap
        of any bin ('max').
    multiclass : {'top_label', 'classwise'}, default='top_label'
        How 2-D probabilities are binned (see above).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    pos_label : int, float, bool or str, default=None
        The positive class of 1-D ``y_prob``. None: the greater label.
    labels : array-like of shape (n_classes,), default=None
        The class of each column of 2-D ``y_prob``.

    Returns
    -------
    dict
        ``{"error": float, "bins": {"lower", "upper", "count", "accuracy", "confidence"}}``, the
        bins arrays of length ``bins`` (empty bins have count 0 and NaN means).
        ``'classwise'`` adds ``"class_errors"`` of shape (K,) and the bins arrays are (K, bins).

    Raises
    ------
    AssayError
        If ``y_prob`` has more than two dimensions, its columns do not match the classes, a label
        of ``y_true`` is not among ``labels``, ``pos_label`` is not a class, an option is unknown,
        or the lengths differ.

    See Also
    --------
    brier_score_loss : A proper scoring rule of the same probabilities.

    Examples
    --------
    >>> from assay.metrics import calibration_error
    >>> result = calibration_error([0, 1, 1, 0], [0.2, 0.9, 0.6, 0.4], bins=2)
    >>> print(round(result["error"], 4))
    0.275
    >>> result["bins"]["confidence"]
    array([0.3 , 0.75])
    """
    a = _as_labels(y_true, "y_true")
    p = np.ascontiguousarray(y_prob, dtype=np.float64)
    check_consistent_length(a, p, sample_weight)
    w = check_sample_weight(sample_weight, len(a))
    if p.ndim == 1:
        ct, positive = _positive_code(a, pos_label, strict=True)
        return _assay.cls_calibration_error(ct, p, positive, *_calibration_options(
            multiclass, bins, strategy, norm), w)
    if p.ndim != 2:
        raise AssayError(f"y_prob must be 1-D or 2-D, found shape {p.shape}")
    k = p.shape[1]
    if labels is None and a.dtype.kind in "biuf" and (len(a) == 0 or (a.min() >= 0 and
                                                                      a.max() < k)):
        labels = np.arange(k)
    if labels is None:
        labels = np.unique(a)
    listed = np.asarray(labels)
    if len(listed) != k:
        raise AssayError(f"y_prob has {k} columns but there are {len(listed)} classes; pass "
                         "labels naming the class of each column")
    classes, ct, _ = encode_labels(a, None, labels=listed)
    position = np.full(len(classes), -1, dtype=np.int32)
    position[codes_of(classes, listed)] = np.arange(k, dtype=np.int32)
    ct = position[ct]
    if (ct < 0).any():
        bad = a[np.flatnonzero(ct < 0)[0]]
        raise AssayError(f"y_true contains the label {bad!r}, which is not among the labels")
    out = _assay.cls_calibration_error(ct, p, 0, *_calibration_options(multiclass, bins, strategy,
                                                                        norm), w)
    if isinstance(out, dict):
        return out
    errors = np.array([o["error"] for o in out])
    return {"error": float(errors.mean()), "class_errors": errors,
            "bins": {key: np.stack([o["bins"][key] for o in out]) for key in out[0]["bins"]}}


def brier_score_loss(y_true, y_proba, *, sample_weight=None, pos_label=None, labels=None,
                     scale_by_half="auto"):
    """Brier score: the mean squared difference between the probability and the outcome.

    As scikit-learn's ``brier_score_loss`` of release 1.7 and later (arguments ``y_proba``,
    ``labels``, ``scale_by_half``). A 1-D ``y_proba`` is the probability of the positive class:
    the positive class is ``pos_label`` when given, else 1 for labels in {0, 1} or {-1, 1}, else
    the greater of two numeric labels; string labels need ``pos_label``. A 2-D ``y_proba`` scores
    every class, its columns being the sorted labels (or ``labels``): the mean over samples of
    the summed squared differences to the one-hot outcome.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (binary for a 1-D ``y_proba``).
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probability of the positive class, or of every class, in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    pos_label : int, float, bool or str, default=None
        The positive class of a 1-D ``y_proba`` (see above).
    labels : array-like of shape (n_classes,), default=None
        The classes of the columns of a 2-D ``y_proba``. None: the classes of ``y_true``.
    scale_by_half : bool or 'auto', default='auto'
        Halve the summed squared differences: 'auto' halves for two classes (the binary score,
        between 0 and 1) and not for more (between 0 and 2).

    Returns
    -------
    float
        The Brier score; 0 is perfect.

    Raises
    ------
    AssayError
        If a 1-D ``y_proba`` comes with labels that are not binary, ``y_true`` is empty,
        ``y_proba`` leaves [0, 1], string labels come without ``pos_label``, the classes do not
        match the columns, ``scale_by_half`` is neither a bool nor 'auto', or the lengths differ.

    See Also
    --------
    log_loss : The logarithmic scoring rule.
    d2_brier_score : The Brier score relative to predicting the class frequencies.

    Examples
    --------
    >>> from assay.metrics import brier_score_loss
    >>> print(round(brier_score_loss([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]), 4))
    0.0375
    >>> print(round(brier_score_loss([0, 1, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1],
    ...                                          [0.1, 0.2, 0.7]]), 4))
    0.1133
    """
    scale = _check_scale_by_half(scale_by_half)
    if np.ndim(y_proba) == 2 and np.shape(y_proba)[1] > 1:
        return _multiclass_brier(y_true, y_proba, sample_weight, labels, scale)
    a = column_or_1d(y_true, "y_true")
    p = column_or_1d(y_proba, "y_proba")
    if a.dtype.kind == "f":
        check_finite(a, "")
    p = float_array(p, "", min_samples=0)
    check_consistent_length(a, p, sample_weight)
    kind, a = target_kind(a, "y_true")
    name = type_name(kind, a)
    if name != "binary":
        raise AssayError(f"The type of the target inferred from y_true is {name} but should be "
                         "binary according to the shape of y_prob.")
    if len(a) == 0:
        raise AssayError("y_true is empty: need at least one sample")
    if p.max() > 1:
        raise AssayError(f"y_prob contains values greater than 1: {p.max()}")
    if p.min() < 0:
        raise AssayError(f"y_prob contains values less than 0: {p.min()}")
    w = check_sample_weight(sample_weight, len(a))
    ct, positive = _positive_code(a, pos_label)
    loss = np.float64(_assay.cls_brier_score_loss(ct, positive, p, w))
    # The binary loss is half the sum over the two classes' columns.
    return loss if scale is not False else np.float64(2 * loss)


def _check_scale_by_half(scale_by_half):
    if isinstance(scale_by_half, str) and scale_by_half == "auto":
        return "auto"
    if isinstance(scale_by_half, (bool, np.bool_)):
        return bool(scale_by_half)
    raise AssayError("The 'scale_by_half' parameter of brier_score_loss must be a bool or "
                     f"'auto'. Got {scale_by_half!r} instead.")


def _class_matrix(y_true, y_proba, sample_weight, labels, what):
    """Checked (one-hot y_true, float64 y_proba, weights) of a probability metric with a 2-D
    y_proba whose columns are the sorted `labels` (default: the classes of y_true; a 0/1
    indicator y_true is its own one-hot); values in [0, 1], rows that do not sum to one (within
    sqrt(eps)) warned about. scikit-learn >= 1.7's checks and messages."""
    p = float_array(y_proba, "y_proba", min_samples=1)
    _check_probability_range(p)
    check_consistent_length(y_true, p, sample_weight)
    w = check_sample_weight(sample_weight, p.shape[0])
    onehot, classes = _one_hot(y_true, labels)
    _check_rows_sum_to_one(p)
    if len(classes) != p.shape[1]:
        if labels is None:
            raise AssayError("y_true and y_prob contain different number of classes: "
                             f"{len(classes)} vs {p.shape[1]}. Please provide the true labels "
                             "explicitly through the labels argument. Classes found in y_true: "
                             f"{classes}")
        raise AssayError("The number of classes in labels is different from that in y_prob. "
                         f"Classes found in labels: {classes}")
    return onehot, p, w


def _one_hot(y_true, labels):
    """(one-hot matrix, sorted classes) of y_true as scikit-learn's LabelBinarizer encodes it
    for the probability metrics, with scikit-learn's checks of `labels`."""
    kind, a = target_kind(y_true, "y_true")
    if kind == MULTILABEL:
        onehot = np.asarray(indicator(a), dtype=np.float64)
        return onehot, np.arange(onehot.shape[1])
    if kind != LABELS:
        if kind.endswith("multioutput"):
            raise AssayError("Multioutput target data is not supported with label binarization")
        raise AssayError(f"Unknown label type: {type_name(kind, a)}")
    a = column_or_1d(a, "y_true")
    if labels is None:
        classes = encode_labels(a)[0]
    else:
        classes = encode_labels(np.asarray(labels))[0]
        if not np.array_equal(classes, np.asarray(labels)):
            warnings.warn(f"Labels passed were {labels}. But this function assumes labels are "
                          "ordered lexicographically. Pass the ordered labels="
                          f"{classes.tolist()} and ensure that the columns of y_prob correspond "
                          "to this ordering.", AssayWarning, stacklevel=4)
        undeclared = set(a.tolist()) - set(classes.tolist())
        if undeclared:
            raise AssayError(f"y_true contains values {undeclared} not belonging to the passed "
                             f"labels {labels}.")
    if len(classes) == 1:
        if labels is None:
            raise AssayError(f"y_true contains only one label ({classes[0]}). Please provide the "
                             "list of all expected class labels explicitly through the labels "
                             "argument.")
        raise AssayError("The labels array needs to contain at least two labels, got "
                         f"{classes}.")
    return (a[:, None] == classes[None, :]).astype(np.float64), classes


def _check_rows_sum_to_one(p):
    """True when every row of p sums to one within scikit-learn's sqrt(eps) tolerance; else
    False with scikit-learn's (>= 1.5) UserWarning. The rows are not renormalised."""
    tolerance = np.sqrt(np.finfo(p.dtype).eps)
    if np.allclose(p.sum(axis=1), 1.0, rtol=tolerance):
        return True
    warnings.warn("The y_prob values do not sum to one. Make sure to pass probabilities.",
                  AssayWarning, stacklevel=3)
    return False


def _check_probability_range(p):
    """scikit-learn >= 1.7's range check of probabilities (log_loss clipped them before)."""
    if p.size and p.max() > 1:
        raise AssayError(f"y_prob contains values greater than 1: {p.max()}")
    if p.size and p.min() < 0:
        raise AssayError(f"y_prob contains values lower than 0: {p.min()}")


def _unnormalised_log_loss(ct, p, eps, normalize, w):
    """Log loss of rows that do not sum to one, as scikit-learn >= 1.5 computes it: clipped to
    [eps, 1 - eps], not renormalised; a y_true outside the labels (code -1) contributes 0."""
    rows = np.arange(len(ct))
    picked = np.clip(p[rows, np.maximum(ct, 0)], eps, 1 - eps)
    losses = np.where(ct >= 0, -np.log(picked), 0.0)
    if not normalize:
        return np.float64(losses.sum() if w is None else np.dot(losses, w))
    return np.float64(np.average(losses, weights=w))


def _multiclass_brier(y_true, y_proba, sample_weight, labels, scale):
    onehot, p, w = _class_matrix(y_true, y_proba, sample_weight, labels, "brier_score_loss")
    per_sample = ((p - onehot) ** 2).sum(axis=1)
    loss = np.average(per_sample, weights=w)
    if scale is True or (scale == "auto" and p.shape[1] == 2):
        loss = loss / 2
    return np.float64(loss)


def log_loss(y_true, y_proba=None, *, normalize=True, sample_weight=None, labels=None,
             y_pred="deprecated"):
    """Logarithmic loss (cross-entropy) of predicted probabilities.

    As scikit-learn's ``log_loss`` of release 1.9: probabilities are clipped to
    [eps, 1 - eps] with eps the machine epsilon of their dtype (the ``eps`` argument was removed
    in 1.5) and must lie in [0, 1]; rows of a 2-D ``y_proba`` that do not sum to one warn
    (UserWarning) and are not renormalised. The loss is the mean of ``-log p[y]``. A 1-D
    ``y_proba`` is the probability of the positive class. A ``y_true`` value that is not among
    ``labels`` raises, and ``labels`` out of sorted order warn (scikit-learn 1.7 and later); a
    multilabel indicator ``y_true`` scores each row against its renormalised probabilities.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        True labels, or a multilabel indicator matrix.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities, one column per class in sorted order (or in ``labels`` order).
    normalize : bool, default=True
        True: the mean loss per sample; False: the sum.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    labels : array-like, default=None
        The classes of the columns of ``y_proba``. None: the classes of ``y_true``.
    y_pred : array-like, default='deprecated'
        The older name of ``y_proba`` (scikit-learn before 1.9); passing it warns with a
        FutureWarning.

    Returns
    -------
    float
        The log loss (natural logarithm).

    Raises
    ------
    AssayError
        If ``y_true`` holds a single class without ``labels``, the number of classes differs from
        the columns of ``y_proba``, ``labels`` has fewer than two classes or lacks a class of
        ``y_true``, a probability leaves [0, 1], the target is continuous or multi-output, or the
        lengths differ.

    See Also
    --------
    brier_score_loss : The quadratic scoring rule.
    d2_log_loss_score : The log loss relative to predicting the class frequencies.

    Examples
    --------
    >>> from assay.metrics import log_loss
    >>> print(round(log_loss([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]), 4))
    0.1976
    >>> print(round(log_loss([0, 1, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7]]), 4))
    0.3122
    """
    y_proba = _renamed_proba(y_proba, y_pred, "log_loss")
    raw = as_array(y_proba)
    if raw.dtype.kind not in "f" or raw.dtype.itemsize > 8:
        raw = float_array(raw, "", min_samples=0)
    eps = float(np.finfo(raw.dtype).eps)
    p = float_array(raw, "", min_samples=1)
    check_consistent_length(p, y_true, sample_weight)
    kind, a = target_kind(y_true, "y")
    if kind not in (LABELS, MULTILABEL):
        if kind.endswith("multioutput"):
            raise AssayError("Multioutput target data is not supported with label binarization")
        raise AssayError(f"Unknown label type: {kind}")
    w = check_sample_weight(sample_weight, len(p))
    if kind == MULTILABEL:
        a = indicator(a)
        if a.shape[1] < 2 and labels is None:
            raise AssayError(f"y_true contains only one label ({a.shape[1]}). Please provide "
                             "the true labels explicitly through the labels argument.")
        if p.ndim != 2 or p.shape[1] != a.shape[1]:
            raise AssayError("y_true and y_pred contain different number of classes {0}, {1}. "
                             "Please provide the true labels explicitly through the labels "
                             "argument.".format(a.shape[1], p.shape[1] if p.ndim == 2 else 2))
        return np.float64(_assay.lm_log_loss_indicator(a, p, float(eps), bool(normalize), w))
    listed = np.unique(np.asarray(labels)) if labels is not None else None
    if listed is None:
        classes, ct, _ = encode_labels(a)
        if len(classes) == 1:
            raise AssayError(f"y_true contains only one label ({classes[0]}). Please provide the "
                             "list of all expected class labels explicitly through the labels "
                             "argument.")
    else:
        if len(listed) < 2:
            raise AssayError("The labels array needs to contain at least two labels, got "
                             f"{listed}.")
        _one_hot(a, labels)  # scikit-learn >= 1.7: unsorted labels warn, unknown y_true raise
        classes, ct, _ = encode_labels(a, None, labels=listed)
        position = np.full(len(classes), -1, dtype=np.int32)
        position[codes_of(classes, listed)] = np.arange(len(listed), dtype=np.int32)
        ct = position[ct]
        classes = listed
    columns = 2 if p.ndim == 1 or p.shape[1] == 1 else p.shape[1]
    _check_probability_range(p)
    rows_sum_to_one = p.ndim == 1 or p.shape[1] == 1 or _check_rows_sum_to_one(p)
    if len(classes) != columns:
        if labels is None:
            raise AssayError("y_true and y_pred contain different number of classes {0}, {1}. "
                             "Please provide the true labels explicitly through the labels "
                             "argument. Classes found in y_true: {2}".format(
                                 len(classes), columns, classes))
        raise AssayError("The number of classes in labels is different from that in y_pred. "
                         "Classes found in labels: {0}".format(classes))
    if p.ndim == 2 and p.shape[1] == 1:
        p = np.ascontiguousarray(p[:, 0])
    if not rows_sum_to_one:
        return _unnormalised_log_loss(ct, p, eps, normalize, w)
    return np.float64(_assay.cls_log_loss(ct, len(classes), p, float(eps), bool(normalize), w))


def _renamed_proba(y_proba, y_pred, function):
    """scikit-learn 1.9 renamed the probabilities argument y_pred to y_proba: the old keyword
    still works with a FutureWarning."""
    if isinstance(y_pred, str) and y_pred == "deprecated":
        if y_proba is None:
            raise TypeError(f"{function}() missing required argument: 'y_proba'")
        return y_proba
    if y_proba is not None:
        raise AssayError("Cannot use both `y_pred` and `y_proba`. `y_pred` is deprecated; use "
                         "`y_proba` only.")
    warnings.warn(f"`y_pred` was renamed `y_proba` in {function} (scikit-learn 1.9); `y_pred` "
                  "will be removed.", FutureWarning, stacklevel=3)
    return y_pred


def _fewer_than_two_samples(y_true):
    if num_samples(y_true) < 2:
        warnings.warn("D^2 score is not well-defined with less than two samples.",
                      UndefinedMetricWarning, stacklevel=3)
        return True
    return False


def _class_proportions(y_true, sample_weight, classes):
    """Weighted share of each of `classes` in y_true (the null model's probabilities)."""
    a = _as_labels(y_true, "y_true")
    w = np.ones(len(a)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return np.array([w[a == c].sum() for c in classes.tolist()]) / w.sum()


def d2_log_loss_score(y_true, y_proba=None, *, sample_weight=None, labels=None,
                      y_pred="deprecated"):
    """D² score of the log loss: the fraction of log loss explained (scikit-learn >= 1.5).

    ``1 - log_loss(y_true, y_proba) / log_loss(y_true, null)``, where the null model predicts
    for every sample the (weighted) share of each class in y_true. 1 is perfect, 0 is no better
    than the null model, and the score can be arbitrarily negative.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities: of the greater class when 1-D, else one column per class in
        the sorted order of `labels` (rows summing to one).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    labels : array-like, default=None
        The classes (default: those of y_true). Needed when y_true lacks a class of y_proba.
    y_pred : array-like, default="deprecated"
        Former name of y_proba (scikit-learn 1.9 renamed it); passing it warns with a
        FutureWarning.

    Returns
    -------
    float
        The score; NaN with an UndefinedMetricWarning for fewer than two samples.

    Raises
    ------
    ValueError
        The checks of log_loss (class counts, probabilities that do not sum to one).

    Examples
    --------
    >>> from assay.metrics import d2_log_loss_score
    >>> round(float(d2_log_loss_score([0, 1, 1, 0], [[0.8, 0.2], [0.3, 0.7], [0.1, 0.9],
    ...                                               [0.6, 0.4]])), 6)
    0.568633
    """
    y_proba = _renamed_proba(y_proba, y_pred, "d2_log_loss_score")
    if _fewer_than_two_samples(y_true):
        return np.float64(np.nan)
    numerator = log_loss(y_true, y_proba, normalize=False, sample_weight=sample_weight,
                         labels=labels)
    onehot, classes = _one_hot(y_true, labels)
    null = np.tile(np.average(onehot, axis=0, weights=sample_weight), (len(onehot), 1))
    denominator = log_loss(y_true, null, normalize=False, sample_weight=sample_weight,
                           labels=None if np.ndim(y_true) == 2 else classes)
    return np.float64(1 - numerator / denominator)


def d2_brier_score(y_true, y_proba, *, sample_weight=None, pos_label=None, labels=None):
    """D² score of the Brier score: the fraction of Brier score explained (scikit-learn >= 1.7).

    ``1 - brier_score_loss(y_true, y_proba) / brier_score_loss(y_true, null)``, where the null
    model predicts the (weighted) share of each class in y_true for every sample (1-D y_proba:
    the share of pos_label).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probability of pos_label when 1-D; else one column per class of `labels`, sorted.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    pos_label : int, float, bool or str, default=None
        Positive class of a 1-D y_proba, inferred as in brier_score_loss.
    labels : array-like, default=None
        The classes of a 2-D y_proba (default: those of y_true).

    Returns
    -------
    float
        The score; NaN with an UndefinedMetricWarning for fewer than two samples (and for a
        y_true with one class, where the null model is perfect).

    Raises
    ------
    ValueError
        The checks of brier_score_loss.

    Examples
    --------
    >>> from assay.metrics import d2_brier_score
    >>> round(float(d2_brier_score([0, 1, 1, 0], [0.2, 0.7, 0.9, 0.4])), 6)
    0.7
    """
    if _fewer_than_two_samples(y_true):
        return np.float64(np.nan)
    numerator = brier_score_loss(y_true, y_proba, sample_weight=sample_weight,
                                 pos_label=pos_label, labels=labels)
    if np.ndim(y_proba) == 2 and np.shape(y_proba)[1] > 1:
        onehot, _ = _one_hot(y_true, labels)
        null = np.average(onehot, axis=0, weights=sample_weight)
        denominator = np.average(((onehot - null) ** 2).sum(axis=1), weights=sample_weight)
        numerator = np.average(((onehot - np.asarray(y_proba, dtype=np.float64)) ** 2
                                ).sum(axis=1), weights=sample_weight)
    else:
        a = _as_labels(y_true, "y_true")
        ct, positive = _positive_code(a, pos_label)
        share = _class_proportions(ct, sample_weight, np.array([positive]))[0]
        denominator = brier_score_loss(ct == positive, np.full(len(a), share),
                                       sample_weight=sample_weight, pos_label=True)
    if denominator == 0:
        warnings.warn("D^2 score is not well-defined when the null model is perfect (one class "
                      "in y_true).", UndefinedMetricWarning, stacklevel=2)
        return np.float64(np.nan)
    return np.float64(1 - numerator / denominator)
