"""Ranking metrics against scikit-learn 1.2.1 (randomized, rtol 1e-12) and hand-computed values
for the conventions scikit-learn lacks (VOC / COCO / numpy grids / sequential ties / n_pos)."""
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import assay
import assay.metrics as am

RTOL = 1e-12
ATOL = 1e-14


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)


def sk_quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def make_binary(rng, n, ties=False, weights=None):
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + 0.7 * y
    if ties:
        s = np.round(s, 1)
    w = None
    if weights == "float":
        w = rng.random(n) * 3
        w[rng.random(n) < 0.1] = 0.0
    elif weights == "int":  # exact sums: curves match scikit-learn bit for bit
        w = rng.integers(0, 4, n).astype(float)
    return y, s, w


CASES = [(n, ties, weights) for n in (1, 2, 7, 50, 1000) for ties in (False, True)
         for weights in (None, "float", "int")]


# ----------------------------------------------------------------------------------------------
# Curves

@pytest.mark.parametrize("n,ties,weights", CASES)
def test_precision_recall_curve_matches_sklearn(rng, n, ties, weights):
    for _ in range(3):
        y, s, w = make_binary(rng, n, ties, weights)
        if w is not None and w[y == 1].sum() == 0:
            continue
        p, r, t = am.precision_recall_curve(y, s, sample_weight=w)
        p2, r2, t2 = sk_quiet(skm.precision_recall_curve, y, s, sample_weight=w)
        assert p.shape == p2.shape and t.shape == t2.shape
        close(p, p2)
        close(r, r2)
        close(t, t2)


@pytest.mark.parametrize("n,ties,weights", CASES)
def test_roc_curve_matches_sklearn(rng, n, ties, weights):
    for drop in (False, True):
        y, s, w = make_binary(rng, n, ties, weights)
        if w is not None and (w[y == 1].sum() == 0 or w[y == 0].sum() == 0):
            continue
        if len(np.unique(y)) < 2:
            continue
        f, tp, t = am.roc_curve(y, s, sample_weight=w, drop_intermediate=drop)
        f2, tp2, t2 = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=drop)
        assert f.shape == f2.shape
        close(f, f2)
        close(tp, tp2)
        assert t[0] == np.inf  # scikit-learn >= 1.3 convention; 1.2.1 uses max + 1
        close(t[1:], t2[1:])


def test_curves_pos_label_strings(rng):
    y = rng.choice(["cat", "dog"], 200)
    s = rng.random(200)
    for pos in ("cat", "dog"):
        for a, b in zip(am.precision_recall_curve(y, s, pos_label=pos),
                        skm.precision_recall_curve(y, s, pos_label=pos)):
            close(a, b)
        a = am.roc_curve(y, s, pos_label=pos)
        b = skm.roc_curve(y, s, pos_label=pos)
        close(a[0], b[0])
        close(a[1], b[1])


def test_curves_minus_one_one_labels(rng):
    y = rng.choice([-1, 1], 100)
    s = rng.random(100)
    for a, b in zip(am.precision_recall_curve(y, s), skm.precision_recall_curve(y, s)):
        close(a, b)


def test_all_scores_equal():
    y = np.array([0, 1, 1, 0, 1])
    s = np.full(5, 0.3)
    p, r, t = am.precision_recall_curve(y, s)
    close(p, [0.6, 1.0])
    close(r, [1.0, 0.0])
    close(t, [0.3])
    close(am.average_precision_score(y, s), skm.average_precision_score(y, s))
    assert am.roc_auc_score(y, s) == 0.5
    f, tp, t = am.roc_curve(y, s)
    close(f, [0, 1])
    close(tp, [0, 1])


def test_negative_zero_ties_with_zero():
    y = np.array([1, 0, 1, 0])
    s = np.array([0.0, -0.0, 1.0, -1.0])
    p, r, t = am.precision_recall_curve(y, s)
    assert len(t) == 3
    close(am.roc_auc_score(y, s), skm.roc_auc_score(y, s))


