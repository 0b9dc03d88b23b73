"""The rest of scikit-learn 1.2.1's label metrics: per-label confusion matrices, Jaccard,
Hamming and zero-one losses, Cohen's kappa, likelihood ratios and the hinge loss. Thin wrappers
(checks and conversions here, numbers in src/metrics/classification_losses.cpp)."""
import numbers
import warnings

import numpy as np

from . import _assay
from ._assay import AssayError, AssayWarning, UndefinedMetricWarning
from ._classification import accuracy_score, confusion_matrix, float_counts
from ._labels import (agreement, check_average, codes_of, encode_labels, multilabel_columns,
                      selected_codes, set_wise_labels, zero_division_name)
from ._validation import (LABELS, MULTILABEL, as_array, check_consistent_length,
                          check_sample_weight,
                          check_targets, column_or_1d, float_array, integral_weights,
                          num_samples, target_kind)

__all__ = [
    "multilabel_confusion_matrix",
    "jaccard_score",
    "hamming_loss",
    "zero_one_loss",
    "cohen_kappa_score",
    "class_likelihood_ratios",
    "hinge_loss",
]


def _total_weight(w, n):
    return float(n) if w is None else float(np.sum(w))


def _as_counts(mcm, sample_weight):
    return mcm.astype(np.int64) if sample_weight is None else mcm


def multilabel_confusion_matrix(y_true, y_pred, *, sample_weight=None, labels=None,
                                samplewise=False):
    """Compute one 2 x 2 confusion matrix ``[[tn, fp], [fn, tp]]`` per label (or per sample).

    As scikit-learn's ``multilabel_confusion_matrix``: multi-class labels are scored one against
    the rest; with ``samplewise=True`` (multilabel input only) there is one matrix per sample.
    Counts are int64 without weights, except that, as in scikit-learn 1.2, 1-D labels with no
    sample predicted right give float64.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    labels : array-like, default=None
        The labels (column indices for multilabel input) to report, in order. None: all, sorted.
    samplewise : bool, default=False
        One matrix per sample instead of per label (multilabel input only).

    Returns
    -------
    ndarray of shape (n_labels, 2, 2) or (n_samples, 2, 2)
        The matrices, ``[[tn, fp], [fn, tp]]`` each.

    Raises
    ------
    AssayError
        If ``samplewise`` is asked of non-multilabel input, multilabel input has no sample, or
        the lengths differ.

    See Also
    --------
    confusion_matrix : One K x K matrix for multi-class labels.

    Examples
    --------
    >>> from assay.metrics import multilabel_confusion_matrix
    >>> multilabel_confusion_matrix([0, 1, 1, 0], [0, 1, 0, 0])
    array([[[1, 1],
            [0, 2]],
    <BLANKLINE>
           [[2, 0],
            [1, 1]]])
    """
    targets = check_targets(y_true, y_pred, sample_weight)
    w = check_sample_weight(sample_weight, len(targets.y_true))  # 1-D (scikit-learn >= 1.6)
    if targets.kind == LABELS:
        if samplewise:
            raise AssayError("Samplewise metrics are not available outside of multilabel "
                             "classification.")
        classes, ct, cp, select = selected_codes(targets, labels)
        mcm = _assay.lm_multiclass_confusion_2x2(ct, cp, len(classes), select, w,
                                                 _total_weight(w, len(ct)))
        return mcm if float_counts(targets) else _as_counts(mcm, sample_weight)
    a, b = multilabel_columns(targets, labels)
    if a.shape[0] == 0:
        shape = np.shape(targets.y_true)
        raise AssayError(f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is "
                         "required.")
    mcm = _assay.lm_multilabel_confusion_2x2(a, b, w, bool(samplewise),
                                             _total_weight(w, a.shape[0]))
    if samplewise and integral_weights(sample_weight):
        return mcm.astype(np.int64)  # scikit-learn: per-row counts times integer weights
    return _as_counts(mcm, sample_weight)


