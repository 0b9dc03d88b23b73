"""matplotlib displays (assay/_plot): the drawn data equal assay's metric functions and
scikit-learn 1.2.1's own displays; figures render; bootstrap bands are seeded pointwise
percentile bands that hold the curve and narrow with n; misuse raises as scikit-learn; every
code block of docs/plots.md and every docstring example runs."""
import doctest
import importlib
import io
import os
import re
import subprocess
import sys
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import sklearn.calibration as sc  # noqa: E402
import sklearn.metrics as sm  # noqa: E402
from scipy.stats import norm  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.linear_model import LogisticRegression, Ridge  # noqa: E402

import assay  # noqa: E402
import assay.metrics as am  # noqa: E402
import assay.shift as shift  # noqa: E402
import assay.soak as soak  # noqa: E402
from conftest import ROOT  # noqa: E402

MODULES = ["roc_curve", "precision_recall_curve", "det_curve", "confusion_matrix", "calibration",
           "regression", "retention_curve", "soak_error"]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def binary(n=300, seed=0, noise=1.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, y + rng.normal(0, noise, n)


def classification(n=400):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] - 0.5 * X[:, 1] + rng.normal(0, 1, n) > 0).astype(int)
    return X, y


def same(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12,
                               atol=1e-14)


def png_bytes(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


# --- The drawn data are the metric functions' output, and scikit-learn 1.2.1's. -----------

@pytest.mark.parametrize("drop", [True, False])
def test_roc_line_is_roc_curve(drop):
    y, s = binary()
    d = am.RocCurveDisplay.from_predictions(y, s, drop_intermediate=drop)
    fpr, tpr, _ = am.roc_curve(y, s, drop_intermediate=drop)
    same(d.line_.get_xdata(), fpr)
    same(d.line_.get_ydata(), tpr)
    same(d.roc_auc, am.roc_auc_score(y, s))
    assert d.line_.get_label() == f"Classifier (AUC = {d.roc_auc:0.2f})"
    peer = sm.RocCurveDisplay.from_predictions(y, s, drop_intermediate=drop)
    same(d.line_.get_xdata(), peer.line_.get_xdata())
    same(d.line_.get_ydata(), peer.line_.get_ydata())
    same(d.roc_auc, peer.roc_auc)
    assert d.ax_.get_xlabel() == peer.ax_.get_xlabel()
    assert d.ax_.get_ylabel() == peer.ax_.get_ylabel()


def test_roc_weighted_and_text_labels():
    y, s = binary()
    w = np.random.default_rng(1).uniform(0.5, 2, len(y))
    names = np.where(y == 1, "spam", "ham")
    d = am.RocCurveDisplay.from_predictions(names, s, pos_label="spam", sample_weight=w)
    peer = sm.RocCurveDisplay.from_predictions(names, s, pos_label="spam", sample_weight=w)
    same(d.line_.get_xdata(), peer.line_.get_xdata())
    same(d.line_.get_ydata(), peer.line_.get_ydata())
    assert d.ax_.get_xlabel() == "False Positive Rate (Positive label: spam)"


def test_pr_line_is_precision_recall_curve():
    y, s = binary()
    d = am.PrecisionRecallDisplay.from_predictions(y, s, plot_chance_level=True)
    precision, recall, _ = am.precision_recall_curve(y, s)
    same(d.line_.get_xdata(), recall)
    same(d.line_.get_ydata(), precision)
    same(d.average_precision, am.average_precision_score(y, s))
    assert d.line_.get_drawstyle() == "steps-post"
    assert d.line_.get_label() == f"Classifier (AP = {d.average_precision:0.2f})"
    same(d.chance_level_.get_ydata(), [y.mean(), y.mean()])
    assert d.chance_level_.get_label() == f"Chance level (AP = {y.mean():0.2f})"
    peer = sm.PrecisionRecallDisplay.from_predictions(y, s)
    same(d.line_.get_xdata(), peer.line_.get_xdata())
    same(d.line_.get_ydata(), peer.line_.get_ydata())
    same(d.average_precision, peer.average_precision)
    assert d.ax_.get_xlabel() == peer.ax_.get_xlabel()


def test_det_line_is_det_curve_on_normal_deviates():
    y, s = binary()
    d = am.DetCurveDisplay.from_predictions(y, s)
    fpr, fnr, _ = am.det_curve(y, s)
    same(d.line_.get_xdata(), norm.ppf(fpr))
    same(d.line_.get_ydata(), norm.ppf(fnr))
    peer = sm.DetCurveDisplay.from_predictions(y, s)
    same(d.line_.get_xdata(), peer.line_.get_xdata())
    same(d.line_.get_ydata(), peer.line_.get_ydata())
    assert [t.get_text() for t in d.ax_.get_xticklabels()] == \
        [t.get_text() for t in peer.ax_.get_xticklabels()]
    assert d.ax_.get_xlim() == peer.ax_.get_xlim()


@pytest.mark.parametrize("normalize", [None, "true", "pred", "all"])
def test_confusion_matrix_image_and_text(normalize):
    rng = np.random.default_rng(3)
    y = rng.choice(["cat", "dog", "eel"], 200)
    pred = np.where(rng.random(200) < 0.7, y, rng.choice(["cat", "dog", "eel"], 200))
    d = am.ConfusionMatrixDisplay.from_predictions(y, pred, normalize=normalize)
    same(d.im_.get_array(), am.confusion_matrix(y, pred, normalize=normalize))
    peer = sm.ConfusionMatrixDisplay.from_predictions(y, pred, normalize=normalize)
    same(d.im_.get_array(), peer.im_.get_array())
    assert [t.get_text() for t in d.text_.ravel()] == [t.get_text() for t in peer.text_.ravel()]
    assert [t.get_color() for t in d.text_.ravel()] == \
        [t.get_color() for t in peer.text_.ravel()]
    assert [t.get_text() for t in d.ax_.get_xticklabels()] == ["cat", "dog", "eel"]
    assert d.ax_.get_ylim() == peer.ax_.get_ylim()


def test_confusion_matrix_without_values_or_colorbar():
    d = am.ConfusionMatrixDisplay.from_predictions([0, 1, 1], [0, 1, 0], include_values=False,
                                                   colorbar=False, values_format=".1f")
    assert d.text_ is None and len(d.figure_.axes) == 1


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_line_is_calibration_curve(strategy):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 500)
    p = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.2, 500), 0, 1)
    d = am.CalibrationDisplay.from_predictions(y, p, n_bins=8, strategy=strategy)
    prob_true, prob_pred = sc.calibration_curve(y, p, n_bins=8, strategy=strategy)
    same(d.line_.get_xdata(), prob_pred)
    same(d.line_.get_ydata(), prob_true)
    peer = sc.CalibrationDisplay.from_predictions(y, p, n_bins=8, strategy=strategy)
    same(d.line_.get_xdata(), peer.line_.get_xdata())
    same(d.line_.get_ydata(), peer.line_.get_ydata())
    assert d.ax_.get_xlabel() == peer.ax_.get_xlabel()
    assert d.ax_.get_legend_handles_labels()[1] == ["Perfectly calibrated"]


