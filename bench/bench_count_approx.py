"""Approximate counting: is the (epsilon, delta) guarantee met, measured over seeded runs?

    /usr/bin/python3 bench/bench_count_approx.py [--build build] [--seeds 100] [--only NAME,...]

For each instance with a count known by construction or by brute force, runs assay's
approximate counter (ApproxMC6 on CryptoMiniSat; epsilon 0.8, delta 0.2 unless given) with seeds
1..N through build/bench_count_approx_driver, and records: the share of runs whose estimate lies
within [count/(1+eps), count*(1+eps)], the median ratio estimate/count, the worst ratio (the run
farthest from 1 on a log scale), and the time per run (single thread). Instances:
- graph properties on n nodes (x[i*n+j] = edge i->j) written as CNF: Transitive (5 and 6 nodes,
  154303 and 9415189 relations), PreOrder and StrictOrder on 6 nodes (209527, 130023),
  Connex (3^15) and Antisymmetric on 10 nodes (100 projected variables, 2^10 * 3^45);
- 100 free variables times 10 "at most one of three" blocks: 2^100 * 4^10 = 2^120 (130 projected);
- "at most 20 of 100" with Sinz's sequential counter: 100 projected variables, ~2,000
  unprojected ones with several extensions each; count sum_{i<=20} C(100, i);
- a random system of 150 XORs over 200 variables (native XOR lines): 2^(200 - rank);
- random 3-CNFs over 22 variables, and over 24 with 20 projected: counted by brute force here.
There is no Debian package of ApproxMC (or of any other counter) to run beside it; the paper
(source of the method) reports ApproxMC at 800-4000 s per ACAS Xu property.
Prints a table and writes bench/results/count_approx.md.
"""
import argparse
import concurrent.futures
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- instances: (clauses, xors, n_vars, projection or None) and their counts

def dimacs(n_vars, clauses, xors=(), projection=None):
    lines = [f"p cnf {n_vars} {len(clauses)}"]
    lines += [" ".join(map(str, c)) + " 0" for c in clauses]
    for vars_, rhs in xors:
        first = vars_[0] if rhs else -vars_[0]  # a negated literal flips the parity
        lines.append("x" + " ".join(map(str, [first] + list(vars_[1:]))) + " 0")
    if projection is not None:
        lines.append("c p show " + " ".join(map(str, projection)) + " 0")
    return "\n".join(lines) + "\n"


def edge(n, i, j):
    return i * n + j + 1


def transitive(n):
    return [[-edge(n, i, j), -edge(n, j, k), edge(n, i, k)]
            for i in range(n) for j in range(n) for k in range(n)]


def graph_instance(n, parts):
    clauses = []
    for part in parts:
        if part == "trans":
            clauses += transitive(n)
        elif part == "refl":
            clauses += [[edge(n, i, i)] for i in range(n)]
        elif part == "irrefl":
            clauses += [[-edge(n, i, i)] for i in range(n)]
        elif part == "antisym":
            clauses += [[-edge(n, i, j), -edge(n, j, i)]
                        for i in range(n) for j in range(i + 1, n)]
        elif part == "connex":
            clauses += [[edge(n, i, j), edge(n, j, i)] for i in range(n) for j in range(i, n)]
    return dimacs(n * n, clauses)


def free_and_blocks(k, blocks):
    clauses, v = [], k
    for _ in range(blocks):
        x, y, z = v + 1, v + 2, v + 3
        clauses += [[-x, -y], [-x, -z], [-y, -z]]
        v += 3
    return dimacs(v, clauses), 2 ** k * 4 ** blocks


