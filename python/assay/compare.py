"""assay.compare: which model is better, by how much, with what certainty, on which slices, and
may it ship? The Python twin of ``assay compare`` (one library entry point, the same options)::

    from assay.compare import compare
    r = compare(y, {"production": p_old, "candidate": p_new}, by={"region": region},
                metrics=["roc_auc", "average_precision", "recall@precision>=0.9"],
                gates=["roc_auc >= 0.85", "average_precision drop <= 0.01 vs production"])
    r.differences          # pandas: model - baseline, intervals, p-values (Holm-adjusted)
    r.passed, r.conclusions

docs/compare.md explains every number.
"""
import json
import numbers
import os

import numpy as np

from . import _assay
from ._progress import reporting
from ._results import compare_html
from ._compare_points import choose_operating_point
from ._compare_statistics import (adjust_p_values, bca_interval, bootstrap_p_value,
                                  delong_difference, mcnemar_exact, percentile_interval,
                                  permutation_p_value)
from ._evaluate import _label_name
from ._options import check_finite_number, check_probability, check_resamples, check_threads, \
    check_unsigned

__all__ = ["compare", "CompareResult", "choose_operating_point", "adjust_p_values",
           "bca_interval", "bootstrap_p_value", "delong_difference", "mcnemar_exact",
           "percentile_interval", "permutation_p_value"]


class CompareResult:
    """The result of :func:`compare`: tidy pandas tables and the JSON document.

    Parameters
    ----------
    document : dict
        The ``--json`` document of ``assay compare``, as ``compare`` receives it.

    Attributes
    ----------
    metrics : pandas.DataFrame
        Columns model, metric, value, low, high, threshold.
    differences : pandas.DataFrame
        Columns model, baseline, metric, difference, low, high, bca_low, bca_high, p_value,
        test, p_adjusted.
    slices : pandas.DataFrame
        Columns column, slice, model, metric, value, low, high, threshold, n_examples, support,
        too_small.
    slice_differences : pandas.DataFrame
        The differences per slice (column, slice and the columns of ``differences``).
    worst_slices : pandas.DataFrame
        The slice of each model and metric furthest below the whole, with the gap.
    gates : pandas.DataFrame
        Columns gate, model, value, estimate, low, high, passed, message.
    passed : bool or None
        Whether every gate passed; None without gates.
    baseline : str
        The name of the baseline model.
    conclusions : list of str
        One sentence each.
    notes : list of str
        Remarks on the inputs and the statistics.
    json : dict
        The CLI's ``--json`` document as a dict, NaN as None.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.compare import compare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> old = np.clip(0.5 + 0.2 * (y - 0.5) + rng.normal(0, 0.25, 200), 0, 1)
    >>> new = np.clip(0.5 + 0.35 * (y - 0.5) + rng.normal(0, 0.25, 200), 0, 1)
    >>> region = rng.choice(["north", "south"], 200)
    >>> result = compare(y, {"production": old, "candidate": new}, by={"region": region},
    ...                  metrics=["roc_auc", "average_precision"], gates=["roc_auc >= 0.7"],
    ...                  n_resamples=200, progress=False)
    >>> type(result).__name__
    'CompareResult'
    >>> result.baseline, result.passed
    ('production', True)
    >>> result.metrics[["model", "metric"]].values.tolist()
    [['production', 'roc_auc'], ['production', 'average_precision'],
     ['candidate', 'roc_auc'], ['candidate', 'average_precision']]
    """

    def __init__(self, document):
        import pandas as pd
        self.json = document
        self.conclusions = list(document["conclusions"])
        self.notes = list(document["notes"])
        self.passed = document["passed"]
        self.baseline = document["baseline"]
        self.metrics = pd.DataFrame(_metric_rows(document["models"]),
                                    columns=["model", "metric", "value", "low", "high",
                                             "threshold"])
        self.differences = pd.DataFrame([_difference_row(d) for d in document["differences"]],
                                        columns=_DIFFERENCE_COLUMNS)
        slice_rows, slice_diffs = [], []
        for s in document["slices"]:
            where = {"column": s["column"], "slice": s["value"]}
            for row in _metric_rows(s["models"]):
                slice_rows.append({**where, **row, "n_examples": s["n_examples"],
                                   "support": s["support"], "too_small": s["too_small"]})
            for d in s["differences"]:
                slice_diffs.append({**where, **_difference_row(d)})
        self.slices = pd.DataFrame(slice_rows)
        self.slice_differences = pd.DataFrame(slice_diffs)
        self.worst_slices = pd.DataFrame([
            {"model": w["model"], "metric": w["metric"], "column": w["column"],
             "value": w["value"], "slice_value": w["slice"]["value"],
             "slice_low": w["slice"]["low"], "slice_high": w["slice"]["high"],
             "gap": w["gap"]["value"], "gap_low": w["gap"]["low"], "gap_high": w["gap"]["high"]}
            for w in document["worst_slices"]])
        self.gates = pd.DataFrame(document["gates"],
                                  columns=["gate", "model", "value", "estimate", "low", "high",
                                           "passed", "message"])

    def __repr__(self):
        lines = [f"CompareResult (baseline {self.baseline})"] + \
            [f"  {c}" for c in self.conclusions]
        if self.passed is not None:
            lines.append(f"  gates: {'all passed' if self.passed else 'FAILED'}")
        return "\n".join(lines)

    def _repr_html_(self):  # Jupyter: the conclusions, the metrics table and the differences
        return compare_html(self)


