"""`assay segment` and assay.shift.segmentation.evaluate on NIfTI files written with nibabel: the
CLI equals Python, the numbers equal the array-level functions and a SciPy/numpy reference, the
matching rule, derived volumes, bad input naming the file, and the HTML page."""
import json
import os

import nibabel as nib
import numpy as np
import pytest
from scipy import ndimage

import assay
import assay.shift as shift
from assay.shift import segmentation as seg
from conftest import render_page

SHAPE = (24, 20, 16)
AFFINE = np.array([[-1.0, 0, 0, 90], [0, 1.0, 0, -126], [0, 0, 1.0, -72], [0, 0, 0, 1]])


def blobs(rng, n_blobs, shape=SHAPE):
    truth = np.zeros(shape, dtype=np.uint8)
    grid = np.indices(shape)
    for _ in range(n_blobs):
        centre = [rng.uniform(2, s - 2) for s in shape]
        radius = rng.uniform(1.0, 3.0)
        dist = sum((g - c) ** 2 for g, c in zip(grid, centre))
        truth[dist <= radius ** 2] = 1
    return truth


def member_map(rng, truth, shift_voxels):
    """A probability map: the truth blurred, moved a little, plus noise and spurious spots."""
    p = ndimage.gaussian_filter(np.roll(truth.astype(float), shift_voxels, axis=0), 1.0) * 1.6
    p += rng.uniform(0, 0.25, truth.shape) * (rng.random(truth.shape) < 0.02)
    return np.clip(p, 0, 1).astype(np.float32)


def save(path, data, dtype, affine=AFFINE):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    nib.save(nib.Nifti1Image(np.asarray(data).astype(dtype), affine), path)


@pytest.fixture
def study(tmp_path, rng):
    """6 subjects "sub-01".."sub-06": truth, two ensemble members, brain masks; each folder names
    its files differently; partitions in a CSV."""
    ids = [f"sub-{i:02d}" for i in range(1, 7)]
    truths, members = {}, {}
    for k, sid in enumerate(ids):
        truth = blobs(rng, 6 + k)
        truths[sid] = truth
        members[sid] = [member_map(rng, truth, s) for s in (0, 1)]
        save(tmp_path / "truth" / f"{sid}_gt_isovox.nii.gz", truth, np.uint8)
        save(tmp_path / "m0" / f"pred_{sid}.nii.gz", members[sid][0], np.float32)
        save(tmp_path / "m1" / f"{sid}.nii", members[sid][1], np.float32)
        brain = np.zeros(SHAPE, dtype=np.uint8)
        brain[1:-1, 1:-1, 1:-1] = 1
        save(tmp_path / "brain" / f"{sid}_brain_mask.nii.gz", brain, np.uint8)
    with open(tmp_path / "partition.csv", "w") as f:
        f.write("subject,partition\n")
        for k, sid in enumerate(ids):
            f.write(f"{sid[4:]},{'in' if k < 4 else 'shifted'}\n")
        f.write("99,in\n")  # subjects not evaluated are ignored
    return {"dir": tmp_path, "ids": ids, "truth": truths, "members": members}


def sources(study):
    d = study["dir"]
    return ["--pred", d / "m0", "--pred", d / "m1", "--truth", d / "truth", "--brain-mask",
            d / "brain", "--partition", d / "partition.csv"]


