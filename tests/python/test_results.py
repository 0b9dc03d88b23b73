"""Result objects: short reprs, HTML with a table and a chart, the dict access existing code uses,
and evaluate()'s stable metric keys (the same for binary and multi-class labels)."""
import json
import pickle

import numpy as np
import pytest
from sklearn import metrics as sk

import assay.metrics as am
from assay import shift
from assay._results import (BootstrapResult, EvaluationResult, PartitionResult,
                            RegressionMetricsResult, RunSummary)
from assay.compare import compare


@pytest.fixture
def binary():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    score = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.25, 300), 0, 1)
    return y, score


@pytest.fixture
def multiclass():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 300)
    logits = rng.normal(0, 1, (300, 3)) + 1.5 * np.eye(3)[y]
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return y, proba


def short(text, max_lines):
    """A repr of at most max_lines lines, none of them an array dump."""
    lines = text.splitlines()
    return len(lines) <= max_lines and "array(" not in text and "..." not in text


def html_ok(result):
    page = result._repr_html_()
    return "<table>" in page and "</table>" in page and (
        '<img alt="chart" src="data:image/png;base64,' in page or "<svg" in page)


# --- bootstrap ------------------------------------------------------------------------------

def test_bootstrap_repr_is_short_and_without_replicates(binary):
    y, score = binary
    r = am.bootstrap("roc_auc", y, score, n_resamples=500, seed=2)
    assert isinstance(r, BootstrapResult) and isinstance(r, dict)
    text = repr(r)
    assert short(text, 5) and "replicates" not in text and len(text) < 300
    assert text.splitlines()[0] == (f"bootstrap: estimate {r['estimate']:.4g}, 95% interval "
                                    f"[{r['low']:.4g}, {r['high']:.4g}]")
    assert r["estimate"] == pytest.approx(sk.roc_auc_score(y, score))
    assert r.estimate == r["estimate"] and r.interval == (r["low"], r["high"])
    assert html_ok(r)


def test_bootstrap_keeps_the_dict_access(binary):
    y, score = binary
    r = am.bootstrap(sk.accuracy_score, y, score > 0.5, n_resamples=50, seed=1)
    assert set(r) == {"estimate", "low", "high", "standard_error", "confidence", "n_resamples",
                      "seed", "n_undefined", "replicates"}
    assert len(r["replicates"]) == 50 and r["n_resamples"] == 50
    plain = r.to_dict()
    assert type(plain) is dict and plain.keys() == r.keys()
    assert json.loads(json.dumps({k: v for k, v in r.items() if k != "replicates"}))["seed"] == 1
    again = pickle.loads(pickle.dumps(r))
    assert type(again) is BootstrapResult and repr(again) == repr(r)
    assert r.to_frame().shape[1] == 2


# --- summarize_runs -------------------------------------------------------------------------

def test_summarize_runs_repr_and_html():
    values = [0.8, 0.9, 1.0, 0.7, 0.75]
    one = am.summarize_runs(values)
    assert isinstance(one, RunSummary) and one["n"] == 5
    assert one["sd"] == pytest.approx(np.std(values, ddof=1))
    assert repr(one) == ("runs: mean 0.83, sd 0.1204, min 0.7, max 1, n 5")
    trend = am.summarize_runs(values, by=[1, 1, 2, 2, 2])
    assert list(trend["by"]) == [1, 2] and trend["mean"][1] == pytest.approx(np.mean(values[2:]))
    assert repr(trend).splitlines() == ["runs", "  by  mean    sd       min  max  n",
                                        "  1   0.85    0.07071  0.8  0.9  2",
                                        "  2   0.8167  0.1607   0.7  1    3"]
    assert html_ok(trend)
    assert list(trend.to_frame().columns) == ["by", "mean", "sd", "min", "max", "n"]


# --- evaluate: stable keys ------------------------------------------------------------------

BINARY_KEYS = ["accuracy", "balanced_accuracy", "precision", "recall", "specificity", "f1", "mcc",
               "roc_auc", "average_precision", "brier", "log_loss", "ece"]
MULTICLASS_KEYS = ["accuracy", "balanced_accuracy", "precision_macro", "recall_macro",
                   "f1_macro", "f1_weighted", "mcc", "roc_auc", "average_precision", "log_loss",
                   "ece"]


def test_evaluate_binary_keys_values_and_labels(binary):
    y, score = binary
    r = am.evaluate(y, score, n_bootstrap=50)
    assert isinstance(r, EvaluationResult) and isinstance(r, dict)
    assert list(r["summary"]) == BINARY_KEYS
    s = r["summary"]
    assert s["roc_auc"]["value"] == pytest.approx(sk.roc_auc_score(y, score))
    assert s["roc_auc"]["label"] == "ROC AUC"
    assert s["average_precision"]["value"] == pytest.approx(sk.average_precision_score(y, score))
    assert s["average_precision"]["label"] == "average precision (step)"
    assert s["log_loss"]["value"] == pytest.approx(sk.log_loss(y, score))
    assert s["brier"]["value"] == pytest.approx(sk.brier_score_loss(y, score))
    assert s["f1"]["value"] == pytest.approx(sk.f1_score(y, score >= 0.5))
    assert s["roc_auc"]["low"] <= s["roc_auc"]["value"] <= s["roc_auc"]["high"]
    # The display label still finds the entry, as before the stable keys.
    assert r["summary"]["ROC AUC"] is s["roc_auc"]
    with pytest.raises(KeyError):
        r["summary"]["no such metric"]


