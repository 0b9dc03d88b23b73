"""Mismatches with scikit-learn 1.2.1 found by the differential fuzzer (tests/fuzz/differential.py),
each pinned with the case it found (shrunk) and scikit-learn's answer next to assay's."""
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import assay.metrics as am


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# Overflowing sums: Neumaier's compensation term was inf - inf = NaN (assay/core/compensated_sum).
@pytest.mark.parametrize("name,args,kwargs", [
    ("mean_squared_error", ([1e200, -1e200], [-1e200, 1e200]), {}),
    ("mean_absolute_error", ([1e308, -1e308], [-1e308, 1e308]), {}),
    ("mean_tweedie_deviance", ([1.001], [1e-300]), {"power": 3.0, "sample_weight": [0.85]}),
    ("mean_poisson_deviance", ([5e-324], [1.3574124034240176e299]), {}),
    ("auc", ([-1.3820816859255794e300, -4.1814384489236416e299], [1e300, 1e300]), {}),
    ("auc", ([0.027, 0.11], [-np.inf, 3.0]), {}),
    ("r2_score", ([0.0, -1e300], [0.0, -1e300]), {}),
])
def test_overflow_gives_infinity_like_scikit_learn(name, args, kwargs):
    ours = _quiet(getattr(am, name), *args, **kwargs)
    theirs = _quiet(getattr(skm, name), *args, **kwargs)
    assert not np.isnan(theirs)
    assert ours == theirs


# Products of extreme weights under/overflowed: NaN where the (scale-invariant) value is defined.
def test_roc_auc_with_extreme_weights():
    y, s = [0.0, 1.0], [-1.2194104209268189e-300, 9.666500260306374e-301]
    assert am.roc_auc_score(y, s, sample_weight=[5.78e-301, 6.91e-301]) == 1.0
    assert skm.roc_auc_score(y, s, sample_weight=[5.78e-301, 6.91e-301]) == 1.0
    w = [5.9e299, 7.9e299]
    assert am.roc_auc_score([True, False], [1.55e300, 1.43e300], sample_weight=w) == 1.0
    y2 = np.array([[0, 0, 0, 0], [1, 1, 1, 0], [1, 0, 0, 1]])
    s2 = np.zeros((3, 4))
    w2 = np.array([9.42e299, 2.08e299, 3.38e299])
    np.testing.assert_array_equal(am.roc_auc_score(y2, s2, sample_weight=w2, average=None),
                                  [0.5] * 4)


def test_kappa_and_mcc_with_tiny_weights_equal_the_unweighted_values():
    a, b = ["y", "z", "y", "z"], ["z", "z", "y", "y"]
    tiny = np.full(4, 4.6e-301)
    assert am.cohen_kappa_score(a, b, sample_weight=tiny) == skm.cohen_kappa_score(a, b) == 0.0
    assert _quiet(skm.cohen_kappa_score, a, b, sample_weight=tiny) == -np.inf  # underflow
    a, b = [0, 1, 1, 0], [0, 1, 0, 0]
    assert am.matthews_corrcoef(a, b, sample_weight=tiny) == pytest.approx(
        skm.matthews_corrcoef(a, b), rel=1e-15)


def test_mcc_of_one_true_class_with_float_weights_warns():
    # n * n - sum(truth^2) rounded below 0: sqrt gave NaN without the warning of row 3.
    w = [2.5575885406539145, 2.35071784769059, 0.2520758478840903, 1.9436787832576468,
         1.7084186936903667]
    with pytest.warns(am.UndefinedMetricWarning, match="one class only"):
        assert np.isnan(am.matthews_corrcoef([0, 0, 0, 0, 0], [2, 1, 1, 2, 1], sample_weight=w))


# Integer weights keep unnormalised counts integers (scikit-learn: dot product of hits and weights).
def test_counts_with_integer_weights_are_ints():
    w = np.array([4])
    for fn in (skm.accuracy_score, am.accuracy_score):
        got = fn([-3], [7], sample_weight=w, normalize=False)
        assert isinstance(got, (int, np.integer)) and got == 0
    got = am.accuracy_score([1, 2, 2], [1, 2, 0], sample_weight=np.array([2, 3, 5]),
                            normalize=False)
    assert isinstance(got, (int, np.integer)) and got == 5
    assert isinstance(am.zero_one_loss([1, 2], [1, 0], sample_weight=np.array([2, 3]),
                                       normalize=False), (int, np.integer))
    s = np.eye(4)[[1, 0, 3, 3]]
    got = am.top_k_accuracy_score([1, 2, 3, 0], s, k=1, normalize=False,
                                  sample_weight=np.array([0, 2, 2, 0]))
    assert isinstance(got, (int, np.integer)) and got == 2
    assert isinstance(am.accuracy_score([1], [1], sample_weight=[0.5], normalize=False), float)


