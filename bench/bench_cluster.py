"""Batch registries, MPI and Slurm: what running an experiment as jobs costs, measured against the
in-process run of the same experiment in the same pass.

  /usr/bin/python3 bench/bench_cluster.py [--cli build/assay] [--parts overhead,mpi,zip]
      [--overhead-data vowel] [--overhead-learners featureless,glmnet] [--mpi-data waveform]
      [--zip-registry DIR] [--zip-conditions TEXT] [--out DIR]

Parts (each writes its table into bench/results/cluster.md):

- overhead: the vowel SOAK with glmnet (60 jobs, 10 folds), run (a) in one process, one thread,
  and (b) as a registry with one `assay job run REG --job J --threads 1` process per job (the
  Slurm model: each process starts, checks the inputs' SHA-256, reads the data, builds the splits,
  forks the job and writes its result). Compares the total CPU and wall time; the same with
  featureless gives the fixed cost per job (the learner costs nothing there). Both give identical
  outputs (checked).
- mpi: the waveform SOAK with glmnet in one process (1 thread) and under `mpirun -n 1` and
  `-n 2 --oversubscribe` (1 thread per rank): efficiency = T(one process) / (ranks x T(ranks)),
  from wall times, and the CPU time all ranks used against the one-process CPU time.
- zip: reads a registry of the paper's zipUSPS SOAK with glmnet that ran through Slurm (planned
  and submitted by hand, see docs/cluster.md; `--zip-registry`): wall time from submission to the
  last result, per-job wall/CPU seconds and memory, and what they predict for a 100-node
  cluster; collects it (into --out/zipUSPS) for bench/soak_paper.py.

Timings are on the project's shared 2-core machine: wall times depend on what else runs
(the load average is printed); CPU seconds are the load-independent comparison.
"""
import argparse
import datetime
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

from soak_paper import machine

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.environ.get("ASSAY_SOAK_DATA") or os.path.join(ROOT, "..", "shared", "data", "soak")
RESULTS = os.path.join(HERE, "results", "cluster.md")


