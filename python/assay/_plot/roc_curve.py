"""RocCurveDisplay: scikit-learn's ROC display, its numbers from assay.metrics.roc_curve, with
an optional bootstrap band."""
import numpy as np

from .. import _ranking
from . import _curves
from ._base import (axes, binary_response, check_bootstrap, estimator_name, percentile_band,
                    positive_label_suffix, resolved_pos_label, style)

# The band's fixed FPR grid: 101 points, 0.00 to 1.00 by 0.01.
FPR_GRID = np.linspace(0.0, 1.0, 101)


def tpr_at(fpr, tpr, grid):
    """The ROC curve as drawn (straight segments between its points) read at each grid FPR;
    where the curve rises vertically at a grid FPR, the top of the rise (the best TPR reached
    at that FPR)."""
    last = np.searchsorted(fpr, grid, side="right") - 1  # last point with fpr <= g
    nxt = np.minimum(last + 1, len(fpr) - 1)
    x0, x1, y0, y1 = fpr[last], fpr[nxt], tpr[last], tpr[nxt]
    gap = x1 - x0
    frac = np.divide(grid - x0, gap, out=np.zeros_like(grid), where=gap > 0)
    return y0 + frac * (y1 - y0)


def _roc_on_grid(y, s, w):
    fpr, tpr, _ = _ranking.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    return tpr_at(fpr, tpr, FPR_GRID)


