"""Uncertainty of a metric: bootstrap intervals, mean ± SD across runs (the textbook section
"Evaluation Metrics")."""
import warnings

import numpy as np

from . import _assay
from ._assay import AssayWarning, UndefinedMetricWarning
from ._progress import reporting
from ._results import BootstrapResult, RunSummary
from ._options import check_probability, check_resamples, check_threads, check_unsigned

__all__ = ["bootstrap", "summarize_runs"]


_AP_OPTIONS = {"pos_label", "method", "grid", "tie_mode"}

# A metric that raises one of these on a resample (one class drawn, weights summing to zero,
# no sample left) is undefined there, as a NaN is; any other exception is a bug and propagates.
_UNDEFINED = (ValueError, ZeroDivisionError, ArithmeticError)


def _named_metric(metric):
    """(function, fast-path name or None) of a metric given by name or as a function."""
    from . import _ranking
    by_name = {"roc_auc": _ranking.roc_auc_score,
               "average_precision": _ranking.average_precision_score}
    if isinstance(metric, str):
        if metric not in by_name:
            raise _assay.AssayError(
                f"unknown metric name {metric!r}: expected \"roc_auc\", \"average_precision\" "
                "or a function metric(y_true, y_score)")
        return by_name[metric], metric
    if not callable(metric):
        raise TypeError(f"metric must be a function metric(y_true, y_score) or a name, found "
                        f"{type(metric).__name__}")
    fast = {_ranking.roc_auc_score: "roc_auc",
            _ranking.average_precision_score: "average_precision"}
    try:
        return metric, fast.get(metric)
    except TypeError:  # an unhashable callable
        return metric, None


def _ranking_fast_path(name, y_true, y_score, metric_kwargs):
    """The sort-once bootstrap for assay's binary ROC AUC / AP when it computes exactly what the
    function would (1-D binary labels, options it knows), else None."""
    if name is None or y_true.ndim != 1 or y_score.ndim != 1:
        return None
    allowed = set() if name == "roc_auc" else _AP_OPTIONS
    if not set(metric_kwargs) <= allowed or len(np.unique(y_true)) > 2:
        return None
    return name


class _Resamples:
    """metric(y_true, y_other) on each resample given as draw counts. The first call is the
    estimate on the full data: whatever it raises propagates (a ValueError-like failure as an
    AssayError naming the metric). Later calls that raise a ValueError, ZeroDivisionError or
    ArithmeticError count as undefined (NaN), with one warning that quotes the first."""

    def __init__(self, metric, y_true, y_other, sample_weight, metric_kwargs):
        self.metric, self.kwargs = metric, metric_kwargs
        self.y_true, self.y_other, self.weighted = y_true, y_other, sample_weight is not None
        self.positions = np.arange(len(y_true))
        self.calls = 0
        self.raised = 0
        self.first_error = None

    def _value(self, counts):
        if not self.weighted:
            idx = np.repeat(self.positions, counts.astype(np.int64))
            return float(self.metric(self.y_true[idx], self.y_other[idx], **self.kwargs))
        if self.calls == 1:  # the estimate: every sample with its weight, as the metric sees it
            return float(self.metric(self.y_true, self.y_other, sample_weight=counts,
                                     **self.kwargs))
        drawn = counts > 0
        return float(self.metric(self.y_true[drawn], self.y_other[drawn],
                                 sample_weight=counts[drawn], **self.kwargs))

    def __call__(self, counts):
        self.calls += 1
        try:
            return self._value(counts)
        except _UNDEFINED as e:
            if self.calls == 1:
                name = getattr(self.metric, "__name__", type(self.metric).__name__)
                raise _assay.AssayError(
                    f"bootstrap: the metric {name} fails on the full data, before any resample: "
                    f"{type(e).__name__}: {e}") from e
            self.raised += 1
            if self.first_error is None:
                self.first_error = f"{type(e).__name__}: {e}"
            return float("nan")

    def warn(self, n_resamples):
        if self.raised:
            warnings.warn(
                f"bootstrap: the metric raised on {self.raised} of {n_resamples} resamples (first: "
                f"{self.first_error}); they count as undefined and are left out of the interval",
                AssayWarning, stacklevel=3)


