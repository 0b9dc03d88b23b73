"""Operating points against a brute force over scikit-learn 1.2.1: every distinct score and +inf
is a candidate, each candidate's metrics come from scikit-learn (0/0 as NaN), the rule and its
tie-break (largest threshold among equally good candidates) are applied in Python, and the chosen
threshold and value must match assay's (1e-12)."""
import math
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

from assay import AssayError
from assay._compare_points import choose_operating_point

TOL = 1e-12

RULES = ["precision>=0.9", "precision>=0.5", "recall>=0.8", "fpr<=0.01", "fpr<=0.2",
         "specificity>=0.95", "max_f1", "max_accuracy", "max_youden", "max_balanced_accuracy",
         "cost(fp=1,fn=5)"]
REPORTED = ["recall", "precision", "f1", "threshold", "fpr", "accuracy"]
LOWER_IS_BETTER = {"fpr", "fnr", "cost"}


def nan_if(empty, value):
    return math.nan if empty else float(value)


def candidate_metrics(y, s, w, t):
    """scikit-learn's metrics of the prediction score >= t, with 0/0 as NaN."""
    pred = (s >= t).astype(int)
    tn, fp, fn, tp = skm.confusion_matrix(y, pred, labels=[0, 1], sample_weight=w).ravel()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = {
            "threshold": t,
            "precision": nan_if(tp + fp == 0, skm.precision_score(
                y, pred, sample_weight=w, zero_division=0)),
            "recall": nan_if(tp + fn == 0, skm.recall_score(
                y, pred, sample_weight=w, zero_division=0)),
            "f1": nan_if(2 * tp + fp + fn == 0, skm.f1_score(
                y, pred, sample_weight=w, zero_division=0)),
            "specificity": nan_if(tn + fp == 0, tn / (tn + fp) if tn + fp else 0),
            "fpr": nan_if(tn + fp == 0, fp / (tn + fp) if tn + fp else 0),
            "accuracy": skm.accuracy_score(y, pred, sample_weight=w),
            "balanced_accuracy": skm.balanced_accuracy_score(y, pred, sample_weight=w),
            "mcc": skm.matthews_corrcoef(y, pred, sample_weight=w),
            "cost": (1 * fp + 5 * fn) / (tp + fp + fn + tn),
        }
    m["youden"] = m["recall"] - m["fpr"]
    return m


def candidates(y, s, w):
    """Every distinct score and +inf, in descending threshold order."""
    thresholds = [math.inf] + sorted(set(s.tolist()), reverse=True)
    return [candidate_metrics(y, s, w, t) for t in thresholds]


def objective_of(rule, metric):
    if rule.startswith("max_"):
        return rule[4:]
    if rule.startswith("cost("):
        return "cost"
    if metric != "threshold":
        return metric
    return "precision" if rule.startswith("recall") else "recall"


def satisfies(c, rule):
    for op in (">=", "<="):
        if op in rule:
            name, bound = rule.split(op)
            value = c[name]
            return value >= float(bound) if op == ">=" else value <= float(bound)
    return True


def oracle(cands, rule, metric):
    """(threshold, value) the rule chooses, or None when no candidate qualifies."""
    objective = objective_of(rule, metric)
    sign = -1 if objective in LOWER_IS_BETTER else 1
    scored = [(sign * c[objective], c) for c in cands if satisfies(c, rule)]
    scored = [(v, c) for v, c in scored if not math.isnan(v)]
    if not scored:
        return None
    best = max(v for v, _ in scored)
    # scikit-learn's formulas (2PR/(P+R), a mean of two recalls) may split an exact tie by an
    # ulp; assay's single fractions do not.
    chosen = next(c for v, c in scored if v >= best - TOL * max(1.0, abs(best)))
    return chosen["threshold"], chosen[metric]


