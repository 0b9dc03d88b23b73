"""NIfTI reading and writing against Debian's python3-nibabel, both directions."""
import gzip
import os

import nibabel as nib
import numpy as np
import pytest

from assay import _assay
from assay.shift import segmentation as seg

AssayError = _assay.AssayError


def affine_of(rotation=0.3):
    c, s = np.cos(rotation), np.sin(rotation)
    a = np.array([[1.5 * c, -2 * s, 0, -90.0], [1.5 * s, 2 * c, 0, 126.0], [0, 0, 1.2, -72.0],
                  [0, 0, 0, 1]])
    return a


def volume(rng, dtype, shape=(7, 6, 5)):
    if np.dtype(dtype).kind == "f":
        return rng.normal(size=shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(dtype)


@pytest.mark.parametrize("suffix", [".nii", ".nii.gz"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.int16])
@pytest.mark.parametrize("scaled", [False, True])
def test_reads_what_nibabel_writes(tmp_path, rng, suffix, dtype, scaled):
    data = volume(rng, dtype)
    img = nib.Nifti1Image(data, affine_of())
    if scaled:
        img.header.set_slope_inter(0.5, -3.25)
    path = tmp_path / f"v{suffix}"
    nib.save(img, path)
    expected = nib.load(path)
    array, affine = seg.read_nifti(path)
    assert array.shape == expected.shape
    assert array.dtype == np.float64
    # Same values as get_fdata (scaling in double; nibabel may scale in float32 first).
    np.testing.assert_allclose(array, expected.get_fdata(), rtol=1e-7 if scaled else 0, atol=0)
    np.testing.assert_allclose(affine, expected.affine, rtol=0, atol=1e-6)


@pytest.mark.parametrize("suffix", [".nii", ".nii.gz"])
def test_reads_nifti2_and_big_endian(tmp_path, rng, suffix):
    data = volume(rng, np.float32)
    nib.save(nib.Nifti2Image(data, affine_of(0.1)), tmp_path / f"n2{suffix}")
    array, affine = seg.read_nifti(tmp_path / f"n2{suffix}")
    np.testing.assert_array_equal(array, data.astype(np.float64))
    np.testing.assert_allclose(affine, nib.load(tmp_path / f"n2{suffix}").affine, atol=1e-6)

    header = nib.Nifti1Header(endianness=">")
    big = nib.Nifti1Image(data.astype(">i2"), affine_of(), header=header)
    nib.save(big, tmp_path / f"be{suffix}")
    loaded = nib.load(tmp_path / f"be{suffix}")
    assert loaded.header.endianness == ">"
    array, affine = seg.read_nifti(tmp_path / f"be{suffix}")
    np.testing.assert_array_equal(array, loaded.get_fdata())


def test_affine_precedence_matches_nibabel(tmp_path, rng):
    data = volume(rng, np.uint8)
    img = nib.Nifti1Image(data, affine_of())
    img.set_sform(None, code=0)
    img.set_qform(affine_of(0.7), code=1)
    nib.save(img, tmp_path / "q.nii")
    _, affine = seg.read_nifti(tmp_path / "q.nii")
    np.testing.assert_allclose(affine, nib.load(tmp_path / "q.nii").affine, atol=1e-5)

    img = nib.Nifti1Image(data, None)
    img.header.set_zooms((0.9, 1.1, 2.0))
    img.set_sform(None, code=0)
    img.set_qform(None, code=0)
    nib.save(img, tmp_path / "none.nii")
    _, affine = seg.read_nifti(tmp_path / "none.nii")
    np.testing.assert_allclose(affine, nib.load(tmp_path / "none.nii").affine, atol=1e-6)


def test_four_d_with_one_volume_reads_as_three_d(tmp_path, rng):
    data = volume(rng, np.float32, (4, 3, 2, 1))
    nib.save(nib.Nifti1Image(data, np.eye(4)), tmp_path / "t1.nii.gz")
    array, _ = seg.read_nifti(tmp_path / "t1.nii.gz")
    np.testing.assert_array_equal(array, data[..., 0])


@pytest.mark.parametrize("suffix", [".nii", ".nii.gz"])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "float32", "float64"])
def test_nibabel_reads_what_assay_writes(tmp_path, rng, suffix, dtype):
    data = volume(rng, np.dtype(dtype)).astype(np.float64)
    if dtype == "uint8":
        data = np.abs(data) % 256
    path = tmp_path / f"w{suffix}"
    seg.write_nifti(path, data, affine_of(), dtype)
    img = nib.load(path)
    assert img.get_data_dtype() == np.dtype(dtype)
    expected = data.astype(np.float32) if dtype == "float32" else data
    np.testing.assert_array_equal(img.get_fdata(), expected)
    np.testing.assert_allclose(img.affine, affine_of(), atol=1e-6)
    np.testing.assert_allclose(img.header.get_qform(), affine_of(), atol=1e-5)
    back, affine = seg.read_nifti(path)
    np.testing.assert_array_equal(back, expected)


