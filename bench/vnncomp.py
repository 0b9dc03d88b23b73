#!/usr/bin/env python3
"""One VNN-COMP 2021 benchmark end to end with `assay count --instances`, against the published
outcomes of 2021 (bench/data/vnncomp2021_published.csv, derived from
github.com/stanleybak/vnncomp2021_results).

    /usr/bin/python3 bench/vnncomp.py mnistfc --time-limit 10 [--assay build/assay]
        [--data ../shared/data/vnncomp2021] [--out /tmp/vnncomp_mnistfc] [--threads 0]

Prints: instances decided (holds / violated), contradictions with the published outcomes (assay
says holds where the majority of the 2021 tools that decided said violated, or the reverse),
median and total time of assay's runs, beside the 2021 decided counts of alpha-beta-CROWN, ERAN
and VeriNet (their median and total over the instances they decided; their hardware: 64-core
CPU or GPU machines, 2021 per-instance limits). The summary
JSON and the result files stay in --out.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PUBLISHED = HERE / "data" / "vnncomp2021_published.csv"


def published(benchmark):
    rows = {}
    with open(PUBLISHED, newline="") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if row["benchmark"] == benchmark:
                key = (os.path.normpath(row["network"]), os.path.normpath(row["property"]))
                rows[key] = row
    return rows


def majority(row):
    holds, violated = int(row["n_holds"]), int(row["n_violated"])
    if holds > violated:
        return "holds"
    if violated > holds:
        return "violated"
    return None


def compare(summary, pub):
    """Rows of (network, property, assay, majority, contradiction)."""
    out = []
    for r in summary["rows"]:
        key = (os.path.normpath(r["network"]), os.path.normpath(r["property"]))
        ours = {"sat": "violated", "unsat": "holds"}.get(r["result"])
        theirs = majority(pub[key]) if key in pub else None
        out.append((r, ours, theirs, ours is not None and theirs is not None and ours != theirs))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("benchmark", choices=["mnistfc", "verivital", "cifar10_resnet"])
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--assay", default=str(HERE.parent / "build" / "assay"))
    ap.add_argument("--data", default=str(HERE.parent / ".." / "shared" / "data" / "vnncomp2021"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--markdown", default=None,
                    help="write the per-instance table of this run as a markdown section")
    ap.add_argument("--summary", default=None,
                    help="use this summary.json of an earlier run instead of running assay")
    args = ap.parse_args()
    csv_path = Path(args.data) / args.benchmark / f"{args.benchmark}_instances.csv"
    if not csv_path.exists():
        sys.exit(f"{csv_path}: not found (the shared VNN-COMP 2021 data)")
    out = Path(args.out or f"/tmp/vnncomp_{args.benchmark}")
    out.mkdir(parents=True, exist_ok=True)
    summary_path = Path(args.summary) if args.summary else out / "summary.json"
    start = time.time()
    if not args.summary:
        run = subprocess.run([args.assay, "count", "--instances", str(csv_path), "--results",
                              str(out / "results"), "--time-limit", str(args.time_limit),
                              "--threads", str(args.threads), "--json-out", str(summary_path),
                              "--quiet"], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"assay count --instances failed ({run.returncode}):\n{run.stderr}")
    wall = time.time() - start
    summary = json.loads(summary_path.read_text())
    pub = published(args.benchmark)
    rows = compare(summary, pub)
    decided = [r for r, ours, _, _ in rows if ours]
    holds = sum(ours == "holds" for _, ours, _, _ in rows)
    violated = sum(ours == "violated" for _, ours, _, _ in rows)
    contradictions = [(r["network"], r["property"], ours, theirs)
                      for r, ours, theirs, bad in rows if bad]
    seconds = [r["seconds"] for r, *_ in rows]
    tools = {"abcrown": "alpha-beta-CROWN", "eran": "ERAN", "verinet": "VeriNet"}
    print(f"{args.benchmark}: {len(rows)} instances, time limit min(row, {args.time_limit:g} s), "
          f"threads {args.threads or os.cpu_count()}")
    print(f"{'':26}{'decided':>8}{'holds':>7}{'violated':>9}{'median s':>10}{'total s':>10}")
    print(f"{'assay':26}{len(decided):>8}{holds:>7}{violated:>9}"
          f"{statistics.median(seconds):>10.2f}{sum(seconds):>10.1f}")
    for column, name in tools.items():
        res = [p[column] for p in pub.values()]
        secs = [float(p[column + "_seconds"]) for p in pub.values()
                if p[column] in ("holds", "violated")]
        print(f"{name + ' (2021)':26}{sum(v in ('holds', 'violated') for v in res):>8}"
              f"{res.count('holds'):>7}{res.count('violated'):>9}"
              f"{(statistics.median(secs) if secs else float('nan')):>10.2f}"
              f"{sum(secs):>10.1f}")
    print(f"contradictions with the published majority: {len(contradictions)}")
    for c in contradictions:
        print("  ", *c)
    print(f"results: {summary['counts']}; wall time {wall:.1f} s; summary {summary_path}")
    if args.markdown:
        Path(args.markdown).write_text(markdown(args, summary, pub, rows, tools))
    return 1 if contradictions else 0


def percent_interval(lower, upper):
    return f"[{100 * lower:.4f}, {100 * upper:.4f}]"


def markdown(args, summary, pub, rows, tools):
    """The run as a markdown section: the totals beside the 2021 tools', then one row per
    instance with the published outcomes."""
    decided = sum(ours is not None for _, ours, _, _ in rows)
    holds = sum(ours == "holds" for _, ours, _, _ in rows)
    violated = sum(ours == "violated" for _, ours, _, _ in rows)
    bad = sum(b for *_, b in rows)
    times = [r["seconds"] for r, ours, _, _ in rows if ours]
    lines = [f"## {args.benchmark}", "",
             f"{len(rows)} instances, each at most min(its row's limit, {args.time_limit:g} s), "
             f"`--threads {args.threads}`. assay: {decided} decided ({holds} holds, {violated} "
             f"violated); contradictions with the published majority: {bad}; median time of the "
             f"decided {statistics.median(times) if times else float('nan'):.2f} s, total "
             f"{sum(r['seconds'] for r, *_ in rows):.1f} s over all instances.", "",
             "| tool | decided | holds | violated |", "|---|---|---|---|",
             f"| assay (this run) | {decided} | {holds} | {violated} |"]
    for column, name in tools.items():
        res = [p[column] for p in pub.values()]
        lines.append(f"| {name} (2021) | {sum(v in ('holds', 'violated') for v in res)} | "
                     f"{res.count('holds')} | {res.count('violated')} |")
    lines += ["", "| network | property | assay | seconds | certified unsafe share (%) | "
              "sampled (%) | 2021 tools: holds / violated | alpha-beta-CROWN | ERAN | VeriNet |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r, ours, theirs, _ in rows:
        key = (os.path.normpath(r["network"]), os.path.normpath(r["property"]))
        p = pub.get(key)
        sample = r.get("sample")
        sampled = (f"{100 * sample['value']:.2f} {percent_interval(*sample['clopper_pearson'])}"
                   if sample else "")
        published_tools = [(f"{p[c]} ({float(p[c + '_seconds']):.1f} s)"
                            if p[c + "_seconds"] else p[c]) if p else "" for c in tools]
        lines.append(f"| {r['network']} | {os.path.basename(r['property'])} | "
                     f"{ {'sat': 'violated', 'unsat': 'holds'}.get(r['result'], r['result'])} | "
                     f"{r['seconds']:.2f} | {percent_interval(r['unsafe']['lower'], r['unsafe']['upper'])} | "
                     f"{sampled} | {p['n_holds'] + ' / ' + p['n_violated'] if p else 'none'} | "
                     + " | ".join(published_tools) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
