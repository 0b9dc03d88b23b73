"""assay.shift.segmentation on numpy volumes against the real thing: connected components equal
scipy.ndimage.label, and every measure equals an oracle written here in numpy / SciPy that
follows the Shifts MS code (mswml/metrics.py, uncertainty.py, data_load.py, test.py) line by line.
Deliberate differences from that code, each documented in docs/segmentation.md, are written into
the oracle and marked DIFF: float64 instead of float32 sums in nDSC (counts are exact either
way), a stable argsort for the retention ordering (numpy's default is unstable, so its tie order
is unspecified), and the structure (connectivity) passed to ndimage.label where Shifts uses the
default 6-connectivity."""
import numpy as np
import pytest
from scipy import ndimage
from sklearn import metrics as skm

import assay
from assay.shift import segmentation as seg

STRUCTURE = {6: 1, 18: 2, 26: 3}


def structure(connectivity):
    return ndimage.generate_binary_structure(3, STRUCTURE[connectivity])


# ---------------------------------------------------------------------------------------------
# The oracle (Shifts' reference formulas, in numpy / SciPy)
# ---------------------------------------------------------------------------------------------

def ref_dice(gt, pred):
    intersection = np.sum(pred * gt)
    union = np.sum(pred) + np.sum(gt)
    return 1.0 if intersection == 0.0 and union == 0.0 else 2.0 * intersection / union


def ref_ndsc(gt, pred, r=0.001):
    gt = gt.astype(np.float64)  # DIFF: Shifts casts to float32 (sums of 0/1 are exact in both)
    seg_ = pred.astype(np.float64)
    if np.sum(seg_) + np.sum(gt) == 0:
        return 1.0
    k = 1.0 if np.sum(gt) == 0 else (1 - r) * np.sum(gt) / (r * (len(gt.flatten()) - np.sum(gt)))
    tp = np.sum(seg_[gt == 1])
    fp = np.sum(seg_[gt == 0])
    fn = np.sum(gt[seg_ == 0])
    return 2.0 * tp / (k * fp + 2.0 * tp + fn)


def ref_retention(gt, pred, unc, points=200, r=0.001):
    """Shifts' ndsc_retention_curve / ndsc_aac_metric on flattened (brain-mask) voxels."""
    ordering = np.argsort(unc, kind="stable")  # DIFF: Shifts' argsort is numpy's unstable default
    gts = gt[ordering].copy()
    preds = pred[ordering].copy()
    n = len(gts)
    fracs = np.log(np.arange(points + 1)[1:])
    fracs /= np.amax(fracs)
    scores = []
    for frac in fracs:
        pos = int(n * frac)
        curr = preds if pos == n else np.concatenate((preds[:pos], gts[pos:]))
        scores.append(ref_ndsc(gts, curr, r))
    scores = np.asarray(scores)
    return fracs, scores, 1.0 - skm.auc(fracs, scores)


def ref_iou(mask1, mask2):
    return np.sum(mask1 * mask2) / np.sum(mask1 + mask2 - mask1 * mask2)


def ref_lesion_counts(gt, pred, iou_threshold=0.25, connectivity=6):
    s = structure(connectivity)  # DIFF: Shifts calls ndimage.label with its default (6)
    multi_pred, _ = ndimage.label(pred, s)
    multi_gt, _ = ndimage.label(gt, s)
    tp = fp = fn = 0
    for label_pred in np.unique(multi_pred):
        if label_pred == 0:
            continue
        mask_pred = (multi_pred == label_pred).astype(int)
        all_iou = [0.0]
        for label_gt in np.unique(multi_gt * mask_pred):
            if label_gt != 0:
                all_iou.append(ref_iou(mask_pred, (multi_gt == label_gt).astype(int)))
        if max(all_iou) >= iou_threshold:
            tp += 1
        else:
            fp += 1
    for label_gt in np.unique(multi_gt):
        if label_gt == 0:
            continue
        mask_gt = (multi_gt == label_gt).astype(int)
        all_iou = [0]
        for label_pred in np.unique(multi_pred * mask_gt):
            if label_pred != 0:
                all_iou.append(ref_iou((multi_pred == label_pred).astype(int), mask_gt))
        if max(all_iou) < iou_threshold:
            fn += 1
    f1 = 1.0 if tp + 0.5 * (fp + fn) == 0.0 else tp / (tp + 0.5 * (fp + fn))
    return {"tp": tp, "fp": fp, "fn": fn, "f1": f1}


