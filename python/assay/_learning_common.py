"""What assay.soak, assay.learners and the SOAK splitter share (private): turning the caller's
arrays into the compiled code's (codes, seeds, numeric copies, learner parameters as JSON) and its
column dicts into DataFrames, and the SOAK statistics of a results table (which the SOAK error
chart draws without importing assay.soak)."""
import json
import numbers

import numpy as np

from . import _assay


def frame(columns):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a Debian dependency of the project
        return columns
    return pd.DataFrame({k: (list(v) if isinstance(v, list) else v) for k, v in columns.items()})


def numeric(values, what):
    """float64 C-contiguous copy, or AssayError (not numpy's bare ValueError) for text."""
    try:
        return np.ascontiguousarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        found = np.asarray(values).dtype
        raise _assay.AssayError(f"{what} must be numeric, found dtype {found}") from None


def unique_codes(values, what):
    """Sorted distinct values and int32 codes of a 1-D array."""
    values = np.asarray(values)
    if values.ndim != 1:
        raise _assay.AssayError(f"{what} must be 1-D, found {values.ndim} dimensions")
    uniq, inverse = np.unique(values, return_inverse=True)
    return uniq, inverse.astype(np.int32)


def fold_codes(fold):
    """Given fold ids as int64: integers as they are (messages name the caller's values), any
    other values (strings, floats) by their sorted order, 1..K."""
    f = np.asarray(fold)
    if f.dtype.kind in "iu" and f.ndim == 1:
        return f.astype(np.int64)
    return unique_codes(f, "fold")[1].astype(np.int64) + 1


def seed(random_state):
    if random_state is None:
        return 1
    if isinstance(random_state, numbers.Integral):
        if random_state < 0:
            raise _assay.AssayError(f"random_state must be >= 0, found {random_state}")
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    raise _assay.AssayError(
        f"random_state must be None, an int, a RandomState or a Generator, found "
        f"{type(random_state).__name__}")


def learner_params_json(learner_params):
    """{"glmnet": {"alpha": 0.5}} as JSON text for the compiled code (numpy scalars and arrays
    become numbers and lists); None = every learner's defaults."""
    if learner_params is None:
        return ""
    if not isinstance(learner_params, dict) or not all(
            isinstance(v, dict) for v in learner_params.values()):
        raise _assay.AssayError(
            "learner_params must be a dict of dicts keyed by learner name "
            f"({{'glmnet': {{'alpha': 0.5}}}}), found {learner_params!r}")

    def plain(value):
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, np.ndarray):
            return value.tolist()
        raise TypeError(f"learner parameter value {value!r} is not JSON")

    try:
        return json.dumps({str(k): v for k, v in learner_params.items()}, default=plain)
    except (TypeError, ValueError) as e:
        raise _assay.AssayError(f"learner_params: {e}") from None


def as_columns(results):
    """Results (DataFrame or dict of columns) as a dict of lists/arrays for the compiled code."""
    if hasattr(results, "to_dict") and hasattr(results, "columns"):
        return {str(c): results[c].to_numpy() for c in results.columns}
    return dict(results)


def to_pyobj(columns):
    out = {}
    for k, v in columns.items():
        arr = np.asarray(v)
        if arr.dtype.kind in "biuf":
            out[k] = np.ascontiguousarray(arr, dtype=np.float64)
        else:
            out[k] = ["" if x is None or (isinstance(x, float) and np.isnan(x)) else str(x)
                      for x in arr.tolist()]
    return out


def soak_statistics(results, measure):
    """``_assay.soak_statistics`` of results (a DataFrame or dict of columns): a dict with
    "measure", "summaries" and "pvalues" (dicts of columns)."""
    return _assay.soak_statistics(to_pyobj(as_columns(results)), measure or "")
