"""assay.shift against the reference formulas of the Shifts repository and fd-shifts
(re-implemented here in numpy as oracles, docs/shift.md) and scikit-learn 1.2.1."""
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn import metrics as skm

import assay
import assay.shift as shift

RTOL = 1e-12


# ---------------------------------------------------------------------------------------------
# Oracles: the published formulas, written out in numpy.
# ---------------------------------------------------------------------------------------------

def ref_curve(errors, uncertainty, grouped):
    """R[j] = (sum of the errors of the n - j most certain) / n; grouped: tie-group means."""
    errors = np.asarray(errors, dtype=float)
    n = len(errors)
    if grouped:
        _, inverse = np.unique(uncertainty, return_inverse=True)
        means = np.bincount(inverse, weights=errors) / np.bincount(inverse)
        errors = means[inverse]
    order = np.argsort(uncertainty, kind="stable")
    curve = np.zeros(n + 1)
    curve[:-1] = np.cumsum(errors[order])[::-1] / n
    return curve


def ref_r_auc(curve, convention):
    if convention == "shifts":
        return curve.mean()
    n = len(curve) - 1
    fractions = np.linspace(0, 1, n + 1)
    return skm.auc(fractions[::-1], curve)  # the vessel-power pairing of x and curve


def ref_prr(errors, uncertainty, convention):
    grouped = convention == "shifts"
    auc_unc = ref_r_auc(ref_curve(errors, uncertainty, grouped), convention)
    curve = ref_curve(errors, uncertainty, grouped)
    auc_rand = curve[0] / 2
    auc_oracle = ref_r_auc(ref_curve(errors, errors, grouped), convention)
    return (auc_unc - auc_rand) / (auc_oracle - auc_rand)


def ref_rc(errors, uncertainty):
    """fd-shifts' risk-coverage points (confids = -uncertainty), one per confidence change."""
    errors = np.asarray(errors, dtype=float)
    conf = -np.asarray(uncertainty, dtype=float)
    order = np.argsort(conf, kind="stable")
    res, c = errors[order], conf[order]
    n = len(res)
    suffix = np.cumsum(res[::-1])[::-1]
    cov, sel, gen = [1.0], [suffix[0] / n], [suffix[0] / n]
    for i in range(n - 1):
        if c[i] != c[i + 1]:
            kept = n - i - 1
            cov.append(kept / n)
            sel.append(suffix[i + 1] / kept)
            gen.append(suffix[i + 1] / n)
    cov.append(0.0)
    sel.append(sel[-1])
    gen.append(0.0)
    cov, sel, gen = map(np.array, (cov, sel, gen))
    return cov, sel, gen, -np.trapz(sel, cov), -np.trapz(gen, cov)


def ref_optimal(errors):
    errors = np.asarray(errors, dtype=float)
    if np.all((errors == 0) | (errors == 1)):
        r = errors.mean()
        return r + (1 - r) * np.log(1 - r + np.finfo(float).eps), 0.5 * r ** 2
    s = np.sort(errors)
    _, _, _, a, g = ref_rc(s, np.arange(len(s), dtype=float))
    return a, g


