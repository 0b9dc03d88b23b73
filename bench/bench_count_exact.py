"""count (exact): assay's projected model counter vs sharpSAT and GANAK, in one run.

    /usr/bin/python3 bench/bench_count_exact.py [--build build] [--timeout 300] [--quick]

assay: bench/count_exact_driver.cpp (built here: cmake --build BUILD --target bench_count_exact),
which reads a DIMACS file and runs count_exact with its defaults. Peers (not Debian packages, so
optional): sharpSAT (#SAT without projection; github.com/marcthurley/sharpSAT) and GANAK
(projected; github.com/meelgroup/ganak at commit 66214fa1, its 2021 release, which builds with
GMP alone), each built with its own CMake Release settings; point ASSAY_SHARPSAT and ASSAY_GANAK
at the binaries. GANAK's cache is keyed by 64-bit hashes (exact with high probability), its
default. Every tool runs as its own process on the same file; the time is the process's CPU
time (user + system, reading the file included; all three are single-threaded), best of
--repeats; memory is its peak resident set (both from /usr/bin/time). The time limit is on the
wall clock. Counts must agree wherever two tools finish.

Instances, generated here (seeded):
- graph properties of n-node directed graphs, x[i*n+j] = edge i->j, every variable counted:
  Transitive, PreOrder, StrictOrder (PartialOrder has the same count), Equivalence; 5-7 nodes;
- decision-tree metrics as in QuantifyML: a scikit-learn tree (random_state 0) trained on 4000
  seeded graphs labelled Transitive; TP = tree & T, FN = not tree & T with T as its clauses;
  FP = tree & not T and TN = not tree & not T with "not T" as one-way definitions of violated
  triples t => (i->j & j->k & not i->k) and one clause over the t (projected on the edges);
  5 and 6 nodes;
- random 3-CNF with 60-100 variables at clause/variable ratios 2.5 and 3 (and 2 at 60), with
  every variable counted and projected on its first half.
Prints a table and writes bench/results/count_exact.md.
"""
import argparse
import json
import os
import platform
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# ------------------------------------------------------------------ instances

def write_cnf(path, n_vars, clauses, projection=None):
    with open(path, "w") as f:
        f.write(f"p cnf {n_vars} {len(clauses)}\n")
        for c in clauses:
            f.write(" ".join(map(str, c)) + " 0\n")
        if projection is not None:
            f.write("c ind " + " ".join(map(str, projection)) + " 0\n")


def triples(n):
    """(i, j, k) whose transitivity clause is not a tautology."""
    return [(i, j, k) for i in range(n) for j in range(n) for k in range(n)
            if i != j and j != k]


def graph_clauses(n, prop):
    x = lambda i, j: i * n + j + 1  # noqa: E731
    cl = []
    for i in range(n):
        if prop in ("preorder", "equivalence"):
            cl.append([x(i, i)])
        if prop == "strictorder":
            cl.append([-x(i, i)])
    for i, j, k in triples(n):
        cl.append([-x(i, j), -x(j, k), x(i, k)])
    if prop == "equivalence":
        for i in range(n):
            for j in range(i + 1, n):
                cl += [[-x(i, j), x(j, i)], [x(i, j), -x(j, i)]]
    return cl


def train_tree(n, seed=0):
    """Leaves (path literals, class) of a tree trained to recognise transitive relations."""
    import numpy as np
    from sklearn.tree import DecisionTreeClassifier
    rng = np.random.default_rng(seed)

    def closure(m):
        for k in range(n):
            m = m | (m[:, [k]] & m[[k], :])
        return m

    def transitive(m):
        return all(not (m[i, j] and m[j, k]) or m[i, k] for i, j, k in triples(n))

    xs, ys = [], []
    for t in range(4000):
        if t % 2 == 0:
            m = closure(rng.random((n, n)) < rng.uniform(0.05, 0.3))
        else:
            m = rng.random((n, n)) < rng.uniform(0.1, 0.6)
        xs.append(m.reshape(-1).astype(int))
        ys.append(int(transitive(m)))
    tree = DecisionTreeClassifier(random_state=0).fit(np.array(xs), np.array(ys)).tree_
    leaves = []

    def walk(node, path):
        if tree.children_left[node] == -1:
            leaves.append((path, int(np.argmax(tree.value[node][0]))))
            return
        f = int(tree.feature[node])
        walk(tree.children_left[node], path + [-(f + 1)])  # x_f <= 0.5: the edge is absent
        walk(tree.children_right[node], path + [f + 1])

    walk(0, [])
    return leaves


