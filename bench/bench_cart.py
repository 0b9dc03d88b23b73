"""cart: assay vs R rpart, in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_cart.py [--n 1e6] [--repeats 3]

Data: zipUSPS (../shared/data/soak/zipUSPS.csv, all 9298 rows x 256 features, 10 classes) and a
generated binary data set of --n rows x 50 standard-normal features (seed 0; the label is the sign
of x0 + 0.8 x1 - 0.6 x2 x3 + 0.5 sin(3 x4) + 0.8 noise), both with rpart's default parameters
(minsplit 20, minbucket 7, cp 0.01, maxdepth 30).
R: bench/cart_peer.R in a fresh Rscript, timed inside R with system.time around rpart() only,
twice: with rpart.control(xval = 0) (its defaults except the 10-fold cross-validation, which only
fills the cp table and does not change the tree) and "tree only" (xval = 0, maxsurrogate = 0,
maxcompete = 0: the least work rpart can do for this tree). assay: learner_fit("cart") from
Python (the time includes copying X into assay's data set and its checks), best of --repeats,
single-threaded and on all cores. Checks that the trees are identical (node numbers, split
variables, thresholds, node sizes) and reports the largest difference of the predicted
probabilities of every row. Prints a table and writes bench/results/cart.md.
"""
import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SOAK = os.environ.get("ASSAY_SOAK_DATA") or os.path.join(ROOT, "..", "shared", "data", "soak")

from assay import _assay  # noqa: E402

R_CONTROLS = {
    "rpart": "rpart.control(xval = 0)",
    "rpart tree only": "rpart.control(xval = 0, maxsurrogate = 0, maxcompete = 0)",
}


def load_zip():
    import csv
    with open(os.path.join(SOAK, "zipUSPS.csv")) as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    label = header.index("y")
    features = [i for i, name in enumerate(header) if name.startswith("x")]
    x = np.array([[float(r[i]) for i in features] for r in rows])
    labels = [r[label] for r in rows]
    classes = sorted(set(labels), key=float)
    y = np.array([classes.index(v) for v in labels], dtype=np.int32)
    return x, y, classes


