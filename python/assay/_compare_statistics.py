"""The statistics of a paired comparison of two models, apart from any metric: bootstrap intervals
(percentile, BCa) and p-values, the permutation p-value, exact McNemar, DeLong's test of two
correlated ROC AUCs and multiple-comparison corrections (assay/compare/statistics.hpp).
assay.compare re-exports these.

Replicates and null statistics are one value per resample; NaN marks a resample where the
statistic was undefined, and is left out."""
import numpy as np

from . import _assay
from ._options import check_finite_number, check_number, check_probability, check_text

__all__ = ["percentile_interval", "bca_interval", "bootstrap_p_value", "permutation_p_value",
           "mcnemar_exact", "adjust_p_values", "delong_difference"]


def _values(a, name):
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.ndim != 1:
        raise _assay.AssayError(f"{name} must be a 1-D array, found {a.ndim} dimensions")
    return a


def _binary_labels(y_true):
    """0/1 labels (bool or integers) as bytes; anything else is refused rather than wrapped."""
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise _assay.AssayError(f"y_true must be a 1-D array, found {y.ndim} dimensions")
    if y.dtype.kind not in "biuf" or not np.all((y == 0) | (y == 1)):
        raise _assay.AssayError("y_true must hold 0/1 (or boolean) labels, 1 = positive")
    return np.ascontiguousarray(y, dtype=np.uint8)


def percentile_interval(replicates, estimate, confidence=0.95):
    """(low, high): the percentile interval at `confidence` of the defined replicates, numpy's
    linear quantiles at (1 - confidence)/2 and (1 + confidence)/2. NaN when none is defined."""
    _, low, high = _assay.compare_percentile_interval(
        _values(replicates, "replicates"), check_number(estimate, "estimate"),
        check_probability(confidence, "confidence"))
    return low, high


def bca_interval(replicates, estimate, jackknife, confidence=0.95, what="the difference"):
    """(low, high): the BCa interval (scipy.stats.bootstrap's method="BCa") from the bootstrap
    replicates, the estimate on the full data and the jackknife values (leave-one-out, or
    delete-a-group). NaN, with an AssayWarning naming `what`, when all replicates fall on one side
    of the estimate or the jackknife is constant."""
    _, low, high = _assay.compare_bca_interval(
        _values(replicates, "replicates"), check_number(estimate, "estimate"),
        _values(jackknife, "jackknife"), check_probability(confidence, "confidence"),
        check_text(what, "what"))
    return low, high


def bootstrap_p_value(replicates):
    """Two-sided p-value of "no difference" from the bootstrap replicates of a difference:
    min(1, 2 min(#{d <= 0} + 1, #{d >= 0} + 1) / (B + 1)). NaN when none is defined."""
    return _assay.compare_bootstrap_p_value(_values(replicates, "replicates"))


def permutation_p_value(null_statistics, observed):
    """Two-sided Monte Carlo permutation p-value, as scipy.stats.permutation_test with random
    permutations (its +1 correction and relative tie tolerance 1e-14)."""
    return _assay.compare_permutation_p_value(_values(null_statistics, "null_statistics"),
                                              check_number(observed, "observed"))


def mcnemar_exact(b, c):
    """Exact McNemar test on the discordant counts b (only the model right) and c (only the
    baseline right): {"p_value": statsmodels' mcnemar(table, exact=True).pvalue, "mid_p"}."""
    return _assay.compare_mcnemar_exact(check_finite_number(b, "b"), check_finite_number(c, "c"))


def adjust_p_values(p_values, method="holm"):
    """Adjusted p-values in the input order, as statsmodels.stats.multitest.multipletests
    (method "holm", "bonferroni", "fdr_bh" or "none"). NaN stays NaN and is not counted."""
    return _assay.compare_adjust_p_values(_values(p_values, "p_values"),
                                          check_text(method, "method"))


def delong_difference(y_true, score_model, score_baseline, sample_weight=None, confidence=0.95):
    """DeLong's paired test of ROC AUC(model) - ROC AUC(baseline) on the same examples, as R's
    pROC roc.test(paired=TRUE, method="delong") when unweighted; weighted examples use weighted
    structural components. y_true holds 0/1 labels (1 = positive). Returns {"auc_model",
    "auc_baseline", "difference", "standard_error", "low", "high" (difference -/+ z *
    standard_error at `confidence`), "z", "p_value" (two-sided)}."""
    weights = None if sample_weight is None else _values(sample_weight, "sample_weight")
    return _assay.compare_delong_difference(
        _binary_labels(y_true), _values(score_model, "score_model"),
        _values(score_baseline, "score_baseline"), weights,
        check_probability(confidence, "confidence"))
