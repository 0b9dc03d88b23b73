"""The statistics of a paired comparison (assay/compare/statistics.hpp) against their reference
implementations, run live: statsmodels (exact McNemar, multipletests), R's pROC (DeLong's paired
test and the interval of the difference), scipy.stats.bootstrap (percentile and BCa intervals)
and scipy.stats.permutation_test (the two-sided Monte Carlo p-value)."""
import shutil
import subprocess

import numpy as np
import pytest

_assay = pytest.importorskip("assay._assay")
from assay import AssayWarning  # noqa: E402
from assay import _compare_statistics as cs  # noqa: E402
from assay import metrics  # noqa: E402

scipy_stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest")
contingency = pytest.importorskip("statsmodels.stats.contingency_tables")


# --- exact McNemar ------------------------------------------------------------------------------

def mcnemar_tables():
    rng = np.random.default_rng(7)
    tables = [(0, 0), (0, 1), (1, 0), (3, 12), (12, 3), (7, 7), (0, 40), (5000, 5100),
              (5100, 5000), (4000, 4000), (1, 1500), (260, 310)]
    tables += [tuple(int(v) for v in rng.integers(0, 60, 2)) for _ in range(200)]
    tables += [tuple(int(v) for v in rng.integers(0, 3000, 2)) for _ in range(50)]
    return tables


def test_mcnemar_equals_statsmodels_exact():
    for b, c in mcnemar_tables():
        table = np.array([[11, b], [c, 9]])
        expected = contingency.mcnemar(table, exact=True).pvalue
        got = cs.mcnemar_exact(b, c)
        assert got["p_value"] == pytest.approx(expected, rel=1e-12, abs=0), (b, c)


def test_mcnemar_mid_p_is_p_less_the_point_probability():
    for b, c in mcnemar_tables():
        got = cs.mcnemar_exact(b, c)
        if b == c:
            # The two tails share the middle point: the mid-p value is 1, as the p-value.
            assert got["mid_p"] == 1.0
            continue
        n, k = b + c, min(b, c)
        expected = got["p_value"] - scipy_stats.binom.pmf(k, n, 0.5)
        assert got["mid_p"] == pytest.approx(expected, rel=1e-12, abs=1e-300), (b, c)


def test_mcnemar_refuses_non_whole_counts():
    with pytest.raises(_assay.AssayError, match="whole"):
        cs.mcnemar_exact(2.5, 3)


# --- multiple-comparison corrections ------------------------------------------------------------

def p_value_vectors():
    rng = np.random.default_rng(11)
    vectors = [np.array([0.01, 0.04, 0.03]), np.array([1.0, 1.0, 0.5]), np.array([0.2]),
               np.array([0.0, 0.0, 1e-300, 0.05])]
    for size in (2, 5, 20, 200):
        p = rng.uniform(0, 1, size) ** 3
        p[rng.random(size) < 0.2] = 1.0
        if size > 2:
            p[1] = p[2] = p[0]  # ties
        vectors.append(p)
        vectors.append(np.round(p, 2))  # many ties
    return vectors


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_adjust_p_values_equals_multipletests(method):
    for p in p_value_vectors():
        expected = multitest.multipletests(p, method=method)[1]
        got = cs.adjust_p_values(p, method)
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0, err_msg=f"{method} {p}")


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_adjust_p_values_passes_nan_through_uncounted(method):
    p = np.array([0.01, np.nan, 0.04, 0.03, np.nan])
    got = cs.adjust_p_values(p, method)
    defined = ~np.isnan(p)
    assert np.isnan(got[~defined]).all()
    np.testing.assert_allclose(got[defined], multitest.multipletests(p[defined], method=method)[1],
                               rtol=1e-15)


def test_adjust_p_values_none_and_unknown_method():
    p = np.array([0.3, 0.01])
    np.testing.assert_array_equal(cs.adjust_p_values(p, "none"), p)
    with pytest.raises(_assay.AssayError):
        cs.adjust_p_values(p, "hochberg")


# --- DeLong against pROC ------------------------------------------------------------------------

