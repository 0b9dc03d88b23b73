#!/usr/bin/env python3
"""The CNF route of assay count (QuantifyML's method) next to QuantifyML's own figures.

For decision trees trained on relational graph properties (examples/count/graph_learnability.py's
data) on n = 4, 5, 6 nodes (and attempts on 7, 9, 10): the time of `method="exact-cnf"` per
property (three CNF counts: TP, #truth, #predicted), checked against the structural count, and
the CNF size of the TP query next to QuantifyML's CBMC encoding (~2,300 variables and ~12,600
clauses on 4 nodes; projMC timed out at 5000 s on 6 nodes). Approximate counting (ApproxMC on
CryptoMiniSat) at epsilon = 0.8, delta = 0.2 on queries with 100+ projected variables: time and
the ratio to the exact count where it is known.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_count_cnf.py [--nodes 4,5,6] [--quick]
Writes bench/results/count_cnf.md. With --circuits: the exact counter's circuit route against
its search on the encoder's circuits (an MLP on 4-node graphs, forests on 5-node graphs), per
property, into bench/results/count_cnf_circuits.md.
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np
from sklearn.tree import DecisionTreeClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "examples", "count"))
import graph_learnability as gl  # noqa: E402  (the same data as docs/count_graphs.md)

import assay.count as count  # noqa: E402
import assay.models as models  # noqa: E402

QUANTIFYML_4NODE = (2300, 12600)  # variables, clauses of its CBMC CNF for a 4-node tree


def graph_spec(n):
    path = os.path.join(ROOT, "examples", "count", f"graph{n}.spec")
    if os.path.exists(path):
        return open(path).read()
    text = open(os.path.join(ROOT, "examples", "count", "graph4.spec")).read()
    return text.replace("const n = 4;", f"const n = {n};")


def tree_for(name, n, seed):
    rng = np.random.default_rng(seed)
    X, y = gl.dataset(name, n, rng)
    return models.from_sklearn(DecisionTreeClassifier(random_state=0).fit(X, y))


def exact_row(name, n, time_limit):
    model = tree_for(name, n, 1000 * n + gl.PROPERTIES.index(name))
    spec = graph_spec(n)
    e = count.encode(model, spec, name, query="tp")
    t0 = time.perf_counter()
    r = count.count(model, spec, name, method="exact-cnf", time_limit=time_limit)
    seconds = time.perf_counter() - t0
    lab = r["labels"][1]
    g = lab["guarantee"]
    status = "exact" if g["exact"] else "bounds" if g["bounded"] else "approx"
    check = ""
    if n <= 6 and g["exact"]:
        s = count.count(model, spec, name)["labels"][1]
        check = "=" if all(s[k] == lab[k] for k in ("tp", "fp", "tn", "fn")) else "MISMATCH"
        if check == "MISMATCH":
            sys.exit(f"MISMATCH n={n} {name}: {lab} vs structural {s}")
    return (name, e["variables"], e["clauses"], seconds, status, lab["tp"], lab["fp"], check)


def approx_rows(nodes, seeds):
    rows = []
    for n in nodes:
        spec = graph_spec(n)
        for name in ("Transitive", "PartialOrder", "Connex"):
            model = tree_for(name, n, 1000 * n + gl.PROPERTIES.index(name))
            for query in ("tp", "fp"):
                path = _write(count.encode(model, spec, name, query=query))
                t0 = time.perf_counter()
                exact = count.count_cnf(path, method="exact-cnf", time_limit=60)
                exact_seconds = time.perf_counter() - t0
                truth = exact["count"] if exact["guarantee"]["exact"] else None
                for seed in range(seeds):
                    t0 = time.perf_counter()
                    r = count.count_cnf(path, method="approx", seed=seed)
                    sec = time.perf_counter() - t0
                    ratio = r["count"] / truth if truth else float("nan")
                    rows.append((n, name, query, r["projected"], seed, sec, r["count"], truth,
                                 ratio, exact_seconds, r["guarantee"]["exact"]))
                    print(f"  approx n={n} {name} {query} seed={seed}: {r['count']} "
                          f"({sec:.2f} s) exact {truth} ({exact_seconds:.2f} s)", flush=True)
    return rows


_TMP = os.path.join(os.environ.get("TMPDIR", "/tmp"), "assay_bench_count_cnf.cnf")


def circuit_model(kind, name, n):
    """The estimators of tests/python/test_count_cnf.py on graph_learnability's data: an MLP with
    8 hidden ReLUs on 4 nodes, a forest of 4 trees of depth 5 on 5 nodes."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neural_network import MLPClassifier
    if kind == "network":
        X, y = gl.dataset(name, n, np.random.default_rng(gl.PROPERTIES.index(name)), size=600)
        est = MLPClassifier(hidden_layer_sizes=(8,), max_iter=60, random_state=0)
    else:
        X, y = gl.dataset(name, n, np.random.default_rng(5), size=1500)
        est = RandomForestClassifier(n_estimators=4, max_depth=5, random_state=0)
    return models.from_sklearn(est.fit(X, y))


