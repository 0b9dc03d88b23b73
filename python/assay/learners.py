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
from . import _learning_common as _common
from ._options import check_task
from ._progress import reporting

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
        """Fit the learner on every row of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The features; NaN or infinite values are an ``AssayError`` (learners do not impute).
        y : array-like of shape (n_samples,)
            Labels of any type.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights. None: every row weighs 1.

        Returns
        -------
        self
            The fitted estimator.

        Raises
        ------
        assay.AssayError
            No ``y``, ``y`` or ``sample_weight`` of the wrong shape, non-finite features or bad
            parameters.

        Examples
        --------
        >>> import numpy as np
        >>> from assay import learners
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(60, 3))
        >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
        >>> tree = learners.Cart().fit(X, y)
        >>> tree.classes_, tree.n_features_in_
        (array(['no', 'yes'], dtype='<U3'), 3)
        """
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
        seed = _common.seed(getattr(self, "random_state", 0))
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
        """Predict class probabilities, one column per entry of ``classes_``; rows sum to 1.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The features, with the columns seen in ``fit`` (by name, in the fitted order, when
            ``fit`` saw names).

        Returns
        -------
        numpy.ndarray of shape (n_samples, n_classes)
            The probabilities.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            The estimator is not fitted.
        assay.AssayError
            X's feature names differ from those seen in ``fit``.

        Examples
        --------
        >>> import numpy as np
        >>> from assay import learners
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(60, 3))
        >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
        >>> tree = learners.Cart().fit(X, y)
        >>> tree.predict_proba(X[:2]).round(3)
        array([[0.069, 0.931],
               [0.069, 0.931]])
        """
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
        """Predict the class of highest probability (the first on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The features.

        Returns
        -------
        numpy.ndarray of shape (n_samples,)
            One entry of ``classes_`` per row.

        Examples
        --------
        >>> import numpy as np
        >>> from assay import learners
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(60, 3))
        >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
        >>> learners.Knn(k_max=5, internal_folds=3).fit(X, y).predict(X[:3])
        array(['yes', 'no', 'yes'], dtype='<U3')
        """
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
    """Majority-class baseline classifier.

    It predicts the (weighted) class frequencies of the train rows, so its label is the most
    frequent class (ties: the first in ``classes_``). It takes no parameters.

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (n_classes,)
        The classes, sorted as ``numpy.unique`` sorts them.
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : numpy.ndarray of shape (n_features,)
        The column names of X in ``fit``, when they are all strings.
    hyperparameters_ : dict
        What the learner chose in ``fit``.
    model_ : object
        The fitted C++ model.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import learners
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    >>> baseline = learners.Featureless().fit(X, y)
    >>> baseline.hyperparameters_
    {'predicted_class': 'no'}
    >>> baseline.predict(X[:2])
    array(['no', 'no'], dtype='<U3')
    """

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
    """L1/elastic-net logistic (two classes) or multinomial regression over glmnet's λ path.

    λ is chosen by internal K-fold CV (cv.glmnet); ``hyperparameters_`` holds the chosen λ.

    Parameters
    ----------
    alpha : float, default=1.0
        The elastic-net mixing: 1 lasso, 0 ridge.
    n_lambda : int, default=100
        The λ path's length.
    lambda_min_ratio : float, default=0.0
        The ratio λ_min/λ_max (0 = glmnet's choice).
    internal_folds : int, default=10
        Folds of the internal CV.
    rule : {"lambda.1se", "lambda.min"}, default="lambda.1se"
        Which λ the internal CV picks.
    tolerance : float, default=1e-7
        Convergence threshold of coordinate descent (glmnet's thresh).
    max_passes : int, default=100000
        Most passes of coordinate descent (glmnet's maxit).
    random_state : int, RandomState or Generator, default=0
        Seed of the internal CV folds.
    n_jobs : int, default=1
        Threads inside fit/predict (scikit-learn's convention: None = 1, -1 = all cores).

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (n_classes,)
        The classes, sorted as ``numpy.unique`` sorts them.
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : numpy.ndarray of shape (n_features,)
        The column names of X in ``fit``, when they are all strings.
    hyperparameters_ : dict
        What the learner chose in ``fit``.
    model_ : object
        The fitted C++ model.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import learners
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    >>> model = learners.Glmnet(internal_folds=3).fit(X, y)
    >>> model.hyperparameters_["rule"], model.hyperparameters_["nonzero"]
    ('lambda.1se', 3)
    >>> model.predict(X[:3])
    array(['yes', 'no', 'yes'], dtype='<U3')
    """

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
    """Classification tree as R's rpart grows it (Gini); no tuning, no randomness.

    Parameters
    ----------
    min_split : int, default=None
        The fewest rows a node needs to be split. None = 20, or 3 × min_bucket when only
        ``min_bucket`` is given, as rpart.control.
    min_bucket : int, default=0
        The fewest rows of a leaf; 0 = round(min_split / 3).
    cp : float, default=0.01
        The complexity parameter: a split must improve the fit by this fraction.
    max_depth : int, default=30
        The deepest node's depth.

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (n_classes,)
        The classes, sorted as ``numpy.unique`` sorts them.
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : numpy.ndarray of shape (n_features,)
        The column names of X in ``fit``, when they are all strings.
    hyperparameters_ : dict
        What the learner chose in ``fit``.
    model_ : object
        The fitted C++ model.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import learners
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    >>> tree = learners.Cart().fit(X, y)
    >>> tree.hyperparameters_
    {'nodes': 3, 'leaves': 2, 'depth': 1}
    >>> round(tree.score(X, y), 3)
    0.933
    """

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
    """K-nearest-neighbours classifier on standardised features, k tuned by internal K-fold CV.

    ``hyperparameters_`` holds the chosen k.

    Parameters
    ----------
    k_min : int, default=1
        The smallest k tried.
    k_max : int, default=20
        The largest k tried.
    internal_folds : int, default=10
        Folds of the internal CV.
    random_state : int, RandomState or Generator, default=0
        Seed of the internal CV folds.
    n_jobs : int, default=1
        Threads inside fit/predict (scikit-learn's convention: None = 1, -1 = all cores).

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (n_classes,)
        The classes, sorted as ``numpy.unique`` sorts them.
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : numpy.ndarray of shape (n_features,)
        The column names of X in ``fit``, when they are all strings.
    hyperparameters_ : dict
        What the learner chose in ``fit``.
    model_ : object
        The fitted C++ model.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import learners
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    >>> model = learners.Knn(k_max=5, internal_folds=3).fit(X, y)
    >>> model.hyperparameters_["k"]
    1
    """

    _learner = "knn"
    _learner_keys = ("k_min", "k_max", "internal_folds")

    def __init__(self, k_min=1, k_max=20, internal_folds=10, random_state=0, n_jobs=1):
        self.k_min = k_min
        self.k_max = k_max
        self.internal_folds = internal_folds
        self.random_state = random_state
        self.n_jobs = n_jobs


