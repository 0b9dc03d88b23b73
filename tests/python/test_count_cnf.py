"""assay.count's CNF route (QuantifyML's): encoding models and properties as CNF, the exact and
approximate projected counters, DIMACS interop. Exact CNF counts must equal the structural and
enumeration counts on every model kind (trees, forests, boosted ensembles, networks) on the
4- and 5-node graph benchmarks; a file written by `assay encode` (a tree, a network) must count
the same through `assay count --cnf`; random k-CNFs must count as brute force does."""
import itertools
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier

import assay
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


# ---- issue 38 ("Trust"): DIMACS as tools write it, bombs, bounds, time limits


def _dimacs_count(run_cli, path, *args):
    p = run_cli("count", "--cnf", path, "--json", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


# What `cbmc --dimacs` writes, with QuantifyML's projection in front of the header: comment lines
# naming program variables by their literals (constants as TRUE/FALSE), "c ind" lines before
# "p cnf", a list split over lines, Windows line ends, no final newline.
CBMC_STYLE = (
    "c QuantifyML: tree_tp.c, inputs x[0..3]\r\n"
    "c ind 1 2 0\r\n"
    "c ind 3\r\n"
    "c ind 4 0\r\n"
    "p  cnf\t7   5 \r\n"
    "-5 1 0\r\n-5 2 0\r\n5 -1 -2 0\r\n"
    "6 -5 3 0\r\n"
    "6 0\r\n"
    "c main::1::x!0@1#2 1 2 3 4\r\n"
    "c main::1::tmp!0@1#3 5 6 FALSE TRUE\r\n"
    "c __CPROVER_rounding_mode!0#1 FALSE FALSE 7")
CBMC_CLAUSES = [[-5, 1], [-5, 2], [5, -1, -2], [6, -5, 3], [6]]


def test_a_cbmc_style_file_counts_as_brute_force(run_cli, tmp_path):
    f = tmp_path / "tree_tp.cnf"
    f.write_bytes(CBMC_STYLE.encode())
    got = _dimacs_count(run_cli, f)
    assert got["projected"] == 4 and got["variables"] == 7
    assert int(got["count"]) == _brute_force(7, CBMC_CLAUSES, [1, 2, 3, 4]) == 16
    assert count.count_cnf(f)["count"] == 16


@pytest.mark.parametrize("text,want", [
    ("p cnf 2 1\n1 2 0\n%\n0\n\n", 3),                               # SATLIB's ending
    ("c t pmc\np cnf 3 1\n1 2 0\nc p show 1 3 0\n", 4),              # MCC 2021+
    ("c t mc\np cnf 2 1\n1 -2 0", 3),                                # no final newline
    ("p pcnf 3 1 2\nvp 3 1 0\n1 2 0\n", 4),                          # MCC 2020 projected
    ("p cnf 3 2\n1 0\nx1 2 3 0\n", 2),                               # CryptoMiniSat XOR
    ("c p show 1 2 0\np cnf 3 1\n-1 -2 0\n", 3),                     # GANAK's line first
])
def test_dimacs_as_real_tools_write_it(run_cli, tmp_path, text, want):
    f = tmp_path / "f.cnf"
    f.write_text(text)
    assert _dimacs_count(run_cli, f)["count"] == str(want)


@pytest.mark.parametrize("text,message", [
    ("p cnf 2 1\n1 2 0\nc p weight 1 0.3 0\n",
     "f.cnf:3:1: weighted model counting (\"c p weight\" lines) is not supported: assay counts "
     "models, each of weight 1; remove the weights to count the models"),
    ("c t wmc\np cnf 2 1\n1 2 0\n", "f.cnf:1:5: weighted model counting (\"c t wmc\")"),
    ("p wcnf 2 1 10\n10 1 2 0\n", "f.cnf:1:1: expected \"p cnf <variables> <clauses>\", found "
     "\"p wcnf 2 1 10\": a weighted formula"),
    ("p cnf 2 1\nw 1 0.3\n1 2 0\n", "f.cnf:2:1: weighted model counting (Cachet's"),
    ("c p weight -1 0.7 0\np cnf 2 1\n1 2 0\n",                  # before the header
     "f.cnf:1:1: weighted model counting (\"c p weight\" lines)"),
    ("p cnf 2 1\nc\tp\tweight 2 0.5 0\n1 2 0\n",                 # tabs
     "f.cnf:2:1: weighted model counting (\"c p weight\" lines)"),
    ("c t pwmc\np cnf 2 1\n1 2 0\n", "f.cnf:1:5: weighted model counting (\"c t pwmc\")"),
    ("c weights 0.3 0.7 0.5 0.5\np cnf 2 1\n1 2 0\n",
     "f.cnf:1:1: weighted model counting (miniC2D's \"c weights\" line)"),
    ("p cnf 2 2\ne 1 0\n1 2 0\n", "f.cnf:2:1: a quantifier line (QDIMACS \"e\")"),
    ("c t pmc\np cnf 2 1\n1 2 0\n", "f.cnf:1:1: \"c t pmc\" declares a projected count, but"),
])
def test_other_problems_are_refused_where_they_are_declared(run_cli, tmp_path, text, message):
    f = tmp_path / "f.cnf"
    f.write_text(text)
    p = run_cli("count", "--cnf", f)
    assert p.returncode == 2 and message in p.stderr, p.stderr
    with pytest.raises(ValueError, match=re.escape(message.split(": ", 1)[1][:40])):
        count.count_cnf(f)


def _members(*parts):
    # A gzip file of several members (zlib reads them as one stream): each part is (bytes,
    # repeats), compressed once, so a file that inflates to gigabytes is made in milliseconds.
    import gzip
    out = b""
    for data, repeats in parts:
        out += gzip.compress(data) * repeats
    return out


def _limited(megabytes):
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))
    return limit


