"""ONNX image classifiers as graph networks: assay's forward pass equals an independent one.

The reference evaluates the ONNX file itself: its initializers read with python3-onnx's
numpy_helper and every node run through python3-torch's torch.nn.functional in float64 (Debian's
onnx 1.12 has no reference evaluator). Networks: the VNN-COMP 2021 ones in ../shared/data (skipped
with a message when absent), and small conv nets made here with torch and exported with
torch.onnx.export, as people's files are made.
"""
import os
import re
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
torch = pytest.importorskip("torch", reason="python3-torch is not installed")
import torch.nn.functional as F  # noqa: E402
from onnx import helper, numpy_helper  # noqa: E402

import assay.models  # noqa: E402
from assay._assay import AssayError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VNNCOMP = Path(os.environ.get("ASSAY_VNNCOMP", ROOT.parent / "shared" / "data" / "vnncomp2021"))
CLI = os.environ.get("ASSAY_CLI", str(ROOT / "build" / "assay"))


# --- the independent evaluation ------------------------------------------------------------------

def _attrs(node):
    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        out[a.name] = v.decode() if isinstance(v, bytes) else v
    return out


def _window_pads(a, x, kernel):
    """ONNX pads [top, left, bottom, right] as F.pad's (left, right, top, bottom)."""
    mode = a.get("auto_pad", "NOTSET")
    pads = list(a.get("pads", [0, 0, 0, 0]))
    if mode == "VALID":
        pads = [0, 0, 0, 0]
    elif mode in ("SAME_UPPER", "SAME_LOWER"):
        strides, dil = a.get("strides", [1, 1]), a.get("dilations", [1, 1])
        for i in range(2):
            size = x.shape[2 + i]
            out = -(-size // strides[i])
            total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 - size)
            first = total // 2 if mode == "SAME_UPPER" else total - total // 2
            pads[i], pads[i + 2] = first, total - first
    return (pads[1], pads[3], pads[0], pads[2])


def _pool_sum(x, a, kernel):
    # The window sums, with padding as zeros: avg_pool2d times the window size.
    k = kernel[0] * kernel[1]
    return F.avg_pool2d(x, kernel, stride=a.get("strides", [1, 1])) * k


def _run_node(node, env):
    op, a = node.op_type, _attrs(node)
    x = [env[i] if i else None for i in node.input]
    if op in ("Identity", "Dropout"):
        return x[0]
    if op == "Constant":
        return torch.from_numpy(numpy_helper.to_array(a["value"]).copy())
    if op == "Relu":
        return F.relu(x[0])
    if op == "Sigmoid":
        return torch.sigmoid(x[0])
    if op == "Tanh":
        return torch.tanh(x[0])
    if op == "Softmax":
        return F.softmax(x[0], dim=a.get("axis", -1))
    if op in ("Add", "Sub", "Mul", "Div"):
        return {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div}[op](*x)
    if op == "Neg":
        return -x[0]
    if op == "Flatten":
        axis = a.get("axis", 1)
        return x[0].reshape(int(np.prod(x[0].shape[:axis])), -1)
    if op == "Reshape":
        shape = [int(s) if s != 0 else x[0].shape[i] for i, s in enumerate(x[1].tolist())]
        return x[0].reshape(shape)
    if op == "Transpose":
        return x[0].permute(*a["perm"])
    if op == "Shape":
        return torch.tensor(list(x[0].shape), dtype=torch.int64)
    if op == "Gather":
        return torch.index_select(x[0], a.get("axis", 0), x[1].reshape(-1)).reshape(
            x[1].shape + x[0].shape[1:]) if x[1].dim() else x[0][int(x[1])]
    if op == "Unsqueeze":
        axes = a["axes"] if "axes" in a else x[1].tolist()
        out = x[0]
        for ax in sorted(axes):
            out = out.unsqueeze(ax)
        return out
    if op == "ConstantOfShape":
        v = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
        return torch.from_numpy(np.full([int(d) for d in x[0].tolist()], v.reshape(-1)[0]))
    if op == "Slice":
        data = x[0].numpy()
        starts, ends = x[1].tolist(), x[2].tolist()
        axes = x[3].tolist() if len(x) > 3 and x[3] is not None else list(range(len(starts)))
        steps = x[4].tolist() if len(x) > 4 and x[4] is not None else [1] * len(starts)
        index = [slice(None)] * data.ndim
        for ax, b, e, st in zip(axes, starts, ends, steps):
            index[ax] = slice(b, e, st)
        return torch.from_numpy(data[tuple(index)].copy())
    if op == "Cast":
        return x[0].to(torch.int64 if a["to"] == onnx.TensorProto.INT64 else torch.float64)
    if op == "Concat":
        return torch.cat(x, dim=a["axis"])
    if op == "Gemm":
        A, B = x[0], x[1]
        if a.get("transA", 0):
            A = A.T
        if a.get("transB", 0):
            B = B.T
        y = a.get("alpha", 1.0) * (A @ B)
        return y + a.get("beta", 1.0) * x[2] if len(x) > 2 and x[2] is not None else y
    if op == "MatMul":
        return torch.matmul(x[0], x[1])
    if op == "BatchNormalization":
        return F.batch_norm(x[0], x[3], x[4], x[1], x[2], training=False,
                            eps=a.get("epsilon", 1e-5))
    if op == "Conv":
        w = x[1]
        xp = F.pad(x[0], _window_pads(a, x[0], w.shape[2:]))
        return F.conv2d(xp, w, x[2] if len(x) > 2 else None, stride=a.get("strides", [1, 1]),
                        dilation=a.get("dilations", [1, 1]), groups=a.get("group", 1))
    if op == "MaxPool":
        k = a["kernel_shape"]
        xp = F.pad(x[0], _window_pads(a, x[0], k), value=-np.inf)
        return F.max_pool2d(xp, k, stride=a.get("strides", [1, 1]),
                            dilation=a.get("dilations", [1, 1]))
    if op == "AveragePool":
        k = a["kernel_shape"]
        pads = _window_pads(a, x[0], k)
        total = _pool_sum(F.pad(x[0], pads), a, k)
        if a.get("count_include_pad", 0):
            return total / (k[0] * k[1])
        return total / _pool_sum(F.pad(torch.ones_like(x[0]), pads), a, k)
    if op == "GlobalAveragePool":
        return x[0].mean(dim=(2, 3), keepdim=True)
    if op == "Pad":
        pads = a["pads"] if "pads" in a else x[1].tolist()
        value = float(x[2]) if len(x) > 2 and x[2] is not None else a.get("value", 0.0)
        r = len(pads) // 2
        torch_pads = []
        for i in reversed(range(r)):
            torch_pads += [pads[i], pads[i + r]]
        return F.pad(x[0], torch_pads, value=value)
    raise NotImplementedError(op)


