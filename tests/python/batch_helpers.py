"""Shared by the registry, Slurm and MPI tests: small data sets, and comparing the outputs of two
runs (byte for byte, except the measured seconds of results.csv / results.json)."""
import json
import os
import time

import numpy as np
import pandas as pd

TIMING_COLUMNS = ("train_seconds", "predict_seconds")


def make_regions(path, rows_per_subset=60, features=4, classes=3, seed=0, regions="ABC"):
    """A classification CSV with a subset column `region` (one subset per letter of `regions`)
    whose class boundaries differ a little, so SOAK's Same/Other/All errors differ."""
    rng = np.random.default_rng(seed)
    frames = []
    for k, region in enumerate(regions):
        x = rng.normal(size=(rows_per_subset, features))
        score = x[:, 0] + 0.5 * k * x[:, 1] + 0.3 * rng.normal(size=rows_per_subset)
        y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
        frame = pd.DataFrame(x, columns=[f"x{j + 1}" for j in range(features)])
        frame["region"] = region
        frame["y"] = [f"c{v}" for v in y]
        frames.append(frame)
    pd.concat(frames, ignore_index=True).to_csv(path, index=False)
    return str(path)


def make_slow(path):
    """Two subsets, 1000 rows of 40 features each: with `SLOW_ARGS` and glmnet, 12 jobs of about
    0.3 CPU-seconds on a fast 2026 core (long enough to see and kill one while it runs when the
    tests poll every 50 ms, short enough for CI; 150 rows of 10 gave 0.05 s jobs that sometimes
    ended before the test saw them)."""
    return make_regions(path, rows_per_subset=1000, features=40, classes=3, seed=4, regions="AB")


SLOW_ARGS = ["--label", "y", "--subset", "region", "--folds", "2", "--seed", "2",
             "--learners", "glmnet"]
SLOW_JOBS = 12


def read(path):
    with open(path, "rb") as f:
        return f.read()


def assert_same_outputs(a, b, files=("pvalues.csv", "summaries.csv", "report.html")):
    """Every output file of two runs is the same bytes; results.csv and results.json are equal
    in every column but the measured seconds."""
    a, b = str(a), str(b)
    for name in files:
        assert read(os.path.join(a, name)) == read(os.path.join(b, name)), name
    ra = pd.read_csv(os.path.join(a, "results.csv"), keep_default_na=False, dtype=str)
    rb = pd.read_csv(os.path.join(b, "results.csv"), keep_default_na=False, dtype=str)
    keep = [c for c in ra.columns if c not in TIMING_COLUMNS]
    pd.testing.assert_frame_equal(ra[keep], rb[keep])
    ja = json.load(open(os.path.join(a, "results.json")))
    jb = json.load(open(os.path.join(b, "results.json")))
    drop = [i for i, c in enumerate(ja.get("columns", [])) if c in TIMING_COLUMNS]

    def strip(doc):
        rows = doc["rows"] if "rows" in doc else doc["results"]["rows"]
        return [[v for i, v in enumerate(r) if i not in drop] for r in rows]

    assert strip(ja) == strip(jb)


def wait_for(condition, timeout=240, what="condition", every=0.05):
    """Polls `condition` until it returns something true (returned); fails after `timeout` s."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


def result_starts(reg):
    """{job: provenance.started} of every result file of a registry: unchanged start times show
    that no finished job was recomputed."""
    out = {}
    for name in os.listdir(os.path.join(reg, "results")):
        doc = json.load(open(os.path.join(reg, "results", name)))
        out[doc["job"]] = doc["provenance"]["started"]
    return out
