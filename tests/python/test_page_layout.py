"""The visual check of every page kind: each page is built once with the CLI (and the Python
`evaluate(html=...)`) on small generated data, opened in headless Chromium at two widths, and its
DOM measured after the charts have drawn: nothing wider than the viewport, no table running out
of its container, no clipped text (HTML or SVG), no chart label outside its plot, no axis labels
running together, a title on every colour legend, and no console error. Screenshots of every
page at both widths land in the module's temporary folder (printed on failure) for a person to
look at.

How: a copy of each page gets two extra scripts, one at the top of <head> that records errors
and console.error calls from the start, one at the end of <body> that waits for the page's own
render status (report/html.hpp: body data-assay-render) and writes its findings, as JSON, into
the body's data-layout attribute; Chromium's --dump-dom returns it, --screenshot the picture, in
one run per page and width.
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import assay.metrics
from conftest import CHROMIUM, ROOT, cli_path

EXAMPLES = os.path.join(ROOT, "examples")
WIDTHS = (1280, 800)

# Runs before anything else on the page: every error and console.error from the start.
HOOK = """<script>
(function () {
  var seen = window.__layoutErrors = [];
  window.addEventListener("error", function (e) { seen.push("error: " + e.message); });
  window.addEventListener("unhandledrejection", function (e) {
    seen.push("unhandled rejection: " + String(e.reason));
  });
  var original = console.error;
  console.error = function () {
    seen.push("console.error: " + Array.prototype.join.call(arguments, " "));
    return original.apply(console, arguments);
  };
})();
</script>"""

# Runs once the page says its charts are drawn; findings as JSON in body[data-layout].
MEASURE = r"""<script>
(function () {
  "use strict";
  var W = window.innerWidth;
  function describe(el) {
    var name = el.tagName.toLowerCase();
    if (el.id) name += "#" + el.id;
    var cls = el.getAttribute("class");
    if (cls) name += "." + cls.trim().split(/\s+/).join(".");
    var text = (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60);
    return text ? name + " \"" + text + "\"" : name;
  }
  function shown(rect) { return rect.width > 0 || rect.height > 0; }
  function scrollBox(el) {  // the nearest ancestor that scrolls or clips horizontally
    for (var p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      var x = getComputedStyle(p).overflowX;
      if (x !== "visible") return p;
    }
    return null;
  }
  function inside(a, b, tol) {
    return a.left >= b.left - tol && a.right <= b.right + tol &&
           a.top >= b.top - tol && a.bottom <= b.bottom + tol;
  }
  function overlap(a, b) {
    return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
           Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  }
  // Two axis labels run together: their boxes overlap; for rotated labels (whose boxes are
  // not upright) the distance between their parallel baselines is under 80% of the font size.
  function collide(a, b) {
    var turn = /rotate\(([-0-9.e]+)\)/.exec(a.getAttribute("transform") || "");
    var angle = turn ? parseFloat(turn[1]) * Math.PI / 180 : 0;
    if (angle === 0) return overlap(a.getBoundingClientRect(), b.getBoundingClientRect());
    var ma = a.getCTM(), mb = b.getCTM();
    var gap = Math.abs((mb.e - ma.e) * Math.sin(angle)) + Math.abs((mb.f - ma.f) * Math.cos(angle));
    return gap < 0.8 * parseFloat(getComputedStyle(a).fontSize);
  }
  function visibleText(t) {
    return (t.textContent || "").trim() !== "" && t.getAttribute("opacity") !== "0" &&
           shown(t.getBoundingClientRect());
  }
  function measure() {
    var out = {width: W, scrollWidth: document.documentElement.scrollWidth, wide: [],
               clipped: [], tables: [], cells: [], scrolling: [], svgClipped: [], outsidePlot: [],
               overlaps: [], untitledLegends: [], legends: 0, errors: window.__layoutErrors};
    var all = document.body.getElementsByTagName("*");
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.closest("svg")) continue;  // charts are checked below
      var r = el.getBoundingClientRect();
      if (!shown(r)) continue;
      var cs = getComputedStyle(el);
      var box = scrollBox(el);
      if (r.right > W + 1 && !box) out.wide.push(describe(el));
      var clips = cs.overflowX === "hidden" || cs.overflowX === "clip" ||
                  cs.overflowY === "hidden" || cs.overflowY === "clip";
      if (clips && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1))
        out.clipped.push(describe(el));
      if (cs.textOverflow === "ellipsis" && el.scrollWidth > el.clientWidth + 1)
        out.clipped.push(describe(el));
      if ((cs.overflowX === "auto" || cs.overflowX === "scroll") &&
          el.scrollWidth > el.clientWidth + 1)
        out.scrolling.push(describe(el));
      var tag = el.tagName;
      if (tag === "TABLE") {
        var parent = el.parentElement.getBoundingClientRect();
        var scrolls = /auto|scroll/.test(getComputedStyle(el.parentElement).overflowX);
        if (r.right > parent.right + 1 && !scrolls) out.tables.push(describe(el));
      }
      if ((tag === "TD" || tag === "TH") && el.scrollWidth > el.clientWidth + 1)
        out.cells.push(describe(el));
    }
    var charts = document.querySelectorAll("[id^=assay-chart-]");
    for (var c = 0; c < charts.length; c++) {
      var svg = charts[c].querySelector("svg");
      if (!svg) continue;
      var name = "chart " + (c + 1) + " (" + (charts[c].dataset.title || "") + ")";
      var frame = svg.getBoundingClientRect();
      if (frame.right > W + 1) out.wide.push(name);
      var texts = svg.querySelectorAll("text");
      for (var k = 0; k < texts.length; k++) {
        if (visibleText(texts[k]) && !inside(texts[k].getBoundingClientRect(), frame, 1))
          out.svgClipped.push(name + ": \"" + texts[k].textContent + "\"");
      }
      // Data labels (text marks) inside the plot they belong to: the nearest group that draws
      // a background is the plot area (a facet cell or the whole view).
      var marks = svg.querySelectorAll("g.role-mark text");
      for (var m = 0; m < marks.length; m++) {
        if (!visibleText(marks[m])) continue;
        for (var g = marks[m].parentElement; g && g !== svg; g = g.parentElement) {
          var bg = g.querySelector(":scope > path.background");
          if (!bg) continue;
          if (!inside(marks[m].getBoundingClientRect(), bg.getBoundingClientRect(), 2))
            out.outsidePlot.push(name + ": \"" + marks[m].textContent + "\"");
          break;
        }
      }
      var axes = svg.querySelectorAll("g.role-axis-label");
      for (var a = 0; a < axes.length; a++) {
        var labels = Array.prototype.filter.call(axes[a].querySelectorAll("text"), visibleText);
        for (var p = 0; p < labels.length; p++) {
          for (var q = p + 1; q < labels.length; q++) {
            if (collide(labels[p], labels[q]))
              out.overlaps.push(name + ": \"" + labels[p].textContent + "\" / \"" +
                                labels[q].textContent + "\"");
          }
        }
      }
      var legends = svg.querySelectorAll("g.role-legend");
      for (var l = 0; l < legends.length; l++) {
        out.legends += 1;
        var title = legends[l].querySelector("g.role-legend-title text");
        if (!title || !title.textContent.trim()) out.untitledLegends.push(name);
      }
    }
    document.body.setAttribute("data-layout", JSON.stringify(out));
  }
  (function wait() {
    var status = document.body.dataset.assayRender;
    if (status && status !== "pending") setTimeout(measure, 100);
    else setTimeout(wait, 50);
  })();
})();
</script>"""


def run(*args, cwd, env=None):
    out = subprocess.run([*map(str, args)], capture_output=True, text=True, cwd=cwd, env=env,
                         timeout=300)
    assert out.returncode == 0, f"{args}\n{out.stdout}\n{out.stderr}"
    return out


def write_multiclass(path, n_classes=12, n=1200, seed=3):
    """Scores of a decent classifier over `n_classes` classes (more than Okabe & Ito's 8)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    logits = rng.normal(size=(n, n_classes))
    logits[np.arange(n), y] += 2.5
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    names = [f"class_{c:02d}" for c in range(n_classes)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("label," + ",".join("p_" + c for c in names) + "\n")
        for i in range(n):
            f.write(names[y[i]] + "," + ",".join(f"{v:.6f}" for v in p[i]) + "\n")
    return ["p_" + c for c in names]


REPORT_TOML = """title = "Layout check"
out = "report.html"
seed = 1

[metrics]
file = "report_predictions.csv"
label = "label"
pos_label = "fraud"
bootstrap = 100
[metrics.models]
logistic = "logistic"
boosted = "boosted"

[regression]
file = "shift_demo.csv"
label = "power"
bootstrap = 100
[regression.models]
single = "single"
member = "m0"

[soak]
file = "soak_regions.csv"
label = "y"
subset = "region"
group = "polygon"
folds = 3
learners = ["featureless", "cart"]

[cv]
file = "soak_regions.csv"
label = "y"
group = "polygon"
drop = ["region"]
folds = 3
learners = ["featureless", "cart"]

[shift]
file = "shift_demo.csv"
target = "power"
pred = ["single"]
uncertainty = ["single_var"]
partition = "partition"
acceptable = 9
bootstrap = 50

[segment]
truth = "segment/truth"
brain_mask = "segment/brain"
partition = "segment/partition.csv"
[segment.models]
ensemble = ["segment/member0", "segment/member1", "segment/member2"]
member0 = "segment/member0"

[count]
spec = "graph4.spec"
property = "Transitive"
test = "count_test.csv"
label = "label"
samples = [1000]
[count.models]
tree = "count_tree.json"

[compare]
file = "report_predictions.csv"
label = "label"
pos_label = "fraud"
by = ["region"]
metrics = ["roc_auc", "average_precision", "brier"]
resamples = 100
[compare.models]
logistic = "logistic"
boosted = "boosted"
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Every page kind, built once: name -> path of the page."""
    d = tmp_path_factory.mktemp("pages")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    py = sys.executable
    run(py, os.path.join(EXAMPLES, "make_soak_demo.py"), d, cwd=d)
    run(py, os.path.join(EXAMPLES, "make_shift_demo.py"), "shift_demo.csv", "--n", "600",
        "--seed", "1", cwd=d)
    run(py, os.path.join(EXAMPLES, "count", "make_count_demo.py"), d, cwd=d, env=env)
    run(py, os.path.join(EXAMPLES, "segment", "make_demo.py"), "segment", cwd=d)
    run(py, os.path.join(EXAMPLES, "report", "make_report_demo.py"), d, cwd=d, env=env)
    shutil.copy(os.path.join(EXAMPLES, "count", "graph4.spec"), d / "graph4.spec")
    scores = write_multiclass(d / "multi.csv")
    cli = cli_path()
    commands = {
        "metrics-binary": ["metrics", "report_predictions.csv", "--label", "label", "--score",
                           "logistic", "--pos-label", "fraud", "--bootstrap", "100", "--html",
                           "metrics_binary.html"],
        "metrics-multiclass": ["metrics", "multi.csv", "--label", "label", "--score", *scores,
                               "--html", "metrics_multi.html"],
        "cv": ["cv", "soak_regions.csv", "--label", "y", "--group", "polygon", "--drop",
               "region", "--folds", "3", "--learners", "featureless,glmnet,cart", "--out", "cv"],
        "soak": ["soak", "soak_regions.csv", "--label", "y", "--subset", "region", "--group",
                 "polygon", "--folds", "3", "--learners", "featureless,cart", "--sizes", "0",
                 "--out", "soak"],
        "shift": ["shift", "shift_demo.csv", "--target", "power", "--pred", "single",
                  "--uncertainty", "single_var", "--members", "m0", "m1", "m2", "m3", "m4",
                  "--member-vars", "v0", "v1", "v2", "v3", "v4", "--partition", "partition",
                  "--acceptable", "9", "--bootstrap", "50", "--html", "shift.html"],
        "segment": ["segment", "--truth", "segment/truth", "--brain-mask", "segment/brain",
                    "--partition", "segment/partition.csv", "--pred", "segment/member0",
                    "--pred", "segment/member1", "--pred", "segment/member2", "--html",
                    "segment.html"],
        "count": ["count", "--model", "count_tree.json", "--spec", "graph4.spec", "--property",
                  "Transitive", "--test", "count_test.csv", "--label", "label", "--samples",
                  "1000", "--html", "count.html"],
        "regression": ["metrics", "shift_demo.csv", "--task", "regression", "--label", "power",
                       "--models", "single=single", "member=m0", "--bootstrap", "100", "--html",
                       "regression.html"],
        "compare": ["compare", "report_predictions.csv", "--label", "label", "--models",
                    "logistic", "boosted", "--pos-label", "fraud", "--by", "region",
                    "--resamples", "100", "--html", "compare.html"],
    }
    (d / "layout.toml").write_text(REPORT_TOML, encoding="utf-8")
    commands["report"] = ["report", "layout.toml"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for f in [pool.submit(run, cli, *args, "--quiet", cwd=d) for args in commands.values()]:
            f.result()
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 400)
    score = np.clip(0.35 * y + rng.normal(0.35, 0.2, 400), 0, 1)
    assay.metrics.evaluate(y, score, n_bootstrap=100, html=d / "evaluate.html", progress=False)
    files = {"metrics-binary": "metrics_binary.html", "metrics-multiclass": "metrics_multi.html",
             "cv": "cv/report.html", "soak": "soak/report.html", "shift": "shift.html",
             "segment": "segment.html", "count": "count.html", "compare": "compare.html",
             "regression": "regression.html", "report": "report.html", "python-evaluate": "evaluate.html"}
    return {name: d / path for name, path in files.items()}


def render(name, page, width, out_dir):
    """One Chromium run: the page's measured layout and a screenshot at `width`."""
    html = page.read_text(encoding="utf-8")
    head = html.index("<head>") + len("<head>")
    end = html.rindex("</body>")
    copy = out_dir / f"{name}-{width}.html"
    copy.write_text(html[:head] + HOOK + html[head:end] + MEASURE + html[end:], encoding="utf-8")
    shot = out_dir / f"{name}-{width}.png"
    height = 16000 if name == "report" else 5000  # the whole page, for a person to look at
    with tempfile.TemporaryDirectory() as profile:
        out = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
             f"--window-size={width},{height}", "--virtual-time-budget=30000",
             f"--screenshot={shot}", "--dump-dom", copy.as_uri()],
            capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    # The body tag that the page's status script marks (the inlined library mentions "<body").
    body = re.search(r"<body(\s[^>]*data-assay-render[^>]*)>", out.stdout).group(1)
    attr = lambda name: re.search(name + r'="([^"]*)"', body)  # noqa: E731
    layout = attr("data-layout")
    return {"status": attr("data-assay-render").group(1),
            "warnings": attr("data-assay-warnings").group(1) if attr("data-assay-warnings")
            else "0",
            "layout": json.loads(layout.group(1).replace("&quot;", '"').replace("&amp;", "&")
                                 .replace("&lt;", "<").replace("&gt;", ">")) if layout else None,
            "screenshot": shot}


@pytest.fixture(scope="module")
def rendered(pages, tmp_path_factory):
    """(page name, width) -> status, layout and screenshot; two Chromiums at a time."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"chromium not found at {CHROMIUM}: run scripts/install-deps.sh")
    out_dir = tmp_path_factory.mktemp("screenshots")
    jobs = [(name, width) for name in pages for width in WIDTHS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda job: render(job[0], pages[job[0]], job[1], out_dir), jobs)
        return dict(zip(jobs, results))


PAGES = ["metrics-binary", "metrics-multiclass", "cv", "soak", "shift", "segment", "count",
         "compare", "regression", "report", "python-evaluate"]
CASES = [(name, width) for name in PAGES for width in WIDTHS]


@pytest.mark.parametrize("name, width", CASES)
def test_page_renders_without_errors(rendered, name, width):
    r = rendered[(name, width)]
    assert r["status"].startswith("ok:"), (r["status"], r["screenshot"])
    assert r["layout"] is not None, f"the measurement did not run ({r['screenshot']})"
    assert r["layout"]["errors"] == []
    assert r["warnings"] == "0", f"vega warned {r['warnings']} times ({r['screenshot']})"


@pytest.mark.parametrize("name, width", CASES)
def test_nothing_wider_than_the_viewport(rendered, name, width):
    layout = rendered[(name, width)]["layout"]
    where = rendered[(name, width)]["screenshot"]
    assert layout["scrollWidth"] <= width, (layout["scrollWidth"], layout["wide"], where)
    assert layout["wide"] == [], where
    assert layout["tables"] == [], where  # a table runs out of a container that cannot scroll
    assert layout["cells"] == [], where   # a cell's content runs out of the cell


@pytest.mark.parametrize("name, width", CASES)
def test_no_clipped_or_colliding_text(rendered, name, width):
    layout = rendered[(name, width)]["layout"]
    where = rendered[(name, width)]["screenshot"]
    assert layout["clipped"] == [], where
    assert layout["svgClipped"] == [], where
    assert layout["outsidePlot"] == [], where
    assert layout["overlaps"] == [], where


@pytest.mark.parametrize("name", PAGES)
def test_every_colour_legend_has_a_title(rendered, pages, name):
    # Drawn: every legend of every chart shows a title.
    layout = rendered[(name, WIDTHS[0])]["layout"]
    assert layout["untitledLegends"] == []
    # Specified: every colour/shape/size/dash encoding of a field has a title written out (the
    # title Vega-Lite would make up is the field's name, such as "series").
    for spec in page_specs(pages[name]):
        for (channel, field), titles in legend_encodings(spec).items():
            assert any(titles), (spec.get("title"), channel, field)


def test_cv_fold_table_fits_the_page_at_1280(rendered):
    # The hyperparameters are written compactly ("lambda=0.00838, rule=lambda.1se, ..."), so
    # the per-fold table of `assay cv` needs no scrolling on a desktop screen.
    layout = rendered[("cv", 1280)]["layout"]
    assert not any("table-block" in s or s.startswith("table") for s in layout["scrolling"]), \
        layout["scrolling"]


def test_multiclass_legends_say_class(pages):
    specs = page_specs(pages["metrics-multiclass"])
    legends = {spec["title"] if isinstance(spec["title"], str) else spec["title"]["text"]:
               legend_encodings(spec) for spec in specs}
    pr = next(v for k, v in legends.items() if k.startswith("Precision-recall"))
    assert ["Class"] in pr.values()
    # Twelve classes, twelve colours.
    html = pages["metrics-multiclass"].read_text(encoding="utf-8")
    assert "colours repeat" not in html


def test_reliability_axes_name_what_is_plotted(pages):
    binary = next(s for s in page_specs(pages["metrics-binary"])
                  if s["title"].startswith("Reliability diagram"))
    text = json.dumps(binary)
    assert "Frequency of the positive class" in text and "Mean predicted probability" in text
    assert "Accuracy" not in text and "Confidence" not in text
    multi = next(s for s in page_specs(pages["metrics-multiclass"])
                 if s["title"].startswith("Reliability diagram"))
    assert "Accuracy of the top label" in json.dumps(multi)


def headline_domain(page):
    spec = next(s for s in page_specs(page) if s["title"] == "Headline metrics per model")
    return [layer["encoding"]["x"]["scale"]["domain"] for layer in spec["layer"]
            if "scale" in layer["encoding"]["x"]][0]


def test_value_axis_fits_the_data_unless_asked_for_the_whole_range(pages, tmp_path):
    # The tour's headline metrics lie between about 0.45 and 0.97: the axis starts at 0.4.
    assert headline_domain(pages["report"]) == [0.4, 1.0]
    d = pages["report"].parent
    config = tmp_path / "full.toml"
    text = REPORT_TOML.split("[regression]")[0].replace('out = "report.html"', 'out = "full.html"')
    config.write_text(text.replace('seed = 1', 'seed = 1\nchart_axis = "full"')
                      .replace('"report_predictions.csv"', json.dumps(
                          str(d / "report_predictions.csv"))), encoding="utf-8")
    run(cli_path(), "report", config, "--quiet", cwd=tmp_path)
    assert headline_domain(tmp_path / "full.html") == [0, 1]
    # The command line overrides the configuration.
    run(cli_path(), "report", config, "--chart-axis", "fit", "--out", tmp_path / "fit.html",
        "--quiet", cwd=tmp_path)
    assert headline_domain(tmp_path / "fit.html") == [0.4, 1.0]


def test_bad_chart_axis_is_refused(pages, tmp_path):
    d = pages["report"].parent
    out = subprocess.run([cli_path(), "report", d / "layout.toml", "--chart-axis", "wide",
                          "--check"], capture_output=True, text=True, cwd=d)
    assert out.returncode == 2
    assert "chart axis must be fit or full, found \"wide\"" in out.stderr
    config = tmp_path / "bad.toml"
    config.write_text('chart_axis = "unit"\n[metrics]\nfile = "x.csv"\nlabel = "y"\n',
                      encoding="utf-8")
    out = subprocess.run([cli_path(), "report", config], capture_output=True, text=True)
    assert out.returncode == 2
    assert re.search(r'bad\.toml:1:\d+: chart_axis: chart axis must be fit or full, found '
                     r'"unit"', out.stderr), out.stderr


def page_specs(page):
    html = page.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="assay-specs">(.*?)</script>', html,
                  re.S)
    return json.loads(m.group(1))


LEGEND_CHANNELS = ("color", "fill", "stroke", "shape", "size", "strokeDash", "opacity")


def legend_encodings(spec):
    """(channel, field) -> the titles written for it in every layer and sub-view that encodes
    it with a legend."""
    found = {}

    def walk(node):
        if isinstance(node, dict):
            for channel, enc in (node.get("encoding") or {}).items():
                if channel in LEGEND_CHANNELS and isinstance(enc, dict) and "field" in enc \
                        and enc.get("legend", {}) is not None:
                    found.setdefault((channel, enc["field"]), []).append(enc.get("title"))
            for key, value in node.items():
                if key not in ("encoding", "data", "config"):
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return found
