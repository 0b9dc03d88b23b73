#!/usr/bin/env python3
"""Writes the report tour's own inputs into OUT (the other analyses reuse the files the rest of
`make demo` writes there):

- OUT/report_predictions.csv: a held-out set of 4000 transactions, label fraud/legit (15 %
  fraud), and the fraud probability of two models: "logistic" (smooth, well calibrated) and
  "boosted" (sharper at the top of the ranking, over-confident below), so that their PR curves
  cross; and a "region" (north, south, east, west) to slice by, where boosted's clear-cut cases
  are rare in the south.
- OUT/count_tree_shallow.json: a depth-3 tree on the counting demo's graphs (beside the full
  tree of examples/count/make_count_demo.py), so that the counting section compares two models.

Seeded: every run writes the same files.

    PYTHONPATH=build/python /usr/bin/python3 examples/report/make_report_demo.py out
"""
import os
import sys

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "count"))
import assay.models as models  # noqa: E402
from graph_learnability import dataset  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "out"
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(20)

n = 4000
y = rng.random(n) < 0.15
signal = rng.normal(0, 1, n) + 1.6 * y
logistic = 1 / (1 + np.exp(-(1.5 * signal - 2.6)))
# boosted: very sure about a clear-cut subset of frauds, noisier elsewhere.
clear = y & (rng.random(n) < 0.45)
noisy = rng.normal(0, 1, n) + 0.9 * y
boosted = np.where(clear, 0.93 + 0.06 * rng.random(n), 1 / (1 + np.exp(-(1.8 * noisy - 2.9))))
# The region comes from a generator of its own, so that the other columns keep their values.
regions = np.array(["north", "south", "east", "west"])
region_rng = np.random.default_rng(21)
region = np.where(clear, region_rng.choice(regions, n, p=[0.35, 0.04, 0.33, 0.28]),
                  region_rng.choice(regions, n))
with open(os.path.join(out, "report_predictions.csv"), "w") as f:
    f.write("label,logistic,boosted,region\n")
    for yi, a, b, r in zip(y, logistic, boosted, region):
        f.write(f"{'fraud' if yi else 'legit'},{a:.6f},{b:.6f},{r}\n")

X, labels = dataset("Transitive", 4, np.random.default_rng(4004))
Xtr, _, ytr, _ = train_test_split(X, labels, test_size=0.25, random_state=0, stratify=labels)
shallow = DecisionTreeClassifier(max_depth=3, random_state=0).fit(Xtr, ytr)
models.save(models.from_sklearn(shallow), os.path.join(out, "count_tree_shallow.json"))
print(f"wrote {out}/report_predictions.csv ({n} rows) and {out}/count_tree_shallow.json")
