"""assay.metrics' label metrics added for scikit-learn parity (multilabel_confusion_matrix,
jaccard_score, hamming_loss, zero_one_loss, cohen_kappa_score, class_likelihood_ratios,
hinge_loss, top_k_accuracy_score) against scikit-learn 1.2.1 on randomised inputs (ties,
weights, multi-class, multilabel) at rtol 1e-12, and the shared input contract."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.metrics as skm

import assay
import assay.metrics as am

RTOL = 1e-12


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=0)


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def both(name, *args, **kwargs):
    return quiet(getattr(am, name), *args, **kwargs), quiet(getattr(skm, name), *args, **kwargs)


def labels(rng, n, k, kind):
    if kind == "multilabel":
        return rng.integers(0, 2, size=(n, k)), rng.integers(0, 2, size=(n, k))
    y = rng.integers(0, k, size=n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, size=n))
    if kind == "strings":
        names = np.array([f"c{i}" for i in range(k)])
        return names[y], names[p]
    return y, p


@pytest.mark.parametrize("kind", ["binary", "multiclass", "strings", "multilabel"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_confusion_matrix(rng, kind, weighted):
    k = 2 if kind == "binary" else 4
    y, p = labels(rng, 60, k, kind)
    kw = {"sample_weight": rng.random(60)} if weighted else {}
    ours, theirs = both("multilabel_confusion_matrix", y, p, **kw)
    close(ours, theirs)
    assert ours.dtype == theirs.dtype
    if kind == "multilabel":
        close(*both("multilabel_confusion_matrix", y, p, samplewise=True, **kw))
        close(*both("multilabel_confusion_matrix", y, p, labels=[3, 0], **kw))
    else:
        chosen = [np.unique(y)[-1], np.unique(y)[0]]
        close(*both("multilabel_confusion_matrix", y, p, labels=chosen, **kw))


@pytest.mark.parametrize("kind", ["binary", "multiclass", "strings", "multilabel"])
@pytest.mark.parametrize("zero_division", ["warn", 0, 1])
def test_jaccard(rng, kind, zero_division):
    k = 2 if kind == "binary" else 5
    y, p = labels(rng, 40, k, kind)
    w = rng.random(40)
    averages = [None, "micro", "macro", "weighted"]
    if kind == "binary":
        averages.append("binary")
    if kind == "multilabel":
        averages.append("samples")
    pos = {"pos_label": "c1"} if kind == "strings" else {}
    for average in averages:
        for kw in ({}, {"sample_weight": w}):
            kwargs = dict(average=average, zero_division=zero_division, **kw)
            if average == "binary":
                kwargs.update(pos)
            close(*both("jaccard_score", y, p, **kwargs))


def test_jaccard_labels_and_zero_division_warning():
    y = np.array([0, 1, 2, 2])
    p = np.array([0, 2, 2, 2])
    close(*both("jaccard_score", y, p, labels=[2, 5, 0], average=None))
    with pytest.warns(am.UndefinedMetricWarning, match="Jaccard is ill-defined"):
        am.jaccard_score(y, p, labels=[5], average="macro")


@pytest.mark.parametrize("kind", ["binary", "multiclass", "strings", "multilabel"])
def test_hamming_and_zero_one(rng, kind):
    y, p = labels(rng, 70, 3, kind)
    w = rng.random(70)
    for kw in ({}, {"sample_weight": w}):
        close(*both("hamming_loss", y, p, **kw))
        close(*both("zero_one_loss", y, p, **kw))
        close(*both("zero_one_loss", y, p, normalize=False, **kw))


def test_numeric_labels_compared_without_encoding(rng):
    # accuracy / Hamming / 0-1 loss of numeric labels count equal values in one pass: every
    # dtype pairing, weights, and weights summing to zero as scikit-learn (ZeroDivisionError).
    yt = rng.integers(0, 5, 200)
    yp = np.where(rng.random(200) < 0.6, yt, rng.integers(0, 5, 200))
    w = rng.random(200)
    pairs = [(yt, yp), (yt.astype(np.int8), yp.astype(np.uint16)), (yt, yp.astype(float)),
             (yt.astype(float), yp.astype(float)), (yt > 2, yp > 2)]
    for a, b in pairs:
        for f in ("accuracy_score", "hamming_loss", "zero_one_loss"):
            for kw in ({}, {"sample_weight": w}):
                ours, theirs = both(f, a, b, **kw)
                assert type(ours) is type(theirs)
                close(ours, theirs)
    assert am.accuracy_score(yt, yp, normalize=False) == skm.accuracy_score(yt, yp, normalize=False)
    for f in (am.accuracy_score, am.hamming_loss, am.zero_one_loss):
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
            f([1, 2], [1, 3], sample_weight=[0, 0])


def test_sparse_and_list_indicators(rng):
    y, p = labels(rng, 30, 4, "multilabel")
    for f in ("hamming_loss", "accuracy_score", "zero_one_loss"):
        close(getattr(am, f)(sp.csr_matrix(y), sp.csr_matrix(p)), getattr(skm, f)(y, p))
        close(getattr(am, f)(y.tolist(), p.tolist()), getattr(skm, f)(y, p))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa(rng, weights):
    for kind in ("binary", "multiclass", "strings"):
        y, p = labels(rng, 80, 2 if kind == "binary" else 4, kind)
        w = rng.random(80)
        close(*both("cohen_kappa_score", y, p, weights=weights))
        close(*both("cohen_kappa_score", y, p, weights=weights, sample_weight=w))
    close(*both("cohen_kappa_score", [0, 1, 2, 2], [0, 2, 2, 1], labels=[2, 0, 1]))


def test_class_likelihood_ratios(rng):
    for _ in range(5):
        y, p = labels(rng, 50, 2, "binary")
        w = rng.random(50)
        close(*both("class_likelihood_ratios", y, p))
        close(*both("class_likelihood_ratios", y, p, sample_weight=w))
    # scikit-learn 1.7's words (docs/conventions.md row 16)
    with pytest.warns(UserWarning, match="`negative_likelihood_ratio` is ill-defined"):
        lr = am.class_likelihood_ratios([0, 1, 1], [1, 1, 1])
    assert np.isnan(lr[1])


def test_hinge_loss(rng):
    for k in (2, 4):
        y = rng.integers(0, k, size=60)
        d = rng.normal(size=60) if k == 2 else rng.normal(size=(60, k))
        w = rng.random(60)
        close(*both("hinge_loss", y, d))
        close(*both("hinge_loss", y, d, sample_weight=w))
    y = np.array([0, 1, 2, 2])
    d = rng.normal(size=(4, 4))
    close(*both("hinge_loss", y, d, labels=[0, 1, 2, 3]))
    close(*both("hinge_loss", np.array(["a", "b", "b"]), np.array([-1.0, 0.5, 2.0])))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_top_k_accuracy(rng, k):
    y = rng.integers(0, 4, size=100)
    s = rng.integers(0, 3, size=(100, 4)).astype(float)  # many ties
    w = rng.random(100)
    close(*both("top_k_accuracy_score", y, s, k=k))
    close(*both("top_k_accuracy_score", y, s, k=k, sample_weight=w))
    ours, theirs = both("top_k_accuracy_score", y, s, k=k, normalize=False)
    assert ours == theirs and isinstance(ours, int)
    yb = rng.integers(0, 2, size=50)
    for scores in (rng.random(50), rng.normal(size=50)):
        close(*both("top_k_accuracy_score", yb, scores, k=1))


def test_confusion_matrix_integer_weights_are_exact():
    y = [0, 1, 1]
    # 2^62 + 2 is beyond float64's exact integers: counts are summed as integers.
    cm = am.confusion_matrix(y, y, sample_weight=np.full(3, 2**61 + 1, dtype=np.int64))
    assert cm.dtype == np.int64 and cm[0, 0] == 2**61 + 1 and cm[1, 1] == 2**62 + 2
    big = np.full(3, 2**63 - 1, dtype=np.int64)
    assert am.confusion_matrix([0], [0], sample_weight=big[:1])[0, 0] == 2**63 - 1
    with pytest.raises(ValueError, match="sum beyond int64's range"):
        am.confusion_matrix(y, y, sample_weight=big)


@pytest.mark.parametrize("f", [am.accuracy_score, am.hamming_loss, am.jaccard_score,
                               am.cohen_kappa_score, am.multilabel_confusion_matrix])
@pytest.mark.parametrize("y_true, y_pred, message", [
    ([0, 1], [np.inf, 1], r"Input y_pred contains infinity or a value too large"),
    ([np.nan, 1, 2], [1, 2, 3], r"Input y_true contains NaN"),
    (["a", "b", "a"], [0.1, 0.2, 0.3],
     r"Classification metrics can't handle a mix of binary and continuous targets"),
    ([[1], [2], [0, 1]], [[1], [2], [0, 1]], r"legacy multi-label data representation"),
])
def test_refused_input(f, y_true, y_pred, message):
    with pytest.raises(ValueError, match=message):
        f(y_true, y_pred)


def test_mixed_types_raise_type_error():
    y1 = np.array(["spam"] * 3 + ["eggs"] * 2, dtype=object)
    with pytest.raises(TypeError, match="Labels in y_true and y_pred should be of the same type"):
        am.accuracy_score(y1, [0, 1, 0, 1, 0])


def test_empty_sample_weight_is_refused():
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[2, 2, 0\]"):
        am.accuracy_score([0, 1], [0, 1], sample_weight=[])


def test_warning_class():
    assert issubclass(am.UndefinedMetricWarning, assay.AssayWarning)
    with pytest.warns(am.UndefinedMetricWarning, match="Precision is ill-defined"):
        am.precision_score([0, 1], [0, 0])