def test_cli_equals_python_and_the_array_functions(run_cli, study):
    d = study["dir"]
    out = run_cli("segment", *sources(study), "--json", "--threads", "2")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    py = seg.evaluate([d / "m0", d / "m1"], d / "truth", brain_mask=d / "brain",
                      partition=d / "partition.csv", threads=1)
    assert doc == py  # same library call; the thread count changes nothing
    assert doc["voxel_uncertainty"] == "reverse_mutual_information"
    assert [s["subject"] for s in doc["subjects"]] == ["01", "02", "03", "04", "05", "06"]
    assert [s["partition"] for s in doc["subjects"]] == ["in"] * 4 + ["shifted"] * 2

    brain = np.zeros(SHAPE)
    brain[1:-1, 1:-1, 1:-1] = 1
    for row, sid in zip(doc["subjects"], study["ids"]):
        # Transposed: the C-ordered arrays then hold the voxels in the file's memory order (x
        # fastest), which decides the order of uncertainty ties in the retention curve.
        maps = seg.ensemble_maps(np.stack([m.T for m in study["members"][sid]]).astype(float))
        want = seg.score_subject(maps["mean"], study["truth"][sid].T,
                                 uncertainty=maps["reverse_mutual_information"],
                                 brain_mask=brain.T)
        for key in ("dsc", "ndsc", "lesion_f1", "ndsc_retention_auc", "mean_uncertainty"):
            assert row[key] == pytest.approx(want[key], rel=1e-12, abs=1e-15), key
        for key in ("voxel_tp", "voxel_fp", "voxel_fn", "lesion_tp", "lesion_fp", "lesion_fn"):
            assert row[key] == want[key], key

    # Across subjects: mean and SD (ddof 0) x100; patient-level retention on 1 - nDSC.
    ndsc = np.array([r["ndsc"] for r in doc["subjects"]])
    unc = np.array([r["mean_uncertainty"] for r in doc["subjects"]])
    for summary, rows in ((doc["summary"][0], slice(None)), (doc["summary"][1], slice(0, 4)),
                          (doc["summary"][2], slice(4, 6))):
        assert summary["ndsc"]["mean"] == pytest.approx(100 * ndsc[rows].mean(), rel=1e-12)
        assert summary["ndsc"]["sd"] == pytest.approx(100 * ndsc[rows].std(), rel=1e-12)
        curve = shift.retention_curve(1 - ndsc[rows], unc[rows])
        assert summary["patient_r_auc"] == pytest.approx(100 * curve.r_auc, rel=1e-12)
    assert [s["set"] for s in doc["summary"]] == ["all", "in", "shifted"]
    np.testing.assert_allclose(doc["patient_retention"]["model"],
                               shift.retention_curve(1 - ndsc, unc).curve, rtol=1e-12)


def scipy_reference(probability, truth, threshold=0.35, min_size=10, iou=0.25, r=0.001):
    """The Shifts MS measures written with numpy / scipy.ndimage (whole volume)."""
    pred = (probability >= threshold).astype(np.uint8)
    labels, n = ndimage.label(pred)
    sizes = np.bincount(labels.ravel())
    pred[(sizes[labels] < min_size) & (labels > 0)] = 0
    tp = np.sum(pred * truth)
    fp = np.sum(pred * (1 - truth))
    fn = np.sum((1 - pred) * truth)
    k = (1 - r) * truth.sum() / (r * (truth.size - truth.sum())) if truth.sum() else 1.0
    ndsc = 2 * tp / (2 * tp + k * fp + fn)
    dsc = 2 * tp / (2 * tp + fp + fn)
    pl, npred = ndimage.label(pred)
    tl, ntrue = ndimage.label(truth)

    def best_iou(a_labels, a, b_labels):
        region = a_labels == a
        best = 0.0
        for b in np.unique(b_labels[region]):
            if b:
                other = b_labels == b
                best = max(best, np.sum(region & other) / np.sum(region | other))
        return best

    ltp = sum(best_iou(pl, a, tl) >= iou for a in range(1, npred + 1))
    lfn = sum(best_iou(tl, b, pl) < iou for b in range(1, ntrue + 1))
    lfp = npred - ltp
    f1 = ltp / (ltp + (lfp + lfn) / 2) if ltp + lfp + lfn else 1.0
    return {"dsc": dsc, "ndsc": ndsc, "lesion_f1": f1, "lesion_tp": ltp, "lesion_fn": lfn}