_DIFFERENCE_COLUMNS = ["model", "baseline", "metric", "difference", "low", "high", "bca_low",
                       "bca_high", "p_value", "test", "p_adjusted"]


def _nan(v):
    return float("nan") if v is None else v


def _metric_rows(models):
    return [{"model": m["name"], "metric": v["metric"], "value": _nan(v["value"]),
             "low": _nan(v["low"]), "high": _nan(v["high"]), "threshold": _nan(v["threshold"])}
            for m in models for v in m["metrics"]]


def _difference_row(d):
    return {"model": d["model"], "baseline": d["baseline"], "metric": d["metric"],
            "difference": _nan(d["difference"]), "low": _nan(d["percentile"]["low"]),
            "high": _nan(d["percentile"]["high"]), "bca_low": _nan(d["bca"]["low"]),
            "bca_high": _nan(d["bca"]["high"]), "p_value": _nan(d["p_value"]),
            "test": d["test"], "p_adjusted": _nan(d["p_adjusted"])}


def compare(y_true, models, *, by=None, bins=None, metrics=None, sample_weight=None,
            baseline=None, pairs="baseline", task="auto", pos_label=None, threshold=0.5,
            ap_method="step", n_resamples=1000, confidence=0.95, seed=0, test="auto",
            n_permutations=1000, correction="holm", gates=None, gate_on="point",
            min_slice_size=30, threads=0, html=None, progress=True):
    """Compare two or more models scored on the same examples (``assay compare``).

    The first model (or ``baseline``) is the one the others are compared with
    (``pairs="all"``: every pair). Intervals come from ``n_resamples`` paired bootstrap
    resamples (``seed``; identical at any ``threads``); p-values from ``test``, adjusted by
    ``correction``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Labels (any two or more classes) or regression targets.
    models : dict of str to array-like
        ``{name: scores}``: 1-D (the positive class's score, a regression prediction, or
        predicted classes) or 2-D (n, K) per-class scores in sorted class order.
    by : dict, pandas.DataFrame or pandas.Series, default=None
        Slicing columns: a dict ``{name: array}``, a DataFrame or a Series.
    bins : dict of str to int, default=None
        Maps a numeric slicing column to a number of quantile bins.
    metrics : list of str, default=None
        Metric names (docs/compare.md), including operating points such as
        ``"recall@precision>=0.9"``. None: the task's headline set.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each example. None: every example weighs 1.
    baseline : str, default=None
        The model the others are compared with. None: the first.
    pairs : {"baseline", "all"}, default="baseline"
        Compare every model with the baseline, or every pair.
    task : {"auto", "binary", "multiclass", "regression"}, default="auto"
        "auto": regression when the labels have fractions or more than 50 distinct whole values
        with fewer than 10 samples per value, else by the class count.
    pos_label : int, float, bool or str, default=None
        The positive class of binary scores. None: the greater label.
    threshold : float, default=0.5
        Threshold metrics use score >= threshold.
    ap_method : str, default="step"
        The average precision convention (see ``assay.metrics.average_precision_score``).
    n_resamples : int, default=1000
        Paired bootstrap resamples.
    confidence : float, default=0.95
        The intervals' confidence level.
    seed : int, default=0
        Seed of the resampling and permutations.
    test : {"auto", "bootstrap", "permutation"}, default="auto"
        "auto": DeLong for roc_auc, exact McNemar for accuracy, else the paired bootstrap;
        "bootstrap"; "permutation" with ``n_permutations``.
    n_permutations : int, default=1000
        Permutations of the permutation test.
    correction : {"holm", "bonferroni", "fdr_bh", "none"}, default="holm"
        The multiple-comparison correction of the p-values.
    gates : list of str, default=None
        Conditions as ``assay compare --gate`` takes them.
    gate_on : {"point", "lower", "upper", "interval"}, default="point"
        What the gates are evaluated on.
    min_slice_size : int, default=30
        A slice with fewer examples (or, for binary labels, fewer than 10 of either class) is
        flagged ``too_small`` with a warning.
    threads : int, default=0
        Threads; 0 = all cores. The results do not depend on it.
    html : str or os.PathLike, default=None
        Also write the page there.
    progress : bool, default=True
        A progress bar while it runs (on a terminal's stderr, or in Jupyter).

    Returns
    -------
    CompareResult
        The tables, the gates' verdict, the conclusions and the JSON document.

    Raises
    ------
    assay.AssayError
        Fewer than two models, columns of different lengths or with the same name, a bad
        ``by`` or ``bins``, or bad options.

    Examples
    --------
    >>> import numpy as np
    >>> from assay.compare import compare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> old = np.clip(0.5 + 0.2 * (y - 0.5) + rng.normal(0, 0.25, 200), 0, 1)
    >>> new = np.clip(0.5 + 0.35 * (y - 0.5) + rng.normal(0, 0.25, 200), 0, 1)
    >>> region = rng.choice(["north", "south"], 200)
    >>> result = compare(y, {"production": old, "candidate": new}, by={"region": region},
    ...                  metrics=["roc_auc", "average_precision"], gates=["roc_auc >= 0.7"],
    ...                  n_resamples=200, progress=False)
    >>> table = result.differences
    >>> table[["model", "baseline", "metric", "test"]].values.tolist()
    [['candidate', 'production', 'roc_auc', 'DeLong'],
     ['candidate', 'production', 'average_precision', 'paired bootstrap']]
    >>> round(table["difference"][0], 3)
    0.126
    >>> result.passed
    True
    """
    if not isinstance(models, dict) or len(models) < 2:
        raise _assay.AssayError("models: expected a dict of two or more name -> scores")
    if isinstance(html, (bool, numbers.Number)):
        raise _assay.AssayError(f"html: expected a file name, found {html!r}")
    y = np.asarray(y_true)
    columns, names = [("y_true", y)], {"y_true"}
    model_columns = []
    for name, scores in models.items():
        name = str(name)
        s = np.asarray(scores)
        if s.ndim == 2:
            cols = [f"{name}[{k}]" for k in range(s.shape[1])]
            for k, col in enumerate(cols):
                columns.append((col, np.ascontiguousarray(s[:, k])))
        elif s.ndim == 1:
            cols = [name]
            columns.append((name, s))
        else:
            raise _assay.AssayError(f"model {name!r}: expected 1-D or 2-D scores, found "
                                    f"{s.ndim} dimensions")
        _claim(names, cols)
        model_columns.append((name, cols))
    weight = ""
    if sample_weight is not None:
        weight = "sample_weight"
        _claim(names, [weight])
        columns.append((weight, np.asarray(sample_weight, dtype=np.float64)))
    by_specs = []
    slices = _slice_columns(by)
    for name, values in slices:
        _claim(names, [name])
        columns.append((name, values))
        count = (bins or {}).get(name)
        by_specs.append(name if count is None else f"{name}:{check_unsigned(count, 'bins')}")
    unknown = set(bins or {}) - {name for name, _ in slices}
    if unknown:
        raise _assay.AssayError(f"bins: {sorted(unknown)[0]!r} is not a slicing column")
    n = len(y)
    for col, values in columns:
        if len(values) != n:
            raise _assay.AssayError(f"{col}: expected {n} values (as y_true), found {len(values)}")
    options = {
        "metrics": [str(m) for m in (metrics or [])],
        "baseline": "" if baseline is None else str(baseline),
        "pairs": str(pairs),
        "pos_label": _label_name(pos_label),
        "threshold": check_finite_number(threshold, "threshold"),
        "ap_method": str(ap_method),
        "n_resamples": check_resamples(n_resamples, "n_resamples"),
        "confidence": check_probability(confidence, "confidence"),
        "seed": check_unsigned(seed, "seed"),
        "test": str(test),
        "n_permutations": check_resamples(n_permutations, "n_permutations"),
        "correction": str(correction),
        "min_slice_size": check_unsigned(min_slice_size, "min_slice_size"),
        "threads": check_threads(threads),
    }
    with reporting(progress):
        out = _assay._compare(columns, "y_true", model_columns, by_specs, weight, str(task),
                              options, [str(g) for g in (gates or [])], str(gate_on),
                              os.fspath(html) if html else "", bool(progress))
    return CompareResult(json.loads(out))


def _claim(names, cols):
    for col in cols:
        if col in names:
            raise _assay.AssayError(f"two columns are named {col!r} (models, slices, y_true and "
                                    "sample_weight need distinct names)")
        names.add(col)


def _slice_columns(by):
    """(name, 1-D array) pairs from a dict, DataFrame, Series or None."""
    if by is None:
        return []
    if hasattr(by, "to_dict") and hasattr(by, "columns"):  # DataFrame
        return [(str(c), np.asarray(by[c])) for c in by.columns]
    if hasattr(by, "name") and hasattr(by, "to_numpy"):  # Series
        return [(str(by.name or "slice"), by.to_numpy())]
    if isinstance(by, dict):
        return [(str(k), np.asarray(v)) for k, v in by.items()]
    raise _assay.AssayError("by: expected a dict of name -> array, a DataFrame or a Series, "
                            f"found {type(by).__name__}")
