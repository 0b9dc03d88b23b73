"""Regression metrics with scikit-learn 1.9's names, arguments, defaults and return shapes:
1-D and multi-output (n, m) targets, sample weights, `multioutput` ('raw_values',
'uniform_average', 'variance_weighted' or output weights) and `force_finite`. Checks and
conversions here; the sums are computed by src/metrics/regression.cpp, which also refuses
NaN and infinity (scikit-learn's message, with the index); the weighted quantiles of
scikit-learn 1.9 (D² pinball null model, weighted median) are selected here."""
import numbers
import warnings

import numpy as np

from . import _assay
from ._assay import AssayError, UndefinedMetricWarning
from ._options import InvalidParameterError
from ._validation import check_consistent_length, check_finite, check_sample_weight, float_array

__all__ = [
    "mean_absolute_error",
    "mean_squared_error",
    "mean_squared_log_error",
    "root_mean_squared_error",
    "root_mean_squared_log_error",
    "median_absolute_error",
    "mean_absolute_percentage_error",
    "mean_pinball_loss",
    "max_error",
    "explained_variance_score",
    "r2_score",
    "mean_tweedie_deviance",
    "mean_poisson_deviance",
    "mean_gamma_deviance",
    "d2_tweedie_score",
    "d2_pinball_score",
    "d2_absolute_error_score",
]

_MULTIOUTPUT = ("raw_values", "uniform_average", "variance_weighted")


def _target(y, name):
    if type(y) is np.ndarray and y.dtype == np.float64 and y.ndim <= 2 and y.size and \
            y.flags.c_contiguous:
        return y
    return float_array(y, name, finite=False)


def _check_reg_targets(y_true, y_pred, multioutput, sample_weight):
    """scikit-learn's _check_reg_targets plus the sample_weight length: float64 targets of the
    same number of outputs, the multioutput spec checked. Returns (y_true, y_pred, n_outputs,
    multioutput, weights)."""
    check_consistent_length(y_true, y_pred)
    y = _target(y_true, "y_true")
    p = _target(y_pred, "y_pred")
    out_true = 1 if y.ndim == 1 else y.shape[1]
    out_pred = 1 if p.ndim == 1 else p.shape[1]
    if out_true != out_pred:
        raise AssayError("y_true and y_pred have different number of output ({0}!={1})".format(
            out_true, out_pred))
    if y.ndim != p.ndim:  # (n,) against (n, 1)
        y, p = y.reshape(-1), p.reshape(-1)
    if isinstance(multioutput, str):
        if multioutput not in _MULTIOUTPUT:
            raise AssayError("Allowed 'multioutput' string values are {}. You provided "
                             "multioutput={!r}".format(_MULTIOUTPUT, multioutput))
    elif multioutput is not None:
        multioutput = float_array(multioutput, "multioutput")
        if out_true == 1:
            raise AssayError("Custom weights are useful only in multi-output cases.")
        if out_true != len(multioutput):
            raise AssayError("There must be equally many custom weights (%d) as outputs (%d)."
                             % (len(multioutput), out_true))
    check_consistent_length(y, p, sample_weight)
    w = check_sample_weight(sample_weight, y.shape[0])
    return y, p, out_true, multioutput, w


def _average(values, multioutput, denominators=None):
    """scikit-learn's use of multioutput on per-output values."""
    if isinstance(multioutput, str) and multioutput == "raw_values":
        return values
    return np.float64(_assay.reg_average_outputs(values, multioutput, denominators))


def _error_metric(name, y_true, y_pred, sample_weight, multioutput, alpha=0.5):
    y, p, _, multioutput, w = _check_reg_targets(y_true, y_pred, multioutput, sample_weight)
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        raise AssayError("multioutput is expected to be 'raw_values' or 'uniform_average' but we "
                         "got 'variance_weighted' instead.")
    return _average(_assay.reg_per_output(name, y, p, w, float(alpha)), multioutput)


def _check_alpha(alpha, function):
    """scikit-learn's check of a pinball quantile: a real number in [0, 1]."""
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real) \
            or not 0 <= alpha <= 1:
        raise InvalidParameterError(f"The 'alpha' parameter of {function} must be a float in the "
                                    f"range [0.0, 1.0]. Got {alpha!r} instead.")
    return float(alpha)


