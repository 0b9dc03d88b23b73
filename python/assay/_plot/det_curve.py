"""DetCurveDisplay: scikit-learn's detection error tradeoff display, its numbers from
assay.metrics.det_curve, on normal-deviate axes."""
import numpy as np

from .. import _ranking
from ._base import (axes, binary_response, estimator_name, legend_name,
                    positive_label_suffix, resolved_pos_label, style)

# Error rates marked on both axes (as percentages), as scikit-learn marks them.
_TICKS = (0.001, 0.01, 0.05, 0.20, 0.5, 0.80, 0.95, 0.99, 0.999)


def normal_deviate(p):
    """The standard normal quantile of each rate (-inf at 0, inf at 1): the DET axes' scale."""
    from scipy.special import ndtri
    return ndtri(np.asarray(p, dtype=float))


def _tick_text(p):
    text = f"{p * 100:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


class DetCurveDisplay:
    """Detection error tradeoff (DET) curve plot, as scikit-learn's DetCurveDisplay.

    False negative rate against false positive rate, both on the normal-deviate scale, so a
    classifier whose scores are normal in each class draws a straight line.

    Parameters
    ----------
    fpr : ndarray
        False positive rates.
    fnr : ndarray
        False negative rates.
    name : str, default=None
        Legend name; None shows none.
    pos_label : int, float, bool or str, default=None
        The positive class, shown in the axis labels when given.
    estimator_name : str, default=None
        The older spelling of ``name`` in scikit-learn (kept as an attribute with the same value).

    Attributes
    ----------
    line_ : matplotlib Line2D
        The curve, drawn at (normal deviate of fpr, normal deviate of fnr).
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure holding ``ax_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from assay.metrics import DetCurveDisplay
    >>> d = DetCurveDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> d.fpr.tolist(), d.fnr.tolist()
    ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5])
    """

    def __init__(self, *, fpr, fnr, name=None, pos_label=None, estimator_name=None):
        self.fpr, self.fnr, self.pos_label = fpr, fnr, pos_label
        self.name = self.estimator_name = legend_name(name, estimator_name)

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the curve.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        name : str, default=None
            Legend name; None uses the ``name`` attribute.
        **kwargs
            Keywords for matplotlib's ``plot``.

        Returns
        -------
        DetCurveDisplay
            The display itself, with its artists set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import DetCurveDisplay
        >>> d = DetCurveDisplay(fpr=[0.5, 0.5, 0.0], fnr=[0.0, 0.5, 0.5]).plot(name="rule")
        >>> d.line_.get_ydata().round(3).tolist()
        [-inf, 0.0, 0.0]
        """
        name = self.name if name is None else name
        kw = style({} if name is None else {"label": name}, kwargs)
        ax = axes(ax, "DetCurveDisplay.plot")
        (self.line_,) = ax.plot(normal_deviate(self.fpr), normal_deviate(self.fnr), **kw)
        suffix = positive_label_suffix(self.pos_label)
        ax.set(xlabel="False Positive Rate" + suffix, ylabel="False Negative Rate" + suffix)
        if "label" in kw:
            ax.legend(loc="lower right")
        at = normal_deviate(_TICKS)
        text = [_tick_text(p) for p in _TICKS]
        ax.set_xticks(at)
        ax.set_xticklabels(text)
        ax.set_yticks(at)
        ax.set_yticklabels(text)
        ax.set_xlim(-3, 3)
        ax.set_ylim(-3, 3)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(cls, y_true, y_score, *, sample_weight=None, pos_label=None,
                         name=None, ax=None, **kwargs):
        """DET curve of true labels and scores.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True binary labels.
        y_score : array-like of shape (n_samples,)
            Scores of the positive class.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        pos_label : int, float, bool or str, default=None
            The positive class; None means 1 for labels in {0, 1} or {-1, 1}.
        name : str, default=None
            Legend name; None gives "Classifier".
        ax : matplotlib Axes, default=None
            Axes to draw on.
        **kwargs
            Keywords for matplotlib's ``plot``.

        Returns
        -------
        DetCurveDisplay
            The drawn display.

        Raises
        ------
        assay.AssayError
            For labels that are not binary.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import DetCurveDisplay
        >>> d = DetCurveDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> d.line_.get_label(), d.ax_.get_xlim()
        ('Classifier', (-3.0, 3.0))
        """
        fpr, fnr, _ = _ranking.det_curve(y_true, y_score, pos_label=pos_label,
                                         sample_weight=sample_weight)
        display = cls(fpr=fpr, fnr=fnr, name="Classifier" if name is None else name,
                      pos_label=resolved_pos_label(y_true, pos_label))
        return display.plot(ax=ax, **kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, sample_weight=None, response_method="auto",
                       pos_label=None, name=None, ax=None, **kwargs):
        """DET curve of a fitted binary classifier on (X, y).

        Parameters
        ----------
        estimator : fitted classifier
            A scikit-learn-style binary classifier.
        X : array-like of shape (n_samples, n_features)
            Input rows.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
            The scores used; "auto" tries ``predict_proba`` first.
        pos_label : int, float, bool or str, default=None
            The positive class; None means the estimator's ``classes_[1]``.
        name : str, default=None
            Legend name; None gives the estimator's class name.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        **kwargs
            Keywords for matplotlib's ``plot``.

        Returns
        -------
        DetCurveDisplay
            The drawn display.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.
        ValueError
            If it is not a binary classifier.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.linear_model import LogisticRegression
        >>> from assay.metrics import DetCurveDisplay
        >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
        >>> model = LogisticRegression().fit(X, y)
        >>> DetCurveDisplay.from_estimator(model, X, y).line_.get_label()
        'LogisticRegression'
        """
        score, pos_label = binary_response(estimator, X, response_method, pos_label,
                                           "DetCurveDisplay.from_estimator")
        return cls.from_predictions(y, score, sample_weight=sample_weight, pos_label=pos_label,
                                    name=estimator_name(estimator) if name is None else name,
                                    ax=ax, **kwargs)
