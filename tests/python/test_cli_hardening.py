"""Hostile option values and failing outputs on every subcommand: one rule for seeds, threads,
counts and probabilities; outputs that cannot be written are found before the work and never
left half-written; lost stdout is an error; overflow-safe means and RMSE (exit 2 = bad input)."""
import json
import os
import resource
import subprocess

import numpy as np
import pytest

import assay
from conftest import cli_path

UINT64_MAX = 2**64 - 1


def write(path, text):
    path.write_text(text)
    return path


@pytest.fixture
def scores(tmp_path):
    return write(tmp_path / "m.csv", "y,p,q\n0,0.1,0\n1,0.8,1\n0,0.3,0\n1,0.6,1\n0,0.7,1\n")


@pytest.fixture
def learning(tmp_path):
    rng = np.random.default_rng(0)
    rows = [f"{rng.normal():.3f},{rng.integers(0, 2)}" for _ in range(40)]
    return write(tmp_path / "d.csv", "x,y\n" + "\n".join(rows) + "\n")


def fails_with(r, message):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert message in r.stderr, r.stderr
    assert "internal error" not in r.stderr


# Every subcommand with the option, with the rest of a valid command line.
def commands(scores, learning, tmp_path):
    out = str(tmp_path / "out")
    return {
        "metrics": ["metrics", scores, "--label", "y", "--score", "p"],
        "shift": ["shift", scores, "--target", "y", "--pred", "p"],
        "count": ["count", "--cnf", write(tmp_path / "f.cnf", "p cnf 2 1\n1 2 0\n")],
        "soak": ["soak", learning, "--label", "y", "--folds", "2", "--out", out],
        "cv": ["cv", learning, "--label", "y", "--folds", "2", "--learners", "featureless",
               "--out", out],
    }


@pytest.mark.parametrize("name", ["metrics", "shift", "count", "soak", "cv"])
@pytest.mark.parametrize("seed", ["-1", str(2**64), "1e3"])
def test_bad_seed_is_refused_everywhere(run_cli, scores, learning, tmp_path, name, seed):
    r = run_cli(*commands(scores, learning, tmp_path)[name], "--seed", seed)
    fails_with(r, f'--seed: expected an integer in 0..{UINT64_MAX}, found "{seed}"')


def test_largest_seed_is_accepted(run_cli, scores):
    r = run_cli("metrics", scores, "--label", "y", "--score", "p", "--bootstrap", "20",
                "--seed", str(UINT64_MAX), "--json")
    assert r.returncode == 0, r.stderr
    assert f"seed {UINT64_MAX}" not in r.stderr


@pytest.mark.parametrize("name", ["metrics", "count", "soak", "cv"])
def test_negative_threads_are_refused_everywhere(run_cli, scores, learning, tmp_path, name):
    r = run_cli(*commands(scores, learning, tmp_path)[name], "--threads", "-1")
    fails_with(r, '--threads: expected 0 (all cores) or a positive number of threads, found -1')


def test_negative_threads_in_segment_and_job(run_cli, tmp_path):
    fails_with(run_cli("segment", "--pred", tmp_path, "--truth", tmp_path, "--threads", "-1"),
               "--threads: expected 0 (all cores) or a positive number of threads, found -1")
    fails_with(run_cli("job", "run", tmp_path, "--threads", "-1"),
               "--threads: expected 0 (all cores) or a positive number of threads, found -1")


def test_threads_above_the_cores_are_capped_unless_forced(run_cli, scores):
    cores = os.cpu_count()
    args = ["metrics", scores, "--label", "y", "--score", "p", "--bootstrap", "50", "--json"]
    r = run_cli(*args, "--threads", "1000")
    assert r.returncode == 0, r.stderr
    assert (f"assay: warning: --threads 1000 is more than the {cores} cores of this machine; "
            f"using {cores} (--threads-force or ASSAY_THREADS_FORCE=1 uses 1000 anyway)"
            ) in r.stderr
    forced = run_cli(*args, "--threads", "1000", "--threads-force")
    assert forced.returncode == 0 and "more than the" not in forced.stderr
    assert json.loads(forced.stdout) == json.loads(r.stdout)  # threads never change results


