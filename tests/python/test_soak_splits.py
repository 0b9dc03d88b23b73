"""SOAKFold: the set definitions of the SOAK paper (§3.1), the scikit-learn splitter API and the
cross_validate round trip, on random data and on aztrees (../shared/data/soak)."""
import os
import warnings

import numpy as np
import pytest

import assay
from assay._soak_splits import SOAKFold

from conftest import soak_data


def expected_sets(folds, subset_codes, info):
    """Test / train rows by brute force from the definitions."""
    k_eq = folds == info["test_fold"]
    s_eq = subset_codes == info["test_subset_code"]
    test = np.flatnonzero(k_eq & s_eq)
    which = info["train_subsets"]
    train_mask = ~k_eq & (s_eq if which == "same" else ~s_eq if which == "other" else True)
    return np.flatnonzero(train_mask), test


def check_definitions(cv, subset, pairs):
    names, codes = np.unique(subset, return_inverse=True)
    splits = cv._last
    folds = cv.folds_
    assert len(pairs) == len(splits)
    for i, (train, test) in enumerate(pairs):
        info = splits.info(i)
        assert info["test_subset"] == str(names[info["test_subset_code"]])
        want_train, want_test = expected_sets(folds, codes, info)
        np.testing.assert_array_equal(train, want_train)
        np.testing.assert_array_equal(test, want_test)
        assert train.dtype == np.int64 and test.dtype == np.int64


