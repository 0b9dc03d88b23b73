"""Robustness and uncertainty under distribution shift (Shifts 2.0 paper): retention curves, R-AUC,
PRR, AURC / AUGRC, F1 retention, ensemble uncertainty measures, Gaussian NLL, regression metrics
with bootstrap intervals, OOD detection, canonical partition tables, threshold tuning and
generalisation sets. Every convention is named in docs/shift.md; the computations are in C++
(include/assay/shift/)."""
import json
from dataclasses import dataclass

import numpy as np

from . import _assay
from ._progress import reporting
from ._results import BootstrapResult, PartitionResult, RegressionMetricsResult
from ._options import (check_integer, check_number, check_probability, check_resamples,
                       check_threads, check_unsigned)

__all__ = [
    "RetentionResult", "F1RetentionResult", "retention_curve", "oracle_retention_curve",
    "random_retention_curve", "prr", "risk_coverage_curve", "aurc", "e_aurc", "augrc", "e_augrc",
    "f1_retention", "oracle_f1_retention", "random_f1_retention", "ensemble_uncertainty",
    "ensemble_uncertainty_regression", "gaussian_nll", "ensemble_nll", "mean_squared_error",
    "mean_absolute_error", "mean_absolute_percentage_error", "r2_score", "regression_metrics",
    "ood_detection", "evaluate_partitions", "tune_threshold", "generalisation_set",
]


@dataclass(frozen=True)
class RetentionResult:
    """An error-retention curve and its area.

    ``curve[j]`` is the error with the j most uncertain samples rejected (j = 0..n; the divisor
    is always n), ``r_auc`` its area under ``convention``.

    Parameters
    ----------
    curve : numpy.ndarray of shape (n_samples + 1,)
        The error at each number of rejected samples.
    r_auc : float
        The area under the curve (R-AUC).
    convention : str
        The convention of the area: "shifts" or "shifts-vpower".

    Examples
    --------
    >>> from assay import shift
    >>> result = shift.retention_curve([0.1, 0.9, 0.4, 0.2], [0.2, 0.8, 0.5, 0.1])
    >>> result.curve
    array([0.4  , 0.175, 0.075, 0.05 , 0.   ])
    >>> result.r_auc, result.convention
    (0.14, 'shifts')
    """
    curve: np.ndarray
    r_auc: float
    convention: str


@dataclass(frozen=True)
class F1RetentionResult:
    """An F-beta retention curve and its summaries.

    ``curve[k]`` is the F-beta score with the k most certain samples retained (k = 0..n),
    ``f1_auc`` its area over x = k/(n+1), ``f1_at_95`` = curve[floor(0.95 (n+1))].

    Parameters
    ----------
    curve : numpy.ndarray of shape (n_samples + 1,)
        The F-beta score at each number of retained samples.
    f1_auc : float
        The area under the curve.
    f1_at_95 : float
        The F-beta score with 95% of the samples retained.
    n_acceptable : int
        The number of acceptable samples (error <= threshold).

    Examples
    --------
    >>> from assay import shift
    >>> result = shift.f1_retention([0.1, 0.9, 0.4, 0.2], [0.2, 0.8, 0.5, 0.1], threshold=0.3)
    >>> result.n_acceptable, round(result.f1_auc, 4)
    (2, 0.56)
    """
    curve: np.ndarray
    f1_auc: float
    f1_at_95: float
    n_acceptable: int


def _f64(x):
    return np.ascontiguousarray(x, dtype=np.float64)


def _flags(values, what):
    """0/1 flags as uint8; any other value (0.5, -1, NaN) is an AssayError, never truncated."""
    flags = np.asarray(values)
    if flags.dtype != bool:
        bad = np.flatnonzero((flags != 0) & (flags != 1))
        if bad.size:
            i = int(bad[0])
            raise _assay.AssayError(f"{what} must be 0 or 1, found {flags.flat[i]} at index {i}")
    return np.ascontiguousarray(flags, dtype=np.uint8)