class Xgboost(_AssayClassifier):
    """Gradient-boosted trees (libxgboost), eta and the number of rounds tuned by internal CV.

    ``hyperparameters_`` holds the chosen eta and nrounds.

    Parameters
    ----------
    etas : sequence of float, default=None
        The etas tried. None = 5 log-spaced values in [0.001, 1].
    rounds : sequence of int, default=None
        The numbers of rounds tried. None = 1, 25, 50, 75, 100.
    internal_folds : int, default=10
        Folds of the internal CV.
    max_depth : int, default=6
        Passed to xgboost as it is.
    tree_method : {"hist", "exact", "approx"}, default="hist"
        Passed to xgboost as it is.
    random_state : int, RandomState or Generator, default=0
        Seed of the internal CV folds.
    n_jobs : int, default=1
        Threads inside fit/predict (scikit-learn's convention: None = 1, -1 = all cores).

    Attributes
    ----------
    classes_ : numpy.ndarray of shape (n_classes,)
        The classes, sorted as ``numpy.unique`` sorts them.
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : numpy.ndarray of shape (n_features,)
        The column names of X in ``fit``, when they are all strings.
    hyperparameters_ : dict
        What the learner chose in ``fit``.
    model_ : object
        The fitted C++ model.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import learners
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    >>> model = learners.Xgboost(etas=[0.3], rounds=[5, 10], internal_folds=3).fit(X, y)
    >>> model.hyperparameters_["eta"], model.hyperparameters_["nrounds"] in (5, 10)
    (0.3, True)
    """

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
CvResult.__doc__ = """What ``cv`` returns: per-fold results, per-learner summary, and a description.

    A named tuple.

    Parameters
    ----------
    results : pandas.DataFrame
        One row per (learner, fold).
    summary : pandas.DataFrame
        One row per learner.
    description : str
        A sentence on the data, the learners and the folds.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import learners
    >>> X = np.arange(40.0).reshape(20, 2)
    >>> result = learners.cv(X, np.arange(20) % 2, learners="featureless", n_splits=2)
    >>> results, summary, description = result
    >>> summary["learner"].tolist()
    ['featureless']
    """


