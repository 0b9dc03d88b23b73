"""Shift measures: assay vs numpy implementations of the same formulas, in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_shift.py [--n 1e7] [--ensemble 10,1e6,10]

1. Error-retention curve + R-AUC (convention "shifts": tie groups averaged) and F1 retention +
   F1-AUC + F1@95 on n samples (squared errors; uncertainty continuous, or rounded to 2
   decimals = heavy ties). numpy: the formulas of docs/shift.md written with np.unique /
   bincount / argsort / cumsum (the Shifts code itself uses pandas for the grouping, slower).
2. Ensemble uncertainty of M members x n samples x K classes (entropy of expected, expected
   entropy, MI, EPKL, RMI, confidence) and of a Gaussian regression ensemble (M x n x 2: total
   variance, data, knowledge, epkl_reg, EPKL), numpy as in Shifts' uncertainty code.
assay: best of --repeats, single-threaded (threads=1) and on all cores; numpy: one run for the
retention rows (seconds each), best of --repeats for the ensemble rows (tenths of a second, where
one run is noisy). Checks
that the results agree (1e-12 relative, 1e-12 absolute for entropies), measures assay's extra
peak memory per sample for the retention call (fresh subprocess, VmHWM reset), prints a table
and writes bench/results/shift.md.
"""
import argparse
import os
import platform
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from machine_limits import copy_seconds  # noqa: E402


