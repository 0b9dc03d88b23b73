"""Scorers: scikit-learn's make_scorer / get_scorer / get_scorer_names, backed by assay's
metrics, as of scikit-learn 1.9. A scorer is a callable scorer(estimator, X, y_true,
sample_weight=None) that asks the estimator for its `response_method` (predict, predict_proba,
decision_function, or the first of a tuple the estimator has) and scores the answer with an
assay function, so scikit-learn's cross_validate, cross_val_score and GridSearchCV accept it:

    cross_validate(model, X, y, scoring=assay.metrics.get_scorer("roc_auc"))
    GridSearchCV(model, grid, scoring={"auc": get_scorer("roc_auc"), "f1": get_scorer("f1")})

This module does not import scikit-learn. Scorer names are scikit-learn's supervised ones (its
clustering scorers have no assay counterpart)."""
import copy
import inspect
from functools import partial

import numpy as np

from ._assay import AssayError
from ._classification import (accuracy_score, balanced_accuracy_score, brier_score_loss,
                              d2_brier_score, d2_log_loss_score, f1_score, log_loss,
                              matthews_corrcoef, precision_score, recall_score)
from ._label_metrics import class_likelihood_ratios, jaccard_score
from ._ranking import average_precision_score, roc_auc_score, top_k_accuracy_score
from ._regression import (d2_absolute_error_score, explained_variance_score, max_error,
                          mean_absolute_error, mean_absolute_percentage_error,
                          mean_gamma_deviance, mean_poisson_deviance, mean_squared_error,
                          mean_squared_log_error, median_absolute_error, r2_score,
                          root_mean_squared_error, root_mean_squared_log_error)

__all__ = ["make_scorer", "get_scorer", "get_scorer_names"]


_RESPONSE_METHODS = ("predict", "predict_proba", "decision_function")


def _check_response_method_spec(response_method):
    """scikit-learn's accepted values: one method name, or a list/tuple of them in order of
    preference. Returns a tuple."""
    methods = (response_method,) if isinstance(response_method, str) else response_method
    if not isinstance(methods, (list, tuple)) or not methods or \
            any(m not in _RESPONSE_METHODS for m in methods):
        raise AssayError("The 'response_method' parameter of make_scorer must be a str among "
                         f"{set(_RESPONSE_METHODS)} or a list/tuple of them. Got "
                         f"{response_method!r} instead.")
    return tuple(methods)


def _is_classifier(estimator):
    kind = getattr(estimator, "_estimator_type", None)
    return kind == "classifier" or (kind is None and hasattr(estimator, "classes_"))


def _positive_column(y_pred, classes, pos_label, what):
    """The column of pos_label of a binary classifier's (n, 2) predict_proba."""
    if y_pred.ndim == 2 and y_pred.shape[1] < 2:  # fitted on one class
        raise AssayError(f"Got predict_proba of shape {y_pred.shape}, but need classifier with "
                         "two classes.")
    if y_pred.ndim == 2 and y_pred.shape[1] <= 2:
        return y_pred[:, np.flatnonzero(np.asarray(classes) == pos_label)[0]]
    raise AssayError(f"Got predict_proba of shape {y_pred.shape}, but need classifier with two "
                     f"classes for {what} scoring")


def _classifier_response(estimator, X, method, pos_label, what):
    """scikit-learn's _get_response_values for a classifier: binary predict_proba reduced to
    the positive class's column, binary decision_function negated when the positive class is
    classes_[0], multilabel lists stacked; predict as is."""
    classes = np.asarray(estimator.classes_)
    binary = classes.ndim == 1 and len(classes) <= 2  # scikit-learn's type_of_target(classes_)
    if binary:
        if pos_label is None:
            pos_label = classes[-1]
        elif pos_label not in classes.tolist():  # only binary targets check it (1.9)
            raise AssayError(f"pos_label={pos_label} is not a valid label: It should be one of "
                             f"{classes}")
    y_pred = getattr(estimator, method)(X)
    if method == "predict_proba":
        if isinstance(y_pred, list):  # multilabel: one (n, 2) array per label
            return np.vstack([p[:, -1] for p in y_pred]).T
        if binary:
            return _positive_column(np.asarray(y_pred), classes, pos_label, what)
    elif method == "decision_function":
        if isinstance(y_pred, list):
            return np.vstack(list(y_pred)).T
        if binary and pos_label == classes[0]:
            return -np.asarray(y_pred)
    return y_pred