def _retention(d):
    return RetentionResult(d["curve"], d["r_auc"], d["convention"])


def retention_curve(errors, uncertainty, convention="shifts"):
    """Compute the error-retention curve of per-sample errors.

    Samples are rejected by decreasing ``uncertainty``; the curve holds the error that remains
    after each rejection.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error.
    uncertainty : array-like of shape (n_samples,)
        Each sample's uncertainty; the most uncertain are rejected first.
    convention : {"shifts", "shifts-vpower"}, default="shifts"
        "shifts": tie groups averaged, R-AUC = mean of the n+1 points (Shifts' weather/SDC
        code); "shifts-vpower": no grouping, trapezoid over linspace(0, 1, n+1) (Shifts'
        vessel-power code).

    Returns
    -------
    RetentionResult
        The curve, its R-AUC and the convention.

    Raises
    ------
    assay.AssayError
        Arrays of different lengths, or an unknown convention.

    Examples
    --------
    >>> from assay import shift
    >>> errors, uncertainty = [0.1, 0.9, 0.4, 0.2], [0.2, 0.8, 0.5, 0.1]
    >>> shift.retention_curve(errors, uncertainty).r_auc
    0.14
    >>> shift.retention_curve(errors, uncertainty, convention="shifts-vpower").r_auc
    0.125
    """
    return _retention(_assay._retention_curve(_f64(errors), _f64(uncertainty), str(convention)))


def oracle_retention_curve(errors, convention="shifts"):
    """Compute the oracle error-retention curve: samples rejected by decreasing error.

    It is the curve of an uncertainty equal to the error, the best any uncertainty can do.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error.
    convention : {"shifts", "shifts-vpower"}, default="shifts"
        "shifts": tie groups averaged, R-AUC = mean of the n+1 points (Shifts' weather/SDC
        code); "shifts-vpower": no grouping, trapezoid over linspace(0, 1, n+1) (Shifts'
        vessel-power code).

    Returns
    -------
    RetentionResult
        The curve, its R-AUC and the convention.

    Examples
    --------
    >>> from assay import shift
    >>> shift.oracle_retention_curve([0.1, 0.9, 0.4, 0.2]).r_auc
    0.135
    """
    return _retention(_assay._oracle_retention_curve(_f64(errors), str(convention)))


def random_retention_curve(errors, convention="shifts"):
    """Compute the expected error-retention curve of a random rejection order.

    The curve is R[0] (n - j) / n, its area R[0] / 2.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error.
    convention : {"shifts", "shifts-vpower"}, default="shifts"
        "shifts": tie groups averaged, R-AUC = mean of the n+1 points (Shifts' weather/SDC
        code); "shifts-vpower": no grouping, trapezoid over linspace(0, 1, n+1) (Shifts'
        vessel-power code).

    Returns
    -------
    RetentionResult
        The curve, its R-AUC and the convention.

    Examples
    --------
    >>> from assay import shift
    >>> shift.random_retention_curve([0.1, 0.9, 0.4, 0.2]).curve
    array([0.4, 0.3, 0.2, 0.1, 0. ])
    """
    return _retention(_assay._random_retention_curve(_f64(errors), str(convention)))


def prr(errors, uncertainty, convention="shifts"):
    """Compute the prediction rejection ratio of an uncertainty.

    PRR = (r_auc - random) / (oracle - random), as a fraction (Shifts' calc_aucs reports 100
    times this): 1 for an uncertainty as good as the oracle, 0 for a random order.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error.
    uncertainty : array-like of shape (n_samples,)
        Each sample's uncertainty.
    convention : {"shifts", "shifts-vpower"}, default="shifts"
        "shifts": tie groups averaged, R-AUC = mean of the n+1 points (Shifts' weather/SDC
        code); "shifts-vpower": no grouping, trapezoid over linspace(0, 1, n+1) (Shifts'
        vessel-power code).

    Returns
    -------
    float
        The ratio; NaN with a warning when oracle == random.

    Examples
    --------
    >>> from assay import shift
    >>> round(shift.prr([0.1, 0.9, 0.4, 0.2], [0.5, 0.1, 0.2, 0.9]), 4)
    -0.9231
    """
    return _assay._prr(_f64(errors), _f64(uncertainty), str(convention))["prr"]