def _run_limited(path, megabytes, *args):
    return subprocess.run([os.environ.get("ASSAY_CLI") or os.path.join(ROOT, "build", "assay"),
                           "count", "--cnf", str(path), *args], capture_output=True, text=True,
                          timeout=120, preexec_fn=_limited(megabytes))


# 500 MB of comment in a 0.5 MB .gz, read with 350 MB of address space: the whole file was held
# in memory before (bad_alloc); now it streams. A clause repeating one literal without end is
# refused at its start, before it costs minutes.
def test_gzip_bombs_cost_no_memory(tmp_path):
    bomb = tmp_path / "comment.cnf.gz"
    bomb.write_bytes(_members((b"p cnf 2 1\nc ", 1), (b"a" * (1 << 20), 500), (b"\n1 2 0\n", 1)))
    assert bomb.stat().st_size < 1 << 20
    p = _run_limited(bomb, 350, "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["count"] == "3"
    storm = tmp_path / "storm.cnf.gz"
    storm.write_bytes(_members((b"p cnf 1 1\n", 1), (b"1 " * (1 << 19), 64), (b"0\n", 1)))
    p = _run_limited(storm, 350)
    assert p.returncode == 2
    assert ("storm.cnf.gz:2:1: the clause begun here has more than 1048580 literals over 1 "
            "variables: it repeats literals without end") in p.stderr, p.stderr


# 60 M one-literal clauses (240 MB of text, 480 MB of clause tables) with 400 MB of address
# space: refused, where it happens, before the allocation that would fail.
def test_clause_tables_are_checked_before_they_grow(tmp_path):
    f = tmp_path / "many.cnf.gz"
    f.write_bytes(_members((b"p cnf 1 62914560\n", 1), (b"1 0\n" * (1 << 18), 240)))
    p = _run_limited(f, 400)
    assert p.returncode == 2, p.stderr
    assert re.search(r"many\.cnf\.gz:\d+:1: needs \d+ MB for the (clauses|clause table) "
                     r"\(\d+ (literals|clauses) read so far\), more than the \d+ MB this "
                     r"process can allocate", p.stderr), p.stderr


# One clause of 10^6 literals: the exact counter branched on it level by level, copying the
# shrinking component each time (bad_alloc after minutes); now 2^1000000 - 1 in about a second.
# The approximate counter honours --time-limit on it (each SAT call took ~20 min inside
# CryptoMiniSat) and reports what it certified.
def test_one_clause_of_a_million_literals(run_cli, tmp_path):
    n = 1000000
    f = tmp_path / "long.cnf"
    f.write_text(f"p cnf {n} 1\n" + " ".join(map(str, range(1, n + 1))) + " 0\n")
    got = count.count_cnf(f, method="exact-cnf")
    assert got["count"] == 2 ** n - 1 and got["guarantee"]["exact"]
    assert got["seconds"] < 20
    p = run_cli("count", "--cnf", f, "--method", "approx", "--time-limit", "2", "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    g = r["guarantee"]
    assert g["bounded"] and not g["exact"] and g["method"] == "approx"
    assert g["note"].startswith("the time limit stopped the approximate counter before its "
                                "estimate; the bounds are certified: ")
    assert count._int(r["bounds"][1]) == 2 ** n and 1 <= int(r["bounds"][0]) <= 73
    assert r["seconds"] < 15


# A time limit so short that every count stops: each cell's bounds lie in [0, |D|] and contain
# the true cell (exact-cnf's TP read [0, 131072] with |D| = 65536 before; a stopped approx count
# was an error, now it gives its certified bounds too).
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("kind,method", [("tree", "exact-cnf"), ("boosted", "exact-cnf"),
                                         ("network", "approx")])
def test_label_bounds_lie_in_the_domain_and_contain_the_truth(kind, method):
    m = models.from_sklearn(_fit(kind, "Transitive", 1))
    want = count.count(m, GRAPH4, "Transitive", method="enumerate")
    with pytest.warns(assay.AssayWarning, match="some counts are only bounds"):
        got = count.count(m, GRAPH4, "Transitive", method=method, time_limit=1e-6)
    size = got["domain_size"]
    assert size == 65536
    for lab, truth in zip(got["labels"], want["labels"]):
        assert lab["guarantee"]["bounded"]
        for cell in CELLS:
            lo, hi = lab["bounds"][cell]
            assert 0 <= lo <= truth[cell] <= hi <= size, (kind, cell, lo, hi)
        assert sum(lab["bounds"][c][0] for c in CELLS) <= size
        assert sum(lab["bounds"][c][1] for c in CELLS) >= size