@pytest.mark.parametrize("kind", ["actual_vs_predicted", "residual_vs_predicted"])
def test_prediction_error_points_match_scikit_learn(kind):
    rng = np.random.default_rng(5)
    truth = rng.normal(0, 3, 2000)
    pred = truth + rng.normal(0, 1, 2000)
    d = am.PredictionErrorDisplay.from_predictions(truth, pred, kind=kind, random_state=0)
    peer = sm.PredictionErrorDisplay.from_predictions(truth, pred, kind=kind, random_state=0)
    same(d.scatter_.get_offsets(), peer.scatter_.get_offsets())
    same(d.line_.get_xdata(), peer.line_.get_xdata())
    same(d.line_.get_ydata(), peer.line_.get_ydata())
    assert d.ax_.get_ylabel() == peer.ax_.get_ylabel()
    assert len(d.scatter_.get_offsets()) == 1000


def test_prediction_error_fraction_and_all():
    truth, pred = np.arange(10.0), np.arange(10.0) + 1
    d = am.PredictionErrorDisplay.from_predictions(truth, pred, subsample=0.5, random_state=1)
    assert len(d.scatter_.get_offsets()) == 5
    d = am.PredictionErrorDisplay.from_predictions(truth, pred, subsample=None)
    same(d.scatter_.get_offsets()[:, 1], truth - pred)


