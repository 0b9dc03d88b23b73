#!/usr/bin/env python3
"""Differential fuzzing of assay's math against its oracles.

A seeded generator of adversarial but valid inputs (ties everywhere, constant scores, one class
absent, a single sample, huge and tiny magnitudes, signed zeros, subnormals, zero weights, many
classes, labels as strings / ints / negative ints / bools, every `average`, `zero_division`,
`pos_label` variant, multilabel indicators, NaN) is fed to assay and to its oracle:

  * scikit-learn 1.2.1 for every function of `assay.metrics` with a scikit-learn twin
    (classification, multilabel, ranking, probability, label-ranking and regression metrics),
    and `sklearn.calibration.calibration_curve` for `calibration_error`;
  * SciPy for the t-tests of the SOAK statistics (`ttest_rel`, `ttest_ind(equal_var=False)`);
  * brute-force enumeration in Python for `assay.count` (random small specs, random scikit-learn
    trees and ensembles, every point of the domain predicted by scikit-learn itself).

Outcomes must agree: values within rtol 1e-12 (exact counts exactly), the same shape and dtype
kind, the same exception category when the oracle raises (ValueError vs ValueError), and an
UndefinedMetricWarning exactly when scikit-learn gives one. The differences documented in
docs/conventions.md ("Deliberate differences") are recognised and counted, not reported.

    differential.py --seconds 60            # time budget (default: 200 cases per family)
    differential.py --cases 500 --seed 3    # count budget, another seed
    differential.py --family regression     # one family (repeatable); --list shows them

Case i of a run uses the generator `np.random.default_rng([seed, i])`, so a failing case is
re-run alone with `--seed S --first i --cases 1`. On a mismatch the case is shrunk (samples
dropped while it still fails), printed as a Python reproducer, and the exit status is 1.
"""
import argparse
import itertools
import math
import os
import re
import sys
import time
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _import_assay():
    try:
        import assay  # noqa: F401
    except ImportError:
        build = os.environ.get("ASSAY_BUILD_DIR", os.path.join(ROOT, "build"))
        sys.path.insert(0, os.path.join(build, "python"))
        import assay  # noqa: F401


_import_assay()

import assay  # noqa: E402
import assay.metrics as am  # noqa: E402
from assay import _assay  # noqa: E402
import scipy.stats  # noqa: E402
import sklearn.calibration  # noqa: E402
import sklearn.exceptions  # noqa: E402
import sklearn.metrics as skm  # noqa: E402

RTOL = 1e-12


# ============================================================================ outcomes


class Outcome:
    """What one call did: a value (and the warnings it gave) or an exception."""

    def __init__(self, value=None, error=None, warned=()):
        self.value, self.error, self.warned = value, error, tuple(warned)

    @property
    def undefined_warning(self):
        return any(w.__name__ == "UndefinedMetricWarning" for w in self.warned)

    def describe(self):
        if self.error is not None:
            return f"raised {type(self.error).__name__}: {self.error}"
        names = sorted({w.__name__ for w in self.warned})
        return f"returned {_short(self.value)}" + (f" warning {names}" if names else "")


def call(fn, args, kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = fn(*_copy(args), **_copy(kwargs))
        except Exception as e:  # noqa: BLE001  (every exception is an outcome to compare)
            return Outcome(error=e, warned=[c.category for c in caught])
    return Outcome(value=value, warned=[c.category for c in caught])


def _copy(x):
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, list):
        return [_copy(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_copy(v) for v in x)
    if isinstance(x, dict):
        return {k: _copy(v) for k, v in x.items()}
    return x


def _short(v, limit=300):
    text = repr(v)
    return text if len(text) <= limit else text[:limit] + " ..."


def _kind(x):
    if isinstance(x, (bool, np.bool_)):
        return "b"
    if isinstance(x, (int, np.integer)):
        return "i"
    if isinstance(x, (float, np.floating)):
        return "f"
    return type(x).__name__


def _kind_of_array(a):
    k = a.dtype.kind
    return "i" if k == "u" else k


def compare_values(ours, theirs, rtol=RTOL, atol=0.0, path="result"):
    """None when equal within tolerance, else what differs (the first difference)."""
    if isinstance(theirs, (tuple, list)):
        if not isinstance(ours, (tuple, list)) or len(ours) != len(theirs):
            return f"{path}: {_short(ours)} vs {_short(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            d = compare_values(a, b, rtol, atol, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(theirs, dict):
        if not isinstance(ours, dict) or list(ours) != list(theirs):
            keys = list(ours) if isinstance(ours, dict) else type(ours).__name__
            return f"{path}: keys {keys} vs {list(theirs)}"
        for k in theirs:
            d = compare_values(ours[k], theirs[k], rtol, atol, f"{path}[{k!r}]")
            if d:
                return d
        return None
    if isinstance(theirs, str) and isinstance(ours, str) and ours != theirs:
        return _compare_text(ours, theirs, rtol, path)
    if theirs is None or isinstance(theirs, str):
        return None if ours == theirs else f"{path}: {_short(ours)} vs {_short(theirs)}"
    if isinstance(theirs, np.ndarray):
        if not isinstance(ours, np.ndarray):
            return f"{path}: {type(ours).__name__} vs ndarray"
        if ours.shape != theirs.shape:
            return f"{path}: shape {ours.shape} vs {theirs.shape}"
        if _kind_of_array(ours) != _kind_of_array(theirs):
            return f"{path}: dtype {ours.dtype} vs {theirs.dtype}"
        if theirs.dtype.kind in "fc" or ours.dtype.kind in "fc":
            a, b = ours.astype(np.float64), theirs.astype(np.float64)
            close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
            # isclose calls inf == inf close but also needs the same sign, which it checks.
            if not close.all():
                i = tuple(np.argwhere(~close)[0])
                return (f"{path}{list(i)}: {a[i]!r} vs {b[i]!r} (rel diff "
                        f"{abs(a[i] - b[i]) / max(abs(b[i]), 1e-300):.3g})")
            return None
        if not np.array_equal(ours, theirs):
            return f"{path}: {_short(ours)} vs {_short(theirs)}"
        return None
    if _kind(ours) != _kind(theirs):
        return f"{path}: {type(ours).__name__} {ours!r} vs {type(theirs).__name__} {theirs!r}"
    if _kind(theirs) == "f":
        a, b = float(ours), float(theirs)
        if math.isnan(a) and math.isnan(b):
            return None
        if a == b or abs(a - b) <= atol + rtol * abs(b):
            return None
        return f"{path}: {a!r} vs {b!r} (rel diff {abs(a - b) / max(abs(b), 1e-300):.3g})"
    return None if ours == theirs else f"{path}: {ours!r} vs {theirs!r}"


ORACLE_CRASHES = ("object is not subscriptable", "object is not iterable",
                  "unsupported operand type", "object has no attribute")


def oracle_crashed(e):
    """scikit-learn failing inside itself (not refusing the input): no verdict on assay."""
    if e is None:
        return False
    if not isinstance(e, (ValueError, TypeError)):
        return True
    return isinstance(e, TypeError) and any(m in str(e) for m in ORACLE_CRASHES)


NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _compare_text(ours, theirs, rtol, path):
    """Texts equal but for full-precision numbers (classification_report's weighted support)
    that differ within rtol."""
    if NUMBER.sub("#", ours) == NUMBER.sub("#", theirs):
        a, b = NUMBER.findall(ours), NUMBER.findall(theirs)

        def close(x, y):  # within rtol, or one unit of the last printed digit (0.625 -> 0.62)
            unit = 10.0 ** -len(y.split(".")[1].split("e")[0]) if "e" not in y else 0.0
            return math.isclose(float(x), float(y), rel_tol=rtol) or \
                abs(float(x) - float(y)) <= unit * (1 + 1e-9)

        if len(a) == len(b) and all(close(x, y) for x, y in zip(a, b)):
            return None
    return f"{path}: {_short(ours)} vs {_short(theirs)}"


def _error_category(e):
    if isinstance(e, ValueError):
        return "ValueError"
    if isinstance(e, TypeError):
        return "TypeError"
    return type(e).__name__


def compare_outcomes(ours, theirs, rtol=RTOL, atol=0.0, warnings_matter=True):
    if theirs.error is not None:
        if ours.error is not None and type(ours.error).__name__ == type(theirs.error).__name__:
            return None  # the same exception (scikit-learn's ZeroDivisionError, say)
        if ours.error is not None and not isinstance(ours.error, (ValueError, TypeError)):
            return f"assay raised {type(ours.error).__name__}"
        if oracle_crashed(theirs.error):
            return "skip: oracle crashed"  # IndexError, ZeroDivisionError, ... inside sklearn
        if ours.error is None:
            return "oracle raised, assay did not"
        # scikit-learn's InvalidParameterError is both a ValueError and a TypeError.
        both = isinstance(theirs.error, ValueError) and isinstance(theirs.error, TypeError)
        if both or _error_category(ours.error) == _error_category(theirs.error):
            return None
        return "different exception type"
    if ours.error is not None:
        return "assay raised, oracle did not"
    d = compare_values(ours.value, theirs.value, rtol, atol)
    if d:
        return d
    if warnings_matter and ours.undefined_warning != theirs.undefined_warning:
        return "UndefinedMetricWarning " + ("only from assay" if ours.undefined_warning
                                            else "only from the oracle")
    return None


# ============================================================================ literals


def literal(x):
    """x as Python source (numpy arrays with their dtype)."""
    if isinstance(x, np.ndarray):
        return f"np.array({_list_literal(x.tolist())}, dtype={x.dtype.str!r})" if x.size or \
            x.ndim == 1 else f"np.zeros({x.shape}, dtype={x.dtype.str!r})"
    if isinstance(x, (list, tuple)):
        inner = ", ".join(literal(v) for v in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner}{',' if len(x) == 1 else ''})"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {literal(v)}" for k, v in x.items()) + "}"
    if isinstance(x, (float, np.floating)):
        f = float(x)
        if math.isnan(f):
            return "float('nan')"
        if math.isinf(f):
            return "float('inf')" if f > 0 else "-float('inf')"
        return repr(f)
    if isinstance(x, np.generic):
        return repr(x.item())
    return repr(x)


