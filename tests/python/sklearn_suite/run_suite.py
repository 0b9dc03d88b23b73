"""scikit-learn's own metric tests, run against assay.metrics.

Copies scikit-learn's installed test files (test_classification, test_ranking, test_common,
test_regression under sklearn/metrics/tests/) into a temporary folder, rewrites every
``from sklearn.metrics import a, b`` so that each name assay.metrics provides comes from assay
(the rest stays scikit-learn's), and ``from sklearn.exceptions import UndefinedMetricWarning`` so
that the warning class is assay's, then runs pytest there with scikit-learn's fixtures
(``-p sklearn.conftest``). Nothing of scikit-learn's is stored in this repository: the copies
are made at test time from the installed package.

    python3 tests/python/sklearn_suite/run_suite.py [--keep DIR] [pytest args...]

prints the failing test ids and the counts; tests/python/test_sklearn_suite.py runs it inside
`make test` and compares the failures with expected_failures.txt (the deliberate differences,
each documented in docs/conventions.md).
"""
import ast
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

FILES = ("test_classification.py", "test_ranking.py", "test_common.py", "test_regression.py")
HERE = os.path.dirname(os.path.abspath(__file__))


def sklearn_tests_dir():
    import sklearn.metrics
    return os.path.join(os.path.dirname(sklearn.metrics.__file__), "tests")


def _import_line(module, names):
    parts = [n if a is None else f"{n} as {a}" for n, a in names]
    return f"from {module} import {', '.join(parts)}"


def rewrite(source, provided):
    """Source with scikit-learn's metric imports replaced by assay's where assay provides the
    name. Returns (new source, sorted list of substituted names)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = []
    substituted = set()
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.module == "sklearn.metrics":
            ours = [(a.name, a.asname) for a in node.names if a.name in provided]
            theirs = [(a.name, a.asname) for a in node.names if a.name not in provided]
        elif node.module == "sklearn.exceptions":
            ours = [(a.name, a.asname) for a in node.names
                    if a.name == "UndefinedMetricWarning" and a.name in provided]
            theirs = [(a.name, a.asname) for a in node.names if (a.name, a.asname) not in ours]
        else:
            continue
        if not ours:
            continue
        substituted.update(n for n, _ in ours)
        new = []
        if theirs:
            new.append(_import_line(node.module, theirs))
        new.append(_import_line("assay.metrics", ours))
        edits.append((node.lineno - 1, node.end_lineno, "\n".join(new) + "\n"))
    for start, end, text in sorted(edits, reverse=True):
        lines[start:end] = [text]
    return "".join(lines), sorted(substituted)


def provided_names():
    import assay.metrics
    return {n for n in dir(assay.metrics) if not n.startswith("_")}


def prepare(folder):
    """Writes the rewritten copies into `folder`; returns {file: substituted names}."""
    provided = provided_names()
    src = sklearn_tests_dir()
    out = {}
    for name in FILES:
        with open(os.path.join(src, name), encoding="utf-8") as f:
            text, names = rewrite(f.read(), provided)
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
        out[name] = names
    with open(os.path.join(folder, "pytest.ini"), "w") as f:
        f.write("[pytest]\n")
    return out


def run(folder, extra_args=(), timeout=1800, files=FILES):
    """Runs pytest in `folder`; returns (outcomes {test id: passed|failed|error|skipped}, log)."""
    report = os.path.join(folder, "report.xml")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
           "sklearn.conftest", "-c", os.path.join(folder, "pytest.ini"), "--rootdir", folder,
           f"--junitxml={report}", "-o", "junit_family=xunit1", *extra_args,
           *[os.path.join(folder, f) for f in files]]
    import assay
    env = dict(os.environ)
    # The copies live elsewhere: make sure they import this assay, wherever it was found.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(assay.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in env.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=timeout,
                          env=env)
    outcomes = {}
    if os.path.exists(report):
        for case in ET.parse(report).getroot().iter("testcase"):
            module = case.get("file") or case.get("classname", "").rsplit(".", 1)[-1] + ".py"
            test_id = f"{os.path.basename(module)}::{case.get('name')}"
            state = "passed"
            for child in case:
                if child.tag in ("failure", "error", "skipped"):
                    state = {"failure": "failed"}.get(child.tag, child.tag)
                    break
            # A test failing in call and erroring in teardown appears twice: keep the worst.
            if outcomes.get(test_id) not in ("failed", "error"):
                outcomes[test_id] = state
    return outcomes, proc.stdout + proc.stderr


def expected_failures(name="expected_failures.txt"):
    """{test id: reason} from a list in this folder ("test id  # reason" per line)."""
    out = {}
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test_id, _, reason = line.partition("#")
            out[test_id.strip()] = reason.strip()
    return out


def main(argv):
    keep = None
    if argv[:1] == ["--keep"]:
        keep, argv = argv[1], argv[2:]
        os.makedirs(keep, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="assay-sklearn-suite-") as tmp:
        folder = keep or tmp
        substituted = prepare(folder)
        outcomes, log = run(folder, argv)
    failing = sorted(t for t, s in outcomes.items() if s in ("failed", "error"))
    for t in failing:
        print(t)
    for name, names in substituted.items():
        print(f"{name}: assay provides {len(names)} names: {' '.join(names)}", file=sys.stderr)
    counts = {s: sum(1 for v in outcomes.values() if v == s) for s in
              ("passed", "failed", "error", "skipped")}
    print(f"{len(outcomes)} tests: {counts}", file=sys.stderr)
    if not outcomes:
        print(log[-5000:], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
