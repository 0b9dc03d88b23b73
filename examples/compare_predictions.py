#!/usr/bin/env python3
"""Writes a CSV of held-out predictions of two binary classifiers on the same 600 examples, for
docs/compare.md and the how-tos that compare models: columns label (0/1), production and
candidate (scores in 0..1; the candidate separates the classes slightly better), region (N, S,
E) and age, to slice by. Seeded: every run writes the same file.

    /usr/bin/python3 examples/compare_predictions.py predictions.csv
"""
import sys

import numpy as np


def main(path):
    rng = np.random.default_rng(5)
    n = 600
    y = rng.integers(0, 2, n)
    production = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, n), 0, 1)
    candidate = np.clip(0.5 + 0.32 * (y - 0.5) + rng.normal(0, 0.2, n), 0, 1)
    region = rng.choice(["N", "S", "E"], n)
    age = rng.integers(18, 90, n)
    with open(path, "w") as f:
        f.write("label,production,candidate,region,age\n")
        for row in zip(y, production.round(4), candidate.round(4), region, age):
            f.write(",".join(map(str, row)) + "\n")
    print(f"wrote {path}: {n} examples, 2 models")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "predictions.csv")
