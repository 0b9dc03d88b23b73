"""Charts and self-contained HTML pages from Python (the same builders the CLI uses), and
``build``: the whole report of ``assay report`` from a configuration file or dict.

Chart functions return Vega-Lite specs as dicts; ``Page`` collects headings, paragraphs, tables,
charts and JSON blocks and writes one HTML file with the chart library inlined (works offline)::

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
    """Build the report of ``assay report`` from a configuration.

    One offline HTML page over every analysis the configuration names (metrics, regression,
    soak, cv, shift, segment, count, compare; any subset), its tables as CSV in ``<page stem>_tables/``
    and every number in ``<page stem>.json``.

    Parameters
    ----------
    config : str, os.PathLike or dict
        The path of a TOML file (relative paths in it are relative to its folder), or a dict
        of the same schema (docs/report-config.md; relative paths from the current folder).
        The dict may hold numpy scalars (np.int64, np.float64, ``np.bool_``, ...), numpy arrays
        and tuples where the schema takes lists, and paths (os.PathLike) where it takes file
        names.
    out : str or os.PathLike, default=None
        The page's path. None: the configuration's ``out``, else report.html.
    check : bool, default=False
        Only read and check the configuration and every input; run nothing.

    Returns
    -------
    dict
        The JSON document (the dict ``<stem>.json`` holds: "title", "summary", "claims" (the
        summary as data: kind, subjects, facts, text), one entry per analysis, each as its
        subcommand's ``--json`` prints it, and "tables": every table of the page, by its CSV
        name, as a list of rows ``{column: value}``) with "page" (the page's path) and "files"
        (every file written) added. With
        ``check=True``, ``{"checked": True, "page": ...}``.

    Raises
    ------
    assay.AssayError
        Bad configuration or input, with the configuration's file:line:col (or key path),
        before any analysis runs.
    TypeError
        ``config`` is neither a path nor a dict.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import report
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 60)
    >>> rows = "".join(f"{t},{t * 0.4 + u * 0.6:.3f}\\n" for t, u in zip(y, rng.random(60)))
    >>> _ = open("preds.csv", "w").write("y,p_a\\n" + rows)
    >>> config = {"metrics": {"file": "preds.csv", "label": "y", "models": {"a": "p_a"}}}
    >>> report.build(config, out="a.html", check=True)["checked"]
    True
    >>> document = report.build(config, out="a.html")
    >>> sorted(document)
    ['claims', 'files', 'metrics', 'page', 'summary', 'tables', 'title']
    >>> document["tables"]["metrics-summary"][0]["metric"]
    'accuracy'
    >>> document["page"]
    'a.html'
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
    """Build a precision-recall chart (a Vega-Lite spec).

    Precision is drawn as step lines against recall, one per series; interpolated precision,
    when given, is drawn dotted (textbook Figure 44).

    Parameters
    ----------
    series : list of tuple
        ``(name, recall, precision[, interpolated_precision[, average_precision]])`` tuples,
        e.g. from ``metrics.precision_recall_curve``.
    title : str, default=""
        The chart's title.
    width : int, default=400
        Width in pixels.
    height : int, default=300
        Height in pixels.

    Returns
    -------
    dict
        The Vega-Lite specification, for ``Page.chart``.

    Examples
    --------
    >>> from assay import metrics, report
    >>> p, r, _ = metrics.precision_recall_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> spec = report.pr_curve_chart([("model", r, p)], title="PR")
    >>> spec["$schema"]
    'https://vega.github.io/schema/vega-lite/v6.json'
    """
    rows = []
    for s in series:
        name, recall, precision, *rest = s
        interpolated = _col(rest[0]) if len(rest) > 0 and rest[0] is not None else []
        ap = float(rest[1]) if len(rest) > 1 else _NAN
        rows.append((str(name), _col(recall), _col(precision), interpolated, ap))
    return json.loads(_assay.pr_curve_chart(rows, title, width, height))