def mean_absolute_error(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"):
    """Mean absolute error (MAE) of regression predictions.

    As scikit-learn's ``mean_absolute_error``: the (weighted) mean of ``|y - y_pred|`` per output.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, an array their weighted mean.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        The MAE, per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid (or is
        'variance_weighted'), or the
        targets hold NaN or infinity.

    See Also
    --------
    median_absolute_error : Robust to outliers.
    mean_squared_error : Penalises large errors more.

    Examples
    --------
    >>> from assay.metrics import mean_absolute_error
    >>> print(round(mean_absolute_error([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]), 4))
    0.5
    >>> mean_absolute_error([[0.5, 1], [-1, 1], [7, -6]], [[0, 2], [-1, 2], [8, -5]],
    ...                     multioutput="raw_values")
    array([0.5, 1. ])
    """
    return _error_metric("mae", y_true, y_pred, sample_weight, multioutput)


def mean_squared_error(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"):
    """Mean squared error (MSE) of regression predictions.

    As scikit-learn's ``mean_squared_error``: the (weighted) mean of ``(y - y_pred)^2`` per
    output. Its ``squared`` argument, removed in scikit-learn 1.6, is gone (a TypeError): the
    root is ``root_mean_squared_error``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, an array their weighted mean.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        The MSE, per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid (or is
        'variance_weighted'), or the
        targets hold NaN or infinity.

    See Also
    --------
    mean_absolute_error : The mean absolute error.
    root_mean_squared_error : The root of each output's MSE.
    r2_score : The MSE relative to the variance of the target.

    Examples
    --------
    >>> from assay.metrics import mean_squared_error
    >>> y_true, y_pred = [3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]
    >>> print(round(mean_squared_error(y_true, y_pred), 4))
    0.375
    """
    return _error_metric("mse", y_true, y_pred, sample_weight, multioutput)


def _log1p_targets(y_true, y_pred, what):
    """log1p of both targets after scikit-learn's (>= 1.6) domain check of log(1 + y): every value
    must be greater than -1."""
    y, p = _check_reg_targets(y_true, y_pred, None, None)[:2]
    check_finite(y, "y_true")
    check_finite(p, "y_pred")
    if (y <= -1).any() or (p <= -1).any():
        raise AssayError(f"{what} cannot be used when targets contain values less than or equal "
                         "to -1.")
    return np.log1p(y), np.log1p(p)


def mean_squared_log_error(y_true, y_pred, *, sample_weight=None,
                           multioutput="uniform_average"):
    """Mean squared logarithmic error (MSLE): the MSE of ``log1p`` of the targets.

    As scikit-learn's ``mean_squared_log_error`` of release 1.6 and later: every target must be
    greater than -1. Its ``squared`` argument is gone (a TypeError): the root is
    ``root_mean_squared_log_error``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, an array their weighted mean.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        The MSLE, per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid (or is
        'variance_weighted'), a target is -1 or less, or the
        targets hold NaN or infinity.

    See Also
    --------
    mean_squared_error : The error on the original scale.

    Examples
    --------
    >>> from assay.metrics import mean_squared_log_error
    >>> print(round(mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8]), 4))
    0.0397
    """
    y, p = _log1p_targets(y_true, y_pred, "Mean Squared Logarithmic Error")
    return _error_metric("mse", y, p, sample_weight, multioutput)


def root_mean_squared_error(y_true, y_pred, *, sample_weight=None,
                            multioutput="uniform_average"):
    """Root mean squared error regression loss (scikit-learn >= 1.4).

    The square root of the (weighted) mean squared error of each output; `multioutput` then
    averages the per-output roots, so the multi-output value is not the root of the averaged
    MSE.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {'raw_values', 'uniform_average'} or array-like of shape (n_outputs,), \
            default='uniform_average'
        'raw_values' returns one root per output, 'uniform_average' their mean, an array
        their weighted mean.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        Non-negative; 0 for perfect predictions.

    Raises
    ------
    ValueError
        Inconsistent lengths or output counts, NaN or infinite values, or
        multioutput='variance_weighted'.

    Examples
    --------
    >>> from assay.metrics import root_mean_squared_error
    >>> float(root_mean_squared_error([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]))
    0.6123724356957945
    >>> root_mean_squared_error([[0.5, 1], [-1, 1], [7, -6]], [[0, 2], [-1, 2], [8, -5]],
    ...                         multioutput="raw_values")
    array([0.64549722, 1.        ])
    """
    return _error_metric("rmse", y_true, y_pred, sample_weight, multioutput)


def root_mean_squared_log_error(y_true, y_pred, *, sample_weight=None,
                                multioutput="uniform_average"):
    """Root mean squared logarithmic error regression loss (scikit-learn >= 1.4).

    root_mean_squared_error of log1p(y_true) and log1p(y_pred): the root is taken per output,
    then `multioutput` averages.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Ground truth target values, each greater than -1.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Estimated target values, each greater than -1.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    multioutput : {'raw_values', 'uniform_average'} or array-like of shape (n_outputs,), \
            default='uniform_average'
        How the per-output roots are combined.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        Non-negative; 0 for perfect predictions.

    Raises
    ------
    ValueError
        A value less than or equal to -1 in either target (scikit-learn's message), or the
        checks of root_mean_squared_error.

    Examples
    --------
    >>> from assay.metrics import root_mean_squared_log_error
    >>> round(float(root_mean_squared_log_error([3, 5, 2.5, 7], [2.5, 5, 4, 8])), 6)
    0.199324
    """
    y, p = _log1p_targets(y_true, y_pred, "Root Mean Squared Logarithmic Error")
    return _error_metric("rmse", y, p, sample_weight, multioutput)


def median_absolute_error(y_true, y_pred, *, multioutput="uniform_average", sample_weight=None):
    """Median absolute error of regression predictions.

    As scikit-learn's ``median_absolute_error``: the median of ``|y - y_pred|`` per output; with
    ``sample_weight``, the median is the averaged inverted CDF, as in scikit-learn 1.9 (so unit
    weights give the unweighted median; 1.2 took the lower one).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, an array their weighted mean.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        The median absolute error, per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid (or is
        'variance_weighted'), or the
        targets hold NaN or infinity.

    See Also
    --------
    mean_absolute_error : The mean instead of the median.

    Examples
    --------
    >>> from assay.metrics import median_absolute_error
    >>> print(round(median_absolute_error([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]), 4))
    0.5
    """
    if sample_weight is None:
        return _error_metric("median_ae", y_true, y_pred, sample_weight, multioutput)
    y, p, _, multioutput, w = _check_reg_targets(y_true, y_pred, multioutput, sample_weight)
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        raise AssayError("multioutput is expected to be 'raw_values' or 'uniform_average' but we "
                         "got 'variance_weighted' instead.")
    check_finite(y, "y_true")
    check_finite(p, "y_pred")
    errors = np.abs(y - p).reshape(len(y), -1)
    medians = np.array([_averaged_inverted_cdf(errors[:, j], w, 0.5)
                        for j in range(errors.shape[1])])
    return _average(medians, multioutput)


def mean_absolute_percentage_error(y_true, y_pred, *, sample_weight=None,
                                   multioutput="uniform_average"):
    """Mean absolute percentage error (MAPE), as a fraction.

    As scikit-learn's ``mean_absolute_percentage_error``: the mean of
    ``|y - y_pred| / max(|y|, 2^-52)``, a fraction, not a percentage.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, an array their weighted mean.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        The MAPE (0.25 means 25%), per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid (or is
        'variance_weighted'), or the
        targets hold NaN or infinity.

    See Also
    --------
    mean_absolute_error : The error in the target's units.

    Examples
    --------
    >>> from assay.metrics import mean_absolute_percentage_error
    >>> print(round(mean_absolute_percentage_error([1, 2, 4], [1.5, 2, 3]), 4))
    0.25
    """
    return _error_metric("mape", y_true, y_pred, sample_weight, multioutput)


def mean_pinball_loss(y_true, y_pred, *, sample_weight=None, alpha=0.5,
                      multioutput="uniform_average"):
    """Mean pinball (quantile) loss of predictions of the alpha-quantile.

    As scikit-learn's ``mean_pinball_loss``: ``alpha (y - y_pred)`` where ``y >= y_pred``, else
    ``(1 - alpha) (y_pred - y)``, averaged per output.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    alpha : float, default=0.5
        The quantile predicted; 0.5 gives half the absolute error.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, an array their weighted mean.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        The pinball loss, per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid (or is
        'variance_weighted'), or the targets hold NaN or infinity.
    InvalidParameterError
        If ``alpha`` is not a number in [0, 1] (an AssayError and a TypeError, as
        scikit-learn's).

    See Also
    --------
    d2_pinball_score : The loss relative to that of a constant quantile.

    Examples
    --------
    >>> from assay.metrics import mean_pinball_loss
    >>> print(round(mean_pinball_loss([1, 2, 3], [0, 2, 3], alpha=0.9), 4))
    0.3
    """
    alpha = _check_alpha(alpha, "mean_pinball_loss")
    return _error_metric("pinball", y_true, y_pred, sample_weight, multioutput, alpha)


def max_error(y_true, y_pred):
    """Maximum absolute error ``max |y - y_pred|`` (the worst case).

    As scikit-learn's ``max_error``; single output only.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True target values.
    y_pred : array-like of shape (n_samples,)
        Predicted target values.

    Returns
    -------
    float
        The largest absolute error.

    Raises
    ------
    AssayError
        If the targets have several outputs or hold NaN or infinity, or the lengths differ.

    See Also
    --------
    mean_absolute_error : The average case.

    Examples
    --------
    >>> from assay.metrics import max_error
    >>> print(round(max_error([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]), 4))
    1.0
    """
    y, p, outputs, _, _ = _check_reg_targets(y_true, y_pred, None, None)
    if outputs > 1:
        raise AssayError("Multioutput not supported in max_error")
    return np.float64(_assay.reg_max_error(y, p))


def _score(name, y_true, y_pred, sample_weight, multioutput, force_finite, alpha=0.5):
    y, p, _, multioutput, w = _check_reg_targets(y_true, y_pred, multioutput, sample_weight)
    if y.shape[0] < 2 and name != "explained_variance":
        check_finite(y, "y_true")  # scikit-learn checks the input first
        check_finite(p, "y_pred")
        what = "R^2" if name == "r2" else "D^2"
        warnings.warn(f"{what} score is not well-defined with less than two samples.",
                      UndefinedMetricWarning, stacklevel=3)
        return np.float64(np.nan)
    if name == "d2_pinball" and isinstance(multioutput, str) and \
            multioutput == "variance_weighted":
        raise AssayError("multioutput is expected to be 'raw_values' or 'uniform_average' but we "
                         "got 'variance_weighted' instead.")
    numerator, denominator = _assay.reg_score_parts(name, y, p, w, float(alpha))
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = _assay.reg_assemble_score(numerator, denominator, bool(force_finite))
    if name == "d2_pinball":
        denominator = None
    return _average(scores, multioutput, denominator)


def explained_variance_score(y_true, y_pred, *, sample_weight=None,
                             multioutput="uniform_average", force_finite=True):
    """Explained variance score ``1 - Var(y - y_pred) / Var(y)`` per output.

    As scikit-learn's ``explained_variance_score``. Unlike ``r2_score`` it ignores a constant
    bias of the predictions.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, 'variance_weighted' their mean weighted by the variance of
        each output of ``y_true``, an array their weighted mean.
    force_finite : bool, default=True
        Replace the NaN and -inf of a constant ``y_true`` by 1 (perfect predictions) or 0.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        The score (1 is best), per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid, or the
        targets hold NaN or infinity.

    See Also
    --------
    r2_score : The coefficient of determination.

    Examples
    --------
    >>> from assay.metrics import explained_variance_score
    >>> print(round(explained_variance_score([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]), 4))
    0.9572
    """
    return _score("explained_variance", y_true, y_pred, sample_weight, multioutput,
                  force_finite)


def r2_score(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average",
             force_finite=True):
    """Coefficient of determination R^2 = 1 - SS_res / SS_tot per output.

    As scikit-learn's ``r2_score``. With ``force_finite`` a constant ``y_true`` gives 1 for
    perfect predictions, else 0 (``force_finite=False``: NaN or -inf). Fewer than two samples
    give NaN with an UndefinedMetricWarning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, 'variance_weighted' their mean weighted by the variance of
        each output of ``y_true``, an array their weighted mean.
    force_finite : bool, default=True
        Replace the NaN and -inf of a constant ``y_true`` by 1 (perfect predictions) or 0.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        R^2 (1 is best; it can be negative), per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid, or the
        targets hold NaN or infinity.

    See Also
    --------
    explained_variance_score : Ignores a constant bias.
    mean_squared_error : SS_res over the number of samples.

    Examples
    --------
    >>> from assay.metrics import r2_score
    >>> print(round(r2_score([3.0, -0.5, 2.0, 7.0], [2.5, 0.0, 2.0, 8.0]), 4))
    0.9486
    """
    return _score("r2", y_true, y_pred, sample_weight, multioutput, force_finite)


def d2_pinball_score(y_true, y_pred, *, sample_weight=None, alpha=0.5,
                     multioutput="uniform_average"):
    """D^2 score of the pinball loss: the fraction of pinball loss explained.

    As scikit-learn's ``d2_pinball_score``: ``1 - pinball(y, y_pred) / pinball(y, q)`` with ``q``
    the alpha-quantile of ``y``, taken as the (weighted) averaged inverted CDF with and without
    weights (scikit-learn 1.9; 1.2 took numpy's linear interpolation without weights). Fewer
    than two samples give NaN with an UndefinedMetricWarning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    alpha : float, default=0.5
        The quantile predicted.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, an array their weighted mean.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        D^2 (1 is best; it can be negative), per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid (or is
        'variance_weighted'), or the targets hold NaN or infinity.
    InvalidParameterError
        If ``alpha`` is not a number in [0, 1] (an AssayError and a TypeError, as
        scikit-learn's).

    See Also
    --------
    mean_pinball_loss : The loss itself.
    d2_absolute_error_score : The case ``alpha=0.5``.

    Examples
    --------
    >>> from assay.metrics import d2_pinball_score
    >>> print(round(d2_pinball_score([1, 2, 3], [1, 3, 3]), 4))
    0.5
    """
    alpha = _check_alpha(alpha, "d2_pinball_score")
    y, p, _, multioutput, w = _check_reg_targets(y_true, y_pred, multioutput, sample_weight)
    if y.shape[0] < 2:
        return _score("d2_pinball", y_true, y_pred, sample_weight, multioutput, True, alpha)
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        raise AssayError("multioutput is expected to be 'raw_values' or 'uniform_average' but we "
                         "got 'variance_weighted' instead.")
    check_finite(y, "y_true")
    check_finite(p, "y_pred")
    columns = y.reshape(len(y), -1)
    quantiles = [_averaged_inverted_cdf(columns[:, j], w, alpha) for j in range(columns.shape[1])]
    null = np.ascontiguousarray(np.broadcast_to(np.array(quantiles).reshape(
        (1,) + y.shape[1:]), y.shape))
    numerator = _assay.reg_per_output("pinball", y, p, w, float(alpha))
    denominator = _assay.reg_per_output("pinball", y, null, w, float(alpha))
    # scikit-learn's conventions: a perfect prediction scores 1, a perfect null model 0.
    scores = np.ones(len(quantiles))
    valid = (numerator != 0) & (denominator != 0)
    scores[valid] = 1 - numerator[valid] / denominator[valid]
    scores[(numerator != 0) & (denominator == 0)] = 0.0
    return _average(scores, multioutput)


def _first_reaching(ranked, weights, alpha):
    """The first of the ascending ``ranked`` values whose cumulative weight reaches alpha of
    the total: the inverted CDF."""
    cumulative = np.cumsum(weights)
    index = np.searchsorted(cumulative, alpha * cumulative[-1], side="left")
    return ranked[min(index, len(ranked) - 1)]


def _averaged_inverted_cdf(values, sample_weight, alpha):
    """Mean of the inverted CDF from below and from above: numpy's 'averaged_inverted_cdf'
    quantile without weights, its weighted generalisation with them (integer weights act as
    repeated samples). Zero weights are dropped."""
    if sample_weight is None:
        return _averaged_order_statistic(values, alpha)
    # Weights rescaled exactly by a power of two: sums of weights near 1e308 stay finite.
    weights = _assay._scaled_weights(np.ascontiguousarray(sample_weight, dtype=np.float64))
    keep = weights > 0
    if not keep.any():
        raise AssayError("Weights sum to zero, can't be normalized")
    values, weights = values[keep], weights[keep]
    order = _assay._stable_argsort(np.ascontiguousarray(values, dtype=np.float64))
    below = _first_reaching(values[order], weights[order], alpha)
    # From above, one sort serves too: a stable sort of -values is this order with its runs of
    # equal values reversed, each run keeping its own order (so the sums are the same ones).
    descending = _runs_reversed(order, values[order])
    above = -_first_reaching(-values[descending], weights[descending], 1 - alpha)
    return 0.5 * (below + above)


def _runs_reversed(order, ranked):
    """``order`` with its runs of equal ``ranked`` values in reverse sequence, each run kept."""
    n = len(ranked)
    starts = np.r_[0, np.flatnonzero(ranked[1:] != ranked[:-1]) + 1]
    if len(starts) == n:  # no ties: every run is one value
        return order[::-1]
    ends = np.r_[starts[1:], n]
    reversed_order = np.empty(n, dtype=order.dtype)
    reversed_order[np.arange(n) + np.repeat(n - ends - starts, ends - starts)] = order
    return reversed_order


def _averaged_order_statistic(values, alpha):
    """_averaged_inverted_cdf of unit weights by selection instead of two sorts (O(n)): the
    cumulative counts are i + 1, so each inverted CDF is an order statistic."""
    n = len(values)
    below = min(max(int(np.ceil(alpha * n)) - 1, 0), n - 1)
    from_top = min(max(int(np.ceil((1 - alpha) * n)) - 1, 0), n - 1)
    above = n - 1 - from_top
    ranked = np.partition(values, sorted({below, above}))
    return 0.5 * (ranked[below] + ranked[above])


def d2_absolute_error_score(y_true, y_pred, *, sample_weight=None,
                            multioutput="uniform_average"):
    """D^2 score of the absolute error: the fraction of absolute error explained.

    As scikit-learn's ``d2_absolute_error_score``: ``d2_pinball_score`` at ``alpha=0.5``, so the
    baseline predicts the median of ``y``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True target values.
    y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    multioutput : str or array-like of shape (n_outputs,), default='uniform_average'
        How the outputs are combined: 'raw_values' returns one value per output,
        'uniform_average' their mean, an array their weighted mean.

    Returns
    -------
    float or ndarray of shape (n_outputs,)
        D^2 (1 is best; it can be negative), per output for ``multioutput='raw_values'``.

    Raises
    ------
    AssayError
        If the numbers of samples or outputs differ, ``multioutput`` is not valid (or is
        'variance_weighted'), or the
        targets hold NaN or infinity.

    See Also
    --------
    d2_pinball_score : Any quantile.

    Examples
    --------
    >>> from assay.metrics import d2_absolute_error_score
    >>> print(round(d2_absolute_error_score([3, -0.5, 2, 7], [2.5, 0, 2, 8]), 4))
    0.7647
    """
    return d2_pinball_score(y_true, y_pred, sample_weight=sample_weight, alpha=0.5,
                            multioutput=multioutput)


def _power(power):
    if not isinstance(power, numbers.Real):
        raise TypeError(f"power must be an instance of Real, not {type(power).__qualname__}.")
    return float(power)


def mean_tweedie_deviance(y_true, y_pred, *, sample_weight=None, power=0):
    """Mean Tweedie deviance of regression predictions (single output).

    As scikit-learn's ``mean_tweedie_deviance``, with its domain checks: ``power`` 0 is the
    normal (squared error), 1 the Poisson and 2 the Gamma deviance; 0 < power < 1 is undefined.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True target values.
    y_pred : array-like of shape (n_samples,)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    power : float, default=0
        The Tweedie power: <= 0, or >= 1.

    Returns
    -------
    float
        The mean deviance.

    Raises
    ------
    AssayError
        If ``power`` is in (0, 1), a target is outside the domain of the power (e.g. power 1
        needs ``y >= 0`` and ``y_pred > 0``), the targets have several outputs or hold NaN or
        infinity, or the lengths differ.
    TypeError
        If ``power`` is not a real number.

    See Also
    --------
    mean_poisson_deviance : Power 1.
    mean_gamma_deviance : Power 2.
    d2_tweedie_score : The deviance relative to that of the mean.

    Examples
    --------
    >>> from assay.metrics import mean_tweedie_deviance
    >>> print(round(mean_tweedie_deviance([2, 0, 1, 4], [0.5, 0.5, 2, 2], power=1), 4))
    1.426
    """
    y, p, outputs, _, w = _check_reg_targets(y_true, y_pred, None, sample_weight)
    if outputs > 1:
        raise AssayError("Multioutput not supported in mean_tweedie_deviance")
    return np.float64(_assay.reg_tweedie(y, p, w, _power(power), False))


def mean_poisson_deviance(y_true, y_pred, *, sample_weight=None):
    """Mean Poisson deviance (Tweedie power 1) of regression predictions.

    As scikit-learn's ``mean_poisson_deviance``: ``mean_tweedie_deviance`` with ``power=1``, for
    non-negative targets and strictly positive predictions (e.g. counts).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True target values.
    y_pred : array-like of shape (n_samples,)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float
        The mean deviance.

    Raises
    ------
    AssayError
        If the targets have several outputs or hold NaN or infinity, ``y`` is negative or
        ``y_pred`` not positive, or the lengths differ.

    See Also
    --------
    mean_tweedie_deviance : Any power.

    Examples
    --------
    >>> from assay.metrics import mean_poisson_deviance
    >>> print(round(mean_poisson_deviance([2, 0, 1, 4], [0.5, 0.5, 2, 2]), 4))
    1.426
    """
    return mean_tweedie_deviance(y_true, y_pred, sample_weight=sample_weight, power=1)


def mean_gamma_deviance(y_true, y_pred, *, sample_weight=None):
    """Mean Gamma deviance (Tweedie power 2) of regression predictions.

    As scikit-learn's ``mean_gamma_deviance``: ``mean_tweedie_deviance`` with ``power=2``, for
    strictly positive targets and predictions; it does not depend on the scale of the targets.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True target values.
    y_pred : array-like of shape (n_samples,)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.

    Returns
    -------
    float
        The mean deviance.

    Raises
    ------
    AssayError
        If the targets have several outputs or hold NaN or infinity, ``y`` or ``y_pred`` is not
        positive, or the lengths differ.

    See Also
    --------
    mean_tweedie_deviance : Any power.

    Examples
    --------
    >>> from assay.metrics import mean_gamma_deviance
    >>> print(round(mean_gamma_deviance([2, 0.5, 1, 4], [0.5, 0.5, 2, 2]), 4))
    1.0569
    """
    return mean_tweedie_deviance(y_true, y_pred, sample_weight=sample_weight, power=2)


def d2_tweedie_score(y_true, y_pred, *, sample_weight=None, power=0):
    """D^2 score of the Tweedie deviance: the fraction of deviance explained.

    As scikit-learn's ``d2_tweedie_score``: ``1 - deviance(y, y_pred) / deviance(y, mean of y)``;
    single output only. Fewer than two samples give NaN with an UndefinedMetricWarning.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True target values.
    y_pred : array-like of shape (n_samples,)
        Predicted target values.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample. None: every sample weighs 1.
    power : float, default=0
        The Tweedie power, as in ``mean_tweedie_deviance``; 0 gives R^2 (without
        ``r2_score``'s ``force_finite``).

    Returns
    -------
    float
        D^2 (1 is best; it can be negative).

    Raises
    ------
    AssayError
        As ``mean_tweedie_deviance``.
    TypeError
        If ``power`` is not a real number.

    See Also
    --------
    mean_tweedie_deviance : The deviance itself.

    Examples
    --------
    >>> from assay.metrics import d2_tweedie_score
    >>> print(round(d2_tweedie_score([0.5, 1, 2.5, 7], [1, 1, 5, 3.5], power=1), 4))
    0.4879
    """
    y, p, outputs, _, w = _check_reg_targets(y_true, y_pred, None, sample_weight)
    if outputs > 1:
        raise AssayError("Multioutput not supported in d2_tweedie_score")
    if y.shape[0] < 2:
        check_finite(y, "y_true")  # scikit-learn checks the input first
        check_finite(p, "y_pred")
        warnings.warn("D^2 score is not well-defined with less than two samples.",
                      UndefinedMetricWarning, stacklevel=2)
        return np.float64(np.nan)
    return np.float64(_assay.reg_tweedie(y, p, w, _power(power), True))
