"""The numeric options every assay function shares, checked by the rules the CLI applies
(assay/core/options.hpp): seeds and counts are integers in 0..2**64-1 (never wrapped or
clamped), threads are 0 (all cores) or positive and capped at the machine's cores with a
warning (ASSAY_THREADS_FORCE=1 lifts the cap), confidence levels lie in (0, 1), bootstrap
resample counts are at most 1000000. A bad value raises assay.AssayError (a ValueError) with
the CLI's message, naming the argument; no value reaches the compiled module unchecked, so
pybind11's own "incompatible function arguments" never does either."""
import math
import numbers

from . import _assay

UINT64_MAX = 2**64 - 1


class InvalidParameterError(_assay.AssayError, TypeError):
    """An argument of the wrong type: both an AssayError (a ValueError) and a TypeError, as
    scikit-learn's InvalidParameterError, so either ``except`` catches it."""


def _integer(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"{name}: expected an integer in 0..{UINT64_MAX}, found {value!r}")
    return int(value)


def check_unsigned(value, name):
    """A seed or count: an integer in 0..2**64-1."""
    v = _integer(value, name)
    if not 0 <= v <= UINT64_MAX:
        raise _assay.AssayError(f'{name}: expected an integer in 0..{UINT64_MAX}, found "{v}"')
    return v


def check_integer(value, name, low, high):
    """An integer in [low, high] (sizes, counts, connectivities)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"{name}: expected an integer in {low}..{high}, found {value!r}")
    v = int(value)
    if not low <= v <= high:
        raise _assay.AssayError(f"{name}: expected an integer in {low}..{high}, found {v}")
    return v


def check_resamples(value, name="n_resamples"):
    """A bootstrap resample count: 0..1000000 (the library's limit, with its reason)."""
    v = check_unsigned(value, name)
    _assay._check_resample_count(v, name)
    return v


def check_threads(value, name="threads"):
    """0 = all cores; negative refused; above the machine's cores capped (with a warning)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"{name}: expected 0 (all cores) or a positive number of threads, found {value!r}")
    v = int(value)
    if v < 0:
        raise _assay.AssayError(
            f"{name}: expected 0 (all cores) or a positive number of threads, found {v}")
    if v > 2**62:
        raise _assay.AssayError(f"{name}: expected at most 65536 threads, found {v}")
    return _assay._checked_threads(v, name)


def check_number(value, name):
    """A real number (bool and text refused): float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name}: expected a number, found {value!r}")
    return float(value)


def check_text(value, name):
    """A string option (its allowed values are the library's to check, with their names)."""
    if not isinstance(value, str):
        raise InvalidParameterError(f"{name}: expected a string, found {value!r}")
    return value


def check_finite_number(value, name):
    """A finite real number: float."""
    v = check_number(value, name)
    if not math.isfinite(v):
        raise _assay.AssayError(f"{name}: expected a finite number, found {v}")
    return v


def check_probability(value, name):
    """A confidence level or probability: a number in (0, 1)."""
    v = check_number(value, name)
    if not 0 < v < 1:
        raise _assay.AssayError(f"{name} must be in (0, 1), found {v:g}")
    return v
