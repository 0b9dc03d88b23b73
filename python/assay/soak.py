"""assay.soak: Same/Other/All K-fold cross-validation (SOAK paper).

- ``SOAKFold``: a scikit-learn splitter (``split``, ``get_n_splits``, ``iteration_table``).
- ``run``: a whole experiment with assay's built-in learners (the entry point of ``assay soak``).
- ``run_estimators``: the same experiment with your own scikit-learn estimators.
- ``pvalues`` / ``summaries``: paired t-tests (Other-Same, All-Same) and mean/SD per train set,
  from the results of either.
- ``report``: the HTML page of ``assay soak`` from results.

Results are pandas DataFrames with one row per (data set, learner, split) and the columns data,
learner, test.subset, train.subsets, test.fold, seed, groups, n.train.groups, iteration,
n_train, n_test, error_percent, auc, mse, mae, train_seconds, predict_seconds,
hyperparameters, failure.
"""
import time

import numpy as np

from . import _assay
from . import _learning_common as _common
from ._options import check_task
from ._progress import counting, reporting
from ._soak_splits import *  # noqa: F401,F403  (SOAKFold)
from ._soak_splits import __all__ as _splits_all
from ._plot.soak_error import SoakErrorDisplay  # noqa: F401,E402  (drawn with matplotlib)

__all__ = list(_splits_all) + ["run", "run_estimators", "pvalues", "summaries", "report",
                               "SoakErrorDisplay", "RESULT_COLUMNS"]

RESULT_COLUMNS = ["data", "learner", "test.subset", "train.subsets", "test.fold", "seed",
                  "groups", "n.train.groups", "iteration", "n_train", "n_test", "error_percent",
                  "auc", "mse", "mae", "train_seconds", "predict_seconds", "hyperparameters",
                  "failure"]


def _codes(values, what):
    """Sorted distinct values (as strings) and the int32 code of each entry."""
    uniques, codes = _common.unique_codes(values, what)
    return [str(u) for u in uniques], codes


def _strata_codes(strata, n):
    strata = np.asarray(strata)
    if strata.ndim == 1:
        strata = strata[:, None]
    if strata.shape[0] != n:
        raise _assay.AssayError(f"strata has {strata.shape[0]} rows, expected {n}")
    keys = np.array(["\x1f".join(map(str, row)) for row in strata])
    return np.unique(keys, return_inverse=True)[1].astype(np.int32)


def _design(n, y_codes, subset, groups, fold, strata, task):
    if subset is None:
        subset_names, subset_codes = ["full"], np.zeros(n, np.int32)
    else:
        subset_names, subset_codes = _codes(subset, "subset")
    group = None if groups is None else _codes(groups, "groups")[1]
    if strata is False:  # as SOAKFold: no strata (only the subset)
        stratum = None
    elif strata is not None:
        stratum = _strata_codes(strata, n)
    elif task == "classification":
        stratum = y_codes
    else:
        stratum = None
    fold_ids = None if fold is None else _common.fold_codes(fold)
    return subset_codes, subset_names, group, stratum, fold_ids