def risk_coverage_curve(errors, uncertainty):
    """Compute fd-shifts' risk-coverage points and areas.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error (0/1 for a classifier).
    uncertainty : array-like of shape (n_samples,)
        Each sample's uncertainty; the most uncertain are rejected first.

    Returns
    -------
    dict
        Keys coverage (descending, ending in 0), selective_risk, generalized_risk (arrays), aurc,
        augrc, e_aurc, e_augrc (fractions; fd-shifts displays them multiplied by 1000).

    Examples
    --------
    >>> from assay import shift
    >>> curve = shift.risk_coverage_curve([0, 1, 1, 0, 0], [0.1, 0.9, 0.4, 0.3, 0.2])
    >>> curve["coverage"]
    array([1. , 0.8, 0.6, 0.4, 0.2, 0. ])
    >>> curve["selective_risk"]
    array([0.4 , 0.25, 0.  , 0.  , 0.  , 0.  ])
    >>> round(curve["aurc"], 4), round(curve["augrc"], 4)
    (0.09, 0.08)
    """
    return _assay._risk_coverage(_f64(errors), _f64(uncertainty))


def aurc(errors, uncertainty):
    """Compute the area under the selective risk-coverage curve (AURC).

    fd-shifts' definition, by the trapezoid rule; a fraction, not multiplied by 1000.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error (0/1 for a classifier).
    uncertainty : array-like of shape (n_samples,)
        Each sample's uncertainty; the most uncertain are rejected first.

    Returns
    -------
    float
        The area.

    Examples
    --------
    >>> from assay import shift
    >>> round(shift.aurc([0, 1, 1, 0, 0], [0.1, 0.9, 0.4, 0.3, 0.2]), 4)
    0.09
    """
    return risk_coverage_curve(errors, uncertainty)["aurc"]


def e_aurc(errors, uncertainty):
    """Compute the excess AURC: AURC minus the optimal AURC.

    The optimal AURC is fd-shifts' closed form for 0/1 errors.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error (0/1 for a classifier).
    uncertainty : array-like of shape (n_samples,)
        Each sample's uncertainty; the most uncertain are rejected first.

    Returns
    -------
    float
        The area.

    Examples
    --------
    >>> from assay import shift
    >>> round(shift.e_aurc([0, 1, 1, 0, 0], [0.1, 0.9, 0.4, 0.3, 0.2]), 4)
    -0.0035
    """
    return risk_coverage_curve(errors, uncertainty)["e_aurc"]


def augrc(errors, uncertainty):
    """Compute the area under the generalised risk-coverage curve (AUGRC).

    fd-shifts' definition; a fraction, not multiplied by 1000.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error (0/1 for a classifier).
    uncertainty : array-like of shape (n_samples,)
        Each sample's uncertainty; the most uncertain are rejected first.

    Returns
    -------
    float
        The area.

    Examples
    --------
    >>> from assay import shift
    >>> round(shift.augrc([0, 1, 1, 0, 0], [0.1, 0.9, 0.4, 0.3, 0.2]), 4)
    0.08
    """
    return risk_coverage_curve(errors, uncertainty)["augrc"]


def e_augrc(errors, uncertainty):
    """Compute the excess AUGRC: AUGRC minus the optimal AUGRC.

    See ``risk_coverage_curve`` for all four areas at once.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error (0/1 for a classifier).
    uncertainty : array-like of shape (n_samples,)
        Each sample's uncertainty; the most uncertain are rejected first.

    Returns
    -------
    float
        The area.

    Examples
    --------
    >>> from assay import shift
    >>> round(shift.e_augrc([0, 1, 1, 0, 0], [0.1, 0.9, 0.4, 0.3, 0.2]), 4)
    -0.0
    """
    return risk_coverage_curve(errors, uncertainty)["e_augrc"]


