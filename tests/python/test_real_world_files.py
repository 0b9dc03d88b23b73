"""Issue 38 ("Trust"): files people already have, as the tools they use write them on this
machine (Python's csv module in Excel's dialect, pandas, R, numpy, nibabel), read by assay's CLI
and Python API -- accepted when they hold the same data, refused with a message that names what
is wrong when they do not. Endless streams (/dev/zero, `yes |`) end at once with a message
naming the limit. ONNX files from exporters are in test_onnx_exporters.py."""
import csv
import gzip
import io
import os
import shutil
import struct
import subprocess
import threading
import time

import nibabel as nib
import numpy as np
import pandas as pd
import pytest

import assay.io
from assay import _assay
from assay.shift import segmentation as seg
from conftest import cli_path

AssayError = _assay.AssayError


# --- CSV -----------------------------------------------------------------------------------


def write_excel_csv(path, rows):
    """What Excel's "CSV UTF-8 (Comma delimited)" writes: a byte order mark, CRLF line ends,
    fields quoted only when they hold a comma, quote or line break (Python's csv module in its
    "excel" dialect writes exactly that)."""
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        csv.writer(f, dialect="excel").writerows(rows)
    return path


def test_excel_csv_utf8_with_quotes_newlines_and_exponents(tmp_path, run_cli):
    rows = [["y", "p", "note"],
            [1, "1.5E-03", "Smith, J."],
            [0, "2.50E-01", 'two\nlines'],
            [1, "0.9", 'said "hi"'],
            [0, "1E+00", "café"]]
    path = write_excel_csv(tmp_path / "excel.csv", rows)
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw and b'"said ""hi"""' in raw
    with open(path, "ab") as f:
        f.write(b"\r\n")  # Excel ends some files with an empty line
    table = assay.io.read_csv(path)
    expected = pd.read_csv(path, encoding="utf-8-sig")
    assert list(table) == ["y", "p", "note"]
    np.testing.assert_array_equal(table["p"], expected["p"].to_numpy())
    assert list(table["note"]) == ["Smith, J.", "two\nlines", 'said "hi"', "café"]
    out = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert out.returncode == 0, out.stderr
    assert "4 samples, 2 classes" in out.stdout


def test_excel_rows_of_only_separators_are_named(tmp_path, run_cli):
    # Excel writes ",," for rows whose cells are formatted but empty.
    path = write_excel_csv(tmp_path / "blank_rows.csv",
                           [["y", "p"], [1, 0.9], [0, 0.2], ["", ""], ["", ""]])
    out = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert (f"{path}:4:2: expected a number, found an empty cell (the row holds only separators, "
            "as spreadsheets write for rows that are formatted but empty; delete such rows)"
            in out.stderr)


def r_script(code, tmp_path):
    if shutil.which("Rscript") is None:
        pytest.skip("R is not installed (Rscript not found)")
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr


