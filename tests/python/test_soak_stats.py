"""SOAK statistics and experiments against SciPy and hand computation.

paired_t_test / welch_t_test must agree with scipy.stats.ttest_rel / ttest_ind(equal_var=False)
to 1e-10 relative on p-values (tiny p included); soak_statistics must reproduce the paper's paired
t-tests from its per-fold results (../shared/data/soak/paper_results_per_fold.csv, when present).
"""

import os
import warnings

import numpy as np
import pytest
from scipy import stats

import assay
from assay import _assay

from conftest import soak_data


def _arrays(*xs):
    return [np.asarray(x, dtype=np.float64) for x in xs]


@pytest.mark.parametrize("n", [2, 3, 5, 10, 31])
def test_paired_t_test_matches_scipy(n):
    rng = np.random.default_rng(100 + n)
    for trial in range(40):
        x = rng.normal(size=n) * rng.uniform(0.1, 10)
        # Shifts from none to huge relative to the noise, so p runs from ~1 down to ~1e-20.
        shift = [0.0, 0.3, 3.0, 30.0, 300.0][trial % 5]
        y = x - shift * rng.uniform(0.5, 2) + rng.normal(size=n) * 0.1
        x, y = _arrays(x, y)
        got = _assay.paired_t_test(x, y)
        want = stats.ttest_rel(x, y)
        assert got["undefined_reason"] == ""
        assert got["n"] == n
        assert got["df"] == n - 1
        np.testing.assert_allclose(got["t"], want.statistic, rtol=1e-10)
        np.testing.assert_allclose(got["p_value"], want.pvalue, rtol=1e-10, atol=0)
        np.testing.assert_allclose(got["mean_difference"], np.mean(x - y), rtol=1e-12)
        np.testing.assert_allclose(got["sd"], np.std(x - y, ddof=1), rtol=1e-12)


def test_paired_t_test_tiny_p_values():
    rng = np.random.default_rng(7)
    seen_tiny = 0
    for n in [3, 4, 6, 10, 20]:
        for scale in [1e-2, 1e-3, 1e-4]:
            x = rng.normal(size=n)
            y = x - 1.0 + rng.normal(size=n) * scale
            x, y = _arrays(x, y)
            want = stats.ttest_rel(x, y).pvalue
            got = _assay.paired_t_test(x, y)["p_value"]
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=0)
            seen_tiny += want < 1e-12
    assert seen_tiny >= 5


@pytest.mark.parametrize("nx,ny", [(2, 2), (2, 7), (5, 3), (10, 10), (30, 4)])
def test_welch_t_test_matches_scipy(nx, ny):
    rng = np.random.default_rng(nx * 100 + ny)
    for trial in range(40):
        x = rng.normal(size=nx) * rng.uniform(0.1, 5)
        y = rng.normal(size=ny) * rng.uniform(0.1, 5) + [0.0, 1.0, 10.0, 1e3][trial % 4]
        x, y = _arrays(x, y)
        got = _assay.welch_t_test(x, y)
        want = stats.ttest_ind(x, y, equal_var=False)
        np.testing.assert_allclose(got["t"], want.statistic, rtol=1e-10)
        np.testing.assert_allclose(got["p_value"], want.pvalue, rtol=1e-10, atol=0)
        vx, vy = np.var(x, ddof=1) / nx, np.var(y, ddof=1) / ny
        np.testing.assert_allclose(
            got["df"], (vx + vy) ** 2 / (vx**2 / (nx - 1) + vy**2 / (ny - 1)), rtol=1e-12
        )
        assert got["n"] == nx + ny


def test_undefined_t_tests_give_nan_and_reason():
    equal = _assay.paired_t_test(_arrays([3, 4, 5])[0], _arrays([1, 2, 3])[0])
    assert equal["undefined_reason"] == "all differences equal"
    assert equal["mean_difference"] == 2.0
    assert np.isnan(equal["p_value"]) and np.isnan(equal["t"]) and np.isnan(equal["df"])
    one = _assay.paired_t_test(*_arrays([3, np.nan], [1, 2]))
    assert one["undefined_reason"] == "fewer than two pairs (1)"
    assert np.isnan(one["p_value"])
    # NaN pairs are dropped, as scipy's nan_policy="omit" does for the paired differences.
    x, y = _arrays([1, 2, np.nan, 4, 7], [0, 1, 5, 1, 2])
    keep = ~np.isnan(x)
    np.testing.assert_allclose(
        _assay.paired_t_test(x, y)["p_value"], stats.ttest_rel(x[keep], y[keep]).pvalue, rtol=1e-12
    )
    flat = _assay.welch_t_test(*_arrays([2, 2], [3, 3, 3]))
    assert flat["undefined_reason"] == "both sides have zero variance"
    assert np.isnan(flat["p_value"])
    small = _assay.welch_t_test(*_arrays([2], [3, 4]))
    assert small["undefined_reason"] == "fewer than two values on one side (1 vs 2)"
    with pytest.raises(assay.AssayError, match=r"x and y differ in length \(2 vs 1\)"):
        _assay.paired_t_test(*_arrays([1, 2], [1]))
    with pytest.raises(assay.AssayError, match="x must be a 1-D array, found 2 dimensions"):
        _assay.paired_t_test(np.zeros((2, 2)), np.zeros(2))