def _f1(d):
    return F1RetentionResult(d["curve"], d["f1_auc"], d["f1_at_95"], int(d["n_acceptable"]))


def f1_retention(errors, uncertainty, threshold, beta=1.0):
    """Compute the F-beta retention curve (Shifts' f_beta_metrics).

    A sample is acceptable when its error <= ``threshold``; the curve is the F-beta score of
    "retained" against "acceptable" as the most certain samples are retained.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error.
    uncertainty : array-like of shape (n_samples,)
        Each sample's uncertainty; the most certain are retained first.
    threshold : float
        A sample is acceptable when its error <= threshold.
    beta : float, default=1.0
        The F-beta score's beta.

    Returns
    -------
    F1RetentionResult
        The curve, its area, F-beta at 95% retention and the number of acceptable samples;
        NaN (with a warning) when no sample is acceptable.

    Examples
    --------
    >>> from assay import shift
    >>> result = shift.f1_retention([0.1, 0.9, 0.4, 0.2], [0.2, 0.8, 0.5, 0.1], threshold=0.3)
    >>> result.curve
    array([0.        , 0.66666667, 1.        , 0.8       , 0.66666667])
    """
    return _f1(_assay._f1_retention(_f64(errors), _f64(uncertainty),
                                    check_number(threshold, "threshold"),
                                    check_number(beta, "beta"), "model"))


def oracle_f1_retention(errors, threshold, beta=1.0):
    """Compute the oracle F-beta retention curve, with uncertainty := error.

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error.
    threshold : float
        A sample is acceptable when its error <= threshold.
    beta : float, default=1.0
        The F-beta score's beta.

    Returns
    -------
    F1RetentionResult
        The curve, its area, F-beta at 95% retention and the number of acceptable samples.

    Examples
    --------
    >>> from assay import shift
    >>> round(shift.oracle_f1_retention([0.1, 0.9, 0.4, 0.2], threshold=0.3).f1_auc, 4)
    0.56
    """
    return _f1(_assay._f1_retention(_f64(errors), np.empty(0),
                                    check_number(threshold, "threshold"),
                                    check_number(beta, "beta"), "oracle"))


def random_f1_retention(errors, threshold, beta=1.0):
    """Compute the F-beta retention curve of a random order, from expected counts (TP_k = k p).

    Parameters
    ----------
    errors : array-like of shape (n_samples,)
        Each sample's error.
    threshold : float
        A sample is acceptable when its error <= threshold.
    beta : float, default=1.0
        The F-beta score's beta.

    Returns
    -------
    F1RetentionResult
        The curve, its area, F-beta at 95% retention and the number of acceptable samples.

    Examples
    --------
    >>> from assay import shift
    >>> shift.random_f1_retention([0.1, 0.9, 0.4, 0.2], threshold=0.3).curve
    array([0.        , 0.33333333, 0.5       , 0.6       , 0.66666667])
    """
    return _f1(_assay._f1_retention(_f64(errors), np.empty(0),
                                    check_number(threshold, "threshold"),
                                    check_number(beta, "beta"), "random"))


def ensemble_uncertainty(probs, epsilon=1e-10, threads=0):
    """Compute per-sample uncertainty measures of a classification ensemble.

    Parameters
    ----------
    probs : array-like of shape (n_members, n_samples, n_classes)
        Each member's class probabilities.
    epsilon : float, default=1e-10
        Added inside the logarithms (log(p + epsilon)), so zero probabilities stay finite.
    threads : int, default=0
        Threads; 0 = all cores. The result does not depend on it.

    Returns
    -------
    dict of str to numpy.ndarray
        Keys entropy_of_expected, expected_entropy, mutual_information, epkl,
        reverse_mutual_information and confidence (= max of the mean probabilities, positive;
        Shifts stores its negative under 'confidence'), one value per sample.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import shift
    >>> probs = np.array([[[0.9, 0.1], [0.5, 0.5]],
    ...                   [[0.7, 0.3], [0.5, 0.5]]])
    >>> measures = shift.ensemble_uncertainty(probs)
    >>> measures["confidence"]
    array([0.8, 0.5])
    >>> measures["mutual_information"].round(4)
    array([0.0324, 0.    ])
    """
    return _assay._ensemble_uncertainty(_f64(probs), check_number(epsilon, "epsilon"),
                                        check_threads(threads))


