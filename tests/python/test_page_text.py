"""Text on the report pages and the CLI (issue 41): missing values are "NaN" everywhere text is
shown (JSON keeps null), every numeric column of a page table has one number format, intervals
are numeric cells kept on one line, every abbreviation a table uses is defined beside it, and a
single-model page is titled and its model named after the data."""
import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import assay
import assay.metrics
import assay.shift as shift


class Tables(HTMLParser):
    """The page's tables (header and cells with their classes), glossary terms and title."""

    def __init__(self, text):
        super().__init__()
        self.tables, self.defined, self.linked, self.title = [], [], [], ""
        self._cell = None
        self._in = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append({"header": [], "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._cell = [tag, a.get("class", ""), ""]
        elif tag == "dt":
            self.defined.append(a.get("id", ""))
        elif tag == "a" and a.get("href", "").startswith("#glossary-"):
            self.linked.append(a["href"][1:])
        elif tag == "title":
            self._in = "title"

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell:
            kind, cls, text = self._cell
            if kind == "th":
                self.tables[-1]["header"].append(text)
            else:
                self.tables[-1]["rows"][-1].append((cls, text))
            self._cell = None
        elif tag == "title":
            self._in = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2] += data
        elif self._in == "title":
            self.title += data


NUMBER = re.compile(r"^-?\d+(\.\d+)?(e[-+]\d+)?$|^-?inf$|^NaN$")


def written_format(cell):
    """Digits after the point and whether in scientific notation ("NaN", "inf": None)."""
    if cell in ("NaN", "inf", "-inf"):
        return None
    mantissa = cell.split("e")[0]
    return (len(mantissa.split(".")[1]) if "." in mantissa else 0, "e" in cell)


def check_page_text(path):
    """The page's tables: no "nan" or "—", one number format per numeric column, intervals as
    one-line numeric cells. Returns the parsed page."""
    page = Tables(path.read_text())
    assert page.tables, path
    for table in page.tables:
        rows = [r for r in table["rows"] if r]
        for j in range(len(table["header"])):
            cells = [r[j] for r in rows if j < len(r)]
            assert not any(re.search(r"\bnan\b|\u2014", text) for _, text in cells), (j, cells)
            numbers = [text for cls, text in cells if NUMBER.match(text)]
            if numbers and len(numbers) == len(cells):
                formats = {written_format(t) for t in numbers} - {None}
                assert len(formats) <= 1, (table["header"][j], numbers)
            for cls, text in cells:
                if re.match(r"^\S+ \[\S+, \S+\]$", text):
                    assert cls == "num", text  # right-aligned, white-space: nowrap
    return page


def defined_terms(page):
    return {t[len("glossary-"):] for t in page.defined}


@pytest.fixture
def shift_task(rng):
    n = 300
    part = rng.choice(["dev_in", "dev_out"], n)
    y = rng.normal(10, 2, n)
    pred = y + rng.normal(0, 1 + (part == "dev_out"), n)
    unc = np.abs(pred - y) + rng.uniform(0, 0.5, n)
    return y, pred, unc, part


def test_shift_page_intervals_formats_and_glossary(shift_task, tmp_path):
    y, pred, unc, part = shift_task
    html = tmp_path / "shift.html"
    doc = shift.evaluate_partitions(y, {"m": pred}, {"m": unc}, partition=part, acceptable=1.5,
                                    n_resamples=50, html=str(html), progress=False)
    page = check_page_text(html)
    table = page.tables[0]
    rmse = table["header"].index("RMSE")
    # Every interval cell is one numeric cell: "value [low, high]" in the column's format.
    for row in table["rows"][1:]:
        cls, text = row[rmse]
        assert cls == "num" and re.match(r"^\d+\.\d{4} \[\d+\.\d{4}, \d+\.\d{4}\]$", text), text
    first = next(r for r in doc["rows"] if r["set"] == "dev_in")
    assert table["rows"][1][rmse][1].startswith(f"{first['rmse']['value']:.4f} [")
    # Shifts 2.0's measures are explained beside the table.
    for term in ("r-auc", "prr", "aurc", "augrc", "f1-auc", "f1-95", "rmse", "mae", "mape",
                 "ood-auroc"):
        assert term in defined_terms(page), term
    text = html.read_text()
    assert "td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }" \
        in text


def test_missing_values_are_nan_in_text_and_html_null_in_json(run_cli, tmp_path):
    # Every prediction negative: precision (and F1, MCC) of the positive class are undefined.
    data = tmp_path / "p.csv"
    data.write_text("y,p\n0,0.1\n0,0.2\n1,0.3\n1,0.4\n")
    html = tmp_path / "p.html"
    out = run_cli("metrics", data, "--label", "y", "--score", "p", "--html", html)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^precision\s+NaN$", out.stdout, re.M), out.stdout
    assert not re.search(r"\bnan\b", out.stdout)
    page = check_page_text(html)
    summary = page.tables[0]
    cells = {r[0][1]: r[1][1] for r in summary["rows"] if r}
    assert cells["precision"] == "NaN"
    assert cells["ROC AUC"] == "1.0000"  # the value column keeps 4 decimals
    doc = json.loads(run_cli("metrics", data, "--label", "y", "--score", "p", "--json").stdout)
    assert doc["summary"]["precision"]["value"] is None
    # Title names the file; the model is its score column.
    assert page.title == f"assay metrics: {data}"
    assert "Model: p." in html.read_text()
    for term in ("roc-auc", "mcc", "ece", "f1", "ap"):
        assert term in defined_terms(page), term


def test_one_format_per_column_in_cli_text(run_cli, tmp_path):
    # Weighted support is fractional for one class and whole for the other: one format.
    data = tmp_path / "w.csv"
    data.write_text("y,p,w\n0,0.1,1.5\n0,0.6,1\n1,0.3,1\n1,0.8,1\n")
    out = run_cli("metrics", data, "--label", "y", "--score", "p", "--weight", "w")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("class"))
    support = [line.split()[4] for line in lines[start + 1:start + 3]]
    assert support == ["2.5000", "2.0000"], lines[start:start + 3]


