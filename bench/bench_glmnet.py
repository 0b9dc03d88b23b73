"""glmnet: assay's cv.glmnet (internal 10-fold CV over the λ path) vs R's cv.glmnet, in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_glmnet.py [--zip-rows 1000] [--rows 1e6]
        [--threads 1,2] [--data zip,binary]

Data: zipUSPS (../shared/data/soak/zipUSPS.csv, 9298 x 256, 10 classes; --zip-rows N takes a
seeded random subset of N rows, 0 = all) and a generated binary set (--rows x 50 features,
logistic model with 10 nonzero coefficients). Both sides get the same rows and the same fold ids
(assay's internal_fold_ids, passed to R as foldid); R generates its own λ paths as cv.glmnet
does by default, and so does assay. assay: `_assay.glmnet_cv` (what the glmnet learner's fit
runs), best of --repeats, at each thread count of --threads (folds in parallel); R: one
cv.glmnet run, timed inside R with system.time around cv.glmnet only (data loading excluded).
Agreement: same path length, max coefficient difference over the whole path relative to the
largest coefficient, max relative difference of the CV deviance curve, and the chosen λ
(lambda.1se and lambda.min). Prints a markdown table and writes bench/results/glmnet.md.
"""
import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
sys.path.insert(0, HERE)

from assay import _assay  # noqa: E402
from machine_limits import copy_seconds  # noqa: E402

PEER = os.path.join(HERE, "glmnet_peer.R")
ZIP = os.path.join(ROOT, "..", "shared", "data", "soak", "zipUSPS.csv")


def r_cv(x, y, foldid):
    n, p = x.shape
    with tempfile.TemporaryDirectory() as d:
        np.ascontiguousarray(x, dtype="<f8").tofile(os.path.join(d, "x.bin"))
        np.asarray(y, dtype="<i4").tofile(os.path.join(d, "y.bin"))
        np.asarray(foldid, dtype="<i4").tofile(os.path.join(d, "foldid.bin"))
        subprocess.run(["Rscript", PEER, d, "cv", str(n), str(p), "1"], check=True)
        out = {f[:-4]: np.fromfile(os.path.join(d, f), dtype="<f8")
               for f in os.listdir(d) if f.endswith(".bin")}
    lam = out["lambda"]
    k = out["a0"].size // lam.size
    out["beta"] = out["beta"].reshape(k, lam.size, p).transpose(1, 0, 2)
    out["a0"] = out["a0"].reshape(lam.size, k)
    return out


def load_zip(rows, seed):
    data = np.loadtxt(ZIP, delimiter=",", skiprows=1, usecols=range(1, 258))
    if rows:
        pick = np.sort(np.random.default_rng(seed).choice(len(data), rows, replace=False))
        data = data[pick]
    return np.ascontiguousarray(data[:, 1:]), data[:, 0].astype(np.int32)