def test_c_ordered_arrays_keep_their_axes(tmp_path):
    data = np.arange(24, dtype=np.float64).reshape(2, 3, 4)  # C order
    seg.write_nifti(tmp_path / "c.nii", data, np.eye(4), "float64")
    np.testing.assert_array_equal(nib.load(tmp_path / "c.nii").get_fdata(), data)
    back, _ = seg.read_nifti(tmp_path / "c.nii")
    assert back.flags.f_contiguous
    np.testing.assert_array_equal(back, data)


def test_write_errors(tmp_path):
    with pytest.raises(AssayError, match=r"w.nii: voxel \(1, 0, 0\) = 0.5 cannot be stored as "
                                         r"uint8: expected an integer in \[0, 255\]"):
        seg.write_nifti(tmp_path / "w.nii", np.array([[[0.0]], [[0.5]]]), np.eye(4), "uint8")
    with pytest.raises(AssayError, match="expected uint8, int16, int32, float32 or float64, "
                                         'found "float16"'):
        seg.write_nifti(tmp_path / "w.nii", np.zeros((2, 2, 2)), np.eye(4), "float16")
    with pytest.raises(AssayError, match="expected a 3-D array, found 2 dimensions"):
        seg.write_nifti(tmp_path / "w.nii", np.zeros((2, 2)), np.eye(4))


