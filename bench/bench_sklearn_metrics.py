"""Benchmark: every assay.metrics twin of a scikit-learn metric against scikit-learn 1.2.1, from
n = 100 (per-call overhead) to n = 1e7 (throughput), in one process on the same inputs.

Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_sklearn_metrics.py
         [--sizes 100 1e4 1e6 1e7] [--only NAME ...] [--budget SECONDS] [--from-log LOG ...]
         [--classes 10] [--weighted] [--busy 0] [--clock cpu|wall] [--out FILE]
--classes: the number of classes of the multiclass workloads (binary ones stay binary);
--weighted: every function scikit-learn gives a sample_weight gets the same random weights in
both libraries (the others run unweighted and are marked); --busy N: N processes spin on the
CPUs for the whole run (a busy machine); --clock wall: wall-clock times (what a caller waits,
including any wait for a thread), the fair clock with --busy.
--from-log reads the rows an earlier (e.g. interrupted) run printed and measures only the
others, so a long run can be completed in parts. --update FILE (with --only and the settings FILE
was made with) measures those functions again and replaces just their rows in FILE, adding a
line that says which rows were measured when: for a change that touches a few functions.
Writes bench/results/sklearn_metrics.md. n counts samples; functions of a score or label
matrix use 10 columns and at most --max-matrix-rows rows (default 1e6, i.e. 1e7 values).
Each result is checked against scikit-learn's (rtol 1e-9) before it is timed. Times are CPU
time of the process (all threads; fair on a shared, loaded machine, and never in assay's favour
when it uses several threads), the best of repeated runs (at least --repeat, and small inputs
repeated for about 0.2 s). When scikit-learn would take longer than --budget seconds (measured,
or predicted from the previous size: its per-sample Python loops in LRAP, ranking loss and DCG;
most functions at 1e7), it is timed (and checked) on a prefix of the input and its time is
scaled linearly to n; such rows say "scaled from n=...". """
import argparse
import functools
import inspect
import multiprocessing
import os
import platform
import re
import time
import warnings

import numpy as np
import sklearn
import sklearn.metrics as skm

import assay.metrics as am

HERE = os.path.dirname(os.path.abspath(__file__))
K = 10  # classes / labels / columns of 2-D inputs (--classes)
WEIGHTED = False  # --weighted


clock = time.process_time  # CPU seconds of this process, all threads (--clock wall: perf_counter)


def best_time(fn, repeat, min_total=0.2):
    """Best per-call CPU time of fn over `repeat` rounds; each round repeats fn for ~min_total s
    when one call is short (so n = 100 measures overhead, not timer noise)."""
    t0 = clock()
    fn()
    once = clock() - t0
    inner = max(1, int(min_total / max(once, 1e-7))) if once < min_total else 1
    times = []
    for _ in range(repeat):
        t0 = clock()
        for _ in range(inner):
            fn()
        times.append((clock() - t0) / inner)
    return min(times)


def spin():
    while True:
        pass


@functools.lru_cache(maxsize=None)
def accepts_weights(name):
    fn = getattr(skm, name.split(" ")[0])
    return "sample_weight" in inspect.signature(fn).parameters


class Weighted:
    """A metrics module whose functions get sample_weight = the first len(first argument)
    weights of `w` (the same weights for both libraries), where scikit-learn has the argument.
    A function is wrapped once, on first use, and kept as an attribute: the timed calls pay one
    extra Python call, not a signature inspection."""

    def __init__(self, module, w):
        self.module, self.w = module, w

    def __getattr__(self, name):
        fn = getattr(self.module, name)
        if accepts_weights(name):
            w, inner = self.w, fn
            fn = lambda *a, **k: inner(*a, sample_weight=w[:len(a[0])], **k)  # noqa: E731
        setattr(self, name, fn)
        return fn


