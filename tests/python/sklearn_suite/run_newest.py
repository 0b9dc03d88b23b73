"""A newer scikit-learn's own metric tests, run against assay.metrics on the installed
scikit-learn (Debian's 1.2.1).

The test files are not stored in this repository: put a newer release's
sklearn/metrics/tests/test_{regression,classification,ranking,common,score_objects}.py (any
subset) in a folder outside the checkout and pass it:

    python3 tests/python/sklearn_suite/run_newest.py FOLDER [--keep DIR] [pytest args...]

Each file is copied to a temporary folder and rewritten:

1. every ``from sklearn.metrics import ...`` name that assay.metrics provides comes from
   assay (as run_suite.py does for 1.2.1's files);
2. every other imported ``sklearn`` name that the installed scikit-learn lacks (internals and
   helpers newer than 1.2: array-API utilities, metadata routing, new estimators) is bound to a
   placeholder that raises when used;
3. the tests that use such a name, directly or through a module-level helper or a
   parametrize list, are deselected, each with the names as its reason; so are the tests
   listed in newest_deselected.txt (with their reasons).

Every other test runs. The failures must be the documented differences listed in
newest_expected_failures.txt (docs/conventions.md); tests/python/test_sklearn_newest.py runs
this when ASSAY_SKLEARN_NEWEST_TESTS names such a folder. Prints the failing test ids and the
counts: passed, failed as a documented difference, failed otherwise, skipped by the tests
themselves, and deselected (not runnable on scikit-learn 1.2.1) with their reasons.
"""
import ast
import importlib
import inspect
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_suite  # noqa: E402

FILES = ("test_regression.py", "test_classification.py", "test_ranking.py", "test_common.py",
         "test_score_objects.py")

CONFTEST = '''"""Deselects the tests that need scikit-learn internals newer than the installed one
(written by run_newest.py)."""
import json
import os

with open(os.path.join(os.path.dirname(__file__), "deselected.json")) as f:
    DESELECTED = json.load(f)


def pytest_collection_modifyitems(config, items):
    keep, drop = [], []
    for item in items:
        name = item.originalname if hasattr(item, "originalname") else item.name
        reasons = DESELECTED.get(os.path.basename(str(item.fspath)), {})
        (drop if name in reasons else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
'''

PLACEHOLDER = '''

class _NewerThanInstalled:
    """A scikit-learn name the installed release lacks (run_newest.py)."""

    def __init__(self, name):
        self._name = name

    # Module-level uses (parametrize lists, decorators) must import; the tests using the
    # name are deselected, so it behaves as an empty collection everywhere.
    def __call__(self, *args, **kwargs):
        return _NewerThanInstalled(self._name + "()")

    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return _NewerThanInstalled(self._name + "." + attribute)

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __repr__(self):
        return "<newer scikit-learn: %s>" % self._name

'''


CONFIG_FUNCTIONS = ("config_context", "set_config")
PRIVATE_METRIC_MODULES = ("sklearn.metrics._classification", "sklearn.metrics._regression",
                          "sklearn.metrics._ranking", "sklearn.metrics._scorer")

TOLERANT_CONFIG = '''

def _tolerant_config(function):
    """The installed scikit-learn's config function, ignoring options it does not have (the
    tests passing them are deselected; decorators still run at import)."""
    import inspect
    known = inspect.signature(function).parameters
    def call(*args, **kwargs):
        return function(*args, **{k: v for k, v in kwargs.items() if k in known})
    return call

'''


def _installed_config_options():
    import sklearn
    return set(inspect.signature(sklearn.config_context).parameters)


def _newer_config_calls(node):
    """Options of config_context / set_config calls in `node` that the installed release
    lacks."""
    known = _installed_config_options()
    found = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            name = call.func.id if isinstance(call.func, ast.Name) else (
                call.func.attr if isinstance(call.func, ast.Attribute) else None)
            if name in CONFIG_FUNCTIONS:
                found.update(k.arg for k in call.keywords if k.arg and k.arg not in known)
    return found


