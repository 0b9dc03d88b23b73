"""assay.metrics scorers in scikit-learn's model selection: every name of get_scorer_names()
gives the same score as scikit-learn's scorer of that name (on classifiers and regressors),
and cross_validate / GridSearchCV accept them."""
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


def fitted(name):
    if name in ("r2", "explained_variance", "max_error") or name.startswith("neg_mean") or \
            name in ("neg_median_absolute_error", "neg_root_mean_squared_error"):
        X, y = REGRESSION
        if name in ("neg_mean_poisson_deviance", "neg_mean_gamma_deviance",
                    "neg_mean_squared_log_error"):
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
        theirs = skm.get_scorer(name)(model, X, y)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_names_are_sklearn_supervised_ones():
    names = set(am.get_scorer_names())
    assert names <= set(skm.get_scorer_names())
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
                          scoring=am.make_scorer(am.roc_auc_score, needs_threshold=True))
    search.fit(X, y)
    assert 0.5 < search.best_score_ <= 1
    scorer = am.make_scorer(am.fbeta_score, beta=2, greater_is_better=False)
    assert repr(scorer) == "make_scorer(fbeta_score, greater_is_better=False, beta=2)"
    with pytest.raises(ValueError, match="Set either needs_proba or needs_threshold"):
        am.make_scorer(am.log_loss, needs_proba=True, needs_threshold=True)
