"""assay.count: exact counts of scikit-learn models over whole domains, checked against brute-force
enumeration with the models' own predict(); robustness regions; the CLI; bad input."""
import itertools
import json
import os
import re
import subprocess
import tempfile

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

import assay
import assay.count as count
import assay.models as models

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRAPH4 = os.path.join(ROOT, "examples", "count", "graph4.spec")
PROPERTIES = ["Reflexive", "Irreflexive", "Symmetric", "Antisymmetric", "Transitive", "Connex",
              "Equivalence", "PreOrder", "NonStrictOrder", "PartialOrder", "StrictOrder",
              "TotalOrder"]
ALL = np.array(list(itertools.product([0.0, 1.0], repeat=16)))


def _truth(name, X, n=4):
    """The graph properties in numpy, independently of the spec language."""
    A = X.reshape(-1, n, n).astype(bool)
    eye = np.eye(n, dtype=bool)
    refl = A[:, eye].all(axis=1)
    irrefl = ~A[:, eye].any(axis=1)
    sym = (A == A.transpose(0, 2, 1)).all(axis=(1, 2))
    anti = ~((A & A.transpose(0, 2, 1)) & ~eye).any(axis=(1, 2))
    path = np.einsum("bij,bjk->bik", A.astype(int), A.astype(int)) > 0
    trans = ~(path & ~A).any(axis=(1, 2))
    connex = (A | A.transpose(0, 2, 1)).all(axis=(1, 2))
    table = {"Reflexive": refl, "Irreflexive": irrefl, "Symmetric": sym, "Antisymmetric": anti,
             "Transitive": trans, "Connex": connex, "Equivalence": refl & sym & trans,
             "PreOrder": refl & trans, "NonStrictOrder": refl & anti & trans,
             "PartialOrder": anti & trans, "StrictOrder": irrefl & trans,
             "TotalOrder": anti & trans & connex}
    return table[name]


def _confusion(pred, truth):
    return {"tp": int(np.sum(pred & truth)), "fp": int(np.sum(pred & ~truth)),
            "tn": int(np.sum(~pred & ~truth)), "fn": int(np.sum(~pred & truth))}


