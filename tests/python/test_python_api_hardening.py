"""The Python API under hostile arguments (issue 38): every public function's threads,
confidence, seed, resample counts, labels and sizes are checked with a message naming the
argument (never pybind11's "incompatible function arguments", never a MemoryError); bootstrap
of a metric that raises; evaluate with scores and predictions; weights near the ends of double."""
import warnings

import numpy as np
import pytest
from sklearn import metrics as sk

import assay
import assay.io
import assay.metrics as m
import assay.shift as shift
import assay.shift.segmentation as seg

Y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
S = np.array([0.1, 0.8, 0.3, 0.7, 0.4, 0.2, 0.9, 0.6])
PROBS = np.random.default_rng(0).dirichlet([1, 1], (3, 8))
REG = np.abs(np.random.default_rng(1).normal(size=(3, 8, 2)))
VOLUME = np.zeros((4, 4, 4))
VOLUME[1:3, 1:3, 1:3] = 1


# Every public function of the metrics/shift/io packages that takes one of these arguments, as
# a call that is valid except for the argument under test.
CALLS = {
    "metrics.bootstrap": lambda **k: m.bootstrap(m.accuracy_score, Y, (S > .5).astype(int), **k),
    "metrics.bootstrap(roc_auc)": lambda **k: m.bootstrap("roc_auc", Y, S, **k),
    "metrics.evaluate": lambda **k: m.evaluate(Y, S, **k),
    "shift.regression_metrics": lambda **k: shift.regression_metrics(S, S + .1, **k),
    "shift.evaluate_partitions": lambda **k: shift.evaluate_partitions(
        S, {"m": S + .1}, {"m": S}, **k),
    "shift.ensemble_uncertainty": lambda **k: shift.ensemble_uncertainty(PROBS, **k),
    "shift.ensemble_uncertainty_regression": lambda **k: shift.ensemble_uncertainty_regression(
        REG, **k),
    "shift.generalisation_set": lambda **k: shift.generalisation_set(
        {"a": (0, 1)}, 3, lambda f: f["a"], **k),
    "io.read_csv": lambda **k: assay.io.read_csv(k.pop("path"), **k),
    "segmentation.ndsc_retention": lambda **k: seg.ndsc_retention(VOLUME, VOLUME, VOLUME, **k),
    "segmentation.score_subject": lambda **k: seg.score_subject(VOLUME, VOLUME, VOLUME, **k),
}

# argument -> {function: the name the message uses}
ARGUMENTS = {
    "threads": ["metrics.bootstrap", "metrics.bootstrap(roc_auc)", "metrics.evaluate",
                "shift.regression_metrics", "shift.ensemble_uncertainty",
                "shift.ensemble_uncertainty_regression", "io.read_csv"],
    "confidence": ["metrics.bootstrap", "metrics.bootstrap(roc_auc)", "metrics.evaluate",
                   "shift.regression_metrics", "shift.evaluate_partitions"],
    "seed": ["metrics.bootstrap", "metrics.bootstrap(roc_auc)", "metrics.evaluate",
             "shift.regression_metrics", "shift.evaluate_partitions",
             "shift.generalisation_set"],
    "n_resamples": ["metrics.bootstrap", "metrics.bootstrap(roc_auc)", "metrics.evaluate",
                    "shift.regression_metrics", "shift.evaluate_partitions"],
    "points": ["segmentation.ndsc_retention", "segmentation.score_subject"],
}

BAD = {
    "threads": [-1, 1.5, "a", None, True, 2**70],
    "confidence": [0, 1, 7, -0.1, float("nan"), "a", None, True],
    "seed": [-1, 2**64, 1.5, "a", None],
    "n_resamples": [-5, 1.5, "a", None, 2**64, 10**8],
    "points": [-1, 0, 1, 1.5, "a", None, 10**12],
}

CASES = [(function, argument, value) for argument, functions in ARGUMENTS.items()
         for function in functions for value in BAD[argument]]


def _name(function, argument):
    if argument == "n_resamples" and function == "metrics.evaluate":
        return "n_bootstrap"
    return argument


@pytest.mark.parametrize("function,argument,value", CASES,
                         ids=[f"{f}-{a}={v!r}" for f, a, v in CASES])
