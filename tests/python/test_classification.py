"""assay.metrics classification metrics vs scikit-learn 1.2.1 (randomised, rtol 1e-12)."""
import warnings

import numpy as np
import pytest
import sklearn.metrics as sm

import assay
import assay.metrics as am

RTOL = 1e-12
ATOL = 1e-14


def close(a, b):
    if a is None or b is None:
        assert a is None and b is None
        return
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=RTOL, atol=ATOL)


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def cases(rng):
    """(y_true, y_pred, sample_weight) triples: binary, multiclass, strings, weights with zeros."""
    out = []
    for n, k in ((30, 2), (200, 3), (500, 6), (40, 8)):
        yt = rng.integers(0, k, n)
        yp = np.where(rng.random(n) < 0.5, yt, rng.integers(0, k, n))
        w = rng.random(n)
        w[rng.random(n) < 0.2] = 0
        out += [(yt, yp, None), (yt, yp, w)]
    names = np.array(["cat", "dog", "pig", "emu"])
    yt = names[rng.integers(0, 4, 100)]
    yp = names[rng.integers(0, 3, 100)]
    out += [(yt, yp, None), (yt, yp, rng.random(100))]
    out.append((rng.integers(-2, 3, 50) * 10, rng.integers(-2, 3, 50) * 10, None))
    out.append((rng.integers(0, 3, 50).astype(float), rng.integers(0, 3, 50).astype(float), None))
    # Wide integer range: the encoder path instead of the direct small-range path.
    wide_t, wide_p = rng.integers(0, 4, 60) * 1000, rng.integers(0, 4, 60) * 1000
    out += [(wide_t, wide_p, None), (wide_t, wide_p, rng.random(60))]
    return out


def test_confusion_matrix_matches_sklearn(rng):
    for yt, yp, w in cases(rng):
        for normalize in (None, "true", "pred", "all"):
            a = am.confusion_matrix(yt, yp, sample_weight=w, normalize=normalize)
            b = sm.confusion_matrix(yt, yp, sample_weight=w, normalize=normalize)
            assert a.shape == b.shape and a.dtype.kind == b.dtype.kind
            close(a, b)
        classes = np.unique(np.concatenate([yt, yp]))
        subset = rng.permutation(classes)[: max(1, len(classes) - 1)]
        close(am.confusion_matrix(yt, yp, labels=subset, sample_weight=w),
              sm.confusion_matrix(yt, yp, labels=subset, sample_weight=w))


def test_class_present_only_with_zero_weight_is_kept():
    yt, yp, w = [0, 1, 2, 2], [0, 1, 2, 5], [1.0, 1.0, 1.0, 0.0]
    close(am.confusion_matrix(yt, yp, sample_weight=w), sm.confusion_matrix(yt, yp, sample_weight=w))
    assert am.confusion_matrix(yt, yp, sample_weight=w).shape == (4, 4)
    for x, y in zip(am.precision_recall_fscore_support(yt, yp, sample_weight=w),
                    sm.precision_recall_fscore_support(yt, yp, sample_weight=w)):
        close(x, y)


def test_confusion_matrix_labels_not_in_data_and_empty():
    yt, yp = [0, 1, 1, 2], [0, 2, 1, 1]
    close(am.confusion_matrix(yt, yp, labels=[2, 7, 0]), sm.confusion_matrix(yt, yp, labels=[2, 7, 0]))
    assert am.confusion_matrix([], [], labels=[1, 2]).tolist() == [[0, 0], [0, 0]]
    with pytest.raises(assay.AssayError, match="At least one label specified must be in y_true"):
        am.confusion_matrix(yt, yp, labels=[5, 6])
    with pytest.raises(assay.AssayError, match="'labels' should contain at least one label"):
        am.confusion_matrix(yt, yp, labels=[])


def test_confusion_matrix_large_parallel_matches_bincount(rng):
    n, k = 600_000, 100
    yt = rng.integers(0, k, n)
    yp = rng.integers(0, k, n)
    w = rng.random(n)
    expect = np.bincount(yt * k + yp, weights=w, minlength=k * k).reshape(k, k)
    close(am.confusion_matrix(yt, yp, sample_weight=w), expect)
    assert (am.confusion_matrix(yt, yp) == np.bincount(yt * k + yp).reshape(k, k)).all()


