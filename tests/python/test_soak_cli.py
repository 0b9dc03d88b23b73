"""`assay soak` end to end: outputs, numbers recomputed independently, the report page,
reproducibility, real data, and bad input (exit 2 with a message)."""
import csv
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import ROOT, render_page, soak_data

import assay
import assay.soak as soak


@pytest.fixture(scope="module")
def regions(tmp_path_factory):
    out = tmp_path_factory.mktemp("soakdemo")
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "make_soak_demo.py"), str(out)],
                   check=True, capture_output=True)
    return out / "soak_regions.csv"


def run_soak(run_cli, path, out, *extra):
    r = run_cli("soak", path, "--label", "y", "--subset", "region", "--group", "polygon",
                "--folds", "5", "--seed", "3", "--out", out, *extra)
    assert r.returncode == 0, r.stderr
    return r


def test_outputs_and_numbers(run_cli, regions, tmp_path):
    out = tmp_path / "soak"
    r = run_soak(run_cli, regions, out)
    for name in ["results.csv", "pvalues.csv", "summaries.csv", "results.json", "report.html"]:
        assert (out / name).exists(), name
    res = pd.read_csv(out / "results.csv", keep_default_na=False, na_values=["NaN"])
    assert list(res.columns[:9]) == ["data", "learner", "test.subset", "train.subsets",
                                     "test.fold", "seed", "groups", "n.train.groups", "iteration"]
    assert len(res) == 3 * 3 * 5  # 3 subsets x 5 folds x same/other/all
    assert list(res["iteration"]) == list(range(1, len(res) + 1))
    # mlr3resampling's order: train.subsets (all, other, same), test.fold, test.subset.
    order = res["train.subsets"].map({"all": 0, "other": 1, "same": 2})
    keys = list(zip(order, res["test.fold"], res["test.subset"]))
    assert keys == sorted(keys)

    # Recompute every featureless error from the folds the splitter assigns (same seed).
    data = pd.read_csv(regions)
    cv = soak.SOAKFold(n_splits=5, random_state=3)
    y = data["y"].to_numpy()
    errors = []
    for train, test in cv.split(data[["band1"]], y, data["polygon"], subset=data["region"]):
        labels, counts = np.unique(y[train], return_counts=True)
        majority = labels[np.argmax(counts)]
        errors.append(100 * np.mean(y[test] != majority))
    np.testing.assert_allclose(res["error_percent"], errors, rtol=1e-12)

    # Paired t-tests equal scipy's on the per-fold errors.
    pv = pd.read_csv(out / "pvalues.csv", keep_default_na=False, na_values=["NaN"])
    full = pv[pv["n.train.groups"] == 0]
    assert len(full) == 3 * 2
    for _, row in full.iterrows():
        compared = row["comparison"].split("-")[0]
        a = res[(res["test.subset"] == row["test.subset"]) & (res["train.subsets"] == compared)]
        b = res[(res["test.subset"] == row["test.subset"]) & (res["train.subsets"] == "same")]
        a = a.sort_values("test.fold")["error_percent"].to_numpy()
        b = b.sort_values("test.fold")["error_percent"].to_numpy()
        t = stats.ttest_rel(a, b)
        if np.isnan(t.pvalue):
            assert np.isnan(row["p_paired"])
        else:
            np.testing.assert_allclose(row["p_paired"], t.pvalue, rtol=1e-10)
            np.testing.assert_allclose(row["mean_diff"], np.mean(a - b), rtol=1e-12)
        w = stats.ttest_ind(a, b, equal_var=False)
        if not np.isnan(w.pvalue):
            np.testing.assert_allclose(row["p_welch"], w.pvalue, rtol=1e-10)

    # The summary names the subsets and draws a conclusion.
    assert "test subset" in r.stdout and "S" in r.stdout
    assert ("subsets similar" in r.stdout) or ("subsets differ" in r.stdout)
    doc = json.loads((out / "results.json").read_text())
    assert doc["columns"][0] == "data" and len(doc["rows"]) == len(res)


def test_report_renders(run_cli, regions, tmp_path):
    out = tmp_path / "soak"
    run_soak(run_cli, regions, out)
    status = render_page(out / "report.html")
    assert status == "ok:3", status  # Figure 3, Figure 4, Figure 5


def test_reproducible_at_any_thread_count(run_cli, regions, tmp_path):
    outs = []
    for threads in ("1", "2", "1"):
        out = tmp_path / f"t{threads}-{len(outs)}"
        run_soak(run_cli, regions, out, "--threads", threads)
        res = pd.read_csv(out / "results.csv", keep_default_na=False)
        outs.append(res.drop(columns=["train_seconds", "predict_seconds"]))
    pd.testing.assert_frame_equal(outs[0], outs[1])
    pd.testing.assert_frame_equal(outs[0], outs[2])


