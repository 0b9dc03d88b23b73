"""assay.learners: assay's built-in learners as scikit-learn estimators, and K-fold comparison.

- ``Featureless``, ``Glmnet``, ``Cart``, ``Knn``, ``Xgboost``: classifiers with scikit-learn's
  interface (``fit(X, y, sample_weight=None)``, ``predict``, ``predict_proba``, ``score``,
  ``get_params``/``set_params``), so they work in ``Pipeline``, ``cross_val_score`` and
  ``GridSearchCV``. Each runs the same C++ learner as ``assay soak --learners NAME`` and
  ``assay cv``; the keyword arguments are that learner's parameters (docs/learners.md), with the
  same names and defaults, plus ``random_state`` (seed of the internal CV folds) and ``n_jobs``
  (threads inside fit/predict) where the learner uses them.
- ``cv``: plain K-fold cross-validation comparing learners on one data set (the library entry
  point behind ``assay cv``; SOAK paper, Figure 2).

Conventions (as scikit-learn): labels of any type; ``classes_`` sorted as ``numpy.unique``
sorts them; ``predict_proba`` columns follow ``classes_``; ``predict`` is the class of highest
probability (the first on ties). After ``fit``: ``classes_``, ``n_features_in_``,
``hyperparameters_`` (what the learner chose, e.g. glmnet's λ, knn's k: a dict) and
``feature_names_in_`` when X has string column names. NaN or infinite features are an
``AssayError`` (learners do not impute).

Fitted estimators pickle (``pickle``, ``joblib.dump``, ``copy.deepcopy``, and so
``GridSearchCV(n_jobs=2)`` and ``cross_validate(return_estimator=True)``): the C++ model is saved
exactly, so an unpickled estimator predicts bit-identically. The pickled state carries assay's
learner-model format version; another version is refused with an ``AssayError`` naming both.

``sklearn.utils.estimator_checks.check_estimator`` passes for every estimator, except the checks
each lists in its ``_xfail_checks`` tag with the reason (docs/learners.md, "scikit-learn's
estimator checks"); check_estimator reports those as skipped.
"""
import collections
import inspect
import json
import numbers
import os

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d

from . import _assay
from ._progress import reporting
from ._soak_splits import _codes as _unique_codes
from ._soak_splits import _fold_codes, _seed
from .soak import _frame, _learner_params_json, _numeric

__all__ = ["Featureless", "Glmnet", "Cart", "Knn", "Xgboost", "cv", "CvResult", "ESTIMATORS"]


def _threads(n_jobs):
    """scikit-learn's n_jobs as a thread count: None = 1, -1 = all cores, -2 = all but one; at
    most the machine's cores."""
    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise _assay.AssayError(f"n_jobs must be None or a non-zero integer, found {n_jobs!r}")
    cores = os.cpu_count() or 1
    if n_jobs < 0:
        return max(1, cores + 1 + int(n_jobs))
    # As the CLI's --threads: no more threads than cores (n_jobs=1000 would reach xgboost's
    # nthread), unless ASSAY_THREADS_FORCE=1; silently, as scikit-learn's n_jobs never warns.
    if os.environ.get("ASSAY_THREADS_FORCE") == "1":
        return int(n_jobs)
    return min(int(n_jobs), cores)


# Non-finite values are checked (with row and column) in C++; scikit-learn renamed the keyword
# that lets them through in 1.6 (force_all_finite -> ensure_all_finite).
_ALLOW_NON_FINITE = ({"ensure_all_finite": False}
                     if "ensure_all_finite" in inspect.signature(check_array).parameters
                     else {"force_all_finite": False})


