import os
import shutil
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli_path():
    path = os.environ.get("ASSAY_CLI") or os.path.join(ROOT, "build", "assay")
    if not os.path.exists(path):
        pytest.fail(f"assay CLI not found at {path}: run `make build` first")
    return path


@pytest.fixture
def run_cli():
    """Runs the assay CLI; returns CompletedProcess with text stdout/stderr."""
    def run(*args, check=False):
        return subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True,
                              check=check, timeout=300)
    return run


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