def ref_f1(errors, uncertainty, threshold, beta=1.0):
    acceptable = (np.asarray(errors) <= threshold).astype(float)
    n = len(acceptable)
    order = np.argsort(-np.asarray(uncertainty, dtype=float), kind="mergesort")[::-1]
    tp = np.cumsum(acceptable[order])
    k = np.arange(1, n + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.r_[1.0, tp / k]
        recall = np.r_[0.0, tp / tp[-1]]
        f = (1 + beta ** 2) * precision * recall / (precision * beta ** 2 + recall + 1e-10)
    x = np.arange(n + 1) / (n + 1)
    return f, skm.auc(x, f), f[int(0.95 * (n + 1))]


def tied_data(rng, n, levels=5):
    errors = rng.integers(0, 4, n).astype(float) * rng.choice([1.0, 0.5, 2.25], n)
    uncertainty = rng.integers(0, levels, n).astype(float)
    return errors, uncertainty


SIZES = [1, 2, 3, 7, 50, 333, 2000]


# ---------------------------------------------------------------------------------------------
# Retention curves, R-AUC, PRR
# ---------------------------------------------------------------------------------------------

def test_shifts_unit_tests():
    # The three asserts in Shifts' assessment.py.
    assert shift.retention_curve([2, 1], [1, 0]).curve.mean() == pytest.approx(2 / 3, rel=1e-15)
    np.testing.assert_allclose(shift.retention_curve(np.arange(5), [0, 0, 2, 1, 1]).r_auc, 0.8,
                               rtol=RTOL)
    debug = np.random.default_rng(3).random(10)
    np.testing.assert_allclose(shift.retention_curve(debug, np.zeros(10)).r_auc, debug.mean() / 2,
                               rtol=RTOL)


@pytest.mark.parametrize("convention", ["shifts", "shifts-vpower"])
@pytest.mark.parametrize("n", SIZES)
def test_retention_curve_matches_reference(rng, convention, n):
    for levels in (2, 5, n + 3):
        errors, unc = tied_data(rng, n, levels)
        got = shift.retention_curve(errors, unc, convention=convention)
        want = ref_curve(errors, unc, convention == "shifts")
        np.testing.assert_allclose(got.curve, want, rtol=RTOL, atol=1e-15)
        np.testing.assert_allclose(got.r_auc, ref_r_auc(want, convention), rtol=RTOL, atol=1e-15)
        assert got.convention == convention
        assert got.curve[-1] == 0


def test_retention_curve_continuous_matches_pandas_grouping(rng):
    # Shifts groups with pandas; with distinct uncertainties both conventions agree.
    import pandas as pd
    errors = rng.random(500) ** 2
    unc = np.round(rng.random(500), 2)  # ties
    frame = pd.DataFrame({"errors": errors, "uncertainty": unc})
    means = frame.groupby("uncertainty")["errors"].transform("mean").to_numpy()
    order = np.argsort(unc, kind="stable")
    want = np.zeros(501)
    want[:-1] = np.cumsum(means[order])[::-1] / 500
    np.testing.assert_allclose(shift.retention_curve(errors, unc).curve, want, rtol=RTOL)
    distinct = rng.permutation(500).astype(float)
    a = shift.retention_curve(errors, distinct).curve
    b = shift.retention_curve(errors, distinct, "shifts-vpower").curve
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("convention", ["shifts", "shifts-vpower"])
def test_oracle_and_random_curves(rng, convention):
    errors, _ = tied_data(rng, 300)
    oracle = shift.oracle_retention_curve(errors, convention)
    np.testing.assert_allclose(oracle.curve, ref_curve(errors, errors, True), rtol=RTOL)
    np.testing.assert_allclose(oracle.r_auc, ref_r_auc(ref_curve(errors, errors, True), convention),
                               rtol=RTOL)
    rand = shift.random_retention_curve(errors, convention)
    n = len(errors)
    np.testing.assert_allclose(rand.curve, errors.mean() * (n - np.arange(n + 1)) / n, rtol=RTOL)
    np.testing.assert_allclose(rand.r_auc, errors.mean() / 2, rtol=RTOL)


@pytest.mark.parametrize("convention", ["shifts", "shifts-vpower"])
def test_prr_matches_reference(rng, convention):
    for n in (5, 40, 1000):
        errors, unc = tied_data(rng, n)
        if np.all(errors == errors[0]):
            continue
        np.testing.assert_allclose(shift.prr(errors, unc, convention),
                                   ref_prr(errors, unc, convention), rtol=1e-10)
    errors = rng.random(200)
    assert shift.prr(errors, errors) == pytest.approx(1.0, rel=1e-12)


def test_prr_constant_errors_is_nan_with_warning():
    with pytest.warns(assay.AssayWarning, match="PRR is undefined"):
        assert np.isnan(shift.prr(np.ones(10), np.arange(10)))


# ---------------------------------------------------------------------------------------------
# fd-shifts AURC / AUGRC
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_risk_coverage_matches_fd_shifts(rng, n):
    for binary in (True, False):
        errors, unc = tied_data(rng, n, levels=4)
        if binary:
            errors = (errors > 0).astype(float)
        got = shift.risk_coverage_curve(errors, unc)
        cov, sel, gen, a, g = ref_rc(errors, unc)
        np.testing.assert_allclose(got["coverage"], cov, rtol=RTOL)
        np.testing.assert_allclose(got["selective_risk"], sel, rtol=RTOL, atol=1e-15)
        np.testing.assert_allclose(got["generalized_risk"], gen, rtol=RTOL, atol=1e-15)
        np.testing.assert_allclose(got["aurc"], a, rtol=RTOL, atol=1e-15)
        np.testing.assert_allclose(got["augrc"], g, rtol=RTOL, atol=1e-15)
        a_opt, g_opt = ref_optimal(errors)
        np.testing.assert_allclose(got["e_aurc"], a - a_opt, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(got["e_augrc"], g - g_opt, rtol=1e-10, atol=1e-14)
        assert shift.aurc(errors, unc) == got["aurc"]
        assert shift.augrc(errors, unc) == got["augrc"]
        assert shift.e_aurc(errors, unc) == got["e_aurc"]
        assert shift.e_augrc(errors, unc) == got["e_augrc"]


def test_aurc_known_values():
    # Two samples, the wrong one the most uncertain: points (1, .5), (.5, 0), (0, 0).
    assert shift.aurc([0, 1], [0, 1]) == pytest.approx(0.125, rel=1e-15)
    # fd-shifts' binary optimum: r + (1 - r) ln(1 - r + eps), r = 0.5.
    assert shift.e_aurc([0, 1], [0, 1]) == pytest.approx(
        0.125 - (0.5 + 0.5 * np.log(0.5 + np.finfo(float).eps)), rel=1e-12)
    assert shift.augrc([0, 1], [0, 1]) == pytest.approx(0.125, rel=1e-15)


# ---------------------------------------------------------------------------------------------
# F1 retention
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0])
def test_f1_retention_matches_shifts(rng, n, beta):
    errors, unc = tied_data(rng, n, levels=3)
    threshold = 1.0
    if not np.any(errors <= threshold):
        errors[0] = 0
    got = shift.f1_retention(errors, unc, threshold, beta=beta)
    f, auc, f95 = ref_f1(errors, unc, threshold, beta)
    np.testing.assert_allclose(got.curve, f, rtol=RTOL, atol=1e-15)
    np.testing.assert_allclose(got.f1_auc, auc, rtol=RTOL, atol=1e-15)
    np.testing.assert_allclose(got.f1_at_95, f95, rtol=RTOL, atol=1e-15)
    assert got.n_acceptable == int(np.sum(errors <= threshold))


