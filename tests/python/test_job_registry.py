"""Batch registries end to end through the CLI (`assay soak|cv ... --plan`, `assay job run|status|
collect`): outputs equal to the one-machine run, resume without recomputing, a killed runner or
job, time limits and retries, and every bad input (exit 2 with a message)."""
import json
import os
import re
import shutil
import signal
import subprocess

import pandas as pd
import pytest

from batch_helpers import (SLOW_ARGS, SLOW_JOBS, TIMING_COLUMNS, assert_same_outputs, make_regions,
                           make_slow, result_starts, wait_for)
from conftest import cli_path


@pytest.fixture(scope="module")
def regions(tmp_path_factory):
    return make_regions(tmp_path_factory.mktemp("data") / "regions.csv")


@pytest.fixture(scope="module")
def slow_regions(tmp_path_factory):
    """Two subsets: SLOW_JOBS glmnet jobs, long enough to kill one while it runs."""
    return make_slow(tmp_path_factory.mktemp("slow") / "slow.csv")


@pytest.fixture(scope="module")
def slow_direct(run_cli_module, slow_regions, tmp_path_factory):
    """The one-machine run of the glmnet experiment on slow_regions (shared by the tests)."""
    out = tmp_path_factory.mktemp("slow_direct")
    r = run_cli_module(*slow_args(slow_regions), "--out", out)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def run_cli_module():
    def run(*args):
        return subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True,
                              timeout=600)
    return run


SOAK = ["--label", "y", "--subset", "region", "--folds", "3", "--seed", "7"]


def soak_args(data, *learners):
    return ["soak", data, *SOAK, "--learners", ",".join(learners or ["featureless", "knn"])]




def slow_args(data):
    return ["soak", data, *SLOW_ARGS]


def status_json(run_cli, reg):
    r = run_cli("job", "status", reg, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_soak_plan_run_collect_equals_one_machine(run_cli, regions, tmp_path):
    direct = run_cli(*soak_args(regions), "--out", tmp_path / "direct")
    assert direct.returncode == 0, direct.stderr
    reg = tmp_path / "reg"
    r = run_cli(*soak_args(regions), "--plan", reg, "--out", tmp_path / "collected")
    assert r.returncode == 0, r.stderr
    assert "54 jobs" in r.stdout and "assay job submit" in r.stdout
    assert not (tmp_path / "collected").exists()  # planning runs nothing
    jobs = pd.read_csv(reg / "jobs.csv")
    assert list(jobs["job"]) == list(range(1, 55))
    assert set(jobs["learner"]) == {"featureless", "knn"} and (jobs["cost"] > 0).all()
    r = run_cli("job", "run", reg, "--all", "--threads", "1")
    assert r.returncode == 0, r.stderr
    assert "54 done, 0 failed, 0 skipped" in r.stderr
    collected = run_cli("job", "collect", reg)
    assert collected.returncode == 0, collected.stderr
    assert collected.stdout == direct.stdout
    assert_same_outputs(tmp_path / "direct", tmp_path / "collected")
    status = status_json(run_cli, reg)
    assert status["counts"]["done"] == 54
    first = status["status"][0]["provenance"]
    assert first["host"] and first["peak_rss_bytes"] > 0 and first["seconds"] > 0


def test_cv_plan_run_collect_equals_one_machine(run_cli, regions, tmp_path):
    args = ["cv", regions, "--label", "y", "--drop", "region", "--learners", "featureless,cart",
            "--folds", "4", "--seed", "3"]
    direct = run_cli(*args, "--out", tmp_path / "direct")
    assert direct.returncode == 0, direct.stderr
    reg = tmp_path / "reg"
    assert run_cli(*args, "--plan", reg).returncode == 0
    assert run_cli("job", "run", reg, "--all").returncode == 0
    r = run_cli("job", "collect", reg)
    assert r.returncode == 2
    assert "--out DIR is required: the registry was planned without --out" in r.stderr
    assert run_cli("job", "collect", reg, "--out", tmp_path / "collected").returncode == 0
    for name, drop in (("results.csv", TIMING_COLUMNS),
                       ("summary.csv", ("train_seconds_mean", "train_seconds_sd",
                                        "predict_seconds_mean"))):
        a = pd.read_csv(tmp_path / "direct" / name, keep_default_na=False, dtype=str)
        b = pd.read_csv(tmp_path / "collected" / name, keep_default_na=False, dtype=str)
        pd.testing.assert_frame_equal(a.drop(columns=list(drop)), b.drop(columns=list(drop)))


def test_jobs_by_number_task_and_list_never_recompute(run_cli, regions, tmp_path, monkeypatch):
    reg = tmp_path / "reg"
    assert run_cli(*soak_args(regions, "featureless"), "--plan", reg).returncode == 0
    assert run_cli("job", "run", reg, "--job", "5").returncode == 0
    assert run_cli("job", "run", reg, "--task", "2", "--chunk", "4").returncode == 0  # jobs 5-8
    (tmp_path / "list.txt").write_text("27 1-2\n26\n")
    assert run_cli("job", "run", reg, "--task", "2", "--chunk", "2",
                   "--jobs-file", tmp_path / "list.txt").returncode == 0  # jobs 2, 26
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "1")
    r = run_cli("job", "run", reg, "--chunk", "3")  # jobs 1-3, of which 2 is done
    assert r.returncode == 0, r.stderr
    assert "job 2: done, not run" in r.stderr and "2 done, 0 failed, 1 skipped" in r.stderr
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID")
    started = result_starts(reg)
    assert sorted(started) == [1, 2, 3, 5, 6, 7, 8, 26]
    r = run_cli("job", "run", reg, "--all")
    assert "19 done, 0 failed, 8 skipped" in r.stderr
    after = result_starts(reg)
    assert all(after[j] == started[j] for j in started)  # nothing finished was recomputed
    assert run_cli("job", "run", reg, "--job", "5", "--force").returncode == 0
    assert result_starts(reg)[5] != started[5]