class _Scorer:
    """A metric bound to an estimator method: ``scorer(estimator, X, y_true, sample_weight=None,
    **metadata)`` is ``sign * score_func(y_true, response, **kwargs)``."""

    def __init__(self, score_func, sign, kwargs, response_method="predict"):
        self._score_func = score_func
        self._sign = sign
        self._kwargs = kwargs
        self._response_method = response_method
        self._metadata_request = {}

    def __call__(self, estimator, X, y_true, sample_weight=None, **kwargs):
        """Score an estimator's predictions on ``X`` against ``y_true``.

        Parameters
        ----------
        estimator : object
            A fitted model with the method the scorer needs (``predict``, ``predict_proba`` or
            ``decision_function``).
        X : array-like
            The samples to predict.
        y_true : array-like of shape (n_samples,)
            The true targets of ``X``.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample, passed to the metric. None: not passed.
        **metadata
            Further metadata passed to the metric (overriding ``make_scorer``'s keyword
            arguments of the same name).

        Returns
        -------
        float
            The metric, negated when the scorer was made with ``greater_is_better=False``.
        """
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        y_pred = self._response(estimator, X)
        return self._sign * self._score_func(y_true, y_pred, **{**self._kwargs, **kwargs})

    def _response(self, estimator, X):
        methods = _check_response_method_spec(self._response_method)
        found = [m for m in methods if hasattr(estimator, m)]
        if not found:  # checked first, for regressors too (scikit-learn's order)
            raise AttributeError(f"{type(estimator).__name__} has none of the following "
                                 f"attributes: {', '.join(methods)}.")
        if not _is_classifier(estimator):
            if methods != ("predict",):
                raise AssayError(
                    f"{type(estimator).__name__} should either be a classifier to be used with "
                    f"response_method={self._response_method} or the response_method should be "
                    "'predict'. Got a regressor with response_method="
                    f"{self._response_method} instead.")
            return estimator.predict(X)
        return _classifier_response(estimator, X, found[0], self._pos_label(),
                                    getattr(self._score_func, "__name__", "this"))

    def _pos_label(self):
        if "pos_label" in self._kwargs:
            return self._kwargs["pos_label"]
        try:
            parameter = inspect.signature(self._score_func).parameters.get("pos_label")
        except (TypeError, ValueError):
            return None
        return None if parameter is None or parameter.default is inspect.Parameter.empty \
            else parameter.default

    def __repr__(self):
        kwargs = "".join(", %s=%s" % (k, v) for k, v in self._kwargs.items())
        name = repr(self._score_func) if isinstance(self._score_func, partial) else \
            getattr(self._score_func, "__name__", repr(self._score_func))
        return "make_scorer(%s%s, response_method=%r%s)" % (
            name, "" if self._sign > 0 else ", greater_is_better=False",
            self._response_method, kwargs)

    def set_score_request(self, **kwargs):
        """Record which metadata the scorer requests from a metadata-routing caller
        (scikit-learn >= 1.3's scorer API), e.g. set_score_request(sample_weight=True).

        Parameters
        ----------
        **kwargs : bool, None or str
            param=True (requested), False (not requested), None (error if given) or an alias
            (the name the caller passes it under).

        Returns
        -------
        self : the scorer, so that calls chain.
        """
        for param, alias in kwargs.items():
            if not (alias is None or isinstance(alias, (bool, str))):
                raise AssayError(f"The alias for {param} must be True, False, None or a str, got "
                                 f"{alias!r}")
            self._metadata_request[param] = alias
        return self

    def get_metadata_routing(self):
        """The recorded requests as {"score": {param: alias}} (scikit-learn returns a
        MetadataRequest object; assay does not depend on scikit-learn's routing module)."""
        return {"score": dict(self._metadata_request)}


