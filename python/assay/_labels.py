"""Label encoding shared by the label-based metrics: classes sorted like np.unique, codes
0..K-1 (the layout of include/assay/metrics/labels.hpp), and scikit-learn's set-wise label
rules (binary average, pos_label, labels=)."""
import warnings

import numpy as np

from . import _assay
from ._assay import AssayError, AssayWarning
from ._validation import LABELS, MULTILABEL, is_text

AVERAGES = (None, "micro", "macro", "weighted", "samples")


def encode_labels(y_true, y_pred=None, labels=None):
    """(classes, codes of y_true, codes of y_pred) with classes = the sorted union of y_true,
    y_pred and `labels`; codes_pred is None when y_pred is None. Numbers go through the compiled
    O(n) encoder, strings and objects through np.unique."""
    arrays = [y_true] + ([y_pred] if y_pred is not None else [])
    extra = None if labels is None else np.asarray(labels)
    parts = arrays + ([extra] if extra is not None else [])
    sizes = [len(a) for a in parts]
    if any(a.dtype.kind not in "biuf" for a in parts if a.size):
        kinds = {is_text(a) for a in parts if a.size}
        if len(kinds) > 1:
            raise AssayError("Mix of label input types (string and number)")
        joined = np.concatenate([a.astype(object) for a in parts])
        try:
            classes, inverse = np.unique(joined, return_inverse=True)
        except TypeError:
            raise AssayError("Mix of label input types (string and number)") from None
        if all(a.dtype.kind == "U" for a in parts if a.size):
            classes = classes.astype(str)
        inverse = inverse.astype(np.int32)
    else:
        if all(a.dtype.kind in "biu" for a in parts):
            work, encode = np.int64, _assay.cls_encode_i64
        else:
            work, encode = np.float64, _assay.cls_encode_f64
        out_dtype = np.result_type(*parts)
        if len(parts) == 1:
            classes, c1, _ = encode(np.asarray(parts[0], dtype=work), np.empty(0, dtype=work),
                                    "y_true", "y_pred")
            return classes.astype(out_dtype, copy=False), c1, None
        if len(parts) == 2 and extra is None:
            classes, c1, c2 = encode(np.asarray(parts[0], dtype=work),
                                     np.asarray(parts[1], dtype=work), "y_true", "y_pred")
            return classes.astype(out_dtype, copy=False), c1, c2
        first = np.concatenate([np.asarray(a, dtype=work) for a in parts[:1] + parts[2:]])
        second = np.asarray(parts[1], dtype=work)
        classes, c1, c2 = encode(first, second, "y_true", "labels")
        inverse = np.concatenate([c1[:sizes[0]], c2, c1[sizes[0]:]])
        classes = classes.astype(out_dtype, copy=False)
    codes = np.split(inverse, np.cumsum(sizes)[:-1])
    return classes, codes[0], (codes[1] if y_pred is not None else None)


def agreement(y_true, y_pred, w):
    """(matched weight, total weight, matched / total, mismatched / total) of two numeric 1-D
    label arrays compared value by value in one compiled pass (no encoding); None for other
    dtypes. The fractions are computed from rescaled weights, so they are finite where the
    weights' sums overflow."""
    kinds = y_true.dtype.kind + y_pred.dtype.kind
    if all(k in "biu" for k in kinds):
        return _assay.lm_agreement_i64(np.asarray(y_true, dtype=np.int64),
                                       np.asarray(y_pred, dtype=np.int64), w)
    if all(k in "biuf" for k in kinds):
        return _assay.lm_agreement_f64(np.asarray(y_true, dtype=np.float64),
                                       np.asarray(y_pred, dtype=np.float64), w)
    return None


def codes_of(classes, values):
    """Positions of `values` in the sorted `classes` (all present)."""
    values = np.asarray(values)
    if classes.dtype.kind == "O" or values.dtype.kind == "O":
        lookup = {v: i for i, v in enumerate(classes.tolist())}
        return np.array([lookup[v] for v in values.tolist()], dtype=np.int32)
    return np.searchsorted(classes, values).astype(np.int32)