def bootstrap(metric, y_true, y_score_or_pred, n_resamples=1000, confidence=0.95, seed=0,
              sample_weight=None, threads=0, progress=True, **metric_kwargs):
    """Percentile bootstrap interval of ``metric(y_true, y_score_or_pred, **metric_kwargs)``.

    ``metric`` is any function with scikit-learn's ``(y_true, y_score)`` signature (an assay or a
    scikit-learn metric, or your own). Resample ``i`` draws n samples with replacement from the
    random stream ``seed``/``i``, so the same seed gives the same interval.

    ``metric`` may also be a name, "roc_auc" or "average_precision" (assay's functions): these
    (and passing ``assay.metrics.roc_auc_score`` / ``average_precision_score`` for binary labels)
    sort the scores once and rescan them per resample, in parallel on ``threads`` (0 = all cores)
    with the same resamples, so the result does not depend on the thread count.

    A metric that fails on the full data raises (an AssayError naming it when it raised a
    ValueError or ZeroDivisionError). On a resample where it raises one of those (one class
    drawn, weights summing to zero) or returns NaN, the resample counts as undefined: it is left
    out of the interval, counted in ``n_undefined``, with a warning. Weights near 1e308 or 1e-310
    are rescaled exactly by a power of two before the resample counts multiply them, so the metric
    should not depend on the weights' scale (means, ratios, AUC and AP do not).

    Parameters
    ----------
    metric : callable or {'roc_auc', 'average_precision'}
        The metric, ``metric(y_true, y_score_or_pred, **metric_kwargs)``, or the name of one of
        assay's two ranking metrics.
    y_true : array-like of shape (n_samples,)
        True labels or targets.
    y_score_or_pred : array-like of shape (n_samples,) or (n_samples, n_classes)
        Scores or predictions, the metric's second argument.
    n_resamples : int, default=1000
        Number of resamples, 1..1000000.
    confidence : float, default=0.95
        Level of the interval, in (0, 1).
    seed : int, default=0
        Seed of the resamples, in 0..2**64-1.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample, multiplied by the resample counts and passed to the metric as
        ``sample_weight``. None: the metric is called without weights.
    threads : int, default=0
        Threads of the sort-once path (0: all cores); the result does not depend on it.
    progress : bool, default=True
        A progress bar while the resamples run (on a terminal's stderr, or in Jupyter).
    **metric_kwargs
        Further arguments passed to the metric (e.g. ``pos_label``, ``average``).

    Returns
    -------
    BootstrapResult
        A dict: ``estimate`` (the metric on the full data), ``low`` and ``high`` (the ``confidence``
        percentile interval), ``standard_error``, ``confidence``, ``n_resamples``, ``seed``,
        ``n_undefined`` (resamples on which the metric was undefined, e.g. one class only; they
        are left out, with a warning) and ``replicates`` (ndarray of shape (n_resamples,), the
        metric on each resample).

    Raises
    ------
    AssayError
        If the metric fails on the full data, the name is unknown, an option is out of range, or
        the lengths differ.
    TypeError
        If ``metric`` is neither callable nor a name.

    See Also
    --------
    delong_roc_test : An analytic test of two ROC AUCs.
    summarize_runs : Mean and SD across runs instead of resamples.

    Examples
    --------
    >>> from assay.metrics import bootstrap
    >>> y_true = [0, 1] * 10
    >>> y_score = [0.1, 0.7, 0.4, 0.6, 0.3, 0.9, 0.5, 0.4, 0.2, 0.8] * 2
    >>> result = bootstrap("roc_auc", y_true, y_score, n_resamples=500, seed=1)
    >>> print(round(result["estimate"], 4), round(result["low"], 4), round(result["high"], 4))
    0.94 0.8179 1.0
    """
    n_resamples = check_resamples(n_resamples, "n_resamples")
    if n_resamples == 0:
        raise _assay.AssayError("n_resamples must be at least 1, found 0")
    confidence = check_probability(confidence, "confidence")
    seed = check_unsigned(seed, "seed")
    threads = check_threads(threads)
    function, fast_name = _named_metric(metric)
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
    fast = _ranking_fast_path(fast_name, y_true, y_other, metric_kwargs)
    if fast is not None:
        from . import _ranking
        # The function itself first: it checks the labels, pos_label and options as it would
        # without the bootstrap (an unknown pos_label is an error, not AP = 0).
        kwargs = dict(metric_kwargs)
        if sample_weight is not None:
            kwargs["sample_weight"] = weights
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            function(y_true, y_other, **kwargs)
        if fast == "roc_auc":  # scikit-learn: the greater label is the positive class
            labels = (y_true == np.unique(y_true)[-1]).astype(np.uint8)
        else:
            labels = _ranking._is_in(y_true, metric_kwargs.get("pos_label", 1))
        with reporting(progress):
            return BootstrapResult(_assay._bootstrap_ranking(
                labels, np.asarray(y_other, dtype=np.float64), weights, fast,
                metric_kwargs.get("method", "step"), metric_kwargs.get("grid", "exact"),
                metric_kwargs.get("tie_mode", "group"), n_resamples, confidence, seed, threads))
    resamples = _Resamples(function, y_true, y_other, sample_weight, metric_kwargs)
    with reporting(progress):
        result = _assay._bootstrap_counts(n, resamples, weights, n_resamples, confidence, seed)
    resamples.warn(n_resamples)
    return BootstrapResult(result)


