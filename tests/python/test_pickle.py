"""Pickling: every assay.learners estimator and every assay.models model survives pickle,
joblib and copy.deepcopy with bit-identical predictions; scikit-learn's process-parallel search
works on them; a pickle of another format version is refused naming both versions."""
import copy
import io
import pickle

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import assay
import assay.learners as L
import assay.models
from assay import _assay

FAST = {
    "featureless": {},
    "glmnet": {"n_lambda": 20, "internal_folds": 3},
    "cart": {"min_split": 6},
    "knn": {"k_max": 7, "internal_folds": 3},
    "xgboost": {"etas": [0.3], "rounds": [5, 10], "internal_folds": 3, "max_depth": 3},
}


def data(n=150, seed=0):
    X, y = make_classification(n_samples=n, n_features=5, n_informative=3, n_classes=3,
                               random_state=seed)
    labels = np.array(["ant", "bee", "cat"])[y]
    weights = np.random.default_rng(seed).uniform(0.2, 2.0, size=n)
    return X, labels, weights


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def via_joblib(est):
    buffer = io.BytesIO()
    joblib.dump(est, buffer)
    buffer.seek(0)
    return joblib.load(buffer)


ROUND_TRIPS = {
    "pickle": lambda est: pickle.loads(pickle.dumps(est)),
    "pickle_protocol_2": lambda est: pickle.loads(pickle.dumps(est, protocol=2)),
    "joblib": via_joblib,
    "deepcopy": copy.deepcopy,
}


@pytest.mark.parametrize("name", list(L.ESTIMATORS))
@pytest.mark.parametrize("how", list(ROUND_TRIPS))
def test_fitted_estimators_round_trip_bit_identically(name, how):
    X, y, w = data()
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    est = L.ESTIMATORS[name](**FAST[name]).fit(frame, y, sample_weight=w)
    again = ROUND_TRIPS[how](est)
    assert again is not est and again.model_ is not est.model_
    X_new = data(n=60, seed=1)[0]
    frame_new = pd.DataFrame(X_new, columns=frame.columns)
    assert same_bits(again.predict_proba(frame_new), est.predict_proba(frame_new))
    assert same_bits(again.predict(frame_new), est.predict(frame_new))
    assert again.get_params() == est.get_params()
    assert again.hyperparameters_ == est.hyperparameters_
    assert list(again.classes_) == list(est.classes_) and again.n_features_in_ == 5
    assert list(again.feature_names_in_) == list(frame.columns)
    # The copy is an ordinary estimator: it refits, and the original is untouched.
    again.fit(X_new, data(n=60, seed=1)[1])
    assert same_bits(est.predict_proba(frame_new), ROUND_TRIPS[how](est).predict_proba(frame_new))


@pytest.mark.parametrize("name", ["featureless", "knn", "xgboost"])
def test_regression_models_round_trip(name):
    """The compiled FittedModel also holds regression models (assay.soak's regression runs)."""
    X, _, w = data()
    target = X @ np.arange(1.0, 6.0)
    params = {"featureless": "{}", "knn": '{"k_max": 5, "internal_folds": 3}',
              "xgboost": '{"eta": 0.3, "nrounds": 6}'}[name]
    model = _assay.learner_fit(name, params, X, None, [], target, w, "regression", 7, 1)
    again = pickle.loads(pickle.dumps(model))
    assert same_bits(again.predict(X), model.predict(X))
    assert again.description == model.description and again.n_outputs == 1


def test_unfitted_estimators_pickle():
    for name, cls in L.ESTIMATORS.items():
        est = cls(**FAST[name])
        again = pickle.loads(pickle.dumps(est))
        assert again.get_params() == est.get_params() and not hasattr(again, "model_")


def test_grid_search_in_two_processes_equals_one():
    X, y, _ = data(n=120)
    grid = {"cp": [0.001, 0.05], "min_split": [6, 20]}
    cv = KFold(4, shuffle=True, random_state=0)
    serial = GridSearchCV(L.Cart(), grid, cv=cv, n_jobs=1).fit(X, y)
    parallel = GridSearchCV(L.Cart(), grid, cv=cv, n_jobs=2).fit(X, y)
    assert parallel.best_params_ == serial.best_params_
    assert same_bits(parallel.cv_results_["mean_test_score"], serial.cv_results_["mean_test_score"])
    assert same_bits(parallel.predict_proba(X), serial.predict_proba(X))
    # The fitted search itself pickles (its best_estimator_ holds a C++ model).
    assert same_bits(pickle.loads(pickle.dumps(parallel)).predict_proba(X), serial.predict_proba(X))


