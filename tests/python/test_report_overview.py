"""assay report / assay.report.build: the tour report of `make demo` (examples/report/tour.toml on
the demo generators' data, built once per session in a temporary folder), rendered in headless
Chromium; its numbers against the subcommands' own --json on the same inputs (one computation
path); the Python twin; and bad configurations (located errors before any work).

With ASSAY_SCREENSHOTS=DIR, screenshots of the top of the page and of one chart per section are
written there for a person to look at.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

import numpy as np

import assay
from assay import report
from conftest import CHROMIUM, ROOT, cli_path
from test_report_claims import check_claims

EXAMPLES = os.path.join(ROOT, "examples")
PY = sys.executable


def run(*args, cwd=None, env=None):
    out = subprocess.run([*map(str, args)], capture_output=True, text=True, cwd=cwd, env=env,
                         timeout=600)
    assert out.returncode == 0, f"{args}\n{out.stdout}\n{out.stderr}"
    return out


@pytest.fixture(scope="session")
def tour(tmp_path_factory):
    """The tour's data (the demo's generators, a smaller shift set) and its report."""
    out = tmp_path_factory.mktemp("tour")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    run(PY, os.path.join(EXAMPLES, "make_soak_demo.py"), out)
    run(PY, os.path.join(EXAMPLES, "make_shift_demo.py"), out / "shift_demo.csv", "--n", "2000",
        "--seed", "1")
    run(PY, os.path.join(EXAMPLES, "count", "make_count_demo.py"), out, env=env)
    run(PY, os.path.join(EXAMPLES, "segment", "make_demo.py"), out / "segment")
    run(PY, os.path.join(EXAMPLES, "report", "make_report_demo.py"), out, env=env)
    # The tour names the spec relative to out/ in the repository; here it sits beside the data.
    shutil.copy(os.path.join(EXAMPLES, "count", "graph4.spec"), out / "graph4.spec")
    text = open(os.path.join(EXAMPLES, "report", "tour.toml"), encoding="utf-8").read()
    text = text.replace('"../examples/count/graph4.spec"', '"graph4.spec"')
    (out / "tour.toml").write_text(text, encoding="utf-8")
    result = run(cli_path(), "report", out / "tour.toml", "--quiet")
    return {"dir": out, "page": out / "report.html", "stdout": result.stdout,
            "document": json.loads((out / "report.json").read_text(encoding="utf-8"))}


def chromium(*args, timeout=120):
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"chromium not found at {CHROMIUM}: run scripts/install-deps.sh")
    with tempfile.TemporaryDirectory() as profile:
        out = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
             "--virtual-time-budget=30000", *args],
            capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return out


def test_tour_prints_summary_and_writes_outputs(tour):
    doc = tour["document"]
    assert set(doc) >= {"title", "summary", "metrics", "soak", "cv", "shift", "segment", "count",
                        "compare"}
    for sentence in doc["summary"]:
        assert f"- {sentence}" in tour["stdout"]
    assert f"report: {tour['page']}" in tour["stdout"]
    kinds = [s.split(":")[0] for s in doc["summary"]]
    for kind in ["Metrics", "Same/Other/All", "Cross-validation", "Shift", "Segmentation",
                 "Counting", "Compare"]:
        assert kind in kinds, kinds
    assert sorted(doc["metrics"]["models"]) == ["boosted", "logistic"]
    assert sorted(doc["count"]["models"]) == ["shallow_tree", "tree"]


def test_tour_renders_in_chromium_with_every_table_downloadable(tour):
    dom = chromium("--dump-dom", tour["page"].as_uri()).stdout
    status = re.search(r'<body[^>]*data-assay-render="([^"]*)"', dom).group(1)
    html = tour["page"].read_text(encoding="utf-8")
    n_charts = html.count('<figure class="chart"')
    assert n_charts >= 12
    assert status == f"ok:{n_charts}", status  # every chart drew data marks; no console error
    marks = [int(m) for m in re.findall(r'data-assay-marks="(\d+)"', dom)]
    assert len(marks) == n_charts and min(marks) > 0
    assert dom.count("<svg") >= n_charts
    links = re.findall(r'<a class="assay-csv" download="([^"]+)" '
                       r'href="data:text/csv;charset=utf-8;base64,([^"]*)"', dom)
    folder = tour["dir"] / "report_tables"
    assert sorted(name for name, _ in links) == sorted(os.listdir(folder))
    for name, data in links:
        assert base64.b64decode(data) == (folder / name).read_bytes(), name
    # Every data table is downloadable ("<table>" alone also occurs in the inlined tooltip code).
    assert len(re.findall(r"<table>\s*<thead>", dom)) == len(links)


def test_tour_screenshots(tour):
    """Writes the top of the page and the start of each section (its first charts) as PNG files
    into $ASSAY_SCREENSHOTS, for a person to look at (seven browser runs: only when asked).
    A section's shot is a copy of the page whose earlier content sits in a hidden block, so that
    every chart still draws and the section starts at the top of the window."""
    shots = os.environ.get("ASSAY_SCREENSHOTS")
    if not shots:
        pytest.skip("set ASSAY_SCREENSHOTS=DIR to write screenshots of the tour report")
    os.makedirs(shots, exist_ok=True)
    html = tour["page"].read_text(encoding="utf-8")
    start = html.index("<main>") + len("<main>")
    pages = [("top", tour["page"])]
    for section in ["metrics", "soak", "cv", "shift", "segment", "count", "compare"]:
        at = html.index(f'<h2 id="{section}"')
        copy = tour["dir"] / f"shot-{section}.html"
        copy.write_text(html[:start] + "<div hidden>" + html[start:at] + "</div>" + html[at:],
                        encoding="utf-8")
        pages.append((section, copy))
    for name, page in pages:
        png = os.path.join(shots, f"{name}.png")
        chromium(f"--screenshot={png}", "--window-size=1360,1500", page.as_uri())
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        assert os.path.getsize(png) > 20000, png  # a blank window compresses to far less


def cli_json(*args):
    return json.loads(run(cli_path(), *args, "--quiet").stdout)


def test_one_computation_path(tour):
    """Each section's numbers are the subcommand's --json on the same inputs and options."""
    d, doc = tour["dir"], tour["document"]
    for name in ["logistic", "boosted"]:
        assert doc["metrics"]["models"][name] == cli_json(
            "metrics", d / "report_predictions.csv", "--label", "label", "--score", name,
            "--pos-label", "fraud", "--threshold", "0.5", "--bootstrap", "500", "--seed", "1",
            "--json")
    assert doc["shift"] == cli_json(
        "shift", d / "shift_demo.csv", "--target", "power", "--pred", "single", "--uncertainty",
        "single_var", "--members", "m0,m1,m2,m3,m4", "--member-vars", "v0,v1,v2,v3,v4",
        "--partition", "partition", "--acceptable", "9", "--bootstrap", "200", "--seed", "1",
        "--json")
    tree = cli_json("count", "--model", d / "count_tree.json", "--spec", d / "graph4.spec",
                    "--property", "Transitive", "--test", d / "count_test.csv", "--label",
                    "label", "--samples", "1000", "--seed", "1", "--json")
    for part in (doc["count"]["models"]["tree"], tree):
        part.pop("seconds")
    assert doc["count"]["models"]["tree"] == tree
    soak = cli_json("soak", d / "soak_regions.csv", "--label", "y", "--subset", "region", "--group",
                    "polygon", "--folds", "5", "--seed", "1", "--learners", "featureless,glmnet",
                    "--out", d / "soak_cli", "--json")
    assert doc["soak"] == soak
    cv = cli_json("cv", d / "soak_regions.csv", "--label", "y", "--group", "polygon", "--drop",
                  "region", "--folds", "5", "--seed", "1", "--learners",
                  "featureless,glmnet,cart", "--out", d / "cv_cli", "--json")
    strip = ("train_seconds_mean", "train_seconds_sd", "predict_seconds_mean")
    for s in doc["cv"]["summaries"] + cv["summaries"]:
        for key in strip:
            s.pop(key)
    assert doc["cv"]["summaries"] == cv["summaries"]
    seg = cli_json("segment", "--pred", d / "segment/member0", "--truth", d / "segment/truth",
                   "--brain-mask", d / "segment/brain", "--partition", d / "segment/partition.csv",
                   "--json")
    assert doc["segment"]["models"]["member0"] == seg


def test_python_twin_builds_any_subset(tour, tmp_path, monkeypatch):
    d = tour["dir"]
    monkeypatch.chdir(d)
    doc = report.build({"title": "count only",
                        "count": {"spec": "graph4.spec", "property": "Transitive",
                                  "models": {"tree": "count_tree.json"}}},
                       out=tmp_path / "count.html")
    assert set(doc) == {"title", "summary", "claims", "count", "page", "files", "tables"}
    assert doc["page"] == str(tmp_path / "count.html")
    assert os.path.exists(tmp_path / "count_tables" / "count-labels.csv")
    assert doc["count"]["models"]["tree"]["labels"] == tour["document"]["count"]["models"]["tree"]["labels"]
    # The TOML file through Python is the CLI's run.
    again = report.build(d / "tour.toml", out=tmp_path / "tour.html", check=True)
    assert again == {"checked": True, "page": str(tmp_path / "tour.html")}


@pytest.mark.parametrize("text, message", [
    ('[metrics]\nfile = "report_predictions.csv"\nlabel = "label"\ntreshold = 0.3\n'
     'models = { a = "logistic" }\n',
     r'bad\.toml:4:1: \[metrics\] unknown key "treshold" \(did you mean "threshold"\? allowed: '),
    ('[metrics]\nfile = "nope.csv"\nlabel = "label"\nmodels = { a = "logistic" }\n',
     r"bad\.toml:1:1: \[metrics\] predictions file .*nope\.csv: no such file$"),
    ('[soak]\nfile = "one_region.csv"\nlabel = "y"\nsubset = "region"\n',
     r'bad\.toml:1:1: \[soak\] .*one_region\.csv: subset column "region" has 1 value: '
     r"Same/Other/All needs at least two subsets$"),
    ('[count]\nspec = "graph4.spec"\nmodels = { t = "count_tree.json" }\nmethod = "magic"\n',
     r'bad\.toml:4:10: \[count\] method: expected one of auto, structural, enumerate, exact-cnf, '
     r'approx, found "magic"$'),
])
def test_bad_configuration_is_located_before_any_work(tour, tmp_path, text, message):
    d = tour["dir"]
    with open(d / "soak_regions.csv") as f, open(d / "one_region.csv", "w") as g:
        lines = f.read().splitlines()
        g.write("\n".join([lines[0]] + [l for l in lines[1:] if l.startswith("NE,")]) + "\n")
    config = d / "bad.toml"
    config.write_text(text, encoding="utf-8")
    out = subprocess.run([cli_path(), "report", "bad.toml", "--out", tmp_path / "bad.html"],
                         capture_output=True, text=True, cwd=d, timeout=60)
    assert out.returncode == 2, out.stderr
    assert re.search("^assay: " + message, out.stderr.strip()), out.stderr
    assert not os.path.exists(tmp_path / "bad.html")
    with pytest.raises(assay.AssayError):
        report.build(config, out=tmp_path / "bad.html")


def test_tour_claims_are_true(tour):
    """Every sentence of the tour's summary against its numbers (test_report_claims.py), with the
    sections the random data sets there do not build: segmentation and counting."""
    kinds = check_claims(tour["document"], tour["dir"] / "report_tables", tour["page"])
    assert kinds >= {"metrics.ranking", "metrics.operating_point", "metrics.pair", "soak.pooling",
                     "cv.ranking", "shift.model", "segment.model", "count.model",
                     "compare.conclusion", "compare.gates_passed"}
    pair = next(c for c in tour["document"]["claims"] if c["kind"] == "metrics.pair")
    assert pair["facts"]["relation"] == "cross"  # the tour's two models are built to cross


def test_python_build_accepts_numpy_values(tour, tmp_path, monkeypatch):
    """numpy scalars and arrays where the schema takes numbers, booleans and lists (they used to
    fail in json.dumps); the result equals the plain dict's."""
    monkeypatch.chdir(tour["dir"])
    plain = {"title": "numpy", "seed": 3,
             "count": {"spec": "graph4.spec", "property": "Transitive", "samples": [50, 100],
                       "confidence": 0.9, "models": {"tree": "count_tree.json"}}}
    typed = {"title": np.str_("numpy"), "seed": np.int64(3),
             "count": {"spec": "graph4.spec", "property": "Transitive",
                       "samples": np.array([50, 100], dtype=np.int32),
                       "confidence": np.float64(0.9), "models": {"tree": "count_tree.json"}}}
    a = report.build(plain, out=tmp_path / "plain.html")
    b = report.build(typed, out=tmp_path / "typed.html")
    for doc in (a, b):
        for model in doc["count"]["models"].values():
            model.pop("seconds")
    assert a["count"] == b["count"] and a["summary"] == b["summary"]
    metrics = {"metrics": {"file": "report_predictions.csv", "label": "label",
                           "pos_label": "fraud", "threshold": np.float32(0.25),
                           "bootstrap": np.uint16(0), "bins": np.int8(5),
                           "models": {"logistic": np.array(["logistic"])}}}
    doc = report.build(metrics, out=tmp_path / "m.html")
    assert doc["metrics"]["models"]["logistic"]["prediction_rule"] == "score >= 0.25"
    with pytest.raises(assay.AssayError, match=r"^config: \[soak\] folds: expected an integer, "
                                                r"found true$"):
        report.build({"soak": {"file": "soak_regions.csv", "label": "y", "subset": "region",
                               "folds": np.bool_(True)}}, check=True)
    with pytest.raises(assay.AssayError, match=r"^config: \[metrics\] threshold: expected a "
                                                r"finite number, found nan$"):
        report.build({"metrics": {"file": "report_predictions.csv", "label": "label",
                                  "threshold": np.float64("nan"), "models": {"a": "logistic"}}})
    with pytest.raises(assay.AssayError, match=r"^config: metrics.models: expected a string, "
                                                r"number, boolean, list or dict, found set$"):
        report.build({"metrics": {"file": "report_predictions.csv", "label": "label",
                                  "models": {"logistic"}}})


