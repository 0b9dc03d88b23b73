"""scikit-learn 1.2.1's multilabel ranking metrics (coverage error, label ranking average
precision, ranking loss) and (normalised) discounted cumulative gain. Thin wrappers: checks here,
numbers in src/metrics/label_ranking.cpp."""
import numbers
import warnings

import numpy as np

from . import _assay
from ._assay import AssayError, UndefinedMetricWarning
from ._options import check_integer
from ._validation import (MULTILABEL, check_consistent_length, check_sample_weight, float_array,
                          indicator, is_sparse, target_kind, type_name)

__all__ = [
    "coverage_error",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "dcg_score",
    "ndcg_score",
]


def _numeric(y, name, ensure_2d=False):
    """check_array(y): a float64 array (sparse indicators kept), NaN / infinity refused."""
    if is_sparse(y):
        return y
    return float_array(y, name, ensure_2d=ensure_2d, min_samples=1)


def _indicator_and_scores(y_true, y_score, allowed, ensure_2d=False, numeric=False):
    """(indicator, scores) of a multilabel ranking metric with scikit-learn's checks; numeric:
    the caller has already passed both through _numeric (so it is not repeated)."""
    y = y_true if numeric else _numeric(y_true, "", ensure_2d)
    s = y_score if numeric else _numeric(y_score, "", ensure_2d)
    if is_sparse(s):
        s = s.toarray()
    two_d = np.ndim(y) == 2
    kind, y = target_kind(y, "y_true")
    name = type_name(kind, y)
    if not (kind == MULTILABEL or ("binary_2d" in allowed and name == "binary" and two_d)):
        raise AssayError("{0} format is not supported".format(name))
    ind = indicator(y if np.ndim(y) == 2 or is_sparse(y) else y.reshape(-1, 1))
    if ind.shape != s.shape:
        raise AssayError("y_true and y_score have different shape")
    return ind, np.ascontiguousarray(s, dtype=np.float64)


def coverage_error(y_true, y_score, *, sample_weight=None):
    """Coverage error: how far down the ranking one must go to cover every relevant label.

    As scikit-learn's ``coverage_error``: per sample, the rank of the lowest-scored relevant
    label (ties count at their largest rank), averaged over samples. The best value is the mean
    number of relevant labels.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Relevant labels as a binary indicator matrix.
    y_score : array-like of shape (n_samples, n_labels)
        Scores of the labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float
        The coverage error.

    Raises
    ------
    AssayError
        If ``y_true`` is not a multilabel indicator, the shapes differ, or the input holds NaN or
        infinity.

    See Also
    --------
    label_ranking_loss : The fraction of label pairs ranked wrongly.

    Examples
    --------
    >>> from assay.metrics import coverage_error
    >>> print(round(coverage_error([[1, 0, 0], [0, 1, 1]], [[0.9, 0.5, 0.2], [0.1, 0.3, 0.6]]), 4))
    1.5
    """
    y = _numeric(y_true, "", ensure_2d=True)
    s = _numeric(y_score, "", ensure_2d=True)
    check_consistent_length(y, s, sample_weight)
    ind, s = _indicator_and_scores(y, s, (MULTILABEL,), numeric=True)
    w = check_sample_weight(sample_weight, ind.shape[0])
    return np.float64(_assay.lm_multilabel_ranking("coverage", ind, s, w))


def label_ranking_average_precision_score(y_true, y_score, *, sample_weight=None):
    """Label ranking average precision (LRAP) of multilabel scores.

    As scikit-learn's ``label_ranking_average_precision_score``: for each relevant label of a
    sample, the fraction of the labels ranked at or above it that are relevant, averaged over the
    relevant labels and then over samples. Weights summing to zero give NaN with an
    UndefinedMetricWarning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Relevant labels as a binary indicator matrix.
    y_score : array-like of shape (n_samples, n_labels)
        Scores of the labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float
        The LRAP, at most 1.

    Raises
    ------
    AssayError
        If ``y_true`` is not an indicator matrix, the shapes differ, or the input holds NaN or
        infinity.

    See Also
    --------
    average_precision_score : AP per label instead of per sample.

    Examples
    --------
    >>> from assay.metrics import label_ranking_average_precision_score
    >>> y_true, y_score = [[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]
    >>> print(round(label_ranking_average_precision_score(y_true, y_score), 4))
    0.4167
    """
    check_consistent_length(y_true, y_score, sample_weight)
    ind, s = _indicator_and_scores(y_true, y_score, (MULTILABEL, "binary_2d"))
    w = check_sample_weight(sample_weight, ind.shape[0])
    if w is not None and len(w) and not np.any(w):
        # scikit-learn divides the weighted sum by the total weight: 0/0 = NaN, not an error.
        _assay.lm_multilabel_ranking("lrap", ind, s, None)  # the same input checks
        warnings.warn("label_ranking_average_precision_score is undefined when the sample "
                      "weights sum to zero, returning NaN", UndefinedMetricWarning,
                      stacklevel=2)
        return np.float64(np.nan)
    return np.float64(_assay.lm_multilabel_ranking("lrap", ind, s, w))


