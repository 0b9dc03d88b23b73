"""SOAK split construction + materialising every train/test set: assay (_assay.SoakSplits) vs a
straightforward numpy implementation of the same set definitions (folds by np.random.permutation
within strata, or per group; sets by boolean masks), in the same process.

Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_soak_splits.py [--rows 1e6]
Writes bench/results/soak_splits.md. Data: `rows` rows, 4 subsets, 10 folds, 2 labels
(strata = subset x label), with 1e5 groups (group-aware folds) and without groups.
Peak memory is the process's max RSS after each phase (resource.getrusage), which grows by
O(rows), not O(rows x splits), because sets are built on demand and dropped.
"""
import argparse
import os
import platform
import resource
import time

import numpy as np

from assay import _assay

HERE = os.path.dirname(os.path.abspath(__file__))


def max_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def numpy_splits(subset, stratum, group, n_folds, rng):
    """Peer: folds random within strata (groups: a random fold per group, balanced by a
    permutation of 1..K,1..K,... over the groups of each stratum), then every Same/Other/All set
    by boolean masks. Returns the number of rows materialised."""
    n = len(subset)
    if group is None:
        fold = np.empty(n, dtype=np.int32)
        for s in np.unique(stratum):
            idx = np.flatnonzero(stratum == s)
            fold[idx] = rng.permutation(np.arange(len(idx)) % n_folds + 1)
    else:
        # one stratum per group (the first row's); permutation over the groups of each stratum
        uniq, first = np.unique(group, return_index=True)
        g_stratum = stratum[first]
        g_fold = np.empty(len(uniq), dtype=np.int32)
        for s in np.unique(g_stratum):
            idx = np.flatnonzero(g_stratum == s)
            g_fold[idx] = rng.permutation(np.arange(len(idx)) % n_folds + 1)
        fold = g_fold[np.searchsorted(uniq, group)]
    total = 0
    for train_subsets in ("all", "other", "same"):
        for k in range(1, n_folds + 1):
            not_k = fold != k
            for s in np.unique(subset):
                in_s = subset == s
                test = np.flatnonzero(~not_k & in_s)
                if train_subsets == "all":
                    train = np.flatnonzero(not_k)
                elif train_subsets == "other":
                    train = np.flatnonzero(not_k & ~in_s)
                else:
                    train = np.flatnonzero(not_k & in_s)
                total += len(train) + len(test)
    return total


def assay_splits(subset, stratum, group, n_folds):
    t0 = time.perf_counter()
    splits = _assay.SoakSplits(subset, ["a", "b", "c", "d"], group=group, stratum=stratum,
                               folds=n_folds)
    t_build = time.perf_counter() - t0
    total = 0
    for i in range(len(splits)):
        total += len(splits.train_rows(i)) + len(splits.test_rows(i))
    return t_build, time.perf_counter() - t0, total, len(splits)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--groups", type=float, default=1e5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n, n_groups, n_folds = int(args.rows), int(args.groups), 10
    rng = np.random.default_rng(0)
    group = rng.integers(0, n_groups, n).astype(np.int32)
    subset = rng.integers(0, 4, n_groups).astype(np.int32)[group]  # a group lies in one subset
    label = rng.integers(0, 2, n_groups).astype(np.int32)[group]
    stratum = label
    rows = []
    rss_before = max_rss_mb()
    for name, g in (("1e5 groups", group), ("no groups", None)):
        best_build = best_all = np.inf
        for _ in range(args.repeat):
            t_build, t_all, total, n_splits = assay_splits(subset, stratum, g, n_folds)
            best_build, best_all = min(best_build, t_build), min(best_all, t_all)
        rss_assay = max_rss_mb()
        t_np = np.inf
        for r in range(max(1, args.repeat - 1)):
            t0 = time.perf_counter()
            total_np = numpy_splits(subset, stratum * 4 + subset, g, n_folds,
                                    np.random.default_rng(r))
            t_np = min(t_np, time.perf_counter() - t0)
        assert total_np == total, (total_np, total)
        rows.append((name, n_splits, best_build, best_all, t_np, t_np / best_all, rss_assay))
        print(f"{name:>11}: {n_splits} splits, {total:,} row ids; assay build {best_build:.3f} s, "
              f"build + all sets {best_all:.3f} s; numpy masks {t_np:.3f} s "
              f"({t_np / best_all:.1f}x); max RSS after assay {rss_assay:.0f} MB")
    with open(os.path.join(HERE, "results", "soak_splits.md"), "w") as f:
        f.write(f"SOAK splits: {n:,} rows, 4 subsets, {n_folds} folds, strata = subset x label "
                f"(2 labels); best of {args.repeat}. Machine: {platform.machine()}, "
                f"{os.cpu_count()} CPUs.\n\n")
        f.write("| data | splits | assay build (s) | assay build + all sets (s) | "
                "numpy masks, build + all sets (s) | ratio | max RSS (MB) |\n")
        f.write("|---|---|---|---|---|---|---|\n")
        for name, n_splits, b, a, t, ratio, rss in rows:
            f.write(f"| {name} | {n_splits} | {b:.3f} | {a:.3f} | {t:.3f} | {ratio:.1f}x | "
                    f"{rss:.0f} |\n")
        f.write(f"\nMax RSS before the runs: {rss_before:.0f} MB (inputs). The {rows[0][1]} "
                f"train/test sets together hold {total:,} row ids ({total * 8 / 1e9:.1f} GB as "
                "int64) but are built on demand one at a time, so memory stays O(rows).\n")


if __name__ == "__main__":
    main()