def test_r_write_csv_with_na_and_row_names(tmp_path, run_cli):
    r_script('d <- data.frame(y = c(1, 0, 1, 0), p = c(0.9, 0.2, NA, 0.4), '
             'g = c("a", "b", NA, "a")); write.csv(d, "r.csv")', tmp_path)
    path = tmp_path / "r.csv"
    assert path.read_text().splitlines()[:2] == ['"","y","p","g"', '"1",1,0.9,"a"']
    table = assay.io.read_csv(path, allow_missing=True)
    assert list(table) == ["", "y", "p", "g"]
    np.testing.assert_array_equal(table[""], [1, 2, 3, 4])
    np.testing.assert_array_equal(table["p"], [0.9, 0.2, np.nan, 0.4])
    assert list(table["g"]) == ["a", "b", "NA", "a"]  # a text column keeps NA as text
    with pytest.raises(AssayError,
                       match=r'r.csv:4:7: expected a number, found a missing value "NA"'):
        assay.io.read_csv(path)
    out = run_cli("metrics", path, "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert f'{path}:4:7: expected a number, found a missing value "NA"' in out.stderr


def test_r_write_csv2_the_european_dialect(tmp_path, run_cli):
    # write.csv2 is what European Excel writes as "CSV": ';' between fields, a decimal comma.
    r_script('write.csv2(data.frame(y = c(1, 0, 1), p = c(0.75, 0.25, 1.5e-3)), "eu.csv", '
             'row.names = FALSE)', tmp_path)
    path = tmp_path / "eu.csv"
    assert path.read_text().splitlines() == ['"y";"p"', "1;0,75", "0;0,25", "1;0,0015"]
    # Read as it is: the header shows ';', which brings the decimal comma; a note says so.
    out = run_cli("metrics", path, "--label", "y", "--score", "p", "--json")
    assert out.returncode == 0, out.stderr
    assert (f"assay: note: {path}: columns separated by ';' (detected from the header), numbers "
            "with a decimal comma" in out.stderr)
    # Said otherwise (--delimiter ','), the header is one column and refused, naming ';'.
    out = run_cli("metrics", path, "--label", "y", "--score", "p", "--delimiter", ",")
    assert out.returncode == 2
    assert (f"{path}:1:4: expected ',' between column names, found ';' in the header "
            + r'"\"y\";\"p\"": the file is separated by' in out.stderr)
    assert "(Excel's CSV where the decimal mark is a comma)" in out.stderr
    assert 'assay.io.read_csv(path, delimiter=";", decimal=",")' in out.stderr
    table = assay.io.read_csv(path, delimiter=";", decimal=",")
    np.testing.assert_array_equal(table["p"], [0.75, 0.25, 1.5e-3])


def test_excel_european_csv_written_by_pandas(tmp_path):
    df = pd.DataFrame({"y": [1, 0], "p": [0.75, -1.25e-7]})
    df.to_csv(tmp_path / "eu.csv", sep=";", decimal=",", index=False, encoding="utf-8-sig",
              lineterminator="\r\n")
    with pytest.raises(AssayError, match=r"eu.csv:1:2: expected ',' between column names, "
                                         r"found ';' in the header \"y;p\""):
        assay.io.read_csv(tmp_path / "eu.csv", delimiter=",")
    with pytest.warns(assay.AssayWarning, match="columns separated by ';' .detected"):
        detected = assay.io.read_csv(tmp_path / "eu.csv")
    np.testing.assert_array_equal(detected["p"], df["p"].to_numpy())
    table = assay.io.read_csv(tmp_path / "eu.csv", delimiter=";", decimal=",")
    np.testing.assert_array_equal(table["p"], df["p"].to_numpy())


def test_pandas_to_csv_with_index_nan_and_inf(tmp_path, run_cli):
    df = pd.DataFrame({"y": [1, 0, 1, 0], "p": [0.9, np.nan, np.inf, -np.inf],
                       "name": ["a,b", 'q"x', "", "d"]}, index=[10, 11, 12, 13])
    df.to_csv(tmp_path / "pd.csv")
    text = (tmp_path / "pd.csv").read_text()
    assert text.splitlines()[:3] == [",y,p,name", '10,1,0.9,"a,b"', '11,0,,"q""x"']
    table = assay.io.read_csv(tmp_path / "pd.csv", allow_missing=True)
    back = pd.read_csv(tmp_path / "pd.csv", index_col=0, keep_default_na=False,
                       na_values={"p": [""]})
    np.testing.assert_array_equal(table[""], [10, 11, 12, 13])
    np.testing.assert_array_equal(table["p"], back["p"].to_numpy())
    assert list(table["name"]) == ["a,b", 'q"x', "", "d"]  # pandas wrote '' unquoted: allowed
    # The file's rows with finite scores, through the CLI: the NaN is refused where it is.
    out = run_cli("metrics", tmp_path / "pd.csv", "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert f"{tmp_path / 'pd.csv'}:3:6: expected a number, found an empty cell" in out.stderr


def test_numpy_savetxt(tmp_path, run_cli):
    a = np.array([[1, 0.125], [0, 0.5], [1, 1e-300]])
    np.savetxt(tmp_path / "np.csv", a, delimiter=",", header="y,p", comments="")
    table = assay.io.read_csv(tmp_path / "np.csv")
    np.testing.assert_array_equal(table["p"], a[:, 1])
    out = run_cli("metrics", tmp_path / "np.csv", "--label", "y", "--score", "p")
    assert out.returncode == 0, out.stderr
    # With savetxt's default comments="# " the header is "# y,p": its first column is "# y"
    # (a column may be named "# of items"), and the message lists the columns.
    np.savetxt(tmp_path / "hash.csv", a, delimiter=",", header="y,p")
    assert list(assay.io.read_csv(tmp_path / "hash.csv")) == ["# y", "p"]
    out = run_cli("metrics", tmp_path / "hash.csv", "--label", "y", "--score", "p")
    assert out.returncode == 2 and "# y" in out.stderr


def test_utf16_text_is_named(tmp_path, run_cli):
    # Excel's "Unicode Text" is UTF-16 LE with a byte order mark.
    (tmp_path / "u16.csv").write_text("y,p\n1,0.9\n0,0.1\n", encoding="utf-16")
    out = run_cli("metrics", tmp_path / "u16.csv", "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert (f"{tmp_path / 'u16.csv'}:1:1: expected UTF-8 text, found a UTF-16 byte order mark "
            "(0xFF 0xFE): the file is UTF-16 text" in out.stderr)
    (tmp_path / "u16le.csv").write_bytes("y,p\n1,0.9\n".encode("utf-16-le"))
    with pytest.raises(AssayError, match=r"u16le.csv:1:2: expected text, found a NUL byte"):
        assay.io.read_csv(tmp_path / "u16le.csv")


def test_windows_1252_text_is_named(tmp_path, run_cli):
    (tmp_path / "w.csv").write_bytes("y,p,who\n1,0.9,café\n".encode("cp1252"))
    out = run_cli("metrics", tmp_path / "w.csv", "--label", "y", "--score", "p")
    assert out.returncode == 2
    assert f"{tmp_path / 'w.csv'}:2:10: expected UTF-8 text, found byte 0xE9 (Latin-1" in out.stderr
    assert "iconv -f WINDOWS-1252 -t UTF-8" in out.stderr


def run_shell(command, env=None, timeout=30):
    start = time.monotonic()
    out = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                         timeout=timeout, env={**os.environ, **(env or {})})
    return out, time.monotonic() - start


def test_dev_zero_is_refused_at_its_first_byte():
    out, seconds = run_shell(f"'{cli_path()}' metrics /dev/zero --label y --score p")
    assert out.returncode == 2, out.stderr
    assert "/dev/zero:1:1: expected text, found a NUL byte (0x00)" in out.stderr
    assert seconds < 5
    with pytest.raises(AssayError, match="/dev/zero:1:1: expected text, found a NUL byte"):
        assay.io.read_csv("/dev/zero")


def test_endless_yes_stops_at_the_stream_limit():
    command = f"yes | '{cli_path()}' metrics /dev/stdin --label y --score y"
    out, seconds = run_shell(command, env={"ASSAY_MAX_STREAM_BYTES": "1000000"})
    assert out.returncode == 2, out.stderr
    assert ("/dev/stdin: cannot read: the stream holds more than 1.0 MB (the limit "
            "ASSAY_MAX_STREAM_BYTES=1000000); to read more, save the data to a file" in out.stderr)
    assert seconds < 5
    out, _ = run_shell(command, env={"ASSAY_MAX_STREAM_BYTES": "1e6"})
    assert out.returncode == 2
    assert 'ASSAY_MAX_STREAM_BYTES: expected an integer in 0..18446744073709551615, found "1e6"' \
        in out.stderr


def test_endless_yes_stops_at_the_default_limit_under_a_memory_cap():
    # Default: a third of what the process may allocate (here capped by ulimit -v at 1.5 GB).
    command = f"ulimit -v 1500000; yes | '{cli_path()}' metrics /dev/stdin --label y --score y"
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_MAX_STREAM_BYTES"}
    out = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60,
                         env=env)
    assert out.returncode == 2, out.stderr
    assert "/dev/stdin: cannot read: the stream holds more than" in out.stderr
    assert "(the limit for a stream: a third of the" in out.stderr
    assert "set ASSAY_MAX_STREAM_BYTES to change it" in out.stderr


