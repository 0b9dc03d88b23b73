"""knn against scikit-learn: make_pipeline(StandardScaler(), KNeighborsClassifier(brute)) at fixed
k, and GridSearchCV over k = 1..20 with PredefinedSplit on assay's internal folds when tuned.
Probabilities are compared exactly (vote shares count / k); the tuned k, its CV error and the
final predictions must be equal too."""
import csv
import json

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from assay import _assay
from conftest import soak_data

SEED = 17


@pytest.fixture(autouse=True)
def one_openmp_thread():
    """scikit-learn's neighbour search runs OpenMP threads on every core; on a loaded machine
    that turns its 200 small fits per grid search from seconds into minutes."""
    with threadpool_limits(limits=1):
        yield


def fit(X, y, params=None, weights=None, classes=None, seed=SEED, threads=1):
    y = np.asarray(y, dtype=np.int32)
    if classes is None:
        classes = [str(c) for c in range(int(y.max()) + 1)]
    return _assay.learner_fit("knn", json.dumps(params or {}), np.ascontiguousarray(X, float), y,
                              classes, None, weights, "classification", seed, threads)


def sk_pipeline(k=5, regression=False):
    model = KNeighborsRegressor if regression else KNeighborsClassifier
    return make_pipeline(StandardScaler(), model(n_neighbors=k, algorithm="brute"))


def sk_tuned(X, y, seed=SEED, folds=10, regression=False):
    test_fold = _assay.internal_fold_ids(len(y), folds, seed)
    grid = {f"{'kneighborsregressor' if regression else 'kneighborsclassifier'}__n_neighbors":
            list(range(1, 21))}
    search = GridSearchCV(sk_pipeline(regression=regression), grid, cv=PredefinedSplit(test_fold),
                          scoring="neg_mean_squared_error" if regression else None)
    return search.fit(X, y)


def sk_proba(model, X, n_classes):
    """predict_proba with a column for every class code (sklearn drops classes absent in y)."""
    out = np.zeros((len(X), n_classes))
    out[:, model.classes_] = model.predict_proba(X)
    return out


def generated(rng, n, p, n_classes):
    X = rng.normal(size=(n, p)) * rng.uniform(0.1, 10, size=p) + rng.normal(size=p) * 5
    score = X[:, 0] / X[:, 0].std() + 0.8 * X[:, 1] / X[:, 1].std() + rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y.astype(np.int32)


@pytest.mark.parametrize("k", [1, 2, 5, 20])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_fixed_k_equals_sklearn(rng, k, n_classes):
    X, y = generated(rng, 500, 6, n_classes)
    X_test = generated(rng, 300, 6, n_classes)[0]
    model = fit(X, y, {"k": k})
    assert json.loads(model.description) == {"k": k, "cv_error": None}
    expected = sk_pipeline(k).fit(X, y).predict_proba(X_test)
    np.testing.assert_array_equal(model.predict(X_test), expected)


def test_one_feature_equals_sklearn(rng):
    # One column is summed pairwise by NumPy: the scaler follows that order.
    X = rng.normal(size=(400, 1)) * 3 + 100
    y = (X[:, 0] + rng.normal(size=400) > 100).astype(np.int32)
    X_test = rng.normal(size=(200, 1)) * 3 + 100
    for k in (1, 4, 15):
        np.testing.assert_array_equal(fit(X, y, {"k": k}).predict(X_test),
                                      sk_pipeline(k).fit(X, y).predict_proba(X_test))


def test_exact_ties_are_the_only_differences(rng):
    # Values on a 0.01 grid: many train rows tie at the k-th distance. assay keeps the lower train
    # rows; scikit-learn's max-heap evicts whichever tied row sits at its root, so the two may
    # pick different tied rows, and nothing else may differ.
    X = np.round(rng.normal(size=(400, 1)) * 3 + 100, 2)
    y = (X[:, 0] + rng.normal(size=400) > 100).astype(np.int32)
    X_test = np.round(rng.normal(size=(300, 1)) * 3 + 100, 3)
    k = 15
    ours = fit(X, y, {"k": k}).predict(X_test)
    theirs = sk_pipeline(k).fit(X, y).predict_proba(X_test)
    differ = np.flatnonzero(np.any(ours != theirs, axis=1))
    distance = np.sort(np.abs(X_test - X.T), axis=1)  # unscaled, where the ties are exact
    tied = np.abs(distance[:, k - 1] - distance[:, k]) < 1e-9
    assert np.all(tied[differ])
    assert len(differ) < tied.sum() / 2


