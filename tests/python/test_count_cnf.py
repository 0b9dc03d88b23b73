"""assay.count's CNF route (QuantifyML's): encoding models and properties as CNF, the exact and
approximate projected counters, DIMACS interop. Exact CNF counts must equal the structural and
enumeration counts on every model kind (trees, forests, boosted ensembles, networks) on the
4- and 5-node graph benchmarks; a file written by `assay encode` (a tree, a network) must count
the same through `assay count --cnf`; random k-CNFs must count as brute force does."""
import itertools
import json
import os
import sys

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

import assay.count as count
import assay.models as models

from test_count import ALL, GRAPH4, PROPERTIES, ROOT, _train_set, _truth

GRAPH5 = os.path.join(ROOT, "examples", "count", "graph5.spec")
CELLS = ("tp", "fp", "tn", "fn")


def _cells(r):
    return [{k: lab[k] for k in CELLS} for lab in r["labels"]]


def _fit(kind, name, seed):
    X, y = _train_set(name, seed)
    if kind == "tree":
        return DecisionTreeClassifier(random_state=0).fit(X, y)
    if kind == "forest":
        return RandomForestClassifier(n_estimators=5, max_depth=5, random_state=0).fit(X, y)
    if kind == "boosted":
        return GradientBoostingClassifier(n_estimators=6, max_depth=3, random_state=0).fit(X, y)
    return MLPClassifier(hidden_layer_sizes=(8,), max_iter=60, random_state=0).fit(X, y)


# Every model kind, networks included (the MLP with 8 hidden ReLUs that _fit makes), on every
# 4-node property. A network's CNF is a bit-blasted circuit of ~4,000 gates on 16 inputs: the
# exact counter's circuit route evaluates it on all 2^16 inputs, 64 at a time, in milliseconds
# (the search took ~10 s per formula, 20-130 s per property).
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("kind", ["tree", "forest", "boosted", "network"])
@pytest.mark.parametrize("name", PROPERTIES)
def test_exact_cnf_equals_enumeration_on_4_node_graphs(kind, name):
    m = models.from_sklearn(_fit(kind, name, PROPERTIES.index(name)))
    want = count.count(m, GRAPH4, name, method="enumerate")
    got = count.count(m, GRAPH4, name, method="exact-cnf")
    assert _cells(got) == _cells(want)
    assert got["method"] == "exact-cnf"
    for lab in got["labels"]:
        assert lab["guarantee"]["exact"] and lab["guarantee"]["method"] == "exact-cnf"


# All 12 properties on 5-node graphs (25 inputs): every formula goes through the circuit route
# (2^19 words of 64 inputs each; the forests took 15-32 s per property by the search, now 1-8 s
# with the structural count beside it). An MLP on 5-node graphs takes ~40 s per property (and
# enumeration 9-32 s), so networks stay on 4 nodes here.
@pytest.mark.parametrize("kind", ["tree", "forest", "boosted"])
@pytest.mark.parametrize("name", PROPERTIES)
def test_exact_cnf_equals_structural_on_5_node_graphs(kind, name):
    # The data of the learnability experiment (docs/count_graphs.md): positives of every property.
    sys.path.insert(0, os.path.join(ROOT, "examples", "count"))
    import graph_learnability
    X, y = graph_learnability.dataset(name, 5, np.random.default_rng(5), size=1500)
    est = {"tree": DecisionTreeClassifier(max_depth=8, random_state=0),
           "forest": RandomForestClassifier(n_estimators=4, max_depth=5, random_state=0),
           "boosted": GradientBoostingClassifier(n_estimators=4, max_depth=3, random_state=0)}[kind]
    m = models.from_sklearn(est.fit(X, y))
    want = count.count(m, GRAPH5, name)
    got = count.count(m, GRAPH5, name, method="exact-cnf")
    assert _cells(got) == _cells(want)
    assert want["labels"][1]["tp"] + want["labels"][1]["fp"] < 2**25


def test_encode_round_trip_through_the_cli(run_cli, tmp_path):
    est = _fit("tree", "Transitive", 2)
    mfile = tmp_path / "tree.json"
    models.save(models.from_sklearn(est), mfile)
    want = count.count(str(mfile), GRAPH4, "Transitive")["labels"][1]
    for query in CELLS:
        out = tmp_path / f"{query}.cnf"
        p = run_cli("encode", "--model", mfile, "--spec", GRAPH4, "--property", "Transitive",
                    "--query", query, "--out", out, "--json")
        assert p.returncode == 0, p.stderr
        summary = json.loads(p.stdout)
        assert summary["exact"] and summary["projected"] == 16
        assert summary["query"] == f'{query} of label 1 (class "1")'
        p = run_cli("count", "--cnf", out, "--method", "exact-cnf", "--json")
        assert p.returncode == 0, p.stderr
        r = json.loads(p.stdout)
        assert int(r["count"]) == want[query], query
        assert r["guarantee"] == {"method": "exact-cnf", "exact": True, "bounded": False}
        assert count.count_cnf(out)["count"] == want[query]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_encode_round_trip_through_the_cli_for_a_network(run_cli, tmp_path):
    # A file holds the fixed-point circuit's label, which is the model's outside the ambiguity
    # band (the summary says exact: false). At 20-bit weights and activations this network's
    # circuit agrees with the model on all 2^16 inputs (at the default 12 bits, not on a few),
    # so each file counts what `assay count` counts on the model. The circuit route counts each
    # of these 8,000-variable files in milliseconds.
    mfile = tmp_path / "net.json"
    models.save(models.from_sklearn(_fit("network", "Transitive", 2)), mfile)
    p = run_cli("count", "--model", mfile, "--spec", GRAPH4, "--property", "Transitive", "--json")
    assert p.returncode == 0, p.stderr
    want = json.loads(p.stdout)["labels"][1]
    for query in CELLS:
        out = tmp_path / f"{query}.cnf"
        p = run_cli("encode", "--model", mfile, "--spec", GRAPH4, "--property", "Transitive",
                    "--query", query, "--weight-bits", "20", "--activation-bits", "20",
                    "--out", out, "--json")
        assert p.returncode == 0, p.stderr
        summary = json.loads(p.stdout)
        assert not summary["exact"] and summary["projected"] == 16
        p = run_cli("count", "--cnf", out, "--method", "exact-cnf", "--json")
        assert p.returncode == 0, p.stderr
        r = json.loads(p.stdout)
        assert r["guarantee"] == {"method": "exact-cnf", "exact": True, "bounded": False}
        assert int(r["count"]) == int(want[query]), query