def ensemble_uncertainty_regression(preds, epsilon=1e-10, threads=0):
    """Compute per-sample uncertainty measures of a Gaussian regression ensemble.

    Parameters
    ----------
    preds : array-like of shape (n_members, n_samples, 2)
        Each member's Gaussian per sample; the last axis is (mean, variance).
    epsilon : float, default=1e-10
        Added to the variances in the two EPKLs only, so zero variances stay finite.
    threads : int, default=0
        Threads; 0 = all cores. The result does not depend on it.

    Returns
    -------
    dict of str to numpy.ndarray
        Keys mean, total_variance, data_uncertainty, knowledge_uncertainty, epkl_reg (Shifts'
        'epkl': expected pairwise cross-entropy) and epkl (true expected pairwise KL), one
        value per sample.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import shift
    >>> preds = np.array([[[1.0, 0.5], [2.0, 1.0]],
    ...                   [[1.2, 0.5], [2.0, 1.0]]])
    >>> measures = shift.ensemble_uncertainty_regression(preds)
    >>> measures["total_variance"]
    array([0.51, 1.  ])
    >>> measures["knowledge_uncertainty"]
    array([0.01, 0.  ])
    """
    return _assay._ensemble_uncertainty_regression(_f64(preds), check_number(epsilon, "epsilon"),
                                                   check_threads(threads))


def gaussian_nll(y, mean, var, epsilon=1e-8, raw=False):
    """Compute the Gaussian negative log-likelihood (Shifts' nll_regression).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The targets.
    mean : array-like of shape (n_samples,)
        The predicted means.
    var : array-like of shape (n_samples,)
        The predicted variances.
    epsilon : float, default=1e-8
        Added to the variances (2 var + epsilon, log(var + epsilon)), so a zero variance stays
        finite.
    raw : bool, default=False
        Return the per-sample values instead of their mean.

    Returns
    -------
    float or numpy.ndarray
        The mean over samples, or the per-sample values with ``raw=True``.

    Examples
    --------
    >>> from assay import shift
    >>> round(shift.gaussian_nll([1.0, 2.0], [1.1, 1.8], [0.5, 1.0]), 4)
    0.7607
    >>> shift.gaussian_nll([1.0, 2.0], [1.1, 1.8], [0.5, 1.0], raw=True).round(4)
    array([0.5824, 0.9389])
    """
    out = _assay._gaussian_nll(_f64(y), _f64(mean), _f64(var), check_number(epsilon, "epsilon"))
    return out if raw else float(np.mean(out))


def ensemble_nll(y, preds, epsilon=1e-8, raw=False):
    """Compute the NLL of the equal-weight mixture of the ensemble members' Gaussians.

    Computed with log-sum-exp: Shifts' ens_nll_regression without its underflow.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The targets.
    preds : array-like of shape (n_members, n_samples, 2)
        Each member's Gaussian per sample; the last axis is (mean, variance).
    epsilon : float, default=1e-8
        Added to the variances (2 var + epsilon, log(var + epsilon)), so a zero variance stays
        finite.
    raw : bool, default=False
        Return the per-sample values instead of their mean.

    Returns
    -------
    float or numpy.ndarray
        The mean over samples, or the per-sample values with ``raw=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import shift
    >>> preds = np.array([[[1.0, 0.5], [2.0, 1.0]],
    ...                   [[1.2, 0.5], [2.0, 1.0]]])
    >>> round(shift.ensemble_nll([1.0, 2.0], preds), 4)
    0.7556
    """
    out = _assay._ensemble_nll(_f64(y), _f64(preds), check_number(epsilon, "epsilon"))
    return out if raw else float(np.mean(out))


