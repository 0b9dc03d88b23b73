import numpy as np
import pytest
from sklearn.metrics import accuracy_score, average_precision_score, roc_auc_score

import assay
from assay.metrics import bootstrap, summarize_runs


def test_bootstrap_is_seeded_and_matches_its_replicates(rng):
    y = rng.integers(0, 2, 300)
    s = rng.random(300) + 0.4 * y
    a = bootstrap(roc_auc_score, y, s, n_resamples=300, seed=3)
    b = bootstrap(roc_auc_score, y, s, n_resamples=300, seed=3)
    c = bootstrap(roc_auc_score, y, s, n_resamples=300, seed=4)
    np.testing.assert_array_equal(a["replicates"], b["replicates"])
    assert not np.array_equal(a["replicates"], c["replicates"])
    assert a["estimate"] == pytest.approx(roc_auc_score(y, s), rel=1e-15)
    lo, hi = np.quantile(a["replicates"], [0.025, 0.975])
    assert a["low"] == pytest.approx(lo, rel=1e-14)
    assert a["high"] == pytest.approx(hi, rel=1e-14)
    assert a["standard_error"] == pytest.approx(np.std(a["replicates"], ddof=1), rel=1e-12)
    assert a["low"] < a["estimate"] < a["high"]
    assert (a["confidence"], a["n_resamples"], a["seed"], a["n_undefined"]) == (0.95, 300, 3, 0)


def test_bootstrap_interval_of_a_mean_has_the_textbook_width(rng):
    # Accuracy of predictions that are right with probability 0.8: SE = sqrt(.8*.2/n).
    n = 2000
    y = np.ones(n, dtype=int)
    pred = (rng.random(n) < 0.8).astype(int)
    r = bootstrap(accuracy_score, y, pred, n_resamples=1000, seed=0)
    p = pred.mean()
    se = np.sqrt(p * (1 - p) / n)
    assert r["standard_error"] == pytest.approx(se, rel=0.1)
    assert r["high"] - r["low"] == pytest.approx(2 * 1.96 * se, rel=0.12)


def test_bootstrap_with_sample_weight_passes_weights(rng):
    y = rng.integers(0, 2, 100)
    s = rng.random(100)
    w = rng.random(100)
    r = bootstrap(roc_auc_score, y, s, n_resamples=50, seed=1, sample_weight=w)
    assert r["estimate"] == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-15)


def test_bootstrap_undefined_resamples_are_counted_and_warned():
    y = np.array([0] * 9 + [1])
    s = np.linspace(0, 1, 10)

    def auc_or_nan(yt, ys):
        return roc_auc_score(yt, ys) if len(np.unique(yt)) == 2 else float("nan")

    with pytest.warns(assay.AssayWarning, match=r"undefined \(NaN\) on \d+ of 200 resamples"):
        r = bootstrap(auc_or_nan, y, s, n_resamples=200, seed=0)
    assert 0 < r["n_undefined"] < 200
    assert r["n_undefined"] == np.isnan(r["replicates"]).sum()


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_resamples=0), "n_resamples must be at least 1, found 0"),
    (dict(confidence=1.0), r"confidence: expected a number in \(0, 1\), found 1"),
    (dict(sample_weight=[1.0, -1.0, 1.0]), "sample_weight must be >= 0, found -1 at index 1"),
    (dict(sample_weight=[1.0, 1.0]), r"y_true and sample_weight differ in length \(3 vs 2\)"),
])
def test_bootstrap_bad_input(kwargs, message):
    with pytest.raises(assay.AssayError, match=message):
        bootstrap(accuracy_score, [0, 1, 1], [0, 1, 0], **kwargs)


def test_bootstrap_length_mismatch():
    with pytest.raises(assay.AssayError, match=r"y_true and y_score_or_pred differ in length \(3 vs 2\)"):
        bootstrap(accuracy_score, [0, 1, 1], [0, 1])


def test_summarize_runs_matches_numpy(rng):
    v = rng.normal(0.8, 0.02, 10)
    s = summarize_runs(v)
    assert s["mean"] == pytest.approx(np.mean(v), rel=1e-14)
    assert s["sd"] == pytest.approx(np.std(v, ddof=1), rel=1e-12)
    assert (s["min"], s["max"], s["n"]) == (v.min(), v.max(), 10)