def run(X, y, *, subset=None, groups=None, fold=None, strata=None, learners=("featureless",),
        learner_params=None, n_splits=10, subsets="SOA", sizes=-1, ratio=0.5, seeds=1,
        random_state=1, n_jobs=0, task="classification", sample_weight=None, data_name="data",
        feature_names=None, progress=True):
    """Run a SOAK experiment with assay's built-in learners.

    This is the entry point of ``assay soak``. Splits with the same train rows (All for every
    test subset; with two subsets, Same of one and Other of the other) share one fit, whose time
    each of their rows reports.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Numeric features (the subset is never a feature).
    y : array-like of shape (n_samples,)
        Labels (classification) or numbers (regression).
    subset : array-like of shape (n_samples,), default=None
        The subset of each row (never a feature). None: one subset (plain K-fold CV).
    groups : array-like of shape (n_samples,), default=None
        The group of each row; groups are never split.
    fold : array-like of shape (n_samples,), default=None
        A given fold per row, constant within a group.
    strata : None, False or array-like, default=None
        One value (or a row of values) per row. None: the label; False: none. Always crossed
        with the subset.
    learners : sequence of str, default=("featureless",)
        The built-in learners to run (featureless, glmnet, cart, knn, xgboost).
    learner_params : dict of str to dict, default=None
        Parameters per learner name, e.g. ``{"glmnet": {"alpha": 0.5}}`` (the CLI's
        ``--learner-param glmnet.alpha=0.5``); a learner without an entry gets its defaults.
    n_splits : int, default=10
        K, the number of folds.
    subsets : str, default="SOA"
        Train sets: a combination of "S" (same), "O" (other), "A" (all).
    sizes : int, default=-1
        Down-sampled train sizes, as ``SOAKFold``'s: -1 = full size only.
    ratio : float, default=0.5
        Ratio between successive down-sampled sizes, in (0, 1).
    seeds : int, default=1
        Repetitions of the down-sampling with different random group orders.
    random_state : int, RandomState or Generator, default=1
        Seed of folds, down-sampling and learners.
    n_jobs : int, default=0
        Threads (0 = all cores); the results do not depend on it.
    task : {"classification", "regression"}, default="classification"
        The kind of ``y``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row. None: every row weighs 1.
    data_name : str, default="data"
        The value of the results' ``data`` column.
    feature_names : sequence of str, default=None
        Names of the features (default x0, x1, ...), as the learners' messages and fitted
        models name them (e.g. a CART split's variable).
    progress : bool, default=True
        A progress bar while it runs (on a terminal's stderr, or in Jupyter); it does not
        change the results.

    Returns
    -------
    pandas.DataFrame
        One row per (data set, learner, split), with the columns of ``RESULT_COLUMNS``.

    Raises
    ------
    assay.AssayError
        Non-numeric or non-2-D ``X``, ``X`` and ``y`` of different lengths, an unknown task or
        learner, or bad ``learner_params``.

    See Also
    --------
    run_estimators : The same experiment with scikit-learn estimators.
    pvalues : Paired t-tests of its results.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import soak
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> subset = np.repeat(["a", "b"], 20)
    >>> results = soak.run(X, y, subset=subset, n_splits=2)
    >>> results.shape
    (12, 19)
    >>> results[["test.subset", "train.subsets", "test.fold"]].head(3)
      test.subset train.subsets  test.fold
    0           a           all          1
    1           b           all          1
    2           a           all          2
    """
    X = _common.numeric(X, "X")
    if X.ndim != 2:
        raise _assay.AssayError(f"X must be 2-D (n_samples, n_features), found {X.ndim} dimensions")
    n = X.shape[0]
    y = np.asarray(y)
    if y.shape != (n,):
        raise _assay.AssayError(f"X and y differ in length ({n} vs {len(y)})")
    if task == "classification":
        classes, y_codes = _codes(y, "y")
        y_value = None
    elif task == "regression":
        classes, y_codes = [], None
        y_value = _common.numeric(y, "a regression target y")
    else:
        check_task(task)  # raises, in the words of --task
    subset_codes, subset_names, group, stratum, fold_ids = _design(
        n, y_codes, subset, groups, fold, strata, task)
    weights = None if sample_weight is None else np.ascontiguousarray(sample_weight, np.float64)
    seed = _common.seed(random_state)
    names = None if feature_names is None else [str(f) for f in feature_names]
    params = _common.learner_params_json(learner_params)
    with reporting(progress):
        columns = _assay.soak_run(
            X, y_codes, classes, y_value, weights, task, subset_codes, subset_names, group,
            stratum, fold_ids, int(n_splits), subsets, int(sizes), float(ratio), int(seeds), seed,
            list(learners), int(n_jobs), seed, data_name, names, learner_params=params)
    return _common.frame(columns)