def jaccard_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                  sample_weight=None, zero_division="warn"):
    """Jaccard index ``tp / (tp + fp + fn)`` per label, or averaged.

    As scikit-learn's ``jaccard_score``: the per-label values are averaged like ``f1_score``'s
    ('weighted' with zero total support gives the plain mean, as scikit-learn 1.2.1), and
    ``zero_division`` works as for precision and recall.

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
        The Jaccard index, per label when ``average`` is None.

    Raises
    ------
    AssayError
        If ``average`` or ``zero_division`` is not an option, ``pos_label`` is not a label of
        binary input, 'samples' is asked of non-multilabel input, or the lengths differ.

    See Also
    --------
    f1_score : The F1 score, ``2 J / (1 + J)`` of the same counts.

    Examples
    --------
    >>> from assay.metrics import jaccard_score
    >>> print(round(jaccard_score([0, 1, 1, 0, 1], [0, 1, 0, 1, 1]), 4))
    0.5
    >>> jaccard_score([[1, 0], [0, 1], [1, 1]], [[1, 0], [1, 1], [0, 1]], average=None)
    array([0.33333333, 1.        ])
    """
    zd = zero_division_name(zero_division)
    check_average(average)
    targets = check_targets(y_true, y_pred, sample_weight)
    w = check_sample_weight(sample_weight, len(targets.y_true))
    avg_name = "none" if average is None else average
    if targets.kind == MULTILABEL:
        labels = set_wise_labels(targets, None, average, labels, pos_label)
        a, b = multilabel_columns(targets, labels)
        score = _assay.lm_jaccard_multilabel(a, b, w, avg_name, zd)
    else:
        classes = encode_labels(targets.y_true, targets.y_pred)[0]
        labels = set_wise_labels(targets, classes, average, labels, pos_label)
        if average == "samples":
            raise AssayError("Samplewise metrics are not available outside of multilabel "
                             "classification.")
        classes, ct, cp, select = selected_codes(targets, labels)
        score = _assay.lm_jaccard_multiclass(ct, cp, len(classes), select, w, avg_name, zd)
    return score if average is None else np.float64(score[0])


def hamming_loss(y_true, y_pred, *, sample_weight=None):
    """Hamming loss: the (weighted) fraction of wrong labels.

    As scikit-learn's ``hamming_loss``; for multilabel input, the fraction of wrong entries of the
    indicator matrix.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float
        Between 0 (all right) and 1; NaN for zero samples.

    Raises
    ------
    AssayError
        If the lengths differ.
    ZeroDivisionError
        If the weights of numeric 1-D labels sum to zero (other 1-D labels raise an AssayError
        with the same message; multilabel input gives NaN).

    See Also
    --------
    zero_one_loss : The fraction of samples with any wrong label.

    Examples
    --------
    >>> from assay.metrics import hamming_loss
    >>> print(round(hamming_loss([0, 1, 2, 1], [0, 2, 2, 1]), 4))
    0.25
    """
    targets = check_targets(y_true, y_pred, sample_weight)
    w = check_sample_weight(sample_weight, len(targets.y_true))
    if targets.kind == MULTILABEL:
        return np.float64(_assay.lm_hamming_multilabel(targets.y_true, targets.y_pred, w))
    if len(targets.y_true) == 0:
        return np.float64(np.nan)
    counts = agreement(targets.y_true, targets.y_pred, w)
    if counts is not None:
        _, total, _, mismatch = counts
        if total == 0:
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        return np.float64(mismatch)
    _, ct, cp = encode_labels(targets.y_true, targets.y_pred)
    return np.float64(_assay.lm_mismatch_rate(ct, cp, w))


def zero_one_loss(y_true, y_pred, *, normalize=True, sample_weight=None):
    """Zero-one loss: one minus the accuracy.

    As scikit-learn's ``zero_one_loss``: ``1 - accuracy_score`` (for multilabel input, of the
    subset accuracy); ``normalize=False`` gives the (weighted) number of misclassified samples.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_labels)
        True labels, or a multilabel indicator matrix.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_labels)
        Predicted labels, in the form of ``y_true``.
    normalize : bool, default=True
        True: the fraction misclassified; False: the (weighted) number.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float or int
        The loss; an int count for ``normalize=False`` without weights.

    Raises
    ------
    AssayError
        If the lengths differ, or as ``accuracy_score``.
    ZeroDivisionError
        As ``accuracy_score``, when the weights sum to zero.

    See Also
    --------
    accuracy_score : The complement.
    hamming_loss : The fraction of wrong labels.

    Examples
    --------
    >>> from assay.metrics import zero_one_loss
    >>> print(round(zero_one_loss([0, 1, 2, 1], [0, 2, 2, 1]), 4))
    0.25
    >>> zero_one_loss([0, 1, 2, 1], [0, 2, 2, 1], normalize=False)
    1
    """
    score = accuracy_score(y_true, y_pred, normalize=normalize, sample_weight=sample_weight)
    if normalize:
        return 1 - score
    if sample_weight is not None:
        # The total weight summed as accuracy sums the correct rows' (compensated), so with every
        # row right the difference is exactly 0: np.sum's rounding differs and left ~1e-16 of the
        # total (1.2e285 of 7.6e300).
        total = accuracy_score(y_true, y_true, normalize=False, sample_weight=sample_weight)
        zero = np.sum(np.asarray(sample_weight)[:0])  # np.sum's type, as scikit-learn returns
        return (zero + total) - score
    return num_samples(y_true) - score


