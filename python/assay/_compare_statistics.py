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
    """Compute the percentile interval of bootstrap replicates.

    numpy's linear quantiles of the defined replicates at (1 - confidence)/2 and
    (1 + confidence)/2. NaN replicates (resamples where the statistic was undefined) are left
    out.

    Parameters
    ----------
    replicates : array-like of shape (n_resamples,)
        One value per resample.
    estimate : float
        The estimate on the full data.
    confidence : float, default=0.95
        The interval's confidence level.

    Returns
    -------
    low : float
        The lower end; NaN when no replicate is defined.
    high : float
        The upper end; NaN when no replicate is defined.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import compare
    >>> replicates = np.array([0.1, 0.3, 0.2, 0.5, 0.4, 0.0, 0.25, 0.35])
    >>> low, high = compare.percentile_interval(replicates, 0.25, confidence=0.5)
    >>> round(low, 4), round(high, 4)
    (0.175, 0.3625)
    """
    _, low, high = _assay.compare_percentile_interval(
        _values(replicates, "replicates"), check_number(estimate, "estimate"),
        check_probability(confidence, "confidence"))
    return low, high


def bca_interval(replicates, estimate, jackknife, confidence=0.95, what="the difference"):
    """Compute the BCa interval (scipy.stats.bootstrap's method="BCa") of bootstrap replicates.

    From the bootstrap replicates, the estimate on the full data and the jackknife values
    (leave-one-out, or delete-a-group). NaN replicates are left out.

    Parameters
    ----------
    replicates : array-like of shape (n_resamples,)
        One value per resample.
    estimate : float
        The estimate on the full data.
    jackknife : array-like of shape (n_jackknife,)
        The statistic with each sample (or group) left out.
    confidence : float, default=0.95
        The interval's confidence level.
    what : str, default="the difference"
        What the warning calls the statistic.

    Returns
    -------
    low : float
        The lower end.
    high : float
        The upper end. Both NaN, with an AssayWarning naming ``what``, when all replicates fall
        on one side of the estimate or the jackknife is constant.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import compare
    >>> replicates = np.array([0.1, 0.3, 0.2, 0.5, 0.4, 0.0, 0.25, 0.35])
    >>> low, high = compare.bca_interval(replicates, 0.25, [0.2, 0.3, 0.25, 0.22, 0.28],
    ...                                  confidence=0.8)
    >>> round(low, 4), round(high, 4)
    (0.0387, 0.3916)
    """
    _, low, high = _assay.compare_bca_interval(
        _values(replicates, "replicates"), check_number(estimate, "estimate"),
        _values(jackknife, "jackknife"), check_probability(confidence, "confidence"),
        check_text(what, "what"))
    return low, high


def bootstrap_p_value(replicates):
    """Compute the two-sided bootstrap p-value of "no difference".

    From the bootstrap replicates d of a difference:
    min(1, 2 min(#{d <= 0} + 1, #{d >= 0} + 1) / (B + 1)), over the B defined replicates.

    Parameters
    ----------
    replicates : array-like of shape (n_resamples,)
        The difference in each resample (NaN: undefined, left out).

    Returns
    -------
    float
        The p-value; NaN when no replicate is defined.

    Examples
    --------
    >>> from assay import compare
    >>> round(compare.bootstrap_p_value([0.1, 0.3, -0.2, 0.5, 0.4]), 4)
    0.6667
    """
    return _assay.compare_bootstrap_p_value(_values(replicates, "replicates"))


def permutation_p_value(null_statistics, observed):
    """Compute the two-sided Monte Carlo permutation p-value.

    As scipy.stats.permutation_test with random permutations (its +1 correction and relative
    tie tolerance 1e-14).

    Parameters
    ----------
    null_statistics : array-like of shape (n_permutations,)
        The statistic under each permutation (NaN: undefined, left out).
    observed : float
        The statistic on the data.

    Returns
    -------
    float
        The p-value.

    Examples
    --------
    >>> from assay import compare
    >>> round(compare.permutation_p_value([0.1, -0.3, 0.2, -0.5, 0.05], 0.4), 4)
    0.3333
    """
    return _assay.compare_permutation_p_value(_values(null_statistics, "null_statistics"),
                                              check_number(observed, "observed"))


def mcnemar_exact(b, c):
    """Compute the exact McNemar test on the discordant counts.

    Parameters
    ----------
    b : float
        The (weighted) count of examples only the model gets right.
    c : float
        The (weighted) count of examples only the baseline gets right.

    Returns
    -------
    dict
        ``p_value`` (statsmodels' ``mcnemar(table, exact=True).pvalue``) and ``mid_p``.

    Examples
    --------
    >>> from assay import compare
    >>> compare.mcnemar_exact(10, 3)
    {'p_value': 0.09228515625, 'mid_p': 0.057373046875}
    """
    return _assay.compare_mcnemar_exact(check_finite_number(b, "b"), check_finite_number(c, "c"))


def adjust_p_values(p_values, method="holm"):
    """Adjust p-values for multiple comparisons.

    As statsmodels.stats.multitest.multipletests; the result keeps the input order. NaN stays
    NaN and is not counted.

    Parameters
    ----------
    p_values : array-like of shape (n_tests,)
        The p-values.
    method : {"holm", "bonferroni", "fdr_bh", "none"}, default="holm"
        The correction.

    Returns
    -------
    numpy.ndarray of shape (n_tests,)
        The adjusted p-values.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import compare
    >>> compare.adjust_p_values([0.01, 0.04, 0.03, np.nan])
    array([0.03, 0.06, 0.06,  nan])
    >>> compare.adjust_p_values([0.01, 0.04, 0.03], method="fdr_bh")
    array([0.03, 0.04, 0.04])
    """
    return _assay.compare_adjust_p_values(_values(p_values, "p_values"),
                                          check_text(method, "method"))


def delong_difference(y_true, score_model, score_baseline, sample_weight=None, confidence=0.95):
    """Test ROC AUC(model) - ROC AUC(baseline) on the same examples with DeLong's paired test.

    As R's pROC ``roc.test(paired=TRUE, method="delong")`` when unweighted; weighted examples
    use weighted structural components.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        0/1 (or boolean) labels, 1 = positive.
    score_model : array-like of shape (n_samples,)
        The model's scores.
    score_baseline : array-like of shape (n_samples,)
        The baseline's scores.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each example. None: every example weighs 1.
    confidence : float, default=0.95
        The interval's confidence level.

    Returns
    -------
    dict
        Keys auc_model, auc_baseline, difference, standard_error, low, high (difference -/+ z *
        standard_error at ``confidence``), z, p_value (two-sided).

    Raises
    ------
    assay.AssayError
        Labels other than 0/1, or arrays that are not 1-D.

    Examples
    --------
    >>> from assay import compare
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> model = [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.6, 0.9]
    >>> baseline = [0.2, 0.3, 0.5, 0.6, 0.4, 0.4, 0.7, 0.8]
    >>> test = compare.delong_difference(y, model, baseline)
    >>> test["auc_model"], test["auc_baseline"], test["difference"]
    (0.875, 0.78125, 0.09375)
    >>> round(test["p_value"], 4)
    0.6535
    """
    weights = None if sample_weight is None else _values(sample_weight, "sample_weight")
    return _assay.compare_delong_difference(
        _binary_labels(y_true), _values(score_model, "score_model"),
        _values(score_baseline, "score_baseline"), weights,
        check_probability(confidence, "confidence"))
