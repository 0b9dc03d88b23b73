"""The metrics and arguments scikit-learn added or changed after 1.2 (up to 1.9, its newest
release), each checked against its definition on random inputs: scikit-learn 1.2's own
functions where they compute a part (mean_squared_error, log_loss, brier_score_loss), numpy or a
brute-force loop otherwise. Each test names the formula and the release that introduced it."""
import os
import sys
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import assay.metrics as am
from assay import AssayError

SEEDS = range(5)


def close(a, b, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def regression_data(seed, outputs=3, n=40):
    rng = np.random.default_rng(seed)
    y = rng.random((n, outputs)) * 5
    p = rng.random((n, outputs)) * 5
    return y, p, rng.random(n), rng.random(outputs)


def class_data(seed, k=3, n=60):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    return y, rng.dirichlet(np.ones(k), n), rng.random(n)


# ----------------------------------------------------------------------------- regression

@pytest.mark.parametrize("seed", SEEDS)
def test_root_mean_squared_error(seed):
    """RMSE (scikit-learn 1.4): sqrt of each output's weighted MSE, then multioutput averages
    the roots (not the root of the averaged MSE)."""
    y, p, w, out_w = regression_data(seed)
    roots = np.sqrt(skm.mean_squared_error(y, p, sample_weight=w, multioutput="raw_values"))
    close(am.root_mean_squared_error(y, p, sample_weight=w, multioutput="raw_values"), roots)
    close(am.root_mean_squared_error(y, p, sample_weight=w), roots.mean())
    close(am.root_mean_squared_error(y, p, sample_weight=w, multioutput=out_w),
          np.average(roots, weights=out_w))
    close(am.root_mean_squared_error(y[:, 0], p[:, 0]),
          np.sqrt(skm.mean_squared_error(y[:, 0], p[:, 0])))


@pytest.mark.parametrize("seed", SEEDS)
def test_root_mean_squared_log_error(seed):
    """RMSLE (scikit-learn 1.4): root_mean_squared_error of log1p(y) and log1p(ŷ)."""
    y, p, w, out_w = regression_data(seed)
    roots = np.sqrt(skm.mean_squared_error(np.log1p(y), np.log1p(p), sample_weight=w,
                                           multioutput="raw_values"))
    close(am.root_mean_squared_log_error(y, p, sample_weight=w, multioutput="raw_values"),
          roots)
    close(am.root_mean_squared_log_error(y, p, sample_weight=w, multioutput=out_w),
          np.average(roots, weights=out_w))


def test_log_errors_accept_targets_above_minus_one():
    """MSLE / RMSLE domain (scikit-learn 1.6): y > -1 (log1p defined), not y >= 0."""
    y, p = np.array([-0.5, 0.0, 2.0]), np.array([-0.9, 1.0, 2.5])
    close(am.mean_squared_log_error(y, p), np.mean((np.log1p(y) - np.log1p(p)) ** 2))
    for f, what in ((am.mean_squared_log_error, "Mean Squared"),
                    (am.root_mean_squared_log_error, "Root Mean Squared")):
        with pytest.raises(ValueError, match=f"^{what} Logarithmic Error cannot be used when "
                                             "targets contain values less than or equal to -1"):
            f([1, -1], [1, 2])
        with pytest.raises(ValueError, match="less than or equal to -1"):
            f([1, 2], [1, -3])


def test_squared_argument_is_removed():
    """scikit-learn 1.6 removed mean_squared_error(squared=) and mean_squared_log_error(
    squared=): passing it is a TypeError there and here."""
    for f in (am.mean_squared_error, am.mean_squared_log_error):
        with pytest.raises(TypeError, match="squared"):
            f([1.0, 2.0], [1.0, 3.0], squared=False)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alpha", [0.25, 0.5, 0.75])
def test_d2_pinball_uses_the_averaged_inverted_cdf(seed, alpha):
    """D² pinball (scikit-learn 1.9 fix): 1 - pinball(y, ŷ) / pinball(y, q), q the averaged
    inverted CDF alpha-quantile of y, with or without weights; integer weights act as
    repeated samples."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 30))
    y, p = rng.random(n), rng.random(n)
    q = np.quantile(y, alpha, method="averaged_inverted_cdf")
    expected = 1 - skm.mean_pinball_loss(y, p, alpha=alpha) / skm.mean_pinball_loss(
        y, np.full(n, q), alpha=alpha)
    close(am.d2_pinball_score(y, p, alpha=alpha), expected)
    counts = rng.integers(0, 4, n)
    counts[0] = 1
    close(am.d2_pinball_score(y, p, alpha=alpha, sample_weight=counts.astype(float)),
          am.d2_pinball_score(np.repeat(y, counts), np.repeat(p, counts), alpha=alpha))
    if alpha == 0.5:
        close(am.d2_absolute_error_score(y, p), expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_weighted_median_absolute_error(seed):
    """Weighted median_absolute_error (scikit-learn 1.9): the averaged inverted CDF median of
    |y - ŷ|, so unit weights give the unweighted median and integer weights repeat samples."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 30))
    y, p = rng.random((n, 2)), rng.random((n, 2))
    counts = rng.integers(0, 4, n)
    counts[0] = 1
    close(am.median_absolute_error(y, p, sample_weight=np.ones(n), multioutput="raw_values"),
          np.median(np.abs(y - p), axis=0))
    close(am.median_absolute_error(y, p, sample_weight=counts.astype(float),
                                   multioutput="raw_values"),
          np.median(np.abs(np.repeat(y, counts, axis=0) - np.repeat(p, counts, axis=0)),
                    axis=0))


def test_d2_pinball_limits():
    """D² pinball conventions: a perfect prediction is 1, a perfect null model (constant y)
    gives 0 for an imperfect prediction."""
    assert am.d2_pinball_score([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]) == 1.0
    assert am.d2_pinball_score([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) == 0.0
    with pytest.raises(ValueError, match="variance_weighted"):
        am.d2_pinball_score([[1, 2], [2, 3]], [[1, 2], [2, 2]], multioutput="variance_weighted")


# ----------------------------------------------------------------------------- probabilities

@pytest.mark.parametrize("seed", SEEDS)
def test_d2_log_loss_score(seed):
    """D² log loss (scikit-learn 1.5): 1 - log_loss(y, p) / log_loss(y, null), the null model
    predicting each class's weighted share of y_true (computed with scikit-learn 1.2's
    log_loss)."""
    y, P, w = class_data(seed)
    share = np.bincount(y, weights=w) / w.sum()
    null = np.tile(share, (len(y), 1))
    expected = 1 - skm.log_loss(y, P, sample_weight=w) / skm.log_loss(y, null, sample_weight=w)
    close(am.d2_log_loss_score(y, P, sample_weight=w), expected, rtol=1e-10)
    yb, pb = (y == 1).astype(int), P[:, 1]
    share = yb.mean()
    close(am.d2_log_loss_score(yb, pb),
          1 - skm.log_loss(yb, pb) / skm.log_loss(yb, np.full(len(yb), share)), rtol=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_d2_brier_score(seed):
    """D² Brier (scikit-learn 1.7): 1 - Brier(y, p) / Brier(y, null), null = the weighted
    share of the positive class (binary, computed with scikit-learn 1.2's brier_score_loss)
    or of every class (multiclass, sum over classes of squared errors)."""
    y, P, w = class_data(seed)
    yb, pb = (y == 1).astype(int), P[:, 1]
    share = np.average(yb, weights=w)
    expected = 1 - skm.brier_score_loss(yb, pb, sample_weight=w) / skm.brier_score_loss(
        yb, np.full(len(yb), share), sample_weight=w)
    close(am.d2_brier_score(yb, pb, sample_weight=w), expected)
    onehot = np.eye(3)[y]
    share = np.average(onehot, axis=0, weights=w)
    brier = np.average(((P - onehot) ** 2).sum(axis=1), weights=w)
    null = np.average(((share - onehot) ** 2).sum(axis=1), weights=w)
    close(am.d2_brier_score(y, P, sample_weight=w), 1 - brier / null)


def test_d2_scores_need_two_samples():
    """D² with fewer than two samples: NaN with an UndefinedMetricWarning (scikit-learn's)."""
    for f, p in ((am.d2_log_loss_score, [[0.3, 0.7]]), (am.d2_brier_score, [0.7])):
        with pytest.warns(am.UndefinedMetricWarning, match="less than two samples"):
            assert np.isnan(f([1], p))


@pytest.mark.parametrize("seed", SEEDS)
def test_multiclass_brier_score_loss(seed):
    """Multiclass Brier (scikit-learn 1.7): weighted mean over samples of sum_k (p_k -
    [y = k])^2; scale_by_half='auto' halves it for two classes only (so a binary (n, 2) matrix
    equals the 1-D binary loss)."""
    y, P, w = class_data(seed)
    onehot = np.eye(3)[y]
    expected = np.average(((P - onehot) ** 2).sum(axis=1), weights=w)
    close(am.brier_score_loss(y, P, sample_weight=w), expected)
    close(am.brier_score_loss(y, P, sample_weight=w, scale_by_half=True), expected / 2)
    labels = np.array(["a", "b", "c"])
    close(am.brier_score_loss(labels[y], P, sample_weight=w), expected)
    yb, pb = (y == 1).astype(int), P[:, 1]
    close(am.brier_score_loss(yb, np.c_[1 - pb, pb]), skm.brier_score_loss(yb, pb))
    close(am.brier_score_loss(yb, pb, scale_by_half=False), 2 * skm.brier_score_loss(yb, pb))


def test_probability_checks():
    """Rows of a probability matrix that do not sum to one warn (scikit-learn >= 1.5's
    UserWarning; 1.2 renormalised them silently) and are scored as given; probabilities
    outside [0, 1] raise (1.7); labels name the columns; log_loss's eps is gone (1.5) and
    y_pred is the deprecated name of y_proba (1.9, FutureWarning)."""
    y = [0, 1, 2]
    P = np.array([[0.6, 0.2, 0.2], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]])
    for f in (am.log_loss, am.brier_score_loss, am.d2_log_loss_score, am.d2_brier_score):
        with pytest.warns(UserWarning, match="do not sum to one"):
            f(y, P * 0.99)
    with pytest.warns(UserWarning, match="do not sum to one"):
        close(am.log_loss(y, P * 0.99), -np.mean(np.log(np.diag(P) * 0.99)))
    with pytest.raises(ValueError, match="greater than 1"):
        am.log_loss(y, P * 2)
    with pytest.raises(ValueError, match="lower than 0"):
        am.log_loss([0, 1], [-0.1, 0.5])
    with pytest.raises(ValueError, match="number of classes"):
        am.brier_score_loss(y, P, labels=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="not belonging to the passed labels"):
        am.brier_score_loss([0, 1, 5], P, labels=[0, 1, 2])
    with pytest.raises(TypeError, match="eps"):
        am.log_loss(y, P, eps=1e-15)
    with pytest.warns(FutureWarning, match="y_proba"):
        value = am.log_loss(y, y_pred=P)
    close(value, am.log_loss(y, P))
    with pytest.raises(ValueError, match="both"):
        am.log_loss(y, P, y_pred=P)


# ----------------------------------------------------------------------------- thresholds

def brute_force_counts(y, s, w):
    """tn, fp, fn, tp at every distinct score t, decreasing, predicting score >= t."""
    out = []
    for t in np.unique(s)[::-1]:
        pred = s >= t
        out.append([w[(y == 0) & ~pred].sum(), w[(y == 0) & pred].sum(),
                    w[(y == 1) & ~pred].sum(), w[(y == 1) & pred].sum(), t])
    return np.array(out).T


@pytest.mark.parametrize("seed", SEEDS)
def test_confusion_matrix_at_thresholds(seed):
    """confusion_matrix_at_thresholds (scikit-learn 1.8) against a loop over the distinct
    scores (ties included), with and without weights."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 50)
    s = rng.integers(0, 12, 50) / 11
    w = rng.random(50)
    for weights in (None, w):
        got = am.confusion_matrix_at_thresholds(y, s, sample_weight=weights)
        close(np.array(got), brute_force_counts(y, s, np.ones(50) if weights is None else w))
    # scikit-learn's rates are the same counts normalised
    tns, fps, fns, tps, thresholds = am.confusion_matrix_at_thresholds(y, s)
    fpr, tpr, t = skm.roc_curve(y, s, drop_intermediate=False)
    close(fps / fps[-1], fpr[1:])
    close(tps / tps[-1], tpr[1:])
    # string labels with pos_label
    labels = np.array(["neg", "pos"])[y]
    close(np.array(am.confusion_matrix_at_thresholds(labels, s, pos_label="pos")),
          brute_force_counts(y, s, np.ones(50)))


def test_confusion_matrix_at_thresholds_positional_arguments_warn():
    """scikit-learn 1.9 deprecated pos_label and sample_weight as positional arguments."""
    with pytest.warns(FutureWarning, match="positionally"):
        got = am.confusion_matrix_at_thresholds([0, 1, 1], [0.2, 0.4, 0.9], 1, [1, 1, 2])
    close(got[3], [2.0, 3.0, 3.0])


@pytest.mark.filterwarnings("ignore:negative_likelihood_ratio ill-defined")
@pytest.mark.parametrize("seed", SEEDS)
def test_metric_at_thresholds(seed):
    """metric_at_thresholds (scikit-learn 1.9): metric_func(y, score >= t) at every distinct
    score, decreasing; sample_weight and metric_params reach the metric."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 40)
    s = rng.integers(0, 9, 40) / 8
    w = rng.random(40)
    values, thresholds = am.metric_at_thresholds(y, s, am.f1_score, sample_weight=w,
                                                 metric_params={"zero_division": 0})
    close(thresholds, np.unique(s)[::-1])
    close(values, [skm.f1_score(y, (s >= t).astype(int), sample_weight=w, zero_division=0)
                   for t in thresholds])
    pairs, _ = am.metric_at_thresholds(y, s, am.class_likelihood_ratios)
    assert pairs.shape == (len(thresholds), 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_det_curve_threshold_at_infinity(seed):
    """det_curve (scikit-learn 1.7): a point at threshold +inf (fpr 0, fnr 1) starts the curve
    unless a finite threshold already has no false positive; the rest are the rates of the
    counts, from the last point without false positives to the first with every positive
    found. drop_intermediate keeps the points where tp changes next to them."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 30)
    y[:2] = [0, 1]
    s = rng.integers(0, 7, 30) / 6
    fpr, fnr, thresholds = am.det_curve(y, s)
    tn, fp, fn, tp, t = brute_force_counts(y, s, np.ones(30))
    fp, fn, tp, t = (np.r_[0.0, fp], np.r_[fn[0] + tp[0], fn], np.r_[0.0, tp], np.r_[np.inf, t])
    first = np.flatnonzero(fp == 0)[-1]
    last = np.flatnonzero(tp == tp[-1])[0]
    close(thresholds, t[first:last + 1][::-1])
    close(fpr, fp[first:last + 1][::-1] / fp[-1])
    close(fnr, fn[first:last + 1][::-1] / tp[-1])
    fpr_d, fnr_d, thresholds_d = am.det_curve(y, s, drop_intermediate=True)
    assert set(thresholds_d) <= set(thresholds)
    for i in range(1, len(thresholds_d) - 1):  # no kept inner point sits on a flat tp run
        k = list(t).index(thresholds_d[i])
        assert tp[k] != tp[k - 1] or tp[k] != tp[k + 1]


def test_precision_recall_curve_probas_pred_is_removed():
    """scikit-learn 1.6 removed precision_recall_curve's probas_pred (1.2's name of y_score)."""
    with pytest.raises(TypeError, match="probas_pred"):
        am.precision_recall_curve([0, 1], probas_pred=[0.2, 0.8])


# ----------------------------------------------------------------------------- undefined values

def test_class_likelihood_ratios_replace_undefined_by():
    """class_likelihood_ratios(replace_undefined_by=) (scikit-learn 1.6): the value of an
    undefined ratio (NaN by default; 1.0 = both ratios 1; or {"LR+": .., "LR-": ..}); the
    deprecated raise_warning warns with a FutureWarning."""
    perfect = ([0, 1, 1, 0], [0, 1, 1, 0])  # no false positive: LR+ undefined
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr_pos, lr_neg = am.class_likelihood_ratios(*perfect)
        assert np.isnan(lr_pos) and lr_neg == 0.0
        assert am.class_likelihood_ratios(*perfect, replace_undefined_by=1.0) == (1.0, 0.0)
        assert am.class_likelihood_ratios(
            *perfect, replace_undefined_by={"LR+": np.inf, "LR-": 0.0}) == (np.inf, 0.0)
    with pytest.raises(ValueError, match="replace_undefined_by"):
        am.class_likelihood_ratios(*perfect, replace_undefined_by=3.0)
    with pytest.raises(ValueError, match="LR"):
        am.class_likelihood_ratios(*perfect, replace_undefined_by={"LR+": 0.5, "LR-": 0.0})
    with pytest.warns(FutureWarning, match="raise_warning"):
        am.class_likelihood_ratios([0, 1, 1, 0], [0, 1, 0, 1], raise_warning=False)


def test_cohen_kappa_replace_undefined_by():
    """cohen_kappa_score(replace_undefined_by=) (scikit-learn 1.9): returned, with the
    UndefinedMetricWarning, when the expected disagreement is 0."""
    with pytest.warns(am.UndefinedMetricWarning):
        assert am.cohen_kappa_score([1, 1, 1], [1, 1, 1], replace_undefined_by=0.0) == 0.0
    close(am.cohen_kappa_score([0, 1, 2, 1], [0, 1, 1, 1], replace_undefined_by=0.0),
          skm.cohen_kappa_score([0, 1, 2, 1], [0, 1, 1, 1]))
    with pytest.raises(ValueError, match="replace_undefined_by"):
        am.cohen_kappa_score([0, 1], [0, 1], replace_undefined_by="zero")


def test_zero_division_nan():
    """zero_division=np.nan (scikit-learn 1.3): an undefined precision is NaN, no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(am.precision_score([1, 0], [0, 0], zero_division=np.nan))


# ----------------------------------------------------------------------------- a newer suite

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "sklearn_suite"))
import run_newest  # noqa: E402
import run_suite  # noqa: E402

