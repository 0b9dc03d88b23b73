"""The paired bootstrap intervals of assay.compare cover the true difference (issue 39): a smaller
run of bench/compare_coverage.py (whose full run docs/compare.md records) — 200 simulated data
sets of 1000 examples. With 200 data sets a 95 % interval's observed coverage has a standard
deviation of 1.5 points, so at least 90 % is asserted for each metric and interval."""
import os
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))
from compare_coverage import METRICS, coverage  # noqa: E402


def test_intervals_cover_the_true_difference():
    truth, cov = coverage(datasets=200, n=1000, resamples=500, population=1_000_000)
    for metric in METRICS:
        for kind in ("percentile", "bca"):
            assert cov[(metric, kind)] >= 0.90, (metric, kind, cov[(metric, kind)], truth)
