"""Calibration error, Brier score and log loss vs scikit-learn 1.2.1 and brute-force numpy."""
import warnings

import numpy as np
import pytest
import sklearn.metrics as sm
from sklearn.calibration import calibration_curve

import assay
import assay.metrics as am

RTOL = 1e-12


def close(a, b):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=RTOL,
                               atol=1e-14)


def brute_force(conf, outcome, bins, norm, w=None, strategy="uniform"):
    """Reference ECE/RMS/MCE: bins (lo, hi] with 0 in the first bin (calibration_curve's rule)."""
    w = np.ones(len(conf)) if w is None else w
    if strategy == "uniform":
        edges = np.arange(bins + 1) / bins
    else:
        edges = np.percentile(conf, np.linspace(0, 1, bins + 1) * 100)
    ids = np.searchsorted(edges[1:-1], conf)
    gaps, masses = [], []
    for b in range(bins):
        m = ids == b
        if w[m].sum() == 0:
            continue
        gaps.append(abs(np.average(outcome[m], weights=w[m]) - np.average(conf[m], weights=w[m])))
        masses.append(w[m].sum() / w.sum())
    gaps, masses = np.array(gaps), np.array(masses)
    return {"l1": np.sum(masses * gaps), "l2": np.sqrt(np.sum(masses * gaps**2)),
            "max": gaps.max()}[norm]


def test_binary_bins_match_calibration_curve(rng):
    for n, bins in ((200, 10), (1000, 15), (50, 20)):
        y = rng.integers(0, 2, n)
        p = rng.random(n)
        for strategy in ("uniform", "quantile"):
            out = am.calibration_error(y, p, bins=bins, strategy=strategy)
            prob_true, prob_pred = calibration_curve(y, p, n_bins=bins, strategy=strategy)
            full = out["bins"]["count"] > 0
            close(out["bins"]["accuracy"][full], prob_true)
            close(out["bins"]["confidence"][full], prob_pred)
            assert np.isnan(out["bins"]["accuracy"][~full]).all()
            assert out["bins"]["count"].sum() == n
            for norm in ("l1", "l2", "max"):
                close(am.calibration_error(y, p, bins=bins, strategy=strategy, norm=norm)["error"],
                      brute_force(p, y.astype(float), bins, norm, strategy=strategy))


def test_empty_bins_reported(rng):
    p = np.array([0.05, 0.07, 0.95, 0.91])
    out = am.calibration_error([0, 0, 1, 1], p, bins=10)
    assert out["bins"]["count"].tolist() == [2, 0, 0, 0, 0, 0, 0, 0, 0, 2]
    close(out["bins"]["lower"], np.arange(10) / 10)
    close(out["bins"]["upper"], np.arange(1, 11) / 10)
    close(out["error"], 0.5 * 0.06 + 0.5 * 0.07)


def test_weighted_top_label_and_classwise(rng):
    n, k = 300, 4
    y = rng.integers(0, k, n)
    p = rng.dirichlet(np.ones(k), n)
    w = rng.random(n)
    w[:20] = 0
    conf = p.max(axis=1)
    correct = (p.argmax(axis=1) == y).astype(float)
    for norm in ("l1", "l2", "max"):
        close(am.calibration_error(y, p, bins=10, norm=norm, sample_weight=w)["error"],
              brute_force(conf, correct, 10, norm, w))
        out = am.calibration_error(y, p, bins=10, norm=norm, multiclass="classwise",
                                   sample_weight=w)
        per_class = [brute_force(p[:, c], (y == c).astype(float), 10, norm, w) for c in range(k)]
        close(out["class_errors"], per_class)
        close(out["error"], np.mean(per_class))
        assert out["bins"]["count"].shape == (k, 10)
    # String classes: columns follow the sorted classes.
    names = np.array(["a", "b", "c", "d"])
    close(am.calibration_error(names[y], p, bins=10)["error"], brute_force(conf, correct, 10, "l1"))


def test_binary_pos_label(rng):
    y = rng.choice(["neg", "pos"], 100)
    p = rng.random(100)
    a = am.calibration_error(y, p, bins=5, pos_label="pos")
    b = am.calibration_error((y == "pos").astype(int), p, bins=5)
    close(a["error"], b["error"])


def test_brier_matches_sklearn(rng):
    for _ in range(5):
        y = rng.integers(0, 2, 100)
        p = rng.random(100)
        w = rng.random(100)
        close(am.brier_score_loss(y, p), sm.brier_score_loss(y, p))
        close(am.brier_score_loss(y, p, sample_weight=w), sm.brier_score_loss(y, p, sample_weight=w))
        close(am.brier_score_loss(y, p, pos_label=0), sm.brier_score_loss(y, p, pos_label=0))
        close(am.brier_score_loss(y * 2 + 3, p), sm.brier_score_loss(y * 2 + 3, p))
        s = np.array(["x", "y"])[y]
        close(am.brier_score_loss(s, p, pos_label="x"), sm.brier_score_loss(s, p, pos_label="x"))
    close(am.brier_score_loss([1, 1, 1], [0.2, 0.9, 1.0]), sm.brier_score_loss([1, 1, 1],
                                                                              [0.2, 0.9, 1.0]))