def test_grouped_confusion_matrix_hand_computed():
    yt = ["cat", "dog", "pig", "cat", "emu", "pig"]
    yp = ["dog", "dog", "cat", "cat", "pig", "emu"]
    rows = {"cat": "pet", "dog": "pet", "pig": "farm", "emu": None}
    cols = {"cat": "mammal", "dog": "mammal", "pig": "mammal", "emu": "bird"}
    m, rn, cn = am.grouped_confusion_matrix(yt, yp, rows, cols)
    assert rn == ["pet", "farm"] and cn == ["mammal", "bird"]
    # pet rows: (cat,dog) (dog,dog) (cat,cat) -> mammal 3; farm: (pig,cat) mammal, (pig,emu) bird.
    assert m.tolist() == [[3.0, 0.0], [1.0, 1.0]]
    m, rn, cn = am.grouped_confusion_matrix(yt, yp, rows, cols,
                                            sample_weight=[1, 2, 3, 4, 5, 6])
    assert m.tolist() == [[7.0, 0.0], [3.0, 6.0]]
    # Absent classes are ignored: only dogs as rows, a single column group.
    m, rn, cn = am.grouped_confusion_matrix(yt, yp, {"dog": "d"}, {"dog": "D", "cat": "D"})
    assert rn == ["d"] and cn == ["D"] and m.tolist() == [[1.0]]


def test_grouped_confusion_matrix_identity_is_confusion_matrix(rng):
    yt, yp = rng.integers(0, 5, 300), rng.integers(0, 5, 300)
    m, rn, cn = am.grouped_confusion_matrix(yt, yp)
    close(m, sm.confusion_matrix(yt, yp))
    assert rn == cn == [0, 1, 2, 3, 4]
    ident = {c: c for c in range(5)}
    close(am.grouped_confusion_matrix(yt, yp, ident, ident)[0], sm.confusion_matrix(yt, yp))


def test_accuracy_variants(rng):
    for yt, yp, w in cases(rng):
        close(am.accuracy_score(yt, yp, sample_weight=w), sm.accuracy_score(yt, yp, sample_weight=w))
        close(am.accuracy_score(yt, yp, sample_weight=w, normalize=False),
              sm.accuracy_score(yt, yp, sample_weight=w, normalize=False))
        close(am.accuracy_score(yt, yp, average="macro", sample_weight=w),
              sm.balanced_accuracy_score(yt, yp, sample_weight=w))
        close(am.accuracy_score(yt, yp, average="weighted", sample_weight=w),
              sm.accuracy_score(yt, yp, sample_weight=w))
    yt = np.array([0, 0, 0, 1, 2, 2])
    yp = np.array([0, 1, 0, 1, 0, 2])
    # class weights 1, 3, 0.5: correct weight 1+1+3+0.5 = 5.5 of W = 3+3+1 = 7.
    close(am.accuracy_score(yt, yp, average="weighted", class_weight={1: 3, 2: 0.5}), 5.5 / 7)
    close(am.accuracy_score(yt, yp, average="weighted", class_weight=[1, 3, 0.5]), 5.5 / 7)
    close(am.accuracy_score(yt, yp, average="macro"), (2 / 3 + 1 + 1 / 2) / 3)


def test_accuracy_multilabel_subset(rng):
    yt = rng.integers(0, 2, (50, 3))
    yp = np.where(rng.random((50, 3)) < 0.8, yt, 1 - yt)
    w = rng.random(50)
    close(am.accuracy_score(yt, yp, sample_weight=w), sm.accuracy_score(yt, yp, sample_weight=w))


def test_balanced_accuracy_and_mcc(rng):
    for yt, yp, w in cases(rng):
        for adjusted in (False, True):
            close(am.balanced_accuracy_score(yt, yp, sample_weight=w, adjusted=adjusted),
                  sm.balanced_accuracy_score(yt, yp, sample_weight=w, adjusted=adjusted))
        close(am.matthews_corrcoef(yt, yp, sample_weight=w),
              sm.matthews_corrcoef(yt, yp, sample_weight=w))


def test_balanced_accuracy_warns_for_predicted_only_classes():
    with pytest.warns(assay.AssayWarning, match="y_pred contains classes not in y_true"):
        v = am.balanced_accuracy_score([0, 0, 1], [0, 2, 1])
    close(v, sm.balanced_accuracy_score([0, 0, 1], [0, 2, 1]))