def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split()[2] != "Z"


def test_sigkill_of_the_runner_loses_only_the_running_job(run_cli, slow_regions, slow_direct,
                                                          tmp_path):
    reg = tmp_path / "reg"
    args = slow_args(slow_regions)
    assert run_cli(*args, "--plan", reg).returncode == 0
    runner = subprocess.Popen([cli_path(), "job", "run", str(reg), "--all", "--threads", "1"],
                              stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(os.listdir(reg / "results")) >= 2 and os.listdir(reg / "running"),
             what="two results and a running job")
    child = wait_for(lambda: children(runner.pid), what="the job's process")[0]
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    wait_for(lambda: not alive(child), timeout=10, what="the job's process to die with the runner")
    before = result_starts(reg)
    status = status_json(run_cli, reg)
    missing = [s for s in status["status"] if s["state"] == "missing"]
    assert len(missing) == SLOW_JOBS - len(before)
    interrupted = [s for s in missing if s["detail"].startswith("interrupted")]
    assert len(interrupted) == 1 and "the process is gone" in interrupted[0]["detail"]
    text = run_cli("job", "status", reg).stdout
    assert f"missing {len(missing)}" in text and "interrupted: was running on" in text
    r = run_cli("job", "run", reg, "--all", "--threads", "1")
    assert r.returncode == 0, r.stderr
    after = result_starts(reg)
    assert len(after) == SLOW_JOBS and all(after[j] == before[j] for j in before)
    assert run_cli("job", "collect", reg, "--out", tmp_path / "collected").returncode == 0
    assert_same_outputs(slow_direct, tmp_path / "collected")


