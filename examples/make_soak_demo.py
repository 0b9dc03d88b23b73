"""Writes the SOAK demo data set: satellite-style pixels from three regions (subsets), labelled
"Tree" / "Not tree", drawn inside polygons (groups: every pixel of a polygon shares its label and
fold). Regions NE and NW share one pattern; region S has a different class balance and a shifted
feature-label relation, so models trained on the other regions should predict it worse. Seeded:
every run writes the same file."""
import os
import sys

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "out"
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1)

regions = {"NE": (70, 0.25, 0.0), "NW": (60, 0.30, 0.0), "S": (40, 0.65, 1.5)}
rows = []
polygon = 0
for region, (n_polygons, tree_rate, shift) in regions.items():
    for _ in range(n_polygons):
        polygon += 1
        tree = rng.random() < tree_rate
        size = int(rng.integers(5, 20))
        centre = rng.normal(0, 1, 6) + (1.2 if tree else -0.4)
        for _ in range(size):
            x = centre + rng.normal(0, 0.8, 6)
            x[0] += shift * (1 if tree else -1)  # region S: the first band reads differently
            x[1] -= shift
            rows.append((region, polygon, "Tree" if tree else "Not tree", *x))

with open(os.path.join(out, "soak_regions.csv"), "w") as f:
    f.write("region,polygon,y," + ",".join(f"band{j + 1}" for j in range(6)) + "\n")
    for r in rows:
        f.write(f"{r[0]},{r[1]},{r[2]}," + ",".join(f"{v:.4f}" for v in r[3:]) + "\n")
print(f"wrote {os.path.join(out, 'soak_regions.csv')}: {len(rows)} pixels in {polygon} polygons")
