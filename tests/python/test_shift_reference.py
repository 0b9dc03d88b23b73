"""Cross-check of assay.shift against the Shifts repository's own evaluation code (its
calc_uncertainty_regection_curve, calc_aucs and f_beta_metrics, re-typed here from the published
scripts, including their quirks: pandas group-by for ties, a reversed mergesort for the F1 curve,
eps = 1e-10 in the F-score, the F1@95 index int(0.95 * (n + 1)) on the reversed curve). These
are independent of the oracles in test_shift.py."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import auc

import assay.shift as shift


def shifts_rejection_curve(errors, uncertainty):
    data = pd.DataFrame(dict(errors=errors, uncertainty=uncertainty))
    means = data.groupby("uncertainty").mean().rename(columns={"errors": "mean_errors"})
    data = data.join(means, "uncertainty").drop("errors", axis=1)
    order = data["uncertainty"].argsort()
    ordered = data["mean_errors"][order]
    rates = np.zeros(len(errors) + 1)
    rates[:-1] = np.cumsum(ordered)[::-1] / len(errors)
    return rates


def shifts_prr(errors, uncertainty):
    curve = shifts_rejection_curve(errors, uncertainty)
    random_auc = curve[0] / 2
    ideal_auc = shifts_rejection_curve(errors, errors).mean()
    return (curve.mean() - random_auc) / (ideal_auc - random_auc) * 100.0, curve.mean()


def shifts_f_beta(errors, uncertainty, threshold, beta=1.0):
    acceptable = np.asarray(errors <= threshold, dtype=np.float32)
    order = np.argsort(-uncertainty, kind="mergesort")[::-1]
    y = acceptable[order]
    tps = np.cumsum(y, dtype=np.float64)
    fps = np.cumsum(1 - y, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tps / (tps + fps)
    precision[np.isnan(precision)] = 0
    recall = tps / tps[-1]
    pr, rec = np.r_[precision[::-1], 1], np.r_[recall[::-1], 0]
    f = (1 + beta ** 2) * pr * rec / (pr * beta ** 2 + rec + 1e-10)
    retention = np.arange(pr.shape[0]) / pr.shape[0]
    return auc(retention[::-1], f), f[::-1][int(0.95 * pr.shape[0])]


def cases(seed, count=60):
    rng = np.random.default_rng(seed)
    for t in range(count):
        n = int(rng.integers(2, 400))
        errors = rng.integers(0, 6, n) * rng.random()          # heavy ties in errors
        levels = 3 if t % 2 else 10_000                          # heavy ties in uncertainty, or few
        uncertainty = rng.integers(0, levels, n) / 7.0
        yield errors, uncertainty


@pytest.mark.parametrize("seed", [0, 1])
def test_rejection_curve_and_prr_equal_shifts(seed):
    for errors, uncertainty in cases(seed):
        ours = shift.retention_curve(errors, uncertainty)
        ref = shifts_rejection_curve(errors, uncertainty)
        np.testing.assert_allclose(ours.curve, ref, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(ours.r_auc, ref.mean(), rtol=1e-12, atol=1e-15)
        if np.ptp(errors) > 0:
            ref_prr, _ = shifts_prr(errors, uncertainty)
            np.testing.assert_allclose(100 * shift.prr(errors, uncertainty), ref_prr,
                                       rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0])
def test_f_beta_retention_equals_shifts(beta):
    for errors, uncertainty in cases(7, 40):
        threshold = float(np.median(errors))
        ref_auc, ref_95 = shifts_f_beta(errors, uncertainty, threshold, beta)
        ours = shift.f1_retention(errors, uncertainty, threshold, beta=beta)
        np.testing.assert_allclose(ours.f1_auc, ref_auc, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(ours.f1_at_95, ref_95, rtol=1e-12, atol=1e-15)