def test_python_stream_limit(tmp_path):
    fifo = tmp_path / "in.csv"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["bash", "-c", f"yes > '{fifo}'"], stderr=subprocess.DEVNULL)
    try:
        with pytest.raises(AssayError, match=r"the stream holds more than 5000 bytes \(the limit "
                                             r"max_stream_bytes = 5000\)"):
            assay.io.read_csv(fifo, max_stream_bytes=5000)
    finally:
        writer.kill()
        writer.wait()
    with pytest.raises(AssayError, match="max_stream_bytes must be >= 1"):
        assay.io.read_csv(fifo, max_stream_bytes=0)


# --- NPY -----------------------------------------------------------------------------------

DTYPES = ["<f8", ">f8", "<f4", ">f4", "<f2", ">f2", "<i8", ">i8", "<i4", ">i4", "<i2", ">i2",
          "|i1", "<u8", ">u8", "<u4", "<u2", ">u2", "|u1", "|b1"]


def sample(dtype, shape, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -10**6), min(info.max, 10**6), size=shape,
                            endpoint=True).astype(dtype)
    return rng.normal(scale=100, size=shape).astype(dtype)


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_npy_every_format_version_and_byte_order(tmp_path, rng, version, dtype):
    a = sample(dtype, (3, 4), rng)
    path = tmp_path / "a.npy"
    with open(path, "wb") as f:
        np.lib.format.write_array(f, a, version=version)
    assert path.read_bytes()[6] == version[0]
    got = assay.io.read_npy(path)
    assert got.dtype == np.float64 and got.shape == (3, 4)
    np.testing.assert_array_equal(got, np.load(path).astype(np.float64))


