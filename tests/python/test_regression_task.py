"""Regression as a task (issue 41): `assay metrics --task regression`, Python's
evaluate(task="regression"), the [regression] report section and the auto-detection that refuses
a regression target as classes. Numbers against scikit-learn 1.2.1; bootstrap intervals against
scikit-learn's metrics on the same resamples (assay.metrics.bootstrap hands them the draw
counts) and numpy's percentile."""
import html
import json
import os
import re

import numpy as np
import pytest
import sklearn.metrics as skm

import assay
from assay.metrics import bootstrap, evaluate
from conftest import ROOT, render_page

N = 300
IDS = ["mae", "rmse", "mse", "median_ae", "max_error", "mape", "r2", "explained_variance",
       "d2_absolute_error", "msle", "rmsle", "mean_poisson_deviance", "mean_gamma_deviance"]


def sk_metrics(y, p, w=None):
    """Every metric by scikit-learn 1.2.1 (max error over the rows of positive weight, since
    scikit-learn's takes no weights)."""
    kw = {} if w is None else {"sample_weight": w}
    drawn = slice(None) if w is None else w > 0
    return {
        "mae": skm.mean_absolute_error(y, p, **kw),
        "rmse": skm.mean_squared_error(y, p, squared=False, **kw),
        "mse": skm.mean_squared_error(y, p, **kw),
        "median_ae": skm.median_absolute_error(y, p, **kw),
        "max_error": skm.max_error(y[drawn], p[drawn]),
        "mape": skm.mean_absolute_percentage_error(y, p, **kw),
        "r2": skm.r2_score(y, p, **kw),
        "explained_variance": skm.explained_variance_score(y, p, **kw),
        "d2_absolute_error": skm.d2_absolute_error_score(y, p, **kw),
        "msle": skm.mean_squared_log_error(y, p, **kw),
        "rmsle": skm.mean_squared_log_error(y, p, squared=False, **kw),
        "mean_poisson_deviance": skm.mean_poisson_deviance(y, p, **kw),
        "mean_gamma_deviance": skm.mean_gamma_deviance(y, p, **kw),
    }


def data(seed=3, n=N):
    rng = np.random.default_rng(seed)
    y = rng.gamma(3.0, 20.0, n).round(3)
    a = np.abs(y + rng.normal(0, 12, n)).round(3) + 0.5
    b = (0.7 * y + 18 + rng.normal(0, 6, n)).round(3)
    counts = rng.integers(0, 4, n)
    counts[0] = 1
    w = rng.uniform(0.2, 3.0, n).round(4)
    return y, a, b, counts, w


@pytest.fixture
def csv_file(tmp_path):
    y, a, b, counts, w = data()
    path = tmp_path / "pred.csv"
    with open(path, "w") as f:
        f.write("y,ridge,forest,count,w\n")
        for row in zip(y, a, b, counts, w):
            f.write(",".join(map(str, row)) + "\n")
    return path