def label_ranking_loss(y_true, y_score, *, sample_weight=None):
    """Ranking loss: the fraction of (relevant, irrelevant) label pairs ranked wrongly.

    As scikit-learn's ``label_ranking_loss``: per sample, the fraction of pairs whose irrelevant
    label scores at least as high as the relevant one (ties count as wrong), averaged over
    samples.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Relevant labels as a binary indicator matrix.
    y_score : array-like of shape (n_samples, n_labels)
        Scores of the labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float
        Between 0 (every pair right) and 1.

    Raises
    ------
    AssayError
        If ``y_true`` is not a multilabel indicator, the shapes differ, or the input holds NaN or
        infinity.

    See Also
    --------
    coverage_error : Depth of the ranking needed to cover the relevant labels.

    Examples
    --------
    >>> from assay.metrics import label_ranking_loss
    >>> y_true, y_score = [[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]
    >>> print(round(label_ranking_loss(y_true, y_score), 4))
    0.75
    """
    check_consistent_length(y_true, y_score, sample_weight)
    ind, s = _indicator_and_scores(y_true, y_score, (MULTILABEL,))
    w = check_sample_weight(sample_weight, ind.shape[0])
    return np.float64(_assay.lm_multilabel_ranking("ranking_loss", ind, s, w))


_DCG_TYPES = ("multilabel-indicator", "continuous-multioutput", "multiclass-multioutput")


def _relevance_and_scores(y_true, y_score, sample_weight):
    y = float_array(y_true.toarray() if is_sparse(y_true) else y_true, "", min_samples=1)
    s = float_array(y_score, "", min_samples=1)
    check_consistent_length(y, s, sample_weight)
    kind, _ = target_kind(y, "y_true")
    if kind not in _DCG_TYPES:
        raise AssayError("Only {} formats are supported. Got {} instead".format(
            _DCG_TYPES, type_name(kind, y)))
    if s.shape != y.shape:
        raise AssayError("y_true and y_score have different shape")
    return y, s, check_sample_weight(sample_weight, y.shape[0])


def _k(k):
    if k is None:
        return None
    if isinstance(k, numbers.Integral) and not isinstance(k, bool) and k < 0:
        raise AssayError(f"k must be >= 0, found {k}")
    return check_integer(k, "k", 0, 2**63 - 1)


def dcg_score(y_true, y_score, *, k=None, log_base=2, sample_weight=None, ignore_ties=False):
    """Discounted cumulative gain (DCG) of graded relevance in the order of the scores.

    As scikit-learn's ``dcg_score``: per sample ``sum_r gain_r / log_base(r + 1)`` over the ranks
    ``r`` of the ``k`` highest scores, averaged over samples. Tied scores share their average
    gain unless ``ignore_ties``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Graded relevance (gains) of each label.
    y_score : array-like of shape (n_samples, n_labels)
        Scores that rank the labels.
    k : int, default=None
        Score only the ``k`` highest-ranked labels. None: all.
    log_base : float, default=2
        Base of the logarithm of the discount.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    ignore_ties : bool, default=False
        Skip the sharing of gains among tied scores (faster; exact only without ties).

    Returns
    -------
    float
        The mean DCG.

    Raises
    ------
    AssayError
        If ``y_true`` is not 2-D multilabel or multi-output, the shapes differ, ``k`` is
        negative, or the input holds NaN or infinity.

    See Also
    --------
    ndcg_score : DCG over the DCG of the ideal order.

    Examples
    --------
    >>> from assay.metrics import dcg_score
    >>> print(round(dcg_score([[3, 2, 0, 1]], [[0.9, 0.8, 0.1, 0.5]]), 4))
    4.7619
    """
    y, s, w = _relevance_and_scores(y_true, y_score, sample_weight)
    return np.float64(_assay.lm_dcg(y, s, _k(k), float(log_base), bool(ignore_ties), False, w))


def ndcg_score(y_true, y_score, *, k=None, sample_weight=None, ignore_ties=False):
    """Normalised discounted cumulative gain (NDCG): DCG over the ideal DCG.

    As scikit-learn's ``ndcg_score``: per sample, the DCG of the scores' order over the DCG of the
    best order (0 when all gains are 0), averaged over samples. Negative relevance is refused,
    as scikit-learn 1.4 and later refuse it (1.2 warned), and so is a single document.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_labels)
        Graded relevance (gains) of each label.
    y_score : array-like of shape (n_samples, n_labels)
        Scores that rank the labels.
    k : int, default=None
        Score only the ``k`` highest-ranked labels. None: all.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    ignore_ties : bool, default=False
        Skip the sharing of gains among tied scores (faster; exact only without ties).

    Returns
    -------
    float
        The mean NDCG, between 0 and 1 for non-negative gains.

    Raises
    ------
    AssayError
        If ``y_true`` is not 2-D multilabel or multi-output, has a negative gain or a single
        column, the shapes differ, ``k`` is negative, or the input holds NaN or infinity.

    See Also
    --------
    dcg_score : The unnormalised gain.

    Examples
    --------
    >>> from assay.metrics import ndcg_score
    >>> print(round(ndcg_score([[3, 2, 0, 1]], [[0.1, 0.8, 0.9, 0.5]]), 4))
    0.6413
    """
    relevance = float_array(y_true.toarray() if is_sparse(y_true) else y_true, "", min_samples=1)
    # scikit-learn >= 1.4 refuses negative gains (1.2 warned) and a single document
    if relevance.min() < 0:
        raise AssayError("ndcg_score should not be used on negative y_true values.")
    if relevance.ndim > 1 and relevance.shape[1] <= 1:
        raise AssayError("Computing NDCG is only meaningful when there is more than 1 document. "
                         f"Got {relevance.shape[1]} instead.")
    y, s, w = _relevance_and_scores(y_true, y_score, sample_weight)
    return np.float64(_assay.lm_dcg(y, s, _k(k), 2.0, bool(ignore_ties), True, w))
