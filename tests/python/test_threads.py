"""The process-wide thread setting: assay.set_num_threads / get_num_threads, ASSAY_NUM_THREADS,
OMP_NUM_THREADS (what joblib sets in its workers), and results that do not depend on it."""
import os
import subprocess
import sys

import numpy as np
import pytest

import assay
import assay.metrics as am


@pytest.fixture
def default_threads():
    yield
    assay.set_num_threads(0)


def test_set_and_get(default_threads):
    assay.set_num_threads(1)
    assert assay.get_num_threads() == 1
    assay.set_num_threads(3)
    assert assay.get_num_threads() == 3
    with pytest.raises(assay.AssayError, match=r"expected n >= 0 \(0 = the default\), found -1"):
        assay.set_num_threads(-1)


def test_results_do_not_depend_on_the_setting(default_threads):
    rng = np.random.default_rng(1)
    n = 3_000_000  # several chunks: the parallel paths run
    y, p = rng.integers(0, 5, n), rng.integers(0, 5, n)
    w = rng.random(n)
    out = []
    for t in (1, 2, 0):
        assay.set_num_threads(t)
        out.append((am.confusion_matrix(y, p, sample_weight=w).tobytes(),
                    am.roc_auc_score(y == 1, w), am.mean_squared_error(y, p, sample_weight=w)))
    assert out[0] == out[1] == out[2]


@pytest.mark.parametrize("env, want", [
    ({"ASSAY_NUM_THREADS": "3"}, 3),
    ({"OMP_NUM_THREADS": "2"}, 2),
    ({"ASSAY_NUM_THREADS": "5", "OMP_NUM_THREADS": "2"}, 5),
    ({"OMP_NUM_THREADS": "4,1"}, 4),
])
def test_environment(env, want):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("ASSAY_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", "import assay; print(assay.get_num_threads())"],
                         env={**clean, **env}, capture_output=True, text=True, check=True)
    assert int(out.stdout) == want


def test_joblib_workers_follow_their_thread_limit():
    joblib = pytest.importorskip("joblib")
    counts = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_threads_in_worker)() for _ in range(2))
    # joblib gives each of its n_jobs workers cpu_count // n_jobs threads (at least 1).
    want = max(joblib.cpu_count() // 2, 1)
    assert counts == [(str(want), want)] * 2


def _threads_in_worker():
    import assay as a
    return os.environ.get("OMP_NUM_THREADS"), a.get_num_threads()