def report_cli(*args, cwd):
    return subprocess.run([cli_path(), "report", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


@pytest.mark.parametrize("text, message", [
    ("[segment]\ntruth = \"gt\"\nthreshold = nan\npred = \"m\"\n",
     "c.toml:3:13: [segment] threshold: expected a number in [0, 1], found nan"),
    ("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\nthreshold = nan\nmodels = { a = \"p\" }\n",
     "c.toml:4:13: [metrics] threshold: expected a finite number, found nan"),
    ("[count]\nspec = \"g.spec\"\nmodels = { t = \"t.json\" }\ndelta = -inf\n",
     "c.toml:4:9: [count] delta: expected a number in (0, 1), found -inf"),
    ("title = \"Fraud\\u0000model\"\n[cv]\nfile = \"a.csv\"\nlabel = \"y\"\n",
     'c.toml:1:9: title: expected text without control characters, found "Fraud\\x00model" '
     "(byte 0x00)"),
    ("[metrics]\nfile = \"p.csv\"\nlabel = \"y\"\nmodels = { \"a\\u0007\" = \"p\" }\n",
     'c.toml:4:12: metrics.models key: expected a name without control characters, found '
     '"a\\x07" (byte 0x07)'),
])
def test_bad_values_in_the_configuration_are_located(tmp_path, text, message):
    (tmp_path / "c.toml").write_text(text, encoding="utf-8")
    out = report_cli("c.toml", "--check", cwd=tmp_path)
    assert (out.returncode, out.stderr) == (2, f"assay: {message}\n")
    assert os.listdir(tmp_path) == ["c.toml"]


def test_a_folder_is_not_a_configuration(tmp_path):
    out = report_cli(".", cwd=tmp_path)
    assert (out.returncode, out.stderr) == (
        2, "assay: .: is a folder, expected a report config file (TOML)\n")
    assert os.listdir(tmp_path) == []


def test_lost_stdout_leaves_no_page(tour, tmp_path):
    """All or nothing, stdout included (docs/report-config.md): with stdout on a full disk, no page,
    table or JSON file appears, and the message names the reason."""
    config = tmp_path / "c.toml"
    config.write_text(f'[metrics]\nfile = "{tour["dir"]}/report_predictions.csv"\nlabel = "label"\n'
                      'bootstrap = 20\nmodels = { a = "logistic", b = "boosted" }\n'
                      f'[cv]\nfile = "{tour["dir"]}/soak_regions.csv"\nlabel = "y"\nfolds = 2\n'
                      'learners = ["featureless"]\n', encoding="utf-8")
    for flags in (["--json"], []):
        out = subprocess.run([cli_path(), "report", config, "--quiet", "--out",
                              tmp_path / "page.html", *flags], stdout=open("/dev/full", "w"),
                             stderr=subprocess.PIPE, text=True, timeout=600)
        assert out.returncode == 2, flags
        # Warnings of the analyses come first; the reason once, at the end.
        assert out.stderr.endswith(
            "assay: cannot write to standard output: No space left on device\n"), out.stderr
        assert out.stderr.count("standard output") == 1
        assert os.listdir(tmp_path) == ["c.toml"], flags
    ok = subprocess.run([cli_path(), "report", config, "--quiet", "--out", tmp_path / "page.html",
                         "--json"], capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["summary"][0].startswith("Metrics: ")
    assert sorted(os.listdir(tmp_path)) == ["c.toml", "page.html", "page.json", "page_tables"]


@pytest.mark.parametrize("command", [
    ["metrics", "{d}/report_predictions.csv", "--label", "label", "--score", "logistic",
     "--json"],
    ["metrics", "{d}/report_predictions.csv", "--label", "label", "--score", "logistic"],
    ["shift", "{d}/shift_demo.csv", "--target", "power", "--pred", "single", "--uncertainty",
     "single_var", "--json"],
    ["count", "--model", "{d}/count_tree.json", "--spec", "{d}/graph4.spec", "--property",
     "Transitive", "--json"],
    ["segment", "--pred", "{d}/segment/member0", "--truth", "{d}/segment/truth", "--json"],
    ["runs", "{d}/report_predictions.csv", "--value", "logistic", "--json"],
])
def test_lost_stdout_leaves_no_page_for_any_command(tour, tmp_path, command):
    """The other commands that print and write files share the mechanism (apps/cli/
    stdout_batch.hpp): they used to write the --html page and then exit 2."""
    args = [a.format(d=tour["dir"]) for a in command] + ["--html", tmp_path / "page.html",
                                                         "--quiet"]
    if command[0] != "runs":
        args += ["--json-out", tmp_path / "page.json"]
    out = subprocess.run([cli_path(), *args], stdout=open("/dev/full", "w"),
                         stderr=subprocess.PIPE, text=True, timeout=300)
    assert out.returncode == 2
    assert out.stderr.endswith(
        "assay: cannot write to standard output: No space left on device\n"), out.stderr
    assert out.stderr.count("standard output") == 1
    assert os.listdir(tmp_path) == []
    ok = subprocess.run([cli_path(), *args], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert "page.html" in os.listdir(tmp_path)


def test_tour_tables_text_and_glossary(tour):
    """Every section's tables: NaN for missing values, one number format per column, intervals
    as one-line cells, and the abbreviations of every section defined (issue 41)."""
    from test_page_text import check_page_text, defined_terms
    page = check_page_text(tour["page"])
    for term in ("roc-auc", "ap", "delong", "same", "other", "all", "r-auc", "prr", "aurc",
                 "augrc", "ndsc", "lesion-f1", "rmse"):
        assert term in defined_terms(page), term