@pytest.mark.parametrize("dtype", ["<f8", ">f4", "<i2", "|u1", ">u8"])
@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (1,), (2, 3, 4)])
def test_npy_shapes_orders_and_empty_arrays(tmp_path, rng, dtype, shape):
    for order in "CF":
        a = np.array(sample(dtype, shape, rng), order=order)
        np.save(tmp_path / "a.npy", a)
        got = assay.io.read_npy(tmp_path / "a.npy")
        assert got.shape == a.shape
        np.testing.assert_array_equal(got, a.astype(np.float64))


def npy_with_header(header, data, version=1, align=64):
    """A .npy as a numpy of another era wrote it: `header` padded with spaces and a newline to
    a multiple of `align` bytes in all (numpy < 1.9 aligned to 16, today's to 64)."""
    length_bytes = 2 if version == 1 else 4
    total = 6 + 2 + length_bytes + len(header) + 1
    padded = header + " " * (-total % align) + "\n"
    size = struct.pack("<H" if version == 1 else "<I", len(padded))
    return b"\x93NUMPY" + bytes([version, 0]) + size + padded.encode("utf-8") + data


@pytest.mark.parametrize("header", [
    "{'descr': '<f8', 'fortran_order': False, 'shape': (3L,), }",      # Python 2: long ints
    "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}",         # no trailing comma
    "{u'descr': u'<f8', u'fortran_order': False, u'shape': (3,), }",   # Python 2 unicode
    '{"descr": "<f8", "fortran_order": False, "shape": (3,)}',         # double quotes
    "{'shape': (3,), 'fortran_order': False, 'descr': '<f8'}",         # another key order
    "{'descr':'<f8','fortran_order':False,'shape':(3,)}",              # no spaces
    "{'descr': 'd', 'fortran_order': False, 'shape': (3,), }",         # a one-letter code
    "{'descr': '=f8', 'fortran_order': False, 'shape': (3,), }",       # native order
])
@pytest.mark.parametrize("align", [16, 64])
def test_npy_headers_older_writers_wrote(tmp_path, header, align):
    values = np.array([1.5, -2.25, 1e300])
    path = tmp_path / "old.npy"
    path.write_bytes(npy_with_header(header, values.astype("<f8").tobytes(), align=align))
    np.testing.assert_array_equal(np.load(path), values)  # numpy reads it: so must assay
    np.testing.assert_array_equal(assay.io.read_npy(path), values)


def test_npy_big_endian_python2_era_file(tmp_path):
    values = np.arange(6, dtype=">i4").reshape(2, 3)
    path = tmp_path / "be.npy"
    path.write_bytes(npy_with_header(
        "{'descr': '>i4', 'fortran_order': False, 'shape': (2L, 3L), }", values.tobytes(),
        align=16))
    np.testing.assert_array_equal(assay.io.read_npy(path), values)


@pytest.mark.parametrize("array, why", [
    (np.array([{"a": 1}, None], dtype=object), "Python objects, stored as a pickle: assay never "
                                                "unpickles"),
    (np.array([1 + 2j]), "complex numbers"),
    (np.array(["ab", "c"]), "strings"),
    (np.array([b"ab"]), "strings"),
    (np.array(["2021-01-01"], dtype="datetime64[D]"), "dates or time spans"),
    (np.array([1.0], dtype=np.longdouble), "extended precision floats"),
])
def test_npy_what_is_not_numbers_is_refused_by_name(tmp_path, array, why):
    np.save(tmp_path / "x.npy", array, allow_pickle=True)
    with pytest.raises(AssayError) as e:
        assay.io.read_npy(tmp_path / "x.npy")
    assert str(e.value).startswith(f"{tmp_path / 'x.npy'}: unsupported dtype")
    assert why in str(e.value)