def cli_doc(run_cli, *args):
    r = run_cli("metrics", *map(str, args), "--task", "regression", "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def values(doc, model):
    return {k: v["value"] for k, v in doc["models"][model]["summary"].items()}


def test_every_metric_matches_scikit_learn(run_cli, csv_file):
    y, a, b, counts, w = data()
    doc = cli_doc(run_cli, csv_file, "--label", "y", "--models", "ridge", "forest")
    assert list(doc["models"]) == ["ridge", "forest"]
    assert doc["n_samples"] == N and doc["target"] == "y" and doc["weighted"] is False
    for name, p in [("ridge", a), ("forest", b)]:
        got = values(doc, name)
        assert list(got) == IDS
        expected = sk_metrics(y, p)
        for k in IDS:
            assert got[k] == pytest.approx(expected[k], rel=1e-12, abs=1e-13), (name, k)
        # No bootstrap: no intervals.
        assert doc["models"][name]["summary"]["mae"]["low"] is None


def test_weighted_metrics_match_scikit_learn(run_cli, csv_file):
    y, a, b, counts, w = data()
    # scikit-learn 1.2.1's weighted metrics, its weighted median (the first value whose
    # cumulative weight reaches half) included.
    for weights, column in [(w, "w"), (counts.astype(float), "count")]:
        doc = cli_doc(run_cli, csv_file, "--label", "y", "--pred", "ridge", "--weight", column)
        got, expected = values(doc, "ridge"), sk_metrics(y, a, weights)
        assert doc["weighted"] is True
        assert doc["total_weight"] == pytest.approx(weights.sum(), rel=1e-14)
        for k in IDS:
            assert got[k] == pytest.approx(expected[k], rel=1e-12), (column, k)
    # Integer weights are repeated rows for every metric but the two weighted medians.
    expected = sk_metrics(np.repeat(y, counts), np.repeat(a, counts))
    for k in set(IDS) - {"median_ae", "d2_absolute_error"}:
        assert got[k] == pytest.approx(expected[k], rel=1e-12), k


def test_python_twin_returns_the_cli_document(run_cli, csv_file, tmp_path):
    y, a, b, counts, w = data()
    args = ["--bootstrap", 200, "--seed", 4, "--confidence", 0.9, "--weight", "w"]
    doc = cli_doc(run_cli, csv_file, "--label", "y", "--models", "ridge", "forest", *args)
    page = tmp_path / "py.html"
    result = evaluate(y, y_pred={"ridge": a, "forest": b}, sample_weight=w, task="regression",
                      n_bootstrap=200, seed=4, confidence=0.9, html=page, progress=False)
    assert type(result).__name__ == "RegressionEvaluationResult"
    assert result.to_document() == doc
    assert result["params"] == {"n_bootstrap": 200, "confidence": 0.9, "seed": 4}
    assert repr(result).splitlines()[0] == "regression evaluation: 300 samples, target y, 2 models"
    html = result._repr_html_()
    assert "ridge" in html and "forest" in html
    assert render_page(page) == "ok:3"


def test_bootstrap_intervals_are_scikit_learn_on_the_same_resamples(run_cli, csv_file):
    """assay.metrics.bootstrap draws the same resamples (seed, index) and hands scikit-learn the
    repeated rows: its replicates' numpy percentiles are the CLI's intervals."""
    y, a, b, counts, w = data()
    n_resamples, seed = 120, 11
    doc = cli_doc(run_cli, csv_file, "--label", "y", "--pred", "ridge", "--bootstrap",
                  n_resamples, "--seed", seed, "--confidence", 0.9)
    summary = doc["models"]["ridge"]["summary"]
    for k in IDS:
        metric = (lambda t, p, k=k: sk_metrics(t, p)[k])
        ref = bootstrap(metric, y, a, n_resamples=n_resamples, seed=seed, confidence=0.9,
                        progress=False)
        low, high = np.percentile(ref["replicates"], [5, 95])
        assert summary[k]["low"] == pytest.approx(low, rel=1e-10, abs=1e-12), k
        assert summary[k]["high"] == pytest.approx(high, rel=1e-10, abs=1e-12), k
        assert summary[k]["low"] <= summary[k]["value"] <= summary[k]["high"] or k == "max_error"


def test_weighted_bootstrap_is_the_metric_of_the_drawn_rows(run_cli, csv_file):
    y, a, b, counts, w = data()
    doc = cli_doc(run_cli, csv_file, "--label", "y", "--pred", "ridge", "--bootstrap", 80,
                  "--seed", 2, "--weight", "count")
    summary = doc["models"]["ridge"]["summary"]
    for k in IDS:
        def metric(t, p, sample_weight, k=k):  # the drawn rows, weight x count
            return sk_metrics(t, p, sample_weight)[k]
        ref = bootstrap(metric, y, a, n_resamples=80, seed=2, sample_weight=counts.astype(float),
                        progress=False)
        low, high = np.percentile(ref["replicates"], [2.5, 97.5])
        assert summary[k]["low"] == pytest.approx(low, rel=1e-10, abs=1e-12), k
        assert summary[k]["high"] == pytest.approx(high, rel=1e-10, abs=1e-12), k


def test_intervals_do_not_depend_on_threads_and_cover(run_cli, csv_file, tmp_path):
    args = [csv_file, "--label", "y", "--models", "a=ridge", "b=forest", "--bootstrap", 300,
            "--seed", 5]
    one = cli_doc(run_cli, *args, "--threads", 1)
    two = cli_doc(run_cli, *args, "--threads", 2)
    assert one == two and list(one["models"]) == ["a", "b"]
    # Coverage sanity: the 95% interval of the MAE of a known error distribution (|N(0, 1)|,
    # mean sqrt(2/pi)) covers it in most of 40 data sets.
    rng = np.random.default_rng(0)
    covered = 0
    for i in range(40):
        y = rng.normal(size=200)
        p = y + rng.normal(size=200)
        r = evaluate(y, y_pred=p, task="regression", n_bootstrap=200, seed=i, progress=False)
        mae = r["models"]["predictions"]["summary"]["mae"]
        covered += mae["low"] <= np.sqrt(2 / np.pi) <= mae["high"]
    assert covered >= 32  # 95% nominal: P(covered < 32 of 40) < 1e-3


@pytest.mark.filterwarnings("ignore:.*(ill-defined|not in y_true)")
def test_auto_detection_refuses_a_regression_target_as_classes(run_cli, tmp_path):
    rng = np.random.default_rng(1)
    y = rng.integers(25, 346, 442)  # diabetes-like: whole numbers, ~2 rows per value
    pred = np.clip(y + rng.integers(-30, 30, 442), 25, 345)
    path = tmp_path / "d.csv"
    path.write_text("y,pred\n" + "".join(f"{a},{b}\n" for a, b in zip(y, pred)))
    k = len(np.unique(y))
    r = run_cli("metrics", path, "--label", "y", "--pred", "pred")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (
        f'assay: {path}: column "y" holds {k} distinct numbers in 442 rows ({442 / k:.1f} rows '
        'each): a regression target, not classes; give --task regression (Python: '
        'task="regression") for regression metrics, or --task classification to evaluate its '
        f"values as {k} classes\n")
    with pytest.raises(assay.AssayError, match=r'give --task regression \(Python: '
                       r'task="regression"\)'):
        evaluate(y, y_pred=pred)
    # Asked for explicitly, the values are classes; as regression, metrics.
    assert run_cli("metrics", path, "--label", "y", "--pred", "pred", "--task",
                   "classification", "--json").returncode == 0
    assert evaluate(y, y_pred=pred, task="classification")["n_samples"] == 442
    assert cli_doc(run_cli, path, "--label", "y", "--pred", "pred")["n_samples"] == 442
    # 60 classes with 20 rows each are classes; so are 50 classes with one row each.
    many = np.repeat(np.arange(60), 20)
    assert len(evaluate(many, y_pred=many)["classes"]) == 60
    assert len(evaluate(np.arange(50), y_pred=np.arange(50))["classes"]) == 50
    assert len(evaluate(np.arange(51).astype(str), y_pred=np.arange(51).astype(str))
               ["classes"]) == 51  # text labels are always classes
    with pytest.raises(assay.AssayError, match="holds 51 distinct numbers in 51 rows"):
        evaluate(np.arange(51), y_pred=np.arange(51))


def test_bad_options_are_refused(run_cli, csv_file):
    r = run_cli("metrics", csv_file, "--label", "y", "--pred", "ridge", "--task", "regresion")
    assert r.returncode == 2
    assert r.stderr == ('assay: --task: expected auto, classification or regression, found '
                        '"regresion"\n')
    r = run_cli("metrics", csv_file, "--label", "y", "--score", "ridge", "--task", "regression")
    assert r.returncode == 2 and "takes --pred or --models, not --score" in r.stderr
    with pytest.raises(assay.AssayError, match='task: expected auto, classification or '
                       'regression, found "x"'):
        evaluate([1.0, 2.0], y_pred=[1.0, 2.0], task="x")
    with pytest.raises(assay.AssayError, match="y_true and y_pred of m differ in length"):
        evaluate([1.0, 2.0], y_pred={"m": [1.0]}, task="regression")


def test_bad_cells_are_located(run_cli, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("y,p\n1,2\n3,inf\n")
    r = run_cli("metrics", path, "--label", "y", "--pred", "p", "--task", "regression")
    assert r.returncode == 2
    assert r.stderr == (f'assay: {path}:3:3: column "p": expected a finite prediction, found '
                        'infinity\n')
    path.write_text("y,p,w\n1,2,1\n3,4,-1\n")
    r = run_cli("metrics", path, "--label", "y", "--pred", "p", "--weight", "w", "--task",
                "regression")
    assert r.stderr == (f'assay: {path}:3:5: column "w": expected a finite weight >= 0, found '
                        '-1\n')


def test_metrics_outside_their_domain_are_left_out_with_a_note(run_cli, tmp_path):
    path = tmp_path / "neg.csv"
    path.write_text("y,p\n-1,0.5\n2,2.5\n3,2\n0,0\n")
    doc = cli_doc(run_cli, path, "--label", "y", "--pred", "p")
    assert list(doc["models"]["p"]["summary"]) == IDS[:9]
    assert doc["notes"] == [
        "MSLE and RMSLE left out: they need targets and the predictions >= 0",
        "mean Poisson deviance left out: it needs targets >= 0 and the predictions > 0",
        "mean Gamma deviance left out: it needs targets and the predictions > 0"]
    text = run_cli("metrics", path, "--label", "y", "--pred", "p", "--task", "regression").stdout
    assert "note: MSLE and RMSLE left out" in text


def test_html_page_of_many_samples_stays_small(run_cli, tmp_path):
    rng = np.random.default_rng(2)
    n = 30000
    y = rng.normal(size=n)
    path = tmp_path / "big.csv"
    np.savetxt(path, np.c_[y, y + rng.normal(size=n)], delimiter=",", header="y,p",
               comments="", fmt="%.6f")
    page = tmp_path / "big.html"
    r = run_cli("metrics", path, "--label", "y", "--pred", "p", "--task", "regression",
                "--html", page)
    assert r.returncode == 0, r.stderr
    text = page.read_text()
    assert "2000 evenly spaced of the 30000 samples drawn" in text
    assert os.path.getsize(page) < 1_400_000  # the ~0.9 MB chart library plus 2 x 2000 points
    assert render_page(page) == "ok:3"


def test_assay_compare_compares_the_same_regressors(run_cli, csv_file):
    """`assay compare` on the same file (its auto task reads the target as regression, by the
    same rule): its values and intervals are ours, from the same resamples."""
    r = run_cli("compare", csv_file, "--label", "y", "--models", "ridge", "forest",
                "--metrics", "mae", "rmse", "r2", "--resamples", 200, "--seed", 3, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["task"] == "regression"
    ours = cli_doc(run_cli, csv_file, "--label", "y", "--models", "ridge", "forest",
                   "--bootstrap", 200, "--seed", 3)
    for model in doc["models"]:
        for m in model["metrics"]:
            mine = ours["models"][model["name"]]["summary"][m["metric"]]
            for key in ("value", "low", "high"):
                assert m[key] == pytest.approx(mine[key], rel=1e-12), (model["name"], m, key)


# ------------------------------------------------------------------------- the report section

def write_report(tmp_path, csv_file, extra=""):
    config = tmp_path / "report.toml"
    config.write_text(f'''title = "Regressors"
out = "out.html"
{extra}
[regression]
file = "{csv_file.name}"
label = "y"
bootstrap = 300
[regression.models]
ridge = "ridge"
forest = "forest"
''')
    return config


def test_report_section_claim_is_true_of_its_numbers(run_cli, csv_file, tmp_path):
    config = write_report(tmp_path, csv_file)
    r = run_cli("report", config)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "out.json").read_text())
    # The section's numbers are the CLI's (report seed 1, 1000 -> 300 resamples as configured).
    cli = cli_doc(run_cli, csv_file, "--label", "y", "--models", "ridge", "forest",
                  "--bootstrap", 300, "--seed", 1)
    assert doc["regression"] == cli
    (claim,) = [c for c in doc["claims"] if c["section"] == "regression"]
    assert claim["kind"] == "regression.lowest_error"
    mae = {m: cli["models"][m]["summary"]["mae"] for m in cli["models"]}

    def shown(v):
        return float(f"{v:.4f}")
    best = min(mae, key=lambda m: shown(mae[m]["value"]))
    assert claim["subjects"][0] == best
    other = [m for m in mae if m != best][0]
    overlap = (shown(mae[best]["low"]) <= shown(mae[other]["high"])
               and shown(mae[other]["low"]) <= shown(mae[best]["high"]))
    assert claim["facts"]["models"][1]["overlaps_best"] == overlap
    text = claim["text"]
    assert text.startswith(f"Regression: {best} has the lowest MAE, {mae[best]['value']:.4f} "
                           f"[{mae[best]['low']:.4f}, {mae[best]['high']:.4f}], against {other}'s "
                           f"{mae[other]['value']:.4f} ")
    assert ("the intervals overlap" in text) == overlap
    assert text in doc["summary"]
    assert render_page(tmp_path / "out.html") == "ok:3"
    # The subcommand's page says the same sentence.
    page = tmp_path / "cli.html"
    assert run_cli("metrics", csv_file, "--task", "regression", "--label", "y", "--models",
                   "ridge", "forest", "--bootstrap", 300, "--seed", 1, "--html", page
                   ).returncode == 0
    assert html.escape(text).replace("&#x27;", "&#39;") in page.read_text()


def test_report_section_of_one_model_and_config_errors(run_cli, csv_file, tmp_path):
    config = tmp_path / "one.toml"
    config.write_text(f'out = "one.html"\n[regression]\nfile = "{csv_file.name}"\nlabel = "y"\n'
                      'bootstrap = 0\n[regression.models]\nridge = "ridge"\n')
    assert run_cli("report", config).returncode == 0
    doc = json.loads((tmp_path / "one.json").read_text())
    mae = doc["regression"]["models"]["ridge"]["summary"]["mae"]["value"]
    r2 = doc["regression"]["models"]["ridge"]["summary"]["r2"]["value"]
    assert doc["summary"] == [f"Regression: ridge: MAE {mae:.4f}, R² {r2:.4f} on 300 samples (no bootstrap "
                              "intervals)."]
    config.write_text('[regression]\nfile = "x.csv"\nlabel = "y"\nbotstrap = 3\n')
    r = run_cli("report", config)
    assert r.returncode == 2
    assert r.stderr.startswith(f'assay: {config}:4:1: [regression] unknown key "botstrap" '
                               '(did you mean "bootstrap"?')
    config.write_text(f'[regression]\nfile = "{csv_file.name}"\nlabel = "y"\n'
                      '[regression.models]\nridge = "nope"\n')
    r = run_cli("report", config)
    assert r.returncode == 2 and '[regression]' in r.stderr and '"nope"' in r.stderr


# ------------------------------------------------------------------------------------- docs

def test_documented_commands_run(run_cli, tmp_path):
    """Every `assay` command of docs/metrics_regression.md's CLI section runs on a file with the
    columns it names."""
    text = open(os.path.join(ROOT, "docs", "metrics_regression.md")).read()
    section = text[text.index("## On the command line"):]
    commands = [c.strip() for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S)
                for c in block.replace("\\\n", " ").strip().splitlines()]
    assert len(commands) >= 3
    y, a, b, counts, w = data()
    with open(tmp_path / "predictions.csv", "w") as f:
        f.write("y,ridge,forest,weight\n")
        for row in zip(y, a, b, w):
            f.write(",".join(map(str, row)) + "\n")
    for command in commands:
        args = command.split()
        assert args[0] == "assay"
        r = run_cli(*[str(tmp_path / x) if x.endswith((".csv", ".html", ".json")) else x
                      for x in args[1:]])
        assert r.returncode == 0, (command, r.stderr)


