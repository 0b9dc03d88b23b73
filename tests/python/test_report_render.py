"""The report bindings (assay._assay chart builders and render_html), rendered in headless Chromium.

The C++ tests (tests/cpp/report/) cover the charts and the page in depth; this checks the Python
path end to end: specs from numpy input, a page from blocks, and its render status.
"""
import json
import math
import os
import re
import subprocess
import tempfile

import numpy as np
import pytest

import assay
from assay import _assay

CHROMIUM = os.environ.get("ASSAY_CHROMIUM", "/usr/bin/chromium")


def render_status(html, tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"chromium not found at {CHROMIUM}: run scripts/install-deps.sh")
    page = tmp_path / "page.html"
    page.write_text(html, encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        out = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=20000",
             "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    m = re.search(r'<body[^>]*data-assay-render="([^"]*)"', out.stdout)
    return m.group(1) if m else ""


def test_specs_from_numpy():
    recall = np.array([1.0, 0.5, 0.0])
    precision = np.array([0.5, 0.8, 1.0])
    spec = json.loads(_assay.pr_curve_chart([("m", recall, precision, [], 0.7)]))
    assert [r["recall"] for r in spec["data"]["values"]] == [0.0, 0.5, 1.0]
    assert spec["data"]["values"][0]["series"] == "m (AP = 0.700)"
    spec = json.loads(_assay.trend_chart([("s", [1, 2], [0.5, 0.6], [0.1, math.nan])], "x", "y",
                                         title="T", width=300))
    assert spec["title"] == "T" and spec["width"] == 300
    assert spec["data"]["values"][1]["sd"] is None


def test_page_with_every_chart_renders(tmp_path):
    rng = np.random.default_rng(0)
    fpr = np.sort(rng.uniform(size=20))
    blocks = [
        ("heading", "Curves"),
        ("paragraph", "from <python>"),
        ("table", ["metric", "value"], [["AP", "0.7"]]),
        ("chart", "PR", _assay.pr_curve_chart([("m", [1, 0.5, 0], [0.5, 0.8, 1], [0.5, 0.8, 1],
                                                math.nan)])),
        ("chart", "ROC", _assay.roc_curve_chart([("m", np.r_[0, fpr, 1], np.r_[0, np.sqrt(fpr), 1],
                                                  0.8)])),
        ("chart", "", _assay.confusion_matrix_chart(np.array([3.0, 1, 2, 4]), ["a", "b"],
                                                    ["a", "b"])),
        ("chart", "", _assay.reliability_chart([0, 0.5], [0.5, 1], [4, 6], [0.3, 0.8],
                                               [0.35, 0.7])),
        ("chart", "", _assay.trend_chart([("s", [1, 10, 100], [0.5, 0.7, 0.6], [0.1, 0.05, 0.1])],
                                         "C", "AP", log_x=True)),
        ("json", "raw", json.dumps({"a": 1})),
    ]
    html = _assay.render_html("Python report", blocks)
    assert "from &lt;python&gt;" in html
    assert render_status(html, tmp_path) == "ok:5"


def test_bad_blocks():
    with pytest.raises(assay.AssayError, match=r"^block 0: unknown kind \"img\" \(expected heading, "
                                               r"paragraph, table, chart or json\)$"):
        _assay.render_html("t", [("img", "x")])
    with pytest.raises(assay.AssayError, match=r"^block 0 \(table\) has 2 items, expected 3$"):
        _assay.render_html("t", [("table", ["a"])])
    with pytest.raises(assay.AssayError, match=r"^chart spec is not valid JSON: "):
        _assay.render_html("t", [("chart", "c", "{nope")])
    with pytest.raises(assay.AssayError,
                       match=r"^series \"m\": fpr and tpr differ in length \(2 vs 1\)$"):
        _assay.roc_curve_chart([("m", [0, 1], [0], math.nan)])


def test_python_page_from_metrics_renders(tmp_path, rng):
    from assay import metrics, report
    y = rng.integers(0, 2, 300)
    s = np.clip(rng.random(300) * 0.8 + 0.2 * y, 0, 1)
    p, r, _ = metrics.precision_recall_curve(y, s)
    fpr, tpr, _ = metrics.roc_curve(y, s)
    cal = metrics.calibration_error(y, s, bins=10)
    runs = metrics.summarize_runs(rng.random(9), by=[1, 1, 1, 10, 10, 10, 100, 100, 100])
    page = report.Page("from python").paragraph("three charts and a table")
    page.chart("PR", report.pr_curve_chart([("m", r, p, metrics.interpolated_precision(p, r),
                                             metrics.average_precision_score(y, s))]))
    page.chart("ROC", report.roc_curve_chart([("m", fpr, tpr, metrics.roc_auc_score(y, s))]))
    page.chart("CM", report.confusion_matrix_chart(metrics.confusion_matrix(y, s >= 0.5),
                                                   ["neg", "pos"], ["neg", "pos"]))
    page.chart("Reliability", report.reliability_chart(cal["bins"]))
    page.chart("Trend", report.trend_chart([("acc", runs["by"], runs["mean"], runs["sd"])],
                                           "C", "accuracy", log_x=True))
    page.table(["a", "b"], [[1, 2]])
    spec = report.pr_curve_chart([("m", r, p)])
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    assert render_status(page.render(), tmp_path) == "ok:5"
    with pytest.raises(assay.AssayError, match="matrix must be 2-D, found 1 dimensions"):
        report.confusion_matrix_chart([1, 2])