def test_npy_npz_and_streams(tmp_path):
    np.savez(tmp_path / "a.npz", x=np.arange(3), y=np.ones(2))
    with pytest.raises(AssayError, match=r"a.npz: expected a .npy file, found a zip archive "
                                         r"\(an .npz file of several arrays"):
        assay.io.read_npy(tmp_path / "a.npz")
    start = time.monotonic()
    with pytest.raises(AssayError, match=r'/dev/zero: expected the magic string "\\x93NUMPY", '
                                         r'found "\\x00'):
        assay.io.read_npy("/dev/zero")
    assert time.monotonic() - start < 5
    fifo = tmp_path / "a.npy"
    os.mkfifo(fifo)
    values = np.arange(12.0).reshape(3, 4)
    buffer = io.BytesIO()
    np.save(buffer, values)  # numpy's own writer cannot seek in a FIFO: write its bytes
    writer = threading.Thread(target=lambda: fifo.write_bytes(buffer.getvalue()))
    writer.start()
    try:
        np.testing.assert_array_equal(assay.io.read_npy(fifo), values)
    finally:
        writer.join(timeout=30)


# --- NIfTI ---------------------------------------------------------------------------------

ROTATED = np.array([[0.9, -0.3, 0.1, -90.0], [0.3, 0.95, 0.0, 126.0], [0.0, 0.1, 1.2, -72.0],
                    [0, 0, 0, 1]])
OBLIQUE = np.array([[-2.0, 0, 0, 90.0], [0, 2.0, 0, -126.0], [0, 0, 2.0, -72.0], [0, 0, 0, 1]])


def nibabel_image(variant, rng, klass=nib.Nifti1Image):
    """A volume as a common tool writes it; each variant is one thing real headers differ in."""
    shape = (6, 5, 4)
    data = rng.random(shape).astype(np.float32)
    img = klass(data, ROTATED)
    h = img.header
    if variant == "qform only":
        img.set_sform(None, code=0)
        img.set_qform(ROTATED, code=1)
    elif variant == "sform only":
        img.set_qform(None, code=0)
        img.set_sform(ROTATED, code=2)
    elif variant == "qform and a different sform":  # nibabel and assay take the sform
        img.set_qform(OBLIQUE, code=1)
        img.set_sform(ROTATED, code=4)
    elif variant == "neither (pixdim only)":
        img.set_qform(None, code=0)
        img.set_sform(None, code=0)
    elif variant == "uint8 probabilities scaled by 1/255":  # masks and probabilities as uint8
        img = klass(np.round(data * 255).astype(np.uint8), ROTATED)
        img.header.set_slope_inter(1 / 255, 0)
    elif variant == "int16 with slope and intercept":
        img = klass(rng.integers(-300, 300, size=shape).astype(np.int16), ROTATED)
        img.header.set_slope_inter(0.5, -3.25)
    elif variant.startswith("dtype "):
        dtype = np.dtype(variant.split()[1])
        values = rng.integers(0, 100, size=shape) if dtype.kind in "iu" else data
        img = klass(values.astype(dtype), ROTATED, dtype=dtype)
    elif variant == "an extension (vox_offset 512)":
        h.extensions.append(nib.nifti1.Nifti1Extension("comment", b"written by FSL 6.0 " * 8))
    elif variant == "vox_offset 1024":
        h.set_data_offset(1024)
    elif variant == "3-D stored as 4-D (dim[4] = 1)":  # FSL, SPM
        img = klass(data[..., np.newaxis], ROTATED)
    elif variant == "3-D stored as 5-D":
        img = klass(data[..., np.newaxis, np.newaxis], ROTATED)
    elif variant.startswith("units "):
        space, time_unit = variant.split()[1:]
        h.set_xyzt_units(space, time_unit)
    elif variant == "big-endian":
        img = klass(data.astype(">f4"), ROTATED, header=klass.header_class(endianness=">"))
    return img


NIFTI_VARIANTS = [
    "qform only", "sform only", "qform and a different sform", "neither (pixdim only)",
    "uint8 probabilities scaled by 1/255", "int16 with slope and intercept", "dtype int8",
    "dtype uint16", "dtype int32", "dtype uint32", "dtype int64", "dtype uint64", "dtype float64",
    "an extension (vox_offset 512)", "vox_offset 1024", "3-D stored as 4-D (dim[4] = 1)",
    "3-D stored as 5-D", "units meter msec", "units mm sec", "units micron unknown",
    "units unknown unknown", "big-endian"]


