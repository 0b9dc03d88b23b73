"""`assay cv` (plain K-fold comparison of learners) end to end, its Python twin
`assay.learners.cv`, and learner parameters on `assay soak` / `assay.soak.run`: numbers
recomputed by hand, the report page, reproducibility, real data, and bad input."""
import json
import re

import numpy as np
import pandas as pd
import pytest

from conftest import render_page, soak_data

import assay
import assay.learners as learners
import assay.soak as soak

ALL = ["featureless", "glmnet", "cart", "knn", "xgboost"]


def make_data(rng, n=120):
    x1 = rng.normal(size=n)
    x2 = rng.normal(size=n)
    y = np.where(x1 + 0.3 * rng.normal(size=n) > 0.4, "yes", np.where(x2 > 0, "no", "maybe"))
    fold = rng.integers(1, 5, n)
    grp = np.arange(n) // 4
    return pd.DataFrame({"x1": x1, "x2": x2, "y": y, "fold": fold, "grp": grp})


@pytest.fixture
def data(rng, tmp_path):
    df = make_data(rng)
    path = tmp_path / "toy.csv"
    df.to_csv(path, index=False)
    return df, path


def featureless_errors(y, folds):
    """K-fold featureless by hand: majority class outside the fold (ties: first in sorted
    order), percent of the fold's rows not of that class; folds in increasing order."""
    out = []
    for f in np.unique(folds):
        labels, counts = np.unique(y[folds != f], return_counts=True)
        majority = labels[np.argmax(counts)]
        out.append(100 * np.mean(y[folds == f] != majority))
    return np.array(out)


def read(path):
    return pd.read_csv(path, keep_default_na=False, na_values=["NaN"])


def run_cv(run_cli, path, out, *extra):
    r = run_cli("cv", path, "--label", "y", "--learners", "featureless", "--drop", "fold,grp",
                "--out", out, *extra)
    assert r.returncode == 0, r.stderr
    return r


def test_outputs_and_hand_computed_kfold(run_cli, data, tmp_path):
    df, path = data
    out = tmp_path / "cv"
    r = run_cv(run_cli, path, out, "--folds", "5", "--seed", "3", "--threads", "1")
    for name in ["results.csv", "summary.csv", "results.json", "report.html"]:
        assert (out / name).exists(), name
    res = read(out / "results.csv")
    assert list(res.columns) == ["data", "learner", "test.fold", "n_train", "n_test",
                                 "error_percent", "auc", "mse", "mae", "train_seconds",
                                 "predict_seconds", "hyperparameters", "failure"]
    assert list(res["test.fold"]) == [1, 2, 3, 4, 5]
    assert set(res["data"]) == {"toy"} and set(res["failure"]) == {""}
    assert (res["n_train"] + res["n_test"] == len(df)).all()
    # The folds are soak's with one subset: random within each class, same seed.
    y = df["y"].to_numpy()
    folds = np.zeros(len(df), int)
    cv = soak.SOAKFold(n_splits=5, random_state=3)
    for k, (train, test) in enumerate(cv.split(df[["x1"]], y, subset=np.zeros(len(df)))):
        folds[test] = k + 1
    np.testing.assert_allclose(res["error_percent"], featureless_errors(y, folds), rtol=1e-12)
    # Stratified: per class, fold sizes differ by at most one.
    for c in np.unique(y):
        sizes = np.bincount(folds[y == c], minlength=6)[1:]
        assert sizes.max() - sizes.min() <= 1

    summary = read(out / "summary.csv")
    assert list(summary.columns) == ["data", "learner", "measure", "mean", "sd", "n", "n_failed",
                                     "auc_mean", "auc_sd", "train_seconds_mean",
                                     "train_seconds_sd", "predict_seconds_mean", "first_failure"]
    row = summary.iloc[0]
    assert (row["data"], row["learner"], row["measure"]) == ("toy", "featureless",
                                                             "error_percent")
    np.testing.assert_allclose(row["mean"], res["error_percent"].mean(), rtol=1e-12)
    np.testing.assert_allclose(row["sd"], res["error_percent"].std(ddof=1), rtol=1e-12)
    np.testing.assert_allclose(row["train_seconds_mean"], res["train_seconds"].mean(), rtol=1e-9)
    assert (row["n"], row["n_failed"]) == (5, 0) and np.isnan(row["auc_mean"])

    # stdout: the description, then the table with mean ± SD per learner.
    assert r.stdout.startswith("K-fold cross-validation (SOAK paper §4.1) on toy (120 rows, "
                               "2 features, 3 classes; 5 folds). Learners: featureless.")
    line = next(l for l in r.stdout.splitlines() if l.startswith("toy"))
    assert f"{row['mean']:.2f}\u00b1{row['sd']:.2f}" in line
    assert "results.csv,summary.csv,results.json,report.html" in r.stderr

    j = json.loads((out / "results.json").read_text())
    assert j["measure"] == "error_percent"
    assert j["summaries"][0]["learner"] == "featureless"
    assert j["results"]["columns"] == list(res.columns)
    assert len(j["results"]["rows"]) == 5


