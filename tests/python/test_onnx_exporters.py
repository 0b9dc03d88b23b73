"""Issue 38 ("Trust"): ONNX networks as real exporters write them, read by assay.models.load and
`assay model info`. PyTorch's torch.onnx.export runs here at several opsets, with and without
constant folding and dynamic batch axes; tf2onnx (TensorFlow is not installed) is mimicked by
hand with onnx.helper from the patterns it writes (MatMul + Add with bias initializers, a
Reshape by a shape initializer, Transpose of an NHWC input, Identity, Cast, Dropout, "unk__"
batch dimensions, float16 weights). Every accepted network must predict as the exporter's
framework (torch) or a numpy evaluation of the graph does; every refused one names the node and
its operator. The VNN-COMP 2021 networks (several exporters) are checked when present."""
import json
import os
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
torch = pytest.importorskip("torch", reason="python3-torch is not installed")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import assay.models  # noqa: E402
from assay._assay import AssayError  # noqa: E402
from conftest import cli_path  # noqa: E402

VNNCOMP = Path(os.environ.get("ASSAY_VNNCOMP_DATA",
                              Path(__file__).resolve().parents[2] / ".." / "shared" / "data" /
                              "vnncomp2021"))


def export(net, example, path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, example, str(path), input_names=["x"], output_names=["y"],
                          **kwargs)
    return path


def assert_predicts_as_torch(path, net, input_shape, rng, rtol=1e-5):
    model = assay.models.load(str(path))
    n = int(np.prod(input_shape))
    assert model.n_features == n
    X = rng.normal(size=(200, n)).astype(np.float32)
    with torch.no_grad():
        expected = net(torch.from_numpy(X.reshape((200,) + tuple(input_shape)))).numpy()
    np.testing.assert_allclose(model.predict_scores(X), expected.reshape(200, -1), rtol=rtol,
                               atol=1e-5)
    out = subprocess.run([cli_path(), "model", "info", str(path)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr


class ViewMlp(torch.nn.Module):
    """x.view(x.size(0), -1): with dynamic axes or without constant folding, PyTorch computes
    the shape in the graph (Shape, Gather, Unsqueeze, Concat, Reshape)."""

    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(12, 8)
        self.drop = torch.nn.Dropout(0.3)
        self.same = torch.nn.Identity()
        self.l2 = torch.nn.Linear(8, 3)

    def forward(self, x):
        x = x.view(x.size(0), -1)
        return self.l2(self.same(self.drop(torch.relu(self.l1(x)))))


def sequential_mlp():
    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 10), torch.nn.ReLU(),
                               torch.nn.BatchNorm1d(10), torch.nn.Linear(10, 6), torch.nn.ReLU(),
                               torch.nn.Dropout(0.5), torch.nn.Linear(6, 4),
                               torch.nn.Softmax(dim=1))


def sigmoid_mlp():
    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 5), torch.nn.Tanh(),
                               torch.nn.Linear(5, 1), torch.nn.Sigmoid())


@pytest.mark.parametrize("opset", [9, 11, 13, 17])
@pytest.mark.parametrize("fold", [True, False], ids=["folded", "unfolded"])
@pytest.mark.parametrize("dynamic", [False, True], ids=["fixed", "dynamic"])
@pytest.mark.parametrize("make", [ViewMlp, sequential_mlp], ids=["view", "sequential"])
def test_torch_exports(tmp_path, rng, opset, fold, dynamic, make):
    torch.manual_seed(opset)
    net = make().eval()
    if isinstance(net, torch.nn.Sequential):  # running statistics that are not the identity
        net[3].running_mean.normal_()
        net[3].running_var.uniform_(0.5, 2)
    path = export(net, torch.randn(1, 3, 4), tmp_path / "net.onnx", opset_version=opset,
                  do_constant_folding=fold,
                  dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}} if dynamic else None)
    if make is ViewMlp and dynamic:
        ops = {n.op_type for n in onnx.load(str(path)).graph.node}
        assert {"Shape", "Gather", "Unsqueeze", "Concat", "Reshape"} <= ops
    assert_predicts_as_torch(path, net, (3, 4), rng)