# --- from_estimator equals from_predictions on the estimator's scores. ----------------------

@pytest.mark.parametrize("display", [am.RocCurveDisplay, am.PrecisionRecallDisplay,
                                     am.DetCurveDisplay])
def test_from_estimator_equals_from_predictions(display):
    X, y = classification()
    model = LogisticRegression().fit(X[:300], y[:300])
    a = display.from_estimator(model, X[300:], y[300:])
    b = display.from_predictions(y[300:], model.predict_proba(X[300:])[:, 1])
    same(a.line_.get_xdata(), b.line_.get_xdata())
    same(a.line_.get_ydata(), b.line_.get_ydata())
    assert a.line_.get_label().startswith("LogisticRegression")
    c = display.from_estimator(model, X[300:], y[300:], response_method="decision_function")
    d = display.from_predictions(y[300:], model.decision_function(X[300:]))
    same(c.line_.get_ydata(), d.line_.get_ydata())
    peer = getattr(sm, display.__name__).from_estimator(model, X[300:], y[300:])
    same(a.line_.get_ydata(), peer.line_.get_ydata())


def test_from_estimator_negative_class_as_positive():
    X, y = classification()
    model = LogisticRegression().fit(X, y)
    a = am.RocCurveDisplay.from_estimator(model, X, y, pos_label=0)
    peer = sm.RocCurveDisplay.from_estimator(model, X, y, pos_label=0)
    same(a.line_.get_ydata(), peer.line_.get_ydata())
    a = am.RocCurveDisplay.from_estimator(model, X, y, pos_label=0,
                                          response_method="decision_function")
    same(a.line_.get_ydata(), peer.line_.get_ydata())


def test_pipelines_and_response_methods():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier
    X, y = classification()
    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    with pytest.raises(NotFittedError):
        am.RocCurveDisplay.from_estimator(pipe, X, y)
    pipe.fit(X, y)
    a = am.RocCurveDisplay.from_estimator(pipe, X, y)
    same(a.line_.get_ydata(), sm.RocCurveDisplay.from_estimator(pipe, X, y).line_.get_ydata())
    assert a.line_.get_label().startswith("Pipeline")
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(AttributeError, match="none of the following attributes"):
        am.RocCurveDisplay.from_estimator(tree, X, y, response_method="decision_function")


def test_calibration_and_confusion_from_estimator():
    X, y = classification()
    model = LogisticRegression().fit(X, y)
    a = am.CalibrationDisplay.from_estimator(model, X, y, n_bins=6)
    b = am.CalibrationDisplay.from_predictions(y, model.predict_proba(X)[:, 1], n_bins=6)
    same(a.line_.get_ydata(), b.line_.get_ydata())
    same(a.line_.get_xdata(), sc.CalibrationDisplay.from_estimator(model, X, y, n_bins=6)
         .line_.get_xdata())
    c = am.ConfusionMatrixDisplay.from_estimator(model, X, y)
    same(c.confusion_matrix, am.confusion_matrix(y, model.predict(X)))


def test_prediction_error_from_ridge():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 3))
    y = X @ [1.0, -2.0, 0.5] + rng.normal(0, 0.3, 300)
    model = Ridge().fit(X, y)
    a = am.PredictionErrorDisplay.from_estimator(model, X, y, subsample=None)
    b = am.PredictionErrorDisplay.from_predictions(y, model.predict(X), subsample=None)
    same(a.scatter_.get_offsets(), b.scatter_.get_offsets())


