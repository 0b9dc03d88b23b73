"""assay count under hostile or huge requests (issue 38, "Trust"): limits refused up front with
the limit named, runs that end in bounded memory and time, Ctrl-C that stops cleanly (CLI: the
partial report and exit status 130; Python: KeyboardInterrupt), and inputs that used to pass
silently. Long runs are bounded by timeouts and, where memory is the point, by RLIMIT_AS."""
import json
import os
import pickle
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier

import assay
import assay.count as count
import assay.models as models

ROOT = Path(__file__).resolve().parents[2]
GRAPH4 = ROOT / "examples" / "count" / "graph4.spec"
CLI = os.environ.get("ASSAY_CLI", str(ROOT / "build" / "assay"))
ACASXU = Path(os.environ.get("ASSAY_ACASXU_DATA", ROOT / ".." / "shared" / "data" / "acasxu"))

# A property whose unsafe set (Y_0 <= Y_1) cuts through the box: splitting never finishes.
BOUNDARY_VNNLIB = """(declare-const X_0 Real) (declare-const X_1 Real)
(declare-const Y_0 Real) (declare-const Y_1 Real)
(assert (>= X_0 -1)) (assert (<= X_0 1)) (assert (>= X_1 -1)) (assert (<= X_1 1))
(assert (<= Y_0 Y_1))
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), *sys.path]))
    return env


def _tree_model(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (400, 16)).astype(float)
    y = (X[:, 0] + X[:, 5] > X[:, 10]).astype(int)
    path = tmp_path / "tree.json"
    models.save(models.from_sklearn(DecisionTreeClassifier(max_depth=6, random_state=0)
                                    .fit(X, y)), path)
    return path


def _network(tmp_path, sizes=(2, 16, 16, 2), seed=1, output="identity"):
    rng = np.random.default_rng(seed)
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append({"weights": rng.normal(size=(b, a)).tolist(),
                       "bias": rng.normal(scale=0.3, size=b).tolist(),
                       "activation": output if i == len(sizes) - 2 else "relu"})
    doc = {"format": "assay-model", "version": 1, "kind": "network", "task": "classification",
           "source": "test", "n_features": sizes[0], "n_outputs": sizes[-1],
           "classes": [str(k) for k in range(sizes[-1])], "layers": layers}
    path = tmp_path / "net.json"
    path.write_text(json.dumps(doc))
    return path


def _limit_memory(megabytes):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))
    return apply


def _cli(*args, timeout=60, memory_mb=None):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limit_memory(memory_mb) if memory_mb else None)


# --- refused up front, with the limit named ----------------------------------------------------

def test_xgboost_num_class_1e9_is_refused_before_allocating(tmp_path):
    doc = {"learner": {
        "learner_model_param": {"base_score": "5E-1", "num_class": "1000000000",
                                "num_feature": "2"},
        "objective": {"name": "multi:softprob"},
        "gradient_booster": {"name": "gbtree", "model": {"trees": [], "tree_info": []}}}}
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    expected = (f"{path}: learner.learner_model_param.num_class: expected an integer in "
                "[0, 1000000], found 1000000000")
    # 600 MB of address space: the old reader ran out of it (bad_alloc) naming 1e9 classes.
    r = _cli("model", "info", path, memory_mb=600)
    assert r.returncode == 2, r.stderr
    assert r.stderr == f"assay: {expected}\n"
    with pytest.raises(assay.AssayError, match=r"num_class: expected an integer in \[0, 1000000\]"):
        models.load(path)


def test_tree_children_other_than_minus_one_are_damage(tmp_path):
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit([[0], [1], [2], [3]],
                                                                   [0, 0, 1, 1])
    doc = models.from_sklearn(clf).doc
    leaf = doc["trees"][0]["left"].index(-1)
    bad = json.loads(json.dumps(doc))
    bad["trees"][0]["left"][0] = -5
    with pytest.raises(assay.AssayError, match=r"^m: tree 0 node 0: left child -5 out of range: "
                       r"expected -1 \(a leaf\) or a node in \(0, 3\)$"):
        models.Model(bad, where="m")
    bad = json.loads(json.dumps(doc))
    bad["trees"][0]["right"][leaf] = 2
    with pytest.raises(assay.AssayError, match=rf"^m: tree 0 node {leaf}: a leaf \(left child "
                       r"-1\) with right child 2, expected -1$"):
        models.Model(bad, where="m")


def test_time_limits_whose_nanoseconds_overflow_are_refused(tmp_path):
    tree = _tree_model(tmp_path)
    message = ("--time-limit: expected seconds in [0, 1000000000] (0 = no limit; larger values "
               "overflow the clock), found \"1e10\"")
    r = _cli("count", "--model", tree, "--spec", GRAPH4, "--property", "Reflexive",
             "--time-limit", "1e10")
    assert r.returncode == 2 and message in r.stderr, r.stderr
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 2 1\n1 2 0\n")
    r = _cli("count", "--cnf", cnf, "--time-limit", "1e10")
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert _cli("count", "--cnf", cnf, "--time-limit", "1e9").returncode == 0
    python = (r"^time_limit: expected seconds in \[0, 1000000000\] \(0 = no limit; larger values "
              r"overflow the clock\), found 10000000000$")
    with pytest.raises(assay.AssayError, match=python):
        count.count(tree, GRAPH4, "Reflexive", time_limit=1e10)
    with pytest.raises(assay.AssayError, match=python):
        count.count_cnf(cnf, time_limit=1e10)
    with pytest.raises(assay.AssayError, match=python):
        count.count_vnnlib(_network(tmp_path), BOUNDARY_VNNLIB, time_limit=1e10)


def test_test_points_outside_the_domain_are_refused(tmp_path):
    tree = _tree_model(tmp_path)
    header = ",".join(f"x{i}" for i in range(16)) + ",y\n"
    csv = tmp_path / "t.csv"
    csv.write_text(header + ",".join(["0"] * 16) + ",1\n" + ",".join(["5"] + ["0"] * 15) + ",0\n")
    r = _cli("count", "--model", tree, "--spec", GRAPH4, "--property", "Reflexive",
             "--test", csv, "--label", "y")
    assert r.returncode == 2
    assert r.stderr == ("assay: test set row 2 (index 1), feature 0 (x[0]): 5 is not a point of "
                        "its domain bool (0 or 1); the exact counts cover the domain only\n")
    X = np.zeros((2, 16))
    X[1, 3] = 0.5
    with pytest.raises(assay.AssayError, match=r"feature 3 \(x\[3\]\): 0.5 is not a point"):
        count.count(tree, GRAPH4, "Reflexive", X_test=X, y_test=[1, 0])


def test_robustness_step_too_fine_for_doubles_is_refused(tmp_path):
    m = models.load(_tree_model(tmp_path))
    with pytest.raises(assay.AssayError, match=r"^feature 0: the grid \[0, 16\] in steps of "
                       r"1e-300 has 1.6e\+301 points, more than 9e\+15$"):
        count.robustness(m, np.ones(16), 1, 1, 0, 16, step=1e-300)
    with pytest.raises(assay.AssayError, match="finer than doubles resolve near 1000000"):
        count.robustness(m, np.full(16, 1e6), 1, 1, 1e6, 1e6 + 1e-6, step=1e-12)
    r = count.robustness(m, np.ones(16), 1, 1, 0, 1, step=0.5)  # a fine step that resolves
    assert r["total"] == 3 ** 16


def test_robustness_label_must_be_a_class_index(tmp_path):
    m = models.load(_tree_model(tmp_path))
    for label in (-1, 2):
        with pytest.raises(assay.AssayError, match=rf"^label {label} is out of range \[0, 2\)$"):
            count.robustness(m, np.ones(16), 1, label, 0, 1)
    for label in (1.5, "a", True):  # 1.5 was counted as label 1, silently
        with pytest.raises(TypeError, match=r"^label: expected a class index \(an integer\), "):
            count.robustness(m, np.ones(16), 1, label, 0, 1)
    assert count.robustness(m, np.ones(16), 1, np.int64(1), 0, 1)["total"] == 2 ** 16


def test_an_empty_model_raises_not_fitted_error():
    for m in (models.Model(), models.Model.__new__(models.Model)):
        with pytest.raises(NotFittedError, match="holds no model yet"):
            m.predict(np.zeros((1, 2)))
        with pytest.raises(NotFittedError):
            m.info()
        with pytest.raises(ValueError):  # NotFittedError is a ValueError and an AttributeError
            m.n_features
        assert not hasattr(m, "classes_")
        assert repr(m) == "Model(not fitted)"
        with pytest.raises(NotFittedError):
            count.count(m, GRAPH4, "Reflexive")
        assert repr(pickle.loads(pickle.dumps(m))) == "Model(not fitted)"
    assert models.NotFittedError is NotFittedError


# --- huge samples: time limit, progress, Ctrl-C ------------------------------------------------

def test_huge_samples_stop_at_the_time_limit(tmp_path):
    tree = _tree_model(tmp_path)
    start = time.monotonic()
    r = _cli("count", "--model", tree, "--spec", GRAPH4, "--property", "Reflexive",
             "--samples", "1000000000000", "--time-limit", "1", "--json", timeout=30)
    assert time.monotonic() - start < 10
    assert r.returncode == 0, r.stderr
    view = json.loads(r.stdout)["samples"][0]
    assert view["requested"] == 10 ** 12 and view["stopped_by"] == "time limit"
    assert 0 < view["n"] < 10 ** 12
    assert view["accuracy"]["n"] == view["n"]
    assert (f"uniform sample 1 of 1 stopped after {view['n']} of 1000000000000 points (the time "
            "limit of 1 s); its estimates and intervals use the points drawn") in r.stderr
    with pytest.warns(assay.AssayWarning, match="stopped after"):
        p = count.count(tree, GRAPH4, "Reflexive", samples=[10 ** 13], time_limit=0.5)
    assert p["samples"][0]["stopped_by"] == "time limit"


def _wait_for(proc, text, timeout=30):
    """Reads proc's stderr line by line until `text` shows (the run has started)."""
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        seen += line
        if text in line:
            return seen
    raise AssertionError(f"{text!r} never appeared: {seen}")


