"""Every command in docs/compare.md runs, on the predictions.csv of examples/compare_predictions.py
(the columns the page describes; the report configurations it shows written beside it), and does
what the page says (exit status, outputs). The how-tos that use the same file
(howto-ci-gate.md, howto-compare-classifiers.md) are run as scripts by test_docs_run.py."""
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT, cli_path

PAGES = ["compare.md"]


def commands(page):
    text = open(os.path.join(ROOT, "docs", page)).read()
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for command in block.replace("\\\n", " ").strip().splitlines():
            out.append(command.strip())
    return out


def write_configs(page, folder):
    """The page's TOML blocks whose first line names their file ("# compare.toml")."""
    text = open(os.path.join(ROOT, "docs", page)).read()
    for block in re.findall(r"```toml\n(.*?)```", text, flags=re.S):
        first = block.splitlines()[0]
        if re.fullmatch(r"# [\w.-]+\.toml", first):
            (folder / first[2:]).write_text(block, encoding="utf-8")


def predictions(path):
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "compare_predictions.py"),
                    str(path)], check=True, capture_output=True)


CASES = [(page, c) for page in PAGES for c in commands(page)]


def test_the_pages_have_commands():
    assert len(commands("compare.md")) >= 4


@pytest.mark.parametrize("page,command", CASES, ids=[f"{p}:{i}" for i, (p, _) in enumerate(CASES)])
def test_documented_command_runs(page, command, tmp_path):
    predictions(tmp_path / "predictions.csv")
    write_configs(page, tmp_path)
    argv = shlex.split(command)
    assert argv[0] == "assay"
    out = subprocess.run([cli_path(), "--quiet", *argv[1:]], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr  # 1: a gate failed, as documented
    assert "internal" not in out.stderr
    if "--gate" in argv:
        doc = json.loads((tmp_path / "compare.json").read_text()) if "--json-out" in argv \
            else None
        assert (out.returncode == 0) == (doc is None or doc["passed"])
    if "--junit" in argv:
        assert (tmp_path / "gates.xml").read_text().startswith("<?xml")
    if argv[1] == "report":
        page = tmp_path / argv[argv.index("--out") + 1]
        assert out.returncode == 0 and page.stat().st_size > 1000
        assert (tmp_path / (page.stem + ".json")).exists()
    if "--html" in argv:
        assert (tmp_path / "compare.html").stat().st_size > 1000


def test_the_recorded_figures_are_the_benchmarks_results():
    """docs/compare.md quotes bench/results/<name>.md between <!-- name begin/end --> markers;
    the coverage it claims (at least 93 % at 2000 examples) is what the simulation measured."""
    text = open(os.path.join(ROOT, "docs", "compare.md")).read()
    names = re.findall(r"<!-- (\w+) begin -->", text)
    assert names == ["compare_coverage", "compare_coverage_n500"]
    for name in names:
        block = re.search(rf"<!-- {name} begin -->\n(.*?)\n<!-- {name} end -->", text, re.S)
        recorded = open(os.path.join(ROOT, "bench", "results", name + ".md")).read().strip()
        assert block.group(1).strip() == recorded
    rows = re.findall(r"^\| (\w+) \| [+-][0-9.]+ \| ([0-9.]+)% \| ([0-9.]+)% \|$",
                      open(os.path.join(ROOT, "bench", "results", "compare_coverage.md")).read(),
                      re.M)
    assert len(rows) == 4
    assert all(float(p) >= 93 and float(b) >= 93 for _, p, b in rows)
    assert "1000 simulated data sets" in text