def _list_literal(v):
    if isinstance(v, list):
        return "[" + ", ".join(_list_literal(e) for e in v) + "]"
    return literal(v)


# ============================================================================ generators


def pick(rng, options, p=None):
    return options[rng.choice(len(options), p=p)]


def sample_count(rng):
    return int(pick(rng, [0, 1, 2, 3, 5, 8, 13, 30, 100], p=[.01, .06, .08, .1, .2, .2, .15, .15, .05]))


LABEL_SETS = [
    [0, 1], [0, 1], [-1, 1], [1, 2], [0, 1, 2], [1, 2, 3, 4], [-3, -2, 7],
    ["a", "b"], ["neg", "pos"], ["a", "b", "c"], ["x", "y", "z", "w"],
    [False, True], [0.0, 1.0], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
]


def label_set(rng):
    return list(pick(rng, LABEL_SETS))


def labels_array(values, idx):
    a = np.asarray([values[i] for i in idx]) if len(idx) else np.asarray(values)[:0]
    return a


def label_pair(rng, n, values=None):
    """y_true, y_pred over one label set, with one class often absent from either."""
    values = values or label_set(rng)
    k = len(values)
    mode = pick(rng, ["free", "same", "one_true", "one_pred", "subset", "constant"])
    t = rng.integers(0, k, n)
    p = rng.integers(0, k, n)
    if mode == "same":
        p = t.copy()
        flip = rng.random(n) < 0.2
        p[flip] = rng.integers(0, k, int(flip.sum()))
    elif mode == "one_true":
        t[:] = rng.integers(0, k)
    elif mode == "one_pred":
        p[:] = rng.integers(0, k)
    elif mode == "subset" and k > 2:
        t = rng.integers(0, k - 1, n)
    elif mode == "constant":
        t[:] = p[:] = rng.integers(0, k)
    return labels_array(values, t), labels_array(values, p), values


def weights(rng, n, allow_none=True):
    mode = pick(rng, ["none", "ones", "int", "float", "zeros_some", "tiny", "huge", "all_zero"],
                p=[.35, .05, .15, .2, .12, .05, .05, .03] if allow_none else
                [0, .1, .2, .3, .2, .08, .08, .04])
    if mode == "none":
        return None
    if mode == "ones":
        return np.ones(n)
    if mode == "int":
        return rng.integers(0, 5, n)
    if mode == "float":
        return rng.random(n) * 3
    if mode == "zeros_some":
        w = rng.random(n)
        w[rng.random(n) < 0.5] = 0.0
        return w
    if mode == "tiny":
        return rng.random(n) * 1e-300
    if mode == "huge":
        return rng.random(n) * 1e300
    return np.zeros(n)


def magnitudes(rng, shape):
    """Real values with ties, signed zeros, subnormals and extreme magnitudes."""
    mode = pick(rng, ["uniform", "ties", "const", "normal", "huge", "tiny", "subnormal",
                      "zeros", "mixed", "ints"])
    size = int(np.prod(shape)) if shape else 1
    if mode == "uniform":
        v = rng.random(size)
    elif mode == "ties":
        v = rng.integers(0, 3, size) / 2.0
    elif mode == "const":
        v = np.full(size, pick(rng, [0.0, 0.5, 1.0, -2.0, 1e300]))
    elif mode == "normal":
        v = rng.normal(size=size) * 10.0 ** rng.integers(-3, 4)
    elif mode == "huge":
        v = rng.normal(size=size) * 1e300
    elif mode == "tiny":
        v = rng.normal(size=size) * 1e-300
    elif mode == "subnormal":
        v = rng.integers(-3, 4, size) * 5e-324
    elif mode == "zeros":
        v = np.where(rng.random(size) < 0.5, 0.0, -0.0)
    elif mode == "mixed":
        v = np.array([pick(rng, [0.0, -0.0, 5e-324, 1e-300, 1.0, 1e300, -1e300, 0.5, -1.0])
                      for _ in range(size)])
    else:
        v = rng.integers(-5, 6, size).astype(np.float64)
    return v.reshape(shape) if shape else v


def probabilities(rng, shape):
    mode = pick(rng, ["uniform", "ties", "edges", "const", "tiny", "subnormal"])
    size = int(np.prod(shape))
    if mode == "uniform":
        v = rng.random(size)
    elif mode == "ties":
        v = rng.integers(0, 5, size) / 4.0
    elif mode == "edges":
        v = np.array([pick(rng, [0.0, -0.0, 1.0, 0.5, 1 - 2**-53, 2**-53]) for _ in range(size)])
    elif mode == "const":
        v = np.full(size, pick(rng, [0.0, 0.5, 1.0]))
    elif mode == "tiny":
        v = rng.random(size) * 1e-300
    else:
        v = rng.integers(0, 4, size) * 5e-324
    return v.reshape(shape)


def maybe_nan(rng, a, p=0.03):
    """Rarely one NaN (or infinity) in a float array."""
    if rng.random() < p and isinstance(a, np.ndarray) and a.size and a.dtype.kind == "f":
        a = a.copy()
        a.flat[rng.integers(a.size)] = pick(rng, [np.nan, np.inf, -np.inf])
    return a


def indicator_pair(rng, n, k=None):
    k = k or int(rng.integers(1, 6))
    mode = pick(rng, ["free", "same", "empty_col", "empty_row", "all"])
    t = (rng.random((n, k)) < 0.5).astype(int)
    p = (rng.random((n, k)) < 0.5).astype(int)
    if mode == "same":
        p = t.copy()
    elif mode == "empty_col":
        t[:, rng.integers(k)] = 0
        p[:, rng.integers(k)] = 0
    elif mode == "empty_row" and n:
        t[rng.integers(n)] = 0
    elif mode == "all":
        t[:] = 1
    return t, p


# ============================================================================ cases


class Case:
    """One call: assay_fn(*args, **kwargs) against oracle_fn(*args, **kwargs)."""

    def __init__(self, name, args, kwargs=None, *, oracle=None, ours=None, rtol=RTOL, atol=0.0,
                 check=None, source=None):
        self.name, self.args, self.kwargs = name, list(args), dict(kwargs or {})
        self.ours = ours or getattr(am, name)
        self.oracle = oracle or getattr(skm, name)
        self.rtol, self.atol = rtol, atol
        self.check = check  # (case, ours, theirs) -> None | "difference #k" | mismatch text
        self.source = source  # how to call both, for the reproducer

    def run(self):
        """(verdict, ours, theirs): verdict None when they agree, "difference #k" for a row of
        docs/conventions.md, "skip: why" when not comparable, else what differs."""
        ours = call(self.ours, self.args, self.kwargs)
        theirs = call(self.oracle, self.args, self.kwargs)
        if self.check:
            verdict = self.check(self, ours, theirs)
            if verdict is not None:
                return verdict, ours, theirs
        verdict = compare_outcomes(ours, theirs, self.rtol, self.atol)
        if verdict is not None and self.oracle_is_scikit_learns():
            verdict = documented_difference(self, ours, theirs) or verdict
        if is_mismatch(verdict) and self.scale_invariant():
            # Weights near 1e300 (1e-300) overflow (underflow) inside the oracle; the metric is
            # scale invariant, so the oracle on weights rescaled by a power of two is exact.
            w = self.kwargs["sample_weight"]
            kwargs = dict(self.kwargs, sample_weight=w * 2.0 ** -math.frexp(float(np.max(w)))[1])
            rescaled = call(self.oracle, self.args, kwargs)
            if compare_outcomes(ours, rescaled, self.rtol, self.atol) is None:
                return "skip: the oracle under/overflows; agrees on rescaled weights", ours, \
                    theirs
            # Tiny weights: scikit-learn's weighted average returns 0 once the weights' sum is
            # isclose to 0; on rescaled weights it raises as for unit weights (difference #4).
            documented = documented_difference(self, ours, rescaled)
            if documented:
                return documented, ours, theirs
        return verdict, ours, theirs

    def scale_invariant(self):
        w = self.kwargs.get("sample_weight")
        if not isinstance(w, np.ndarray) or w.dtype.kind != "f" or not len(w):
            return False
        top = float(np.max(w))
        if not (top > 1e200 or 0 < top < 1e-200):
            return False
        kw = self.kwargs
        if self.name in ("confusion_matrix", "multilabel_confusion_matrix",
                         "classification_report") or kw.get("normalize") is False:
            return self.name == "confusion_matrix" and kw.get("normalize") is not None
        if self.name == "precision_recall_fscore_support" and kw.get("average") is None:
            return False
        return self.oracle_is_scikit_learns()

    def oracle_is_scikit_learns(self):
        return self.oracle is getattr(skm, self.name, None) or self.oracle in NEWER_RELEASE_ORACLES

    def n_samples(self):
        a = self.args[0] if self.args else None
        return len(a) if isinstance(a, np.ndarray) and a.ndim >= 1 else None

    def without(self, i):
        """The case with sample i removed from every array aligned with the samples."""
        n = self.n_samples()

        def drop(x):
            if isinstance(x, np.ndarray) and x.ndim >= 1 and len(x) == n:
                return np.delete(x, i, axis=0)
            return x

        c = Case(self.name, [drop(a) for a in self.args],
                 {k: drop(v) for k, v in self.kwargs.items()}, oracle=self.oracle, ours=self.ours,
                 rtol=self.rtol, atol=self.atol, check=self.check, source=self.source)
        return c

    def reproducer(self):
        lines = ["import numpy as np", "import assay.metrics as am", "import sklearn.metrics as skm",
                 f"args = {literal(self.args)}", f"kwargs = {literal(self.kwargs)}"]
        if self.source:
            lines += self.source
        else:
            lines += [f"print(am.{self.name}(*args, **kwargs))",
                      f"print(skm.{self.name}(*args, **kwargs))"]
        return "\n".join(lines)