def test_pr_drop_intermediate():
    # scikit-learn >= 1.3 rule: keep the first and last point of each run of equal tp.
    y = np.array([1, 0, 0, 0, 1, 1, 0, 0])
    s = np.arange(8, 0, -1).astype(float)
    p, r, t = am.precision_recall_curve(y, s)
    pd, rd, td = am.precision_recall_curve(y, s, drop_intermediate=True)
    # decreasing-threshold tp: 1 1 1 1 2 3 3 3 -> keep indices 0, 3, 4, 5, 7
    keep_desc = [0, 3, 4, 5, 7]
    m = len(t)
    keep = sorted(m - 1 - k for k in keep_desc)
    close(td, t[keep])
    close(pd, np.r_[p[:-1][keep], 1.0])
    close(rd, np.r_[r[:-1][keep], 0.0])


def test_interpolated_precision():
    p = np.array([0.5, 0.66, 0.5, 1.0, 1.0])
    r = np.array([1.0, 1.0, 0.5, 0.5, 0.0])
    close(am.interpolated_precision(p, r), [0.66, 0.66, 1.0, 1.0, 1.0])
    y, s, _ = make_binary(np.random.default_rng(3), 300, ties=True)
    p, r, _ = am.precision_recall_curve(y, s)
    expected = [p[r >= ri].max() for ri in r]
    close(am.interpolated_precision(p, r), expected)


# ----------------------------------------------------------------------------------------------
# Average precision

@pytest.mark.parametrize("n,ties,weights", CASES)
def test_average_precision_matches_sklearn(rng, n, ties, weights):
    for _ in range(3):
        y, s, w = make_binary(rng, n, ties, weights)
        if w is not None and w[y == 1].sum() == 0:
            continue
        a = am.average_precision_score(y, s, sample_weight=w)
        b = sk_quiet(skm.average_precision_score, y, s, sample_weight=w)
        close(a, b)


@pytest.mark.parametrize("n,ties,weights", CASES)
def test_trapezoid_is_sklearn_auc_of_pr_curve(rng, n, ties, weights):
    y, s, w = make_binary(rng, n, ties, weights)
    if y.sum() == 0 or (w is not None and w[y == 1].sum() == 0):
        return
    p, r, _ = skm.precision_recall_curve(y, s, sample_weight=w)
    close(am.average_precision_score(y, s, sample_weight=w, method="trapezoid"), skm.auc(r, p))


def voc_reference(y_sorted, n_grid, grid):
    """Direct transcription of the VOC / COCO code on a ranking (one point per sample)."""
    y = np.asarray(y_sorted)
    tp = np.cumsum(y)
    fp = np.cumsum(1 - y)
    rec = tp / y.sum()
    prec = tp / (tp + fp)
    if n_grid == 11:
        ts = np.arange(0.0, 1.1, 0.1) if grid == "numpy" else [k / 10 for k in range(11)]
        return sum((prec[rec >= t].max() if np.any(rec >= t) else 0) for t in ts) / 11
    ts = np.linspace(0, 1, 101) if grid == "numpy" else np.array([k / 100 for k in range(101)])
    q = prec.copy()
    for i in range(len(q) - 1, 0, -1):
        q[i - 1] = max(q[i - 1], q[i])
    inds = np.searchsorted(rec, ts, side="left")
    return np.mean([q[i] if i < len(q) else 0 for i in inds])


def voc_allpoint_reference(y_sorted):
    y = np.asarray(y_sorted)
    tp = np.cumsum(y)
    fp = np.cumsum(1 - y)
    mrec = np.r_[0, tp / y.sum(), 1]
    mpre = np.r_[0, tp / (tp + fp), 0]
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    i = np.where(mrec[1:] != mrec[:-1])[0]
    return np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1])


# 10 positives: ranked as below, recall 0.3 is reached exactly at precision 1.
TEN_POS = [1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1]


