"""assay.io: CSV and .npy reading, checked against pandas 1.5 and numpy."""
import re

import numpy as np
import pandas as pd
import pytest

import assay
import assay.io


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    if mode == "w":
        path.write_text(text, newline="")
    else:
        path.write_bytes(text)
    return str(path)


def error(path, **kwargs):
    with pytest.raises(assay.AssayError) as info:
        assay.io.read_csv(path, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("line_terminator", ["\n", "\r\n"])
def test_round_trip_matches_pandas(tmp_path, rng, line_terminator):
    n = 20000
    df = pd.DataFrame({
        "label": rng.integers(0, 3, n),
        "score": rng.random(n) * 10.0 ** rng.integers(-30, 30, n),
        "weight": np.round(rng.normal(size=n) * 1000) / 10.0 ** rng.integers(0, 6, n),
        "group": rng.choice(["north west", "south, east", 'say "hi"', " x ", "a\nb"], n),
    })
    path = str(tmp_path / "data.csv")
    df.to_csv(path, index=False, lineterminator=line_terminator)
    ours = assay.io.read_csv(path)
    ref = pd.read_csv(path, float_precision="round_trip", keep_default_na=False)
    assert list(ours) == ["label", "score", "weight", "group"]
    for name in ["label", "score", "weight"]:
        assert ours[name].dtype == np.float64
        np.testing.assert_array_equal(bits(ours[name]), bits(ref[name].to_numpy(dtype=np.float64)))
    assert ours["group"].dtype == object
    assert ours["group"].tolist() == ref["group"].tolist()


def test_threads_give_identical_results(tmp_path, rng):
    n = 130000  # > 4 MiB: several chunks, parsed in parallel
    y, p, w = rng.integers(0, 2, n), rng.random(n), rng.random(n) * 1e-5
    path = tmp_path / "big.csv"
    path.write_text("y,p,w\n" + "\n".join(f"{a},{b!r},{c!r}" for a, b, c in zip(y, p, w)) + "\n")
    assert path.stat().st_size > 4 << 20
    one = assay.io.read_csv(str(path), threads=1)
    two = assay.io.read_csv(str(path), threads=2)
    for name, ref in zip("ypw", (y, p, w)):
        np.testing.assert_array_equal(bits(one[name]), bits(two[name]))
        np.testing.assert_array_equal(bits(one[name]), bits(ref.astype(np.float64)))


def test_forced_types_and_missing(tmp_path):
    path = write(tmp_path, "d.csv", "label,score,note\n1,0.5,a b\n2,,\n1,1e-3, c\n")
    out = assay.io.read_csv(path, categorical=["label"], allow_missing=True)
    assert out["label"].tolist() == ["1", "2", "1"]
    ref = pd.read_csv(path, float_precision="round_trip")
    np.testing.assert_array_equal(out["score"], ref["score"].to_numpy())  # NaN in the same place
    assert out["note"].tolist() == ["a b", "", " c"]
    out = assay.io.read_csv(path, categorical="note", numeric="label", allow_missing=True)
    np.testing.assert_array_equal(out["label"], [1.0, 2.0, 1.0])


def test_quotes_bom_comments_blank_lines(tmp_path):
    path = write(tmp_path, "q.csv", b'\xef\xbb\xbf# c\n"a","b,c"\n\n"1.5","x ""y"""\r\n2,"two\nlines"\n',
                 mode="b")
    out = assay.io.read_csv(path, comments=True)
    assert list(out) == ["a", "b,c"]
    np.testing.assert_array_equal(out["a"], [1.5, 2.0])
    assert out["b,c"].tolist() == ['x "y"', "two\nlines"]
    out = assay.io.read_csv(write(tmp_path, "t.tsv", "a\tb\n1\tz\n"), delimiter="\t")
    assert out["b"].tolist() == ["z"]


def test_header_only(tmp_path):
    out = assay.io.read_csv(write(tmp_path, "h.csv", "y,p\n"))
    assert list(out) == ["y", "p"] and out["y"].shape == (0,) and out["y"].dtype == np.float64


@pytest.mark.parametrize("text,kwargs,message", [
    ("", {}, "{}: empty file, expected a header row"),
    ("a,b,c\n1,2,3\n4,5,6\n7,8,9\n1,2,3,4\n", {}, "{}:5:1: expected 3 fields, found 4"),
    ("a,b,c\n1,2\n", {}, "{}:2:1: expected 3 fields, found 2"),
    ("x,y,z\n" + "1,2,3\n" * 10 + "10,20,abc\n", {"numeric": ["z"]},
     '{}:12:7: expected a number, found "abc"'),
    ("a,b\n1,2\n3,\n", {}, "{}:3:3: expected a number, found an empty cell"),
    ('a,b\n1,"2\n', {}, "{}:2:3: unterminated quoted field (no closing quote before the end of the file)"),
    ('a,b\n1,"2"x\n', {}, '{}:2:6: expected a delimiter or the end of the line after a closing quote, '
     'found "x"'),
    ("a,b,a\n1,2,3\n", {}, '{}:1:5: duplicate column name "a" (columns 1 and 3)'),
    ("y,p1,p2\n1,2,3\n", {"categorical": ["score"]}, '{}: no column "score"; columns are: y, p1, p2'),
    ("y\n1\n", {"categorical": "y", "numeric": "y"}, 'column "y" is named both categorical and numeric'),
])
def test_csv_errors(tmp_path, text, kwargs, message):
    path = write(tmp_path, "data.csv", text)
    expected = message.format(path)
    assert error(path, **kwargs) == expected
    assert error(path, threads=1, **kwargs) == expected


def test_csv_file_errors(tmp_path):
    missing = str(tmp_path / "missing.csv")
    with pytest.raises(assay.AssayError, match=re.escape(f"{missing}: cannot open: No such file or directory")):
        assay.io.read_csv(missing)
    with pytest.raises(ValueError):  # AssayError is a ValueError
        assay.io.read_csv(missing)
    with pytest.raises(assay.AssayError, match="delimiter: expected one character such as ',' "
                                               "';' '\\|', tab or auto, found \";;\""):
        assay.io.read_csv(missing, delimiter=";;")


@pytest.mark.parametrize("array", [
    np.arange(12.0).reshape(3, 4),
    np.asfortranarray(np.arange(24.0).reshape(2, 3, 4)),
    np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)),
    np.array([0.1, -2.5, np.inf, np.nan], dtype=np.float32),
    np.array([-(2 ** 40), 7], dtype=np.int64),
    np.array([[1, 255]], dtype=np.uint8),
    np.array([True, False, True]),
    np.array([1.5, -0.25], dtype=np.float16),
    np.array(3.25),
    np.zeros((0, 3)),
])
def test_read_npy_matches_numpy(tmp_path, array):
    path = str(tmp_path / "a.npy")
    np.save(path, array)
    ours = assay.io.read_npy(path)
    ref = np.load(path).astype(np.float64)
    assert ours.dtype == np.float64 and ours.shape == ref.shape and ours.flags.c_contiguous
    np.testing.assert_array_equal(bits(ours), bits(np.ascontiguousarray(ref)))


