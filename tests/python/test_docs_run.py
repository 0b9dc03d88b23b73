"""The newcomer's pages run as written: docs/getting-started.md, every docs/howto-*.md and
README.md are executed block by block, and what they show is what the program prints.

How a page is run (a page is a script):
- Its ```sh and ```python blocks run in order in one temporary folder, so later blocks use the
  files earlier ones wrote. `assay` is the built CLI (a `bin/assay` on PATH), `build/` and
  `examples/` are the checkout's (links), `/usr/bin/python3` finds the built package (PYTHONPATH).
  A sh block runs under `bash -e -o pipefail`; a python block as one `/usr/bin/python3` script.
  Every block must exit 0.
- An HTML comment right before a block (blank lines allowed between) gives it a directive:
  `<!-- doc-test: skip (reason) -->` the block is not run (the reason is required, and the
  number of skips per page is pinned below, so nothing is skipped silently);
  `<!-- doc-test: exit N -->` the block must exit N (an error the page demonstrates);
  `<!-- doc-test: file NAME -->` the block's text is written to NAME (a file the page shows);
  `<!-- doc-test: setup` + code + `-->` code run before the block, in its language, not shown
  (variables a Python fragment takes from the reader's own session);
  `<!-- doc-test: output of make demo -->` the block is the sample output of `make demo`;
  `<!-- doc-test: illustration (reason) -->` a bare block that is neither output nor a file.
  A ```toml block whose first line is `# NAME.toml` is written to NAME.toml.
- A bare or ```text block right after a command block (only prose between) is that block's
  sample output, checked against its real output (stdout and stderr, in order) by this rule:
  each line of the sample matches one line of the output, consecutive lines consecutive lines;
  `...` inside a line matches any text of that line; a line that is only `...` matches any
  number of lines (none included); the sample may start and end anywhere in the output.
  Numbers are compared as text: the sample outputs are copied from real runs (the runs are
  seeded, so they repeat exactly). Any other bare or ```text block must carry a directive.

`make build`, `make demo` and installing are skipped (slow; they install packages); the demo's
sample output is checked against scripts/demo.sh run into a temporary folder (test_make_demo_
sample_output), whose tour report also feeds the check that report.json holds every number the
page shows (test_report_json_holds_every_number_the_page_shows).
"""
import bisect
import json
import math
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT, cli_path

ROOT = Path(ROOT)
PAGES = ["docs/getting-started.md", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("howto-*.md")), "README.md"]

# Skipped blocks per page (each with its reason in the page).
EXPECTED_SKIPS = {
    "docs/getting-started.md": 2,
    "docs/howto-ci-gate.md": 0,
    "docs/howto-compare-classifiers.md": 0,
    "docs/howto-count.md": 0,
    "docs/howto-pool-data.md": 0,
    "docs/howto-shift.md": 0,
    "README.md": 4,
}

COMMAND_LANGUAGES = {"sh", "python"}
OUTPUT_LANGUAGES = {"", "text"}

FENCE = re.compile(r"^([ \t]*)```(\w*)[^\n]*\n(.*?)^\1```[ \t]*$", re.M | re.S)
DIRECTIVE = re.compile(r"<!--\s*doc-test:\s*(.*?)\s*-->\s*\Z", re.S)


def blocks(page):
    """[(language, text, directive or None, prose before it)] in page order."""
    text = (ROOT / page).read_text(encoding="utf-8")
    out, end = [], 0
    for m in FENCE.finditer(text):
        gap = text[end:m.start()]
        directive = DIRECTIVE.search(gap)
        indent = m.group(1)
        body = "".join(line[len(indent):] if line.startswith(indent) else line
                       for line in m.group(3).splitlines(keepends=True))
        out.append((m.group(2), body, directive.group(1) if directive else None, gap))
        end = m.end()
    return out


def skip_reason(directive):
    m = re.fullmatch(r"skip \((.+)\)", directive or "", re.S)
    return m.group(1) if m else None


def environment(folder):
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    (bin_dir / "assay").symlink_to(cli_path())
    build = Path(os.environ.get("ASSAY_BUILD_DIR", ROOT / "build")).resolve()
    (folder / "build").symlink_to(build)
    (folder / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env["PYTHONPATH"] = str(build / "python")
    env["MPLBACKEND"] = "Agg"
    return env


def run_block(language, code, folder, env):
    argv = ["bash", "-e", "-o", "pipefail", "-c", code] if language == "sh" \
        else [sys.executable if sys.executable == "/usr/bin/python3" else "/usr/bin/python3", "-c",
              code]
    out = subprocess.run(argv, cwd=folder, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=600)
    return out.returncode, out.stdout


def sample_pattern(sample):
    """The regular expression of a sample output (the rule in this file's docstring)."""
    parts = []
    for line in sample.rstrip("\n").splitlines():
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\\n]*".join(map(re.escape, line.split("..."))) + r"[ \t]*\n")
    return re.compile(r"(?m)^" + "".join(parts))