def ref_remove_connected_components(segmentation, l_min=9, connectivity=6):
    labeled, _ = ndimage.label(segmentation, structure(connectivity))
    label_list = np.unique(labeled)
    sizes = ndimage.labeled_comprehension(segmentation, labeled, label_list, np.sum, float, 0)
    out = np.zeros_like(segmentation)
    for i_el, n_el in enumerate(sizes):
        if n_el > l_min:
            out[labeled == label_list[i_el]] = 1  # Shifts indexes by position; label i_el here
    return out


def ref_ensemble(members, eps=1e-10):
    """Shifts' ensemble_uncertainties_classification on np.stack([p, 1 - p], -1) (test.py)."""
    probs = np.concatenate((members[..., None], 1.0 - members[..., None]), axis=-1)
    mean_probs = np.mean(probs, axis=0)
    mean_lprobs = np.mean(np.log(probs + eps), axis=0)
    eoe = np.sum(-mean_probs * np.log(mean_probs + eps), axis=-1)
    exe = np.mean(np.sum(-probs * np.log(probs + eps), axis=-1), axis=0)
    mi = eoe - exe
    epkl = -np.sum(mean_probs * mean_lprobs, axis=-1) - exe
    return {"mean": np.mean(members, axis=0), "entropy_of_expected": eoe, "expected_entropy": exe,
            "mutual_information": mi, "epkl": epkl, "reverse_mutual_information": epkl - mi}


# ---------------------------------------------------------------------------------------------
# Generated subjects
# ---------------------------------------------------------------------------------------------

def ellipsoids(rng, shape, count, radius=(1.0, 4.5)):
    grid = np.indices(shape).astype(float)
    mask = np.zeros(shape, dtype=bool)
    for _ in range(count):
        centre = [rng.uniform(0, n) for n in shape]
        radii = rng.uniform(*radius, size=3)
        d = sum(((grid[a] - centre[a]) / radii[a]) ** 2 for a in range(3))
        mask |= d <= 1
    return mask


def subject(rng, shape=(40, 44, 36), lesions=14, members=5):
    """Truth, M member probability maps that find most lesions (blurred, shifted, noisy, with
    false blobs), and a brain mask: an ellipsoid covering most of the volume."""
    truth = ellipsoids(rng, shape, lesions)
    maps = []
    for _ in range(members):
        shift = tuple(int(s) for s in rng.integers(-1, 2, size=3))
        blurred = ndimage.gaussian_filter(np.roll(truth, shift, axis=(0, 1, 2)).astype(float), 1.0)
        false = ndimage.gaussian_filter(ellipsoids(rng, shape, 4, (0.8, 2.5)).astype(float), 0.7)
        p = np.clip(1.3 * blurred + 0.8 * false + rng.normal(0, 0.03, shape), 0, 1)
        maps.append(p)
    maps = np.asarray(maps)
    grid = np.indices(shape).astype(float)
    centre = [n / 2 for n in shape]
    brain = sum(((grid[a] - centre[a]) / (0.55 * shape[a])) ** 2 for a in range(3)) <= 1
    return truth.astype(np.uint8), maps, brain.astype(np.uint8)


@pytest.fixture(scope="module")
def subjects():
    rng = np.random.default_rng(7)
    return [subject(rng), subject(rng, (33, 50, 28), 20, 3), subject(rng, (48, 40, 45), 8, 4)]


# ---------------------------------------------------------------------------------------------
# Connected components
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_label_equals_scipy(connectivity):
    rng = np.random.default_rng(connectivity)
    s = structure(connectivity)
    for shape in [(40, 40, 40), (17, 33, 9), (1, 50, 50), (64, 5, 7), (3, 1, 2), (1, 1, 1)]:
        for density in [0.0, 0.05, 0.2, 0.35, 0.6, 1.0]:
            mask = rng.random(shape) < density
            want, want_count = ndimage.label(mask, s)
            got, count = seg.label(mask, connectivity)
            assert count == want_count
            np.testing.assert_array_equal(got, want)
            assert got.dtype == np.int32 and got.shape == shape