def _ratio_weights(sample_weight):
    """Float weights near 1e308 or 1e-310 rescaled exactly by a power of two (the library's rule)
    for the functions that take ratios of a confusion matrix, whose cells would overflow or
    lose digits; anything else unchanged (confusion_matrix checks it)."""
    if sample_weight is None or isinstance(sample_weight, (int, float)):
        return sample_weight
    w = np.asarray(sample_weight)
    if w.dtype.kind != "f" or w.ndim != 1:
        return sample_weight
    return _assay._scaled_weights(np.ascontiguousarray(w, dtype=np.float64))


def cohen_kappa_score(y1, y2, *, labels=None, weights=None, sample_weight=None,
                      replace_undefined_by=np.nan):
    """Compute Cohen's kappa: the agreement of two annotators beyond chance.

    As scikit-learn's ``cohen_kappa_score``: ``(p_o - p_e) / (1 - p_e)`` from the confusion
    matrix of the two annotators, where ``p_o`` is the observed and ``p_e`` the chance agreement;
    ``weights`` counts disagreements by their distance. With no expected disagreement the score is
    ``replace_undefined_by`` (default NaN) with an UndefinedMetricWarning.

    Parameters
    ----------
    y1 : array-like of shape (n_samples,)
        Labels of the first annotator.
    y2 : array-like of shape (n_samples,)
        Labels of the second annotator.
    labels : array-like of shape (n_classes,), default=None
        The classes of the confusion matrix. None: those present, sorted.
    weights : {'linear', 'quadratic'}, default=None
        Disagreement weights: None counts every disagreement as 1, 'linear' as ``|i - j|``,
        'quadratic' as ``(i - j)^2``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    replace_undefined_by : float, default=np.nan
        The value returned, with an UndefinedMetricWarning, when kappa is undefined (the
        expected disagreement is 0); scikit-learn 1.9's argument.

    Returns
    -------
    float
        Kappa, at most 1 (1: full agreement, 0: chance level).

    Raises
    ------
    AssayError
        If ``weights`` is unknown, ``replace_undefined_by`` is not a real number, no label of
        ``labels`` is in ``y1``, or as ``confusion_matrix``.

    See Also
    --------
    confusion_matrix : The matrix kappa is computed from.

    Examples
    --------
    >>> from assay.metrics import cohen_kappa_score
    >>> print(round(cohen_kappa_score([0, 1, 1, 0, 2], [0, 1, 0, 0, 2]), 4))
    0.6875
    """
    if not isinstance(replace_undefined_by, numbers.Real) or \
            isinstance(replace_undefined_by, bool):
        raise AssayError("replace_undefined_by must be a real number or np.nan, got "
                         f"{replace_undefined_by!r}")
    if labels is not None and not np.isin(as_array(y1), np.asarray(labels)).any():
        raise AssayError("At least one label in `labels` must be present in `y1`")
    kappa = _cohen_kappa(y1, y2, labels, weights, sample_weight)
    return np.float64(replace_undefined_by) if np.isnan(kappa) else kappa


def _cohen_kappa(y1, y2, labels, weights, sample_weight):
    if weights is not None and weights not in ("linear", "quadratic"):
        raise AssayError("Unknown kappa weighting type.")
    confusion = confusion_matrix(y1, y2, labels=labels,
                                 sample_weight=_ratio_weights(sample_weight))
    return np.float64(_assay.lm_cohen_kappa(np.ascontiguousarray(confusion, dtype=np.float64),
                                            "none" if weights is None else weights))


_REPLACE_FORM = ("The dictionary passed as `replace_undefined_by` needs to be in the form "
                 "`{'LR+': `value_1`, 'LR-': `value_2`}` where the value for `LR+` ranges from "
                 "`1.0` to `np.inf` or is `np.nan` and the value for `LR-` ranges from `0.0` to "
                 "`1.0` or is `np.nan`; got `%s`.")


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _undefined_ratio_values(replace_undefined_by):
    """(LR+ value, LR- value) for undefined ratios: np.nan, 1.0 (both ratios 1, a useless
    test) or {"LR+": value, "LR-": value}, as scikit-learn >= 1.6 accepts."""
    if isinstance(replace_undefined_by, dict):
        pos, neg = replace_undefined_by.get("LR+"), replace_undefined_by.get("LR-")
        if not (_is_real(pos) and _is_real(neg) and (np.isnan(pos) or pos >= 1)
                and (np.isnan(neg) or 0 <= neg <= 1)):
            raise AssayError(_REPLACE_FORM % (replace_undefined_by,))
        return float(pos), float(neg)
    if _is_real(replace_undefined_by) and (np.isnan(replace_undefined_by)
                                           or replace_undefined_by == 1.0):
        return float(replace_undefined_by), float(replace_undefined_by)
    raise AssayError("The 'replace_undefined_by' parameter of class_likelihood_ratios must be "
                     f"np.nan, 1.0 or a dict; got {replace_undefined_by!r}")