@pytest.mark.parametrize("name", ["glmnet", "xgboost"])
def test_fitted_estimators_come_back_from_worker_processes(name):
    """cross_validate(return_estimator=True, n_jobs=2) fits in worker processes and pickles the
    fitted estimators back: each predicts as the same fit made here."""
    X, y, _ = data(n=120)
    cv = KFold(3, shuffle=True, random_state=1)
    out = cross_validate(L.ESTIMATORS[name](**FAST[name]), X, y, cv=cv, n_jobs=2,
                         return_estimator=True)
    for est, (train, _) in zip(out["estimator"], cv.split(X)):
        here = L.ESTIMATORS[name](**FAST[name]).fit(X[train], y[train])
        assert same_bits(est.predict_proba(X), here.predict_proba(X))


def test_another_format_version_is_refused_naming_both_versions():
    X, y, _ = data(n=60)
    est = L.Featureless().fit(X, y)
    state = est.model_.__getstate__()
    assert state[0] == _assay.MODEL_FORMAT_VERSION and state[1] == assay.__version__
    newer = (state[0] + 1, "9.0.0", *state[2:])
    model = _assay.FittedModel.__new__(_assay.FittedModel)
    with pytest.raises(assay.AssayError) as e:
        model.__setstate__(newer)
    assert str(e.value) == (
        f"this model was pickled in assay learner-model format version {state[0] + 1} (by "
        f"assay 9.0.0); this assay {assay.__version__} reads format version {state[0]} only: "
        "refit the estimator with this assay, or unpickle it with assay 9.0.0")
    # Through pickle.loads, as a user meets it: the estimator's pickle holds the model's state.
    blob = pickle.dumps(est)
    assert state[2] in blob and assay.__version__.encode() in blob
    # A damaged saved model (cut short) is an error, not a crash.
    with pytest.raises(assay.AssayError, match="expected a saved assay learner model"):
        model.__setstate__((*state[:2], state[2][:10], *state[3:]))


def fitted_models():
    X, y, _ = data(n=200)
    codes = np.unique(y, return_inverse=True)[1]
    yield "tree", assay.models.from_sklearn(DecisionTreeClassifier(max_depth=5).fit(X, y)), X
    yield "tree_regression", assay.models.from_sklearn(
        DecisionTreeRegressor(max_depth=4).fit(X, X[:, 0])), X
    yield "forest", assay.models.from_sklearn(
        RandomForestClassifier(n_estimators=5, max_depth=4, random_state=0).fit(X, y)), X
    yield "boosted", assay.models.from_sklearn(
        GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, codes)), X
    yield "network", assay.models.from_sklearn(
        MLPClassifier(hidden_layer_sizes=(6,), max_iter=50, random_state=0).fit(X, y)), X
    xgboost = pytest.importorskip("xgboost")
    booster = xgboost.train({"objective": "multi:softprob", "num_class": 3, "max_depth": 3},
                            xgboost.DMatrix(X, label=codes), num_boost_round=4)
    yield "xgboost", assay.models.from_xgboost(booster), X


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_models_round_trip_bit_identically():
    for kind, model, X in fitted_models():
        for how, trip in ROUND_TRIPS.items():
            again = trip(model)
            assert again.native is not model.native, (kind, how)
            assert same_bits(again.predict_scores(X), model.predict_scores(X)), (kind, how)
            assert same_bits(again.predict(X), model.predict(X)), (kind, how)
            assert again.info() == model.info() and again.doc == model.doc


def test_models_another_format_version_is_refused():
    model = assay.models.from_sklearn(
        DecisionTreeClassifier(max_depth=2).fit([[0.0], [1.0]], [0, 1]))
    state = model.__getstate__()
    assert state["format_version"] == assay.models.PICKLE_FORMAT_VERSION
    newer = dict(state, format_version=state["format_version"] + 1, assay_version="9.0.0")
    with pytest.raises(assay.AssayError) as e:
        assay.models.Model.__new__(assay.models.Model).__setstate__(newer)
    assert str(e.value) == (
        f"this assay.models.Model was pickled in format version {state['format_version'] + 1} "
        f"(by assay 9.0.0); this assay {assay.__version__} reads format version "
        f"{state['format_version']} only: export the model again with this assay, or unpickle "
        "it with assay 9.0.0")