def test_label_input_order_and_dtype():
    rng = np.random.default_rng(3)
    mask = rng.random((20, 30, 25)) < 0.3
    want, _ = ndimage.label(mask)
    for variant in [np.asfortranarray(mask), mask.astype(np.uint8), mask.astype(float),
                    mask.astype(np.int64)]:
        got, _ = seg.label(variant)
        np.testing.assert_array_equal(got, want)
    # A transposed view: labels follow the C order of the view, as scipy's do.
    t = mask.transpose(2, 0, 1)
    np.testing.assert_array_equal(seg.label(t, 26)[0], ndimage.label(t, structure(26))[0])


def test_label_blobs(subjects):
    for truth, _, _ in subjects:
        for c in (6, 18, 26):
            got, n = seg.label(truth, c)
            want, m = ndimage.label(truth, structure(c))
            assert n == m
            np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------------------------
# Voxel measures, lesion F1, post-processing
# ---------------------------------------------------------------------------------------------

def test_dice_and_ndsc(subjects):
    for truth, maps, _ in subjects:
        for pred in [(maps[0] >= 0.35).astype(np.uint8), (maps.mean(0) >= 0.5).astype(np.uint8)]:
            assert seg.dice(pred, truth) == pytest.approx(ref_dice(truth, pred), rel=1e-15)
            for r in (0.001, 0.01, 0.3):
                assert seg.ndsc(pred, truth, r) == pytest.approx(ref_ndsc(truth, pred, r),
                                                                 rel=1e-14)
            counts = seg.voxel_counts(pred, truth)
            assert counts == {"n": truth.size, "tp": int(np.sum(pred & truth)),
                              "fp": int(np.sum(pred & (1 - truth))),
                              "fn": int(np.sum((1 - pred) & truth))}


def test_voxel_edge_cases():
    z = np.zeros((5, 6, 7), np.uint8)
    one = z.copy()
    one[2, 3, 4] = 1
    assert seg.dice(z, z) == 1.0 and seg.ndsc(z, z) == 1.0
    assert seg.dice(one, z) == 0.0 and seg.ndsc(one, z) == ref_ndsc(z, one) == 0.0
    assert seg.dice(z, one) == 0.0 and seg.ndsc(z, one) == 0.0
    assert seg.dice(one, one) == 1.0 and seg.ndsc(one, one) == 1.0
    full = np.ones((2, 2, 2))
    # Every voxel lesion: k is infinite but FP = 0; Shifts gives NaN (inf * 0), assay 2TP/(2TP+FN).
    half = full.copy()
    half[0] = 0
    assert seg.ndsc(half, full) == pytest.approx(2 * 4 / (2 * 4 + 4))


@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_lesion_f1(subjects, connectivity):
    for truth, maps, _ in subjects:
        pred = (maps.mean(0) >= 0.35).astype(np.uint8)
        for thr in (0.0, 0.1, 0.25, 0.5, 1.0):
            got = seg.lesion_f1(pred, truth, thr, connectivity)
            want = ref_lesion_counts(truth, pred, thr, connectivity)
            assert {k: got[k] for k in ("tp", "fp", "fn")} == {k: want[k] for k in
                                                               ("tp", "fp", "fn")}
            assert got["f1"] == pytest.approx(want["f1"], rel=1e-15)
            assert got["predicted_lesions"] == got["tp"] + got["fp"]
            assert got["true_lesions"] == ndimage.label(truth, structure(connectivity))[1]


def test_lesion_f1_edge_cases():
    z = np.zeros((6, 6, 6), np.uint8)
    a = z.copy()
    a[1:3, 1:3, 1:3] = 1
    b = z.copy()
    b[4:6, 4:6, 4:6] = 1
    assert seg.lesion_f1(z, z) == {"true_lesions": 0, "predicted_lesions": 0, "tp": 0, "fp": 0,
                                   "fn": 0, "f1": 1.0}
    assert seg.lesion_f1(a, z)["f1"] == 0.0 and seg.lesion_f1(a, z)["fp"] == 1
    assert seg.lesion_f1(z, a)["fn"] == 1
    assert seg.lesion_f1(a, b) == {"true_lesions": 1, "predicted_lesions": 1, "tp": 0, "fp": 1,
                                   "fn": 1, "f1": 0.0}
    # IoU exactly at the threshold counts (>=): 4 of 8 voxels overlap -> IoU 4 / 8 = 0.5.
    half = z.copy()
    half[1:3, 1:3, 1:2] = 1
    assert seg.lesion_f1(half, a, 0.5)["tp"] == 1 and seg.lesion_f1(half, a, 0.5)["fn"] == 0
    assert seg.lesion_f1(half, a, 0.5000001)["tp"] == 0
    # Two predicted lesions splitting one true lesion of 5 voxels: each has IoU 2 / 5 with it,
    # and both count as TPs (Shifts' rule is per predicted lesion).
    line = z.copy()
    line[1, 1, 0:5] = 1
    pieces = line.copy()
    pieces[1, 1, 2] = 0
    assert seg.lesion_f1(pieces, line, 0.4) == {"true_lesions": 1, "predicted_lesions": 2,
                                                "tp": 2, "fp": 0, "fn": 0, "f1": 1.0}
    assert seg.lesion_f1(pieces, line, 0.41)["f1"] == 0.0
    # 26-connectivity joins what 6 keeps apart (a diagonal pair).
    diag = z.copy()
    diag[0, 0, 0] = diag[1, 1, 1] = 1
    assert seg.lesion_f1(diag, z, 0.25, 6)["predicted_lesions"] == 2
    assert seg.lesion_f1(diag, z, 0.25, 26)["predicted_lesions"] == 1