def torch_forward(model, x):
    """The ONNX graph's output at input x (numpy, the input's shape), in float64."""
    env = {}
    for t in model.graph.initializer:
        v = numpy_helper.to_array(t)
        env[t.name] = torch.from_numpy(v.astype(np.float64 if v.dtype.kind == "f" else v.dtype))
    inits = set(env)
    name = [i.name for i in model.graph.input if i.name not in inits][0]
    env[name] = torch.from_numpy(np.asarray(x, dtype=np.float64))
    for node in model.graph.node:
        out = _run_node(node, env)
        if isinstance(out, torch.Tensor) and out.dtype == torch.float32:
            out = out.double()
        env[node.output[0]] = out
    return env[model.graph.output[0].name].reshape(-1).numpy()


def _input_shape(model):
    inits = {t.name for t in model.graph.initializer}
    v = [i for i in model.graph.input if i.name not in inits][0]
    return [d.dim_value if d.dim_value > 0 else 1 for d in v.type.tensor_type.shape.dim]


def _compare(path, X):
    """Largest relative difference between assay's scores and the reference over rows of X."""
    model = onnx.load(str(path))
    shape = _input_shape(model)
    got = assay.models.load(path).predict_scores(X)
    worst = 0.0
    for row, g in zip(X, got):
        ref = torch_forward(model, row.reshape(shape))
        scale = max(np.abs(ref).max(), 1e-300)
        worst = max(worst, float(np.abs(g - ref).max() / scale))
        np.testing.assert_allclose(g, ref, rtol=1e-9, atol=1e-9 * scale)
    return worst


# --- the shared VNN-COMP 2021 networks -----------------------------------------------------------

def _box(vnnlib):
    lo, hi = {}, {}
    for m in re.finditer(r"\(assert \((<=|>=) X_(\d+) ([-+0-9.eE]+)\)\)", vnnlib.read_text()):
        (hi if m.group(1) == "<=" else lo)[int(m.group(2))] = float(m.group(3))
    n = max(hi) + 1
    return np.array([lo[i] for i in range(n)]), np.array([hi[i] for i in range(n)])


SHARED = [("mnistfc", "mnist-net_256x2.onnx", "network"),
          ("mnistfc", "mnist-net_256x4.onnx", "network"),
          ("mnistfc", "mnist-net_256x6.onnx", "network"),
          ("verivital", "Convnet_avgpool.onnx", "graph"),
          ("verivital", "Convnet_maxpool.onnx", "graph"),
          ("cifar10_resnet", "onnx/resnet_2b.onnx", "graph"),
          ("cifar10_resnet", "onnx/resnet_4b.onnx", "graph")]


