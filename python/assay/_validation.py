"""The input contract of assay.metrics' scikit-learn twins (scikit-learn 1.2.1's, as its own
tests pin it): which arrays are labels, indicators or scores, which inputs are refused and with
which exception and message. Messages begin with scikit-learn's wording; assay may add where
(index) after it. Every check is O(n) (no sorting), so small inputs stay cheap and large ones
are bounded by memory bandwidth; the numbers themselves are computed by the compiled library.

Target kinds (scikit-learn's type_of_target, except that "binary" and "multiclass" 1-D labels
are one kind, "labels", told apart later by the number of classes of y_true and y_pred
together, which is how the metrics use them).
"""
import numbers
import warnings
from collections.abc import Sequence

import numpy as np

from . import _assay
from ._assay import AssayError

LABELS = "labels"
MULTILABEL = "multilabel-indicator"


def is_sparse(x):
    return type(x).__module__.startswith("scipy.sparse")


def num_samples(x):
    """scikit-learn's _num_samples: len, or shape[0]; TypeError for non-collections."""
    message = "Expected sequence or array-like, got %s" % type(x)
    if hasattr(x, "fit") and callable(x.fit):
        raise TypeError(message)
    shape = getattr(x, "shape", None)
    if shape is not None:
        if len(shape) == 0:
            raise TypeError("Singleton array %r cannot be considered a valid collection." % x)
        if isinstance(shape[0], numbers.Integral):
            return shape[0]
    if not hasattr(x, "__len__"):
        if hasattr(x, "__array__"):
            return num_samples(np.asarray(x))
        raise TypeError(message)
    try:
        return len(x)
    except TypeError as e:
        raise TypeError(message) from e


def check_consistent_length(*arrays):
    """ValueError like scikit-learn's when the arrays (None skipped) differ in length."""
    lengths = [num_samples(x) for x in arrays if x is not None]
    if len(set(lengths)) > 1:
        raise AssayError("Found input variables with inconsistent numbers of samples: %r"
                         % [int(n) for n in lengths])


def as_array(y):
    """np.asarray, with ragged nested sequences as object arrays (as scikit-learn does)."""
    if isinstance(y, np.ndarray):
        return y
    if is_sparse(y):
        return y
    numpy_dtype = getattr(getattr(y, "dtype", None), "numpy_dtype", None)
    if numpy_dtype is not None and hasattr(y, "to_numpy"):
        # pandas nullable dtypes (Int64, Float64, boolean) without missing values are their
        # numpy dtype, as scikit-learn >= 1.3 reads them
        try:
            return y.to_numpy(dtype=numpy_dtype)
        except (TypeError, ValueError):
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.VisibleDeprecationWarning)
        try:
            return np.asarray(y)
        except (np.VisibleDeprecationWarning, ValueError):
            return np.asarray(y, dtype=object)


def _check_array_like(y):
    valid = (isinstance(y, Sequence) or is_sparse(y) or hasattr(y, "__array__")) and \
        not isinstance(y, str)
    if not valid:
        raise AssayError("Expected array-like (array or non-string sequence), got %r" % (y,))
    if y.__class__.__name__ in ("SparseSeries", "SparseArray"):
        raise AssayError("y cannot be class 'SparseSeries' or 'SparseArray'")


def _check_not_sequences(a):
    if a.ndim == 0 or a.shape[0] == 0:
        return
    first = a[0]
    if not hasattr(first, "__array__") and isinstance(first, Sequence) and \
            not isinstance(first, str):
        raise AssayError("You appear to be using a legacy multi-label data representation. "
                         "Sequence of sequences are no longer supported; use a binary array or "
                         "sparse matrix instead - the MultiLabelBinarizer transformer can convert "
                         "to this format.")


def non_finite_error(name, nan, where=""):
    """scikit-learn's message for a NaN / infinity in an input, with where it was."""
    prefix = f"Input {name} contains " if name else "Input contains "
    what = "NaN" if nan else "infinity or a value too large for dtype('float64')"
    return AssayError(f"{prefix}{what}.{where}")