_HOW_TO_CONTROL = ("Use the `replace_undefined_by` param to control this behavior. To suppress "
                   "this warning or turn it into an error, see Python's `warnings` module and "
                   "`warnings.catch_warnings()`.")


def class_likelihood_ratios(y_true, y_pred, *, labels=None, sample_weight=None,
                            raise_warning="deprecated", replace_undefined_by=np.nan):
    """Positive and negative likelihood ratios (LR+, LR-) of a binary problem.

    As scikit-learn's ``class_likelihood_ratios``: ``LR+ = (tp / (tp + fn)) / (fp / (fp + tn))``
    and ``LR- = (fn / (tp + fn)) / (tn / (fp + tn))``, as of scikit-learn 1.9. LR+ is undefined
    without false positives, LR- without true negatives: each warns (UndefinedMetricWarning) and
    is replaced by ``replace_undefined_by``; no positive in ``y_true`` also warns.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    labels : array-like of shape (2,), default=None
        The negative and the positive class, in this order. None: the sorted classes.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    raise_warning : bool, default='deprecated'
        Deprecated (FutureWarning when passed); False silences the two ratio warnings, as in
        scikit-learn.
    replace_undefined_by : float or dict, default=np.nan
        The value of an undefined ratio: np.nan, 1.0 (both ratios 1, a useless test), or
        ``{"LR+": value, "LR-": value}`` with LR+ in [1, inf] or NaN and LR- in [0, 1] or NaN.

    Returns
    -------
    positive_likelihood_ratio : float
        LR+ (greater than 1 is informative).
    negative_likelihood_ratio : float
        LR- (below 1 is informative).

    Raises
    ------
    AssayError
        If the labels are multi-class or multilabel, ``replace_undefined_by`` is not of the
        forms above, or as ``confusion_matrix``.

    See Also
    --------
    binary_rates : The rates LR+ and LR- are made of.

    Examples
    --------
    >>> from assay.metrics import class_likelihood_ratios
    >>> lr_pos, lr_neg = class_likelihood_ratios([0, 0, 0, 1, 1, 1, 0, 1], [0, 0, 1, 1, 1, 0, 0, 1])
    >>> print(round(lr_pos, 4), round(lr_neg, 4))
    3.0 0.3333
    """
    undefined_pos, undefined_neg = _undefined_ratio_values(replace_undefined_by)
    if not (isinstance(raise_warning, str) and raise_warning == "deprecated"):
        warnings.warn("`raise_warning` was deprecated in version 1.7 and will be removed in 1.9. "
                      "An `UndefinedMetricWarning` will always be raised in case of a division "
                      "by zero and the value set with the `replace_undefined_by` param will be "
                      "returned.", FutureWarning, stacklevel=2)
    else:
        raise_warning = True
    cm = _binary_confusion(y_true, y_pred, labels, sample_weight)
    if cm.shape == (1, 1):  # one class seen: no rate of the other (scikit-learn 1.2's NaNs)
        warnings.warn("samples of only one class were seen during testing", AssayWarning,
                      stacklevel=2)
        return float("nan"), float("nan")
    lr_pos, lr_neg = _assay.lm_likelihood_ratios(np.ascontiguousarray(cm, dtype=np.float64),
                                                 False)
    tn, fp, fn, tp = cm.ravel()
    if tp + fn == 0:
        warnings.warn("No samples of the positive class are present in `y_true`. "
                      "`positive_likelihood_ratio` and `negative_likelihood_ratio` are both set "
                      "to `np.nan`. " + _HOW_TO_CONTROL, UndefinedMetricWarning, stacklevel=2)
    if fp == 0:
        if raise_warning:
            start = ("No samples were predicted for the positive class and "
                     "`positive_likelihood_ratio` is " if tp == 0 else
                     "`positive_likelihood_ratio` is ill-defined and ")
            warnings.warn(start + "set to `np.nan`. " + _HOW_TO_CONTROL, UndefinedMetricWarning,
                          stacklevel=2)
        lr_pos = undefined_pos
    if tn == 0:
        if raise_warning:
            warnings.warn("`negative_likelihood_ratio` is ill-defined and set to `np.nan`. " +
                          _HOW_TO_CONTROL, UndefinedMetricWarning, stacklevel=2)
        lr_neg = undefined_neg
    return float(lr_pos), float(lr_neg)


