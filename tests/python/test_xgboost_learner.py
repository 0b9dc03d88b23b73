"""The xgboost learner against Debian's python3-xgboost (same libxgboost 1.7 underneath).

Fixed (eta, nrounds): assay's predictions equal xgboost.train's with the same parameters, seed,
nthread and weights. Tuned: the chosen pair and its CV error equal a manual internal CV written
here with xgboost and the same folds (_assay.internal_fold_ids), and the refitted model's
predictions equal xgboost's refit."""
import json

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb

from conftest import soak_data
import assay
from assay import _assay

ETAS = list(10.0 ** np.linspace(-3, 0, 5))
ROUNDS = [1, 25, 50, 75, 100]


def fit(X, y, classes, params=None, weights=None, seed=3, threads=1, task="classification"):
    if task == "classification":
        return _assay.learner_fit("xgboost", json.dumps(params or {}), X,
                                  np.asarray(y, np.int32), classes, None, weights,
                                  "classification", seed, threads)
    return _assay.learner_fit("xgboost", json.dumps(params or {}), X, None, [],
                              np.asarray(y, float), weights, "regression", seed, threads)


def xgb_params(present, eta, seed, threads, tree_method="hist", task="classification"):
    p = {"eta": eta, "max_depth": 6, "tree_method": tree_method, "nthread": threads,
         "seed": seed}
    if task == "regression":
        p["objective"] = "reg:squarederror"
    elif len(present) == 2:
        p["objective"] = "binary:logistic"
    else:
        p.update(objective="multi:softprob", num_class=len(present))
    return p


def xgb_fit(X, y, eta, rounds, weights=None, seed=3, threads=1, tree_method="hist",
            task="classification"):
    """xgboost.train on the classes present in y (relabelled 0..K'-1), as the learner does."""
    present = np.unique(y) if task == "classification" else None
    label = np.searchsorted(present, y) if task == "classification" else y
    booster = xgb.train(xgb_params(present, eta, seed, threads, tree_method, task),
                        xgb.DMatrix(X, label=label, weight=weights, nthread=threads), rounds)
    return booster, present


def xgb_proba(booster, present, X, n_classes, rounds=None):
    p = booster.predict(xgb.DMatrix(X, nthread=1),
                        iteration_range=(0, rounds) if rounds else (0, 0))
    out = np.zeros((len(X), n_classes))
    if p.ndim == 1:
        out[:, present[0]] = 1 - p.astype(float)
        out[:, present[1]] = p
    else:
        out[:, present] = p
    return out


def manual_cv(X, y, weights, folds, seed, etas=ETAS, rounds=ROUNDS, threads=1):
    """Mean over folds of the weighted misclassification rate for every (eta, rounds); the pair
    with the smallest mean, ties -> fewer rounds, then smaller eta."""
    ids = _assay.internal_fold_ids(len(y), folds, seed)
    w = np.ones(len(y)) if weights is None else weights
    n_classes = int(y.max()) + 1
    scores = np.zeros((len(etas), len(rounds)))
    for f in range(folds):
        inner, held = ids != f, ids == f
        present = np.unique(y[inner])
        for e, eta in enumerate(etas):
            if len(present) == 1:
                wrong = y[held] != present[0]
                scores[e, :] += np.sum(w[held] * wrong) / np.sum(w[held])
                continue
            booster, present = xgb_fit(X[inner], y[inner], eta, max(rounds),
                                       None if weights is None else weights[inner], seed, threads)
            for r, nr in enumerate(rounds):
                proba = xgb_proba(booster, present, X[held], n_classes, nr)
                if len(present) == 2:  # the learner's rule: class 1 iff p > 0.5 (in float32)
                    p1 = booster.predict(xgb.DMatrix(X[held], nthread=1),
                                         iteration_range=(0, nr))
                    pred = np.where(p1 > np.float32(0.5), present[1], present[0])
                else:
                    pred = np.argmax(proba, axis=1)
                scores[e, r] += np.sum(w[held] * (pred != y[held])) / np.sum(w[held])
    scores /= folds
    best = None
    for r in np.argsort(rounds, kind="stable"):
        for e in np.argsort(etas, kind="stable"):
            if best is None or scores[e, r] < scores[best]:
                best = (e, r)
    return etas[best[0]], rounds[best[1]], scores[best]


def blobs(rng, n, p, k):
    y = rng.integers(0, k, n).astype(np.int32)
    X = rng.normal(size=(n, p)) + 0.8 * y[:, None] * (np.arange(p) % 2 == 0)
    return X, y


