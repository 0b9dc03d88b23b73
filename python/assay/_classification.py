"""Label-based classification metrics and calibration (scikit-learn 1.2.1 names, arguments,
defaults and return shapes). Thin wrappers: arguments are converted here, every number is
computed by the compiled library (src/metrics/{labels,confusion,classification,calibration}.cpp).
See docs/metrics_classification.md."""
import warnings

import numpy as np

from . import _assay
from ._assay import AssayError, AssayWarning

__all__ = [
    "confusion_matrix",
    "grouped_confusion_matrix",
    "accuracy_score",
    "balanced_accuracy_score",
    "matthews_corrcoef",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "f1_score",
    "fbeta_score",
    "classification_report",
    "binary_rates",
    "predict_labels",
    "calibration_error",
    "brier_score_loss",
    "log_loss",
]

_AVERAGES = (None, "micro", "macro", "weighted", "samples")


# ----------------------------------------------------------------------------- label handling

def _is_text(a):
    return a.dtype.kind in "OUS"


def _as_labels(y, name):
    """1-D label array (column vectors are flattened, like scikit-learn's column_or_1d)."""
    a = np.asarray(y)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a.ravel()
    if a.ndim != 1:
        raise AssayError(f"{name} must be a 1-D array of labels, found shape {a.shape}")
    if a.dtype.kind == "f":
        finite = a[~np.isnan(a)]
        bad = np.flatnonzero(finite != np.floor(finite))
        if bad.size:
            value = finite[bad[0]]
            raise AssayError(
                f"{name} contains the non-integer value {value!r}: classification metrics need "
                "class labels, not scores or probabilities")
    return a


def _kind_of_object(a):
    kinds = {isinstance(v, str) for v in a.tolist()}
    return kinds


def _check_mix(arrays):
    """Raises like scikit-learn's unique_labels for a mix of strings and numbers."""
    text = set()
    for a in arrays:
        if a.size == 0:
            continue
        if a.dtype.kind in "US":
            text.add(True)
        elif a.dtype.kind == "O":
            text |= _kind_of_object(a)
        else:
            text.add(False)
    if len(text) > 1:
        raise AssayError("Mix of label input types (string and number)")
    return text == {True}


def _encode_labels(y_true, y_pred=None, labels=None):
    """Encodes labels as int32 codes 0..K-1 into sorted classes (np.unique order).

    Returns (classes, codes_true, codes_pred); codes_pred is None when y_pred is None. With
    `labels`, classes = union of the data and `labels` (so every listed label has a code).
    Numbers go through the compiled O(n) encoder, strings/objects through np.unique.
    """
    arrays = [y_true] + ([y_pred] if y_pred is not None else [])
    extra = None if labels is None else np.asarray(labels)
    text = _check_mix(arrays + ([extra] if extra is not None else []))
    parts = arrays + ([extra] if extra is not None else [])
    sizes = [len(a) for a in parts]
    if text or any(a.dtype.kind == "O" for a in parts):
        joined = np.concatenate([a.astype(object) for a in parts])
        try:
            classes, inverse = np.unique(joined, return_inverse=True)
        except TypeError as e:
            raise AssayError(f"labels cannot be compared with each other: {e}") from None
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
            # The common case: no copies of the label arrays.
            classes, c1, c2 = encode(np.asarray(parts[0], dtype=work),
                                     np.asarray(parts[1], dtype=work), "y_true", "y_pred")
            return classes.astype(out_dtype, copy=False), c1, c2
        first = np.concatenate([np.asarray(a, dtype=work) for a in parts[:1] + parts[2:]])
        second = np.asarray(parts[1], dtype=work)
        classes, c1, c2 = encode(first, second, "y_true", "y_pred" if y_pred is not None
                                 else "labels")
        inverse = np.concatenate([c1[:sizes[0]], c2, c1[sizes[0]:]])
        classes = classes.astype(out_dtype, copy=False)
    codes = np.split(inverse, np.cumsum(sizes)[:-1])
    return classes, codes[0], (codes[1] if y_pred is not None else None)


def _codes_of(classes, values):
    """Positions of `values` in the sorted `classes` (all present)."""
    values = np.asarray(values)
    if classes.dtype.kind == "O" or values.dtype.kind == "O":
        lookup = {v: i for i, v in enumerate(classes.tolist())}
        return np.array([lookup[v] for v in values.tolist()], dtype=np.int32)
    return np.searchsorted(classes, values).astype(np.int32)


