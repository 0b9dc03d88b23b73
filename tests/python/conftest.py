import os
import re
import shutil
import subprocess
import tempfile

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


CHROMIUM = os.environ.get("ASSAY_CHROMIUM", "/usr/bin/chromium")
# The real SOAK data sets live outside the repository (../shared/data/soak next to it);
# ASSAY_SOAK_DATA points elsewhere (e.g. when the checkout is a clone in another folder).
SOAK_DATA = os.environ.get("ASSAY_SOAK_DATA") or os.path.join(ROOT, "..", "shared", "data", "soak")


def soak_data(name):
    """Path of a real SOAK data set in ../shared/data/soak, or skip the test when absent."""
    path = os.path.join(SOAK_DATA, name)
    if not os.path.exists(path):
        pytest.skip(f"real data {name} not found in {os.path.abspath(SOAK_DATA)} "
                    "(the shared data folder is absent on this machine)")
    return path


def render_page(path):
    """Loads an HTML report page in headless Chromium; returns its data-assay-render status
    ("ok:<charts>" when every chart drew data marks, see report/html.hpp)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"chromium not found at {CHROMIUM}: run scripts/install-deps.sh")
    uri = "file://" + os.path.abspath(str(path))
    with tempfile.TemporaryDirectory() as profile:
        out = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=20000",
             "--dump-dom", uri],
            capture_output=True, text=True, timeout=90)
    assert out.returncode == 0, out.stderr
    m = re.search(r'<body[^>]*data-assay-render="([^"]*)"', out.stdout)
    return m.group(1) if m else ""