def test_log_loss_matches_sklearn(rng):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in (2, 3, 5):
            y = rng.integers(0, k, 80)
            p = rng.dirichlet(np.ones(k), 80)
            p[0] = 0
            p[0, 0] = 1
            w = rng.random(80)
            # scikit-learn >= 1.5 clips at the dtype's epsilon (1.2's eps="auto"); its eps
            # argument is gone; rows that do not sum to one warn and are not renormalised.
            close(am.log_loss(y, p), sm.log_loss(y, p, eps="auto"))
            close(am.log_loss(y, p, sample_weight=w), sm.log_loss(y, p, eps="auto",
                                                                   sample_weight=w))
            close(am.log_loss(y, p, normalize=False), sm.log_loss(y, p, eps="auto",
                                                                   normalize=False))
            with pytest.raises(TypeError, match="eps"):
                am.log_loss(y, p, eps=1e-3)
            with pytest.warns(UserWarning, match="do not sum to one"):
                unnormalised = am.log_loss(y, p * 0.5)
            clipped = np.clip(p[np.arange(80), y] * 0.5, np.finfo(float).eps, 1)
            close(unnormalised, -np.log(clipped).mean())
        y = rng.integers(0, 2, 50)
        p1 = rng.random(50)
        close(am.log_loss(y, p1), sm.log_loss(y, p1))
        s = np.array(["no", "yes"])[y]
        close(am.log_loss(s, p1), sm.log_loss(s, p1))
        y = rng.integers(0, 2, 50)
        p = rng.dirichlet(np.ones(3), 50)
        close(am.log_loss(y, p, labels=[0, 1, 2]), sm.log_loss(y, p, labels=[0, 1, 2]))
        # A y_true value outside `labels` is refused (scikit-learn >= 1.7; 1.2 counted 0).
        y = np.array([0, 1, 2, 5])
        p = rng.dirichlet(np.ones(3), 4)
        with pytest.raises(ValueError, match=r"y_true contains values \{5\} not belonging"):
            am.log_loss(y, p, labels=[0, 1, 2])


BAD = [
    (lambda: am.calibration_error([0, 1, 1], [0.2, 1.5, 0.3]),
     r"y_prob must be in \[0, 1\], found 1.5 at index 1"),
    (lambda: am.calibration_error([0, 1, 1], [0.2, np.nan, 0.3]), "y_prob contains NaN at index 1"),
    (lambda: am.calibration_error([0, 1, 1], [0.2, 0.3]),
     r"Found input variables with inconsistent numbers of samples: \[3, 2\]"),
    (lambda: am.calibration_error([0, 1], [0.2, 0.3], bins=0), "bins must be >= 1, found 0"),
    (lambda: am.calibration_error([0, 1], [0.2, 0.3], norm="l3"), "norm must be 'l1', 'l2' or 'max'"),
    (lambda: am.calibration_error([0, 1], [0.2, 0.3], strategy="kmeans"),
     "strategy must be 'uniform' or 'quantile'"),
    (lambda: am.calibration_error([], []), "y_prob is empty"),
    (lambda: am.calibration_error([0, 3], [[0.5, 0.5], [0.2, 0.8]], labels=[0, 1]),
     "y_true contains the label 3, which is not among the labels"),
    (lambda: am.calibration_error([0, 1], [[0.5, 0.5], [-0.2, 1.2]]),
     r"y_prob must be in \[0, 1\], found -0.2 at row 1, column 0"),
    (lambda: am.calibration_error([0, 1], [0.2, 0.3], sample_weight=[1, -2]),
     "sample_weight must be >= 0, found -2 at index 1"),
    (lambda: am.brier_score_loss([0, 1], [0.2, 1.3]), r"y_prob contains values greater than 1."),
    (lambda: am.brier_score_loss([0, 1], [-0.2, 1]), r"y_prob contains values less than 0."),
    (lambda: am.brier_score_loss([0, 1, 2], [0.2, 0.3, 0.1]),
     "The type of the target inferred from y_true is multiclass but should be binary"),
    (lambda: am.brier_score_loss(["a", "b"], [0.2, 0.3]), "pos_label is not specified"),
    (lambda: am.brier_score_loss([], []), "y_true is empty: need at least one sample"),
    (lambda: am.log_loss([1, 1], [0.2, 0.3]), r"y_true contains only one label \(1\)"),
    (lambda: am.log_loss([0, 1, 2], [[0.5, 0.5]] * 3),
     "y_true and y_pred contain different number of classes 3, 2"),
    (lambda: am.log_loss([0, 1], [[0.5, np.nan], [0.5, 0.5]]),
     r"Input contains NaN. First at index \(0, 1\)."),
    (lambda: am.log_loss([0, 1, 1], [0.5, 0.5]),
     r"Found input variables with inconsistent numbers of samples: \[2, 3\]"),
]


@pytest.mark.parametrize("call,message", BAD)
def test_bad_input_messages(call, message):
    with pytest.raises(assay.AssayError, match=message):
        call()


@pytest.mark.parametrize("norm, binary, multiclass", [
    ("l1", 0.2900, 0.2000), ("l2", 0.2918, 0.2082), ("max", 0.3167, 0.2333)])
def test_torchmetrics_documented_examples(norm, binary, multiclass):
    # torchmetrics' binary_calibration_error / multiclass_calibration_error docstring examples
    # (uniform bins; binary bins the positive-class probability against the label, multi-class
    # the top-label confidence against correctness), which print 4 decimals.
    p = np.array([0.25, 0.25, 0.55, 0.75, 0.75])
    y = np.array([0, 0, 1, 1, 1])
    assert round(am.calibration_error(y, p, bins=2, norm=norm)["error"], 4) == binary
    P = np.array([[0.25, 0.20, 0.55], [0.55, 0.05, 0.40], [0.10, 0.30, 0.60],
                  [0.90, 0.05, 0.05]])
    t = np.array([0, 1, 2, 0])
    assert round(am.calibration_error(t, P, bins=3, norm=norm)["error"], 4) == multiclass