def test_bad_arguments_are_refused_naming_the_argument(function, argument, value, tmp_path):
    name = _name(function, argument)
    kwargs = {name: value}
    if function == "io.read_csv":
        (tmp_path / "a.csv").write_text("a,b\n1,2\n")
        kwargs["path"] = tmp_path / "a.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(assay.AssayError) as raised:
            CALLS[function](**kwargs)
    message = str(raised.value)
    assert name in message, message
    assert "incompatible function arguments" not in message


def test_the_messages_are_the_clis():
    with pytest.raises(assay.AssayError, match=r"^threads: expected 0 \(all cores\) or a "
                       r"positive number of threads, found -1$"):
        shift.ensemble_uncertainty(PROBS, threads=-1)
    with pytest.raises(assay.AssayError, match=r"^threads: expected at most 65536 threads, "
                       r"found 1180591620717411303424$"):
        m.evaluate(Y, S, threads=2**70)
    with pytest.raises(assay.AssayError,
                       match=r"^confidence: expected a number in \(0, 1\), found 1$"):
        shift.evaluate_partitions(S, {"m": S}, {"m": S}, confidence=1)
    with pytest.raises(assay.AssayError,
                       match=r'^confidence: expected a number in \(0, 1\), found "a"$'):
        m.bootstrap("roc_auc", Y, S, confidence="a")
    with pytest.raises(assay.AssayError, match=r'^seed: expected an integer in '
                       r'0\.\.18446744073709551615, found "-1"$'):
        shift.generalisation_set({"a": (0, 1)}, 3, lambda f: f["a"], seed=-1)
    with pytest.raises(assay.AssayError, match=r"^n_bootstrap: expected at most 1000000 "
                       r"resamples, found 100000000 \(percentile intervals settle long before"):
        m.evaluate(Y, S, n_bootstrap=10**8)


def test_ndsc_retention_with_a_huge_number_of_points_is_refused_not_a_memory_error():
    with pytest.raises(assay.AssayError,
                       match=r"^points: expected an integer in 2\.\.1000000, found "
                             r"1000000000000$"):
        seg.ndsc_retention(VOLUME, VOLUME, VOLUME, points=10**12)
    with pytest.raises(assay.AssayError, match=r"^points: expected an integer in 2\.\.1000000, "
                       r"found -1$"):
        seg.ndsc_retention(VOLUME, VOLUME, VOLUME, points=-1)
    assert seg.ndsc_retention(VOLUME, VOLUME, VOLUME, points=1000000)["curve"].size == 1000000


def test_other_numbers_of_the_segmentation_and_shift_functions_are_named():
    cases = [
        (lambda: seg.label(VOLUME, connectivity="6"), "connectivity"),
        (lambda: seg.remove_small_lesions(VOLUME, min_size=-1), "min_size"),
        (lambda: seg.postprocess(VOLUME, threshold=None), "threshold"),
        (lambda: seg.ndsc(VOLUME, VOLUME, r="x"), "r"),
        (lambda: seg.lesion_f1(VOLUME, VOLUME, iou_threshold=[0.5]), "iou_threshold"),
        (lambda: seg.ensemble_maps([VOLUME, VOLUME], epsilon="e"), "epsilon"),
        (lambda: shift.f1_retention(S, S, threshold="t"), "threshold"),
        (lambda: shift.gaussian_nll(S, S, S + 1, epsilon=None), "epsilon"),
        (lambda: shift.generalisation_set({"a": (0, 1)}, -3, lambda f: f["a"]), "n"),
        (lambda: shift.generalisation_set({"a": (0, 1)}, 10**15, lambda f: f["a"]), "n"),
        (lambda: shift.evaluate_partitions(S, {"m": S}, {"m": S}, beta="b"), "beta"),
        (lambda: m.evaluate(Y, S, threshold=""), "threshold"),
        (lambda: m.evaluate(Y, S, pos_label=""), "pos_label"),
    ]
    for call, name in cases:
        with pytest.raises(assay.AssayError) as raised:
            call()
        assert str(raised.value).startswith(name), (name, str(raised.value))


