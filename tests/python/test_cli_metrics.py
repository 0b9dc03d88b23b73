"""`assay metrics`: numbers against scikit-learn, output formats, and every bad input (exit 2)."""
import json
import os
import pty
import re
import subprocess

import numpy as np
import pytest
from sklearn import metrics as sk

import assay
from conftest import cli_path


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")
    return path


@pytest.fixture
def binary_file(tmp_path, rng):
    n = 400
    y = rng.integers(0, 2, n)
    s = np.round(np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1), 3)  # ties
    w = rng.choice([0.5, 1.0, 2.0], n)
    path = write_csv(tmp_path / "b.csv", ["y", "p", "w"], zip(y, s, w))
    return path, y, s, w


def test_binary_json_matches_sklearn(run_cli, binary_file):
    path, y, s, w = binary_file
    r = run_cli("metrics", path, "--label", "y", "--score", "p", "--weight", "w", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    summary = {k: v["value"] for k, v in out["summary"].items()}
    pred = (s >= 0.5).astype(int)
    close = dict(rel=1e-12, abs=1e-15)
    assert summary["ROC AUC"] == pytest.approx(sk.roc_auc_score(y, s, sample_weight=w), **close)
    assert summary["average precision (step)"] == pytest.approx(
        sk.average_precision_score(y, s, sample_weight=w), **close)
    assert summary["accuracy"] == pytest.approx(sk.accuracy_score(y, pred, sample_weight=w), **close)
    assert summary["F1"] == pytest.approx(sk.f1_score(y, pred, sample_weight=w), **close)
    assert summary["MCC"] == pytest.approx(sk.matthews_corrcoef(y, pred, sample_weight=w), **close)
    assert summary["balanced accuracy"] == pytest.approx(
        sk.balanced_accuracy_score(y, pred, sample_weight=w), **close)
    assert summary["Brier score"] == pytest.approx(sk.brier_score_loss(y, s, sample_weight=w), **close)
    assert summary["log loss"] == pytest.approx(sk.log_loss(y, s, sample_weight=w), **close)
    np.testing.assert_allclose(out["confusion_matrix"],
                               sk.confusion_matrix(y, pred, sample_weight=w), rtol=1e-12)
    assert out["positive_class"] == "1" and out["classes"] == ["0", "1"]
    # The Python twin goes through the same entry point.
    twin = assay.metrics.evaluate(y, s, sample_weight=w)
    assert twin.to_document()["summary"] == out["summary"]


def test_multiclass_from_scores_and_from_predictions(run_cli, tmp_path, rng):
    n, k = 300, 3
    y = rng.integers(0, k, n)
    p = rng.dirichlet(np.ones(k), n)
    p[np.arange(n), y] += 0.5
    p /= p.sum(1, keepdims=True)
    names = np.array(["ant", "bee", "cow"])
    path = write_csv(tmp_path / "m.csv", ["animal", "pa", "pb", "pc"],
                     [(names[t], *map(repr, row)) for t, row in zip(y, p)])
    r = run_cli("metrics", path, "--label", "animal", "--score", "pa,pb,pc", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    summary = {k: v["value"] for k, v in out["summary"].items()}
    pred = p.argmax(1)
    assert summary["accuracy"] == pytest.approx(sk.accuracy_score(y, pred), rel=1e-12)
    assert summary["F1 (macro)"] == pytest.approx(sk.f1_score(y, pred, average="macro"), rel=1e-12)
    assert summary["ROC AUC (one-vs-rest, macro)"] == pytest.approx(
        sk.roc_auc_score(y, p, multi_class="ovr"), rel=1e-12)
    assert summary["log loss"] == pytest.approx(sk.log_loss(y, p), rel=1e-12)
    assert [c["class"] for c in out["per_class"]] == ["ant", "bee", "cow"]

    path2 = write_csv(tmp_path / "mp.csv", ["animal", "guess"], zip(names[y], names[pred]))
    r2 = run_cli("metrics", path2, "--label", "animal", "--pred", "guess")
    assert r2.returncode == 0, r2.stderr
    assert "confusion matrix" in r2.stdout and "cow" in r2.stdout


def test_bootstrap_is_seeded_and_html_is_written(run_cli, binary_file, tmp_path):
    path = binary_file[0]
    html = tmp_path / "r.html"
    args = ["metrics", path, "--label", "y", "--score", "p", "--bootstrap", "200", "--seed", "5",
            "--json"]
    a = json.loads(run_cli(*args).stdout)
    b = json.loads(run_cli(*args, "--threads", "1", "--html", html).stdout)
    assert a["summary"] == b["summary"]
    auc = a["summary"]["ROC AUC"]
    assert auc["low"] < auc["value"] < auc["high"]
    text = html.read_text()
    assert text.startswith("<!DOCTYPE html>") and "vegaEmbed" in text


def test_table_output_and_ap_method(run_cli, binary_file):
    path, y, s, w = binary_file
    r = run_cli("metrics", path, "--label", "y", "--score", "p", "--ap-method", "voc07")
    assert r.returncode == 0, r.stderr
    assert "average precision (voc07)" in r.stdout
    assert "positive class \"1\"" in r.stdout


@pytest.mark.parametrize("content, args, message", [
    ("y,p\n1,0.5\n0,abc\n", [], r"b\.csv:3:3: expected a number, found \"abc\""),
    ("y,p\n1,0.5\n0,0.2,7\n", [], r"b\.csv:3:1: expected 2 fields, found 3"),
    ("y,p\n1,0.5\n0,nan\n", [], r"b\.csv:3:3: column \"p\": expected a finite score, found nan"),
    ("y,p\n1,0.5\n0,inf\n", [], r"b\.csv:3:3: column \"p\": expected a finite score, found inf"),
    ("y,q\n1,0.5\n0,0.2\n", [], r"b\.csv: no column \"p\"; columns are: y, q"),
    ("", [], r"b\.csv: empty file, expected a header row"),
    ("y,p\n", [], r"b\.csv: no data rows, expected at least one"),
    ("y,p\n1,0.5\n1,0.2\n", [], r"the labels have one class only \(\"1\"\)"),
    ("y,p\n1,0.5\n0,0.2\n", ["--pos-label", "7"], r"pos_label \"7\" is not one of the classes \(0, 1\)"),
    ("y,p,w\n1,0.5,1\n0,0.2,-1\n", ["--weight", "w"], r"b\.csv:3:7: column \"w\": expected a finite weight >= 0, found -1"),
    ("y,p\n1,0.5\n0,0.2\n2,0.1\n", ["--score", "p,p"],
     r"expected one score column per class \(3: 0, 1, 2\), found 2 score columns"),
    ("y,p\n1,0.5\n0,0.2\n2,0.1\n", [],
     r"b\.csv: expected one score column per class \(3: 0, 1, 2\), found 1 score column$"),
    ("y,p\n1,0.5\n0,0.2\n", ["--ap-method", "voc2099"], r"voc2099"),
    ("y,p\n1,0.5\n0,0.2\n2,0.1\n", [],
     r"b\.csv: expected one score column per class \(3: 0, 1, 2\), found 1 score column$"),
    ("y,p\n1,0.5\n0,0.2\n", ["--threshold", "nan"], r"--threshold: expected a finite number, found \"nan\""),
    ("y,p\n1,0.5\n0,0.2\n", ["--threshold", ""], r"--threshold: expected a finite number, found \"\""),
    ("y,p\n1,0.5\n0,0.2\n", ["--pos-label", ""], r"--pos-label: expected a class label, found an empty string"),
    ("y,p\n1,0.5\n0,0.2\n", ["--bootstrap", "1000001"], r"--bootstrap: expected at most 1000000 resamples, found 1000001"),
    ("y,p\n1,0.5\n0,0.2\n", ["--bootstrap", "-3"], r"--bootstrap: expected an integer in 0..18446744073709551615, found \"-3\""),
    ("y,p\n1,0.5\n0,0.2\n", ["--bins", "0"], r"bins must be >= 1, found 0"),
])
def test_bad_input_exits_2_with_a_clear_message(run_cli, tmp_path, content, args, message):
    path = tmp_path / "b.csv"
    path.write_text(content)
    if "--score" not in args:
        args = ["--score", "p", *args]
    r = run_cli("metrics", path, "--label", "y", *args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert re.search(message, r.stderr), r.stderr


def test_bootstrap_beyond_the_limit_is_refused_up_front(tmp_path):
    # Issue 38: --bootstrap 100000000 on 4 rows was a bad_alloc after gigabytes. Refused before
    # the file is read, in a process limited to 1 GB of address space.
    import resource
    path = write_csv(tmp_path / "four.csv", ["y", "p"], [(0, .1), (0, .4), (1, .35), (1, .8)])

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    r = subprocess.run([cli_path(), "metrics", str(path), "--label", "y", "--score", "p",
                        "--bootstrap", "100000000"], capture_output=True, text=True, timeout=20,
                       preexec_fn=limit)
    assert r.returncode == 2, r.stderr
    assert r.stderr == (
        "assay: --bootstrap: expected at most 1000000 resamples, found 100000000 (percentile "
        "intervals settle long before: 1000 to 100000 are usual; every resample keeps a value "
        "per metric and costs a pass over the data) (see assay --help)\n")
    # The usual counts work.
    r = subprocess.run([cli_path(), "metrics", str(path), "--label", "y", "--score", "p",
                        "--bootstrap", "100000", "--json"], capture_output=True, text=True,
                       timeout=60, preexec_fn=limit)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["summary"]["accuracy"]["high"] is not None


def test_two_models_scores_on_binary_labels_are_refused(run_cli, tmp_path, rng):
    # Issue 38: --score logreg,forest on binary labels was read as per-class scores and only the
    # second model's metrics were printed.
    y = rng.integers(0, 2, 50)
    a, b = np.round(rng.random(50), 3), np.round(rng.random(50), 3)
    path = write_csv(tmp_path / "f.csv", ["y", "logreg", "forest"], zip(y, a, b))
    r = run_cli("metrics", path, "--label", "y", "--score", "logreg,forest")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(
        'assay: 2 score columns ("logreg", "forest") for the 2 classes (0, 1) are neither one '
        "score of the positive class nor per-class probabilities: row 1 holds ")
    assert ('To compare two models, evaluate each on its own ("logreg" alone, then "forest" '
            "alone); per-class scores must be probabilities summing to 1, in sorted class "
            "order") in r.stderr
    # Per-class probabilities are read as such.
    path = write_csv(tmp_path / "p.csv", ["y", "p0", "p1"], zip(y, 1 - a, a))
    r = run_cli("metrics", path, "--label", "y", "--score", "p0,p1", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["summary"]["ROC AUC"]["value"] == pytest.approx(
        sk.roc_auc_score(y, a), rel=1e-12)


def test_continuous_target_is_refused_pointing_at_the_regression_route(run_cli, tmp_path, rng):
    # Issue 38: --pred on a regression target gave 635 "classes" and accuracy 0.0000.
    t = np.round(rng.normal(size=635) * 10, 4)
    path = write_csv(tmp_path / "reg.csv", ["t", "pred"], zip(t, np.round(t + 0.5, 4)))
    r = run_cli("metrics", path, "--label", "t", "--pred", "pred")
    assert r.returncode == 2 and r.stdout == ""
    first = next(i for i, v in enumerate(t) if v != np.floor(v))
    assert r.stderr == (
        f'assay: {path}:{first + 2}:1: column "t": expected a class label, found {t[first]:g}: '
        "the labels are continuous (a regression target?), not classes; for regression "
        'metrics give --task regression (Python: task="regression")\n')
    # The route it points at works on that file.
    ok = run_cli("metrics", path, "--label", "t", "--pred", "pred", "--task", "regression")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.splitlines()[3].split() == ["MAE", "0.5000"]
    # Probabilities given as --pred are refused too, pointing at --score.
    path = write_csv(tmp_path / "p.csv", ["y", "p"], [(0, 0.2), (1, 0.7)])
    r = run_cli("metrics", path, "--label", "y", "--pred", "p")
    assert r.returncode == 2
    assert 'column "p": expected a predicted class label, found 0.2' in r.stderr
    assert "give scores with --score" in r.stderr


def test_inverted_scores_warn(run_cli, tmp_path, rng):
    # Issue 38: ROC AUC 0.0035 and MCC -0.94 without a word.
    y = rng.integers(0, 2, 300)
    s = np.round(np.clip(1 - (0.6 * y + 0.4 * rng.random(300)), 0, 1), 4)
    path = write_csv(tmp_path / "inv.csv", ["y", "p"], zip(y, s))
    r = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert r.returncode == 0, r.stderr
    auc = sk.roc_auc_score(y, s)
    assert auc < 0.05
    warning = [line for line in r.stderr.splitlines() if "may be inverted" in line]
    assert len(warning) == 1
    assert warning[0].startswith(f'assay: warning: ROC AUC of class "1" is {auc:.4f} (95% DeLong '
                                 "upper bound ")
    assert warning[0].endswith("below 0.5 beyond chance, so the scores rank the positive class "
                               "lower, not higher; they may be inverted: negate them, or check "
                               "which class is positive (--pos-label, Python: pos_label)")
    assert "note: ROC AUC of class" in r.stdout
    # The same scores the right way round: no warning.
    path = write_csv(tmp_path / "ok.csv", ["y", "p"], zip(y, np.round(1 - s, 4)))
    r = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert r.returncode == 0 and "inverted" not in r.stderr + r.stdout


def test_log_loss_is_the_librarys(run_cli, tmp_path):
    # Issue 38: 17.3810 (clipped at 1e-15) where assay.metrics.log_loss and scikit-learn give
    # 18.1334 (machine epsilon).
    path = write_csv(tmp_path / "ll.csv", ["y", "p"], [(0, 1.0), (1, 0.0), (0, 0.2), (1, 0.8)])
    r = run_cli("metrics", path, "--label", "y", "--score", "p", "--json")
    assert r.returncode == 0, r.stderr
    value = json.loads(r.stdout)["summary"]["log loss"]["value"]
    assert value == pytest.approx(sk.log_loss([0, 1, 0, 1], [1.0, 0.0, 0.2, 0.8]), rel=1e-12)
    assert value == pytest.approx(assay.metrics.log_loss([0, 1, 0, 1], [1.0, 0.0, 0.2, 0.8]),
                                  rel=1e-12)
    assert round(value, 4) == 18.1334


@pytest.mark.parametrize("weight", ["5e-324", "1e-310", "1e308", "1.7e308"])
def test_subnormal_and_huge_weights_give_the_equal_weights_values(run_cli, tmp_path, weight):
    # Issue 38: weights 5e-324 gave ROC AUC NaN "one class", AP 1.0 (true 0.833), MCC NaN,
    # Brier 0.25 (true 0.15); 1e308 gave "precision contains NaN at index 0".
    rows = [(0, .1), (0, .4), (1, .35), (1, .8)]
    plain = write_csv(tmp_path / "plain.csv", ["y", "p"], rows)
    weighted = write_csv(tmp_path / "w.csv", ["y", "p", "w"], [r + (weight,) for r in rows])
    a = run_cli("metrics", plain, "--label", "y", "--score", "p", "--json")
    b = run_cli("metrics", weighted, "--label", "y", "--score", "p", "--weight", "w", "--json")
    assert b.returncode == 0 and "warning" not in b.stderr, b.stderr
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    for name, entry in ja["summary"].items():
        assert jb["summary"][name]["value"] == pytest.approx(entry["value"], rel=1e-15), name
    assert jb["summary"]["average precision (step)"]["value"] == pytest.approx(5 / 6)
    assert jb["summary"]["Brier score"]["value"] == pytest.approx(0.158125)


def test_missing_file_and_missing_options(run_cli, tmp_path):
    r = run_cli("metrics", tmp_path / "nope.csv", "--label", "y", "--score", "p")
    assert r.returncode == 2
    assert "nope.csv: cannot open: No such file or directory" in r.stderr
    r = run_cli("metrics", tmp_path / "nope.csv", "--label", "y")
    assert r.returncode == 2 and "give --score COL[,COL...], --pred COL or --models A,B" in r.stderr
    r = run_cli("metrics")
    assert r.returncode == 2


def test_single_class_with_pos_label_gives_nan_and_a_warning(run_cli, tmp_path):
    path = write_csv(tmp_path / "one.csv", ["y", "p"], [(0, 0.1), (0, 0.7), (0, 0.3)])
    r = run_cli("metrics", path, "--label", "y", "--score", "p", "--pos-label", "1", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["summary"]["ROC AUC"]["value"] is None  # NaN
    assert "assay: warning:" in r.stderr


def test_warnings_are_not_repeated(run_cli, tmp_path):
    # Nothing predicted positive: precision, F1 and MCC share one undefined ratio.
    path = write_csv(tmp_path / "w.csv", ["y", "p"], [(1, 0.1), (0, 0.2), (1, 0.3)])
    r = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert r.returncode == 0
    lines = [l for l in r.stderr.splitlines() if l.startswith("assay: warning:")]
    assert lines and len(lines) == len(set(lines))


def run_on_a_tty(args):
    """Runs the CLI with stderr on a pseudo-terminal; returns (exit code, what the terminal got)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([cli_path(), *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=120), b"".join(chunks).decode(errors="replace")


def test_progress_bar_on_a_tty_and_quiet(binary_file):
    path = binary_file[0]
    args = ["metrics", path, "--label", "y", "--score", "p", "--bootstrap", "3000", "--seed", "1"]
    code, terminal = run_on_a_tty(args)
    assert code == 0
    assert "bootstrap [" in terminal and "%" in terminal
    code, terminal = run_on_a_tty([*args, "--quiet"])
    assert code == 0 and "bootstrap [" not in terminal


def test_evaluate_python_bad_input():
    with pytest.raises(assay.AssayError, match="give y_score or y_pred"):
        assay.metrics.evaluate([0, 1])
    with pytest.raises(assay.AssayError, match=r"y_true and y_score differ in length \(3 vs 2\)"):
        assay.metrics.evaluate([0, 1, 1], [0.2, 0.3])
    with pytest.raises(assay.AssayError, match=r"y_true and y_pred differ in length \(2 vs 1\)"):
        assay.metrics.evaluate([0, 1], y_pred=[1])
    with pytest.raises(assay.AssayError, match="scores contain nan at sample 2"):
        assay.metrics.evaluate([0, 1], [0.2, float("nan")])
    with pytest.raises(assay.AssayError, match=r"expected 1 score column or one per class \(2\), found 3"):
        assay.metrics.evaluate([0, 1], np.ones((2, 3)) / 3)
    with pytest.raises(assay.AssayError, match=r"expected one score column per class \(3\), found 1"):
        assay.metrics.evaluate([0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(assay.AssayError, match="sample_weight must be >= 0"):
        assay.metrics.evaluate([0, 1], [0.2, 0.3], sample_weight=[1, -1])


# Python names of `assay metrics` options that are not spelled like the option.
_PYTHON_NAME = {"label": "y_true", "score": "y_score", "pred": "y_pred", "weight": "sample_weight",
                "bootstrap": "n_bootstrap"}


def test_evaluate_python_offers_every_cli_option(run_cli):
    import inspect
    help_text = run_cli("metrics", "--help").stdout
    # --models is the headline comparison: its Python twin is assay.compare.compare.
    # --delimiter/--decimal say how to read the CSV: Python takes arrays (assay.io.read_csv has
    # delimiter= and decimal=).
    options = set(re.findall(r"^\s+(?:-\w,)?--([\w-]+)", help_text, re.M)) - {
        "help", "json", "json-out", "models", "delimiter", "decimal"}
    parameters = inspect.signature(assay.metrics.evaluate).parameters
    missing = [o for o in sorted(options) if _PYTHON_NAME.get(o, o.replace("-", "_")) not in parameters]
    assert "ap-grid" in options and "bin-strategy" in options
    assert missing == []


def test_evaluate_python_equals_the_cli_with_every_option(run_cli, tmp_path, rng):
    n = 120
    y = rng.integers(0, 2, n).astype(float)  # 0.0 / 1.0: named "0" / "1" by both
    s = np.round(np.clip(0.4 * y + 0.6 * rng.random(n), 0, 1), 2)
    w = rng.choice([0.5, 1.0, 2.0], n)
    path = write_csv(tmp_path / "f.csv", ["y", "p", "w"], zip(y, s, w))
    cli = ["--ap-method", "voc07", "--ap-grid", "numpy", "--bins", "7", "--bin-strategy", "quantile",
           "--pos-label", "1", "--threshold", "0.4", "--bootstrap", "40", "--seed", "3",
           "--confidence", "0.9", "--max-classes", "5", "--threads", "1"]
    r = run_cli("metrics", path, "--label", "y", "--score", "p", "--weight", "w", "--json", *cli)
    assert r.returncode == 0, r.stderr
    twin = assay.metrics.evaluate(y, s, sample_weight=w, ap_method="voc07", ap_grid="numpy",
                                  bins=7, bin_strategy="quantile", pos_label=1.0, threshold=0.4,
                                  n_bootstrap=40, seed=3, confidence=0.9, max_classes=5, threads=1)
    assert twin.to_document() == json.loads(r.stdout)
    assert twin["classes"] == ["0", "1"] and twin["positive_class"] == "1"
    assert assay.metrics.evaluate(y, s, pos_label=1)["positive_class"] == "1"
    # bins and bin_strategy reach the library (the CLI equality above checks them all).
    assert assay.metrics.evaluate(y, s)["calibration"] != twin["calibration"]


def test_evaluate_python_labels_like_the_cli():
    out = assay.metrics.evaluate(np.array([1.0, 2.0, 2.0, 1.0]), y_pred=np.array([1, 2, 1, 1]))
    assert out["classes"] == ["1", "2"]
    out = assay.metrics.evaluate(["b", "a", "b"], y_pred=["a", "a", "b"])
    assert out["classes"] == ["a", "b"]
    with pytest.raises(assay.AssayError, match=r'column "y_true", data row 2: expected a class '
                                               r"label, found NaN"):
        assay.metrics.evaluate([0.0, float("nan")], y_pred=[0, 1])
    with pytest.raises(assay.AssayError, match="y_true must be a 1-D array, found 2 dimensions"):
        assay.metrics.evaluate(np.zeros((2, 2)), y_pred=[0, 1])
    with pytest.raises(assay.AssayError, match="bins must be >= 1, found 0"):
        assay.metrics.evaluate([0, 1], [0.2, 0.7], bins=0)
    with pytest.raises(assay.AssayError, match="bins: expected an integer, found 2.5"):
        assay.metrics.evaluate([0, 1], [0.2, 0.7], bins=2.5)
    with pytest.raises(assay.AssayError, match="strategy must be 'uniform' or 'quantile'"):
        assay.metrics.evaluate([0, 1], [0.2, 0.7], bin_strategy="equal")
    with pytest.raises(assay.AssayError, match="numpy"):
        assay.metrics.evaluate([0, 1], [0.2, 0.7], ap_grid="fine")
    with pytest.raises(assay.AssayError, match="no samples to evaluate"):
        assay.metrics.evaluate([], y_pred=[])