def test_remove_small_lesions(subjects):
    for truth, maps, _ in subjects:
        pred = (maps[1] >= 0.3).astype(np.uint8)
        for c in (6, 18, 26):
            for min_size in (0, 1, 2, 10, 30):
                want = ref_remove_connected_components(pred, max(min_size - 1, 0), c)
                np.testing.assert_array_equal(seg.remove_small_lesions(pred, min_size, c), want)
            # Shifts' default: keep components of more than 9 voxels.
        np.testing.assert_array_equal(seg.remove_small_lesions(pred),
                                      ref_remove_connected_components(pred))


def test_postprocess_threshold_is_inclusive():
    p = np.zeros((4, 4, 4))
    p[1, 1, 1] = 0.35
    p[2, 2, 2] = np.nextafter(0.35, 0)
    got = seg.postprocess(p, 0.35, min_lesion_size=1)
    assert got[1, 1, 1] == 1 and got[2, 2, 2] == 0 and got.sum() == 1
    assert seg.postprocess(p, 0.35).sum() == 0  # single voxels are below min_lesion_size 10


# ---------------------------------------------------------------------------------------------
# nDSC retention
# ---------------------------------------------------------------------------------------------

def rmi(maps):
    return ref_ensemble(maps)["reverse_mutual_information"]


def test_retention_equals_shifts(subjects):
    for truth, maps, brain in subjects:
        pred = ref_remove_connected_components((maps.mean(0) >= 0.35).astype(np.uint8))
        unc = rmi(maps)
        for mask in (brain, None):
            sel = np.ones(truth.shape, bool) if mask is None else mask == 1
            fr, curve, area = ref_retention(truth[sel], pred[sel], unc[sel])
            got = seg.ndsc_retention(pred, truth, unc, mask)
            np.testing.assert_allclose(got["fractions"], fr, rtol=1e-15, atol=0)
            np.testing.assert_allclose(got["curve"], curve, rtol=1e-13, atol=0)
            assert got["area"] == pytest.approx(area, rel=1e-12, abs=1e-15)
            assert got["n_voxels"] == sel.sum()


def test_retention_ties_and_points(subjects):
    truth, maps, brain = subjects[0]
    pred = (maps[0] >= 0.35).astype(np.uint8)
    unc = rmi(maps)
    sel = brain == 1
    # Coarse uncertainties: long runs of ties, split by the cuts, holding lesion voxels.
    for coarse in (np.round(unc * 20) / 20, np.round(unc, 3), np.zeros_like(unc),
                   (truth != pred).astype(float), -unc, np.where(unc > 0.01, np.inf, -0.0),
                   np.where(unc > 0.05, -np.inf, np.where(truth == 1, -0.0, 0.0))):
        for points in (200, 2, 7):
            fr, curve, area = ref_retention(truth[sel], pred[sel], coarse[sel], points)
            got = seg.ndsc_retention(pred, truth, coarse, brain, points=points)
            np.testing.assert_allclose(got["curve"], curve, rtol=1e-13, atol=0)
            assert got["area"] == pytest.approx(area, rel=1e-12, abs=1e-15)
    # An all-brain mask is the same as no mask.
    full = np.ones_like(brain)
    a = seg.ndsc_retention(pred, truth, unc, full)
    b = seg.ndsc_retention(pred, truth, unc)
    np.testing.assert_array_equal(a["curve"], b["curve"])