def test_python_run_matches_cli(run_cli, regions, tmp_path):
    out = tmp_path / "soak"
    run_soak(run_cli, regions, out)
    cli = pd.read_csv(out / "results.csv", keep_default_na=False)
    data = pd.read_csv(regions)
    features = data[[c for c in data.columns if c.startswith("band")]].to_numpy()
    py = soak.run(features, data["y"], subset=data["region"], groups=data["polygon"],
                  n_splits=5, random_state=3, data_name="soak_regions")
    np.testing.assert_allclose(py["error_percent"], cli["error_percent"], rtol=1e-12)
    assert list(py["test.subset"]) == list(cli["test.subset"])
    assert list(py["train.subsets"]) == list(cli["train.subsets"])
    pv = soak.pvalues(py)
    cli_pv = pd.read_csv(out / "pvalues.csv", keep_default_na=False, na_values=["NaN"])
    np.testing.assert_allclose(pv["p_paired"], cli_pv["p_paired"], rtol=1e-12)


def test_one_subset_is_plain_kfold(run_cli, regions, tmp_path):
    r = run_cli("soak", regions, "--label", "y", "--folds", "4", "--drop", "region",
                "--out", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    res = pd.read_csv(tmp_path / "o" / "results.csv", keep_default_na=False)
    assert len(res) == 4 and set(res["train.subsets"]) == {"same"}
    assert "one subset only" in r.stdout


def test_real_data_vowel(run_cli, tmp_path):
    path = soak_data("vowel.csv")
    r = run_cli("soak", path, "--label", "y", "--subset", "subset", "--folds", "10",
                "--out", tmp_path / "v")
    assert r.returncode == 0, r.stderr
    res = pd.read_csv(tmp_path / "v" / "results.csv", keep_default_na=False)
    assert len(res) == 2 * 10 * 3
    # vowel's classes are balanced in both subsets: featureless error is near 100·10/11.
    assert abs(res["error_percent"].mean() - 100 * 10 / 11) < 3
    for line in ("train", "test"):
        assert line in r.stdout
    assert render_page(tmp_path / "v" / "report.html").startswith("ok:")


def test_real_data_aztrees_with_groups_reproducible(run_cli, tmp_path):
    path = soak_data("aztrees.csv")
    frames = []
    for threads in ("1", "2"):
        out = tmp_path / f"a{threads}"
        r = run_cli("soak", path, "--label", "y", "--subset", "region3", "--group", "polygon",
                    "--drop", "xcoord,ycoord,region4", "--folds", "10", "--threads", threads,
                    "--out", out)
        assert r.returncode == 0, r.stderr
        assert "NE" in r.stdout and ("subsets differ" in r.stdout or "similar" in r.stdout)
        res = pd.read_csv(out / "results.csv", keep_default_na=False)
        frames.append(res.drop(columns=["train_seconds", "predict_seconds"]))
    res = frames[0]
    assert len(res) == 3 * 10 * 3
    assert set(res["test.subset"]) == {"NE", "NW", "S"}
    pd.testing.assert_frame_equal(frames[0], frames[1])
    # Polygons are never split: every polygon's rows are in one test fold.
    data = pd.read_csv(path)
    cv = soak.SOAKFold(n_splits=10, random_state=1)
    cv.split(data[["SAMPLE_1"]], data["y"], data["polygon"], subset=data["region3"])
    folds = pd.Series(np.asarray(cv.folds_))
    assert (folds.groupby(data["polygon"]).nunique() == 1).all()


def test_several_data_sets_share_one_report(run_cli, regions, tmp_path):
    data = pd.read_csv(regions)
    second = tmp_path / "second.csv"
    data.assign(y=np.where(data["band1"] > 0.5, "Tree", "Not tree")).to_csv(second, index=False)
    out = tmp_path / "two"
    r = run_cli(
        "soak", regions, second, "--label", "y", "--subset", "region", "--group", "polygon",
        "--folds", "5", "--out", out)
    assert r.returncode == 0, r.stderr
    res = pd.read_csv(out / "results.csv", keep_default_na=False)
    assert list(dict.fromkeys(res["data"])) == ["soak_regions", "second"]
    assert len(res) == 2 * 45
    assert render_page(out / "report.html") == "ok:4"  # Figure 3 twice, Figures 4 and 5
    dup = run_cli("soak", regions, regions, "--label", "y", "--subset", "region",
                  "--out", tmp_path / "dup")
    assert dup.returncode == 2 and "unique" in dup.stderr


@pytest.mark.parametrize("args, message", [
    (["--subset", "nope"], r'no column "nope"'),
    (["--subset", "region", "--label", "region"], "must differ"),
    (["--subset", "region", "--learners", "featureless,magic"], r'unknown learner "magic"'),
    (["--subset", "region", "--folds", "1"], "fold"),
    (["--subset", "region", "--folds", "100000"], "fewer"),
    (["--subset", "region", "--features", "band1", "--drop", "band2"], "excludes"),
    (["--subset", "region", "--task", "clustering"], "classification or regression"),
    (["--subset", "region", "--seed", "-3"], "--seed: expected an integer in 0..18446744073709551615"),
    (["--subset", "region", "--sizes", "-2"], "sizes"),
    (["--subset", "region", "--ratio", "1.5"], "ratio"),
    (["--subset", "region", "--subsets", "SX"], "subsets"),
])
def test_bad_input(run_cli, regions, tmp_path, args, message):
    base = ["soak", regions, "--label", "y", "--out", tmp_path / "bad"]
    if "--label" in args:
        i = args.index("--label")
        base = ["soak", regions, "--label", args[i + 1], "--out", tmp_path / "bad"]
        args = args[:i] + args[i + 2:]
    r = run_cli(*base, *args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.startswith("assay: ")
    import re
    assert re.search(message, r.stderr), r.stderr


def test_bad_files(run_cli, tmp_path):
    r = run_cli("soak", tmp_path / "missing.csv", "--label", "y", "--out", tmp_path / "o")
    assert r.returncode == 2 and "missing.csv: cannot open" in r.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("region,y,x\nA,1,0.5\nA,0,nan\nB,1,0.1\nB,0,0.2\n")
    r = run_cli("soak", bad, "--label", "y", "--subset", "region", "--folds", "2",
                "--out", tmp_path / "o")
    assert r.returncode == 2 and "bad.csv" in r.stderr and "found nan" in r.stderr, r.stderr
    one = tmp_path / "one.csv"
    one.write_text("region,y,x\nA,1,0.5\nA,1,0.4\nB,1,0.1\nB,1,0.2\n")
    r = run_cli("soak", one, "--label", "y", "--subset", "region", "--folds", "2",
                "--out", tmp_path / "o")
    assert r.returncode == 2 and "class" in r.stderr, r.stderr


def test_fold_not_constant_within_group_names_file_values(run_cli, tmp_path):
    # The message names the file's own group and fold values and 1-based data rows.
    bad = tmp_path / "grp.csv"
    bad.write_text("y,x,region,poly,f\na,1,A,17,1\nb,2,A,42,2\na,3,B,17,1\nb,4,B,42,1\n")
    r = run_cli("soak", bad, "--label", "y", "--subset", "region", "--group", "poly", "--fold",
                "f", "--out", tmp_path / "o")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == (
        f'assay: {bad}: fold column "f" is not constant within group 42 of column "poly": '
        'data row 2 has fold 2, data row 4 has fold 1'), r.stderr


def write_ids(path, n):
    """n rows: a numeric feature, a text column of n distinct ids, a subset and a label."""
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.normal(size=n), "id": [f"u{i}" for i in range(n)],
                  "region": np.where(np.arange(n) % 2 == 1, "A", "B"),
                  "y": np.where(rng.normal(size=n) > 0, "a", "b")}).to_csv(path, index=False)
    return path


