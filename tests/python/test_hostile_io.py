"""Issue 14 (readers and messages): hostile inputs to the CLI's readers give a located message and
exit 2, never exit 1 "internal error", a crash, a half-written output or a silent wrong answer."""
import gzip
import os
import struct
import subprocess
import threading

import nibabel as nib
import numpy as np
import pytest

from conftest import cli_path

AFFINE = np.array([[-1.0, 0, 0, 90], [0, 1.0, 0, -126], [0, 0, 1.0, -72], [0, 0, 0, 1]])


def write(path, data: bytes):
    path.write_bytes(data)
    return path


def test_latin1_cell_is_refused_before_any_output(run_cli, tmp_path):
    # Before: exit 1 "[json.exception.type_error.316] incomplete UTF-8 string", 0-byte JSON.
    path = write(tmp_path / "l1.csv", b"y,p\ncaf\xe9,0.1\nb,0.9\n")
    out = run_cli("metrics", path, "--label", "y", "--score", "p", "--json-out", tmp_path / "o.json")
    assert out.returncode == 2, out.stderr
    assert f"{path}:2:4: expected UTF-8 text, found byte 0xE9" in out.stderr
    assert not (tmp_path / "o.json").exists()


def test_latin1_file_name_is_refused(run_cli, tmp_path):
    name = os.fsencode(tmp_path) + b"/caf\xe9.csv"
    with open(name, "wb") as f:
        f.write(b"y,p\n0,0.1\n1,0.9\n")
    out = subprocess.run([cli_path(), "metrics", name, "--label", "y", "--score", "p"],
                         capture_output=True, timeout=60)
    assert out.returncode == 2, out.stderr
    assert b'expected a UTF-8 file name, found byte 0xE9' in out.stderr


def test_fifo_is_read_as_a_stream(run_cli, tmp_path):
    fifo = tmp_path / "in.csv"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w") as f:
            f.write("y,p\n0,0.1\n1,0.9\n0,0.2\n")

    writer = threading.Thread(target=feed)
    writer.start()
    out = run_cli("metrics", fifo, "--label", "y", "--score", "p")
    writer.join()
    assert out.returncode == 0, out.stderr  # before: "empty file, expected a header row"
    assert "3 samples, 2 classes" in out.stdout


def test_bom_is_skipped(run_cli, tmp_path):
    path = write(tmp_path / "bom.csv", b"\xef\xbb\xbfy,p\n0,0.1\n1,0.9\n")
    out = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert out.returncode == 0, out.stderr
    assert "2 samples, 2 classes" in out.stdout


def test_ids_beyond_2_to_53_stay_distinct(run_cli, tmp_path):
    # Before: 9007199254740993 read as the double 9007199254740992, one class only.
    path = write(tmp_path / "ids.csv", b"y\n9007199254740993\n9007199254740992\n")
    out = run_cli("metrics", path, "--label", "y", "--pred", "y", "--json")
    assert out.returncode == 0, out.stderr
    assert '"9007199254740993"' in out.stdout and '"9007199254740992"' in out.stdout


def test_newlines_and_control_bytes_are_escaped_in_messages(run_cli, tmp_path):
    path = write(tmp_path / "nl.csv", b'y,p\n0,"a\nb\x01c"\n1,0.9\n')
    out = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert f'{path}:2:3: expected a number, found "a\\nb\\x01c"' in out.stderr
    assert out.stderr.count("\n") == 1


def test_nul_is_never_text(run_cli, tmp_path):
    # Issue 38: a NUL byte is refused where it is, before anything else (it was a cell's text).
    path = write(tmp_path / "nul.csv", b'y,p\n0,"a\nb\x00c"\n1,0.9\n')
    out = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert f"{path}:3:2: expected text, found a NUL byte (0x00)" in out.stderr


def test_shift_names_the_file_row_not_the_partition_index(run_cli, tmp_path):
    path = write(tmp_path / "s.csv", b"y,p,u,part\n1,1,0.1,a\n2,2,0.2,b\n3,nan,0.3,b\n4,4,0.1,a\n")
    out = run_cli("shift", path, "--target", "y", "--pred", "p", "--uncertainty", "u",
                  "--partition", "part")
    assert out.returncode == 2
    assert f'{path}:4:3: column "p": expected a finite number, found nan' in out.stderr


