"""assay.compare and `assay compare` (issue 39): every number against its peer — scikit-learn per
slice, SciPy's paired bootstrap and permutation test, statsmodels' McNemar and Holm — plus
determinism, the CLI's gates and its refusals of bad input."""
import json
import warnings
import xml.dom.minidom

import numpy as np
import pytest
import scipy.stats
from sklearn import metrics as skm

from assay import AssayError
from assay.compare import compare


def binary_data(n=400, seed=0, weights=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.clip(0.5 + 0.25 * (y - 0.5) + rng.normal(0, 0.2, n), 0, 1)
    b = np.clip(0.5 + 0.35 * (y - 0.5) + rng.normal(0, 0.2, n), 0, 1)
    region = rng.choice(["N", "S", "E"], n, p=[0.5, 0.3, 0.2])
    w = rng.integers(1, 4, n).astype(float) if weights else None
    return y, a, b, region, w


SK_BINARY = {
    "roc_auc": lambda y, s, w: skm.roc_auc_score(y, s, sample_weight=w),
    "average_precision": lambda y, s, w: skm.average_precision_score(y, s, sample_weight=w),
    "brier": lambda y, s, w: skm.brier_score_loss(y, s, sample_weight=w),
    "log_loss": lambda y, s, w: skm.log_loss(y, s, sample_weight=w, labels=[0, 1]),
    "accuracy": lambda y, s, w: skm.accuracy_score(y, s >= .5, sample_weight=w),
    "balanced_accuracy": lambda y, s, w: skm.balanced_accuracy_score(y, s >= .5, sample_weight=w),
    "precision": lambda y, s, w: skm.precision_score(y, s >= .5, sample_weight=w),
    "recall": lambda y, s, w: skm.recall_score(y, s >= .5, sample_weight=w),
    "f1": lambda y, s, w: skm.f1_score(y, s >= .5, sample_weight=w),
    "mcc": lambda y, s, w: skm.matthews_corrcoef(y, s >= .5, sample_weight=w),
    "specificity": lambda y, s, w: skm.recall_score(1 - y, s < .5, sample_weight=w),
}


@pytest.mark.parametrize("weighted", [False, True])
def test_every_binary_metric_equals_scikit_learn_on_the_whole_data_and_each_slice(weighted):
    y, a, b, region, w = binary_data(weights=weighted)
    r = compare(y, {"a": a, "b": b}, by={"region": region}, metrics=list(SK_BINARY),
                sample_weight=w, n_resamples=20, progress=False)
    for name, f in SK_BINARY.items():
        for model, s in (("a", a), ("b", b)):
            got = r.metrics.query("model == @model and metric == @name")["value"].item()
            assert got == pytest.approx(f(y, s, w), rel=1e-12, abs=1e-14), (name, model)
            for value in ("N", "S", "E"):
                m = region == value
                row = r.slices.query("slice == @value and model == @model and metric == @name")
                want = f(y[m], s[m], None if w is None else w[m])
                assert row["value"].item() == pytest.approx(want, rel=1e-12, abs=1e-14)
        d = r.differences.query("metric == @name")["difference"].item()
        assert d == pytest.approx(f(y, b, w) - f(y, a, w), rel=1e-12, abs=1e-14)


def test_multiclass_and_regression_metrics_equal_scikit_learn_per_slice():
    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 3, n)
    pa = rng.dirichlet([1, 1, 1], n)
    pa[np.arange(n), y] += 0.5
    pa /= pa.sum(1, keepdims=True)
    pb = rng.dirichlet([1, 1, 1], n)
    g = rng.choice(["u", "v"], n)
    r = compare(y, {"a": pa, "b": pb}, by={"g": g}, n_resamples=0, progress=False,
                metrics=["accuracy", "f1_macro", "f1_weighted", "balanced_accuracy", "mcc",
                         "log_loss", "precision_macro", "recall_macro"])
    sk = {"accuracy": skm.accuracy_score,
          "f1_macro": lambda t, p: skm.f1_score(t, p, average="macro"),
          "f1_weighted": lambda t, p: skm.f1_score(t, p, average="weighted"),
          "balanced_accuracy": skm.balanced_accuracy_score, "mcc": skm.matthews_corrcoef,
          "precision_macro": lambda t, p: skm.precision_score(t, p, average="macro",
                                                              zero_division=0),
          "recall_macro": lambda t, p: skm.recall_score(t, p, average="macro", zero_division=0)}
    for model, p in (("a", pa), ("b", pb)):
        for value in ("u", "v"):
            m = g == value
            for name, f in sk.items():
                row = r.slices.query("slice == @value and model == @model and metric == @name")
                assert row["value"].item() == pytest.approx(f(y[m], p[m].argmax(1)), rel=1e-12)
            row = r.slices.query("slice == @value and model == @model and metric == 'log_loss'")
            assert row["value"].item() == pytest.approx(skm.log_loss(y[m], p[m], labels=[0, 1, 2]),
                                                        rel=1e-12)
    t = rng.normal(10, 3, n)
    fa, fb = t + rng.normal(0, 1, n), t + rng.normal(0.3, 1.2, n)
    r = compare(t, {"a": fa, "b": fb}, by={"g": g}, n_resamples=0, progress=False,
                metrics=["mae", "mse", "rmse", "r2", "mape"])
    sk = {"mae": skm.mean_absolute_error, "mse": skm.mean_squared_error,
          "rmse": lambda u, v: skm.mean_squared_error(u, v) ** .5, "r2": skm.r2_score,
          "mape": skm.mean_absolute_percentage_error}
    for model, f_ in (("a", fa), ("b", fb)):
        for value in ("u", "v"):
            m = g == value
            for name, f in sk.items():
                row = r.slices.query("slice == @value and model == @model and metric == @name")
                assert row["value"].item() == pytest.approx(f(t[m], f_[m]), rel=1e-12)