def _weights(sample_weight, n):
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim != 1:
        raise AssayError(f"sample_weight must be 1-D, found shape {w.shape}")
    _assay.cls_check_same_length(n, len(w), "y_true", "sample_weight")
    return w


def _pair(y_true, y_pred):
    """Label arrays of one task: ("multilabel", 2-D uint8, 2-D uint8) or ("multiclass", 1-D, 1-D)."""
    a = np.asarray(y_true)
    b = np.asarray(y_pred)
    if (a.ndim == 2 and a.shape[1] > 1) or (b.ndim == 2 and b.shape[1] > 1):
        if a.ndim != 2 or b.ndim != 2:
            raise AssayError("Classification metrics can't handle a mix of multilabel-indicator "
                             "and multiclass targets")
        _assay.cls_check_same_length(len(a), len(b), "y_true", "y_pred")
        if a.shape[1] != b.shape[1]:
            raise AssayError(f"y_true and y_pred have different numbers of labels "
                             f"({a.shape[1]} vs {b.shape[1]})")
        for m, name in ((a, "y_true"), (b, "y_pred")):
            if m.size and not np.isin(m, (0, 1)).all():
                raise AssayError(f"{name} must be a 0/1 multilabel indicator matrix "
                                 "(multiclass-multioutput is not supported)")
        return "multilabel", np.ascontiguousarray(a, dtype=np.uint8), \
            np.ascontiguousarray(b, dtype=np.uint8)
    a = _as_labels(a, "y_true")
    b = _as_labels(b, "y_pred")
    _assay.cls_check_same_length(len(a), len(b), "y_true", "y_pred")
    return "multiclass", a, b


def _nonempty(n):
    if n == 0:
        raise AssayError("y_true and y_pred are empty")


# ----------------------------------------------------------------------------- confusion matrices

def _multiclass(y_true, y_pred, sample_weight):
    """(labels of y_true, labels of y_pred, weights) of a non-empty multi-class pair; multilabel
    indicators are rejected."""
    kind, a, b = _pair(y_true, y_pred)
    if kind == "multilabel":
        raise AssayError("multilabel-indicator is not supported")
    _nonempty(len(a))
    return a, b, _weights(sample_weight, len(a))


def confusion_matrix(y_true, y_pred, *, labels=None, sample_weight=None, normalize=None):
    """scikit-learn's confusion_matrix: C[i, j] = weight with true labels[i], predicted labels[j].

    labels select and order the rows/columns; samples whose true or predicted label is not listed
    are dropped. normalize: 'true' (rows), 'pred' (columns), 'all'; 0/0 gives 0. Integer counts
    (int64) unless weighted or normalized."""
    kind, a, b = _pair(y_true, y_pred)
    if kind == "multilabel":
        raise AssayError("multilabel-indicator is not supported")
    if normalize not in ("true", "pred", "all", None):
        raise AssayError("normalize must be one of {'true', 'pred', 'all', None}, found "
                         f"{normalize!r}")
    w = _weights(sample_weight, len(a))
    norm_name = "none" if normalize is None else normalize
    integral = sample_weight is None or np.asarray(sample_weight).dtype.kind in "biu"
    if labels is None:
        _nonempty(len(a))
        if a.dtype.kind in "iu" and b.dtype.kind in "iu":
            # One pass straight over the integer labels when their range is small.
            direct = _assay.cls_confusion_matrix_direct(np.asarray(a, dtype=np.int64),
                                                        np.asarray(b, dtype=np.int64), w,
                                                        norm_name)
            if direct is not None:
                cm = direct[1]
                return cm.astype(np.int64) if normalize is None and integral else cm
        classes, ct, cp = _encode_labels(a, b)
        k = len(classes)
    else:
        listed = np.asarray(labels)
        k = len(listed)
        if k == 0:
            raise AssayError("'labels' should contains at least one label.")
        if len(a) == 0:
            return np.zeros((k, k), dtype=np.int64)
        classes, ct, cp = _encode_labels(a, b, labels=listed)
        if len(np.unique(_codes_of(classes, listed))) != k:
            raise AssayError("labels contains duplicates")
        position = np.full(len(classes), -1, dtype=np.int32)
        position[_codes_of(classes, listed)] = np.arange(k, dtype=np.int32)
        ct, cp = position[ct], position[cp]
        if not (ct >= 0).any():
            raise AssayError("At least one label specified must be in y_true")
    cm = _assay.cls_confusion_matrix(ct, cp, k, w, norm_name)
    if normalize is None and integral:
        cm = cm.astype(np.int64)
    return cm