def at_most_sequential(n, k):
    """Sinz's sequential counter: s[i][j] = "at least j+1 of x_1..x_i" (one direction only, so
    the unprojected s variables have several extensions for most inputs)."""
    def s(i, j):
        return n + i * k + j + 1
    clauses = [[-1, s(0, 0)]] + [[-s(0, j)] for j in range(1, k)]
    for i in range(1, n - 1):
        x = i + 1
        clauses += [[-x, s(i, 0)], [-s(i - 1, 0), s(i, 0)]]
        for j in range(1, k):
            clauses += [[-x, -s(i - 1, j - 1), s(i, j)], [-s(i - 1, j), s(i, j)]]
        clauses.append([-x, -s(i - 1, k - 1)])
    clauses.append([-n, -s(n - 2, k - 1)])
    count = sum(math.comb(n, i) for i in range(k + 1))
    return dimacs(n + (n - 1) * k, clauses, projection=range(1, n + 1)), count


def xor_system(n, rows, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, size=(rows, n), dtype=np.uint8)
    b = rng.integers(0, 2, size=rows, dtype=np.uint8)
    m = np.concatenate([a, b[:, None]], axis=1)  # rank over GF(2), and consistency
    rank, row = 0, 0
    for col in range(n):
        pivot = next((r for r in range(row, rows) if m[r, col]), None)
        if pivot is None:
            continue
        m[[row, pivot]] = m[[pivot, row]]
        for r in range(rows):
            if r != row and m[r, col]:
                m[r] ^= m[row]
        row += 1
    rank = row
    assert not any(m[r, n] for r in range(rank, rows)), "inconsistent system"
    xors = [([j + 1 for j in range(n) if a[i, j]], bool(b[i])) for i in range(rows)]
    return dimacs(n, [], xors), 2 ** (n - rank)


def random_3cnf(n, m, seed):
    rng = np.random.default_rng(seed)
    clauses = []
    for _ in range(m):
        vs = rng.choice(n, size=3, replace=False) + 1
        clauses.append([int(v) if rng.integers(2) else -int(v) for v in vs])
    return clauses


def brute_force(n, clauses, projected):
    """Projected model count over all 2^n assignments, in chunks of 2^20."""
    seen = set()
    chunk = 1 << 20
    for start in range(0, 1 << n, chunk):
        a = np.arange(start, min(start + chunk, 1 << n), dtype=np.uint64)
        ok = np.ones(len(a), dtype=bool)
        for c in clauses:
            sat = np.zeros(len(a), dtype=bool)
            for lit in c:
                bit = ((a >> np.uint64(abs(lit) - 1)) & np.uint64(1)).astype(bool)
                sat |= bit if lit > 0 else ~bit
            ok &= sat
        mask = np.uint64(sum(1 << (v - 1) for v in projected))
        seen.update(np.unique(a[ok] & mask).tolist())
    return len(seen)


def instances(seed_base=20240):
    """(name, DIMACS text, count, projected variables), for the seeded accuracy table."""
    yield "Transitive, 5 nodes", graph_instance(5, ["trans"]), 154303, 25
    yield "Transitive, 6 nodes", graph_instance(6, ["trans"]), 9415189, 36
    yield "PreOrder, 6 nodes", graph_instance(6, ["refl", "trans"]), 209527, 36
    yield "StrictOrder, 6 nodes", graph_instance(6, ["irrefl", "trans"]), 130023, 36
    yield "Connex, 6 nodes", graph_instance(6, ["connex"]), 3 ** 15, 36
    yield "Antisymmetric, 6 nodes", graph_instance(6, ["antisym"]), 2 ** 6 * 3 ** 15, 36
    clauses = random_3cnf(22, 66, seed_base + 1)
    yield ("random 3-CNF, 22 variables, 66 clauses", dimacs(22, clauses),
           brute_force(22, clauses, range(1, 23)), 22)
    clauses = random_3cnf(24, 60, seed_base + 2)
    yield ("random 3-CNF, 24 variables (20 projected)",
           dimacs(24, clauses, projection=range(1, 21)),
           brute_force(24, clauses, range(1, 21)), 20)
    text, count = at_most_sequential(30, 5)
    yield "at most 5 of 30 (sequential counter, 116 unprojected)", text, count, 30
    text, count = free_and_blocks(100, 10)
    yield "100 free x 10 at-most-one-of-3 blocks", text, count, 130
    text, count = xor_system(200, 150, seed_base)
    yield "150 random XORs over 200 variables", text, count, 200


