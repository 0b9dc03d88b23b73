"""assay.metrics' ranking additions (coverage_error, label_ranking_average_precision_score,
label_ranking_loss, dcg_score, ndcg_score, det_curve, auc) against scikit-learn 1.2.1 on
randomised inputs with ties and weights at rtol 1e-12."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.metrics as skm

import assay.metrics as am

RTOL = 1e-12


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=0)


def both(name, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(am, name)(*args, **kwargs), getattr(skm, name)(*args, **kwargs)


@pytest.mark.parametrize("name", ["coverage_error", "label_ranking_average_precision_score",
                                  "label_ranking_loss"])
@pytest.mark.parametrize("ties", [False, True])
def test_multilabel_ranking(rng, name, ties):
    for n, k in ((1, 2), (20, 3), (60, 7)):
        y = rng.integers(0, 2, size=(n, k))
        y[0] = 0  # a sample without relevant labels
        s = rng.integers(0, 3, size=(n, k)).astype(float) if ties else rng.normal(size=(n, k))
        w = rng.random(n)
        close(*both(name, y, s))
        close(*both(name, y, s, sample_weight=w))
        if name != "coverage_error":
            close(*both(name, sp.csr_matrix(y), s))


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("k", [None, 1, 3])
def test_dcg_ndcg(rng, ignore_ties, k):
    y = rng.integers(0, 4, size=(30, 6)).astype(float)
    s = rng.normal(size=(30, 6)) if ignore_ties else rng.integers(0, 3, size=(30, 6)) * 1.0
    w = rng.random(30)
    for kw in ({}, {"sample_weight": w}):
        close(*both("dcg_score", y, s, k=k, ignore_ties=ignore_ties, **kw))
        close(*both("ndcg_score", y, s, k=k, ignore_ties=ignore_ties, **kw))
    close(*both("dcg_score", y, s, k=k, log_base=10, ignore_ties=ignore_ties))


def test_det_curve_and_auc(rng):
    for n in (5, 50, 400):
        y = rng.integers(0, 2, size=n)
        y[:2] = [0, 1]
        s = rng.integers(0, 10, size=n).astype(float)
        w = rng.random(n)
        for kw in ({}, {"sample_weight": w}):
            ours, theirs = both("det_curve", y, s, **kw)
            # scikit-learn 1.7 starts the curve at threshold +inf (docs/conventions.md row 14):
            # 1.2's points are the ones that follow, past those 1.2 dropped at the start.
            if np.isinf(ours[2][-1]):
                assert ours[0][-1] == 0 and ours[1][-1] == 1
                ours = [a[:len(theirs[0]) - 1] for a in ours]
                theirs = [b[:-1] for b in theirs]
            for a, b in zip(ours, theirs):
                close(a, b)
        fpr, tpr, _ = skm.roc_curve(y, s)
        close(am.auc(fpr, tpr), skm.auc(fpr, tpr))
        close(am.auc(fpr[::-1], tpr[::-1]), skm.auc(fpr[::-1], tpr[::-1]))


def test_auc_direction_over_many_blocks(rng):
    # Steps of zero in either direction, over several of the 256-step blocks the sum runs in.
    x = np.cumsum(rng.integers(0, 3, size=1000)).astype(float)
    y = rng.random(1000)
    for xs in (x, x[::-1], np.full(1000, 2.0)):
        close(am.auc(xs, y), skm.auc(xs, y))
    # scikit-learn's rule: decreasing only if every step is <= 0, so a NaN step beside a
    # negative one is refused, and beside positive ones gives a NaN area.
    x_nan = x[::-1].copy()
    x_nan[700] = np.nan
    with pytest.raises(ValueError, match="x is neither increasing nor decreasing"):
        skm.auc(x_nan, y)
    with pytest.raises(ValueError, match="x is neither increasing nor decreasing"):
        am.auc(x_nan, y)
    x_nan = x.copy()
    x_nan[700] = np.nan
    assert np.isnan(skm.auc(x_nan, y)) and np.isnan(am.auc(x_nan, y))


def test_bad_input():
    with pytest.raises(ValueError, match="x is neither increasing nor decreasing"):
        am.auc([0, 1, 0.5], [0, 1, 1])
    with pytest.raises(ValueError, match="At least 2 points are needed"):
        am.auc([0], [1])
    with pytest.raises(ValueError, match="Only one class is present in y_true. Detection error"):
        am.det_curve([1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="multiclass-multioutput format is not supported"):
        am.coverage_error([[0, 1, 2]], [[0.1, 0.2, 0.3]])
    with pytest.raises(ValueError, match=r"Input contains NaN"):
        am.label_ranking_loss([[0, 1]], [[np.nan, 0.2]])
    with pytest.raises(ValueError, match="Only .* formats are supported. Got binary instead"):
        am.ndcg_score([1, 0], [0.2, 0.1])
    # scikit-learn >= 1.4 raises (1.2 warned): docs/conventions.md row 20
    with pytest.raises(ValueError, match="ndcg_score should not be used on negative"):
        am.ndcg_score([[-1, 2]], [[0.2, 0.1]])
    with pytest.raises(ValueError, match="more than 1 document. Got 1 instead"):
        am.ndcg_score([[1]], [[1]])