def grouped_confusion_matrix(y_true, y_pred, row_groups=None, col_groups=None, *,
                             sample_weight=None):
    """Rectangular confusion matrix of groups of classes (rows and columns need not match).

    row_groups maps each true class to a row-group name, col_groups each predicted class to a
    column-group name: a dict {class: name}; a class mapped to None, or absent from the dict, is
    ignored (its samples are dropped). None = identity over the classes present (sorted), so
    both None gives confusion_matrix. Group order = order of first appearance in the dict.
    Returns (matrix, row_names, col_names); matrix[r, c] = weight of samples whose true class is
    in row group r and whose predicted class is in column group c (float64)."""
    a, b, w = _multiclass(y_true, y_pred, sample_weight)
    classes, ct, cp = _encode_labels(a, b)
    class_list = classes.tolist()

    def mapping(groups, what):
        if groups is None:
            groups = {c: c for c in class_list}
        if not isinstance(groups, dict):
            raise AssayError(f"{what} must be a dict {{class: group name or None}}, found "
                             f"{type(groups).__name__}")
        names = []
        index = {}
        for g in groups.values():
            if g is not None and g not in index:
                index[g] = len(names)
                names.append(g)
        codes = np.array([index[groups[c]] if groups.get(c) is not None else -1
                          for c in class_list], dtype=np.int32)
        return codes, names

    rows, row_names = mapping(row_groups, "row_groups")
    cols, col_names = mapping(col_groups, "col_groups")
    m = _assay.cls_grouped_confusion_matrix(ct, cp, rows, cols, len(row_names), len(col_names), w)
    return m, row_names, col_names


# ----------------------------------------------------------------------------- accuracy, MCC

def accuracy_score(y_true, y_pred, *, normalize=True, sample_weight=None, average="micro",
                   class_weight=None):
    """Accuracy (source eqs. 162-164).

    average='micro' (default): scikit-learn's accuracy_score, the (weighted) fraction correct;
    normalize=False gives the (weighted) number correct. Multilabel input: subset accuracy.
    average='macro': mean over classes present in y_true of the per-class recall (with
    sample_weight: weighted recall) = balanced accuracy without its warning.
    average='weighted': (1/W) sum_i w_i [y_pred_i == y_true_i] with w_i = sample_weight_i x
    class_weight[y_true_i]; class_weight is a dict {class: weight} (absent classes weigh 1) or
    an array aligned with the sorted classes."""
    kind, a, b = _pair(y_true, y_pred)
    w = _weights(sample_weight, len(a))
    if kind == "multilabel":
        if average != "micro":
            raise AssayError("multilabel accuracy supports average='micro' only (subset accuracy)")
        return _assay.cls_multilabel_accuracy(a, b, bool(normalize), w)
    _nonempty(len(a))
    classes, ct, cp = _encode_labels(a, b)
    cw = None
    if class_weight is not None:
        if isinstance(class_weight, dict):
            cw = np.array([float(class_weight.get(c, 1.0)) for c in classes.tolist()])
        else:
            cw = np.asarray(class_weight, dtype=np.float64)
            _assay.cls_check_same_length(len(classes), len(cw), "classes", "class_weight")
    return _assay.cls_accuracy(ct, cp, len(classes), average, bool(normalize), w, cw)


def balanced_accuracy_score(y_true, y_pred, *, sample_weight=None, adjusted=False):
    """scikit-learn's balanced_accuracy_score; adjusted with one class in y_true is NaN plus an
    AssayWarning (scikit-learn divides by zero)."""
    a, b, w = _multiclass(y_true, y_pred, sample_weight)
    classes, ct, cp = _encode_labels(a, b)
    return _assay.cls_balanced_accuracy(ct, cp, len(classes), w, bool(adjusted))


def matthews_corrcoef(y_true, y_pred, *, sample_weight=None):
    """scikit-learn's matthews_corrcoef, except that the undefined case (one class in y_true or
    in y_pred), where scikit-learn returns 0.0, is NaN plus an AssayWarning."""
    a, b, w = _multiclass(y_true, y_pred, sample_weight)
    classes, ct, cp = _encode_labels(a, b)
    return _assay.cls_matthews_corrcoef(ct, cp, len(classes), w)


