"""cart against R's rpart, computed at test time: same tree (node numbers, split variables,
thresholds, directions, node sizes) and same predicted probabilities, on generated data (ties,
weights with zeros, 2 to 6 classes, deep trees with cp small, depth and bucket limits) and on the
real SOAK data sets when ../shared/data/soak is present. One Rscript call fits every case."""
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import SOAK_DATA, soak_data

_assay = pytest.importorskip("assay._assay")

# Reads each job's binary files, fits rpart, writes the frame's nodes and the predictions.
R_SCRIPT = r"""
suppressMessages(library(rpart))
jobs <- readLines(commandArgs(trailingOnly = TRUE)[1])
for (job in jobs) {
  a <- strsplit(job, "\t")[[1]]
  prefix <- a[1]; n <- as.integer(a[2]); m <- as.integer(a[3]); p <- as.integer(a[4])
  k <- as.integer(a[5]); control <- eval(parse(text = a[6]))
  con <- file(paste0(prefix, ".train"), "rb")
  x <- matrix(readBin(con, "double", n * p), n, p, byrow = TRUE)
  y <- readBin(con, "integer", n)
  w <- readBin(con, "double", n)
  close(con)
  con <- file(paste0(prefix, ".test"), "rb")
  xt <- matrix(readBin(con, "double", m * p), m, p, byrow = TRUE)
  close(con)
  d <- as.data.frame(x); names(d) <- paste0("x", seq_len(p) - 1L)
  d$y <- factor(y, levels = seq_len(k) - 1L)
  dt <- as.data.frame(xt); names(dt) <- paste0("x", seq_len(p) - 1L)
  fit <- rpart(y ~ ., data = d, weights = w, method = "class", control = control)
  ff <- fit$frame
  is_leaf <- ff$var == "<leaf>"
  first <- cumsum(c(1, ff$ncompete + ff$nsurrogate + !is_leaf))
  rows <- first[c(!is_leaf, FALSE)]
  cut <- rep(NA_real_, nrow(ff)); ncat <- rep(0L, nrow(ff))
  if (any(!is_leaf)) {
    cut[!is_leaf] <- fit$splits[rows, "index"]
    ncat[!is_leaf] <- as.integer(fit$splits[rows, "ncat"])
  }
  writeLines(sprintf("%s %s %d %.17g %.17g %d", rownames(ff), as.character(ff$var), ff$n, ff$wt,
                     cut, ncat), paste0(prefix, ".tree"))
  writeBin(as.vector(t(predict(fit, newdata = dt, type = "prob"))), paste0(prefix, ".pred"))
}
"""

DEFAULT = "rpart.control(xval = 0)"


def generated(seed, n, p, k, decimals=None, weights=None):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    if decimals is not None:
        x = np.round(x, decimals)
    score = x[:, 0] + 0.7 * x[:, 1] * np.sign(x[:, 2]) + 0.5 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1])).astype(np.int32)
    w = None
    if weights == "fractional":
        w = rng.uniform(0, 3, n)
        w[rng.random(n) < 0.1] = 0.0
    elif weights == "integer":
        w = rng.integers(0, 4, n).astype(float)
    test = rng.normal(size=(200, p))
    if decimals is not None:
        test = np.round(test, decimals)
    return x, y, k, w, test


def soak_case(name, features=None, label="y", subset=None):
    import pandas as pd
    path = os.path.join(SOAK_DATA, name)
    if not os.path.exists(path):
        return None
    df = pd.read_csv(path)
    if features is None:
        features = [c for c in df.columns if c not in (label, "subset")]
    labels = df[label].astype(str).to_numpy()
    classes = sorted(set(labels), key=lambda v: (float(v) if v.replace(".", "").isdigit() else v))
    y = np.array([classes.index(v) for v in labels], dtype=np.int32)
    x = df[features].to_numpy(float)
    if subset is not None:
        train = df["subset"].to_numpy() == subset
        return x[train], y[train], len(classes), None, x[~train]
    return x, y, len(classes), None, x