def data(n, rows, rng):
    """Inputs for every workload at n samples (rows for matrix workloads)."""
    yt = rng.integers(0, K, n)
    yp = np.where(rng.random(n) < 0.6, yt, rng.integers(0, K, n))
    yb = rng.integers(0, 2, n)
    pb = np.where(rng.random(n) < 0.7, yb, 1 - yb)
    score = np.round(rng.random(n), 3)  # ties, as real scores have
    prob_m = rng.random((rows, K))
    prob_m /= prob_m.sum(axis=1, keepdims=True)
    ym = rng.integers(0, K, rows)
    ind_t = rng.integers(0, 2, (rows, K))
    ind_p = rng.integers(0, 2, (rows, K))
    s_m = np.round(rng.random((rows, K)), 2)
    rel = rng.integers(0, 4, (rows, K)).astype(float)
    yr = rng.normal(size=n) * 3 + 10
    pr = yr + rng.normal(size=n)
    pos = np.abs(yr) + 0.5
    return dict(w=rng.random(n) + 0.5, yt=yt, yp=yp, yb=yb, pb=pb, score=score, prob_m=prob_m,
                ym=ym, ind_t=ind_t,
                ind_p=ind_p, s_m=s_m, rel=rel, yr=yr, pr=pr, pos=pos, pos_p=pos * 1.1,
                x_curve=np.linspace(0, 1, n), y_curve=np.sqrt(np.linspace(0, 1, n)))


def workloads():
    """(name, matrix workload?, call(metrics module, data)) for every function."""
    L = [
        ("accuracy_score", False, lambda m, d: m.accuracy_score(d["yt"], d["yp"])),
        ("balanced_accuracy_score", False,
         lambda m, d: m.balanced_accuracy_score(d["yt"], d["yp"])),
        ("confusion_matrix", False, lambda m, d: m.confusion_matrix(d["yt"], d["yp"])),
        ("multilabel_confusion_matrix", False,
         lambda m, d: m.multilabel_confusion_matrix(d["yt"], d["yp"])),
        ("precision_recall_fscore_support (macro)", False,
         lambda m, d: m.precision_recall_fscore_support(d["yt"], d["yp"], average="macro")[:3]),
        ("f1_score (binary)", False, lambda m, d: m.f1_score(d["yb"], d["pb"])),
        ("jaccard_score (macro)", False,
         lambda m, d: m.jaccard_score(d["yt"], d["yp"], average="macro")),
        ("hamming_loss", False, lambda m, d: m.hamming_loss(d["yt"], d["yp"])),
        ("zero_one_loss", False, lambda m, d: m.zero_one_loss(d["yt"], d["yp"])),
        ("cohen_kappa_score", False, lambda m, d: m.cohen_kappa_score(d["yt"], d["yp"])),
        ("matthews_corrcoef", False, lambda m, d: m.matthews_corrcoef(d["yt"], d["yp"])),
        ("class_likelihood_ratios", False,
         lambda m, d: m.class_likelihood_ratios(d["yb"], d["pb"])),
        ("hinge_loss (binary)", False, lambda m, d: m.hinge_loss(d["yb"], d["score"] - 0.5)),
        ("log_loss (binary)", False, lambda m, d: m.log_loss(d["yb"], d["score"])),
        ("brier_score_loss", False, lambda m, d: m.brier_score_loss(d["yb"], d["score"])),
        ("roc_auc_score", False, lambda m, d: m.roc_auc_score(d["yb"], d["score"])),
        ("average_precision_score", False,
         lambda m, d: m.average_precision_score(d["yb"], d["score"])),
        # thresholds[0] differs by design (inf vs max + 1): compared without it
        ("roc_curve", False, lambda m, d: m.roc_curve(d["yb"], d["score"])[:2]),
        ("precision_recall_curve", False,
         lambda m, d: m.precision_recall_curve(d["yb"], d["score"])),
        # scikit-learn 1.7's det_curve (assay's) adds a point at +inf: compared without it
        ("det_curve", False, lambda m, d: points_both_releases_have(
            m.det_curve(d["yb"], d["score"]))),
        ("auc", False, lambda m, d: m.auc(d["x_curve"], d["y_curve"])),
        ("top_k_accuracy_score (k=2)", True,
         lambda m, d: m.top_k_accuracy_score(d["ym"], d["prob_m"], k=2)),
        ("roc_auc_score (ovr)", True,
         lambda m, d: m.roc_auc_score(d["ym"], d["prob_m"], multi_class="ovr")),
        ("log_loss (multiclass)", True, lambda m, d: m.log_loss(d["ym"], d["prob_m"])),
        ("hamming_loss (multilabel)", True,
         lambda m, d: m.hamming_loss(d["ind_t"], d["ind_p"])),
        ("f1_score (multilabel, samples)", True,
         lambda m, d: m.f1_score(d["ind_t"], d["ind_p"], average="samples")),
        ("coverage_error", True, lambda m, d: m.coverage_error(d["ind_t"], d["s_m"])),
        ("label_ranking_average_precision_score", True,
         lambda m, d: m.label_ranking_average_precision_score(d["ind_t"], d["s_m"])),
        ("label_ranking_loss", True, lambda m, d: m.label_ranking_loss(d["ind_t"], d["s_m"])),
        ("dcg_score", True, lambda m, d: m.dcg_score(d["rel"], d["s_m"])),
        ("ndcg_score", True, lambda m, d: m.ndcg_score(d["rel"], d["s_m"])),
    ]
    regression = [
        ("mean_squared_error", "yr", "pr", {}),
        ("mean_absolute_error", "yr", "pr", {}),
        ("mean_absolute_percentage_error", "yr", "pr", {}),
        ("mean_squared_log_error", "pos", "pos_p", {}),
        ("median_absolute_error", "yr", "pr", {}),
        ("max_error", "yr", "pr", {}),
        ("mean_pinball_loss", "yr", "pr", {"alpha": 0.9}),
        ("r2_score", "yr", "pr", {}),
        ("explained_variance_score", "yr", "pr", {}),
        ("mean_poisson_deviance", "pos", "pos_p", {}),
        ("mean_gamma_deviance", "pos", "pos_p", {}),
        ("mean_tweedie_deviance", "pos", "pos_p", {"power": 1.5}),
        ("d2_tweedie_score", "pos", "pos_p", {"power": 1.5}),
        ("d2_pinball_score", "yr", "pr", {}),
        ("d2_absolute_error_score", "yr", "pr", {}),
    ]
    for name, a, b, kw in regression:
        L.append((name, False,
                  lambda m, d, name=name, a=a, b=b, kw=kw: getattr(m, name)(d[a], d[b], **kw)))
    return L