@pytest.mark.parametrize("seed,n,p,n_classes,folds", [(0, 400, 3, 2, 10), (1, 600, 8, 3, 10),
                                                     (2, 250, 2, 5, 5)])
def test_tuned_k_equals_grid_search(rng, seed, n, p, n_classes, folds):
    X, y = generated(rng, n, p, n_classes)
    X_test = generated(rng, 200, p, n_classes)[0]
    model = fit(X, y, {"internal_folds": folds}, seed=seed)
    search = sk_tuned(X, y, seed=seed, folds=folds)
    got = json.loads(model.description)
    assert got["k"] == search.best_params_["kneighborsclassifier__n_neighbors"]
    assert got["cv_error"] == pytest.approx(1 - search.best_score_, abs=1e-15)
    np.testing.assert_array_equal(model.predict(X_test), search.predict_proba(X_test))


def test_threads_do_not_change_the_model(rng):
    X, y = generated(rng, 900, 5, 3)
    one, many = fit(X, y, threads=1), fit(X, y, threads=4)
    assert one.description == many.description
    np.testing.assert_array_equal(one.predict(X), many.predict(X))


def read_soak(name, label="y", drop=("subset",)):
    with open(soak_data(name), newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    features = [j for j, h in enumerate(header) if h != label and h not in drop]
    X = np.array([[float(r[j]) for j in features] for r in rows])
    labels = [r[header.index(label)] for r in rows]
    subset = [r[header.index(drop[0])] for r in rows]
    classes, y = np.unique(labels, return_inverse=True)
    return X, y.astype(np.int32), np.array(subset), len(classes)


@pytest.mark.parametrize("name,subset_column,train_subset,folds", [
    ("vowel.csv", "subset", "train", 10),
    ("waveform.csv", "subset", "train", 10),
    ("CanadaFiresD.csv", "image", "306", 10),
])
def test_real_data_tuned_equals_grid_search(name, subset_column, train_subset, folds):
    X, y, subset, n_classes = read_soak(name, drop=(subset_column,))
    train, test = subset == train_subset, subset != train_subset
    model = fit(X[train], y[train], {"internal_folds": folds},
                classes=[str(c) for c in range(n_classes)])
    search = sk_tuned(X[train], y[train], folds=folds)
    assert (json.loads(model.description)["k"] ==
            search.best_params_["kneighborsclassifier__n_neighbors"])
    assert json.loads(model.description)["cv_error"] == pytest.approx(1 - search.best_score_,
                                                                      abs=1e-15)
    np.testing.assert_array_equal(model.predict(X[test]),
                                  sk_proba(search.best_estimator_, X[test], n_classes))


def test_real_data_fixed_k_on_aztrees():
    X, y, region, n_classes = read_soak("aztrees.csv", drop=("region3", "region4", "polygon",
                                                             "xcoord", "ycoord"))
    train = region != "NE"
    for k in (1, 7):
        model = fit(X[train], y[train], {"k": k}, classes=[str(c) for c in range(n_classes)])
        expected = sk_proba(sk_pipeline(k).fit(X[train], y[train]), X[~train], n_classes)
        np.testing.assert_array_equal(model.predict(X[~train]), expected)


def test_real_data_fixed_k_on_zip_usps():
    # 256 pixel features with many repeated values; 3000 train and 1000 test rows keep it fast.
    X, y, subset, n_classes = read_soak("zipUSPS.csv")
    train = np.flatnonzero(subset == "train")[:3000]
    test = np.flatnonzero(subset == "test")[:1000]
    for k in (1, 10):
        model = fit(X[train], y[train], {"k": k}, classes=[str(c) for c in range(n_classes)])
        expected = sk_proba(sk_pipeline(k).fit(X[train], y[train]), X[test], n_classes)
        np.testing.assert_array_equal(model.predict(X[test]), expected)


def test_constant_features_as_standard_scaler(rng):
    X, y = generated(rng, 300, 3, 3)
    wide = np.column_stack([X[:, 0], np.full(300, 7.25), X[:, 1:], np.zeros(300)])
    # Constant columns are centred and divided by 1: they change no distance, so neither the
    # tuned k nor the predictions, and a fixed k gives scikit-learn's probabilities.
    assert fit(wide, y).description == fit(X, y).description
    np.testing.assert_array_equal(fit(wide, y).predict(wide), fit(X, y).predict(X))
    np.testing.assert_array_equal(fit(wide, y, {"k": 4}).predict(wide),
                                  sk_pipeline(4).fit(wide, y).predict_proba(wide))


def test_one_class_predicts_it(rng):
    X = rng.normal(size=(50, 2))
    model = fit(X, np.ones(50), classes=["0", "1"])
    assert json.loads(model.description) == {"k": 1, "cv_error": 0.0}
    np.testing.assert_array_equal(model.predict(X[:3]), [[0, 1]] * 3)


def test_regression_equals_sklearn(rng):
    X = rng.normal(size=(400, 4)) * [1, 3, 0.2, 8]
    y = X[:, 0] + np.sin(X[:, 1]) + 0.3 * rng.normal(size=400)
    X_test = rng.normal(size=(100, 4)) * [1, 3, 0.2, 8]

    def fit_reg(params, seed=SEED):
        return _assay.learner_fit("knn", json.dumps(params), X, None, [], y, None, "regression",
                                  seed, 1)

    for k in (1, 6, 13):
        np.testing.assert_allclose(fit_reg({"k": k}).predict(X_test)[:, 0],
                                   sk_pipeline(k, regression=True).fit(X, y).predict(X_test),
                                   rtol=1e-14, atol=1e-14)
    model = fit_reg({})
    search = sk_tuned(X, y, regression=True)
    got = json.loads(model.description)
    assert got["k"] == search.best_params_["kneighborsregressor__n_neighbors"]
    assert got["cv_error"] == pytest.approx(-search.best_score_, rel=1e-14)
    np.testing.assert_allclose(model.predict(X_test)[:, 0], search.predict(X_test), rtol=1e-14)


def test_weighted_votes_are_weight_shares_of_the_neighbours(rng):
    # No peer takes weights: the neighbours come from scikit-learn's brute-force search on the
    # rows of positive weight (after the weighted scaler), the shares are computed here.
    X, y = generated(rng, 300, 4, 3)
    w = rng.uniform(0.5, 3, size=300)
    w[::7] = 0
    X_test = generated(rng, 100, 4, 3)[0]
    model = fit(X, y, {"k": 6}, weights=w)
    keep = w > 0
    scaler = StandardScaler().fit(X[keep], sample_weight=w[keep])
    nn = NearestNeighbors(n_neighbors=6, algorithm="brute").fit(scaler.transform(X[keep]))
    idx = nn.kneighbors(scaler.transform(X_test), return_distance=False)
    expected = np.zeros((100, 3))
    for c in range(3):
        expected[:, c] = np.sum(w[keep][idx] * (y[keep][idx] == c), axis=1)
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict(X_test), expected, rtol=1e-14, atol=1e-15)