# name -> (data, assay parameters, R control)
CASES = {
    "binary": (lambda: generated(1, 300, 5, 2), {}, DEFAULT),
    "ties_3_classes": (lambda: generated(2, 500, 6, 3, decimals=1), {}, DEFAULT),
    "weights_with_zeros": (lambda: generated(3, 500, 6, 3, decimals=1, weights="fractional"), {},
                           DEFAULT),
    "integer_weights_6_classes": (lambda: generated(4, 600, 4, 6, decimals=0, weights="integer"),
                                  {}, DEFAULT),
    "deep_tree": (lambda: generated(5, 800, 6, 4, decimals=2),
                  {"cp": 0.0001, "min_split": 4},
                  "rpart.control(xval = 0, cp = 1e-4, minsplit = 4)"),
    "deep_tree_weighted": (lambda: generated(6, 600, 5, 3, decimals=1, weights="fractional"),
                           {"cp": 0.0, "min_split": 2},
                           "rpart.control(xval = 0, cp = 0, minsplit = 2)"),
    "max_depth_2": (lambda: generated(7, 500, 5, 3), {"max_depth": 2, "cp": 0.001},
                    "rpart.control(xval = 0, maxdepth = 2, cp = 0.001)"),
    "min_bucket_only": (lambda: generated(8, 400, 5, 2, decimals=1), {"min_bucket": 15},
                        "rpart.control(xval = 0, minbucket = 15)"),
    "vowel": (lambda: soak_case("vowel.csv", subset="train"), {}, DEFAULT),
    "vowel_deep": (lambda: soak_case("vowel.csv", subset="train"), {"cp": 0.001, "min_split": 5},
                   "rpart.control(xval = 0, cp = 0.001, minsplit = 5)"),
    "waveform": (lambda: soak_case("waveform.csv", subset="train"), {}, DEFAULT),
    "aztrees": (lambda: soak_case("aztrees.csv", features=[f"SAMPLE_{i}" for i in range(1, 22)]),
                {"cp": 0.002}, "rpart.control(xval = 0, cp = 0.002)"),
    # Surrogates and competitors only matter for missing values: off to keep the test fast.
    "zipUSPS": (lambda: soak_case("zipUSPS.csv", subset="train"), {},
                "rpart.control(xval = 0, maxsurrogate = 0, maxcompete = 0)"),
}
SOAK_FILES = {"vowel": "vowel.csv", "vowel_deep": "vowel.csv", "waveform": "waveform.csv",
              "aztrees": "aztrees.csv", "zipUSPS": "zipUSPS.csv"}


