"""assay.learners estimators: the scikit-learn contract (get_params/set_params/clone, Pipeline,
cross_val_score, GridSearchCV), classes_ of any label type, predict_proba, row weights, and bad
input. Parametrised over the five learners."""
import json
import pickle
import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import assay
import assay.learners as L
from assay import _assay

DEFAULTS = {
    "featureless": {},
    "glmnet": {"alpha": 1.0, "n_lambda": 100, "lambda_min_ratio": 0.0, "internal_folds": 10,
               "rule": "lambda.1se", "tolerance": 1e-7, "max_passes": 100000, "random_state": 0,
               "n_jobs": 1},
    "cart": {"min_split": None, "min_bucket": 0, "cp": 0.01, "max_depth": 30},
    "knn": {"k_min": 1, "k_max": 20, "internal_folds": 10, "random_state": 0, "n_jobs": 1},
    "xgboost": {"etas": None, "rounds": None, "internal_folds": 10, "max_depth": 6,
                "tree_method": "hist", "random_state": 0, "n_jobs": 1},
}
# A parameter per learner for set_params and GridSearchCV (cheap values).
GRID = {
    "featureless": None,
    "glmnet": ("n_lambda", [10, 20]),
    "cart": ("cp", [0.01, 0.1]),
    "knn": ("k_max", [3, 5]),
    "xgboost": ("rounds", [[2], [5]]),
}
# Cheaper-than-default settings for the contract tests (fewer internal folds, small grids).
FAST = {
    "featureless": {},
    "glmnet": {"n_lambda": 20, "internal_folds": 3},
    "cart": {},
    "knn": {"k_max": 5, "internal_folds": 3},
    "xgboost": {"etas": [0.3], "rounds": [5, 10], "internal_folds": 3, "max_depth": 2},
}


@pytest.fixture(params=list(L.ESTIMATORS))
def name(request):
    return request.param


def fast(name, **extra):
    return L.ESTIMATORS[name](**FAST[name], **extra)


def make_data(rng, n=90, labels=("cat", "dog", "emu")):
    X = rng.normal(size=(n, 3))
    score = X[:, 0] - X[:, 1]
    y = np.where(score > 0.5, labels[0], np.where(score < -0.5, labels[1], labels[-1]))
    return X, y


def test_registry_and_names():
    assert list(L.ESTIMATORS) == list(_assay.learner_names())
    assert [c.__name__ for c in L.ESTIMATORS.values()] == ["Featureless", "Glmnet", "Cart",
                                                             "Knn", "Xgboost"]


@pytest.mark.parametrize("learner", list(L.ESTIMATORS))
def test_defaults_mirror_the_cpp_params(learner):
    # No fit needed: the signature is the documented one (docs/learners.md).
    assert L.ESTIMATORS[learner]().get_params() == DEFAULTS[learner]


def test_get_set_params_clone_round_trip(name):
    est = L.ESTIMATORS[name]()
    params = est.get_params()
    copy = clone(est)
    assert copy is not est and copy.get_params() == params
    if GRID[name]:
        key, values = GRID[name]
        est.set_params(**{key: values[1]})
        assert est.get_params()[key] == values[1]
        assert clone(est).get_params()[key] == values[1]
    # Unfitted estimators pickle (joblib-parallel cross_val_score sends them to workers).
    assert pickle.loads(pickle.dumps(est)).get_params() == est.get_params()


def test_fit_predict_string_labels(name, rng):
    X, y = make_data(rng)
    est = fast(name).fit(X, y)
    assert list(est.classes_) == ["cat", "dog", "emu"]
    assert est.n_features_in_ == 3
    proba = est.predict_proba(X[:20])
    assert proba.shape == (20, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1, atol=1e-12)
    assert (proba >= 0).all()
    pred = est.predict(X)
    assert set(pred) <= set(est.classes_)
    np.testing.assert_array_equal(pred, est.classes_[np.argmax(est.predict_proba(X), axis=1)])
    assert est.score(X, y) == pytest.approx(np.mean(pred == y))
    assert isinstance(est.hyperparameters_, dict)
    if name != "featureless":
        assert est.score(X, y) > 0.6  # learns the signal


def test_classes_sorted_like_sklearn(name, rng):
    X, y = make_data(rng, labels=(10, 2, 7))
    est = fast(name).fit(X, y)
    np.testing.assert_array_equal(est.classes_, [2, 7, 10])
    assert est.predict(X).dtype == y.dtype
    Xb, yb = make_data(rng, labels=(True, False, False))
    np.testing.assert_array_equal(fast(name).fit(Xb, yb).classes_, [False, True])


def test_pipeline_cross_val_score_gridsearch(name, rng):
    X, y = make_data(rng)
    pipe = make_pipeline(StandardScaler(), fast(name))
    scores = cross_val_score(pipe, X, y, cv=KFold(3, shuffle=True, random_state=0))
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    step = type(pipe.steps[-1][1]).__name__.lower()
    if GRID[name]:
        key, values = GRID[name]
        grid = {f"{step}__{key}": values}
    else:
        grid = {"standardscaler__with_mean": [True, False]}
    search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    assert search.best_params_ in [dict(zip(grid, [v])) for v in list(grid.values())[0]]
    assert search.predict(X).shape == (len(y),)