def test_a_killed_job_is_failed_with_its_signal_and_retried(run_cli, slow_regions, tmp_path):
    reg = tmp_path / "reg"
    assert run_cli(*slow_args(slow_regions), "--plan", reg).returncode == 0
    runner = subprocess.Popen([cli_path(), "job", "run", str(reg), "--task", "1", "--chunk", "3",
                               "--threads", "1"], stderr=subprocess.PIPE, text=True)
    child = wait_for(lambda: children(runner.pid), what="the first job's process")[0]
    os.kill(child, signal.SIGKILL)
    _, err = runner.communicate(timeout=300)
    assert runner.returncode == 3, err  # a job failed
    assert "job 1 failed: the job's process was killed by signal 9 (Killed)" in err
    status = status_json(run_cli, reg)["status"]
    assert status[0]["state"] == "failed" and status[0]["failed_attempts"] == 1
    assert [s["state"] for s in status[1:3]] == ["done", "done"]
    r = run_cli("job", "run", reg, "--job", "1")
    assert r.returncode == 0 and "--retries 0 allows 1 attempt" in r.stderr
    r = run_cli("job", "run", reg, "--job", "1", "--retries", "1")
    assert r.returncode == 0, r.stderr
    assert status_json(run_cli, reg)["status"][0]["state"] == "done"
    doc = json.load(open(reg / "results" / "000001.json"))
    assert doc["provenance"]["attempt"] == 2


def test_time_limit_fails_the_job_and_retries_count(run_cli, slow_regions, tmp_path):
    reg = tmp_path / "reg"
    assert run_cli(*slow_args(slow_regions), "--plan", reg).returncode == 0
    r = run_cli("job", "run", reg, "--job", "1", "--job-time-limit", "0.001", "--retries", "1")
    assert r.returncode == 3
    assert "job 1 failed: exceeded the job time limit of 0.001 s" in r.stderr
    failed = json.load(open(reg / "failed" / "000001.json"))["attempts"]
    assert [a["provenance"]["attempt"] for a in failed] == [1, 2]
    assert not os.listdir(reg / "running")
    text = run_cli("job", "status", reg).stdout
    assert "failed: job 1 (glmnet on slow, all train, test subset A, fold 1), 2 attempts: " \
           "exceeded the job time limit of 0.001 s" in text


def test_sigterm_leaves_the_job_missing(run_cli, slow_regions, tmp_path):
    reg = tmp_path / "reg"
    assert run_cli(*slow_args(slow_regions), "--plan", reg).returncode == 0
    runner = subprocess.Popen([cli_path(), "job", "run", str(reg), "--job", "1"],
                              stderr=subprocess.PIPE, text=True)
    child = wait_for(lambda: children(runner.pid), what="the job's process")[0]
    runner.send_signal(signal.SIGTERM)
    _, err = runner.communicate(timeout=60)
    assert runner.returncode == -signal.SIGTERM
    assert "job 1 interrupted by signal 15 (Terminated); it stays missing" in err
    assert not alive(child)
    assert not os.listdir(reg / "running") and not os.listdir(reg / "failed")
    assert status_json(run_cli, reg)["status"][0]["state"] == "missing"


# ---------------------------------------------------------------------------------------------
# Bad input: exit 2 and one clear line.

def expect_error(r, message):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert message in r.stderr, r.stderr


def test_missing_and_foreign_registry_folders(run_cli, regions, tmp_path):
    expect_error(run_cli("job", "status", tmp_path / "nope"),
                 f"assay: {tmp_path / 'nope'}: no such folder; expected a registry planned with "
                 f"`assay soak ... --plan {tmp_path / 'nope'}`")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    expect_error(run_cli("job", "run", tmp_path / "other", "--all"),
                 f"{tmp_path / 'other'} is not an assay registry (it has no registry.json)")
    expect_error(run_cli(*soak_args(regions), "--plan", tmp_path / "other"),
                 "expected a new or empty folder for the registry, found a folder with other files")
    (tmp_path / "other" / "registry.json").write_text('{"format": "batchtools"}')
    expect_error(run_cli("job", "collect", tmp_path / "other", "--out", tmp_path / "o"),
                 'registry.json: expected an assay registry (format "assay-registry 1"), found '
                 '"batchtools"')