@pytest.mark.parametrize("bench,net,kind", SHARED)
def test_shared_networks_forward_pass_equals_torch(bench, net, kind):
    path = VNNCOMP / bench / net
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared VNN-COMP 2021 data)")
    rows = (VNNCOMP / bench / f"{bench}_instances.csv").read_text().split("\n")
    vnnlib = next(r.split(",")[1] for r in rows if r and Path(r.split(",")[0]).name == path.name)
    lo, hi = _box(VNNCOMP / bench / vnnlib.strip())
    start = time.perf_counter()
    m = assay.models.load(path)
    seconds = time.perf_counter() - start
    assert m.kind == kind and m.n_features == lo.size
    X = np.random.default_rng(43).uniform(lo, hi, size=(20, lo.size))
    worst = _compare(path, X)
    print(f"{bench}/{net}: import {seconds:.3f} s, largest relative difference {worst:.2e}")


def test_graph_model_info_cli_and_python():
    path = VNNCOMP / "cifar10_resnet" / "onnx" / "resnet_2b.onnx"
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared VNN-COMP 2021 data)")
    info = assay.models.load(path).info()
    assert info["kind"] == "graph" and info["n_features"] == 3072 and info["n_outputs"] == 10
    assert info["n_nodes"] > 6 and info["n_neurons"] > 0 and info["n_parameters"] > 0
    r = subprocess.run([CLI, "model", "info", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for field in ("graph", "nodes", "neurons", str(info["n_parameters"])):
        assert field in r.stdout


# --- small conv nets exported by PyTorch ---------------------------------------------------------

class _Convs(torch.nn.Module):
    # Strides, padding, dilation, groups; Conv + BatchNorm (the exporter folds them), MaxPool.
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.c2 = torch.nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2)
        self.bn = torch.nn.BatchNorm2d(6)
        self.c3 = torch.nn.Conv2d(6, 4, (2, 3), stride=(1, 2), padding=(0, 1), bias=False)
        self.fc = torch.nn.Linear(4 * 2 * 2, 5)

    def forward(self, x):
        x = F.relu(self.c1(x))
        x = F.relu(self.bn(self.c2(x)))
        x = F.max_pool2d(x, 2, stride=2, padding=1)
        x = self.c3(x)
        return self.fc(torch.flatten(x, 1))


class _Residual(torch.nn.Module):
    # A skip connection, average pooling with and without padding counted, Sigmoid and Tanh.
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(2, 4, 3, padding=1)
        self.c2 = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.c3 = torch.nn.Conv2d(4, 4, 1)
        self.fc1 = torch.nn.Linear(4 * 3 * 3, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x):
        h = F.relu(self.c1(x))
        h = F.relu(self.c2(h) + h)
        h = F.avg_pool2d(h, 3, stride=2, padding=1, count_include_pad=True)
        h = torch.sigmoid(self.c3(h)) - F.avg_pool2d(h, 3, 1, 1, count_include_pad=False)
        return self.fc2(torch.tanh(self.fc1(torch.flatten(h, 1))))


class _Nhwc(torch.nn.Module):
    # NHWC input (a Transpose after the input), BatchNorm after ReLU, padding with a value,
    # global average pooling, Softmax at the end.
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 5, 3)
        self.bn = torch.nn.BatchNorm2d(5)
        self.c2 = torch.nn.Conv2d(5, 4, 2, stride=2)
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        x = x.permute(0, 3, 1, 2)
        x = self.bn(F.relu(self.c1(x)))
        x = F.pad(x, (1, 0, 2, 1), value=0.25)
        x = F.relu(self.c2(x))
        x = F.adaptive_avg_pool2d(x, 1)
        return F.softmax(self.fc(torch.flatten(x, 1)), dim=1)


def _randomize(module, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.5)
        for b in module.buffers():
            if b.dtype.is_floating_point:
                b.copy_(torch.rand(b.shape, generator=g) + 0.5)
    return module.eval()


@pytest.mark.parametrize("make,shape", [(_Convs, (1, 3, 9, 10)), (_Residual, (1, 2, 6, 6)),
                                        (_Nhwc, (1, 8, 7, 3))])