def test_stray_text_in_a_numeric_feature_is_refused(run_cli, tmp_path):
    rows = [f"{i % 2},{i}.5" for i in range(119)] + ["1,abc"]
    path = write(tmp_path / "stray.csv", ("y,x\n" + "\n".join(rows) + "\n").encode())
    out = run_cli("cv", path, "--label", "y", "--learners", "featureless", "--out", tmp_path / "o")
    assert out.returncode == 2, out.stderr
    assert (f'{path}:121:3: expected a number in numeric column "x" (119 of 120 rows are '
            'numbers), found "abc"') in out.stderr


def make_study(root, n=2, shape=(6, 5, 4)):
    rng = np.random.default_rng(0)
    for k in range(n):
        truth = (rng.random(shape) < 0.2).astype(np.uint8)
        for folder, data in (("truth", truth), ("pred", np.clip(truth * 0.8 + 0.1, 0, 1))):
            os.makedirs(root / folder, exist_ok=True)
            nib.save(nib.Nifti1Image(data.astype(np.float32), AFFINE),
                     root / folder / f"{k}_mask.nii.gz")


def test_write_masks_never_writes_into_an_input_folder(run_cli, tmp_path):
    make_study(tmp_path)
    before = (tmp_path / "pred" / "0_mask.nii.gz").read_bytes()
    out = run_cli("segment", "--pred", tmp_path / "pred", "--truth", tmp_path / "truth",
                  "--write-masks", tmp_path / "pred")
    assert out.returncode == 2
    # Paths are shown in full, not cut like other found text.
    assert f'--write-masks "{tmp_path / "pred"}": the folder holds input files (e.g. "' \
        in out.stderr, out.stderr
    assert (tmp_path / "pred" / "0_mask.nii.gz").read_bytes() == before
    out = run_cli("segment", "--pred", tmp_path / "pred", "--truth", tmp_path / "truth",
                  "--write-masks", tmp_path / "masks")
    assert out.returncode == 0, out.stderr


def test_nan_in_the_sform_is_named(run_cli, tmp_path):
    make_study(tmp_path)
    path = tmp_path / "pred" / "1_mask.nii.gz"
    img = nib.load(path)
    affine = AFFINE.copy()
    affine[0, 1] = np.nan
    img.header.set_sform(affine, code=1)
    nib.save(nib.Nifti1Image(np.asarray(img.dataobj), None, img.header), path)
    out = run_cli("segment", "--pred", tmp_path / "pred", "--truth", tmp_path / "truth")
    assert out.returncode == 2
    # Before: "affine differs from the truth's (...): entry [0][1] is 0 vs 0".
    assert (f"{path}: expected a finite voxel-to-world matrix (from the sform), found nan at "
            "entry [0][1]") in out.stderr


def big_zero_volume(path, n):
    """A gzipped NIfTI-1 uint8 volume of n^3 zeros, written without holding it in memory."""
    header = nib.Nifti1Header()
    header.set_data_shape((n, n, n))
    header.set_data_dtype(np.uint8)
    header.set_sform(AFFINE, code=1)
    header["vox_offset"] = 352
    zeros = bytes(1 << 22)
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(header.binaryblock + b"\0\0\0\0")
        left = n ** 3
        while left:
            f.write(zeros[:min(left, len(zeros))])
            left -= min(left, len(zeros))


def test_huge_volume_in_a_small_file_is_refused_before_allocating(tmp_path):
    # 600^3 voxels: 216 MB of zeros in a ~0.2 MB file, 1.7 GB as doubles; before: bad_alloc.
    (tmp_path / "t").mkdir()
    (tmp_path / "p").mkdir()
    big_zero_volume(tmp_path / "t" / "a.nii.gz", 600)
    os.link(tmp_path / "t" / "a.nii.gz", tmp_path / "p" / "a.nii.gz")
    assert os.path.getsize(tmp_path / "t" / "a.nii.gz") < 1_000_000
    script = (f"ulimit -v 1200000; exec '{cli_path()}' segment --pred '{tmp_path}/p' "
              f"--truth '{tmp_path}/t' --threads 1")
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert "a.nii.gz: needs 1.7 GB for a 600×600×600 volume (216000000 voxels as 8-byte " \
           "doubles), more than the" in out.stderr


def test_runs_names_the_cell_of_a_nan(run_cli, tmp_path):
    path = write(tmp_path / "r.csv", b"lr,auc\n0.1,0.9\nnan,0.7\n0.2,0.8\n")
    out = run_cli("runs", path, "--value", "auc", "--by", "lr")
    assert out.returncode == 2
    # Before: "by contains nan at index 1".
    assert f'{path}:3:1: column "lr": expected a finite number, found nan' in out.stderr