def is_mismatch(verdict):
    return verdict is not None and not verdict.startswith(("difference #", "skip:"))


def shrink(case, budget=400):
    """Drops samples while the case still mismatches (greedy, one pass per size)."""
    changed = True
    while changed and budget > 0:
        changed = False
        n = case.n_samples()
        if not n:
            break
        for i in range(n - 1, -1, -1):
            budget -= 1
            if budget <= 0:
                break
            smaller = case.without(i)
            try:
                verdict, _, _ = smaller.run()
            except Exception:  # noqa: BLE001  (a shrunk case the checks cannot handle)
                continue
            if is_mismatch(verdict):
                case, changed = smaller, True
                break
    return case


# ============================================================================ documented differences

ZERO_SAMPLE_NAN = {"accuracy_score", "balanced_accuracy_score", "matthews_corrcoef",
                   "hamming_loss"}


def _is_nan_value(v):
    return isinstance(v, (float, np.floating)) and math.isnan(v)


def _has_nan(v):
    try:
        return bool(np.isnan(np.asarray(v, dtype=np.float64)).any())
    except (TypeError, ValueError):
        return False


def documented_difference(case, ours, theirs):
    """The row of docs/conventions.md ("Deliberate differences") that explains a mismatch."""
    name, kw = case.name, case.kwargs
    n = case.n_samples()
    weights = kw.get("sample_weight")
    all_zero_weight = weights is not None and len(weights) and not np.any(weights)
    if (name == "roc_auc_score" and all_zero_weight and isinstance(theirs.error, ValueError)
            and ours.error is None and _has_nan(ours.value) and ours.undefined_warning):
        return "difference #4"  # no class has weight: undefined like one class
    if (name == "roc_auc_score" and theirs.error is not None
            and "Only one class present" in str(theirs.error) and ours.error is None
            and ours.undefined_warning):  # NaN, or an average leaving the NaN column out
        return "difference #4"
    if (name == "roc_auc_score" and kw.get("max_fpr") is not None and theirs.error is not None
            and "At least 2 points are needed" in str(theirs.error) and ours.error is None
            and _has_nan(ours.value) and ours.undefined_warning):
        return "difference #4"  # a class of zero weight: NaN fpr, scikit-learn's cut is empty
    if (name == "matthews_corrcoef" and ours.error is None and _is_nan_value(ours.value)
            and ours.undefined_warning and theirs.error is None and theirs.value == 0.0):
        return "difference #3"
    if (name in ZERO_SAMPLE_NAN and n == 0 and ours.error is None and _is_nan_value(ours.value)
            and ours.undefined_warning):
        return "difference #9"
    if (name == "cohen_kappa_score" and ours.error is None and _is_nan_value(ours.value)
            and theirs.error is None and _is_nan_value(theirs.value) and ours.undefined_warning):
        return "difference #10"
    samples_average = kw.get("average") == "samples" or (  # the report's "samples avg" row
        name == "classification_report" and np.ndim(case.args[0]) == 2)
    if (samples_average and weights is not None and not np.all(weights)
            and theirs.undefined_warning and not ours.undefined_warning
            and compare_values(ours.value, theirs.value, case.rtol, case.atol) is None):
        return "skip: oracle warns about a sample of weight 0"
    if (ours.error is not None and theirs.error is None and FutureWarning in theirs.warned
            and "Mix of label input types" in str(ours.error)):
        return "skip: oracle compared strings with a number (numpy FutureWarning)"
    if (ours.error is None and theirs.error is None and _has_nan(ours.value)
            and ours.undefined_warning and RuntimeWarning in theirs.warned
            and compare_values(ours.value, theirs.value, case.rtol, case.atol) is None):
        return "difference #10"  # the same NaN; assay's warning instead of numpy's
    if (name == "balanced_accuracy_score" and kw.get("adjusted") and ours.error is None
            and _is_nan_value(ours.value) and ours.undefined_warning and theirs.error is None
            and not np.isfinite(theirs.value)):
        return "difference #10"  # one class in y_true: scikit-learn divides by zero
    if kw.get("beta") == 0 and kw.get("zero_division") == 1:
        return "difference #2"
    if (name == "class_likelihood_ratios" and ours.error is None and theirs.error is None
            and ours.undefined_warning and UserWarning in theirs.warned
            and compare_values(ours.value, theirs.value, case.rtol, case.atol) is None):
        return "difference #16"  # the same NaN; scikit-learn 1.7's UndefinedMetricWarning
    if (name == "multilabel_confusion_matrix" and weights is not None and ours.error is None
            and theirs.error is None and np.asarray(theirs.value).dtype.kind == "i"
            and np.array_equal(np.asarray(ours.value, dtype=float),
                               np.asarray(theirs.value, dtype=float))):
        # numpy's bincount of no entries with weights is int64 (of any entry, float64): the
        # oracle's weighted counts of an all-zero column keep an integer dtype by accident
        return "skip: oracle's weighted count of an all-zero column is int64 (numpy bincount)"
    if (name == "classification_report" and weights is not None and ours.error is None
            and theirs.error is None and isinstance(ours.value, str)
            and re.sub(r" {6}0\.0(?=\n|$)", " " * 8 + "0", ours.value) == theirs.value):
        # the same quirk in the report's support column: "0" for the oracle's int64, "0.0"
        return "skip: oracle's weighted count of an all-zero column is int64 (numpy bincount)"
    if (name == "cohen_kappa_score" and ours.error is not None and theirs.error is None
            and "must be present in `y1`" in str(ours.error)):
        return "difference #20"  # scikit-learn 1.9 refuses labels none of y1 has (1.2: NaN)
    return None


# ============================================================================ families


def _labels_kwarg(rng, values, allow_absent=True):
    mode = pick(rng, ["none", "none", "perm", "subset", "extra"])
    if mode == "none":
        return None
    vals = list(values)
    if mode == "perm":
        return [vals[i] for i in rng.permutation(len(vals))]
    if mode == "subset" and len(vals) > 1:
        return [vals[i] for i in sorted(rng.choice(len(vals), int(rng.integers(1, len(vals))),
                                                   replace=False))]
    if allow_absent:
        extra = {str: "zz", bool: None}.get(type(vals[0]), 99)
        if extra is not None:
            return vals + [type(vals[0])(extra)] if not isinstance(vals[0], str) else vals + [extra]
    return None


def _pos_label(rng, values):
    return pick(rng, [1, 1, values[-1], values[0], "absent"])


def _zero_division(rng):
    return pick(rng, ["warn", 0, 1, 0.0, 1.0])


PRF = ["precision_recall_fscore_support", "precision_score", "recall_score", "f1_score",
       "fbeta_score", "jaccard_score"]
CLASSIFICATION = ["accuracy_score", "balanced_accuracy_score", "matthews_corrcoef",
                  "cohen_kappa_score", "confusion_matrix", "multilabel_confusion_matrix",
                  "hamming_loss", "zero_one_loss", "classification_report",
                  "class_likelihood_ratios"] + PRF + PRF
MULTILABEL_OK = {"accuracy_score", "multilabel_confusion_matrix", "hamming_loss",
                 "zero_one_loss", "classification_report"} | set(PRF)