NEWEST_TESTS = os.environ.get("ASSAY_SKLEARN_NEWEST_TESTS")


def test_newer_suite_rewrite_rules():
    """run_newest.py's rules on a made-up test module: assay's names substituted (also from
    scikit-learn's private metric modules), names the installed scikit-learn lacks bound to a
    placeholder, and the tests using them (directly, through a helper or a parametrize list,
    or through a config option 1.2 lacks) deselected with the names as the reason."""
    source = (
        "import pytest\n"
        "from sklearn.metrics import log_loss, root_mean_squared_error\n"
        "from sklearn.metrics._classification import d2_brier_score, _check_targets\n"
        "from sklearn.utils._array_api import not_in_1_2\n"
        "from sklearn import config_context\n"
        "CASES = list(not_in_1_2())\n"
        "def helper():\n    return not_in_1_2\n"
        "def test_plain():\n    assert root_mean_squared_error([1], [1]) == 0\n"
        "def test_direct():\n    not_in_1_2()\n"
        "def test_helper():\n    helper()\n"
        "@pytest.mark.parametrize('x', CASES)\ndef test_param(x):\n    pass\n"
        "@config_context(enable_metadata_routing=True)\ndef test_routing():\n    pass\n")
    text, substituted, deselected = run_newest.rewrite(source, run_suite.provided_names())
    assert "from assay.metrics import log_loss, root_mean_squared_error" in text
    assert "from assay.metrics import d2_brier_score" in text
    assert "from sklearn.metrics._classification import _check_targets" in text
    assert "not_in_1_2 = _NewerThanInstalled('sklearn.utils._array_api.not_in_1_2')" in text
    assert set(deselected) == {"test_direct", "test_helper", "test_param", "test_routing"}
    assert "sklearn.utils._array_api.not_in_1_2" in deselected["test_helper"]
    assert "enable_metadata_routing" in deselected["test_routing"]
    namespace = {}
    exec(compile(text, "rewritten", "exec"), namespace)  # imports and collects on 1.2.1
    namespace["test_plain"]()


