"""Every test docs/robustness.md names exists: each row of its tables says which test pins the
behaviour it describes, so a renamed or deleted test must not leave a row pointing at nothing
(the rows are only true while their tests run)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "robustness.md"

# "tests/x.py::test_a, ::test_b" / "tests/cpp/y.cpp::Suite.Name; ::Other" / "fuzz/fuzz_csv.cpp"
REFERENCE = re.compile(r"((?:tests|fuzz)/[\w/.\-]+?)((?:(?:::|, ::|; ::)[\w.]+(?:\[[^\]]*\])?)*)"
                       r"(?=[\s|;,()`]|$)")


def _references():
    for match in REFERENCE.finditer(DOC.read_text()):
        path = match.group(1).rstrip(".")
        names = [n.split("[")[0] for n in re.findall(r"::([\w.]+(?:\[[^\]]*\])?)", match.group(2))]
        yield path, names


def _defines(source, path, name):
    if path.endswith(".py"):
        return re.search(rf"^def {re.escape(name)}\(", source, re.M) is not None
    test = name.split(".")[-1]  # Suite.Name, or a bare Name continuing the previous suite
    return re.search(rf"\(\s*\w+\s*,\s*{re.escape(test)}\s*\)", source) is not None


def test_every_test_the_robustness_tables_name_exists():
    missing = []
    seen = 0
    for path, names in _references():
        file = ROOT / path
        if not file.exists():
            missing.append(path)
            continue
        if file.is_dir():
            continue
        source = file.read_text(errors="replace")
        for name in names:
            seen += 1
            if not _defines(source, path, name):
                missing.append(f"{path}::{name}")
    assert seen > 300, f"only {seen} test names found: has the table format changed?"
    assert not missing, f"docs/robustness.md names tests that do not exist: {missing}"