R_SCRIPT = r"""
suppressMessages(library(pROC))
args <- commandArgs(trailingOnly = TRUE)
out <- character(0)
for (path in args[-1]) {
  d <- read.csv(path)
  r1 <- roc(d$y, d$a, direction = "<", levels = c(0, 1), quiet = TRUE)
  r2 <- roc(d$y, d$b, direction = "<", levels = c(0, 1), quiet = TRUE)
  t <- roc.test(r1, r2, paired = TRUE, method = "delong", conf.level = 0.9)
  out <- c(out, sprintf("%.17g %.17g %.17g %.17g %.17g %.17g", t$statistic, t$p.value,
                        t$conf.int[1], t$conf.int[2], t$estimate[1], t$estimate[2]))
}
writeLines(out, args[1])
"""


def r_with_proc():
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed: the DeLong oracle is R's pROC")
    probe = subprocess.run(["Rscript", "-e", "library(pROC)"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("R's pROC package is not installed: the DeLong oracle is pROC's roc.test")


def delong_cases():
    """(name, y, a, b): continuous and heavily tied scores, several sizes."""
    cases = []
    for n in (30, 200, 2000):
        rng = np.random.default_rng(n)
        y = (rng.random(n) < 0.4).astype(np.uint8)
        y[:2], y[2:4] = 1, 0  # both classes have at least two examples
        shared = rng.normal(size=n)
        a = y * 1.0 + shared + 0.6 * rng.normal(size=n)
        b = y * 0.7 + shared + 0.9 * rng.normal(size=n)
        cases.append((f"continuous n={n}", y, a, b))
        cases.append((f"tied n={n}", y, np.round(a / 4, 1), np.round(b / 4, 1)))
    return cases


def test_delong_equals_proc_roc_test(tmp_path):
    r_with_proc()
    cases = delong_cases()
    paths = []
    for i, (_, y, a, b) in enumerate(cases):
        path = tmp_path / f"case{i}.csv"
        with open(path, "w") as f:
            f.write("y,a,b\n")
            for row in zip(y, a, b):
                f.write(f"{row[0]},{row[1]!r},{row[2]!r}\n")
        paths.append(str(path))
    script = tmp_path / "delong.R"
    script.write_text(R_SCRIPT)
    result = tmp_path / "result.txt"
    subprocess.run(["Rscript", str(script), str(result), *paths], check=True, timeout=300)
    rows = [list(map(float, line.split())) for line in result.read_text().splitlines()]
    assert len(rows) == len(cases)
    for (name, y, a, b), (z, p, low, high, auc1, auc2) in zip(cases, rows):
        got = cs.delong_difference(y, a, b, confidence=0.9)
        # pROC's roc1 is the model and roc2 the baseline: its auc1 - auc2 is our difference.
        assert got["auc_model"] == pytest.approx(auc1, abs=1e-12), name
        assert got["auc_baseline"] == pytest.approx(auc2, abs=1e-12), name
        assert got["z"] == pytest.approx(z, abs=1e-9), name
        assert got["p_value"] == pytest.approx(p, rel=1e-9, abs=1e-15), name
        assert got["low"] == pytest.approx(low, abs=1e-9), name
        assert got["high"] == pytest.approx(high, abs=1e-9), name


def test_delong_agrees_with_metrics_delong_roc_test():
    for name, y, a, b in delong_cases():
        got = cs.delong_difference(y, a, b)
        ref = metrics.delong_roc_test(y, a, b)
        cov = ref["covariance"]
        assert got["auc_model"] == pytest.approx(ref["auc_a"], abs=1e-14), name
        assert got["auc_baseline"] == pytest.approx(ref["auc_b"], abs=1e-14), name
        assert got["z"] == pytest.approx(ref["z"], abs=1e-10), name
        assert got["p_value"] == pytest.approx(ref["p_value"], rel=1e-9, abs=1e-15), name
        se = np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
        assert got["standard_error"] == pytest.approx(se, rel=1e-10), name


def test_delong_weights():
    _, y, a, b = delong_cases()[3]  # tied, n = 200
    plain = cs.delong_difference(y, a, b)
    twice = cs.delong_difference(y, a, b, sample_weight=np.full(len(y), 2.0))
    for key in plain:
        assert twice[key] == pytest.approx(plain[key], rel=1e-12, abs=1e-15), key
    counts = np.random.default_rng(3).integers(0, 4, len(y))
    weighted = cs.delong_difference(y, a, b, sample_weight=counts.astype(float))
    rows = np.repeat(np.arange(len(y)), counts)
    expanded = cs.delong_difference(y[rows], a[rows], b[rows])
    for key in ("auc_model", "auc_baseline", "difference"):
        assert weighted[key] == pytest.approx(expanded[key], abs=1e-14), key


def test_delong_undefined_and_bad_labels():
    y = np.array([1, 0, 0, 0, 1])
    a = np.array([0.9, 0.1, 0.2, 0.3, 0.8])
    b = np.array([0.5, 0.4, 0.6, 0.1, 0.7])
    with pytest.warns(AssayWarning, match="DeLong"):
        got = cs.delong_difference(y, a, b, sample_weight=np.array([1.0, 1, 1, 1, 0]))
    assert np.isnan(got["p_value"]) and np.isnan(got["low"])
    with pytest.raises(_assay.AssayError, match="0/1"):
        cs.delong_difference(np.array([0, 1, 2, 1, 0]), a, b)
    with pytest.raises(_assay.AssayError, match="0/1"):
        cs.delong_difference(np.array([0, 1, 256, 1, 0]), a, b)  # not wrapped to 0


# --- bootstrap intervals against scipy.stats.bootstrap -------------------------------------------

def mean_difference(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def paired_sample(n, seed, skewed):
    rng = np.random.default_rng(seed)
    x = rng.exponential(size=n) if skewed else rng.normal(size=n)
    y = x * 0.5 + (rng.exponential(size=n) if skewed else rng.normal(size=n))
    return x, y


def leave_one_out(x, y):
    d = x - y
    return (d.sum() - d) / (len(d) - 1)


@pytest.mark.parametrize("skewed", [False, True])
def test_bca_equals_scipy_on_its_own_replicates(skewed):
    """scipy 1.10 returns its replicates (bootstrap_distribution): given them, the estimate and
    the paired leave-one-out jackknife (what scipy's BCa computes for paired=True), assay's BCa
    interval is scipy's exactly."""
    x, y = paired_sample(100, 5, skewed)
    res = scipy_stats.bootstrap((x, y), mean_difference, paired=True, vectorized=True,
                                n_resamples=2000, method="BCa", confidence_level=0.95,
                                random_state=np.random.default_rng(1))
    low, high = cs.bca_interval(res.bootstrap_distribution, mean_difference(x, y),
                                leave_one_out(x, y), 0.95)
    assert low == pytest.approx(res.confidence_interval.low, rel=1e-12, abs=1e-15)
    assert high == pytest.approx(res.confidence_interval.high, rel=1e-12, abs=1e-15)


def scipy_bca_formula(replicates, estimate, jackknife, confidence):
    """scipy 1.10's _bca_interval and _percentile_along_axis (scipy/stats/_resampling.py),
    restated for one sample of jackknife values."""
    from scipy.special import ndtr, ndtri
    alpha = (1 - confidence) / 2
    share = ((replicates < estimate).sum() + (replicates <= estimate).sum()) / (2 * len(replicates))
    z0 = ndtri(share)
    n = len(jackknife)
    u = (n - 1) * (jackknife.mean() - jackknife)
    a = 1 / 6 * ((u ** 3).sum() / n ** 3) / ((u ** 2).sum() / n ** 2) ** 1.5
    levels = [ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))) for z in (ndtri(alpha), -ndtri(alpha))]
    return tuple(np.percentile(replicates, level * 100) for level in levels)