def test_degenerate_single_class_is_nan_with_warning():
    with pytest.warns(assay.AssayWarning, match="Matthews correlation coefficient is undefined"):
        assert np.isnan(am.matthews_corrcoef([1, 1, 1], [1, 0, 1]))
    with pytest.warns(assay.AssayWarning, match="adjusted balanced accuracy is undefined"):
        assert np.isnan(am.balanced_accuracy_score([1, 1, 1], [1, 0, 1], adjusted=True))


ZERO_DIVISIONS = ("warn", 0, 1)


def test_prf_every_average_and_zero_division(rng):
    for yt, yp, w in cases(rng):
        classes = np.unique(np.concatenate([yt, yp]))
        label_sets = [None, rng.permutation(classes)[: max(1, len(classes) // 2)]]
        for labels in label_sets:
            for average in (None, "micro", "macro", "weighted"):
                for zd in ZERO_DIVISIONS:
                    for beta in (1.0, 0.5, 2.0):
                        a = am.precision_recall_fscore_support(
                            yt, yp, beta=beta, labels=labels, average=average, sample_weight=w,
                            zero_division=zd)
                        b = sm.precision_recall_fscore_support(
                            yt, yp, beta=beta, labels=labels, average=average, sample_weight=w,
                            zero_division=zd)
                        for x, y in zip(a, b):
                            close(x, y)
        if len(classes) == 2:
            for zd in ZERO_DIVISIONS:
                for f in ("precision_score", "recall_score", "f1_score"):
                    close(getattr(am, f)(yt, yp, pos_label=classes[0], sample_weight=w,
                                         zero_division=zd),
                          getattr(sm, f)(yt, yp, pos_label=classes[0], sample_weight=w,
                                         zero_division=zd))
                close(am.fbeta_score(yt, yp, beta=2, pos_label=classes[1], sample_weight=w),
                      sm.fbeta_score(yt, yp, beta=2, pos_label=classes[1], sample_weight=w))


def test_prf_ill_defined_cases_match_121():
    # Labels with no predictions / no support / neither; every zero_division value.
    yt = [0, 0, 1, 1, 2]
    yp = [0, 0, 0, 0, 2]
    for zd in ZERO_DIVISIONS:
        for average in (None, "micro", "macro", "weighted"):
            for labels in (None, [1, 3], [3, 4], [0, 1, 2, 3]):
                a = am.precision_recall_fscore_support(yt, yp, labels=labels, average=average,
                                                       zero_division=zd)
                b = sm.precision_recall_fscore_support(yt, yp, labels=labels, average=average,
                                                       zero_division=zd)
                for x, y in zip(a, b):
                    close(x, y)


def test_prf_warning_text_matches_sklearn():
    with pytest.warns(assay.AssayWarning,
                      match="Precision and F-score are ill-defined and being set to 0.0 in labels "
                            "with no predicted samples"):
        am.precision_recall_fscore_support([0, 1, 2], [0, 0, 2])
    with pytest.warns(assay.AssayWarning, match="Precision is ill-defined and being set to 0.0 due "
                                                "to no predicted samples"):
        am.precision_score([1, 1], [0, 0])
    with pytest.warns(assay.AssayWarning, match="F-score is ill-defined and being set to 0.0 in "
                                                "labels with no true nor predicted samples"):
        am.f1_score([0, 1], [0, 1], labels=[0, 1, 5], average="macro")


def test_prf_zero_division_nan():
    # Not in scikit-learn 1.2.1 (added in 1.3): NaN entries, excluded from averages.
    p, r, f, s = am.precision_recall_fscore_support([0, 1, 2], [0, 0, 2], zero_division=np.nan)
    close(p[[0, 2]], [0.5, 1.0])
    assert np.isnan(p[1]) and r[1] == 0 and f[1] == 0
    close(am.precision_score([0, 1, 2], [0, 0, 2], average="macro", zero_division=np.nan), 0.75)
    assert np.isnan(am.precision_score([1, 1], [0, 0], zero_division=np.nan))


def test_fbeta_rule_differs_from_121_only_for_beta_zero():
    # beta = 0, no prediction of the label, zero_division=1: scikit-learn 1.2.1 gives
    # F = P R / R -> 0 (R = 0); the >= 1.4 rule (ours) divides tp by pred = 0 -> zero_division.
    a = am.fbeta_score([1, 1, 0], [0, 0, 0], beta=0, zero_division=1)
    assert a == 1.0
    assert sm.fbeta_score([1, 1, 0], [0, 0, 0], beta=0, zero_division=1) == 0.0


def test_prf_multilabel_and_samples(rng):
    yt = rng.integers(0, 2, (60, 4))
    yp = rng.integers(0, 2, (60, 4))
    yt[:3] = 0
    yp[:2] = 0
    w = rng.random(60)
    for average in (None, "micro", "macro", "weighted", "samples"):
        for zd in ZERO_DIVISIONS:
            for labels in (None, [2, 0]):
                for sw in (None, w):
                    a = am.precision_recall_fscore_support(yt, yp, average=average, labels=labels,
                                                           sample_weight=sw, zero_division=zd)
                    b = sm.precision_recall_fscore_support(yt, yp, average=average, labels=labels,
                                                           sample_weight=sw, zero_division=zd)
                    for x, y in zip(a, b):
                        close(x, y)


def compare_reports(a, b):
    assert list(a) == list(b)
    for key in b:
        if isinstance(b[key], dict):
            assert list(a[key]) == list(b[key])
            for inner in b[key]:
                assert type(a[key][inner]) is type(b[key][inner])
                close(a[key][inner], b[key][inner])
        else:
            close(a[key], b[key])


def test_classification_report(rng):
    for yt, yp, w in cases(rng):
        compare_reports(am.classification_report(yt, yp, sample_weight=w, output_dict=True),
                        sm.classification_report(yt, yp, sample_weight=w, output_dict=True))
        assert am.classification_report(yt, yp, digits=3) == sm.classification_report(yt, yp,
                                                                                       digits=3)
    yt = np.array([0, 1, 2, 2, 1, 0, 0])
    yp = np.array([0, 2, 2, 1, 1, 0, 1])
    for labels in ([0, 1], [2, 1, 0], [0, 1, 2, 3]):
        compare_reports(am.classification_report(yt, yp, labels=labels, output_dict=True),
                        sm.classification_report(yt, yp, labels=labels, output_dict=True))
    names = ["a", "b", "c"]
    assert am.classification_report(yt, yp, target_names=names) == \
        sm.classification_report(yt, yp, target_names=names)
    ml_t, ml_p = rng.integers(0, 2, (30, 3)), rng.integers(0, 2, (30, 3))
    compare_reports(am.classification_report(ml_t, ml_p, output_dict=True),
                    sm.classification_report(ml_t, ml_p, output_dict=True))
    with pytest.raises(assay.AssayError, match="Number of classes, 3, does not match size of "
                                               "target_names, 2"):
        am.classification_report(yt, yp, target_names=["a", "b"])


def test_binary_rates_hand_computed():
    yt = [1, 1, 1, 0, 0, 0, 0, 1]
    yp = [1, 1, 0, 0, 0, 1, 0, 1]
    r = am.binary_rates(yt, yp)
    assert (r["tp"], r["fp"], r["tn"], r["fn"]) == (3, 1, 3, 1)
    close([r["recall"], r["precision"], r["specificity"], r["fpr"], r["fnr"], r["fdr"], r["npv"],
           r["accuracy"]], [0.75, 0.75, 0.75, 0.25, 0.25, 0.25, 0.75, 0.75])
    close(r["f1"], sm.f1_score(yt, yp))
    close(r["mcc"], sm.matthews_corrcoef(yt, yp))
    r = am.binary_rates(["a", "b", "b"], ["a", "a", "b"], pos_label="a", sample_weight=[2, 1, 1])
    assert (r["tp"], r["fp"], r["tn"], r["fn"]) == (2, 1, 1, 0)
    with pytest.warns(assay.AssayWarning, match="binary rates undefined .* precision"):
        r = am.binary_rates([1, 0], [0, 0])
    assert np.isnan(r["precision"]) and r["recall"] == 0


def test_predict_labels():
    s = np.array([0.2, 0.5, 0.7])
    assert am.predict_labels(s).tolist() == [False, True, True]
    assert am.predict_labels(s, threshold=0.7).tolist() == [False, False, True]
    p = np.array([[0.2, 0.5, 0.3], [0.4, 0.4, 0.2], [0.1, 0.1, 0.8]])
    assert am.predict_labels(p).tolist() == np.argmax(p, axis=1).tolist() == [1, 0, 2]
    ova = am.predict_labels(p, rule="one_vs_all", threshold=0.4)
    assert ova.tolist() == [[False, True, False], [True, True, False], [False, False, True]]
    assert not am.predict_labels(p, rule="one_vs_all", threshold=0.9).any()
    with pytest.raises(assay.AssayError, match="y_score contains NaN at index 1"):
        am.predict_labels([0.1, np.nan])
    with pytest.raises(assay.AssayError, match="rule must be 'argmax' or 'one_vs_all'"):
        am.predict_labels(p, rule="max")


def test_encode_labels_numeric_and_strings(rng):
    from assay._labels import encode_labels as _encode_labels
    yt = rng.integers(-5, 5, 100)
    yp = rng.integers(0, 8, 100)
    classes, ct, cp = _encode_labels(yt, yp)
    ref = np.unique(np.concatenate([yt, yp]))
    assert (classes == ref).all() and (classes[ct] == yt).all() and (classes[cp] == yp).all()
    big = np.array([10**15, -3, 10**15, 7])  # wide range: sort-based path
    classes, ct, _ = _encode_labels(big)
    assert classes.tolist() == [-3, 7, 10**15] and ct.tolist() == [2, 0, 2, 1]
    classes, ct, cp = _encode_labels(np.array(["b", "a"]), np.array(["c", "a"]))
    assert classes.tolist() == ["a", "b", "c"] and ct.tolist() == [1, 0] and cp.tolist() == [2, 0]
    classes, ct, _ = _encode_labels(np.array([0.5, -1.25, 0.5]))
    assert classes.tolist() == [-1.25, 0.5] and ct.tolist() == [1, 0, 1]


BAD = [
    (lambda: am.confusion_matrix([0, 1, 1, 0, 1], [0, 1, 1, 0]),
     r"Found input variables with inconsistent numbers of samples: \[5, 4\]"),
    (lambda: am.f1_score([0, 1, 1, 0, 1], [0, 1, 1, 0]),
     r"Found input variables with inconsistent numbers of samples: \[5, 4\]"),
    (lambda: am.accuracy_score([0, 1, 1.0], [0, np.nan, 1.0]),
     r"Input y_pred contains NaN. First at index 1."),
    (lambda: am.accuracy_score([0, 1], [0, 1], sample_weight=[1, -1]),
     r"sample_weight must be >= 0, found -1 at index 1"),
    (lambda: am.confusion_matrix([0, 1], [0, 1], sample_weight=[1, 2, 3]),
     r"Found input variables with inconsistent numbers of samples: \[2, 2, 3\]"),
    (lambda: am.confusion_matrix([0, 1], ["a", "b"]), r"Mix of label input types \(string and number\)"),
    (lambda: am.accuracy_score([0, 1], [0.5, 1.0]),
     "Classification metrics can't handle a mix of binary and continuous targets"),
    (lambda: am.precision_score([0, 1, 2], [0, 1, 2]), "Target is multiclass but average='binary'"),
    (lambda: am.precision_score([0, 1], [0, 1], pos_label=3),
     r"pos_label=3 is not a valid label. It should be one of \[0, 1\]"),
    (lambda: am.f1_score([0, 1], [0, 1], average="samples"), "Samplewise metrics are not available"),
    (lambda: am.f1_score([0, 1], [0, 1], average="mean"), "average must be one of"),
    (lambda: am.f1_score([0, 1], [0, 1], zero_division=2), "Got zero_division=2"),
    (lambda: am.fbeta_score([0, 1], [0, 1], beta=-1), "beta should be >=0 in the F-beta score"),
    (lambda: am.f1_score(np.eye(3), np.eye(3), labels=[0, 5], average="macro"),
     r"All labels must be in \[0, n labels\) for multilabel targets. Got 5 > 2"),
    (lambda: am.confusion_matrix([0, 1], [0, 1], normalize="rows"), "normalize must be one of"),
    (lambda: am.accuracy_score([0, 1], [0, 1], average="macro", normalize=False),
     "normalize=False is only defined for average 'micro' or 'weighted'"),
    (lambda: am.grouped_confusion_matrix([0, 1], [0, 1], [0, 1]), "row_groups must be a dict"),
]


@pytest.mark.parametrize("call,message", BAD)
def test_bad_input_messages(call, message):
    with pytest.raises(assay.AssayError, match=message):
        call()
