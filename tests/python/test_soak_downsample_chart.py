"""Issue 41: the SOAK page draws the down-sampled comparisons (mlr3resampling's
pvalue_downsample plot): per test subset and train size, the Same/Other/All mean ± SD and the
paired p-values. The chart's numbers are pvalues.csv's and summaries.csv's rows (the files are
the peer), on the `assay soak` page and in `assay report`'s [soak] section."""
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from conftest import render_page

TITLE = re.compile(r"Same, Other and All at equal train sizes")


def page_specs(html_path):
    html = html_path.read_text()
    found = re.search(r'<script type="application/json" id="assay-specs">(.*?)</script>', html,
                      re.S)
    assert found, "no embedded specs"
    return json.loads(found.group(1)), html


def downsample_specs(specs):
    return [s for s in specs if TITLE.search(json.dumps(s.get("title", "")))]


def soak_data(tmp_path):
    rng = np.random.default_rng(7)
    n = 240
    x = rng.normal(size=(n, 3))
    subset = np.repeat(["A", "B"], [150, 90])
    y = ((x[:, 0] + (subset == "B") * 0.8 + rng.normal(scale=0.7, size=n)) > 0).astype(int)
    frame = pd.DataFrame(x, columns=["x0", "x1", "x2"]).assign(y=y, subset=subset)
    path = tmp_path / "two.csv"
    frame.to_csv(path, index=False)
    return path


def run_soak(run_cli, data, out):
    done = run_cli("soak", data, "--label", "y", "--subset", "subset", "--learners",
                   "glmnet,featureless", "--folds", "3", "--sizes", "1", "--seed", "3",
                   "--out", out)
    assert done.returncode == 0, done.stderr
    return out


def close(a, b):
    if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
        return (a is None) and (b is None or math.isnan(b))
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def check_chart_equals_tables(spec, pvalues, summaries, data, learner):
    rows = spec["data"]["values"]
    p_rows = [r for r in rows if r["kind"] == "p"]
    expected = pvalues[(pvalues["data"] == data) & (pvalues["learner"] == learner)]
    assert len(p_rows) == len(expected) and len(p_rows) > 0
    assert any(r["n_train_groups"] > 0 for r in p_rows)  # down-sampled sizes are drawn
    for _, want in expected.iterrows():
        got = [r for r in p_rows if r["test_subset"] == want["test.subset"]
               and r["train"] == want["comparison"]
               and r["n_train_groups"] == want["n.train.groups"]]
        assert len(got) == 1, want.to_dict()
        got = got[0]
        assert close(got["same_mean"], want["same_mean"])
        assert close(got["compared_mean"], want["compared_mean"])
        assert close(got["diff"], want["mean_diff"])
        assert close(got["p"], want["p_paired"])
        assert got["size"] == ("full" if want["n.train.groups"] == 0
                               else f"{want['n.train.groups']} train groups")
    stats = [r for r in rows if r["kind"] == "stat"]
    sizes = set(expected["n.train.groups"])
    want_stats = summaries[(summaries["data"] == data) & (summaries["learner"] == learner)
                           & summaries["n.train.groups"].isin(sizes)]
    assert len(stats) == len(want_stats)
    for _, want in want_stats.iterrows():
        got = [r for r in stats if r["test_subset"] == want["test.subset"]
               and r["train"] == want["train.subsets"]
               and r["n_train_groups"] == want["n.train.groups"]]
        assert len(got) == 1
        assert close(got[0]["mean"], want["mean"]) and close(got[0]["sd"], want["sd"])
        assert got[0]["n"] == want["n"]


def check_spec_reads(spec):
    # Axis titles, a titled legend, both facets titled.
    layer0 = spec["spec"]["layer"][0]["encoding"]
    assert layer0["x"]["title"] == "test error (%)"
    assert layer0["y"]["title"] == "train subsets"
    assert layer0["color"]["title"] == "drawn"
    assert spec["facet"]["row"]["title"] == "test subset"
    assert spec["facet"]["column"]["title"] == "train size"
    assert spec["facet"]["column"]["sort"][0] == "full"


def test_soak_page_draws_the_downsampled_comparisons(tmp_path, run_cli):
    out = run_soak(run_cli, soak_data(tmp_path), tmp_path / "out")
    pvalues = pd.read_csv(out / "pvalues.csv")
    summaries = pd.read_csv(out / "summaries.csv")
    specs, html = page_specs(out / "report.html")
    charts = downsample_specs(specs)
    assert len(charts) == 2  # one per (data set, learner)
    for spec in charts:
        title = spec["title"] if isinstance(spec["title"], str) else spec["title"]["text"]
        data, learner = re.match(r"(\w+) / (\w+): ", title).groups()
        check_chart_equals_tables(spec, pvalues, summaries, data, learner)
        check_spec_reads(spec)
    assert "Is a gap between train sets due to the subsets or only to the amount of data?" in html
    assert render_page(out / "report.html").startswith("ok:")


def test_no_downsampling_no_chart(tmp_path, run_cli):
    done = run_cli("soak", soak_data(tmp_path), "--label", "y", "--subset", "subset",
                   "--learners", "featureless", "--folds", "3", "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    specs, html = page_specs(tmp_path / "out" / "report.html")
    assert downsample_specs(specs) == []
    assert "equal train sizes" not in html


def test_report_soak_section_draws_it(tmp_path, run_cli):
    data = soak_data(tmp_path)
    config = tmp_path / "report.toml"
    config.write_text(f'[soak]\nfile = "{data}"\nlabel = "y"\nsubset = "subset"\n'
                      'learners = ["featureless"]\nfolds = 3\nsizes = 1\nseed = 3\n')
    done = run_cli("report", config, "--out", tmp_path / "page.html")
    assert done.returncode == 0, done.stderr
    specs, html = page_specs(tmp_path / "page.html")
    charts = downsample_specs(specs)
    assert len(charts) == 1
    soak_out = run_cli("soak", data, "--label", "y", "--subset", "subset", "--learners",
                       "featureless", "--folds", "3", "--sizes", "1", "--seed", "3", "--out",
                       tmp_path / "soak")
    assert soak_out.returncode == 0, soak_out.stderr
    pvalues = pd.read_csv(tmp_path / "soak" / "pvalues.csv")
    summaries = pd.read_csv(tmp_path / "soak" / "summaries.csv")
    check_chart_equals_tables(charts[0], pvalues, summaries, "two", "featureless")
