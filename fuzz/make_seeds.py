#!/usr/bin/env python3
"""Writes the fuzzers' seed inputs to fuzz/seeds/<target>/ (committed; run again after changing).

Small valid (and a few nearly valid) files of every format the parsers read, made with the
format's reference writers where Debian ships one (numpy, nibabel, xgboost, onnx); the fuzzers
mutate them. Usage: python3 fuzz/make_seeds.py [folder], default fuzz/seeds.
"""
import gzip
import io
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "seeds"


def put(target, name, data):
    folder = OUT / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data.encode() if isinstance(data, str) else data)


def csv_seeds():
    put("fuzz_csv", "numbers.csv", "a,b,label\n1,2.5,0\n-3e2,nan,1\n+4, inf ,0\n")
    put("fuzz_csv", "quoted.csv", 'id,"text, quoted",y\r\n1,"a ""b""\nc",2\r\n2,,3\r\n')
    put("fuzz_csv", "bom.csv", "\ufeffx,y\n1,a\n\n2,b\n")
    put("fuzz_csv", "comments.csv", "# comment\nx;y\n# more\n1;2\n,3\n")
    put("fuzz_csv", "header_only.csv", "a,b,c\n")
    put("fuzz_csv", "ragged.csv", "a,b\n1,2,3\n4\n")


def npy_seeds():
    arrays = {
        "f8_2d.npy": np.arange(6, dtype="<f8").reshape(2, 3),
        "f4_1d.npy": np.array([0.5, -1, np.nan], dtype="<f4"),
        "i4.npy": np.array([1, -2, 3], dtype="<i4"),
        "u1.npy": np.array([[0, 255]], dtype="u1"),
        "bool.npy": np.array([True, False]),
        "be_f8.npy": np.array([1.0, 2.0], dtype=">f8"),
        "i8_fortran.npy": np.asfortranarray(np.arange(6, dtype="<i8").reshape(3, 2)),
        "scalar.npy": np.array(3.0),
        "empty.npy": np.zeros((0, 4)),
        "i2.npy": np.array([-7, 7], dtype="<i2"),
    }
    for name, a in arrays.items():
        buf = io.BytesIO()
        np.save(buf, a)
        put("fuzz_npy", name, buf.getvalue())


def nifti_seeds():
    import nibabel as nib
    affine = np.diag([2.0, 2.0, 3.0, 1.0])
    volumes = {
        "u1": np.arange(24, dtype=np.uint8).reshape(2, 3, 4),
        "i2": np.arange(-12, 12, dtype=np.int16).reshape(3, 2, 4),
        "f4": np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 2, 2),
        "f8_4d": np.ones((2, 2, 1, 1)),
    }
    for name, data in volumes.items():
        img = nib.Nifti1Image(data, affine)
        raw = img.to_bytes()
        put("fuzz_nifti", f"{name}.nii", raw)
        put("fuzz_nifti", f"{name}.nii.gz", gzip.compress(raw, mtime=0))
    scaled = nib.Nifti1Image(np.arange(8, dtype=np.int16).reshape(2, 2, 2), affine)
    scaled.header.set_slope_inter(0.5, 10)
    put("fuzz_nifti", "scaled.nii", scaled.to_bytes())
    put("fuzz_nifti", "nifti2.nii",
        nib.Nifti2Image(np.zeros((2, 2, 2), dtype=np.float32), affine).to_bytes())


def sklearn_model_seeds():
    """Models written by assay.models.from_sklearn, when the assay Python package is importable."""
    try:
        import assay.models
        from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
        from sklearn.neural_network import MLPClassifier
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
    except ImportError as e:
        print(f"make_seeds: no sklearn-made model seeds ({e})", file=sys.stderr)
        return
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(40, 3)).astype(float)
    y = (X[:, 0] + X[:, 1] > 2).astype(int)
    y3 = (X[:, 0] + X[:, 2]).astype(int) % 3
    estimators = {
        "dt.json": DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y),
        "dt3.json": DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y3),
        "dtr.json": DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, X[:, 0]),
        "rf.json": RandomForestClassifier(n_estimators=2, max_depth=2, random_state=0).fit(X, y),
        "gb.json": GradientBoostingClassifier(n_estimators=2, max_depth=2,
                                              random_state=0).fit(X, y),
        "mlp.json": MLPClassifier(hidden_layer_sizes=(3,), max_iter=20,
                                  random_state=0).fit(X, y3),
    }
    for name, est in estimators.items():
        put("fuzz_model_json", name, assay.models.from_sklearn(est).to_json())