def test_other_version_other_inputs_other_experiment(run_cli, regions, tmp_path):
    data = tmp_path / "copy.csv"
    data.write_bytes(open(regions, "rb").read())
    reg = tmp_path / "reg"
    assert run_cli(*soak_args(str(data), "featureless"), "--plan", reg).returncode == 0
    expect_error(run_cli(*soak_args(str(data), "featureless", "knn"), "--plan", reg),
                 f"{reg} holds the registry of another experiment (\"learners\" is "
                 "[\"featureless\"] there but [\"featureless\",\"knn\"] here); plan this one "
                 "in a new folder, or delete that one")
    assert run_cli("job", "run", reg, "--all").returncode == 0
    with open(data, "a") as f:
        f.write("0,0,0,0,A,c0\n")
    expect_error(run_cli("job", "collect", reg, "--out", tmp_path / "o"),
                 f"{data}: input of registry {reg} has changed since it was planned")
    doc = json.load(open(reg / "registry.json"))
    doc["assay_version"] = "0.0.9"
    (reg / "registry.json").write_text(json.dumps(doc))
    expect_error(run_cli("job", "status", reg),
                 f"{reg} was planned by assay 0.0.9, this is assay 0.1.0: results of different "
                 "versions are not mixed")


def test_job_selection_errors(run_cli, regions, tmp_path, monkeypatch):
    reg = tmp_path / "reg"
    assert run_cli(*soak_args(regions, "featureless"), "--plan", reg).returncode == 0
    expect_error(run_cli("job", "run", reg, "--job", "28"),
                 "--job 28: expected a job number in 1..27, found 28")
    expect_error(run_cli("job", "run", reg, "--job", "0"),
                 "--job 0: expected a job number in 1..27, found 0")
    expect_error(run_cli("job", "run", reg, "--task", "0", "--chunk", "3"),
                 "array task 0 is out of range: 27 jobs in chunks of 3 make tasks 1..9")
    expect_error(run_cli("job", "run", reg, "--job", "0", "--all"),
                 "give one of --job, --all and --task, found 2")
    expect_error(run_cli("job", "run", reg, "--task", "10", "--chunk", "3"),
                 "array task 10 is out of range: 27 jobs in chunks of 3 make tasks 1..9")
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID", raising=False)
    expect_error(run_cli("job", "run", reg),
                 "which jobs? expected --job I, --all, --task T, or SLURM_ARRAY_TASK_ID")
    expect_error(run_cli("job", "run", reg, "--job", "2", "--all"),
                 "give one of --job, --all and --task, found 2")
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "x")
    expect_error(run_cli("job", "run", reg), 'SLURM_ARRAY_TASK_ID: expected a task number, found "x"')
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID")
    expect_error(run_cli("job", "collect", reg, "--out", tmp_path / "o"),
                 f"cannot collect {reg}: 27 of 27 jobs have no result (jobs 1-20, ...); "
                 f"`assay job status {reg}` says why")
    expect_error(run_cli(*soak_args(regions, "featureless")),
                 "--out DIR is required (or --plan DIR to write a batch registry)")


def test_sbatch_absent(run_cli, regions, tmp_path):
    reg = tmp_path / "reg"
    assert run_cli(*soak_args(regions, "featureless"), "--plan", reg).returncode == 0
    r = subprocess.run([cli_path(), "job", "submit", str(reg)], capture_output=True, text=True,
                       env=dict(os.environ, PATH=str(tmp_path)))
    expect_error(r, "sbatch not found on PATH (Slurm's client commands are needed: run this on "
                    "a Slurm login node, or install slurm-client)")
    r = run_cli("job", "submit", reg, "--dry-run", "--chunk", "10")
    assert r.returncode == 0 and "27 jobs in 3 array tasks); not submitted" in r.stdout
    script = (reg / "slurm" / "submit-1.sbatch").read_text()
    assert "#SBATCH --array=1-3\n" in script and "--chunk 10" in script