def pvalues(results, measure=None):
    """Compute paired t-tests of Other-Same and All-Same over folds.

    Per (data, learner, test subset, train size): the mean difference, its SD, t, df and p of
    the paired test, plus Welch's test; the rows of ``pvalues.csv``.

    Parameters
    ----------
    results : pandas.DataFrame or dict
        The results of ``run`` or ``run_estimators`` (or a dict of their columns).
    measure : {"error_percent", "mse", "auc", "mae"}, default=None
        The measure compared. None: "error_percent" for classification, "mse" for regression.

    Returns
    -------
    pandas.DataFrame
        One row per comparison.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import soak
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> subset = np.repeat(["a", "b"], 20)
    >>> from sklearn.linear_model import LogisticRegression
    >>> results = soak.run_estimators({"logreg": LogisticRegression()}, X, y, subset=subset,
    ...                               n_splits=2)
    >>> tests = soak.pvalues(results)
    >>> tests[["test.subset", "comparison"]].values.tolist()
    [['a', 'other-same'], ['a', 'all-same'], ['b', 'other-same'], ['b', 'all-same']]
    """
    out = _common.soak_statistics(results, measure)
    return _common.frame(out["pvalues"])


def summaries(results, measure=None):
    """Compute the mean and SD of the measure per train set.

    One row per (data, learner, test subset, train subsets, size).

    Parameters
    ----------
    results : pandas.DataFrame or dict
        The results of ``run`` or ``run_estimators`` (or a dict of their columns).
    measure : {"error_percent", "mse", "auc", "mae"}, default=None
        The measure compared. None: "error_percent" for classification, "mse" for regression.

    Returns
    -------
    pandas.DataFrame
        Columns data, learner, test.subset, train.subsets, n.train.groups, mean, sd, n.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import soak
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> subset = np.repeat(["a", "b"], 20)
    >>> from sklearn.linear_model import LogisticRegression
    >>> results = soak.run_estimators({"logreg": LogisticRegression()}, X, y, subset=subset,
    ...                               n_splits=2)
    >>> table = soak.summaries(results)
    >>> table.shape
    (6, 8)
    >>> table["n"].tolist()
    [2, 2, 2, 2, 2, 2]
    """
    out = _common.soak_statistics(results, measure)
    return _common.frame(out["summaries"])


def report(results, path, measure=None, title="SOAK", description=""):
    """Write the HTML page of ``assay soak`` for these results.

    The page holds the summary, the SOAK paper's Figure 3 per data set and learner, its
    Figures 4-5, and the tables.

    Parameters
    ----------
    results : pandas.DataFrame or dict
        The results of ``run`` or ``run_estimators`` (or a dict of their columns).
    path : str or os.PathLike
        The page to write.
    measure : {"error_percent", "mse", "auc", "mae"}, default=None
        The measure shown. None: "error_percent" for classification, "mse" for regression.
    title : str, default="SOAK"
        The page's title.
    description : str, default=""
        A paragraph under the title.

    Returns
    -------
    str or os.PathLike
        ``path``, as given.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import soak
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> subset = np.repeat(["a", "b"], 20)
    >>> from sklearn.linear_model import LogisticRegression
    >>> results = soak.run_estimators({"logreg": LogisticRegression()}, X, y, subset=subset,
    ...                               n_splits=2)
    >>> soak.report(results, "soak.html", title="Two subsets")
    'soak.html'
    """
    _assay.soak_report(_common.to_pyobj(_common.as_columns(results)), measure or "", str(path),
                       title, description)
    return path


def _class_codes(labels, classes):
    """The code of each label among ``classes`` (-1 for a label that is none of them)."""
    labels = np.asarray(labels)
    codes = np.full(len(labels), -1, dtype=np.int32)
    for code, label in enumerate(classes):
        codes[labels == label] = code
    return codes


def _score_split(y_test, pred, score, weights, classes, task):
    """One split's measures, computed by the compiled scoring of ``assay soak``
    (soak::score_classification / score_regression): a dict with error_percent, auc, mse, mae
    and failure ("the N test rows have total weight 0", else "")."""
    if task == "regression":
        return _assay.soak_score("regression", np.asarray(y_test, dtype=np.float64),
                                 np.asarray(pred, dtype=np.float64), weights=weights)
    return _assay.soak_score(
        "classification", _class_codes(y_test, classes), _class_codes(pred, classes),
        positive_score=None if score is None else np.asarray(score, dtype=np.float64),
        weights=weights, n_classes=len(classes))