def test_negative_sample_count_is_refused_not_wrapped(run_cli, tmp_path):
    r = run_cli("count", "--model", tmp_path / "m.json", "--spec", tmp_path / "s.spec",
                "--samples", "100,-5")
    fails_with(r, f'--samples: expected an integer in 0..{UINT64_MAX}, found "-5"')


@pytest.mark.parametrize("name", ["metrics", "shift", "count"])
def test_confidence_outside_0_1_is_refused_even_when_unused(run_cli, scores, learning, tmp_path,
                                                           name):
    r = run_cli(*commands(scores, learning, tmp_path)[name], "--confidence", "7")
    fails_with(r, '--confidence: expected a number in (0, 1), found 7')


def test_bootstrap_1_warns_that_the_interval_is_degenerate(run_cli, scores):
    r = run_cli("metrics", scores, "--label", "y", "--score", "p", "--bootstrap", "1")
    assert r.returncode == 0, r.stderr
    assert ("assay: warning: bootstrap: 1 resample gives a zero-width interval (low = high = "
            "that resample's value), not a confidence interval; use 1000 or more resamples "
            "(0 = no intervals)") in r.stderr


@pytest.mark.parametrize("option", ["--json-out", "--html"])
def test_empty_output_name_is_refused(run_cli, scores, option):
    r = run_cli("metrics", scores, "--label", "y", "--score", "p", option, "")
    fails_with(r, f"{option}: expected a file name, found an empty one")


# CLI11 reads "" as 0 for a number: `soak --folds ""` said "folds must be at least 2, found 0",
# `count --epsilon ""` printed a range up to 1.8e308, `--fraction-bits ""` "Value  not in range".
@pytest.mark.parametrize("args,message", [
    (["soak", "{learning}", "--label", "y", "--folds", ""], '--folds: expected a number, found ""'),
    (["soak", "{learning}", "--label", "y", "--seeds", ""], '--seeds: expected a number, found ""'),
    (["cv", "{learning}", "--label", "y", "--folds", ""], '--folds: expected a number, found ""'),
    (["metrics", "{scores}", "--label", "y", "--score", "p", "--bins", ""],
     '--bins: expected a number, found ""'),
    (["count", "--model", "m.json", "--spec", "s.spec", "--epsilon", ""],
     '--epsilon: expected a finite number > 0, found ""'),
    (["count", "--model", "m.json", "--spec", "s.spec", "--epsilon", "0"],
     '--epsilon: expected a finite number > 0, found "0"'),
    (["count", "--model", "m.json", "--spec", "s.spec", "--fraction-bits", "99"],
     '--fraction-bits: expected an integer in 0..60, found "99"'),
    (["count", "--model", "m.json", "--spec", "s.spec", "--time-limit", ""],
     '--time-limit: expected seconds (0 = no limit), found ""'),
    (["encode", "--model", "m.json", "--spec", "s.spec", "--label", "-1", "--out", "o.cnf"],
     '--label: expected an integer in 0..18446744073709551615, found "-1"'),
    (["segment", "--pred", "p", "--truth", "t", "--connectivity", ""],
     '--connectivity: expected a number, found ""'),
])
def test_empty_or_out_of_range_numbers_are_refused_by_name(run_cli, scores, learning, args,
                                                            message):
    r = run_cli(*[a.format(scores=scores, learning=learning) for a in args])
    fails_with(r, message)
    assert "not in range" not in r.stderr


def test_two_outputs_naming_one_file_are_refused_before_writing(run_cli, scores, tmp_path):
    x = tmp_path / "x"
    r = run_cli("metrics", scores, "--label", "y", "--score", "p", "--json-out", x, "--html",
                tmp_path / "." / "x")
    fails_with(r, f"--json-out and --html name the same file {tmp_path / '.' / 'x'}: each "
               "output needs its own file")
    assert not x.exists()
    assert r.stdout == ""  # refused before any work