def test_voc07_numpy_grid_hand_computed():
    y = np.array(TEN_POS)
    s = np.arange(len(y), 0, -1).astype(float)
    # Interpolated precision: 1 up to recall 0.3, then 10/17 (the last point) up to recall 1.
    # exact grid: t = 0, .1, .2, .3 -> 1; t = .4 .. 1 -> 10/17: (4 + 7 * 10/17) / 11 = 138/187.
    # numpy grid: np.arange(0, 1.1, .1)[3] = 0.30000000000000004 > 0.3 -> 10/17: 131/187.
    exact = am.average_precision_score(y, s, method="voc07")
    numpy_grid = am.average_precision_score(y, s, method="voc07", grid="numpy")
    close(exact, 138 / 187)
    close(numpy_grid, 131 / 187)
    assert round(exact, 4) == 0.7380 and round(numpy_grid, 4) == 0.7005
    close(exact, voc_reference(y, 11, "exact"))
    close(numpy_grid, voc_reference(y, 11, "numpy"))


def test_voc_allpoint_hand_computed():
    y = np.array(TEN_POS)
    s = np.arange(len(y), 0, -1).astype(float)
    # 0.3 * 1 + 0.7 * 10/17 = 121/170
    close(am.average_precision_score(y, s, method="voc_allpoint"), 121 / 170)


def test_coco101_hand_computed():
    y = np.array(TEN_POS)
    s = np.arange(len(y), 0, -1).astype(float)
    # k = 0..30 -> 1, k = 31..100 -> 10/17: (31 + 70 * 10/17) / 101 = 1227/1717 (both grids).
    close(am.average_precision_score(y, s, method="coco101"), 1227 / 1717)
    close(am.average_precision_score(y, s, method="coco101", grid="numpy"), 1227 / 1717)
    # 20 positives, recall 0.35 reached at precision 1; np.linspace(0, 1, 101)[35] is
    # 0.35000000000000003: exact (36 + 65 * 20/27) / 101 = 2272/2727, numpy 2265/2727.
    y = np.array([1] * 7 + [0] * 7 + [1] * 13)
    s = np.arange(len(y), 0, -1).astype(float)
    close(am.average_precision_score(y, s, method="coco101"), 2272 / 2727)
    close(am.average_precision_score(y, s, method="coco101", grid="numpy"), 2265 / 2727)


@pytest.mark.parametrize("seed", range(20))
def test_voc_coco_against_reference_code(seed):
    r = np.random.default_rng(seed)
    n = int(r.integers(2, 60))
    y = r.integers(0, 2, n)
    y[0] = 1
    s = r.permutation(n).astype(float)
    y_sorted = y[np.argsort(-s, kind="stable")]
    for grid in ("exact", "numpy"):
        close(am.average_precision_score(y, s, method="voc07", grid=grid),
              voc_reference(y_sorted, 11, grid))
        close(am.average_precision_score(y, s, method="coco101", grid=grid),
              voc_reference(y_sorted, 101, grid))
    close(am.average_precision_score(y, s, method="voc_allpoint"),
          voc_allpoint_reference(y_sorted))


def test_tie_mode_sequential_hand_computed():
    y = np.array([1, 1, 0, 1])
    s = np.array([0.9, 0.5, 0.5, 0.2])
    # group: points (1,0) (2,1) (3,1): 1/3 + 1/3 * 2/3 + 1/3 * 3/4 = 29/36
    close(am.average_precision_score(y, s), 29 / 36)
    # sequential, stable order (index 1 before 2): (1,0) (2,0) (2,1) (3,1): 1/3+1/3+1/4 = 11/12
    close(am.average_precision_score(y, s, tie_mode="sequential"), 11 / 12)
    # same samples, tied pair in the other input order: negative first
    y2 = np.array([1, 0, 1, 1])
    close(am.average_precision_score(y2, s, tie_mode="sequential"), 29 / 36)


