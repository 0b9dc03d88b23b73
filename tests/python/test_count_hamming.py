"""Hamming regions (`region R = hamming([c...], k) label L;`): exact counts of scikit-learn trees,
forests and networks on 10 and 12 boolean inputs, for every k from 0 to n and every counting
method, equal a brute-force count with the estimator's own predict() over all 2^n inputs; the
CLI; located errors."""
import itertools
import json

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

import assay.count as count
import assay.models as models


def _spec(center, k, label):
    c = ", ".join(str(int(v)) for v in center)
    return (f"input x[{len(center)}] : bool;\n"
            f"region Flip = hamming([{c}], {k}) label {label};\n")


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (400, n)).astype(float)
    y = ((X[:, 0] + X[:, 1] + X[:, 2] * X[:, 3] + rng.normal(scale=0.5, size=400)) > 1.5)
    return X, y.astype(int)


def _estimator(kind, n, seed):
    X, y = _data(n, seed)
    if kind == "tree":
        return DecisionTreeClassifier(max_depth=6, random_state=seed).fit(X, y)
    if kind == "forest":
        return RandomForestClassifier(n_estimators=4, max_depth=4, random_state=seed).fit(X, y)
    return MLPClassifier(hidden_layer_sizes=(6,), max_iter=400, random_state=seed).fit(X, y)


def _brute_force(est, center, k, label):
    points = np.array(list(itertools.product([0.0, 1.0], repeat=len(center))))
    within = (points != np.asarray(center, float)).sum(axis=1) <= k
    return int(np.sum(within & (est.predict(points) == label))), int(within.sum())


METHODS = {"tree": ["structural", "enumerate", "exact-cnf", "approx"],
           "forest": ["structural", "enumerate", "exact-cnf"],
           "network": ["enumerate", "exact-cnf", "split"]}


@pytest.mark.parametrize("kind,n", [("tree", 12), ("forest", 10), ("network", 10)])
def test_every_k_and_method_equals_brute_force(kind, n):
    est = _estimator(kind, n, 3)
    model = models.from_sklearn(est)
    center = np.random.default_rng(n).integers(0, 2, n)
    label = int(est.predict(center[None, :].astype(float))[0])
    for k in range(n + 1):
        want, size = _brute_force(est, center, k, label)
        for method in METHODS[kind]:
            if method == "exact-cnf" and k not in (0, 1, 3, n):
                continue  # the CNF route costs ~0.1 s per count: a sample of k suffices
            r = count.count(model, _spec(center, k, label), method=method, progress=False)
            (region,) = r["regions"]
            assert int(region["total"]) == size, (k, method)
            if method == "approx" and not region["guarantee"]["exact"]:
                # above ApproxMC's threshold: within the factor 1 + epsilon (seeded)
                assert want / 1.8 <= int(region["count"]) <= want * 1.8, (k, want, region)
                continue
            assert int(region["count"]) == want, (k, method)
            assert region["guarantee"]["exact"], (k, method)


def test_the_other_label_counts_the_rest_and_samples_stay_in_the_ball():
    est = _estimator("tree", 12, 5)
    center = np.zeros(12)
    for label in (0, 1):
        r = count.count(models.from_sklearn(est), _spec(center, 2, label), samples=[2000],
                        seed=1, progress=False)
        want, size = _brute_force(est, center, 2, label)
        assert int(r["regions"][0]["count"]) == want and int(r["regions"][0]["total"]) == size
        sample = r["samples"][0]["regions"][0]
        assert sample["n"] == 2000
        lo, hi = sample["clopper_pearson"]
        assert lo - 0.02 <= want / size <= hi + 0.02


def test_cli_counts_a_hamming_region(run_cli, tmp_path):
    est = _estimator("tree", 12, 7)
    models.save(models.from_sklearn(est), tmp_path / "m.json")
    center = np.ones(12)
    (tmp_path / "h.spec").write_text(_spec(center, 3, 1))
    p = run_cli("count", "--model", tmp_path / "m.json", "--spec", tmp_path / "h.spec", "--json")
    assert p.returncode == 0, p.stderr
    region = json.loads(p.stdout)["regions"][0]
    want, size = _brute_force(est, center, 3, 1)
    assert (region["count"], region["total"]) == (str(want), str(size))
    enc = run_cli("encode", "--model", tmp_path / "m.json", "--spec", tmp_path / "h.spec",
                  "--query", "robust", "--out", tmp_path / "r.cnf")
    assert enc.returncode == 0, enc.stderr
    assert count.count_cnf(tmp_path / "r.cnf")["count"] == want


@pytest.mark.parametrize("text,message", [
    ("input x[2] : bool;\ninput t : real[0, 1] step 0.5;\n"
     "region R = hamming([0, 1, 0], 1) label 1;\n",
     "h.spec:3:12: expected inputs with the values 0 and 1 for a Hamming region"),
    ("input x[3] : bool;\nregion R = hamming([0, 2, 0], 1) label 1;\n",
     "h.spec:2:24: expected 0 or 1 as the center's x[1], found 2"),
    ("input x[3] : bool;\nregion R = hamming([0, 1, 0], 4) label 1;\n",
     "h.spec:2:31: expected a Hamming radius: a whole number of inputs in [0, 3]"),
])
def test_bad_hamming_regions_are_located(run_cli, tmp_path, text, message):
    (tmp_path / "h.spec").write_text(text)
    est = DecisionTreeClassifier().fit(np.eye(3), [0, 1, 1])
    models.save(models.from_sklearn(est), tmp_path / "m.json")
    p = run_cli("count", "--model", tmp_path / "m.json", "--spec", tmp_path / "h.spec")
    assert p.returncode == 2 and message.replace("h.spec", str(tmp_path / "h.spec")) in p.stderr, \
        p.stderr
