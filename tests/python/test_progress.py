"""Progress of long Python calls: a bar with rate and ETA on a terminal's stderr, nothing with
progress=False or when stderr is not a terminal, the same results either way, Ctrl-C still
stops the call."""
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import assay.metrics as am
from assay import _progress, soak

# A bootstrap whose metric (plain Python) takes about a millisecond: about 2 s in all, long
# enough for the bar to show its rate and ETA.
CHILD = """
import json, sys, time
import numpy as np
import assay.metrics as am

def slow_mean(y, s):
    time.sleep(0.001)
    return float(np.mean(s))

progress = sys.argv[1] == "on"
n = int(sys.argv[2])
rng = np.random.default_rng(0)
y, s = rng.integers(0, 2, 50), rng.random(50)
print("started", flush=True)
try:
    r = am.bootstrap(slow_mean, y, s, n_resamples=n, seed=4, progress=progress)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(0)
print(json.dumps([r["estimate"], r["low"], r["high"]]), flush=True)
"""


def run_child(progress, n_resamples, tty=True, interrupt_after=None):
    """Runs CHILD with stderr on a pty (or a pipe); returns (stdout, stderr, seconds from the
    interrupt to the exit)."""
    env = dict(os.environ)
    if tty:
        master, slave = pty.openpty()
        err = slave
    else:
        master, err = None, subprocess.PIPE
    proc = subprocess.Popen([sys.executable, "-c", CHILD, progress, str(n_resamples)],
                            stdout=subprocess.PIPE, stderr=err, env=env)
    captured, seconds = b"", None
    try:
        if tty:
            os.close(slave)
        assert proc.stdout.readline().strip() == b"started"
        if interrupt_after is not None:
            time.sleep(interrupt_after)
            start = time.monotonic()
            proc.send_signal(signal.SIGINT)
        while tty:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the pty
                break
            if not chunk:
                break
            captured += chunk
        out, pipe_err = proc.communicate(timeout=60)
        if interrupt_after is not None:
            seconds = time.monotonic() - start
        if not tty:
            captured = pipe_err
    finally:
        proc.kill()
        if master is not None:
            os.close(master)
    return out.decode(), captured.decode(errors="replace"), seconds


def test_terminal_bar_with_rate_and_eta():
    out, err, _ = run_child("on", 1500)
    assert "bootstrap [" in err and "%" in err
    assert "/s, ETA " in err  # after half a second the bar shows its rate and time left
    assert "(1500/1500)" in err or "/1500)" in err
    assert err.endswith("\r\x1b[2K")  # the bar is erased at the end
    assert json.loads(out.splitlines()[-1])


def test_nothing_with_progress_false_or_without_a_terminal():
    out_off, err_off, _ = run_child("off", 400)
    assert err_off == ""
    out_pipe, err_pipe, _ = run_child("on", 400, tty=False)
    assert err_pipe == ""
    assert out_off.splitlines()[-1] == out_pipe.splitlines()[-1]  # same result either way


def test_ctrl_c_still_interrupts_under_the_bar():
    out, err, seconds = run_child("on", 100000, interrupt_after=1.0)
    assert "KeyboardInterrupt" in out
    assert seconds < 5


def recording_drawer(monkeypatch):
    """Makes the bars draw as on a terminal, into the returned list of (task, done, total,
    finished)."""
    drawn = []

    class Recording:
        def __init__(self, stream):
            pass

        def draw(self, task, done, total, seconds, finished=False):
            drawn.append((task, done, total, finished))

        def close(self):
            pass

    monkeypatch.setattr(_progress, "_stderr_is_terminal", lambda: True)
    monkeypatch.setattr(_progress, "_TerminalBar", Recording)
    return drawn


def test_results_equal_with_and_without_the_bar(monkeypatch, capsys):
    rng = np.random.default_rng(6)
    X = rng.normal(0, 1, (120, 3))
    y = (X[:, 0] + rng.normal(0, 1, 120) > 0).astype(int)
    subset = np.repeat(["A", "B"], 60)
    y_score = rng.random(120)

    def run(progress):
        frame = soak.run(X, y, subset=subset, learners=["featureless", "cart"], n_splits=3,
                         progress=progress)
        boot = am.bootstrap(am.accuracy_score, y, y_score > 0.5, n_resamples=200, seed=5,
                            progress=progress)
        ev = am.evaluate(y, y_score, n_bootstrap=100, progress=progress)
        return frame.drop(columns=["train_seconds", "predict_seconds"]), boot, ev

    quiet = run(False)
    assert capsys.readouterr().err == ""
    # As on a terminal, with a drawer that keeps what it is shown: the poller runs, the
    # results do not move.
    drawn = recording_drawer(monkeypatch)
    shown = run(True)
    finals = [d for d in drawn if d[3]]
    assert [d[0] for d in finals] == ["soak", "bootstrap", "bootstrap"]
    assert all(done == total > 0 for _, done, total, _ in finals)
    assert finals[1][2] == 200 and finals[2][2] == 100
    assert quiet[0].equals(shown[0])
    np.testing.assert_array_equal(quiet[1]["replicates"], shown[1]["replicates"])
    assert quiet[2] == shown[2]


def test_bar_text():
    assert _progress.describe("x", 50, 100, 0.2) == ("x  50% (50/100)", 0.5)
    assert _progress.describe("x", 50, 100, 2.0) == ("x  50% (50/100) 25/s, ETA 2s", 0.5)
    assert _progress.describe("x", 1000, 100000, 10.0)[0] == \
        "x   1% (1000/100000) 100/s, ETA 16m30s"
    assert _progress.describe("x", 0, 0, 1.0) == ("x 100% (0/0)", 1.0)


def test_nested_calls_draw_one_bar(monkeypatch):
    monkeypatch.setattr(_progress, "_stderr_is_terminal", lambda: True)
    with _progress.reporting(True) as outer:
        with _progress.reporting(True) as inner:
            pass
    assert outer is True and inner is False
    with _progress.reporting(False) as off:
        assert off is False


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_run_estimators_counts_its_fits(monkeypatch, n_jobs):
    from sklearn.tree import DecisionTreeClassifier
    rng = np.random.default_rng(2)
    X = rng.normal(0, 1, (90, 2))
    y = (X[:, 0] > 0).astype(int)
    subset = np.repeat(["A", "B", "C"], 30)
    estimators = {"tree": DecisionTreeClassifier(random_state=0)}

    def run(progress):
        frame = soak.run_estimators(estimators, X, y, subset=subset, n_splits=3, n_jobs=n_jobs,
                                    progress=progress)
        return frame.drop(columns=["train_seconds", "predict_seconds"])

    quiet = run(False)
    drawn = recording_drawer(monkeypatch)
    shown = run(True)
    assert quiet.equals(shown)
    finals = [d for d in drawn if d[3]]
    assert len(finals) == 1 and finals[0][0] == "soak"
    assert finals[0][1] == finals[0][2] > 0  # every fit counted
    assert all(done <= total for _, done, total, _ in drawn)