# ---------------------------------------------------------------------------------------------
# Several workers on one registry; registries that repair themselves.

def done_count(stderr):
    m = re.search(r"job run: (\d+) done, (\d+) failed, (\d+) skipped", stderr)
    assert m, stderr
    return int(m.group(1))


def test_concurrent_runners_run_each_job_exactly_once(run_cli, regions, tmp_path):
    """Issue 38: two `job run --all` on one registry ran 61 jobs for 54. Jobs are now claimed
    atomically: 3 runners at once, 10 times, run each of the 18 jobs exactly once."""
    reg = tmp_path / "reg"
    args = ["soak", regions, "--label", "y", "--subset", "region", "--folds", "2",
            "--learners", "featureless", "--plan", reg]
    assert run_cli(*args).returncode == 0
    for round_ in range(10):
        runners = [subprocess.Popen([cli_path(), "job", "run", str(reg), "--all", "--threads",
                                     "1"], stderr=subprocess.PIPE, text=True) for _ in range(3)]
        outputs = [r.communicate(timeout=120)[1] for r in runners]
        assert all(r.returncode == 0 for r in runners), outputs
        done = [done_count(err) for err in outputs]
        assert sum(done) == 18, (round_, done, outputs)
        # Each result was written by the runner that counted it.
        by_pid = {}
        for name in os.listdir(reg / "results"):
            pid = json.load(open(reg / "results" / name))["provenance"]["pid"]
            by_pid[pid] = by_pid.get(pid, 0) + 1
        assert sorted(by_pid.get(r.pid, 0) for r in runners) == sorted(done)
        assert not os.listdir(reg / "running")
        shutil.rmtree(reg / "results")
        os.mkdir(reg / "results")


def test_claims_of_other_hosts_need_reclaim(run_cli, regions, tmp_path):
    reg = tmp_path / "reg"
    assert run_cli(*soak_args(regions, "featureless"), "--plan", reg).returncode == 0
    claim = {"host": "node-elsewhere", "pid": 4242, "started": "2026-01-02T03:04:05.000Z",
             "finished": "", "seconds": 0, "peak_rss_bytes": 0, "attempt": 1,
             "slurm_job_id": "", "slurm_array_task_id": "", "mpi_rank": -1}
    (reg / "running" / "000001.json").write_text(json.dumps(claim))
    r = run_cli("job", "run", reg, "--job", "1")
    assert r.returncode == 0, r.stderr
    assert ("job 1: claimed by pid 4242 on node-elsewhere since 2026-01-02T03:04:05.000Z "
            "(another host, which this one cannot check); if that process is gone, "
            f"`assay job run {reg} --reclaim` runs the job again, not run") in r.stderr
    assert "0 done, 0 failed, 1 skipped" in r.stderr
    status = status_json(run_cli, reg)["status"][0]
    assert status["state"] == "running"
    assert status["detail"] == ("on node-elsewhere (pid 4242) since 2026-01-02T03:04:05.000Z "
                                "(another host, which this one cannot check)")
    r = run_cli("job", "run", reg, "--job", "1", "--reclaim")
    assert r.returncode == 0, r.stderr
    assert ("job 1: took over the claim of pid 4242 on node-elsewhere since "
            "2026-01-02T03:04:05.000Z: --reclaim") in r.stderr
    assert "1 done, 0 failed, 0 skipped" in r.stderr
    assert status_json(run_cli, reg)["status"][0]["state"] == "done"