def test_bca_equals_the_scipy_formula_on_constructed_replicates():
    rng = np.random.default_rng(8)
    for _ in range(20):
        replicates = rng.gamma(2.0, size=int(rng.integers(50, 3000)))
        estimate = float(np.quantile(replicates, rng.uniform(0.2, 0.8)))
        jackknife = rng.gamma(3.0, size=int(rng.integers(10, 400)))
        confidence = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        expected = scipy_bca_formula(replicates, estimate, jackknife, confidence)
        got = cs.bca_interval(replicates, estimate, jackknife, confidence)
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_bca_agrees_with_scipy_within_monte_carlo_error():
    """Independent resamples (numpy's, not scipy's): both intervals estimate the same BCa bounds.
    With B = 20000 a 2.5% quantile has Monte Carlo SD about sd* sqrt(.025 .975 / B) / phi(1.96)
    = 0.019 sd* (sd* = the bootstrap SD), 0.027 sd* for a difference of two; BCa's z0 adds a
    little. 0.15 sd* is over five such SDs (and the seeds are fixed)."""
    x, y = paired_sample(100, 9, True)
    res = scipy_stats.bootstrap((x, y), mean_difference, paired=True, vectorized=True,
                                n_resamples=20000, method="BCa",
                                random_state=np.random.default_rng(2))
    rng = np.random.default_rng(3)
    d = x - y
    replicates = d[rng.integers(0, len(d), (20000, len(d)))].mean(axis=1)
    low, high = cs.bca_interval(replicates, d.mean(), leave_one_out(x, y), 0.95)
    sd = replicates.std()
    assert abs(low - res.confidence_interval.low) < 0.15 * sd
    assert abs(high - res.confidence_interval.high) < 0.15 * sd