def test_python_page_named_after_the_scores(tmp_path, rng):
    y = rng.integers(0, 2, 200)
    scores = pd.Series(np.clip(0.3 * y + rng.uniform(0, 0.7, 200), 0, 1), name="logistic")
    html = tmp_path / "e.html"
    assay.metrics.evaluate(y, scores, html=html, progress=False)
    page = check_page_text(html)
    assert page.title == "assay evaluation: logistic"
    text = html.read_text()
    assert "Model: logistic." in text
    assert re.search(r'"logistic \(AP = 0\.\d+\)', text)  # the PR curve's legend
    named = tmp_path / "n.html"
    assay.metrics.evaluate(y, scores.to_numpy(), html=named, name="ridge", title="Ridge on D",
                           progress=False)
    page = Tables(named.read_text())
    assert page.title == "Ridge on D" and "Model: ridge." in named.read_text()
    unnamed = tmp_path / "u.html"
    assay.metrics.evaluate(y, scores.to_numpy(), html=unnamed, progress=False)
    assert Tables(unnamed.read_text()).title == "assay evaluation: scores"
    with pytest.raises(assay.AssayError, match="name: expected a non-empty string, found ''"):
        assay.metrics.evaluate(y, scores, name="", progress=False)


def test_glossary_defines_each_term_once_then_links(tmp_path, rng):
    y = rng.integers(0, 2, 100)
    p = rng.uniform(0, 1, 100)
    html = tmp_path / "g.html"
    assay.metrics.evaluate(y, p, html=html, progress=False)
    page = Tables(html.read_text())
    assert len(page.defined) == len(set(page.defined))  # each term defined once
    assert set(page.linked) <= set(page.defined)  # later tables link to the definition
    assert "glossary-roc-auc" in page.linked  # the per-class table uses ROC AUC again


def test_soak_page_defines_same_other_all(run_cli, tmp_path):
    import os
    import subprocess
    import sys

    from conftest import ROOT
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "make_soak_demo.py"),
                    str(tmp_path)], check=True, capture_output=True)
    out = tmp_path / "out"
    r = run_cli("soak", tmp_path / "soak_regions.csv", "--label", "y", "--subset", "region",
                "--group", "polygon", "--folds", "3", "--learners", "featureless", "--out", out)
    assert r.returncode == 0, r.stderr
    assert not re.search(r"\bnan\b", r.stdout)
    page = check_page_text(out / "report.html")
    assert {"same", "other", "all"} <= defined_terms(page)
    # The definitions are SOAK's train sets (docs/soak.md): Other never trains on the subset.
    text = (out / "report.html").read_text()
    assert "trained on the other subsets&#39; rows of the other folds, never on the test" in text