def limited_memory(limit):
    def set_limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return set_limit


def test_text_feature_with_many_values_is_refused_up_front(tmp_path):
    """Issue 38: a text column of 20,000 distinct values in 20,000 rows (a 1 MB CSV) was one-hot
    encoded densely: 3.1 GB, bad_alloc at 40,000 rows. Now refused before any allocation, under a
    1.5 GB address-space limit, naming the column, its values, the memory and the option."""
    data = write_ids(tmp_path / "ids.csv", 20000)
    cli = os.environ.get("ASSAY_CLI") or os.path.join(ROOT, "build", "assay")

    def soak_under_limit(*extra):
        return subprocess.run([cli, "soak", str(data), "--label", "y", "--subset", "region",
                               "--folds", "2", "--out", str(tmp_path / "o"), *extra],
                              capture_output=True, text=True, timeout=120,
                              preexec_fn=limited_memory(1500 * 1024 ** 2))

    r = soak_under_limit()
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == (
        f'assay: {data}: text column "id" has 20000 distinct values, more than the limit of 1000 '
        "per text feature: one-hot encoded, the feature matrix would be 20000 rows x 20001 "
        "features, 3.2 GB as 8-byte doubles; drop the column (--drop id) or raise the limit "
        "(--max-levels 20000) if that is intended")
    # The limit lifted: the matrix does not fit the memory either, and is refused before it is
    # allocated (was bad_alloc), naming what to lower.
    r = soak_under_limit("--max-levels", "0")
    assert r.returncode == 2, r.stderr
    assert (f"needs 3.2 GB for the feature matrix of {data} (20000 rows x 20001 features as "
            "8-byte doubles, text columns one-hot encoded), more than the ") in r.stderr
    assert ("this process can allocate; drop text columns with many values (--drop) or lower "
            "--max-levels") in r.stderr
    assert "bad_alloc" not in r.stderr and "internal error" not in r.stderr
    # Dropped, the rest runs within the limit.
    r = soak_under_limit("--drop", "id")
    assert r.returncode == 0, r.stderr