def y_type(targets, classes):
    """scikit-learn's type of checked targets: binary, multiclass or multilabel-indicator."""
    if targets.kind == MULTILABEL:
        return MULTILABEL
    return "multiclass" if len(classes) > 2 else "binary"


def present_labels(targets):
    """unique_labels(y_true, y_pred) of checked targets, as a numpy array."""
    if targets.kind == MULTILABEL:
        return np.arange(targets.y_true.shape[1])
    return encode_labels(targets.y_true, targets.y_pred)[0]


def zero_division_name(zero_division):
    if isinstance(zero_division, str) and zero_division == "warn":
        return "warn"
    if isinstance(zero_division, (int, float, np.number)) and not isinstance(zero_division, bool):
        if np.isnan(zero_division):
            return "nan"
        if zero_division in (0, 1):
            return str(int(zero_division))
    raise AssayError('Got zero_division={0}. Must be one of ["warn", 0, 1, np.nan]'.format(
        zero_division))


def check_average(average):
    """average= of the label metrics, by metrics::parse_average's rule and words."""
    if average is not None:  # "none" is the library's spelling of None, not Python's
        text = average if isinstance(average, str) and average != "none" else repr(average)
        _assay._parse_average(text)


def set_wise_labels(targets, classes, average, labels, pos_label):
    """scikit-learn's _check_set_wise_labels: the labels to score (None = all) for the average;
    average='binary' needs binary targets and a present pos_label (or fewer than 2 classes)."""
    check_average(average)
    kind = y_type(targets, classes)
    if average == "binary":
        if kind == "binary":
            present = classes.tolist()
            if pos_label not in present and len(present) >= 2:
                raise AssayError(f"pos_label={pos_label} is not a valid label. It should be one "
                                 f"of {present}")
            return [pos_label]
        options = list(AVERAGES)
        if kind == "multiclass":
            options.remove("samples")
        raise AssayError("Target is %s but average='binary'. Please choose another average "
                         "setting, one of %r." % (kind, options))
    if pos_label not in (None, 1):
        warnings.warn("Note that pos_label (set to %r) is ignored when average != 'binary' (got "
                      "%r). You may use labels=[pos_label] to specify a single positive class."
                      % (pos_label, average), AssayWarning, stacklevel=4)
    return labels


def multilabel_columns(targets, labels):
    """Indicator columns selected by `labels` (indices in [0, L)), scikit-learn's errors for
    indices out of range; None = all columns."""
    if labels is None:
        return targets.y_true, targets.y_pred
    listed = np.asarray(labels)
    n_labels = targets.y_true.shape[1]
    if listed.size and not np.array_equal(listed, np.arange(n_labels)):
        if listed.max() > n_labels - 1:
            raise AssayError("All labels must be in [0, n labels) for multilabel targets. Got "
                             "%d > %d" % (listed.max(), n_labels - 1))
        if listed.min() < 0:
            raise AssayError("All labels must be in [0, n labels) for multilabel targets. Got "
                             "%d < 0" % listed.min())
    return (np.ascontiguousarray(targets.y_true[:, listed]),
            np.ascontiguousarray(targets.y_pred[:, listed]))


def selected_codes(targets, labels):
    """(classes, codes_true, codes_pred, select) of 1-D targets: `select` indexes the scored
    labels in `classes` (all classes, in sorted order, when labels is None)."""
    if labels is None:
        classes, ct, cp = encode_labels(targets.y_true, targets.y_pred)
        return classes, ct, cp, np.arange(len(classes), dtype=np.int32)
    listed = np.asarray(labels)
    classes, ct, cp = encode_labels(targets.y_true, targets.y_pred, labels=listed)
    return classes, ct, cp, codes_of(classes, listed)


def is_labels(targets):
    return targets.kind == LABELS
