"""PrecisionRecallDisplay: scikit-learn's precision-recall display, its numbers from
assay.metrics.precision_recall_curve and average_precision_score, with an optional bootstrap
band."""
import numpy as np

from .. import _ranking
from . import _curves
from ._base import (axes, binary_response, check_bootstrap, estimator_name, percentile_band,
                    positive_label_suffix, resolved_pos_label, style)

# The band's fixed recall grid: 101 points, 0.00 to 1.00 by 0.01.
RECALL_GRID = np.linspace(0.0, 1.0, 101)


def precision_at(precision, recall, grid):
    """The step curve as drawn (scikit-learn's steps-post over decreasing recall) read at each
    grid recall r: the precision of the last point whose recall is still >= r."""
    at_least = len(recall) - np.searchsorted(recall[::-1], grid, side="left")
    return precision[np.maximum(at_least - 1, 0)]


def _pr_on_grid(y, s, w):
    precision, recall, _ = _ranking.precision_recall_curve(y, s, sample_weight=w)
    return precision_at(precision, recall, RECALL_GRID)


def _prevalence(y_true, pos_label, sample_weight):
    positive = (np.asarray(y_true) == pos_label).astype(float)
    w = np.ones(len(positive)) if sample_weight is None else np.asarray(sample_weight, float)
    return float(np.sum(w * positive) / np.sum(w))