def test_torch_keep_initializers_as_inputs(tmp_path, rng):
    torch.manual_seed(0)
    net = sequential_mlp().eval()
    path = export(net, torch.randn(1, 3, 4), tmp_path / "net.onnx", opset_version=11,
                  keep_initializers_as_inputs=True)
    assert len(onnx.load(str(path)).graph.input) > 1  # the weights are graph inputs too
    assert_predicts_as_torch(path, net, (3, 4), rng)


def test_torch_tanh_hidden_layer_makes_a_graph_network(tmp_path, rng):
    # Tanh has no dense-layer form: the network is imported as a graph (test_count_onnx_graph.py).
    torch.manual_seed(0)
    net = sigmoid_mlp().eval()
    path = export(net, torch.randn(1, 3, 4), tmp_path / "tanh.onnx", opset_version=13)
    assert assay.models.load(str(path)).kind == "graph"
    assert_predicts_as_torch(path, net, (3, 4), rng)


def test_torch_unsupported_activation_is_named(tmp_path):
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 5), torch.nn.ELU()).eval()
    path = export(net, torch.randn(1, 3, 4), tmp_path / "elu.onnx", opset_version=13)
    with pytest.raises(AssayError, match=r'elu.onnx: node "/2/Elu" \(Elu\): unsupported '
                                         r"operator; assay imports Gemm, MatMul"):
        assay.models.load(str(path))