def test_n_pos_override():
    y = np.array([1, 0, 1])
    s = np.array([3.0, 2.0, 1.0])
    # recall = tp / 4: 1/4 * 1 + 1/4 * 2/3 = 5/12
    close(am.average_precision_score(y, s, n_pos=4), 5 / 12)
    close(am.average_precision_score(y, s, n_pos=4, method="voc_allpoint"), 5 / 12)
    # voc07: t in {0, .1, .2} -> 1, t in {.3, .4, .5} -> 2/3, t > .5 -> 0: (3 + 2) / 11
    close(am.average_precision_score(y, s, n_pos=4, method="voc07"), 5 / 11)
    close(am.average_precision_score(y, s, n_pos=2), am.average_precision_score(y, s))
    with pytest.raises(assay.AssayError, match=r"n_pos must be positive and at least the number "
                       r"of positives in y_true \(2\), found 1"):
        am.average_precision_score(y, s, n_pos=1)


@pytest.mark.parametrize("average", ["macro", "micro", "weighted", "samples", None])
@pytest.mark.parametrize("weighted", [False, True])
def test_average_precision_multilabel(rng, average, weighted):
    n, k = 120, 4
    y = (rng.random((n, k)) < 0.4).astype(int)
    s = np.round(rng.random((n, k)), 1)
    w = rng.random(n) if weighted else None
    close(am.average_precision_score(y, s, average=average, sample_weight=w),
          sk_quiet(skm.average_precision_score, y, s, average=average, sample_weight=w))


def test_average_precision_binary_pos_label(rng):
    y = rng.choice(["a", "b"], 80)
    s = rng.random(80)
    close(am.average_precision_score(y, s, pos_label="a"),
          skm.average_precision_score(y, s, pos_label="a"))
    with pytest.raises(assay.AssayError, match=r"pos_label=1 is not a valid label. It should be "
                       r"one of \['a', 'b'\]"):
        am.average_precision_score(y, s)


def test_average_precision_no_positives_warns():
    with pytest.warns(assay.AssayWarning, match="No positive class found in y_true"):
        assert am.average_precision_score([0, 0, 0], [0.1, 0.2, 0.3]) == 0.0


# ----------------------------------------------------------------------------------------------
# ROC AUC

@pytest.mark.parametrize("n,ties,weights", CASES)
def test_roc_auc_matches_sklearn(rng, n, ties, weights):
    for max_fpr in (None, 0.3, 1.0):
        y, s, w = make_binary(rng, n, ties, weights)
        if len(np.unique(y)) < 2 or (w is not None and (w[y == 1].sum() == 0 or
                                                         w[y == 0].sum() == 0)):
            continue
        close(am.roc_auc_score(y, s, sample_weight=w, max_fpr=max_fpr),
              skm.roc_auc_score(y, s, sample_weight=w, max_fpr=max_fpr))


@pytest.mark.parametrize("average", ["macro", "micro", "weighted", "samples", None])
def test_roc_auc_multilabel(rng, average):
    n, k = 150, 3
    y = (rng.random((n, k)) < 0.5).astype(int)
    s = np.round(rng.random((n, k)), 2)
    w = rng.random(n)
    if average == "samples":  # every row needs both classes
        y[:, 0], y[:, 1] = 0, 1
    close(am.roc_auc_score(y, s, average=average), skm.roc_auc_score(y, s, average=average))
    close(am.roc_auc_score(y, s, average=average, sample_weight=w),
          skm.roc_auc_score(y, s, average=average, sample_weight=w))


def softmax_scores(rng, n, k, ties=False):
    s = rng.random((n, k))
    if ties:
        s = np.round(s, 1) + 0.01
    return s / s.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("average", ["macro", "weighted", "micro", None])