def test_retention_edge_cases(subjects):
    truth, maps, brain = subjects[1]
    unc = rmi(maps)
    z = np.zeros_like(truth)
    pred = (maps[0] >= 0.35).astype(np.uint8)
    sel = brain == 1
    for p, t in [(z, truth), (pred, z), (z, z), (truth, truth)]:
        fr, curve, area = ref_retention(t[sel], p[sel], unc[sel])
        got = seg.ndsc_retention(p, t, unc, brain)
        np.testing.assert_allclose(got["curve"], curve, rtol=1e-13, atol=0)
        assert got["area"] == pytest.approx(area, rel=1e-12, abs=1e-15)
    both_empty = seg.ndsc_retention(z, z, unc, brain)
    assert both_empty["area"] == 0.0 and np.all(both_empty["curve"] == 1.0)
    # No brain voxel: every point is the nDSC of two empty masks, 1.
    empty = seg.ndsc_retention(pred, truth, unc, z)
    assert empty["n_voxels"] == 0 and empty["area"] == 0.0


# ---------------------------------------------------------------------------------------------
# Ensemble maps
# ---------------------------------------------------------------------------------------------

def test_ensemble_maps(subjects):
    for _, maps, _ in subjects:
        for members in (maps, maps[:1], list(maps[:2])):
            got = seg.ensemble_maps(members)
            want = ref_ensemble(np.asarray(members))
            assert set(got) == set(want)
            for k, v in want.items():
                assert got[k].shape == v.shape
                np.testing.assert_allclose(got[k], v, rtol=1e-12, atol=1e-14, err_msg=k)
    # Exact 0 / 1 members (log(eps) terms) and agreeing members.
    edge = np.array([np.zeros((2, 3, 4)), np.ones((2, 3, 4)), np.full((2, 3, 4), 0.5)])
    got = seg.ensemble_maps(edge)
    for k, v in ref_ensemble(edge).items():
        np.testing.assert_allclose(got[k], v, rtol=1e-12, atol=1e-14, err_msg=k)


# ---------------------------------------------------------------------------------------------
# score_subject
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity,iou,threshold,min_size", [
    (6, 0.25, 0.35, 10), (18, 0.5, 0.5, 1), (26, 0.1, 0.2, 25)])
def test_score_subject(subjects, connectivity, iou, threshold, min_size):
    for truth, maps, brain in subjects:
        ens = ref_ensemble(maps)
        prob, unc = ens["mean"], ens["reverse_mutual_information"]
        pred = (prob >= threshold).astype(np.uint8)
        pred = ref_remove_connected_components(pred, max(min_size - 1, 0), connectivity)
        got = seg.score_subject(prob, truth, unc, brain, threshold=threshold,
                                connectivity=connectivity, iou_threshold=iou,
                                min_lesion_size=min_size)
        assert got["n_voxels"] == truth.size and got["brain_voxels"] == brain.sum()
        assert got["voxel_tp"] == np.sum(pred & truth)
        assert got["voxel_fp"] == np.sum(pred & (1 - truth))
        assert got["voxel_fn"] == np.sum((1 - pred) & truth)
        assert got["dsc"] == pytest.approx(ref_dice(truth, pred), rel=1e-15)
        assert got["ndsc"] == pytest.approx(ref_ndsc(truth, pred), rel=1e-14)
        lc = ref_lesion_counts(truth, pred, iou, connectivity)
        assert (got["lesion_tp"], got["lesion_fp"], got["lesion_fn"]) == (lc["tp"], lc["fp"],
                                                                         lc["fn"])
        assert got["lesion_f1"] == pytest.approx(lc["f1"], rel=1e-15)
        raw = ndimage.label(prob >= threshold, structure(connectivity))[1]
        assert got["predicted_lesions"] + got["removed_lesions"] == raw
        sel = brain == 1
        fr, curve, area = ref_retention(truth[sel], pred[sel], unc[sel])
        np.testing.assert_allclose(got["retention_ndsc"], curve, rtol=1e-13, atol=0)
        np.testing.assert_allclose(got["retention_fraction"], fr, rtol=1e-15, atol=0)
        assert got["ndsc_retention_auc"] == pytest.approx(area, rel=1e-12, abs=1e-15)
        assert got["mean_uncertainty"] == pytest.approx(unc[sel].mean(), rel=1e-12)