def test_bootstrap_of_a_metric_that_raises_on_some_resamples_counts_them_as_undefined():
    # scikit-learn's roc_auc_score raises on a resample holding one class: NaN there, with a
    # warning quoting the error, instead of aborting the whole bootstrap.
    y, s = Y[:4], S[:4]
    with pytest.warns(assay.AssayWarning) as record:
        r = m.bootstrap(sk.roc_auc_score, y, s, n_resamples=200, seed=1)
    raised = [str(w.message) for w in record if "raised" in str(w.message)]
    assert len(raised) == 1
    assert raised[0].startswith("bootstrap: the metric raised on ")
    assert "ValueError: Only one class present in y_true" in raised[0]
    assert 0 < r["n_undefined"] < 200
    assert np.isnan(r["replicates"]).sum() == r["n_undefined"]
    assert r["estimate"] == sk.roc_auc_score(y, s)


def test_bootstrap_of_a_metric_that_fails_on_the_full_data_names_it():
    with pytest.raises(assay.AssayError,
                       match=r"^bootstrap: the metric accuracy_score fails on the full data, "
                             r"before any resample: ZeroDivisionError: Weights sum to zero"):
        m.bootstrap(m.accuracy_score, Y, Y, n_resamples=10, sample_weight=np.zeros(len(Y)))
    # A bug in the metric is not an undefined value: it propagates unchanged.
    def broken(a, b):
        raise KeyError("column")
    with pytest.raises(KeyError):
        m.bootstrap(broken, Y, S, n_resamples=10)


def test_bootstrap_by_name_checks_the_function_arguments():
    # pos_label not among the labels: the function's error, not AP = 0.
    with pytest.raises(ValueError, match="pos_label=5 is not a valid label"):
        m.bootstrap(m.average_precision_score, Y, S, n_resamples=10, pos_label=5)
    # An option the sort-once path lacks runs the function on each resample instead.
    r = m.bootstrap("roc_auc", Y, S, n_resamples=20, max_fpr=0.5)
    assert r["estimate"] == pytest.approx(m.roc_auc_score(Y, S, max_fpr=0.5))
    with pytest.raises(assay.AssayError, match="unknown metric name 'auc'"):
        m.bootstrap("auc", Y, S)
    with pytest.raises(TypeError, match="metric must be a function"):
        m.bootstrap(3, Y, S)


def test_evaluate_with_scores_and_predictions():
    pred = np.array([0, 1, 1, 1, 0, 0, 1, 0])
    doc = m.evaluate(Y, S, y_pred=pred)
    assert doc["prediction_rule"] == "given predictions"
    assert doc["summary"]["accuracy"]["value"] == pytest.approx(sk.accuracy_score(Y, pred))
    assert doc["summary"]["ROC AUC"]["value"] == pytest.approx(sk.roc_auc_score(Y, S))


def test_evaluate_refuses_two_models_scores_and_continuous_targets():
    with pytest.raises(assay.AssayError, match=r"^2 score columns \(column 1, column 2\) for "
                       r"the 2 classes \(0, 1\) are neither"):
        m.evaluate(Y, np.c_[S, S[::-1]])
    ok = m.evaluate(Y, np.c_[1 - S, S])  # per-class probabilities
    assert ok["summary"]["ROC AUC"]["value"] == pytest.approx(sk.roc_auc_score(Y, S))
    with pytest.raises(assay.AssayError, match=r"expected a class label, found 0\.5: the labels "
                       r"are continuous \(a regression target\?\)"):
        m.evaluate(np.array([1.0, 0.5, 2.0]), y_pred=np.array([1, 0, 2]))


