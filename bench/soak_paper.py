"""The SOAK paper's result pattern (its Figures 4 and 5) reproduced with assay's glmnet.

Runs `assay soak DATA --learners glmnet --folds 10` on the real data sets in
../shared/data/soak/ (vowel, waveform, aztrees with 3 and 4 regions and polygon groups,
CanadaFiresA, CanadaFiresD, zipUSPS last: it is the slowest), then writes docs/soak_paper.md:
for each data set the min..max over test subsets of the mean test-error difference All−Same and
Other−Same and of log10 p (two-sided paired t-tests, 9 df), next to the paper's numbers (read
from ../shared/data/soak/README.md), with a sign-pattern agreement column, and the run time.

Fold assignment is random (the paper's folds are not published per row), so exact numbers
differ; the sign pattern and rough magnitudes should agree.

  /usr/bin/python3 bench/soak_paper.py [--cli build/assay] [--threads 2] [--only vowel,waveform]
      [--reuse] [--learner glmnet] [--out /tmp/assay_soak_paper] [--doc docs/soak_paper.md]

--reuse keeps the results of data sets already run in --out (so zipUSPS can run on its own and
the page be rewritten from every result). --merge (with --only) rewrites only the rows of those
data sets in the existing page, from results already in --out (e.g. zipUSPS collected from a
Slurm run by bench/bench_cluster.py), keeping every other row and paragraph. --learner featureless gives a dry run of the pipeline
(the page then says so in its title: featureless cannot show the paper's pattern).
"""
import argparse
import datetime
import math
import os
import platform
import re
import subprocess
import sys
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.environ.get("ASSAY_SOAK_DATA") or os.path.join(ROOT, "..", "shared", "data", "soak")

# name (the paper's, or the paper's and a variant after a space), file, subset column, group
# column, columns that are not features.
DATASETS = [
    ("vowel", "vowel.csv", "subset", None, []),
    ("waveform", "waveform.csv", "subset", None, []),
    ("CanadaFiresD", "CanadaFiresD.csv", "image", None, []),
    ("aztrees3", "aztrees.csv", "region3", "polygon", ["region4", "xcoord", "ycoord"]),
    ("aztrees4", "aztrees.csv", "region4", "polygon", ["region3", "xcoord", "ycoord"]),
    # As the paper ran them: rows assigned to folds at random within a region (polygons split).
    ("aztrees3 rows", "aztrees.csv", "region3", None, ["region4", "xcoord", "ycoord", "polygon"]),
    ("aztrees4 rows", "aztrees.csv", "region4", None, ["region3", "xcoord", "ycoord", "polygon"]),
    ("CanadaFiresA", "CanadaFiresA.csv", "image", None, []),
    ("zipUSPS", "zipUSPS.csv", "subset", None, []),
]


def paper_numbers(readme):
    """{data: {"all": (lo, hi), "all_p": (lo, hi), "other": ..., "other_p": ...}} from the
    README's table of the paper's results (unicode minus signs)."""
    out = {}
    pair = re.compile(r"^\s*([-\u2212]?[\d.]+)\s*\.\.\s*([-\u2212]?[\d.]+)\s*$")
    for line in open(readme, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not all(pair.match(c) for c in cells[1:]):
            continue
        nums = [tuple(float(x.replace("\u2212", "-")) for x in pair.match(c).groups())
                for c in cells[1:]]
        out[cells[0]] = dict(zip(["all", "all_p", "other", "other_p"], nums))
    return out


def run_one(cli, name, file, subset, group, drop, reuse, args, out):
    """Runs assay soak for one data set (or reuses its results); returns (pvalues, seconds)."""
    target = os.path.join(out, name)
    timing = os.path.join(target, "seconds.txt")
    if reuse and os.path.exists(timing) and os.path.exists(os.path.join(target,
                                                                            "pvalues.csv")):
        return pd.read_csv(os.path.join(target, "pvalues.csv")), float(open(timing).read())
    cmd = [cli, "soak", os.path.join(DATA, file), "--label", "y", "--subset", subset,
           "--learners", args.learner, "--folds", "10", "--seed", str(args.seed),
           "--threads", str(args.threads), "--out", target]
    if group:
        cmd += ["--group", group]
    if drop:
        cmd += ["--drop", ",".join(drop)]
    print("$", " ".join(cmd), flush=True)
    start = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"{name}: assay soak failed:\n{r.stderr}")
    print(r.stdout, flush=True)
    warnings = [l for l in r.stderr.splitlines() if l.startswith("assay: warning:")]
    with open(os.path.join(target, "warnings.txt"), "w") as f:
        f.write("".join(l + "\n" for l in warnings))
    with open(timing, "w") as f:
        f.write(f"{seconds}\n")
    return pd.read_csv(os.path.join(target, "pvalues.csv")), seconds