def test_from_cv_results_one_curve_per_fold():
    X, y = classification()
    tests = np.array_split(np.arange(len(y)), 3)
    estimators = [LogisticRegression().fit(np.delete(X, t, 0), np.delete(y, t)) for t in tests]
    cv = {"estimator": estimators, "indices": {"test": tests}}
    d = am.RocCurveDisplay.from_cv_results(cv, X, y)
    aucs = [sm.roc_auc_score(y[t], e.predict_proba(X[t])[:, 1]) for e, t in zip(estimators,
                                                                                 tests)]
    assert len(d.line_) == 3
    for line, e, t in zip(d.line_, estimators, tests):
        fpr, tpr, _ = am.roc_curve(y[t], e.predict_proba(X[t])[:, 1])
        same(line.get_xdata(), fpr)
        same(line.get_ydata(), tpr)
    same(d.roc_auc, aucs)
    assert d.line_[0].get_label() == f"AUC = {np.mean(aucs):0.2f} +/- {np.std(aucs):0.2f}"
    assert d.line_[1].get_label() == "_nolegend_"
    each = am.RocCurveDisplay.from_cv_results(cv, X, y, name=["a", "b", "c"],
                                              curve_kwargs=[{}, {}, {"color": "red"}])
    assert [line.get_label() for line in each.line_] == \
        [f"{n} (AUC = {a:0.2f})" for n, a in zip("abc", aucs)]
    pr = am.PrecisionRecallDisplay.from_cv_results(cv, X, y, plot_chance_level=True)
    ap = [sm.average_precision_score(y[t], e.predict_proba(X[t])[:, 1])
          for e, t in zip(estimators, tests)]
    same(pr.average_precision, ap)
    same([line.get_ydata()[0] for line in pr.chance_level_], [y[t].mean() for t in tests])


# --- plot() on existing axes, options, rendering. --------------------------------------------

def test_plot_draws_on_the_given_axes():
    y, s = binary()
    fig, ax = plt.subplots()
    roc = am.RocCurveDisplay.from_predictions(y, s, ax=ax, name="first")
    again = am.RocCurveDisplay(fpr=roc.fpr, tpr=roc.tpr, roc_auc=roc.roc_auc).plot(
        ax=ax, name="second", curve_kwargs={"color": "red", "ls": ":"})
    assert roc.ax_ is ax and again.ax_ is ax and again.figure_ is fig
    assert len(ax.lines) == 2 and again.line_.get_color() == "red"
    assert again.line_.get_linestyle() == ":"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == \
        [f"first (AUC = {roc.roc_auc:0.2f})", f"second (AUC = {roc.roc_auc:0.2f})"]


def test_lists_of_numbers_are_one_curve():
    roc = am.RocCurveDisplay(fpr=[0.0, 0.5, 1.0], tpr=[0.0, 1.0, 1.0], roc_auc=0.75).plot()
    same(roc.line_.get_ydata(), [0.0, 1.0, 1.0])
    pr = am.PrecisionRecallDisplay([0.5, 1.0, 1.0], [1.0, 0.5, 0.0], average_precision=0.75,
                                   prevalence_pos_label=0.5).plot(plot_chance_level=True)
    same(pr.line_.get_xdata(), [1.0, 0.5, 0.0])
    same(pr.chance_level_.get_ydata(), [0.5, 0.5])


def test_chance_level_and_despine():
    y, s = binary()
    d = am.RocCurveDisplay.from_predictions(y, s, plot_chance_level=True, despine=True,
                                            chance_level_kw={"color": "green"})
    same(d.chance_level_.get_xdata(), [0, 1])
    assert d.chance_level_.get_color() == "green"
    assert d.chance_level_.get_label() == "Chance level (AUC = 0.5)"
    assert not d.ax_.spines["top"].get_visible() and not d.ax_.spines["right"].get_visible()
    assert am.RocCurveDisplay.from_predictions(y, s).chance_level_ is None