def roc_curve_chart(series, title="", width=400, height=300):
    """Build a ROC chart (a Vega-Lite spec); the chance diagonal is drawn dashed.

    Parameters
    ----------
    series : list of tuple
        ``(name, fpr, tpr[, auc])`` tuples, e.g. from ``metrics.roc_curve``.
    title : str, default=""
        The chart's title.
    width : int, default=400
        Width in pixels.
    height : int, default=300
        Height in pixels.

    Returns
    -------
    dict
        The Vega-Lite specification, for ``Page.chart``.

    Examples
    --------
    >>> from assay import metrics, report
    >>> fpr, tpr, _ = metrics.roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> spec = report.roc_curve_chart([("model", fpr, tpr, 0.75)])
    >>> spec["width"], spec["height"]
    (400, 300)
    """
    rows = [(str(name), _col(fpr), _col(tpr), float(rest[0]) if rest else _NAN)
            for name, fpr, tpr, *rest in series]
    return json.loads(_assay.roc_curve_chart(rows, title, width, height))


def confusion_matrix_chart(matrix, row_labels=None, col_labels=None, normalized=False, title="",
                           width=400, height=300):
    """Build a heat map of a (rectangular) confusion matrix (a Vega-Lite spec).

    Rows are the actual classes, columns the predicted ones.

    Parameters
    ----------
    matrix : array-like of shape (n_rows, n_columns)
        The counts (or rates).
    row_labels : sequence, default=None
        The rows' class names. None: 0, 1, ...
    col_labels : sequence, default=None
        The columns' class names. None: 0, 1, ...
    normalized : bool, default=False
        The cells are rates, not counts.
    title : str, default=""
        The chart's title.
    width : int, default=400
        Width in pixels.
    height : int, default=300
        Height in pixels.

    Returns
    -------
    dict
        The Vega-Lite specification, for ``Page.chart``.

    Raises
    ------
    assay.AssayError
        ``matrix`` is not 2-D.

    Examples
    --------
    >>> from assay import report
    >>> spec = report.confusion_matrix_chart([[3, 1], [0, 4]], ["cat", "dog"], ["cat", "dog"])
    >>> spec["$schema"]
    'https://vega.github.io/schema/vega-lite/v6.json'
    """
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise _assay.AssayError(f"matrix must be 2-D, found {m.ndim} dimensions")
    rows = [str(v) for v in (row_labels if row_labels is not None else range(m.shape[0]))]
    cols = [str(v) for v in (col_labels if col_labels is not None else range(m.shape[1]))]
    return json.loads(_assay.confusion_matrix_chart(_col(m), rows, cols, bool(normalized), title,
                                                    width, height))


def reliability_chart(bins, title="", width=400, height=300):
    """Build a reliability diagram (a Vega-Lite spec) from a calibration table.

    Parameters
    ----------
    bins : dict
        The ``bins`` table of ``metrics.calibration_error`` (keys ``lower``, ``upper``,
        ``count``, ``accuracy``, ``confidence``).
    title : str, default=""
        The chart's title.
    width : int, default=400
        Width in pixels.
    height : int, default=300
        Height in pixels.

    Returns
    -------
    dict
        The Vega-Lite specification, for ``Page.chart``.

    Examples
    --------
    >>> from assay import metrics, report
    >>> calibration = metrics.calibration_error([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.3], bins=2)
    >>> report.reliability_chart(calibration["bins"])["title"]
    'Reliability diagram'
    """
    return json.loads(_assay.reliability_chart(
        _col(bins["lower"]), _col(bins["upper"]), _col(bins["count"]), _col(bins["accuracy"]),
        _col(bins["confidence"]), title, width, height))


def trend_chart(series, x_title, y_title, log_x=False, title="", width=400, height=300):
    """Build a trend chart (a Vega-Lite spec): a mean line with a +/- SD band.

    Parameters
    ----------
    series : list of tuple
        ``(name, x, mean[, sd])`` tuples, e.g. from ``metrics.summarize_runs(v, by=...)``: the
        mean (and SD) of a metric against a meta-parameter.
    x_title : str
        The x axis' title (the meta-parameter).
    y_title : str
        The y axis' title (the metric).
    log_x : bool, default=False
        A logarithmic x axis, for a meta-parameter spread over decades.
    title : str, default=""
        The chart's title.
    width : int, default=400
        Width in pixels.
    height : int, default=300
        Height in pixels.

    Returns
    -------
    dict
        The Vega-Lite specification, for ``Page.chart``.

    Examples
    --------
    >>> from assay import report
    >>> spec = report.trend_chart([("cart", [1, 2, 4], [0.30, 0.20, 0.25], [0.01, 0.02, 0.01])],
    ...                           "max depth", "error")
    >>> spec["width"]
    400
    """
    rows = [(str(name), _col(x), _col(mean), _col(rest[0]) if rest else [])
            for name, x, mean, *rest in series]
    return json.loads(_assay.trend_chart(rows, x_title, y_title, bool(log_x), title, width,
                                         height))