def test_given_fold_column_and_groups(run_cli, data, tmp_path):
    df, path = data
    r = run_cli("cv", path, "--label", "y", "--learners", "featureless", "--fold", "fold",
                "--drop", "grp", "--out", tmp_path / "given")
    assert r.returncode == 0, r.stderr
    res = read(tmp_path / "given" / "results.csv")
    y = df["y"].to_numpy()
    np.testing.assert_allclose(res["error_percent"],
                               featureless_errors(y, df["fold"].to_numpy()), rtol=1e-12)
    assert 'Folds given by column "fold"' in r.stdout
    # Groups: the 4 rows of a group share a fold, so every test fold is whole groups.
    r = run_cli("cv", path, "--label", "y", "--learners", "featureless", "--group", "grp",
                "--drop", "fold", "--folds", "3", "--out", tmp_path / "grouped")
    assert r.returncode == 0, r.stderr
    res = read(tmp_path / "grouped" / "results.csv")
    assert (res["n_test"] % 4 == 0).all() and res["n_test"].sum() == len(df)


def test_json_flag_report_and_threads(run_cli, data, tmp_path):
    _, path = data
    r1 = run_cv(run_cli, path, tmp_path / "a", "--threads", "1", "--json")
    summary = json.loads(r1.stdout)
    assert set(summary) == {"measure", "summaries"}
    assert summary["summaries"][0]["n"] == 10
    r2 = run_cv(run_cli, path, tmp_path / "b", "--threads", "2")
    assert "data" in r2.stdout and "featureless" in r2.stdout  # the table, not JSON
    a, b = read(tmp_path / "a" / "results.csv"), read(tmp_path / "b" / "results.csv")
    pd.testing.assert_series_equal(a["error_percent"], b["error_percent"])
    assert render_page(tmp_path / "b" / "report.html") == "ok:2"


def test_python_cv_matches_cli(run_cli, data, tmp_path):
    df, path = data
    run_cv(run_cli, path, tmp_path / "cli", "--folds", "4", "--seed", "9")
    cli = read(tmp_path / "cli" / "results.csv")
    py = learners.cv(df[["x1", "x2"]].to_numpy(), df["y"].to_numpy(), learners=["featureless"],
                     n_splits=4, random_state=9, data_name="toy", report=tmp_path / "py.html")
    np.testing.assert_allclose(py.results["error_percent"], cli["error_percent"], rtol=1e-15)
    assert list(py.results.columns) == list(cli.columns)
    assert py.summary["mean"][0] == pytest.approx(cli["error_percent"].mean(), rel=1e-12)
    assert py.description.startswith("K-fold cross-validation (SOAK paper §4.1) on toy")
    assert render_page(tmp_path / "py.html") == "ok:2"
    # Given folds and groups from Python.
    given = learners.cv(df[["x1", "x2"]], df["y"], learners="featureless", fold=df["fold"])
    np.testing.assert_allclose(given.results["error_percent"],
                               featureless_errors(df["y"].to_numpy(), df["fold"].to_numpy()),
                               rtol=1e-12)
    grouped = learners.cv(df[["x1", "x2"]], df["y"], learners="featureless", groups=df["grp"],
                          n_splits=3)
    assert (grouped.results["n_test"] % 4 == 0).all()


