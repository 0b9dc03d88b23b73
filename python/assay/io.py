"""Reading tables and arrays: ``read_csv`` (CSV -> dict of numpy arrays) and ``read_npy``.

Both are thin wrappers over the C++ readers (``assay/core/csv.hpp``, ``assay/core/npy.hpp``);
problems in a file raise ``assay.AssayError`` with ``file:line:column`` in the message.
"""
import os

import numpy as np

from . import _assay
from ._options import InvalidParameterError, check_threads

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
             delimiter=",", threads=0):
    """Reads a CSV file with a header row into ``{column name: numpy array}`` (file order).

    A column is numeric (float64 array) when every cell is a number, else categorical (an object
    array of str). ``categorical`` / ``numeric`` name columns to force to either type (a
    non-number in a forced numeric column is an error). Empty cells in numeric columns are an
    error unless ``allow_missing`` (then NaN). ``comments=True`` skips lines starting with ``#``.
    ``threads``: 0 = all cores; the result does not depend on it.
    """
    columns = _assay.read_csv(_path(path), _names(categorical, "categorical"),
                              _names(numeric, "numeric"), bool(allow_missing), bool(comments),
                              str(delimiter), check_threads(threads))
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
    """Reads a ``.npy`` file (numeric and bool dtypes, C or Fortran order) as a float64 array of
    the stored shape, in C order."""
    shape, data, _dtype = _assay.read_npy(_path(path))
    return data.reshape(shape)
