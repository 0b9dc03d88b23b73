"""assay.soak.run_estimators / pvalues / summaries / report: the user's own scikit-learn
estimators on SOAK splits, checked against a manual loop, and the statistics on their results."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from conftest import render_page

import assay
import assay.soak as soak


def make_data(rng, n=300):
    subset = rng.choice(["A", "B", "C"], n)
    X = rng.normal(size=(n, 3))
    shift = np.where(subset == "C", -2.0, 1.0)  # C's label depends on x0 the other way round
    y = np.where(X[:, 0] * shift + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    return X, y, subset


def test_run_estimators_matches_manual_loop(rng):
    X, y, subset = make_data(rng)
    est = LogisticRegression(max_iter=500)
    res = soak.run_estimators({"logreg": est, "tree": DecisionTreeClassifier(random_state=0)},
                              X, y, subset=subset, n_splits=4, random_state=5)
    assert list(res.columns) == soak.RESULT_COLUMNS
    cv = soak.SOAKFold(n_splits=4, random_state=5)
    splits = list(cv.split(X, y, subset=subset))
    infos = cv.split_info()
    assert len(res) == 2 * len(splits) == 2 * 3 * 3 * 4
    logreg = res[res["learner"] == "logreg"].reset_index(drop=True)
    for i, ((train, test), info) in enumerate(zip(splits, infos)):
        model = LogisticRegression(max_iter=500).fit(X[train], y[train])
        pred = model.predict(X[test])
        np.testing.assert_allclose(logreg["error_percent"][i], 100 * np.mean(pred != y[test]),
                                   rtol=1e-12)
        proba = model.predict_proba(X[test])[:, list(model.classes_).index("yes")]
        from sklearn.metrics import roc_auc_score
        np.testing.assert_allclose(logreg["auc"][i], roc_auc_score(y[test] == "yes", proba),
                                   rtol=1e-12)
        assert logreg["test.subset"][i] == info["test_subset"]
        assert logreg["train.subsets"][i] == info["train_subsets"]
        assert logreg["n_train"][i] == len(train) and logreg["n_test"][i] == len(test)
    # C is different: Other is worse than Same there, and the paired test sees it.
    pv = soak.pvalues(res)
    row = pv[(pv["learner"] == "logreg") & (pv["test.subset"] == "C") &
             (pv["comparison"] == "other-same")].iloc[0]
    a = logreg[(logreg["test.subset"] == "C") & (logreg["train.subsets"] == "other")]
    b = logreg[(logreg["test.subset"] == "C") & (logreg["train.subsets"] == "same")]
    t = stats.ttest_rel(a.sort_values("test.fold")["error_percent"],
                        b.sort_values("test.fold")["error_percent"])
    np.testing.assert_allclose(row["p_paired"], t.pvalue, rtol=1e-10)
    assert row["mean_diff"] > 20
    summ = soak.summaries(res)
    assert set(summ["train.subsets"]) == {"same", "other", "all"}


class CountingTree(DecisionTreeClassifier):
    """A seeded tree that counts its fits (class-wide: run_estimators fits clones)."""
    fits = 0

    def fit(self, X, y, sample_weight=None):
        CountingTree.fits += 1
        return super().fit(X, y, sample_weight=sample_weight)


def test_train_twins_share_one_fit(rng):
    # Two subsets, 3 folds: 18 splits, 9 distinct train sets (All once per fold, Same of A is
    # Other of B and the reverse), so 9 fits; rows equal a fit per split (the tree is seeded).
    X, y, _ = make_data(rng, 150)
    subset = np.where(rng.random(150) < 0.5, "A", "B")
    CountingTree.fits = 0
    res = soak.run_estimators({"tree": CountingTree(random_state=0)}, X, y, subset=subset,
                              n_splits=3, random_state=4)
    assert CountingTree.fits == 9 and len(res) == 18
    cv = soak.SOAKFold(n_splits=3, random_state=4)
    for i, (train, test) in enumerate(cv.split(X, y, subset=subset)):
        pred = DecisionTreeClassifier(random_state=0).fit(X[train], y[train]).predict(X[test])
        np.testing.assert_allclose(res["error_percent"][i], 100 * np.mean(pred != y[test]),
                                   rtol=1e-12)
    # A shared fit's time is every twin's train_seconds.
    for (fold, _), rows in res[res["train.subsets"] == "all"].groupby(["test.fold", "learner"]):
        assert rows["train_seconds"].nunique() == 1


def test_failing_fit_is_na_and_run_goes_on(rng):
    X, y, subset = make_data(rng, 200)
    y = y.copy()
    y[subset == "B"] = "no"  # Same train sets of B have one class: LogisticRegression raises
    with pytest.warns(assay.AssayWarning, match="fits failed"):
        res = soak.run_estimators({"logreg": LogisticRegression()}, X, y, subset=subset,
                                  n_splits=3, random_state=1)
    failed = res[res["failure"] != ""]
    assert len(failed) == 3
    assert set(failed["test.subset"]) == {"B"} and set(failed["train.subsets"]) == {"same"}
    assert failed["failure"].str.contains("ValueError").all()
    assert failed["error_percent"].isna().all()
    assert res[res["failure"] == ""]["error_percent"].notna().all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pv = soak.pvalues(res)
    b = pv[pv["test.subset"] == "B"]
    assert b["p_paired"].isna().all()


def test_auc_nan_warns_when_a_test_fold_has_one_class(rng):
    X, y, subset = make_data(rng, 120)
    y = y.copy()
    y[subset == "A"] = "yes"  # every test fold of A has one class
    y[(subset == "A") & (np.arange(len(y)) < 5)] = "no"
    with pytest.warns(assay.AssayWarning, match="AUC is NaN"):
        res = soak.run_estimators({"tree": DecisionTreeClassifier(random_state=0)}, X, y,
                                  subset=subset, n_splits=3, random_state=1, strata=False)
    assert res[res["test.subset"] == "A"]["auc"].isna().any()


def run_both(X, y, **kw):
    """`run` with the featureless learner (scored in C++) and `run_estimators` with its
    scikit-learn twin (DummyClassifier: the train rows' weighted class shares), one row per split
    in the same order; their warnings are not what these tests check."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = soak.run(X, y, **kw)
        theirs = soak.run_estimators({"featureless": DummyClassifier(strategy="prior")}, X, y,
                                     **kw)
    return ours, theirs


def test_test_rows_of_weight_zero_are_na_with_the_reason_as_in_run(rng):
    # Fold 1 of subset B weighs 0: its test sets have total weight 0, so every measure would
    # divide by 0; every train set keeps rows of positive weight.
    X, y, subset = make_data(rng, 150)
    subset = np.where(subset == "C", "A", subset)
    fold = np.arange(150) % 3 + 1
    weight = np.where((subset == "B") & (fold == 1), 0.0, 1.0)
    ours, theirs = run_both(X, y, subset=subset, fold=fold, n_splits=3, random_state=3,
                            sample_weight=weight)
    rows = (ours["test.subset"] == "B") & (ours["test.fold"] == 1)
    assert rows.sum() == 3  # same, other, all
    expected = [f"the {n} test rows have total weight 0" for n in ours["n_test"][rows]]
    assert list(ours["failure"][rows]) == expected
    assert list(theirs["failure"][rows]) == expected
    assert (ours["failure"][~rows] == "").all() and (theirs["failure"][~rows] == "").all()
    for frame in (ours, theirs):
        assert frame.loc[rows, ["error_percent", "auc", "mse", "mae"]].isna().all().all()
    np.testing.assert_array_equal(theirs["error_percent"], ours["error_percent"])
    np.testing.assert_array_equal(theirs["auc"], ours["auc"])


def test_auc_is_defined_by_class_weight_as_in_run(rng):
    # In subset A every "yes" row weighs 0: A's test sets hold both classes, but one has no
    # weight, so the AUC is undefined (NaN) there; B's is that of a constant score, 0.5.
    X, y, subset = make_data(rng, 150)
    subset = np.where(subset == "C", "A", subset)
    weight = np.where((subset == "A") & (y == "yes"), 0.0, 1.0)
    ours, theirs = run_both(X, y, subset=subset, n_splits=3, random_state=3,
                            sample_weight=weight)
    in_a = ours["test.subset"] == "A"
    assert all(set(y[test]) == {"yes", "no"} for _, test in
               soak.SOAKFold(n_splits=3, random_state=3).split(X, y, subset=subset))
    assert ours["auc"][in_a].isna().all() and (ours["auc"][~in_a] == 0.5).all()
    np.testing.assert_array_equal(theirs["auc"], ours["auc"])
    np.testing.assert_array_equal(theirs["error_percent"], ours["error_percent"])


def test_joblib_parallel_equals_serial(rng):
    X, y, subset = make_data(rng, 150)
    kw = dict(subset=subset, n_splits=3, random_state=2)
    a = soak.run_estimators({"lr": LogisticRegression()}, X, y, **kw)
    b = soak.run_estimators({"lr": LogisticRegression()}, X, y, n_jobs=2, **kw)
    cols = ["error_percent", "auc", "n_train", "n_test"]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_report_from_python_results(rng, tmp_path):
    X, y, subset = make_data(rng, 240)
    res = soak.run(X, y, subset=subset, n_splits=3, random_state=1)
    path = soak.report(res, tmp_path / "r.html", title="python")
    assert render_page(path) == "ok:3"


def test_run_regression(rng):
    n = 120
    subset = rng.choice(["u", "v"], n)
    X = rng.normal(size=(n, 2))
    y = X[:, 0] + (subset == "v") * 3.0
    res = soak.run(X, y, subset=subset, n_splits=3, task="regression")
    assert res["error_percent"].isna().all()
    # featureless = the train mean: mse by hand for the first split.
    cv = soak.SOAKFold(n_splits=3, random_state=1)
    train, test = next(iter(cv.split(X, None, subset=subset, strata=False)))
    np.testing.assert_allclose(res["mse"][0], np.mean((y[test] - y[train].mean()) ** 2),
                               rtol=1e-12)
    pv = soak.pvalues(res)
    assert set(pv["comparison"]) == {"other-same", "all-same"}


@pytest.mark.parametrize("call, message", [
    (lambda X, y, s: soak.run(X, y[:-1], subset=s), "differ in length"),
    (lambda X, y, s: soak.run(X[:, 0], y, subset=s), "2-D"),
    (lambda X, y, s: soak.run(X, y, subset=s, learners=["nope"]), 'unknown learner "nope"'),
    (lambda X, y, s: soak.run(X, y, subset=s, task="ranking"), "classification"),
    (lambda X, y, s: soak.run_estimators({}, X, y, subset=s), "estimators is empty"),
    (lambda X, y, s: soak.pvalues({"data": ["d"]}), "column"),
    (lambda X, y, s: soak.run(X, y, subset=s, task="regression"),
     r"a regression target y must be numeric, found dtype <U3"),
    (lambda X, y, s: soak.run(np.where(X > 0, "p", "n"), y, subset=s),
     r"X must be numeric, found dtype <U1"),
    (lambda X, y, s: soak.run(X, y, subset=s, random_state=-1), r"random_state must be >= 0, "
     r"found -1"),
    (lambda X, y, s: soak.run_estimators({"t": DecisionTreeClassifier()}, X, y, subset=s,
                                         random_state="x"), r"random_state must be None, an int"),
])
def test_bad_input(rng, call, message):
    X, y, subset = make_data(rng, 60)
    with pytest.raises(assay.AssayError, match=message):
        call(X, y, subset)


def test_nan_feature_is_an_error(rng):
    X, y, subset = make_data(rng, 60)
    X[5, 1] = np.nan
    with pytest.raises(assay.AssayError, match="finite"):
        soak.run(X, y, subset=subset, n_splits=3)


def test_fold_values_are_labels_not_truncated(rng):
    # Text or fractional fold ids are relabelled 1..K in sorted order, as SOAKFold does; before,
    # run() cast them to int64 (1.5 -> 1, 2.5 -> 2) and text raised a bare ValueError.
    X, y, subset = make_data(rng, 90)
    fold = np.arange(90) % 3
    ref = soak.run(X, y, subset=subset, fold=fold + 1)
    for given in (np.array(["f0", "f1", "f2"])[fold], fold + 0.5):
        res = soak.run(X, y, subset=subset, fold=given)
        pd.testing.assert_frame_equal(res.drop(columns=["train_seconds", "predict_seconds"]),
                                      ref.drop(columns=["train_seconds", "predict_seconds"]))
    assert sorted(set(ref["test.fold"])) == [1, 2, 3]
    # 0.5, 1.5, 2.5 truncated would have merged nothing here, but 1.0/1.5 would have: check it.
    res = soak.run(X, y, subset=subset, fold=np.where(fold == 0, 1.0, 1.5))
    assert sorted(set(res["test.fold"])) == [1, 2]
