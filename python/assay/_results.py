"""Result objects of assay's Python functions: dicts (existing code that indexes them keeps
working) that print as a few headline lines and show, in Jupyter, a table and a small chart."""
import base64
import html
import io
import math
import numbers

import numpy as np

__all__ = ["Result", "BootstrapResult", "RunSummary", "EvaluationResult", "MetricSummary",
           "RegressionMetricsResult", "RegressionEvaluationResult", "PartitionResult",
           "CountResult"]


def _text(value):
    """A number in 4 significant digits (NaN and None as "nan"); anything else as str()."""
    if value is None:
        return "nan"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        value = int(value)
        if value.bit_length() <= 64:
            return str(value)
        # an exact count of 2^1000000 models: its magnitude (str() would print 301030 digits)
        exponent = math.log10(abs(value))
        mantissa = 10 ** (exponent - math.floor(exponent))
        return f"{'-' if value < 0 else ''}{mantissa:.4f}e+{math.floor(exponent)}"
    if isinstance(value, numbers.Real):
        return "nan" if math.isnan(value) else f"{float(value):.4g}"
    return str(value)


def _interval(low, high):
    """"[low, high]", or "" when there is no interval (both NaN or None)."""
    if all(v is None or (isinstance(v, numbers.Real) and math.isnan(v)) for v in (low, high)):
        return ""
    return f"[{_text(low)}, {_text(high)}]"