@pytest.mark.skipif(not NEWEST_TESTS, reason=(
    "set ASSAY_SKLEARN_NEWEST_TESTS to a folder outside the checkout holding a newer scikit-"
    "learn's sklearn/metrics/tests/test_{regression,classification,ranking,common,"
    "score_objects}.py (tests/python/sklearn_suite/run_newest.py)"))
def test_newer_release_suite_fails_only_where_documented(tmp_path):
    """A newer release's own metric tests with assay substituted: every failure is a
    documented difference (newest_expected_failures.txt, docs/conventions.md)."""
    files, deselected = run_newest.prepare(NEWEST_TESTS, str(tmp_path))
    assert files, f"no scikit-learn test file in {NEWEST_TESTS}"
    outcomes, log = run_suite.run(str(tmp_path), files=files)
    assert outcomes, "the newer tests did not run:\n" + log[-5000:]
    counts, documented, other = run_newest.summarise(outcomes, deselected)
    assert not other, f"{counts}; undocumented failures:\n" + "\n".join(other)


@pytest.mark.parametrize("name", ["root_mean_squared_error", "root_mean_squared_log_error",
                                  "d2_log_loss_score", "d2_brier_score",
                                  "confusion_matrix_at_thresholds", "metric_at_thresholds"])
def test_docstring_examples_run(name):
    """The Examples of the functions added for scikit-learn's newer releases run as doctests."""
    import doctest
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(getattr(am, name), name, globs={}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0