# ----------------------------------------------------------------------------- P/R/F

def _zero_division_name(zero_division):
    if isinstance(zero_division, str) and zero_division == "warn":
        return "warn"
    if isinstance(zero_division, (int, float, np.number)) and not isinstance(zero_division, bool):
        if np.isnan(zero_division):
            return "nan"
        if zero_division in (0, 1):
            return str(int(zero_division))
    raise AssayError(f'Got zero_division={zero_division}. Must be one of ["warn", 0, 1, np.nan]')


def _warn_pos_label_ignored(pos_label, average):
    if pos_label not in (None, 1):
        warnings.warn(
            "Note that pos_label (set to %r) is ignored when average != 'binary' (got %r). "
            "You may use labels=[pos_label] to specify a single positive class."
            % (pos_label, average), AssayWarning, stacklevel=3)


def precision_recall_fscore_support(y_true, y_pred, *, beta=1.0, labels=None, pos_label=1,
                                    average=None,
                                    warn_for=("precision", "recall", "f-score"),
                                    sample_weight=None, zero_division="warn"):
    """scikit-learn's precision_recall_fscore_support (see docs for the F-beta rule)."""
    zd = _zero_division_name(zero_division)
    if average not in _AVERAGES and average != "binary":
        raise AssayError("average has to be one of " + str(_AVERAGES))
    if beta < 0:
        raise AssayError(f"beta should be >=0 in the F-beta score, found {beta}")
    kind, a, b = _pair(y_true, y_pred)
    w = _weights(sample_weight, len(a))
    flags = ("precision" in warn_for, "recall" in warn_for, "f-score" in warn_for)
    avg_name = "none" if average is None else average
    if kind == "multilabel":
        if average == "binary":
            raise AssayError("Target is multilabel-indicator but average='binary'. Please choose "
                             "another average setting, one of [None, 'micro', 'macro', "
                             "'weighted', 'samples'].")
        if labels is not None:
            listed = np.asarray(labels)
            n_labels = a.shape[1]
            if listed.size and listed.max() >= n_labels:
                raise AssayError(f"All labels must be in [0, n labels) for multilabel targets. "
                                 f"Got {listed.max()} > {n_labels - 1}")
            if listed.size and listed.min() < 0:
                raise AssayError(f"All labels must be in [0, n labels) for multilabel targets. "
                                 f"Got {listed.min()} < 0")
            a = np.ascontiguousarray(a[:, listed])
            b = np.ascontiguousarray(b[:, listed])
        p, r, f, s = _assay.cls_prf_multilabel(a, b, w, float(beta), avg_name, zd, *flags)
    else:
        if average == "samples":
            raise AssayError("Samplewise metrics are not available outside of multilabel "
                             "classification.")
        _nonempty(len(a))
        if (labels is None and average != "binary" and a.dtype.kind in "iu"
                and b.dtype.kind in "iu"):
            # One pass straight over small-range integer labels (no codes materialised).
            direct = _assay.cls_prf_direct(np.asarray(a, dtype=np.int64),
                                           np.asarray(b, dtype=np.int64), w, float(beta),
                                           avg_name, zd, *flags)
            if direct is not None:
                _warn_pos_label_ignored(pos_label, average)
                p, r, f, s = direct[1]
                if s is not None and sample_weight is None:
                    s = s.astype(np.int64)
                return p, r, f, s
        classes, ct, cp = _encode_labels(a, b)
        present = classes.tolist()
        if average == "binary":
            if len(present) > 2:
                raise AssayError("Target is multiclass but average='binary'. Please choose another "
                                 "average setting, one of [None, 'micro', 'macro', 'weighted'].")
            if pos_label not in present and len(present) >= 2:
                raise AssayError(f"pos_label={pos_label} is not a valid label. It should be one "
                                 f"of {present}")
            labels = [pos_label]
        else:
            _warn_pos_label_ignored(pos_label, average)
        if labels is None:
            select = np.arange(len(classes), dtype=np.int32)
        else:
            listed = np.asarray(labels)
            classes, ct, cp = _encode_labels(a, b, labels=listed)
            select = _codes_of(classes, listed)
        p, r, f, s = _assay.cls_prf_multiclass(ct, cp, len(classes), select, w, float(beta),
                                               avg_name, zd, *flags)
    if s is not None and sample_weight is None:
        s = s.astype(np.int64)
    return p, r, f, s


