#!/usr/bin/env python3
"""Certified counting for networks (assay count --vnnlib) next to VNN-COMP's deciders.

ACAS Xu (../shared/data/acasxu or ASSAY_ACASXU_DATA): every VNN-COMP instance run with
stop_when_decided and a 60 s limit: how many are decided, the decisions against VNN-COMP 2025's
published outcomes, and the times next to nnenum's published times (VNN-COMP 2025: all 186 in
415 s, median 1.15 s, on the competition's AWS machine; nnenum itself needs packages Debian does
not ship, so its published per-instance times are the peer, bench/data/
vnncomp2025_nnenum_acasxu.csv). Then, on violated instances, the width of the certified interval
of the unsafe share after 10 s and 60 s of counting. Digits: the time per image of an MLP's
robustness count (epsilon = 1) by domain splitting.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_count_networks.py \
        [--limit N] [--width-instances 8] [--seconds 60] [--threads 0] [--reuse-decisions]
Writes bench/results/count_networks.md (and .json).
"""
import argparse
import csv
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import assay.count as count
import assay.models as models

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NNENUM = HERE / "data" / "vnncomp2025_nnenum_acasxu.csv"


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def load_nnenum():
    with open(NNENUM) as f:
        rows = [line for line in f if not line.startswith("#")]
    return {(r["network"], int(r["property"])): (r["outcome"], float(r["seconds"]))
            for r in csv.DictReader(rows)}


def instances(d):
    with open(d / "acasxu_instances.csv") as f:
        for onnx_file, vnnlib, _ in csv.reader(f):
            net = onnx_file.split("run2a_")[1].split("_batch")[0]
            yield net, int(vnnlib.split("_")[1].split(".")[0]), d / onnx_file, d / vnnlib


def decide_all(d, nnenum, args):
    rows = []
    for k, (net, prop, onnx_file, vnnlib) in enumerate(instances(d)):
        if args.limit and k >= args.limit:
            break
        c0, t0 = cpu_seconds(), time.perf_counter()
        r = count.count_vnnlib(onnx_file, vnnlib, time_limit=args.seconds,
                               stop_when_decided=True, samples=10000, threads=args.threads)
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        outcome, nn_sec = nnenum[(net, prop)]
        rows.append({"network": net, "property": prop, "decision": r["decision"],
                     "expected": "violated" if outcome == "sat" else "holds",
                     "seconds": wall, "cpu": cpu, "boxes": r["boxes"]["bounded"],
                     "nnenum_seconds": nn_sec})
        print(f"{net} prop {prop}: {r['decision']} in {wall:.2f} s ({cpu:.2f} CPU s), "
              f"VNN-COMP {outcome} in {nn_sec:.2f} s", flush=True)
    return rows


def widths(d, nnenum, args):
    violated = [(net, prop, o, v) for net, prop, o, v in instances(d)
                if nnenum[(net, prop)][0] == "sat"]
    if args.width_instances >= 0:
        violated = violated[: args.width_instances]
    out = []
    for net, prop, onnx_file, vnnlib in violated:
        r = count.count_vnnlib(onnx_file, vnnlib, time_limit=args.seconds, samples=10000,
                               threads=args.threads)
        at10 = [t for t in r["trace"] if t["seconds"] <= 10.0]
        w10 = at10[-1]["upper"] - at10[-1]["lower"] if at10 else 1.0
        w_end = r["unsafe"]["upper"] - r["unsafe"]["lower"]
        out.append({"network": net, "property": prop, "width_10s": w10,
                    "width_end": w_end, "seconds": r["seconds"], "lower": r["unsafe"]["lower"],
                    "upper": r["unsafe"]["upper"], "sample": r["sample"]["value"],
                    "sample_interval": r["sample"]["clopper_pearson"],
                    "boxes": r["boxes"]["bounded"]})
        print(f"{net} prop {prop}: width {w10:.4g} after 10 s, {w_end:.4g} after "
              f"{r['seconds']:.0f} s; [{r['unsafe']['lower']:.5f}, {r['unsafe']['upper']:.5f}]",
              flush=True)
    return out


