"""assay.metrics' regression metrics against scikit-learn 1.2.1 on randomised inputs (ties,
weights, several outputs, (n, 1) columns) at rtol 1e-12, plus the input contract."""
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import assay
import assay.metrics as am

RTOL = 1e-12

ERRORS = ["mean_absolute_error", "mean_squared_error", "mean_absolute_percentage_error",
          "median_absolute_error", "mean_pinball_loss", "r2_score", "explained_variance_score",
          "d2_pinball_score", "d2_absolute_error_score"]


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=0)


def targets(rng, n, outputs, ties):
    shape = (n,) if outputs == 0 else (n, outputs)
    if ties:
        y = rng.integers(0, 4, size=shape).astype(float)
        p = rng.integers(0, 4, size=shape).astype(float)
    else:
        y = rng.normal(size=shape) * 3
        p = y + rng.normal(size=shape)
    return y, p


@pytest.mark.parametrize("name", ERRORS)
@pytest.mark.parametrize("outputs", [0, 1, 3])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_sklearn(rng, name, outputs, ties, weighted):
    if name == "median_absolute_error" and weighted:
        pytest.skip("scikit-learn 1.9's weighted median differs from 1.2's: "
                    "test_sklearn_newest.py::test_weighted_median_absolute_error")
    for n in (2, 7, 200):
        y, p = targets(rng, n, outputs, ties)
        w = rng.integers(0, 5, size=n).astype(float) + (rng.random(n) if not ties else 0)
        if weighted and w.sum() == 0:
            w[0] = 1
        kw = {"sample_weight": w} if weighted else {}
        averages = ["raw_values", "uniform_average"]
        if name in ("r2_score", "explained_variance_score"):
            averages.append("variance_weighted")
        if outputs == 3:
            averages.append(np.array([0.2, 0.5, 0.3]))
        for multioutput in averages:
            ours = getattr(am, name)(y, p, multioutput=multioutput, **kw)
            theirs = getattr(skm, name)(y, p, multioutput=multioutput, **kw)
            close(ours, theirs)
            assert np.shape(ours) == np.shape(theirs)


@pytest.mark.parametrize("alpha", [0.1, 0.5, 0.9])
def test_pinball_alpha(rng, alpha):
    y, p = targets(rng, 101, 2, False)
    w = rng.random(101)
    for f in ("mean_pinball_loss", "d2_pinball_score"):
        close(getattr(am, f)(y, p, alpha=alpha), getattr(skm, f)(y, p, alpha=alpha))
        close(getattr(am, f)(y, p, alpha=alpha, sample_weight=w),
              getattr(skm, f)(y, p, alpha=alpha, sample_weight=w))


@pytest.mark.parametrize("squared", [True, False])
def test_squared_and_log(rng, squared):
    # scikit-learn 1.6 removed squared=: its squared=False is root_mean_squared_(log_)error.
    y = rng.random((50, 2)) * 5
    p = rng.random((50, 2)) * 5
    w = rng.random(50)
    mse = am.mean_squared_error if squared else am.root_mean_squared_error
    msle = am.mean_squared_log_error if squared else am.root_mean_squared_log_error
    close(mse(y, p), skm.mean_squared_error(y, p, squared=squared))
    close(msle(y, p, sample_weight=w),
          skm.mean_squared_log_error(y, p, squared=squared, sample_weight=w))


# 1.5, 2.5 and -1 take powers 0.5, -0.5, -1 and 2 by sqrt, division and products (not pow).
@pytest.mark.parametrize("power", [-1.5, -1, 0, 1, 1.4, 1.5, 2, 2.5, 3])
def test_tweedie(rng, power):
    y = rng.random(80) * 4 + 0.1
    p = rng.random(80) * 4 + 0.1
    if power == 1:
        y[::5] = 0  # Poisson allows y = 0
    w = rng.random(80)
    for kw in ({}, {"sample_weight": w}):
        close(am.mean_tweedie_deviance(y, p, power=power, **kw),
              skm.mean_tweedie_deviance(y, p, power=power, **kw))
        close(am.d2_tweedie_score(y, p, power=power, **kw),
              skm.d2_tweedie_score(y, p, power=power, **kw))
    close(am.mean_poisson_deviance(y, p), skm.mean_poisson_deviance(y, p))
    y[y == 0] = 1
    close(am.mean_gamma_deviance(y, p), skm.mean_gamma_deviance(y, p))


def test_max_error_and_force_finite(rng):
    y, p = targets(rng, 30, 0, False)
    close(am.max_error(y, p), skm.max_error(y, p))
    const = np.ones(5)
    for f in ("r2_score", "explained_variance_score"):
        for pred in (const, const + np.arange(5)):
            for ff in (True, False):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ours = getattr(am, f)(const, pred, force_finite=ff)
                    theirs = getattr(skm, f)(const, pred, force_finite=ff)
                np.testing.assert_equal(ours, theirs)