def _single(name, y_true, y_pred, labels, pos_label, average, sample_weight, zero_division,
            beta=1.0):
    p, r, f, _ = precision_recall_fscore_support(
        y_true, y_pred, beta=beta, labels=labels, pos_label=pos_label, average=average,
        warn_for=(name,), sample_weight=sample_weight, zero_division=zero_division)
    return {"precision": p, "recall": r, "f-score": f}[name]


def precision_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                    sample_weight=None, zero_division="warn"):
    """scikit-learn's precision_score."""
    return _single("precision", y_true, y_pred, labels, pos_label, average, sample_weight,
                   zero_division)


def recall_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary",
                 sample_weight=None, zero_division="warn"):
    """scikit-learn's recall_score."""
    return _single("recall", y_true, y_pred, labels, pos_label, average, sample_weight,
                   zero_division)


def fbeta_score(y_true, y_pred, *, beta, labels=None, pos_label=1, average="binary",
                sample_weight=None, zero_division="warn"):
    """scikit-learn's fbeta_score (F-beta rule of scikit-learn >= 1.4, see docs)."""
    return _single("f-score", y_true, y_pred, labels, pos_label, average, sample_weight,
                   zero_division, beta=beta)


def f1_score(y_true, y_pred, *, labels=None, pos_label=1, average="binary", sample_weight=None,
             zero_division="warn"):
    """scikit-learn's f1_score."""
    return fbeta_score(y_true, y_pred, beta=1, labels=labels, pos_label=pos_label,
                       average=average, sample_weight=sample_weight, zero_division=zero_division)


def classification_report(y_true, y_pred, *, labels=None, target_names=None, sample_weight=None,
                          digits=2, output_dict=False, zero_division="warn"):
    """scikit-learn's classification_report: the same text, or the same dict with
    output_dict=True ('accuracy' replaces 'micro avg' for multi-class input when all present
    labels are reported)."""
    kind, a, b = _pair(y_true, y_pred)
    if labels is None:
        if kind == "multilabel":
            labels = np.arange(a.shape[1])
        else:
            _nonempty(len(a))
            labels = _encode_labels(a, b)[0]
        labels_given = False
    else:
        labels = np.asarray(labels)
        labels_given = True
    if kind == "multilabel":
        micro_is_accuracy = False
    elif not labels_given:
        micro_is_accuracy = True
    else:
        present = _encode_labels(a, b)[0].tolist()
        micro_is_accuracy = set(labels.tolist()) == set(present)
    if target_names is not None and len(labels) != len(target_names):
        if labels_given:
            warnings.warn("labels size, {0}, does not match size of target_names, {1}".format(
                len(labels), len(target_names)), AssayWarning, stacklevel=2)
        else:
            raise AssayError("Number of classes, {0}, does not match size of target_names, {1}. "
                             "Try specifying the labels parameter".format(
                                 len(labels), len(target_names)))
    if target_names is None:
        target_names = ["%s" % label for label in labels]
    headers = ["precision", "recall", "f1-score", "support"]
    p, r, f1, s = precision_recall_fscore_support(a, b, labels=labels, average=None,
                                                  sample_weight=sample_weight,
                                                  zero_division=zero_division)
    rows = list(zip(target_names, p, r, f1, s))
    averages = ("micro", "macro", "weighted") + (("samples",) if kind == "multilabel" else ())
    if output_dict:
        report = {row[0]: dict(zip(headers, [v.item() for v in row[1:]])) for row in rows}
    else:
        width = max(max(len(cn) for cn in target_names), len("weighted avg"), digits)
        head_fmt = "{:>{width}s} " + " {:>9}" * len(headers)
        text = head_fmt.format("", *headers, width=width) + "\n\n"
        row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\n"
        for row in rows:
            text += row_fmt.format(*row, width=width, digits=digits)
        text += "\n"
    for average in averages:
        heading = "accuracy" if average == "micro" and micro_is_accuracy else average + " avg"
        ap, ar, af, _ = precision_recall_fscore_support(a, b, labels=labels, average=average,
                                                        sample_weight=sample_weight,
                                                        zero_division=zero_division)
        avg = [np.float64(ap), np.float64(ar), np.float64(af), np.sum(s)]
        if output_dict:
            report[heading] = dict(zip(headers, [v.item() for v in avg]))
        elif heading == "accuracy":
            fmt = "{:>{width}s} " + " {:>9.{digits}}" * 2 + " {:>9.{digits}f}" + " {:>9}\n"
            text += fmt.format(heading, "", "", *avg[2:], width=width, digits=digits)
        else:
            text += row_fmt.format(heading, *avg, width=width, digits=digits)
    if output_dict:
        if "accuracy" in report:
            report["accuracy"] = report["accuracy"]["precision"]
        return report
    return text