def cv(X, y, *, learners=("featureless", "glmnet", "cart", "knn", "xgboost"),
       learner_params=None, n_splits=10, groups=None, fold=None, random_state=1, n_jobs=0,
       task="classification", sample_weight=None, data_name="data", feature_names=None,
       report=None, progress=True):
    """Compare built-in learners by K-fold cross-validation on one data set.

    ``assay cv`` from Python (the same library call, so the same folds and numbers for the same
    seed; SOAK paper, Figure 2). Folds are random within each class (a permutation of 1..K,
    1..K, ... per class).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Numeric features.
    y : array-like of shape (n_samples,)
        Labels (classification) or numbers (regression).
    learners : str or sequence of str, default=("featureless", "glmnet", "cart", "knn", "xgboost")
        The built-in learners to compare.
    learner_params : dict of str to dict, default=None
        Parameters per learner, e.g. ``{"glmnet": {"alpha": 0.5}}``.
    n_splits : int, default=10
        K, the number of folds.
    groups : array-like of shape (n_samples,), default=None
        Keeps the rows of a group in one fold.
    fold : array-like of shape (n_samples,), default=None
        Gives the folds.
    random_state : int, RandomState or Generator, default=1
        Seed of the folds and learners.
    n_jobs : int, default=0
        Threads (0 = all cores); results do not depend on it.
    task : {"classification", "regression"}, default="classification"
        The kind of ``y``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row. None: every row weighs 1.
    data_name : str, default="data"
        The value of the results' ``data`` column.
    feature_names : sequence of str, default=None
        Names of the features (default x0, x1, ...), as the learners name them.
    report : str or os.PathLike, default=None
        Path of an HTML page (SOAK paper, Figure 2) to write.
    progress : bool, default=True
        A progress bar while it runs (on a terminal's stderr, or in Jupyter); it does not
        change the results.

    Returns
    -------
    CvResult
        ``(results, summary, description)``: ``results`` has one row per (learner, fold) with
        the columns of results.csv (data, learner, test.fold, n_train, n_test, error_percent,
        auc, mse, mae, train_seconds, predict_seconds, hyperparameters, failure); ``summary`` one
        row per learner (mean, sd of error_percent or mse, n, n_failed, auc_mean, auc_sd,
        train_seconds_mean, train_seconds_sd, predict_seconds_mean, first_failure);
        ``description`` a sentence on the data and the folds.

    Raises
    ------
    assay.AssayError
        Non-numeric or non-2-D ``X``, columns of different lengths, or an unknown task.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import learners
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    >>> result = learners.cv(X, y, learners=["featureless", "cart"], n_splits=3)
    >>> result.results.shape
    (6, 13)
    >>> result.summary[["learner", "n"]].values.tolist()
    [['featureless', 3], ['cart', 3]]
    """
    X = _common.numeric(X, "X")
    if X.ndim != 2:
        raise _assay.AssayError(f"X must be 2-D (n_samples, n_features), found {X.ndim} dimensions")
    n = X.shape[0]
    y = np.asarray(y)
    if y.shape != (n,):
        raise _assay.AssayError(f"X and y differ in length ({n} vs {len(y)})")
    if task == "classification":
        uniques, y_codes = _common.unique_codes(y, "y")
        classes, y_value = [str(u) for u in uniques], None
    elif task == "regression":
        classes, y_codes, y_value = [], None, _common.numeric(y, "a regression target y")
    else:
        check_task(task)  # raises, in the words of --task
    group = None if groups is None else _common.unique_codes(groups, "groups")[1]
    fold_ids = None if fold is None else _common.fold_codes(fold)
    for name, values in (("groups", group), ("fold", fold_ids)):
        if values is not None and values.shape != (n,):
            raise _assay.AssayError(f"X and {name} differ in length ({n} vs {len(values)})")
    if isinstance(learners, str):
        learners = [learners]
    weights = None if sample_weight is None else np.ascontiguousarray(sample_weight, np.float64)
    seed = _common.seed(random_state)
    with reporting(progress):
        out = _assay.cv_run(
            X, y_codes, classes, y_value, weights, task, group, fold_ids, int(n_splits),
            list(learners), _common.learner_params_json(learner_params), int(n_jobs), seed,
            data_name, None if feature_names is None else [str(f) for f in feature_names],
            "" if report is None else os.fspath(report))
    return CvResult(_common.frame(out["results"]), _common.frame(out["summary"]),
                    out["description"])
