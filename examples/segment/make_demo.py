"""Generated volumes for the `assay segment` demo: 8 subjects of 64 x 72 x 56 voxels (truth
lesions, brain masks, a 3-member ensemble of lesion probability maps; subjects 6-8 "shifted", with
blurrier, noisier predictions) as .nii.gz files written by nibabel, plus partition.csv.

    /usr/bin/python3 examples/segment/make_demo.py OUT_DIR
    build/assay segment --pred OUT_DIR/member0 --pred OUT_DIR/member1 --pred OUT_DIR/member2 \
        --truth OUT_DIR/truth --brain-mask OUT_DIR/brain --partition OUT_DIR/partition.csv
"""
import os
import sys

import nibabel as nib
import numpy as np
from scipy import ndimage

SHAPE = (64, 72, 56)


def main(out):
    rng = np.random.default_rng(3)
    affine = np.diag([-1.0, 1.0, 1.0, 1.0])
    affine[:3, 3] = [32, -36, -28]
    x, y, z = np.ogrid[:SHAPE[0], :SHAPE[1], :SHAPE[2]]
    c = np.array(SHAPE) / 2
    brain = (((x - c[0]) / 27) ** 2 + ((y - c[1]) / 31) ** 2 + ((z - c[2]) / 23) ** 2 <= 1)
    for folder in ("truth", "brain", "member0", "member1", "member2"):
        os.makedirs(os.path.join(out, folder), exist_ok=True)
    rows = ["subject,partition"]
    for s in range(1, 9):
        shifted = s > 5
        truth = np.zeros(SHAPE, dtype=np.uint8)
        for _ in range(rng.integers(15, 40)):
            while True:
                centre = rng.uniform(0.2, 0.8, 3) * np.array(SHAPE)
                if brain[tuple(centre.astype(int))]:
                    break
            radius = rng.uniform(1.0, 3.5, 3)
            truth[((x - centre[0]) / radius[0]) ** 2 + ((y - centre[1]) / radius[1]) ** 2 +
                  ((z - centre[2]) / radius[2]) ** 2 <= 1] = 1
        truth &= brain
        sid = f"{s:02d}"
        nib.save(nib.Nifti1Image(truth, affine), os.path.join(out, "truth", f"{sid}_gt.nii.gz"))
        nib.save(nib.Nifti1Image(brain.astype(np.uint8), affine),
                 os.path.join(out, "brain", f"{sid}_brain.nii.gz"))
        # Harder subjects (and the shifted ones most): blurrier maps, more spurious voxels and
        # members that disagree more, so the ensemble's uncertainty tracks its errors.
        difficulty = rng.uniform(0.5, 1.0) if shifted else rng.uniform(0.0, 0.5)
        for m in range(3):
            blur = 0.7 + 1.2 * difficulty + rng.uniform(0, 0.6 * difficulty)
            gain = 1.4 + rng.uniform(-0.5, 0.5) * difficulty
            p = ndimage.gaussian_filter(truth.astype(float), blur) * gain
            p += rng.uniform(0, 0.05 + 0.3 * difficulty, SHAPE) * (rng.random(SHAPE) < 0.05)
            p = np.clip(p * brain, 0, 1).astype(np.float32)
            nib.save(nib.Nifti1Image(p, affine),
                     os.path.join(out, f"member{m}", f"pred_{sid}.nii.gz"))
        rows.append(f"{sid},{'shifted' if shifted else 'in-domain'}")
    with open(os.path.join(out, "partition.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/segment")