def test_sample_weight_and_seed(name, rng):
    X, y = make_data(rng)
    w = rng.uniform(0.5, 2, len(y))
    a = fast(name).fit(X, y, sample_weight=w).predict_proba(X)
    b = fast(name).fit(X, y, sample_weight=w).predict_proba(X)
    np.testing.assert_array_equal(a, b)  # deterministic for a seed
    with pytest.raises(assay.AssayError,
                       match=re.escape("sample_weight must have one weight per row of X (90), "
                                       "found shape (3,)")):
        fast(name).fit(X, y, sample_weight=[1, 2, 3])


def test_featureless_equals_dummy_prior(rng):
    X, y = make_data(rng)
    w = rng.uniform(0.5, 2, len(y))
    ours = L.Featureless().fit(X, y, sample_weight=w)
    dummy = DummyClassifier(strategy="prior").fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), dummy.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), dummy.predict(X))
    assert ours.hyperparameters_ == {"predicted_class": str(dummy.predict(X[:1])[0])}


def test_dataframe_feature_names(rng):
    pd = pytest.importorskip("pandas")
    X, y = make_data(rng)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    est = L.Featureless().fit(df, y)
    assert list(est.feature_names_in_) == ["a", "b", "c"]
    est.fit(X, y)
    assert not hasattr(est, "feature_names_in_")


def test_bad_input(rng):
    X, y = make_data(rng)
    est = L.Featureless()
    with pytest.raises(NotFittedError):
        est.predict(X)
    with pytest.raises(assay.AssayError, match=re.escape(
            'data set "X" has 1 class names, expected at least two')):
        est.fit(X, np.full(len(y), "cat"))
    bad = X.copy()
    bad[4, 1] = np.nan
    with pytest.raises(assay.AssayError, match=re.escape(
            'data set "X": feature 1 of row 4 is NaN, expected a finite value (learners do not '
            "impute)")):
        est.fit(bad, y)
    est.fit(X, y)
    with pytest.raises(assay.AssayError,
                       match=re.escape("X has 2 features, but the model was fitted with 3")):
        est.predict(X[:, :2])
    with pytest.raises(ValueError, match="Unknown label type"):
        est.fit(X, rng.normal(size=len(y)))  # continuous y: not a classification target
    with pytest.raises(assay.AssayError, match=re.escape(
            "y must be 1-D with one label per row of X (90), found shape (89,)")):
        est.fit(X, y[:-1])
    with pytest.raises(assay.AssayError,
                       match=re.escape("n_jobs must be None or a non-zero integer, found 0")):
        L.Knn(n_jobs=0).fit(X, y)


def test_bad_parameters_name_the_learner_and_key(rng):
    X, y = make_data(rng)
    for est, message in [
            (L.Glmnet(alpha=2.0), 'learner "glmnet" parameter "alpha": expected a number in '
                                  '[0, 1], found 2'),
            (L.Glmnet(rule="lambda.max"), 'learner "glmnet" parameter "rule": expected one of '),
            (L.Knn(k_min=0), 'learner "knn" parameter "k_min"'),
            (L.Cart(max_depth=31), 'learner "cart" parameter "max_depth"'),
            (L.Xgboost(etas=[0.1, -1]), 'learner "xgboost" parameter "etas"'),
    ]:
        with pytest.raises(assay.AssayError, match=re.escape(message)):
            est.fit(X, y)
    with pytest.raises(assay.AssayError, match="is not a number, string or list"):
        L.Xgboost(etas={0.1}).fit(X, y)


def test_numpy_parameter_values(rng):
    X, y = make_data(rng)
    est = L.Knn(k_min=np.int64(3), k_max=np.int64(3), internal_folds=3).fit(X, y)
    assert est.hyperparameters_["k"] == 3


def test_python_defaults_are_the_cpp_defaults(name, rng):
    # Every keyword is sent to C++ explicitly; with the defaults the model must equal the one
    # the registry builds from no parameters at all (catches a default drifting on one side).
    X, y = make_data(rng, n=40)
    ours = L.ESTIMATORS[name]().fit(X, y)
    classes, codes = np.unique(y, return_inverse=True)
    ref = _assay.learner_fit(name, "{}", X, codes.astype(np.int32), [str(c) for c in classes],
                             None, None, "classification", 0, 1)
    np.testing.assert_array_equal(ours.predict_proba(X), ref.predict(X))
    assert ours.hyperparameters_ == json.loads(ref.description)


def test_cart_min_bucket_alone_sets_min_split_as_rpart():
    """rpart.control: min_bucket alone sets min_split = 3 * min_bucket; Cart(min_split=None)
    leaves min_split out, so the C++ default rule applies (same tree as the explicit value)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    alone = L.Cart(min_bucket=15, cp=0.0).fit(X, y)
    explicit = L.Cart(min_split=45, min_bucket=15, cp=0.0).fit(X, y)
    default_split = L.Cart(min_split=20, min_bucket=15, cp=0.0).fit(X, y)
    np.testing.assert_array_equal(alone.predict_proba(X), explicit.predict_proba(X))
    assert alone.hyperparameters_ == explicit.hyperparameters_
    assert alone.hyperparameters_ != default_split.hyperparameters_
