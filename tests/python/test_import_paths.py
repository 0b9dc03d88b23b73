"""Every import path the documentation shows works: each `import assay...` / `from assay... import
...` statement in README.md and docs/*.md is run in a fresh namespace of a fresh interpreter (so a
path that only works after another import, such as a module reached as an attribute, fails)."""
import glob
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# `import assay.x[, assay.y] [as z]` or `from assay[.x] import a[, b] [as c]` (or `(a, b)` over
# several lines), anywhere in a line: in code blocks, after `python3 -c "`, in backticks.
_IMPORT = re.compile(r"(?<![\w.])(import\s+assay(?:\.\w+)*(?:\s+as\s+\w+)?"
                     r"(?:\s*,\s*assay(?:\.\w+)*(?:\s+as\s+\w+)?)*"
                     r"|from\s+assay(?:\.\w+)*\s+import\s+(?:\([^)]*\)|\w+(?:\s+as\s+\w+)?"
                     r"(?:\s*,\s*\w+(?:\s+as\s+\w+)?)*))")


def documented_imports():
    """(file:line, statement) for every import of assay in README.md and docs/*.md."""
    found = []
    for path in [os.path.join(ROOT, "README.md"), *sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in _IMPORT.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            statement = " ".join(m.group(1).split())
            found.append((f"{os.path.relpath(path, ROOT)}:{line}", statement))
    return found


DOCUMENTED = documented_imports()


def test_the_documentation_shows_imports():
    statements = {s for _, s in DOCUMENTED}
    assert "from assay.shift import segmentation as seg" in statements
    assert len(DOCUMENTED) >= 20


def test_every_documented_import_works():
    # One interpreter for all of them (fast), each statement in its own fresh namespace after a
    # fresh start of the assay modules, so one import cannot make the next one work.
    script = "\n".join([
        "import sys",
        "failures = []",
        "for where, statement in " + repr(DOCUMENTED) + ":",
        "    for name in [m for m in sys.modules if m == 'assay' or m.startswith('assay.')]:",
        "        if name != 'assay._assay':",  # a compiled module cannot be loaded twice
        "            del sys.modules[name]",
        "    try:",
        "        exec(statement, {})",
        "    except Exception as e:",
        "        failures.append(f'{where}: {statement}: {type(e).__name__}: {e}')",
        "print('\\n'.join(failures))",
        "sys.exit(1 if failures else 0)",
    ])
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       env=os.environ.copy())
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("statement", [
    "from assay.shift.segmentation import score_subject",
    "from assay.shift.segmentation import evaluate, read_nifti, write_nifti",
    "import assay.shift.segmentation as seg",
    "from assay.shift import retention_curve, segmentation",
    "from assay.metrics import evaluate",
])
def test_package_paths(statement):
    exec(statement, {})