def test_output_in_a_missing_folder_is_found_before_the_work(run_cli, scores, tmp_path):
    r = run_cli("metrics", scores, "--label", "y", "--score", "p", "--html",
                tmp_path / "no" / "m.html")
    fails_with(r, f"cannot write {tmp_path / 'no' / 'm.html'}: folder {tmp_path / 'no'} does "
               "not exist")
    assert r.stdout == ""


def test_unwritable_out_fails_before_any_learner_is_trained(run_cli, learning, tmp_path):
    blocker = write(tmp_path / "file", "not a folder\n")
    for name in ["soak", "cv"]:
        r = run_cli(name, learning, "--label", "y", "--folds", "2", "--out", blocker / "out")
        fails_with(r, f"{blocker / 'out'}: cannot create directory: Not a directory")
        assert r.stdout == ""


def test_soak_design_too_large_to_run_is_refused_at_once(run_cli, learning, tmp_path):
    r = run_cli("soak", learning, "--label", "y", "--seeds", "1000000000", "--out", tmp_path / "o")
    fails_with(r, "the design has up to 10000000000 splits (train sets x folds x subsets x seeds "
               "x sizes), more than 1000000, each training a learner; lower seeds, sizes or folds")
    r = run_cli("soak", learning, "--label", "y", "--folds", "2", "--sizes", "1000000000",
                "--out", tmp_path / "o")
    assert r.returncode == 0, r.stderr


def limited_file_size(limit):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    return set_limit


def test_file_size_limit_leaves_no_truncated_or_partial_outputs(scores, tmp_path):
    # ulimit -f 50: the page (> 50 KiB) cannot be written; neither it nor the JSON written before
    # it may be left looking complete.
    page, doc = tmp_path / "m.html", tmp_path / "m.json"
    r = subprocess.run([cli_path(), "metrics", scores, "--label", "y", "--score", "p",
                        "--json-out", doc, "--html", page], capture_output=True, text=True,
                       preexec_fn=limited_file_size(50 * 1024), timeout=120)
    fails_with(r, f"cannot write {page}: File too large")
    assert sorted(os.listdir(tmp_path)) == ["m.csv"]