def test_summarize_runs_by_meta_parameter(rng):
    by = np.repeat([0.1, 0.01, 0.001], 5)
    v = rng.normal(0.8, 0.02, 15)
    s = summarize_runs(v, by=by)
    np.testing.assert_array_equal(s["by"], [0.001, 0.01, 0.1])
    for i, b in enumerate(s["by"]):
        g = v[by == b]
        assert s["mean"][i] == pytest.approx(g.mean(), rel=1e-14)
        assert s["sd"][i] == pytest.approx(g.std(ddof=1), rel=1e-12)
        assert s["n"][i] == 5


def test_summarize_runs_single_run_warns_nan():
    with pytest.warns(assay.AssayWarning, match="standard deviation of a single run is undefined"):
        s = summarize_runs([0.5])
    assert np.isnan(s["sd"]) and s["mean"] == 0.5


@pytest.mark.parametrize("values, by, message", [
    ([], None, "summarize_runs needs at least one value, found 0"),
    ([0.5, float("nan")], None, "values contains NaN at index 1"),
    ([0.5, 0.6], [1.0], r"values and by differ in length \(2 vs 1\)"),
])
def test_summarize_runs_bad_input(values, by, message):
    with pytest.raises(assay.AssayError, match=message):
        summarize_runs(values, by=by)


@pytest.mark.parametrize("name, sk_metric, kwargs", [
    ("roc_auc", roc_auc_score, {}),
    ("average_precision", average_precision_score, {}),
    ("average_precision", None, {"method": "voc07"}),
])
def test_ranking_fast_path_equals_resampling_the_data(rng, name, sk_metric, kwargs):
    y = rng.integers(0, 2, 250)
    s = np.round(rng.random(250) + 0.3 * y, 2)
    fast = bootstrap(name, y, s, n_resamples=100, seed=9, **kwargs)
    fn = getattr(assay.metrics, name + "_score")
    slow = bootstrap(lambda a, b: fn(a, b, **kwargs), y, s, n_resamples=100, seed=9)
    np.testing.assert_allclose(fast["replicates"], slow["replicates"], rtol=1e-12)
    one = bootstrap(fn, y, s, n_resamples=100, seed=9, threads=1, **kwargs)
    np.testing.assert_array_equal(one["replicates"], fast["replicates"])
    if sk_metric is not None:
        ref = bootstrap(sk_metric, y, s, n_resamples=100, seed=9)
        np.testing.assert_allclose(fast["replicates"], ref["replicates"], rtol=1e-12)


def test_unknown_metric_name():
    with pytest.raises(assay.AssayError, match="unknown metric name 'f2'"):
        bootstrap("f2", [0, 1], [0.1, 0.2])


def test_summarize_runs_trend_page(tmp_path, rng):
    page = tmp_path / "trend.html"
    summarize_runs(rng.random(6), by=[0.1, 0.1, 0.01, 0.01, 0.001, 0.001], html=page,
                   x_title="learning rate", y_title="accuracy", log_x=True)
    text = page.read_text()
    assert "learning rate" in text and "vegaEmbed" in text


def test_runs_cli(run_cli, tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("lr,seed,acc\n0.1,1,0.8\n0.1,2,0.82\n0.01,1,0.85\n0.01,2,0.86\n")
    r = run_cli("runs", path, "--value", "acc", "--by", "lr", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    import json
    out = json.loads(r.stdout)
    assert out["by"] == [0.01, 0.1]
    np.testing.assert_allclose(out["mean"], [0.855, 0.81], rtol=1e-14)
    np.testing.assert_allclose(out["sd"], [np.std([0.85, 0.86], ddof=1), np.std([0.8, 0.82], ddof=1)],
                               rtol=1e-12)
    r = run_cli("runs", path, "--value", "seedz")
    assert r.returncode == 2 and 'no column "seedz"' in r.stderr
    r = run_cli("runs", path, "--value", "acc")
    assert r.returncode == 0 and r.stdout.splitlines()[1].split() == [
        "all", "runs", "0.8325", "0.0275", "0.8000", "0.8600", "4"]
    empty = tmp_path / "empty.csv"
    empty.write_text("acc\n")
    r = run_cli("runs", empty, "--value", "acc")
    assert r.returncode == 2 and "empty.csv: no data rows, expected at least one" in r.stderr