class RocCurveDisplay:
    """ROC curve plot (scikit-learn's ``sklearn.metrics.RocCurveDisplay``).

    Build it with :meth:`from_predictions`, :meth:`from_estimator` or :meth:`from_cv_results`
    (they compute the curve with ``assay.metrics.roc_curve`` and its area with
    ``assay.metrics.auc``) or directly from arrays; every parameter is kept as an attribute.

    Parameters
    ----------
    fpr : ndarray or list of ndarray
        False positive rates: one array, or one per curve.
    tpr : ndarray or list of ndarray
        True positive rates, as ``fpr``.
    roc_auc : float or list of float, default=None
        Area under each curve, shown in the legend; None shows no area.
    name : str or list of str, default=None
        Legend name of each curve; None shows no name.
    pos_label : int, float, bool or str, default=None
        The positive class, shown in the axis labels when given.
    band_x, band_lower, band_upper : ndarray, default=None
        Extra of assay (keyword-only): a band drawn around the curve, lower and upper TPR at the
        FPRs ``band_x``; ``from_predictions(n_bootstrap=...)`` fills them.
    confidence : float, default=None
        The band's confidence, for its legend entry.

    Attributes
    ----------
    line_ : matplotlib Line2D or list of Line2D
        The curve (a list when there are several).
    chance_level_ : matplotlib Line2D or None
        The diagonal of a random classifier, if drawn.
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
    >>> from assay.metrics import RocCurveDisplay
    >>> d = RocCurveDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> d.roc_auc, d.line_.get_label()
    (0.75, 'Classifier (AUC = 0.75)')
    """

    def __init__(self, *, fpr, tpr, roc_auc=None, name=None, pos_label=None, band_x=None,
                 band_lower=None, band_upper=None, confidence=None):
        self.fpr, self.tpr, self.roc_auc = fpr, tpr, roc_auc
        self.name, self.pos_label = name, pos_label
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
            Keywords for matplotlib's ``plot``: one dict for every curve, or one per curve.
            With several curves and one dict the legend has a single entry, the mean ± SD of
            the areas.
        plot_chance_level : bool, default=False
            Draw the diagonal of a random classifier.
        chance_level_kw : dict, default=None
            Keywords for the chance level's ``plot``.
        despine : bool, default=False
            Hide the top and right spines.
        band_kw : dict, default=None
            Keywords for the band's ``fill_between`` (assay's extra).

        Returns
        -------
        RocCurveDisplay
            The display itself, with its artists set.

        Raises
        ------
        ValueError
            If a list parameter does not hold one entry per curve.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import RocCurveDisplay
        >>> d = RocCurveDisplay(fpr=[0.0, 0.5, 1.0], tpr=[0.0, 1.0, 1.0], roc_auc=0.75)
        >>> d.plot(name="rule", plot_chance_level=True).line_.get_label()
        'rule (AUC = 0.75)'
        """
        fprs, tprs = _curves.as_list(self.fpr), _curves.as_list(self.tpr)
        n = len(fprs)
        name = self.name if name is None else name
        names, aucs = _curves.per_curve(name, n), _curves.per_curve(self.roc_auc, n)
        _curves.check_lengths(n, tpr=tprs, name=names, roc_auc=aucs)
        ax = axes(ax, "RocCurveDisplay.plot")
        _curves.draw(self, ax, fprs, tprs, _curves.curve_styles(n, names, aucs, "AUC",
                                                                curve_kwargs))
        self.chance_level_ = None
        if plot_chance_level:
            kw = style({"label": "Chance level (AUC = 0.5)", "color": "k", "linestyle": "--"},
                       chance_level_kw)
            (self.chance_level_,) = ax.plot((0, 1), (0, 1), **kw)
        suffix = positive_label_suffix(self.pos_label)
        return _curves.finish(self, ax, "False Positive Rate" + suffix,
                              "True Positive Rate" + suffix, "lower right", despine, band_kw)

    @classmethod
    def from_predictions(cls, y_true, y_score, *, sample_weight=None, drop_intermediate=True,
                         pos_label=None, name=None, ax=None, curve_kwargs=None,
                         plot_chance_level=False, chance_level_kw=None, despine=False,
                         n_bootstrap=None, confidence=0.95, seed=0, band_kw=None):
        """ROC curve of true labels and scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True binary labels.
        y_score : array-like of shape (n_samples,)
            Scores of the positive class (probabilities or decision values).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        drop_intermediate : bool, default=True
            Drop the points that lie on a straight segment (the drawn curve is the same).
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
            replacement, each resample's ROC curve (straight segments between its points,
            the top of a vertical rise) is read on the fixed FPR grid 0, 0.01, ..., 1, and at
            each grid FPR the band spans the (1 - confidence)/2 and (1 + confidence)/2
            percentiles of the resampled TPRs. It is not a simultaneous band. Resamples holding
            one class only are left out.
        confidence : float, default=0.95
            The band's confidence level.
        seed : int, default=0
            Seed of the resampling (numpy's ``default_rng``): the same seed gives the same band.
        band_kw : dict, default=None
            Keywords for the band's ``fill_between``.

        Returns
        -------
        RocCurveDisplay
            The drawn display; with a band, ``band_x`` (the FPR grid), ``band_lower`` and
            ``band_upper`` hold it.

        Raises
        ------
        assay.AssayError
            For labels that are not binary, bad band options or no resample with both classes.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import RocCurveDisplay
        >>> y, s = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
        >>> d = RocCurveDisplay.from_predictions(y, s, n_bootstrap=50, seed=0)
        >>> d.band_x.shape, bool((d.band_lower <= d.band_upper).all())
        ((101,), True)
        """
        check_bootstrap(n_bootstrap, confidence, seed)
        fpr, tpr, _ = _ranking.roc_curve(y_true, y_score, pos_label=pos_label,
                                         sample_weight=sample_weight,
                                         drop_intermediate=drop_intermediate)
        display = cls(fpr=fpr, tpr=tpr, roc_auc=float(_ranking.auc(fpr, tpr)),
                      name="Classifier" if name is None else name,
                      pos_label=resolved_pos_label(y_true, pos_label))
        if n_bootstrap is not None:
            positive = np.asarray(y_true) == display.pos_label
            lower, upper = percentile_band(_roc_on_grid, positive.astype(np.int8), y_score,
                                           sample_weight, n_bootstrap, confidence, seed)
            display.band_x, display.band_lower, display.band_upper = FPR_GRID.copy(), lower, upper
            display.confidence = confidence
        return display.plot(ax=ax, curve_kwargs=curve_kwargs,
                            plot_chance_level=plot_chance_level,
                            chance_level_kw=chance_level_kw, despine=despine, band_kw=band_kw)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, sample_weight=None, drop_intermediate=True,
                       response_method="auto", pos_label=None, name=None, ax=None,
                       curve_kwargs=None, plot_chance_level=False, chance_level_kw=None,
                       despine=False, n_bootstrap=None, confidence=0.95, seed=0, band_kw=None):
        """ROC curve of a fitted binary classifier on (X, y).

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
        drop_intermediate : bool, default=True
            Drop the points that lie on a straight segment (the drawn curve is the same).
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
        RocCurveDisplay
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
        >>> from assay.metrics import RocCurveDisplay
        >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
        >>> model = LogisticRegression().fit(X, y)
        >>> RocCurveDisplay.from_estimator(model, X, y).line_.get_label()
        'LogisticRegression (AUC = 1.00)'
        """
        score, pos_label = binary_response(estimator, X, response_method, pos_label,
                                           "RocCurveDisplay.from_estimator")
        return cls.from_predictions(
            y, score, sample_weight=sample_weight, drop_intermediate=drop_intermediate,
            pos_label=pos_label, name=estimator_name(estimator) if name is None else name, ax=ax,
            curve_kwargs=curve_kwargs, plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw, despine=despine, n_bootstrap=n_bootstrap,
            confidence=confidence, seed=seed, band_kw=band_kw)

    @classmethod
    def from_cv_results(cls, cv_results, X, y, *, sample_weight=None, drop_intermediate=True,
                        response_method="auto", pos_label=None, ax=None, name=None,
                        curve_kwargs=None, plot_chance_level=False, chance_level_kw=None,
                        despine=False):
        """One ROC curve per cross-validation fold.

        Parameters
        ----------
        cv_results : dict
            The output of scikit-learn's ``cross_validate(..., return_estimator=True,
            return_indices=True)`` output, or any dict with ``"estimator"`` (the fitted
            estimators) and ``"indices"`` (a dict whose ``"test"`` lists each fold's test rows).
        X, y : array-like
            The data cross-validated.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        drop_intermediate : bool, default=True
            Drop the points that lie on a straight segment (the drawn curve is the same).
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
            the mean ± SD of the fold AUCs) or one per fold.
        plot_chance_level : bool, default=False
            Draw the chance level line.
        chance_level_kw : dict, default=None
            Keywords for the chance level's ``plot``.
        despine : bool, default=False
            Hide the top and right spines.

        Returns
        -------
        RocCurveDisplay
            The drawn display; ``fpr``, ``tpr``, ``roc_auc`` are lists, one entry per fold.

        Raises
        ------
        ValueError
            If cv_results lacks the estimators or the test indices.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.linear_model import LogisticRegression
        >>> from assay.metrics import RocCurveDisplay
        >>> X, y = [[0.0], [1.0], [2.0], [3.0], [0.5], [2.5]], [0, 0, 1, 1, 0, 1]
        >>> folds = [[0, 2], [1, 3], [4, 5]]
        >>> fitted = [LogisticRegression().fit([X[i] for i in range(6) if i not in f],
        ...                                    [y[i] for i in range(6) if i not in f])
        ...           for f in folds]
        >>> cv = {"estimator": fitted, "indices": {"test": folds}}
        >>> RocCurveDisplay.from_cv_results(cv, X, y).line_[0].get_label()
        'AUC = 1.00 +/- 0.00'
        """
        fprs, tprs, aucs = [], [], []
        for X_test, y_test, w_test, est in _curves.cv_folds(cv_results, X, y, sample_weight):
            score, label = binary_response(est, X_test, response_method, pos_label,
                                           "RocCurveDisplay.from_cv_results")
            fpr, tpr, _ = _ranking.roc_curve(y_test, score, pos_label=label,
                                             sample_weight=w_test,
                                             drop_intermediate=drop_intermediate)
            fprs.append(fpr), tprs.append(tpr), aucs.append(float(_ranking.auc(fpr, tpr)))
        display = cls(fpr=fprs, tpr=tprs, roc_auc=aucs, name=name, pos_label=label)
        return display.plot(ax=ax, curve_kwargs=curve_kwargs,
                            plot_chance_level=plot_chance_level,
                            chance_level_kw=chance_level_kw, despine=despine)