def _train_set(name, seed, n=600):
    rng = np.random.default_rng(seed)
    truth = _truth(name, ALL)
    pos = np.flatnonzero(truth)
    neg = np.flatnonzero(~truth)
    idx = np.concatenate([rng.choice(pos, min(len(pos), n // 2), replace=False),
                          rng.choice(neg, n // 2, replace=False)])
    return ALL[idx], truth[idx].astype(int)


@pytest.mark.parametrize("name", PROPERTIES)
def test_tree_counts_equal_enumeration_with_sklearn_predict(name):
    X, y = _train_set(name, PROPERTIES.index(name))
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    r = count.count(models.from_sklearn(est), GRAPH4, name, samples=[100, 1000], seed=1)
    expected = _confusion(est.predict(ALL) == 1, _truth(name, ALL))
    got = {k: r["labels"][1][k] for k in ("tp", "fp", "tn", "fn")}
    assert got == expected
    assert r["method"] == "structural" and r["domain_size"] == 65536
    e = expected
    assert r["labels"][1]["accuracy"] == pytest.approx((e["tp"] + e["tn"]) / 65536, rel=1e-15)
    if e["tp"] + e["fp"]:
        assert r["labels"][1]["precision"] == pytest.approx(e["tp"] / (e["tp"] + e["fp"]),
                                                            rel=1e-15)
    assert [s["n"] for s in r["samples"]] == [100, 1000]
    # The same counts by enumeration.
    r2 = count.count(models.from_sklearn(est), GRAPH4, name, method="enumerate")
    strip = lambda labels: [{k: v for k, v in l.items() if k != "guarantee"} for l in labels]
    assert strip(r2["labels"]) == strip(r["labels"])
    assert all(l["guarantee"]["method"] == "enumerate" and l["guarantee"]["exact"]
               for l in r2["labels"])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("kind", ["forest", "boosted", "mlp"])
def test_ensembles_and_networks_count_exactly(kind):
    X, y = _train_set("Transitive", 3)
    if kind == "forest":
        est = RandomForestClassifier(n_estimators=5, max_depth=6, random_state=0).fit(X, y)
    elif kind == "boosted":
        est = GradientBoostingClassifier(n_estimators=8, max_depth=3, random_state=0).fit(X, y)
    else:
        est = MLPClassifier(hidden_layer_sizes=(10,), max_iter=50, random_state=0).fit(X, y)
    m = models.from_sklearn(est)
    r = count.count(m, GRAPH4, "Transitive")
    expected = _confusion(est.predict(ALL) == 1, _truth("Transitive", ALL))
    assert {k: r["labels"][1][k] for k in ("tp", "fp", "tn", "fn")} == expected
    assert r["method"] == ("enumerate" if kind == "mlp" else "structural")


def test_test_set_view_and_safety():
    X, y = _train_set("PreOrder", 4)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    spec = open(GRAPH4).read() + "safety SelfLoops = Reflexive => label == 1;\n"
    r = count.count(est, spec, X_test=X, y_test=y)
    assert r["labels"] == []  # no truth declared: only the safety property
    pred = est.predict(ALL) == 1
    refl = _truth("Reflexive", ALL)
    s = r["safety"][0]
    assert (s["satisfied"], s["violated"]) == (int(np.sum(refl & pred)), int(np.sum(refl & ~pred)))
    view = r["samples"][0]
    assert view["source"] == "test set" and view["n"] == len(y)
    # With --property, the test set is scored against y_test.
    r = count.count(est, spec, "PreOrder", X_test=X, y_test=y)
    acc = r["samples"][0]["accuracy"]
    assert acc["k"] == int(np.sum(est.predict(X) == y)) and acc["n"] == len(y)
    assert acc["clopper_pearson"][0] <= acc["value"] <= acc["clopper_pearson"][1]


def test_robustness_of_a_digits_tree_equals_enumeration():
    from sklearn.datasets import load_digits
    digits = load_digits()
    est = DecisionTreeClassifier(random_state=0, max_depth=8).fit(digits.data, digits.target)
    x = digits.data[5].copy()
    # Fix all but 5 pixels so the region can be enumerated: lower == upper == x elsewhere.
    free = [10, 20, 21, 36, 43]
    lower = x.copy()
    upper = x.copy()
    lower[free] = 0
    upper[free] = 16
    label = int(digits.target[5])
    r = count.robustness(est, x, 2, label, lower, upper, samples=[100, 1000], seed=2)
    grids = [np.arange(max(0, x[i] - 2), min(16, x[i] + 2) + 1) for i in free]
    points = np.array(list(itertools.product(*grids)))
    X = np.tile(x, (len(points), 1))
    X[:, free] = points
    assert r["total"] == len(points)
    assert r["count"] == int(np.sum(est.predict(X) == label))
    assert r["robustness"] == pytest.approx(r["count"] / r["total"], rel=1e-15)
    assert [s["n"] for s in r["samples"]] == [100, 1000]
    # Whole image, epsilon = 1: a count far beyond enumeration, still exact.
    big = count.robustness(est, x, 1, label, 0, 16)
    n_interior = int(np.sum((x > 0) & (x < 16)))
    assert big["total"] == 3 ** n_interior * 2 ** (64 - n_interior)


def test_cli_count_json_and_model_info(tmp_path):
    build = os.path.dirname(os.path.dirname(os.path.dirname(assay.__file__)))
    exe = os.path.join(build, "assay")
    if not os.path.exists(exe):
        pytest.skip("assay CLI not built")
    X, y = _train_set("Connex", 5)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    path = tmp_path / "tree.json"
    models.save(models.from_sklearn(est), path)
    out = subprocess.run([exe, "count", "--model", str(path), "--spec", GRAPH4, "--property",
                          "Connex", "--samples", "100,1000", "--seed", "3", "--json", "--html",
                          str(tmp_path / "c.html")], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    expected = _confusion(est.predict(ALL) == 1, _truth("Connex", ALL))
    assert {k: int(doc["labels"][1][k]) for k in expected} == expected
    assert isinstance(doc["labels"][1]["tp"], str)
    assert (tmp_path / "c.html").stat().st_size > 100000
    if os.path.exists("/usr/bin/chromium"):
        with tempfile.TemporaryDirectory() as profile:
            dom = subprocess.run(
                ["/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                 "--no-first-run", "--disable-background-networking", "--disable-sync",
                 f"--user-data-dir={profile}", "--virtual-time-budget=20000", "--dump-dom",
                 (tmp_path / "c.html").as_uri()], capture_output=True, text=True, timeout=60)
        assert 'data-assay-render="ok:1"' in dom.stdout
    text = subprocess.run([exe, "count", "--model", str(path), "--spec", GRAPH4, "--property",
                           "Connex", "--samples", "100"], capture_output=True, text=True,
                          check=True).stdout
    assert "Stat / exact" in text and str(expected["tp"]) in text
    csv = tmp_path / "test.csv"
    csv.write_text("".join([",".join(f"x{i}" for i in range(16)) + ",y\n"] +
                           [",".join(map(str, r.astype(int))) + f",{c}\n" for r, c in zip(X, y)]))
    doc = json.loads(subprocess.run(
        [exe, "count", "--model", str(path), "--spec", GRAPH4, "--property", "Connex", "--test",
         str(csv), "--label", "y", "--json"], capture_output=True, text=True, check=True).stdout)
    view = doc["samples"][0]
    assert view["source"] == "test set" and view["n"] == len(y)
    assert view["accuracy"]["k"] == int(np.sum(est.predict(X) == y))
    csv.write_text("x0,y\n1,0\n")
    bad = subprocess.run([exe, "count", "--model", str(path), "--spec", GRAPH4, "--property",
                          "Connex", "--test", str(csv), "--label", "y"], capture_output=True,
                         text=True)
    assert bad.returncode == 2
    assert bad.stderr == (f'assay: {csv}: 1 feature columns (all but "y"), the model has 16 '
                          'features\n')
    bad = subprocess.run([exe, "count", "--model", str(path), "--spec", GRAPH4, "--label", "y"],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr == "assay: --label y needs --test T.csv\n"
    info = subprocess.run([exe, "model", "info", str(path), "--json"], capture_output=True,
                          text=True, check=True).stdout
    assert json.loads(info)["n_nodes"] == est.tree_.node_count
    bad = subprocess.run([exe, "count", "--model", str(path), "--spec", GRAPH4, "--property",
                          "Nope"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert 'defines no predicate, safety property or region named "Nope"' in bad.stderr


def test_bad_input():
    X, y = _train_set("Reflexive", 6)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(assay.AssayError, match=r"^the model has 16 features but <spec> declares 9 "
                                               r"inputs$"):
        count.count(est, "input x[9] : bool;\ntruth 1 = x[0];\n")
    with pytest.raises(assay.AssayError, match=r'^<spec>:2:19: unknown identifier "y"$'):
        count.count(est, "input x[16] : bool;\ntruth 1 = x[0] or y;\n")
    with pytest.raises(assay.AssayError, match=r'^cannot open spec file "nope/g.spec"$'):
        count.count(est, "nope/g.spec")
    with pytest.raises(assay.AssayError, match=r"^x has 3 values, the model has 16 features$"):
        count.robustness(est, [0, 1, 0], 1, 1, 0, 1)
    with pytest.raises(assay.AssayError, match=r"^give both X_test and y_test, or neither$"):
        count.count(est, GRAPH4, "Reflexive", X_test=ALL[:3])
    with pytest.raises(assay.AssayError, match=r"^sample sizes must be >= 1, found 0$"):
        count.count(est, GRAPH4, "Reflexive", samples=[100, 0])
    with pytest.raises(assay.AssayError, match=r"^test label 2 at row 1 is out of range \[0, 2\)$"):
        count.count(est, GRAPH4, "Reflexive", X_test=ALL[:2], y_test=[0, 2])


def test_hostile_specs_and_arguments(tmp_path):
    # Deep nesting is a located error (it used to overflow the stack and take Python down).
    with pytest.raises(assay.AssayError, match=r"^<spec>:2:1010: expected expressions nested at "
                                               r"most 1000 levels deep, found deeper nesting$"):
        count.parse_spec("input x[2] : bool;\npred P = " + "(" * 8000 + "x[0]" + ")" * 8000 + ";")
    chain = count.parse_spec("input x[2] : bool;\npred P = " + " or ".join(["x[0]"] * 25000) + ";")
    assert count.spec_inputs(chain) == ["x[0]", "x[1]"]
    assert count.spec_inputs(count.parse_spec("\ufeffinput t : bool;")) == ["t"]
    with pytest.raises(assay.AssayError, match=r"^<spec>:1:9: expected at most 1000000 scalar "
                                               r"inputs in all, found an array of 2147483648"):
        count.parse_spec("input x[2147483648] : bool;")
    with pytest.raises(assay.AssayError, match=r"is a folder, expected a spec file$"):
        count.load_spec(tmp_path)
    with pytest.raises(assay.AssayError, match=r"is a folder, expected a model file$"):
        models.load(tmp_path)
    # Negative counts and seeds are refused by name, not wrapped around to 2^64 - k.
    X, y = _train_set("Reflexive", 6)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^samples must be >= 0, found -5$"):
        count.count(est, GRAPH4, "Reflexive", samples=[-5])
    with pytest.raises(ValueError, match=r"^seed must be >= 0, found -1$"):
        count.count(est, GRAPH4, "Reflexive", samples=[10], seed=-1)
    with pytest.raises(ValueError, match=r"^seed must be at most 18446744073709551615, found "
                                         r"18446744073709551616$"):
        count.count(est, GRAPH4, "Reflexive", samples=[10], seed=2**64)
    with pytest.raises(ValueError, match=r"^seed must be >= 0, found -1$"):
        count.count_cnf([[1, 2]], method="approx", seed=-1)
    with pytest.raises(ValueError, match=r"^literal 2000000000 is out of range \(at most 10000000 "
                                         r"variables\)$"):
        count.count_cnf([[1, 2000000000]])
    with pytest.raises(ValueError, match=r"^samples must be >= 0, found -2$"):
        count.robustness(est, ALL[0], 1, 1, 0, 1, samples=[-2])
    assert count.count(est, GRAPH4, "Reflexive", samples=[10], seed=2**64 - 1)["domain_size"] \
        == 65536
    # Damaged model documents name the field and the value.
    doc = models.from_sklearn(est).doc
    for field, value, message in [
            ("n_features", -1, r"n_features: expected an integer in \[0, 2147483647\], found -1"),
            ("classes", [0, 0], r'classes: "0" is listed twice \(classes\[0\] and classes\[1\]\)')]:
        bad = tmp_path / "m.json"
        bad.write_text(json.dumps(dict(doc, **{field: value})))
        with pytest.raises(assay.AssayError, match="^" + re.escape(str(bad)) + ": " + message + "$"):
            models.load(bad)


def test_xgboost_counts_equal_enumeration_with_xgboost_predict(tmp_path):
    xgboost = pytest.importorskip("xgboost")
    X, y = _train_set("PartialOrder", 7)
    booster = xgboost.train({"objective": "binary:logistic", "max_depth": 4, "eta": 0.3,
                             "seed": 0}, xgboost.DMatrix(X, label=y), num_boost_round=15)
    path = tmp_path / "xgb.json"
    booster.save_model(str(path))
    r = count.count(str(path), GRAPH4, "PartialOrder")
    pred = booster.predict(xgboost.DMatrix(ALL)) > 0.5
    expected = _confusion(pred, _truth("PartialOrder", ALL))
    assert {k: r["labels"][1][k] for k in ("tp", "fp", "tn", "fn")} == expected
    assert r["method"] == "structural"
