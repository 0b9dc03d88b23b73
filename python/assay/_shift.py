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
    """An error-retention curve: ``curve[j]`` is the error with the j most uncertain samples
    rejected (j = 0..n; divisor always n), ``r_auc`` its area under ``convention``."""
    curve: np.ndarray
    r_auc: float
    convention: str


@dataclass(frozen=True)
class F1RetentionResult:
    """An F-beta retention curve: ``curve[k]`` with the k most certain retained (k = 0..n),
    ``f1_auc`` its area over x = k/(n+1), ``f1_at_95`` = curve[floor(0.95 (n+1))]."""
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
    """Error-retention curve of per-sample ``errors`` rejected by decreasing ``uncertainty``.

    ``convention``: "shifts" (tie groups averaged, R-AUC = mean of the n+1 points; Shifts'
    weather/SDC code) or "shifts-vpower" (no grouping, trapezoid over linspace(0, 1, n+1);
    Shifts' vessel-power code). Returns a RetentionResult (curve, r_auc, convention).
    """
    return _retention(_assay._retention_curve(_f64(errors), _f64(uncertainty), str(convention)))


def oracle_retention_curve(errors, convention="shifts"):
    """The oracle curve: samples rejected by decreasing error (uncertainty := error)."""
    return _retention(_assay._oracle_retention_curve(_f64(errors), str(convention)))


def random_retention_curve(errors, convention="shifts"):
    """The expected curve of a random rejection order: R[0] (n - j) / n, area R[0] / 2."""
    return _retention(_assay._random_retention_curve(_f64(errors), str(convention)))


def prr(errors, uncertainty, convention="shifts"):
    """Prediction rejection ratio (r_auc - random) / (oracle - random) as a fraction (Shifts'
    calc_aucs reports 100 times this). NaN with a warning when oracle == random."""
    return _assay._prr(_f64(errors), _f64(uncertainty), str(convention))["prr"]


def risk_coverage_curve(errors, uncertainty):
    """fd-shifts risk-coverage points and areas: dict with coverage (descending, ending in 0),
    selective_risk, generalized_risk, aurc, augrc, e_aurc, e_augrc (fractions; fd-shifts
    displays them multiplied by 1000)."""
    return _assay._risk_coverage(_f64(errors), _f64(uncertainty))


def aurc(errors, uncertainty):
    """Area under the selective risk-coverage curve (fd-shifts, trapezoid; not x1000)."""
    return risk_coverage_curve(errors, uncertainty)["aurc"]


def e_aurc(errors, uncertainty):
    """Excess AURC: AURC minus the optimal AURC (fd-shifts' closed form for 0/1 errors)."""
    return risk_coverage_curve(errors, uncertainty)["e_aurc"]


def augrc(errors, uncertainty):
    """Area under the generalised risk-coverage curve (fd-shifts; not x1000)."""
    return risk_coverage_curve(errors, uncertainty)["augrc"]


def e_augrc(errors, uncertainty):
    """Excess AUGRC: AUGRC minus the optimal AUGRC."""
    return risk_coverage_curve(errors, uncertainty)["e_augrc"]


def _f1(d):
    return F1RetentionResult(d["curve"], d["f1_auc"], d["f1_at_95"], int(d["n_acceptable"]))


def f1_retention(errors, uncertainty, threshold, beta=1.0):
    """F-beta retention (Shifts' f_beta_metrics): acceptable = error <= threshold. Returns an
    F1RetentionResult; NaN (with a warning) when no sample is acceptable."""
    return _f1(_assay._f1_retention(_f64(errors), _f64(uncertainty),
                                    check_number(threshold, "threshold"),
                                    check_number(beta, "beta"), "model"))


def oracle_f1_retention(errors, threshold, beta=1.0):
    """The F-beta retention curve with uncertainty := error."""
    return _f1(_assay._f1_retention(_f64(errors), np.empty(0),
                                    check_number(threshold, "threshold"),
                                    check_number(beta, "beta"), "oracle"))


def random_f1_retention(errors, threshold, beta=1.0):
    """The F-beta retention curve of a random order, from expected counts (TP_k = k p)."""
    return _f1(_assay._f1_retention(_f64(errors), np.empty(0),
                                    check_number(threshold, "threshold"),
                                    check_number(beta, "beta"), "random"))


def ensemble_uncertainty(probs, epsilon=1e-10, threads=0):
    """Per-sample uncertainty measures of a classification ensemble.

    ``probs``: (members, samples, classes) probabilities. Returns a dict of arrays:
    entropy_of_expected, expected_entropy, mutual_information, epkl,
    reverse_mutual_information, confidence (= max of the mean probabilities, positive; Shifts
    stores its negative under 'confidence').
    """
    return _assay._ensemble_uncertainty(_f64(probs), check_number(epsilon, "epsilon"),
                                        check_threads(threads))