@pytest.mark.parametrize("tree_method", ["hist", "exact"])
@pytest.mark.parametrize("k", [2, 4])
def test_fixed_pair_equals_xgboost_train(rng, tree_method, k):
    X, y = blobs(rng, 240, 6, k)
    w = rng.uniform(0.2, 3.0, len(y))
    classes = [f"c{j}" for j in range(k)]
    params = {"eta": 0.3, "nrounds": 15, "tree_method": tree_method}
    model = fit(X, y, classes, params, w, seed=11)
    booster, present = xgb_fit(X, y, 0.3, 15, w, seed=11, tree_method=tree_method)
    X_new = rng.normal(size=(50, 6)) * 2
    np.testing.assert_allclose(model.predict(X_new), xgb_proba(booster, present, X_new, k),
                               rtol=0, atol=1e-6)
    assert json.loads(model.description) == {"eta": 0.3, "nrounds": 15, "cv_error": None}


def test_fixed_pair_regression_equals_xgboost_train(rng):
    X = rng.normal(size=(200, 4))
    y = X[:, 0] * 2 + np.sin(X[:, 1]) + rng.normal(size=200) * 0.1
    w = rng.uniform(0.5, 2, 200)
    model = fit(X, y, None, {"eta": 0.2, "nrounds": 30}, w, seed=5, task="regression")
    booster, _ = xgb_fit(X, y, 0.2, 30, w, seed=5, task="regression")
    expected = booster.predict(xgb.DMatrix(X, nthread=1))
    np.testing.assert_allclose(model.predict(X)[:, 0], expected, rtol=0, atol=1e-6)


def test_default_grid_tuning_equals_manual_cv(rng):
    X, y = blobs(rng, 100, 4, 2)
    X += rng.normal(size=X.shape) * 1.5  # overlap: the grid's pairs score differently
    w = rng.uniform(0.5, 2.0, len(y))
    model = fit(X, y, ["a", "b"], {}, w, seed=7)
    eta, rounds, err = manual_cv(X, y, w, 10, 7)
    desc = json.loads(model.description)
    assert (desc["eta"], desc["nrounds"]) == (eta, rounds)
    assert desc["cv_error"] == pytest.approx(err, abs=1e-12)
    booster, present = xgb_fit(X, y, eta, rounds, w, seed=7)
    np.testing.assert_allclose(model.predict(X), xgb_proba(booster, present, X, 2), atol=1e-6)


def test_regression_tuning_equals_manual_cv(rng):
    X = rng.normal(size=(80, 3))
    y = X[:, 0] + 0.5 * rng.normal(size=80)
    etas, rounds = [0.1, 0.5], [1, 5, 10]
    model = fit(X, y, None, {"etas": etas, "rounds": rounds}, seed=9, task="regression")
    ids = _assay.internal_fold_ids(80, 10, 9)
    scores = np.zeros((2, 3))
    for f in range(10):
        inner, held = ids != f, ids == f
        for e, eta in enumerate(etas):
            booster, _ = xgb_fit(X[inner], y[inner], eta, 10, seed=9, task="regression")
            for r, nr in enumerate(rounds):
                p = booster.predict(xgb.DMatrix(X[held], nthread=1), iteration_range=(0, nr))
                scores[e, r] += np.mean((p.astype(float) - y[held]) ** 2) / 10
    e, r = np.unravel_index(np.argmin(scores.T), scores.T.shape)[::-1]
    desc = json.loads(model.description)
    assert (desc["eta"], desc["nrounds"]) == (etas[e], rounds[r])
    assert desc["cv_error"] == pytest.approx(scores[e, r], rel=1e-12)


def test_tuned_model_is_the_same_at_any_thread_count(rng):
    X, y = blobs(rng, 120, 5, 2)
    X += rng.normal(size=X.shape)
    params = {"rounds": [2, 10, 30], "internal_folds": 4}
    # More threads than cores on purpose (the refit's nthread and the per-fold split change).
    fits = [fit(X, y, ["a", "b"], params, seed=2, threads=t) for t in (1, 2, 8)]
    for other in fits[1:]:
        assert other.description == fits[0].description
        assert np.array_equal(other.predict(X), fits[0].predict(X))


def read_soak(name, label, drop):
    d = pd.read_csv(soak_data(name))
    codes, classes = pd.factorize(d[label], sort=True)
    X = d.drop(columns=[label, *drop]).to_numpy(float)
    return X, codes.astype(np.int32), [str(c) for c in classes]