def check_finite(a, name):
    """Raises scikit-learn's ValueError when the float array `a` has a NaN or an infinity (NaN
    reported first, as scikit-learn does), naming the first index."""
    if a.dtype.kind not in "fc" or a.size == 0:
        return
    flat = a.reshape(-1)
    if a.dtype == np.float64 and flat.flags.c_contiguous:
        nan_at, inf_at, _ = _assay.cls_inspect_float_labels(flat)
    else:
        finite = np.isfinite(flat)
        if finite.all():
            return
        nans = np.flatnonzero(np.isnan(flat))
        infs = np.flatnonzero(~finite & ~np.isnan(flat))
        nan_at = int(nans[0]) if nans.size else -1
        inf_at = int(infs[0]) if infs.size else -1
    if nan_at >= 0:
        raise non_finite_error(name, True, f" First at index {_index(a, nan_at)}.")
    if inf_at >= 0:
        raise non_finite_error(name, False, f" First at index {_index(a, inf_at)}.")


def _index(a, flat_index):
    if a.ndim <= 1:
        return flat_index
    return tuple(int(i) for i in np.unravel_index(flat_index, a.shape))


def _float_kind(a, name):
    """"labels" for integral finite floats, "continuous" for others; NaN/inf raise."""
    flat = a.reshape(-1)
    if a.dtype == np.float64 and flat.flags.c_contiguous:
        nan_at, inf_at, integral = _assay.cls_inspect_float_labels(flat)
        if nan_at >= 0 or inf_at >= 0:
            where = nan_at if nan_at >= 0 else inf_at
            raise non_finite_error(name, nan_at >= 0, f" First at index {_index(a, where)}.")
        return integral
    with np.errstate(invalid="ignore"):
        integral = bool(np.all(flat == flat.astype(np.int64))) if flat.size else True
    if not integral:
        check_finite(a, name)
    return integral


def _few_integral_values(a):
    """True when `a` (2-D, numeric) holds at most two distinct values, all integers, i.e. is a
    multilabel indicator by scikit-learn's rule. O(n)."""
    if a.size == 0:
        return True
    if a.dtype.kind == "b":
        return True
    if a.dtype.kind == "f":
        flat = a.reshape(-1)
        with np.errstate(invalid="ignore"):
            lo, hi = np.nanmin(flat) if not np.isnan(flat).all() else np.nan, np.max(flat)
        if np.isnan(hi) or np.isnan(lo):
            return False
        values = (lo, hi)
        if any(v != np.trunc(v) or not np.isfinite(v) for v in values):
            return False
    elif a.dtype.kind in "iu":
        lo, hi = a.min(), a.max()
    else:
        return False
    if lo == hi:
        return True
    return int(np.count_nonzero(a == lo)) + int(np.count_nonzero(a == hi)) == a.size


def _sparse_kind(y, name):
    if y.ndim == 2 and y.shape[1] > 1:
        y = y.tocsr()
        data = y.data
        if data.size == 0:
            return MULTILABEL
        values = np.unique(data)
        integral = y.dtype.kind in "biu" or (y.dtype.kind == "f" and
                                             np.all(values.astype(int) == values))
        if (values.size == 1 or (values.size == 2 and 0 in values)) and integral:
            return MULTILABEL
    if min(y.shape) == 0:
        return "unknown"
    data = y.tocsr().data
    suffix = "-multioutput" if y.shape[1] > 1 else ""
    if y.dtype.kind == "f" and not _float_kind(data, name):
        return "continuous" + suffix
    return "multiclass" + suffix if suffix else LABELS


def target_kind(y, name=""):
    """(kind, array) of a target: kind is LABELS (1-D labels, column vectors squeezed),
    MULTILABEL, "continuous", "continuous-multioutput", "multiclass-multioutput" or "unknown";
    the array is the input as numpy (or scipy.sparse for sparse input). Raises scikit-learn's
    errors for non-array-likes, legacy sequences of sequences and NaN / infinity."""
    if type(y) is not np.ndarray:
        _check_array_like(y)
    a = as_array(y)
    if is_sparse(a):
        return _sparse_kind(a, name), a
    _check_not_sequences(a)
    if a.ndim == 2 and a.shape[1] > 1:
        if a.dtype.kind in "biuf" and _few_integral_values(a):
            return MULTILABEL, a
    if a.ndim not in (1, 2):
        return "unknown", a
    if min(a.shape) == 0:
        return (LABELS if a.ndim == 1 else "unknown"), a
    kind = a.dtype.kind
    if kind == "O" and not isinstance(a.flat[0], str):
        return "unknown", a
    multioutput = a.ndim == 2 and a.shape[1] > 1
    if kind == "f" and not _float_kind(a, name):
        return ("continuous-multioutput" if multioutput else "continuous"), a
    if kind not in "biufOUS":
        return "unknown", a
    if multioutput:
        return "multiclass-multioutput", a
    return LABELS, a.reshape(-1) if a.ndim == 2 else a