def check_sample(sample, output, where):
    assert sample_pattern(sample).search(output + "\n"), \
        f"{where}: the sample output\n{sample}\ndoes not match the real output\n{output}"


def is_sample_output(language, directive, gap, previous):
    return (language in OUTPUT_LANGUAGES and directive is None and previous is not None
            and previous[0] in COMMAND_LANGUAGES and "```" not in gap)


def run_page(page, folder):
    """Runs a page; returns (commands run, skipped, samples checked)."""
    env = environment(folder)
    ran = skipped = checked = 0
    previous, last_output = None, None
    for language, text, directive, gap in blocks(page):
        where = f"{page}, block {text.splitlines()[0] if text.strip() else ''!r}"
        if language == "toml" and re.fullmatch(r"# [\w.-]+\.toml", text.splitlines()[0]):
            (folder / text.splitlines()[0][2:]).write_text(text, encoding="utf-8")
        elif directive and directive.startswith("file "):
            (folder / directive[5:].strip()).write_text(text, encoding="utf-8")
        elif language in COMMAND_LANGUAGES:
            if skip_reason(directive):
                skipped += 1
                last_output = None
            else:
                expected = 0
                code = text
                if directive and directive.startswith("exit "):
                    expected = int(directive[5:])
                elif directive and directive.startswith("setup"):
                    code = directive[len("setup"):].strip("\n") + "\n" + text
                else:
                    assert directive is None, f"{where}: unknown directive {directive!r}"
                status, last_output = run_block(language, code, folder, env)
                assert status == expected, f"{where}: exit {status}, not {expected}:\n{last_output}"
                assert "internal error" not in last_output, f"{where}:\n{last_output}"
                ran += 1
        elif is_sample_output(language, directive, gap, previous):
            assert last_output is not None, f"{where}: the sample output of a skipped block"
            check_sample(text, last_output, where)
            checked += 1
        elif language in OUTPUT_LANGUAGES:
            assert directive == "output of make demo" or re.fullmatch(
                r"illustration \(.+\)", directive or "", re.S), \
                f"{where}: neither a sample output (right after a command) nor marked"
        previous = (language, text)
    return ran, skipped, checked


@pytest.mark.parametrize("page", PAGES)
def test_every_skip_is_marked_with_a_reason_and_counted(page):
    skips = 0
    for language, _, directive, _ in blocks(page):
        if directive and directive.startswith("skip"):
            assert skip_reason(directive), f"{page}: a skip without a reason: {directive!r}"
            assert language in COMMAND_LANGUAGES
            skips += 1
    assert skips == EXPECTED_SKIPS[page]


def test_the_sample_output_rule():
    output = "a 1\nb 2\nc 3\nd 4\n"
    assert sample_pattern("b ...\nc 3\n").search(output)
    assert sample_pattern("a 1\n...\nd 4\n").search(output)
    assert sample_pattern("a 1\n...\nb 2\n").search(output)  # "..." may match no line
    assert not sample_pattern("a 1\nc 3\n").search(output)  # consecutive lines stay consecutive
    assert not sample_pattern("b 3\n").search(output)  # numbers are compared as written
    assert not sample_pattern("d ...\na 1\n").search(output)  # in order


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_as_written(page, tmp_path):
    ran, skipped, checked = run_page(page, tmp_path)
    assert ran >= 1 and skipped == EXPECTED_SKIPS[page]
    print(f"{page}: {ran} blocks run, {skipped} skipped, {checked} sample outputs checked")


# --- make demo: its sample output, and the tour report's JSON -------------------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """scripts/demo.sh (what `make demo` runs after building) into a temporary folder."""
    folder = tmp_path_factory.mktemp("demo")
    (folder / "examples").symlink_to(ROOT / "examples")  # the tour names ../examples/count/...
    env = dict(os.environ, ASSAY_DEMO_OUT=str(folder / "out"))
    build = Path(os.environ.get("ASSAY_BUILD_DIR", ROOT / "build")).resolve()
    out = subprocess.run(["bash", str(ROOT / "scripts" / "demo.sh"), str(build)], env=env,
                         cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=1200)
    assert out.returncode == 0, out.stdout[-3000:]
    return folder / "out", out.stdout


def test_make_demo_sample_output(demo):
    out, output = demo
    samples = [(page, text) for page in PAGES for _, text, directive, _ in blocks(page)
               if directive == "output of make demo"]
    assert samples
    for page, text in samples:
        check_sample(text, output, page)
    for name in ["report.html", "report.json", "binary.html", "multiclass.html", "shift.html",
                 "count.html", "segment.html", "soak/report.html", "cv/report.html"]:
        assert (out / name).stat().st_size > 1000, name
    assert sorted(p.name for p in (out / "report_tables").iterdir())


