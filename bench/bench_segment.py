"""Segmentation on NIfTI files: `assay segment` vs a numpy/SciPy implementation of the same
measures, in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_segment.py [--subjects 20]
        [--shape 182,218,182] [--lesions 200,400] [--data DIR] [--repeats 2] [--loop-subjects 2]

Data: generated subjects (the MS-lesion task's 1 mm isovoxel grid, 182 x 218 x 182 = 7.2 M
voxels): an ellipsoidal brain mask (uint8, ~1.9 M voxels), a few hundred ellipsoidal lesions
(truth, uint8) and one model's lesion probability map (float32: the truth blurred and scaled,
some lesions missed, spurious blobs, low-level noise everywhere in the brain), all as .nii.gz
written by nibabel, cached in --data.
Both sides compute, per subject, what the Shifts MS baseline reports for a single model: voxel
uncertainty = entropy of the prediction; predicted mask = p >= 0.35 with components of fewer than
10 voxels removed (6-connectivity); DSC, nDSC (r = 0.001, whole volume), lesion TP/FP/FN and F1
(IoU >= 0.25), nDSC retention area over the brain voxels (200 points), mean uncertainty; then
mean ± SD over subjects and the patient-level retention. The peer loads with nibabel and uses
scipy.ndimage.label, numpy's stable argsort and vectorised counting (bincount / cumsum / unique
over overlapping label pairs) instead of the per-component Python loops of the Shifts code, which
would be far slower. assay: the CLI (`assay segment --pred --truth --brain-mask --json-out`) in
a fresh process, on all cores and with --threads 1, best of --repeats; peak RSS from wait4.
A second row times the loop structure of the Shifts MS code itself (one full-volume pass per
component, one nDSC per retention point) on the first --loop-subjects subjects, per subject.
Checks agreement (1e-9 relative; retention area 1e-6) and exits 1 if the values disagree.
Prints a table and writes bench/results/segment.md.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine_limits import copy_seconds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EPS = 1e-10


def generate(folder, n_subjects, shape, lesions, seed=7):
    import nibabel as nib
    from scipy import ndimage
    stamp = os.path.join(folder, "done.json")
    spec = {"subjects": n_subjects, "shape": list(shape), "lesions": list(lesions), "seed": seed}
    if os.path.exists(stamp):
        with open(stamp) as f:
            if json.load(f) == spec:
                return
    for sub in ("truth", "pred", "brain"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    affine = np.diag([-1.0, 1.0, 1.0, 1.0])
    affine[:3, 3] = [90, -126, -72]
    rng = np.random.default_rng(seed)
    centre = np.array(shape) / 2
    axes = np.array(shape) * np.array([0.38, 0.41, 0.38])
    x, y, z = np.ogrid[:shape[0], :shape[1], :shape[2]]
    brain = (((x - centre[0]) / axes[0]) ** 2 + ((y - centre[1]) / axes[1]) ** 2 +
             ((z - centre[2]) / axes[2]) ** 2 <= 1)
    for s in range(n_subjects):
        t0 = time.perf_counter()
        truth = np.zeros(shape, dtype=np.uint8)
        spurious = np.zeros(shape, dtype=np.float32)
        count = int(rng.integers(lesions[0], lesions[1] + 1))
        missed = rng.random(count) < 0.15
        for k in range(count + count // 5):
            while True:
                c = rng.uniform(0.15, 0.85, 3) * np.array(shape)
                if brain[tuple(c.astype(int))]:
                    break
            r = rng.uniform(0.8, 4.0, 3)
            lo = np.maximum((c - r - 1).astype(int), 0)
            hi = np.minimum((c + r + 2).astype(int), shape)
            gx, gy, gz = np.ogrid[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]]
            blob = ((gx - c[0]) / r[0]) ** 2 + ((gy - c[1]) / r[1]) ** 2 + \
                ((gz - c[2]) / r[2]) ** 2 <= 1
            box = (slice(lo[0], hi[0]), slice(lo[1], hi[1]), slice(lo[2], hi[2]))
            if k < count:
                truth[box] |= blob.astype(np.uint8)
                if missed[k]:
                    spurious[box] -= 2 * blob
            else:  # a false-positive blob
                spurious[box] += rng.uniform(0.3, 0.9) * blob
        p = ndimage.gaussian_filter(truth.astype(np.float32), 0.8) * 1.4 + spurious
        p += rng.uniform(0, 0.02, shape).astype(np.float32) * brain
        p = np.clip(p, 0, 1).astype(np.float32)
        name = f"sub-{s + 1:03d}"
        nib.save(nib.Nifti1Image(truth, affine), os.path.join(folder, "truth",
                                                              f"{name}_gt.nii.gz"))
        nib.save(nib.Nifti1Image(p, affine), os.path.join(folder, "pred", f"{name}_prob.nii.gz"))
        nib.save(nib.Nifti1Image(brain.astype(np.uint8), affine),
                 os.path.join(folder, "brain", f"{name}_brain.nii.gz"))
        print(f"  generated {name}: {count} lesions, {truth.sum()} lesion voxels "
              f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    with open(stamp, "w") as f:
        json.dump(spec, f)


def peer_subject(pred_path, truth_path, brain_path, threshold=0.35, min_size=10, iou=0.25,
                 r=0.001, points=200):
    """The Shifts MS measures of one subject with nibabel + numpy + scipy.ndimage."""
    import nibabel as nib
    from scipy import ndimage
    p = nib.load(pred_path).get_fdata().ravel(order="F")
    truth = nib.load(truth_path).get_fdata().ravel(order="F").astype(np.uint8)
    brain = nib.load(brain_path).get_fdata().ravel(order="F").astype(bool)
    shape = nib.load(truth_path).shape
    q = 1 - p
    unc = -(p * np.log(p + EPS) + q * np.log(q + EPS))
    pred = (p >= threshold).reshape(shape, order="F")
    structure = ndimage.generate_binary_structure(3, 1)
    labels, n_pred = ndimage.label(pred, structure)
    sizes = np.bincount(labels.ravel())
    keep = sizes >= min_size
    keep[0] = False
    pred = keep[labels]
    labels, n_pred = ndimage.label(pred, structure)
    true_labels, n_true = ndimage.label(truth.reshape(shape, order="F"), structure)
    pred = pred.ravel(order="F").astype(np.uint8)
    tp = int(np.sum(pred & truth))
    fp = int(np.sum(pred)) - tp
    fn = int(np.sum(truth)) - tp

    def ndsc_of(tp, fp, fn, g, n):
        k = (1 - r) * g / (r * (n - g)) if g > 0 else 1.0
        denom = 2 * tp + k * fp + fn
        return np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), 1.0)

    dsc = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 1.0
    ndsc = float(ndsc_of(tp, fp, fn, int(truth.sum()), truth.size))

    # Lesion F1 from the overlaps of predicted and true components.
    lp = labels.ravel()
    lt = true_labels.ravel()
    both = (lp > 0) & (lt > 0)
    pairs, inter = np.unique(lp[both].astype(np.int64) * (n_true + 1) + lt[both],
                             return_counts=True)
    a, b = pairs // (n_true + 1), pairs % (n_true + 1)
    size_p = np.bincount(lp, minlength=n_pred + 1)
    size_t = np.bincount(lt, minlength=n_true + 1)
    ious = inter / (size_p[a] + size_t[b] - inter)
    best_p = np.zeros(n_pred + 1)
    best_t = np.zeros(n_true + 1)
    np.maximum.at(best_p, a, ious)
    np.maximum.at(best_t, b, ious)
    ltp = int(np.sum(best_p[1:] >= iou))
    lfp = n_pred - ltp
    lfn = int(np.sum(best_t[1:] < iou))
    f1 = ltp / (ltp + (lfp + lfn) / 2) if ltp + lfp + lfn else 1.0

    # nDSC retention over the brain voxels: the pos most certain keep the prediction.
    u, pb, tb = unc[brain], pred[brain], truth[brain]
    order = np.argsort(u, kind="stable")
    pb, tb = pb[order], tb[order]
    n = len(u)
    cum_tp = np.r_[0, np.cumsum(pb & tb)]
    cum_fp = np.r_[0, np.cumsum(pb & (1 - tb))]
    cum_fn = np.r_[0, np.cumsum((1 - pb) & tb)]
    cum_t = np.r_[0, np.cumsum(tb)]
    g = int(tb.sum())
    fractions = np.log(np.arange(1, points + 1)) / np.log(points)
    pos = np.floor(n * fractions).astype(np.int64)
    curve = ndsc_of(cum_tp[pos] + (g - cum_t[pos]), cum_fp[pos], cum_fn[pos], g, n)
    area = 1 - np.trapz(curve, fractions)
    return {"dsc": dsc, "ndsc": ndsc, "lesion_tp": ltp, "lesion_fp": lfp, "lesion_fn": lfn,
            "lesion_f1": f1, "ndsc_retention_auc": float(area),
            "mean_uncertainty": float(u.mean())}


def loop_peer_subject(pred_path, truth_path, brain_path, threshold=0.35, min_size=10, iou=0.25,
                      r=0.001, points=200):
    """The same measures with the structure of the Shifts MS code (mswml): one full-volume
    pass per component for the post-processing and the lesion matching, one nDSC per retention
    point. Only timed (its values equal peer_subject's)."""
    import nibabel as nib
    from scipy import ndimage
    p = nib.load(pred_path).get_fdata()
    truth = nib.load(truth_path).get_fdata()
    brain = nib.load(brain_path).get_fdata().astype(bool)
    q = 1 - p
    unc = -(p * np.log(p + EPS) + q * np.log(q + EPS))
    seg = (p >= threshold).astype(float)
    labels, n = ndimage.label(seg)
    cleaned = np.zeros_like(seg)
    for i in range(1, n + 1):
        component = labels == i
        if component.sum() >= min_size:
            cleaned[component] = 1

    def ndsc(gt, pred):
        tp = np.sum(gt * pred)
        fp = np.sum((1 - gt) * pred)
        fn = np.sum(gt * (1 - pred))
        k = (1 - r) * gt.sum() / (r * (len(gt.flatten()) - gt.sum())) if gt.sum() else 1.0
        return 2 * tp / (2 * tp + k * fp + fn) if 2 * tp + k * fp + fn else 1.0

    ndsc(truth, cleaned)
    pl, npred = ndimage.label(cleaned)
    tl, ntrue = ndimage.label(truth)
    tp = fn = 0
    for i in range(1, npred + 1):
        lesion = pl == i
        best = 0.0
        for j in np.unique(tl[lesion]):
            if j:
                other = tl == j
                best = max(best, np.sum(lesion & other) / np.sum(lesion | other))
        tp += best >= iou
    for j in range(1, ntrue + 1):
        lesion = tl == j
        best = 0.0
        for i in np.unique(pl[lesion]):
            if i:
                other = pl == i
                best = max(best, np.sum(lesion & other) / np.sum(lesion | other))
        fn += best < iou
    u, pb, tb = unc[brain], cleaned[brain], truth[brain]
    order = np.argsort(u)
    pb, tb = pb[order], tb[order]
    fractions = np.log(np.arange(1, points + 1)) / np.log(points)
    curve = []
    for x in fractions:
        pos = int(len(u) * x)
        mixed = np.concatenate([pb[:pos], tb[pos:]])
        curve.append(ndsc(tb, mixed))
    return 1 - np.trapz(curve, fractions)


def peer_run(subjects):
    rows = [peer_subject(*s) for s in subjects]
    ndsc = np.array([r["ndsc"] for r in rows])
    unc = np.array([r["mean_uncertainty"] for r in rows])
    errors = 1 - ndsc
    order = np.argsort(unc, kind="stable")
    n = len(rows)
    curve = np.r_[np.cumsum(errors[order])[::-1], 0] / n
    return rows, {"ndsc_mean": 100 * ndsc.mean(), "ndsc_sd": 100 * ndsc.std(),
                  "patient_r_auc": 100 * curve.mean()}


# Runs the command given after it and prints its wall time, its wait4 resource use and its exit
# status. A process keeps the peak RSS of the address space it was forked from (Linux carries
# it over fork and exec), so the CLI is started from this small interpreter, not from the bench
# itself, which holds the peer's volumes: its peak RSS is then its own.
LAUNCHER = """
import json, os, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(proc.pid, 0)
elapsed = time.perf_counter() - t
print(json.dumps({"elapsed": elapsed, "maxrss": usage.ru_maxrss * 1024,
                  "cpu": usage.ru_utime + usage.ru_stime,
                  "code": os.waitstatus_to_exitcode(status),
                  "stderr": proc.stderr.read().decode()}))
"""


def input_copy_seconds(subjects):
    """The memory bound: copying every subject's decoded voxels once, in their stored types
    (bench/machine_limits.py)."""
    import nibabel as nib
    total = 0.0
    for files in subjects:
        total += copy_seconds(*[np.asarray(nib.load(f).dataobj) for f in files], repeats=3)
    return total


def run_assay(cli, data, threads, out_json):
    args = [cli, "segment", "--pred", os.path.join(data, "pred"), "--truth",
            os.path.join(data, "truth"), "--brain-mask", os.path.join(data, "brain"),
            "--threads", str(threads), "--json-out", out_json, "--quiet"]
    launched = subprocess.run([sys.executable, "-c", LAUNCHER, *args], capture_output=True,
                              text=True, check=True)
    run = json.loads(launched.stdout)
    if run["code"] != 0:
        raise SystemExit(f"assay segment failed: {run['stderr']}")
    with open(out_json) as f:
        return run["elapsed"], run["maxrss"], json.load(f), run["cpu"]


def default_cli():
    """build/assay for the build/python package that PYTHONPATH points at."""
    try:
        import assay
        return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(assay.__file__)))), "assay")
    except ImportError:
        return os.path.join(ROOT, "build", "assay")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=20)
    parser.add_argument("--shape", default="182,218,182")
    parser.add_argument("--lesions", default="200,400", help="min,max lesions per subject")
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(),
                                                       "assay_bench_segment"))
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--loop-subjects", type=int, default=2,
                        help="subjects timed with the Shifts-style loops (0 = none)")
    parser.add_argument("--cli", default=os.environ.get("ASSAY_CLI") or default_cli(),
                        help="the assay CLI (default: next to the assay package on PYTHONPATH)")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "segment.md"))
    args = parser.parse_args()
    shape = tuple(int(v) for v in args.shape.split(","))
    lesions = tuple(int(v) for v in args.lesions.split(","))
    print(f"data in {args.data} (generated once, then reused)", file=sys.stderr)
    generate(args.data, args.subjects, shape, lesions)

    names = sorted(os.listdir(os.path.join(args.data, "truth")))
    subjects = []
    for name in names:
        sid = name[: -len("_gt.nii.gz")]
        subjects.append((os.path.join(args.data, "pred", f"{sid}_prob.nii.gz"),
                         os.path.join(args.data, "truth", name),
                         os.path.join(args.data, "brain", f"{sid}_brain.nii.gz")))

    t = time.perf_counter()
    cpu = time.process_time()
    peer_rows, peer_summary = peer_run(subjects)
    peer_time = time.perf_counter() - t
    peer_cpu = time.process_time() - cpu

    loop_time = None
    if args.loop_subjects > 0:
        t = time.perf_counter()
        for s in subjects[:args.loop_subjects]:
            loop_peer_subject(*s)
        loop_time = (time.perf_counter() - t) / args.loop_subjects

    copy_time = input_copy_seconds(subjects)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for threads in (0, 1):
            best = None
            for _ in range(args.repeats):
                elapsed, rss, doc, cpu = run_assay(args.cli, args.data, threads,
                                                   os.path.join(tmp, "out.json"))
                if best is None or elapsed < best[0]:
                    best = (elapsed, rss, doc, cpu)
            results[threads] = best

    doc = results[0][2]
    worst = {}
    for row, want in zip(doc["subjects"], peer_rows):
        for key, value in want.items():
            got = row[key]
            diff = abs(got - value) / max(abs(value), 1e-300) if value else abs(got)
            worst[key] = max(worst.get(key, 0.0), diff)
    summary = doc["summary"][0]
    worst["ndsc mean ± SD"] = max(
        abs(summary["ndsc"]["mean"] - peer_summary["ndsc_mean"]) / peer_summary["ndsc_mean"],
        abs(summary["ndsc"]["sd"] - peer_summary["ndsc_sd"]) / peer_summary["ndsc_sd"])
    worst["patient R-AUC"] = abs(summary["patient_r_auc"] - peer_summary["patient_r_auc"]) / \
        peer_summary["patient_r_auc"]
    tolerance = {"ndsc_retention_auc": 1e-6}
    agree = all(v <= tolerance.get(k, 1e-9) for k, v in worst.items())
    same_threads = results[0][2]["subjects"] == results[1][2]["subjects"]

    lesion_counts = [r["lesion_tp"] + r["lesion_fn"] for r in peer_rows]
    n_voxels = int(np.prod(shape))
    ncpu = os.cpu_count()
    all_time, all_rss = results[0][0], results[0][1]
    one_time, one_rss = results[1][0], results[1][1]
    volume_mb = n_voxels * 8 / 2 ** 20
    lines = [
        "| task | assay all cores (s) | assay 1 thread (s) | numpy/SciPy (s) | speed-up all cores "
        "| speed-up 1 thread | agree | assay peak RSS all cores / 1 thread (MiB) | x copy |",
        "|---|---:|---:|---:|---:|---:|:---:|---:|---:|",
        f"| {len(subjects)} subjects of {'×'.join(map(str, shape))}, "
        f"{min(lesion_counts)}–{max(lesion_counts)} lesions each | {all_time:.2f} | "
        f"{one_time:.2f} | {peer_time:.2f} | {peer_time / all_time:.1f}x | "
        f"{peer_time / one_time:.1f}x | {'yes' if agree and same_threads else 'NO'} | "
        f"{all_rss / 2 ** 20:.0f} / {one_rss / 2 ** 20:.0f} | {one_time / copy_time:.0f} |",
        f"| same, CPU time (user + sys) | {results[0][3]:.2f} | {results[1][3]:.2f} | "
        f"{peer_cpu:.2f} | {peer_cpu / results[0][3]:.1f}x | {peer_cpu / results[1][3]:.1f}x | | "
        "| |",
    ]
    if loop_time is not None:
        per_subject_all = all_time / len(subjects)
        per_subject_one = one_time / len(subjects)
        lines.append(
            f"| per subject, vs the Shifts-style loops ({args.loop_subjects} subjects timed) | "
            f"{per_subject_all:.2f} | {per_subject_one:.2f} | {loop_time:.2f} | "
            f"{loop_time / per_subject_all:.0f}x | {loop_time / per_subject_one:.0f}x | | | |")
    detail = ", ".join(f"{k} {v:.1e}" for k, v in worst.items())
    import nibabel
    import scipy
    header = (
        f"# Segmentation on NIfTI files: assay vs numpy/SciPy\n\n"
        f"Generated by `bench/bench_segment.py` on {platform.machine()} ({ncpu} CPUs), Python "
        f"{platform.python_version()}, numpy {np.__version__}, SciPy {scipy.__version__}, "
        f"nibabel {nibabel.__version__}; machine load average {os.getloadavg()[0]:.1f} at the end "
        "(the machine is shared). Each subject is three .nii.gz files written by nibabel "
        f"(probability map float32, truth and brain mask uint8) on the MS task's "
        f"{'×'.join(map(str, shape))} grid. Both sides compute the Shifts MS single-model "
        "measures: entropy of the prediction as voxel uncertainty, threshold 0.35, removal of "
        "components under 10 voxels (6-connectivity), DSC, nDSC (r = 0.001), lesion F1 (IoU >= "
        "0.25), nDSC retention area (200 points, brain voxels), mean uncertainty, mean ± SD over "
        "subjects and the patient-level retention. The peer loads with nibabel and uses "
        "scipy.ndimage.label with vectorised numpy counting (one run); assay is the `assay "
        "segment` CLI in a fresh process (best of "
        f"{args.repeats}), reading and decompressing the files itself. The second row times the "
        "structure of the Shifts MS code itself (one full-volume pass per component for the "
        "post-processing and the lesion matching, one nDSC per retention point) on the first "
        "subjects, per subject. CPU time (assay: wait4's user + sys of the CLI process; the "
        "peer: process_time) is shown because the shared machine was loaded: wall times include "
        "waiting for a core. Peak RSS (wait4, the CLI started from a small launcher so that it "
        "does not inherit the bench's own peak) shows the "
        f"streaming: one subject's volumes per worker (a volume is {volume_mb:.0f} MiB as "
        "doubles). Agreement: largest relative difference per value over subjects "
        f"({detail}); the thread count does not change the result: "
        f"{'yes' if same_threads else 'NO'}. `x copy`: assay's one-thread time over the time to "
        f"copy every subject's decoded voxels once in their stored types ({copy_time:.3f} s in "
        "this run; bench/machine_limits.py). Decompressing the files is most of the gap: "
        "inflation alone has to write those bytes, and scoring reads them several times "
        "(threshold, labelling, entropy, retention).\n\n")
    text = header + "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    if not (agree and same_threads):
        sys.exit(1)


if __name__ == "__main__":
    main()
