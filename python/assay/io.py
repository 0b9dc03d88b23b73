"""Reading tables and arrays: ``read_csv`` (CSV -> dict of numpy arrays) and ``read_npy``.

Both are thin wrappers over the C++ readers (``assay/core/csv.hpp``, ``assay/core/npy.hpp``);
problems in a file raise ``assay.AssayError`` with ``file:line:column`` in the message.
"""
import os

import numpy as np

from . import _assay
from ._options import InvalidParameterError, check_threads, check_unsigned

__all__ = ["read_csv", "read_npy"]


def _names(value, what):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        return [str(v) for v in value]
    except TypeError:
        raise InvalidParameterError(
            f"{what}: expected a column name or a list of them, found {value!r}") from None


def _path(path):
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise InvalidParameterError(f"path: expected a file name, found {path!r}")
    return os.fsdecode(path)


def read_csv(path, categorical=None, numeric=None, allow_missing=False, comments=False,
             delimiter=",", threads=0, decimal=".", max_stream_bytes=None):
    """Reads a CSV file with a header row into ``{column name: numpy array}`` (file order).

    A column is numeric (float64 array) when every cell is a number, else categorical (an object
    array of str). ``categorical`` / ``numeric`` name columns to force to either type (a
    non-number in a forced numeric column is an error). Empty cells, and unquoted ``NA``,
    ``N/A``, ``#N/A``, in numeric columns are missing values: an error unless ``allow_missing``
    (then NaN). ``comments=True`` skips lines starting with ``#``. ``delimiter=";",
    decimal=","`` reads the CSV that Excel writes where the decimal mark is a comma.
    ``max_stream_bytes``: the most bytes read from a pipe or FIFO (default: the environment
    variable ``ASSAY_MAX_STREAM_BYTES``, else a third of the memory the process can allocate).
    ``threads``: 0 = all cores; the result does not depend on it.
    """
    limit = 0 if max_stream_bytes is None else check_unsigned(max_stream_bytes, "max_stream_bytes")
    if max_stream_bytes is not None and limit == 0:
        raise _assay.AssayError(
            "max_stream_bytes must be >= 1, found 0 (None = the default limit)")
    columns = _assay.read_csv(_path(path), _names(categorical, "categorical"),
                              _names(numeric, "numeric"), bool(allow_missing), bool(comments),
                              str(delimiter), check_threads(threads), str(decimal), limit)
    out = {}
    for name, is_numeric, payload in columns:
        if is_numeric:
            out[name] = payload
        else:
            codes, categories = payload
            table = np.empty(len(categories), dtype=object)
            table[:] = categories
            out[name] = table.take(codes)
    return out


def read_npy(path):
    """Reads a ``.npy`` file (numeric and bool dtypes in either byte order, C or Fortran order,
    format 1.0, 2.0 or 3.0 as any numpy version wrote it) as a float64 array of the stored shape,
    in C order. Object arrays are refused, never unpickled."""
    shape, data, _dtype = _assay.read_npy(_path(path))
    return data.reshape(shape)