def test_f1_threshold_is_inclusive_and_ties_retain_later_index_first():
    # Equal uncertainty: sample 1 (acceptable) is retained before sample 0 (not acceptable).
    got = shift.f1_retention([5.0, 1.0], [0.0, 0.0], threshold=1.0)
    assert got.n_acceptable == 1
    assert got.curve[1] == pytest.approx(2 * 1 * 1 / (1 + 1 + 1e-10), rel=1e-15)


def test_f1_vessel_power_threshold(rng):
    errors = (rng.normal(0, 600, 1000)) ** 2
    unc = errors * rng.uniform(0.5, 1.5, 1000)
    got = shift.f1_retention(errors, unc, threshold=500 ** 2)
    f, auc, f95 = ref_f1(errors, unc, 500 ** 2)
    np.testing.assert_allclose(got.f1_auc, auc, rtol=RTOL)


def test_f1_oracle_and_random(rng):
    errors, unc = tied_data(rng, 400)
    oracle = shift.oracle_f1_retention(errors, 1.0)
    f, auc, _ = ref_f1(errors, errors, 1.0)
    np.testing.assert_allclose(oracle.curve, f, rtol=RTOL)
    np.testing.assert_allclose(oracle.f1_auc, auc, rtol=RTOL)
    rand = shift.random_f1_retention(errors, 1.0)
    n, p = len(errors), np.mean(errors <= 1.0)
    r = np.arange(n + 1) / n
    want = 2 * p * r / (p + r + 1e-10)
    np.testing.assert_allclose(rand.curve, want, rtol=RTOL, atol=1e-15)


def test_f1_no_acceptable_sample_is_nan_with_warning():
    # Shifts' code returns NaN here too (0/0 recall), with a numpy RuntimeWarning.
    with pytest.warns(assay.AssayWarning, match="no acceptable sample"):
        got = shift.f1_retention([2.0, 3.0, 4.0], [0.1, 0.2, 0.3], threshold=1.0)
    assert np.isnan(got.f1_auc) and np.isnan(got.f1_at_95)
    assert got.curve[0] == 0 and np.all(np.isnan(got.curve[1:]))
    _, auc, _ = ref_f1(np.array([2.0, 3.0, 4.0]), np.array([0.1, 0.2, 0.3]), 1.0)
    assert np.isnan(auc)