def binary_rates(y_true, y_pred, *, pos_label=1, sample_weight=None):
    """Operating point of one class against the rest: dict with tp, fp, tn, fn (weighted counts)
    and recall, precision, specificity, fpr, fnr, fdr, npv, accuracy, f1, mcc. Ratios with a zero
    denominator are NaN with one AssayWarning naming them."""
    a, b, w = _multiclass(y_true, y_pred, sample_weight)
    classes, ct, cp = _encode_labels(a, b, labels=[pos_label])
    positive = int(_codes_of(classes, [pos_label])[0])
    return _assay.cls_binary_rates(ct, cp, positive, w)


def predict_labels(y_score, rule="argmax", threshold=0.5):
    """Turns scores into decisions (source eqs. 170-171).

    1-D scores (binary): boolean array score >= threshold. 2-D (n, K): rule='argmax' gives the
    column index of the first maximum of each row (like numpy.argmax); rule='one_vs_all' gives an
    (n, K) boolean indicator p_k >= threshold (a sample may be positive for several classes or
    none)."""
    s = np.ascontiguousarray(y_score, dtype=np.float64)
    if s.ndim == 1:
        return _assay.cls_threshold(s, float(threshold)).astype(bool)
    if s.ndim != 2:
        raise AssayError(f"y_score must be 1-D or 2-D, found shape {s.shape}")
    if rule == "argmax":
        return _assay.cls_argmax(s).astype(np.int64)
    if rule == "one_vs_all":
        return _assay.cls_one_vs_all(s, float(threshold)).astype(bool)
    raise AssayError(f"rule must be 'argmax' or 'one_vs_all', found {rule!r}")


# ----------------------------------------------------------------------------- calibration

def _positive_code(a, pos_label):
    """scikit-learn's pos_label rule for binary probability metrics: given, else 1 for labels in
    {0,1}/{-1,1}, else the greater of two numeric labels; strings need pos_label. Returns the
    codes of y_true and the code of the positive class (-1 if it does not occur)."""
    classes, ct, _ = _encode_labels(a)
    if len(classes) > 2:
        raise AssayError(f"Only binary classification is supported. The type of the target is "
                         f"multiclass ({len(classes)} classes).")
    if pos_label is None:
        values = classes.tolist()
        if _is_text(classes):
            raise AssayError(f"y_true takes value in {{{', '.join(repr(c) for c in values)}"
                             "} and pos_label is not specified: either make y_true take value in "
                             "{0, 1} or {-1, 1} or pass pos_label explicitly.")
        if set(values) <= {0, 1} or set(values) <= {-1, 1}:
            pos_label = 1
        elif values:
            pos_label = values[-1]
    found = [i for i, c in enumerate(classes.tolist()) if c == pos_label]
    return ct, (found[0] if found else -1)