def test_torch_training_mode_dropout_is_refused(tmp_path):
    net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Dropout(0.5), torch.nn.ReLU(),
                              torch.nn.Linear(3, 2)).train()
    path = export(net, torch.randn(1, 4), tmp_path / "train.onnx", opset_version=13,
                  training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    with pytest.raises(AssayError) as e:
        assay.models.load(str(path))
    assert "(Dropout): runs in training mode (drops values at random); export the network in " \
           "inference mode (PyTorch: model.eval())" in str(e.value)


def test_torch_half_precision_weights(tmp_path, rng):
    # Weights stored as float16 (as a model converted with .half() is), cast to float.
    W = rng.normal(size=(5, 3)).astype(np.float16)
    b = rng.normal(size=3).astype(np.float16)
    nodes = [helper.make_node("Cast", ["W16"], ["W"], to=TensorProto.FLOAT),
             helper.make_node("Cast", ["b16"], ["b"], to=TensorProto.FLOAT),
             helper.make_node("Gemm", ["x", "W", "b"], ["y"])]
    path = save(tmp_path, nodes, [numpy_helper.from_array(W, "W16"),
                                  numpy_helper.from_array(b, "b16")], [1, 5], [1, 3])
    X = rng.normal(size=(50, 5))
    expected = X @ W.astype(np.float64) + b.astype(np.float64)
    np.testing.assert_allclose(assay.models.load(str(path)).predict_scores(X), expected,
                               rtol=1e-12, atol=1e-12)


# --- tf2onnx's patterns, by hand --------------------------------------------------------------


def save(tmp_path, nodes, inits, in_shape, out_shape, name="net.onnx", opset=13,
         in_name="x", out_name="y", producer="tf2onnx"):
    graph = helper.make_graph(
        nodes, "tf2onnx",
        [helper.make_tensor_value_info(in_name, TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name=producer, producer_version="1.9.3")
    onnx.checker.check_model(model)
    path = tmp_path / name
    onnx.save(model, str(path))
    return path


def f32(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def i64(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.int64), name)


def relu(v):
    return np.maximum(v, 0)


def softmax(v):
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def keras_dense_mlp(tmp_path, rng, opset):
    """tf2onnx's conversion of Sequential([Flatten(input_shape=(6, 5)), Dense(16, relu),
    Dropout(0.2), Dense(4, softmax)])."""
    W1 = rng.normal(size=(30, 16)).astype(np.float32)
    b1 = rng.normal(size=16).astype(np.float32)
    W2 = rng.normal(size=(16, 4)).astype(np.float32)
    b2 = rng.normal(size=4).astype(np.float32)
    p = "StatefulPartitionedCall/sequential"
    nodes = [
        helper.make_node("Cast", ["flatten_input"], [f"{p}/Cast:0"], to=TensorProto.FLOAT,
                         name=f"{p}/Cast"),
        helper.make_node("Reshape", [f"{p}/Cast:0", "const_fold_opt__21"],
                         [f"{p}/flatten/Reshape:0"], name=f"{p}/flatten/Reshape"),
        helper.make_node("MatMul", [f"{p}/flatten/Reshape:0", f"{p}/dense/MatMul/ReadVariableOp:0"],
                         [f"{p}/dense/MatMul:0"], name=f"{p}/dense/MatMul"),
        helper.make_node("Add", [f"{p}/dense/MatMul:0", f"{p}/dense/BiasAdd/ReadVariableOp:0"],
                         [f"{p}/dense/BiasAdd:0"], name=f"{p}/dense/BiasAdd"),
        helper.make_node("Relu", [f"{p}/dense/BiasAdd:0"], [f"{p}/dense/Relu:0"],
                         name=f"{p}/dense/Relu"),
        helper.make_node("Identity", [f"{p}/dense/Relu:0"], [f"{p}/dropout/Identity:0"],
                         name=f"{p}/dropout/Identity"),
        helper.make_node("Identity", ["W2_const"], [f"{p}/dense_1/MatMul/ReadVariableOp:0"],
                         name="Identity__5"),
        helper.make_node("MatMul", [f"{p}/dropout/Identity:0",
                                    f"{p}/dense_1/MatMul/ReadVariableOp:0"],
                         [f"{p}/dense_1/MatMul:0"], name=f"{p}/dense_1/MatMul"),
        helper.make_node("Add", [f"{p}/dense_1/MatMul:0", f"{p}/dense_1/BiasAdd/ReadVariableOp:0"],
                         [f"{p}/dense_1/BiasAdd:0"], name=f"{p}/dense_1/BiasAdd"),
        helper.make_node("Softmax", [f"{p}/dense_1/BiasAdd:0"], [f"{p}/dense_1/Softmax:0"],
                         name=f"{p}/dense_1/Softmax", axis=-1 if opset >= 13 else 1),
        helper.make_node("Identity", [f"{p}/dense_1/Softmax:0"], ["dense_1"], name="Identity"),
    ]
    inits = [i64("const_fold_opt__21", [-1, 30]),
             f32(f"{p}/dense/MatMul/ReadVariableOp:0", W1),
             f32(f"{p}/dense/BiasAdd/ReadVariableOp:0", b1), f32("W2_const", W2),
             f32(f"{p}/dense_1/BiasAdd/ReadVariableOp:0", b2)]
    path = save(tmp_path, nodes, inits, ["unk__8", 6, 5], ["unk__9", 4], opset=opset,
                in_name="flatten_input", out_name="dense_1")

    def forward(X):
        return softmax(relu(X @ W1.astype(np.float64) + b1) @ W2.astype(np.float64) + b2)
    return path, forward


@pytest.mark.parametrize("opset", [9, 11, 13, 15])
def test_tf2onnx_keras_dense_mlp(tmp_path, rng, opset):
    path, forward = keras_dense_mlp(tmp_path, rng, opset)
    model = assay.models.load(str(path))
    X = rng.normal(size=(300, 30))
    np.testing.assert_allclose(model.predict_scores(X), forward(X), rtol=1e-9, atol=1e-12)
    info = model.info()
    assert info["n_features"] == 30 and info["source"] == "onnx:tf2onnx"


def test_tf2onnx_nhwc_image_input_is_transposed(tmp_path, rng):
    """An NHWC image (4 x 4 x 3) transposed to NCHW before a flatten: the element order changes,
    so the first layer's columns must follow the permutation."""
    W = rng.normal(size=(48, 5)).astype(np.float32)
    b = rng.normal(size=5).astype(np.float32)
    scale = rng.uniform(0.5, 2, size=(1, 4, 4, 3)).astype(np.float32)
    nodes = [
        helper.make_node("Mul", ["input_1", "scale"], ["scaled"]),  # before: a diagonal map
        helper.make_node("Transpose", ["scaled"], ["nchw"], perm=[0, 3, 1, 2],
                         name="sequential/conv_in/transpose"),
        helper.make_node("Shape", ["nchw"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"]),
        helper.make_node("Concat", ["batch1", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["nchw", "target"], ["flat"]),
        helper.make_node("MatMul", ["flat", "W"], ["mm"]),
        helper.make_node("Add", ["mm", "b"], ["out"]),
    ]
    inits = [f32("scale", scale), i64("zero", 0), i64("axes0", [0]), i64("minus_one", [-1]),
             f32("W", W), f32("b", b)]
    path = save(tmp_path, nodes, inits, ["unk__6", 4, 4, 3], ["unk__7", 5], in_name="input_1",
                out_name="out")
    X = rng.normal(size=(100, 48))
    images = X.reshape(100, 4, 4, 3) * scale
    expected = images.transpose(0, 3, 1, 2).reshape(100, 48) @ W.astype(np.float64) + b
    np.testing.assert_allclose(assay.models.load(str(path)).predict_scores(X), expected,
                               rtol=1e-9, atol=1e-9)


def test_tf2onnx_transpose_after_a_layer(tmp_path, rng):
    # A Transpose of the running tensor after a dense layer permutes the pending rows.
    W1 = rng.normal(size=(6, 6)).astype(np.float32)
    W2 = rng.normal(size=(6, 2)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["h"]),
             helper.make_node("Reshape", ["h", "s23"], ["h23"]),
             helper.make_node("Transpose", ["h23"], ["t"], perm=[0, 2, 1]),
             helper.make_node("Reshape", ["t", "s16"], ["flat"]),
             helper.make_node("Relu", ["flat"], ["r"]),
             helper.make_node("MatMul", ["r", "W2"], ["y"])]
    path = save(tmp_path, nodes, [f32("W1", W1), f32("W2", W2), i64("s23", [1, 2, 3]),
                                  i64("s16", [1, 6])], [1, 6], [1, 2])
    X = rng.normal(size=(50, 6))
    h = (X @ W1.astype(np.float64)).reshape(50, 2, 3).transpose(0, 2, 1).reshape(50, 6)
    np.testing.assert_allclose(assay.models.load(str(path)).predict_scores(X),
                               relu(h) @ W2.astype(np.float64), rtol=1e-9, atol=1e-9)


def test_dropout_nodes_and_zero_pads_pass_through(tmp_path, rng):
    W = rng.normal(size=(4, 3)).astype(np.float32)
    nodes = [helper.make_node("Dropout", ["x", "ratio"], ["d", "mask"]),
             helper.make_node("Pad", ["d", "pads"], ["p"]),
             helper.make_node("Neg", ["p"], ["n"]),
             helper.make_node("MatMul", ["n", "W"], ["y"])]
    path = save(tmp_path, nodes, [f32("ratio", 0.25), i64("pads", [0, 0, 0, 0]), f32("W", W)],
                [1, 4], [1, 3])
    X = rng.normal(size=(20, 4))
    np.testing.assert_allclose(assay.models.load(str(path)).predict_scores(X),
                               -X @ W.astype(np.float64), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("node, message", [
    (helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT64, name="c"),
     'node "c" (Cast): casts the running tensor to int64, which changes its values'),
    (helper.make_node("Transpose", ["x"], ["y"], perm=[0, 0], name="t"),
     'node "t" (Transpose): perm [0x0] is not a permutation of the 2 axes'),
    (helper.make_node("Pad", ["x", "pads1"], ["y"], name="p", mode="edge"),
     'node "p" (Pad): mode "edge" is not supported; assay imports constant padding'),
    (helper.make_node("Dropout", ["x", "ratio", "yes"], ["y"], name="d"),
     'node "d" (Dropout): runs in training mode'),
    (helper.make_node("LeakyRelu", ["x"], ["y"], name="l"),
     'node "l" (LeakyRelu): unsupported operator'),
])
def test_patterns_that_change_values_are_refused_by_node(tmp_path, node, message):
    inits = [i64("pads1", [0, 1, 0, 0]), f32("ratio", 0.5),
             numpy_helper.from_array(np.array(True), "yes")]
    path = save(tmp_path, [node], inits, [1, 4], [1, 4])
    with pytest.raises(AssayError) as e:
        assay.models.load(str(path))
    assert message in str(e.value)


def test_constant_shape_arithmetic_is_evaluated(tmp_path, rng):
    # Slice, Mul, Div, Cast and ConstantOfShape on shapes, as exporters of dynamic graphs write.
    W = rng.normal(size=(12, 2)).astype(np.float32)
    nodes = [helper.make_node("Shape", ["x"], ["s"]),                     # [1, 3, 4]
             helper.make_node("Slice", ["s", "one", "big"], ["tail"]),    # [3, 4]
             helper.make_node("Cast", ["tail"], ["tail_f"], to=TensorProto.FLOAT),
             helper.make_node("Div", ["tail_f", "two_f"], ["half"]),      # [1.5, 2]
             helper.make_node("Mul", ["tail", "tail"], ["sq"]),           # [9, 16]
             helper.make_node("ConstantOfShape", ["two_i"], ["zeros"]),  # [0, 0]
             helper.make_node("Gather", ["s", "last"], ["n"], axis=0),    # [4]
             helper.make_node("Mul", ["n", "three"], ["twelve"]),         # [12]
             helper.make_node("Concat", ["one", "twelve"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["flat"]),
             helper.make_node("MatMul", ["flat", "W"], ["y"])]
    inits = [i64("one", [1]), i64("big", [9223372036854775807]), f32("two_f", 2.0),
             i64("two_i", [2]), i64("last", [-1]), i64("three", [3]), f32("W", W)]
    path = save(tmp_path, nodes, inits, [1, 3, 4], [1, 2])
    X = rng.normal(size=(10, 12))
    np.testing.assert_allclose(assay.models.load(str(path)).predict_scores(X),
                               X @ W.astype(np.float64), rtol=1e-12, atol=1e-12)


# --- VNN-COMP 2021 ---------------------------------------------------------------------------

vnncomp = pytest.mark.skipif(not VNNCOMP.exists(),
                             reason=f"VNN-COMP 2021 data not found at {VNNCOMP} "
                                    "(set ASSAY_VNNCOMP_DATA)")


def numpy_forward(model, X):
    """The graph evaluated op by op with numpy (Flatten, Gemm, Relu: mnistfc's operators)."""
    g = model.graph
    values = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in g.initializer}
    values[g.input[0].name] = X.reshape((len(X),) + (784, 1))
    for node in g.node:
        x = values[node.input[0]]
        if node.op_type == "Flatten":
            out = x.reshape(len(x), -1)
        elif node.op_type == "Gemm":
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            W = values[node.input[1]]
            out = x @ (W.T if attrs.get("transB", 0) else W) + values[node.input[2]]
        elif node.op_type == "Relu":
            out = relu(x)
        else:
            raise AssertionError(node.op_type)
        values[node.output[0]] = out
    return values[g.output[0].name]


@vnncomp
@pytest.mark.parametrize("name", ["mnist-net_256x2.onnx", "mnist-net_256x4.onnx",
                                  "mnist-net_256x6.onnx"])
def test_vnncomp_mnistfc_networks_predict_as_their_graph(rng, name):
    path = VNNCOMP / "mnistfc" / name
    model = assay.models.load(str(path))
    assert model.n_features == 784
    X = rng.random(size=(50, 784))
    np.testing.assert_allclose(model.predict_scores(X), numpy_forward(onnx.load(str(path)), X),
                               rtol=1e-9, atol=1e-9)


@vnncomp
@pytest.mark.parametrize("path", ["verivital/Convnet_avgpool.onnx",
                                  "verivital/Convnet_maxpool.onnx",
                                  "cifar10_resnet/onnx/resnet_2b.onnx"])
def test_vnncomp_convolutional_networks_are_graph_networks(path):
    # Their forward pass is checked in test_count_onnx_graph.py.
    out = subprocess.run([cli_path(), "model", "info", str(VNNCOMP / path)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "graph" in out.stdout and "neurons" in out.stdout