def dataset(kind, n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + 0.8 * y
    w = None
    if kind == "tied":
        s = rng.integers(0, 4, n) / 4 + 0.25 * y * rng.integers(0, 2, n)
    elif kind == "weighted":
        w = rng.random(n) * 3
        w[rng.random(n) < 0.15] = 0.0
        if w.sum() == 0:
            w[0] = 1.0
    elif kind == "integer_weights":
        s = np.round(s, 1)
        w = rng.integers(0, 4, n).astype(float)
        if w.sum() == 0:
            w[0] = 1.0
    elif kind == "negatives_only":
        y[:] = 0
    elif kind == "positives_only":
        y[:] = 1
    return y, s, w


DATASETS = ([(kind, n, seed) for kind in ("continuous", "tied", "weighted", "integer_weights")
             for n in (1, 2, 3, 8, 30, 80) for seed in range(3)]
            + [(kind, n, 7) for kind in ("negatives_only", "positives_only") for n in (1, 4, 20)])


@pytest.mark.parametrize("kind,n,seed", DATASETS)
def test_against_brute_force(kind, n, seed):
    y, s, w = dataset(kind, n, seed)
    cands = candidates(y, s, w)
    for rule in RULES:
        for metric in REPORTED:
            spec = f"{metric}@{rule}"
            got = choose_operating_point(y, s, spec, sample_weight=w)
            want = oracle(cands, rule, metric)
            if want is None:
                assert not got["feasible"], spec
                assert math.isnan(got["value"]) and math.isnan(got["threshold"]), spec
                continue
            assert got["feasible"], spec
            assert got["threshold"] == want[0], spec
            np.testing.assert_allclose(got["value"], want[1], rtol=TOL, atol=TOL, err_msg=spec)


def test_counts_are_the_weighted_confusion_matrix():
    y, s, w = dataset("weighted", 40, 3)
    got = choose_operating_point(y, s, "recall@cost(fp=1,fn=5)", sample_weight=w)
    pred = (s >= got["threshold"]).astype(int)
    tn, fp, fn, tp = skm.confusion_matrix(y, pred, labels=[0, 1], sample_weight=w).ravel()
    np.testing.assert_allclose([got["tp"], got["fp"], got["fn"], got["tn"]], [tp, fp, fn, tn],
                               rtol=TOL, atol=TOL)


def test_huge_weights_give_unscaled_counts():
    y = np.array([1, 0, 1, 0, 1])
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    plain = choose_operating_point(y, s, "f1@max_f1")
    huge = choose_operating_point(y, s, "f1@max_f1", sample_weight=np.full(5, 1e300))
    assert huge["threshold"] == plain["threshold"]
    assert huge["value"] == pytest.approx(plain["value"], rel=TOL)
    assert huge["tp"] == pytest.approx(plain["tp"] * 1e300, rel=TOL)


def test_infinite_candidate_and_canonical_text():
    got = choose_operating_point([0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6], "Recall @ FPR <= 0 %")
    assert got == {"feasible": True, "threshold": math.inf, "tp": 0.0, "fp": 0.0, "fn": 2.0,
                   "tn": 2.0, "value": 0.0, "text": "recall@fpr<=0"}


def test_labels_and_pos_label():
    s = [0.1, 0.9, 0.8, 0.3]
    numeric = choose_operating_point([0, 1, 1, 0], s, "recall@max_f1")
    text = choose_operating_point(["neg", "pos", "pos", "neg"], s, "recall@max_f1")
    signed = choose_operating_point([-1, 1, 1, -1], s, "recall@max_f1")
    assert numeric == text == signed
    flipped = choose_operating_point([0, 1, 1, 0], s, "recall@max_f1", pos_label=0)
    assert flipped["tp"] + flipped["fn"] == 2 and flipped["threshold"] == 0.1
    ones = choose_operating_point([1, 1], [0.2, 0.4], "recall@max_f1")
    assert ones["tp"] + ones["fn"] == 2


def test_refusals():
    with pytest.raises(AssayError, match="at most two labels"):
        choose_operating_point([0, 1, 2], [0.1, 0.2, 0.3], "recall@max_f1")
    with pytest.raises(AssayError, match="pass pos_label"):
        choose_operating_point(["a", "a"], [0.1, 0.2], "recall@max_f1")
    with pytest.raises(AssayError, match='expected a bound in \\[0, 1\\] for precision'):
        choose_operating_point([0, 1], [0.1, 0.2], "recall@precision>=1.5")
    with pytest.raises(AssayError, match="inconsistent numbers of samples"):
        choose_operating_point([0, 1], [0.1, 0.2, 0.3], "recall@max_f1")
    with pytest.raises(AssayError, match="metric must be a string"):
        choose_operating_point([0, 1], [0.1, 0.2], 0.9)