def points_both_releases_have(curve):
    """The DET points scikit-learn 1.2 and 1.7 both return: the finite thresholds, of those
    with the fewest false positives only the lowest (1.7 keeps all of them after +inf)."""
    fpr, fnr, thresholds = (np.asarray(a) for a in curve)
    finite = np.isfinite(thresholds)
    fpr, fnr, thresholds = fpr[finite], fnr[finite], thresholds[finite]
    fewest = fpr == fpr.min()
    keep = ~fewest | (thresholds == thresholds[fewest].min())
    return fpr[keep], fnr[keep], thresholds[keep]


# Weighted quantiles of scikit-learn 1.9 (docs/conventions.md row 15), which 1.2 computes
# otherwise: with --weighted their values are checked by tests/python/test_sklearn_newest.py.
WEIGHTED_QUANTILES = {"median_absolute_error", "d2_pinball_score", "d2_absolute_error_score"}


def check(ours, theirs, name):
    if WEIGHTED and name in WEIGHTED_QUANTILES:
        return
    if isinstance(theirs, tuple):
        for x, y in zip(ours, theirs):
            check(x, y, name)
        return
    np.testing.assert_allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float),
                               rtol=1e-9, err_msg=name)


def prefix(d, m):
    """The first m samples / rows of every input."""
    return {key: v[:m] for key, v in d.items()}