def test_evaluate_warns_when_the_scores_look_inverted():
    with pytest.warns(assay.AssayWarning, match=r"ROC AUC of class \"1\" is 0\.0000 \(95% DeLong "
                      r"upper bound 0\.0000\): below 0\.5 beyond chance.*may be inverted"):
        doc = m.evaluate(np.r_[np.zeros(10), np.ones(10)], np.r_[np.ones(10), np.zeros(10)] *
                         0.5 + 0.25)
    assert any("may be inverted" in note for note in doc["notes"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.evaluate(Y, S)  # a good model: no warning


def test_log_loss_has_one_clipping_rule():
    y, p = np.array([0, 1, 0, 1]), np.array([1.0, 0.0, 0.2, 0.8])
    expected = sk.log_loss(y, p)
    assert expected == pytest.approx(18.133398470215677, rel=1e-12)
    assert m.log_loss(y, p) == pytest.approx(expected, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = m.evaluate(y, p)
    assert doc["summary"]["log loss"]["value"] == pytest.approx(expected, rel=1e-12)


# Ratio metrics take sample weights: with weights near 1e-310 or 1e308 they give scikit-learn's
# value for the weights rescaled by a power of two (scikit-learn itself under- or overflows).
RNG = np.random.default_rng(3)
N = 40
YB = RNG.integers(0, 2, N)
SB = np.clip(YB * 0.3 + RNG.random(N) * 0.7, 0, 1)
Y3 = RNG.integers(0, 3, N)
P3 = RNG.dirichlet([1, 1, 1], N)
YM = RNG.integers(0, 2, (N, 3))
SM = RNG.random((N, 3))
YR = RNG.normal(size=N)
PR = YR + RNG.normal(size=N) * 0.5
W = RNG.integers(1, 4, N).astype(float)
WEIGHTED = [
    ("accuracy_score", Y3, P3.argmax(1), {}), ("balanced_accuracy_score", Y3, P3.argmax(1), {}),
    ("precision_score", YB, (SB > .5).astype(int), {}), ("recall_score", YB, (SB > .5) * 1, {}),
    ("f1_score", YB, (SB > .5) * 1, {}), ("fbeta_score", YB, (SB > .5) * 1, {"beta": 2}),
    ("jaccard_score", YB, (SB > .5) * 1, {}), ("matthews_corrcoef", Y3, P3.argmax(1), {}),
    ("cohen_kappa_score", Y3, P3.argmax(1), {}), ("hamming_loss", Y3, P3.argmax(1), {}),
    ("zero_one_loss", Y3, P3.argmax(1), {}), ("log_loss", YB, SB, {}), ("log_loss", Y3, P3, {}),
    ("brier_score_loss", YB, SB, {}), ("roc_auc_score", YB, SB, {}),
    ("average_precision_score", YB, SB, {}),
    ("roc_auc_score", Y3, P3, {"multi_class": "ovr"}),
    ("average_precision_score", YM, SM, {}), ("average_precision_score", YM, SM,
                                              {"average": "weighted"}),
    ("roc_curve", YB, SB, {}), ("precision_recall_curve", YB, SB, {}), ("det_curve", YB, SB, {}),
    ("precision_recall_fscore_support", Y3, P3.argmax(1), {"average": "macro"}),
    ("f1_score", YM, (SM > .5) * 1, {"average": "samples"}), ("top_k_accuracy_score", Y3, P3, {}),
    ("hinge_loss", YB, SB - .5, {}), ("label_ranking_average_precision_score", YM, SM, {}),
    ("coverage_error", YM, SM, {}), ("label_ranking_loss", YM, SM, {}), ("ndcg_score", YM, SM, {}),
    ("dcg_score", YM, SM, {}), ("class_likelihood_ratios", YB, (SB > .5) * 1, {}),
    ("mean_squared_error", YR, PR, {}), ("r2_score", YR, PR, {}),
    ("mean_absolute_error", YR, PR, {}), ("explained_variance_score", YR, PR, {}),
    ("mean_absolute_percentage_error", YR, PR, {}), ("median_absolute_error", YR, PR, {}),
    ("mean_pinball_loss", YR, PR, {}), ("d2_absolute_error_score", YR, PR, {}),
    ("d2_pinball_score", YR, PR, {}), ("d2_tweedie_score", np.abs(YR), np.abs(PR), {}),
    ("mean_poisson_deviance", np.abs(YR), np.abs(PR) + .1, {}),
    ("mean_gamma_deviance", np.abs(YR) + .1, np.abs(PR) + .1, {}),
    ("confusion_matrix", Y3, P3.argmax(1), {"normalize": "true"}),
]


def _flat(v):
    if isinstance(v, dict):
        return np.concatenate([_flat(v[k]) for k in sorted(v)])
    if isinstance(v, (tuple, list)):
        return np.concatenate([_flat(x) for x in v])
    return np.atleast_1d(np.asarray(v, dtype=float)).ravel()


@pytest.mark.parametrize("exponent", [-1070, -1040, 1020])
@pytest.mark.parametrize("name,a,b,kwargs", WEIGHTED,
                         ids=[f"{w[0]}{i}" for i, w in enumerate(WEIGHTED)])
def test_extreme_weights_give_the_values_of_the_rescaled_weights(name, a, b, kwargs, exponent):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(sk, name)(a, b, sample_weight=W, **kwargs)
        got = getattr(m, name)(a, b, sample_weight=np.ldexp(W, exponent), **kwargs)
    if name == "roc_curve":  # thresholds[0] is inf, not max + 1 (docs/conventions.md #1)
        expected, got = expected[:2], got[:2]
    np.testing.assert_allclose(_flat(got), _flat(expected), rtol=1e-12, atol=1e-15)


def test_weighted_counts_stay_in_the_weights_units():
    # Counts are the true sums: subnormal, or inf where they overflow (as scikit-learn's).
    w = np.full(4, 1.5e308)
    y, p = np.array([0, 0, 1, 1]), np.array([0, 0, 1, 0])
    assert np.array_equal(m.confusion_matrix(y, p, sample_weight=w),
                          [[np.inf, 0], [1.5e308, 1.5e308]])
    assert m.precision_recall_fscore_support(y, p, sample_weight=w)[3][0] == np.inf
    assert m.accuracy_score(y, p, sample_weight=w) == 0.75
    tiny = np.full(4, 5e-324)
    assert m.accuracy_score(y, p, normalize=False, sample_weight=tiny) == 3 * 5e-324
    assert m.matthews_corrcoef(y, p, sample_weight=tiny) == m.matthews_corrcoef(y, p)


# Valid positional arguments of every public function of assay.metrics, assay.shift and
# assay.shift.segmentation (those that take arrays); each keyword argument then gets values of
# the wrong type or range, and whatever is raised must be a ValueError or TypeError of assay's
# or scikit-learn's wording, never pybind11's "incompatible function arguments" (whose text
# names the compiled module's internals) nor an OverflowError / MemoryError.
YM = RNG.integers(0, 2, (8, 3))
SM8 = RNG.random((8, 3))
P8 = RNG.dirichlet([1, 1, 1], 8)
Y8 = np.array([0, 1, 2, 0, 1, 2, 0, 1])
YR8 = np.abs(RNG.normal(size=8)) + 0.1
POSITIONAL = {
    "bootstrap": (m.accuracy_score, Y, (S > .5) * 1), "evaluate": (Y, S),
    "metric_at_thresholds": (Y, S, m.accuracy_score),
    "summarize_runs": ([.1, .2, .3],), "delong_roc_test": (Y, S, S[::-1]),
    "compare_pr_curves": (Y, S, S[::-1]), "interpolated_precision": (S, S),
    "auc": (np.sort(S), S), "top_k_accuracy_score": (Y8, P8), "mean_average_precision": (Y8, P8),
    "fbeta_score": (Y, (S > .5) * 1),
    "retention_curve": (YR8, S), "prr": (YR8, S), "risk_coverage_curve": (YR8, S),
    "aurc": (YR8, S), "e_aurc": (YR8, S), "augrc": (YR8, S), "e_augrc": (YR8, S),
    "oracle_retention_curve": (YR8,), "random_retention_curve": (YR8,),
    "f1_retention": (YR8, S, 0.5), "oracle_f1_retention": (YR8, 0.5),
    "random_f1_retention": (YR8, 0.5), "ensemble_uncertainty": (PROBS,),
    "ensemble_uncertainty_regression": (REG,), "gaussian_nll": (YR8, YR8, np.ones(8)),
    "ensemble_nll": (YR8, REG), "regression_metrics": (YR8, YR8 + .1), "ood_detection": (Y, S),
    "evaluate_partitions": (YR8, {"m": YR8}, {"m": S}), "tune_threshold": (Y, S, ["a"] * 8, "a"),
    "generalisation_set": ({"a": (0, 1)}, 3, lambda f: f["a"]),
    "label": (VOLUME,), "remove_small_lesions": (VOLUME,), "postprocess": (VOLUME,),
    "voxel_counts": (VOLUME, VOLUME), "dice": (VOLUME, VOLUME), "ndsc": (VOLUME, VOLUME),
    "lesion_f1": (VOLUME, VOLUME), "ndsc_retention": (VOLUME, VOLUME, VOLUME),
    "ensemble_maps": ([VOLUME, VOLUME * 0.5],), "score_subject": (VOLUME, VOLUME, VOLUME),
}
SKIPPED = {"make_scorer", "get_scorer", "get_scorer_names", "check_scoring", "read_nifti",
           "write_nifti", "RankedScores", "UndefinedMetricWarning", "RetentionResult",
           "F1RetentionResult"}


def _positional(name):
    if name in POSITIONAL:
        return POSITIONAL[name]
    if name in ("label_ranking_average_precision_score", "label_ranking_loss", "coverage_error",
                "ndcg_score", "dcg_score"):
        return YM, SM8
    if any(part in name for part in ("roc", "average_precision", "precision_recall_curve",
                                     "det_curve", "brier", "log_loss", "calibration",
                                     "hinge")):
        return Y, S
    if any(part in name for part in ("error", "deviance", "r2", "variance", "d2", "pinball")):
        return YR8, YR8 + .1
    return Y, (S > .5) * 1


def _public(module, prefix):
    import inspect
    for name in sorted(dir(module)):
        f = getattr(module, name)
        if name.startswith("_") or name in SKIPPED or inspect.isclass(f) or \
                not callable(f) or inspect.ismodule(f):
            continue
        if prefix != "metrics" and getattr(m, name, None) is f:
            continue  # re-exported from assay.metrics: audited there
        if prefix == "segmentation" and name == "evaluate":
            continue  # files: tested in test_segment_cli.py
        yield f"{prefix}.{name}", f


FUNCTIONS = [*_public(m, "metrics"), *_public(shift, "shift"), *_public(seg, "segmentation")]


@pytest.mark.parametrize("name,function", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_no_argument_reaches_the_compiled_module_unchecked(name, function, tmp_path,
                                                         monkeypatch):
    import inspect
    # Functions with an html= or path argument write the hostile value as a file name: keep
    # those files out of the checkout.
    monkeypatch.chdir(tmp_path)
    args = _positional(name.split(".")[1])
    base = {"beta": 1.0} if name.endswith("fbeta_score") else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        function(*args, **base)  # the valid call works
        parameters = list(inspect.signature(function).parameters.items())[len(args):]
        for parameter, spec in parameters:
            if spec.kind in (spec.VAR_POSITIONAL, spec.VAR_KEYWORD):
                continue
            for value in ["a", None, -1, float("inf"), [1], 2**70, 1.5]:
                try:
                    function(*args, **{**base, parameter: value})
                except (ValueError, TypeError, ZeroDivisionError, NotImplementedError) as e:
                    assert "incompatible function arguments" not in str(e), (parameter, value)
                    assert "pybind11" not in str(e), (parameter, value)


@pytest.mark.parametrize("call", [
    lambda v: m.binary_rates(Y, (S > .5) * 1, pos_label=v),
    lambda v: m.calibration_error(Y, S, pos_label=v),
    lambda v: m.delong_roc_test(Y, S, S[::-1], pos_label=v),
    lambda v: m.compare_pr_curves(Y, S, S[::-1], pos_label=v),
    lambda v: m.RankedScores(Y, S, pos_label=v),
], ids=["binary_rates", "calibration_error", "delong_roc_test", "compare_pr_curves",
        "RankedScores"])
def test_a_pos_label_that_is_neither_class_is_refused(call):
    # Was silent: every sample negative, all counts 0 or every AUC NaN.
    for value in (-1, "x", 2.5):
        with pytest.raises(ValueError, match=r"^pos_label=.* is not a valid label\. It should be "
                                             r"one of \[0, 1\]$"):
            call(value)
    call(0)
    call(1)
