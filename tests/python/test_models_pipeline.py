"""assay.models.from_sklearn on LogisticRegression (binary, multinomial, one-vs-rest) and on
Pipelines of scalers before a supported estimator: the exported model predicts as scikit-learn's
predict on random inputs and on inputs next to the decision boundaries (for trees: exactly on,
and one ulp beside, every split after scaling, float32 rounding included); `assay count` of such
models equals a brute-force count with predict on a grid; unsupported steps are refused by name.
"""
import itertools
import json

import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler
from sklearn.tree import DecisionTreeClassifier

import assay
import assay.count as count
import assay.models as models
from assay import _sklearn_pipeline


def _data(seed, k, n=300, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([1.0, 30.0, 0.01, 5.0])[:d] + 3.0
    s = X[:, 0] - 3 + (X[:, 1] - 3) / 30 + rng.normal(scale=0.3, size=n)
    y = np.digitize(s, np.quantile(s, np.linspace(0, 1, k + 1)[1:-1]))
    return X, y


def _near_boundary(est, X, seed):
    """Points where the decision function's top two values (binary: the decision and 0) are
    within 1e-9, 1e-6 and 1e-3 of each other: moved along the gradient from random points."""
    rng = np.random.default_rng(seed)
    rows = []
    clf = est[-1] if hasattr(est, "steps") else est
    for x in X[rng.integers(len(X), size=200)]:
        for _ in range(3):  # Newton steps toward the boundary between the two best classes
            s = est.decision_function(x[None, :])[0]
            if np.ndim(s) == 0:
                gap, grad = s, clf.coef_[0]
            else:
                a, b = np.argsort(s)[-2:][::-1]
                gap, grad = s[a] - s[b], clf.coef_[a] - clf.coef_[b]
            if hasattr(est, "steps"):
                grad = grad * _sklearn_pipeline.affine(est[0], len(x))[0]
            x = x - gap * grad / (grad @ grad)
        for eps in (1e-9, 1e-6, 1e-3, -1e-9, -1e-6, -1e-3):
            rows.append(x + eps * grad / np.linalg.norm(grad))
    return np.array(rows)


@pytest.mark.parametrize("k,multi_class", [(2, "auto"), (3, "multinomial"), (4, "ovr"),
                                           (2, "ovr"), (2, "multinomial")])
def test_logistic_regression_predicts_as_sklearn(k, multi_class):
    X, y = _data(k, k)
    est = LogisticRegression(multi_class=multi_class, max_iter=2000).fit(X, y)
    m = models.from_sklearn(est)
    Xt = np.vstack([np.random.default_rng(1).normal(size=(5000, 4)) * 20, X,
                    _near_boundary(est, X, k)])
    np.testing.assert_array_equal(m.predict(Xt), est.predict(Xt))
    scores = est.decision_function(Xt)
    if k == 2:
        scores = np.column_stack([np.zeros(len(Xt)), scores])
    np.testing.assert_allclose(m.predict_scores(Xt), scores, rtol=1e-12, atol=1e-12)
    assert m.info()["kind"] == "network"


def test_string_classes_and_no_intercept():
    X, y = _data(5, 3)
    names = np.array(["low", "mid", "high"])[y]
    est = LogisticRegression(fit_intercept=False, max_iter=2000).fit(X, names)
    m = models.from_sklearn(est)
    Xt = np.random.default_rng(2).normal(size=(3000, 4)) * 10
    np.testing.assert_array_equal(m.predict(Xt), est.predict(Xt))


SCALERS = [StandardScaler(), StandardScaler(with_mean=False), MinMaxScaler(),
           MinMaxScaler(feature_range=(-3, 7)), MaxAbsScaler()]


@pytest.mark.parametrize("scaler", SCALERS, ids=lambda s: repr(s))
def test_scaler_apply_is_the_scalers_transform_bit_for_bit(scaler):
    X, y = _data(9, 2)
    scaler.fit(X)
    Xt = np.random.default_rng(3).normal(size=(2000, 4)) * 50
    np.testing.assert_array_equal(_sklearn_pipeline.apply(scaler, Xt.copy()),
                                  scaler.transform(Xt))


@pytest.mark.parametrize("scaler", SCALERS, ids=lambda s: repr(s))
@pytest.mark.parametrize("final", ["logistic", "logistic3", "mlp"])
def test_pipelines_before_affine_models_predict_as_sklearn(scaler, final):
    k = 3 if final == "logistic3" else 2
    X, y = _data(11, k)
    last = (MLPClassifier(hidden_layer_sizes=(8,), max_iter=600, random_state=0)
            if final == "mlp" else LogisticRegression(max_iter=2000))
    pipe = make_pipeline(scaler, last).fit(X, y)
    m = models.from_sklearn(pipe)
    rng = np.random.default_rng(4)
    Xt = np.vstack([X + rng.normal(size=X.shape) * X.std(axis=0), X])
    if final != "mlp":
        Xt = np.vstack([Xt, _near_boundary(pipe, X, 5)])
    np.testing.assert_array_equal(m.predict(Xt), pipe.predict(Xt))
    assert m.doc["source"].startswith("sklearn.pipeline.Pipeline(")


def _split_inputs(pipe, X, seed):
    """Rows whose raw feature is the exported threshold x*, one ulp either side, and values
    that map exactly onto the scaled threshold."""
    rng = np.random.default_rng(seed)
    m = models.from_sklearn(pipe)
    rows = []
    for tree in m.doc["trees"]:
        for f, t, left in zip(tree["feature"], tree["threshold"], tree["left"]):
            if left < 0:
                continue
            for v in (t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf),
                      np.nextafter(np.nextafter(t, np.inf), np.inf)):
                row = X[rng.integers(len(X))].copy()
                row[f] = v
                rows.append(row)
    return m, np.array(rows)


