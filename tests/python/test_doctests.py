"""The Examples of every public docstring run as doctests (ELLIPSIS and NORMALIZE_WHITESPACE),
one test per public module, in a temporary folder (examples that write files leave nothing in the
checkout) with matplotlib on its Agg backend. A failure lists every failing example."""
import doctest
import importlib
import os

import numpy as np
import pytest

from public_api import everything, public_modules

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def module_of(name, modules):
    """The public module ``name`` belongs to: the longest module name that prefixes it."""
    return max((m for m in modules if name.startswith(m + ".")), key=len)


def doctests_by_module():
    modules = public_modules()
    finder = doctest.DocTestFinder(recurse=False)
    found = {m: [] for m in modules}
    seen = set()
    for m in modules:
        found[m].extend(finder.find(importlib.import_module(m), m))
    for name, value in everything():
        target = value.fget if isinstance(value, property) else value
        # One object reached by several names (a method the learners share) runs once.
        if id(target) in seen:
            continue
        seen.add(id(target))
        found[module_of(name, modules)].extend(
            t for t in finder.find(target, name, globs={}) if t.examples)
    return found


DOCTESTS = doctests_by_module()


def test_examples_exist():
    assert sum(len(tests) for tests in DOCTESTS.values()) > 50


@pytest.mark.parametrize("module", sorted(DOCTESTS))
def test_module_doctests(module, tmp_path, monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    failures = []
    for test in DOCTESTS[module]:
        test.globs = {}
        runner = doctest.DocTestRunner(optionflags=OPTIONS)
        report = []
        with np.printoptions():  # an example's print options never leak into the next
            runner.run(test, out=report.append, clear_globs=True)
        if runner.failures:
            failures.append(f"{test.name}:\n" + "".join(report))
    assert not failures, f"{len(failures)} failing docstring examples in {module}:\n" + \
        "\n".join(failures)
