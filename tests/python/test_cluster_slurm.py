"""A real one-node Slurm cluster (Debian's munge and slurm-wlm, started here by
scripts/local_slurm.py and stopped by pid): `assay job submit` -> array job -> `assay job collect`
equals the one-machine run; a SIGKILLed job, a scancelled array and a slurmd killed while jobs run
lose only the jobs in flight, resubmission completes them without recomputing finished ones, and
the final outputs are identical. Skips when slurm-wlm or munge is not installed."""
import functools
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from batch_helpers import (SLOW_ARGS, SLOW_JOBS, assert_same_outputs, make_slow, result_starts,
                           wait_for)
from conftest import ROOT, cli_path

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from local_slurm import LocalSlurm, missing_programs  # noqa: E402

MISSING = missing_programs()
poll = functools.partial(wait_for, every=0.3)  # each poll asks squeue
pytestmark = pytest.mark.skipif(
    bool(MISSING) or os.geteuid() != 0,
    reason="a local Slurm cluster needs root and Debian's slurm-wlm and munge (missing: "
           + (", ".join(MISSING) or "root") + "); scripts/install-deps.sh installs them")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = LocalSlurm(tmp_path_factory.mktemp("slurm"), cpus=2)
    try:
        c.start()
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return make_slow(tmp_path_factory.mktemp("data") / "regions.csv")


@pytest.fixture(scope="module")
def glmnet_direct(data, tmp_path_factory):
    """The one-machine run of the glmnet experiment (shared by the fault tests)."""
    out = tmp_path_factory.mktemp("direct")
    r = subprocess.run([cli_path(), "soak", data, *SLOW_ARGS, "--out", out], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


ARGS = SLOW_ARGS[:-2]  # without --learners


def assay(cluster, *args, timeout=300):
    return subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True,
                          env=cluster.env, timeout=timeout)


def status(cluster, reg):
    r = assay(cluster, "job", "status", reg, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)





def queue_empty(cluster, reg):
    s = status(cluster, reg)
    return s["counts"]["queued"] == 0 and s["counts"]["running"] == 0


def plan(cluster, data, tmp_path, learners):
    reg = tmp_path / "reg"
    r = assay(cluster, "soak", data, *ARGS, "--learners", learners, "--plan", reg,
              "--out", tmp_path / "collected")
    assert r.returncode == 0, r.stderr
    return reg


def one_machine(cluster, data, tmp_path, learners):
    r = assay(cluster, "soak", data, *ARGS, "--learners", learners, "--out",
              tmp_path / "direct")
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_submit_collect_equals_one_machine(cluster, data, tmp_path):
    reg = plan(cluster, data, tmp_path, "featureless,knn")
    r = assay(cluster, "job", "submit", reg, "--chunk", "4", "--cpus-per-task", "1",
              "--time", "10:00", "--mem", "500M", "--array-max", "2")
    assert r.returncode == 0, r.stderr
    assert "24 jobs in 6 array tasks" in r.stdout
    first = status(cluster, reg)
    assert first["slurm"].startswith("squeue: ")
    assert first["counts"]["queued"] + first["counts"]["running"] + first["counts"]["done"] == 24
    poll(lambda: status(cluster, reg)["counts"]["done"] == 24, what="the array job")
    logs = os.listdir(reg / "logs")
    assert len(logs) == 6 and all(name.startswith("slurm-") for name in logs)
    prov = status(cluster, reg)["status"][0]["provenance"]
    assert prov["slurm_job_id"] and prov["slurm_array_task_id"]
    r = assay(cluster, "job", "collect", reg)
    assert r.returncode == 0, r.stderr
    assert r.stdout == one_machine(cluster, data, tmp_path, "featureless,knn")
    assert_same_outputs(tmp_path / "direct", tmp_path / "collected")
    r = assay(cluster, "job", "submit", reg)
    assert r.returncode == 0 and "nothing to submit" in r.stdout


def test_scancel_then_resubmit_completes(cluster, data, glmnet_direct, tmp_path):
    reg = plan(cluster, data, tmp_path, "glmnet")
    r = assay(cluster, "job", "submit", reg, "--array-max", "2")
    assert r.returncode == 0, r.stderr
    slurm_id = r.stdout.split("Slurm job ")[1].split(":")[0]
    wait_for(lambda: len(os.listdir(reg / "results")) >= 2, every=0.01, what="two results")
    subprocess.run(["scancel", slurm_id], env=cluster.env, check=True)
    poll(lambda: queue_empty(cluster, reg), what="the cancelled array to leave the queue")
    before = result_starts(reg)
    s = status(cluster, reg)
    assert s["counts"]["missing"] == SLOW_JOBS - len(before) > 0 and s["counts"]["failed"] == 0
    text = assay(cluster, "job", "status", reg).stdout
    assert f"missing {SLOW_JOBS - len(before)}" in text and "missing: jobs " in text
    r = assay(cluster, "job", "submit", reg)
    assert r.returncode == 0 and f"{SLOW_JOBS - len(before)} jobs in" in r.stdout, r.stdout
    poll(lambda: status(cluster, reg)["counts"]["done"] == SLOW_JOBS, what="the resubmission")
    after = result_starts(reg)
    assert all(after[j] == before[j] for j in before)  # no finished job was recomputed
    assert assay(cluster, "job", "collect", reg).returncode == 0
    assert_same_outputs(glmnet_direct, tmp_path / "collected")


def test_sigkill_of_a_job_and_of_slurmd_while_jobs_run(cluster, data, glmnet_direct, tmp_path):
    reg = plan(cluster, data, tmp_path, "glmnet")
    r = assay(cluster, "job", "submit", reg, "--array-max", "2")
    assert r.returncode == 0, r.stderr
    # SIGKILL the process running a job (the array task's `assay job run`).
    # (A marker's temporary file, still being written, does not count.)
    marker = wait_for(lambda: sorted(n for n in os.listdir(reg / "running") if n.endswith(".json")),
                      every=0.01, what="a running job")[0]
    victim = json.load(open(reg / "running" / marker))
    os.kill(victim["pid"], signal.SIGKILL)
    # Kill slurmd while jobs run, then restart it: running jobs finish, queued ones start.
    wait_for(lambda: len(os.listdir(reg / "results")) >= 3, every=0.01, what="three results")
    cluster.stop_daemon("slurmd", signal.SIGKILL)
    time.sleep(1)
    cluster.start_slurmd()
    poll(lambda: queue_empty(cluster, reg), what="the array to end")
    s = status(cluster, reg)
    killed = s["status"][int(marker.split(".")[0]) - 1]
    assert killed["state"] == "missing", killed
    assert killed["detail"].startswith("interrupted: was running on"), killed
    before = result_starts(reg)
    r = assay(cluster, "job", "submit", reg)
    assert r.returncode == 0, r.stderr
    poll(lambda: status(cluster, reg)["counts"]["done"] == SLOW_JOBS, what="the resubmission")
    after = result_starts(reg)
    assert all(after[j] == before[j] for j in before)
    assert assay(cluster, "job", "collect", reg).returncode == 0
    assert_same_outputs(glmnet_direct, tmp_path / "collected")


def test_slurm_refusing_the_submission_is_shown(cluster, data, tmp_path):
    reg = plan(cluster, data, tmp_path, "featureless")
    r = assay(cluster, "job", "submit", reg, "--partition", "nosuch")
    assert r.returncode == 2
    assert "Slurm refused the submission of" in r.stderr
    assert "Invalid partition name specified" in r.stderr