@pytest.mark.parametrize("name,label,drop,rows", [
    ("waveform.csv", "y", ["subset"], 200),
    ("aztrees.csv", "y", ["xcoord", "ycoord", "region3", "region4", "polygon"], 300),
])
def test_real_data_tuning_equals_manual_cv(name, label, drop, rows):
    # `rows` random rows and a small grid keep this fast; the default grid is tested above.
    X, y, classes = read_soak(name, label, drop)
    take = np.random.default_rng(0).permutation(len(y))[:rows]
    X, y = X[take], y[take]
    etas, rounds = [0.03, 0.3, 1.0], [1, 5, 10]
    model = fit(X, y, classes, {"etas": etas, "rounds": rounds}, seed=4)
    eta, nr, err = manual_cv(X, y, None, 10, 4, etas, rounds)
    desc = json.loads(model.description)
    assert (desc["eta"], desc["nrounds"]) == (eta, nr)
    assert desc["cv_error"] == pytest.approx(err, abs=1e-12)
    booster, present = xgb_fit(X, y, eta, nr, seed=4)
    np.testing.assert_allclose(model.predict(X), xgb_proba(booster, present, X, len(classes)),
                               atol=1e-6)


def test_class_absent_from_train_gets_probability_zero(rng):
    X, y = blobs(rng, 90, 3, 3)
    y = np.where(y == 1, 3, y).astype(np.int32)  # classes 0, 2, 3 present; 1 ("b") absent
    model = fit(X, y, ["a", "b", "c", "d"], {"eta": 0.5, "nrounds": 5})
    P = model.predict(X)
    assert P.shape == (90, 4) and np.all(P[:, 1] == 0)
    booster, present = xgb_fit(X, y, 0.5, 5)
    np.testing.assert_allclose(P, xgb_proba(booster, present, X, 4), atol=1e-6)
    assert json.loads(model.description)["absent_classes"] == ["b"]
    # Two of three classes present: binary:logistic on them.
    y2 = np.where(y == 3, 2, y).astype(np.int32)
    model = fit(X, y2, ["a", "b", "c"], {"eta": 0.5, "nrounds": 5})
    booster, present = xgb_fit(X, y2, 0.5, 5)
    np.testing.assert_allclose(model.predict(X), xgb_proba(booster, present, X, 3), atol=1e-6)


def test_one_class_is_a_learner_failure(rng):
    X = rng.normal(size=(20, 2))
    with pytest.raises(assay.AssayError,
                       match=r'^xgboost needs at least two classes in the train rows, '
                             r'found only class "b"$'):
        fit(X, np.ones(20, np.int32), ["a", "b"])


@pytest.mark.parametrize("params,message", [
    ({"etaa": 1}, 'learner "xgboost" has no parameter "etaa"; its parameters: eta, etas, nrounds, '
                  'rounds, internal_folds, max_depth, tree_method'),
    ({"eta": -1}, 'learner "xgboost" parameter "eta": expected a number in [0, 1000], found -1'),
    ({"nrounds": 2.5}, 'learner "xgboost" parameter "nrounds": expected an integer, found 2.5'),
    ({"rounds": [1, 2.5]}, 'learner "xgboost" parameter "rounds": expected integers, found 2.5'),
    ({"rounds": [0, 2]},
     'learner "xgboost" parameter "rounds": expected numbers in [1, 100000], found 0'),
    ({"eta": 0.1, "etas": [0.1, 1]},
     'learner "xgboost": give "eta" (one value) or "etas" (candidates), not both'),
    ({"nrounds": 3, "rounds": [1, 2]},
     'learner "xgboost": give "nrounds" (one value) or "rounds" (candidates), not both'),
    ({"internal_folds": 1},
     'learner "xgboost" parameter "internal_folds": expected an integer in [2, 1000], found 1'),
    ({"tree_method": "gpu_hist"},
     'learner "xgboost" parameter "tree_method": expected one of hist, exact, approx, '
     'found "gpu_hist"'),
])
def test_bad_params(rng, params, message):
    X = rng.normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(np.int32)
    with pytest.raises(assay.AssayError) as info:
        fit(X, y, ["a", "b"], params)
    assert str(info.value) == message


def test_too_few_rows_for_internal_folds(rng):
    X = rng.normal(size=(6, 2))
    y = np.array([0, 1] * 3, np.int32)
    with pytest.raises(assay.AssayError,
                       match=r"^internal 10-fold cross-validation needs at least 10 train rows, "
                             r"found 6$"):
        fit(X, y, ["a", "b"])