def figures():
    y, s = binary()
    p = 1 / (1 + np.exp(-s))
    rng = np.random.default_rng(8)
    errors = rng.exponential(1, 200)
    return [
        am.RocCurveDisplay.from_predictions(y, s, n_bootstrap=20),
        am.PrecisionRecallDisplay.from_predictions(y, s, n_bootstrap=20),
        am.DetCurveDisplay.from_predictions(y, s),
        am.ConfusionMatrixDisplay.from_predictions(y, (s > 0.5).astype(int)),
        am.CalibrationDisplay.from_predictions(y, p),
        am.PredictionErrorDisplay.from_predictions(s, s + rng.normal(size=len(s))),
        shift.RetentionCurveDisplay.from_predictions(errors, errors + rng.normal(size=200)),
    ]


def test_every_display_renders_to_png():
    for display in figures():
        data = png_bytes(display.figure_)
        assert data.startswith(b"\x89PNG") and len(data) > 5000, type(display).__name__


# --- Bootstrap bands. --------------------------------------------------------------------------

def band(display_class, n, seed=0, n_bootstrap=200, data_seed=0):
    y, s = binary(n, seed=data_seed)
    return display_class.from_predictions(y, s, n_bootstrap=n_bootstrap, seed=seed), y, s


def test_roc_band_is_the_percentile_of_resampled_curves():
    d, y, s = band(am.RocCurveDisplay, 150, n_bootstrap=50)
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(50):  # brute force: interpolate each resampled curve with numpy
        i = rng.integers(0, len(y), len(y))
        if len(np.unique(y[i])) < 2:
            continue
        fpr, tpr, _ = sm.roc_curve(y[i], s[i], drop_intermediate=False)
        rows.append(np.interp(d.band_x, fpr, tpr))
    same(d.band_lower, np.percentile(rows, 2.5, axis=0))
    same(d.band_upper, np.percentile(rows, 97.5, axis=0))
    same(d.band_x, np.linspace(0, 1, 101))


def test_pr_band_reads_the_steps_on_the_recall_grid():
    d, y, s = band(am.PrecisionRecallDisplay, 150, n_bootstrap=30)
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(30):
        i = rng.integers(0, len(y), len(y))
        precision, recall, _ = sm.precision_recall_curve(y[i], s[i])
        # brute force: the last point (in the returned order) whose recall is >= r
        rows.append([precision[np.flatnonzero(recall >= r)[-1]] for r in d.band_x])
    same(d.band_lower, np.percentile(rows, 2.5, axis=0))
    same(d.band_upper, np.percentile(rows, 97.5, axis=0))


@pytest.mark.parametrize("display_class", [am.RocCurveDisplay, am.PrecisionRecallDisplay])
def test_band_holds_the_curve_is_seeded_and_narrows(display_class):
    from assay._plot.precision_recall_curve import precision_at
    from assay._plot.roc_curve import tpr_at
    d, y, s = band(display_class, 400)
    if display_class is am.RocCurveDisplay:
        fpr, tpr, _ = am.roc_curve(y, s, drop_intermediate=False)
        curve = tpr_at(fpr, tpr, d.band_x)
    else:
        curve = precision_at(d.precision, d.recall, d.band_x)
    inner = (d.band_x > 0.02) & (d.band_x < 0.98)  # the ends are pinned at 0/1 or noisy
    assert np.all(d.band_lower[inner] <= curve[inner] + 1e-12)
    assert np.all(curve[inner] <= d.band_upper[inner] + 1e-12)
    assert np.all(d.band_lower <= d.band_upper)
    again, _, _ = band(display_class, 400)
    same(again.band_lower, d.band_lower)
    same(again.band_upper, d.band_upper)
    other, _, _ = band(display_class, 400, seed=1)
    assert not np.array_equal(other.band_lower, d.band_lower)
    big, _, _ = band(display_class, 4000)
    width = np.mean((d.band_upper - d.band_lower)[inner])
    assert np.mean((big.band_upper - big.band_lower)[inner]) < 0.5 * width
    assert d.band_.get_label() == "95% bootstrap band"


@pytest.mark.parametrize("options", [{"n_bootstrap": 0}, {"n_bootstrap": 2.5},
                                     {"n_bootstrap": 10, "confidence": 1.0},
                                     {"n_bootstrap": 10, "seed": "x"}])
