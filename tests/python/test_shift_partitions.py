"""assay.shift partition tables, threshold tuning and generalisation sets, checked against
scikit-learn and the single-set functions on the same samples."""
import numpy as np
import pytest
from sklearn import metrics as skm

import assay
import assay.shift as shift

RTOL = 1e-12
NAMES = ["dev_out", "train", "eval_in", "dev_in", "eval_out", "gen"]


def make_task(rng, n=900):
    part = rng.choice(NAMES, n)
    shifted = np.char.endswith(part.astype(str), "out").astype(int)
    y = rng.normal(10, 3, n)
    pred_a = y + rng.normal(0, 1 + 2 * shifted, n)
    pred_b = y + rng.normal(0, 1.5, n)
    unc_a = np.round(np.abs(pred_a - y) + rng.normal(0, 1, n), 1)  # ties
    unc_b = rng.integers(0, 3, n).astype(float)
    return part, shifted, y, {"a": pred_a, "b": pred_b}, {"a": unc_a, "b": unc_b}


def test_partition_table_rows_equal_single_set_functions(rng):
    part, shifted, y, preds, uncs = make_task(rng)
    doc = shift.evaluate_partitions(y, preds, uncs, partition=part, acceptable=2.0,
                                    convention="shifts-vpower")
    # Canonical partitions first in the Shifts 2.0 paper's order, then others, joint sets, "all".
    assert doc["sets"] == ["train", "dev_in", "dev_out", "eval_in", "eval_out", "gen",
                           "dev (in+out)", "eval (in+out)", "all"]
    assert doc["models"] == ["a", "b"]
    assert len(doc["rows"]) == 9 * 2
    masks = {name: part == name for name in NAMES}
    masks["dev (in+out)"] = np.isin(part, ["dev_in", "dev_out"])
    masks["eval (in+out)"] = np.isin(part, ["eval_in", "eval_out"])
    masks["all"] = np.ones(len(y), bool)
    for row in doc["rows"]:
        m = masks[row["set"]]
        yy, p, u = y[m], preds[row["model"]][m], uncs[row["model"]][m]
        e = (yy - p) ** 2
        assert row["n"] == m.sum() and row["n_shifted"] == shifted[m].sum()
        np.testing.assert_allclose(row["rmse"]["value"], skm.mean_squared_error(yy, p, squared=False),
                                   rtol=RTOL)
        np.testing.assert_allclose(row["mae"]["value"], skm.mean_absolute_error(yy, p), rtol=RTOL)
        np.testing.assert_allclose(row["mape"]["value"],
                                   skm.mean_absolute_percentage_error(yy, p), rtol=RTOL)
        np.testing.assert_allclose(row["r2"]["value"], skm.r2_score(yy, p), rtol=1e-11)
        np.testing.assert_allclose(row["mean_error"], e.mean(), rtol=RTOL)
        np.testing.assert_allclose(row["r_auc"],
                                   shift.retention_curve(e, u, "shifts-vpower").r_auc, rtol=RTOL)
        np.testing.assert_allclose(row["prr"], shift.prr(e, u, "shifts-vpower"), rtol=RTOL)
        np.testing.assert_allclose(row["aurc"], shift.aurc(e, u), rtol=RTOL)
        f1 = shift.f1_retention(e, u, 2.0)
        np.testing.assert_allclose(row["f1_auc"], f1.f1_auc, rtol=RTOL)
        np.testing.assert_allclose(row["f1_at_95"], f1.f1_at_95, rtol=RTOL)
        if 0 < shifted[m].sum() < m.sum():
            np.testing.assert_allclose(row["ood_auroc"], skm.roc_auc_score(shifted[m], u),
                                       rtol=RTOL)
        else:
            assert row["ood_auroc"] is None
    kinds = {r["set"]: r["kind"] for r in doc["rows"]}
    assert kinds["dev (in+out)"] == "joint" and kinds["all"] == "all" and kinds["gen"] == "partition"