def make_binary(n, p, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    beta = np.zeros(p)
    beta[:10] = rng.normal(size=10)
    y = (rng.random(n) < 1 / (1 + np.exp(-(x @ beta)))).astype(np.int32)
    return x, y


def compare(name, x, y, k, threads, repeats, seed=1):
    folds = _assay.internal_fold_ids(len(y), 10, seed)
    times = {}
    cpu = float("inf")
    ours = None
    for t in threads:
        best = float("inf")
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            ours = _assay.glmnet_cv(x, y, k, None, "", seed, t)
            best = min(best, time.perf_counter() - start)
            if t == 1:
                cpu = min(cpu, time.process_time() - start_cpu)
        times[t] = best
    # The memory bound of the sweeps assay made: the bytes its column kernels streamed over the
    # K + 1 fits, at the rate this machine copies what one update-and-read kernel touches (r, v
    # and two columns; at least 512 KiB, so that numpy's call is not what is timed).
    streamed = ours["streamed_bytes_all_fits"]
    working_set = np.ones(max(4 * len(y), 1 << 16))
    bound = streamed / (2 * working_set.nbytes / copy_seconds(working_set, repeats=20))
    theirs = r_cv(x, y, folds + 1)
    same_length = len(ours["lambdas"]) == len(theirs["lambda"])
    L = min(len(ours["lambdas"]), len(theirs["lambda"]))
    coef_scale = np.abs(theirs["beta"][:L]).max()
    coef_diff = np.abs(ours["coefficients"][:L] - theirs["beta"][:L]).max() / coef_scale
    cvm_diff = np.max(np.abs(ours["cv_mean"][:L] / theirs["cvm"][:L] - 1))
    lam_1se = ours["lambdas"][ours["index_1se"]] / theirs["opt"][1] - 1
    lam_min = ours["lambdas"][ours["index_min"]] / theirs["opt"][0] - 1
    agree = same_length and coef_diff < 1e-4 and cvm_diff < 1e-6 and abs(lam_1se) < 1e-9
    return dict(name=name, n=len(y), p=x.shape[1], k=k, times=times, r=theirs["opt"][2],
                r_cpu=theirs["opt"][3], cpu=cpu,
                L=len(ours["lambdas"]), L_r=len(theirs["lambda"]), coef_diff=coef_diff,
                cvm_diff=cvm_diff, lam_1se=lam_1se, lam_min=lam_min, agree=agree,
                streamed=streamed, bound=bound,
                chosen=ours["lambdas"][ours["index_1se"]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zip-rows", type=int, default=1000,
                    help="seeded subset of zipUSPS rows (0 = all 9298: R needs tens of minutes)")
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--data", default="zip,binary", help="which data sets: zip, binary or both")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "glmnet.md"))
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    results = []
    which = args.data.split(",")
    if "zip" not in which:
        pass
    elif os.path.exists(ZIP):
        x, y = load_zip(args.zip_rows, 7)
        results.append(compare("zipUSPS" + (f" ({args.zip_rows} rows)" if args.zip_rows else ""),
                               x, y, 10, threads, args.repeats))
    else:
        print(f"zipUSPS not found at {ZIP}; skipped", file=sys.stderr)
    if "binary" in which:
        x, y = make_binary(int(args.rows), 50, 3)
        results.append(compare("generated binary", x, y, 2, threads, args.repeats))

    r_version = subprocess.run(["Rscript", "-e", "cat(R.version.string, 'glmnet',"
                                " as.character(packageVersion('glmnet')))"],
                               capture_output=True, text=True).stdout.strip()
    head = ["| data | rows x features | classes | λ (assay/R) |"
            + "".join(f" assay {t} thr (s) |" for t in threads)
            + " R cv.glmnet (s) |" + "".join(f" speed-up {t} thr |" for t in threads)
            + " CPU s assay 1 thr / R | CPU speed-up | streamed (GB) | bound (s) | x bound assay / R |"
            + " max coef diff (rel) | max cvm diff (rel) | λ.1se diff (rel) | λ.min diff (rel) |"
            " agree |",
            "|---|---|---:|---:|" + "---:|" * (2 * len(threads) + 6) + "---:|---:|---:|---:|:---:|"]
    rows = []
    for r in results:
        rows.append(f"| {r['name']} | {r['n']} x {r['p']} | {r['k']} | {r['L']}/{r['L_r']} |"
                    + "".join(f" {r['times'][t]:.2f} |" for t in threads)
                    + f" {r['r']:.2f} |"
                    + "".join(f" {r['r'] / r['times'][t]:.2f}x |" for t in threads)
                    + f" {r['cpu']:.2f} / {r['r_cpu']:.2f} | {r['r_cpu'] / r['cpu']:.2f}x |"
                    + f" {r['streamed'] / 1e9:.1f} | {r['bound']:.2f} |"
                    + f" {r['cpu'] / r['bound']:.1f} / {r['r_cpu'] / r['bound']:.1f} |"
                    + f" {r['coef_diff']:.1e} | {r['cvm_diff']:.1e} | {r['lam_1se']:.1e} |"
                    f" {r['lam_min']:.1e} | {'yes' if r['agree'] else 'NO'} |")
    header = (
        f"Generated by `bench/bench_glmnet.py` on {platform.machine()} ({os.cpu_count()} CPUs, "
        f"shared with other jobs while it ran), Python {platform.python_version()}, "
        f"numpy {np.__version__}, {r_version}. Both sides run cv.glmnet's algorithm "
        "(type.measure deviance, 10 internal folds, the same fold ids, λ paths generated as "
        "cv.glmnet generates them, lambda.1se) on the same rows. assay: `_assay.glmnet_cv` "
        "(what the glmnet learner's fit runs), best of "
        f"{args.repeats}, with the folds run in parallel at each thread count; R: one run of "
        "cv.glmnet timed inside R (system.time around cv.glmnet only). Wall-clock times depend on "
        "the other jobs sharing the machine; the CPU-seconds columns (assay at 1 thread: "
        "process time; R: user + system time of cv.glmnet) are the load-independent comparison. "
        "Agreement: coefficient "
        "paths (relative to the largest coefficient), CV deviance curves and chosen λ. "
        "The limit: `streamed` is what assay's column kernels (gradients, curvatures, residual "
        "updates, links) read and wrote over the K + 1 fits, each array of one value per row "
        "counted once per kernel call (`streamed_bytes_all_fits`); `bound` is that many bytes at "
        "the rate this machine copies, in the same run, an array the size of what one "
        "update-and-read kernel touches (r, v and two columns, at least 512 KiB; "
        "bench/machine_limits.py: one read and one write per byte): the time those sweeps would "
        "take if moving their bytes through the cache level they live in were all they cost. "
        "`x bound` is each side's CPU seconds over it. R's Fortran makes the same coordinate "
        "updates (the paths agree) and reads at least the same columns, so a CPU speed-up of s "
        "needs assay within (R's x bound) / s of the bound.")
    if ("zip" in which and args.zip_rows) or ("binary" in which and args.rows < 1e6):
        header += (
            f" Sizes: this run used --zip-rows {args.zip_rows} and --rows {int(args.rows)} "
            "(a cv.glmnet on all 9298 zipUSPS rows takes R tens of minutes on a 2-core machine; "
            "--zip-rows 0 runs it).")
    text = "# glmnet: assay vs R cv.glmnet\n\n" + header + "\n\n" + "\n".join(head + rows) + "\n"
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
