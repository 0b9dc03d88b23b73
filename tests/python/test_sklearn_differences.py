"""Each deliberate difference from scikit-learn 1.2.1 listed in docs/conventions.md ("Deliberate
differences", rows 1-10), pinned: what assay does, next to what scikit-learn does."""
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import assay
import assay.metrics as am


def test_1_roc_curve_first_threshold_is_inf():
    y, s = [0, 1, 1], [0.2, 0.6, 0.9]
    _, _, ours = am.roc_curve(y, s)
    _, _, theirs = skm.roc_curve(y, s)
    assert ours[0] == np.inf and theirs[0] == 1.9
    np.testing.assert_array_equal(ours[1:], theirs[1:])


def test_2_fbeta_rule_of_sklearn_1_4():
    # beta = 0 with a label never predicted but present: F_0 = precision = tp / pred = 0/0.
    y, p = [0, 1, 1], [0, 0, 0]
    assert am.fbeta_score(y, p, beta=0, zero_division=1) == 1.0
    assert skm.fbeta_score(y, p, beta=0, zero_division=1) == 0.0


def test_3_matthews_corrcoef_of_one_class_is_nan():
    with pytest.warns(am.UndefinedMetricWarning, match="Matthews correlation coefficient"):
        assert np.isnan(am.matthews_corrcoef([0, 0, 0], [0, 1, 0]))
    assert skm.matthews_corrcoef([0, 0, 0], [0, 1, 0]) == 0.0


def test_4_roc_auc_of_one_class_is_nan():
    with pytest.warns(am.UndefinedMetricWarning, match="Only one class present"):
        assert np.isnan(am.roc_auc_score([1, 1, 1], [0.2, 0.5, 0.9]))
    with pytest.raises(ValueError, match="Only one class present"):
        skm.roc_auc_score([1, 1, 1], [0.2, 0.5, 0.9])


def test_5_integer_weight_overflow_raises():
    w = np.full(3, 2**63 - 1, dtype=np.int64)
    with pytest.raises(ValueError, match="beyond int64's range"):
        am.confusion_matrix([0, 1, 1], [0, 1, 1], sample_weight=w)
    assert skm.confusion_matrix([0, 1, 1], [0, 1, 1], sample_weight=w)[1, 1] == -2


def test_6_negative_weights_are_refused():
    with pytest.raises(ValueError, match="sample_weight must be >= 0, found -1 at index 1"):
        am.mean_absolute_error([1, 2], [1, 3], sample_weight=[1, -1])
    assert skm.mean_absolute_error([1, 2, 3], [1, 3, 3], sample_weight=[1, -1, 1]) == -1.0


def test_7_warning_class_is_assays():
    assert issubclass(am.UndefinedMetricWarning, assay.AssayWarning)
    assert issubclass(am.UndefinedMetricWarning, UserWarning)
    with pytest.warns(am.UndefinedMetricWarning):
        am.recall_score([0, 0], [1, 1])


def test_8_messages_add_the_location():
    with pytest.raises(ValueError, match=r"^Input y_pred contains NaN\. First at index 2\.$"):
        am.accuracy_score([0, 1, 1], [0, 1, np.nan])
    with pytest.raises(ValueError, match=r"^Input y_pred contains NaN\.$"):
        skm.accuracy_score([0, 1, 1], [0, 1, np.nan])


def test_9_score_of_no_samples_is_nan_with_warning():
    with pytest.warns(am.UndefinedMetricWarning, match="zero samples"):
        assert np.isnan(am.accuracy_score([], []))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(skm.accuracy_score([], []))


def test_10_kappa_without_expected_disagreement_is_nan_with_warning():
    with pytest.warns(am.UndefinedMetricWarning, match="Cohen's kappa is undefined"):
        assert np.isnan(am.cohen_kappa_score([1, 1], [1, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(skm.cohen_kappa_score([1, 1], [1, 1]))