def test_bad_input(rng):
    X, y = generated(rng, 30, 2, 2)
    with pytest.raises(ValueError, match=r'^knn with k = 31 needs at least 31 train rows, '
                                         r'found 30$'):
        fit(X, y, {"k": 31})
    # scikit-learn refuses the same k.
    with pytest.raises(ValueError, match="n_neighbors <= n_samples"):
        sk_pipeline(31).fit(X, y).predict(X)
    with pytest.raises(ValueError, match=r'^learner "knn" parameter "k": expected an integer in '
                                         r'\[1, 1000000\], found 0$'):
        fit(X, y, {"k": 0})
    with pytest.raises(ValueError, match=r'^learner "knn": expected k_min <= k_max, found '
                                         r'k_min = 9 and k_max = 4$'):
        fit(X, y, {"k_min": 9, "k_max": 4})
    with pytest.raises(ValueError, match=r'^learner "knn" has no parameter "n_neighbors"'):
        fit(X, y, {"n_neighbors": 3})
    with pytest.raises(ValueError, match=r"^internal 10-fold cross-validation needs at least 10 "
                                         r"train rows, found 8$"):
        fit(X[:8], y[:8])
    with pytest.raises(ValueError, match=r"^the 30 train rows have total weight 0$"):
        fit(X, y, {"k": 1}, weights=np.zeros(30))