def tree_metric_instances(n, directory):
    leaves = train_tree(n)
    x = lambda i, j: i * n + j + 1  # noqa: E731
    edges = list(range(1, n * n + 1))
    out = []
    for metric, tree_class, positive in (("TP", 1, True), ("FN", 0, True), ("FP", 1, False),
                                         ("TN", 0, False)):
        cl = [[-l for l in path] for path, c in leaves if c != tree_class]
        n_vars = n * n
        if positive:
            cl += graph_clauses(n, "transitive")
        else:
            ts = []
            for i, j, k in triples(n):
                n_vars += 1
                ts.append(n_vars)
                cl += [[-n_vars, x(i, j)], [-n_vars, x(j, k)], [-n_vars, -x(i, k)]]
            cl.append(ts)
        path = os.path.join(directory, f"tree{n}_{metric}.cnf")
        write_cnf(path, n_vars, cl, edges)
        out.append((f"tree {n} nodes, {metric}", path, n_vars, len(cl), n * n,
                    positive))  # positive: no auxiliary variables
    return out, len(leaves)


def random_3cnf(n, ratio, seed):
    rng = random.Random(seed)
    cl = []
    for _ in range(int(ratio * n)):
        vs = rng.sample(range(1, n + 1), 3)
        cl.append([v if rng.random() < 0.5 else -v for v in vs])
    return cl


