"""Writes the demo's prediction files: a binary classifier's scores and a 4-class classifier's
probabilities on a held-out set, with a weight column. Seeded, so every run writes the same
files."""
import os
import sys

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "out"
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(2024)

# Binary: a slightly over-confident logistic model, 5000 samples, 20% positives.
n = 5000
y = (rng.random(n) < 0.2).astype(int)
logit = rng.normal(0, 1, n) + 2.0 * y - 1.2
p = 1 / (1 + np.exp(-1.3 * logit))
w = rng.choice([1.0, 2.0], n, p=[0.8, 0.2])
with open(os.path.join(out, "binary.csv"), "w") as f:
    f.write("label,score,weight\n")
    for yi, pi, wi in zip(y, p, w):
        f.write(f"{'fraud' if yi else 'legit'},{pi:.6f},{wi:g}\n")

# Multi-class: 4 animals, softmax of noisy class evidence.
classes = np.array(["bird", "cat", "dog", "fish"])
m = 3000
truth = rng.choice(4, m, p=[0.1, 0.35, 0.4, 0.15])
evidence = rng.normal(0, 1, (m, 4))
evidence[np.arange(m), truth] += 1.8
evidence[:, 1] += 0.3 * (truth == 2)  # dogs look a little like cats
probs = np.exp(evidence) / np.exp(evidence).sum(1, keepdims=True)
with open(os.path.join(out, "multiclass.csv"), "w") as f:
    f.write("animal," + ",".join(f"p_{c}" for c in classes) + "\n")
    for t, row in zip(truth, probs):
        f.write(classes[t] + "," + ",".join(f"{v:.6f}" for v in row) + "\n")
print(f"wrote {out}/binary.csv ({n} rows) and {out}/multiclass.csv ({m} rows)")