@pytest.mark.parametrize("scaler", SCALERS, ids=lambda s: repr(s))
@pytest.mark.parametrize("final", ["tree", "forest", "boosting"])
def test_pipelines_before_trees_predict_exactly_as_sklearn(scaler, final):
    X, y = _data(13, 3)
    last = {"tree": DecisionTreeClassifier(random_state=0),
            "forest": RandomForestClassifier(n_estimators=5, random_state=0),
            "boosting": GradientBoostingClassifier(n_estimators=5, random_state=0)}[final]
    pipe = make_pipeline(scaler, last).fit(X, y)
    m, Xs = _split_inputs(pipe, X, 6)
    assert m.doc["input_float32"] is False
    Xt = np.vstack([np.random.default_rng(7).normal(size=(3000, 4)) * X.std(axis=0) + 3, Xs])
    np.testing.assert_array_equal(m.predict(Xt), pipe.predict(Xt))


def test_the_exported_threshold_is_the_last_raw_value_going_left():
    X, y = _data(17, 2)
    pipe = make_pipeline(StandardScaler(), DecisionTreeClassifier(max_depth=3,
                                                                  random_state=0)).fit(X, y)
    m = models.from_sklearn(pipe)
    sc, tree = pipe[0], pipe[-1].tree_
    for node in np.flatnonzero(tree.children_left >= 0):
        f, t = tree.feature[node], tree.threshold[node]
        x = m.doc["trees"][0]["threshold"][node]
        z = lambda v: np.float32((v - sc.mean_[f]) / sc.scale_[f])  # noqa: E731
        assert z(x) <= t < z(np.nextafter(x, np.inf))