def hard_instances(seed_base=20240):
    """Instances with 100+ projected variables and little freedom, timed over a few seeds."""
    yield "Antisymmetric, 10 nodes", graph_instance(10, ["antisym"]), 2 ** 10 * 3 ** 45, 100
    text, count = at_most_sequential(100, 20)
    yield "at most 20 of 100 (sequential counter, 1,980 unprojected)", text, count, 100
    text, count = free_and_blocks(300, 40)
    yield "300 free x 40 at-most-one-of-3 blocks", text, count, 420
    text, count = xor_system(500, 400, seed_base + 3)
    yield "400 random XORs over 500 variables", text, count, 500


# ---- runs and summary

def run_driver(driver, path, seeds, epsilon, delta, time_limit=0.0):
    out = subprocess.run([driver, path, "--seeds", f"1:{seeds}", "--epsilon", str(epsilon),
                          "--delta", str(delta), "--threads", "1", "--time-limit",
                          str(time_limit)], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def summarise(name, count, n_projected, runs, epsilon):
    done = [r for r in runs if r["complete"]]
    ratios = [int(r["estimate"]) / count for r in done] or [math.nan]
    within = sum(1 / (1 + epsilon) <= q <= 1 + epsilon for q in ratios)
    within_25 = sum(1 / 1.25 <= q <= 1.25 for q in ratios)
    worst = max(ratios, key=lambda q: abs(math.log(q)) if q > 0 else math.inf)
    times = [r["seconds"] for r in runs]
    cpu = [r["cpu_seconds"] for r in runs]
    return {
        "name": name, "count": count, "n_projected": n_projected, "runs": len(runs),
        "complete": len(done), "exact": sum(r["exact"] for r in runs),
        "within": within, "within_25": within_25, "median_ratio": statistics.median(ratios), "worst_ratio": worst,
        "min_ratio": min(ratios), "max_ratio": max(ratios),
        "median_s": statistics.median(times), "max_s": max(times),
        "median_cpu": statistics.median(cpu), "max_cpu": max(cpu),
        "sat_calls": statistics.median(r["sat_calls"] for r in runs),
        "hashes": statistics.median(statistics.median(r["hashes"]) for r in done)
        if done and not done[0]["exact"] else 0,
    }


def count_text(c):
    return f"{c:,}" if c < 10 ** 9 else f"{c:.3e}"


def accuracy_table(rows, epsilon, delta, seeds):
    lines = [
        f"Approximate counts (epsilon = {epsilon}, delta = {delta}: t = 3 measurements, cells of "
        f"at most 72 models), seeds 1..{seeds}, one thread per run. \"within\": runs whose "
        f"estimate lies in [count/(1+eps), count*(1+eps)] (the guarantee asks for at least "
        f"{1 - delta:.0%}); ratios are estimate / count; \"worst\" is the run farthest from 1. "
        f"CPU: process CPU time per run (the machine is shared, so wall times include waiting "
        f"for a core).",
        "",
        "| instance | projected vars | count | within | within 1.25× | median ratio | "
        "worst ratio | range | median CPU | max CPU | median wall | median m | SAT calls |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['n_projected']} | {count_text(r['count'])} | "
            f"{r['within']}/{r['runs']} | {r['within_25']}/{r['runs']} | "
            f"{r['median_ratio']:.3f} | {r['worst_ratio']:.3f} | "
            f"{r['min_ratio']:.3f}–{r['max_ratio']:.3f} | {r['median_cpu']:.2f} s | "
            f"{r['max_cpu']:.2f} s | {r['median_s']:.2f} s | {r['hashes']:g} | "
            f"{r['sat_calls']:g} |")
    total = sum(r["runs"] for r in rows)
    within = sum(r["within"] for r in rows)
    lines += ["", f"All instances: {within}/{total} runs within the factor "
                  f"({within / total:.1%}); runs completed: "
                  f"{sum(r['complete'] for r in rows)}/{total}."]
    return "\n".join(lines)


def timing_table(rows, seeds, time_limit):
    lines = [
        f"Harder instances with 100+ projected variables, seeds 1..{seeds}, one thread, "
        f"time limit {time_limit:g} s per run.",
        "",
        "| instance | projected vars | count | completed | within | ratios | median CPU | "
        "max CPU | median wall | median m | SAT calls |",
        "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratios = (f"{r['min_ratio']:.3f}–{r['max_ratio']:.3f}" if r["complete"] else "–")
        lines.append(
            f"| {r['name']} | {r['n_projected']} | {count_text(r['count'])} | "
            f"{r['complete']}/{r['runs']} | {r['within']}/{r['complete']} | {ratios} | "
            f"{r['median_cpu']:.1f} s | {r['max_cpu']:.1f} s | {r['median_s']:.1f} s | "
            f"{r['hashes']:g} | {r['sat_calls']:g} |")
    return "\n".join(lines)


def run_all(driver, tmp, generator, seeds, args, time_limit=0.0):
    """Runs every selected instance (args.jobs at a time); records go to args.json as each
    instance finishes, so an interrupted bench keeps what it measured."""
    todo = []
    for k, (name, text, count, n_projected) in enumerate(generator):
        if args.only and not any(s in name for s in args.only.split(",")):
            continue
        path = os.path.join(tmp, f"f{len(args.records)}_{k}.cnf")
        with open(path, "w") as f:
            f.write(text)
        todo.append((name, path, count, n_projected))

    def one(item):
        name, path, count, n_projected = item
        if name in args.previous_runs:  # --from-json: tables from a previous run's records
            return item, args.previous_runs[name]
        return item, run_driver(driver, path, seeds, args.epsilon, args.delta, time_limit)

    rows = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for (name, _, count, n_projected), runs in pool.map(one, todo):
            args.records[name] = runs
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(args.records, f)
            row = summarise(name, count, n_projected, runs, args.epsilon)
            rows[name] = row
            print(f"{name}: {row['complete']}/{row['runs']} complete, {row['within']} within, "
                  f"median ratio {row['median_ratio']:.3f}, worst {row['worst_ratio']:.3f}, "
                  f"median {row['median_cpu']:.2f} s CPU, {row['median_s']:.2f} s wall",
                  flush=True)
    return [rows[name] for name, *_ in todo]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--hard-seeds", type=int, default=1)
    ap.add_argument("--hard-time-limit", type=float, default=2400)
    ap.add_argument("--jobs", type=int, default=1, help="instances run side by side")
    ap.add_argument("--epsilon", type=float, default=0.8)
    ap.add_argument("--delta", type=float, default=0.2)
    ap.add_argument("--only", default="", help="comma-separated substrings of instance names")
    ap.add_argument("--skip-hard", action="store_true")
    ap.add_argument("--json", default="", help="also write every run to this file")
    ap.add_argument("--from-json", default="",
                    help="take the runs of the instances recorded in this file (from --json)")
    args = ap.parse_args()
    args.previous_runs, args.records = {}, {}
    if args.from_json:
        with open(args.from_json) as f:
            args.previous_runs = json.load(f)
    driver = os.path.join(args.build, "bench_count_approx_driver")
    if not os.path.exists(driver):
        sys.exit(f"{driver} is missing: build it (cmake --build build --target "
                 "bench_count_approx_driver)")
    with tempfile.TemporaryDirectory() as tmp:
        rows = run_all(driver, tmp, instances(), args.seeds, args)
        text = accuracy_table(rows, args.epsilon, args.delta, args.seeds) if rows else ""
        if not args.skip_hard:
            hard = run_all(driver, tmp, hard_instances(), args.hard_seeds, args,
                           args.hard_time_limit)
            if hard:
                text += "\n\n" + timing_table(hard, args.hard_seeds, args.hard_time_limit)
    print(text)
    if not args.only:
        os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
        with open(os.path.join(HERE, "results", "count_approx.md"), "w") as f:
            f.write("# Approximate counting\n\n" + text + "\n")


if __name__ == "__main__":
    main()
