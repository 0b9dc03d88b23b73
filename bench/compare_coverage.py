"""Coverage of assay.compare's paired bootstrap intervals (issue 39): how often the 95% interval
of the difference between two models contains the true difference, over simulated data sets.

Population: y ~ Bernoulli(0.3); each model's score is a logistic function of a signal
(strength 1.0 for a, 1.3 for b) plus correlated noise (correlation 0.6), so the two models'
errors are paired as real models' are. The true ROC AUC, AP, F1 (at 0.5) and Brier score of each
model are those of the population, computed once on 4 million draws. Each simulated data set has
n examples; the interval is assay.compare's percentile (and BCa) interval from `resamples` paired
resamples with the data set's index as seed.

Usage: bench/compare_coverage.py [--datasets 500] [--n 500] [--resamples 1000]
Writes bench/results/compare_coverage.md (docs/compare.md quotes it).
"""
import argparse
import os

import numpy as np
from sklearn import metrics as skm

from assay.compare import compare

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = ["roc_auc", "average_precision", "f1", "brier"]


def draw(n, rng):
    y = (rng.random(n) < 0.3).astype(int)
    noise_a = rng.normal(size=n)
    noise_b = 0.6 * noise_a + 0.8 * rng.normal(size=n)
    sign = 2 * y - 1
    a = 1 / (1 + np.exp(-(1.0 * sign + noise_a)))
    b = 1 / (1 + np.exp(-(1.3 * sign + noise_b)))
    return y, a, b


def population_values(rng):
    y, a, b = draw(4_000_000, rng)
    out = {}
    for name, s in (("a", a), ("b", b)):
        out[name] = {"roc_auc": skm.roc_auc_score(y, s),
                     "average_precision": skm.average_precision_score(y, s),
                     "f1": skm.f1_score(y, s >= 0.5), "brier": skm.brier_score_loss(y, s)}
    return {m: out["b"][m] - out["a"][m] for m in METRICS}


def coverage(datasets, n, resamples, seed=20261207):
    rng = np.random.default_rng(seed)
    truth = population_values(rng)
    hits = {(m, k): 0 for m in METRICS for k in ("percentile", "bca")}
    for d in range(datasets):
        y, a, b = draw(n, rng)
        r = compare(y, {"a": a, "b": b}, metrics=METRICS, n_resamples=resamples, seed=d,
                    progress=False)
        for _, row in r.differences.iterrows():
            t = truth[row["metric"]]
            hits[(row["metric"], "percentile")] += row["low"] <= t <= row["high"]
            hits[(row["metric"], "bca")] += row["bca_low"] <= t <= row["bca_high"]
    return truth, {key: v / datasets for key, v in hits.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", type=int, default=500)
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    truth, cov = coverage(args.datasets, args.n, args.resamples)
    lines = [f"Coverage of the 95% paired bootstrap intervals of b - a over {args.datasets} "
             f"simulated data sets of {args.n} examples, {args.resamples} resamples each "
             "(`bench/compare_coverage.py`):", "",
             "| metric | true difference | percentile coverage | BCa coverage |",
             "|---|---|---|---|"]
    for m in METRICS:
        lines.append(f"| {m} | {truth[m]:+.4f} | {cov[(m, 'percentile')]:.1%} | "
                     f"{cov[(m, 'bca')]:.1%} |")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(HERE, "results", "compare_coverage.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
