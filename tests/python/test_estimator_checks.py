"""scikit-learn's own estimator checks (sklearn.utils.estimator_checks.check_estimator) on every
assay.learners estimator: each passes, except the checks it lists with a reason in its
"_xfail_checks" tag (check_estimator skips those); and each listed check really fails, so the
list stays honest."""
import inspect
import re
import warnings
from functools import partial

import pytest
from sklearn.exceptions import SkipTestWarning
from sklearn.utils.estimator_checks import check_estimator

import assay.learners as L

# Default parameters, except xgboost's tuning grid: its default 5 x 5 grid with 10 internal
# folds takes minutes over the ~50 checks' fits; a 2 x 2 grid runs the same tuning code.
PARAMS = {"xgboost": {"etas": [0.1, 0.3], "rounds": [5, 20]}}
# What each estimator lists (docs/learners.md, "scikit-learn's estimator checks").
EXPECTED_FAILURES = {
    "featureless": {"check_classifiers_classes"},
    "glmnet": set(),
    "cart": {"check_sample_weights_invariance"},
    "knn": set(),
    "xgboost": set(),
}


def make(name, cls=None):
    return (cls or L.ESTIMATORS[name])(**PARAMS.get(name, {}))


def check_name(check):
    return (check.func if isinstance(check, partial) else check).__name__


def run_check_estimator(est):
    """check_estimator(est); returns the names of the checks it skipped."""
    kwargs = {}
    if "expected_failed_checks" in inspect.signature(check_estimator).parameters:
        kwargs["expected_failed_checks"] = est._xfail_checks  # scikit-learn >= 1.6
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SkipTestWarning)
        check_estimator(est, **kwargs)
    skipped = set()
    for w in caught:
        if issubclass(w.category, SkipTestWarning):
            match = re.match(r"Skipping (\w+) for", str(w.message))
            assert match, f"unexpected skip: {w.message}"
            skipped.add(match.group(1))
    return skipped


@pytest.mark.parametrize("name", list(L.ESTIMATORS))
def test_check_estimator_passes_except_the_listed_checks(name):
    est = make(name)
    assert set(est._xfail_checks) == EXPECTED_FAILURES[name]
    assert est._get_tags()["_xfail_checks"] == est._xfail_checks
    for reason in est._xfail_checks.values():
        assert len(reason) > 40  # a reason, not a placeholder
    assert run_check_estimator(est) == EXPECTED_FAILURES[name]


@pytest.mark.parametrize("name,check", [(n, c) for n in L.ESTIMATORS
                                        for c in sorted(EXPECTED_FAILURES[n])])
def test_each_listed_check_does_fail(name, check):
    cls = L.ESTIMATORS[name]
    untagged = type(cls.__name__, (cls,), {"_xfail_checks": {}, "__module__": cls.__module__})
    est = make(name, untagged)
    failures = []
    for estimator, generated in check_estimator(est, generate_only=True):
        if check_name(generated) != check:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                generated(estimator)
        except AssertionError as e:
            failures.append(e)
    assert failures, f"{check} passes for {cls.__name__}: remove it from _xfail_checks"