def type_name(kind, a):
    """scikit-learn's type_of_target name of a target (resolves LABELS to binary/multiclass)."""
    if kind != LABELS:
        return kind
    if a.dtype.kind in "biuf" and a.size:
        # At most two distinct values without sorting: O(n).
        lo, hi = a.min(), a.max()
        if lo == hi or np.count_nonzero(a == lo) + np.count_nonzero(a == hi) == a.size:
            return "binary"
        return "multiclass"
    try:
        return "multiclass" if len(np.unique(a)) > 2 else "binary"
    except TypeError:
        return "multiclass" if len(set(a.tolist())) > 2 else "binary"


def is_text(a):
    if a.dtype.kind in "US":
        return True
    if a.dtype.kind == "O":
        return a.size > 0 and isinstance(a.flat[0], str)
    return False


def _has_text(a):
    return a.dtype.kind in "US" or (a.dtype.kind == "O" and
                                    any(isinstance(v, str) for v in a.tolist()))


def _has_number(a):
    return a.dtype.kind in "biuf" or (a.dtype.kind == "O" and
                                      any(not isinstance(v, str) for v in a.tolist()))


def check_label_types(y_true, y_pred):
    """scikit-learn's errors for strings mixed with numbers: TypeError when both arrays are
    binary and their union cannot be sorted (an object array is involved), else ValueError."""
    if y_true.size == 0 or y_pred.size == 0:
        return
    if y_true.dtype.kind in "biuf" and y_pred.dtype.kind in "biuf":
        return
    text = _has_text(y_true) or _has_text(y_pred)
    number = _has_number(y_true) or _has_number(y_pred)
    if not (text and number):
        return
    both_binary = type_name(LABELS, y_true) == "binary" and type_name(LABELS, y_pred) == "binary"
    involves_object = "O" in (y_true.dtype.kind, y_pred.dtype.kind)
    if both_binary and involves_object:
        raise TypeError(
            "Labels in y_true and y_pred should be of the same type. Got y_true=%s and y_pred=%s."
            " Make sure that the predictions provided by the classifier coincides with the true "
            "labels." % (_unique_for_message(y_true), _unique_for_message(y_pred)))
    raise AssayError("Mix of label input types (string and number)")


def _unique_for_message(a):
    try:
        return np.unique(a)
    except TypeError:
        return np.array(sorted(set(a.tolist()), key=str), dtype=object)


def indicator(a):
    """A multilabel indicator (dense or sparse) as a C-contiguous uint8 0/1 matrix."""
    if is_sparse(a):
        a = a.toarray()
    if a.dtype == np.uint8 and a.flags.c_contiguous:
        if a.size == 0 or a.max() <= 1:
            return a
    return np.ascontiguousarray(a != 0, dtype=np.uint8)


class Targets:
    """Checked y_true / y_pred of a classification metric (scikit-learn's _check_targets).

    kind: LABELS (1-D arrays y_true, y_pred) or MULTILABEL (n x L uint8 indicators)."""

    __slots__ = ("kind", "y_true", "y_pred")

    def __init__(self, kind, y_true, y_pred):
        self.kind = kind
        self.y_true = y_true
        self.y_pred = y_pred

    @property
    def multilabel(self):
        return self.kind == MULTILABEL