def _positive_score(estimator, X_test, classes):
    if hasattr(estimator, "predict_proba"):
        proba = np.asarray(estimator.predict_proba(X_test))
        est_classes = list(getattr(estimator, "classes_", classes))
        if proba.ndim == 2 and classes[1] in est_classes:
            return proba[:, est_classes.index(classes[1])]
        return None
    if hasattr(estimator, "decision_function"):
        return np.asarray(estimator.decision_function(X_test), dtype=np.float64)
    return None


def run_estimators(estimators, X, y, *, subset=None, groups=None, fold=None, strata=None,
                   n_splits=10, subsets="SOA", sizes=-1, ratio=0.5, seeds=1, random_state=1,
                   n_jobs=None, task="classification", sample_weight=None, data_name="data",
                   progress=True):
    """Run a SOAK experiment with your own scikit-learn estimators.

    A clone of each estimator is fitted once per distinct train set (splits with the same train
    rows, as in ``run``, share it: each such row reports that fit's train_seconds) and predicts
    each split's test rows. A fit that raises (e.g. one class in a train set) records NA with the
    exception text in ``failure`` and the run goes on. The predictions are scored by the same
    compiled code as ``run``'s: the AUC needs both classes with positive test weight, and test
    rows of total weight 0 give NA with the reason in ``failure``.

    Parameters
    ----------
    estimators : dict of str to estimator
        ``{name: unfitted scikit-learn estimator}``.
    X : array-like of shape (n_samples, n_features)
        The features.
    y : array-like of shape (n_samples,)
        Labels (classification) or numbers (regression).
    subset : array-like of shape (n_samples,), default=None
        The subset of each row (never a feature). None: one subset (plain K-fold CV).
    groups : array-like of shape (n_samples,), default=None
        The group of each row; groups are never split.
    fold : array-like of shape (n_samples,), default=None
        A given fold per row, constant within a group.
    strata : None, False or array-like, default=None
        One value (or a row of values) per row. None: the label; False: none. Always crossed
        with the subset.
    n_splits : int, default=10
        K, the number of folds.
    subsets : str, default="SOA"
        Train sets: a combination of "S" (same), "O" (other), "A" (all).
    sizes : int, default=-1
        Down-sampled train sizes, as ``SOAKFold``'s: -1 = full size only.
    ratio : float, default=0.5
        Ratio between successive down-sampled sizes, in (0, 1).
    seeds : int, default=1
        Repetitions of the down-sampling with different random group orders.
    random_state : int, RandomState or Generator, default=1
        Seed of folds and down-sampling.
    n_jobs : int, default=None
        The joblib worker threads over splits (None = 1); the results do not depend on it as long
        as the estimators are seeded.
    task : {"classification", "regression"}, default="classification"
        The kind of ``y``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row. None: every row weighs 1.
    data_name : str, default="data"
        The value of the results' ``data`` column.
    progress : bool, default=True
        A progress bar while it runs (on a terminal's stderr, or in Jupyter); it does not
        change the results.

    Returns
    -------
    pandas.DataFrame
        The same results as ``run`` (hyperparameters = the estimator's ``get_params()``).

    Raises
    ------
    assay.AssayError
        ``X`` and ``y`` of different lengths, or no estimators.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import soak
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> subset = np.repeat(["a", "b"], 20)
    >>> from sklearn.linear_model import LogisticRegression
    >>> results = soak.run_estimators({"logreg": LogisticRegression()}, X, y, subset=subset,
    ...                               n_splits=2)
    >>> results.shape
    (12, 19)
    >>> results["learner"].unique().tolist()
    ['logreg']
    """
    from sklearn.base import clone

    X = np.asarray(X)
    y = np.asarray(y)
    n = X.shape[0]
    if y.shape[0] != n:
        raise _assay.AssayError(f"X and y differ in length ({n} vs {y.shape[0]})")
    if not estimators:
        raise _assay.AssayError("estimators is empty: give a dict name -> estimator")
    if task == "classification":
        classes, y_codes = _common.unique_codes(y, "y")
        classes = list(classes)
    elif task == "regression":
        classes, y_codes = [], None
    else:
        check_task(task)  # raises, in the words of --task
    subset_codes, subset_names, group, stratum, fold_ids = _design(
        n, y_codes, subset, groups, fold, strata, task)
    seed = _common.seed(random_state)
    splits = _assay.SoakSplits(subset_codes, subset_names, group, stratum, fold_ids,
                               int(n_splits), subsets, int(sizes), float(ratio), int(seeds), seed)
    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)

    def describe(name, i):
        info = splits.info(i)
        return {"data": data_name, "learner": name, "test.subset": info["test_subset"],
                "train.subsets": info["train_subsets"], "test.fold": info["test_fold"],
                "seed": info["seed"], "groups": info["groups"],
                "n.train.groups": info["n_train_groups"], "iteration": info["iteration"],
                "n_train": 0, "n_test": 0, "error_percent": np.nan, "auc": np.nan,
                "mse": np.nan, "mae": np.nan, "train_seconds": np.nan,
                "predict_seconds": np.nan, "hyperparameters": "", "failure": ""}

    def one_fit(name, estimator, members):
        """Fits a clone once on the train rows that the splits `members` share (train twins)
        and scores it on each member's test rows; one row per member."""
        rows = [describe(name, i) for i in members]
        train = splits.train_rows(members[0])
        tests = [splits.test_rows(i) for i in members]
        for row, test in zip(rows, tests):
            row["n_train"], row["n_test"] = len(train), len(test)
        try:
            model = clone(estimator)
            t0 = time.perf_counter()
            if weights is None:
                model.fit(X[train], y[train])
            else:
                model.fit(X[train], y[train], sample_weight=weights[train])
            train_seconds = time.perf_counter() - t0
        except Exception as e:  # noqa: BLE001 - any fit failure is recorded, the run goes on
            for row in rows:
                row["failure"] = f"{type(e).__name__}: {e}"
            return rows
        for row, test in zip(rows, tests):
            if len(test) == 0:  # as `run`
                row["failure"] = "empty test set"
                continue
            try:
                t1 = time.perf_counter()
                pred = model.predict(X[test])
                score = _positive_score(model, X[test], classes) if len(classes) == 2 else None
                t2 = time.perf_counter()
            except Exception as e:  # noqa: BLE001 - recorded as for a fit
                row["failure"] = f"{type(e).__name__}: {e}"
                continue
            scored = _score_split(y[test], pred, score, None if weights is None else weights[test],
                                  classes, task)
            for measure in ("error_percent", "auc", "mse", "mae", "failure"):
                row[measure] = scored[measure]
            row["train_seconds"], row["predict_seconds"] = train_seconds, t2 - t1
            row["hyperparameters"] = repr(estimator.get_params(deep=False))
        return rows

    # One fit per distinct train set (as `run`): splits that are train twins share it.
    members = {}
    for i in range(len(splits)):
        members.setdefault(splits.train_twin(i), []).append(i)
    jobs = [(name, est, m) for name, est in estimators.items() for m in members.values()]
    with counting(progress, "soak", len(jobs)) as step:
        def counted_fit(*job):
            rows = one_fit(*job)
            step()
            return rows

        if n_jobs in (None, 1):
            fitted = [counted_fit(*job) for job in jobs]
        else:
            from joblib import Parallel, delayed
            # Threads: the splits object stays shared (nothing to pickle), and scikit-learn's
            # numerical kernels release the GIL.
            fitted = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(counted_fit)(*job)
                                                                for job in jobs)
    # Back to the order of `run`: learner, then split.
    order = {(name, i): row for (name, _, m), rows in zip(jobs, fitted)
             for i, row in zip(m, rows)}
    rows = [order[(name, i)] for name in estimators for i in range(len(splits))]
    import warnings
    failures = [r for r in rows if r["failure"]]
    if failures:
        warnings.warn(f"{len(failures)} of {len(rows)} fits failed and are NA; first: "
                      f"{failures[0]['failure']}", _assay.AssayWarning, stacklevel=2)
    if len(classes) == 2:
        no_auc = [r for r in rows if not r["failure"] and np.isnan(r["auc"])]
        if no_auc:
            warnings.warn(f"AUC is NaN in {len(no_auc)} of {len(rows)} splits (a test fold with "
                          "one class, or an estimator without predict_proba/decision_function)",
                          _assay.AssayWarning, stacklevel=2)
    return _common.frame({c: [r[c] for r in rows] for c in RESULT_COLUMNS})
