"""assay.metrics scorers in scikit-learn's model selection: every name of get_scorer_names()
gives the same score as scikit-learn's scorer of that name (on classifiers and regressors; the
names scikit-learn 1.2 lacks against their metric applied to the estimator's response), and
cross_validate / GridSearchCV accept them."""
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.svm import LinearSVC

import assay.metrics as am

BINARY = make_classification(n_samples=120, n_features=5, random_state=0)
MULTI = make_classification(n_samples=150, n_features=6, n_informative=4, n_classes=3,
                            random_state=1)
REGRESSION = make_regression(n_samples=100, n_features=4, noise=5, random_state=2)


# Scorer names of scikit-learn 1.9 that the installed scikit-learn 1.2 lacks: the metric and
# estimator method each scores (1.2's "max_error" was renamed "neg_max_error" in 1.6).
NEWER_NAMES = {
    "neg_max_error": (am.max_error, "predict", -1),
    "neg_root_mean_squared_log_error": (am.root_mean_squared_log_error, "predict", -1),
    "d2_absolute_error_score": (am.d2_absolute_error_score, "predict", 1),
    "d2_brier_score": (am.d2_brier_score, "predict_proba", 1),
    "d2_log_loss_score": (am.d2_log_loss_score, "predict_proba", 1),
}
REGRESSION_NAMES = ("r2", "explained_variance", "neg_max_error", "neg_median_absolute_error",
                    "neg_root_mean_squared_error", "neg_root_mean_squared_log_error",
                    "d2_absolute_error_score")


def fitted(name):
    if name in REGRESSION_NAMES or name.startswith("neg_mean"):
        X, y = REGRESSION
        if name in ("neg_mean_poisson_deviance", "neg_mean_gamma_deviance",
                    "neg_mean_squared_log_error", "neg_root_mean_squared_log_error"):
            y = np.abs(y) + 1
            return Ridge().fit(X, y), X, y
        return LinearRegression().fit(X, y), X, y
    if name.startswith("roc_auc_o") or name.endswith("_micro") or \
            name.endswith("_macro") or name.endswith("_weighted"):
        X, y = MULTI
    else:
        X, y = BINARY
    return LogisticRegression(max_iter=500).fit(X, y), X, y


