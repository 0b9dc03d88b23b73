"""CSV loading: assay.io.read_csv vs pandas.read_csv on 1e6 and 1e7 rows x 3 columns.

Columns: label (int 0/1), score (float in [0, 1)), weight (float in [0, 3)), written once by
pandas' to_csv (shortest round-trip float repr, ~40 bytes a row) into /tmp and reused.
Both readers return float64 numpy arrays per column (assay: a dict; pandas: a DataFrame).
Times are the best of several runs in one process; the ratio is pandas / assay.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_csv.py [--sizes 1e6 1e7] [--out FILE]
"""
import argparse
import os
import platform
import time

import numpy as np
import pandas as pd

import assay
import assay.io


def make_file(n):
    path = f"/tmp/assay_bench_csv_{n}.csv"
    if not os.path.exists(path):
        rng = np.random.default_rng(42)
        df = pd.DataFrame({"label": rng.integers(0, 2, n), "score": rng.random(n),
                           "weight": rng.random(n) * 3})
        df.to_csv(path + ".tmp", index=False)
        os.replace(path + ".tmp", path)
    return path


def best(f, repeat):
    """Best wall time and best CPU time (all threads) over `repeat` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        f()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", nargs="*", type=float, default=[1e6, 1e7])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results", "csv.md"))
    args = parser.parse_args()
    rows = []
    for size in args.sizes:
        n = int(size)
        path = make_file(n)
        mb = os.path.getsize(path) / 1e6
        # Same values (pandas' default float parser may differ by 1 ulp; round_trip is exact).
        ours = assay.io.read_csv(path)
        ref = pd.read_csv(path, float_precision="round_trip")
        for name in ours:
            np.testing.assert_array_equal(ours[name], ref[name].to_numpy(dtype=np.float64))
        del ours, ref
        t_pandas, c_pandas = best(lambda: pd.read_csv(path), 2)
        t_assay, _ = best(lambda: assay.io.read_csv(path), 3)
        t_assay1, c_assay1 = best(lambda: assay.io.read_csv(path, threads=1), 3)
        row = (n, mb, t_pandas, t_assay, t_pandas / t_assay, t_assay1, t_pandas / t_assay1,
               c_pandas, c_assay1, c_pandas / c_assay1)
        rows.append(row)
        print(f"n={n:.0e} ({mb:.0f} MB): pandas {t_pandas:.3f} s, assay {t_assay:.3f} s "
              f"({row[4]:.1f}x), assay 1 thread {t_assay1:.3f} s ({row[6]:.1f}x); CPU s: "
              f"pandas {c_pandas:.3f}, assay 1 thread {c_assay1:.3f} ({row[9]:.1f}x); "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)
    lines = [
        "# CSV loading: assay.io.read_csv vs pandas.read_csv",
        "",
        f"Machine: {os.cpu_count()} cores, {platform.machine()}; pandas {pd.__version__}, "
        f"numpy {np.__version__}. Produced by `bench/bench_csv.py`.",
        "File: rows x 3 columns (int label, float score, float weight) written by `DataFrame.to_csv`;",
        "both readers return float64 arrays. Best of 2 (pandas) / 3 (assay) runs, page cache warm.",
        "Wall-clock seconds, plus CPU seconds (process time, all threads), which shared machines",
        f"distort less (load average when written: {os.getloadavg()[0]:.1f}).",
        "",
        "| rows | file MB | pandas.read_csv s | assay s (all cores) | ratio | assay s (1 thread) | ratio "
        "| pandas CPU s | assay CPU s (1 thread) | CPU ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, mb, tp, ta, ra, t1, r1, cp, c1, rc in rows:
        lines.append(f"| {n:.0e} | {mb:.0f} | {tp:.3f} | {ta:.3f} | {ra:.1f}x | {t1:.3f} | {r1:.1f}x "
                     f"| {cp:.3f} | {c1:.3f} | {rc:.1f}x |")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