def _plain(value):
    """Nested results as plain dicts and lists (arrays kept)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _png(draw):
    """`draw(ax)` on a small Agg figure as a base64 PNG <img>, or "" when it draws nothing or
    matplotlib is missing (the table alone still shows)."""
    try:
        from matplotlib.figure import Figure
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError:
        return ""
    figure = Figure(figsize=(4.2, 2.8), dpi=80)
    FigureCanvasAgg(figure)  # Agg without touching pyplot's global backend
    ax = figure.add_subplot()
    if not draw(ax):
        return ""
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="chart" src="data:image/png;base64,{data}"/>'


def _html_table(header, rows):
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


class Result(dict):
    """A dict of results that shows its headline numbers.

    Indexing, iteration, ``len``, ``in`` and :func:`json.dumps` work as on the dict the
    function used to return; ``repr`` gives a few lines (the headline numbers, never whole
    arrays); in Jupyter, ``_repr_html_`` shows a table of them and a small chart.

    Methods
    -------
    headline()
        The rows ``(name, value)`` that ``repr`` and the HTML table show.
    to_dict()
        A plain ``dict`` (nested results as plain dicts).
    to_frame()
        The headline as a pandas DataFrame.
    """

    title = "Result"
    header = ("name", "value")

    def headline(self):
        """The rows shown by ``repr`` and the HTML table.

        Returns
        -------
        list of tuple
            One tuple of cells per row, matching ``header``.
        """
        rows = []
        for key, value in self.items():
            if isinstance(value, (numbers.Number, str, type(None))):
                rows.append((key, _text(value)))
        return rows

    def to_dict(self):
        """The results as a plain dict.

        Returns
        -------
        dict
            The same keys and values; nested result objects become plain dicts.
        """
        return _plain(dict(self))

    def to_frame(self):
        """The headline numbers as a table.

        Returns
        -------
        pandas.DataFrame
            One row per headline row, the columns of ``header``.
        """
        import pandas as pd
        return pd.DataFrame(self.headline(), columns=list(self.header))

    def _draw(self, ax):  # a subclass draws its chart on `ax` and returns True
        return False

    def __repr__(self):
        rows = [tuple(map(str, r)) for r in self.headline()]
        if len(self.header) > 2:  # a table: its header above aligned columns
            rows.insert(0, tuple(self.header))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))] if rows else []
        lines = [self.title]
        lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                  for r in rows]
        return "\n".join(lines)

    def _repr_pretty_(self, printer, cycle):  # IPython's plain-text display: the short repr
        printer.text(repr(self) if not cycle else f"{self.title}(...)")

    def _repr_html_(self):
        return (f'<div class="assay-result"><strong>{html.escape(self.title)}</strong>'
                f"{_html_table(self.header, self.headline())}{_png(self._draw)}</div>")


class BootstrapResult(Result):
    """The result of :func:`assay.metrics.bootstrap`: the estimate and its interval.

    A dict with keys ``estimate``, ``low``, ``high``, ``standard_error``, ``confidence``,
    ``n_resamples``, ``seed``, ``n_undefined`` and ``replicates`` (the metric on each
    resample). Its ``repr`` shows the estimate and interval, not the replicates; its HTML
    shows them and a histogram of the replicates.

    Examples
    --------
    >>> from assay.metrics import accuracy_score, bootstrap
    >>> r = bootstrap(accuracy_score, [0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 0, 1, 1],
    ...               n_resamples=200, seed=1)
    >>> r
    bootstrap: estimate 0.875, 95% interval [0.625, 1]
      standard_error 0.1262
      n_resamples 200
      n_undefined 0
    >>> r["estimate"] == r.estimate
    True
    >>> len(r["replicates"])
    200
    """

    title = "bootstrap"

    @property
    def estimate(self):
        """float: the metric on the full data."""
        return self["estimate"]

    @property
    def interval(self):
        """tuple of float: ``(low, high)``."""
        return self["low"], self["high"]

    def headline(self):
        rows = [("estimate", _text(self.get("estimate"))),
                ("interval", _interval(self.get("low"), self.get("high")))]
        for key in ("standard_error", "confidence", "n_resamples", "n_undefined"):
            if key in self:
                rows.append((key, _text(self[key])))
        return rows

    def __repr__(self):
        level = f"{100 * self['confidence']:g}% " if "confidence" in self else ""
        first = (f"{self.title}: estimate {_text(self.get('estimate'))}, {level}interval "
                 f"{_interval(self.get('low'), self.get('high')) or 'none'}")
        rest = [f"  {k} {_text(self[k])}" for k in ("standard_error", "n_resamples",
                                                   "n_undefined") if k in self]
        return "\n".join([first] + rest)

    def _draw(self, ax):
        values = np.asarray(self.get("replicates", []), dtype=float)
        values = values[np.isfinite(values)]
        if values.size == 0:
            return False
        ax.hist(values, bins=min(30, max(5, values.size // 10)), color="#9ab")
        for x, style in ((self.get("estimate"), "-"), (self.get("low"), "--"),
                         (self.get("high"), "--")):
            if x is not None and np.isfinite(x):
                ax.axvline(x, color="#234", linestyle=style)
        ax.set_xlabel("metric on each resample")
        ax.set_ylabel("resamples")
        return True


class RunSummary(Result):
    """The result of :func:`assay.metrics.summarize_runs`.

    Without ``by``: a dict ``mean``, ``sd``, ``min``, ``max``, ``n``. With ``by``: a dict of
    arrays ``by``, ``mean``, ``sd``, ``min``, ``max``, ``n`` (one entry per meta-parameter
    value), shown as a table and a mean ± SD chart.

    Examples
    --------
    >>> from assay.metrics import summarize_runs
    >>> print(repr(summarize_runs([0.8, 0.9, 1.0])))
    runs: mean 0.9, sd 0.1, min 0.8, max 1, n 3
    """

    title = "runs"

    def _trend(self):
        return "by" in self

    @property
    def header(self):
        return ("by", "mean", "sd", "min", "max", "n") if self._trend() else ("name", "value")

    def headline(self):
        if not self._trend():
            return [(k, _text(self[k])) for k in ("mean", "sd", "min", "max", "n")]
        return [tuple(_text(self[k][i]) for k in self.header) for i in range(len(self["by"]))]

    def to_frame(self):
        """The summary as a table.

        Returns
        -------
        pandas.DataFrame
            With ``by``: one row per meta-parameter value (columns by, mean, sd, min, max, n);
            without: one row (mean, sd, min, max, n).
        """
        import pandas as pd
        if self._trend():
            return pd.DataFrame({k: self[k] for k in self.header})
        return pd.DataFrame([{k: self[k] for k in ("mean", "sd", "min", "max", "n")}])

    def __repr__(self):
        if not self._trend():
            return f"{self.title}: " + ", ".join(f"{k} {v}" for k, v in self.headline())
        return super().__repr__()

    def _draw(self, ax):
        if not self._trend() or len(self["by"]) == 0:
            return False
        by, mean, sd = (np.asarray(self[k], dtype=float) for k in ("by", "mean", "sd"))
        ax.plot(by, mean, marker="o", color="#234")
        ax.fill_between(by, mean - np.nan_to_num(sd), mean + np.nan_to_num(sd), color="#9ab",
                        alpha=0.5)
        ax.set_xlabel("by")
        ax.set_ylabel("mean ± SD")
        return True


class MetricSummary(dict):
    """The summary metrics of :func:`assay.metrics.evaluate`, keyed by stable names.

    Keys are snake_case names that do not depend on the number of classes (``roc_auc`` is the
    binary ROC AUC and the one-vs-rest macro average alike); each value is a dict ``id`` (the
    key), ``value``, ``low``, ``high`` (the bootstrap interval, None without one) and ``label``
    (the display label the CLI prints, e.g. "ROC AUC (one-vs-rest, macro)"). A display label is
    still accepted as a key (``summary["ROC AUC"]``), as before the stable names.
    """

    def __missing__(self, key):
        for entry in self.values():
            if entry.get("label") == key:
                return entry
        raise KeyError(key)


class EvaluationResult(Result):
    """The result of :func:`assay.metrics.evaluate`: the CLI's JSON document as a dict.

    ``summary`` is a :class:`MetricSummary` keyed by stable names (``roc_auc``,
    ``average_precision``, ``log_loss``, ``brier``, ``accuracy``, ``f1_macro``, ...); the other
    keys are the document's (``per_class``, ``confusion_matrix``, ``calibration``, ``curves``,
    ``notes``...). ``repr`` shows the summary; the HTML adds the ROC curves;
    :meth:`to_document` gives the document exactly as ``assay metrics --json`` prints it.

    Examples
    --------
    >>> from assay.metrics import evaluate
    >>> r = evaluate([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> r["summary"]["roc_auc"]
    {'id': 'roc_auc', 'value': 0.75, 'low': None, 'high': None, 'label': 'ROC AUC'}
    >>> repr(r).splitlines()[:2]
    ["evaluation: 4 samples, 2 classes, positive class '1'", '  accuracy           0.75']
    >>> r.to_document()["summary"]["ROC AUC"]["id"]
    'roc_auc'
    """

    title = "evaluation"
    header = ("metric", "value", "interval", "label")

    def headline(self):
        return [(key, _text(m["value"]), _interval(m["low"], m["high"]), m["label"])
                for key, m in self["summary"].items()]

    def __repr__(self):
        classes = self.get("classes", [])
        about = (f"{self['n_samples']} samples, {len(classes)} classes"
                 + (f", positive class {self['positive_class']!r}"
                    if self.get("binary") else ""))
        rows = [(k, v, i) for k, v, i, _ in self.headline()]
        width = max((len(r[0]) for r in rows), default=0)
        return "\n".join([f"{self.title}: {about}"] +
                         [f"  {k.ljust(width)}  {v} {i}".rstrip() for k, v, i in rows])

    def to_document(self):
        """The document as ``assay metrics --json`` prints it.

        Returns
        -------
        dict
            The same as this dict, except ``summary``: keyed by display label, each entry
            ``id``, ``value``, ``low``, ``high``.
        """
        summary = {m["label"]: {k: v for k, v in m.items() if k != "label"}
                   for m in self["summary"].values()}
        return {**self.to_dict(), "summary": summary}

    def to_frame(self):
        """The summary metrics as a table.

        Returns
        -------
        pandas.DataFrame
            Columns metric (the stable name), value, low, high, label.
        """
        import pandas as pd
        return pd.DataFrame(
            [{"metric": k, "value": m["value"], "low": m["low"], "high": m["high"],
              "label": m["label"]} for k, m in self["summary"].items()],
            columns=["metric", "value", "low", "high", "label"])

    def _draw(self, ax):
        curves = (self.get("curves") or {}).get("roc") or []
        drawn = False
        for curve in curves[:10]:
            if "fpr" in curve and "tpr" in curve:
                ax.plot(curve["fpr"], curve["tpr"], label=str(curve.get("class", "")))
                drawn = True
        if not drawn:
            return False
        ax.plot([0, 1], [0, 1], color="#bbb", linestyle=":")
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        if len(curves) > 1:
            ax.legend(fontsize="small")
        return True


def evaluation_result(document):
    """The evaluate() document with its summary keyed by the stable ids the C++ JSON carries."""
    summary = MetricSummary()
    for label, entry in document["summary"].items():
        summary[entry.get("id", label)] = {**entry, "label": label}
    return EvaluationResult({**document, "summary": summary})


class RegressionEvaluationResult(Result):
    """The result of :func:`assay.metrics.evaluate` with ``task="regression"``: the document of
    ``assay metrics --task regression --json`` as a dict (``target``, ``n_samples``, ``models``
    ``{name: {"summary": {id: {"label", "value", "low", "high"}}}}``, ``params``, ``notes``).
    ``repr`` shows one row per model and metric; the HTML draws each model's MAE with its
    interval.

    Examples
    --------
    >>> from assay.metrics import evaluate
    >>> r = evaluate([3, -0.5, 2, 7], y_pred={"ridge": [2.5, 0.0, 2, 8]}, task="regression")
    >>> repr(r).splitlines()[:3]
    ['regression evaluation: 4 samples, target y, 1 model', '  ridge  mae   0.5', '  ridge  rmse  0.6124']
    """

    title = "regression evaluation"
    header = ("model", "metric", "value", "interval", "label")

    def headline(self):
        return [(name, key, _text(m["value"]), _interval(m["low"], m["high"]), m["label"])
                for name, model in self["models"].items()
                for key, m in model["summary"].items()]

    def __repr__(self):
        n_models = len(self["models"])
        about = (f"{self['n_samples']} samples, target {self['target']}, {n_models} model"
                 + ("" if n_models == 1 else "s"))
        rows = [r[:4] for r in self.headline()]
        widths = [max((len(r[i]) for r in rows), default=0) for i in range(2)]
        return "\n".join([f"{self.title}: {about}"] +
                         [f"  {m.ljust(widths[0])}  {k.ljust(widths[1])}  {v} {i}".rstrip()
                          for m, k, v, i in rows])

    def to_document(self):
        """The document as ``assay metrics --task regression --json`` prints it.

        Returns
        -------
        dict
            A plain dict with the same keys and values.
        """
        return self.to_dict()

    def _draw(self, ax):
        names = list(self["models"])
        values = [self["models"][k]["summary"].get("mae", {}).get("value") for k in names]
        if not names or any(v is None for v in values):
            return False
        ax.barh(names, values, color="#9ab")
        for i, k in enumerate(names):
            mae = self["models"][k]["summary"]["mae"]
            if mae["low"] is not None and mae["high"] is not None:
                ax.plot([mae["low"], mae["high"]], [i, i], color="#234")
        ax.set_xlabel("MAE (interval)")
        return True


def regression_evaluation_result(document):
    """evaluate(task="regression")'s document as a RegressionEvaluationResult."""
    return RegressionEvaluationResult(document)


class RegressionMetricsResult(Result):
    """The result of :func:`assay.shift.regression_metrics`: one :class:`BootstrapResult`-like
    dict per metric (``rmse``, ``mae``, ``mape``, ``r2``...), shown as estimate and interval.

    Examples
    --------
    >>> from assay.shift import regression_metrics
    >>> regression_metrics([1.0, 2.0, 3.0, 4.0], [1.1, 1.9, 3.2, 3.9])
    regression metrics
      metric  estimate  interval
      rmse    0.1323
      mae     0.125
      mape    0.06042
      r2      0.986
    """

    title = "regression metrics"
    header = ("metric", "estimate", "interval")

    def headline(self):
        return [(k, _text(v.get("estimate")), _interval(v.get("low"), v.get("high")))
                for k, v in self.items()]

    def _draw(self, ax):
        names = list(self)
        if not names:
            return False
        estimates = [float(np.nan if self[k].get("estimate") is None else self[k]["estimate"])
                     for k in names]
        ax.barh(names, estimates, color="#9ab")
        for i, k in enumerate(names):
            low, high = self[k].get("low"), self[k].get("high")
            if low is not None and high is not None and np.isfinite([low, high]).all():
                ax.plot([low, high], [i, i], color="#234")
        ax.set_xlabel("estimate (interval)")
        return True


class PartitionResult(Result):
    """The result of :func:`assay.shift.evaluate_partitions`: the ``assay shift --json``
    document as a dict; ``repr`` and the HTML show the main columns of its rows, ``to_frame()``
    all of them.

    Examples
    --------
    >>> from assay.shift import evaluate_partitions
    >>> p = evaluate_partitions([1.0, 2.0, 3.0, 4.0], {"m": [1.1, 1.8, 3.3, 4.1]},
    ...                         {"m": [0.1, 0.2, 0.4, 0.3]},
    ...                         partition=["dev_in", "dev_in", "dev_out", "dev_out"])
    >>> p.to_frame()["rmse"].round(4).tolist()
    [0.1581, 0.2236, 0.1936, 0.1936]
    """

    title = "partitions"
    # The columns shown (to_frame() has them all): the sizes, the errors, the retention numbers.
    _COLUMNS = ("set", "model", "n", "n_shifted", "rmse", "mae", "r2", "r_auc", "prr", "f1_auc",
                "ood_auroc")

    def _rows(self):
        rows = self.get("rows") or self.get("table") or []
        return rows if isinstance(rows, list) and all(isinstance(r, dict) for r in rows) else []

    @property
    def header(self):
        rows = self._rows()
        if not rows:
            return ("name", "value")
        return tuple(k for k in self._COLUMNS if k in rows[0])

    def headline(self):
        rows = self._rows()
        if not rows:
            return super().headline()
        return [tuple(_text(_value(r.get(k))) for k in self.header) for r in rows]

    def _draw(self, ax):
        rows = [r for r in self._rows() if _is_estimate(r.get("rmse"))]
        if not rows:
            return False
        labels = [f"{r.get('model', '')} {r.get('set', '')}".strip() for r in rows]
        ax.barh(labels, [float(_value(r["rmse"]) or np.nan) for r in rows], color="#9ab")
        ax.invert_yaxis()
        ax.set_xlabel("RMSE")
        return True

    def to_frame(self):
        """The partition table.

        Returns
        -------
        pandas.DataFrame
            One row per row of the document (set, model, ...); an estimate with an interval
            gives three columns (``rmse``, ``rmse_low``, ``rmse_high``).
        """
        import pandas as pd
        rows = self._rows()
        if not rows:
            return super().to_frame()
        flat = []
        for row in rows:
            out = {}
            for key, cell in row.items():
                if _is_estimate(cell):
                    out[key], out[f"{key}_low"], out[f"{key}_high"] = (
                        cell["value"], cell.get("low"), cell.get("high"))
                else:
                    out[key] = cell
            flat.append(out)
        return pd.DataFrame(flat)


def _is_estimate(cell):
    return isinstance(cell, dict) and "value" in cell


def _value(cell):
    """A table cell's number: the value of an estimate {value, low, high}, else the cell."""
    return cell["value"] if _is_estimate(cell) else cell


class CountResult(Result):
    """The result of the counts in :mod:`assay.count`: the CLI's JSON document as a dict;
    ``repr`` and the HTML show its top-level numbers and text (a huge exact count by its
    magnitude).

    Examples
    --------
    >>> from assay.count import count_cnf
    >>> count_cnf([[1, 2], [-1, 3]])["count"]
    4
    """

    title = "count"


def compare_html(result):
    """The HTML of a CompareResult: conclusions, a metrics table and a chart of each model's
    difference from its baseline with its interval."""
    conclusions = "".join(f"<li>{html.escape(c)}</li>" for c in result.conclusions)
    rows = [(r.model, r.metric, _text(r.value), _interval(r.low, r.high))
            for r in result.metrics.itertuples(index=False)]
    table = _html_table(("model", "metric", "value", "interval"), rows)

    def draw(ax):
        d = result.differences
        if d.empty:
            return False
        labels = [f"{m} - {b}: {k}" for m, b, k in zip(d["model"], d["baseline"], d["metric"])]
        y = np.arange(len(labels))
        ax.plot(d["difference"], y, "o", color="#234")
        ax.hlines(y, d["low"], d["high"], color="#234")
        ax.axvline(0, color="#bbb", linestyle=":")
        ax.set_yticks(y, labels, fontsize="small")
        ax.invert_yaxis()
        ax.set_xlabel("difference (interval)")
        return True

    return (f'<div class="assay-result"><strong>compare (baseline '
            f"{html.escape(str(result.baseline))})</strong><ul>{conclusions}</ul>{table}"
            f"{_png(draw)}</div>")