def make_scorer(score_func, *, response_method="predict", greater_is_better=True, **kwargs):
    """Make a scorer from a metric function.

    As scikit-learn's ``make_scorer``. The scorer is a callable
    ``scorer(estimator, X, y_true, sample_weight=None, **metadata)``: it asks the estimator for
    its ``response_method`` and scores the answer with ``score_func(y_true, response,
    **kwargs)``. ``greater_is_better=False`` negates the score (so that greater is always better,
    as scikit-learn's model selection expects). As of scikit-learn 1.6, ``needs_proba`` and
    ``needs_threshold`` are gone (a TypeError): use ``response_method='predict_proba'`` or
    ``response_method=('decision_function', 'predict_proba')``. ``set_score_request`` records
    which metadata (such as ``sample_weight``) the scorer asks to be routed to it.

    Parameters
    ----------
    score_func : callable
        The metric, ``score_func(y_true, y_pred, **kwargs)``.
    response_method : {'predict', 'predict_proba', 'decision_function'} or tuple, \
default='predict'
        The estimator method whose output is scored, or a tuple of them tried in order.
    greater_is_better : bool, default=True
        False for a loss: the scorer returns its negative.
    **kwargs
        Further arguments passed to ``score_func``.

    Returns
    -------
    callable
        The scorer.

    Raises
    ------
    AssayError
        If ``response_method`` names no such method.
    TypeError
        If ``needs_proba`` or ``needs_threshold`` is passed (removed in scikit-learn 1.6).

    See Also
    --------
    get_scorer : A ready-made scorer by name.

    Examples
    --------
    >>> from assay.metrics import f1_score, make_scorer
    >>> class Threshold:  # any object with predict() will do
    ...     def predict(self, X):
    ...         return [int(x[0] > 0.5) for x in X]
    >>> scorer = make_scorer(f1_score)
    >>> print(round(scorer(Threshold(), [[0.2], [0.7], [0.9]], [0, 1, 0]), 4))
    0.6667
    """
    if not callable(score_func):
        raise AssayError(f"score_func must be a callable, got {type(score_func).__name__}")
    for removed in ("needs_proba", "needs_threshold"):
        if removed in kwargs:
            raise TypeError(f"make_scorer() got an unexpected keyword argument '{removed}' "
                            "(removed in scikit-learn 1.6; use response_method)")
    _check_response_method_spec(response_method)
    return _Scorer(score_func, 1 if greater_is_better else -1, kwargs, response_method)


def positive_likelihood_ratio(y_true, y_pred):
    return class_likelihood_ratios(y_true, y_pred, replace_undefined_by=1.0)[0]


def negative_likelihood_ratio(y_true, y_pred):
    return class_likelihood_ratios(y_true, y_pred, replace_undefined_by=1.0)[1]


