#!/usr/bin/env python3
"""Per-call cost of assay's parallel loops at the sizes where they start to split work, and the
threads a process holds after many calls (docs/performance.md, "Threads").

Times a few metrics whose inputs are just above their parallel thresholds (where a loop's
threading overhead is largest relative to its work) with the process default (all CPUs) and
with one thread, best of several repeats, and counts /proc/self/task before and after 2,000 calls
(a pool keeps it constant; creating threads per call shows as churn only in the time).
Run with the build's Python package on PYTHONPATH; --label names the build in the output."""
import argparse
import os
import platform
import timeit

import numpy as np

import assay
import assay.metrics as am


def tasks():
    return len(os.listdir("/proc/self/task"))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--label", default="this build")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    cases = []
    for n in (1 << 18, 1 << 19, 1 << 20, 1 << 21):
        y, p = rng.integers(0, 5, n).astype(np.int64), rng.integers(0, 5, n).astype(np.int64)
        yt, yp = rng.random(n), rng.random(n)
        cases.append((f"confusion_matrix, 5 classes, n={n}", lambda y=y, p=p: am.confusion_matrix(y, p)))
        cases.append((f"mean_squared_error, n={n}", lambda yt=yt, yp=yp: am.mean_squared_error(yt, yp)))
    print(f"# {args.label}: {platform.machine()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}")
    print("| case | default threads (µs) | 1 thread (µs) | ratio |")
    print("|---|---:|---:|---:|")
    # Builds before the pool have no set_num_threads: only their default column is timed.
    settable = hasattr(assay, "set_num_threads")
    for name, f in cases:
        number = 20
        t_all = min(timeit.repeat(f, number=number, repeat=args.repeat)) / number
        t_one = float("nan")
        if settable:
            assay.set_num_threads(1)
            t_one = min(timeit.repeat(f, number=number, repeat=args.repeat)) / number
            assay.set_num_threads(0)
        print(f"| {name} | {t_all * 1e6:.0f} | {t_one * 1e6:.0f} | {t_one / t_all:.2f} |")
    f = cases[0][1]
    f()
    before = tasks()
    for _ in range(2000):
        f()
    print(f"\nthreads of the process before / after 2,000 calls: {before} / {tasks()}")


if __name__ == "__main__":
    main()