class PageText(HTMLParser):
    """The text of the summary's items and of every table cell of a report page."""

    def __init__(self):
        super().__init__()
        self.summary, self.cells = [], []
        self._buffer, self._target, self._script, self._in_summary = None, None, 0, False

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._script += 1
        elif tag == "ul" and "summary" in (dict(attrs).get("class") or ""):
            self._in_summary = True
        elif tag in ("td", "th") or (tag == "li" and self._in_summary):
            self._buffer, self._target = [], self.cells if tag != "li" else self.summary

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._script -= 1
        elif tag == "ul":
            self._in_summary = False
        elif tag in ("td", "th", "li") and self._buffer is not None:
            self._target.append("".join(self._buffer))
            self._buffer = None

    def handle_data(self, data):
        if self._buffer is not None and not self._script:
            self._buffer.append(data)


# A number as the page prints it: not part of a name (eval_in, m0, recall@precision>=0.8).
NUMBER = re.compile(r"(?<![\w.@=>])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.]*[A-Za-z_=])")


def printed_numbers(text):
    return [(m.group(0), float(m.group(0)))
            for m in NUMBER.finditer(text.replace("\u2212", "-").replace("\u00d7", "x"))]


def half_unit(token):
    """Half a unit in the last place printed: the rounding a printed number may carry."""
    mantissa, _, exponent = token.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals) * (1 + 1e-9)


def json_numbers(value, out=None):
    """Every number of a JSON value, including numbers written as text (exact counts beyond
    2^53, JSON cells of tables)."""
    out = [] if out is None else out
    if isinstance(value, dict):
        for v in value.values():
            json_numbers(v, out)
    elif isinstance(value, list):
        for v in value:
            json_numbers(v, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isfinite(value):
            out.append(float(value))
    elif isinstance(value, str):
        out.extend(x for _, x in printed_numbers(value))
    return out


def document_numbers(doc):
    """The numbers of report.json but those of the summary's sentences, which are what is
    checked (the summary, and each claim's text)."""
    rest = {k: v for k, v in doc.items() if k not in ("summary", "claims")}
    facts = [{k: v for k, v in claim.items() if k != "text"} for claim in doc.get("claims", [])]
    return json_numbers([rest, facts])


def test_report_json_holds_every_number_the_page_shows(demo):
    """Every number printed in the tour page's summary and tables is in report.json, within the
    rounding it is printed with (as a fraction where the page prints a percentage or x100)."""
    out, _ = demo
    page = PageText()
    page.feed((out / "report.html").read_text(encoding="utf-8"))
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    values = sorted(set(document_numbers(doc)))

    def held(x, tolerance):
        for v, t in ((x, tolerance), (x / 100, tolerance / 100), (-x, tolerance)):
            i = bisect.bisect_left(values, v - t)
            if i < len(values) and values[i] <= v + t:
                return True
        return False

    assert len(page.summary) >= 10 and len(page.cells) >= 1000
    shown = [(where, token, x, text) for where, texts in (("summary", page.summary),
                                                          ("table", page.cells))
             for text in texts for token, x in printed_numbers(text)]
    missing = [(where, token, text[:120]) for where, token, x, text in shown
               if not held(x, half_unit(token))]
    assert not missing, missing[:20]
    assert sorted(doc["tables"]) == sorted(p.stem for p in (out / "report_tables").iterdir())


def test_report_json_has_the_paired_comparisons(demo):
    """DeLong's test and the PR curves' crossings are under metrics.comparisons, the same as the
    comparisons table and the summary's sentence (whose count of crossings is the table's), and
    the crossings are where a brute-force comparison of scikit-learn's PR curves finds them."""
    import numpy as np
    from sklearn.metrics import precision_recall_curve

    out, _ = demo
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    [pair] = doc["metrics"]["comparisons"]
    [row] = doc["tables"]["metrics-comparisons"]
    assert (pair["model_a"], pair["model_b"]) == (row["model A"], row["model B"])
    assert pair["delong"]["z"] == row["DeLong z"] and pair["delong"]["p"] == row["DeLong p"]
    assert pair["pr"]["n_crossings"] == len(pair["pr"]["crossings"]) == row["PR crossings"]
    sentence = next(s for s in doc["summary"] if s.startswith("logistic vs boosted"))
    assert f"cross {row['PR crossings']:.0f} times" in sentence

    import csv
    rows = list(csv.DictReader(open(out / "report_predictions.csv")))
    y = np.array([r["label"] == "fraud" for r in rows])
    curves = [precision_recall_curve(y, np.array([float(r[m]) for r in rows]))[:2]
              for m in ("logistic", "boosted")]
    breaks = np.unique(np.concatenate([c[1] for c in curves] + [[1.0]]))
    breaks = breaks[breaks > 0]

    def interpolated(curve, r):  # best precision at any recall >= r
        precision, recall = curve
        return precision[recall >= r].max()

    crossings, last, left = [], 0, 0.0
    for u in breaks:
        a, b = interpolated(curves[0], u), interpolated(curves[1], u)
        sign = 0 if abs(a - b) <= 1e-12 * max(a, b) else (1 if a > b else -1)
        if sign and last and sign != last:
            crossings.append(left)
        last, left = sign or last, u
    np.testing.assert_allclose(pair["pr"]["crossings"], crossings, rtol=1e-12)