def ranges(pv):
    """min..max over test subsets of the full-size mean differences and log10 p."""
    full = pv[pv["n.train.groups"] == 0]
    out = {}
    for comparison, key in (("all-same", "all"), ("other-same", "other")):
        rows = full[full["comparison"] == comparison]
        d = rows["mean_diff"].to_numpy(float)
        lp = np.log10(rows["p_paired"].to_numpy(float))
        d, lp = d[np.isfinite(d)], lp[np.isfinite(lp)]  # NA tests (e.g. equal errors) left out
        out[key] = (d.min(), d.max()) if len(d) else (math.nan, math.nan)
        out[key + "_p"] = (lp.min(), lp.max()) if len(lp) else (math.nan, math.nan)
    return out


def pattern(lo, hi):
    """The paper's categories (Figure 4/5 captions) after rounding to its one decimal:
    "+" (min and max >= 0: never beneficial), "−" (both <= 0), "±" (min < 0 < max), "0" (both
    round to 0: no difference at all, e.g. featureless on balanced subsets)."""
    if math.isnan(lo):
        return "NA"
    lo, hi = round(lo, 1) + 0.0, round(hi, 1) + 0.0
    if lo == 0 and hi == 0:
        return "0"
    if lo >= 0:
        return "+"
    if hi <= 0:
        return "\u2212"
    return "\u00b1"


def fmt_range(r, digits=1):
    lo, hi = r
    if math.isnan(lo):
        return "NA"
    f = lambda v: f"{v:.{digits}f}".replace("-", "\u2212")
    return f"{f(lo)} .. {f(hi)}"


def machine():
    cpu = platform.processor() or ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu})"


def commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def summary_row(name, pv, seconds, ref):
    """The page's main-table row of one data set."""
    ours = ranges(pv)
    row = [name]
    for key in ("all", "other"):
        row += [fmt_range(ours[key]), fmt_range(ref[key]) if ref else "—",
                fmt_range(ours[key + "_p"]), fmt_range(ref[key + "_p"]) if ref else "—"]
        if ref:
            a, b = pattern(*ours[key]), pattern(*ref[key])
            row.append(f"{a} / {b} " + ("yes" if a == b else "**no**"))
        else:
            row.append("—")
    row.append(f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.1f}")
    return row


def detail_rows(name, pv):
    """The per-test-subset rows of one data set."""
    full = pv[pv["n.train.groups"] == 0]
    return [[name, str(r["test.subset"]), r["comparison"], f"{r['same_mean']:.2f}",
             f"{r['compared_mean']:.2f}", f"{r['mean_diff']:+.2f}", f"{r['p_paired']:.2g}"]
            for _, r in full.iterrows()]