def _binary_confusion(y_true, y_pred, labels, sample_weight):
    targets = check_targets(y_true, y_pred, sample_weight)
    if targets.kind == MULTILABEL or len(encode_labels(targets.y_true, targets.y_pred)[0]) > 2:
        kind = targets.kind if targets.kind == MULTILABEL else "multiclass"
        raise AssayError("class_likelihood_ratios only supports binary classification "
                         f"problems, got targets of type: {kind}")
    return confusion_matrix(targets.y_true, targets.y_pred,
                            sample_weight=_ratio_weights(sample_weight), labels=labels)


def hinge_loss(y_true, pred_decision, *, labels=None, sample_weight=None):
    """Average hinge loss of decision values (binary or multi-class).

    As scikit-learn's ``hinge_loss``. Binary: ``max(0, 1 - y f)`` with ``y`` in {-1, +1} (the
    greater label is +1). Multi-class: Crammer-Singer ``max(0, 1 - f_y + max_{k != y} f_k)``
    over an (n, K) decision matrix. The mean over samples.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    pred_decision : array-like of shape (n_samples,) or (n_samples, n_classes)
        Decision values: 1-D for binary input, one column per class otherwise.
    labels : array-like of shape (n_classes,), default=None
        All the classes (the columns of ``pred_decision``). None: those of ``y_true``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float
        The mean hinge loss.

    Raises
    ------
    AssayError
        If multi-class input comes with 1-D decisions or a number of columns other than the
        number of classes, ``y_true`` holds a label not in ``labels``, or the lengths differ.

    See Also
    --------
    log_loss : A loss of predicted probabilities.

    Examples
    --------
    >>> from assay.metrics import hinge_loss
    >>> print(round(hinge_loss([-1, 1, 1], [-2.0, 0.5, 3.0]), 4))
    0.1667
    >>> print(round(hinge_loss([0, 1, 2], [[2, 0.5, 0], [0.3, 1.2, 0.1], [0, 0.9, 1.1]]), 4))
    0.3
    """
    check_consistent_length(y_true, pred_decision, sample_weight)
    decision = float_array(pred_decision, "pred_decision", min_samples=1)
    a = column_or_1d(y_true, "y_true")
    kind, a = target_kind(a, "y_true")
    w = check_sample_weight(sample_weight, len(a))
    listed = None if labels is None else np.asarray(labels)
    classes = encode_labels(a if listed is None else listed)[0]
    if len(classes) > 2:
        if decision.ndim <= 1:
            # (scikit-learn's message has no space after "array")
            raise AssayError("The shape of pred_decision cannot be 1d arraywith a multiclass "
                             "target. pred_decision shape must be (n_samples, n_classes), that "
                             f"is ({len(a)}, {len(classes)}). Got: {decision.shape}")
        if len(classes) != decision.shape[1]:
            if labels is None:
                raise AssayError("Please include all labels in y_true or pass labels as third "
                                 "argument")
            raise AssayError("The shape of pred_decision is not consistent with the number of "
                             "classes. With a multiclass target, pred_decision shape must be "
                             f"(n_samples, n_classes), that is ({len(a)}, {len(classes)}). "
                             f"Got: {decision.shape}")
        all_classes, ct, _ = encode_labels(a, None, labels=classes)
        if len(all_classes) != len(classes):
            unseen = np.setdiff1d(np.unique(a), classes)
            raise AssayError(f"y contains previously unseen labels: {unseen.tolist()}")
        codes = codes_of(classes, all_classes)[ct]
        return np.float64(_assay.lm_hinge_multiclass(codes, decision, w))
    if decision.ndim == 2 and decision.shape[1] == 1:
        decision = np.ascontiguousarray(decision[:, 0])
    if decision.ndim != 1:
        raise AssayError("y should be a 1d array, got an array of shape {} instead.".format(
            decision.shape))
    seen, ct, _ = encode_labels(a)
    positive = 1 if len(seen) == 2 else -2  # one class: every sample is -1 (LabelBinarizer)
    return np.float64(_assay.lm_hinge_binary(ct, positive, decision, w))