def test_partition_table_explicit_shifted_flag_and_curves(rng, tmp_path):
    part, shifted, y, preds, uncs = make_task(rng, 300)
    flag = np.zeros(len(y), int)
    flag[part == "gen"] = 1  # the flag column overrides the names
    html = tmp_path / "p.html"
    doc = shift.evaluate_partitions(y, preds, uncs, partition=part, shifted=flag, html=html)
    all_a = next(r for r in doc["rows"] if r["set"] == "all" and r["model"] == "a")
    assert all_a["n_shifted"] == flag.sum()
    np.testing.assert_allclose(all_a["ood_auroc"], skm.roc_auc_score(flag, uncs["a"]), rtol=RTOL)
    assert all_a["f1_auc"] is None  # no acceptable threshold: no F1 columns
    curve = doc["curves"][0]
    assert curve["model"] == "a" and curve["x"][0] == 0 and curve["x"][-1] == 1
    e = (y - preds["a"]) ** 2
    full = shift.retention_curve(e, uncs["a"])
    assert curve["retention"][-1] == pytest.approx(full.curve[0], rel=RTOL)
    assert curve["random"][-1] == pytest.approx(e.mean(), rel=RTOL)
    assert curve["r_auc"] == pytest.approx(full.r_auc, rel=RTOL)
    text = html.read_text()
    assert "Error retention on all samples" in text and "assay-chart-0" in text


def test_partition_table_without_partition_and_bootstrap(rng):
    y = rng.normal(size=200)
    p = y + rng.normal(size=200)
    u = np.abs(rng.normal(size=200))
    doc = shift.evaluate_partitions(y, {"m": p}, {"m": u}, n_resamples=100, seed=3)
    assert doc["sets"] == ["all"]
    ref = shift.regression_metrics(y, p, n_resamples=100, seed=3)
    row = doc["rows"][0]
    for key in ("rmse", "mae", "mape", "r2"):
        assert row[key]["low"] == pytest.approx(ref[key]["low"], rel=RTOL)
        assert row[key]["high"] == pytest.approx(ref[key]["high"], rel=RTOL)


def test_partition_no_acceptable_sample_warns_and_gives_nan(rng):
    y = np.zeros(20)
    p = np.ones(20)
    with pytest.warns(assay.AssayWarning, match="no acceptable sample"):
        doc = shift.evaluate_partitions(y, {"m": p}, {"m": np.arange(20.0)}, acceptable=0.5)
    assert doc["rows"][0]["f1_auc"] is None  # NaN is written as null
    assert any("no acceptable sample" in note for note in doc["notes"])


def test_partition_bad_input():
    E = assay.AssayError
    with pytest.raises(E, match=r"predictions of model \"m\" and target differ in length \(2 vs 3\)"):
        shift.evaluate_partitions([1, 2, 3], {"m": [1, 2]}, {"m": [1, 2, 3]})
    with pytest.raises(E, match=r"uncertainty of model \"m\" contains NaN at index 1"):
        shift.evaluate_partitions([1, 2, 3], {"m": [1, 2, 3]}, {"m": [1, np.nan, 3]})
    with pytest.raises(E, match=r"partition and target differ in length \(2 vs 3\)"):
        shift.evaluate_partitions([1, 2, 3], {"m": [1, 2, 3]}, {"m": [1, 2, 3]},
                                  partition=["a", "b"])
    with pytest.raises(E, match=r"target is empty"):
        shift.evaluate_partitions([], {"m": []}, {"m": []})
    with pytest.raises(E, match=r"predictions and uncertainties name different models"):
        shift.evaluate_partitions([1], {"m": [1]}, {"n": [1]})
    with pytest.raises(E, match=r"unknown error \"cubed\""):
        shift.evaluate_partitions([1], {"m": [1]}, {"m": [1]}, error="cubed")
    # A fractional or negative flag is an error, not truncated to 0 / wrapped to 255.
    with pytest.raises(E, match=r"shifted must be 0 or 1, found 0.5 at index 1"):
        shift.evaluate_partitions([1, 2], {"m": [1, 2]}, {"m": [1, 2]}, shifted=[0, 0.5])
    with pytest.raises(E, match=r"shifted must be 0 or 1, found -1 at index 0"):
        shift.evaluate_partitions([1, 2], {"m": [1, 2]}, {"m": [1, 2]}, shifted=[-1, 1])


def brute_tune(y, score, mask, metric):
    best, best_t = -1, None
    for t in np.unique(score[mask])[::-1]:  # descending: ties keep the highest threshold
        pred = (score[mask] >= t).astype(int)
        v = (skm.f1_score(y[mask], pred, zero_division=0) if metric == "f1"
             else skm.accuracy_score(y[mask], pred))
        if v > best:
            best, best_t = v, t
    return best_t, best