# ---------------------------------------------------------------------------------------------
# Ensemble measures
# ---------------------------------------------------------------------------------------------

def ref_ensemble(probs, eps=1e-10):
    mean = probs.mean(axis=0)
    mean_log = np.log(probs + eps).mean(axis=0)
    eoe = -np.sum(mean * np.log(mean + eps), axis=-1)
    exe = np.mean(-np.sum(probs * np.log(probs + eps), axis=-1), axis=0)
    epkl = -np.sum(mean * mean_log, axis=-1) - exe
    return {"entropy_of_expected": eoe, "expected_entropy": exe, "mutual_information": eoe - exe,
            "epkl": epkl, "reverse_mutual_information": epkl - (eoe - exe),
            "confidence": mean.max(axis=-1)}


def random_probs(rng, m, n, k):
    p = rng.dirichlet(np.full(k, 0.7), size=(m, n))
    p[rng.random((m, n, k)) < 0.2] = 0  # exact zeros: log(0 + eps)
    p[:, : n // 4] = p[:1, : n // 4]  # members that agree exactly
    p[p.sum(-1) == 0, 0] = 1
    return p / p.sum(-1, keepdims=True)


@pytest.mark.parametrize("shape", [(1, 1, 1), (1, 5, 3), (5, 200, 10), (10, 37, 2)])
def test_ensemble_uncertainty_matches_shifts(rng, shape):
    probs = random_probs(rng, *shape)
    got = shift.ensemble_uncertainty(probs)
    want = ref_ensemble(probs)
    assert set(got) == set(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=RTOL, atol=1e-14, err_msg=key)


def test_ensemble_uncertainty_tiny_and_zero_probabilities(rng):
    # eps = 0: tiny normal, subnormal and zero probabilities take the exact-log fallback;
    # 0 * log(0) is NaN in numpy and in assay alike.
    probs = random_probs(rng, 3, 40, 4)
    probs[0, :10, 0] = 1e-300
    probs[1, 10:20, 1] = 5e-320
    probs[0, :20] /= probs[0, :20].sum(-1, keepdims=True)
    probs[1, :20] /= probs[1, :20].sum(-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = ref_ensemble(probs, eps=0.0)
    got = shift.ensemble_uncertainty(probs, epsilon=0.0)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=RTOL, atol=1e-14, err_msg=key)
    # With eps = 1e-10 (Shifts' default) every log takes the vectorised path.
    want = ref_ensemble(probs * 1e-5 + (1 - 1e-5) / 4)
    got = shift.ensemble_uncertainty(probs * 1e-5 + (1 - 1e-5) / 4)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=RTOL, atol=1e-14, err_msg=key)


def test_ensemble_epkl_is_mean_pairwise_kl(rng):
    probs = rng.dirichlet(np.ones(4), size=(3, 50))
    got = shift.ensemble_uncertainty(probs, epsilon=0)
    m = probs.shape[0]
    kl = lambda p, q: np.sum(p * (np.log(p) - np.log(q)), axis=-1)  # noqa: E731
    pairs = np.mean([kl(probs[i], probs[j]) for i in range(m) for j in range(m)], axis=0)
    np.testing.assert_allclose(got["epkl"], pairs, rtol=1e-10, atol=1e-14)
    mean = probs.mean(0)
    rmi = np.mean([kl(mean, probs[i]) for i in range(m)], axis=0)
    np.testing.assert_allclose(got["reverse_mutual_information"], rmi, rtol=1e-9, atol=1e-14)


def test_ensemble_threads_do_not_change_result(rng):
    probs = random_probs(rng, 4, 5000, 6)
    one = shift.ensemble_uncertainty(probs, threads=1)
    many = shift.ensemble_uncertainty(probs, threads=3)
    for key in one:
        np.testing.assert_array_equal(one[key], many[key])