def xgboost_seeds():
    import xgboost as xgb
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(60, 3)).astype(np.float32)
    labels = {"binary:logistic": (X[:, 0] > 1).astype(int), "multi:softprob": X[:, 1] % 3,
              "reg:squarederror": X[:, 2] * 0.5}
    for objective, y in labels.items():
        params = {"objective": objective, "max_depth": 2, "nthread": 1, "seed": 0}
        if objective.startswith("multi"):
            params["num_class"] = 3
        booster = xgb.train(params, xgb.DMatrix(X, label=y), num_boost_round=2)
        raw = booster.save_raw(raw_format="json")
        put("fuzz_xgboost_json", objective.split(":")[1] + ".json", bytes(raw))


def onnx_seeds():
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def init(name, a):
        return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)

    def save(name, nodes, inits, n_in, n_out):
        graph = helper.make_graph(
            nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n_in])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n_out])], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        put("fuzz_onnx", name, model.SerializeToString())

    save("gemm_relu.onnx",
         [helper.make_node("Sub", ["x", "m"], ["s"]), helper.make_node("Div", ["s", "d"], ["h"]),
          helper.make_node("Gemm", ["h", "W", "b"], ["z"], transB=1),
          helper.make_node("Relu", ["z"], ["r"]),
          helper.make_node("MatMul", ["r", "W2"], ["q"]),
          helper.make_node("Add", ["q", "b2"], ["y"])],
         [init("m", [0, 1]), init("d", [1, 2]), init("W", [[1, -1], [0.5, 2], [1, 1]]),
          init("b", [0, 0.1, -0.1]), init("W2", [[1, 0], [0, 1], [1, 1]]), init("b2", [0, 1])],
         2, 2)
    save("softmax.onnx",
         [helper.make_node("Flatten", ["x"], ["f"]),
          helper.make_node("MatMul", ["f", "W"], ["z"]),
          helper.make_node("Sigmoid", ["z"], ["s"]),
          helper.make_node("Softmax", ["s"], ["y"])],
         [init("W", [[1, 2, 3], [-1, 0, 1]])], 2, 3)


def text_seeds():
    for spec in sorted((HERE.parent / "examples" / "count").glob("*.spec")):
        put("fuzz_spec", spec.name, spec.read_bytes())
    put("fuzz_spec", "mixed.spec",
        "const n = 2;\ninput a[2] : int[0, 3];\ninput t : real[-1, 1] step 0.25;\n"
        "input b : bool;\npred big = (sum i in 0..n-1 : a[i]) > 3;\n"
        "truth 1 = big or (t >= 0.5 and not b);\n"
        "safety S = b => label == 0;\nsafety M = score[1] > score[0] => argmax == 1;\n"
        "region R = ball([1, 2, 0, 1], 1) label 1;\n"
        "pred c = (if b then a[0] else a[1] * 2) == 2 * n;\n")
    put("fuzz_vnnlib", "prop.vnnlib",
        "; a property\n(declare-const X_0 Real)\n(declare-const X_1 Real)\n"
        "(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n"
        "(assert (<= X_0 1))\n(assert (>= X_0 -1))\n"
        "(assert (or (and (<= X_1 0.5) (>= X_1 0))\n            (and (<= X_1 -0.25) (>= X_1 -1))))\n"
        "(assert (or (and (<= Y_1 Y_0) (>= Y_0 2.5))\n"
        "            (and (> (+ Y_0 (* 2 Y_1)) (- X_0 1)))))\n")
    put("fuzz_vnnlib", "int.vnnlib",
        "(declare-const X_0 Int)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n"
        "(assert (<= X_0 3))\n(assert (>= X_0 0))\n(assert (< Y_0 Y_1))\n")
    put("fuzz_dimacs", "small.cnf", "c a comment\np cnf 3 2\n1 -2 0\n2 3 -1 0\n")
    put("fuzz_dimacs", "projected.cnf",
        "p cnf 4 3\nc ind 1 2 0\n1 2 0 -3\n4 0\n-1 -4 0\nx1 -2 3 0\n")
    put("fuzz_dimacs", "show.cnf", "c p show 1 3 0\np cnf 3 1\n1 1 -2 0\n")


if __name__ == "__main__":
    csv_seeds()
    npy_seeds()
    nifti_seeds()
    sklearn_model_seeds()
    xgboost_seeds()
    onnx_seeds()
    text_seeds()
    for folder in sorted(OUT.iterdir()):
        print(f"{folder.name}: {len(list(folder.iterdir()))} seeds", file=sys.stderr)