def generate(n, p=50, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    s = (x[:, 0] + 0.8 * x[:, 1] - 0.6 * x[:, 2] * x[:, 3] + 0.5 * np.sin(3 * x[:, 4]) +
         0.8 * rng.normal(size=n))
    return x, (s > 0).astype(np.int32), ["0", "1"]


def run_r(x, y, n_classes, control, workdir):
    data = os.path.join(workdir, "data.bin")
    if not os.path.exists(data):
        with open(data, "wb") as f:
            f.write(np.ascontiguousarray(x, dtype="<f8").tobytes())
            f.write(np.ascontiguousarray(y, dtype="<i4").tobytes())
    out = os.path.join(workdir, "r")
    subprocess.run(["Rscript", os.path.join(HERE, "cart_peer.R"), data, str(x.shape[0]),
                    str(x.shape[1]), str(n_classes), control, out], check=True)
    elapsed, cpu = map(float, open(out + ".time").read().split())
    tree = []
    for line in open(out + ".tree"):
        node, var, n, cut, ncat = line.split()
        tree.append((int(node), var, int(n), None if cut == "NA" else float(cut), int(ncat)))
    pred = np.fromfile(out + ".pred", dtype="<f8").reshape(x.shape[0], -1)
    return elapsed, cpu, tree, pred


def run_assay(x, y, classes, threads, repeats, record_tree=False):
    params = json.dumps({"record_tree": True} if record_tree else {})
    best_wall, best_cpu, model = float("inf"), float("inf"), None
    for _ in range(repeats):
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t = time.perf_counter()
        model = _assay.learner_fit("cart", params, x, y, classes, None, None, "classification", 0,
                                   threads)
        wall = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu, model


def assay_tree(model):
    desc = model.description
    desc = json.loads(desc) if isinstance(desc, str) else desc
    return [(t["node"], t["var"], t["n"], t.get("threshold"), t.get("ncat", 0))
            for t in desc["tree"]]


def r_version():
    out = subprocess.run(["Rscript", "-e", "cat(R.version$major, R.version$minor, "
                          "as.character(packageVersion('rpart')))"],
                         capture_output=True, text=True, check=True).stdout.split()
    return f"R {out[0]}.{out[1]}, rpart {out[2]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=float, default=1e6)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    cases = []
    if os.path.exists(os.path.join(SOAK, "zipUSPS.csv")):
        cases.append(("zipUSPS", load_zip))
    else:
        print(f"zipUSPS.csv not found in {SOAK}: skipped", file=sys.stderr)
    n = int(args.n)
    cases.append((f"generated binary, n = {n:.0e}", lambda: generate(n)))

    rows = []
    for name, load in cases:
        x, y, classes = load()
        with tempfile.TemporaryDirectory() as workdir:
            r = {label: run_r(x, y, len(classes), control, workdir)
                 for label, control in R_CONTROLS.items()}
        wall1, cpu1, _ = run_assay(x, y, classes, 1, args.repeats)
        wall_all, _, _ = run_assay(x, y, classes, 0, args.repeats)
        _, _, model = run_assay(x, y, classes, 1, 1, record_tree=True)
        tree = assay_tree(model)
        pred = model.predict(x)
        agree = []
        for label, (_, _, r_tree, r_pred) in r.items():
            same_tree = tree == r_tree
            max_diff = float(np.max(np.abs(pred[:, :r_pred.shape[1]] - r_pred)))
            agree.append((label, same_tree, max_diff))
        rows.append(dict(name=name, shape=f"{x.shape[0]} x {x.shape[1]}", k=len(classes),
                         nodes=len(tree), wall1=wall1, cpu1=cpu1, wall_all=wall_all, r=r,
                         agree=agree))
        print(name, "done", file=sys.stderr)

    header = (
        f"Generated by `bench/bench_cart.py` on {platform.machine()} ({os.cpu_count()} CPUs), "
        f"Python {platform.python_version()}, numpy {np.__version__}, {r_version()}. Both with "
        "rpart's default tree parameters (Gini, minsplit 20, minbucket 7, cp 0.01, maxdepth 30). "
        "R: `bench/cart_peer.R` in a fresh Rscript, one run, timed inside R with `system.time` "
        "around `rpart()` only, with `xval = 0` (rpart's defaults without the 10-fold "
        "cross-validation, which only fills the cp table) and \"tree only\" (also "
        "`maxsurrogate = 0, maxcompete = 0`). assay: `learner_fit(\"cart\")` from Python "
        f"(including the copy of X into assay's data set), best of {args.repeats}, one thread "
        "and all cores (the tree does not depend on it). Wall-clock seconds, with CPU seconds "
        "(user + system) in brackets: the machine is shared, so wall time can exceed CPU time "
        "when other jobs run. Speed-up = R wall / assay wall (and R CPU / assay CPU, one "
        "thread). `agree`: same tree (node numbers, split variables, thresholds, node sizes) "
        "and the largest absolute difference of the predicted probabilities over all rows "
        "(max abs dp)."
    )
    lines = [
        "# cart: assay vs R rpart", "", header, "",
        "| data | rows x features | classes | nodes | assay 1 thread (s) | assay all cores (s) "
        "| R rpart xval=0 (s) | R tree only (s) | speed-up vs rpart (wall / CPU) "
        "| speed-up vs tree only (wall / CPU) | agree |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        r_full, r_tree = row["r"]["rpart"], row["r"]["rpart tree only"]
        best_assay = min(row["wall1"], row["wall_all"])
        agree = "; ".join(f"{label}: {'same tree' if same else 'DIFFERENT tree'}, "
                          f"max abs dp {diff:.1e}" for label, same, diff in row["agree"])
        lines.append(
            f"| {row['name']} | {row['shape']} | {row['k']} | {row['nodes']} "
            f"| {row['wall1']:.3f} ({row['cpu1']:.3f}) | {row['wall_all']:.3f} "
            f"| {r_full[0]:.2f} ({r_full[1]:.2f}) | {r_tree[0]:.2f} ({r_tree[1]:.2f}) "
            f"| {r_full[0] / best_assay:.1f}x / {r_full[1] / row['cpu1']:.1f}x "
            f"| {r_tree[0] / best_assay:.1f}x / {r_tree[1] / row['cpu1']:.1f}x | {agree} |")
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "cart.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