def test_documented_python_runs(capsys):
    text = open(os.path.join(ROOT, "docs", "metrics_regression.md")).read()
    section = text[text.index("## On the command line"):text.index("## How it is computed")]
    (block,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    exec(compile(block, "metrics_regression.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.startswith("{'label': 'MAE', 'value': ")


def shown4(v):
    return float(f"{v:.4f}")


@pytest.mark.parametrize("scenario", ["tie", "apart", "close", "mixed"])
def test_lowest_error_claim_in_every_scenario(run_cli, tmp_path, scenario):
    """The claim's decisions (best, tie, overlaps) from the numbers of report.json, by the rule
    of report-config.md, in data made to tie, to differ clearly, to be close, and a mix."""
    rng = np.random.default_rng(7)
    n = 150
    y = rng.normal(50, 10, n)
    good = y + rng.normal(0, 2, n)
    models = {"tie": {"a": good, "b": good.copy()},
              "apart": {"a": good, "b": y + rng.normal(0, 20, n)},
              "close": {"a": good, "b": good + rng.normal(0, 0.3, n)},
              "mixed": {"a": good, "b": good + rng.normal(0, 0.3, n),
                        "c": y + rng.normal(0, 25, n)}}[scenario]
    names = list(models)
    with open(tmp_path / "p.csv", "w") as f:
        f.write(",".join(["y", *names]) + "\n")
        for i in range(n):
            f.write(",".join(repr(float(v)) for v in [y[i], *(models[m][i] for m in names)])
                    + "\n")
    (tmp_path / "r.toml").write_text(
        'out = "r.html"\n[regression]\nfile = "p.csv"\nlabel = "y"\nbootstrap = 200\n'
        "[regression.models]\n" + "".join(f'{m} = "{m}"\n' for m in names))
    r = run_cli("report", tmp_path / "r.toml", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    (claim,) = [c for c in doc["claims"] if c["section"] == "regression"]
    mae = {m: doc["regression"]["models"][m]["summary"]["mae"] for m in names}
    best_value = min(shown4(mae[m]["value"]) for m in names)
    best = claim["subjects"][0]
    assert shown4(mae[best]["value"]) == best_value
    tied = sum(shown4(mae[m]["value"]) == best_value for m in names) > 1
    assert claim["facts"]["tied"] == tied
    if tied:
        assert claim["text"].startswith(f"Regression: {best} and {claim['subjects'][1]} have the same MAE as "
                                        f"printed, {best_value:.4f}")
        return
    overlaps = [shown4(mae[best]["low"]) <= shown4(mae[m]["high"])
                and shown4(mae[m]["low"]) <= shown4(mae[best]["high"])
                for m in claim["subjects"][1:]]
    assert [f["overlaps_best"] for f in claim["facts"]["models"][1:]] == overlaps
    text = claim["text"]
    if not any(overlaps):
        assert text.endswith("its interval overlaps no other model's.")
    elif all(overlaps):
        assert text.endswith("the intervals overlap, so these intervals alone do not single it "
                             "out.")
    else:
        assert text.endswith(f"its interval overlaps {sum(overlaps)} of the {len(overlaps)} "
                             "others'.")
    for m in claim["subjects"]:
        assert f"{mae[m]['value']:.4f} [{mae[m]['low']:.4f}, {mae[m]['high']:.4f}]" in text