def _weights(sample_weight):
    return np.empty(0) if sample_weight is None else _f64(sample_weight)


# The regression metrics are assay.metrics' (scikit-learn's signatures, several outputs).
from ._regression import (mean_absolute_error, mean_absolute_percentage_error,  # noqa: E402
                          mean_squared_error, r2_score)


def regression_metrics(y_true, y_pred, sample_weight=None, n_resamples=0, confidence=0.95,
                       seed=0, threads=0, progress=True):
    """Compute RMSE, MAE, MAPE and R² with percentile bootstrap intervals.

    The same resamples serve all four metrics.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        The targets.
    y_pred : array-like of shape (n_samples,)
        The predictions.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    n_resamples : int, default=0
        Bootstrap resamples; 0: no intervals (low = high = NaN).
    confidence : float, default=0.95
        The intervals' confidence level.
    seed : int, default=0
        Seed of the resampling.
    threads : int, default=0
        Threads; 0 = all cores. The result does not depend on it.
    progress : bool, default=True
        A progress bar while the resamples run (on a terminal's stderr, or in Jupyter).

    Returns
    -------
    RegressionMetricsResult
        A dict ``{name: {estimate, low, high, standard_error, n_undefined, replicates}}`` for
        the names rmse, mae, mape and r2 (each a ``BootstrapResult``).

    Examples
    --------
    >>> from assay import shift
    >>> result = shift.regression_metrics([1.0, 2.0, 3.0, 4.0], [1.1, 1.9, 3.2, 3.7])
    >>> sorted(result)
    ['mae', 'mape', 'r2', 'rmse']
    >>> round(result["r2"]["estimate"], 4), result["r2"]["low"]
    (0.97, nan)
    >>> boot = shift.regression_metrics([1.0, 2.0, 3.0, 4.0], [1.1, 1.9, 3.2, 3.7],
    ...                                 n_resamples=200, seed=1)
    >>> boot["mae"]["low"] <= 0.175 <= boot["mae"]["high"]
    True
    """
    with reporting(progress):
        out = _assay._regression_metrics(_f64(y_true), _f64(y_pred), _weights(sample_weight),
                                         check_resamples(n_resamples, "n_resamples"),
                                         check_probability(confidence, "confidence"),
                                         check_unsigned(seed, "seed"), check_threads(threads))
    return RegressionMetricsResult({k: BootstrapResult(v) for k, v in out.items()})


def ood_detection(shifted, uncertainty):
    """Measure how well an uncertainty detects shifted (out-of-domain) samples.

    Parameters
    ----------
    shifted : array-like of shape (n_samples,)
        1 for a shifted sample, 0 for an in-domain one.
    uncertainty : array-like of shape (n_samples,)
        Each sample's uncertainty, the detector's score.

    Returns
    -------
    dict
        Keys auroc, aupr (trapezoid under the PR curve, as Shifts' ood_detect), average_precision
        (step), fpr_at_95, n_in, n_shifted.

    Raises
    ------
    assay.AssayError
        A value of ``shifted`` other than 0 or 1.

    Examples
    --------
    >>> from assay import shift
    >>> result = shift.ood_detection([0, 0, 1, 1, 0], [0.1, 0.3, 0.8, 0.4, 0.5])
    >>> round(result["auroc"], 4), result["n_in"], result["n_shifted"]
    (0.8333, 3, 2)
    """
    return _assay._ood_detection(_flags(shifted, "shifted"), _f64(uncertainty))


def _named(values, what):
    if isinstance(values, dict):
        return list(values.items())
    raise _assay.AssayError(f"{what} must be a dict {{model name: array}}, found "
                            f"{type(values).__name__}")


