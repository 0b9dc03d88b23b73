"""assay.models: exported models predict exactly as scikit-learn and xgboost do, including on
inputs that lie exactly on (or within float32 rounding of) a split threshold."""
import json

import numpy as np
import pytest
from sklearn.ensemble import (GradientBoostingClassifier, GradientBoostingRegressor,
                              RandomForestClassifier)
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import assay
import assay.models as models


def _data(seed, n=300, d=5, k=3, integer=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 8, (n, d)).astype(float) if integer else rng.normal(size=(n, d))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=n) > 0).astype(int)
    if k > 2:
        y = y + (X[:, 3] > 0.5).astype(int) * (k - 2)
    return X, y


def _threshold_inputs(trees, X, seed):
    """Rows whose features sit exactly on thresholds, one ulp either side, and at values that
    round to the float32 threshold."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in trees:
        tree = t.tree_
        for node in np.flatnonzero(tree.children_left >= 0):
            f, thr = tree.feature[node], tree.threshold[node]
            for v in (thr, np.nextafter(thr, np.inf), np.nextafter(thr, -np.inf),
                      float(np.float32(thr)), thr + 1e-9, thr - 1e-9):
                row = X[rng.integers(len(X))].copy()
                row[f] = v
                rows.append(row)
    return np.array(rows)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_decision_tree_classifier_matches_sklearn(seed):
    X, y = _data(seed)
    est = DecisionTreeClassifier(random_state=seed, max_depth=6).fit(X, y)
    m = models.from_sklearn(est)
    Xt = np.vstack([np.random.default_rng(seed + 10).normal(size=(2000, X.shape[1])),
                    _threshold_inputs([est], X, seed)])
    np.testing.assert_array_equal(m.predict(Xt), est.predict(Xt))
    np.testing.assert_allclose(m.predict_scores(Xt), est.predict_proba(Xt), rtol=1e-15, atol=0)
    info = m.info()
    assert info["kind"] == "tree"
    assert info["n_nodes"] == est.tree_.node_count
    assert info["n_leaves"] == est.get_n_leaves()
    assert info["max_depth"] == est.get_depth()
    internal = est.tree_.node_count - est.get_n_leaves()
    assert info["n_parameters"] == 2 * internal + 3 * est.get_n_leaves()


def test_float32_rounding_of_inputs_decides_the_branch():
    # sklearn compares float32(x) <= threshold: x just above a threshold that float32 cannot
    # separate from it still goes left.
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    est = DecisionTreeClassifier(random_state=0).fit(X, [0, 0, 1, 1])
    thr = est.tree_.threshold[0]
    assert thr == 1.5
    x = np.array([[1.5 + 1e-9], [1.5], [np.nextafter(1.5, 2)], [1.5000001]])
    np.testing.assert_array_equal(models.from_sklearn(est).predict(x), est.predict(x))
    np.testing.assert_array_equal(est.predict(x), [0, 0, 0, 1])


def test_decision_tree_regressor_matches_sklearn():
    X, _ = _data(3)
    y = X[:, 0] * 2 + np.sin(X[:, 1])
    est = DecisionTreeRegressor(random_state=0, max_depth=7).fit(X, y)
    m = models.from_sklearn(est)
    Xt = np.vstack([np.random.default_rng(4).normal(size=(1000, 5)), _threshold_inputs([est], X, 3)])
    np.testing.assert_array_equal(m.predict(Xt), est.predict(Xt))


@pytest.mark.parametrize("k", [2, 3])
def test_random_forest_matches_sklearn(k):
    X, y = _data(5, k=k)
    est = RandomForestClassifier(n_estimators=15, max_depth=5, random_state=0).fit(X, y)
    m = models.from_sklearn(est)
    Xt = np.vstack([np.random.default_rng(6).normal(size=(2000, 5)),
                    _threshold_inputs(est.estimators_[:3], X, 5)])
    np.testing.assert_array_equal(m.predict(Xt), est.predict(Xt))
    np.testing.assert_allclose(m.predict_scores(Xt), est.predict_proba(Xt), rtol=1e-12, atol=1e-15)
    assert m.info()["n_trees"] == 15


@pytest.mark.parametrize("k", [2, 3])
def test_gradient_boosting_classifier_matches_sklearn(k):
    X, y = _data(7, k=k)
    est = GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0).fit(X, y)
    m = models.from_sklearn(est)
    Xt = np.vstack([np.random.default_rng(8).normal(size=(2000, 5)),
                    _threshold_inputs([t for t in est.estimators_[:4, 0]], X, 7)])
    np.testing.assert_array_equal(m.predict(Xt), est.predict(Xt))
    margin = est.decision_function(Xt)
    np.testing.assert_allclose(m.predict_scores(Xt), margin.reshape(len(Xt), -1), rtol=1e-12,
                               atol=1e-12)


def test_gradient_boosting_regressor_matches_sklearn():
    X, _ = _data(9)
    y = X[:, 0] - X[:, 2] ** 2
    est = GradientBoostingRegressor(n_estimators=25, random_state=0).fit(X, y)
    m = models.from_sklearn(est)
    Xt = np.random.default_rng(10).normal(size=(1000, 5))
    np.testing.assert_allclose(m.predict(Xt), est.predict(Xt), rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("k", [2, 3])
def test_mlp_classifier_matches_sklearn(k):
    X, y = _data(11, k=k)
    est = MLPClassifier(hidden_layer_sizes=(8, 6), max_iter=300, random_state=0).fit(X, y)
    m = models.from_sklearn(est)
    Xt = np.random.default_rng(12).normal(size=(2000, 5))
    np.testing.assert_array_equal(m.predict(Xt), est.predict(Xt))
    proba = est.predict_proba(Xt)
    scores = m.predict_scores(Xt)
    expected = proba[:, 1:] if k == 2 else proba
    np.testing.assert_allclose(scores, expected, rtol=1e-9, atol=1e-12)
    info = m.info()
    assert info["layer_sizes"] == [5, 8, 6, 1 if k == 2 else 3]
    assert info["n_parameters"] == sum(w.size for w in est.coefs_) + sum(
        b.size for b in est.intercepts_)


xgboost = pytest.importorskip("xgboost")


@pytest.mark.parametrize("objective,k", [("binary:logistic", 2), ("multi:softprob", 3),
                                         ("reg:squarederror", 0)])
def test_xgboost_json_matches_xgboost(tmp_path, objective, k):
    X, y = _data(13, integer=True, k=max(k, 2))
    params = {"objective": objective, "max_depth": 4, "eta": 0.3, "seed": 0}
    if k == 3:
        params["num_class"] = 3
    label = y if k else X[:, 0] * 0.5 + X[:, 1]
    dtrain = xgboost.DMatrix(X, label=label)
    booster = xgboost.train(params, dtrain, num_boost_round=12)
    path = tmp_path / "xgb.json"
    booster.save_model(str(path))
    m = models.load(path)
    rng = np.random.default_rng(14)
    # Integer inputs sit exactly on xgboost's split conditions (x < c goes left).
    Xt = np.vstack([rng.integers(0, 8, (1000, 5)).astype(float), rng.uniform(-1, 9, (1000, 5)),
                    rng.integers(0, 16, (500, 5)) / 2.0])
    margin = booster.predict(xgboost.DMatrix(Xt), output_margin=True)
    np.testing.assert_allclose(m.predict_scores(Xt), margin.reshape(len(Xt), -1), rtol=1e-6,
                               atol=1e-6)
    if objective == "binary:logistic":
        expected = (booster.predict(xgboost.DMatrix(Xt)) > 0.5).astype(int)
        np.testing.assert_array_equal(m.predict_index(Xt), expected)
    elif k == 3:
        expected = np.argmax(booster.predict(xgboost.DMatrix(Xt)), axis=1)
        np.testing.assert_array_equal(m.predict_index(Xt), expected)
    # The same model from a Booster object.
    np.testing.assert_array_equal(models.from_xgboost(booster).predict_scores(Xt),
                                  m.predict_scores(Xt))


def test_save_load_round_trip(tmp_path):
    X, y = _data(15)
    est = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    m = models.from_sklearn(est)
    path = tmp_path / "rf.json"
    models.save(m, path)
    doc = json.loads(path.read_text())
    assert doc["format"] == "assay-model" and doc["version"] == 1 and doc["kind"] == "forest"
    m2 = models.load(path)
    Xt = np.random.default_rng(16).normal(size=(500, 5))
    np.testing.assert_array_equal(m2.predict(Xt), est.predict(Xt))


def test_unsupported_model_type():
    from sklearn.svm import LinearSVC
    est = LinearSVC().fit(*_data(17, k=2))
    with pytest.raises(assay.AssayError, match=r"unsupported model type sklearn.svm.LinearSVC "
                       r"\(supported: DecisionTreeClassifier"):
        models.from_sklearn(est)


def test_corrupt_json_reports_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "format": "assay-model",\n  "version": 1,\n  "kind": tree\n}\n')
    with pytest.raises(assay.AssayError, match=r"bad.json:4:13: invalid JSON: syntax error while parsing value - invalid literal"):
        models.load(path)


def test_bad_model_documents(tmp_path):
    X, y = _data(18, k=2)
    doc = models.from_sklearn(DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)).doc
    bad = json.loads(json.dumps(doc))
    bad["trees"][0]["left"][0] = 99
    with pytest.raises(assay.AssayError, match=r"^m: tree 0 node 0: child 99 out of range"):
        models.Model(bad, where="m")
    bad = json.loads(json.dumps(doc))
    bad["version"] = 7
    with pytest.raises(assay.AssayError,
                       match=r"m: version: unsupported format version 7 \(this assay reads "
                             r"version 1\)"):
        models.Model(bad, where="m")
    bad = json.loads(json.dumps(doc))
    bad["kind"] = "svm"
    with pytest.raises(assay.AssayError, match=r'm: kind: expected one of tree, forest, boosted, '
                                               r'network, found "svm"'):
        models.Model(bad, where="m")
    with pytest.raises(assay.AssayError, match=r'm: not a model: expected "format": '
                                               r'"assay-model" or an xgboost JSON model'):
        models.Model({"hello": 1}, where="m")
    m = models.Model(doc)
    with pytest.raises(assay.AssayError, match=r"X has 3 features, the model expects 5"):
        m.predict(np.zeros((2, 3)))


def test_unsupported_xgboost_objective():
    X, y = _data(19, integer=True, k=2)
    booster = xgboost.train({"objective": "count:poisson", "max_depth": 2},
                            xgboost.DMatrix(X, label=y), num_boost_round=2)
    with pytest.raises(assay.AssayError, match=r'unsupported xgboost objective "count:poisson"'):
        models.from_xgboost(booster)


def test_multilabel_mlp_is_rejected():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    Y = (X[:, :2] > 0).astype(int)  # two independent labels
    est = MLPClassifier(hidden_layer_sizes=(4,), max_iter=20, random_state=0)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, Y)
    with pytest.raises(assay.AssayError, match="multilabel MLPClassifier is not supported"):
        models.from_sklearn(est)


def test_xgboost2_base_score_format(tmp_path):
    """xgboost >= 2 writes base_score as a bracketed vector ("[5E-1]"); one value reads the same
    as 1.x's "5E-1", several (one per output) are refused with a message."""
    X, y = _data(16, integer=True, k=2)
    booster = xgboost.train({"objective": "binary:logistic", "max_depth": 3, "seed": 0,
                             "base_score": 0.3}, xgboost.DMatrix(X, label=y), num_boost_round=5)
    doc = json.loads(booster.save_raw("json").decode())
    param = doc["learner"]["learner_model_param"]
    old = models.load(_write(tmp_path / "v1.json", doc)).predict_scores(X)
    param["base_score"] = "[" + param["base_score"] + "]"
    new = models.load(_write(tmp_path / "v2.json", doc)).predict_scores(X)
    np.testing.assert_array_equal(old, new)
    param["base_score"] = "[3E-1,2E-1]"
    with pytest.raises(Exception, match=r"base_score: expected one base score, found "
                                        r"\"\[3E-1,2E-1\]\" \(a base score per output is not "
                                        r"supported\)"):
        models.load(_write(tmp_path / "v3.json", doc))


def _write(path, doc):
    path.write_text(json.dumps(doc))
    return path