def gen_classification(rng):
    name = pick(rng, CLASSIFICATION)
    n = sample_count(rng)
    multilabel = name in MULTILABEL_OK and rng.random() < 0.25
    if multilabel:
        t, p = indicator_pair(rng, n)
        values = list(range(t.shape[1]))
    else:
        t, p, values = label_pair(rng, n)
    kw = {}
    w = weights(rng, n)
    if w is not None and name != "class_likelihood_ratios" or rng.random() < 0.3:
        if w is not None:
            kw["sample_weight"] = w
    if name in ("accuracy_score", "zero_one_loss"):
        kw["normalize"] = bool(rng.random() < 0.7)
    elif name == "balanced_accuracy_score":
        kw["adjusted"] = bool(rng.random() < 0.3)
    elif name == "cohen_kappa_score":
        kw["weights"] = pick(rng, [None, "linear", "quadratic"])
        kw["labels"] = _labels_kwarg(rng, values)
    elif name == "confusion_matrix":
        kw["labels"] = _labels_kwarg(rng, values)
        kw["normalize"] = pick(rng, [None, "true", "pred", "all"])
    elif name == "multilabel_confusion_matrix":
        kw["labels"] = _labels_kwarg(rng, values, allow_absent=not multilabel)
        kw["samplewise"] = bool(multilabel and rng.random() < 0.3)
    elif name in PRF:
        averages = [None, "binary", "micro", "macro", "weighted"] + (["samples"] if multilabel
                                                                    else [])
        kw["average"] = pick(rng, averages)
        kw["labels"] = _labels_kwarg(rng, values, allow_absent=not multilabel)
        pos = _pos_label(rng, values)
        kw["pos_label"] = ("zz" if isinstance(values[0], str) else 99) if pos == "absent" else pos
        kw["zero_division"] = _zero_division(rng)
        if name in ("fbeta_score", "precision_recall_fscore_support"):
            kw["beta"] = float(pick(rng, [1.0, 0.5, 2.0, 0.0, 1e-3, 100.0]))
        if name == "precision_recall_fscore_support" and rng.random() < 0.2:
            kw["warn_for"] = ("precision",)
    elif name == "classification_report":
        kw["output_dict"] = bool(rng.random() < 0.6)
        kw["digits"] = int(pick(rng, [2, 2, 0, 4]))
        kw["zero_division"] = _zero_division(rng)
        labels = _labels_kwarg(rng, values, allow_absent=not multilabel)
        kw["labels"] = labels
        if rng.random() < 0.3:
            count = len(labels) if labels is not None else len(values)
            kw["target_names"] = [f"class {i}" for i in range(count)]
    elif name == "class_likelihood_ratios":
        kw["labels"] = _labels_kwarg(rng, values)
    kw = {k: v for k, v in kw.items() if v is not None or k == "average"}
    # Scores in [-1, 1]: a result of 0 may come out as a rounding error of 1 (kappa's 1 - x/x);
    # weighted counts (tn = total - tp - fp - fn) as a rounding error of the total weight.
    atol = 4 * np.finfo(float).eps
    # zero_one_loss(normalize=False) is the total weight minus the correct weight in both.
    counts = (name == "multilabel_confusion_matrix"
              or (name == "confusion_matrix" and kw.get("normalize") is None)
              or (name == "zero_one_loss" and kw.get("normalize") is False))
    if counts and w is not None and w.dtype.kind == "f":
        atol = max(atol, 8 * np.finfo(float).eps * float(np.sum(w)))
    return Case(name, [t, p], kw, atol=atol)


# ---------------------------------------------------------------------------- ranking

def _scores_for(rng, n):
    return maybe_nan(rng, magnitudes(rng, (n,)))


def _prob_rows(rng, n, k):
    mode = pick(rng, ["dirichlet", "ties", "onehot", "uniform"])
    if mode == "dirichlet":
        s = rng.dirichlet(np.ones(k), n) if n else np.zeros((0, k))
    elif mode == "ties":
        s = rng.integers(0, 3, (n, k)).astype(float) + 1e-300
        s /= s.sum(axis=1, keepdims=True)
    elif mode == "onehot":
        s = np.eye(k)[rng.integers(0, k, n)] if n else np.zeros((0, k))
    else:
        s = np.full((n, k), 1.0 / k)
    return s


def _roc_curve_oracle(*args, **kwargs):
    fpr, tpr, thr = skm.roc_curve(*args, **kwargs)
    thr = thr.copy()
    if len(thr):
        thr[0] = np.inf  # difference #1: assay's first threshold is inf, not max + 1
    return fpr, tpr, thr


def _det_curve_oracle(y_true, y_score, pos_label=None, sample_weight=None):
    """scikit-learn 1.7's det_curve (assay follows it, docs/conventions.md row 14): scikit-learn
    1.2's counts per threshold with a first point at +inf where nothing is positive."""
    from sklearn.metrics._ranking import _binary_clf_curve
    fps, tps, thr = _binary_clf_curve(y_true, y_score, pos_label=pos_label,
                                      sample_weight=sample_weight)
    if len(np.unique(y_true)) != 2:
        raise ValueError("Only one class present in y_true. Detection error tradeoff curve is "
                         "not defined in that case.")
    fps, tps, thr = np.r_[0.0, fps], np.r_[0.0, tps], np.r_[np.inf, thr]
    first = np.flatnonzero(fps == fps[0])[-1]
    last = np.flatnonzero(tps == tps[-1])[0]
    # A class of zero weight divides by 0 with numpy's RuntimeWarning, as scikit-learn does.
    return (fps[first:last + 1][::-1] / fps[-1],
            (tps[-1] - tps[first:last + 1][::-1]) / tps[-1], thr[first:last + 1][::-1])


def _log_loss_oracle(y_true, y_pred, **kwargs):
    """scikit-learn >= 1.7's log_loss (docs/conventions.md row 13): probabilities outside
    [0, 1] refused, clipped at the dtype's epsilon (1.2's eps="auto"). Rows that do not sum to
    one (scored as given since 1.5, renormalised by 1.2) are not generated."""
    p = np.asarray(y_pred, dtype=float)
    if p.size and np.isfinite(p).all() and (p.max() > 1 or p.min() < 0):
        raise ValueError("y_prob contains values outside [0, 1]")
    return skm.log_loss(y_true, y_pred, eps="auto", **kwargs)


RANKING = ["roc_auc_score", "roc_auc_score", "average_precision_score", "roc_curve",
           "precision_recall_curve", "det_curve", "top_k_accuracy_score", "auc", "log_loss",
           "brier_score_loss", "hinge_loss", "coverage_error",
           "label_ranking_average_precision_score", "label_ranking_loss", "dcg_score",
           "ndcg_score"]


def _binary_labels(rng, n):
    values = pick(rng, [[0, 1], [0, 1], [-1, 1], [1, 2], ["a", "b"], [False, True], [0.0, 1.0]])
    t, _, _ = label_pair(rng, n, values)
    return t, values