class _AssayClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit/predict over ``_assay.learner_fit``; subclasses name the learner and list the
    keyword arguments that are learner parameters (the rest: random_state, n_jobs)."""

    _learner = ""
    _learner_keys = ()
    #: scikit-learn estimator checks this estimator does not pass: {check name: why}. They are
    #: the "_xfail_checks" tag, which check_estimator reports as skipped (docs/learners.md).
    _xfail_checks = {}

    def _learner_params(self):
        # None = the learner's own default (which may depend on other parameters).
        return {key: getattr(self, key) for key in self._learner_keys
                if getattr(self, key) is not None}

    def fit(self, X, y, sample_weight=None):
        """Fits on every row of X (n_samples, n_features) with labels y of any type and
        optional non-negative row weights; returns self."""
        names = _feature_names(X)
        if y is None:  # scikit-learn's message (its estimator checks look for it)
            raise _assay.AssayError(f"{type(self).__name__} requires y to be passed, but the "
                                    "target y is None")
        X = check_array(X, dtype=np.float64, order="C", ensure_min_samples=1,
                        **_ALLOW_NON_FINITE)
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)  # as scikit-learn: a DataConversionWarning, then 1-D
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise _assay.AssayError(
                f"y must be 1-D with one label per row of X ({X.shape[0]}), found shape "
                f"{y.shape}")
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        weights = None
        if sample_weight is not None:
            weights = np.ascontiguousarray(sample_weight, dtype=np.float64)
            if weights.shape != (X.shape[0],):
                raise _assay.AssayError(
                    f"sample_weight must have one weight per row of X ({X.shape[0]}), found "
                    f"shape {weights.shape}")
        seed = _seed(getattr(self, "random_state", 0))
        threads = _threads(getattr(self, "n_jobs", 1))
        try:
            params = json.dumps(self._learner_params(), default=_plain)
        except (TypeError, ValueError) as e:
            raise _assay.AssayError(f"{type(self).__name__}: {e}") from None
        self.model_ = _assay.learner_fit(
            self._learner, params, X, codes.astype(np.int32), [str(c) for c in self.classes_],
            None, weights, "classification", seed, threads)
        self.n_features_in_ = X.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.hyperparameters_ = json.loads(self.model_.description)
        return self

    def predict_proba(self, X):
        """Class probabilities, one column per entry of ``classes_``; rows sum to 1."""
        check_is_fitted(self, "model_")
        names = _feature_names(X)
        fitted = getattr(self, "feature_names_in_", None)
        if fitted is not None and names is not None and list(names) != list(fitted):
            # As scikit-learn: columns by name, in the fitted order, or the predictions are wrong.
            raise _assay.AssayError(
                "X's feature names differ from those seen in fit (same names in the same order "
                f"expected): fitted {list(fitted)}, found {list(names)}")
        X = check_array(X, dtype=np.float64, order="C", **_ALLOW_NON_FINITE)
        return self.model_.predict(X)

    def predict(self, X):
        """The class of highest probability (the first on ties)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def _more_tags(self):
        return {"non_deterministic": False, "allow_nan": False,
                "_xfail_checks": dict(self._xfail_checks)}


def _feature_names(X):
    """Column names of a DataFrame-like X when they are all strings (scikit-learn's rule)."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(list(columns), dtype=object)
    return names if len(names) and all(isinstance(c, str) for c in names) else None


def _plain(value):
    """json.dumps fallback: numpy scalars and arrays as numbers and lists."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"learner parameter value {value!r} is not a number, string or list")


class Featureless(_AssayClassifier):
    """Majority-class baseline: predicts the (weighted) class frequencies of the train rows, so
    its label is the most frequent class (ties: the first in ``classes_``)."""

    _learner = "featureless"
    _learner_keys = ()
    _xfail_checks = {
        "check_classifiers_classes":
            "a majority-class baseline predicts one class, so the other classes of the training "
            "labels never appear among its predictions",
    }

    def __init__(self):
        pass

    def _more_tags(self):
        # A baseline: scikit-learn's accuracy threshold in check_classifiers_train does not apply
        # (DummyClassifier has the same tag).
        return dict(super()._more_tags(), poor_score=True)


class Glmnet(_AssayClassifier):
    """L1/elastic-net logistic (two classes) or multinomial regression over glmnet's λ path, λ
    chosen by internal K-fold CV (cv.glmnet). ``alpha``: 1 lasso, 0 ridge; ``n_lambda`` path
    length; ``lambda_min_ratio`` λ_min/λ_max (0 = glmnet's choice); ``internal_folds``;
    ``rule``: "lambda.1se" or "lambda.min"; ``tolerance`` and ``max_passes`` of coordinate
    descent (glmnet's thresh, maxit). ``hyperparameters_`` holds the chosen λ."""

    _learner = "glmnet"
    _learner_keys = ("alpha", "n_lambda", "lambda_min_ratio", "internal_folds", "rule",
                     "tolerance", "max_passes")

    def __init__(self, alpha=1.0, n_lambda=100, lambda_min_ratio=0.0, internal_folds=10,
                 rule="lambda.1se", tolerance=1e-7, max_passes=100000, random_state=0, n_jobs=1):
        self.alpha = alpha
        self.n_lambda = n_lambda
        self.lambda_min_ratio = lambda_min_ratio
        self.internal_folds = internal_folds
        self.rule = rule
        self.tolerance = tolerance
        self.max_passes = max_passes
        self.random_state = random_state
        self.n_jobs = n_jobs


class Cart(_AssayClassifier):
    """Classification tree as R's rpart grows it (Gini; ``min_split`` None = 20, or 3 × min_bucket
    when only ``min_bucket`` is given, as rpart.control; ``min_bucket`` 0 = round(min_split / 3);
    complexity ``cp`` 0.01, ``max_depth`` 30); no tuning, no randomness."""

    _learner = "cart"
    _learner_keys = ("min_split", "min_bucket", "cp", "max_depth")
    _xfail_checks = {
        "check_sample_weights_invariance":
            "as R's rpart, rows of weight 0 count toward min_split, so zero-weight rows can let a "
            "node split that would not split without them (the check's data: 16 rows do not "
            "reach min_split = 20, the same rows plus 16 of weight 0 do)",
    }

    def __init__(self, min_split=None, min_bucket=0, cp=0.01, max_depth=30):
        self.min_split = min_split
        self.min_bucket = min_bucket
        self.cp = cp
        self.max_depth = max_depth


