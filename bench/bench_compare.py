"""Paired comparison of two models (issue 39): the paired bootstrap of the ROC AUC and AP
differences (1000 resamples) with assay.compare against the loop a user writes with numpy and
scikit-learn (draw indices, call roc_auc_score and average_precision_score for both models), and
slices with intervals (100 slices x 1e6 rows). The scikit-learn loop runs fewer resamples and is
scaled per resample (its time is linear in them). Also at small n and on a busy machine (a
second process spinning on every core). Writes bench/results/compare.md.

Usage: bench/bench_compare.py [--quick]
"""
import multiprocessing as mp
import os
import sys
import time

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

from assay.compare import compare

HERE = os.path.dirname(os.path.abspath(__file__))


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.random(n) + 0.3 * y
    b = rng.random(n) + 0.35 * y
    return y, a, b


def sklearn_loop(y, a, b, resamples):
    n = len(y)
    rng = np.random.default_rng(1)
    for _ in range(resamples):
        i = rng.integers(0, n, n)
        roc_auc_score(y[i], b[i]) - roc_auc_score(y[i], a[i])
        average_precision_score(y[i], b[i]) - average_precision_score(y[i], a[i])


def time_assay(y, a, b, resamples=1000, **kw):
    t0 = time.perf_counter()
    compare(y, {"a": a, "b": b}, metrics=["roc_auc", "average_precision"],
            n_resamples=resamples, progress=False, **kw)
    return time.perf_counter() - t0


def spin(stop):
    while not stop.is_set():
        pass


def main(quick):
    rows = []
    sizes = (1_000, 100_000) if quick else (1_000, 10_000, 100_000, 1_000_000)
    for busy in (False, True):
        stop = mp.Event()
        spinners = [mp.Process(target=spin, args=(stop,)) for _ in range(os.cpu_count() or 1)]
        if busy:
            for p in spinners:
                p.start()
        try:
            for n in sizes:
                y, a, b = data(n)
                t_assay = time_assay(y, a, b)
                peer_resamples = max(3, min(1000, int(2e7 // n)))
                t0 = time.perf_counter()
                sklearn_loop(y, a, b, peer_resamples)
                t_peer = (time.perf_counter() - t0) / peer_resamples * 1000
                rows.append((n, busy, t_peer, t_assay, peer_resamples))
                print(f"n={n:>9,} {'busy' if busy else 'idle'}: scikit-learn loop {t_peer:8.2f} s "
                      f"(from {peer_resamples} resamples)  assay {t_assay:7.3f} s  "
                      f"ratio {t_peer / t_assay:6.1f}x", flush=True)
        finally:
            stop.set()
            for p in spinners:
                if p.is_alive():
                    p.join()
    # Slices: 100 slice values over 1e6 rows, intervals for every slice (idle machine).
    n = 100_000 if quick else 1_000_000
    y, a, b = data(n, seed=1)
    region = np.random.default_rng(2).integers(0, 100, n)
    t0 = time.perf_counter()
    compare(y, {"a": a, "b": b}, metrics=["roc_auc", "average_precision"], n_resamples=1000,
            by={"slice": region.astype(str)}, progress=False)
    t_slices = time.perf_counter() - t0
    print(f"100 slices x {n:,} rows, 1000 resamples, ROC AUC and AP with intervals: "
          f"{t_slices:.1f} s")
    with open(os.path.join(HERE, "results", "compare.md"), "w") as f:
        f.write(f"Paired bootstrap of the ROC AUC and AP differences of two models, 1000 resamples, "
                f"{os.cpu_count()} cores (`bench/bench_compare.py`). The scikit-learn loop draws "
                "indices with numpy and calls roc_auc_score and average_precision_score for both "
                "models; it ran the resamples in parentheses and is scaled to 1000. Busy: one "
                "spinning process per core ran alongside.\n\n")
        f.write("| n | machine | scikit-learn loop (s, 1000 resamples) | assay.compare (s) | "
                "ratio |\n|---|---|---|---|---|\n")
        for n_, busy, t_peer, t_assay, k in rows:
            f.write(f"| {n_:,} | {'busy' if busy else 'idle'} | {t_peer:.2f} ({k}) | "
                    f"{t_assay:.3f} | {t_peer / t_assay:.1f}x |\n")
        f.write(f"\nSlices: 100 slices x {n:,} rows, 1000 resamples, ROC AUC and AP of both "
                f"models with intervals in every slice, differences and worst slices: "
                f"{t_slices:.1f} s.\n")


if __name__ == "__main__":
    main("--quick" in sys.argv)