def instances(directory, quick):
    rows = []
    for n in (5, 6) if quick else (5, 6, 7):
        for prop in ("transitive", "preorder", "strictorder", "equivalence"):
            cl = graph_clauses(n, prop)
            path = os.path.join(directory, f"{prop}{n}.cnf")
            write_cnf(path, n * n, cl)
            rows.append((f"{prop} {n} nodes", path, n * n, len(cl), n * n, True))
    notes = []
    for n in (5, 6):
        tree_rows, n_leaves = tree_metric_instances(n, directory)
        rows += tree_rows
        notes.append(f"the {n}-node tree has {n_leaves} leaves")
    sizes = ((60, 2.5), (60, 3.0)) if quick else ((60, 2.0), (60, 2.5), (60, 3.0), (80, 2.5),
                                                 (80, 3.0), (100, 2.5), (100, 3.0))
    for n, ratio in sizes:
        cl = random_3cnf(n, ratio, seed=1000 * n + int(10 * ratio))
        path = os.path.join(directory, f"r{n}_{ratio}.cnf")
        write_cnf(path, n, cl)
        rows.append((f"random 3-CNF n={n} r={ratio}", path, n, len(cl), n, True))
        half = list(range(1, n // 2 + 1))
        path = os.path.join(directory, f"r{n}_{ratio}_p.cnf")
        write_cnf(path, n, cl, half)
        rows.append((f"random 3-CNF n={n} r={ratio}, {n // 2} projected", path, n, len(cl),
                     n // 2, False))
    return rows, notes


def extra_row(path):
    """A row for a DIMACS file given on the command line (its projection from `c p show` or
    `c ind` lines, as the tools read them)."""
    n_vars = n_clauses = 0
    projected = set()
    with open(path) as f:
        for line in f:
            if line.startswith("p cnf"):
                n_vars, n_clauses = int(line.split()[2]), int(line.split()[3])
            elif line.startswith(("c p show", "c ind")):
                projected.update(int(t) for t in line.split()[2:] if t != "0" and t != "show")
    counted = len(projected) if projected else n_vars
    return (os.path.basename(path), os.path.abspath(path), n_vars, n_clauses, counted,
            not projected)


# ------------------------------------------------------------------ running the tools

def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(cmd, timeout, workdir):
    """(CPU seconds, peak RSS MiB, stdout) or (None, None, reason). CPU = user + system time of
    the process (on a shared machine the wall time says more about the neighbours), from this
    process's children's usage; the peak resident set from /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r") as rss_file:
        before = children_cpu()
        full = ["/usr/bin/time", "-f", "%M", "-o", rss_file.name] + cmd
        # its own process group, so that a timeout stops the tool and not only /usr/bin/time
        proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, cwd=workdir, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None, None, f"> {timeout:g} s"
        if proc.returncode != 0:
            return None, None, f"exit {proc.returncode}"
        cpu = children_cpu() - before
        rss = rss_file.read().split()[-1]
    return max(cpu, 1e-4), int(rss) / 1024, out


def run_assay(driver, path, timeout):
    cpu, rss, out = run([driver, path, str(timeout)], timeout + 30, os.path.dirname(path))
    if cpu is None:
        return None, out, None
    r = json.loads(out)
    r["rss_mib"] = rss
    if not r["complete"]:
        return None, f"> {timeout:g} s", r
    return cpu, r["count"], r


def run_peer(binary, path, timeout):
    cpu, _, out = run([binary, path], timeout, os.path.dirname(path))  # sharpSAT writes data.out
    if cpu is None:
        return None, out
    m = re.search(r"^s p?mc (\d+)", out, re.M) or re.search(r"# solutions\s*\n\s*(\d+)", out)
    if not m:
        return None, "no count"
    return cpu, m.group(1)


def best_of(repeats, fn):
    best = None
    for _ in range(repeats):
        r = fn()
        if r[0] is None:
            return r
        if best is None or r[0] < best[0]:
            best = r
    return best


def fmt_time(t, text):
    return (f"{t:.3f}" if t >= 0.01 else f"{t:.4f}") if t is not None else text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="fewer, smaller instances")
    ap.add_argument("--cnf", nargs="*", default=[],
                    help="more DIMACS files to time (e.g. from `assay encode`), as extra rows")
    args = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("bench_count_exact: /usr/bin/time is missing (Debian package: time)")
    subprocess.run(["cmake", "--build", args.build, "--target", "bench_count_exact"], check=True,
                   stdout=subprocess.DEVNULL)
    driver = os.path.join(args.build, "bench_count_exact")
    sharpsat = os.environ.get("ASSAY_SHARPSAT")
    ganak = os.environ.get("ASSAY_GANAK")
    header = ("| instance | vars | clauses | counted | count | assay s | sharpSAT s | GANAK s "
              "| assay decisions | assay cache hits | assay MiB |")
    lines = [header, "|" + "---|" * 11]
    print(header)
    with tempfile.TemporaryDirectory() as d:
        rows, notes = instances(d, args.quick)
        rows += [extra_row(path) for path in args.cnf]
        for name, path, n_vars, n_clauses, n_counted, plain in rows:
            t, count, stats = best_of(args.repeats, lambda: run_assay(driver, path, args.timeout))
            peers = []
            for binary, usable in ((sharpsat, plain), (ganak, True)):
                if not binary:
                    peers.append("not run")
                    continue
                if not usable:
                    peers.append("no projection")
                    continue
                pt, pcount = best_of(args.repeats, lambda: run_peer(binary, path, args.timeout))
                if pt is not None and t is not None and pcount != count:
                    sys.exit(f"{name}: assay counts {count}, the peer {binary} {pcount}")
                peers.append(fmt_time(pt, pcount) +
                             (f" ({pt / t:.1f}x)" if pt is not None and t else ""))
                if t is None and pt is not None:
                    count = pcount
            shown = count if count and count[0].isdigit() else "-"
            rss = f"{stats['rss_mib']:.0f}" if stats and stats.get("rss_mib") else "-"
            row = (f"| {name} | {n_vars} | {n_clauses} | {n_counted} | {shown} | "
                   f"{fmt_time(t, count if t is None else '')} | {peers[0]} | {peers[1]} | "
                   f"{stats['decisions'] if stats else '-'} | "
                   f"{stats['cache_hits'] if stats else '-'} | {rss} |")
            print(row, flush=True)
            lines.append(row)
    cpu = platform.processor() or platform.machine()
    text = ["# count: exact projected model counting", "",
            f"Generated by bench/bench_count_exact.py on {cpu}, {os.cpu_count()} cores; "
            "CPU seconds per process (file reading included), all single-threaded; "
            "(Nx) = the peer's time over assay's. " + "; ".join(notes) + ".", ""] + lines
    out = os.path.join(HERE, "results", "count_exact.md")
    with open(out, "w") as f:
        f.write("\n".join(text) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