def test_percentile_interval_equals_scipy():
    x, y = paired_sample(100, 6, True)
    for confidence in (0.9, 0.95):
        res = scipy_stats.bootstrap((x, y), mean_difference, paired=True, vectorized=True,
                                    n_resamples=1999, method="percentile",
                                    confidence_level=confidence,
                                    random_state=np.random.default_rng(4))
        replicates = np.append(res.bootstrap_distribution, np.nan)  # NaN is left out
        low, high = cs.percentile_interval(replicates, mean_difference(x, y), confidence)
        assert low == pytest.approx(res.confidence_interval.low, rel=1e-12)
        assert high == pytest.approx(res.confidence_interval.high, rel=1e-12)


def test_bca_degenerate_cases_warn_and_give_nan():
    replicates = np.arange(10.0)
    with pytest.warns(AssayWarning, match="BCa"):
        assert np.isnan(cs.bca_interval(replicates, -1.0, [1.0, 2.0, 4.0])).all()
    with pytest.warns(AssayWarning, match="AUC gap"):
        assert np.isnan(cs.bca_interval(replicates, 4.5, [2.0, 2.0], what="AUC gap")).all()


def test_bootstrap_p_value():
    assert cs.bootstrap_p_value(np.full(99, 0.5)) == pytest.approx(0.02)
    assert cs.bootstrap_p_value(np.array([-1.0, 1, 2, 3, np.nan])) == pytest.approx(0.8)
    assert np.isnan(cs.bootstrap_p_value(np.array([np.nan])))


# --- permutation p-value against scipy.stats.permutation_test ------------------------------------

def scipy_two_sided(null, observed):
    """scipy 1.10's permutation_test p-value for random permutations (_resampling.py: gamma,
    less, greater, two_sided, clip)."""
    gamma = np.maximum(1e-14, np.abs(1e-14 * observed))
    p_less = ((null <= observed + gamma).sum() + 1) / (len(null) + 1)
    p_greater = ((null >= observed - gamma).sum() + 1) / (len(null) + 1)
    return np.clip(np.minimum(p_less, p_greater) * 2, 0, 1)


def test_permutation_p_value_equals_scipy_rule():
    rng = np.random.default_rng(12)
    for _ in range(50):
        null = np.round(rng.normal(size=int(rng.integers(10, 2000))), 1)  # ties on purpose
        observed = float(rng.choice(null)) + float(rng.choice([0, 1e-15, -1e-15, 0.05]))
        assert cs.permutation_p_value(null, observed) == scipy_two_sided(null, observed)


def test_permutation_p_value_equals_scipy_permutation_test():
    """Given scipy's own null distribution (samples permutation: each pair's two values swapped),
    the p-value is scipy's exactly; a null drawn independently by sign flips agrees within
    Monte Carlo error (binomial SD of p at B = 9999 is below 0.005 here; 0.03 allows 6)."""
    rng = np.random.default_rng(13)
    x = rng.normal(size=100)
    y = x + rng.normal(0.2, 1, size=100)
    res = scipy_stats.permutation_test((x, y), mean_difference, permutation_type="samples",
                                       vectorized=True, n_resamples=9999,
                                       random_state=np.random.default_rng(5))
    assert cs.permutation_p_value(res.null_distribution, res.statistic) == res.pvalue
    d = x - y
    signs = rng.choice([-1.0, 1.0], size=(9999, len(d)))
    own_null = (signs * d).mean(axis=1)
    assert abs(cs.permutation_p_value(own_null, d.mean()) - res.pvalue) < 0.03