def test_bad_files_are_errors_naming_them(tmp_path, rng):
    missing = tmp_path / "missing.nii.gz"
    with pytest.raises(AssayError) as e:
        seg.read_nifti(missing)
    assert str(e.value) == f"{missing}: cannot open: No such file or directory"

    data = rng.normal(size=(30, 30, 30)).astype(np.float32)
    good = tmp_path / "good.nii.gz"
    nib.save(nib.Nifti1Image(data, np.eye(4)), good)
    raw = good.read_bytes()

    truncated = tmp_path / "truncated.nii.gz"
    truncated.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(AssayError, match=f"^{truncated}: truncated"):
        seg.read_nifti(truncated)

    corrupt = tmp_path / "corrupt.nii.gz"
    flipped = bytearray(raw)
    for i in range(len(raw) // 2, len(raw) // 2 + 100):
        flipped[i] ^= 0xFF
    corrupt.write_bytes(bytes(flipped))
    with pytest.raises(AssayError, match=f"^{corrupt}: "):
        seg.read_nifti(corrupt)

    not_gzip = tmp_path / "plain.nii.gz"  # uncompressed bytes under a .gz name still read
    not_gzip.write_bytes(gzip.decompress(raw))
    np.testing.assert_array_equal(seg.read_nifti(not_gzip)[0], data)

    huge = tmp_path / "huge.nii"  # a damaged dim[1]: refused before anything is allocated
    plain = bytearray(gzip.decompress(raw))
    plain[42:44] = np.int16(32000).tobytes()
    huge.write_bytes(bytes(plain))
    with pytest.raises(AssayError) as e:
        seg.read_nifti(huge)
    assert str(e.value) == (f"{huge}: truncated: expected {32000 * 900 * 4} bytes of voxel data "
                            f"({32000 * 900} FLOAT32 voxels) from byte 352, found {27000 * 4}")
    huge_gz = tmp_path / "huge.nii.gz"
    huge_gz.write_bytes(gzip.compress(bytes(plain)))
    with pytest.raises(AssayError, match=f"^{huge_gz}: truncated: expected 115200000 bytes of "
                                         r"voxel data \(28800000 FLOAT32 voxels\) from byte 352, "
                                         "found (at most )?"):
        seg.read_nifti(huge_gz)

    magic = tmp_path / "magic.nii"
    plain = bytearray(gzip.decompress(raw))
    plain[344:348] = b"ni1\0"
    magic.write_bytes(bytes(plain))
    with pytest.raises(AssayError) as e:
        seg.read_nifti(magic)
    assert str(e.value) == (f'{magic}: not a single-file NIfTI-1 image: expected magic "n+1", '
                            'found "ni1\\x00" (the header of a .hdr/.img pair, renamed; assay '
                            'reads .nii/.nii.gz files)')

    four_d = tmp_path / "four_d.nii.gz"
    nib.save(nib.Nifti1Image(rng.normal(size=(4, 3, 2, 5)).astype(np.float32), np.eye(4)), four_d)
    with pytest.raises(AssayError) as e:
        seg.read_nifti(four_d)
    assert str(e.value) == (f"{four_d}: expected a 3-D volume, found a 4-D image of 4×3×2×5 with "
                            "5 volumes")

    complex_file = tmp_path / "complex.nii"
    nib.save(nib.Nifti1Image(np.zeros((2, 2, 2), dtype=np.complex64), np.eye(4)), complex_file)
    with pytest.raises(AssayError) as e:
        seg.read_nifti(complex_file)
    assert str(e.value) == (f"{complex_file}: unsupported data type COMPLEX64 (32): expected an "
                            "integer or float32/float64 type")

    folder = tmp_path / "folder.nii"
    os.mkdir(folder)
    with pytest.raises(AssayError, match="folder.nii: cannot open: not a regular file"):
        seg.read_nifti(folder)


def test_non_finite_intercept_with_slope_is_an_error(tmp_path):
    img = nib.Nifti1Image(np.zeros((2, 2, 2), dtype=np.int16), np.eye(4))
    path = tmp_path / "s.nii"
    nib.save(img, path)
    raw = bytearray(path.read_bytes())
    raw[112:116] = np.float32(2.0).tobytes()  # scl_slope
    raw[116:120] = np.float32(np.inf).tobytes()  # scl_inter
    path.write_bytes(bytes(raw))
    with pytest.raises(AssayError) as e:
        seg.read_nifti(path)
    assert str(e.value) == f"{path}: expected a finite scl_inter with scl_slope 2, found inf"


@pytest.mark.parametrize("offset", [0.0, -1.0, float("nan"), 1e30, 352.5])
def test_bad_vox_offset_is_an_error_not_a_shifted_read(tmp_path, offset):
    """libnifti replaces an invalid vox_offset by the header size (the voxels would be read 4
    bytes early); assay checks the raw value, as nibabel refuses it."""
    path = tmp_path / "v.nii"
    nib.save(nib.Nifti1Image(np.arange(8, dtype=np.float32).reshape(2, 2, 2), np.eye(4)), path)
    raw = bytearray(path.read_bytes())
    raw[108:112] = np.float32(offset).tobytes()
    path.write_bytes(bytes(raw))
    with pytest.raises(AssayError) as e:
        seg.read_nifti(path)
    assert str(e.value).startswith(f"{path}: expected vox_offset a whole number >= 348, found ")


def test_gzip_members_trailers_and_checks(tmp_path, rng):
    """A .nii.gz is inflated whole (libdeflate) when it is a sequence of complete gzip members;
    anything else goes through zlib's stream, so reads and messages are zlib's."""
    data = rng.normal(size=(20, 30, 40)).astype(np.float32)
    good = tmp_path / "good.nii.gz"
    nib.save(nib.Nifti1Image(data, np.eye(4)), good)
    plain = gzip.decompress(good.read_bytes())

    members = tmp_path / "members.nii.gz"  # three members, split inside the header and the data
    members.write_bytes(gzip.compress(plain[:100]) + gzip.compress(plain[100:5000])
                        + gzip.compress(plain[5000:]))
    np.testing.assert_array_equal(seg.read_nifti(members)[0], data)

    trailing = tmp_path / "trailing.nii.gz"  # zlib ignores bytes after the last member
    trailing.write_bytes(gzip.compress(plain) + b"\0\0junk")
    np.testing.assert_array_equal(seg.read_nifti(trailing)[0], data)

    whole = gzip.compress(plain)
    for name, damaged, why in [
            ("crc", whole[:-8] + bytes(4) + whole[-4:], "incorrect data check"),
            ("isize", whole[:-4] + (len(plain) + 1).to_bytes(4, "little"),
             "incorrect length check")]:
        path = tmp_path / f"{name}.nii.gz"
        path.write_bytes(damaged)
        with pytest.raises(AssayError) as e:
            seg.read_nifti(path)
        assert str(e.value) == f"{path}: corrupt compressed data (zlib: {why})"

    short_isize = tmp_path / "short.nii.gz"  # a too-small length guess grows the buffer
    short_isize.write_bytes(gzip.compress(plain[:348]) + gzip.compress(plain[348:]))
    np.testing.assert_array_equal(seg.read_nifti(short_isize)[0], data)