def test_several_files_share_one_report(run_cli, data, rng, tmp_path):
    _, path = data
    other = tmp_path / "other.csv"
    make_data(rng, 90).to_csv(other, index=False)
    r = run_cv(run_cli, path, tmp_path / "two", other)
    summary = read(tmp_path / "two" / "summary.csv")
    assert list(summary["data"]) == ["toy", "other"]
    assert "toy (120 rows" in r.stdout and "other (90 rows" in r.stdout
    assert render_page(tmp_path / "two" / "report.html") == "ok:2"
    dup = run_cli("cv", path, path, "--label", "y", "--learners", "featureless",
                  "--out", tmp_path / "dup")
    assert dup.returncode == 2
    assert dup.stderr == 'assay: data set names must be unique ("toy" appears twice)\n'


@pytest.mark.parametrize("args, message", [
    (["--learners", "featureless,magic"],
     'unknown learner "magic"; known learners: featureless, glmnet, cart, knn, xgboost'),
    (["--learners", "featureless", "--learner-param", "featureless.depth=3"],
     'learner "featureless" has no parameter "depth"; its parameters: none'),
    (["--learners", "featureless", "--learner-param", "glmnet.alpha=0.5"],
     'parameters given for learner "glmnet", which is not among the learners (featureless)'),
    (["--learners", "featureless", "--learner-param", "alpha=0.5"],
     '--learner-param expects LEARNER.KEY=VALUE (e.g. glmnet.alpha=0.5), found "alpha=0.5"'),
    (["--learners", "featureless", "--learner-param", "knn.k=1", "--learner-param", "knn.k=2"],
     "--learner-param knn.k is given twice"),
    (["--learners", "featureless", "--folds", "1"], None),
    (["--learners", "featureless", "--folds", "1000"], None),
    (["--learners", "featureless", "--task", "clustering"],
     '--task: expected classification or regression, found "clustering"'),
    (["--learners", "featureless", "--seed", "-3"], None),
    (["--learners", "featureless", "--features", "x1", "--drop", "x2"], None),
    (["--learners", "featureless", "--weight", "nope"], None),
])
def test_bad_input(run_cli, data, tmp_path, args, message):
    _, path = data
    r = run_cli("cv", path, "--label", "y", "--out", tmp_path / "bad", *args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.startswith("assay: ")
    if message is not None:
        assert r.stderr == f"assay: {message}\n" or r.stderr.endswith(f"{message}\n"), r.stderr


def test_bad_files(run_cli, tmp_path):
    r = run_cli("cv", tmp_path / "missing.csv", "--label", "y", "--learners", "featureless",
                "--out", tmp_path / "o")
    assert r.returncode == 2 and "missing.csv: cannot open" in r.stderr
    one = tmp_path / "one.csv"
    one.write_text("y,x\n1,0.5\n1,0.4\n1,0.1\n1,0.2\n")
    r = run_cli("cv", one, "--label", "y", "--learners", "featureless", "--folds", "2",
                "--out", tmp_path / "o")
    assert r.returncode == 2 and "class" in r.stderr, r.stderr
    r = run_cli("cv", one, "--learners", "featureless", "--out", tmp_path / "o")
    assert r.returncode != 0 and "--label" in r.stderr


def test_real_data_vowel(run_cli, tmp_path):
    # 11 balanced classes of 90 rows: every fold's featureless error is exactly 10/11.
    path = soak_data("vowel.csv")
    r = run_cli("cv", path, "--label", "y", "--drop", "subset", "--learners", "featureless",
                "--out", tmp_path / "vowel")
    assert r.returncode == 0, r.stderr
    summary = read(tmp_path / "vowel" / "summary.csv")
    assert summary["mean"][0] == pytest.approx(100 * 10 / 11, rel=1e-12)
    assert summary["sd"][0] == 0
    assert "vowel (990 rows, 10 features, 11 classes; 10 folds)" in r.stdout


@pytest.mark.parametrize("name", ALL[1:])
def test_each_learner_in_cv_beats_featureless(run_cli, rng, tmp_path, name):
    n = 200
    X = rng.normal(size=(n, 3))
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["y"] = np.where(X[:, 0] - X[:, 1] > 0, "up", "down")
    path = tmp_path / "easy.csv"
    df.to_csv(path, index=False)
    # Cheaper than the defaults (fewer internal folds, a small xgboost grid): also checks that
    # array and text values of --learner-param reach the learners.
    fast = {"glmnet": ["glmnet.internal_folds=3", "glmnet.rule=lambda.min"],
            "cart": ["cart.cp=0.02"],
            "knn": ["knn.k_max=7", "knn.internal_folds=3"],
            "xgboost": ["xgboost.etas=[0.3]", "xgboost.rounds=[5,20]",
                        "xgboost.internal_folds=3"]}[name]
    r = run_cli("cv", path, "--label", "y", "--learners", f"featureless,{name}", "--folds", "5",
                "--threads", "2", "--out", tmp_path / name,
                *[a for p in fast for a in ("--learner-param", p)])
    assert r.returncode == 0, r.stderr
    s = read(tmp_path / name / "summary.csv").set_index("learner")
    assert s.loc[name, "n"] == 5 and s.loc[name, "n_failed"] == 0
    assert s.loc[name, "mean"] < s.loc["featureless", "mean"] - 10
    assert 0.5 < s.loc[name, "auc_mean"] <= 1
    res = read(tmp_path / name / "results.csv")
    chosen = [json.loads(h) for h in res[res["learner"] == name]["hyperparameters"]]
    if name == "glmnet":
        assert all(h["rule"] == "lambda.min" for h in chosen)
    if name == "knn":
        assert all(1 <= h["k"] <= 7 for h in chosen)
    if name == "xgboost":
        assert all(h["eta"] == 0.3 and h["nrounds"] in (5, 20) for h in chosen)


# ---------------------------------------------------------------------------------------------
# Learner parameters on `assay soak` and assay.soak.run.

def test_soak_learner_param_reaches_the_learner(run_cli, data, tmp_path):
    _, path = data
    base = ["soak", path, "--label", "y", "--subset", "fold", "--drop", "grp", "--folds", "3",
            "--out", tmp_path / "s"]
    r = run_cli(*base, "--learner-param", "featureless.depth=3")
    assert r.returncode == 2
    assert r.stderr == ('assay: learner "featureless" has no parameter "depth"; its parameters: '
                        "none\n")
    r = run_cli(*base, "--learner-param", "glmnet.alpha=0.5")
    assert r.stderr == ('assay: parameters given for learner "glmnet", which is not among the '
                        "learners (featureless)\n")
    r = run_cli(*base, "--learner-param", "glmnet")
    assert r.stderr == ('assay: --learner-param expects LEARNER.KEY=VALUE (e.g. '
                        'glmnet.alpha=0.5), found "glmnet"\n')
    r = run_cli(*base, "--learners", "glmnet", "--learner-param", "glmnet.alpha=0.5",
                "--learner-param", "glmnet.rule=lambda.min")
    assert r.returncode == 0, r.stderr
    assert 'glmnet (parameters: {"glmnet":{"alpha":0.5,"rule":"lambda.min"}})' in r.stdout


def test_soak_run_learner_params(data):
    df, _ = data
    X, y, subset = df[["x1", "x2"]].to_numpy(), df["y"].to_numpy(), df["fold"].to_numpy()
    with pytest.raises(assay.AssayError,
                       match=re.escape('learner "featureless" has no parameter "depth"; its '
                                       "parameters: none")):
        soak.run(X, y, subset=subset, n_splits=3, learner_params={"featureless": {"depth": 3}})
    with pytest.raises(assay.AssayError, match="which is not among the learners"):
        soak.run(X, y, subset=subset, n_splits=3, learner_params={"glmnet": {"alpha": 0.5}})
    with pytest.raises(assay.AssayError, match="learner_params must be a dict of dicts"):
        soak.run(X, y, subset=subset, n_splits=3, learner_params={"glmnet": 0.5})
    # Empty parameters are the defaults: same results as without.
    a = soak.run(X, y, subset=subset, n_splits=3, learner_params={"featureless": {}})
    b = soak.run(X, y, subset=subset, n_splits=3)
    np.testing.assert_array_equal(a["error_percent"], b["error_percent"])
    res = soak.run(X, y, subset=subset, n_splits=3, learners=["glmnet"],
                   learner_params={"glmnet": {"alpha": np.float64(0.5), "n_lambda": 20}})
    assert (res["failure"] == "").all()


def test_a_learner_does_not_depend_on_the_others(run_cli, data, tmp_path):
    """Learner seeds come from (seed, data set, learner name, split): knn alone and knn listed
    after three other learners give the same folds, k and errors."""
    df, path = data
    runs = {}
    for name, learners_arg in (("alone", "knn"), ("with", "featureless,cart,knn")):
        out = run_cli("cv", path, "--label", "y", "--drop", "fold,grp", "--learners",
                      learners_arg, "--folds", "4", "--threads", "1", "--out", tmp_path / name)
        assert out.returncode == 0, out.stderr
        res = pd.read_csv(tmp_path / name / "results.csv")
        runs[name] = res[res.learner == "knn"].reset_index(drop=True)
    for col in ("error_percent", "hyperparameters", "n_train"):
        assert runs["alone"][col].tolist() == runs["with"][col].tolist()


def test_cv_bad_input_of_the_review(run_cli, data, tmp_path):
    df, path = data
    out = run_cli("cv", path, "--label", "y", "--learners", "knn,knn", "--out", tmp_path / "o")
    assert out.returncode == 2
    assert 'learner "knn" is listed twice; list each learner once' in out.stderr
    out = run_cli("cv", path, "--label", "y", "--threads", "-3", "--out", tmp_path / "o")
    assert out.returncode == 2 and "--threads" in out.stderr
    missing = df.copy()
    missing.loc[5, "y"] = ""
    missing.to_csv(tmp_path / "missing.csv", index=False)
    out = run_cli("cv", tmp_path / "missing.csv", "--label", "y", "--learners", "featureless",
                  "--out", tmp_path / "o")
    assert out.returncode == 2
    # An empty cell is a missing value, refused where the reader finds it (line 7: header + 6).
    assert 'missing.csv:7:' in out.stderr, out.stderr
    assert 'expected a value in text column "y", found an empty cell' in out.stderr


def test_weights_that_overflow_and_features_beyond_float32(rng):
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(assay.AssayError, match="the weights sum to more than the largest double"):
        learners.Glmnet(internal_folds=3).fit(X, y, sample_weight=np.full(60, 1e307))
    big = X.copy()
    big[0, 1] = 1e300
    with pytest.raises(assay.AssayError, match="beyond float32's range"):
        learners.Xgboost(etas=[0.3], rounds=[5], internal_folds=3).fit(big, y)


def test_predict_checks_dataframe_column_names(rng):
    df = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    y = (df.a > 0).astype(int)
    model = learners.Cart().fit(df, y)
    with pytest.raises(assay.AssayError, match="feature names differ from those seen in fit"):
        model.predict(df[["c", "b", "a"]])
    np.testing.assert_array_equal(model.predict(df), model.predict(df.to_numpy()))


def test_text_feature_limit_is_an_option_kept_in_registries(run_cli, tmp_path):
    """--max-levels (default 1000) bounds the distinct values of a text feature for cv too, and
    a registry runs its jobs with the limit it was planned with."""
    n = 1200
    rng = np.random.default_rng(1)
    data = tmp_path / "ids.csv"
    pd.DataFrame({"x": rng.normal(size=n), "id": [f"u{i}" for i in range(n)],
                  "y": np.where(rng.normal(size=n) > 0, "a", "b")}).to_csv(data, index=False)
    base = ["cv", data, "--label", "y", "--learners", "featureless", "--folds", "2"]
    r = run_cli(*base, "--out", tmp_path / "o")
    assert r.returncode == 2
    assert r.stderr.strip() == (
        f'assay: {data}: text column "id" has 1200 distinct values, more than the limit of 1000 '
        "per text feature: one-hot encoded, the feature matrix would be 1200 rows x 1201 "
        "features, 11.5 MB as 8-byte doubles; drop the column (--drop id) or raise the limit "
        "(--max-levels 1200) if that is intended")
    r = run_cli(*base, "--max-levels", "-1", "--out", tmp_path / "o")
    assert r.returncode == 2 and "--max-levels" in r.stderr, r.stderr
    reg = tmp_path / "reg"
    r = run_cli(*base, "--max-levels", "1200", "--plan", reg, "--out", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    assert json.load(open(reg / "registry.json"))["experiment"]["columns"]["max_levels"] == 1200
    assert run_cli("job", "run", reg, "--all").returncode == 0
    assert run_cli("job", "collect", reg).returncode == 0
    summary = pd.read_csv(tmp_path / "o" / "summary.csv")
    assert list(summary["n"]) == [2]