class PrecisionRecallDisplay:
    """Precision-recall curve plot (scikit-learn's ``sklearn.metrics.PrecisionRecallDisplay``).

    Build it with :meth:`from_predictions`, :meth:`from_estimator` or :meth:`from_cv_results`
    (curve from ``assay.metrics.precision_recall_curve``, AP from
    ``assay.metrics.average_precision_score``) or directly from arrays. The curve is drawn as
    steps (no interpolation), as the AP it is labelled with sums it.

    Parameters
    ----------
    precision : ndarray or list of ndarray
        Precision of each point: one array, or one per curve.
    recall : ndarray or list of ndarray
        Recall of each point, as ``precision``.
    average_precision : float or list of float, default=None
        AP shown in the legend; None shows none.
    name : str or list of str, default=None
        Legend name(s).
    pos_label : int, float, bool or str, default=None
        The positive class, shown in the axis labels when given.
    prevalence_pos_label : float or list of float, default=None
        Fraction of positives: the chance level line's height (no line when None).
    band_x, band_lower, band_upper : ndarray, default=None
        Extra of assay (keyword-only): lower and upper precision at the recalls ``band_x``.
    confidence : float, default=None
        The band's confidence, for its legend entry.

    Attributes
    ----------
    line_ : matplotlib Line2D or list of Line2D
        The curve(s).
    chance_level_ : matplotlib Line2D or list of Line2D or None
        The chance level line(s), if drawn.
    band_ : matplotlib PolyCollection or None
        The bootstrap band, if drawn.
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure holding ``ax_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from assay.metrics import PrecisionRecallDisplay
    >>> d = PrecisionRecallDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> round(d.average_precision, 4), d.line_.get_label()
    (0.8333, 'Classifier (AP = 0.83)')
    """

    def __init__(self, precision, recall, *, average_precision=None, name=None, pos_label=None,
                 prevalence_pos_label=None, band_x=None, band_lower=None, band_upper=None,
                 confidence=None):
        self.precision, self.recall = precision, recall
        self.average_precision, self.name, self.pos_label = average_precision, name, pos_label
        self.prevalence_pos_label = prevalence_pos_label
        self.band_x, self.band_lower, self.band_upper = band_x, band_lower, band_upper
        self.confidence = confidence

    def plot(self, ax=None, *, name=None, curve_kwargs=None, plot_chance_level=False,
             chance_level_kw=None, despine=False, band_kw=None):
        """Draw the curve(s).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        name : str or list of str, default=None
            Legend name(s); None uses the ``name`` attribute.
        curve_kwargs : dict or list of dict, default=None
            Keywords for matplotlib's ``plot`` (default ``drawstyle="steps-post"``): one dict
            for every curve, or one per curve.
        plot_chance_level : bool, default=False
            Draw the precision of a random classifier (the prevalence of the positive class).
        chance_level_kw : dict, default=None
            Keywords for the chance level's ``plot``.
        despine : bool, default=False
            Hide the top and right spines.
        band_kw : dict, default=None
            Keywords for the band's ``fill_between`` (assay's extra).

        Returns
        -------
        PrecisionRecallDisplay
            The display itself, with its artists set.

        Raises
        ------
        ValueError
            If plot_chance_level is set but the prevalence is unknown, or a list parameter does
            not hold one entry per curve.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import PrecisionRecallDisplay
        >>> d = PrecisionRecallDisplay([0.5, 1.0, 1.0], [1.0, 0.5, 0.0], average_precision=0.75,
        ...                            prevalence_pos_label=0.5)
        >>> d.plot(plot_chance_level=True).chance_level_.get_label()
        'Chance level (AP = 0.50)'
        """
        precisions, recalls = _curves.as_list(self.precision), _curves.as_list(self.recall)
        n = len(precisions)
        name = self.name if name is None else name
        names = _curves.per_curve(name, n)
        aps = _curves.per_curve(self.average_precision, n)
        _curves.check_lengths(n, recall=recalls, name=names, average_precision=aps)
        if plot_chance_level and self.prevalence_pos_label is None:
            raise ValueError("You must provide prevalence_pos_label when constructing the "
                             "PrecisionRecallDisplay object in order to plot the chance level "
                             "line. Alternatively, you may use "
                             "PrecisionRecallDisplay.from_estimator or "
                             "PrecisionRecallDisplay.from_predictions to automatically set "
                             "prevalence_pos_label")
        ax = axes(ax, "PrecisionRecallDisplay.plot")
        _curves.draw(self, ax, recalls, precisions,
                     _curves.curve_styles(n, names, aps, "AP", curve_kwargs), "steps-post")
        self.chance_level_ = None
        if plot_chance_level:
            self.chance_level_ = self._chance_level(ax, chance_level_kw)
        suffix = positive_label_suffix(self.pos_label)
        return _curves.finish(self, ax, "Recall" + suffix, "Precision" + suffix, "lower left",
                              despine, band_kw)

    def _chance_level(self, ax, chance_level_kw):
        prevalences = _curves.per_curve(self.prevalence_pos_label, 1)
        lines = []
        for i, p in enumerate(prevalences):
            text = f"Chance level (AP = {p:0.2f})" if i == 0 else "_nolegend_"
            if len(prevalences) > 1 and i == 0:
                text = (f"Chance level (AP = {np.mean(prevalences):0.2f} +/- "
                        f"{np.std(prevalences):0.2f})")
            kw = style({"label": text, "color": "k", "linestyle": "--"}, chance_level_kw)
            lines.append(ax.plot((0, 1), (p, p), **kw)[0])
        return lines[0] if len(lines) == 1 else lines

    @classmethod
    def from_predictions(cls, y_true, y_score, *, sample_weight=None, drop_intermediate=False,
                         pos_label=None, name=None, ax=None, curve_kwargs=None,
                         plot_chance_level=False, chance_level_kw=None, despine=False,
                         n_bootstrap=None, confidence=0.95, seed=0, band_kw=None):
        """Precision-recall curve of true labels and scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True binary labels.
        y_score : array-like of shape (n_samples,)
            Scores of the positive class.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        drop_intermediate : bool, default=False
            Drop the points that do not change the drawn steps.
        pos_label : int, float, bool or str, default=None
            The positive class; None means 1 for labels in {0, 1} or {-1, 1}.
        name : str, default=None
            Legend name; None gives "Classifier".
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        curve_kwargs : dict or list of dict, default=None
            Keywords for matplotlib's ``plot`` of the curve(s), as in :meth:`plot`.
        plot_chance_level : bool, default=False
            Draw the chance level line.
        chance_level_kw : dict, default=None
            Keywords for the chance level's ``plot``.
        despine : bool, default=False
            Hide the top and right spines.
        n_bootstrap : int, default=None
            Extra of assay: draw a bootstrap band from this many resamples (None: no band).
            The band is **pointwise** and **percentile**: the rows are resampled with
            replacement, each resample's step curve is read on the fixed recall grid
            0, 0.01, ..., 1 (at recall r, the precision of the last point with recall >= r),
            and at each grid recall the band spans the (1 - confidence)/2 and
            (1 + confidence)/2 percentiles of the resampled precisions. It is not a
            simultaneous band. Resamples holding one class only are left out.
        confidence : float, default=0.95
            The band's confidence level.
        seed : int, default=0
            Seed of the resampling (numpy's ``default_rng``): the same seed gives the same band.
        band_kw : dict, default=None
            Keywords for the band's ``fill_between``.

        Returns
        -------
        PrecisionRecallDisplay
            The drawn display; with a band, ``band_x`` (the recall grid), ``band_lower`` and
            ``band_upper`` hold it.

        Raises
        ------
        assay.AssayError
            For labels that are not binary, bad band options or no resample with both classes.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import PrecisionRecallDisplay
        >>> y, s = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
        >>> d = PrecisionRecallDisplay.from_predictions(y, s, n_bootstrap=50, seed=0)
        >>> d.band_x.shape, d.band_.get_label()
        ((101,), '95% bootstrap band')
        """
        check_bootstrap(n_bootstrap, confidence, seed)
        precision, recall, _ = _ranking.precision_recall_curve(
            y_true, y_score, pos_label=pos_label, sample_weight=sample_weight,
            drop_intermediate=drop_intermediate)
        label = resolved_pos_label(y_true, pos_label)
        ap = float(_ranking.average_precision_score(y_true, y_score, pos_label=label,
                                                    sample_weight=sample_weight))
        display = cls(precision, recall, average_precision=ap,
                      name="Classifier" if name is None else name, pos_label=label,
                      prevalence_pos_label=_prevalence(y_true, label, sample_weight))
        if n_bootstrap is not None:
            positive = (np.asarray(y_true) == label).astype(np.int8)
            lower, upper = percentile_band(_pr_on_grid, positive, y_score, sample_weight,
                                           n_bootstrap, confidence, seed)
            display.band_x, display.band_lower = RECALL_GRID.copy(), lower
            display.band_upper, display.confidence = upper, confidence
        return display.plot(ax=ax, curve_kwargs=curve_kwargs,
                            plot_chance_level=plot_chance_level,
                            chance_level_kw=chance_level_kw, despine=despine, band_kw=band_kw)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, sample_weight=None, drop_intermediate=False,
                       response_method="auto", pos_label=None, name=None, ax=None,
                       curve_kwargs=None, plot_chance_level=False, chance_level_kw=None,
                       despine=False, n_bootstrap=None, confidence=0.95, seed=0, band_kw=None):
        """Precision-recall curve of a fitted binary classifier on (X, y).

        Parameters
        ----------
        estimator : fitted classifier
            A scikit-learn-style binary classifier (or a Pipeline ending in one).
        X : array-like of shape (n_samples, n_features)
            Input rows.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        drop_intermediate : bool, default=False
            Drop the points that do not change the drawn steps.
        response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
            The scores used; "auto" tries ``predict_proba`` first.
        pos_label : int, float, bool or str, default=None
            The positive class; None means the estimator's ``classes_[1]``.
        name : str, default=None
            Legend name; None gives the estimator's class name.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        curve_kwargs : dict or list of dict, default=None
            Keywords for matplotlib's ``plot`` of the curve(s), as in :meth:`plot`.
        plot_chance_level : bool, default=False
            Draw the chance level line.
        chance_level_kw : dict, default=None
            Keywords for the chance level's ``plot``.
        despine : bool, default=False
            Hide the top and right spines.
        n_bootstrap : int, default=None
            Number of bootstrap resamples of the band (None: no band); the band is described
            in :meth:`from_predictions`.
        confidence : float, default=0.95
            The band's confidence level.
        seed : int, default=0
            Seed of the resampling: the same seed gives the same band.
        band_kw : dict, default=None
            Keywords for the band's ``fill_between``.

        Returns
        -------
        PrecisionRecallDisplay
            The drawn display.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.
        ValueError
            If it is not a binary classifier or pos_label is not one of its classes.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.linear_model import LogisticRegression
        >>> from assay.metrics import PrecisionRecallDisplay
        >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
        >>> model = LogisticRegression().fit(X, y)
        >>> PrecisionRecallDisplay.from_estimator(model, X, y).line_.get_label()
        'LogisticRegression (AP = 1.00)'
        """
        score, pos_label = binary_response(estimator, X, response_method, pos_label,
                                           "PrecisionRecallDisplay.from_estimator")
        return cls.from_predictions(
            y, score, sample_weight=sample_weight, drop_intermediate=drop_intermediate,
            pos_label=pos_label, name=estimator_name(estimator) if name is None else name, ax=ax,
            curve_kwargs=curve_kwargs, plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw, despine=despine, n_bootstrap=n_bootstrap,
            confidence=confidence, seed=seed, band_kw=band_kw)

    @classmethod
    def from_cv_results(cls, cv_results, X, y, *, sample_weight=None, drop_intermediate=False,
                        response_method="auto", pos_label=None, ax=None, name=None,
                        curve_kwargs=None, plot_chance_level=False, chance_level_kw=None,
                        despine=False):
        """One precision-recall curve per cross-validation fold.

        Parameters
        ----------
        cv_results : dict
            The output of scikit-learn's ``cross_validate(..., return_estimator=True,
            return_indices=True)`` output, or any dict with ``"estimator"`` and ``"indices"``
            (a dict whose ``"test"`` lists each fold's test rows).
        X, y : array-like
            The data cross-validated.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        drop_intermediate : bool, default=False
            Drop the points that do not change the drawn steps.
        response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
            The scores used; "auto" tries ``predict_proba`` first.
        pos_label : int, float, bool or str, default=None
            The positive class; None means the estimator's ``classes_[1]``.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        name : str or list of str, default=None
            Legend name for all folds or one per fold.
        curve_kwargs : dict or list of dict, default=None
            Keywords for matplotlib's ``plot``: one dict for every fold (a single legend entry,
            the mean ± SD of the fold APs) or one per fold.
        plot_chance_level : bool, default=False
            Draw the chance level line.
        chance_level_kw : dict, default=None
            Keywords for the chance level's ``plot``.
        despine : bool, default=False
            Hide the top and right spines.

        Returns
        -------
        PrecisionRecallDisplay
            The drawn display; its arrays and scores are lists, one entry per fold.

        Raises
        ------
        ValueError
            If cv_results lacks the estimators or the test indices.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.linear_model import LogisticRegression
        >>> from assay.metrics import PrecisionRecallDisplay
        >>> X, y = [[0.0], [1.0], [2.0], [3.0], [0.5], [2.5]], [0, 0, 1, 1, 0, 1]
        >>> folds = [[0, 2], [1, 3], [4, 5]]
        >>> fitted = [LogisticRegression().fit([X[i] for i in range(6) if i not in f],
        ...                                    [y[i] for i in range(6) if i not in f])
        ...           for f in folds]
        >>> cv = {"estimator": fitted, "indices": {"test": folds}}
        >>> len(PrecisionRecallDisplay.from_cv_results(cv, X, y).line_)
        3
        """
        precisions, recalls, aps, prevalences = [], [], [], []
        for X_test, y_test, w_test, est in _curves.cv_folds(cv_results, X, y, sample_weight):
            score, label = binary_response(est, X_test, response_method, pos_label,
                                           "PrecisionRecallDisplay.from_cv_results")
            p, r, _ = _ranking.precision_recall_curve(y_test, score, pos_label=label,
                                                      sample_weight=w_test,
                                                      drop_intermediate=drop_intermediate)
            precisions.append(p), recalls.append(r)
            aps.append(float(_ranking.average_precision_score(y_test, score, pos_label=label,
                                                              sample_weight=w_test)))
            prevalences.append(_prevalence(y_test, label, w_test))
        display = cls(precisions, recalls, average_precision=aps, name=name, pos_label=label,
                      prevalence_pos_label=prevalences)
        return display.plot(ax=ax, curve_kwargs=curve_kwargs,
                            plot_chance_level=plot_chance_level,
                            chance_level_kw=chance_level_kw, despine=despine)