def gen_ranking(rng):
    name = pick(rng, RANKING)
    n = sample_count(rng)
    kw = {}
    w = weights(rng, n)
    if name in ("roc_curve", "precision_recall_curve", "det_curve"):
        t, values = _binary_labels(rng, n)
        pos = pick(rng, [None, None, values[-1], values[0], 1])
        if pos is not None:
            kw["pos_label"] = pos
        if w is not None:
            kw["sample_weight"] = w
        if name == "roc_curve":
            kw["drop_intermediate"] = bool(rng.random() < 0.5)
            return Case(name, [t, _scores_for(rng, n)], kw, oracle=_roc_curve_oracle)
        if name == "det_curve":
            return Case(name, [t, _scores_for(rng, n)], kw, oracle=_det_curve_oracle)
        return Case(name, [t, _scores_for(rng, n)], kw)
    if name == "roc_auc_score":
        return _gen_roc_auc(rng, n, w)
    if name == "average_precision_score":
        if rng.random() < 0.3:
            t, _ = indicator_pair(rng, n)
            s = maybe_nan(rng, magnitudes(rng, t.shape))
            kw["average"] = pick(rng, [None, "micro", "macro", "weighted", "samples"])
        else:
            t, values = _binary_labels(rng, n)
            s = _scores_for(rng, n)
            kw["pos_label"] = pick(rng, [1, values[-1], values[0]])
        if w is not None:
            kw["sample_weight"] = w
        return Case(name, [t, s], kw)
    if name == "top_k_accuracy_score":
        k = int(rng.integers(2, 6))
        values = pick(rng, [list(range(k)), [f"c{i}" for i in range(k)], list(range(-1, k - 1))])
        t, _, _ = label_pair(rng, n, values)
        s = maybe_nan(rng, magnitudes(rng, (n, k))) if k > 2 or rng.random() < 0.5 else \
            _scores_for(rng, n)
        if k == 2 and s.ndim == 2 and rng.random() < 0.5:
            s = s[:, 1]
        kw["k"] = int(pick(rng, [1, 2, 3, k, k + 1]))
        kw["normalize"] = bool(rng.random() < 0.7)
        if rng.random() < 0.3:
            kw["labels"] = values
        if w is not None:
            kw["sample_weight"] = w
        return Case(name, [t, s], kw)
    if name == "auc":
        x = np.sort(magnitudes(rng, (n,)))
        if rng.random() < 0.3:
            x = x[::-1].copy()
        y = maybe_nan(rng, magnitudes(rng, (n,)))
        # The trapezoids cancel: tolerance relative to the largest one (a compensated sum's -5e-301
        # is as right as numpy's 0.0 beside terms of 5e299).
        with np.errstate(all="ignore"):
            terms = np.abs(np.diff(x)) * np.abs(y[1:] + y[:-1]) / 2 if n > 1 else np.zeros(1)
        terms = terms[np.isfinite(terms)]
        return Case(name, [x, y], atol=4 * np.finfo(float).eps * float(np.sum(terms)))
    if name == "log_loss":
        return _gen_log_loss(rng, n, w)
    if name == "brier_score_loss":
        t, values = _binary_labels(rng, n)
        if rng.random() < 0.4:
            kw["pos_label"] = pick(rng, [values[-1], values[0]])
        if w is not None:
            kw["sample_weight"] = w
        return Case(name, [t, maybe_nan(rng, probabilities(rng, (n,)))], kw)
    if name == "hinge_loss":
        if rng.random() < 0.5:
            t, _ = _binary_labels(rng, n)
            s = _scores_for(rng, n)
        else:
            k = int(rng.integers(3, 5))
            t, _, _ = label_pair(rng, n, list(range(k)))
            s = magnitudes(rng, (n, k))
            if rng.random() < 0.3:
                kw["labels"] = list(range(k))
        if w is not None:
            kw["sample_weight"] = w
        return Case(name, [t, s], kw)
    # label ranking and dcg / ndcg: (n, k) targets and scores
    k = int(rng.integers(1, 6))
    if name in ("dcg_score", "ndcg_score"):
        t = rng.integers(0, 4, (n, k)).astype(float) if rng.random() < 0.7 else \
            (rng.random((n, k)) * 3)
        s = maybe_nan(rng, magnitudes(rng, (n, k)))
        kw["k"] = pick(rng, [None, 1, 2, k, k + 2])
        kw["ignore_ties"] = bool(rng.random() < 0.3)
        if name == "dcg_score":
            kw["log_base"] = float(pick(rng, [2, 2, 10, 1.5]))
    else:
        t, _ = indicator_pair(rng, n, k)
        s = maybe_nan(rng, magnitudes(rng, (n, k)))
    if w is not None:
        kw["sample_weight"] = w
    return Case(name, [t, s], kw)


def _gen_roc_auc(rng, n, w):
    kw = {} if w is None else {"sample_weight": w}
    form = pick(rng, ["binary", "binary", "multiclass", "multilabel"])
    if form == "binary":
        t, values = _binary_labels(rng, n)
        s = _scores_for(rng, n)
        if rng.random() < 0.3:
            kw["max_fpr"] = float(pick(rng, [0.5, 1.0, 0.1, 0.999]))
        return Case("roc_auc_score", [t, s], kw)
    if form == "multiclass":
        k = int(rng.integers(3, 6))
        values = pick(rng, [list(range(k)), [f"c{i}" for i in range(k)]])
        t, _, _ = label_pair(rng, n, values)
        s = _prob_rows(rng, n, k)
        kw["multi_class"] = pick(rng, ["ovr", "ovo"])
        kw["average"] = pick(rng, ["macro", "weighted"] + (["micro"] if kw["multi_class"] ==
                                                          "ovr" else []))
        if rng.random() < 0.3:
            kw["labels"] = values
        if kw["multi_class"] == "ovo":
            kw.pop("sample_weight", None)
        return Case("roc_auc_score", [t, s], kw)
    t, _ = indicator_pair(rng, n)
    s = maybe_nan(rng, magnitudes(rng, t.shape))
    kw["average"] = pick(rng, [None, "micro", "macro", "weighted", "samples"])
    return Case("roc_auc_score", [t, s], kw)


def _gen_log_loss(rng, n, w):
    kw = {} if w is None else {"sample_weight": w}
    kw["normalize"] = bool(rng.random() < 0.8)
    if rng.random() < 0.5:
        t, values = _binary_labels(rng, n)
        p = maybe_nan(rng, probabilities(rng, (n,)))
        if rng.random() < 0.3:
            kw["labels"] = values
        return Case("log_loss", [t, p], kw, oracle=_log_loss_oracle)
    k = int(rng.integers(2, 6))
    values = pick(rng, [list(range(k)), [f"c{i}" for i in range(k)]])
    t, _, _ = label_pair(rng, n, values)
    p = _prob_rows(rng, n, k)
    if rng.random() < 0.4:
        kw["labels"] = values
    return Case("log_loss", [t, p], kw, oracle=_log_loss_oracle)


# ---------------------------------------------------------------------------- regression

REGRESSION = ["mean_absolute_error", "mean_squared_error", "mean_squared_log_error",
              "median_absolute_error", "mean_absolute_percentage_error", "mean_pinball_loss",
              "max_error", "explained_variance_score", "r2_score", "d2_pinball_score",
              "d2_absolute_error_score", "mean_tweedie_deviance", "mean_poisson_deviance",
              "mean_gamma_deviance", "d2_tweedie_score"]
MULTIOUTPUT = {"mean_absolute_error", "mean_squared_error", "mean_squared_log_error",
               "median_absolute_error", "mean_absolute_percentage_error", "mean_pinball_loss",
               "explained_variance_score", "r2_score", "d2_pinball_score",
               "d2_absolute_error_score"}


def _regression_values(rng, shape, positive):
    v = magnitudes(rng, shape)
    if positive == "strict":
        v = np.abs(v) + pick(rng, [0.0, 1e-3, 1.0])
    elif positive == "nonneg":
        v = np.abs(v)
    return maybe_nan(rng, v, 0.02)


def _quantile_by_walking(values, weights, alpha):
    """Mean of the lowest value whose cumulative weight from below reaches alpha of the total
    and the highest whose cumulative weight from above reaches 1 - alpha of it (the averaged
    inverted CDF), by walking the sorted values."""
    pairs = sorted((v, w) for v, w in zip(values, weights) if w > 0)
    total = sum(w for _, w in pairs)
    below = above = None
    running = 0.0
    for v, w in pairs:
        running += w
        if running >= alpha * total:
            below = v
            break
    running = 0.0
    for v, w in reversed(pairs):
        running += w
        if running >= (1 - alpha) * total:
            above = v
            break
    below = pairs[-1][0] if below is None else below
    above = pairs[0][0] if above is None else above
    return 0.5 * (below + above)


def _d2_pinball_oracle(y_true, y_pred, *, sample_weight=None, alpha=0.5,
                       multioutput="uniform_average"):
    """scikit-learn 1.9's d2_pinball_score (docs/conventions.md row 15): the null model is the
    averaged inverted CDF quantile, weighted or not; 1.2's function validates the input."""
    kw = {"sample_weight": sample_weight, "multioutput": multioutput}
    value_1_2 = skm.d2_pinball_score(y_true, y_pred, alpha=alpha, **kw)
    y = np.asarray(y_true, dtype=float)
    p = np.asarray(y_pred, dtype=float)
    if len(y) < 2:
        return value_1_2
    y2, p2 = y.reshape(len(y), -1), p.reshape(len(y), -1)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    null = np.array([[_quantile_by_walking(y2[:, j], w, alpha) for j in range(y2.shape[1])]])
    loss = {"sample_weight": sample_weight, "alpha": alpha, "multioutput": "raw_values"}
    numerator = skm.mean_pinball_loss(y2, p2, **loss)
    denominator = skm.mean_pinball_loss(y2, np.repeat(null, len(y), axis=0), **loss)
    scores = np.ones(y2.shape[1])
    valid = (numerator != 0) & (denominator != 0)
    scores[valid] = 1 - numerator[valid] / denominator[valid]
    scores[(numerator != 0) & (denominator == 0)] = 0.0
    if isinstance(multioutput, str) and multioutput == "raw_values":
        return scores
    weights_out = None if isinstance(multioutput, str) else multioutput
    return np.average(scores, weights=weights_out)


def _median_absolute_error_oracle(y_true, y_pred, *, sample_weight=None,
                                  multioutput="uniform_average"):
    """scikit-learn 1.9's median_absolute_error (docs/conventions.md row 15): weighted, the
    averaged inverted CDF median of |y - ŷ|; 1.2's function validates and scores unweighted."""
    kw = {"sample_weight": sample_weight, "multioutput": multioutput}
    value_1_2 = skm.median_absolute_error(y_true, y_pred, **kw)
    if sample_weight is None:
        return value_1_2
    errors = np.abs(np.asarray(y_pred, dtype=float) - np.asarray(y_true, dtype=float))
    errors = errors.reshape(len(errors), -1)
    medians = np.array([_quantile_by_walking(errors[:, j], sample_weight, 0.5)
                        for j in range(errors.shape[1])])
    if isinstance(multioutput, str) and multioutput == "raw_values":
        return medians
    return np.average(medians, weights=None if isinstance(multioutput, str) else multioutput)


