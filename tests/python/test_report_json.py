"""report.json holds every number its page shows, and `make demo` prints what
docs/getting-started.md says it prints: scripts/demo.sh (what `make demo` runs after building)
is run once into a temporary folder; its tour report (examples/report/tour.toml: every section)
is the page checked.

The rule of "holds": every number printed in the page's summary and tables (HTML text, the
number formats of the page) is, within half a unit of its last printed digit, a number of
report.json other than the summary's own sentences — as printed, or as a fraction where the page
prints a percentage or x100, or negated (differences printed as "worse by"). Numbers inside
names (eval_in, m0, recall@precision>=0.8) are not numbers the page shows.
"""
import bisect
import csv
import json
import math
import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import precision_recall_curve

from conftest import ROOT
from test_docs_run import PAGES, blocks, check_sample

ROOT = Path(ROOT)


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
    out, _ = demo
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    [pair] = doc["metrics"]["comparisons"]
    [row] = doc["tables"]["metrics-comparisons"]
    assert (pair["model_a"], pair["model_b"]) == (row["model A"], row["model B"])
    assert pair["delong"]["z"] == row["DeLong z"] and pair["delong"]["p"] == row["DeLong p"]
    assert pair["pr"]["n_crossings"] == len(pair["pr"]["crossings"]) == row["PR crossings"]
    sentence = next(s for s in doc["summary"] if s.startswith("logistic vs boosted"))
    assert f"cross {row['PR crossings']:.0f} times" in sentence

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