class Page:
    """An HTML report page built block by block, written as one offline file.

    Each block method appends to the page and returns the page, so calls chain; ``render``
    gives the HTML and ``write`` saves it (the chart library is inlined: the page works
    offline).

    Parameters
    ----------
    title : str
        The page's title.

    Attributes
    ----------
    title : str
        The page's title.

    Examples
    --------
    >>> from assay import report
    >>> page = report.Page("My model").heading("Summary").paragraph("Two classes.")
    >>> page.table(["class", "recall"], [["cat", 0.9], ["dog", 0.8]]).title
    'My model'
    >>> page.write("model.html")
    'model.html'
    """

    def __init__(self, title):
        self.title = str(title)
        self._blocks = []

    def heading(self, text, level=2):
        """Append a heading.

        Parameters
        ----------
        text : str
            The heading's text.
        level : int, default=2
            Its level (1 is the largest; the page's title is level 1).

        Returns
        -------
        Page
            This page.

        Examples
        --------
        >>> from assay import report
        >>> page = report.Page("Results").heading("Validation set", level=3)
        """
        self._blocks.append(("heading", str(text), int(level)))
        return self

    def paragraph(self, text):
        """Append a paragraph of text.

        Parameters
        ----------
        text : str
            The paragraph (plain text: HTML in it is escaped).

        Returns
        -------
        Page
            This page.

        Examples
        --------
        >>> from assay import report
        >>> page = report.Page("Results").paragraph("The candidate beats production.")
        """
        self._blocks.append(("paragraph", str(text)))
        return self

    def table(self, header, rows):
        """Append a table; every cell is shown as ``str`` of its value.

        Parameters
        ----------
        header : sequence
            The column names.
        rows : sequence of sequence
            The rows, each with one value per column.

        Returns
        -------
        Page
            This page.

        Examples
        --------
        >>> from assay import report
        >>> page = report.Page("Results").table(["model", "AUC"], [["a", 0.91], ["b", 0.88]])
        """
        self._blocks.append(("table", [str(h) for h in header],
                             [[str(c) for c in row] for row in rows]))
        return self

    def chart(self, title, spec):
        """Append a chart.

        Parameters
        ----------
        title : str
            The chart's heading.
        spec : dict
            A Vega-Lite specification, e.g. from ``roc_curve_chart``.

        Returns
        -------
        Page
            This page.

        Examples
        --------
        >>> from assay import report
        >>> spec = report.roc_curve_chart([("model", [0, 0.5, 1], [0, 0.9, 1])])
        >>> page = report.Page("Results").chart("ROC", spec)
        """
        self._blocks.append(("chart", str(title), json.dumps(spec)))
        return self

    def json(self, title, value):
        """Append a JSON block, shown as formatted text.

        Parameters
        ----------
        title : str
            The block's heading.
        value : object
            Any value ``json.dumps`` accepts.

        Returns
        -------
        Page
            This page.

        Examples
        --------
        >>> from assay import report
        >>> page = report.Page("Results").json("Settings", {"seed": 0, "folds": 10})
        """
        self._blocks.append(("json", str(title), json.dumps(value)))
        return self

    def render(self):
        """Render the page as HTML.

        Returns
        -------
        str
            The whole self-contained HTML document.

        Examples
        --------
        >>> from assay import report
        >>> report.Page("Results").paragraph("Hello").render().startswith("<!DOCTYPE html>")
        True
        """
        return _assay.render_html(self.title, self._blocks)

    def write(self, path):
        """Write the page to one offline HTML file.

        The file is written atomically, as every file assay writes: a failure leaves no
        truncated page.

        Parameters
        ----------
        path : str or os.PathLike
            The file to write.

        Returns
        -------
        str or os.PathLike
            ``path``, as given.

        Examples
        --------
        >>> from assay import report
        >>> report.Page("Results").paragraph("Hello").write("results.html")
        'results.html'
        """
        _assay._write_file_atomic(os.fspath(path), self.render().encode("utf-8"))
        return path