def _d2_absolute_error_oracle(y_true, y_pred, **kwargs):
    return _d2_pinball_oracle(y_true, y_pred, alpha=0.5, **kwargs)


# Oracles of the behaviour of scikit-learn releases after 1.2 that assay follows: scikit-learn
# twins for the documented differences and the rescaled-weights retry, like skm's functions.
NEWER_RELEASE_ORACLES = (_det_curve_oracle, _log_loss_oracle, _d2_pinball_oracle,
                         _d2_absolute_error_oracle, _median_absolute_error_oracle)


def gen_regression(rng):
    name = pick(rng, REGRESSION)
    n = sample_count(rng)
    outputs = int(pick(rng, [0, 0, 1, 2, 3])) if name in MULTIOUTPUT else 0
    shape = (n, outputs) if outputs else (n,)
    kw = {}
    power = None
    positive_t = positive_p = None
    if name == "mean_squared_log_error" and rng.random() < 0.9:
        positive_t = positive_p = "nonneg"
    elif name in ("mean_poisson_deviance",) and rng.random() < 0.9:
        positive_t, positive_p = "nonneg", "strict"
    elif name == "mean_gamma_deviance" and rng.random() < 0.9:
        positive_t = positive_p = "strict"
    elif name in ("mean_tweedie_deviance", "d2_tweedie_score"):
        power = float(pick(rng, [0, 0, 1, 1.5, 2, 3, -1, 0.5]))
        kw["power"] = power
        if rng.random() < 0.9 and power != 0:
            positive_p = "strict"
            positive_t = "strict" if power >= 2 else "nonneg"
    t = _regression_values(rng, shape, positive_t)
    p = _regression_values(rng, shape, positive_p)
    if name == "mean_squared_log_error":
        # scikit-learn >= 1.6 (and assay) accept -1 < y < 0, which 1.2, the peer here, refuses.
        t, p = (np.where((v > -1) & (v < 0), -v, v) for v in (t, p))
    if rng.random() < 0.2:
        p = t.copy()
    w = weights(rng, n)
    if w is not None and name not in ("max_error",) and not (
            name == "median_absolute_error" and rng.random() < 0.5):
        kw["sample_weight"] = w
    if name in MULTIOUTPUT and rng.random() < 0.5:
        options = ["raw_values", "uniform_average"]
        if name in ("r2_score", "explained_variance_score"):
            options.append("variance_weighted")
        if outputs and rng.random() < 0.2:
            options = [rng.random(outputs)]
        kw["multioutput"] = pick(rng, options)
    if name in ("mean_pinball_loss", "d2_pinball_score"):
        kw["alpha"] = float(pick(rng, [0.5, 0.1, 0.9, 0.0, 1.0]))
    if name in ("r2_score", "explained_variance_score") and rng.random() < 0.3:
        kw["force_finite"] = False
    # Sums of squares cancel: the tolerance is relative to the inputs' scale as well.
    scale = float(np.nanmax(np.abs(np.concatenate([np.ravel(t), np.ravel(p)]))[
        np.isfinite(np.concatenate([np.ravel(t), np.ravel(p)]))], initial=0.0))
    atol = 0.0 if name not in ("r2_score", "explained_variance_score", "d2_pinball_score",
                               "d2_absolute_error_score", "d2_tweedie_score") else 1e-12
    if name == "mean_tweedie_deviance" and kw["power"] not in (0, 1, 2) and scale:
        atol = 1e-12 * _tweedie_term_scale(t, p, kw["power"])
    constant = t.size > 0 and bool(np.all(t == t[:1]))
    oracle = {"d2_pinball_score": _d2_pinball_oracle,
              "d2_absolute_error_score": _d2_absolute_error_oracle,
              "median_absolute_error": _median_absolute_error_oracle}.get(name)
    return Case(name, [t, p], kw, oracle=oracle, atol=atol if scale else 0.0,
                check=_squares_overflow
                if scale > 1e150 or np.max(np.abs(t), initial=0.0) < 1e-300 or constant else None)


def _tweedie_term_scale(t, p, power):
    """The largest of the three terms of a general-power unit deviance, y^(2-power) / ...,
    y p^(1-power) / ... and p^(2-power) / ...: they cancel when y = p, so a last-bit difference
    in pow (numpy's vectorised pow on AVX-512 machines against libm's) leaves a residue of
    their size, not of the deviance's."""
    with np.errstate(all="ignore"):
        y, mu = np.abs(np.ravel(t)), np.abs(np.ravel(p))
        terms = np.concatenate([y ** (2 - power), y * mu ** (1 - power), mu ** (2 - power)])
    terms = terms[np.isfinite(terms)]
    return float(np.max(terms, initial=0.0))


SQUARES = {"r2_score", "explained_variance_score", "mean_squared_error", "d2_tweedie_score",
           "mean_tweedie_deviance"}


def _squares_overflow(case, ours, theirs):
    """Values near 1e300 square to inf: both tools then return inf - inf, inf / inf or a
    force_finite substitute (0 or 1), which is no verdict on either: the last bit of a mean of
    values near 1e300 decides whether a squared deviation is 0 or inf."""
    if ours.error is not None or theirs.error is not None:
        return None
    if compare_values(ours.value, theirs.value, case.rtol, case.atol) is None:
        return None
    t, p = case.args[0], case.args[1]
    subnormal_target = np.max(np.abs(np.ravel(t)), initial=0.0) < 1e-300
    if case.name.startswith("d2_") and (subnormal_target or (
            t.size and np.all(t == t[:1]) and np.max(np.abs(p - t), initial=0.0) < 1e-300)):
        # The D2 denominator (the target's deviations) or, for a constant target, the
        # numerator is a few subnormals: times weights near 1e300 or 1e-300 numpy's weighted
        # means underflow to 0 (scikit-learn: 1 or 0); the library's scaled sums keep them and
        # give the unit-weight value (0, or 1 - big/tiny = -inf).
        return "skip: the oracle's weighted mean of subnormal deviations underflows"
    tiny = [v for v in (ours.value, theirs.value) if np.ndim(v) == 0]
    if (subnormal_target and np.max(np.abs(np.ravel(p)), initial=0.0) < 1e-300
            and case.kwargs.get("sample_weight") is not None and len(tiny) == 2
            and all(abs(float(v)) < 1e-300 for v in tiny)):
        # Losses of a few subnormals: numpy's weighted mean rounds them to 0 or 5e-324 by the
        # weights' scale; the library's scaled sum keeps the unit-weight value.
        return "skip: the oracle's weighted mean of subnormal losses underflows"
    if case.name not in SQUARES:
        return None
    if subnormal_target:
        # Squares of subnormals underflow to 0: the variance of the target is 0 in both tools,
        # and whether the residuals' is too depends on the last bit of a weighted mean.
        return "skip: squares of subnormal values underflow"
    if t.size and np.all(t == t[:1]) and case.kwargs.get("sample_weight") is not None:
        # The target's variance is 0; numpy's weighted mean of the constant may be off by an ulp,
        # leaving a tiny denominator (r2 -8e31 where assay, exact, gives -inf or force_finite's).
        return "skip: the oracle's weighted mean of a constant target is inexact"
    values = np.abs(np.concatenate([np.ravel(a) for a in case.args[:2]]))
    if np.max(values[np.isfinite(values)], initial=0.0) > 1e150:
        return "skip: squares of values near 1e300 overflow"
    return None


# ---------------------------------------------------------------------------- calibration

def _calibration_ours(y, p, n_bins, strategy, pos_label):
    out = am.calibration_error(y, p, bins=n_bins, strategy=strategy, pos_label=pos_label)
    b = out["bins"]
    kept = b["count"] > 0
    return b["accuracy"][kept], b["confidence"][kept]


def _calibration_oracle(y, p, n_bins, strategy, pos_label):
    return sklearn.calibration.calibration_curve(y, p, n_bins=n_bins, strategy=strategy,
                                                 pos_label=pos_label)


def gen_calibration(rng):
    n = max(1, sample_count(rng))
    t, values = _binary_labels(rng, n)
    p = maybe_nan(rng, probabilities(rng, (n,)), 0.01)
    n_bins = int(pick(rng, [1, 2, 3, 5, 10, 15, 100]))
    strategy = pick(rng, ["uniform", "quantile"])
    pos = values[-1] if rng.random() < 0.8 else values[0]
    return Case("calibration_error", [t, p, n_bins, strategy, pos], ours=_calibration_ours,
                oracle=_calibration_oracle, check=_calibration_check,
                source=["from assay.metrics import calibration_error",
                        "from sklearn.calibration import calibration_curve",
                        "y, p, n_bins, strategy, pos = args",
                        "out = calibration_error(y, p, bins=n_bins, strategy=strategy, "
                        "pos_label=pos)",
                        "print(out['bins'])",
                        "print(calibration_curve(y, p, n_bins=n_bins, strategy=strategy, "
                        "pos_label=pos))"])


def _calibration_check(case, ours, theirs):
    # calibration_curve bins NaN probabilities silently; assay refuses them with the index
    # (docs/metrics_classification.md).
    if np.isnan(case.args[1]).any() and isinstance(ours.error, ValueError) and \
            "NaN" in str(ours.error):
        return "skip: NaN probability refused"
    return None


