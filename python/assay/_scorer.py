"""Scorers: scikit-learn's make_scorer / get_scorer / get_scorer_names, backed by assay's
metrics. A scorer is a callable scorer(estimator, X, y_true, sample_weight=None) that asks the
estimator for predictions (predict, predict_proba or decision_function, as scikit-learn 1.2.1's
scorers do) and scores them with an assay function, so scikit-learn's cross_validate,
cross_val_score and GridSearchCV accept it:

    cross_validate(model, X, y, scoring=assay.metrics.get_scorer("roc_auc"))
    GridSearchCV(model, grid, scoring={"auc": get_scorer("roc_auc"), "f1": get_scorer("f1")})

This module does not import scikit-learn. Scorer names are scikit-learn's supervised ones (its
clustering scorers have no assay counterpart)."""
import copy
from functools import partial

import numpy as np

from ._assay import AssayError
from ._classification import (accuracy_score, balanced_accuracy_score, brier_score_loss,
                              f1_score, log_loss, matthews_corrcoef, precision_score,
                              recall_score)
from ._label_metrics import class_likelihood_ratios, jaccard_score
from ._ranking import average_precision_score, roc_auc_score, top_k_accuracy_score
from ._regression import (explained_variance_score, max_error, mean_absolute_error,
                          mean_absolute_percentage_error, mean_gamma_deviance,
                          mean_poisson_deviance, mean_squared_error, mean_squared_log_error,
                          median_absolute_error, r2_score)
from ._validation import MULTILABEL, target_kind, type_name

__all__ = ["make_scorer", "get_scorer", "get_scorer_names"]


def _target_type(y):
    kind, a = target_kind(y, "y")
    return MULTILABEL if kind == MULTILABEL else type_name(kind, a)


def _is_regressor(estimator):
    return getattr(estimator, "_estimator_type", None) == "regressor"