def test_two_scalers_and_passthrough_fold_in_order():
    X, y = _data(19, 2)
    pipe = make_pipeline(StandardScaler(), "passthrough", MinMaxScaler(),
                         LogisticRegression()).fit(X, y)
    m = models.from_sklearn(pipe)
    Xt = np.random.default_rng(8).normal(size=(3000, 4)) * X.std(axis=0) + 3
    np.testing.assert_array_equal(m.predict(Xt), pipe.predict(Xt))
    tree_pipe = make_pipeline(MaxAbsScaler(), StandardScaler(),
                              DecisionTreeClassifier(random_state=0)).fit(X, y)
    mt, Xs = _split_inputs(tree_pipe, X, 9)
    np.testing.assert_array_equal(mt.predict(np.vstack([Xt, Xs])),
                                  tree_pipe.predict(np.vstack([Xt, Xs])))


@pytest.mark.parametrize("steps,message", [
    ([PCA(n_components=2), LogisticRegression()],
     "Pipeline step 'pca' (PCA) is not supported: assay folds StandardScaler, MinMaxScaler, "
     "MaxAbsScaler into the model that follows them"),
    ([MinMaxScaler(clip=True), DecisionTreeClassifier()],
     "Pipeline step 'minmaxscaler' (MinMaxScaler) has clip=True"),
    ([StandardScaler(), PCA(n_components=2), DecisionTreeClassifier()],
     "Pipeline step 'pca' (PCA) is not supported"),
])
def test_unsupported_steps_are_named(steps, message):
    X, y = _data(21, 2)
    pipe = make_pipeline(*steps).fit(X, y)
    with pytest.raises(assay.AssayError, match=message.replace("(", r"\(").replace(")", r"\)")):
        models.from_sklearn(pipe)


def test_an_unsupported_final_estimator_is_named():
    from sklearn.svm import SVC
    X, y = _data(23, 2)
    with pytest.raises(assay.AssayError, match=r"unsupported model type sklearn.svm.SVC"):
        models.from_sklearn(make_pipeline(StandardScaler(), SVC()).fit(X, y))


def _grid():
    a = np.arange(0, 8) * 0.5          # x0: real[0, 3.5] step 0.5
    b = np.arange(-3, 4).astype(float)  # x1: int[-3, 3]
    return np.array(list(itertools.product(a, b)))


GRID_SPEC = ("input a : real[0, 3.5] step 0.5;\ninput b : int[-3, 3];\n"
             "pred Big = a + b >= 2;\ntruth 1 = Big;\n")


@pytest.mark.parametrize("build", ["logistic", "scaled-logistic", "scaled-tree"])
def test_count_of_a_grid_equals_brute_force(build, run_cli, tmp_path):
    rng = np.random.default_rng(31)
    X = np.column_stack([rng.uniform(0, 3.5, 500), rng.uniform(-3, 3, 500)])
    y = (X[:, 0] + 0.7 * X[:, 1] + rng.normal(scale=0.4, size=500) > 2).astype(int)
    est = {"logistic": LogisticRegression(),
           "scaled-logistic": make_pipeline(StandardScaler(), LogisticRegression()),
           "scaled-tree": make_pipeline(StandardScaler(),
                                        DecisionTreeClassifier(max_depth=4, random_state=0))}
    est = est[build].fit(X, y)
    G = _grid()
    pred = est.predict(G) == 1
    truth = G[:, 0] + G[:, 1] >= 2
    want = {"tp": int(np.sum(pred & truth)), "fp": int(np.sum(pred & ~truth)),
            "tn": int(np.sum(~pred & ~truth)), "fn": int(np.sum(~pred & truth))}
    models.save(models.from_sklearn(est), tmp_path / "m.json")
    (tmp_path / "g.spec").write_text(GRID_SPEC)
    for method in ("auto", "enumerate", "exact-cnf"):
        p = run_cli("count", "--model", tmp_path / "m.json", "--spec", tmp_path / "g.spec",
                    "--method", method, "--json")
        assert p.returncode == 0, p.stderr
        label1 = json.loads(p.stdout)["labels"][1]
        assert {c: int(label1[c]) for c in want} == want, method