def test_the_paired_bootstrap_agrees_with_scipy_within_monte_carlo_error():
    # A mean-type statistic SciPy can resample (paired=True): the Brier difference.
    y, a, b, _, _ = binary_data(n=150, seed=4)
    r = compare(y, {"a": a, "b": b}, metrics=["brier"], n_resamples=4000, seed=1,
                progress=False)
    row = r.differences.iloc[0]

    def stat(yy, aa, bb):
        return np.mean((bb - yy) ** 2) - np.mean((aa - yy) ** 2)

    for method, lo, hi in (("percentile", "low", "high"), ("BCa", "bca_low", "bca_high")):
        ci = scipy.stats.bootstrap((y, a, b), stat, paired=True, vectorized=False,
                                   n_resamples=4000, method=method, random_state=7)
        se = ci.standard_error
        # Each bound is a Monte Carlo estimate with error ~ 0.1 se at 4000 resamples.
        assert row[lo] == pytest.approx(ci.confidence_interval.low, abs=0.3 * se), method
        assert row[hi] == pytest.approx(ci.confidence_interval.high, abs=0.3 * se), method


def test_the_permutation_test_agrees_with_scipy_within_monte_carlo_error():
    y, a, b, _, _ = binary_data(n=120, seed=5)
    b = np.clip(a + np.random.default_rng(9).normal(0.01, 0.05, len(a)), 0, 1)
    r = compare(y, {"a": a, "b": b}, metrics=["brier"], test="permutation",
                n_permutations=4000, n_resamples=0, progress=False)
    p = r.differences["p_value"].item()

    def stat(aa, bb):
        return np.mean((bb - y) ** 2) - np.mean((aa - y) ** 2)

    ref = scipy.stats.permutation_test((a, b), stat, permutation_type="samples",
                                       vectorized=False, n_resamples=4000, random_state=3)
    # Two Monte Carlo p-values of 4000 permutations: sd <= sqrt(p(1-p)/4000) each.
    assert abs(p - ref.pvalue) < 4 * np.sqrt(2 * ref.pvalue * (1 - ref.pvalue) / 4000) + 1e-3


