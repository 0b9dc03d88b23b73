"""The report's [compare] section: the same numbers as `assay compare --json` on the same options
(one computation path), the dict form through assay.report.build, located configuration errors
before any work, and the pages (the report's and `assay compare --html`) rendered in headless
Chromium without a console error."""
import json
import re
import subprocess

import numpy as np
import pytest

import assay
from assay import report
from conftest import cli_path, render_page


@pytest.fixture()
def data(tmp_path):
    rng = np.random.default_rng(11)
    n = 800
    y = rng.integers(0, 2, n)
    a = np.clip(0.5 + 0.25 * (y - 0.5) + rng.normal(0, 0.2, n), 0, 1)
    b = np.clip(0.5 + 0.35 * (y - 0.5) + rng.normal(0, 0.2, n), 0, 1)
    region = rng.choice(["N", "S", "E"], n)
    with open(tmp_path / "p.csv", "w") as f:
        f.write("label,a,b,region\n")
        for row in zip(y, a.round(4), b.round(4), region):
            f.write(",".join(map(str, row)) + "\n")
    return tmp_path


CONFIG = """seed = 3
[compare]
file = "p.csv"
label = "label"
by = ["region"]
metrics = ["roc_auc", "average_precision", "recall@precision>=0.8", "brier"]
resamples = 200
gates = ["roc_auc >= 0.99", "average_precision > 0.5"]
[compare.models]
a = "a"
b = "b"
"""


def run(*args, cwd):
    return subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_section_is_the_compare_command(data):
    (data / "c.toml").write_text(CONFIG, encoding="utf-8")
    out = run("report", "c.toml", "--quiet", cwd=data)
    assert out.returncode == 0, out.stderr  # a failed gate is said, not an exit status
    doc = json.loads((data / "report.json").read_text(encoding="utf-8"))
    cli = run("compare", "p.csv", "--label", "label", "--models", "a,b", "--by", "region",
              "--metrics", "roc_auc,average_precision,recall@precision>=0.8,brier",
              "--resamples", "200", "--seed", "3", "--gate", "roc_auc >= 0.99",
              "--gate", "average_precision > 0.5", "--json", "--quiet", cwd=data)
    assert cli.returncode == 1, cli.stderr  # the first gate fails
    assert doc["compare"] == json.loads(cli.stdout)
    kinds = [c["kind"] for c in doc["claims"]]
    assert kinds.count("compare.conclusion") == len(doc["compare"]["conclusions"])
    assert "compare.gate_failed" in kinds and "compare.gates_passed" not in kinds
    failed = [s for s in doc["summary"] if s.startswith("Compare: gate FAILED: ")]
    assert len(failed) == 1 and "roc_auc" in failed[0]
    tables = sorted(p.name for p in (data / "report_tables").iterdir())
    assert {"compare-models.csv", "compare-differences.csv", "compare-gates.csv",
            "compare-slice-metrics.csv", "compare-worst-slices.csv"} <= set(tables)


def test_pages_render_without_console_errors(data):
    (data / "c.toml").write_text(CONFIG, encoding="utf-8")
    assert run("report", "c.toml", "--quiet", cwd=data).returncode == 0
    html = (data / "report.html").read_text(encoding="utf-8")
    assert 'id="compare"' in html and "Differences from the baseline" in html
    # Forest plot + one slice chart per metric.
    assert render_page(data / "report.html") == "ok:5"
    out = run("compare", "p.csv", "--label", "label", "--models", "a,b", "--resamples", "50",
              "--html", "page.html", "--quiet", cwd=data)
    assert out.returncode == 0, out.stderr
    assert render_page(data / "page.html") == "ok:1"  # no slices: the forest plot only


def test_python_dict_is_the_same_report(data, monkeypatch):
    monkeypatch.chdir(data)
    config = {"seed": 3, "compare": {
        "file": "p.csv", "label": "label", "metrics": np.array(["roc_auc", "brier"]),
        "resamples": np.int64(100), "gates": ["brier <= 0.5"], "gate_on": "interval",
        "models": {"b": "b", "a": "a"}, "baseline": "a"}}
    doc = report.build(config, out=data / "d.html")
    assert doc["compare"]["baseline"] == "a"
    assert [m["name"] for m in doc["compare"]["models"]] == ["b", "a"]  # the dict's order
    assert doc["compare"]["passed"] is True
    assert doc["summary"][-1] == "Compare: the gate brier <= 0.5 passed."


@pytest.mark.parametrize("text, message", [
    ('[compare]\nfile = "p.csv"\nlabel = "label"\nresample = 10\nmodels = { a = "a", b = "b" }\n',
     r'c\.toml:4:1: \[compare\] unknown key "resample" \(did you mean "resamples"\? allowed: '),
    ('[compare]\nfile = "p.csv"\nlabel = "label"\nby = 3\nmodels = { a = "a", b = "b" }\n',
     r"c\.toml:4:6: \[compare\] by: expected a non-empty string or array of strings, found 3$"),
    ('[compare]\nfile = "p.csv"\nlabel = "label"\ncorrection = "holmes"\n'
     'models = { a = "a", b = "b" }\n',
     r'c\.toml:4:14: \[compare\] correction: '),
    ('[compare]\nfile = "p.csv"\nlabel = "label"\nmodels = { a = "a", b = "bb" }\n',
     r'c\.toml:1:1: \[compare\] .*"bb"'),
    ('[compare]\nfile = "p.csv"\nlabel = "label"\nby = ["regoin"]\nmodels = { a = "a", b = "b" }\n',
     r'c\.toml:1:1: \[compare\] .*"regoin"'),
    ('[compare]\nfile = "p.csv"\nlabel = "label"\ngates = ["roc_auc => 0.8"]\n'
     'models = { a = "a", b = "b" }\n',
     r"c\.toml:1:1: \[compare\] gate 1: "),
])
def test_bad_configuration_is_located_before_any_work(data, text, message):
    (data / "c.toml").write_text(text, encoding="utf-8")
    out = run("report", "c.toml", "--check", cwd=data)
    assert out.returncode == 2, out.stderr
    assert re.search("^assay: " + message, out.stderr.strip()), out.stderr
    assert not (data / "report.html").exists()


def test_dict_errors_name_the_key_path(data, monkeypatch):
    monkeypatch.chdir(data)
    with pytest.raises(assay.AssayError, match=r"^config: \[compare\] resamples: expected an "
                       r"integer in 0\.\.18446744073709551615, found \"many\"$"):
        report.build({"compare": {"file": "p.csv", "label": "label", "resamples": "many",
                                  "models": {"a": "a", "b": "b"}}}, check=True)
    with pytest.raises(assay.AssayError, match=r"^config: \[compare.models\] b: expected a score "
                                                r"column or an array of score columns, found 2$"):
        report.build({"compare": {"file": "p.csv", "label": "label",
                                  "models": {"a": "a", "b": 2}}}, check=True)