def run(cmd, **kw):
    """Runs a command; returns (wall seconds, CPU seconds of it and its children, result)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(map(str, cmd))}\n{r.stderr}")
    return wall, cpu, r


def same_outputs(a, b):
    """pvalues.csv, summaries.csv and report.html identical; results.csv equal but for seconds."""
    for name in ("pvalues.csv", "summaries.csv", "report.html"):
        if open(os.path.join(a, name), "rb").read() != open(os.path.join(b, name), "rb").read():
            return False
    ra = pd.read_csv(os.path.join(a, "results.csv"), dtype=str, keep_default_na=False)
    rb = pd.read_csv(os.path.join(b, "results.csv"), dtype=str, keep_default_na=False)
    drop = ["train_seconds", "predict_seconds"]
    return ra.drop(columns=drop).equals(rb.drop(columns=drop))


def load():
    return os.getloadavg()[0]


def soak_args(data, learner, folds):
    return ["soak", os.path.join(DATA, f"{data}.csv"), "--label", "y", "--subset", "subset",
            "--learners", learner, "--folds", str(folds), "--seed", "1"]


def overhead(cli, data, learner, folds, work):
    """In-process vs one process per registry job; returns a dict of measurements."""
    args = soak_args(data, learner, folds)
    direct = os.path.join(work, f"{data}-{learner}-direct")
    loads = [load()]
    wall_in, cpu_in, _ = run([cli, *args, "--threads", "1", "--out", direct])
    loads.append(load())
    reg = os.path.join(work, f"{data}-{learner}-reg")
    wall_plan, cpu_plan, _ = run([cli, *args, "--plan", reg, "--out",
                                  os.path.join(work, f"{data}-{learner}-collected")])
    n = len(pd.read_csv(os.path.join(reg, "jobs.csv")))
    wall_jobs = cpu_jobs = 0.0
    for job in range(1, n + 1):
        w, c, _ = run([cli, "--quiet", "job", "run", reg, "--job", job, "--threads", "1"])
        wall_jobs += w
        cpu_jobs += c
    loads.append(load())
    wall_collect, cpu_collect, _ = run([cli, "job", "collect", reg])
    job_seconds = job_cpu = 0.0
    for name in os.listdir(os.path.join(reg, "results")):
        prov = json.load(open(os.path.join(reg, "results", name)))["provenance"]
        job_seconds += prov["seconds"]
        job_cpu += prov.get("cpu_seconds") or 0.0
    return dict(data=data, learner=learner, jobs=n, wall_in=wall_in, cpu_in=cpu_in,
                wall_plan=wall_plan, cpu_plan=cpu_plan, wall_jobs=wall_jobs, cpu_jobs=cpu_jobs,
                wall_collect=wall_collect, cpu_collect=cpu_collect, job_seconds=job_seconds,
                job_cpu=job_cpu, load=max(loads),
                same=same_outputs(direct, os.path.join(work, f"{data}-{learner}-collected")))


def overhead_table(rows):
    lines = [
        "| data, learner | jobs | in-process wall / CPU (s) | registry: plan + jobs + collect, "
        "wall / CPU (s) | overhead CPU | overhead wall | per job: process CPU − job CPU (ms) | "
        "identical outputs | load |",
        "|---|---|---|---|---|---|---|---|---|"]
    for m in rows:
        wall_reg = m["wall_plan"] + m["wall_jobs"] + m["wall_collect"]
        cpu_reg = m["cpu_plan"] + m["cpu_jobs"] + m["cpu_collect"]
        fixed = 1000 * (m["cpu_jobs"] - m["job_cpu"]) / m["jobs"]
        lines.append(
            f"| {m['data']}, {m['learner']} | {m['jobs']} | {m['wall_in']:.1f} / {m['cpu_in']:.1f} "
            f"| {wall_reg:.1f} / {cpu_reg:.1f} | {100 * (cpu_reg / m['cpu_in'] - 1):+.1f} % "
            f"| {100 * (wall_reg / m['wall_in'] - 1):+.1f} % | {fixed:.0f} | "
            f"{'yes' if m['same'] else '**no**'} | {m['load']:.1f} |")
    return lines


def mpi(cli, data, learner, folds, work):
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        return None
    args = soak_args(data, learner, folds)
    rows = []
    one = os.path.join(work, f"mpi-{data}-one")
    w1, c1, _ = run([cli, *args, "--threads", "1", "--out", one])
    rows.append(("one process, 1 thread", 1, w1, c1, True, load()))
    for ranks in (1, 2):
        out = os.path.join(work, f"mpi-{data}-{ranks}")
        w, c, _ = run([mpirun, "-n", ranks, "--oversubscribe", "--allow-run-as-root", cli, *args,
                       "--threads", "1", "--out", out])
        rows.append((f"mpirun -n {ranks}, 1 thread per rank", ranks, w, c, same_outputs(one, out),
                     load()))
    lines = [f"{data}, {learner}, {folds} folds:", "",
             "| run | wall (s) | CPU (s) | efficiency T1 / (n·Tn) | CPU / one-process CPU | "
             "identical outputs | load |", "|---|---|---|---|---|---|---|"]
    for name, n, w, c, same, ld in rows:
        lines.append(f"| {name} | {w:.1f} | {c:.1f} | {w1 / (n * w):.2f} | {c / c1:.2f} | "
                     f"{'yes' if same else '**no**'} | {ld:.1f} |")
    return lines


def zip_part(cli, registry, work, conditions):
    """Wall time of the Slurm run of zipUSPS and its per-job costs; `conditions` says how the
    cluster and the machine were set up (nice levels, other work) for the table's caption."""
    subs = json.load(open(os.path.join(registry, "slurm", "submissions.json")))
    submitted = min(datetime.datetime.fromisoformat(s["submitted"].replace("Z", "+00:00"))
                    for s in subs)
    jobs = pd.read_csv(os.path.join(registry, "jobs.csv"))
    rows = []
    for name in sorted(os.listdir(os.path.join(registry, "results"))):
        doc = json.load(open(os.path.join(registry, "results", name)))
        p = doc["provenance"]
        rows.append(dict(job=doc["job"], seconds=p["seconds"],
                         cpu=p.get("cpu_seconds") if p.get("cpu_seconds") is not None else np.nan,
                         memory=p["peak_rss_bytes"] / 1e6,
                         finished=datetime.datetime.fromisoformat(
                             p["finished"].replace("Z", "+00:00"))))
    complete = len(rows) == len(jobs)
    if not rows:  # still running: the time so far is a lower bound
        wall = (datetime.datetime.now(datetime.timezone.utc) - submitted).total_seconds()
        return [f"zipUSPS SOAK with glmnet ({len(jobs)} jobs) on the local one-node Slurm "
                f"cluster: **0 of {len(jobs)} jobs done after {wall / 3600:.2f} h** (not "
                f"finished: a lower bound)."], dict(wall=wall, complete=False, done=0,
                                                    jobs=len(jobs))
    done = pd.DataFrame(rows).merge(jobs, on="job")
    # Until the last job ends, the time so far is a lower bound of the run's wall time.
    last = (done["finished"].max() if complete
            else datetime.datetime.now(datetime.timezone.utc))
    out_dir = os.path.join(work, "zipUSPS")
    if complete:
        run([cli, "job", "collect", registry, "--out", out_dir])
        with open(os.path.join(out_dir, "seconds.txt"), "w") as f:
            f.write(f"{(last - submitted).total_seconds()}\n")
    per_set = done.groupby("train.subsets").agg(jobs=("job", "size"), n_train=("n_train", "mean"),
                                                 seconds=("seconds", "mean"),
                                                 max_seconds=("seconds", "max"),
                                                 cpu=("cpu", "mean"), memory=("memory", "max"))
    wall = (last - submitted).total_seconds()
    lines = [
        f"zipUSPS SOAK with glmnet (9298 rows, 256 features, 10 classes; 2 subsets x 10 folds x "
        f"3 train sets = {len(jobs)} jobs), one job per array task, 1 CPU each, on the local "
        f"one-node Slurm cluster ({conditions}): **{len(done)} of {len(jobs)} jobs done, wall time "
        f"{wall / 3600:.2f} h** "
        + ("from submission to the last result" if complete
           else "since submission (not finished: a lower bound)") + ".", "",
        "| train set | jobs | mean train rows | mean job wall (s) | max job wall (s) | "
        "mean job CPU (s) | peak memory (MB) |", "|---|---|---|---|---|---|---|"]
    for name, r in per_set.iterrows():
        lines.append(f"| {name} | {r['jobs']:.0f} | {r['n_train']:.0f} | {r['seconds']:.0f} | "
                     f"{r['max_seconds']:.0f} | {r['cpu']:.0f} | {r['memory']:.0f} |")
    total_wall = done["seconds"].sum()
    total_cpu = done["cpu"].sum(min_count=1)
    lines += ["", f"Sum of job wall times {total_wall / 3600:.2f} h"
              + (f", of job CPU times {total_cpu / 3600:.2f} h" if not np.isnan(total_cpu) else "")
              + f"; longest job {done['seconds'].max() / 60:.1f} min (wall)."]
    if complete and not np.isnan(total_cpu):
        longest_cpu = done["cpu"].max()
        lines += ["", f"What the per-job costs predict: on two idle cores the jobs' CPU time alone "
                  f"takes {total_cpu / 2 / 3600:.2f} h; on a cluster that gives every job a node "
                  f"of its own at once (100 nodes: all {len(jobs)} start together) the run takes "
                  f"about its longest job, {longest_cpu / 60:.1f} CPU-minutes, plus queueing "
                  f"and the jobs' start-up (reading and hashing the inputs, tens of ms)."]
    return lines, dict(wall=wall, complete=complete, done=len(done), jobs=len(jobs),
                       longest=done["seconds"].max(), total_cpu=total_cpu,
                       total_wall=total_wall, out=out_dir)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "assay"))
    ap.add_argument("--parts", default="overhead,mpi,zip")
    ap.add_argument("--overhead-data", default="vowel")
    ap.add_argument("--overhead-learners", default="featureless,glmnet")
    ap.add_argument("--mpi-data", default="waveform")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--zip-registry", default="")
    ap.add_argument("--zip-conditions", default="2 CPUs",
                    help="how the Slurm run was set up, for the table's caption")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "assay_bench_cluster"))
    args = ap.parse_args()
    if not os.path.isdir(DATA):
        sys.exit(f"real data not found in {os.path.abspath(DATA)} (set ASSAY_SOAK_DATA)")
    parts = set(args.parts.split(","))
    os.makedirs(args.out, exist_ok=True)
    sections = {}
    if os.path.exists(RESULTS):
        # Keep the sections of parts not run in this pass.
        text = open(RESULTS).read()
        for part in ("overhead", "mpi", "zip"):
            begin, end = f"<!-- part {part} begin -->", f"<!-- part {part} end -->"
            if begin in text and end in text:
                sections[part] = text[text.index(begin) + len(begin):text.index(end)].strip("\n")
    stamp = (f"Generated by `bench/bench_cluster.py` on {datetime.date.today().isoformat()}, "
             f"{machine()}, Debian's Open MPI and slurm-wlm.")
    if "overhead" in parts:
        work = tempfile.mkdtemp(dir=args.out)
        rows = [overhead(args.cli, args.overhead_data, learner, args.folds, work)
                for learner in args.overhead_learners.split(",")]
        sections["overhead"] = "\n".join([stamp, ""] + overhead_table(rows))
        print(sections["overhead"], flush=True)
    if "mpi" in parts:
        work = tempfile.mkdtemp(dir=args.out)
        lines = mpi(args.cli, args.mpi_data, "glmnet", args.folds, work)
        sections["mpi"] = "\n".join([stamp, ""] + (lines or ["mpirun not installed"]))
        print(sections["mpi"], flush=True)
    if "zip" in parts and args.zip_registry:
        lines, _ = zip_part(args.cli, args.zip_registry, args.out, args.zip_conditions)
        sections["zip"] = "\n".join([stamp, ""] + lines)
        print(sections["zip"], flush=True)
    body = ["# Batch registries, MPI and Slurm (`bench/bench_cluster.py`)", ""]
    # In docs/performance.md these become level-3 headings under the section of this benchmark.
    for part, title in (("overhead", "Registry overhead"), ("mpi", "MPI efficiency"),
                        ("zip", "zipUSPS through Slurm")):
        # "part NAME" markers: update_performance_doc.py copies only "<!-- NAME begin -->" blocks.
        body += [f"### {title}", "", f"<!-- part {part} begin -->", sections.get(part, "not run"),
                 f"<!-- part {part} end -->", ""]
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w") as f:
        f.write("\n".join(body))
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