def test_bad_band_options_raise(options):
    y, s = binary(50)
    with pytest.raises(assay.AssayError):
        am.RocCurveDisplay.from_predictions(y, s, **options)


def test_band_with_one_class_per_resample_raises():
    # seed 0 draws rows [1, 1]: the one resample holds one class
    with pytest.raises(assay.AssayError, match="both classes"):
        am.RocCurveDisplay.from_predictions([0, 1], [0.2, 0.8], n_bootstrap=1, seed=0)


# --- Misuse raises as scikit-learn. ------------------------------------------------------------

def test_misuse_raises():
    X, y = classification()
    with pytest.raises(NotFittedError):
        am.RocCurveDisplay.from_estimator(LogisticRegression(), X, y)
    with pytest.raises(ValueError, match="classifier"):
        am.RocCurveDisplay.from_estimator(Ridge().fit(X, y), X, y)
    with pytest.raises(ValueError, match="classifier"):
        am.ConfusionMatrixDisplay.from_estimator(Ridge().fit(X, y), X, y)
    y3 = np.arange(len(y)) % 3
    with pytest.raises(ValueError, match="binary classifier"):
        am.PrecisionRecallDisplay.from_estimator(LogisticRegression().fit(X, y3), X, y3)
    with pytest.raises(ValueError):
        am.RocCurveDisplay.from_predictions(y3, X[:, 0])
    with pytest.raises(ValueError, match="kind"):
        am.PredictionErrorDisplay.from_predictions([1.0, 2.0], [1.0, 2.5], kind="bad")
    with pytest.raises(ValueError, match="positive"):
        am.PredictionErrorDisplay.from_predictions([1.0, 2.0], [1.0, 2.5], subsample=0)
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        am.PredictionErrorDisplay.from_predictions([1.0, 2.0], [1.0, 2.5], subsample=1.5)
    with pytest.raises(ValueError, match="prevalence_pos_label"):
        am.PrecisionRecallDisplay([1.0, 0.5], [0.0, 1.0]).plot(plot_chance_level=True)
    with pytest.raises(TypeError, match="aliases"):
        am.RocCurveDisplay.from_predictions(y, X[:, 0], curve_kwargs={"c": "r", "color": "b"})
    with pytest.raises(ValueError, match="curve_kwargs"):
        am.RocCurveDisplay(fpr=[[0, 1]] * 2, tpr=[[0, 1]] * 2).plot(curve_kwargs=[{}])
    with pytest.raises(ValueError, match="cv_results"):
        am.RocCurveDisplay.from_cv_results({"estimator": []}, X, y)
    with pytest.raises(ValueError):
        am.CalibrationDisplay.from_predictions([0, 1, 1], [0.2, 1.5, 0.7])


def test_missing_matplotlib_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="RocCurveDisplay.plot requires matplotlib"):
        am.RocCurveDisplay.from_predictions([0, 1], [0.2, 0.8])


