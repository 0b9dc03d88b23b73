"""glmnet against R's glmnet / cv.glmnet (run at test time through bench/glmnet_peer.R) and
scikit-learn's L1 logistic regression."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

from assay import _assay
import assay

from conftest import ROOT, soak_data

PEER = os.path.join(ROOT, "bench", "glmnet_peer.R")


def need_r():
    if not shutil.which("Rscript"):
        pytest.fail("Rscript not found: run scripts/install-deps.sh (r-base-core, r-cran-glmnet)")


def r_glmnet(mode, x, y, weights=None, lambdas=None, foldid=None, newx=None, alpha=1.0):
    """Runs bench/glmnet_peer.R; returns a dict of numpy arrays (see that script)."""
    need_r()
    n, p = x.shape
    with tempfile.TemporaryDirectory() as d:
        np.ascontiguousarray(x, dtype="<f8").tofile(os.path.join(d, "x.bin"))
        np.asarray(y, dtype="<i4").tofile(os.path.join(d, "y.bin"))
        if weights is not None:
            np.asarray(weights, dtype="<f8").tofile(os.path.join(d, "w.bin"))
        if lambdas is not None:
            np.asarray(lambdas, dtype="<f8").tofile(os.path.join(d, "lambda.bin"))
        if foldid is not None:
            np.asarray(foldid, dtype="<i4").tofile(os.path.join(d, "foldid.bin"))
        if newx is not None:
            np.ascontiguousarray(newx, dtype="<f8").tofile(os.path.join(d, "newx.bin"))
        subprocess.run(["Rscript", PEER, d, mode, str(n), str(p), repr(alpha)], check=True,
                       capture_output=True, timeout=600)
        out = {f[:-4]: np.fromfile(os.path.join(d, f), dtype="<f8")
               for f in os.listdir(d) if f.endswith(".bin")}
    lam = out["lambda"]
    k = out["a0"].size // lam.size
    out["a0"] = out["a0"].reshape(lam.size, k)
    out["beta"] = out["beta"].reshape(k, lam.size, p).transpose(1, 0, 2)
    return out


def expect_same_path(ours, theirs, rtol=1e-4):
    assert len(ours["lambdas"]) == len(theirs["lambda"])
    np.testing.assert_allclose(ours["lambdas"], theirs["lambda"], rtol=1e-10)
    np.testing.assert_allclose(ours["dev_ratio"], theirs["dev"], rtol=1e-6, atol=1e-10)
    # Within 1e-4 relative to the size of the parameter vector (intercepts and coefficients) at
    # that λ: a coefficient just entering the path, or an intercept near 0, has no meaningful
    # relative size of its own.
    L = len(theirs["lambda"])
    params_r = np.hstack([theirs["a0"].reshape(L, -1), theirs["beta"].reshape(L, -1)])
    params_o = np.hstack([ours["intercepts"].reshape(L, -1), ours["coefficients"].reshape(L, -1)])
    scale = np.maximum(np.abs(params_r).max(axis=1), 1e-12)
    err = np.abs(params_o - params_r).max(axis=1) / scale
    assert err.max() < rtol, err.max()
    assert np.array_equal(ours["coefficients"] != 0, theirs["beta"] != 0)


def make_data(rng, n, p, k, separation=0.8):
    x = rng.normal(size=(n, p))
    x[:, 0] = 5 * x[:, 0] + 100  # far from standardised
    w = rng.normal(size=(p, k)) * (rng.random((p, k)) < 0.4) * separation
    z = (x - x.mean(0)) / x.std(0)
    y = np.argmax(z @ w + rng.gumbel(size=(n, k)), axis=1).astype(np.int32)
    return x, y


def read_soak(name, label, drop):
    import csv
    with open(soak_data(name)) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    keep = [j for j, h in enumerate(header) if h not in drop and h != label]
    x = np.array([[float(r[j]) for j in keep] for r in body])
    labels = [r[header.index(label)] for r in body]
    classes = sorted(set(labels))
    y = np.array([classes.index(v) for v in labels], dtype=np.int32)
    return x, y, len(classes)


@pytest.mark.parametrize("k,weighted", [(2, False), (2, True), (4, True)])
def test_path_matches_r_generated(rng, k, weighted):
    x, y = make_data(rng, 400, 12, k)
    x[:, 5] = 3.0  # constant feature: coefficient 0 everywhere
    w = rng.uniform(0.2, 3, size=len(y)) if weighted else None
    ours = _assay.glmnet_path(x, y, k, w)
    expect_same_path(ours, r_glmnet("path", x, y, weights=w))
    assert np.all(ours["coefficients"][:, :, 5] == 0)


def test_path_matches_r_elastic_net_more_features_than_rows(rng):
    x, y = make_data(rng, 60, 150, 3)
    params = json.dumps({"alpha": 0.5})
    ours = _assay.glmnet_path(x, y, 3, None, params)
    theirs = r_glmnet("path", x, y, alpha=0.5)
    expect_same_path(ours, theirs)


def test_path_matches_r_given_lambdas(rng):
    x, y = make_data(rng, 300, 8, 2)
    lambdas = np.geomspace(0.2, 0.001, 30)
    ours = _assay.glmnet_path(x, y, 2, None, "", lambdas)
    expect_same_path(ours, r_glmnet("path", x, y, lambdas=lambdas))


def test_separable_data_stops_like_r():
    x = np.linspace(-1, 1, 60)[:, None] * np.array([[1.0, 0.5]]) + np.array([[0, 0.1]]) * np.cos(
        np.arange(60))[:, None]
    y = (x[:, 0] > 0).astype(np.int32)
    ours = _assay.glmnet_path(x, y, 2)
    assert np.all(np.isfinite(ours["coefficients"]))
    assert len(ours["lambdas"]) < 100 and ours["dev_ratio"][-1] > 0.99
    expect_same_path(ours, r_glmnet("path", x, y))


def test_real_waveform_and_aztrees_paths_match_r():
    x, y, k = read_soak("waveform.csv", "y", {"subset"})
    expect_same_path(_assay.glmnet_path(x, y, k), r_glmnet("path", x, y))
    x, y, k = read_soak("aztrees.csv", "y", {"xcoord", "ycoord", "region3", "region4", "polygon"})
    assert k == 2
    # Collinear spectral bands: R and assay both reach maxit at λ 31 and return 30 values.
    with pytest.warns(Warning, match="glmnet did not converge at λ number 31 within 100000 "
                                     "passes"):
        ours = _assay.glmnet_path(x, y, k)
    assert len(ours["lambdas"]) == 30
    expect_same_path(ours, r_glmnet("path", x, y))


@pytest.mark.parametrize("k", [2, 3])
def test_cv_and_learner_match_cv_glmnet(rng, k):
    x, y = make_data(rng, 300, 10, k)
    w = rng.uniform(0.5, 2, size=len(y))
    newx = rng.normal(size=(20, 10)) * x.std(0) + x.mean(0)
    seed = 11
    folds = _assay.internal_fold_ids(len(y), 10, seed)
    ours = _assay.glmnet_cv(x, y, k, w, "", seed, 2)
    assert np.array_equal(ours["fold_ids"], folds)
    theirs = r_glmnet("cv", x, y, weights=w, foldid=folds + 1, newx=newx)
    expect_same_path(ours, theirs)
    np.testing.assert_allclose(ours["cv_mean"], theirs["cvm"], rtol=1e-6)
    np.testing.assert_allclose(ours["cv_sd"], theirs["cvsd"], rtol=1e-5)
    lam_min, lam_1se = theirs["opt"][:2]
    assert ours["lambdas"][ours["index_min"]] == pytest.approx(lam_min, rel=1e-12)
    assert ours["lambdas"][ours["index_1se"]] == pytest.approx(lam_1se, rel=1e-12)
    # Thread count does not change anything.
    one = _assay.glmnet_cv(x, y, k, w, "", seed, 1)
    assert np.array_equal(one["cv_mean"], ours["cv_mean"])
    for rule, prob in (("lambda.1se", "prob_1se"), ("lambda.min", "prob_min")):
        fitted = _assay.learner_fit("glmnet", json.dumps({"rule": rule}), x, y,
                                    [str(c) for c in range(k)], None, w, "classification",
                                    seed, 2)
        desc = json.loads(fitted.description)
        assert desc["rule"] == rule and desc["alpha"] == 1
        assert desc["lambda"] == pytest.approx(lam_1se if rule == "lambda.1se" else lam_min,
                                               rel=1e-12)
        np.testing.assert_allclose(fitted.predict(newx), theirs[prob].reshape(-1, k),
                                   rtol=1e-5, atol=1e-8)


def test_real_waveform_cv_matches_cv_glmnet():
    x, y, k = read_soak("waveform.csv", "y", {"subset"})
    folds = _assay.internal_fold_ids(len(y), 10, 3)
    ours = _assay.glmnet_cv(x, y, k, None, "", 3, 2)
    theirs = r_glmnet("cv", x, y, foldid=folds + 1)
    np.testing.assert_allclose(ours["cv_mean"], theirs["cvm"], rtol=1e-6)
    np.testing.assert_allclose(ours["cv_sd"], theirs["cvsd"], rtol=1e-5)
    assert ours["lambdas"][ours["index_1se"]] == pytest.approx(theirs["opt"][1], rel=1e-12)


def standardise(x):
    return (x - x.mean(0)) / x.std(0)


def test_kkt_and_objective_against_sklearn(rng):
    from sklearn.linear_model import LogisticRegression
    x, y = make_data(rng, 300, 8, 2)
    xs = standardise(x)
    lam = 0.02
    ours = _assay.glmnet_path(xs, y, 2, None, json.dumps({"tolerance": 1e-14}),
                              np.array([0.3, 0.1, 0.05, lam]))
    b0, b = ours["intercepts"][-1, 0], ours["coefficients"][-1, 0]
    eta = b0 + xs @ b
    prob = 1 / (1 + np.exp(-eta))
    grad = xs.T @ (prob - y) / len(y)  # gradient of the mean negative log-likelihood
    active = b != 0
    np.testing.assert_allclose(grad[active], -lam * np.sign(b[active]), atol=1e-6)
    assert np.all(np.abs(grad[~active]) <= lam + 1e-6)
    assert abs(np.mean(prob - y)) < 1e-6

    def objective(b0, b):
        eta = b0 + xs @ b
        return np.mean(np.logaddexp(0, eta) - y * eta) + lam * np.abs(b).sum()

    sk = LogisticRegression(penalty="l1", solver="saga", C=1 / (len(y) * lam), tol=1e-10,
                            max_iter=100000).fit(xs, y)
    assert objective(b0, b) <= objective(sk.intercept_[0], sk.coef_[0]) + 1e-10


def test_absent_class_and_one_class(rng):
    x, y = make_data(rng, 200, 5, 4)
    y[y == 2] = 3  # class 2 absent from the train rows
    fitted = _assay.learner_fit("glmnet", "", x, y, ["a", "b", "c", "d"], None, None,
                                "classification", 1, 1)
    prob = fitted.predict(x[:10])
    assert np.all(prob[:, 2] == 0)
    np.testing.assert_allclose(prob.sum(1), 1)
    assert json.loads(fitted.description)["classes_fitted"] == ["a", "b", "d"]
    w = (y == 0).astype(float)
    with pytest.raises(assay.AssayError,
                       match='glmnet needs at least two classes in the train rows, '
                             'found only class "a"'):
        _assay.learner_fit("glmnet", "", x, y, ["a", "b", "c", "d"], None, w,
                           "classification", 1, 1)


@pytest.mark.parametrize("params,message", [
    ({"alpha": 2}, 'learner "glmnet" parameter "alpha": expected a number in [0, 1], found 2'),
    ({"rule": "min"}, 'learner "glmnet" parameter "rule": expected one of lambda.1se, '
                      'lambda.min, found "min"'),
    ({"n_lambda": 1}, 'learner "glmnet" parameter "n_lambda": expected an integer in '
                      '[2, 100000], found 1'),
    ({"lambda": 0.1}, 'learner "glmnet" has no parameter "lambda"; its parameters: alpha, '
                      'n_lambda, lambda_min_ratio, internal_folds, rule, tolerance, max_passes'),
])
def test_invalid_params(params, message):
    x = np.zeros((4, 1))
    with pytest.raises(assay.AssayError) as err:
        _assay.glmnet_path(x, np.array([0, 1, 0, 1], np.int32), 2, None, json.dumps(params))
    assert str(err.value) == message


def test_invalid_lambdas():
    x = np.arange(8.0).reshape(4, 2)
    with pytest.raises(assay.AssayError, match="λ values must be strictly decreasing, found 0.2 "
                                                "after 0.1 at position 1"):
        _assay.glmnet_path(x, np.array([0, 1, 0, 1], np.int32), 2, None, "",
                           np.array([0.1, 0.2]))


def test_cv_warnings_come_in_task_order_at_any_thread_count():
    # Fits that reach max_passes warn; the K + 1 fits run in parallel, and their warnings are
    # given in task order (full path, then folds 1..K), so the output does not depend on timing.
    import warnings
    rng = np.random.default_rng(7)
    x = rng.normal(size=(200, 30))
    y = rng.integers(0, 3, size=200).astype(np.int32)
    params = json.dumps({"alpha": 0.2, "max_passes": 30})
    seen = []
    for threads in (1, 2, 2, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _assay.glmnet_cv(x, y, 3, None, params, 3, threads)
        seen.append([str(w.message) for w in caught])
    assert len(seen[0]) > 1 and all("did not converge" in m for m in seen[0])
    assert all(s == seen[0] for s in seen)


def _add_outputs(digest, out):
    """Feeds a glmnet output dict, key by key in sorted order, to a hashlib digest. The work
    counters (streamed_bytes*) measure the fit, not its answer, and depend on the CPU's rough
    reads: they are left out."""
    for key in sorted(k for k in out if not k.startswith("streamed_bytes")):
        digest.update(key.encode())
        digest.update(np.ascontiguousarray(np.asarray(out[key], dtype=float)).tobytes())


def test_outputs_keep_their_bits():
    """glmnet's speed work (the vector kernels, skipping the gradients of features that provably
    stay at zero) must not move a single bit of any output: a sha256 over three fits, pinned
    from the scalar code that preceded that work. If a deliberate change to the algorithm moves
    bits, recompute it and say so in the commit. Re-pinned once (2026-12-03): the held-out links
    of cv.glmnet were a BLAS product whose order of sums OpenBLAS chose by the CPU (this hash
    differed on AVX-512 Intel CPUs); they are now summed in a fixed order (fold_links)."""
    import hashlib
    rng = np.random.default_rng(17)
    digest = hashlib.sha256()
    x, y = make_data(rng, 1203, 61, 5)
    _add_outputs(digest, _assay.glmnet_cv(x, y, 5, None, "", 3, 1))
    xb, yb = make_data(rng, 999, 43, 2)
    _add_outputs(digest, _assay.glmnet_cv(xb, yb, 2, rng.random(999), "", 4, 2))
    xe, ye = make_data(rng, 301, 97, 3)
    _add_outputs(digest, _assay.glmnet_path(xe, ye, 3, None, '{"alpha":0.5}'))
    assert digest.hexdigest() == (
        "e1afd09e8a56ef5cf668e5a836304714ba4aca3a7a41cb5edd985270a3706e91")


def test_large_designs_keep_their_bits():
    """Designs of 8 MiB and more take the kernels' prefetching path (a design that size streams
    its columns from memory); prefetches must change nothing: a sha256 over a multinomial path
    and a weighted elastic-net binomial path on 22,000 x 48 (8.4 MB), pinned from the code
    before prefetching."""
    import hashlib
    rng = np.random.default_rng(23)
    digest = hashlib.sha256()
    for x, y, k, w, params in ((*make_data(rng, 22000, 48, 3), 3, None, ""),
                               (*make_data(rng, 22000, 48, 2), 2, rng.random(22000),
                                '{"alpha":0.5}')):
        _add_outputs(digest, _assay.glmnet_path(x, y, k, w, params))
    assert digest.hexdigest() == (
        "11c98a50fd76ff465ebf9c1558828c02f896d028580eed4b9422330e6017ed58")


_BOTH_WAYS = r"""
import hashlib, sys
import numpy as np
from assay import _assay
sys.path.insert(0, sys.argv[1])
from test_glmnet import _add_outputs, make_data
rng = np.random.default_rng(31)
digest = hashlib.sha256()
fits = [(make_data(rng, 700, 80, 4), 4, None, "", 5), (make_data(rng, 2000, 90, 2), 2,
        rng.random(2000), '{"alpha":0.3}', 7), (make_data(rng, 9000, 130, 4), 4, None, "", 0)]