def _interrupt(args, after, started_line=False, **popen):
    """Runs `args`, sends SIGINT `after` seconds in (after its "started" line, when it prints
    one), and returns (returncode, stdout, stderr, seconds from SIGINT to exit)."""
    proc = subprocess.Popen([*map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **popen)
    try:
        if started_line:
            assert proc.stdout.readline().strip() == "started"
        time.sleep(after)
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    return proc.returncode, out, err, time.monotonic() - start


def test_cli_ctrl_c_reports_the_samples_drawn(tmp_path):
    tree = _tree_model(tmp_path)
    rc, out, err, seconds = _interrupt(
        [CLI, "count", "--model", tree, "--spec", GRAPH4, "--property", "Reflexive",
         "--samples", "1000000000000", "--json"], after=1.0)
    assert seconds < 3
    assert rc == 130, err
    view = json.loads(out)["samples"][0]
    assert view["stopped_by"] == "interrupted" and 0 < view["n"] < 10 ** 12
    assert "stopping at the next checkpoint (press Ctrl-C again to abort)" in err
    assert "assay: interrupted: the report above holds what was counted so far" in err


PYTHON_CTRL_C = """
import sys, time, warnings
warnings.simplefilter("ignore")
import assay.count, assay.models
what = sys.argv[1]
print("started", flush=True)
t = time.monotonic()
try:
    if what == "samples":
        assay.count.count(sys.argv[2], sys.argv[3], "Reflexive", samples=[10**13])
    elif what == "enumerate":
        assay.count.count(sys.argv[2], "input a[32] : bool;\\ntruth 1 = a[0];\\n",
                          method="enumerate")
    else:
        assay.count.count_vnnlib(sys.argv[2], sys.argv[3], max_memory=1e6)
except KeyboardInterrupt:
    print("KeyboardInterrupt", round(time.monotonic() - t, 2), flush=True)
"""


@pytest.mark.parametrize("what", ["samples", "enumerate", "vnnlib"])
def test_python_ctrl_c_raises_keyboard_interrupt(tmp_path, what):
    if what == "samples":
        args = [_tree_model(tmp_path), GRAPH4]
    elif what == "enumerate":
        m = tmp_path / "const.json"
        models.save(models.from_sklearn(DecisionTreeClassifier().fit(np.zeros((2, 32)),
                                                                     [0, 1])), m)
        args = [m]
    else:
        prop = tmp_path / "p.vnnlib"
        prop.write_text(BOUNDARY_VNNLIB)
        args = [_network(tmp_path), prop]
    # SIGINT 1.5 s in: inside the C++ count, the GIL released
    rc, out, err, seconds = _interrupt([sys.executable, "-c", PYTHON_CTRL_C, what, *args],
                                       after=1.5, started_line=True, env=_env())
    assert seconds < 2, "KeyboardInterrupt took more than about a second"
    assert rc == 0, err
    assert out.startswith("KeyboardInterrupt"), (out, err)


def _pigeonhole(tmp_path, holes=11):
    """holes + 1 pigeons in `holes` holes: unsatisfiable, and exponentially hard for the exact
    counter and for CryptoMiniSat alike (a count that runs for minutes)."""
    var = lambda pigeon, hole: pigeon * holes + hole + 1  # noqa: E731
    clauses = [[var(i, j) for j in range(holes)] for i in range(holes + 1)]
    clauses += [[-var(a, j), -var(b, j)] for j in range(holes)
                for a in range(holes + 1) for b in range(a + 1, holes + 1)]
    path = tmp_path / "php.cnf"
    path.write_text(f"p cnf {(holes + 1) * holes} {len(clauses)}\n"
                    + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses))
    return path


