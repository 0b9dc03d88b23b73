"""Issue 41: the CLI's long commands show a progress bar with its rate and ETA on a terminal's
stderr, and nothing with --quiet or when stderr is not a terminal. Each command runs for a few
seconds under a pseudo-terminal (the pty module) and the bytes it draws are checked."""
import os
import pty
import re
import select
import subprocess

import numpy as np
import pytest

from conftest import cli_path

RATE_AND_ETA = re.compile(r"\] +\d+% \(\d+/\d+\) [\d.]+[kMG]?/s, ETA \d")


def run_under_pty(args, timeout=300):
    """Runs the CLI with stderr on a pseudo-terminal; returns (exit status, what it drew)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([cli_path(), *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=slave)
    os.close(slave)
    drawn = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            drawn += chunk
        return proc.wait(timeout=timeout), drawn.decode(errors="replace")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Scores for metrics/compare, regression rows for shift, a small SOAK/CV data set."""
    folder = tmp_path_factory.mktemp("progress")
    rng = np.random.default_rng(41)
    n = 60000
    y = rng.integers(0, 2, n)
    scores = np.column_stack([y, 0.5 * y + rng.random(n), rng.random(n)])
    np.savetxt(folder / "scores.csv", scores, delimiter=",", header="y,a,b", comments="",
               fmt=["%d", "%.6f", "%.6f"])
    t = rng.normal(size=n)
    shift = np.column_stack([t, t + 0.3 * rng.normal(size=n), rng.random(n)])
    np.savetxt(folder / "shift.csv", shift, delimiter=",", header="y,p,u", comments="",
               fmt="%.6f")
    m = 3000
    x = rng.normal(size=(m, 5))
    label = (x[:, 0] + rng.normal(size=m) > 0).astype(int)
    subset = rng.integers(0, 3, m)
    np.savetxt(folder / "soak.csv", np.column_stack([x, label, subset]), delimiter=",",
               header="x0,x1,x2,x3,x4,y,subset", comments="",
               fmt=["%.6f"] * 5 + ["%d", "%d"])
    return folder


def commands(folder):
    return {
        "metrics": ["metrics", folder / "scores.csv", "--label", "y", "--score", "a",
                    "--bootstrap", "150", "--threads", "1"],
        "compare": ["compare", folder / "scores.csv", "--label", "y", "--models", "a,b",
                    "--resamples", "800", "--threads", "1"],
        "shift": ["shift", folder / "shift.csv", "--target", "y", "--pred", "p",
                  "--uncertainty", "u", "--bootstrap", "1000"],
        "soak": ["soak", folder / "soak.csv", "--label", "y", "--subset", "subset",
                 "--learners", "glmnet,featureless", "--threads", "1", "--out",
                 folder / "soak_out"],
        "cv": ["cv", folder / "soak.csv", "--label", "y", "--drop", "subset",
               "--learners", "glmnet,featureless", "--threads", "1", "--out",
               folder / "cv_out"],
    }


@pytest.mark.parametrize("command", ["metrics", "compare", "shift", "soak", "cv"])
def test_a_long_command_shows_rate_and_eta_on_a_terminal(data, command):
    status, drawn = run_under_pty(commands(data)[command])
    assert status == 0, drawn
    frames = drawn.split("\r")
    with_eta = [f for f in frames if RATE_AND_ETA.search(f)]
    assert with_eta, drawn[-2000:]
    # One bar for the whole command: it starts at 0% and reaches 100%, never restarting.
    bars = [f for f in frames if re.search(r"\] +\d+% \(", f)]
    assert re.search(r"\] +0% \(0/", bars[0]), bars[0]
    assert re.search(r"\] 100% \((\d+)/\1\)", bars[-1]), bars[-1]
    names = {f.split(" [", 1)[0].replace("\x1b[2K", "") for f in bars}
    assert len(names) == 1, names
    # The bar is erased at the end.
    assert "\x1b[2K" in drawn


@pytest.mark.parametrize("command", ["metrics", "soak"])
def test_quiet_or_no_terminal_draws_nothing(data, command):
    args = commands(data)[command]
    status, drawn = run_under_pty([*args, "--quiet"])
    assert status == 0, drawn
    text = drawn.replace("\r\n", "\n")  # the terminal ends its lines with CRLF
    assert not re.search(r"\] +\d+% \(|/s, ETA", text) and "\r" not in text, text
    piped = subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True,
                           timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert not re.search(r"\] +\d+% \(|/s, ETA", piped.stderr) and "\r" not in piped.stderr


def test_job_run_shows_rate_and_eta(data):
    plan = data / "plan"
    planned = subprocess.run([cli_path(), "cv", data / "soak.csv", "--label", "y", "--drop",
                              "subset", "--learners", "glmnet,featureless", "--plan", plan,
                              "--out", data / "job_out"], capture_output=True, text=True,
                             timeout=300)
    assert planned.returncode == 0, planned.stderr
    status, drawn = run_under_pty(["job", "run", plan, "--all", "--threads", "1"])
    assert status == 0, drawn
    assert any(RATE_AND_ETA.search(f) for f in drawn.split("\r")), drawn[-2000:]
