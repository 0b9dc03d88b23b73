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
             delimiter=None, threads=0, decimal=None, max_stream_bytes=None):
    """Read a CSV file with a header row into a dict of numpy arrays.

    The result maps each column name to its values, in file order. A column is numeric (a
    float64 array) when every cell is a number, else categorical (an object array of str).
    Empty cells, and unquoted ``NA``, ``N/A``, ``#N/A``, in numeric columns are missing values.

    Parameters
    ----------
    path : str or os.PathLike
        The file to read (a pipe or FIFO works too).
    categorical : str or list of str, default=None
        Columns read as categorical even when every cell is a number.
    numeric : str or list of str, default=None
        Columns read as numeric; a non-number in one of them is an error.
    allow_missing : bool, default=False
        Read missing values in numeric columns as NaN instead of raising an error.
    comments : bool, default=False
        Skip lines starting with ``#``.
    delimiter : str, default=None
        The field separator: one character such as ``","``, ``";"``, ``"|"``, or ``"\\t"``
        (also ``"tab"``). None (or ``"auto"``): ``","``, unless the header is separated by
        ``";"`` or tabs (and not both): then the file is read with that separator and an
        ``AssayWarning`` notes it. ``delimiter=";", decimal=","`` reads the CSV that Excel writes
        where the decimal mark is a comma.
    threads : int, default=0
        Threads used to parse; 0 = all cores. The result does not depend on it.
    decimal : str, default=None
        The decimal mark of numbers, ``"."`` or ``","`` (then ``0,5`` and ``0.5`` both read as
        0.5). None (or ``"auto"``): ``","`` when ``";"`` was detected, else ``"."``.
    max_stream_bytes : int, default=None
        The most bytes read from a pipe or FIFO. None: the environment variable
        ``ASSAY_MAX_STREAM_BYTES``, else a third of the memory the process can allocate.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{column name: values}`` in file order: float64 arrays for numeric columns, object
        arrays of str for categorical ones.

    Raises
    ------
    assay.AssayError
        A problem in the file (the message gives ``file:line:column``), a missing value
        without ``allow_missing``, or ``max_stream_bytes=0``.

    Examples
    --------
    >>> from assay import io
    >>> _ = open("scores.csv", "w").write("y,score,site\\n1,0.9,a\\n0,0.2,b\\n1,NA,a\\n")
    >>> table = io.read_csv("scores.csv", allow_missing=True)
    >>> table["score"]
    array([0.9, 0.2, nan])
    >>> table["site"]
    array(['a', 'b', 'a'], dtype=object)
    """
    limit = 0 if max_stream_bytes is None else check_unsigned(max_stream_bytes, "max_stream_bytes")
    if max_stream_bytes is not None and limit == 0:
        raise _assay.AssayError(
            "max_stream_bytes must be >= 1, found 0 (None = the default limit)")
    columns = _assay.read_csv(_path(path), _names(categorical, "categorical"),
                              _names(numeric, "numeric"), bool(allow_missing), bool(comments),
                              "auto" if delimiter is None else str(delimiter),
                              check_threads(threads),
                              "auto" if decimal is None else str(decimal), limit)
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
    """Read a ``.npy`` file as a float64 array.

    Numeric and bool dtypes in either byte order, C or Fortran order, and format 1.0, 2.0 or
    3.0 as any numpy version wrote it are read; the result has the stored shape, in C order.
    Object arrays are refused, never unpickled.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npy`` file.

    Returns
    -------
    numpy.ndarray
        The values as float64, of the stored shape.

    Raises
    ------
    assay.AssayError
        An unreadable or malformed file, or an object array.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import io
    >>> np.save("counts.npy", np.arange(6, dtype=np.int32).reshape(2, 3))
    >>> io.read_npy("counts.npy")
    array([[0., 1., 2.],
           [3., 4., 5.]])
    """
    shape, data, _dtype = _assay.read_npy(_path(path))
    return data.reshape(shape)