def calibration_error(y_true, y_prob, *, bins=15, strategy="uniform", norm="l1",
                      multiclass="top_label", sample_weight=None, pos_label=None, labels=None):
    """Expected (norm='l1'), RMS ('l2') or maximum ('max') calibration error with its
    reliability table.

    y_prob 1-D: binary, probability of pos_label (default: the greater label). y_prob 2-D (n, K):
    column k is the probability of the k-th class (labels, default 0..K-1 when y_true holds
    integers in that range, else the sorted classes of y_true); multiclass='top_label' bins the
    top probability against [argmax == y_true], 'classwise' bins every column against
    [y_true == k] and averages the K errors.

    Returns {"error": float, "bins": {"lower", "upper", "count", "accuracy", "confidence"}}
    (arrays of length `bins`; empty bins have count 0 and NaN means). classwise adds
    "class_errors" (K,) and the bins arrays are (K, bins)."""
    a = _as_labels(y_true, "y_true")
    p = np.ascontiguousarray(y_prob, dtype=np.float64)
    w = _weights(sample_weight, len(a))
    _assay.cls_check_same_length(len(a), len(p), "y_true", "y_prob")
    if p.ndim == 1:
        ct, positive = _positive_code(a, pos_label)
        return _assay.cls_calibration_error(ct, p, positive, multiclass, int(bins), strategy,
                                            norm, w)
    if p.ndim != 2:
        raise AssayError(f"y_prob must be 1-D or 2-D, found shape {p.shape}")
    k = p.shape[1]
    if labels is None and a.dtype.kind in "biuf" and (len(a) == 0 or (a.min() >= 0 and
                                                                      a.max() < k)):
        labels = np.arange(k)
    if labels is None:
        labels = np.unique(a)
    listed = np.asarray(labels)
    if len(listed) != k:
        raise AssayError(f"y_prob has {k} columns but there are {len(listed)} classes; pass "
                         "labels naming the class of each column")
    classes, ct, _ = _encode_labels(a, None, labels=listed)
    position = np.full(len(classes), -1, dtype=np.int32)
    position[_codes_of(classes, listed)] = np.arange(k, dtype=np.int32)
    ct = position[ct]
    if (ct < 0).any():
        bad = a[np.flatnonzero(ct < 0)[0]]
        raise AssayError(f"y_true contains the label {bad!r}, which is not among the labels")
    out = _assay.cls_calibration_error(ct, p, 0, multiclass, int(bins), strategy, norm, w)
    if isinstance(out, dict):
        return out
    errors = np.array([o["error"] for o in out])
    return {"error": float(errors.mean()), "class_errors": errors,
            "bins": {key: np.stack([o["bins"][key] for o in out]) for key in out[0]["bins"]}}


def brier_score_loss(y_true, y_prob, *, sample_weight=None, pos_label=None):
    """scikit-learn's brier_score_loss."""
    a = _as_labels(y_true, "y_true")
    p = np.asarray(y_prob, dtype=np.float64)
    if p.ndim == 2 and p.shape[1] == 1:
        p = p.ravel()
    _assay.cls_check_same_length(len(a), len(p), "y_true", "y_prob")
    if len(a) == 0:
        raise AssayError("y_true and y_prob are empty")
    w = _weights(sample_weight, len(a))
    ct, positive = _positive_code(a, pos_label)
    return _assay.cls_brier_score_loss(ct, positive, np.ascontiguousarray(p), w)


def log_loss(y_true, y_pred, *, eps="auto", normalize=True, sample_weight=None, labels=None):
    """scikit-learn's log_loss (eps='auto' = machine epsilon of y_pred's dtype). A y_true value
    that is not among `labels` contributes 0, as in scikit-learn."""
    a = _as_labels(y_true, "y_true")
    raw = np.asarray(y_pred)
    if raw.dtype.kind not in "f":
        raw = raw.astype(np.float64)
    if isinstance(eps, str):
        if eps != "auto":
            raise AssayError(f"eps must be 'auto' or a number, found {eps!r}")
        eps = float(np.finfo(raw.dtype).eps)
    p = np.ascontiguousarray(raw, dtype=np.float64)
    _assay.cls_check_same_length(len(a), len(p), "y_true", "y_pred")
    if len(a) == 0:
        raise AssayError("y_true and y_pred are empty")
    w = _weights(sample_weight, len(a))
    listed = np.unique(np.asarray(labels)) if labels is not None else None
    if listed is None:
        classes, ct, _ = _encode_labels(a)
        if len(classes) == 1:
            raise AssayError(f"y_true contains only one label ({classes[0]}). Please provide the "
                             "true labels explicitly through the labels argument.")
    else:
        if len(listed) < 2:
            raise AssayError("The labels array needs to contain at least two labels for "
                             f"log_loss, got {listed}.")
        classes, ct, _ = _encode_labels(a, None, labels=listed)
        position = np.full(len(classes), -1, dtype=np.int32)
        position[_codes_of(classes, listed)] = np.arange(len(listed), dtype=np.int32)
        ct = position[ct]
        classes = listed
    return _assay.cls_log_loss(ct, len(classes), p, float(eps), bool(normalize), w)