def digits_times(args):
    import warnings
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier
    warnings.simplefilter("ignore")
    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    model = models.from_sklearn(
        MLPClassifier(hidden_layer_sizes=(32,), max_iter=1000, random_state=0).fit(Xtr, ytr))
    times, exact = [], 0
    for k in range(10):
        x = Xte[np.flatnonzero(yte == k)[0]]
        spec = ("input x[64] : int[0, 16];\n"
                f"region R = ball([{', '.join(str(int(v)) for v in x)}], 1) label {k};\n")
        c0 = cpu_seconds()
        r = count.count(model, spec, method="split", time_limit=10, threads=args.threads)
        times.append(cpu_seconds() - c0)
        exact += r["regions"][0]["guarantee"]["exact"]
    return {"images": 10, "exact": exact, "median_cpu": statistics.median(times),
            "max_cpu": max(times)}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--limit", type=int, default=0, help="the first N ACAS Xu instances only")
    p.add_argument("--width-instances", type=int, default=8,
                   help="violated instances whose interval width is measured (-1: all 47)")
    p.add_argument("--reuse-decisions", action="store_true",
                   help="take the decisions from bench/results/count_networks.json")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--threads", type=int, default=0)
    args = p.parse_args()
    d = Path(os.environ.get("ASSAY_ACASXU_DATA", ROOT / ".." / "shared" / "data" / "acasxu"))
    if not (d / "acasxu_instances.csv").exists():
        sys.exit(f"ACAS Xu data not found at {d} (set ASSAY_ACASXU_DATA)")
    nnenum = load_nnenum()
    load0 = os.getloadavg()[0]
    if args.reuse_decisions:
        rows = json.loads((HERE / "results" / "count_networks.json").read_text())["instances"]
    else:
        rows = decide_all(d, nnenum, args)
    wid = widths(d, nnenum, args) if args.width_instances else []
    dig = digits_times(args)
    decided = [r for r in rows if r["decision"] != "unknown"]
    wrong = [r for r in decided if r["decision"] != r["expected"]]
    nn_total = sum(nnenum[(r["network"], r["property"])][1] for r in rows)
    total = sum(r["seconds"] for r in rows)
    total_cpu = sum(r["cpu"] for r in rows)
    summary = {
        "instances": len(rows), "decided": len(decided), "wrong": len(wrong),
        "total_seconds": total, "total_cpu": total_cpu,
        "median_seconds": statistics.median(r["seconds"] for r in rows),
        "median_cpu": statistics.median(r["cpu"] for r in rows),
        "nnenum_total": nn_total,
        "nnenum_median": statistics.median(nnenum[(r["network"], r["property"])][1]
                                           for r in rows),
        "load_average": [load0, os.getloadavg()[0]], "threads": args.threads,
        "cpus": os.cpu_count(), "machine": platform.machine(),
    }
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "count_networks.json").write_text(
        json.dumps({"summary": summary, "instances": rows, "widths": wid, "digits": dig},
                   indent=1))
    lines = [
        "# Certified counting for networks vs VNN-COMP (nnenum)", "",
        f"Generated by `bench/bench_count_networks.py` on {platform.machine()} "
        f"({os.cpu_count()} CPUs, shared: load average {load0:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end), threads={args.threads}. nnenum: VNN-COMP 2025's "
        "published times (its AWS machine), not run here. CPU seconds are this process's user + "
        "system time (all threads), the load-independent figure on a shared machine.", "",
        "| ACAS Xu, 186 instances | assay (wall) | assay (CPU) | nnenum (VNN-COMP 2025) |",
        "|---|---|---|---|",
        f"| decided within {args.seconds:.0f} s | {len(decided)} of {len(rows)} | | "
        f"{len(rows)} of {len(rows)} |",
        f"| decisions disagreeing with VNN-COMP | {len(wrong)} | | |",
        f"| total time | {total:.1f} s | {total_cpu:.1f} s | {nn_total:.1f} s |",
        f"| median time | {summary['median_seconds']:.2f} s | {summary['median_cpu']:.2f} s | "
        f"{summary['nnenum_median']:.2f} s |", "",
        "Width of the certified interval of the unsafe share on violated instances (upper − "
        "lower; 10,000 samples first):", "",
        "| network | property | width after 10 s | width at the end | time (s) | interval | "
        "sampled (99.9 % Clopper-Pearson) | intervals meet |", "|---|---|---|---|---|---|---|---|"]
    for w in wid:
        s_lo, s_hi = w["sample_interval"]
        meet = "yes" if s_lo <= w["upper"] and w["lower"] <= s_hi else "**no**"
        lines.append(f"| {w['network']} | {w['property']} | {w['width_10s']:.4g} | "
                     f"{w['width_end']:.4g} | {w['seconds']:.0f} | "
                     f"[{w['lower']:.5f}, {w['upper']:.5f}] | {w['sample']:.5f} "
                     f"[{s_lo:.5f}, {s_hi:.5f}] | {meet} |")
    lines += ["", f"Digits MLP (64 inputs, 32 ReLU), robustness ball epsilon = 1: median "
              f"{dig['median_cpu']:.3f} CPU s per image (max {dig['max_cpu']:.3f}); "
              f"{dig['exact']} of 10 counts exact within 10 s."]
    (HERE / "results" / "count_networks.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