def test_import_assay_does_not_load_matplotlib():
    code = ("import sys, assay, assay.metrics, assay.shift, assay.soak; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=dict(os.environ))
    assert out.stdout.strip() == "False"


# --- Retention curves and the SOAK chart. -------------------------------------------------------

@pytest.mark.parametrize("convention", ["shifts", "shifts-vpower"])
def test_retention_lines_are_the_shift_curves(convention):
    rng = np.random.default_rng(9)
    errors = rng.exponential(1, 101)
    unc = np.round(errors + rng.normal(0, 1, 101), 1)  # ties, where the conventions differ
    d = shift.RetentionCurveDisplay.from_predictions(errors, unc, convention=convention,
                                                     name="m")
    result = shift.retention_curve(errors, unc, convention)
    same(d.line_.get_xdata(), np.arange(102) / 101)
    same(d.line_.get_ydata(), result.curve)
    same(d.oracle_line_.get_ydata(), shift.oracle_retention_curve(errors, convention).curve)
    same(d.random_line_.get_ydata(), shift.random_retention_curve(errors, convention).curve)
    assert d.line_.get_label() == f"m (R-AUC = {result.r_auc:.3g})"
    assert shift.RetentionCurveDisplay.from_predictions(
        errors, unc, plot_oracle=False, plot_random=False).oracle_line_ is None


def soak_results():
    rng = np.random.default_rng(10)
    n = 240
    X = rng.normal(size=(n, 3))
    region = np.repeat(["A", "B", "C"], n // 3)
    y = (X[:, 0] + (region == "A") * X[:, 1] + rng.normal(0, 0.7, n) > 0).astype(int)
    return soak.run(X, y, subset=region, learners=["featureless", "glmnet"], n_splits=3)


def test_soak_chart_is_mean_and_sd_over_folds():
    results = soak_results()
    d = soak.SoakErrorDisplay.from_results(results)
    assert [a.get_title() for a in d.ax_] == ["test subset A", "test subset B", "test subset C"]
    assert d.ax_[0].get_xlabel() == "test error (%)"
    folds = results.groupby(["learner", "test.subset", "train.subsets"])["error_percent"]
    for (learner, subset), bars in d.errorbars_.items():
        expected = [folds.get_group((learner, subset, t)) for t in ("all", "same", "other")]
        means = np.array([e.mean() for e in expected])
        sds = np.array([e.std(ddof=1) for e in expected])
        same(bars.lines[0].get_xdata(), means)
        segments = bars.lines[2][0].get_segments()
        same([seg[0][0] for seg in segments], means - sds)
        same([seg[1][0] for seg in segments], means + sds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tests = soak.pvalues(results)
    texts = [t.get_text() for t in d.ax_[0].texts]
    p = tests[(tests["test.subset"] == "A") & (tests["learner"] == "glmnet") &
              (tests["n.train.groups"] == 0)]["p_paired"]
    assert all((f"p={v:.2g}" if np.isfinite(v) else "p undefined") in texts for v in p)
    assert png_bytes(d.figure_).startswith(b"\x89PNG")


def test_soak_chart_options_and_errors():
    results = soak_results()
    d = soak.SoakErrorDisplay.from_results(results, learners=["glmnet"], show_pvalues=False,
                                           measure="auc")
    assert list(d.errorbars_) == [("glmnet", "A"), ("glmnet", "B"), ("glmnet", "C")]
    assert not d.ax_[0].texts and d.ax_[0].get_xlabel() == "test AUC"
    fig, axes = plt.subplots(1, 3)
    assert soak.SoakErrorDisplay.from_results(results, ax=axes).figure_ is fig
    with pytest.raises(ValueError, match="one axes per test subset"):
        soak.SoakErrorDisplay.from_results(results, ax=axes[:2])
    with pytest.raises(assay.AssayError, match="learner"):
        soak.SoakErrorDisplay.from_results(results, learners=["nope"])
    two = results.copy()
    two.loc[two.index[: len(two) // 2], "data"] = "other"
    with pytest.raises(assay.AssayError, match="several data sets"):
        soak.SoakErrorDisplay.from_results(two)


# --- Documentation runs. ---------------------------------------------------------------------

def doc_blocks():
    text = open(os.path.join(ROOT, "docs", "plots.md"), encoding="utf-8").read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_docs_have_blocks():
    assert len(doc_blocks()) == 6


@pytest.mark.parametrize("index", range(6))
def test_docs_block_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(doc_blocks()[index], f"docs/plots.md block {index}", "exec"), {})
    for png in tmp_path.glob("*.png"):
        assert png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(f"assay._plot.{module}"))
    assert result.attempted > 0 and result.failed == 0


def test_band_resample_count_has_the_library_limit():
    # An unbounded count looped in Python for hours; the limit is assay.metrics.bootstrap's.
    y, s = binary(50)
    with pytest.raises(assay.AssayError, match="n_bootstrap"):
        am.RocCurveDisplay.from_predictions(y, s, n_bootstrap=10**9)
    with pytest.raises(assay.AssayError, match="seed"):
        am.RocCurveDisplay.from_predictions(y, s, n_bootstrap=10, seed=-1)
