"""Uncertainty of a metric: bootstrap intervals, mean ± SD across runs (source 000)."""
import numpy as np

from . import _assay

__all__ = ["bootstrap", "summarize_runs"]


def bootstrap(metric, y_true, y_score_or_pred, n_resamples=1000, confidence=0.95, seed=0,
              sample_weight=None, **metric_kwargs):
    """Percentile bootstrap interval of ``metric(y_true, y_score_or_pred, **metric_kwargs)``.

    ``metric`` is any function with scikit-learn's ``(y_true, y_score)`` signature (an assay or a
    scikit-learn metric, or your own). Resample ``i`` draws n samples with replacement from the
    stream ``seed``/``i``, so the same seed gives the same interval.

    Returns a dict: estimate (the metric on the full data), low, high (the ``confidence``
    percentile interval), standard_error, confidence, n_resamples, seed, n_undefined (resamples on
    which the metric was NaN, e.g. one class only; they are left out, with a warning) and
    replicates (the metric on each resample).
    """
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
            f"sample_weight and y_true differ in length ({len(weights)} vs {n})")
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


def summarize_runs(values, by=None):
    """Mean, sample SD (ddof=1), min, max and n of a metric across runs (seeds).

    With ``by`` (a meta-parameter value per run), one summary per distinct value, ascending:
    a dict of arrays ``by, mean, sd, min, max, n`` — the trend to plot as mean ± SD against the
    meta-parameter (``assay.report.trend_chart``).
    """
    values = np.asarray(values, dtype=np.float64)
    if by is None:
        return _assay.summarize_runs(values)
    return _assay.summarize_runs_by(values, np.asarray(by, dtype=np.float64))