def test_sets_equal_definitions_and_order(rng):
    n = 240
    subset = rng.choice(["b", "a", "c"], n)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3))
    cv = SOAKFold(n_splits=4)
    pairs = list(cv.split(X, y, subset=subset))
    assert len(pairs) == 3 * 3 * 4 == cv.get_n_splits(X, subset=subset)
    check_definitions(cv, subset, pairs)
    info = cv.split_info()
    order = [(["all", "other", "same"].index(d["train_subsets"]), d["test_fold"], d["test_subset"])
             for d in info]
    assert order == sorted(order)
    assert [d["iteration"] for d in info] == list(range(1, 37))
    # nominal groups (mlr3): as.integer(rows·(K−1)/K) per subset, summed for "all"
    same = {name: (np.sum(subset == name) * 3) // 4 for name in "abc"}
    all_groups = sum(same.values())
    assert info[0] == {"iteration": 1, "test_subset": "a", "train_subsets": "all",
                       "groups": all_groups, "test_fold": 1, "seed": 1,
                       "n_train_groups": all_groups}
    assert info[12]["train_subsets"] == "other" and info[12]["groups"] == all_groups - same["a"]
    assert info[24]["train_subsets"] == "same" and info[24]["groups"] == same["a"]


def test_one_subset_is_kfold():
    X = np.zeros((23, 1))
    cv = SOAKFold(n_splits=5)
    pairs = list(cv.split(X, subset=np.zeros(23)))
    assert len(pairs) == 5
    tests = np.sort(np.concatenate([te for _, te in pairs]))
    np.testing.assert_array_equal(tests, np.arange(23))
    for tr, te in pairs:
        assert len(tr) + len(te) == 23
    assert {d["train_subsets"] for d in cv.split_info()} == {"same"}


def test_default_strata_balance_classes(rng):
    n = 301
    subset = rng.integers(0, 2, n)
    y = rng.choice(["x", "y", "z"], n)
    cv = SOAKFold(n_splits=5, random_state=3)
    list(cv.split(None, y, subset=subset))
    folds = cv.folds_
    for s in (0, 1):
        for label in "xyz":
            counts = np.bincount(folds[(subset == s) & (y == label)], minlength=6)[1:]
            assert counts.max() - counts.min() <= 1
    # explicit strata=y gives the same folds; float labels with fractions are not strata
    cv2 = SOAKFold(n_splits=5, random_state=3)
    list(cv2.split(None, subset=subset, strata=y))
    np.testing.assert_array_equal(cv2.folds_, folds)
    cont = rng.normal(size=n)
    a, b = SOAKFold(5), SOAKFold(5)
    list(a.split(None, cont, subset=subset))
    list(b.split(None, subset=subset, strata=False))
    np.testing.assert_array_equal(a.folds_, b.folds_)


def test_random_state():
    subset = np.repeat([1, 2], 50)
    folds = {}
    for rs in (None, 1, 2):
        cv = SOAKFold(n_splits=5, random_state=rs)
        list(cv.split(None, subset=subset))
        folds[rs] = cv.folds_
    np.testing.assert_array_equal(folds[None], folds[1])
    assert not np.array_equal(folds[1], folds[2])
    cv = SOAKFold(n_splits=5, random_state=np.random.RandomState(0))
    assert len(list(cv.split(None, subset=subset))) == 30


def test_groups_given_fold_and_sizes(rng):
    n_groups = 60
    sizes = rng.integers(1, 6, n_groups)
    groups = np.repeat(np.arange(n_groups) * 3 + 100, sizes)
    subset = np.repeat(np.arange(n_groups) % 2, sizes)
    cv = SOAKFold(n_splits=3, sizes=1, seeds=2, random_state=5)
    pairs = list(cv.split(None, None, groups, subset=subset))
    folds = cv.folds_
    for g in np.unique(groups):
        assert len(np.unique(folds[groups == g])) == 1
    info = cv.split_info()
    # candidate sizes per test subset: 30 groups per subset, same = 20, other = 20, all = 40;
    # min 20 · 0.5 = 10 ⇒ same/other get 10, 20; all 10, 20, 40; two seeds each.
    assert len(pairs) == 3 * 2 * 2 * (2 + 2 + 3)
    by_key = {}
    for d, (tr, te) in zip(info, pairs):
        by_key[(d["train_subsets"], d["test_fold"], d["test_subset"], d["seed"],
                d["n_train_groups"])] = tr
        if d["n_train_groups"] == d["groups"]:
            continue
        kept = np.unique(groups[tr])
        # groups are kept whole (each group lies in one fold and one subset here), and about
        # n_train_groups of them
        np.testing.assert_array_equal(tr, np.flatnonzero(np.isin(groups, kept)))
        assert abs(len(kept) - d["n_train_groups"]) <= 2
    for (ts, f, s, seed, size), tr in by_key.items():
        if size == 10:
            bigger = by_key[(ts, f, s, seed, 20)]
            assert np.isin(tr, bigger).all()  # nested
    assert not np.array_equal(by_key[("all", 1, "0", 1, 10)], by_key[("all", 1, "0", 2, 10)])
    # given fold column: relabelled in sorted order
    fold = np.where(groups % 2 == 0, "b", "a")
    cv = SOAKFold()
    pairs = list(cv.split(None, None, groups, subset=subset, fold=fold))
    np.testing.assert_array_equal(cv.folds_, np.where(fold == "a", 1, 2))
    check_definitions(cv, subset, pairs)


def test_cross_validate_round_trip(rng):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_validate
    n = 300
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    subset = rng.choice(["u", "v"], n)
    g = rng.integers(0, 90, n)
    cv = SOAKFold(n_splits=3, random_state=7).bind(subset=subset)
    assert cv.get_n_splits(X, y, g) == 18
    scores = cross_validate(LogisticRegression(), X, y, cv=cv, groups=g)["test_score"]
    assert len(scores) == 18
    manual = []
    for tr, te in cv.split(X, y, g):
        model = LogisticRegression().fit(X[tr], y[tr])
        manual.append(model.score(X[te], y[te]))
    np.testing.assert_allclose(scores, manual, rtol=1e-12, atol=0)
    # the bound splitter does not change the original; split() keywords override bound values
    with pytest.raises(assay.AssayError, match="needs subset="):
        SOAKFold(3).get_n_splits(X)
    assert len(list(cv.split(X, y, g, subset=np.zeros(n)))) == 3


def test_iteration_table():
    pd = pytest.importorskip("pandas")
    subset = np.array(["x", "y", "x", "y"])
    cv = SOAKFold()
    list(cv.split(None, subset=subset, fold=[1, 1, 2, 2]))
    t = cv.iteration_table(one_based_rows=True)
    assert isinstance(t, pd.DataFrame)
    assert list(t.columns) == ["test.subset", "train.subsets", "groups", "test.fold", "test",
                               "train", "seed", "n.train.groups", "iteration"]
    assert len(t) == 12
    row = t.iloc[0]
    assert (row["test.subset"], row["train.subsets"], row["groups"], row["test.fold"]) == (
        "x", "all", 2, 1)
    np.testing.assert_array_equal(row["test"], [1])
    np.testing.assert_array_equal(row["train"], [3, 4])
    assert list(t["iteration"]) == list(range(1, 13))
    np.testing.assert_array_equal(cv.iteration_table().iloc[0]["train"], [2, 3])


def test_bad_inputs():
    subset = np.repeat(["NE", "NW"], [20, 7])
    with pytest.raises(assay.AssayError, match=r'subset "NW" has 7 rows, fewer than the 10 folds'):
        SOAKFold().split(None, subset=subset)
    with pytest.raises(assay.AssayError, match=r"needs subset="):
        SOAKFold().split(np.zeros((3, 1)))
    with pytest.raises(assay.AssayError, match=r"X has 3 rows, subset has 27"):
        SOAKFold(3).split(np.zeros((3, 1)), subset=subset)
    with pytest.raises(assay.AssayError, match=r"groups has 2 rows, subset has 27"):
        SOAKFold(3).split(None, None, [1, 2], subset=subset)
    with pytest.raises(assay.AssayError,
                       match=r"the fold column is not constant within group 0: row 0 has fold 0, "
                             r"row 1 has fold 1"):
        SOAKFold().split(None, None, np.zeros(27), subset=subset, fold=np.arange(27) % 2)
    with pytest.raises(assay.AssayError, match=r'subsets must be a non-empty combination of S, O, '
                                               r'A; found "SX"'):
        SOAKFold(3, subsets="SX").split(None, subset=subset)
    with pytest.raises(assay.AssayError, match=r"ratio: expected a number in \(0, 1\), found 1.5"):
        SOAKFold(3, ratio=1.5).split(None, subset=subset)
    with pytest.raises(assay.AssayError, match=r"folds must be at least 2, found 1"):
        SOAKFold(1).split(None, subset=subset)
    with pytest.raises(assay.AssayError, match=r"seeds must be at least 1, found 0"):
        SOAKFold(3, seeds=0).split(None, subset=subset)
    with pytest.raises(assay.AssayError, match=r"sizes must be -1, 0 or a positive count"):
        SOAKFold(3, sizes=-3).split(None, subset=subset)
    with pytest.raises(assay.AssayError, match=r"random_state must be None, an int"):
        SOAKFold(3, random_state="x").split(None, subset=subset)
    with pytest.raises(assay.AssayError, match=r"no splits yet"):
        SOAKFold().iteration_table()
    with pytest.raises(assay.AssayError, match=r"strata has 2 rows, subset has 27"):
        SOAKFold(3).split(None, subset=subset, strata=[0, 1])
    # a stratum smaller than the folds only warns
    strata = np.zeros(27, dtype=int)
    strata[0] = 1
    with pytest.warns(assay.AssayWarning, match=r"1 of 3 strata have fewer rows than the 3 folds"):
        SOAKFold(3).split(None, subset=subset, strata=strata)


@pytest.fixture(scope="module")
def aztrees():
    path = soak_data("aztrees.csv")
    pd = pytest.importorskip("pandas")
    return pd.read_csv(path, usecols=["region3", "region4", "polygon", "y"])


@pytest.mark.parametrize("column", ["region3", "region4"])
def test_aztrees_polygons(aztrees, column):
    subset = aztrees[column].to_numpy()
    polygon = aztrees["polygon"].to_numpy()
    y = aztrees["y"].to_numpy()
    cv = SOAKFold(n_splits=10, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", assay.AssayWarning)  # a few small (region, label) strata
        pairs = list(cv.split(None, y, polygon, subset=subset))
    n_sub = len(np.unique(subset))
    assert len(pairs) == 3 * n_sub * 10
    folds = cv.folds_
    for p in np.unique(polygon):
        assert len(np.unique(folds[polygon == p])) == 1
    check_definitions(cv, subset, pairs)
    # every test set is non-empty; rows per fold within a subset are balanced to within the
    # largest polygon of that subset
    assert all(len(te) > 0 for _, te in pairs)
    for s in np.unique(subset):
        in_s = subset == s
        counts = np.bincount(folds[in_s], minlength=11)[1:]
        biggest = np.bincount(np.unique(polygon[in_s], return_inverse=True)[1]).max()
        assert np.abs(counts - in_s.sum() / 10).max() <= biggest


def test_get_n_splits_agrees_with_split_when_strata_leave_folds_empty():
    # Subset "a": 6 rows in two label strata of 3 < K = 5, so each stratum fills folds 1..3 and
    # folds 4, 5 of "a" are empty (no split); subset "b": 10 rows, 5 per class, every fold.
    subset = np.array(["a"] * 6 + ["b"] * 10)
    y = np.array([0, 0, 0, 1, 1, 1] + [0, 1] * 5)
    cv = SOAKFold(n_splits=5, random_state=2)
    with pytest.warns(assay.AssayWarning, match=r"2 of 4 strata have fewer rows than the 5 folds"):
        pairs = list(cv.split(None, y, subset=subset))
    assert len(pairs) == 3 * (3 + 5)
    check_definitions(cv, subset, pairs)
    assert sorted(set(cv.folds_[:6])) == [1, 2, 3]
    with pytest.warns(assay.AssayWarning):
        assert cv.get_n_splits(None, y, subset=subset) == 24
    # Without strata every fold of "a" has a row: 3 train sets x 5 folds x 2 subsets.
    assert cv.get_n_splits(None, y, subset=subset, strata=False) == 30
    assert len(list(cv.split(None, y, subset=subset, strata=False))) == 30