def measure(name, call, d, size, repeat, budget, predicted=None):
    """(assay s, scikit-learn s, prefix length scikit-learn was timed on or None). predicted:
    scikit-learn's time extrapolated from a smaller size; when it exceeds the budget,
    scikit-learn runs only on a prefix (both results are checked there)."""
    mods = (Weighted(am, d["w"]), Weighted(skm, d["w"])) if WEIGHTED else (am, skm)
    ours = call(mods[0], d)
    ta = best_time(lambda: call(mods[0], d), repeat)
    if predicted is None or predicted * repeat <= budget:
        t0 = clock()
        theirs = call(mods[1], d)
        once = clock() - t0
        check(ours, theirs, name)
        if once * repeat <= budget:
            ts = min(once, best_time(lambda: call(mods[1], d), max(1, repeat - 1)))
            return ta, ts, None
        predicted = once
    # Time scikit-learn on a prefix small enough for the budget, scale linearly.
    m = max(100, int(size * budget / (predicted * repeat) / 4))
    part = prefix(d, m)
    mods = (Weighted(am, part["w"]), Weighted(skm, part["w"])) if WEIGHTED else (am, skm)
    check(call(mods[0], part), call(mods[1], part), name)
    ts = best_time(lambda: call(mods[1], part), max(1, repeat - 1)) * size / m
    return ta, ts, m


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", nargs="+", type=float, default=[100, 1e4, 1e6, 1e7])
    parser.add_argument("--max-matrix-rows", type=float, default=1e6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--budget", type=float, default=20.0)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--from-log", nargs="*", default=[])
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--weighted", action="store_true")
    parser.add_argument("--busy", type=int, default=0)
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "sklearn_metrics.md"))
    parser.add_argument("--update", default="")
    args = parser.parse_args()
    global K, WEIGHTED, clock
    K, WEIGHTED = args.classes, args.weighted
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    try:
        run(args)
    finally:
        for p in spinners:
            p.kill()


def run(args):
    rows_out = [row for log in args.from_log for row in read_log(log)]
    done = {(row[0], row[1]) for row in rows_out}
    warnings.simplefilter("ignore")
    for size in map(int, args.sizes):
        rows = min(size, int(args.max_matrix_rows))
        d = data(size, rows, np.random.default_rng(size))
        for name, matrix, call in workloads():
            if args.only and not any(o in name for o in args.only):
                continue
            n = rows if matrix else size
            if (name, n) in done:
                continue
            done.add((name, n))
            smaller = [row for row in rows_out if row[0] == name and row[1] < n]
            predicted = smaller[-1][4] * n / smaller[-1][1] if smaller else None
            ta, ts, scaled = measure(name, call, d, n, args.repeat, args.budget, predicted)
            rows_out.append((name, n, matrix, ta, ts, scaled))
            note = f" (scikit-learn scaled from n={scaled:,})" if scaled else ""
            print(f"{name:45s} n={n:>10,d}  assay {ta*1e3:10.3f} ms  sklearn {ts*1e3:10.3f} ms  "
                  f"x{ts/ta:7.1f}{note}", flush=True)
        if not args.update:
            write_table(rows_out, args)  # after each size, so an interrupted run keeps its rows
    if args.update:
        update_table(args.update, rows_out, args)


LINE = re.compile(r"^(?P<name>.+?)\s+n=\s*(?P<n>[\d,]+)\s+assay\s+(?P<ta>[\d.]+) ms\s+"
                  r"sklearn\s+(?P<ts>[\d.]+) ms\s+x\s*[\d.]+"
                  r"(?: \(scikit-learn scaled from n=(?P<m>[\d,]+)\))?$")


def read_log(path):
    """The rows (name, n, matrix, assay s, scikit-learn s, scaled-from) a run printed."""
    rows = []
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                scaled = int(m["m"].replace(",", "")) if m["m"] else None
                rows.append((m["name"], int(m["n"].replace(",", "")), None,
                             float(m["ta"]) / 1e3, float(m["ts"]) / 1e3, scaled))
    return rows


