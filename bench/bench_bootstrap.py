"""Bootstrap interval of ROC AUC: assay (scores sorted once, resamples rescanned on all cores)
against the usual scikit-learn loop (resample indices, call roc_auc_score). Per-resample times;
the scikit-learn loop runs fewer resamples and is scaled. Writes bench/results/bootstrap.md."""
import os
import time

import numpy as np
from sklearn.metrics import roc_auc_score

import assay

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rows = []
    for n in (100_000, 1_000_000):
        rng = np.random.default_rng(0)
        y = rng.integers(0, 2, n)
        s = rng.random(n) + 0.3 * y
        b_assay = 200
        t0 = time.perf_counter()
        r = assay.metrics.bootstrap("roc_auc", y, s, n_resamples=b_assay, seed=1)
        t_assay = (time.perf_counter() - t0) / b_assay
        t0 = time.perf_counter()
        r1 = assay.metrics.bootstrap("roc_auc", y, s, n_resamples=b_assay, seed=1, threads=1)
        t_assay1 = (time.perf_counter() - t0) / b_assay
        assert np.array_equal(r["replicates"], r1["replicates"])
        b_sk = 10
        t0 = time.perf_counter()
        for i in range(b_sk):
            idx = np.random.default_rng(i).integers(0, n, n)
            roc_auc_score(y[idx], s[idx])
        t_sk = (time.perf_counter() - t0) / b_sk
        rows.append((n, t_sk, t_assay1, t_assay))
        print(f"n={n:>9,}  sklearn loop {t_sk*1e3:8.1f} ms/resample   assay 1 thread "
              f"{t_assay1*1e3:7.2f} ms ({t_sk/t_assay1:5.1f}x)   all cores {t_assay*1e3:7.2f} ms "
              f"({t_sk/t_assay:5.1f}x)")
    with open(os.path.join(HERE, "results", "bootstrap.md"), "w") as f:
        f.write("| n | scikit-learn loop (ms/resample) | assay 1 thread | ratio | assay all cores "
                "| ratio |\n|---|---|---|---|---|---|\n")
        for n, t_sk, t1, t in rows:
            f.write(f"| {n:,} | {t_sk*1e3:.1f} | {t1*1e3:.2f} | {t_sk/t1:.1f}x | {t*1e3:.2f} | "
                    f"{t_sk/t:.1f}x |\n")


if __name__ == "__main__":
    main()