def _assay_from_private_modules(source, provided):
    """``from sklearn.metrics._classification import log_loss`` etc.: the public metric names
    assay provides come from assay, as run_suite does for ``sklearn.metrics``."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module in PRIVATE_METRIC_MODULES:
            ours = [a for a in node.names if a.name in provided and not a.name.startswith("_")]
            if not ours:
                continue
            theirs = [a for a in node.names if a not in ours]
            new = [run_suite._import_line(node.module, [(a.name, a.asname) for a in theirs])] \
                if theirs else []
            new.append(run_suite._import_line("assay.metrics", [(a.name, a.asname)
                                                                for a in ours]))
            edits.append((node.lineno - 1, node.end_lineno, "\n".join(new) + "\n"))
    for start, end, text in sorted(edits, reverse=True):
        lines[start:end] = [text]
    return "".join(lines)


def _available(module, name):
    try:
        imported = importlib.import_module(module)
    except ImportError:
        return False
    if hasattr(imported, name):
        return True
    try:  # a submodule
        importlib.import_module(f"{module}.{name}")
        return True
    except ImportError:
        return False


def _missing_imports(tree):
    """{bound name: 'module.name'} of the sklearn imports the installed scikit-learn lacks, and
    the import nodes to rewrite."""
    missing = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and (
                node.module == "sklearn" or node.module.startswith("sklearn.")):
            for alias in node.names:
                if not _available(node.module, alias.name):
                    missing[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return missing


def _names_used(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.value.id for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}


def _tainted_names(tree, missing):
    """Module-level names (functions, classes, assigned values) that use a missing name,
    directly or through another tainted one: {name: set of missing names behind it}."""
    uses = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            uses[node.name] = _names_used(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        uses.setdefault(t.id, set()).update(_names_used(node.value)
                                                            if node.value else set())
    tainted = {name: set(missing_name) for name, missing_name in
               ((m, {m}) for m in missing)}
    changed = True
    while changed:
        changed = False
        for name, used in uses.items():
            behind = set().union(*(tainted[u] for u in used if u in tainted and u != name))
            if behind and not behind <= tainted.get(name, set()):
                tainted.setdefault(name, set()).update(behind)
                changed = True
    return tainted


def _test_functions(tree):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name.startswith("test"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        sub.name.startswith("test"):
                    yield sub.name, ast.Module(body=[node], type_ignores=[])


def rewrite(source, provided):
    """(new source, substituted assay names, {test name: reason} to deselect)."""
    text, substituted = run_suite.rewrite(_assay_from_private_modules(source, provided),
                                          provided)
    tree = ast.parse(text)
    missing = _missing_imports(tree)
    lines = text.splitlines(keepends=True)
    edits = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sklearn"):
            keep = [a for a in node.names if (a.asname or a.name) not in missing]
            if len(keep) == len(node.names):
                continue
            new = ""
            if keep:
                parts = [a.name if a.asname is None else f"{a.name} as {a.asname}" for a in keep]
                new = f"from {node.module} import {', '.join(parts)}\n"
            edits.append((node.lineno - 1, node.end_lineno, new))
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = [new]
    edited = "".join(lines)
    imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom)
                for a in n.names}
    configs = [name for name in CONFIG_FUNCTIONS if name in imported and name not in missing]
    if missing or configs:
        # After the last import (found again in the edited text: the edits moved lines).
        end = max((n.end_lineno for n in ast.parse(edited).body
                   if isinstance(n, (ast.Import, ast.ImportFrom))), default=0)
        edited_lines = edited.splitlines(keepends=True)
        stubs = PLACEHOLDER + "".join(f"{name} = _NewerThanInstalled({full!r})\n"
                                      for name, full in sorted(missing.items()))
        stubs += TOLERANT_CONFIG + "".join(f"{name} = _tolerant_config({name})\n"
                                           for name in configs)
        edited_lines[end:end] = [stubs]
        edited = "".join(edited_lines)
    text = edited
    tainted = _tainted_names(tree, missing)
    deselected = {}
    for name, node in _test_functions(tree):
        behind = set().union(*(tainted[u] for u in _names_used(node) if u in tainted))
        needs = sorted(missing[m] for m in behind) + sorted(
            f"config option {option}" for option in _newer_config_calls(node))
        if needs:
            deselected[name] = "needs scikit-learn newer than 1.2.1: " + ", ".join(needs)
    return text, substituted, deselected


def listed_deselections():
    """{file: {test name: reason}} from newest_deselected.txt ("file::test  # reason")."""
    out = {}
    for test_id, reason in run_suite.expected_failures("newest_deselected.txt").items():
        file, _, name = test_id.partition("::")
        out.setdefault(file, {})[name] = reason
    return out


def prepare(source_folder, folder):
    """Rewritten copies of the test files found in `source_folder`, a conftest deselecting
    what cannot run. Returns (files, {file: {test name: reason}})."""
    provided = run_suite.provided_names()
    listed = listed_deselections()
    files, deselected = [], {}
    for name in FILES:
        path = os.path.join(source_folder, name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            text, _, rule = rewrite(f.read(), provided)
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
        files.append(name)
        deselected[name] = {**rule, **listed.get(name, {})}
    with open(os.path.join(folder, "deselected.json"), "w") as f:
        json.dump(deselected, f, indent=1, sort_keys=True)
    with open(os.path.join(folder, "conftest.py"), "w") as f:
        f.write(CONFTEST)
    with open(os.path.join(folder, "pytest.ini"), "w") as f:
        f.write("[pytest]\n")
    return files, deselected


def summarise(outcomes, deselected):
    """Counts and the failing ids split into documented differences and the rest."""
    expected = run_suite.expected_failures("newest_expected_failures.txt")
    failing = sorted(t for t, s in outcomes.items() if s in ("failed", "error"))
    documented = [t for t in failing if t in expected]
    other = [t for t in failing if t not in expected]
    counts = {
        "passed": sum(1 for s in outcomes.values() if s == "passed"),
        "failed as a documented difference": len(documented),
        "failed otherwise": len(other),
        "skipped by the test": sum(1 for s in outcomes.values() if s == "skipped"),
        "deselected (newer scikit-learn internals)": sum(len(d) for d in deselected.values()),
    }
    return counts, documented, other


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    source, argv = argv[0], argv[1:]
    keep = None
    if argv[:1] == ["--keep"]:
        keep, argv = argv[1], argv[2:]
        os.makedirs(keep, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="assay-sklearn-newest-") as tmp:
        folder = keep or tmp
        files, deselected = prepare(source, folder)
        outcomes, log = run_suite.run(folder, argv, files=files)
    counts, documented, other = summarise(outcomes, deselected)
    for t in other:
        print(t)
    print(f"{len(outcomes)} tests run, {counts}", file=sys.stderr)
    reasons = {}
    for file, tests in deselected.items():
        for reason in tests.values():
            reasons[reason] = reasons.get(reason, 0) + 1
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print(f"  deselected {n}: {reason}", file=sys.stderr)
    if not outcomes:
        print(log[-5000:], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
