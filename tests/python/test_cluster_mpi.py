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


def test_jobs_claimed_elsewhere_are_left_to_their_worker(run_cli, regions, tmp_path):
    """An MPI run through a registry claims the jobs it hands out, so it never runs a job that
    another worker holds; it runs the rest, then says which are not done yet. A stale claim of
    this host (a killed run) is taken over with one warning."""
    reg = tmp_path / "reg"
    args = ["soak", regions, "--label", "y", "--subset", "region", "--folds", "3",
            "--learners", "featureless", "--plan", reg, "--out", tmp_path / "mpi"]
    assert run_cli(*args).returncode == 0
    claim = {"host": "node-elsewhere", "pid": 4242, "started": "2026-01-02T03:04:05.000Z",
             "finished": "", "seconds": 0, "peak_rss_bytes": 0, "attempt": 1,
             "slurm_job_id": "", "slurm_array_task_id": "", "mpi_rank": -1}
    (reg / "running" / "000002.json").write_text(json.dumps(claim))
    dead = subprocess.Popen(["true"])
    dead.wait()
    here = dict(claim, host=os.uname().nodename, pid=dead.pid)
    (reg / "running" / "000005.json").write_text(json.dumps(here))
    r = mpirun(2, *args)
    assert r.returncode == 2, r.stderr
    assert (f"assay: 1 job of {reg} is claimed by other workers and not done yet (job 2: "
            "claimed by pid 4242 on node-elsewhere since 2026-01-02T03:04:05.000Z (another host, "
            f"which this one cannot check); if that process is gone, `assay job run {reg} "
            f"--reclaim` runs the job again); run this command again (or `assay job collect "
            f"{reg}`) when they are") in r.stderr
    assert (f"warning: job 5: took over the claim of pid {dead.pid} on this host since "
            "2026-01-02T03:04:05.000Z: the process is gone") in r.stderr
    assert sorted(result_starts(reg)) == [j for j in range(1, 28) if j != 2]
    assert os.listdir(reg / "running") == ["000002.json"]
    assert run_cli("job", "run", reg, "--job", "2", "--reclaim").returncode == 0
    r = mpirun(2, *args)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "mpi" / "results.csv").exists()
