"""`mpirun -n N assay soak|cv ...` (Debian's OpenMPI): the ranks share the units and the outputs
equal the one-process run bit for bit (measured seconds aside); with --plan a killed MPI run
resumes where it stopped without recomputing finished jobs. Skips when mpirun is not installed
or assay was built without MPI."""
import json
import os
import shutil
import signal
import subprocess

import pytest

from batch_helpers import (SLOW_ARGS, SLOW_JOBS, assert_same_outputs, make_regions, make_slow,
                           result_starts, wait_for)
from conftest import cli_path

MPIRUN = shutil.which("mpirun")
pytestmark = pytest.mark.skipif(MPIRUN is None, reason="mpirun not installed (Debian: openmpi-bin)")


def mpirun(n, *args, timeout=300):
    return subprocess.run([MPIRUN, "-n", str(n), "--oversubscribe", "--allow-run-as-root",
                           cli_path(), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def regions(tmp_path_factory):
    path = make_regions(tmp_path_factory.mktemp("data") / "regions.csv")
    probe = mpirun(1, "soak", path, "--label", "y", "--subset", "region", "--folds", "3",
                   "--out", tmp_path_factory.mktemp("probe"))
    if "built without MPI support" in probe.stderr:
        pytest.skip("assay was built without MPI support")
    assert probe.returncode == 0, probe.stderr
    return path


ARGS = ["--label", "y", "--subset", "region", "--folds", "3", "--seed", "5",
        "--learners", "featureless,knn,cart"]


def test_three_ranks_equal_one_process(run_cli, regions, tmp_path):
    one = run_cli("soak", regions, *ARGS, "--out", tmp_path / "one")
    assert one.returncode == 0, one.stderr
    r = mpirun(3, "soak", regions, *ARGS, "--threads", "1", "--out", tmp_path / "mpi")
    assert r.returncode == 0, r.stderr
    assert r.stdout == one.stdout  # rank 0 prints the summary once
    assert_same_outputs(tmp_path / "one", tmp_path / "mpi")


def test_cv_over_two_ranks(run_cli, regions, tmp_path):
    args = ["cv", regions, "--label", "y", "--drop", "region", "--learners", "featureless,knn",
            "--folds", "5"]
    one = run_cli(*args, "--out", tmp_path / "one", "--json")
    r = mpirun(2, *args, "--out", tmp_path / "mpi", "--json")
    assert r.returncode == 0, r.stderr
    a, b = json.loads(one.stdout), json.loads(r.stdout)
    for x, y in zip(a["summaries"], b["summaries"]):
        assert (x["learner"], x["mean"], x["sd"], x["n"]) == (y["learner"], y["mean"], y["sd"],
                                                              y["n"])


def rank_pids(mpirun_pid):
    """{rank: pid} of the processes mpirun started (from their environment)."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) != mpirun_pid:
                    continue
            env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        for item in env:
            if item.startswith(b"OMPI_COMM_WORLD_RANK="):
                out[int(item.split(b"=")[1])] = int(pid)
    return out


def test_killed_worker_resumes_through_the_registry(run_cli, tmp_path):
    base = ["soak", make_slow(tmp_path / "slow.csv"), *SLOW_ARGS, "--threads", "1"]
    args = base + ["--plan", tmp_path / "reg", "--out", tmp_path / "mpi"]
    run = subprocess.Popen([MPIRUN, "-n", "3", "--oversubscribe", "--allow-run-as-root",
                            cli_path(), *map(str, args)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    results = tmp_path / "reg" / "results"
    wait_for(lambda: results.exists() and len(os.listdir(results)) >= 3, what="three results")
    ranks = rank_pids(run.pid)
    assert 2 in ranks, ranks
    os.kill(ranks[2], signal.SIGKILL)
    _, err = run.communicate(timeout=120)
    assert run.returncode != 0  # mpirun stops every rank when one dies
    before = result_starts(tmp_path / "reg")
    assert 3 <= len(before) < SLOW_JOBS
    status = json.loads(run_cli("job", "status", tmp_path / "reg", "--json").stdout)
    assert status["counts"]["missing"] == SLOW_JOBS - len(before)
    # Rerunning the same command finishes only what is missing.
    r = mpirun(3, *args, timeout=600)
    assert r.returncode == 0, r.stderr
    after = result_starts(tmp_path / "reg")
    ranks_used = {json.load(open(results / name))["provenance"]["mpi_rank"]
                  for name in os.listdir(results)}
    assert ranks_used <= {0, 1, 2} and len(ranks_used) >= 2
    assert len(after) == SLOW_JOBS and all(after[j] == before[j] for j in before)
    one = run_cli(*base, "--out", tmp_path / "one")
    assert one.returncode == 0, one.stderr
    assert_same_outputs(tmp_path / "one", tmp_path / "mpi")


def test_bad_input_is_one_message_and_exit_2(regions, tmp_path):
    r = mpirun(2, "soak", regions, "--label", "nope", "--subset", "region", "--out", tmp_path)
    assert r.returncode == 2, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.startswith("assay:")]
    assert len(lines) == 1 and "nope" in lines[0], r.stderr