def test_encode_sizes_are_small(tmp_path):
    # One variable per input bit, split tests on grid indices, hashed gates (docs/count.md).
    est = _fit("tree", "Transitive", 2)
    e = count.encode(est, GRAPH4, "Transitive", query="tp")
    assert e["projected"] == 16
    assert e["variables"] < 400 and e["clauses"] < 1200, (e["variables"], e["clauses"])
    assert e["dimacs"].startswith("c written by assay encode\n")


def _brute_force(n_vars, clauses, projection):
    models = set()
    for bits in itertools.product([False, True], repeat=n_vars):
        if all(any(bits[abs(l) - 1] == (l > 0) for l in c) for c in clauses):
            models.add(tuple(bits[v - 1] for v in projection))
    return len(models)


def test_random_k_cnf_with_projections_equal_brute_force():
    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(6, 15))
        k = int(rng.integers(2, 5))
        m = int(rng.integers(n, 4 * n))
        clauses = []
        for _ in range(m):
            vs = rng.choice(np.arange(1, n + 1), size=min(k, n), replace=False)
            clauses.append([int(v) if rng.random() < 0.5 else -int(v) for v in vs])
        projection = sorted(rng.choice(np.arange(1, n + 1), size=int(rng.integers(1, n + 1)),
                                       replace=False).tolist())
        want = _brute_force(n, clauses, projection)
        got = count.count_cnf(clauses, projection, method="exact-cnf")
        assert got["count"] == want, (trial, clauses, projection)


def test_approx_guarantee_is_stated():
    # x1 xor x2, and x3..x30 free (the clause [1, 2, 30] only names the last variable): 2^29.
    clauses = [[1, 2], [-1, -2], [1, 2, 30]]
    r = count.count_cnf(clauses, list(range(1, 31)), method="approx", seed=3)
    g = r["guarantee"]
    assert g["method"] == "approx" and not g["exact"]
    assert g["epsilon"] == 0.8 and g["delta"] == 0.2 and g["seed"] == 3
    assert 2**29 / 1.8 <= r["count"] <= 2**29 * 1.8
    small = count.count_cnf([[1, 2], [-1, -2]], method="approx")
    assert small["count"] == 2 and small["guarantee"]["exact"]


@pytest.mark.parametrize("text,message", [
    ("", "empty file: expected a \"p cnf <variables> <clauses>\" header"),
    ("p cnf 2 1\n1 3 0\n", ":2:3: variable 3 out of range [1, 2] (the header declares 2 variables)"),
    ("p cnf 2 2\n1 0\n", ":1:1: the header declares 2 clauses, found 1"),
    ("p cnf 2 1\n1 2\n", ":2:3: expected 0 at the end of the clause, found end of file"),
    ("p cnf 2 1\n1 x 0\n", ":2:3: expected a literal (an integer), found \"x\""),
    ("p cnf 2 1\n1 0\nc ind 1 1 0\n", ":3:9: projected variable 1 is listed twice"),
])
def test_malformed_dimacs_is_a_located_error(run_cli, tmp_path, text, message):
    f = tmp_path / "bad.cnf"
    f.write_text(text)
    p = run_cli("count", "--cnf", f)
    assert p.returncode == 2
    assert p.stderr.startswith("assay: ") and message in p.stderr, p.stderr


def test_unsatisfiable_formula_counts_zero(run_cli, tmp_path):
    f = tmp_path / "unsat.cnf"
    f.write_text("p cnf 1 2\n1 0\n-1 0\n")
    p = run_cli("count", "--cnf", f, "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["count"] == "0"


def test_projection_side_file(run_cli, tmp_path):
    f = tmp_path / "f.cnf"
    f.write_text("p cnf 3 1\n1 2 3 0\n")
    proj = tmp_path / "proj.txt"
    proj.write_text("1,2\n")
    p = run_cli("count", "--cnf", f, "--projection", proj, "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["count"] == "4"  # every (x1, x2) extends (x3 = 1)
    proj.write_text("1,4\n")
    p = run_cli("count", "--cnf", f, "--projection", proj)
    assert p.returncode == 2 and "proj.txt:1:3: projected variable 4 out of range [1, 3]" in p.stderr


def test_unsupported_parts_are_named(run_cli, tmp_path):
    est = _fit("tree", "Transitive", 2)
    spec = open(GRAPH4).read() + "truth 1 = score[1] > 0.5;\n"
    with pytest.raises(ValueError, match=r"score\[1\] is not supported by the CNF encoder"):
        count.encode(est, spec, query="tp")
    mfile = tmp_path / "tree.json"
    models.save(models.from_sklearn(est), mfile)
    p = run_cli("encode", "--model", mfile, "--spec", GRAPH4, "--property", "Transitive",
                "--query", "nope", "--out", tmp_path / "x.cnf")
    assert p.returncode == 2 and "query must be one of tp, fp, tn" in p.stderr
    assert not (tmp_path / "x.cnf").exists()