@pytest.mark.parametrize("variant", NIFTI_VARIANTS)
@pytest.mark.parametrize("klass", [nib.Nifti1Image, nib.Nifti2Image], ids=["nifti1", "nifti2"])
@pytest.mark.parametrize("suffix", [".nii", ".nii.gz"])
def test_nifti_as_tools_write_it(tmp_path, rng, variant, klass, suffix):
    path = tmp_path / f"v{suffix}"
    nib.save(nibabel_image(variant, rng, klass), path)
    expected = nib.load(path)
    array, affine = seg.read_nifti(path)
    np.testing.assert_allclose(array, expected.get_fdata().reshape(array.shape), rtol=1e-7, atol=0)
    np.testing.assert_allclose(affine, expected.affine, rtol=0, atol=1e-5)


def test_nifti_qfac_zero_reads_as_one(tmp_path, rng):
    # pixdim[0] (qfac) must be -1 or 1; some writers leave 0, which readers take as 1.
    path = tmp_path / "q.nii"
    nib.save(nibabel_image("qform only", rng), path)
    raw = bytearray(path.read_bytes())
    raw[76:80] = struct.pack("<f", 0.0)
    path.write_bytes(bytes(raw))
    expected = nib.load(path)
    _, affine = seg.read_nifti(path)
    np.testing.assert_allclose(affine, expected.affine, atol=1e-5)


def test_segment_reads_fsl_style_volumes(tmp_path, rng, run_cli):
    # Truth as FSL writes masks (4-D with one volume, units mm + sec, an extension), prediction
    # as uint8 probabilities scaled by 1/255: the CLI scores them as nibabel reads them.
    truth = np.zeros((12, 10, 8), dtype=np.uint8)
    truth[2:6, 2:6, 2:5] = 1
    prob = np.zeros(truth.shape)
    prob[3:7, 2:6, 2:5] = 0.8
    t_img = nib.Nifti1Image(truth[..., np.newaxis], ROTATED)
    t_img.header.set_xyzt_units("mm", "sec")
    t_img.header.extensions.append(nib.nifti1.Nifti1Extension("comment", b"fslmaths"))
    p_img = nib.Nifti1Image(np.round(prob * 255).astype(np.uint8), ROTATED)
    p_img.header.set_slope_inter(1 / 255, 0)
    for folder in ("truth", "pred"):
        (tmp_path / folder).mkdir()
    nib.save(t_img, tmp_path / "truth" / "sub-01_mask.nii.gz")
    nib.save(p_img, tmp_path / "pred" / "sub-01_prob.nii.gz")
    out = run_cli("segment", "--pred", tmp_path / "pred", "--truth", tmp_path / "truth",
                  "--min-size", "1", "--json")
    assert out.returncode == 0, out.stderr
    import json
    subject = json.loads(out.stdout)["subjects"][0]
    inter = np.sum((prob >= 0.35) & (truth == 1))
    assert subject["dsc"] == pytest.approx(2 * inter / (np.sum(prob >= 0.35) + truth.sum()))


@pytest.mark.parametrize("klass", [nib.Nifti1Pair, nib.AnalyzeImage])
def test_nifti_pairs_are_refused_with_how_to_convert(tmp_path, rng, klass):
    data = rng.random((4, 3, 2)).astype(np.float32)
    nib.save(klass(data, np.eye(4)), tmp_path / "v.hdr")
    for name in ("v.hdr", "v.img"):
        with pytest.raises(AssayError) as e:
            seg.read_nifti(tmp_path / name)
        assert str(e.value) == (
            f"{tmp_path / name}: expected a single-file NIfTI volume (.nii or .nii.gz), found one "
            "file of a .hdr/.img pair (as FSL writes with FSLOUTPUTTYPE=NIFTI_PAIR, or Analyze "
            f"7.5); convert it, e.g. with fslchfiletype NIFTI_GZ {tmp_path / 'v.hdr'} or in "
            f'Python nibabel.save(nibabel.load("{tmp_path / "v.hdr"}"), "{tmp_path / "v"}.nii.gz")')
    # The pair's header renamed to .nii: named by its magic.
    shutil.copy(tmp_path / "v.hdr", tmp_path / "renamed.nii")
    with pytest.raises(AssayError, match="renamed.nii: not a single-file NIfTI-1 image|"
                                         "renamed.nii: not a NIfTI file"):
        seg.read_nifti(tmp_path / "renamed.nii")