def best_time(f, repeats):
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def once(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


# numpy implementations of the formulas (the oracles of tests/python/test_shift.py).
def np_retention(errors, uncertainty):
    n = len(errors)
    _, inverse = np.unique(uncertainty, return_inverse=True)
    means = np.bincount(inverse, weights=errors) / np.bincount(inverse)
    order = np.argsort(uncertainty, kind="stable")
    curve = np.zeros(n + 1)
    curve[:-1] = np.cumsum(means[inverse][order])[::-1] / n
    return curve, curve.mean()


def np_f1(errors, uncertainty, threshold):
    acceptable = (errors <= threshold).astype(np.float64)
    n = len(acceptable)
    order = np.argsort(-uncertainty, kind="mergesort")[::-1]
    tp = np.cumsum(acceptable[order])
    k = np.arange(1, n + 1)
    precision = np.r_[1.0, tp / k]
    recall = np.r_[0.0, tp / tp[-1]]
    f = 2 * precision * recall / (precision + recall + 1e-10)
    auc = np.trapz(f, np.arange(n + 1) / (n + 1))
    return f, auc, f[int(0.95 * (n + 1))]


def np_ensemble(probs, eps=1e-10):
    mean = probs.mean(axis=0)
    mean_log = np.log(probs + eps).mean(axis=0)
    eoe = -np.sum(mean * np.log(mean + eps), axis=-1)
    exe = np.mean(-np.sum(probs * np.log(probs + eps), axis=-1), axis=0)
    epkl = -np.sum(mean * mean_log, axis=-1) - exe
    return {"entropy_of_expected": eoe, "expected_entropy": exe, "mutual_information": eoe - exe,
            "epkl": epkl, "reverse_mutual_information": epkl - (eoe - exe),
            "confidence": mean.max(axis=-1)}


def np_regression(preds, eps=1e-10):
    means, var = preds[:, :, 0], preds[:, :, 1]
    ve = var + eps
    avg_inv = np.mean(1 / ve, 0)
    epkl_reg = 0.5 * (np.mean(means ** 2 + ve, 0) * avg_inv
                      - 2 * means.mean(0) * np.mean(means / ve, 0)
                      + np.mean(means * means / ve + np.log(ve), 0) + np.log(2 * np.pi))
    mbar = means.mean(0)
    vbar = ve.mean(0)
    epkl = 0.5 * (np.mean((vbar - ve) / ve, 0) + means.var(0) * avg_inv
                  + np.mean((mbar - means) ** 2 / ve, 0))
    return {"total_variance": means.var(0) + var.mean(0), "data_uncertainty": var.mean(0),
            "knowledge_uncertainty": means.var(0), "epkl_reg": epkl_reg, "epkl": epkl}


MEMORY_CHILD = r"""
import sys, numpy as np
sys.path.insert(0, sys.argv[3])
import assay.shift as sh
n, ties = int(sys.argv[1]), sys.argv[2] == "1"
rng = np.random.default_rng(0)
e = rng.normal(size=n) ** 2
u = rng.random(n)
if ties:
    u = np.round(u, 2)
sh.retention_curve(e[:1000], u[:1000]); sh.f1_retention(e[:1000], u[:1000], 1.0)

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024

with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS:")
r = sh.retention_curve(e, u)
f = sh.f1_retention(e, u, 1.0)
print((status("VmHWM:") - before) / n)
"""


def extra_bytes_per_sample(n, ties):
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__import__("assay").__file__)))
    out = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(n), "1" if ties else "0", pkg],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def close(a, b, rtol=1e-12, atol=0.0):
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", default="1e7")
    parser.add_argument("--ensemble", default="10,1e6,10", help="members,samples,classes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "shift.md"))
    args = parser.parse_args()
    import assay.shift as sh

    rows = []
    n = int(float(args.n))
    rng = np.random.default_rng(0)
    errors = rng.normal(size=n) ** 2
    for ties in (False, True):
        unc = errors * rng.uniform(0.2, 2.0, n) + rng.random(n)
        if ties:
            unc = np.round(unc, 2)

        def run_assay():
            r = sh.retention_curve(errors, unc)
            f = sh.f1_retention(errors, unc, 1.0)
            return r.curve, r.r_auc, f.curve, f.f1_auc, f.f1_at_95

        t_a, a = best_time(run_assay, args.repeats)

        def run_numpy():
            curve, r_auc = np_retention(errors, unc)
            f, f_auc, f95 = np_f1(errors, unc, 1.0)
            return curve, r_auc, f, f_auc, f95

        t_n, b = once(run_numpy)
        ok = (close(a[0], b[0], atol=1e-15) and close(a[1], b[1], rtol=1e-10)
              and close(a[2], b[2], atol=1e-15) and close(a[3], b[3], rtol=1e-10)
              and close(a[4], b[4]))
        mem = extra_bytes_per_sample(n, ties)
        rows.append((f"retention + R-AUC + F1-AUC, n = {n:.0e}, {'ties' if ties else 'no ties'}",
                     t_a, None, t_n, ok, mem, copy_seconds(errors, unc)))
        print(rows[-1], flush=True)
        del unc

    m, ns, k = (int(float(x)) for x in args.ensemble.split(","))
    probs = rng.random((m, ns, k))
    probs[probs < 0.1] = 0  # exact zeros
    probs /= probs.sum(-1, keepdims=True)
    t1, a = best_time(lambda: sh.ensemble_uncertainty(probs, threads=1), args.repeats)
    tall, _ = best_time(lambda: sh.ensemble_uncertainty(probs, threads=0), args.repeats)
    t_n, b = best_time(lambda: np_ensemble(probs), args.repeats)
    ok = all(close(a[key], b[key], rtol=1e-12, atol=1e-12) for key in b)
    rows.append((f"ensemble_uncertainty, {m} x {ns:.0e} x {k}", t1, tall, t_n, ok, None,
                 copy_seconds(probs)))
    print(rows[-1], flush=True)
    del probs
    preds = np.stack([rng.normal(100, 20, (m, ns)), rng.gamma(2.0, 5.0, (m, ns))], axis=-1)
    t1, a = best_time(lambda: sh.ensemble_uncertainty_regression(preds, threads=1), args.repeats)
    tall, _ = best_time(lambda: sh.ensemble_uncertainty_regression(preds, threads=0), args.repeats)
    t_n, b = best_time(lambda: np_regression(preds), args.repeats)
    ok = all(close(a[key], b[key], rtol=1e-11, atol=1e-12) for key in b)
    rows.append((f"ensemble_uncertainty_regression, {m} x {ns:.0e} x 2", t1, tall, t_n, ok, None,
                 copy_seconds(preds)))
    print(rows[-1], flush=True)

    ncpu = os.cpu_count()
    lines = [
        "# Shift measures: assay vs numpy",
        "",
        f"Generated by `bench/bench_shift.py` on {platform.machine()} ({ncpu} CPUs), Python "
        f"{platform.python_version()}, numpy {np.__version__}. numpy runs the same formulas "
        "([shift.md](shift.md), the oracles of tests/python/test_shift.py), one run for the retention "
        f"rows and best of {args.repeats} for the ensemble rows; assay: best of "
        f"{args.repeats}. Retention rows: `retention_curve` (convention shifts, ties grouped) "
        "plus `f1_retention` (threshold 1) on squared errors; single-threaded (two radix sorts). "
        "Ensemble rows: single-threaded and on all cores (`threads=0`; the result does not depend "
        "on it). `extra B/sample`: peak RSS growth during the assay retention calls (fresh "
        "process, VmHWM reset) divided by n: O(n) memory, the curves themselves are 16 B/sample. "
        "`x copy`: assay's single-threaded time over the time to copy its inputs once in the same "
        "run (bench/machine_limits.py; a task that reads all its inputs cannot beat about half "
        "of it).",
        "",
        "| task | assay 1 thread (s) | assay all cores (s) | numpy (s) | speed-up 1 thread | "
        "speed-up all cores | agree | extra B/sample | x copy |",
        "|---|---:|---:|---:|---:|---:|:---:|---:|---:|",
    ]
    for name, t1, tall, tn, ok, mem, t_copy in rows:
        lines.append(
            f"| {name} | {t1:.3f} | {'' if tall is None else f'{tall:.3f}'} | {tn:.3f} | "
            f"{tn / t1:.1f}x | {'' if tall is None else f'{tn / tall:.1f}x'} | "
            f"{'yes' if ok else 'NO'} | {'' if mem is None else f'{mem:.1f}'} | "
            f"{t1 / t_copy:.1f}x |")
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