def test_shapes_and_lists():
    assert am.mean_squared_error([1, 2, 3], [[1], [2], [4]]) == pytest.approx(1 / 3)
    out = am.mean_absolute_error([[1, 2], [3, 4]], [[1, 2], [3, 5]], multioutput="raw_values")
    np.testing.assert_array_equal(out, [0, 0.5])
    assert isinstance(am.r2_score([1, 2, 3], [1, 2, 2.5]), np.float64)


def test_one_sample_r2_is_nan_with_warning():
    with pytest.warns(am.UndefinedMetricWarning, match="less than two samples"):
        assert np.isnan(am.r2_score([1.0], [2.0]))
    assert issubclass(am.UndefinedMetricWarning, assay.AssayWarning)


@pytest.mark.parametrize("call, error, message", [
    (lambda: am.mean_squared_error([1, 2], [1]), ValueError,
     r"Found input variables with inconsistent numbers of samples: \[2, 1\]"),
    (lambda: am.mean_squared_error([1, np.nan], [1, 2]), ValueError,
     r"Input contains NaN: y_true\[1\] is NaN"),
    (lambda: am.mean_absolute_error([1, 2], [np.inf, 2]), ValueError,
     r"Input contains infinity or a value too large for dtype\('float64'\): y_pred\[0\]"),
    (lambda: am.r2_score([[1, 2], [3, 4]], [1, 2]), ValueError,
     r"y_true and y_pred have different number of output \(2!=1\)"),
    (lambda: am.r2_score([1, 2], [1, 2], multioutput="bad"), ValueError,
     r"Allowed 'multioutput' string values are"),
    (lambda: am.r2_score([1, 2], [1, 2], multioutput=[1, 2]), ValueError,
     r"Custom weights are useful only in multi-output cases."),
    (lambda: am.mean_squared_error([1, 2], [1, 2], sample_weight=[]), ValueError,
     r"Found input variables with inconsistent numbers of samples: \[2, 2, 0\]"),
    (lambda: am.mean_squared_error([1, 2], [1, 2], sample_weight=[1, -1]), ValueError,
     r"sample_weight must be >= 0, found -1 at index 1"),
    (lambda: am.mean_squared_log_error([1, -2], [1, 2]), ValueError,
     r"Mean Squared Logarithmic Error cannot be used when targets contain values less than or "
     r"equal to -1."),
    (lambda: am.max_error([[1, 2]], [[1, 2]]), ValueError, r"Multioutput not supported"),
    (lambda: am.mean_tweedie_deviance([1, 2], [0, 1], power=1), ValueError,
     r"Mean Tweedie deviance error with power=1 can only be used on non-negative y and "
     r"strictly positive y_pred."),
    (lambda: am.mean_tweedie_deviance([1, 2], [1, 2], power=0.5), ValueError,
     r"Tweedie deviance is only defined for power<=0 and power>=1."),
    (lambda: am.mean_tweedie_deviance([1, 2], [1, 2], power="a"), TypeError,
     r"power must be an instance of Real, not str."),
    (lambda: am.mean_pinball_loss([1, 2], [1, 2], multioutput="variance_weighted"), ValueError,
     r"multioutput is expected to be 'raw_values' or 'uniform_average'"),
    (lambda: am.mean_squared_error(["a", "b"], [1, 2]), ValueError,
     r"dtype='numeric' is not compatible with arrays of bytes/strings"),
    (lambda: am.mean_squared_error([], []), ValueError,
     r"Found array with 0 sample\(s\) \(shape=\(0,\)\) while a minimum of 1 is required."),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_shift_functions_are_the_metrics():
    assert assay.shift.mean_squared_error is am.mean_squared_error
    assert assay.shift.r2_score is am.r2_score


@pytest.mark.parametrize("name", ["mean_pinball_loss", "d2_pinball_score"])
@pytest.mark.parametrize("alpha", [-0.1, 1.5, float("inf"), float("nan"), "0.5", None, True])
def test_pinball_alpha_outside_zero_one_is_refused(name, alpha):
    # scikit-learn validates alpha as a real in [0, 1] (InvalidParameterError: a ValueError and
    # a TypeError); assay once computed a loss for alpha = 1.5 and overflowed on infinity.
    with pytest.raises(ValueError, match=r"'alpha' parameter of .* range \[0.0, 1.0\]") as info:
        getattr(assay.metrics, name)([1.0, 2.0, 3.0], [1.0, 2.0, 4.0], alpha=alpha)
    assert isinstance(info.value, TypeError)
