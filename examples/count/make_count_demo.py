#!/usr/bin/env python3
"""Trains the demo's decision tree: 4-node graphs labelled Transitive (QuantifyML paper), exported
with assay.models to OUT/count_tree.json, plus the test split as OUT/count_test.csv (columns
x0..x15, label).

    PYTHONPATH=build/python /usr/bin/python3 examples/count/make_count_demo.py out
"""
import os
import sys

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assay.models as models  # noqa: E402
from graph_learnability import dataset  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "out"
os.makedirs(out, exist_ok=True)
X, y = dataset("Transitive", 4, np.random.default_rng(4004))
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
est = DecisionTreeClassifier(random_state=0).fit(Xtr, ytr)
models.save(models.from_sklearn(est), os.path.join(out, "count_tree.json"))
with open(os.path.join(out, "count_test.csv"), "w") as f:
    f.write(",".join(f"x{i}" for i in range(16)) + ",label\n")
    for row, label in zip(Xte.astype(int), yte):
        f.write(",".join(map(str, row)) + f",{label}\n")
print(f"trained a tree on {len(ytr)} graphs: test accuracy {np.mean(est.predict(Xte) == yte):.4f}")