def test_single_model_equals_a_scipy_reference(run_cli, study):
    d = study["dir"]
    out = run_cli("segment", "--pred", d / "m0", "--truth", d / "truth", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["voxel_uncertainty"] == "entropy_of_expected"
    for row, sid in zip(doc["subjects"], study["ids"]):
        want = scipy_reference(study["members"][sid][0].astype(np.float64), study["truth"][sid])
        for key, value in want.items():
            assert row[key] == pytest.approx(value, rel=1e-12), (sid, key)


def test_matching_rules(run_cli, study, tmp_path):
    d = study["dir"]
    base = seg.evaluate(d / "m0", d / "truth", voxel_measure="none")
    # {id} patterns and globs give the same subjects and numbers.
    by_pattern = seg.evaluate(str(d / "m0" / "pred_sub-{id}.nii.gz"),
                              str(d / "truth" / "sub-{id}_gt_isovox"), voxel_measure="none")
    by_glob = seg.evaluate(str(d / "m0" / "pred_*.nii.gz"), str(d / "truth" / "*.nii.gz"),
                           voxel_measure="none")
    for doc in (by_pattern, by_glob):
        assert [s["ndsc"] for s in doc["subjects"]] == [s["ndsc"] for s in base["subjects"]]
    assert base["notes"] == ["no voxel uncertainty: nDSC R-AUC and the patient-level retention "
                             "curve are not computed"]
    assert base["patient_retention"] is None
    # One file each: a single subject.
    one = seg.evaluate(d / "m0" / "pred_sub-03.nii.gz", d / "truth" / "sub-03_gt_isovox.nii.gz")
    assert one["n_subjects"] == 1
    assert one["subjects"][0]["ndsc"] == base["subjects"][2]["ndsc"]

    os.remove(d / "m1" / "sub-05.nii")
    out = run_cli("segment", "--pred", d / "m0", "--pred", d / "m1", "--truth", d / "truth")
    assert out.returncode == 2
    assert out.stderr == (
        f"assay: --pred {d / 'm1'}: no file for subject(s) 05 of --truth {d / 'truth'} (subject "
        'ids here: file names without .nii/.nii.gz, common prefix "sub-" and suffix "")\n')

    extra = d / "truth" / "sub-07_gt_isovox.nii.gz"
    save(extra, study["truth"]["sub-01"], np.uint8)
    with pytest.raises(assay.AssayError) as e:
        seg.evaluate(d / "m0", d / "truth")
    assert str(e.value) == (f"--pred {d / 'm0'}: no file for subject(s) 07 of --truth "
                            f"{d / 'truth'} (subject ids here: file names without .nii/.nii.gz, "
                            'common prefix "pred_sub-" and suffix "")')
    os.remove(extra)
    save(d / "m0" / "pred_sub-08.nii.gz", study["members"]["sub-01"][0], np.float32)
    with pytest.raises(assay.AssayError, match=r"subject\(s\) 08 \(.*pred_sub-08.nii.gz\) have no "
                                               "truth volume in --truth"):
        seg.evaluate(d / "m0", d / "truth")
    os.remove(d / "m0" / "pred_sub-08.nii.gz")
    save(d / "m0" / "pred_sub-01.nii", study["members"]["sub-01"][0], np.float32)
    with pytest.raises(assay.AssayError) as e:
        seg.evaluate(d / "m0", d / "truth")
    assert str(e.value) == (f"--pred {d / 'm0'}: two files for subject 01: "
                            f"{d / 'm0' / 'pred_sub-01.nii'} and {d / 'm0' / 'pred_sub-01.nii.gz'}")
    with pytest.raises(assay.AssayError, match="--truth nowhere: no such file or folder"):
        seg.evaluate(d / "m1", "nowhere")

    with open(tmp_path / "short.csv", "w") as f:
        f.write("subject,partition\n01,in\n")
    with pytest.raises(assay.AssayError) as e:
        seg.evaluate(d / "m0" / "pred_sub-01.nii.gz", d / "truth" / "sub-01_gt_isovox.nii.gz",
                     partition=tmp_path / "short.csv")
    assert "no partition for subject(s) sub-01_gt_isovox" in str(e.value)


def test_bad_volumes_are_errors_naming_the_file(run_cli, study, rng):
    d = study["dir"]
    truth_file = d / "truth" / "sub-02_gt_isovox.nii.gz"
    pred_file = d / "m0" / "pred_sub-02.nii.gz"

    def fails(expected, *extra, prefix=False):
        out = run_cli("segment", "--pred", d / "m0", "--truth", d / "truth", *extra)
        assert out.returncode == 2, out.stdout
        if prefix:  # the voxel check of segmentation.hpp, named after the file
            assert out.stderr.startswith(f"assay: {expected[0]}: "), out.stderr
            assert all(part in out.stderr for part in expected[1:]), out.stderr
        else:
            assert out.stderr == f"assay: {expected}\n"

    good = study["members"]["sub-02"][0]
    bad = good.copy()
    bad[3, 4, 5] = np.nan
    save(pred_file, bad, np.float32)
    fails((pred_file, "probability", "(3, 4, 5)", "nan"), prefix=True)
    save(pred_file, good[:, :, :-1], np.float32)
    fails(f"{pred_file}: shape 24×20×15 differs from the truth's 24×20×16 ({truth_file})")
    moved = AFFINE.copy()
    moved[0, 3] += 0.5
    save(pred_file, good, np.float32, moved)
    fails(f"{pred_file}: affine differs from the truth's ({truth_file}): entry [0][3] is 90.5 vs "
          "90 (tolerance 1e-4)")
    save(pred_file, good, np.float32)

    truth = study["truth"]["sub-02"].astype(np.float32)
    truth[1, 2, 3] = 0.5
    save(truth_file, truth, np.float32)
    fails((truth_file, "truth", "(1, 2, 3)", "0.5"), prefix=True)
    over = good.copy()
    over[2, 2, 2] = 1.5
    save(truth_file, study["truth"]["sub-02"], np.uint8)
    save(pred_file, over, np.float32)
    fails((pred_file, "probability", "(2, 2, 2)", "1.5"), prefix=True)
    save(pred_file, good, np.float32)
    save(truth_file, study["truth"]["sub-02"], np.uint8)

    unc = np.zeros(SHAPE, dtype=np.float32)
    unc[0, 0, 1] = np.nan
    for sid in study["ids"]:
        save(d / "unc" / f"{sid}.nii.gz", unc if sid == "sub-02" else np.zeros(SHAPE), np.float32)
    fails(f"{d / 'unc' / 'sub-02.nii.gz'}: uncertainty: expected a number at voxel (0, 0, 1), "
          "found NaN", "--uncertainty", d / "unc")

    raw = truth_file.read_bytes()
    truth_file.write_bytes(raw[: len(raw) // 2])
    out = run_cli("segment", "--pred", d / "m0", "--truth", d / "truth")
    assert out.returncode == 2
    assert out.stderr.startswith(f"assay: {truth_file}: truncated")

    out = run_cli("segment", "--pred", d / "m0", "--truth", d / "truth", "--connectivity", "7")
    assert out.returncode == 2 and "connectivity" in out.stderr


def test_derived_volumes_and_csv(run_cli, study):
    d = study["dir"]
    out = run_cli("segment", "--pred", d / "m0", "--pred", d / "m1", "--truth", d / "truth",
                  "--write-masks", d / "masks", "--write-uncertainty", d / "unc_out",
                  "--csv-out", d / "subjects.csv", "--min-size", "3", "--threshold", "0.4")
    assert out.returncode == 0, out.stderr
    for k, sid in enumerate(study["ids"]):
        maps = seg.ensemble_maps(np.stack(study["members"][sid]).astype(np.float64))
        mask = nib.load(d / "masks" / f"{sid[4:]}_mask.nii.gz")
        assert mask.get_data_dtype() == np.uint8
        np.testing.assert_allclose(mask.affine, AFFINE)
        np.testing.assert_array_equal(
            mask.get_fdata(), seg.postprocess(maps["mean"], threshold=0.4, min_lesion_size=3))
        unc = nib.load(d / "unc_out" / f"{sid[4:]}_uncertainty.nii.gz")
        np.testing.assert_array_equal(
            unc.get_fdata(), maps["reverse_mutual_information"].astype(np.float32))
    lines = (d / "subjects.csv").read_text().splitlines()
    assert lines[0].startswith("subject,n_voxels,brain_voxels,voxel_tp,")
    assert len(lines) == 7 and lines[1].startswith("01,7680,7680,")


def test_page_renders(run_cli, study):
    page = study["dir"] / "segment.html"
    out = run_cli("segment", *sources(study), "--html", page)
    assert out.returncode == 0, out.stderr
    text = page.read_text()
    assert "Patient-level error retention" in text and "nDSC retention per subject" in text
    assert render_page(page) == "ok:3"


def test_uncertainty_maps_and_measures(study, rng):
    d = study["dir"]
    for sid in study["ids"]:
        save(d / "unc" / f"u_{sid}.nii.gz", rng.random(SHAPE), np.float32)
    doc = seg.evaluate(d / "m0", d / "truth", uncertainty=d / "unc", brain_mask=d / "brain")
    assert doc["voxel_uncertainty"] == "file"
    mi = seg.evaluate([d / "m0", d / "m1"], d / "truth", voxel_measure="mutual_information")
    assert mi["voxel_uncertainty"] == "mutual_information"
    brain = np.zeros(SHAPE)
    brain[1:-1, 1:-1, 1:-1] = 1
    for row, row_mi, sid in zip(doc["subjects"], mi["subjects"], study["ids"]):
        unc = nib.load(d / "unc" / f"u_{sid}.nii.gz").get_fdata()
        want = seg.score_subject(study["members"][sid][0].T, study["truth"][sid].T,
                                 uncertainty=unc.T, brain_mask=brain.T)
        for key in ("ndsc_retention_auc", "mean_uncertainty", "ndsc"):
            assert row[key] == pytest.approx(want[key], rel=1e-12), key
        maps = seg.ensemble_maps(np.stack([m.T for m in study["members"][sid]]).astype(float))
        want = seg.score_subject(maps["mean"], study["truth"][sid].T,
                                 uncertainty=maps["mutual_information"])
        for key in ("ndsc_retention_auc", "mean_uncertainty", "ndsc", "lesion_f1"):
            assert row_mi[key] == pytest.approx(want[key], rel=1e-12), key
    with pytest.raises(assay.AssayError, match="voxel uncertainty measure: expected auto, none"):
        seg.evaluate(d / "m0", d / "truth", voxel_measure="variance")


def test_empty_brain_mask_and_infinite_uncertainty(run_cli, study, tmp_path):
    """A subject whose brain mask is empty has no mean uncertainty: it is left out of the
    patient-level retention with a note (the run goes on); an infinite uncertainty voxel gives an
    infinite mean, not NaN."""
    d = study["dir"]
    sid = study["ids"][0]
    save(d / "brain" / f"{sid}_brain_mask.nii.gz", np.zeros(SHAPE), np.uint8)
    out = run_cli("segment", *sources(study), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert any("left out of the patient-level retention: 01" in n for n in doc["notes"])
    unc = np.zeros(SHAPE)
    unc[0, 0, 0] = np.inf
    truth = study["truth"][sid].astype(float)
    got = seg.score_subject(truth, truth, unc)
    assert got["mean_uncertainty"] == np.inf


def test_probabilities_stored_as_scaled_uint8_are_accepted(run_cli, study, tmp_path):
    """nibabel stores a probability map as uint8 with a float32 slope; its top decodes to
    1.0000000591..., which is clamped to 1 (within 1e-6), not refused."""
    d = study["dir"]
    for sid in study["ids"]:
        img = nib.Nifti1Image(study["members"][sid][0], AFFINE)
        img.set_data_dtype(np.uint8)
        os.makedirs(tmp_path / "u8", exist_ok=True)
        nib.save(img, tmp_path / "u8" / f"{sid}.nii.gz")
    assert nib.load(tmp_path / "u8" / f"{study['ids'][0]}.nii.gz").get_fdata().max() > 1
    out = run_cli("segment", "--pred", tmp_path / "u8", "--truth", d / "truth", "--json")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("measure", ["entropy_of_expected", "expected_entropy"])
def test_one_member_entropy_equals_the_ensemble_path_bit_for_bit(study, measure, rng):
    # One member takes a direct entropy loop; the same member twice goes through
    # ensemble_uncertainty (mean (p + p) / 2 = p exactly): every number must be identical, with
    # and without a brain mask, on maps with a probability in every voxel.
    d = study["dir"]
    for sid in study["ids"]:
        dense = np.maximum(study["members"][sid][0], rng.random(SHAPE) * 0.3)
        save(d / "dense" / f"{sid}.nii.gz", dense, np.float32)
    for brain in (d / "brain", None):
        one = seg.evaluate(d / "dense", d / "truth", voxel_measure=measure, brain_mask=brain)
        two = seg.evaluate([d / "dense", d / "dense"], d / "truth", voxel_measure=measure,
                           brain_mask=brain)
        for a, b in zip(one["subjects"], two["subjects"]):
            for key in ("mean_uncertainty", "ndsc_retention_auc", "ndsc", "lesion_f1"):
                assert a[key] == b[key], (key, brain)


def test_buffers_reused_across_subjects_change_no_result(tmp_path, rng):
    """One worker keeps its arrays from subject to subject (masks, labels, the entropy map, the
    inflated file): subjects of other shapes (the same voxel count with rows of another length)
    and other brain masks, scored in one run, give exactly what each gives alone."""
    shapes = [(24, 20, 16), (20, 24, 16), (24, 20, 16), (16, 20, 24), (24, 20, 16)]
    for k, shape in enumerate(shapes):
        sid = f"s{k}"
        truth = blobs(rng, 5 + k, shape)
        save(tmp_path / "truth" / f"{sid}.nii.gz", truth, np.uint8)
        save(tmp_path / "m0" / f"{sid}.nii.gz", member_map(rng, truth, k % 2), np.float32)
        save(tmp_path / "m1" / f"{sid}.nii.gz", member_map(rng, truth, 1), np.float32)
        grid = np.indices(shape)
        centre = [rng.uniform(0.3, 0.7) * s for s in shape]
        dist = sum(((g - c) / (0.3 + 0.1 * k) / s) ** 2 for g, c, s in zip(grid, centre, shape))
        save(tmp_path / "brain" / f"{sid}.nii.gz", dist <= 1, np.uint8)
    for preds in ([tmp_path / "m0"], [tmp_path / "m0", tmp_path / "m1"]):
        together = seg.evaluate(preds, tmp_path / "truth", brain_mask=tmp_path / "brain",
                                threads=1)
        for k, row in enumerate(together["subjects"]):
            alone = seg.evaluate([p / f"s{k}.nii.gz" for p in preds],
                                 tmp_path / "truth" / f"s{k}.nii.gz",
                                 brain_mask=tmp_path / "brain" / f"s{k}.nii.gz", threads=1)
            mine = {key: v for key, v in row.items() if key not in ("subject", "partition")}
            theirs = {key: v for key, v in alone["subjects"][0].items()
                      if key not in ("subject", "partition")}
            assert mine == theirs, (len(preds), k)


def test_mask_files_are_checked_as_they_are_read(run_cli, study, tmp_path):
    """uint8 masks are checked byte by byte, other types through their values; either way the
    first voxel that is not 0 or 1 is named, with the file."""
    d = study["dir"]
    truth_file = d / "truth" / "sub-03_gt_isovox.nii.gz"
    truth = study["truth"]["sub-03"].copy()
    truth[5, 6, 7] = 2
    save(truth_file, truth, np.uint8)
    out = run_cli("segment", "--pred", d / "m0", "--truth", d / "truth")
    assert out.returncode == 2
    assert out.stderr == (f"assay: {truth_file}: truth: expected 0 or 1 at voxel (5, 6, 7), "
                          "found 2\n")
    save(truth_file, study["truth"]["sub-03"], np.uint8)
    brain = np.ones(SHAPE, dtype=np.int16)
    brain[0, 0, 3] = -1
    brain_file = d / "brain" / "sub-01_brain_mask.nii.gz"
    save(brain_file, brain, np.int16)
    out = run_cli("segment", "--pred", d / "m0", "--truth", d / "truth", "--brain-mask",
                  d / "brain")
    assert out.returncode == 2
    assert out.stderr == (f"assay: {brain_file}: brain mask: expected 0 or 1 at voxel (0, 0, 3), "
                          "found -1\n")