@pytest.mark.parametrize("metric", ["f1", "accuracy"])
def test_tune_threshold_matches_brute_force(rng, metric):
    n = 400
    part = rng.choice(["dev_in", "dev_out", "eval_in"], n)
    y = rng.integers(0, 2, n)
    score = np.round(y * 0.3 + rng.random(n), 2)
    got = shift.tune_threshold(y, score, part, "dev_in", metric=metric)
    t, v = brute_tune(y, score, part == "dev_in", metric)
    assert got["threshold"] == t
    assert got["tuned_value"] == pytest.approx(v, rel=RTOL)
    for name in ["dev_in", "dev_out", "eval_in"]:
        m = part == name
        pred = (score[m] >= t).astype(int)
        want = (skm.f1_score(y[m], pred, zero_division=0) if metric == "f1"
                else skm.accuracy_score(y[m], pred))
        assert got["values"][name] == pytest.approx(want, rel=RTOL)
    assert list(got["values"]) == list(dict.fromkeys(part.tolist())) + ["all"]


def test_tune_threshold_bad_input():
    with pytest.raises(assay.AssayError, match=r"tuning partition \"dev_in\" has no samples"):
        shift.tune_threshold([0, 1], [0.1, 0.2], ["a", "b"], "dev_in")
    with pytest.raises(assay.AssayError, match=r"unknown tuning metric \"auc\""):
        shift.tune_threshold([0, 1], [0.1, 0.2], ["a", "a"], "a", metric="auc")
    with pytest.raises(assay.AssayError, match=r"y_true must be 0 or 1, found 0.5 at index 1"):
        shift.tune_threshold([0, 0.5], [0.1, 0.2], ["a", "a"], "a")
    with pytest.raises(assay.AssayError, match=r"y_true must be 0 or 1, found 2 at index 0"):
        shift.tune_threshold([2, 1], [0.1, 0.2], ["a", "a"], "a")


def test_generalisation_set_uniform_independent_and_seeded():
    ranges = {"speed": (5.0, 20.0), "wind": (0.0, 15.0), "draft": (8.0, 12.0)}

    def physics(x):
        return 0.02 * x["speed"] ** 3 + 0.08 * x["wind"] ** 2 + 1.5 * x["draft"]

    a = shift.generalisation_set(ranges, 20000, physics, seed=4)
    b = shift.generalisation_set(ranges, 20000, physics, seed=4)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    for name, (lo, hi) in ranges.items():
        assert a[name].min() >= lo and a[name].max() < hi
        assert abs(a[name].mean() - (lo + hi) / 2) < 0.02 * (hi - lo)
    # Independent: rare combinations (fast in strong wind) are as common as typical ones.
    assert abs(np.corrcoef(a["speed"], a["wind"])[0, 1]) < 0.03
    fast_windy = np.mean((a["speed"] > 17) & (a["wind"] > 12))
    assert fast_windy == pytest.approx(0.2 * 0.2, abs=0.01)
    np.testing.assert_allclose(a["target"], physics(a), rtol=RTOL)
    # Adding a feature does not change the others (one stream per feature).
    c = shift.generalisation_set({"speed": (5.0, 20.0)}, 20000, lambda x: x["speed"], seed=4)
    np.testing.assert_array_equal(c["speed"], a["speed"])
    # Scored like any partition.
    pred = a["target"] + 1.0
    # Equal errors: oracle area = random area, so PRR is NaN (null) with one note and warning.
    with pytest.warns(assay.AssayWarning, match=r"1 row\(s\) have an undefined PRR"):
        doc = shift.evaluate_partitions(a["target"], {"m": pred}, {"m": a["wind"]},
                                        partition=["generalisation"] * 20000)
    assert doc["sets"] == ["generalisation"]
    assert doc["rows"][0]["prr"] is None
    assert any("undefined PRR" in note for note in doc["notes"])
    assert doc["rows"][0]["rmse"]["value"] == pytest.approx(1.0, rel=1e-12)


def test_generalisation_set_bad_input():
    with pytest.raises(assay.AssayError, match=r"feature 0 has range \[2, 1\]"):
        shift.generalisation_set({"x": (2, 1)}, 10, lambda x: x["x"])
    with pytest.raises(assay.AssayError, match=r"label must return 10 targets"):
        shift.generalisation_set({"x": (0, 1)}, 10, lambda x: x["x"][:5])
    with pytest.raises(assay.AssayError, match=r"label must be a callable"):
        shift.generalisation_set({"x": (0, 1)}, 10, "x**2")
    with pytest.raises(assay.AssayError, match=r"^n: expected an integer in 0\.\.9223372036854775807, found -1$"):
        shift.generalisation_set({"a": (0, 1)}, -1, lambda f: f["a"])
