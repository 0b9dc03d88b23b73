"""Tuned xgboost: assay's learner vs python3-xgboost doing the same tuning, in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_xgboost.py [--folds 2] [--rows 1e5]
        [--threads 1] [--skip-zip] [--grid-on zip,binary] [--jobs 2]

Both sides tune eta over 10^(-3..0, 5 values) and nrounds over {1, 25, 50, 75, 100} by internal
K-fold CV on the same folds (_assay.internal_fold_ids(n, K, seed)), score the mean fold
misclassification rate, break ties by fewer rounds then smaller eta, and refit the chosen pair on
every row (tree_method hist, max_depth 6, the same seed and nthread). Peers, each run once:
  * python, same strategy: per fold and eta one xgboost.train of 100 rounds, the held-out rows
    scored at every round count with iteration_range (what assay does, in Python);
  * python, grid: every (eta, nrounds) pair trained separately per fold, as a generic grid search
    (GridSearchCV, mlr3's AutoTuner) does; only on the data sets named by --grid-on.
Data: zipUSPS (all 9298 rows x 256, 10 classes) and a generated binary set (--rows x 50).
Agreement: the chosen pair and CV error must be equal, and the refitted models' probabilities
equal to 1e-6. Prints a markdown table and writes bench/results/xgboost.md.
"""
import argparse
import concurrent.futures
import json
import multiprocessing
import os
import platform
import time

import numpy as np
import pandas as pd
import xgboost as xgb

from assay import _assay

HERE = os.path.dirname(os.path.abspath(__file__))
ZIP = os.path.join(HERE, "..", "..", "shared", "data", "soak", "zipUSPS.csv")
ETAS = list(10.0 ** np.linspace(-3, 0, 5))
ROUNDS = [1, 25, 50, 75, 100]


def xgb_params(k, eta, seed, threads):
    p = {"eta": eta, "max_depth": 6, "tree_method": "hist", "nthread": threads, "seed": seed}
    if k == 2:
        p["objective"] = "binary:logistic"
    else:
        p.update(objective="multi:softprob", num_class=k)
    return p


def predicted(booster, dtest, rounds, k):
    p = booster.predict(dtest, iteration_range=(0, rounds))
    return (p > np.float32(0.5)).astype(int) if k == 2 else np.argmax(p, axis=1)


def choose(scores):
    """The smallest mean error; ties -> fewer rounds, then smaller eta (assay's rule)."""
    best = None
    for r in np.argsort(ROUNDS, kind="stable"):
        for e in np.argsort(ETAS, kind="stable"):
            if best is None or scores[e, r] < scores[best]:
                best = (e, r)
    return ETAS[best[0]], ROUNDS[best[1]], scores[best]


def python_tuning(X, y, folds, seed, threads, grid):
    """Every class is present in every inner fold here (checked), so labels need no remap."""
    k = int(y.max()) + 1
    ids = _assay.internal_fold_ids(len(y), folds, seed)
    scores = np.zeros((len(ETAS), len(ROUNDS)))
    for f in range(folds):
        inner, held = ids != f, ids == f
        assert len(np.unique(y[inner])) == k
        dtrain = xgb.DMatrix(X[inner], label=y[inner], nthread=threads)
        dtest = xgb.DMatrix(X[held], nthread=threads)
        for e, eta in enumerate(ETAS):
            if grid:
                for r, nr in enumerate(ROUNDS):
                    booster = xgb.train(xgb_params(k, eta, seed, threads), dtrain, nr)
                    scores[e, r] += np.mean(predicted(booster, dtest, nr, k) != y[held])
            else:
                booster = xgb.train(xgb_params(k, eta, seed, threads), dtrain, max(ROUNDS))
                for r, nr in enumerate(ROUNDS):
                    scores[e, r] += np.mean(predicted(booster, dtest, nr, k) != y[held])
    scores /= folds
    eta, nr, err = choose(scores)
    booster = xgb.train(xgb_params(k, eta, seed, threads),
                        xgb.DMatrix(X, label=y, nthread=threads), nr)
    return (eta, nr, err), booster


def python_proba(booster, X, k, threads):
    p = booster.predict(xgb.DMatrix(X, nthread=threads)).astype(float)
    return np.column_stack([1 - p, p]) if k == 2 else p


def timed(f):
    """(wall seconds, CPU seconds of this process, all threads), result."""
    t, c = time.perf_counter(), time.process_time()
    out = f()
    return (time.perf_counter() - t, time.process_time() - c), out