def evaluate_partitions(target, predictions, uncertainties, partition=None, shifted=None,
                        convention="shifts", error="squared", acceptable=None, beta=1.0,
                        n_resamples=0, confidence=0.95, seed=0, html=None, progress=True):
    """Compute the canonical partition table (Shifts 2.0 paper, Tables 2 and 3).

    Rows: each partition, the joint "<base> (in+out)" sets and "all"; each row holds the
    regression metrics, the retention areas, PRR, AURC / AUGRC and, with ``acceptable``, the
    F1-retention summaries, per model.

    Parameters
    ----------
    target : array-like of shape (n_samples,)
        The targets.
    predictions : dict of str to array-like
        ``{model name: predictions}``.
    uncertainties : dict of str to array-like
        ``{model name: uncertainty}``, the same keys as ``predictions``.
    partition : array-like of shape (n_samples,), default=None
        One partition name per sample (train, dev_in, dev_out, ...). None: one set, "all".
    shifted : array-like of shape (n_samples,), default=None
        0/1 per sample. None: partitions whose names end in "out" or contain "shift".
    convention : {"shifts", "shifts-vpower"}, default="shifts"
        The retention convention (see ``retention_curve``).
    error : {"squared", "absolute", "zero-one"}, default="squared"
        The per-sample error the retention curves use ("zero-one": labels coded as numbers).
    acceptable : float, default=None
        F1 threshold on the error. None: no F1 retention.
    beta : float, default=1.0
        The F-beta score's beta.
    n_resamples : int, default=0
        Bootstrap resamples for the metrics' intervals; 0: none.
    confidence : float, default=0.95
        The intervals' confidence level.
    seed : int, default=0
        Seed of the resampling.
    html : str, default=None
        Also write the page with retention and F1-retention charts to this path.
    progress : bool, default=True
        A progress bar while the resamples run (on a terminal's stderr, or in Jupyter).

    Returns
    -------
    PartitionResult
        A dict holding the JSON document (the same as ``assay shift --json``): n_samples, models,
        sets, params, rows, curves, notes.

    Raises
    ------
    assay.AssayError
        ``predictions`` and ``uncertainties`` name different models, or either is not a dict.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import shift
    >>> target = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> prediction = target + [0.1, -0.2, 0.3, 1.0, -1.5, 0.8]
    >>> table = shift.evaluate_partitions(
    ...     target, {"a": prediction}, {"a": [0.1, 0.2, 0.3, 0.9, 1.2, 0.7]},
    ...     partition=["dev_in"] * 3 + ["dev_out"] * 3)
    >>> [(row["set"], row["n_shifted"], round(row["rmse"]["value"], 3)) for row in table["rows"]]
    [('dev_in', 0, 0.216), ('dev_out', 3, 1.139), ('dev (in+out)', 3, 0.82), ('all', 3, 0.82)]
    """
    preds = _named(predictions, "predictions")
    uncs = dict(_named(uncertainties, "uncertainties"))
    if set(uncs) != {name for name, _ in preds}:
        raise _assay.AssayError(
            f"predictions and uncertainties name different models: {sorted(n for n, _ in preds)} "
            f"vs {sorted(uncs)}")
    models = [(str(name), _f64(p), _f64(uncs[name])) for name, p in preds]
    part = None if partition is None else [str(p) for p in np.asarray(partition).tolist()]
    flags = np.empty(0, dtype=np.uint8) if shifted is None else _flags(shifted, "shifted")
    acceptable = None if acceptable is None else check_number(acceptable, "acceptable")
    with reporting(progress):
        doc = _assay._evaluate_partitions(
            _f64(target), models, part, flags, str(convention), str(error), acceptable,
            check_number(beta, "beta"), check_resamples(n_resamples, "n_resamples"),
            check_probability(confidence, "confidence"), check_unsigned(seed, "seed"),
            "" if html is None else str(html))
    return PartitionResult(json.loads(doc))


