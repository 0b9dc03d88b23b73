"""Operating points of a binary scorer: the threshold chosen by a rule such as "the largest recall
with precision >= 0.9", "FPR <= 1 %", "maximal F1" or "minimal 1 FP + 5 FN", and a metric there.
The rules and their tie-breaks are those of include/assay/compare/operating_point.hpp; the
computation is in C++ (src/compare/operating_point.cpp)."""
import numpy as np

from . import _assay
from ._assay import AssayError
from ._validation import check_consistent_length, check_sample_weight, column_or_1d, float_array

__all__ = ["choose_operating_point"]


def _positive_label(classes, pos_label):
    """pos_label, else the greater of two labels; one label counts as positive only when it is
    1 in {0, 1} / {-1, 1} coding (scikit-learn's rule), else the caller must say."""
    if pos_label is not None:
        return pos_label
    if len(classes) == 2:
        return classes[1]
    if classes[0] in (0, -1, 1) and not isinstance(classes[0], str):
        return 1
    raise AssayError(f"y_true has the single label {classes[0]!r}: pass pos_label to say "
                     "whether it is the positive class")


def _binary(y_true, pos_label):
    y = column_or_1d(y_true, "y_true")
    if y.size == 0:
        raise AssayError("y_true is empty: an operating point needs at least one sample")
    classes = np.unique(y)
    if len(classes) > 2:
        raise AssayError(f"y_true must hold at most two labels, found {len(classes)}: "
                         f"{classes[:5].tolist()}")
    positive = _positive_label(classes.tolist(), pos_label)
    return np.ascontiguousarray(y == positive, dtype=np.uint8)


def choose_operating_point(y_true, y_score, metric, sample_weight=None, pos_label=None):
    """Choose the threshold of an operating-point metric ``METRIC@RULE``, and the metric there.

    Candidates are every distinct score and +inf; among equally good candidates the largest
    threshold wins. A sample is predicted positive when its score is >= the threshold.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Labels, at most two distinct ones.
    y_score : array-like of shape (n_samples,)
        Scores; higher = more positive.
    metric : str
        E.g. ``"recall@precision>=0.9"``, ``"precision@recall>=80%"``, ``"recall@fpr<=0.01"``,
        ``"f1@max_f1"``, ``"threshold@max_youden"``, ``"recall@cost(fp=1,fn=5)"``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights. None: all 1.
    pos_label : int, float, bool or str, default=None
        The positive label. None: the greater of the two labels.

    Returns
    -------
    dict
        ``feasible`` (False when no threshold satisfies the rule), ``threshold`` (``inf`` when
        nothing is predicted positive), the weighted counts ``tp``, ``fp``, ``fn``, ``tn``,
        ``value`` (the metric at the threshold) and ``text`` (the canonical spelling of
        ``metric``). Infeasible rules give NaN threshold, counts and value.

    Raises
    ------
    assay.AssayError
        A metric that is not a string or not a valid rule, empty ``y_true``, more than two
        labels, or inconsistent lengths.

    Examples
    --------
    >>> from assay.compare import choose_operating_point
    >>> p = choose_operating_point([0, 1, 1, 0], [0.2, 0.9, 0.6, 0.7], "recall@precision>=0.9")
    >>> p["threshold"], p["value"], p["text"]
    (0.9, 0.5, 'recall@precision>=0.9')
    >>> choose_operating_point([0, 1, 1, 0], [0.2, 0.9, 0.6, 0.7], "f1@max_f1")["value"]
    0.8
    """
    if not isinstance(metric, str):
        raise AssayError(f"metric must be a string such as 'recall@precision>=0.9', found "
                         f"{type(metric).__name__}")
    check_consistent_length(y_true, y_score, sample_weight)
    y = _binary(y_true, pos_label)
    s = float_array(column_or_1d(y_score, "y_score"), "y_score", min_samples=0, finite=False)
    w = check_sample_weight(sample_weight, len(y))
    return _assay.compare_choose_point(y, s, w, metric)