def test_score_subject_without_uncertainty_or_mask(subjects):
    truth, maps, _ = subjects[0]
    got = seg.score_subject(maps[0], truth)
    assert np.isnan(got["ndsc_retention_auc"]) and np.isnan(got["mean_uncertainty"])
    assert len(got["retention_ndsc"]) == 0 and got["brain_voxels"] == truth.size
    # A 0/1 prediction works as a probability map; the F-ordered input gives the same numbers.
    pred = (maps[0] >= 0.35).astype(float)
    a = seg.score_subject(pred, truth, maps[1], min_lesion_size=0)
    b = seg.score_subject(np.asfortranarray(pred), np.asfortranarray(truth),
                          np.asfortranarray(maps[1]), min_lesion_size=0)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert a["ndsc"] == pytest.approx(ref_ndsc(truth, pred.astype(np.uint8)), rel=1e-14)


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------

def test_bad_input_messages():
    E = assay.AssayError
    p = np.full((3, 4, 5), 0.2)
    t = np.zeros((3, 4, 5))
    with pytest.raises(E, match=r"^truth: expected shape \(3, 4, 5\) like the prediction, "
                                r"found \(3, 4, 6\)$"):
        seg.score_subject(p, np.zeros((3, 4, 6)))
    with pytest.raises(E, match=r"^probability must be a 3-D array, found 2 dimensions$"):
        seg.score_subject(np.zeros((3, 4)), np.zeros((3, 4)))
    bad = p.copy()
    bad[1, 2, 3] = np.nan
    with pytest.raises(E, match=r"^probability: expected a value in \[0, 1\] at voxel "
                                r"\(1, 2, 3\), found nan$"):
        seg.score_subject(bad, t)
    bad[1, 2, 3] = 1.5
    with pytest.raises(E, match=r"found 1.5$"):
        seg.score_subject(bad, t)
    bt = t.copy()
    bt[2, 0, 4] = 0.5
    with pytest.raises(E, match=r"^truth: expected 0 or 1 at voxel \(2, 0, 4\), found 0.5$"):
        seg.score_subject(p, bt)
    with pytest.raises(E, match=r"^brain mask: expected 0 or 1 at voxel \(2, 0, 4\), "
                                r"found 0.5$"):
        seg.score_subject(p, t, p, bt)
    u = p.copy()
    u[0, 3, 1] = np.nan
    with pytest.raises(E, match=r"^uncertainty: expected a number at voxel \(0, 3, 1\), "
                                r"found nan$"):
        seg.score_subject(p, t, u)
    with pytest.raises(E, match=r"^connectivity: expected 6, 18 or 26, found 8$"):
        seg.score_subject(p, t, connectivity=8)
    with pytest.raises(E, match=r"^connectivity: expected 6, 18 or 26, found 4$"):
        seg.label(t, 4)
    with pytest.raises(E, match=r"^iou_threshold: expected a value in \[0, 1\], found 1.5$"):
        seg.score_subject(p, t, iou_threshold=1.5)
    with pytest.raises(E, match=r"^r: expected a value in \(0, 1\), found 0$"):
        seg.score_subject(p, t, r=0)
    with pytest.raises(E, match=r"^points: expected an integer in 2\.\.1000000, found 1$"):
        seg.score_subject(p, t, p, points=1)
    with pytest.raises(E, match=r"^threshold: expected a finite number, found nan$"):
        seg.score_subject(p, t, threshold=np.nan)
    with pytest.raises(E, match=r"^mask: expected 0 or 1 at voxel \(0, 0, 0\), found 2$"):
        seg.label(np.full((2, 2, 2), 2))
    with pytest.raises(E, match=r"^prediction: expected 0 or 1 at voxel \(0, 0, 1\), "
                                r"found 0.3$"):
        seg.dice(np.array([[[0, 0.3]]]), np.zeros((1, 1, 2)))
    m = np.full((2, 3, 4, 5), 0.5)
    m[1, 2, 3, 4] = -0.1
    with pytest.raises(E, match=r"^members: expected a probability in \[0, 1\] for member 1 at "
                                r"voxel \(2, 3, 4\), found -0.1$"):
        seg.ensemble_maps(m)
    with pytest.raises(E, match=r"^members must be a 4-D array, found 3 dimensions$"):
        seg.ensemble_maps(p)