def tune_threshold(y_true, score, partition, tune_on, metric="f1"):
    """Tune a decision threshold on one partition and apply it to every partition.

    A sample is positive when score >= threshold. The threshold maximises ``metric`` on
    partition ``tune_on`` (the Shifts 2.0 paper tunes on dev-in).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        0/1 labels.
    score : array-like of shape (n_samples,)
        The scores.
    partition : array-like of shape (n_samples,)
        One partition name per sample.
    tune_on : str
        The partition the threshold is tuned on.
    metric : {"f1", "accuracy"}, default="f1"
        The metric maximised.

    Returns
    -------
    dict
        Keys threshold, tuned_value (the metric on ``tune_on``) and values
        ``{partition or "all": metric}``.

    Raises
    ------
    assay.AssayError
        A label other than 0 or 1.

    Examples
    --------
    >>> from assay import shift
    >>> result = shift.tune_threshold([0, 1, 1, 0, 1, 0], [0.2, 0.7, 0.6, 0.4, 0.9, 0.5],
    ...                               ["dev_in"] * 3 + ["eval"] * 3, tune_on="dev_in")
    >>> result["threshold"], result["values"]
    (0.6, {'dev_in': 1.0, 'eval': 1.0, 'all': 1.0})
    """
    return _assay._tune_threshold(_flags(y_true, "y_true"), _f64(score),
                                  [str(p) for p in np.asarray(partition).tolist()],
                                  str(tune_on), str(metric))


def generalisation_set(ranges, n, label, seed=0):
    """Draw a generalisation set (the Shifts 2.0 paper's synthetic vessel data).

    ``n`` inputs with every feature sampled uniformly and independently over its declared range,
    so rare combinations are as common as typical ones, labelled by the reference function
    ``label``. Score it like any partition, e.g. with
    ``evaluate_partitions(..., partition=["generalisation"] * n)``.

    Parameters
    ----------
    ranges : dict of str to (float, float)
        ``{feature name: (low, high)}`` (order kept).
    n : int
        The number of inputs.
    label : callable
        Receives ``{feature name: array}`` and returns the n targets (an expression in the
        ``count`` capability's spec language is planned once that capability exists).
    seed : int, default=0
        Seed of the sampling.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{feature name: array, ..., "target": array}``.

    Raises
    ------
    assay.AssayError
        An empty ``ranges``, a range that is not (low, high), a ``label`` that is not callable
        or that returns other than n targets.

    Examples
    --------
    >>> from assay import shift
    >>> data = shift.generalisation_set({"speed": (0, 10), "draft": (5, 15)}, 4,
    ...                                 lambda f: 2 * f["speed"], seed=1)
    >>> list(data)
    ['speed', 'draft', 'target']
    >>> bool(((data["speed"] >= 0) & (data["speed"] <= 10)).all())
    True
    >>> bool((data["target"] == 2 * data["speed"]).all())
    True
    """
    if not isinstance(ranges, dict) or not ranges:
        raise _assay.AssayError("ranges must be a non-empty dict {feature: (low, high)}")
    if not callable(label):
        raise _assay.AssayError(f"label must be a callable, found {type(label).__name__}")
    n = check_integer(n, "n", 0, 2**63 - 1)
    seed = check_unsigned(seed, "seed")
    names = list(ranges)
    bounds = []
    for name in names:
        pair = ranges[name]
        if len(pair) != 2:
            raise _assay.AssayError(f"range of feature {name!r} must be (low, high), found {pair!r}")
        bounds.append((check_number(pair[0], f"range of {name!r}"),
                       check_number(pair[1], f"range of {name!r}")))
    low = np.array([b[0] for b in bounds])
    high = np.array([b[1] for b in bounds])
    x = _assay._generalisation_inputs(low, high, n, seed)
    features = {name: np.ascontiguousarray(x[:, j]) for j, name in enumerate(names)}
    target = np.asarray(label(dict(features)), dtype=np.float64)
    if target.shape != (n,):
        raise _assay.AssayError(
            f"label must return {n} targets (one per sample), found shape {target.shape}")
    out = dict(features)
    out["target"] = target
    return out