@pytest.mark.parametrize("method", ["exact-cnf", "approx"])
def test_cli_ctrl_c_stops_a_cnf_count_with_its_certified_bounds(tmp_path, method):
    rc, out, err, seconds = _interrupt(
        [CLI, "count", "--cnf", _pigeonhole(tmp_path), "--method", method, "--json"], after=1.5)
    assert seconds < 3
    assert rc == 130, err
    r = json.loads(out)
    g = r["guarantee"]
    assert g["method"] == method and g["bounded"] and not g["exact"]
    assert "an interrupt (Ctrl-C) stopped the" in g["note"]
    assert int(r["bounds"][0]) == 0 and 0 < int(r["bounds"][1]) <= 2 ** 132
    assert "assay: interrupted: the report above holds what was counted so far" in err


def test_python_ctrl_c_stops_count_cnf(tmp_path):
    script = ("import sys, time, assay.count\nprint('started', flush=True)\n"
              "try:\n    assay.count.count_cnf(sys.argv[1], method='exact-cnf')\n"
              "except KeyboardInterrupt:\n    print('KeyboardInterrupt', flush=True)\n")
    rc, out, err, seconds = _interrupt([sys.executable, "-c", script, _pigeonhole(tmp_path)],
                                       after=1.5, started_line=True, env=_env())
    assert seconds < 2
    assert rc == 0 and out.startswith("KeyboardInterrupt"), (out, err)


