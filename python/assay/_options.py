"""The numeric options every assay function shares, checked by the rules the CLI applies
(assay/core/options.hpp): seeds and counts are integers in 0..2**64-1 (never wrapped or
clamped), threads are 0 (all cores) or positive and capped at the machine's cores with a
warning (ASSAY_THREADS_FORCE=1 lifts the cap), confidence levels lie in (0, 1). A bad value
raises assay.AssayError (a ValueError) with the CLI's message."""
import numbers

from . import _assay

UINT64_MAX = 2**64 - 1


def _integer(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _assay.AssayError(f"{name}: expected an integer in 0..{UINT64_MAX}, found {value!r}")
    return int(value)


def check_unsigned(value, name):
    """A seed or count: an integer in 0..2**64-1."""
    v = _integer(value, name)
    if not 0 <= v <= UINT64_MAX:
        raise _assay.AssayError(f'{name}: expected an integer in 0..{UINT64_MAX}, found "{v}"')
    return v


def check_threads(value, name="threads"):
    """0 = all cores; negative refused; above the machine's cores capped (with a warning)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _assay.AssayError(
            f"{name}: expected 0 (all cores) or a positive number of threads, found {value!r}")
    v = int(value)
    if v < 0:
        raise _assay.AssayError(
            f"{name}: expected 0 (all cores) or a positive number of threads, found {v}")
    return _assay._checked_threads(min(v, 2**62), name)


def check_probability(value, name):
    """A confidence level or probability: a number in (0, 1)."""
    v = float(value)
    if not 0 < v < 1:
        raise _assay.AssayError(f"{name} must be in (0, 1), found {v:g}")
    return v