# ---------------------------------------------------------------------------- t-tests (SciPy)

def _ttest_ours(kind, x, y):
    r = (_assay.paired_t_test if kind == "paired" else _assay.welch_t_test)(x, y)
    return np.array([r["t"], r["p_value"]])


def _ttest_oracle(kind, x, y):
    if kind == "paired":
        keep = ~(np.isnan(x) | np.isnan(y))  # assay drops incomplete pairs
        r = scipy.stats.ttest_rel(x[keep], y[keep])
    else:
        r = scipy.stats.ttest_ind(x[~np.isnan(x)], y[~np.isnan(y)], equal_var=False)
    return np.array([r.statistic, r.pvalue])


def gen_ttest(rng):
    kind = pick(rng, ["paired", "welch"])
    nx = int(pick(rng, [2, 2, 3, 4, 5, 10, 30]))
    ny = nx if kind == "paired" else int(pick(rng, [2, 3, 5, 10, 30]))
    scale = 10.0 ** int(rng.integers(-6, 7))
    x = rng.normal(size=nx) * scale
    shift = pick(rng, [0.0, 0.1, 1.0, 10.0, 1e3]) * scale
    y = (x[:ny] if kind == "paired" else rng.normal(size=ny) * scale) - shift + \
        rng.normal(size=ny) * scale * pick(rng, [1.0, 0.1, 1e-3])
    if rng.random() < 0.15:
        y = x - shift  # all differences (nearly) equal
    if rng.random() < 0.1:
        x[rng.integers(nx)] = np.nan
    rtol = 1e-10  # the p-value goes through the incomplete beta function
    return Case("t_test", [kind, x, y], ours=_ttest_ours, oracle=_ttest_oracle, rtol=rtol,
                atol=1e-300, source=["from assay import _assay", "import scipy.stats",
                                     "print(args)"], check=_ttest_check)


def _ttest_check(case, ours, theirs):
    # assay reports an undefined test (fewer than two pairs, zero variance) as NaN with a reason;
    # SciPy gives NaN or +-inf there. Compare only where assay's test is defined.
    if ours.error is None and np.isnan(ours.value).all():
        return "skip: undefined test"
    kind, x, y = case.args
    if kind == "paired":
        keep = ~(np.isnan(x) | np.isnan(y))
        d = x[keep] - y[keep]
        if np.std(d) < 1e-9 * abs(np.mean(d)):
            return "skip: ill-conditioned (the SD is rounding noise)"
    return None


# ---------------------------------------------------------------------------- counting

class SpecGen:
    """A random small .spec (inputs, predicates, a safety property, a region) together with a
    numpy evaluator of each formula over every point of the domain."""

    def __init__(self, rng):
        self.rng = rng
        self.names, self.kinds, self.grids, self.decls, self.steps = [], [], [], [], []
        self._inputs()
        mesh = np.meshgrid(*self.grids, indexing="ij")
        self.X = np.stack([m.ravel() for m in mesh], axis=1)  # feature j = scalar input j
        self.cols = {nm: self.X[:, j] for j, nm in enumerate(self.names)}

    def _inputs(self):
        rng = self.rng
        budget = 4000
        size = 1
        for d in range(int(rng.integers(1, 5))):
            kind = pick(rng, ["bool", "int", "real"])
            count = int(rng.integers(1, 4)) if rng.random() < 0.4 else 0
            step = 1.0
            if kind == "bool":
                grid, typ = np.array([0.0, 1.0]), "bool"
            elif kind == "int":
                lo = int(rng.integers(-3, 3))
                hi = lo + int(rng.integers(0, 6))
                grid, typ = np.arange(lo, hi + 1, dtype=np.float64), f"int[{lo}, {hi}]"
            else:
                step = float(pick(rng, [0.25, 0.5, 1.0, 0.125, 0.1]))
                lo = float(pick(rng, [-1.0, 0.0, -0.5, 0.25]))
                hi = lo + float(pick(rng, [0.0, 0.5, 1.0, 1.5, 0.3]))
                n = math.floor((hi - lo) / step * (1 + 1e-12) + 1e-9) + 1
                grid = lo + np.arange(n, dtype=np.float64) * step
                typ = f"real[{lo!r}, {hi!r}] step {step!r}"
            k = max(count, 1)
            if size * len(grid) ** k > budget:
                continue
            size *= len(grid) ** k
            name = f"v{d}"
            self.decls.append(f"input {name}{f'[{count}]' if count else ''} : {typ};")
            for i in range(k):
                self.names.append(f"{name}[{i}]" if count else name)
                self.kinds.append(kind)
                self.grids.append(grid)
                self.steps.append(step)
            if count:
                self.arrays = getattr(self, "arrays", []) + [(name, count, kind)]
        if not self.names:
            self.decls.append("input b : bool;")
            self.names, self.kinds, self.grids = ["b"], ["bool"], [np.array([0.0, 1.0])]
            self.steps = [1.0]

    # Expressions are (text, function of the column dict) pairs.
    def boolean(self, depth):
        rng = self.rng
        bools = [nm for nm, k in zip(self.names, self.kinds) if k == "bool"]
        choice = pick(rng, ["var", "cmp", "cmp", "and", "or", "not", "implies", "const", "ite",
                            "quant"] if depth > 0 else ["var", "cmp", "const"])
        if choice == "var" and bools:
            nm = pick(rng, bools)
            return nm, lambda c, nm=nm: c[nm] != 0
        if choice == "const":
            v = bool(rng.random() < 0.5)
            return ("true" if v else "false"), lambda c, v=v: np.full(len(self.X), v)
        if choice in ("and", "or", "implies"):
            (ta, fa), (tb, fb) = self.boolean(depth - 1), self.boolean(depth - 1)
            op = {"and": "and", "or": "or", "implies": "=>"}[choice]
            fn = {"and": lambda c: fa(c) & fb(c), "or": lambda c: fa(c) | fb(c),
                  "implies": lambda c: ~fa(c) | fb(c)}[choice]
            return f"({ta} {op} {tb})", fn
        if choice == "not":
            ta, fa = self.boolean(depth - 1)
            return f"(not {ta})", lambda c: ~fa(c)
        if choice == "ite":
            (tc, fc), (ta, fa), (tb, fb) = (self.boolean(depth - 1), self.boolean(depth - 1),
                                            self.boolean(depth - 1))
            return f"(if {tc} then {ta} else {tb})", lambda c: np.where(fc(c), fa(c), fb(c))
        if choice == "quant" and getattr(self, "arrays", None):
            name, count, kind = pick(rng, self.arrays)
            q = pick(rng, ["forall", "exists"])
            bound = pick(rng, [0.0, 0.5, 1.0, -1.0])
            op = pick(rng, [">=", "<", "=="])
            body = f"{name}[i] {op} {bound!r}"
            ops = {">=": np.greater_equal, "<": np.less, "==": np.equal}
            parts = lambda c: [ops[op](c[f"{name}[{i}]"], bound) for i in range(count)]
            fn = (lambda c: np.logical_and.reduce(parts(c))) if q == "forall" else \
                (lambda c: np.logical_or.reduce(parts(c)))
            return f"({q} i in 0..{count - 1} : {body})", fn
        (ta, fa), (tb, fb) = self.number(depth - 1), self.number(depth - 1)
        op = pick(rng, ["==", "!=", "<", "<=", ">", ">="])
        ops = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
               ">": np.greater, ">=": np.greater_equal}
        return f"({ta} {op} {tb})", lambda c: ops[op](fa(c), fb(c))

    def number(self, depth):
        rng = self.rng
        choice = pick(rng, ["var", "var", "const", "add", "sub", "scale", "neg", "sum"]
                      if depth > 0 else ["var", "var", "const"])
        if choice == "var":
            nm = pick(rng, self.names)
            return nm, lambda c, nm=nm: c[nm].astype(np.float64)
        if choice == "const":
            v = float(pick(rng, [0, 1, 2, -1, 0.5, 0.25, -0.75, 3, 0.1]))
            v = int(v) if v == int(v) and rng.random() < 0.7 else v
            return repr(v), lambda c, v=v: np.full(len(self.X), float(v))
        if choice in ("add", "sub"):
            (ta, fa), (tb, fb) = self.number(depth - 1), self.number(depth - 1)
            if choice == "add":
                return f"({ta} + {tb})", lambda c: fa(c) + fb(c)
            return f"({ta} - {tb})", lambda c: fa(c) - fb(c)
        if choice == "scale":
            k = float(pick(rng, [2, 3, -1, 0.5, 4]))
            ta, fa = self.number(depth - 1)
            return f"({k!r} * {ta})", lambda c: k * fa(c)
        if choice == "neg":
            ta, fa = self.number(depth - 1)
            return f"(-{ta})", lambda c: -fa(c)
        if getattr(self, "arrays", None):
            name, count, _ = pick(rng, self.arrays)
            return (f"(sum i in 0..{count - 1} : {name}[i])",
                    lambda c: sum(c[f"{name}[{i}]"].astype(np.float64) for i in range(count)))
        nm = pick(rng, self.names)
        return nm, lambda c, nm=nm: c[nm].astype(np.float64)


