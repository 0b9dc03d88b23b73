"""Outputs never replace inputs: the check that the Python functions which read files and write
others make before any work (the CLI makes the same one; core/input_files.hpp)."""
import os

from . import _assay


def _path(value):
    return isinstance(value, (str, os.PathLike)) and os.path.exists(value)


def check_outputs(outputs, inputs):
    """outputs: {argument name: path or None}; inputs: {role: value}, where values that name an
    existing file are the inputs (spec text, arrays and loaded models are skipped).

    Raises AssayError when an output is one of the inputs (however spelled, a link or a hard
    link), a device, FIFO or socket, or cannot be written."""
    named = [(os.fspath(v), role) for role, v in inputs.items() if _path(v)]
    wanted = [(os.fspath(p), name) for name, p in outputs.items() if p is not None]
    if wanted:
        _assay._check_outputs(wanted, named)
