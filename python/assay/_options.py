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


def _wrong_type(value, name, parse_text, expected):
    """InvalidParameterError for an argument of the wrong type. Text gets the message of the
    library's rule for the CLI's text (parse_text), so `seed="abc"` reads as `--seed abc` does;
    other types name their repr."""
    if isinstance(value, str):
        try:
            parse_text(name, value)
        except _assay.AssayError as e:
            return InvalidParameterError(str(e))
    return InvalidParameterError(f"{name}: expected {expected}, found {value!r}")


def _integer(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _wrong_type(value, name, _assay._parse_unsigned, f"an integer in 0..{UINT64_MAX}")
    return int(value)


def check_unsigned(value, name):
    """A seed or count: an integer in 0..2**64-1 (core/options.hpp's parse_unsigned)."""
    return _assay._parse_unsigned(name, str(_integer(value, name)))


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
        raise _wrong_type(value, name, _assay._parse_threads,
                          "0 (all cores) or a positive number of threads")
    v = _assay._parse_threads(name, str(int(value)))
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
    """A confidence level or probability: a number in (0, 1) (core/options.hpp's rule)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _wrong_type(value, name, _assay._parse_probability, "a number in (0, 1)")
    v = float(value)
    _assay._check_probability(name, v)
    return v


def check_task(value, name="task"):
    """The task of a learner: "classification" or "regression" (core/task.hpp's rule)."""
    return _assay._parse_task_kind(check_text(value, name), name)