# ---------------------------------------------------------------------------------------------
# The paper's per-fold results.

# EMNIST and MNIST_EMNIST_rot miss some cv_glmnet folds: pairs are the folds both sides have.
PAPER_SETS = ["aztrees3", "vowel", "waveform", "CanadaFires_downSampled", "zipUSPS", "EMNIST",
              "MNIST_EMNIST_rot"]


@pytest.fixture(scope="module")
def paper():
    pd = pytest.importorskip("pandas")
    d = pd.read_csv(soak_data("paper_results_per_fold.csv"))
    return d[d["data.name"].isin(PAPER_SETS)].reset_index(drop=True)


def _results_dict(d):
    n = len(d)
    return {
        "data": d["data.name"].tolist(),
        "learner": d["algorithm"].tolist(),
        "test.subset": d["test.group"].astype(str).to_numpy(),
        "train.subsets": d["train.groups"].tolist(),
        "test.fold": d["test.fold"].to_numpy(),
        "seed": np.ones(n, dtype=np.int64),
        "groups": np.zeros(n, dtype=np.int64),
        "n.train.groups": np.zeros(n, dtype=np.int64),
        "error_percent": d["percent.error"].to_numpy(),
        "failure": [""] * n,
    }


# SciPy warns on featureless folds whose errors are nearly identical; the values still agree.
@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")
def test_soak_statistics_reproduce_the_papers_t_tests(paper):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", assay.AssayWarning)
        out = _assay.soak_statistics(_results_dict(paper))
    assert out["measure"] == "error_percent"
    pv = out["pvalues"]
    n_checked = 0
    for i in range(len(pv["data"])):
        assert pv["n.train.groups"][i] == 0
        sel = paper[
            (paper["data.name"] == pv["data"][i])
            & (paper["algorithm"] == pv["learner"][i])
            & (paper["test.group"].astype(str) == pv["test.subset"][i])
        ]
        compared = pv["comparison"][i].split("-")[0]
        same = sel[sel["train.groups"] == "same"].set_index("test.fold")["percent.error"]
        other = sel[sel["train.groups"] == compared].set_index("test.fold")["percent.error"]
        folds = sorted(set(same.index) & set(other.index))
        x, y = other.loc[folds].to_numpy(), same.loc[folds].to_numpy()
        assert pv["n_pairs"][i] == len(folds)
        np.testing.assert_allclose(pv["mean_diff"][i], np.mean(x - y), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(pv["same_mean"][i], same.mean(), rtol=1e-12)
        np.testing.assert_allclose(pv["compared_mean"][i], other.mean(), rtol=1e-12)
        if np.std(x - y) == 0:
            assert np.isnan(pv["p_paired"][i])
            assert pv["reason"][i] == "all differences equal"
            continue
        want = stats.ttest_rel(x, y)
        np.testing.assert_allclose(pv["t"][i], want.statistic, rtol=1e-10)
        np.testing.assert_allclose(pv["p_paired"][i], want.pvalue, rtol=1e-10, atol=0)
        welch = stats.ttest_ind(other.to_numpy(), same.to_numpy(), equal_var=False)
        np.testing.assert_allclose(pv["p_welch"][i], welch.pvalue, rtol=1e-10, atol=0)
        n_checked += 1
    assert n_checked >= 20
    # Summaries: mean and SD over the folds of each train set.
    sm = out["summaries"]
    k = sm["data"].index("vowel")
    sel = paper[
        (paper["data.name"] == "vowel")
        & (paper["algorithm"] == sm["learner"][k])
        & (paper["test.group"].astype(str) == sm["test.subset"][k])
        & (paper["train.groups"] == sm["train.subsets"][k])
    ]["percent.error"]
    np.testing.assert_allclose(sm["mean"][k], sel.mean(), rtol=1e-12)
    np.testing.assert_allclose(sm["sd"][k], sel.std(ddof=1), rtol=1e-12)
    assert sm["n"][k] == len(sel)


def test_soak_statistics_bad_input():
    base = {
        "test.subset": ["A", "A"],
        "train.subsets": ["same", "sometimes"],
        "test.fold": [1, 2],
        "error_percent": [1.0, 2.0],
    }
    with pytest.raises(assay.AssayError, match='column "train.subsets", data row 2: expected all, '
                       'other or same, found "sometimes"'):
        _assay.soak_statistics(base)
    del base["test.fold"]
    with pytest.raises(assay.AssayError, match='results have no column "test.fold"'):
        _assay.soak_statistics(base)
    with pytest.raises(assay.AssayError, match='unknown measure "rmse"'):
        _assay.soak_statistics(
            {**base, "test.fold": [1, 2], "train.subsets": ["same", "other"]}, "rmse"
        )


# ---------------------------------------------------------------------------------------------
# soak_run with the featureless learner.


def _toy(n=90, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = (rng.random(n) < np.where(np.arange(n) < n // 3, 0.2, 0.6)).astype(np.int32)
    subset = (np.arange(n) >= n // 3).astype(np.int32)
    fold = (np.arange(n) % 4 + 1).astype(np.int64)
    w = rng.uniform(0.5, 2, size=n)
    return x, y, subset, fold, w


def _run(x, y, subset, fold, w, threads):
    return _assay.soak_run(
        x, y, ["no", "yes"], None, w, "classification", subset, ["A", "B"], None, None, fold,
        10, "SOA", -1, 0.5, 1, 1, ["featureless"], threads, 3, "toy", None,
    )


def test_soak_run_featureless_by_hand():
    x, y, subset, fold, w = _toy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", assay.AssayWarning)
        r = _run(x, y, subset, fold, w, 2)
    assert len(r["iteration"]) == 3 * 4 * 2
    assert list(r["iteration"]) == list(range(1, 25))
    for i in range(len(r["iteration"])):
        sigma = ["A", "B"].index(r["test.subset"][i])
        k = r["test.fold"][i]
        which = r["train.subsets"][i]
        train = fold != k
        if which == "same":
            train &= subset == sigma
        elif which == "other":
            train &= subset != sigma
        test = (fold == k) & (subset == sigma)
        counts = np.bincount(y[train], weights=w[train], minlength=2)
        majority = int(np.argmax(counts))  # first maximum
        want = 100 * np.sum(w[test] * (y[test] != majority)) / np.sum(w[test])
        np.testing.assert_allclose(r["error_percent"][i], want, rtol=1e-12)
        assert r["n_train"][i] == train.sum()
        assert r["n_test"][i] == test.sum()
        assert r["failure"][i] == ""
        np.testing.assert_allclose(r["auc"][i], 0.5)
        assert np.isnan(r["mse"][i])
    stats_out = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", assay.AssayWarning)
        stats_out = _assay.soak_statistics(r)
    assert stats_out["pvalues"]["comparison"] == ["other-same", "all-same"] * 2


def test_soak_run_same_rows_with_1_or_2_threads():
    x, y, subset, fold, w = _toy(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", assay.AssayWarning)
        a = _run(x, y, subset, fold, w, 1)
        b = _run(x, y, subset, fold, w, 2)
    assert list(a) == list(b)
    for name in a:
        if name.endswith("_seconds"):
            continue
        if isinstance(a[name], list):
            assert a[name] == b[name], name
        else:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_soak_run_bad_input():
    x, y, subset, fold, w = _toy()
    unknown = 'unknown learner "xyz"; known learners: featureless'
    with pytest.raises(assay.AssayError, match=unknown):
        _assay.soak_run(
            x, y, ["no", "yes"], None, None, "classification", subset, ["A", "B"], None, None,
            fold, 10, "SOA", -1, 0.5, 1, 1, ["xyz"], 1, 3, "toy", None,
        )
    bad = x.copy()
    bad[5, 2] = np.nan
    with pytest.raises(assay.AssayError, match=r'data set "toy": feature 2 of row 5 is NaN'):
        _run(bad, y, subset, fold, w, 1)
    with pytest.raises(assay.AssayError, match="X must be a 2-D array, found 1 dimensions"):
        _run(x[:, 0].copy(), y, subset, fold, w, 1)
    with pytest.raises(assay.AssayError, match='task: expected classification or regression, found "'):
        _assay.soak_run(
            x, y, ["no", "yes"], None, None, "ranking", subset, ["A", "B"], None, None,
            fold, 10, "SOA", -1, 0.5, 1, 1, ["featureless"], 1, 3, "toy", None,
        )


def test_soak_report_writes_the_page(tmp_path):
    x, y, subset, fold, w = _toy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", assay.AssayWarning)
        r = _run(x, y, subset, fold, w, 1)
        path = tmp_path / "soak.html"
        _assay.soak_report(r, "", str(path), "toy SOAK", "featureless on a toy data set")
    page = path.read_text()
    assert "toy SOAK" in page
    assert "featureless on a toy data set" in page
