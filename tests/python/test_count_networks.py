"""ONNX import, VNN-LIB and certified counting by domain splitting (docs/count_networks.md).

ONNX files are built at test time with python3-onnx's onnx.helper; imported networks must predict
as a numpy forward pass of the same graph. ACAS Xu tests skip when the shared data are absent.
"""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import assay.count  # noqa: E402
import assay.models  # noqa: E402
from assay._assay import AssayError  # noqa: E402

CLI = os.environ.get("ASSAY_CLI", "build/assay")
ACASXU = Path(os.environ.get("ASSAY_ACASXU_DATA",
                             Path(__file__).resolve().parents[2] / ".." / "shared" / "data" /
                             "acasxu"))


def _init(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def _save(tmp_path, nodes, inits, in_shape, out_shape, name="net.onnx"):
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path / name
    onnx.save(model, str(path))
    return path


def _mlp(tmp_path, rng, widths, last=None, name="net.onnx"):
    """Sub/Div input normalisation, Gemm/MatMul+Add layers with Relu, optional last op."""
    nodes, inits = [], []
    n = widths[0]
    inits += [_init("mean", rng.normal(size=n)), _init("scale", rng.uniform(1, 3, size=n))]
    nodes += [helper.make_node("Sub", ["x", "mean"], ["s"]),
              helper.make_node("Div", ["s", "scale"], ["h0"])]
    weights = []
    for k in range(1, len(widths)):
        W = rng.normal(size=(widths[k - 1], widths[k])) / np.sqrt(widths[k - 1])
        b = rng.normal(size=widths[k]) * 0.1
        weights.append((W.astype(np.float32), b.astype(np.float32)))
        if k % 2:
            inits += [_init(f"W{k}", W.T), _init(f"b{k}", b)]
            nodes.append(helper.make_node("Gemm", [f"h{k-1}", f"W{k}", f"b{k}"], [f"z{k}"],
                                          transB=1))
        else:
            inits += [_init(f"W{k}", W), _init(f"b{k}", b)]
            nodes += [helper.make_node("MatMul", [f"h{k-1}", f"W{k}"], [f"m{k}"]),
                      helper.make_node("Add", [f"m{k}", f"b{k}"], [f"z{k}"])]
        out = f"h{k}" if k < len(widths) - 1 else ("y" if last is None else "pre")
        if k < len(widths) - 1:
            nodes.append(helper.make_node("Relu", [f"z{k}"], [out]))
        else:
            nodes.append(helper.make_node("Identity", [f"z{k}"], [out]))
    if last is not None:
        nodes.append(helper.make_node(last, ["pre"], ["y"]))
    path = _save(tmp_path, nodes, inits, [1, n], [1, widths[-1]], name)
    mean = numpy_helper.to_array(inits[0]).astype(np.float64)
    scale = numpy_helper.to_array(inits[1]).astype(np.float64)
    return path, mean, scale, weights


def _numpy_forward(X, mean, scale, weights, last=None):
    h = (X - mean) / scale
    for k, (W, b) in enumerate(weights):
        h = h @ W.astype(np.float64) + b.astype(np.float64)
        if k < len(weights) - 1:
            h = np.maximum(h, 0)
    if last == "Softmax":
        e = np.exp(h - h.max(axis=1, keepdims=True))
        h = e / e.sum(axis=1, keepdims=True)
    elif last == "Sigmoid":
        h = 1 / (1 + np.exp(-h))
    return h


@pytest.mark.parametrize("last", [None, "Softmax", "Sigmoid"])
def test_onnx_predicts_as_numpy(tmp_path, last):
    rng = np.random.default_rng(0)
    widths = [6, 16, 12, 3] if last != "Sigmoid" else [6, 16, 12, 1]
    path, mean, scale, weights = _mlp(tmp_path, rng, widths, last)
    m = assay.models.load(path)
    assert m.kind == "network" and m.n_features == 6
    X = rng.normal(size=(200, 6)) * 3
    expect = _numpy_forward(X, mean, scale, weights, last)
    np.testing.assert_allclose(m.predict_scores(X), expect, rtol=1e-10, atol=1e-12)
    if widths[-1] > 1:
        np.testing.assert_array_equal(m.predict_index(X), expect.argmax(axis=1))


def test_onnx_batchnorm_flatten_reshape_constant(tmp_path):
    rng = np.random.default_rng(1)
    W = rng.normal(size=(8, 2)).astype(np.float32)
    nodes = [
        helper.make_node("Constant", [], ["shape"],
                         value=numpy_helper.from_array(np.array([1, 2, 2, 2], dtype=np.int64))),
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("BatchNormalization", ["r", "sc", "bb", "mu", "var"], ["bn"],
                         epsilon=1e-3),
        helper.make_node("Flatten", ["bn"], ["f"], axis=1),
        helper.make_node("Mul", ["f", "two"], ["g"]),
        helper.make_node("MatMul", ["g", "W"], ["y"]),
    ]
    inits = [_init("sc", [1.5, 0.5]), _init("bb", [0.1, -0.2]), _init("mu", [0.3, -1.0]),
             _init("var", [2.0, 0.25]), _init("two", 2.0), _init("W", W)]
    path = _save(tmp_path, nodes, inits, [1, 8], [1, 2])
    m = assay.models.load(path)
    X = rng.normal(size=(50, 8))
    Xr = X.reshape(50, 2, 4)
    sc, bb, mu, var = (np.array(v, dtype=np.float32).astype(np.float64)
                       for v in ([1.5, 0.5], [0.1, -0.2], [0.3, -1.0], [2.0, 0.25]))
    eps = float(np.float32(1e-3))
    bn = (Xr - mu[None, :, None]) / np.sqrt(var[None, :, None] + eps) * sc[None, :, None] + \
        bb[None, :, None]
    expect = (bn.reshape(50, 8) * 2) @ W.astype(np.float64)
    np.testing.assert_allclose(m.predict_scores(X), expect, rtol=1e-9, atol=1e-12)


def test_onnx_errors(tmp_path):
    rng = np.random.default_rng(2)
    conv = _save(tmp_path, [helper.make_node("Erf", ["x"], ["y"], name="erf1")],
                 [], [1, 1, 2, 2], [1, 1, 2, 2], "erf.onnx")
    with pytest.raises(AssayError, match=r'node "erf1" \(Erf\): unsupported operator'):
        assay.models.load(conv)
    nan = _save(tmp_path, [helper.make_node("MatMul", ["x", "W"], ["y"])],
                [_init("W", [[1.0], [np.nan]])], [1, 2], [1, 1], "nan.onnx")
    with pytest.raises(AssayError, match=r'tensor "W" holds nan at index 1'):
        assay.models.load(nan)
    dyn = _save(tmp_path, [helper.make_node("MatMul", ["x", "W"], ["y"])],
                [_init("W", [[1.0], [2.0]])], [1, "n"], [1, 1], "dyn.onnx")
    with pytest.raises(AssayError, match=r'dynamic dimension "n"'):
        assay.models.load(dyn)
    r = subprocess.run([CLI, "model", "info", str(conv)], capture_output=True, text=True)
    assert r.returncode == 2
    assert 'node "erf1" (Erf): unsupported operator' in r.stderr


def _vnnlib_text(n_in, n_out, box, unsafe, sort="Real"):
    lines = [f"(declare-const X_{i} {sort})" for i in range(n_in)]
    lines += [f"(declare-const Y_{j} Real)" for j in range(n_out)]
    for i, (lo, hi) in enumerate(box):
        lines += [f"(assert (>= X_{i} {lo}))", f"(assert (<= X_{i} {hi}))"]
    lines.append(f"(assert {unsafe})")
    return "\n".join(lines) + "\n"


def test_integer_counts_equal_numpy_enumeration(tmp_path):
    rng = np.random.default_rng(3)
    path, mean, scale, weights = _mlp(tmp_path, rng, [3, 10, 3])
    box = [(-6, 6), (0, 10), (-3, 9)]
    text = _vnnlib_text(3, 3, box, "(or (and (>= Y_0 Y_1) (>= Y_0 Y_2)) (<= Y_2 -0.5))", "Int")
    prop = tmp_path / "p.vnnlib"
    prop.write_text(text)
    r = assay.count.count_vnnlib(path, prop, samples=100, enumerate_limit=32)
    grid = np.array(np.meshgrid(*[np.arange(lo, hi + 1) for lo, hi in box],
                                indexing="ij")).reshape(3, -1).T.astype(np.float64)
    Y = _numpy_forward(grid, mean, scale, weights)
    unsafe = ((Y[:, 0] >= Y[:, 1]) & (Y[:, 0] >= Y[:, 2])) | (Y[:, 2] <= -0.5)
    assert r["domain"] == "grid" and r["finished"]
    assert r["total"] == len(grid)
    assert r["unsafe_count"] == [int(unsafe.sum())] * 2
    assert r["decision"] == ("violated" if unsafe.any() else "holds")


def test_continuous_interval_contains_monte_carlo(tmp_path):
    rng = np.random.default_rng(4)
    path, mean, scale, weights = _mlp(tmp_path, rng, [2, 16, 16, 2])
    box = [(-1, 2), (0.5, 3)]
    text = _vnnlib_text(2, 2, box, "(<= Y_1 Y_0)")
    r = assay.count.count_vnnlib(path, text, max_boxes=4000, samples=5000, seed=1)
    lo, hi = r["unsafe"]["lower"], r["unsafe"]["upper"]
    assert 0 <= lo <= hi <= 1 and hi - lo < 0.3
    assert r["safe"]["lower"] == pytest.approx(1 - hi)
    # A numpy Monte Carlo estimate's 99.9 % Clopper-Pearson interval meets [lo, hi].
    from scipy.stats import beta
    X = np.column_stack([rng.uniform(a, b, 200000) for a, b in box])
    Y = _numpy_forward(X, mean, scale, weights)
    k, n = int((Y[:, 1] <= Y[:, 0]).sum()), len(X)
    cp_lo = beta.ppf(0.0005, k, n - k + 1) if k else 0.0
    cp_hi = beta.ppf(0.9995, k + 1, n - k) if k < n else 1.0
    assert cp_lo <= hi and cp_hi >= lo
    if r["counterexample"]:
        x = np.array(r["counterexample"]["x"])
        y = _numpy_forward(x[None, :], mean, scale, weights)[0]
        assert y[1] <= y[0] + 1e-12
        assert all(a <= v <= b for v, (a, b) in zip(x, box))


def test_holds_has_no_sampled_violation(tmp_path):
    rng = np.random.default_rng(5)
    path, mean, scale, weights = _mlp(tmp_path, rng, [2, 8, 2])
    text = _vnnlib_text(2, 2, [(0, 1), (0, 1)], "(>= Y_0 1000)")
    r = assay.count.count_vnnlib(path, text, samples=2000)
    assert r["decision"] == "holds" and r["finished"]
    assert r["unsafe"] == {"lower": 0.0, "upper": 0.0}
    assert r["sample"]["k"] == 0


def test_cli_vnnlib_json_text_html(tmp_path):
    rng = np.random.default_rng(7)  # a network whose unsafe set has a boundary in the box
    path, *_ = _mlp(tmp_path, rng, [2, 12, 2])
    prop = tmp_path / "p.vnnlib"
    prop.write_text(_vnnlib_text(2, 2, [(-1, 1), (-1, 1)], "(<= Y_1 Y_0)"))
    r = subprocess.run([CLI, "count", "--model", str(path), "--vnnlib", str(prop),
                        "--max-boxes", "500", "--json", "--threads", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["method"] == "split" and doc["boxes"]["bounded"] == 500
    assert doc["sample"]["confidence"] == 0.999
    again = subprocess.run([CLI, "count", "--model", str(path), "--vnnlib", str(prop),
                            "--max-boxes", "500", "--json", "--threads", "2"],
                           capture_output=True, text=True)
    doc2 = json.loads(again.stdout)
    assert doc2["unsafe"] == doc["unsafe"]  # deterministic at any thread count
    html = tmp_path / "out.html"
    t = subprocess.run([CLI, "count", "--model", str(path), "--vnnlib", str(prop),
                        "--time-limit", "1", "--html", str(html)], capture_output=True, text=True)
    assert t.returncode == 0, t.stderr
    assert "unsafe share" in t.stdout
    assert "Certified interval against time" in html.read_text()


def test_cli_bad_input(tmp_path):
    rng = np.random.default_rng(7)
    path, *_ = _mlp(tmp_path, rng, [2, 4, 2])
    bad = tmp_path / "bad.vnnlib"
    bad.write_text("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= X_0 1)\n")
    r = subprocess.run([CLI, "count", "--model", str(path), "--vnnlib", str(bad)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert f"{bad}:4:1: expected ')' to close the '(' at 3:1, found end of file" in r.stderr
    three = tmp_path / "three.vnnlib"
    three.write_text(_vnnlib_text(3, 2, [(0, 1)] * 3, "(<= Y_1 Y_0)"))
    r = subprocess.run([CLI, "count", "--model", str(path), "--vnnlib", str(three)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "the network has 2 inputs but" in r.stderr and "declares 3 (X_0..X_2)" in r.stderr
    empty = tmp_path / "empty.vnnlib"
    empty.write_text(_vnnlib_text(2, 2, [(0, 1), (2, 1)], "(<= Y_1 Y_0)"))
    r = subprocess.run([CLI, "count", "--model", str(path), "--vnnlib", str(empty)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "the input box is empty: X_1 >= 2 and X_1 <= 1" in r.stderr


def test_network_bounds_are_sound(tmp_path):
    rng = np.random.default_rng(8)
    path, mean, scale, weights = _mlp(tmp_path, rng, [4, 20, 20, 3])
    lo = rng.normal(size=4)
    hi = lo + rng.uniform(0.1, 1, size=4)
    low, high = assay.count.network_bounds(path, lo, hi)
    ilow, ihigh = assay.count.network_bounds(path, lo, hi, method="interval")
    X = rng.uniform(lo, hi, size=(20000, 4))
    Y = _numpy_forward(X, mean, scale, weights)
    assert (Y >= low - 1e-12).all() and (Y <= high + 1e-12).all()
    assert (low >= ilow).all() and (high <= ihigh).all()


def test_spec_split_equals_enumeration_and_exact_cnf(tmp_path):
    rng = np.random.default_rng(9)
    path, *_ = _mlp(tmp_path, rng, [9, 12, 2])
    spec = """
      input x[9] : bool;
      pred Diag = x[0] and x[4] and x[8];
      truth 1 = Diag or (sum i in 0..8 : x[i]) >= 6;
      safety S = x[0] => label == 1;
    """
    e = assay.count.count(path, spec, method="enumerate")
    s = assay.count.count(path, spec, method="split")
    c = assay.count.count(path, spec, method="exact-cnf")  # part 2's CNF route
    for a, b, d in zip(e["labels"], s["labels"], c["labels"]):
        cells = (a["tp"], a["fp"], a["tn"], a["fn"])
        assert cells == (b["tp"], b["fp"], b["tn"], b["fn"]) == (d["tp"], d["fp"], d["tn"], d["fn"])
        assert b["guarantee"]["method"] == "split" and b["guarantee"]["exact"]
        assert d["guarantee"]["method"] == "exact-cnf" and d["guarantee"]["exact"]
    assert e["safety"][0]["satisfied"] == s["safety"][0]["satisfied"]
    assert c["safety"][0]["satisfied"] == s["safety"][0]["satisfied"]


def _acas(name):
    return ACASXU / name


acasxu = pytest.mark.skipif(not (ACASXU / "prop_1.vnnlib").exists(),
                            reason=f"ACAS Xu data not found at {ACASXU} (set ASSAY_ACASXU_DATA)")


def _onnx_numpy(path, X):
    """A numpy evaluation of an ACAS Xu ONNX graph, op by op (Sub, Flatten, MatMul, Add, Relu)."""
    model = onnx.load(str(path))
    consts = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    name = [i.name for i in model.graph.input if i.name not in consts][0]
    values = {name: X.reshape(len(X), 1, 1, 5)}
    get = consts
    for node in model.graph.node:
        a = [values.get(i, get.get(i)) for i in node.input]
        if node.op_type == "Sub":
            out = a[0] - a[1]
        elif node.op_type == "Flatten":
            out = a[0].reshape(len(X), -1)
        elif node.op_type == "MatMul":
            out = a[0] @ a[1]
        elif node.op_type == "Add":
            out = a[0] + a[1]
        elif node.op_type == "Relu":
            out = np.maximum(a[0], 0)
        else:
            raise AssertionError(node.op_type)
        values[node.output[0]] = out
    return values[model.graph.output[0].name]


@acasxu
def test_acasxu_networks_equal_numpy_graph():
    rng = np.random.default_rng(10)
    X = rng.uniform(-0.5, 0.5, size=(100, 5))
    for i in range(1, 6):
        for j in range(1, 10):
            path = _acas(f"ACASXU_run2a_{i}_{j}_batch_2000.onnx")
            m = assay.models.load(path)
            np.testing.assert_allclose(m.predict_scores(X), _onnx_numpy(path, X),
                                       rtol=1e-9, atol=1e-12)


@acasxu
def test_acasxu_slice_agrees_with_vnncomp():
    # (network, property, VNN-COMP outcome): a few fast instances; the 186 are in bench/.
    for net, prop, outcome in [("1_1", 1, "unsat"), ("2_1", 2, "sat"), ("5_7", 3, "unsat"),
                               ("3_3", 4, "unsat")]:
        r = assay.count.count_vnnlib(_acas(f"ACASXU_run2a_{net}_batch_2000.onnx"),
                                     _acas(f"prop_{prop}.vnnlib"), stop_when_decided=True,
                                     time_limit=30, samples=1000)
        assert r["decision"] == ("violated" if outcome == "sat" else "holds"), (net, prop)
        if r["decision"] == "holds":
            assert r["sample"]["k"] == 0
    # Counting on after the decision: the certified interval meets the samples' 99.9 % interval.
    r = assay.count.count_vnnlib(_acas("ACASXU_run2a_2_3_batch_2000.onnx"), _acas("prop_2.vnnlib"),
                                 max_boxes=4000, samples=10000, seed=3)  # deterministic
    s_lo, s_hi = r["sample"]["clopper_pearson"]
    assert r["sample"]["confidence"] == pytest.approx(0.999) and r["sample"]["k"] > 0
    assert s_lo <= r["unsafe"]["upper"] and r["unsafe"]["lower"] <= s_hi
    assert 0 < r["unsafe"]["lower"] < r["unsafe"]["upper"] < 0.05