def check_targets(y_true, y_pred, sample_weight=None):
    """scikit-learn's _check_targets (plus the sample_weight length): refuses a mix of target
    types, continuous and multioutput targets, NaN / infinity and strings mixed with numbers."""
    check_consistent_length(y_true, y_pred, sample_weight)
    kind_true, a = target_kind(y_true, "y_true")
    kind_pred, b = target_kind(y_pred, "y_pred")
    if kind_true != kind_pred:
        name_true, name_pred = type_name(kind_true, a), type_name(kind_pred, b)
        if {name_true, name_pred} != {"binary", "multiclass"}:
            raise AssayError("Classification metrics can't handle a mix of %s and %s targets"
                             % (name_true, name_pred))
    if kind_true not in (LABELS, MULTILABEL):
        raise AssayError("%s is not supported" % type_name(kind_true, a))
    if kind_true == MULTILABEL:
        if a.shape[1] != b.shape[1]:
            raise AssayError("Multi-label binary indicator input with different numbers of labels")
        return Targets(MULTILABEL, indicator(a), indicator(b))
    check_label_types(a, b)
    return Targets(LABELS, a, b)


def check_sample_weight(sample_weight, n, name="sample_weight"):
    """None, or sample weights as a float64 1-D array of length n (scalars broadcast, as
    scikit-learn's _check_sample_weight); finite and >= 0 (assay refuses negative weights)."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Number):
        w = np.full(n, float(sample_weight))
    else:
        w = np.asarray(sample_weight)
        if w.dtype.kind == "c":
            raise AssayError("Complex data not supported: sample_weight")
        if w.dtype.kind not in "biuf":
            try:
                w = w.astype(np.float64)
            except (TypeError, ValueError):
                raise AssayError(f"{name} must be numeric, found dtype {w.dtype}") from None
        if w.ndim != 1:
            raise AssayError("Sample weights must be 1D array or scalar")
        if w.shape[0] != n:
            raise AssayError("Found input variables with inconsistent numbers of samples: "
                             f"[{n}, {n}, {w.shape[0]}]")
        w = np.ascontiguousarray(w, dtype=np.float64)
    # scikit-learn >= 1.6 refuses NaN and infinite weights with these words (assay: the index)
    check_finite(w, "sample_weight")
    return w


def integral_weights(sample_weight):
    """True when weights are absent or of an integer / boolean dtype (counts stay integers)."""
    if sample_weight is None:
        return True
    return np.asarray(sample_weight).dtype.kind in "biu"


def column_or_1d(y, name="y"):
    a = as_array(y)
    if is_sparse(a):
        a = a.toarray()
    if a.ndim == 1:
        return a
    if a.ndim == 2 and a.shape[1] == 1:
        return a.reshape(-1)
    raise AssayError(f"{name} should be a 1d array, got an array of shape {a.shape} instead.")


def float_array(x, name, *, ensure_2d=False, allow_nd=False, min_samples=1, finite=True):
    """scikit-learn's check_array(x, dtype='numeric'): a C-contiguous float64 array; strings and
    complex numbers refused; NaN / infinity refused unless finite=False (the caller's compiled
    code checks them then)."""
    if is_sparse(x):
        raise TypeError("A sparse matrix was passed, but dense data is required. Use X.toarray() "
                        "to convert to a dense numpy array.")
    a = x if isinstance(x, np.ndarray) else as_array(x)
    kind = a.dtype.kind
    if kind in "USV":
        raise AssayError("dtype='numeric' is not compatible with arrays of bytes/strings. Convert "
                         "your data to numeric values explicitly instead.")
    if kind == "c":
        raise AssayError("Complex data not supported\n{}\n".format(a))
    if kind == "O":
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise AssayError(f"{name} must hold numbers: {e}") from None
    if a.ndim == 0:
        raise AssayError(f"Expected 2D array, got scalar array instead:\narray={a}.\n"
                         if ensure_2d else
                         f"Singleton array {a!r} cannot be considered a valid collection.")
    if ensure_2d and a.ndim == 1:
        raise AssayError(f"Expected 2D array, got 1D array instead:\narray={a}.\nReshape your "
                         "data either using array.reshape(-1, 1) if your data has a single "
                         "feature or array.reshape(1, -1) if it contains a single sample.")
    if a.ndim >= 3 and not allow_nd:
        raise AssayError(f"Found array with dim {a.ndim}. None expected <= 2.")
    if min_samples and a.shape[0] < min_samples:
        raise AssayError(f"Found array with {a.shape[0]} sample(s) (shape={a.shape}) while a "
                         f"minimum of {min_samples} is required.")
    a = np.ascontiguousarray(a, dtype=np.float64)
    if finite:
        check_finite(a, name)
    return a