def ensemble_uncertainty_regression(preds, epsilon=1e-10, threads=0):
    """Per-sample uncertainty of a Gaussian regression ensemble.

    ``preds``: (members, samples, 2), last axis (mean, variance). Returns a dict of arrays:
    mean, total_variance, data_uncertainty, knowledge_uncertainty, epkl_reg (Shifts' 'epkl':
    expected pairwise cross-entropy) and epkl (true expected pairwise KL).
    """
    return _assay._ensemble_uncertainty_regression(_f64(preds), check_number(epsilon, "epsilon"),
                                                   check_threads(threads))


def gaussian_nll(y, mean, var, epsilon=1e-8, raw=False):
    """Gaussian negative log-likelihood (Shifts' nll_regression): mean over samples, or the
    per-sample values with ``raw=True``."""
    out = _assay._gaussian_nll(_f64(y), _f64(mean), _f64(var), check_number(epsilon, "epsilon"))
    return out if raw else float(np.mean(out))


def ensemble_nll(y, preds, epsilon=1e-8, raw=False):
    """NLL of the equal-weight mixture of the members' Gaussians (log-sum-exp; Shifts'
    ens_nll_regression without its underflow). ``preds``: (members, samples, 2)."""
    out = _assay._ensemble_nll(_f64(y), _f64(preds), check_number(epsilon, "epsilon"))
    return out if raw else float(np.mean(out))


def _weights(sample_weight):
    return np.empty(0) if sample_weight is None else _f64(sample_weight)


# The regression metrics are assay.metrics' (scikit-learn's signatures, several outputs).
from ._regression import (mean_absolute_error, mean_absolute_percentage_error,  # noqa: E402
                          mean_squared_error, r2_score)


def regression_metrics(y_true, y_pred, sample_weight=None, n_resamples=0, confidence=0.95,
                       seed=0, threads=0, progress=True):
    """RMSE, MAE, MAPE and R² with percentile bootstrap intervals (the same resamples for all
    four). Returns a ``RegressionMetricsResult`` (a dict) {name: {estimate, low, high,
    standard_error, n_undefined, replicates}}; ``n_resamples=0``: no intervals (low = high =
    NaN). ``progress``: a bar while the resamples run."""
    with reporting(progress):
        out = _assay._regression_metrics(_f64(y_true), _f64(y_pred), _weights(sample_weight),
                                         check_resamples(n_resamples, "n_resamples"),
                                         check_probability(confidence, "confidence"),
                                         check_unsigned(seed, "seed"), check_threads(threads))
    return RegressionMetricsResult({k: BootstrapResult(v) for k, v in out.items()})


def ood_detection(shifted, uncertainty):
    """OOD detection by uncertainty: ``shifted`` is 1 for shifted samples, 0 for in-domain.
    Returns dict auroc, aupr (trapezoid under the PR curve, as Shifts' ood_detect),
    average_precision (step), fpr_at_95, n_in, n_shifted."""
    return _assay._ood_detection(_flags(shifted, "shifted"), _f64(uncertainty))


def _named(values, what):
    if isinstance(values, dict):
        return list(values.items())
    raise _assay.AssayError(f"{what} must be a dict {{model name: array}}, found "
                            f"{type(values).__name__}")


def evaluate_partitions(target, predictions, uncertainties, partition=None, shifted=None,
                        convention="shifts", error="squared", acceptable=None, beta=1.0,
                        n_resamples=0, confidence=0.95, seed=0, html=None, progress=True):
    """The canonical partition table (Shifts 2.0 paper, Tables 2 and 3).

    ``predictions`` and ``uncertainties``: dicts {model name: array}, same keys. ``partition``:
    one name per sample (train, dev_in, dev_out, ...); ``shifted``: 0/1 per sample (default:
    partitions whose names end in "out" or contain "shift"). Rows: each partition, the joint
    "<base> (in+out)" sets, "all". ``acceptable``: F1 threshold on the error. ``html``: also
    write the page with retention and F1-retention charts. Returns the JSON document as a
    ``PartitionResult`` (a dict; same as ``assay shift --json``). ``progress``: a bar while the
    resamples run.
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
    """Tunes the decision threshold (positive when score >= threshold) on partition ``tune_on``
    (the Shifts 2.0 paper: on dev-in) to maximise ``metric`` ("f1" or "accuracy"), and applies it
    to every partition. Returns dict threshold, tuned_value, values {partition or "all": metric}."""
    return _assay._tune_threshold(_flags(y_true, "y_true"), _f64(score),
                                  [str(p) for p in np.asarray(partition).tolist()],
                                  str(tune_on), str(metric))


def generalisation_set(ranges, n, label, seed=0):
    """A generalisation set (the Shifts 2.0 paper's synthetic vessel data): ``n`` inputs with every
    feature sampled uniformly and independently over its declared range, so rare combinations are as
    common as typical ones, labelled by the reference function ``label``.

    ``ranges``: {feature name: (low, high)} (order kept). ``label``: a Python callable that
    receives {feature name: array} and returns the n targets. (An expression in the ``count``
    capability's spec language is planned once that capability exists.) Returns
    {feature name: array, ..., "target": array}; score it like any partition, e.g. with
    evaluate_partitions(..., partition=["generalisation"] * n).
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