def _scorers():
    loss = partial(make_scorer, greater_is_better=False)
    threshold, proba = ("decision_function", "predict_proba"), "predict_proba"
    table = {
        "explained_variance": make_scorer(explained_variance_score),
        "r2": make_scorer(r2_score),
        "neg_max_error": loss(max_error),
        "matthews_corrcoef": make_scorer(matthews_corrcoef),
        "neg_median_absolute_error": loss(median_absolute_error),
        "neg_mean_absolute_error": loss(mean_absolute_error),
        "neg_mean_absolute_percentage_error": loss(mean_absolute_percentage_error),
        "neg_mean_squared_error": loss(mean_squared_error),
        "neg_mean_squared_log_error": loss(mean_squared_log_error),
        "neg_root_mean_squared_error": loss(root_mean_squared_error),
        "neg_root_mean_squared_log_error": loss(root_mean_squared_log_error),
        "d2_absolute_error_score": make_scorer(d2_absolute_error_score),
        "d2_brier_score": make_scorer(d2_brier_score, response_method=proba),
        "d2_log_loss_score": make_scorer(d2_log_loss_score, response_method=proba),
        "neg_mean_poisson_deviance": loss(mean_poisson_deviance),
        "neg_mean_gamma_deviance": loss(mean_gamma_deviance),
        "accuracy": make_scorer(accuracy_score),
        "top_k_accuracy": make_scorer(top_k_accuracy_score, response_method=threshold),
        "roc_auc": make_scorer(roc_auc_score, response_method=threshold),
        "roc_auc_ovr": make_scorer(roc_auc_score, response_method=proba, multi_class="ovr"),
        "roc_auc_ovo": make_scorer(roc_auc_score, response_method=proba, multi_class="ovo"),
        "roc_auc_ovr_weighted": make_scorer(roc_auc_score, response_method=proba,
                                            multi_class="ovr", average="weighted"),
        "roc_auc_ovo_weighted": make_scorer(roc_auc_score, response_method=proba,
                                            multi_class="ovo", average="weighted"),
        "balanced_accuracy": make_scorer(balanced_accuracy_score),
        "average_precision": make_scorer(average_precision_score, response_method=threshold),
        "neg_log_loss": loss(log_loss, response_method=proba),
        "neg_brier_score": loss(brier_score_loss, response_method=proba),
        "positive_likelihood_ratio": make_scorer(positive_likelihood_ratio),
        "neg_negative_likelihood_ratio": loss(negative_likelihood_ratio),
    }
    for name, metric in (("precision", precision_score), ("recall", recall_score),
                         ("f1", f1_score), ("jaccard", jaccard_score)):
        table[name] = make_scorer(metric, average="binary")
        for average in ("macro", "micro", "samples", "weighted"):
            table[f"{name}_{average}"] = make_scorer(metric, pos_label=None, average=average)
    return table


_SCORERS = _scorers()


def get_scorer(scoring):
    """Return a scorer by its scikit-learn name.

    As scikit-learn's ``get_scorer``: a copy of the named scorer; a callable is returned as it
    is.

    Parameters
    ----------
    scoring : str or callable
        A name from ``get_scorer_names()``, or a scorer.

    Returns
    -------
    callable
        The scorer.

    Raises
    ------
    AssayError
        If the name is unknown.

    See Also
    --------
    get_scorer_names : The names accepted.
    make_scorer : A scorer from any metric.

    Examples
    --------
    >>> from assay.metrics import get_scorer
    >>> get_scorer("roc_auc")
    make_scorer(roc_auc_score, response_method=('decision_function', 'predict_proba'))
    >>> get_scorer("neg_log_loss")
    make_scorer(log_loss, greater_is_better=False, response_method='predict_proba')
    """
    if isinstance(scoring, str):
        try:
            return copy.deepcopy(_SCORERS[scoring])
        except KeyError:
            raise AssayError("%r is not a valid scoring value. Use "
                             "assay.metrics.get_scorer_names() to get valid options." % scoring
                             ) from None
    return scoring


def get_scorer_names():
    """Return the sorted names that ``get_scorer`` accepts.

    They are scikit-learn's supervised scorer names; its clustering scorers have no assay
    counterpart.

    Returns
    -------
    list of str
        The names, sorted.

    See Also
    --------
    get_scorer : The scorer of a name.

    Examples
    --------
    >>> from assay.metrics import get_scorer_names
    >>> names = get_scorer_names()
    >>> "roc_auc" in names, "neg_mean_squared_error" in names
    (True, True)
    """
    return sorted(_SCORERS)
