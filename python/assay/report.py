"""Charts and self-contained HTML pages from Python (the same builders the CLI uses), and
``build``: the whole report of ``assay report`` from a configuration file or dict.

Chart functions return Vega-Lite specs as dicts; ``Page`` collects headings, paragraphs, tables,
charts and JSON blocks and writes one HTML file with the chart library inlined (works offline).

    from assay import metrics, report
    p, r, _ = metrics.precision_recall_curve(y, s)
    page = report.Page("My model")
    page.chart("PR curve", report.pr_curve_chart([("model", r, p)]))
    page.write("model.html")

    report.build("report.toml")                 # = assay report report.toml
    report.build({"metrics": {"file": "preds.csv", "label": "y",
                              "models": {"a": "p_a", "b": "p_b"}}}, out="ab.html")
"""
import json
import os

import numpy as np

from . import _assay

__all__ = ["build", "pr_curve_chart", "roc_curve_chart", "confusion_matrix_chart", "reliability_chart",
           "trend_chart", "Page"]

_NAN = float("nan")


def build(config, out=None, *, check=False):
    """Builds the report of ``assay report``: one offline HTML page over every analysis the
    configuration names (metrics, soak, cv, shift, segment, count, compare; any subset), its tables as CSV
    in ``<page stem>_tables/`` and every number in ``<page stem>.json``.

    config: the path of a TOML file (relative paths in it are relative to its folder), or a dict
    of the same schema (docs/report-config.md; relative paths from the current folder). The dict
    may hold numpy scalars (np.int64, np.float64, np.bool_, ...), numpy arrays and tuples where
    the schema takes lists, and paths (os.PathLike) where it takes file names.
    out: the page's path (default: the configuration's ``out``, else report.html).
    check: only read and check the configuration and every input; run nothing.

    Returns the JSON document (the dict ``<stem>.json`` holds: "title", "summary", "claims" (the
    summary as data: kind, subjects, facts, text) and one entry per analysis, each as its
    subcommand's --json prints it) with "page" and "files" added; with
    check=True, {"checked": True, "page": ...}. Raises assay.AssayError with the configuration's
    file:line:col (or key path) for bad configuration and input, before any analysis runs.
    """
    if isinstance(config, dict):
        config = _plain(config)
    elif isinstance(config, (str, os.PathLike)):
        config = os.fspath(config)
    else:
        raise TypeError(f"config must be a path or a dict, found {type(config).__name__}")
    result = json.loads(_assay.report_build(config, os.getcwd(),
                                            "" if out is None else os.fspath(out), bool(check)))
    if check:
        return result
    document = result["document"]
    document["page"] = result["page"]
    document["files"] = result["files"]
    return document


def _plain(value):
    """The dict with numpy scalars as Python numbers, numpy arrays and tuples as lists and paths
    as strings, wherever the schema takes a value or a list (NaN stays NaN: the schema refuses it
    at its key)."""
    if isinstance(value, dict):
        return {k.item() if isinstance(k, np.generic) else k: _plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def _col(values):
    return np.asarray(values, dtype=np.float64).ravel().tolist()


def pr_curve_chart(series, title="", width=400, height=300):
    """series: (name, recall, precision[, interpolated_precision[, average_precision]]) tuples.
    Step lines, interpolated precision dotted (textbook Figure 44)."""
    rows = []
    for s in series:
        name, recall, precision, *rest = s
        interpolated = _col(rest[0]) if len(rest) > 0 and rest[0] is not None else []
        ap = float(rest[1]) if len(rest) > 1 else _NAN
        rows.append((str(name), _col(recall), _col(precision), interpolated, ap))
    return json.loads(_assay.pr_curve_chart(rows, title, width, height))


def roc_curve_chart(series, title="", width=400, height=300):
    """series: (name, fpr, tpr[, auc]) tuples; the chance diagonal is drawn dashed."""
    rows = [(str(name), _col(fpr), _col(tpr), float(rest[0]) if rest else _NAN)
            for name, fpr, tpr, *rest in series]
    return json.loads(_assay.roc_curve_chart(rows, title, width, height))


def confusion_matrix_chart(matrix, row_labels=None, col_labels=None, normalized=False, title="",
                           width=400, height=300):
    """Heat map of a (rectangular) confusion matrix; rows = actual, columns = predicted."""
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise _assay.AssayError(f"matrix must be 2-D, found {m.ndim} dimensions")
    rows = [str(v) for v in (row_labels if row_labels is not None else range(m.shape[0]))]
    cols = [str(v) for v in (col_labels if col_labels is not None else range(m.shape[1]))]
    return json.loads(_assay.confusion_matrix_chart(_col(m), rows, cols, bool(normalized), title,
                                                    width, height))


def reliability_chart(bins, title="", width=400, height=300):
    """Reliability diagram from the ``bins`` dict of ``metrics.calibration_error``."""
    return json.loads(_assay.reliability_chart(
        _col(bins["lower"]), _col(bins["upper"]), _col(bins["count"]), _col(bins["accuracy"]),
        _col(bins["confidence"]), title, width, height))


def trend_chart(series, x_title, y_title, log_x=False, title="", width=400, height=300):
    """series: (name, x, mean[, sd]) tuples, e.g. from ``metrics.summarize_runs(v, by=...)``;
    a mean line with a ± SD band against the meta-parameter."""
    rows = [(str(name), _col(x), _col(mean), _col(rest[0]) if rest else [])
            for name, x, mean, *rest in series]
    return json.loads(_assay.trend_chart(rows, x_title, y_title, bool(log_x), title, width,
                                         height))


class Page:
    """An HTML report page built block by block; ``write(path)`` makes one offline file."""

    def __init__(self, title):
        self.title = str(title)
        self._blocks = []

    def heading(self, text, level=2):
        self._blocks.append(("heading", str(text), int(level)))
        return self

    def paragraph(self, text):
        self._blocks.append(("paragraph", str(text)))
        return self

    def table(self, header, rows):
        self._blocks.append(("table", [str(h) for h in header],
                             [[str(c) for c in row] for row in rows]))
        return self

    def chart(self, title, spec):
        self._blocks.append(("chart", str(title), json.dumps(spec)))
        return self

    def json(self, title, value):
        self._blocks.append(("json", str(title), json.dumps(value)))
        return self

    def render(self):
        return _assay.render_html(self.title, self._blocks)

    def write(self, path):
        # Atomically, as every file assay writes: a failure leaves no truncated page.
        _assay._write_file_atomic(os.fspath(path), self.render().encode("utf-8"))
        return path