def test_evaluate_multiclass_uses_the_same_keys(multiclass):
    y, proba = multiclass
    r = am.evaluate(y, proba)
    assert list(r["summary"]) == MULTICLASS_KEYS
    s = r["summary"]
    assert s["roc_auc"]["label"] == "ROC AUC (one-vs-rest, macro)"
    assert s["roc_auc"]["value"] == pytest.approx(
        sk.roc_auc_score(y, proba, multi_class="ovr", average="macro"))
    assert s["log_loss"]["value"] == pytest.approx(sk.log_loss(y, proba))
    assert s["f1_macro"]["value"] == pytest.approx(
        sk.f1_score(y, proba.argmax(axis=1), average="macro"))
    assert s["average_precision"]["label"] == "mAP (step)"
    assert s["roc_auc"]["low"] is None  # no bootstrap: no interval
    # The keys both label kinds share name the same idea.
    shared = set(BINARY_KEYS) & set(MULTICLASS_KEYS)
    assert {"roc_auc", "average_precision", "log_loss", "accuracy", "mcc"} <= shared


def test_evaluate_repr_html_and_frame(binary, multiclass):
    y, score = binary
    r = am.evaluate(y, score)
    text = repr(r)
    assert short(text, 1 + len(BINARY_KEYS))
    assert text.splitlines()[0] == "evaluation: 300 samples, 2 classes, positive class '1'"
    assert text.splitlines()[8].split()[:2] == ["roc_auc", f"{sk.roc_auc_score(y, score):.4g}"]
    assert html_ok(r) and "ROC AUC" in r._repr_html_()
    frame = r.to_frame()
    assert list(frame["metric"]) == BINARY_KEYS
    assert list(frame.columns) == ["metric", "value", "low", "high", "label"]
    json.dumps(r)  # still the JSON document
    y3, proba = multiclass
    assert html_ok(am.evaluate(y3, proba))


def test_cli_json_carries_the_ids(run_cli, tmp_path, binary):
    y, score = binary
    path = tmp_path / "p.csv"
    path.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, score)))
    out = run_cli("metrics", path, "--label", "y", "--score", "p", "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)["summary"]
    assert summary["ROC AUC"]["id"] == "roc_auc"  # added beside the existing fields
    assert [e["id"] for e in summary.values()] == BINARY_KEYS
    assert summary["ROC AUC"]["value"] == pytest.approx(sk.roc_auc_score(y, score))


# --- shift ----------------------------------------------------------------------------------

def test_regression_metrics_and_partitions():
    rng = np.random.default_rng(8)
    target = rng.normal(0, 1, 120)
    pred = target + rng.normal(0, 0.3, 120)
    r = shift.regression_metrics(target, pred, n_resamples=100, seed=3)
    assert isinstance(r, RegressionMetricsResult) and list(r) == ["rmse", "mae", "mape", "r2"]
    assert r["rmse"]["estimate"] == pytest.approx(np.sqrt(sk.mean_squared_error(target, pred)))
    assert len(r["r2"]["replicates"]) == 100
    assert short(repr(r), 6) and html_ok(r)
    p = shift.evaluate_partitions(target, {"m": pred}, {"m": rng.random(120)},
                                  partition=["dev_in"] * 60 + ["dev_out"] * 60)
    assert isinstance(p, PartitionResult) and [row["set"] for row in p["rows"]][:2] == \
        ["dev_in", "dev_out"]
    assert short(repr(p), 6) and html_ok(p)
    frame = p.to_frame()
    assert frame.loc[0, "rmse"] == pytest.approx(
        np.sqrt(sk.mean_squared_error(target[:60], pred[:60])))


# --- compare --------------------------------------------------------------------------------

def test_compare_result_html(binary):
    y, score = binary
    other = np.clip(score + np.random.default_rng(1).normal(0, 0.2, len(y)), 0, 1)
    r = compare(y, {"a": score, "b": other}, metrics=["roc_auc"], n_resamples=50, progress=False)
    page = r._repr_html_()
    assert "<table>" in page and '<img alt="chart"' in page and "roc_auc" in page


# --- docs/python-results.md -----------------------------------------------------------------

def test_docs_code_blocks_print_what_the_page_shows(capsys):
    """Every python block of the page runs (in order, one namespace) and prints the text block
    that follows it."""
    import os
    import re
    from conftest import ROOT
    text = open(os.path.join(ROOT, "docs", "python-results.md"), encoding="utf-8").read()
    pairs = re.findall(r"```python\n(.*?)```\s*```text\n(.*?)```", text, flags=re.S)
    assert len(pairs) == len(re.findall(r"```python\n", text)) == 3
    namespace = {}
    for code, expected in pairs:
        exec(compile(code, "python-results.md", "exec"), namespace)
        assert capsys.readouterr().out == expected


def test_docstring_examples():
    import doctest
    from assay import _results
    failures, tried = doctest.testmod(_results, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried >= 15 and failures == 0