def read_r_tree(path):
    nodes = []
    for line in open(path):
        node, var, n, wt, cut, ncat = line.split()
        nodes.append({"node": int(node), "var": var, "n": int(n), "wt": float(wt),
                      "threshold": None if cut == "NA" else float(cut), "ncat": int(ncat)})
    return nodes


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """{case: (assay description, assay predictions, R tree, R predictions)}; one Rscript run."""
    if shutil.which("Rscript") is None:
        pytest.fail("Rscript not found: run scripts/install-deps.sh (r-base-core, r-cran-rpart)")
    work = tmp_path_factory.mktemp("cart")
    jobs, data = [], {}
    for name, (make, params, control) in CASES.items():
        case = make()
        if case is None:
            continue
        x, y, k, w, test = case
        prefix = str(work / name)
        with open(prefix + ".train", "wb") as f:
            f.write(np.ascontiguousarray(x, "<f8").tobytes())
            f.write(np.ascontiguousarray(y, "<i4").tobytes())
            f.write(np.ascontiguousarray(np.ones(len(y)) if w is None else w, "<f8").tobytes())
        with open(prefix + ".test", "wb") as f:
            f.write(np.ascontiguousarray(test, "<f8").tobytes())
        jobs.append("\t".join([prefix, str(len(y)), str(len(test)), str(x.shape[1]), str(k),
                               control]))
        data[name] = (x, y, k, w, test, params)
    (work / "jobs.txt").write_text("\n".join(jobs) + "\n")
    (work / "peer.R").write_text(R_SCRIPT)
    subprocess.run(["Rscript", str(work / "peer.R"), str(work / "jobs.txt")], check=True,
                   timeout=600)
    out = {}
    for name, (x, y, k, w, test, params) in data.items():
        model = _assay.learner_fit("cart", json.dumps({**params, "record_tree": True}), x, y,
                                   [str(c) for c in range(k)], None, w, "classification", 0, 1)
        prefix = str(work / name)
        r_pred = np.fromfile(prefix + ".pred", "<f8").reshape(len(test), -1)
        out[name] = (json.loads(model.description), model.predict(test),
                     read_r_tree(prefix + ".tree"), r_pred)
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_same_tree_and_probabilities_as_rpart(results, name):
    if name in SOAK_FILES:
        soak_data(SOAK_FILES[name])  # skips when the real data are absent
    desc, pred, r_tree, r_pred = results[name]
    tree = desc["tree"]
    assert [t["node"] for t in tree] == [r["node"] for r in r_tree]
    for ours, theirs in zip(tree, r_tree):
        assert ours["var"] == theirs["var"], ours["node"]
        assert ours["n"] == theirs["n"], ours["node"]
        assert ours["wt"] == pytest.approx(theirs["wt"], rel=1e-12)
        if theirs["threshold"] is not None:
            assert ours["threshold"] == pytest.approx(theirs["threshold"], rel=1e-9, abs=1e-12)
            assert ours["ncat"] == theirs["ncat"], ours["node"]
    assert desc["nodes"] == len(r_tree)
    assert desc["leaves"] == sum(r["var"] == "<leaf>" for r in r_tree)
    # rpart drops trailing classes absent from the train rows; they have probability 0 here.
    assert np.allclose(pred[:, r_pred.shape[1]:], 0)
    np.testing.assert_allclose(pred[:, :r_pred.shape[1]], r_pred, rtol=0, atol=1e-14)


def test_generated_trees_are_not_trivial(results):
    assert results["deep_tree"][0]["nodes"] > 100
    assert results["deep_tree_weighted"][0]["depth"] > 5
    assert results["max_depth_2"][0]["depth"] == 2


def fit(x, y, k, params="{}", w=None, threads=1):
    return _assay.learner_fit("cart", params, np.asarray(x, float), np.asarray(y, np.int32),
                              [str(c) for c in range(k)], None, w, "classification", 0, threads)


def test_one_class_gives_one_leaf():
    # rpart gives the same single leaf when the class is not its first level (with only the
    # first level present, rpart 4.1.19 stops in its R code: "number of rows of matrices must
    # match").
    x = np.arange(40.0).reshape(20, 2)
    model = fit(x, np.full(20, 1), 3)
    assert json.loads(model.description) == {"nodes": 1, "leaves": 1, "depth": 0}
    np.testing.assert_array_equal(model.predict(x[:2]), [[0, 1, 0], [0, 1, 0]])


def test_constant_features_give_one_leaf():
    model = fit(np.ones((30, 3)), np.arange(30) % 3, 3)
    assert json.loads(model.description)["nodes"] == 1
    np.testing.assert_allclose(model.predict(np.zeros((1, 3))), [[1 / 3, 1 / 3, 1 / 3]])


def test_threads_do_not_change_the_tree():
    # 12000 x 8 entries: the large nodes take the parallel path.
    x, y, k, w, _ = generated(9, 12000, 8, 3, decimals=1, weights="fractional")
    params = '{"cp": 0.001, "record_tree": true}'
    assert fit(x, y, k, params, w, 1).description == fit(x, y, k, params, w, 2).description


def test_bad_input():
    x = np.arange(40.0).reshape(20, 2)
    y = np.arange(20) % 2
    with pytest.raises(Exception, match=r'learner "cart" parameter "cp": expected a number in '
                                        r'\[0, 1\], found -1'):
        fit(x, y, 2, '{"cp": -1}')
    with pytest.raises(Exception, match=r'learner "cart" has no parameter "minsplit"'):
        fit(x, y, 2, '{"minsplit": 5}')
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(Exception, match="row 3"):
        fit(bad, y, 2)
    with pytest.raises(Exception, match='learner "cart" does not support regression'):
        _assay.learner_fit("cart", "{}", x, None, [], np.arange(20.0), None, "regression", 0, 1)