@pytest.mark.parametrize("ties", [False, True])
def test_roc_auc_multiclass_ovr(rng, average, ties):
    y = rng.integers(0, 4, 300)
    s = softmax_scores(rng, 300, 4, ties)
    w = rng.random(300)
    close(am.roc_auc_score(y, s, multi_class="ovr", average=average),
          skm.roc_auc_score(y, s, multi_class="ovr", average=average))
    close(am.roc_auc_score(y, s, multi_class="ovr", average=average, sample_weight=w),
          skm.roc_auc_score(y, s, multi_class="ovr", average=average, sample_weight=w))


@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("ties", [False, True])
def test_roc_auc_multiclass_ovo(rng, average, ties):
    y = rng.integers(0, 5, 250)
    s = softmax_scores(rng, 250, 5, ties)
    close(am.roc_auc_score(y, s, multi_class="ovo", average=average),
          skm.roc_auc_score(y, s, multi_class="ovo", average=average))


def test_roc_auc_multiclass_string_labels_and_labels_param(rng):
    y = rng.choice(["ant", "bee", "cow"], 200)
    s = softmax_scores(rng, 200, 3)
    for mc in ("ovr", "ovo"):
        close(am.roc_auc_score(y, s, multi_class=mc), skm.roc_auc_score(y, s, multi_class=mc))
    y = rng.integers(0, 3, 200)  # class 3 never occurs: ovo uses present pairs only
    s = softmax_scores(rng, 200, 4)
    close(am.roc_auc_score(y, s, multi_class="ovo", labels=[0, 1, 2, 3]),
          skm.roc_auc_score(y, s, multi_class="ovo", labels=[0, 1, 2, 3]))


def test_roc_auc_multiclass_errors(rng):
    y = rng.integers(0, 3, 50)
    s = softmax_scores(rng, 50, 3)
    with pytest.raises(assay.AssayError, match=r"multi_class must be in \('ovo', 'ovr'\)"):
        am.roc_auc_score(y, s)
    with pytest.raises(assay.AssayError, match="Partial AUC computation not available"):
        am.roc_auc_score(y, s, multi_class="ovr", max_fpr=0.5)
    with pytest.raises(assay.AssayError, match="should sum up to 1.0 over classes"):
        am.roc_auc_score(y, s * 2, multi_class="ovr")
    with pytest.raises(assay.AssayError, match="sample_weight is not supported for multiclass "
                       "one-vs-one ROC AUC"):
        am.roc_auc_score(y, s, multi_class="ovo", sample_weight=np.ones(50))
    with pytest.raises(assay.AssayError, match="Number of classes in y_true not equal"):
        am.roc_auc_score(y, softmax_scores(rng, 50, 4), multi_class="ovr")


def test_roc_auc_single_class_is_nan_with_warning():
    with pytest.warns(assay.AssayWarning, match="Only one class present in y_true"):
        assert np.isnan(am.roc_auc_score([1, 1, 1], [0.1, 0.5, 0.7]))
    with pytest.warns(assay.AssayWarning, match="Only one class present in y_true"):
        # all weight on one class
        assert np.isnan(am.roc_auc_score([1, 0, 1], [0.1, 0.5, 0.7], sample_weight=[1, 0, 1]))


def test_ranked_scores_reweighting_matches_weighted_functions(rng):
    y, s, _ = make_binary(rng, 400, ties=True)
    ranked = am.RankedScores(y, s)
    assert len(ranked) == 400
    for _ in range(5):
        counts = np.bincount(rng.integers(0, 400, 400), minlength=400).astype(float)
        close(ranked.roc_auc(counts), skm.roc_auc_score(y, s, sample_weight=counts))
        close(ranked.average_precision(counts),
              skm.average_precision_score(y, s, sample_weight=counts))
        close(ranked.average_precision(counts, method="voc07"),
              am.average_precision_score(y, s, sample_weight=counts, method="voc07"))
    close(ranked.roc_auc(), skm.roc_auc_score(y, s))


# ----------------------------------------------------------------------------------------------
# mAP, DeLong, PR-curve comparison