def damage_n_test(path, value):
    """Replaces the n_test number of a result file by `value` (text); returns line and column."""
    text = path.read_text()
    at = text.index('"n_test": ') + len('"n_test": ')
    end = text.index(",", at)
    path.write_text(text[:at] + value + text[end:])
    line = text.count("\n", 0, at) + 1
    return line, at - text.rfind("\n", 0, at)


def test_damaged_results_are_failed_then_set_aside_and_rerun(run_cli, regions, tmp_path):
    """Issue 38: 1e400 in a result made status/collect fail with "internal error:
    [json.exception.out_of_range.406]"; garbage or a folder made run/submit skip the job forever
    while status/collect refused it. Now: failed with the reason, collect refuses naming them,
    run/submit set the file aside and run the job again."""
    direct = run_cli(*soak_args(regions, "featureless"), "--out", tmp_path / "direct")
    assert direct.returncode == 0, direct.stderr
    reg = tmp_path / "reg"
    assert run_cli(*soak_args(regions, "featureless"), "--plan", reg).returncode == 0
    assert run_cli("job", "run", reg, "--all").returncode == 0
    results = reg / "results"
    line, col = damage_n_test(results / "000017.json", "1e400")
    (results / "000003.json").write_text("garbage")
    (results / "000005.json").unlink()
    (results / "000005.json").mkdir()
    r = run_cli("job", "status", reg)
    assert r.returncode == 0, r.stderr
    assert "internal error" not in r.stdout + r.stderr
    assert "done 24, running 0, queued 0, failed 3, missing 0" in r.stdout
    assert (f"failed: job 17 ({job_label(reg, 17)}): damaged result: "
            f"{results}/000017.json:{line}:{col}: expected a number within the range of a double, "
            f"found 1e400; `assay job run {reg} --job 17` moves it aside and runs the job again"
            ) in r.stdout
    assert f'{results}/000003.json:1:1: expected JSON, found "garbage"' in r.stdout
    assert f"{results}/000005.json: expected a file, found a folder" in r.stdout
    assert status_json(run_cli, reg)["counts"]["failed"] == 3
    assert run_cli("job", "status", reg, "--table", tmp_path / "t.csv").returncode == 0
    expect_error(run_cli("job", "collect", reg, "--out", tmp_path / "o"),
                 f"cannot collect {reg}: 3 of 27 jobs have a damaged result "
                 f'({results}/000003.json:1:1: expected JSON, found "garbage"; '
                 f"{results}/000005.json: expected a file, found a folder; {results}/000017.json:"
                 f"{line}:{col}: expected a number within the range of a double, found 1e400); "
                 f"`assay job run {reg} --all` (or `assay job submit {reg}`) moves damaged results "
                 "aside and runs those jobs again")
    assert not (tmp_path / "o").exists()
    r = run_cli("job", "submit", reg, "--dry-run")
    assert r.returncode == 0 and "(3 jobs in 3 array tasks); not submitted" in r.stdout, r.stdout
    r = run_cli("job", "run", reg, "--all")
    assert r.returncode == 0, r.stderr
    assert "3 done, 0 failed, 24 skipped" in r.stderr
    for job in (3, 5, 17):
        assert f"job {job}: damaged result moved to {results}/{job:06}.json.damaged-" in r.stderr
    kept = sorted(n for n in os.listdir(results) if ".damaged-" in n)
    assert [n[:11] for n in kept] == ["000003.json", "000005.json", "000017.json"]
    assert os.path.isdir(results / kept[1]) and (results / kept[0]).read_text() == "garbage"
    r = run_cli("job", "collect", reg, "--out", tmp_path / "collected")
    assert r.returncode == 0, r.stderr
    assert_same_outputs(tmp_path / "direct", tmp_path / "collected")


def job_label(reg, job):
    row = pd.read_csv(reg / "jobs.csv").iloc[job - 1]
    return (f"{row['learner']} on {row['data']}, {row['train.subsets']} train, test subset "
            f"{row['test.subset']}, fold {row['test.fold']}")