def merge(args, paper, only, out):
    """Replaces (or appends) the rows of the --only data sets in the existing page."""
    lines = open(args.doc, encoding="utf-8").read().split("\n")
    for name in only:
        target = os.path.join(out, name)
        pv = pd.read_csv(os.path.join(target, "pvalues.csv"))
        seconds = float(open(os.path.join(target, "seconds.txt")).read())
        row = "| " + " | ".join(summary_row(name, pv, seconds, paper.get(name.split()[0]))) + " |"
        details = ["| " + " | ".join(r) + " |" for r in detail_rows(name, pv)]
        main = [i for i, l in enumerate(lines) if l.startswith("| data | All−Same")]
        per = [i for i, l in enumerate(lines) if l.startswith("| data | test subset")]
        if not main or not per:
            sys.exit(f"{args.doc}: no result tables to merge into")
        lines = [l for l in lines if not l.startswith(f"| {name} |")]
        end = main[0] + 2
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        lines.insert(end, row)
        per = [i for i, l in enumerate(lines) if l.startswith("| data | test subset")][0]
        end = per + 2
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        lines[end:end] = details
    table = [l for l in lines if l.startswith("| ") and not l.startswith("| data")]
    rows = [[c.strip() for c in l.strip("|").split("|")] for l in table]
    rows = [r for r in rows if len(r) == 12]
    agree = sum(1 for r in rows for c in (r[5], r[10]) if c.endswith("yes"))
    total = sum(1 for r in rows for c in (r[5], r[10]) if c != "—")
    lines = [f"**Sign patterns agree in {agree} of {total} comparisons.**"
             if l.startswith("**Sign patterns agree in") else l for l in lines]
    with open(args.doc, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print(f"merged {', '.join(sorted(only))} into {args.doc}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "assay"))
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--learner", default="glmnet")
    ap.add_argument("--only", default="", help="comma-separated data set names")
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--out", default="/tmp/assay_soak_paper")
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "soak_paper.md"))
    ap.add_argument("--note", default="", help="a paragraph added under the table (markdown)")
    ap.add_argument("--merge", action="store_true",
                    help="update only the --only rows of the existing page from --out")
    args = ap.parse_args()
    if not os.path.isdir(DATA):
        sys.exit(f"real data not found in {os.path.abspath(DATA)} (set ASSAY_SOAK_DATA)")
    paper = paper_numbers(os.path.join(DATA, "README.md"))
    only = set(filter(None, args.only.split(",")))
    out = os.path.join(args.out, args.learner)
    os.makedirs(out, exist_ok=True)

    if args.merge:
        merge(args, paper, only, out)
        return
    rows, details, missing = [], [], []
    for name, file, subset, group, drop in DATASETS:
        have = os.path.exists(os.path.join(out, name, "seconds.txt"))
        skipped = bool(only) and name not in only
        if skipped and not have:
            missing.append(name)
            continue
        # Data sets outside --only keep the results of an earlier pass.
        pv, seconds = run_one(args.cli, name, file, subset, group, drop,
                              args.reuse or skipped, args, out)
        rows.append(summary_row(name, pv, seconds, paper.get(name.split()[0])))
        details += detail_rows(name, pv)

    header = ["data", "All−Same (assay)", "All−Same (paper)", "log10 p (assay)",
              "log10 p (paper)", "sign pattern assay / paper", "Other−Same (assay)",
              "Other−Same (paper)", "log10 p (assay)", "log10 p (paper)",
              "sign pattern assay / paper", "seconds"]
    table = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    table += ["| " + " | ".join(r) + " |" for r in rows]
    dtable = ["| data | test subset | comparison | Same mean | compared mean | difference | p |",
              "|---|---|---|---|---|---|---|"]
    dtable += ["| " + " | ".join(r) + " |" for r in details]

    agree = sum(1 for r in rows for c in (r[5], r[10]) if c.endswith("yes"))
    total = sum(1 for r in rows for c in (r[5], r[10]) if c != "—")
    dry = args.learner != "glmnet"
    title = ("# The SOAK paper's result pattern with assay's glmnet" if not dry else
             f"# The SOAK paper's result pattern — DRY RUN with `{args.learner}`, NOT glmnet")
    lines = [
        title, "",
        "The SOAK paper (Figures 4 and 5) runs SOAK with 10-fold CV and cv_glmnet on 20 data sets "
        "and reports, per data set, the min..max over test subsets of the mean test-error "
        "difference (percent) All−Same and Other−Same, and of log10 p of two-sided paired t-tests "
        "(9 df). "
        f"This page runs `assay soak --learners {args.learner} --folds 10 --seed {args.seed}` on "
        "the real data sets in `../shared/data/soak/` and puts assay's numbers next to the "
        "paper's (from that folder's README). Fold assignment is random and the paper's folds "
        "are not published per row, so the numbers differ fold by fold; what should reproduce is "
        "the sign pattern and the rough magnitudes.", "",
        "*Sign pattern*: after rounding to the paper's one decimal, `+` = min and max ≥ 0 "
        "(combining / swapping subsets never helps), `−` = both ≤ 0 (never hurts), `±` = min < 0 < "
        "max (`0`: both round to 0); the column shows assay / paper and whether they agree.", "",
        f"Generated by `bench/soak_paper.py` on {datetime.date.today().isoformat()}, assay "
        f"built from the working tree at commit {commit()}, {machine()}, `--threads {args.threads}`; *seconds* is the wall time "
        "of the whole `assay soak` run (3·S·10 splits, each glmnet fit with its internal 10-fold "
        "CV over the λ path) on a machine shared with other jobs.", "",
        f"**Sign patterns agree in {agree} of {total} comparisons.**", "",
    ] + table + [""]
    if missing:
        lines += [f"Not run in this pass: {', '.join(missing)}.", ""]
    if args.note:
        lines += [args.note, ""]
    notes = []
    for name, *_ in DATASETS:
        path = os.path.join(out, name, "warnings.txt")
        if os.path.exists(path):
            notes += [f"- {name}: {l[len('assay: warning: '):]}" for l in open(path).read().splitlines()]
    if notes:
        lines += ["Warnings printed by `assay soak`:", ""] + notes + [""]
    lines += ["## Per test subset", "",
              "Mean test error (percent) over the 10 folds for Same and the compared train set, "
              "their difference and the paired t-test p-value.", ""] + dtable + [""]
    with open(args.doc, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(table))
    print(f"wrote {args.doc}")


if __name__ == "__main__":
    main()