class _Scorer:
    """Base of the three scorer kinds (which estimator method feeds the metric)."""

    def __init__(self, score_func, sign, kwargs):
        self._score_func = score_func
        self._sign = sign
        self._kwargs = kwargs

    def __call__(self, estimator, X, y_true, sample_weight=None):
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

        Returns
        -------
        float
            The metric, negated when the scorer was made with ``greater_is_better=False``.
        """
        return self._score(estimator, X, y_true, sample_weight=sample_weight)

    def __repr__(self):
        kwargs = "".join(", %s=%s" % (k, v) for k, v in self._kwargs.items())
        return "make_scorer(%s%s%s%s)" % (
            getattr(self._score_func, "__name__", repr(self._score_func)),
            "" if self._sign > 0 else ", greater_is_better=False", self._factory_args(), kwargs)

    def _factory_args(self):
        return ""

    def _apply(self, y_true, y_pred, sample_weight):
        if sample_weight is not None:
            return self._sign * self._score_func(y_true, y_pred, sample_weight=sample_weight,
                                                 **self._kwargs)
        return self._sign * self._score_func(y_true, y_pred, **self._kwargs)

    @staticmethod
    def _check_pos_label(pos_label, classes):
        if pos_label not in list(classes):
            raise AssayError(f"pos_label={pos_label} is not a valid label: {classes}")

    def _select_proba_binary(self, y_pred, classes):
        if y_pred.shape[1] == 2:
            pos_label = self._kwargs.get("pos_label", classes[1])
            self._check_pos_label(pos_label, classes)
            return y_pred[:, np.flatnonzero(np.asarray(classes) == pos_label)[0]]
        raise AssayError(f"Got predict_proba of shape {y_pred.shape}, but need classifier with "
                         f"two classes for {self._score_func.__name__} scoring")


class _PredictScorer(_Scorer):
    def _score(self, estimator, X, y_true, sample_weight=None):
        return self._apply(y_true, estimator.predict(X), sample_weight)


class _ProbaScorer(_Scorer):
    def _score(self, clf, X, y, sample_weight=None):
        y_pred = clf.predict_proba(X)
        if _target_type(y) == "binary" and y_pred.shape[1] <= 2:
            y_pred = self._select_proba_binary(y_pred, clf.classes_)
        return self._apply(y, y_pred, sample_weight)

    def _factory_args(self):
        return ", needs_proba=True"


class _ThresholdScorer(_Scorer):
    def _score(self, clf, X, y, sample_weight=None):
        y_type = _target_type(y)
        if y_type not in ("binary", MULTILABEL):
            raise AssayError("{0} format is not supported".format(y_type))
        if _is_regressor(clf):
            y_pred = clf.predict(X)
        else:
            try:
                y_pred = clf.decision_function(X)
                if isinstance(y_pred, list):
                    y_pred = np.vstack(list(y_pred)).T
                elif y_type == "binary" and "pos_label" in self._kwargs:
                    self._check_pos_label(self._kwargs["pos_label"], clf.classes_)
                    if self._kwargs["pos_label"] == clf.classes_[0]:
                        y_pred = -y_pred  # the classifier's implicit positive class is the other
            except (NotImplementedError, AttributeError):
                y_pred = clf.predict_proba(X)
                if y_type == "binary":
                    y_pred = self._select_proba_binary(y_pred, clf.classes_)
                elif isinstance(y_pred, list):
                    y_pred = np.vstack([p[:, -1] for p in y_pred]).T
        return self._apply(y, y_pred, sample_weight)

    def _factory_args(self):
        return ", needs_threshold=True"


def make_scorer(score_func, *, greater_is_better=True, needs_proba=False, needs_threshold=False,
                **kwargs):
    """Make a scorer from a metric function.

    As scikit-learn's ``make_scorer``. The scorer is a callable
    ``scorer(estimator, X, y_true, sample_weight=None)``: it asks the estimator for predictions
    and scores them with ``score_func(y_true, predictions, **kwargs)``.
    ``greater_is_better=False`` negates the score (so that greater is always better, as
    scikit-learn's model selection expects). ``needs_proba`` scores ``predict_proba``,
    ``needs_threshold`` scores ``decision_function`` (falling back to ``predict_proba``), and
    otherwise ``predict`` is scored.

    Parameters
    ----------
    score_func : callable
        The metric, ``score_func(y_true, y_pred, **kwargs)``.
    greater_is_better : bool, default=True
        False for a loss: the scorer returns its negative.
    needs_proba : bool, default=False
        Score the estimator's ``predict_proba``.
    needs_threshold : bool, default=False
        Score the estimator's ``decision_function`` (or ``predict_proba``); binary or multilabel
        targets only.
    **kwargs
        Further arguments passed to ``score_func``.

    Returns
    -------
    callable
        The scorer.

    Raises
    ------
    AssayError
        If both ``needs_proba`` and ``needs_threshold`` are True.

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
    sign = 1 if greater_is_better else -1
    if needs_proba and needs_threshold:
        raise AssayError("Set either needs_proba or needs_threshold to True, but not both.")
    kind = _ProbaScorer if needs_proba else _ThresholdScorer if needs_threshold else \
        _PredictScorer
    return kind(score_func, sign, kwargs)


def positive_likelihood_ratio(y_true, y_pred):
    return class_likelihood_ratios(y_true, y_pred)[0]


def negative_likelihood_ratio(y_true, y_pred):
    return class_likelihood_ratios(y_true, y_pred)[1]


def _scorers():
    loss = partial(make_scorer, greater_is_better=False)
    table = {
        "explained_variance": make_scorer(explained_variance_score),
        "r2": make_scorer(r2_score),
        "max_error": loss(max_error),
        "matthews_corrcoef": make_scorer(matthews_corrcoef),
        "neg_median_absolute_error": loss(median_absolute_error),
        "neg_mean_absolute_error": loss(mean_absolute_error),
        "neg_mean_absolute_percentage_error": loss(mean_absolute_percentage_error),
        "neg_mean_squared_error": loss(mean_squared_error),
        "neg_mean_squared_log_error": loss(mean_squared_log_error),
        "neg_root_mean_squared_error": loss(mean_squared_error, squared=False),
        "neg_mean_poisson_deviance": loss(mean_poisson_deviance),
        "neg_mean_gamma_deviance": loss(mean_gamma_deviance),
        "accuracy": make_scorer(accuracy_score),
        "top_k_accuracy": make_scorer(top_k_accuracy_score, needs_threshold=True),
        "roc_auc": make_scorer(roc_auc_score, needs_threshold=True),
        "roc_auc_ovr": make_scorer(roc_auc_score, needs_proba=True, multi_class="ovr"),
        "roc_auc_ovo": make_scorer(roc_auc_score, needs_proba=True, multi_class="ovo"),
        "roc_auc_ovr_weighted": make_scorer(roc_auc_score, needs_proba=True, multi_class="ovr",
                                            average="weighted"),
        "roc_auc_ovo_weighted": make_scorer(roc_auc_score, needs_proba=True, multi_class="ovo",
                                            average="weighted"),
        "balanced_accuracy": make_scorer(balanced_accuracy_score),
        "average_precision": make_scorer(average_precision_score, needs_threshold=True),
        "neg_log_loss": loss(log_loss, needs_proba=True),
        "neg_brier_score": loss(brier_score_loss, needs_proba=True),
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
    make_scorer(roc_auc_score, needs_threshold=True)
    >>> get_scorer("neg_log_loss")
    make_scorer(log_loss, greater_is_better=False, needs_proba=True)
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