def test_mean_average_precision(rng):
    n, k = 200, 4
    y = rng.integers(0, 3, n)  # class 3 absent -> excluded
    s = rng.random((n, k))
    out = am.mean_average_precision(y, s)
    per = [skm.average_precision_score(y == c, s[:, c]) for c in range(3)]
    close(out["per_class"][:3], per)
    assert np.isnan(out["per_class"][3])
    assert out["excluded"] == [3]
    close(out["map"], np.mean(per))
    out = am.mean_average_precision(y, s, method="voc07")
    close(out["map"], np.mean([am.average_precision_score(y == c, s[:, c], method="voc07")
                               for c in range(3)]))
    names = np.array(["x", "y", "z", "w"])[y]
    out = am.mean_average_precision(names, s, labels=["x", "y", "z", "w"])
    close(out["map"], np.mean(per))
    assert out["excluded"] == ["w"]


def delong_brute_force(y, a, b):
    pos, neg = y == 1, y == 0
    m, n = pos.sum(), neg.sum()
    v10, v01 = [], []
    for s in (a, b):
        x, z = s[pos], s[neg]
        psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    aucs = np.array([v.mean() for v in v10])
    cov = np.cov(np.array(v10)) / m + np.cov(np.array(v01)) / n
    z = (aucs[0] - aucs[1]) / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    from scipy.stats import norm
    return aucs, cov, z, 2 * norm.sf(abs(z))


@pytest.mark.parametrize("ties", [False, True])
def test_delong_against_brute_force(rng, ties):
    for n in (10, 57, 300):
        y = rng.integers(0, 2, n)
        y[:2], y[2:4] = 1, 0
        a = rng.normal(size=n) + y
        b = rng.normal(size=n) + 0.5 * y
        if ties:
            a, b = np.round(a), np.round(b, 1)
        out = am.delong_roc_test(y, a, b)
        aucs, cov, z, p = delong_brute_force(y, a, b)
        np.testing.assert_allclose([out["auc_a"], out["auc_b"]], aucs, rtol=1e-12)
        np.testing.assert_allclose(out["covariance"], cov, rtol=1e-12, atol=1e-17)
        np.testing.assert_allclose(out["z"], z, rtol=1e-10)
        np.testing.assert_allclose(out["p_value"], p, rtol=1e-9, atol=1e-300)
        close(out["auc_a"], skm.roc_auc_score(y, a))


def test_delong_degenerate_warns():
    with pytest.warns(assay.AssayWarning, match="at least 2 positives and 2 negatives"):
        out = am.delong_roc_test([1, 0, 0], [0.1, 0.2, 0.3], [0.3, 0.2, 0.1])
    assert np.isnan(out["z"])
    with pytest.warns(assay.AssayWarning, match="zero variance"):
        out = am.delong_roc_test([1, 1, 0, 0], [4.0, 3, 2, 1], [4.0, 3, 2, 1])
    assert out["auc_a"] == 1.0 and np.isnan(out["p_value"])


def test_compare_pr_curves():
    y = np.array([1, 1, 0, 1, 0, 0, 1, 0])
    a = np.arange(8, 0, -1).astype(float)  # ranking as listed
    out = am.compare_pr_curves(y, a, a)
    assert out["dominant"] == "equal" and len(out["crossings"]) == 0
    b = a.copy()
    b[2], b[3] = a[3], a[2]  # b ranks the third positive above the negative: b dominates
    out = am.compare_pr_curves(y, a, b)
    assert out["dominant"] == "b"
    assert out["ap_b"] > out["ap_a"]
    assert am.compare_pr_curves(y, b, a)["dominant"] == "a"
    # c: perfect start then bad; d: bad start then good -> they cross
    y = np.array([1, 0, 0, 0, 1, 1, 1, 1])
    c = np.arange(8, 0, -1).astype(float)  # P = 1 at recall .2, then 5/8 at recall 1
    # c ranks 1 0 0 0 1 1 1 1: interpolated precision 1 on (0, .2], 5/8 on (.2, 1].
    # d ranks 0 1 1 1 1 1 0 0: interpolated precision 5/6 on (0, 1]. They cross at recall .2.
    d = np.array([7, 8, 2, 1, 6, 5, 4, 3.0])
    out = am.compare_pr_curves(y, c, d)
    assert out["dominant"] is None
    close(out["crossings"], [0.2])
    assert out["ap_a"] == am.average_precision_score(y, c, method="voc_allpoint")