class Knn(_AssayClassifier):
    """k nearest neighbours on standardised features, k tuned over ``k_min``..``k_max`` by
    internal K-fold CV (``hyperparameters_`` holds the chosen k)."""

    _learner = "knn"
    _learner_keys = ("k_min", "k_max", "internal_folds")

    def __init__(self, k_min=1, k_max=20, internal_folds=10, random_state=0, n_jobs=1):
        self.k_min = k_min
        self.k_max = k_max
        self.internal_folds = internal_folds
        self.random_state = random_state
        self.n_jobs = n_jobs


class Xgboost(_AssayClassifier):
    """Gradient-boosted trees (libxgboost), eta tuned over ``etas`` (None = 5 log-spaced values
    in [0.001, 1]) and the number of rounds over ``rounds`` (None = 1, 25, 50, 75, 100) by
    internal K-fold CV (``hyperparameters_`` holds the chosen eta and nrounds); ``max_depth``
    and ``tree_method`` ("hist", "exact" or "approx") go to xgboost as they are."""

    _learner = "xgboost"
    _learner_keys = ("etas", "rounds", "internal_folds", "max_depth", "tree_method")

    def __init__(self, etas=None, rounds=None, internal_folds=10, max_depth=6,
                 tree_method="hist", random_state=0, n_jobs=1):
        self.etas = etas
        self.rounds = rounds
        self.internal_folds = internal_folds
        self.max_depth = max_depth
        self.tree_method = tree_method
        self.random_state = random_state
        self.n_jobs = n_jobs


#: Learner name (as on the command line) -> estimator class.
ESTIMATORS = {"featureless": Featureless, "glmnet": Glmnet, "cart": Cart, "knn": Knn,
              "xgboost": Xgboost}

#: What ``cv`` returns: per-fold results and per-learner summary (DataFrames), and a description.
CvResult = collections.namedtuple("CvResult", ["results", "summary", "description"])


def cv(X, y, *, learners=("featureless", "glmnet", "cart", "knn", "xgboost"),
       learner_params=None, n_splits=10, groups=None, fold=None, random_state=1, n_jobs=0,
       task="classification", sample_weight=None, data_name="data", feature_names=None,
       report=None, progress=True):
    """K-fold cross-validation comparing built-in learners on one data set: ``assay cv`` from
    Python (the same library call, so the same folds and numbers for the same seed).

    Folds are random within each class (a permutation of 1..K, 1..K, ... per class); ``groups``
    keeps the rows of a group in one fold; ``fold`` gives the folds. ``learner_params``:
    ``{"glmnet": {"alpha": 0.5}}``. ``n_jobs``: threads (0 = all cores); results do not depend
    on it. ``report``: path of an HTML page (SOAK paper, Figure 2) to write. ``progress``: a bar
    (terminal or Jupyter) while the folds run.
    Returns ``CvResult(results, summary, description)``: ``results`` has one row per (learner,
    fold) with the columns of results.csv (data, learner, test.fold, n_train, n_test,
    error_percent, auc, mse, mae, train_seconds, predict_seconds, hyperparameters, failure);
    ``summary`` one row per learner (mean, sd of error_percent or mse, n, n_failed, auc_mean,
    auc_sd, train_seconds_mean, train_seconds_sd, predict_seconds_mean, first_failure).
    """
    X = _numeric(X, "X")
    if X.ndim != 2:
        raise _assay.AssayError(f"X must be 2-D (n_samples, n_features), found {X.ndim} dimensions")
    n = X.shape[0]
    y = np.asarray(y)
    if y.shape != (n,):
        raise _assay.AssayError(f"X and y differ in length ({n} vs {len(y)})")
    if task == "classification":
        uniques, y_codes = _unique_codes(y, "y")
        classes, y_value = [str(u) for u in uniques], None
    elif task == "regression":
        classes, y_codes, y_value = [], None, _numeric(y, "a regression target y")
    else:
        raise _assay.AssayError(f'task must be "classification" or "regression", found "{task}"')
    group = None if groups is None else _unique_codes(groups, "groups")[1]
    fold_ids = None if fold is None else _fold_codes(fold)
    for name, values in (("groups", group), ("fold", fold_ids)):
        if values is not None and values.shape != (n,):
            raise _assay.AssayError(f"X and {name} differ in length ({n} vs {len(values)})")
    if isinstance(learners, str):
        learners = [learners]
    weights = None if sample_weight is None else np.ascontiguousarray(sample_weight, np.float64)
    seed = _seed(random_state)
    with reporting(progress):
        out = _assay.cv_run(
            X, y_codes, classes, y_value, weights, task, group, fold_ids, int(n_splits),
            list(learners), _learner_params_json(learner_params), int(n_jobs), seed, data_name,
            None if feature_names is None else [str(f) for f in feature_names],
            "" if report is None else os.fspath(report))
    return CvResult(_frame(out["results"]), _frame(out["summary"]), out["description"])