def test_read_npy_errors(tmp_path):
    def message(data_or_array, allow_pickle=False):
        path = str(tmp_path / "x.npy")
        if isinstance(data_or_array, bytes):
            with open(path, "wb") as f:
                f.write(data_or_array)
        else:
            np.save(path, data_or_array, allow_pickle=allow_pickle)
        with pytest.raises(assay.AssayError) as info:
            assay.io.read_npy(path)
        return str(info.value).replace(path, "x.npy")

    assert message(b"a,b\n1,2\n") == 'x.npy: expected the magic string "\\x93NUMPY", found "a,b\\x0a1,"'
    supported = ("expected a real number, integer or bool type: f8, f4, f2, i8, i4, i2, i1, u8, "
                 "u4, u2, u1, b1 in either byte order")
    # Issue 38: big-endian data are the same numbers (byte-swapped), not an error.
    np.save(str(tmp_path / "be.npy"), np.arange(3, dtype=">f8"))
    np.testing.assert_array_equal(assay.io.read_npy(str(tmp_path / "be.npy")), [0, 1, 2])
    assert message(np.zeros(2, dtype=np.complex128)) == (
        'x.npy: unsupported dtype "<c16" (complex numbers; save the real and imaginary parts as '
        f"separate arrays); {supported}")
    assert message(np.array([None, 1], dtype=object), allow_pickle=True) == (
        'x.npy: unsupported dtype "|O" (Python objects, stored as a pickle: assay never unpickles, '
        "as loading a pickle can run code; save a numeric array, e.g. np.save(path, "
        f"a.astype(float))); {supported}")
    assert message(np.zeros(2, dtype=[("a", "<f8")])) == (
        "x.npy: unsupported dtype: structured arrays (descr is a list) are not supported")
    path = str(tmp_path / "ok.npy")
    np.save(path, np.arange(4.0))
    with open(path, "rb") as f:
        whole = f.read()
    assert message(whole[:-8]) == "x.npy: truncated data (expected 32 bytes for shape (4,) of <f8, found 24)"
    assert message(whole[:50]) == "x.npy: truncated header (expected 118 bytes, found 40)"
    missing = str(tmp_path / "missing.npy")
    with pytest.raises(assay.AssayError, match=re.escape(f"{missing}: cannot open: No such file or directory")):
        assay.io.read_npy(missing)