def bench(name, X, y, folds, seed, threads, grid):
    k = int(y.max()) + 1
    classes = [str(c) for c in range(k)]
    params = json.dumps({"internal_folds": folds})
    t_assay, model = timed(lambda: _assay.learner_fit(
        "xgboost", params, X, y.astype(np.int32), classes, None, None, "classification", seed,
        threads))
    desc = json.loads(model.description)
    print(f"{name}: assay {t_assay[0]:.1f}s (cpu {t_assay[1]:.1f}s) {desc}", flush=True)
    t_same, (pair, booster) = timed(lambda: python_tuning(X, y, folds, seed, threads, False))
    print(f"{name}: python same strategy {t_same[0]:.1f}s (cpu {t_same[1]:.1f}s) {pair}",
          flush=True)
    diff = np.abs(model.predict(X) - python_proba(booster, X, k, threads)).max()
    agree = ((desc["eta"], desc["nrounds"]) == pair[:2] and abs(desc["cv_error"] - pair[2]) < 1e-12
             and diff <= 1e-6)
    t_grid = None
    if grid:
        t_grid, (gpair, _) = timed(lambda: python_tuning(X, y, folds, seed, threads, True))
        print(f"{name}: python grid {t_grid[0]:.1f}s (cpu {t_grid[1]:.1f}s) {gpair}",
              flush=True)
        agree = agree and gpair == pair
    return {"name": name, "assay": t_assay, "same": t_same, "grid": t_grid, "agree": agree,
            "pair": f"eta {desc['eta']:.4g}, nrounds {desc['nrounds']}",
            "cv_error": desc["cv_error"], "diff": diff}


def run_task(task):
    kind, folds, seed, threads, grid = task[:5]
    if kind == "zip":
        d = pd.read_csv(ZIP)
        codes, _ = pd.factorize(d["y"], sort=True)
        X = d.drop(columns=["subset", "y"]).to_numpy(float)
        return bench(f"zipUSPS {X.shape[0]} x {X.shape[1]}, 10 classes", X, codes, folds, seed,
                     threads, grid)
    n = task[5]
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 50))
    y = (X[:, :10] @ rng.normal(size=10) + 2 * rng.normal(size=n) > 0).astype(np.int64)
    return bench(f"generated binary {n:.0e} x 50", X, y, folds, seed, threads, grid)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--rows", type=float, default=1e5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-zip", action="store_true")
    ap.add_argument("--grid-on", default="binary")
    ap.add_argument("--jobs", type=int, default=2, help="data sets benchmarked side by side")
    args = ap.parse_args()
    grid_on = set(args.grid_on.split(",")) if args.grid_on else set()
    tasks = []
    if not args.skip_zip and os.path.exists(ZIP):
        tasks.append(("zip", args.folds, args.seed, args.threads, "zip" in grid_on))
    tasks.append(("binary", args.folds, args.seed, args.threads, "binary" in grid_on,
                  int(args.rows)))
    # One process per data set, run side by side (--jobs): each measures its own wall and CPU
    # time; nothing is shared between them but the machine.
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=ctx) as pool:
        rows = list(pool.map(run_task, tasks))

    header = (
        f"# Tuned xgboost: assay vs python3-xgboost\n\n"
        f"Generated by `bench/bench_xgboost.py --folds {args.folds} --rows {args.rows:.0e} "
        f"--threads {args.threads} --jobs {args.jobs}` on {platform.machine()} "
        f"({os.cpu_count()} CPUs, shared with other jobs: wall times are noisy, so CPU seconds "
        f"of each process are shown too), Python {platform.python_version()}, xgboost "
        f"{xgb.__version__} (Debian's libxgboost under both). Each side runs once; the "
        f"data sets run side by side in {args.jobs} processes (timed separately). Both tune eta "
        f"over 5 log-spaced values in [0.001, 1] and nrounds over {{1, 25, 50, 75, 100}} by "
        f"internal {args.folds}-fold CV on the same folds (fewer than the learner's default 10 "
        f"to keep the run within minutes on this machine), tree_method hist, nthread "
        f"{args.threads}, then refit the chosen pair on every row. *Same strategy*: Python "
        f"trains each eta once per fold for 100 rounds and scores every round count with "
        f"iteration_range, as assay does; *grid*: Python trains every (eta, nrounds) pair "
        f"separately (a generic grid search: 1255 boosting rounds per fold instead of 500). "
        f"Agree = same chosen pair and CV error, refitted probabilities within 1e-6. Within a "
        f"data set the sides run one after the other, so a change in the machine's load between "
        f"them moves the wall ratio; the CPU ratio is the fair comparison here.\n")
    lines = ["| data | assay wall / CPU (s) | python same strategy wall / CPU (s) | ratio wall / "
             "CPU | python grid wall / CPU (s) | ratio wall / CPU | chosen | cv error | agree |",
             "|---|---:|---:|---:|---:|---:|---|---:|:---:|"]

    def pair(t):
        return f"{t[0]:.1f} / {t[1]:.1f}"

    def ratio(t, a):
        return f"{t[0] / a[0]:.2f}x / {t[1] / a[1]:.2f}x"

    for r in rows:
        grid = pair(r["grid"]) if r["grid"] else "not run"
        gratio = ratio(r["grid"], r["assay"]) if r["grid"] else ""
        lines.append(f"| {r['name']} | {pair(r['assay'])} | {pair(r['same'])} | "
                     f"{ratio(r['same'], r['assay'])} | {grid} | {gratio} | {r['pair']} | "
                     f"{r['cv_error']:.4f} | {'yes' if r['agree'] else 'NO'} |")
    text = header + "\n" + "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "xgboost.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