def ref_regression(preds, eps=1e-10):
    means, var = preds[:, :, 0], preds[:, :, 1]
    ve = var + eps
    epkl_reg = 0.5 * (np.mean(means ** 2 + ve, 0) * np.mean(1 / ve, 0)
                      - 2 * means.mean(0) * np.mean(means / ve, 0)
                      + np.mean(means * means / ve + np.log(ve), 0) + np.log(2 * np.pi))
    m = preds.shape[0]
    kl = [0.5 * (np.log(ve[j] / ve[i]) + (ve[i] + (means[i] - means[j]) ** 2) / ve[j] - 1)
          for i in range(m) for j in range(m)]
    return {"mean": means.mean(0), "total_variance": means.var(0) + var.mean(0),
            "data_uncertainty": var.mean(0), "knowledge_uncertainty": means.var(0),
            "epkl_reg": epkl_reg, "epkl": np.mean(kl, axis=0)}


@pytest.mark.parametrize("shape", [(1, 4), (2, 30), (10, 300)])
def test_ensemble_uncertainty_regression_matches_shifts(rng, shape):
    m, n = shape
    preds = np.stack([rng.normal(100, 20, (m, n)), rng.gamma(2.0, 5.0, (m, n))], axis=-1)
    preds[:, : n // 3] = preds[:1, : n // 3]  # agreeing members: KL 0
    got = shift.ensemble_uncertainty_regression(preds)
    want = ref_regression(preds)
    for key in want:
        atol = 1e-9 if key == "epkl" else 1e-12  # the oracle's log ratio cancels
        np.testing.assert_allclose(got[key], want[key], rtol=1e-11, atol=atol, err_msg=key)
    # epkl_reg = true EPKL + mean member entropy (Shifts' name is a cross-entropy).
    entropy = np.mean(0.5 * np.log(2 * np.pi * np.e * (preds[:, :, 1] + 1e-10)), axis=0)
    np.testing.assert_allclose(got["epkl_reg"], got["epkl"] + entropy, rtol=1e-10, atol=1e-10)


def test_ensemble_uncertainty_regression_extreme_variances(rng):
    # The product of member variances over/underflows: the logs are summed instead.
    preds = np.stack([rng.normal(size=(4, 6)), 10.0 ** rng.uniform(-300, 300, (4, 6))], axis=-1)
    got = shift.ensemble_uncertainty_regression(preds)
    want = ref_regression(preds)
    for key in ("epkl_reg", "total_variance", "data_uncertainty"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-11, err_msg=key)


def test_gaussian_and_ensemble_nll(rng):
    n = 100
    y = rng.normal(size=n)
    mu = rng.normal(size=n)
    var = rng.gamma(2, 1, n)
    var[0] = 0
    want = (y - mu) ** 2 / (2 * var + 1e-8) + np.log(var + 1e-8) / 2 + np.log(2 * np.pi) / 2
    np.testing.assert_allclose(shift.gaussian_nll(y, mu, var, raw=True), want, rtol=RTOL)
    np.testing.assert_allclose(shift.gaussian_nll(y, mu, var), want.mean(), rtol=RTOL)
    preds = np.stack([rng.normal(size=(5, n)), rng.gamma(2, 1, (5, n))], axis=-1)
    nll = ((y - preds[:, :, 0]) ** 2 / (2 * preds[:, :, 1] + 1e-8)
           + np.log(preds[:, :, 1] + 1e-8) / 2 + np.log(2 * np.pi) / 2)
    shifts_value = -np.log(np.mean(np.exp(-nll), axis=0))
    np.testing.assert_allclose(shift.ensemble_nll(y, preds, raw=True), shifts_value, rtol=RTOL)
    np.testing.assert_allclose(shift.ensemble_nll(y, preds), shifts_value.mean(), rtol=RTOL)


def test_ensemble_nll_does_not_underflow():
    # Every member's nll is ~5e5: Shifts' exp(-nll) underflows to 0 and returns inf.
    preds = np.array([[[0.0, 1e-3]], [[0.1, 1e-3]]])
    y = np.array([50.0])
    nll = (y - preds[:, :, 0]) ** 2 / (2 * preds[:, :, 1] + 1e-8) + np.log(
        preds[:, :, 1] + 1e-8) / 2 + np.log(2 * np.pi) / 2
    with np.errstate(divide="ignore"):
        assert np.isinf(-np.log(np.mean(np.exp(-nll), axis=0)))[0]
    want = -(logsumexp(-nll, axis=0) - np.log(2))
    np.testing.assert_allclose(shift.ensemble_nll(y, preds, raw=True), want, rtol=RTOL)


# ---------------------------------------------------------------------------------------------
# Regression metrics (scikit-learn 1.2.1) with bootstrap intervals
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("weighted", [False, True])
def test_regression_metrics_match_sklearn(rng, weighted):
    for n in (1, 2, 10, 500):
        y = rng.normal(0, 3, n)
        y[: n // 5] = 0  # MAPE's eps denominator
        p = y + rng.normal(0, 1, n)
        w = rng.integers(0, 4, n).astype(float) if weighted else None
        if w is not None and w.sum() == 0:
            w[0] = 1
        kw = {"sample_weight": w}
        np.testing.assert_allclose(shift.mean_squared_error(y, p, **kw),
                                   skm.mean_squared_error(y, p, **kw), rtol=RTOL)
        # scikit-learn 1.6 removed squared= (assay follows): the root of the MSE
        np.testing.assert_allclose(np.sqrt(shift.mean_squared_error(y, p, **kw)),
                                   skm.mean_squared_error(y, p, squared=False, **kw), rtol=RTOL)
        np.testing.assert_allclose(shift.mean_absolute_error(y, p, **kw),
                                   skm.mean_absolute_error(y, p, **kw), rtol=RTOL)
        np.testing.assert_allclose(shift.mean_absolute_percentage_error(y, p, **kw),
                                   skm.mean_absolute_percentage_error(y, p, **kw), rtol=RTOL)
        if n > 1:
            np.testing.assert_allclose(shift.r2_score(y, p, **kw), skm.r2_score(y, p, **kw),
                                       rtol=1e-11, atol=1e-14)


def test_r2_force_finite_rule():
    y = np.full(5, 2.0)
    assert shift.r2_score(y, y) == skm.r2_score(y, y) == 1.0
    assert shift.r2_score(y, y + 1) == skm.r2_score(y, y + 1) == 0.0
    np.testing.assert_array_equal(shift.r2_score(y, y, multioutput="raw_values"), [1.0])


def test_regression_metrics_bootstrap_matches_metrics_bootstrap(rng):
    n = 120
    y = rng.normal(10, 3, n)
    p = y + rng.normal(0, 1, n)
    got = shift.regression_metrics(y, p, n_resamples=200, seed=7)
    np.testing.assert_allclose(got["rmse"]["estimate"],
                               skm.mean_squared_error(y, p, squared=False), rtol=RTOL)
    np.testing.assert_allclose(got["r2"]["estimate"], skm.r2_score(y, p), rtol=RTOL)
    # Same resamples as assay.metrics.bootstrap with the scikit-learn metric on each resample.
    ref = assay.metrics.bootstrap(lambda a, b: skm.mean_absolute_error(a, b), y, p,
                                  n_resamples=200, seed=7)
    np.testing.assert_allclose(got["mae"]["replicates"], ref["replicates"], rtol=1e-12)
    np.testing.assert_allclose([got["mae"]["low"], got["mae"]["high"]], [ref["low"], ref["high"]],
                               rtol=1e-12)
    none = shift.regression_metrics(y, p)
    assert np.isnan(none["rmse"]["low"]) and np.isnan(none["rmse"]["high"])


# ---------------------------------------------------------------------------------------------
# OOD detection
# ---------------------------------------------------------------------------------------------

def test_ood_detection_matches_sklearn(rng):
    for n in (4, 50, 1000):
        shifted = rng.integers(0, 2, n)
        shifted[:2] = [0, 1]
        unc = np.round(rng.normal(shifted * 0.7, 1), 1)  # ties
        got = shift.ood_detection(shifted, unc)
        assert got["auroc"] == pytest.approx(skm.roc_auc_score(shifted, unc), rel=RTOL)
        precision, recall, _ = skm.precision_recall_curve(shifted, unc)
        assert got["aupr"] == pytest.approx(skm.auc(recall, precision), rel=1e-12)
        assert got["average_precision"] == pytest.approx(
            skm.average_precision_score(shifted, unc), rel=RTOL)
        fpr, tpr, _ = skm.roc_curve(shifted, unc, drop_intermediate=False)
        assert got["fpr_at_95"] == pytest.approx(fpr[np.argmax(tpr >= 0.95)], rel=RTOL, abs=0)
        assert got["n_shifted"] == shifted.sum() and got["n_in"] == n - shifted.sum()


def test_ood_one_domain_is_nan_with_warning():
    with pytest.warns(assay.AssayWarning, match="found 3 and 0"):
        got = shift.ood_detection([0, 0, 0], [0.1, 0.2, 0.3])
    assert np.isnan(got["auroc"]) and np.isnan(got["fpr_at_95"])


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------

def test_bad_input_messages():
    E = assay.AssayError
    with pytest.raises(E, match=r"errors and uncertainty differ in length \(3 vs 2\)"):
        shift.retention_curve([1, 2, 3], [1, 2])
    with pytest.raises(E, match=r"uncertainty contains NaN at index 1"):
        shift.retention_curve([1, 2, 3], [1, np.nan, 2])
    with pytest.raises(E, match=r"errors contains inf at index 0"):
        shift.f1_retention([np.inf], [0], 1.0)
    with pytest.raises(E, match=r"errors is empty"):
        shift.prr([], [])
    with pytest.raises(E, match=r"unknown retention convention \"trapz\""):
        shift.retention_curve([1], [1], convention="trapz")
    with pytest.raises(E, match=r"beta must be > 0, found 0"):
        shift.f1_retention([1], [1], 1.0, beta=0)
    with pytest.raises(E, match=r"threshold must be a number, found nan"):
        shift.f1_retention([1], [1], np.nan)
    probs = np.full((2, 3, 2), 0.5)
    probs[1, 2] = [0.5, 0.6]
    with pytest.raises(E, match=r"probabilities of member 1 at sample 2 sum to 1.1, expected 1 "
                                r"\(tolerance 1.001e-05\)"):
        shift.ensemble_uncertainty(probs)
    ok = np.full((1, 1, 2), 0.5)
    ok[0, 0] = [0.5 + 5e-6, 0.5]  # within the documented tolerance
    shift.ensemble_uncertainty(ok)
    probs = np.full((1, 2, 2), 0.5)
    probs[0, 1] = [-0.5, 1.5]
    with pytest.raises(E, match=r"probs must be in \[0, 1\], found -0.5 \(member 0, sample 1"):
        shift.ensemble_uncertainty(probs)
    with pytest.raises(E, match=r"probs must be a 3-D array, found 2 dimensions"):
        shift.ensemble_uncertainty(np.full((2, 2), 0.5))
    preds = np.ones((2, 3, 2))
    preds[1, 2, 1] = -1
    with pytest.raises(E, match=r"preds: negative variance -1 of member 1 at sample 2"):
        shift.ensemble_uncertainty_regression(preds)
    with pytest.raises(E, match=r"preds must have shape \(members, samples, 2\)"):
        shift.ensemble_uncertainty_regression(np.ones((2, 3, 3)))
    with pytest.raises(E, match=r"var contains a negative variance -2 at index 1"):
        shift.gaussian_nll([1, 2], [1, 2], [1, -2])
    with pytest.raises(E, match=r"y and preds differ in number of samples \(2 vs 3\)"):
        shift.ensemble_nll([1, 2], np.ones((2, 3, 2)))
    # The regression metrics are assay.metrics' (scikit-learn's messages).
    with pytest.raises(E, match=r"inconsistent numbers of samples: \[2, 1\]"):
        shift.mean_absolute_error([1, 2], [1])
    with pytest.raises(E, match=r"Weights sum to zero, can't be normalized"):
        shift.mean_absolute_error([1, 2], [1, 2], sample_weight=[0, 0])
    with pytest.raises(E, match=r"Input contains NaN: y_pred\[0\] is NaN"):
        shift.r2_score([1, 2], [np.nan, 2])
    with pytest.raises(E, match=r"shifted must be 0 or 1, found 2 at index 1"):
        shift.ood_detection([0, 2], [1, 2])
    with pytest.raises(E, match=r"shifted must be 0 or 1, found 0.5 at index 1"):
        shift.ood_detection([0, 0.5], [1, 2])
    with pytest.raises(E, match=r"shifted must be 0 or 1, found nan at index 0"):
        shift.ood_detection([np.nan, 1], [1, 2])
    assert shift.r2_score([1, 1], [1, 2], force_finite=False) == -np.inf