# --method auto with --time-limit: the approximate fallback took 271 s on this formula after the
# exact counter's 1 s (its SAT call was unbounded); now each counter gets the limit.
def test_auto_fallback_keeps_to_the_time_limit(tmp_path):
    p = _cli("count", "--cnf", _pigeonhole(tmp_path), "--time-limit", "1", "--json", timeout=30)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    g = r["guarantee"]
    assert g["method"] == "approx" and g["bounded"] and not g["exact"]
    assert g["note"].startswith("the exact counter ran out of time; then the time limit stopped "
                                "the approximate counter before its estimate")
    assert r["bounds"] == ["0", str(2 ** 132)] and r["seconds"] < 6


# --- bounded memory without a time limit -------------------------------------------------------

def test_vnnlib_stops_at_the_memory_budget(tmp_path):
    net = _network(tmp_path)
    prop = tmp_path / "p.vnnlib"
    prop.write_text(BOUNDARY_VNNLIB)
    r = _cli("count", "--model", net, "--vnnlib", prop, "--max-memory", "0.2", "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["stopped_by"] == "memory budget" and not j["finished"]
    assert j["memory_budget"] == 200000
    assert j["unsafe"]["lower"] < j["unsafe"]["upper"]
    assert j["stop_message"].startswith("stopped when the ")
    assert "reached the memory budget of 200 kB (as asked); the interval so far is certified " \
           "(raise --max-memory / max_memory, in MB, to go on" in j["stop_message"]
    assert f"assay: warning: {j['stop_message']}" in r.stderr
    text = _cli("count", "--model", net, "--vnnlib", prop, "--max-memory", "0.2").stdout
    assert "stopped: memory budget" in text and j["stop_message"] in text
    with pytest.warns(assay.AssayWarning, match="reached the memory budget of 200 kB"):
        p = count.count_vnnlib(net, prop, max_memory=0.2)
    assert p["stopped_by"] == "memory budget"
    with pytest.raises(assay.AssayError, match=r"max_memory: expected megabytes in \(0, 1e12\]"):
        count.count_vnnlib(net, prop, max_memory=-1)
    r = _cli("count", "--model", net, "--vnnlib", prop, "--max-memory", "0")
    assert r.returncode == 2
    assert 'assay: --max-memory: expected megabytes in (0, 1e12], found "0"' in r.stderr


def test_vnnlib_without_limits_ends_in_bounded_memory(tmp_path):
    """No --time-limit, no --max-memory: the default budget (half of what the process may still
    allocate) stops the run under a 350 MB address-space limit, where the open boxes used to grow
    until bad_alloc. 50 inputs make each box about 1 kB, so the budget is reached in seconds. The
    softmax output keeps the run on input splitting (an identity output over more than 16 inputs
    goes to branch and bound over ReLU phases, which decides this property at once)."""
    net = _network(tmp_path, sizes=(50, 8, 2), output="softmax")
    prop = tmp_path / "p.vnnlib"
    prop.write_text("".join(f"(declare-const X_{i} Real)" for i in range(50)) +
                    "(declare-const Y_0 Real)(declare-const Y_1 Real)" +
                    "".join(f"(assert (>= X_{i} -1))(assert (<= X_{i} 1))" for i in range(50)) +
                    "(assert (<= Y_0 Y_1))")
    start = time.monotonic()
    r = _cli("count", "--model", net, "--vnnlib", prop, "--json", "--samples", "0",
             "--threads", "2", memory_mb=350, timeout=60)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["stopped_by"] == "memory budget", j["stop_message"]
    assert j["memory_budget"] < 175e6
    assert "(half the memory available at the start)" in j["stop_message"]
    assert time.monotonic() - start < 40


@pytest.mark.skipif(not (ACASXU / "prop_2.vnnlib").exists(),
                    reason=f"ACAS Xu data not found at {ACASXU} (set ASSAY_ACASXU_DATA)")
def test_acasxu_boundary_property_stops_at_the_memory_budget():
    r = _cli("count", "--model", ACASXU / "ACASXU_run2a_2_1_batch_2000.onnx", "--vnnlib",
             ACASXU / "prop_2.vnnlib", "--max-memory", "0.5", "--json", timeout=60)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["stopped_by"] == "memory budget" and j["decision"] == "violated"
    assert j["unsafe"]["lower"] <= j["sample"]["clopper_pearson"][1]
    assert j["unsafe"]["upper"] >= j["sample"]["clopper_pearson"][0]


def test_huge_samples_show_rate_and_eta_on_a_terminal(tmp_path):
    tree = _tree_model(tmp_path)

    def stderr_on_a_terminal(*extra):
        master, slave = os.openpty()
        try:
            r = subprocess.run([CLI, "count", "--model", tree, "--spec", GRAPH4, "--property",
                                "Reflexive", "--samples", "1000000000000", "--time-limit", "2.5",
                                "--json", *extra], stdout=subprocess.PIPE, stderr=slave,
                               timeout=30)
        finally:
            os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
        assert r.returncode == 0
        return seen.decode(errors="replace")

    shown = stderr_on_a_terminal()
    assert "count: uniform sample 1 of 1 [" in shown
    assert "/s, ETA " in shown  # after the first second: points per second and time left
    assert "count: uniform sample" not in stderr_on_a_terminal("--quiet")