def test_top_k_accuracy_of_no_samples_raises_like_scikit_learn():
    for fn in (am.top_k_accuracy_score, skm.top_k_accuracy_score):
        with pytest.raises(ValueError, match="0 sample"):
            fn([], np.zeros((0, 5)), k=5, labels=[0, 1, 2, 3, 4])


def test_float_counts_when_no_sample_is_right():
    # scikit-learn 1.2 starts its per-label counts from np.zeros when no sample is predicted
    # right, so multilabel_confusion_matrix and the support are float64 there (int64 otherwise).
    for fn in (am.multilabel_confusion_matrix, skm.multilabel_confusion_matrix):
        assert fn([0, 1], [1, 0]).dtype == np.float64
        assert fn([0, 1], [1, 1]).dtype == np.int64
    ours = am.precision_recall_fscore_support([0, 1], [1, 0], zero_division=0)[3]
    assert ours.dtype == np.float64 and ours.tolist() == [1.0, 1.0]
    assert am.classification_report([0, 1], [1, 0], zero_division=0) == \
        skm.classification_report([0, 1], [1, 0], zero_division=0)


def test_weighted_average_without_positives_is_int_zero():
    y, s = [[0, 0, 0, 0, 0]], [[-4.1, -4.7, 3.6, -2.5, -3.1]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no column is scored, so no warning
        got = am.roc_auc_score(y, s, average="weighted")
        assert got == 0 and isinstance(got, int)
        got = am.average_precision_score([[0, 0], [0, 0]], [[0.3, 0.7], [0.2, 0.1]],
                                         average="weighted")
        assert got == 0 and isinstance(got, int)


def test_lrap_with_zero_total_weight_is_nan():
    with pytest.warns(am.UndefinedMetricWarning, match="sum to zero"):
        assert np.isnan(am.label_ranking_average_precision_score([[1, 0]], [[4.0, 5.0]],
                                                                 sample_weight=[0.0]))
    assert np.isnan(_quiet(skm.label_ranking_average_precision_score, [[1, 0]], [[4.0, 5.0]],
                           sample_weight=[0.0]))


def test_det_curve_with_a_class_of_zero_weight_follows_scikit_learn():
    # scikit-learn >= 1.7 (docs/conventions.md, row 14): zero-weight samples dropped, the curve
    # starts at threshold +inf, and the positives' 0/0 rates are NaN.
    args = ([1, 0, 1], [0.8, -0.9, 0.3])
    with pytest.warns(am.UndefinedMetricWarning, match="positives have zero total weight"):
        ours = am.det_curve(*args, sample_weight=[0.0, 0.5, 0.0])
    for a, b in zip(ours, ([0.0], [np.nan], [np.inf])):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="Only one class is present"):
        am.det_curve([1, 1], [0.8, 0.3])


def test_samplewise_counts_with_integer_weights_are_ints():
    args = (np.array([[0, 1, 0]]), np.array([[1, 0, 1]]))
    for fn in (am.multilabel_confusion_matrix, skm.multilabel_confusion_matrix):
        assert fn(*args, sample_weight=np.array([1]), samplewise=True).dtype == np.int64
        assert fn(*args, sample_weight=np.array([1])).dtype == np.float64


def test_multilabel_confusion_matrix_of_no_samples_raises():
    for fn in (am.multilabel_confusion_matrix, skm.multilabel_confusion_matrix):
        with pytest.raises(ValueError, match="0 sample"):
            fn(np.zeros((0, 4), dtype=int), np.zeros((0, 4), dtype=int), samplewise=True)


def test_d2_tweedie_checks_input_before_the_sample_count():
    for fn in (am.d2_tweedie_score, skm.d2_tweedie_score):
        with pytest.raises(ValueError, match="NaN"):
            fn([1.0], [np.nan], power=1.0)


def test_d2_poisson_of_all_zero_targets_is_nan():
    # The null model predicts the mean 0, outside the Poisson domain: xlogy(0, 0/0) is NaN.
    args = ([0.0, 0.0], [6.09e299, 5.4e298])
    assert np.isnan(am.d2_tweedie_score(*args, power=1.0))
    assert np.isnan(_quiet(skm.d2_tweedie_score, *args, power=1.0))


def test_r2_of_a_constant_column_with_weights_is_exact():
    y = np.ones((5, 2))
    p = np.array([[0.0084, 0.0153], [-0.0085, 0.0017], [0.0078, 0.0029], [0.0099, 0.0027],
                  [-0.0059, -0.0050]])
    w = np.array([0.3, 1.7, 0.2, 2.9, 1.1])
    np.testing.assert_array_equal(am.r2_score(y, p, sample_weight=w, multioutput="raw_values"),
                                  skm.r2_score(y, p, sample_weight=w, multioutput="raw_values"))