# ----------------------------------------------------------------------------------------------
# Bad input

def test_bad_input_messages():
    mismatch = r"Found input variables with inconsistent numbers of samples: \[3, 2\]"
    for f in (am.roc_auc_score, am.average_precision_score, am.precision_recall_curve):
        with pytest.raises(assay.AssayError, match=mismatch):
            f([0, 1, 1], [0.1, 0.2])
    with pytest.raises(assay.AssayError, match=r"Input contains NaN. First at index 1."):
        am.roc_auc_score([0, 1, 1], [0.1, np.nan, 0.3])
    with pytest.raises(assay.AssayError, match=r"Input contains infinity or a value too large for "
                       r"dtype\('float64'\). First at index 2."):
        am.average_precision_score([0, 1, 1], [0.1, 0.2, np.inf])
    with pytest.raises(assay.AssayError, match=r"Input contains infinity .* First at index 0."):
        am.roc_curve([0, 1, 1], [-np.inf, 0.2, 0.3])
    with pytest.raises(assay.AssayError,
                       match=r"sample_weight must be >= 0, found -1 at index 1"):
        am.roc_auc_score([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=[1, -1, 1])
    with pytest.raises(assay.AssayError,
                       match=r"inconsistent numbers of samples: \[3, 3, 2\]"):
        am.average_precision_score([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=[1, 1])
    with pytest.raises(assay.AssayError, match="y_true is empty: need at least one sample"):
        am.roc_auc_score(np.array([], dtype=int), np.array([]))
    with pytest.raises(assay.AssayError, match=r"y_true takes value in \{\} and pos_label"):
        am.precision_recall_curve(np.array([], dtype=int), np.array([]))  # as scikit-learn
    with pytest.raises(assay.AssayError, match=r"y_true takes value in \{0, 2\} and pos_label is "
                       "not specified"):
        am.roc_curve([0, 2, 2], [0.1, 0.2, 0.3])
    with pytest.raises(assay.AssayError, match='method must be one of "step", "voc07", '
                       '"voc_allpoint", "coco101", "trapezoid", found "voc12"'):
        am.average_precision_score([0, 1], [0.1, 0.2], method="voc12")
    with pytest.raises(assay.AssayError, match=r"y_true and score_b differ in length \(3 vs 2\)"):
        am.delong_roc_test([0, 1, 1], [0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(assay.AssayError, match="score_a contains NaN at index 0"):
        am.compare_pr_curves([0, 1], [np.nan, 0.2], [0.1, 0.2])
    with pytest.raises(assay.AssayError, match=r"Expected max_fpr in range \(0, 1\], got: 1.5"):
        am.roc_auc_score([0, 1], [0.1, 0.2], max_fpr=1.5)


def test_large_input_matches_sklearn():
    # 300k samples per run: the radix sort's MSD pass and its recursion run (not only LSD).
    r = np.random.default_rng(99)
    n = 300_000
    y = r.integers(0, 2, n)
    for s in (r.random(n), np.round(r.random(n), 2), r.normal(size=n) * 1e3):
        close(am.average_precision_score(y, s), skm.average_precision_score(y, s))
        close(am.roc_auc_score(y, s), skm.roc_auc_score(y, s))
        p, rc, t = am.precision_recall_curve(y, s)
        p2, rc2, t2 = skm.precision_recall_curve(y, s)
        close(p, p2)
        close(t, t2)