def _count_model(rng, X, truth):
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier
    n = len(X)
    idx = rng.choice(n, max(2, min(n, int(rng.integers(10, 200)))), replace=True)
    y = truth[idx].astype(int)
    noise = rng.random(len(y)) < pick(rng, [0.0, 0.1, 0.5])
    y[noise] = 1 - y[noise]
    if y.min() == y.max():
        y[0] = 1 - y[1]  # two classes, so the model is binary
    seed = int(rng.integers(1 << 30))
    kind = pick(rng, ["tree", "tree", "forest", "boosted"])
    if kind == "tree":
        est = DecisionTreeClassifier(max_depth=int(rng.integers(1, 8)), random_state=seed)
    elif kind == "forest":
        est = RandomForestClassifier(n_estimators=int(rng.integers(1, 6)),
                                     max_depth=int(rng.integers(1, 6)), random_state=seed)
    else:
        est = GradientBoostingClassifier(n_estimators=int(rng.integers(1, 6)),
                                         max_depth=int(rng.integers(1, 4)), random_state=seed)
    return est.fit(X[idx], y), kind


def _count_check(case, ours, theirs):
    if (case.args[2] == "exact-cnf" and isinstance(ours.error, ValueError)
            and "rounded in floating point" in str(ours.error)):
        return "skip: exact-cnf refuses arithmetic on a non-binary grid step (docs/count.md)"
    return None


def _count_ours(est, spec, method):
    import assay.count
    import assay.models
    r = assay.count.count(assay.models.from_sklearn(est), spec, method=method)
    labels = [[l[k] for k in ("tp", "fp", "tn", "fn")] for l in r["labels"]]
    safety = [[s["satisfied"], s["violated"]] for s in r["safety"]]
    regions = [[g["total"], g["count"]] for g in r["regions"]]
    return [r["domain_size"], labels, safety, regions]


def gen_count(rng):
    g = SpecGen(rng)
    depth = int(rng.integers(1, 4))
    tp, fp = g.boolean(depth)
    tq, fq = g.boolean(depth)
    truth = fp(g.cols)
    est, kind = _count_model(rng, g.X, truth)
    method = pick(rng, ["auto", "auto", "enumerate", "structural", "exact-cnf"])
    # score[k] reads real-valued sums, which the CNF encoder refuses (docs/count.md).
    post_kind = pick(rng, ["label", "label0", "pred", "score"] if kind == "tree" and
                     method != "exact-cnf" else ["label", "label0", "pred"])
    post = {"label": "label == 1", "label0": "label == 0", "pred": "(label == 1 or P)",
            "score": "score[1] >= 0.5"}[post_kind]
    center = [float(pick(rng, list(grid))) for grid in g.grids]
    eps = float(pick(rng, [0, 0.5, 1, 2]))
    region_label = int(rng.integers(0, 2))
    spec = "\n".join(g.decls + [f"pred P = {tp};", f"pred Q = {tq};", "truth 1 = P;",
                                f"safety S = Q => {post};",
                                f"region R = ball([{', '.join(repr(v) for v in center)}], {eps!r})"
                                f" label {region_label};"]) + "\n"
    return Case("count", [est, spec, method], ours=_count_ours, check=_count_check,
                oracle=lambda est, spec, method: _count_oracle(est, g, truth, fq, post_kind,
                                                               center, eps, region_label),
                source=["import assay.count, assay.models",
                        "# est: see the spec; a fitted scikit-learn model", f"spec = {spec!r}"])


def _count_oracle(est, g, truth, fq, post_kind, center, eps, region_label):
    pred = est.predict(g.X) == 1
    t = truth.astype(bool)
    cells = lambda p, q: [int(np.sum(p & q)), int(np.sum(p & ~q)), int(np.sum(~p & ~q)),
                          int(np.sum(~p & q))]
    labels = [cells(~pred, ~t), cells(pred, t)]
    pre = fq(g.cols)
    if post_kind == "label":
        post = pred
    elif post_kind == "label0":
        post = ~pred
    elif post_kind == "pred":
        post = pred | t
    else:
        post = est.predict_proba(g.X)[:, 1] >= 0.5
    safety = [[int(np.sum(pre & post)), int(np.sum(pre & ~post))]]
    # Grid indices within eps of the center, with the spec's tolerance of 1e-9 steps for
    # rounding (a centre 0.1 + 0.2 still reaches 0.8 at eps 0.5; docs/count.md).
    inside = np.ones(len(g.X), dtype=bool)
    for j, grid in enumerate(g.grids):
        lo, step = grid[0], g.steps[j]
        k = np.searchsorted(grid, g.X[:, j])
        first = math.ceil((center[j] - eps - lo) / step - 1e-9)
        last = math.floor((center[j] + eps - lo) / step + 1e-9)
        inside &= (k >= first) & (k <= last)
    predicted = pred if region_label == 1 else ~pred
    regions = [[int(inside.sum()), int(np.sum(inside & predicted))]]
    return [len(g.X), labels, safety, regions]


# ============================================================================ driver

FAMILIES = {
    "classification": gen_classification,
    "ranking": gen_ranking,
    "regression": gen_regression,
    "calibration": gen_calibration,
    "ttest": gen_ttest,
    "count": gen_count,
}


class Tally:
    def __init__(self):
        self.cases, self.agree, self.skipped = {}, {}, {}
        self.differences, self.mismatches = {}, []

    def add(self, family, verdict):
        self.cases[family] = self.cases.get(family, 0) + 1
        if verdict is None:
            self.agree[family] = self.agree.get(family, 0) + 1
        elif verdict.startswith("difference #"):
            self.differences[verdict] = self.differences.get(verdict, 0) + 1
        elif verdict.startswith("skip:"):
            self.skipped[family] = self.skipped.get(family, 0) + 1

    def summary(self, seconds):
        total = sum(self.cases.values())
        lines = [f"differential: {total} cases in {seconds:.1f} s, "
                 f"{len(self.mismatches)} mismatches"]
        for f in self.cases:
            lines.append(f"  {f:15s} {self.cases[f]:7d} cases, {self.agree.get(f, 0):7d} agree, "
                         f"{self.skipped.get(f, 0):5d} not comparable")
        by_name = {}
        for family, i, name, verdict in self.mismatches:
            by_name.setdefault(name, []).append(i)
        for name, cases in sorted(by_name.items()):
            lines.append(f"  MISMATCH {name}: {len(cases)} cases (first: case {cases[0]})")
        for d in sorted(self.differences):
            lines.append(f"  documented {d} (docs/conventions.md): {self.differences[d]} cases")
        return "\n".join(lines)


def run_case(family, seed, i):
    rng = np.random.default_rng([seed, i])
    case = FAMILIES[family](rng)
    verdict, ours, theirs = case.run()
    return case, verdict, ours, theirs


def report_mismatch(family, seed, i, case, verdict, out=sys.stdout):
    small = shrink(case)
    small_verdict, ours, theirs = small.run()
    if not is_mismatch(small_verdict):  # shrinking is best effort; keep the original
        small, (small_verdict, ours, theirs) = case, case.run()
    print(f"\nMISMATCH family {family} case {i} (re-run: --seed {seed} --first {i} --cases 1 "
          f"--family {family}): {case.name}: {small_verdict}", file=out)
    print(f"  assay:  {ours.describe()}", file=out)
    print(f"  oracle: {theirs.describe()}", file=out)
    print("reproducer:\n" + small.reproducer() + "\n", file=out, flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.0, help="time budget (0 = none)")
    parser.add_argument("--cases", type=int, default=0,
                        help="number of cases (0 = 200 per family without --seconds)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES))
    parser.add_argument("--keep-going", action="store_true",
                        help="report every mismatch instead of stopping at the first")
    parser.add_argument("--list", action="store_true", help="list the families and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(FAMILIES))
        return 0
    if args.seconds < 0 or args.cases < 0:
        parser.error("--seconds and --cases must be >= 0")
    families = args.family or list(FAMILIES)
    limit = args.cases or (0 if args.seconds else 200 * len(families))
    tally, start, seen = Tally(), time.monotonic(), set()
    for j in itertools.count():
        if limit and j >= limit:
            break
        if args.seconds and time.monotonic() - start > args.seconds:
            break
        i = args.first + j
        family = families[i % len(families)]
        case, verdict, _, _ = run_case(family, args.seed, i)
        tally.add(family, verdict)
        if is_mismatch(verdict):
            key = (case.name, verdict.split(":")[0][:40])
            tally.mismatches.append((family, i, case.name, verdict))
            if key not in seen:
                seen.add(key)
                report_mismatch(family, args.seed, i, case, verdict)
            if not args.keep_going:
                break
        if (j + 1) % 1000 == 0:
            print(f"differential: {j + 1} cases, {len(tally.mismatches)} mismatches, "
                  f"{time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    print(tally.summary(time.monotonic() - start))
    return 1 if tally.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