def speedup_table(rows):
    """Speed-up (scikit-learn time / assay time) per function and n; * = scikit-learn scaled
    from a prefix; matrix workloads stop growing at --max-matrix-rows."""
    sizes = sorted({n for _, n, *_ in rows})
    names = list(dict.fromkeys(name for name, *_ in rows))
    cell = {(name, n): f"{ts / ta:.1f}x" + ("*" if scaled else "")
            for name, n, _, ta, ts, scaled in rows}
    out = ["Speed-up over scikit-learn (* = scikit-learn timed on a prefix, scaled linearly; "
           f"n of matrix inputs is rows of {K} columns, at most 1e6):", "",
           "| function | " + " | ".join(f"n = {n:.0e}".replace("e+0", "e") for n in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    for name in names:
        mark = " (unweighted)" if WEIGHTED and not accepts_weights(name) else ""
        out.append(f"| `{name}`{mark} | " + " | ".join(cell.get((name, n), "") for n in sizes)
                   + " |")
    return out


def write_table(rows, args):
    lines = [
        "# scikit-learn's metrics: assay.metrics vs sklearn.metrics",
        "",
        f"scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs "
        f"(load average {os.getloadavg()[0]:.0f} when written"
        + (f", with {args.busy} processes spinning on the CPUs throughout" if args.busy else "")
        + "); times are "
        + ("wall-clock time (what the caller waits) " if args.clock == "wall" else
           "CPU time of the process (all threads) ")
        + f"best of {args.repeat} runs, short calls repeated for 0.2 s. "
        + ("Weighted: every function with a `sample_weight` gets the same weights in [0.5, 1.5) "
           "in both libraries; rows marked (unweighted) have no such argument. "
           if WEIGHTED else "Unweighted. ")
        + f"Labels: int64 with {K} classes "
        f"(or binary); scores rounded to 3 decimals (ties); matrix inputs have {K} columns and "
        "n rows. Every result equals scikit-learn's (rtol 1e-9). Generated by "
        "bench/bench_sklearn_metrics.py.",
        "",
    ]
    lines += speedup_table(rows)
    lines += ["", "All times:", "",
              f"| function | n | assay ({args.clock} ms) | scikit-learn ({args.clock} ms) | "
              "speed-up |",
              "|---|---:|---:|---:|---:|"]
    for name, n, _, ta, ts, scaled in rows:
        note = f" (scaled from n={scaled:,})" if scaled else ""
        lines.append(f"| `{name}` | {n:,} | {ta*1e3:.3f} | {ts*1e3:.3f}{note} | "
                     f"{ts/ta:.1f}x |")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


def update_table(path, rows, args):
    """Replaces the rows of the measured functions in a table write_table made (their speed-up
    cells and their All-times rows) and says so under the table's first paragraph."""
    lines = open(path).read().split("\n")
    header = next(line for line in lines if line.startswith("| function | n = "))
    sizes = [int(float(c.strip()[4:])) for c in header.strip().strip("|").split("|")[1:]]
    measured = {(name, n): (ta, ts, scaled) for name, n, _, ta, ts, scaled in rows}
    names = sorted({name for name, _ in measured})
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = cells[0].split("`")[1] if cells[0].startswith("`") else None
        if name not in names:
            continue
        if len(cells) == len(sizes) + 1:  # speed-up row
            for k, n in enumerate(sizes):
                if (name, n) in measured:
                    ta, ts, scaled = measured[(name, n)]
                    cells[k + 1] = f"{ts / ta:.1f}x" + ("*" if scaled else "")
            lines[i] = "| " + " | ".join(cells) + " |"
        elif len(cells) == 5 and (name, int(cells[1].replace(",", ""))) in measured:
            n = int(cells[1].replace(",", ""))
            ta, ts, scaled = measured[(name, n)]
            note = f" (scaled from n={scaled:,})" if scaled else ""
            lines[i] = (f"| {cells[0]} | {n:,} | {ta*1e3:.3f} | {ts*1e3:.3f}{note} | "
                        f"{ts/ta:.1f}x |")
    when = time.strftime("%Y-%m-%d")
    lines.insert(3, f"Rows of {', '.join(f'`{n}`' for n in names)} measured again on {when} "
                 f"(load average {os.getloadavg()[0]:.0f}"
                 + (f", {args.busy} processes spinning" if args.busy else "")
                 + "), after a change to them; the other rows are from the run above.")
    lines.insert(4, "")
    with open(path, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