def summarize_runs(values, by=None, html=None, x_title="meta-parameter", y_title="value",
                   log_x=False):
    """Summarise a metric across runs: mean, sample SD (ddof=1), min, max and n.

    With ``by`` (a meta-parameter value per run) there is one summary per distinct value,
    ascending: arrays ``by, mean, sd, min, max, n``, the trend to plot as mean +- SD
    against the meta-parameter. ``html`` also writes a page with that trend chart (mean line,
    +- SD band; ``log_x`` for a meta-parameter spread over decades) and the table. The SD of a
    single run is NaN, with a warning.

    Parameters
    ----------
    values : array-like of shape (n_runs,)
        The metric of each run (e.g. of each seed); finite.
    by : array-like of shape (n_runs,), default=None
        The meta-parameter value of each run. None: one summary of all runs.
    html : str or path-like, default=None
        With ``by``: also write the trend chart and table to this HTML file.
    x_title : str, default='meta-parameter'
        Title of the chart's x axis.
    y_title : str, default='value'
        Title of the chart's y axis.
    log_x : bool, default=False
        Logarithmic x axis.

    Returns
    -------
    RunSummary
        A dict. Without ``by``: ``{"mean", "sd", "min", "max", "n"}`` as numbers; with ``by``: the
        same keys plus ``"by"``, each an ndarray of shape (n_values,).

    Raises
    ------
    AssayError
        If there is no value, a value is NaN or infinite, or ``by`` differs in length.

    See Also
    --------
    bootstrap : An interval from one run's samples.

    Examples
    --------
    >>> from assay.metrics import summarize_runs
    >>> summary = summarize_runs([0.80, 0.82, 0.79, 0.83])
    >>> print(round(summary["mean"], 4), round(summary["sd"], 4), summary["n"])
    0.81 0.0183 4
    >>> summarize_runs([0.80, 0.82, 0.79, 0.83], by=[1, 1, 10, 10])["sd"]
    array([0.01414214, 0.02828427])
    """
    values = np.asarray(values, dtype=np.float64)
    if by is None:
        return RunSummary(_assay.summarize_runs(values))
    by = np.asarray(by, dtype=np.float64)
    if html is not None:
        _assay._runs_html(values, by, x_title, y_title, bool(log_x), str(html))
    return RunSummary(_assay.summarize_runs_by(values, by))
