"""Ranking metrics: PR / ROC curves, average precision under every convention, ROC AUC, mAP,
DeLong's paired test and PR-curve dominance. scikit-learn's names, arguments and return shapes;
the computation is in C++ (src/metrics/ranking.cpp). These wrappers only convert arguments:
labels to 0/1 bytes or class codes, scores to float64.

Differences from scikit-learn 1.2.1 (documented in docs/metrics_ranking.md):
- ``roc_curve`` puts ``thresholds[0] = inf`` (scikit-learn >= 1.3), not ``max(y_score) + 1``.
- ``roc_auc_score`` with one class present returns NaN with an ``AssayWarning`` (scikit-learn
  raises).
- ``precision_recall_curve`` has ``drop_intermediate`` (scikit-learn >= 1.3).
- ``average_precision_score`` accepts 1-D multiclass ``y_true`` with a 2-D ``y_score`` (one-vs-
  rest, as scikit-learn >= 1.3) and the extra ``method``, ``grid``, ``tie_mode``, ``n_pos``.
"""
import numpy as np

from . import _assay
from ._assay import AssayError

__all__ = [
    "precision_recall_curve",
    "interpolated_precision",
    "average_precision_score",
    "mean_average_precision",
    "roc_curve",
    "roc_auc_score",
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


def _binary_labels(y_true, pos_label):
    """scikit-learn's _check_pos_label_consistency, then y_true == pos_label as 0/1 bytes."""
    y = _1d(y_true, "y_true")
    classes = _classes(y)
    if len(classes) > 2:
        raise AssayError(
            f"y_true has {len(classes)} classes; a binary metric needs at most 2 "
            "(multiclass format is not supported)")
    if pos_label is None:
        ok = [[0, 1], [-1, 1], [0], [-1], [1], []]
        if y.dtype.kind in "OUS" or not any(
                np.array_equal(classes, np.asarray(c)) for c in ok):
            shown = "{" + ", ".join(map(str, classes.tolist())) + "}"
            raise AssayError(
                f"y_true takes value in {shown} and pos_label is not specified: either make "
                "y_true take value in {0, 1} or {-1, 1} or pass pos_label explicitly.")
        pos_label = 1
    if y.dtype == bool:
        return y.view(np.uint8) if pos_label in (1, True) else (~y).view(np.uint8)
    return _is_in(y, pos_label)


def precision_recall_curve(y_true, y_score, *, pos_label=None, sample_weight=None,
                           drop_intermediate=False):
    """Precision-recall pairs for every distinct threshold (scikit-learn's output): precision,
    recall in increasing-threshold order followed by (1, 0); thresholds one shorter."""
    y = _binary_labels(y_true, pos_label)
    return _assay.ranking_precision_recall_curve(y, _scores(y_score), _weights(sample_weight),
                                                 bool(drop_intermediate))


def interpolated_precision(precision, recall):
    """Source 000 eq. 172: p_interp(r) = max over r' >= r of p(r'); same shape as precision."""
    return _assay.ranking_interpolated_precision(_scores(precision, "precision"),
                                                 _scores(recall, "recall"))


def roc_curve(y_true, y_score, *, pos_label=None, sample_weight=None, drop_intermediate=True):
    """(fpr, tpr, thresholds) as scikit-learn, with thresholds[0] = inf (scikit-learn >= 1.3)."""
    y = _binary_labels(y_true, pos_label)
    return _assay.ranking_roc_curve(y, _scores(y_score), _weights(sample_weight),
                                    bool(drop_intermediate))


def _average_name(average):
    return "none" if average is None else str(average)


def _indicator(y_true):
    y = np.asarray(y_true)
    if y.dtype.kind not in "biuf" or not np.all((y == 0) | (y == 1)):
        raise AssayError("a 2-D y_true must be a 0/1 multilabel indicator matrix")
    return np.ascontiguousarray(y, dtype=np.uint8)


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


def average_precision_score(y_true, y_score, *, average="macro", pos_label=1,
                            sample_weight=None, method="step", grid="exact", tie_mode="group",
                            n_pos=None):
    """Average precision. method: "step" (scikit-learn), "voc07", "voc_allpoint", "coco101",
    "trapezoid"; grid: "exact" | "numpy"; tie_mode: "group" | "sequential"; n_pos: recall
    denominator overriding the number of positives (binary only). 2-D y_true: multilabel with
    average "macro" | "micro" | "weighted" | "samples" | None."""
    y = np.asarray(y_true)
    w = _weights(sample_weight)
    n_pos = None if n_pos is None else float(n_pos)
    if y.ndim == 2 or np.ndim(y_score) == 2:
        if y.ndim == 2:
            if pos_label != 1:
                raise AssayError(
                    "Parameter pos_label is fixed to 1 for multilabel-indicator y_true. Do not "
                    "set pos_label or set pos_label to 1.")
            ind = _indicator(y)
        else:  # 1-D multiclass labels with a score matrix: one-vs-rest
            ind = _one_vs_rest(_1d(y, "y_true"), np.unique(y))
        out = _assay.ranking_average_precision_multilabel(
            ind, _scores_2d(y_score), w, _average_name(average), method, grid, tie_mode, n_pos)
        return out if average is None else float(out[0])
    y = _1d(y, "y_true")
    present = _classes(y).tolist()
    if len(present) == 2 and pos_label not in present:
        raise AssayError(
            f"pos_label={pos_label} is not a valid label. It should be one of {present}")
    if len(present) > 2:
        raise AssayError(f"y_true has {len(present)} classes but y_score is 1-D: pass a score "
                         "matrix with one column per class")
    return _assay.ranking_average_precision(_positives(y, present, pos_label), _scores(y_score),
                                            w, method, grid, tie_mode, n_pos)


def mean_average_precision(y_true, y_score, *, labels=None, sample_weight=None, method="step",
                           grid="exact", tie_mode="group"):
    """Mean over classes of one-vs-rest AP. y_true: 1-D class labels (column j of y_score is
    labels[j]; default labels: 0..k-1 for integer y_true, else the sorted distinct labels) or a
    2-D 0/1 indicator. Classes without positives are excluded from the mean.

    Returns {"map": float, "per_class": array (NaN where excluded), "labels": array,
    "excluded": list of labels}."""
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


def roc_auc_score(y_true, y_score, *, average="macro", sample_weight=None, max_fpr=None,
                  multi_class="raise", labels=None):
    """ROC AUC as scikit-learn 1.2.1: binary, multilabel (2-D y_true) and multiclass (ovr, ovo).
    One class present: NaN + AssayWarning (scikit-learn raises)."""
    y = np.asarray(y_true)
    w = _weights(sample_weight)
    max_fpr = None if max_fpr is None else float(max_fpr)
    s = np.asarray(y_score, dtype=np.float64)
    if y.ndim == 2:
        out = _assay.ranking_roc_auc_multilabel(_indicator(y), _scores_2d(s), w,
                                                _average_name(average), max_fpr)
        return out if average is None else float(out[0])
    y = _1d(y, "y_true")
    classes = _classes(y)
    if len(classes) > 2 or (s.ndim == 2 and s.shape[1] > 2):
        if max_fpr is not None and max_fpr != 1.0:
            raise AssayError(
                "Partial AUC computation not available in multiclass setting, 'max_fpr' must be "
                f"set to `None`, received `max_fpr={max_fpr}` instead")
        if multi_class == "raise":
            raise AssayError("multi_class must be in ('ovo', 'ovr')")
        if labels is not None:
            classes = np.asarray(labels)
            if len(np.unique(classes)) != len(classes):
                raise AssayError("Parameter 'labels' must be unique")
            if not np.array_equal(np.sort(classes), classes):
                raise AssayError("Parameter 'labels' must be ordered")
            if len(classes) != s.shape[1]:
                raise AssayError(
                    f"Number of given labels, {len(classes)}, not equal to the number of "
                    f"columns in 'y_score', {s.shape[1]}")
            if len(np.setdiff1d(y, classes)):
                raise AssayError("'y_true' contains labels not in parameter 'labels'")
        elif len(classes) != _scores_2d(s).shape[1]:
            raise AssayError("Number of classes in y_true not equal to the number of columns in "
                             "'y_score'")
        codes = np.searchsorted(classes, y).astype(np.int32)
        out = _assay.ranking_roc_auc_multiclass(codes, _scores_2d(s), w, _average_name(average),
                                                multi_class)
        return out if average is None else float(out[0])
    if len(classes) == 2:
        y_bin = _positives(y, classes.tolist(), classes[-1])
    else:
        y_bin = np.zeros(y.size, dtype=np.uint8)
    return _assay.ranking_roc_auc(y_bin, _scores(s), w, max_fpr)


def delong_roc_test(y_true, score_a, score_b, *, pos_label=None):
    """DeLong's paired test of two ROC AUCs on the same samples (fast Sun & Xu algorithm).
    Returns {"auc_a", "auc_b", "covariance" (2x2), "z", "p_value" (two-sided)}."""
    y = _binary_labels(y_true, pos_label)
    return _assay.ranking_delong_roc_test(y, _scores(score_a, "score_a"),
                                          _scores(score_b, "score_b"))


def compare_pr_curves(y_true, score_a, score_b, *, pos_label=None, method="voc_allpoint",
                      grid="exact", tie_mode="group"):
    """Does one model's interpolated PR curve dominate the other's at every recall (source 000,
    Figure 45)? Returns {"dominant": "a" | "b" | "equal" | None, "crossings": recalls where the
    better curve switches, "ap_a", "ap_b"} (AP under `method`; the default voc_allpoint is the
    area under the interpolated curve, so a dominant curve never has the smaller AP)."""
    y = _binary_labels(y_true, pos_label)
    return _assay.ranking_compare_pr_curves(y, _scores(score_a, "score_a"),
                                            _scores(score_b, "score_b"), method, grid, tie_mode)


class RankedScores:
    """Scores sorted once, metrics recomputed under many weightings (bootstrap) without
    re-sorting. Weights are per sample in the original order (e.g. bootstrap counts)."""

    def __init__(self, y_true, y_score, *, pos_label=None):
        self._impl = _assay.RankedScores(_binary_labels(y_true, pos_label), _scores(y_score))

    def __len__(self):
        return len(self._impl)

    def roc_auc(self, sample_weight=None, max_fpr=None):
        return self._impl.roc_auc(_weights(sample_weight),
                                  None if max_fpr is None else float(max_fpr))

    def average_precision(self, sample_weight=None, *, method="step", grid="exact",
                          tie_mode="group", n_pos=None):
        return self._impl.average_precision(_weights(sample_weight), method, grid, tie_mode,
                                            None if n_pos is None else float(n_pos))