def test_exact_cnf_refuses_arithmetic_on_rounded_grid_values():
    # -1 + 15 * 0.1 is 0.5 in floating point (enumerate: 2x == 1 holds) but not exactly.
    from sklearn.tree import DecisionTreeClassifier
    import assay.count
    import assay.models
    X = np.array([[-1.0, 0.0], [0.5, 1.0], [0.0, 1.0], [-0.5, 0.0]])
    model = assay.models.from_sklearn(DecisionTreeClassifier(random_state=0).fit(X, [0, 1, 1, 0]))
    spec = ("input v0[1] : real[-1.0, 0.5] step 0.1;\ninput v1 : bool;\n"
            "safety S = (2.0 * v0[0]) == 1 => label == 1;\n")
    s = assay.count.count(model, spec, method="enumerate")["safety"][0]
    assert s["satisfied"] + s["violated"] == 2  # x = 0.5 with either v1
    with pytest.raises(ValueError, match=r"v0\[0\]: the CNF encoding .* step 0.1 .* rounded"):
        assay.count.count(model, spec, method="exact-cnf")
    ok = spec.replace("step 0.1", "step 0.125")
    cells = lambda m: [(r["satisfied"], r["violated"])
                       for r in assay.count.count(model, ok, method=m)["safety"]]
    assert cells("exact-cnf") == cells("enumerate")


def test_confusion_matrix_of_no_samples_has_scikit_learns_dtype():
    for fn in (am.confusion_matrix, skm.confusion_matrix):
        assert fn([], [], normalize="true").dtype == np.float64
        assert fn(np.array([], dtype=int), np.array([], dtype=int)).dtype == np.int64


# Difference #4 (docs/conventions.md), found with seed 20261207: a class of zero total weight with
# max_fpr. scikit-learn raises only with max_fpr (its NaN fpr leaves nothing below the cut) and
# gives NaN + UndefinedMetricWarning without it; assay gives NaN + the warning either way.
def test_roc_auc_max_fpr_with_a_class_of_zero_weight_is_undefined():
    y, s, w = [1, 2], [-0.0103, 0.0098], [0.0, 0.77]
    with pytest.raises(ValueError, match="At least 2 points are needed"):
        _quiet(skm.roc_auc_score, y, s, sample_weight=w, max_fpr=0.5)
    assert np.isnan(_quiet(skm.roc_auc_score, y, s, sample_weight=w))
    for kwargs in ({"max_fpr": 0.5}, {}):
        with pytest.warns(am.UndefinedMetricWarning):
            assert np.isnan(am.roc_auc_score(y, s, sample_weight=w, **kwargs))


# Found with seed 20261207: every row right, weights near 1e300. The total weight was np.sum's
# (pairwise) and the correct weight the library's compensated sum: their rounding differed and
# the loss was 1.2e285 instead of 0. scikit-learn subtracts two sums of the weights too, and
# whether they round alike depends on the CPU numpy dispatches to (0 with AVX2, 1.2e285 with
# AVX-512): only the size of its error, a few units of rounding of the total, is asserted.
def test_zero_one_loss_count_of_all_right_rows_with_huge_weights_is_zero():
    w = np.random.default_rng(0).uniform(1e298, 1e300, 16)
    y = np.full(16, 2)
    assert am.zero_one_loss(y, y, normalize=False, sample_weight=w) == 0.0
    sk = skm.zero_one_loss(y, y, normalize=False, sample_weight=w)
    assert abs(sk) <= 4 * np.finfo(float).eps * w.sum()
    p = y.copy()
    p[3] = 1
    assert am.zero_one_loss(y, p, normalize=False, sample_weight=w) == pytest.approx(w[3],
                                                                                     rel=1e-12)


# Found with seed 20261207: zero samples with weights, multi_class="ovr", average="weighted"
# returned 0 (an average over no class); scikit-learn raises ValueError, as assay does now on
# every route.
@pytest.mark.parametrize("kwargs", [
    {"multi_class": "ovr", "average": "weighted", "labels": ["c0", "c1", "c2", "c3"],
     "sample_weight": []},
    {"multi_class": "ovr", "average": "macro", "labels": ["c0", "c1", "c2", "c3"]},
])
def test_roc_auc_of_no_samples_raises(kwargs):
    args = (np.array([], dtype="<U2"), np.zeros((0, 4)))
    with pytest.raises(ValueError):
        skm.roc_auc_score(*args, **kwargs)
    with pytest.raises(ValueError, match="y_true is empty: need at least one sample"):
        am.roc_auc_score(*args, **kwargs)
    # No samples: 0.0 of np.sum's type, as scikit-learn (found next: the library's count gave int 0)
    empty = am.zero_one_loss(np.array([]), np.array([]), normalize=False,
                             sample_weight=np.array([]))
    assert isinstance(empty, np.float64) and empty == 0.0


