"""Charts and self-contained HTML pages from Python (the same builders the CLI uses).

Chart functions return Vega-Lite specs as dicts; ``Page`` collects headings, paragraphs, tables,
charts and JSON blocks and writes one HTML file with the chart library inlined (works offline).

    from assay import metrics, report
    p, r, _ = metrics.precision_recall_curve(y, s)
    page = report.Page("My model")
    page.chart("PR curve", report.pr_curve_chart([("model", r, p)]))
    page.write("model.html")
"""
import json

import numpy as np

from . import _assay

__all__ = ["pr_curve_chart", "roc_curve_chart", "confusion_matrix_chart", "reliability_chart",
           "trend_chart", "Page"]

_NAN = float("nan")


def _col(values):
    return np.asarray(values, dtype=np.float64).ravel().tolist()


def pr_curve_chart(series, title="", width=400, height=300):
    """series: (name, recall, precision[, interpolated_precision[, average_precision]]) tuples.
    Step lines, interpolated precision dotted (source 000, Figure 44)."""
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
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.render())
        return path