def test_torch_exported_conv_nets(tmp_path, make, shape):
    module = _randomize(make(), seed=7)
    path = tmp_path / "net.onnx"
    torch.onnx.export(module, torch.zeros(shape), str(path), opset_version=13,
                      input_names=["x"], output_names=["y"])
    m = assay.models.load(path)
    assert m.kind == "graph"
    X = np.random.default_rng(5).uniform(-1, 1, size=(20, int(np.prod(shape))))
    _compare(path, X)
    # And the exporter's own module, in float32.
    with torch.no_grad():
        expect = module(torch.from_numpy(X.reshape((20,) + shape[1:]).astype(np.float32)))
    np.testing.assert_allclose(m.predict_scores(X), expect.numpy(), rtol=1e-4, atol=1e-5)


def test_graph_model_has_no_json_form(tmp_path):
    module = _randomize(_Residual(), seed=1)
    path = tmp_path / "res.onnx"
    torch.onnx.export(module, torch.zeros((1, 2, 6, 6)), str(path), opset_version=13)
    m = assay.models.load(path)
    with pytest.raises(AssayError, match="has no assay JSON form"):
        assay.models.save(m, tmp_path / "res.json")


# --- bad input, located ---------------------------------------------------------------------------

def _save(tmp_path, nodes, inits, in_shape, out_shape, name="bad.onnx"):
    from onnx import TensorProto
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        [numpy_helper.from_array(np.asarray(v, dtype=np.float32), k) for k, v in inits.items()])
    path = tmp_path / name
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def test_bad_graphs_are_located(tmp_path):
    w = np.ones((2, 3, 3, 3))
    cases = [
        ([helper.make_node("Conv", ["x", "W"], ["y"], name="c1")], {"W": w}, [1, 2, 5, 5],
         r'bad.onnx: node "c1" \(Conv\): weight of shape \[2x3x3x3\] \(group 1\) expects 3 input '
         r'channels; the input has shape \[1x2x5x5\] \(2 channels\)'),
        ([helper.make_node("Conv", ["x", "W"], ["y"], name="c2")], {"W": w}, [1, 3, 2, 2],
         r'node "c2" \(Conv\): the kernel 3x3 \(dilations 1x1\) is larger than the padded input'),
        ([helper.make_node("Conv", ["x", "W"], ["y"], name="c3", auto_pad="SAME")], {"W": w},
         [1, 3, 5, 5], r'node "c3" \(Conv\): auto_pad "SAME" is not one of NOTSET'),
        ([helper.make_node("Conv", ["x", "W"], ["y"], name="c4")], {"W": np.ones((2, 3, 3))},
         [1, 3, 5], r'node "c4" \(Conv\): assay imports 2-D convolutions'),
        ([helper.make_node("Pad", ["x", "p"], ["y"], name="p1", mode="reflect")],
         {"p": np.array([0, 0, 1, 1, 0, 0, 1, 1])}, [1, 3, 5, 5],
         r'node "p1" \(Pad\): mode "reflect" is not supported'),
        ([helper.make_node("MaxPool", ["x"], ["m"], name="m1", kernel_shape=[2, 2]),
          helper.make_node("LeakyRelu", ["m"], ["y"], name="l1")], {}, [1, 3, 4, 4],
         r'node "l1" \(LeakyRelu\): unsupported operator; assay imports Gemm, MatMul, Conv'),
    ]
    for nodes, inits, in_shape, message in cases:
        path = _save(tmp_path, nodes, inits, in_shape, [1])
        with pytest.raises(AssayError, match=message):
            assay.models.load(path)
    r = subprocess.run([CLI, "model", "info", str(path)], capture_output=True, text=True)
    assert r.returncode == 2 and 'node "l1" (LeakyRelu): unsupported operator' in r.stderr


# --- counting on a graph model: enumeration of a small grid ---------------------------------------

class _Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(1, 2, 2)
        self.fc = torch.nn.Linear(8, 2)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c(x)), 2, stride=1, padding=1)
        return self.fc(torch.flatten(x[:, :, :2, :2], 1))


def test_count_on_a_graph_model_enumerates_the_grid(tmp_path):
    import assay.count
    module = _randomize(_Tiny(), seed=3)
    path = tmp_path / "tiny.onnx"
    torch.onnx.export(module, torch.zeros((1, 1, 3, 3)), str(path), opset_version=13)
    m = assay.models.load(path)
    assert m.kind == "graph"
    r = assay.count.count(m, "input x[9] : bool;\nsafety S = x[0] => label == 0;\n")
    grid = ((np.arange(512)[:, None] >> np.arange(9)[None, :]) & 1).astype(np.float64)
    label = m.predict_index(grid)
    assert r["method"] == "enumerate" and r["domain_size"] == 512
    s = r["safety"][0]
    assert (s["satisfied"], s["violated"]) == (int(((grid[:, 0] == 1) & (label == 0)).sum()),
                                               int(((grid[:, 0] == 1) & (label != 0)).sum()))
    assert 0 < s["violated"] < 256