# Found with seed 20261207: no samples with labels given: scikit-learn returns int zeros before
# it looks at normalize or the weights (without labels: float64 when normalised).
@pytest.mark.parametrize("kwargs", [{"normalize": "pred"}, {"sample_weight": np.array([])}, {}])
def test_confusion_matrix_of_no_samples_with_labels_is_int_zeros(kwargs):
    args = (np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    ours = am.confusion_matrix(*args, labels=[2, 1], **kwargs)
    theirs = skm.confusion_matrix(*args, labels=[2, 1], **kwargs)
    assert ours.dtype == theirs.dtype == np.int_ and ours.shape == (2, 2) and not ours.any()


# Found with seed 20261207: the weighted count of no samples is np.dot's 0.0 with float weights.
@pytest.mark.parametrize("y", [np.zeros((0, 5), dtype=np.int64), np.array([], dtype=np.int64)])
def test_accuracy_count_of_no_samples_keeps_the_weights_type(y):
    for w, kind in ((np.array([]), np.float64), (None, int)):
        ours = am.accuracy_score(y, y, normalize=False, sample_weight=w)
        theirs = skm.accuracy_score(y, y, normalize=False, sample_weight=w)
        assert ours == theirs == 0 and isinstance(ours, kind), (ours, theirs)


# Found with seed 20261207 (case 231403): the same weighted average of nothing in AP.
def test_average_precision_of_no_samples_raises():
    args = (np.zeros((0, 3), dtype=np.int64), np.zeros((0, 3)))
    kwargs = {"average": "weighted", "sample_weight": np.array([])}
    with pytest.raises(ValueError):
        skm.average_precision_score(*args, **kwargs)
    with pytest.raises(ValueError, match="y_true is empty: need at least one sample"):
        am.average_precision_score(*args, **kwargs)


# Seed 20261207, case 2094: no sample and labels none of y1 has. scikit-learn 1.9 refuses such
# labels (docs/conventions.md row 20); 1.2.1 divides 0 by 0 (NaN with numpy's RuntimeWarning).
# The fuzzer classes the case as that documented difference.
def test_cohen_kappa_with_labels_absent_from_y1_raises_as_scikit_learn_1_9():
    empty = np.array([], dtype=np.int64)
    kwargs = {"sample_weight": np.array([]), "weights": "quadratic", "labels": [1, 2, 3, 4, 99]}
    with pytest.raises(ValueError, match="At least one label in `labels` must be present in `y1`"):
        am.cohen_kappa_score(empty, empty, **kwargs)
    assert np.isnan(_quiet(skm.cohen_kappa_score, empty, empty, **kwargs))


# Seed 20261207, case 248808: a weighted multilabel count of an all-zero column. assay gives
# float64 as scikit-learn does for every weighted count; scikit-learn 1.2.1's is int64 here only
# because numpy's bincount of no entries with weights is int64. The fuzzer classes it as not
# comparable; the values are equal.
def test_weighted_multilabel_count_of_an_all_zero_column_is_float():
    args = (np.array([[0, 0, 1, 1]]), np.array([[0, 0, 0, 1]]))
    kwargs = {"sample_weight": np.array([0]), "labels": [1]}
    ours = am.multilabel_confusion_matrix(*args, **kwargs)
    theirs = skm.multilabel_confusion_matrix(*args, **kwargs)
    assert ours.dtype == np.float64 and theirs.dtype == np.int64
    np.testing.assert_array_equal(ours, theirs)
    assert np.bincount(np.array([], dtype=np.int32), weights=np.array([], dtype=np.int64),
                       minlength=1).dtype == np.int64
    # Case 298338: the same count as the report's support, "0.0" (assay) against "0".
    report_args = (np.array([[1, 0]]), np.array([[1, 0]]))
    report_kwargs = {"sample_weight": np.array([2]), "digits": 0, "zero_division": 1,
                     "labels": [1]}
    ours = _quiet(am.classification_report, *report_args, **report_kwargs)
    theirs = _quiet(skm.classification_report, *report_args, **report_kwargs)
    assert ours.splitlines()[2].split() == ["1", "1", "1", "1", "0.0"]
    assert theirs.splitlines()[2].split() == ["1", "1", "1", "1", "0"]