for (x, y), k, w, params, folds in fits:  # 9,000 x 130 is 9.4 MB: the prefetching path
    out = (_assay.glmnet_cv(x, y, k, w, params, folds, 1) if folds
           else _assay.glmnet_path(x, y, k, w, params))
    _add_outputs(digest, out)
print(digest.hexdigest())
"""


def test_rough_reads_change_no_bit():
    """Where the CPU has AVX-512, a coefficient at 0 is first read roughly (float
    columns, any order of sums) and its exact read skipped when the rough one proves it stays at
    0; ASSAY_GLMNET_EXACT_READS=1 reads every column exactly. Both must give the same bits on
    multinomial and weighted elastic-net CV and on a design large enough to prefetch. Without
    AVX-512 both runs read exactly and the comparison could not fail, so it is skipped."""
    with open("/proc/cpuinfo") as info:
        if " avx512f" not in info.read():
            pytest.skip("this CPU has no AVX-512, so glmnet makes no rough reads to compare")
    here = os.path.dirname(os.path.abspath(__file__))
    digests = []
    for exact in ("0", "1"):
        env = dict(os.environ, ASSAY_GLMNET_EXACT_READS=exact)
        done = subprocess.run([sys.executable, "-c", _BOTH_WAYS, here], env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        digests.append(done.stdout.strip())
    assert len(digests[0]) == 64 and digests[0] == digests[1]


@pytest.mark.parametrize("k", [2, 3])
def test_streamed_bytes_count_each_fit_once_at_any_thread_count(rng, k):
    """streamed_bytes (what bench_glmnet.py divides by the machine's bandwidth) is the path's own
    count: cv's total is the full path's plus each fold path's, the same at 1 and 2 threads; every
    kernel call streams whole arrays of n values (8 or 4 bytes each), and the first λ step reads
    each of the p columns at least once."""
    n, p = 400, 12
    x, y = make_data(rng, n, p, k)
    one = _assay.glmnet_cv(x, y, k, None, "", 5, 1)
    two = _assay.glmnet_cv(x, y, k, None, "", 5, 2)
    assert one["streamed_bytes_all_fits"] == two["streamed_bytes_all_fits"]
    full = _assay.glmnet_path(x, y, k)
    assert full["streamed_bytes"] == one["streamed_bytes"]
    assert full["streamed_bytes"] % (4 * n) == 0 and full["streamed_bytes"] >= 4 * n * p
    total = full["streamed_bytes"]
    for f in range(10):
        train = one["fold_ids"] != f
        fold = _assay.glmnet_path(x[train], y[train], k)
        assert fold["streamed_bytes"] % (4 * int(train.sum())) == 0
        total += fold["streamed_bytes"]
    assert one["streamed_bytes_all_fits"] == total