def test_mcnemar_and_holm_equal_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests
    y, a, b, _, _ = binary_data(n=300, seed=6)
    c = np.clip(a + np.random.default_rng(1).normal(0.05, 0.1, len(a)), 0, 1)
    r = compare(y, {"a": a, "b": b, "c": c}, metrics=["accuracy", "roc_auc", "f1"],
                n_resamples=300, progress=False)
    for model, s in (("b", b), ("c", c)):
        d = r.json["differences"][[i for i, x in enumerate(r.json["differences"])
                                   if x["model"] == model and x["metric"] == "accuracy"][0]]
        right_a, right_m = (a >= .5) == y, (s >= .5) == y
        table = [[np.sum(right_a & right_m), np.sum(right_a & ~right_m)],
                 [np.sum(~right_a & right_m), np.sum(~right_a & ~right_m)]]
        assert d["test"] == "McNemar exact"
        assert d["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    p = r.differences["p_value"].to_numpy()
    assert r.differences["p_adjusted"].to_numpy() == pytest.approx(
        multipletests(p, method="holm")[1], rel=1e-12)


def test_delong_rows_use_the_delong_test_with_its_interval():
    from assay.metrics import delong_roc_test
    y, a, b, _, _ = binary_data(n=250, seed=8)
    r = compare(y, {"a": a, "b": b}, metrics=["roc_auc"], n_resamples=100, progress=False)
    d = r.json["differences"][0]
    ref = delong_roc_test(y, b, a)
    assert d["test"] == "DeLong"
    assert d["delong"]["difference"] == pytest.approx(d["difference"], rel=1e-12)
    assert d["p_value"] == pytest.approx(ref["p_value"], rel=1e-9)
    z = scipy.stats.norm.ppf(0.975)
    se = d["delong"]["standard_error"]
    assert d["delong"]["low"] == pytest.approx(d["difference"] - z * se, rel=1e-12)


def test_same_seed_same_numbers_at_any_thread_count():
    y, a, b, region, w = binary_data(n=500, seed=2, weights=True)
    metrics = ["roc_auc", "average_precision", "f1", "recall@precision>=0.6"]
    one = compare(y, {"a": a, "b": b}, by={"region": region}, metrics=metrics, sample_weight=w,
                  n_resamples=200, seed=11, threads=1, progress=False).json
    two = compare(y, {"a": a, "b": b}, by={"region": region}, metrics=metrics, sample_weight=w,
                  n_resamples=200, seed=11, threads=2, progress=False).json
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    other = compare(y, {"a": a, "b": b}, metrics=metrics, sample_weight=w, n_resamples=200,
                    seed=12, progress=False).json
    assert other["models"][0]["metrics"][0]["low"] != one["models"][0]["metrics"][0]["low"]


def test_operating_point_metrics_rechoose_the_threshold_in_each_resample():
    y, a, b, _, _ = binary_data(n=400, seed=13)
    r = compare(y, {"a": a, "b": b}, metrics=["recall@precision>=0.8", "threshold@fpr<=0.1"],
                n_resamples=300, progress=False)
    m = r.metrics.query("model == 'a' and metric == 'recall@precision>=0.8'").iloc[0]
    # The brute force over every distinct score (scikit-learn's metrics).
    best = (-1, None)
    for t in np.unique(a)[::-1]:
        pred = a >= t
        if skm.precision_score(y, pred, zero_division=0) >= 0.8:
            rec = skm.recall_score(y, pred)
            if rec > best[0]:
                best = (rec, t)
    assert m["value"] == pytest.approx(best[0], rel=1e-12)
    assert m["threshold"] == best[1]
    assert m["low"] < m["value"] < m["high"]


def test_worst_slice_and_its_gap():
    y, a, b, region, _ = binary_data(n=600, seed=14)
    a = a.copy()
    bad = region == "E"
    a[bad] = np.random.default_rng(1).uniform(size=bad.sum())  # a is random on E
    r = compare(y, {"a": a, "b": b}, by={"region": region}, metrics=["roc_auc"],
                n_resamples=300, progress=False)
    w = r.worst_slices.query("model == 'a'").iloc[0]
    assert w["value"] == "E"
    whole = r.metrics.query("model == 'a'")["value"].item()
    assert w["gap"] == pytest.approx(w["slice_value"] - whole, rel=1e-12)
    assert w["gap_high"] < 0
    assert any("on region=E" in c for c in r.conclusions)


def test_conclusions_state_only_what_the_numbers_show():
    y, a, b, _, _ = binary_data(n=2000, seed=15)
    r = compare(y, {"a": a, "b": b}, metrics=["roc_auc", "brier"], n_resamples=500,
                progress=False)
    for (_, d), sentence in zip(r.differences.iterrows(), r.conclusions):
        if d["p_adjusted"] < 0.05:
            gain = d["difference"] if d["metric"] != "brier" else -d["difference"]
            assert (" beats " in sentence) == (gain > 0), sentence
            assert f"{abs(d['difference']):.3g}" in sentence
        elif d["p_value"] < 0.05 and (d["low"] > 0 or d["high"] < 0):
            assert "but not after the Holm correction" in sentence, sentence
        else:
            assert "do not differ detectably" in sentence, sentence


def test_undefined_statistics_are_nan_with_a_warning():
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    a = np.full(8, 0.5)
    b = np.full(8, 0.5)
    region = np.array(["x"] * 7 + ["y"])
    with pytest.warns(Warning, match="too small"):
        r = compare(y, {"a": a, "b": b}, by={"region": region}, metrics=["roc_auc", "precision"],
                    n_resamples=50, progress=False)
    d = r.differences.query("metric == 'roc_auc'").iloc[0]
    assert d["difference"] == 0 and np.isnan(d["p_value"])  # constant scores: DeLong's se is 0
    one = r.slices.query("slice == 'y' and metric == 'roc_auc'")
    assert one["value"].isna().all()


def test_bad_python_input_is_refused():
    y, a, b, region, _ = binary_data(n=50)
    with pytest.raises(AssayError, match="two or more"):
        compare(y, {"a": a})
    with pytest.raises(AssayError, match="expected 50 values"):
        compare(y, {"a": a, "b": b[:-1]})
    with pytest.raises(AssayError, match="one value"):
        compare(y, {"a": a, "b": b}, by={"r": np.array(["x"] * 50)})
    with pytest.raises(AssayError, match='unknown metric "auc_roc"'):
        compare(y, {"a": a, "b": b}, metrics=["auc_roc"])
    with pytest.raises(AssayError, match="one class"):
        compare(np.ones(50), {"a": a, "b": b})
    with pytest.raises(AssayError, match='gate 1: expected a comparison'):
        compare(y, {"a": a, "b": b}, gates=["roc_auc => 0.85"], n_resamples=10)


def write_csv(path, y, a, b, region):
    with open(path, "w") as f:
        f.write("y,a,b,region\n")
        for row in zip(y, a, b, region):
            f.write(",".join(map(str, row)) + "\n")


def test_cli_gates_exit_status_and_junit(run_cli, tmp_path):
    y, a, b, region, _ = binary_data(n=300, seed=16)
    data = tmp_path / "p.csv"
    write_csv(data, y, a, b, region)
    junit = tmp_path / "gates.xml"
    ok = run_cli("compare", data, "--label", "y", "--models", "production=a,candidate=b",
                 "--resamples", 200, "--gate", "roc_auc >= 0.5",
                 "--gate", "roc_auc drop <= 0.05 vs production", "--junit", junit, "--json")
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["passed"] is True and len(doc["gates"]) == 2
    dom = xml.dom.minidom.parse(str(junit))
    assert dom.getElementsByTagName("testcase").length == 2
    assert dom.getElementsByTagName("failure").length == 0
    bad = run_cli("compare", data, "--label", "y", "--models", "production=a,candidate=b",
                  "--resamples", 200, "--gate", "roc_auc >= 0.99", "--junit", junit)
    assert bad.returncode == 1, bad.stderr
    assert "FAIL" in bad.stdout
    assert xml.dom.minidom.parse(str(junit)).getElementsByTagName("failure").length == 1


@pytest.mark.parametrize("args,message", [
    (["--models", "a,zz"], 'no column "zz"'),
    (["--models", "a,b", "--by", "const"], "one value"),
    (["--models", "a,b", "--gate", "roc_auc => 0.85"],
     'gate 1: expected a comparison such as "roc_auc >= 0.85", found "roc_auc => 0.85"'),
    (["--models", "a,b", "--gate", "auc_roc >= 0.8"], 'unknown metric "auc_roc"'),
    (["--models", "a,b", "--gate", "roc_auc of c >= 0.8"], 'unknown model "c"'),
    (["--models", "a,b", "--metrics", "recall@precision=>0.9"], "expected"),
    (["--models", "a"], "two or more models"),
    (["--models", "a,b", "--label", "one"], "one class"),
    (["--models", "a,b", "--resamples", ""], "expected"),
])
def test_cli_bad_input_is_a_clear_error(run_cli, tmp_path, args, message):
    data = tmp_path / "p.csv"
    with open(data, "w") as f:
        f.write("y,a,b,const,one\n" + "".join(f"{i % 2},{i / 10},{(i * 7 % 10) / 10},k,1\n"
                                           for i in range(10)))
    base = ["compare", data, "--label", "y"]
    if "--label" in args:
        base = ["compare", data]
    out = run_cli(*base, *args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert message in out.stderr
    assert "internal" not in out.stderr


def test_metrics_models_gives_the_headline_comparison(run_cli, tmp_path):
    y, a, b, region, _ = binary_data(n=200, seed=17)
    data = tmp_path / "p.csv"
    write_csv(data, y, a, b, region)
    out = run_cli("metrics", data, "--label", "y", "--models", "a,b", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["params"]["resamples"] == 1000
    assert [d["metric"] for d in doc["differences"]] == ["roc_auc", "average_precision", "f1",
                                                         "accuracy", "brier"]


def test_a_stray_word_in_a_score_column_is_named_where_it_is(run_cli, tmp_path):
    data = tmp_path / "p.csv"
    data.write_text("label,a,b\n0,0.2,0.3\n1,0.4,x\n0,0.1,0.2\n")
    out = run_cli("compare", data, "--label", "label", "--models", "a,b")
    assert out.returncode == 2
    assert 'p.csv:3:7: column "b": expected a score (a number), found "x"' in out.stderr


def test_junit_is_an_output_like_the_others(run_cli, tmp_path):
    y, a, b, region, _ = binary_data(n=60, seed=18)
    data = tmp_path / "predictions.csv"
    write_csv(data, y, a, b, region)
    before = data.read_bytes()
    out = run_cli("compare", data, "--label", "y", "--models", "a,b", "--junit", data)
    assert out.returncode == 2 and "is the input file" in out.stderr
    assert data.read_bytes() == before
    out = run_cli("compare", data, "--label", "y", "--models", "a,b", "--junit", "/dev/null")
    assert out.returncode == 2 and "is a character device" in out.stderr


def test_permutation_needs_models_of_the_same_kind():
    rng = np.random.default_rng(19)
    y = rng.integers(0, 3, 90)
    scores = rng.dirichlet([1, 1, 1], 90)
    predicted = rng.integers(0, 3, 90)
    # Was an out-of-bounds read: one model's three columns swapped with another's one.
    with pytest.raises(AssayError, match="cannot be swapped example by example"):
        compare(y, {"a": scores, "b": predicted}, test="permutation", n_resamples=10,
                progress=False)


def test_a_numeric_pos_label_is_named_as_the_labels_are():
    y, a, b, _, _ = binary_data(n=80, seed=20)
    big = np.where(y == 1, 1234567, 7)
    r = compare(big, {"a": a, "b": b}, pos_label=1234567, metrics=["recall"], n_resamples=0,
                progress=False)
    assert r.json["positive_class"] == "1234567"
    r = compare(big, {"a": a, "b": b}, pos_label=7, metrics=["recall"], n_resamples=0,
                progress=False)
    assert r.json["positive_class"] == "7"


def test_a_slice_column_of_ids_is_refused_before_it_fills_memory():
    n = 200_000
    y = np.arange(n) % 2
    s = np.linspace(0, 1, n)
    with pytest.raises(AssayError, match="more than the .* GB this process can allocate"):
        compare(y, {"a": s, "b": s[::-1]}, by={"id": np.arange(n).astype(str)},
                n_resamples=1_000_000, progress=False)
