"""Uncertainty of a metric: bootstrap intervals, mean ± SD across runs (the textbook section
"Evaluation Metrics")."""
import numpy as np

from . import _assay
from ._options import check_probability, check_threads, check_unsigned

__all__ = ["bootstrap", "summarize_runs"]


_AP_OPTIONS = {"pos_label", "method", "grid", "tie_mode"}


def _ranking_fast_path(metric, y_true, y_score, metric_kwargs):
    """Name of the sort-once bootstrap for assay's binary ROC AUC / AP, or None."""
    from . import _ranking
    name = {_ranking.roc_auc_score: "roc_auc", "roc_auc": "roc_auc",
            _ranking.average_precision_score: "average_precision",
            "average_precision": "average_precision"}.get(metric) if (
                isinstance(metric, str) or callable(metric)) else None
    if name is None or y_true.ndim != 1 or y_score.ndim != 1:
        return None
    allowed = set() if name == "roc_auc" else _AP_OPTIONS
    if not set(metric_kwargs) <= allowed or len(np.unique(y_true)) > 2:
        return None
    return name


def bootstrap(metric, y_true, y_score_or_pred, n_resamples=1000, confidence=0.95, seed=0,
              sample_weight=None, threads=0, **metric_kwargs):
    """Percentile bootstrap interval of ``metric(y_true, y_score_or_pred, **metric_kwargs)``.

    ``metric`` is any function with scikit-learn's ``(y_true, y_score)`` signature (an assay or a
    scikit-learn metric, or your own). Resample ``i`` draws n samples with replacement from the
    stream ``seed``/``i``, so the same seed gives the same interval.

    ``metric`` may also be a name, "roc_auc" or "average_precision": these (and passing
    ``assay.metrics.roc_auc_score`` / ``average_precision_score`` for binary labels) sort the
    scores once and rescan them per resample, in parallel on ``threads`` (0 = all cores) with
    the same resamples, so the result does not depend on the thread count.

    Returns a dict: estimate (the metric on the full data), low, high (the ``confidence``
    percentile interval), standard_error, confidence, n_resamples, seed, n_undefined (resamples on
    which the metric was NaN, e.g. one class only; they are left out, with a warning) and
    replicates (the metric on each resample).
    """
    n_resamples = check_unsigned(n_resamples, "n_resamples")
    confidence = check_probability(confidence, "confidence")
    seed = check_unsigned(seed, "seed")
    threads = check_threads(threads)
    y_true = np.asarray(y_true)
    y_other = np.asarray(y_score_or_pred)
    if len(y_true) != len(y_other):
        raise _assay.AssayError(
            f"y_true and y_score_or_pred differ in length ({len(y_true)} vs {len(y_other)})")
    n = len(y_true)
    weights = (np.empty(0) if sample_weight is None
               else np.asarray(sample_weight, dtype=np.float64))
    if sample_weight is not None and len(weights) != n:
        raise _assay.AssayError(
            f"y_true and sample_weight differ in length ({n} vs {len(weights)})")
    fast = _ranking_fast_path(metric, y_true, y_other, metric_kwargs)
    if fast is not None:
        from . import _ranking
        if fast == "roc_auc":  # scikit-learn: the greater label is the positive class
            labels = (y_true == np.unique(y_true)[-1]).astype(np.uint8)
        else:
            labels = _ranking._is_in(y_true, metric_kwargs.get("pos_label", 1))
        return _assay._bootstrap_ranking(
            labels, np.asarray(y_other, dtype=np.float64), weights, fast,
            metric_kwargs.get("method", "step"), metric_kwargs.get("grid", "exact"),
            metric_kwargs.get("tie_mode", "group"), int(n_resamples), float(confidence),
            int(seed), int(threads))
    if isinstance(metric, str):
        raise _assay.AssayError(
            f"unknown metric name {metric!r}: expected \"roc_auc\", \"average_precision\" or a "
            "function metric(y_true, y_score)")
    positions = np.arange(n)

    def on_resample(counts):
        # counts = how often each sample was drawn (times its base weight, if any); a metric
        # sees a real resample, so any metric works unchanged.
        if sample_weight is None:
            idx = np.repeat(positions, counts.astype(np.int64))
            return float(metric(y_true[idx], y_other[idx], **metric_kwargs))
        drawn = counts > 0
        return float(metric(y_true[drawn], y_other[drawn], sample_weight=counts[drawn],
                            **metric_kwargs))

    return _assay._bootstrap_counts(n, on_resample, weights, int(n_resamples), float(confidence),
                                    int(seed))


def summarize_runs(values, by=None, html=None, x_title="meta-parameter", y_title="value",
                   log_x=False):
    """Mean, sample SD (ddof=1), min, max and n of a metric across runs (seeds).

    With ``by`` (a meta-parameter value per run), one summary per distinct value, ascending:
    a dict of arrays ``by, mean, sd, min, max, n`` — the trend to plot as mean ± SD against the
    meta-parameter. ``html``: also write a page with that trend chart (mean line, ± SD band;
    ``log_x`` for a meta-parameter spread over decades) and the table.
    """
    values = np.asarray(values, dtype=np.float64)
    if by is None:
        return _assay.summarize_runs(values)
    by = np.asarray(by, dtype=np.float64)
    if html is not None:
        _assay._runs_html(values, by, x_title, y_title, bool(log_x), str(html))
    return _assay.summarize_runs_by(values, by)