@pytest.mark.parametrize("name", am.get_scorer_names())
def test_scorer_matches_sklearn(name):
    if name.endswith("_samples"):
        pytest.skip("samples averaging needs multilabel targets")
    model, X, y = fitted(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = am.get_scorer(name)(model, X, y)
        if name in NEWER_NAMES:
            metric, method, sign = NEWER_NAMES[name]
            response = getattr(model, method)(X)
            theirs = sign * metric(y, response[:, 1] if name == "d2_brier_score" else response)
        else:
            theirs = skm.get_scorer(name)(model, X, y)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_names_are_sklearn_supervised_ones():
    names = set(am.get_scorer_names())
    assert names <= set(skm.get_scorer_names()) | set(NEWER_NAMES)
    assert "max_error" not in names  # renamed neg_max_error (scikit-learn 1.6)
    assert {"roc_auc", "neg_log_loss", "r2", "f1_macro", "top_k_accuracy"} <= names
    with pytest.raises(ValueError, match="'nope' is not a valid scoring value"):
        am.get_scorer("nope")


def test_model_selection_accepts_scorers():
    X, y = BINARY
    out = cross_validate(LogisticRegression(), X, y, cv=3,
                         scoring={"auc": am.get_scorer("roc_auc"), "f1": am.get_scorer("f1")})
    ref = cross_validate(LogisticRegression(), X, y, cv=3, scoring=["roc_auc", "f1"])
    np.testing.assert_allclose(out["test_auc"], ref["test_roc_auc"], rtol=1e-12)
    np.testing.assert_allclose(out["test_f1"], ref["test_f1"], rtol=1e-12)
    search = GridSearchCV(LinearSVC(dual=False), {"C": [0.1, 1]}, cv=3,
                          scoring=am.make_scorer(am.roc_auc_score,
                                                 response_method=("decision_function",
                                                                  "predict_proba")))
    search.fit(X, y)
    assert 0.5 < search.best_score_ <= 1
    scorer = am.make_scorer(am.fbeta_score, beta=2, greater_is_better=False)
    assert repr(scorer) == ("make_scorer(fbeta_score, greater_is_better=False, "
                            "response_method='predict', beta=2)")
    for removed in ("needs_proba", "needs_threshold"):  # removed in scikit-learn 1.6
        with pytest.raises(TypeError, match=removed):
            am.make_scorer(am.log_loss, **{removed: True})


def test_response_method():
    """make_scorer(response_method=) (scikit-learn 1.4; the only way since 1.6): one method, or
    a tuple tried in order; binary probabilities/decisions reduced to the positive class."""
    X, y = BINARY
    svc = LinearSVC(dual=False).fit(X, y)
    logistic = LogisticRegression(max_iter=500).fit(X, y)
    auc = am.make_scorer(am.roc_auc_score, response_method=("decision_function",
                                                             "predict_proba"))
    assert auc(svc, X, y) == pytest.approx(skm.roc_auc_score(y, svc.decision_function(X)),
                                           rel=1e-12)
    auc = am.make_scorer(am.roc_auc_score, response_method=("predict_proba",
                                                             "decision_function"))
    assert auc(logistic, X, y) == pytest.approx(
        skm.roc_auc_score(y, logistic.predict_proba(X)[:, 1]), rel=1e-12)
    assert auc(svc, X, y) == pytest.approx(  # no predict_proba: the decision function
        skm.roc_auc_score(y, svc.decision_function(X)), rel=1e-12)
    with pytest.raises(AttributeError, match="none of the following attributes"):
        am.make_scorer(am.log_loss, response_method="predict_proba")(svc, X, y)
    # pos_label=0: the probability of class 0, the negated decision
    ap = am.make_scorer(am.average_precision_score, pos_label=0,
                        response_method="decision_function")
    assert ap(svc, X, y) == pytest.approx(
        skm.average_precision_score(y, -svc.decision_function(X), pos_label=0), rel=1e-12)
    with pytest.raises(ValueError, match="response_method"):
        am.make_scorer(am.accuracy_score, response_method="transform")
    X, y = REGRESSION
    regressor = LinearRegression().fit(X, y)
    with pytest.raises(AttributeError, match="none of the following attributes"):
        am.make_scorer(am.r2_score, response_method="predict_proba")(regressor, X, y)
    regressor.predict_proba = regressor.predict  # a regressor that has the method
    with pytest.raises(ValueError, match="should either be a classifier"):
        am.make_scorer(am.r2_score, response_method="predict_proba")(regressor, X, y)


def test_routed_sample_weight():
    """Scorers take sample_weight as scikit-learn's metadata routing passes it:
    set_score_request(sample_weight=True) returns the scorer and records the request, and
    scorer(estimator, X, y, sample_weight=w) scores with the weights."""
    X, y = BINARY
    model = LogisticRegression(max_iter=500).fit(X, y)
    w = np.random.default_rng(0).random(len(y))
    scorer = am.get_scorer("neg_log_loss")
    assert scorer.set_score_request(sample_weight=True) is scorer
    assert scorer.get_metadata_routing() == {"score": {"sample_weight": True}}
    assert am.get_scorer("neg_log_loss").get_metadata_routing() == {"score": {}}
    np.testing.assert_allclose(scorer(model, X, y, sample_weight=w),
                               -skm.log_loss(y, model.predict_proba(X), sample_weight=w),
                               rtol=1e-12)
    f1 = am.make_scorer(am.f1_score).set_score_request(sample_weight="weights")
    assert f1.get_metadata_routing() == {"score": {"sample_weight": "weights"}}
    np.testing.assert_allclose(f1(model, X, y, sample_weight=w),
                               skm.f1_score(y, model.predict(X), sample_weight=w), rtol=1e-12)
    with pytest.raises(ValueError, match="alias"):
        f1.set_score_request(sample_weight=3)


def test_scorers_in_sklearn_1_2_cross_validate():
    """scikit-learn 1.2's cross_validate (no metadata routing) calls scorer(estimator, X, y):
    the new scorer names work there."""
    X, y = REGRESSION
    y = np.abs(y) + 1
    names = ("neg_root_mean_squared_log_error", "d2_absolute_error_score", "neg_max_error")
    out = cross_validate(Ridge(), X, y, cv=3, scoring={n: am.get_scorer(n) for n in names})
    ref = cross_validate(Ridge(), X, y, cv=3, scoring={
        "rmsle": skm.make_scorer(skm.mean_squared_log_error, squared=False,
                                 greater_is_better=False),
        "max_error": "max_error"})
    np.testing.assert_allclose(out["test_neg_root_mean_squared_log_error"], ref["test_rmsle"],
                               rtol=1e-12)
    np.testing.assert_allclose(out["test_neg_max_error"], ref["test_max_error"], rtol=1e-12)
    X, y = BINARY
    out = cross_validate(LogisticRegression(max_iter=500), X, y, cv=3,
                         scoring={"d2": am.get_scorer("d2_log_loss_score")})
    assert np.all(out["test_d2"] > 0)