def test_soak_outputs_are_all_or_nothing(learning, tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([cli_path(), "cv", learning, "--label", "y", "--folds", "2", "--learners",
                        "featureless", "--out", out], capture_output=True, text=True,
                       preexec_fn=limited_file_size(50 * 1024), timeout=120)
    fails_with(r, f"cannot write {out / 'report.html'}: File too large")
    assert os.listdir(out) == []  # results.csv, summary.csv, results.json were not left behind


def test_lost_stdout_is_an_error(scores):
    with open("/dev/full", "w") as full:
        r = subprocess.run([cli_path(), "metrics", scores, "--label", "y", "--score", "p"],
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr == "assay: cannot write to standard output: No space left on device\n"


def test_too_many_bins_are_refused_up_front(run_cli, scores):
    r = run_cli("metrics", scores, "--label", "y", "--score", "p", "--bins", "100000000")
    fails_with(r, "bins must be at most 100000, found 100000000 (its tables alone would need "
               "6.4 GB)")


def test_too_many_classes_are_refused_with_the_memory_they_need(run_cli, tmp_path):
    k = 2000
    path = write(tmp_path / "ids.csv",
                 "y,pred\n" + "".join(f"{i % 3},id{i}\n" for i in range(k)))
    r = run_cli("metrics", path, "--label", "y", "--pred", "pred")
    fails_with(r, f"the labels have {k + 3} classes, more than the limit of 1000: evaluating "
               "them needs more than 0.0 GB (the 2003 x 2003 confusion matrix alone, then "
               f"per-class tables of {k} samples); raise the limit (--max-classes 2003, Python: "
               "max_classes) if that is intended")
    ok = run_cli("metrics", path, "--label", "y", "--pred", "pred", "--max-classes", "2003",
                 "--json")
    assert ok.returncode == 0, ok.stderr


def test_runs_near_the_largest_double(run_cli, tmp_path):
    # Exact (fractions): mean 1e308/3, SD 2/sqrt(3)*1e308; numpy overflows (inf, nan).
    path = write(tmp_path / "r.csv", "v\n1e308\n1e308\n-1e308\n")
    r = run_cli("runs", path, "--value", "v", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["mean"][0] == pytest.approx(3.333333333333333e+307, rel=1e-15)
    assert doc["sd"][0] == pytest.approx(1.1547005383792515e+308, rel=1e-15)
    assert "warning" not in r.stderr
    text = run_cli("runs", path, "--value", "v").stdout
    assert "3.333e+307" in text and "1.155e+308" in text and "-1e+308" in text, text


def test_shift_rmse_of_one_huge_prediction(run_cli, tmp_path):
    path = write(tmp_path / "s.csv", "y,p,u\n1,2,0.1\n2,1e200,0.2\n3,3.5,0.3\n4,4,0.4\n")
    r = run_cli("shift", path, "--target", "y", "--pred", "p", "--uncertainty", "u", "--error",
                "absolute", "--json")
    assert r.returncode == 0, r.stderr
    # Exact: sqrt((1 + (1e200-2)^2 + 0.25) / 4) = 5e199 at double precision (was NaN).
    rmse = list(_find(json.loads(r.stdout), "rmse"))
    assert rmse and all(v == pytest.approx(5e199, rel=1e-15) for v in rmse), rmse


def test_shift_squared_error_overflow_is_named(run_cli, tmp_path):
    path = write(tmp_path / "s.csv", "y,p,u\n1,2,0.1\n2,1e200,0.2\n3,3.5,0.3\n4,4,0.4\n")
    r = run_cli("shift", path, "--target", "y", "--pred", "p", "--uncertainty", "u")
    fails_with(r, 'model "p", sample 2: the error of prediction 1e+200 for target 2 overflows '
               "(more than 1.7976931348623157e+308); the retention curves need finite errors "
               "(try --error absolute)")


def _find(node, key):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key and isinstance(v, (int, float)):
                yield v
            elif k == key and isinstance(v, dict) and "value" in v:
                yield v["value"]
            else:
                yield from _find(v, key)
    elif isinstance(node, list):
        for v in node:
            yield from _find(v, key)


def test_python_twins_apply_the_same_rules():
    y, s = [0, 1, 0, 1], [0.1, 0.8, 0.3, 0.6]
    with pytest.raises(ValueError, match=r"seed: expected an integer in 0\.\.18446744073709551615"):
        assay.metrics.evaluate(y, s, seed=-1)
    with pytest.raises(ValueError, match=r"seed: expected an integer in 0\.\.18446744073709551615"):
        assay.metrics.evaluate(y, s, seed=2**64)
    with pytest.raises(ValueError, match=r"threads: expected 0 \(all cores\) or a positive "):
        assay.metrics.evaluate(y, s, threads=-1)
    with pytest.raises(ValueError, match=r"confidence: expected a number in \(0, 1\), found 7"):
        assay.metrics.evaluate(y, s, confidence=7)
    with pytest.raises(ValueError, match=r"confidence: expected a number in \(0, 1\), found 7"):
        assay.shift.regression_metrics([1.0, 2.0], [1.0, 3.0], confidence=7)
    with pytest.raises(ValueError, match=r"n_resamples: expected an integer"):
        assay.metrics.bootstrap("roc_auc", y, s, n_resamples=-5)
    with pytest.warns(assay.AssayWarning, match="1 resample gives a zero-width interval"):
        assay.metrics.evaluate(y, s, n_bootstrap=1)
    with pytest.raises(ValueError, match="raise the limit"):
        assay.metrics.evaluate(list(range(1500)), y_pred=list(range(1, 1501)),
                               task="classification")
    assert assay.metrics.evaluate([0, 1, 2], y_pred=[1, 2, 0], max_classes=3)["classes"]
    # scikit-learn's n_jobs keeps its meaning (-1 = all cores) and is capped at the cores too.
    from assay.learners import _threads
    assert _threads(1000) == os.cpu_count() and _threads(-1) == os.cpu_count()