def driver_seconds(driver, path, circuit_projected, time_limit):
    """The CPU time of bench_count_exact on one file (one thread, reading the file included),
    the search alone when circuit_projected is 0; whether the circuit route ran; the count."""
    import json
    import resource
    import subprocess
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([driver, path, str(time_limit), str(circuit_projected)], check=True,
                         capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    r = json.loads(out)
    return cpu if r["complete"] else None, r["circuit"], r["count"]


def circuit_rows(build, time_limit):
    """Per property: the search (the counter before the circuit route) and the circuit route on
    the three formulas exact-cnf counts (TP, truth, predicted), and assay count's wall time."""
    import subprocess
    subprocess.run(["cmake", "--build", build, "--target", "bench_count_exact"], check=True,
                   stdout=subprocess.DEVNULL)
    driver = os.path.join(build, "bench_count_exact")
    rows = []
    for kind, n in (("network", 4), ("forest", 5)):
        spec = graph_spec(n)
        for name in gl.PROPERTIES:
            model = circuit_model(kind, name, n)
            before = after = 0.0
            size = None
            for query in ("tp", "truth", "predicted"):
                e = count.encode(model, spec, name, query=query)
                size = size or (e["variables"], e["clauses"])
                path = _write(e)
                t_search, _, c_search = driver_seconds(driver, path, 0, time_limit)
                t_route, used, c_route = driver_seconds(driver, path, 30, time_limit)
                if t_search is not None and c_search != c_route:
                    sys.exit(f"{kind} {name} {query}: search {c_search}, circuit {c_route}")
                before = None if before is None or t_search is None else before + t_search
                after += t_route if used else float("nan")
            t0 = time.perf_counter()
            count.count(model, spec, name, method="exact-cnf")
            wall = time.perf_counter() - t0
            rows.append((kind, n, name, size[0], size[1], before, after, wall))
            print(f"  {kind} n={n} {name:15s} search {before} s, circuit {after:.3f} s, "
                  f"exact-cnf {wall:.3f} s", flush=True)
    return rows


def write_circuit_rows(rows, time_limit):
    out = ["# The exact counter's circuit route on the encoder's circuits", "",
           "Generated by `bench/bench_count_cnf.py --circuits`. Per property, the three formulas "
           "`--method exact-cnf` counts (TP, truth, predicted; sizes of TP shown), timed by "
           "`bench_count_exact` on one thread (CPU seconds of the process): the search alone (the counter before the circuit "
           f"route; '> {time_limit:.0f} s' when a formula ran out), and the circuit route; then the "
           "wall time of `assay.count.count(..., method='exact-cnf')` (all cores: 2 here), which "
           "also settles the ambiguous inputs.", "",
           "| model | property | variables | clauses | search (s) | circuit route (s) | "
           "exact-cnf wall (s) |", "|---|---|---|---|---|---|---|"]
    for kind, n, name, v, c, before, after, wall in rows:
        model = "MLP 8 hidden, 4 nodes" if kind == "network" else "forest 4x5, 5 nodes"
        shown = f"{before:.2f}" if before is not None else f"> {time_limit:.0f}"
        out.append(f"| {model} | {name} | {v} | {c} | {shown} | {after:.3f} | {wall:.3f} |")
    text = "\n".join(out) + "\n"
    with open(os.path.join(HERE, "results", "count_cnf_circuits.md"), "w") as f:
        f.write(text)
    print(text)


def _write(e):
    with open(_TMP, "w") as f:
        f.write(e["dimacs"])
    return _TMP


def main():
    warnings.simplefilter("ignore")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", default="4,5,6,7")
    ap.add_argument("--big", default="9,10", help="node counts tried with a time limit")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--approx-seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="4 and 5 nodes only, 1 approx seed")
    ap.add_argument("--circuits", action="store_true",
                    help="only the circuit route's table (networks on 4 nodes, forests on 5)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    if args.circuits:
        write_circuit_rows(circuit_rows(args.build, args.time_limit), args.time_limit)
        return
    nodes = [4, 5] if args.quick else [int(v) for v in args.nodes.split(",")]
    big = [] if args.quick else [int(v) for v in args.big.split(",") if v]
    out = ["# CNF route: exact and approximate counting of decision trees on graph properties",
           "", "Generated by `bench/bench_count_cnf.py`. Per property: the CNF of the TP query "
           "(variables, clauses; QuantifyML's CBMC encoding of a 4-node tree has ~2,300 "
           "variables and ~12,600 clauses), the wall time of `assay count --method exact-cnf` "
           "(three counts: TP, #truth, #predicted), its status, and whether the four cells "
           "equal the structural count (=).", ""]
    for n in nodes + big:
        rows = []
        for name in gl.PROPERTIES:
            row = exact_row(name, n, args.time_limit)
            rows.append(row)
            print(f"  n={n} {name:15s} {row[1]} vars {row[2]} clauses {row[3]:.3f} s {row[4]} "
                  f"{row[7]}", flush=True)
        times = [r[3] for r in rows]
        out += [f"## {n} nodes ({n * n} inputs)", "",
                f"Slowest property {max(times):.2f} s, total {sum(times):.2f} s.", "",
                "| property | variables | clauses | exact-cnf (s) | status | TP | FP | = structural |",
                "|---|---|---|---|---|---|---|---|"]
        for name, v, c, sec, status, tp, fp, check in rows:
            out.append(f"| {name} | {v} | {c} | {sec:.3f} | {status} | {tp} | {fp} | {check} |")
        out.append("")
    seeds = 1 if args.quick else args.approx_seeds
    arows = approx_rows([10] if not args.quick else [5], seeds)
    out += ["## Approximate counting (epsilon 0.8, delta 0.2)", "",
            "| nodes | property | query | projected vars | seed | approx (s) | estimate | exact | "
            "ratio | exact (s) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for n, name, q, proj, seed, sec, est, truth, ratio, esec, was_exact in arows:
        out.append(f"| {n} | {name} | {q} | {proj} | {seed} | {sec:.2f} | {est}"
                   f"{' (exact)' if was_exact else ''} | {truth if truth is not None else '-'} | "
                   f"{ratio:.3f} | {esec:.2f} |")
    text = "\n".join(out) + "\n"
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "count_cnf.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
